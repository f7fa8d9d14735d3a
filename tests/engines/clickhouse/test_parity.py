"""``evaluate(..., engine="clickhouse")`` (chDB, in process) gives the Polars engine's result —
columns, dtypes, query order, values within 1e-12, warnings and errors — on Polars frames,
PyArrow tables, Parquet paths and table names of the session; so do the classification,
rating and off-policy entry points."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank.core.errors import PolarsRankError
from tests.support.policy import ALL, random_log
from tests.support.ratings import WEIGHTED, random_tables
from tests.support.sql_cases import METRICS, TREC_CASES, accepted, stacked_random, trec_case
from tests.support.strategies import assert_same, examples, runs_and_qrels


def _evaluate(run, qrels, metrics, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = pr.evaluate(run, qrels, metrics, **options)
    return result, [str(w.message) for w in caught]


def assert_like_polars(run, qrels, metrics=METRICS, *, ch_run=None, ch_qrels=None, **options):
    """``engine="clickhouse"`` (on ``ch_run`` / ``ch_qrels`` when given, else on the Polars
    frames) equals the Polars engine: result and warnings."""
    expected, expected_warnings = _evaluate(run, qrels, metrics, **options)
    got, got_warnings = _evaluate(
        run if ch_run is None else ch_run,
        qrels if ch_qrels is None else ch_qrels,
        metrics,
        engine="clickhouse",
        **options,
    )
    assert_same(expected, got)
    assert got_warnings == expected_warnings


@pytest.mark.parametrize(
    "case",  # one case in the fast loop, all with -m slow
    [c if c == "test" else pytest.param(c, marks=pytest.mark.slow) for c in sorted(TREC_CASES)],
)
def test_trec_eval_files(trec_dir, case):
    run, qrels, options = trec_case(trec_dir, case)
    metrics = accepted(qrels)
    assert_like_polars(run, qrels, metrics, per_query=True, **options)
    assert_like_polars(run, qrels, metrics, **options)


def test_arrow_parquet_and_table_names(clickhouse, trec_dir, tmp_path):
    """Arrow tables and Parquet paths become temporary tables (dropped afterwards); table
    names of the caller's session (con=) are read where they are; by= is the SQL's."""
    run, qrels, options = trec_case(trec_dir, "trunc_c_M100")
    assert_like_polars(run, qrels, ch_run=run.to_arrow(), ch_qrels=qrels.to_arrow(), **options)
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    paths = str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet")
    assert_like_polars(run, qrels, ch_run=paths[0], ch_qrels=paths[1], per_query=True, **options)
    clickhouse.load("pr_engine_run", run)
    clickhouse.load("pr_engine_qrels", qrels)
    before = clickhouse.query("SHOW TABLES").to_series().to_list()
    assert_like_polars(
        run,
        qrels,
        ch_run="pr_engine_run",
        ch_qrels="pr_engine_qrels",
        con=clickhouse.session,
        **options,
    )
    assert clickhouse.query("SHOW TABLES").to_series().to_list() == before
    assert clickhouse.query("SELECT count() FROM system.tables WHERE is_temporary").item() == 0
    systems = pl.concat([run.with_columns(sys=pl.lit(s)) for s in ("a", "b")])
    assert_like_polars(systems, qrels, by="sys", per_query=True, **options)
    assert_like_polars(systems, qrels, by="sys", **options)


@pytest.mark.parametrize("int_ids", [False, True], ids=["text ids", "integer ids"])
def test_random_stacked(int_ids):
    run, qrels = stacked_random(20, int_ids=int_ids)
    assert_like_polars(run, qrels, per_query=True)
    doubled = pl.concat([run, run.with_columns(pl.col("score") - 1).head(60)])
    assert_like_polars(doubled, qrels, per_query=True, duplicates="max")


@pytest.mark.slow
@settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    data=runs_and_qrels(),
    queries=st.sampled_from(["qrels", "both"]),
    relevance_level=st.sampled_from([1, 2]),
    max_rank=st.sampled_from([None, 3]),
)
def test_generated(data, queries, relevance_level, max_rank):
    """Ties, integer or text ids, graded and negative judgments, queries on one side only."""
    run, qrels = data
    options = {"queries": queries, "relevance_level": relevance_level, "max_rank": max_rank}
    assert_like_polars(run.drop("rank"), qrels, per_query=True, **options)


def _message(call) -> str:
    with pytest.raises(PolarsRankError) as caught:
        call()
    return str(caught.value)


def test_input_errors_are_the_polars_engines(tmp_path):
    """Frames are checked in Polars, Parquet files and tables in ClickHouse: the same
    messages as the Polars engine (the first bad row counted in the file's order)."""
    run = pl.DataFrame({"query": ["a"] * 4, "doc": ["x", "y", "z", "w"], "score": [1.0] * 4})
    qrels = pl.DataFrame({"query": ["a", "a"], "doc": ["x", "y"], "relevance": [1, 0]})
    bad_inputs = [
        (run.with_columns(score=pl.Series([1.0, 2.0, float("nan"), None])), qrels),
        (run.with_columns(doc=pl.Series(["x", None, "z", "w"])), qrels),
        (run.with_columns(doc=pl.Series(["x", "y", "x", "w"])), qrels),
        (run, pl.concat([qrels, qrels.head(1).with_columns(relevance=pl.lit(3, pl.Int64))])),
        (run, qrels.with_columns(relevance=pl.Series([1.0, float("nan")]))),
        (run, qrels.with_columns(relevance=pl.Series([1.0, float("inf")]))),
        (run.clear(), qrels),
        (run, qrels.clear()),
    ]
    for bad_run, bad_qrels in bad_inputs:
        expected = _message(lambda r=bad_run, q=bad_qrels: pr.evaluate(r, q, ["AP"]))
        on_frames = _message(
            lambda r=bad_run, q=bad_qrels: pr.evaluate(r, q, ["AP"], engine="clickhouse")
        )
        assert on_frames == expected
        bad_run.write_parquet(tmp_path / "run.parquet")
        bad_qrels.write_parquet(tmp_path / "qrels.parquet")
        paths = str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet")
        on_files = _message(lambda p=paths: pr.evaluate(*p, ["AP"], engine="clickhouse"))
        assert on_files == expected
    for run_in, qrels_in, options, expected in [
        (run, qrels.rename({"relevance": "rel"}), {}, "qrels has no column"),
        (run, qrels, {"duplicates": "first"}, "duplicates='first' needs the inputs' row order"),
        ("no_such_table", qrels, {}, "run table 'no_such_table' cannot be read by ClickHouse"),
        (run, qrels, {"con": object()}, "con= a chDB session"),
    ]:
        with pytest.raises(PolarsRankError, match=expected):
            pr.evaluate(run_in, qrels_in, ["AP"], engine="clickhouse", **options)
    with pytest.raises(PolarsRankError, match="clickhouse.*string-valued.*relstring"):
        pr.evaluate(run, qrels, ["relstring"], engine="clickhouse", per_query=True)
    # a recommender metric without the table it reads: the Polars engine's message
    expected = _message(lambda: pr.evaluate(run, qrels, ["novelty@5"]))
    assert _message(lambda: pr.evaluate(run, qrels, ["novelty@5"], engine="clickhouse")) == (
        expected
    )


def test_left_out_warning_lazy_frames_and_integer_ids():
    run = pl.DataFrame({"query": [1, 1, 2], "doc": [10, 9, 3], "score": [1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query": [1], "doc": [9], "relevance": [1]})
    with pytest.warns(UserWarning, match="1 query in the run has no judgments"):
        got = pr.evaluate(run.lazy(), qrels, ["RR", "P@1"], engine="clickhouse", per_query=True)
    assert isinstance(got, pl.LazyFrame)
    assert got.collect().rows() == [(1, 1.0, 1.0)]  # doc 9 ranks above doc 10 (text order)
    only_run = qrels.with_columns(query=pl.lit(7, pl.Int64))
    assert_like_polars(run, only_run, ["AP"], per_query=True)  # nothing to evaluate


#: Classification metrics of every kind: rank-based, probabilistic, thresholded, counts, GAUC.
CLASSIFICATION = [
    "AUC",
    "AP",
    "LogLoss",
    "Brier",
    "calibration",
    "precision(threshold=0.3)",
    "F1(zero_division=1)",
    "TP",
    "FN",
    "GAUC",
]


def test_classification_ratings_and_policy():
    """The other families through the engine: equal to the Polars engine within 1e-12."""
    rng = np.random.default_rng(7)
    n = 300
    frame = pl.DataFrame(  # tied scores (tenths), tiny GAUC groups, a segment of NULLs
        {
            "seg": pl.Series(rng.integers(0, 4, n)).replace(3, None),
            "user": rng.integers(0, n // 3, n),
            "label": rng.integers(0, 2, n),
            "score": rng.integers(0, 11, n) / 10,
            "w": rng.integers(1, 5, n) / 2,
        }
    )
    for weight in (None, "w"):
        options = {"by": "seg", "group": "user", "weight": weight}
        want = pr.evaluate_classification(frame, CLASSIFICATION, **options)
        got = pr.evaluate_classification(frame, CLASSIFICATION, engine="clickhouse", **options)
        assert_same(want, got)
    ratings, rated = random_tables(24)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = pr.evaluate_ratings(ratings, rated, WEIGHTED, by="market", weight="w")
        got = pr.evaluate_ratings(
            ratings, rated, WEIGHTED, by="market", weight="w", engine="clickhouse"
        )
    assert_same(want, got)
    data = random_log(34)
    options = {"q_hat": data["q_hat"], "by": "day", "lambda_": 2.5}
    want = pr.evaluate_policy(data["log"], data["policy"], ALL, **options)
    got = pr.evaluate_policy(data["log"], data["policy"], ALL, engine="clickhouse", **options)
    assert_same(want, got)
