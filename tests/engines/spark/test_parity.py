"""Spark ``local[2]``: ``evaluate(..., engine="spark")`` gives the Polars engine's result —
columns, dtypes, query order, values within 1e-12, warnings and errors — and
``to_sql(..., "spark")`` run on temporary views gives its numbers.

One session serves the whole test run (the ``spark`` fixture); the data is small and the number
of Spark queries kept low, as each costs a second or two of planning."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank.core.errors import PolarsRankError
from tests.support.sql_cases import (
    METRICS,
    OPTION_SETS,
    RECOMMENDER_OPTIONS,
    RECOMMENDER_TABLES,
    TREC_CASES,
    accepted,
    assert_case_sensitive_ids,
    assert_recommender_sql,
    assert_sql_result,
    case_frames,
    compiled,
    recommender_random,
    stacked_random,
    trec_case,
)
from tests.support.strategies import assert_same, examples, runs_and_qrels


def _evaluate(run, qrels, metrics, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = pr.evaluate(run, qrels, metrics, **options)
    return result, [str(w.message) for w in caught]


def assert_like_polars(run, qrels, metrics=METRICS, *, spark_run=None, spark_qrels=None, **options):
    """``engine="spark"`` (on ``spark_run`` / ``spark_qrels`` when given, else on the Polars
    frames) equals the Polars engine: result and warnings."""
    expected, expected_warnings = _evaluate(run, qrels, metrics, **options)
    got, got_warnings = _evaluate(
        run if spark_run is None else spark_run,
        qrels if spark_qrels is None else spark_qrels,
        metrics,
        engine="spark",
        **options,
    )
    assert_same(expected, got)
    assert got_warnings == expected_warnings


@pytest.mark.smoke
def test_smoke(spark, trec_dir):
    """The fast loop's Spark test (one session start): trec_eval's ``test`` files through
    ``engine="spark"``, per query and summary, a few metrics of each kind of window and
    denominator (the Polars engine's numbers, which the oracles check)."""
    run, qrels, options = trec_case(trec_dir, "test")
    metrics = ["P@10", "ndcg_cut@10", "map", "bpref", "recip_rank", "num_rel_ret", "Rprec"]
    assert_like_polars(run, qrels, metrics, per_query=True, **options)
    assert_like_polars(run, qrels, metrics, **options)


@pytest.mark.parametrize("case", sorted(TREC_CASES))  # -m slow, as every Spark test but one
def test_trec_eval_files(spark, trec_dir, case):
    run, qrels, options = trec_case(trec_dir, case)
    metrics = accepted(qrels)
    assert_like_polars(run, qrels, metrics, per_query=True, **options)
    assert_like_polars(run, qrels, metrics, **options)


@pytest.mark.slow
def test_spark_dataframes_and_table_names(spark, trec_dir):
    """Spark inputs are checked in Spark; table names are read with the session ``con``."""
    run, qrels, options = trec_case(trec_dir, "trunc_c_M100")
    run_df, qrels_df = (
        spark.createDataFrame(run.to_arrow()),
        spark.createDataFrame(qrels.to_arrow()),
    )
    assert_like_polars(
        run, qrels, per_query=True, spark_run=run_df, spark_qrels=qrels_df, **options
    )
    run_df.createOrReplaceTempView("pr_test_run")
    qrels_df.createOrReplaceTempView("pr_test_qrels")
    assert_like_polars(
        run, qrels, spark_run="pr_test_run", spark_qrels="pr_test_qrels", con=spark, **options
    )


@pytest.mark.slow
@pytest.mark.parametrize("case", ["test_c", "trunc_c_M100"])
def test_to_sql_on_temporary_views(spark, trec_dir, case):
    """The SQL text itself, as a user would paste it into a notebook (``engine="spark"`` runs
    the same text on every case above)."""
    run, qrels, options = trec_case(trec_dir, case)
    spark.createDataFrame(run.to_arrow()).createOrReplaceTempView("run_t")
    spark.createDataFrame(qrels.to_arrow()).createOrReplaceTempView("qrels_t")
    sql = compiled(METRICS, "spark", "run_t", "qrels_t", per_query=True, **options)
    assert_sql_result(pl.from_arrow(spark.sql(sql).toArrow()), run, qrels, METRICS, **options)


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_to_sql_random_stacked(spark, options):
    int_ids = OPTION_SETS.index(options) % 2 == 1
    run, qrels = stacked_random(40, int_ids=int_ids)
    spark.createDataFrame(run.to_arrow()).createOrReplaceTempView("run_t")
    spark.createDataFrame(qrels.to_arrow()).createOrReplaceTempView("qrels_t")
    sql = compiled(METRICS, "spark", "run_t", "qrels_t", per_query=True, **options)
    assert_sql_result(pl.from_arrow(spark.sql(sql).toArrow()), run, qrels, METRICS, **options)


@pytest.mark.slow
@settings(
    max_examples=examples(5),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    data=runs_and_qrels(),
    queries=st.sampled_from(["qrels", "both"]),
    relevance_level=st.sampled_from([1, 2]),
    max_rank=st.sampled_from([None, 3]),
)
def test_generated(spark, data, queries, relevance_level, max_rank):
    """Ties, integer or text ids, graded and negative judgments, queries on one side only."""
    run, qrels = data
    options = {"queries": queries, "relevance_level": relevance_level, "max_rank": max_rank}
    assert_like_polars(run.drop("rank"), qrels, per_query=True, **options)


@pytest.mark.slow
def test_duplicates_max_and_rank_order(spark):
    """``duplicates="max"`` (checked in Spark: no duplicate error) and ranking by the run's
    ``rank`` column, on Spark DataFrames."""
    run, qrels = stacked_random(5, int_ids=False)
    doubled = pl.concat([run, run.with_columns(pl.col("score") - 1).head(60)])
    regraded = pl.concat([qrels, qrels.with_columns(pl.col("relevance") + 1).head(60)])
    assert_like_polars(
        doubled,
        regraded,
        accepted(regraded),
        per_query=True,
        duplicates="max",
        spark_run=spark.createDataFrame(doubled.to_arrow()),
        spark_qrels=spark.createDataFrame(regraded.to_arrow()),
    )
    ranked = run.with_columns(rank=(pl.col("score") * 2).cast(pl.Int64).abs() + 1).drop("score")
    assert_like_polars(ranked, qrels, per_query=True, order_by="rank")


def test_left_out_warning_lazy_frames_and_integer_ids(spark):
    run = pl.DataFrame({"query": [1, 1, 2], "doc": [10, 9, 3], "score": [1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query": [1], "doc": [9], "relevance": [1]})
    with pytest.warns(UserWarning, match="1 query in the run has no judgments"):
        got = pr.evaluate(run.lazy(), qrels, ["RR", "P@1"], engine="spark", per_query=True)
    assert isinstance(got, pl.LazyFrame)
    assert got.collect().rows() == [(1, 1.0, 1.0)]  # doc 9 ranks above doc 10 (text order)
    only_run = qrels.with_columns(query=pl.lit(7, pl.Int64))
    assert_like_polars(run, only_run, ["AP"], per_query=True)  # nothing to evaluate


def _message(call) -> str:
    with pytest.raises(PolarsRankError) as caught:
        call()
    return str(caught.value)


def test_input_errors_are_the_polars_engines(spark):
    """Checked in Spark, the same messages as the Polars engine (first bad row included)."""
    run = pl.DataFrame({"query": ["a"] * 4, "doc": ["x", "y", "z", "w"], "score": [1.0] * 4})
    qrels = pl.DataFrame({"query": ["a", "a"], "doc": ["x", "y"], "relevance": [1, 0]})
    bad_inputs = [
        (run.with_columns(score=pl.Series([1.0, 2.0, float("nan"), None])), qrels),
        (run.with_columns(doc=pl.Series(["x", None, "z", "w"])), qrels),
        (run.with_columns(doc=pl.Series(["x", "y", "x", "w"])), qrels),
        (run, pl.concat([qrels, qrels.head(1).with_columns(relevance=pl.lit(3, pl.Int64))])),
        (run, qrels.with_columns(relevance=pl.Series([1.0, float("nan")]))),
        (run.clear(), qrels),
        (run, qrels.clear()),
    ]
    for bad_run, bad_qrels in bad_inputs:
        expected = _message(lambda r=bad_run, q=bad_qrels: pr.evaluate(r, q, ["AP"]))
        spark_run, spark_qrels = (
            spark.createDataFrame(bad_run.to_arrow()),
            spark.createDataFrame(bad_qrels.to_arrow()),
        )
        got = _message(lambda r=spark_run, q=spark_qrels: pr.evaluate(r, q, ["AP"], engine="spark"))
        assert got == expected
    run_df = spark.createDataFrame(run.to_arrow())
    qrels_df = spark.createDataFrame(qrels.to_arrow())
    for run_in, qrels_in, options, expected in [
        (run_df, qrels_df.withColumnRenamed("relevance", "rel"), {}, "qrels has no column"),
        (
            run_df,
            qrels_df.selectExpr("1 AS query", "doc", "relevance"),
            {},
            "run column 'query' is String but qrels column 'query' is Int32",
        ),
        (
            run_df,
            qrels_df,
            {"duplicates": "first"},
            "duplicates='first' needs the inputs' row order, which engine='spark' does not have",
        ),
        ("no_such_table", qrels_df, {}, "run table 'no_such_table' cannot be read by Spark"),
    ]:
        with pytest.raises(PolarsRankError, match=expected):
            pr.evaluate(run_in, qrels_in, ["AP"], engine="spark", **options)


def test_without_pyspark_or_a_session(monkeypatch):
    """pyspark is not a dependency: without it the engine says what to install; without a
    session it says how to pass one."""
    run = pl.DataFrame({"query": ["a"], "doc": ["x"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["a"], "doc": ["x"], "relevance": [1]})
    from pyspark.sql import SparkSession

    with monkeypatch.context() as patch:
        patch.setattr(SparkSession, "getActiveSession", staticmethod(lambda: None))
        with pytest.raises(PolarsRankError, match="needs a SparkSession: pass con=spark"):
            pr.evaluate(run, qrels, ["AP"], engine="spark")
    with monkeypatch.context() as patch:
        for module in ("pyspark", "pyspark.sql"):
            patch.setitem(sys.modules, module, None)  # import pyspark fails
        missing = r"engine='spark' needs pyspark, which is not installed: .*'\.\[spark\]'"
        with pytest.raises(PolarsRankError, match=missing):
            pr.evaluate(run, qrels, ["AP"], engine="spark")


@pytest.mark.slow
@pytest.mark.parametrize("int_ids", [False, True], ids=["text ids", "integer ids"])
def test_to_sql_recommender_metrics(spark, int_ids):
    """Every portable recommender metric with every option (vectors exploded by POSEXPLODE), run
    by Spark on temporary views."""
    frames = recommender_random(60, int_ids=int_ids, seed=3)
    for key, name in RECOMMENDER_TABLES.items():
        spark.createDataFrame(frames[key].to_arrow()).createOrReplaceTempView(name)
    options = RECOMMENDER_OPTIONS[int(int_ids)]
    assert_recommender_sql(
        lambda sql: pl.from_arrow(spark.sql(sql).toArrow()),
        "spark",
        frames,
        batch=12,
        **options,
    )


def test_to_sql_case_insensitive_collation_keeps_ids_apart(spark):
    """Ids and groups that differ only by case stay apart in ``STRING COLLATE UTF8_LCASE``
    columns (Spark 4)."""
    frames = case_frames()
    for name, frame in frames.items():
        columns = [
            f"collate(`{c}`, 'UTF8_LCASE') AS `{c}`"
            if c in ("query", "doc", "grp", "g", "seg") and frame.schema[c] == pl.String
            else f"`{c}`"
            for c in frame.columns
        ]
        spark.createDataFrame(frame.to_arrow()).createOrReplaceTempView("pr_case_frame")
        spark.sql(f"SELECT {', '.join(columns)} FROM pr_case_frame").createOrReplaceTempView(name)
    assert spark.sql("SELECT COUNT(DISTINCT grp) FROM case_run").collect()[0][0] == 1  # guard

    def query(sql):
        return pl.from_arrow(spark.sql(sql).toArrow())

    assert_case_sensitive_ids(query, "spark", frames)


#: Spark session settings that could change a number or a name's meaning, other than the
#: defaults every other Spark test runs under (ANSI mode on, case-insensitive names): ANSI mode
#: off (a division by zero or an overflow gives NULL instead of an error) together with
#: case-sensitive column names.
SPARK_SETTINGS = [
    {"spark.sql.ansi.enabled": "false", "spark.sql.caseSensitive": "true"},
]


@pytest.fixture(params=SPARK_SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
def spark_setting(spark, request):
    """The ``spark`` session under one of :data:`SPARK_SETTINGS`, restored afterwards."""
    before = {key: spark.conf.get(key, None) for key in request.param}
    for key, value in request.param.items():
        spark.conf.set(key, value)
    try:
        yield spark
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


@pytest.mark.slow  # a second pass of the Spark parity tests (100 s); the fast loop has the first
def test_numbers_under_spark_session_settings(spark_setting, trec_dir):
    """ANSI mode on and off and case-sensitive names change no number: the Spark engine and
    the compiled SQL on views with mixed-case column names equal the Polars engine (ranking
    with ``by``, recommender and classification), and the settings are as the caller set
    them afterwards."""
    spark = spark_setting
    settings_before = {key: spark.conf.get(key, None) for s in SPARK_SETTINGS for key in s}
    names = {"query": "Query", "doc": "DocNo", "score": "Score", "relevance": "Rel"}
    run, qrels = stacked_random(12, int_ids=False, seed=5)
    mixed_run = run.rename({k: v for k, v in names.items() if k in run.columns})
    mixed_qrels = qrels.rename({k: v for k, v in names.items() if k in qrels.columns})
    spark.createDataFrame(mixed_run.to_arrow()).createOrReplaceTempView("run_mixed")
    spark.createDataFrame(mixed_qrels.to_arrow()).createOrReplaceTempView("qrels_mixed")
    # the compiled SQL, per query, on the mixed-case views
    sql = pr.to_sql(METRICS, "spark", "run_mixed", "qrels_mixed", per_query=True, **names)
    got = pl.from_arrow(spark.sql(sql).toArrow())
    assert_sql_result(got, mixed_run, mixed_qrels, METRICS, **names)
    # the Spark engine on DataFrames with those names
    assert_like_polars(
        mixed_run,
        mixed_qrels,
        spark_run=spark.table("run_mixed"),
        spark_qrels=spark.table("qrels_mixed"),
        **names,
    )
    # trec_eval's own test file through the engine
    trec_run, trec_qrels, options = trec_case(trec_dir, "test")
    assert_like_polars(trec_run, trec_qrels, accepted(trec_qrels), **options)
    # recommender metrics (every portable one) on the same session
    frames = recommender_random(24, int_ids=False, seed=4)
    for key, name in RECOMMENDER_TABLES.items():
        spark.createDataFrame(frames[key].to_arrow()).createOrReplaceTempView(name)
    assert_recommender_sql(
        lambda text: pl.from_arrow(spark.sql(text).toArrow()), "spark", frames, batch=12
    )
    # classification with tied scores, a segment and a group (GAUC), in the engine
    rng = np.random.default_rng(9)
    preds = pl.DataFrame(
        {
            "Label": rng.integers(0, 2, 400),
            "Score": np.round(rng.random(400), 1),  # ties
            "Seg": rng.choice(["a", "B"], 400),
            "User": rng.integers(0, 40, 400),
        }
    )
    metrics = ["AUC", "GAUC", "AP", "LogLoss", "F1"]
    kinds = {"label": "Label", "score": "Score", "by": "Seg", "group": "User"}
    expected = pr.evaluate_classification(preds, metrics, **kinds)
    got = pr.evaluate_classification(
        spark.createDataFrame(preds.to_arrow()), metrics, engine="spark", **kinds
    )
    assert_same(expected, got)
    assert {key: spark.conf.get(key, None) for key in settings_before} == settings_before
