"""``evaluate(engine="duckdb")`` against ``engine="polars"``: same shape, names, dtypes, query
order, warnings and values (within 1e-12), on generated runs and judgments with score ties,
graded, zero and negative labels, unjudged documents, queries missing from the run, run
queries without judgments, and string or integer ids — for every registered metric, the
recommender metrics with generated interactions, item features (each kind) and catalogs."""

from __future__ import annotations

import warnings
from unittest import mock

import duckdb
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from tests.support.strategies import (
    CASED_DOCS,
    CASED_QUERIES,
    SHARE,
    assert_same,
    examples,
    registry_metric_names,
    runs_and_qrels,
    share,
    summary_metric_names,
)

#: Every ranking metric (the judged table); for summary rows, those with a summary.
METRICS = registry_metric_names(table="judged")
SUMMARY_METRICS = summary_metric_names(table="judged")


def _evaluate(run, qrels, engine: str, metrics=None, **options):
    metrics = metrics or (METRICS if options.get("per_query") else SUMMARY_METRICS)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = pr.evaluate(run, qrels, metrics, engine=engine, **options)
    return result, [str(w.message) for w in caught]


def assert_engines_agree(
    run, qrels, recommender: dict | None = None, part: int | None = None, **options
) -> None:
    """Both engines, per query and summarised; with ``recommender`` inputs, every registered
    metric (corpus-level ones in the summary only), else the ranking metrics; with ``part``,
    that share of them (:func:`~tests.support.strategies.share`)."""
    inputs = {}
    kind = None
    if recommender is not None:
        kind = recommender["kind"]
        inputs = {k: v for k, v in recommender.items() if k != "kind"}
    for per_query in (True, False):
        if recommender is None:
            metrics = METRICS if per_query else SUMMARY_METRICS
        elif per_query:
            metrics = registry_metric_names(level="query", kind=kind)
        else:
            metrics = summary_metric_names(kind=kind)
        if part is not None:
            metrics = share(metrics, part)
        polars_result, polars_warnings = _evaluate(
            run, qrels, "polars", metrics, per_query=per_query, **inputs, **options
        )
        duckdb_result, duckdb_warnings = _evaluate(
            run, qrels, "duckdb", metrics, per_query=per_query, **inputs, **options
        )
        assert_same(polars_result, duckdb_result)
        assert polars_warnings == duckdb_warnings


# every example runs a share of the registered metrics in both engines (seconds each): 2 in the
# fast loop
@settings(
    max_examples=examples(40, fast=2),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    data=runs_and_qrels(recommender=True),
    queries=st.sampled_from(["qrels", "both"]),
    relevance_level=st.sampled_from([1, 2, 0.5]),
    order_by=st.sampled_from([None, "rank"]),
    max_rank=st.sampled_from([None, None, 1, 3]),
    pairwise_max=st.sampled_from([32, 1, 0]),
    polars_pairwise_max=st.sampled_from([32, 1, 0]),
    part=SHARE,
)
def test_engines_agree(
    data, queries, relevance_level, order_by, max_rank, pairwise_max, polars_pairwise_max, part
) -> None:
    """``pairwise_max`` and ``polars_pairwise_max`` move queries between each engine's two ways
    of ranking (counting the documents above each judged one, or sorting the query). Every
    registered metric, the recommender ones with generated interactions, item features and
    catalogs."""
    run, qrels, recommender = data
    if order_by is None:
        run = run.drop("rank")
    with (
        mock.patch("polars_rank.engines.duckdb.query.PAIRWISE_MAX_JUDGED", pairwise_max),
        mock.patch("polars_rank.core.judged.PAIRWISE_MAX_JUDGED", polars_pairwise_max),
    ):
        assert_engines_agree(
            run,
            qrels,
            recommender,
            part,
            queries=queries,
            relevance_level=relevance_level,
            order_by=order_by,
            max_rank=max_rank,
        )


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs_and_qrels(duplicates=True), duplicates=st.sampled_from(["first", "max"]))
def test_engines_agree_on_duplicates(data, duplicates) -> None:
    run, qrels = data
    assert_engines_agree(run.drop("rank"), qrels, duplicates=duplicates)


def test_first_duplicate_is_first_in_input_order() -> None:
    run = pl.DataFrame(
        {"query": ["q"] * 4, "doc": ["a", "b", "a", "c"], "score": [0.1, 0.5, 0.9, 0.3]}
    )
    qrels = pl.DataFrame({"query": ["q"], "doc": ["a"], "relevance": [1]})
    # first: a keeps 0.1 and ranks 3rd (b 0.5, c 0.3, a 0.1); max: a keeps 0.9 and ranks 1st
    for duplicates, expected in (("first", 1 / 3), ("max", 1.0)):
        for engine in ("polars", "duckdb"):
            result = pr.evaluate(run, qrels, "RR", engine=engine, duplicates=duplicates)
            assert result["RR"][0] == pytest.approx(expected)


def test_queries_missing_and_without_relevant() -> None:
    run = pl.DataFrame({"query": ["q1", "q1", "q4"], "doc": ["a", "b", "x"], "score": [2.0, 1, 1]})
    qrels = pl.DataFrame(
        {"query": ["q1", "q2", "q3", "q3"], "doc": ["b", "z", "a", "b"], "relevance": [1, 1, 0, -1]}
    )
    assert_engines_agree(run, qrels)
    assert_engines_agree(run, qrels, queries="both")
    result = pr.evaluate(
        run, qrels, ["RR", "NumRet"], per_query=True, engine="duckdb", queries="qrels"
    )
    assert result.rows() == [("q1", 0.5, 2.0), ("q2", 0.0, 0.0), ("q3", 0.0, 0.0)]


def test_no_judged_query_gives_nulls_and_zero_sums() -> None:
    run = pl.DataFrame({"query": ["q1"], "doc": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["q2"], "doc": ["a"], "relevance": [1]})
    for per_query in (True, False):
        polars_result, polars_warnings = _evaluate(
            run, qrels, "polars", per_query=per_query, queries="both"
        )
        duckdb_result, duckdb_warnings = _evaluate(
            run, qrels, "duckdb", per_query=per_query, queries="both"
        )
        assert_same(polars_result, duckdb_result)
        assert (
            polars_warnings
            == duckdb_warnings
            == ["1 query in the run has no judgments and was not evaluated"]
        )


@pytest.mark.parametrize("dtype", [pl.Int32, pl.UInt32, pl.Int64, pl.String])
def test_query_dtype_is_kept(dtype) -> None:
    run = pl.DataFrame({"query": [3, 3, 12], "doc": [1, 2, 1], "score": [1.0, 2.0, 3.0]})
    qrels = pl.DataFrame({"query": [3, 12], "doc": [1, 5], "relevance": [1, 2]})
    run = run.with_columns(pl.col("query", "doc").cast(dtype))
    qrels = qrels.with_columns(pl.col("query", "doc").cast(dtype))
    assert_engines_agree(run, qrels)


def _inputs(tmp_path, con, run: pl.DataFrame, qrels: pl.DataFrame) -> dict:
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    con.register("run_frame", run)
    con.register("qrels_frame", qrels)
    con.execute("CREATE TABLE run_table AS SELECT * FROM run_frame")
    con.execute("CREATE TABLE qrels_table AS SELECT * FROM qrels_frame")
    return {
        "lazy": (run.lazy(), qrels.lazy()),
        "relation": (con.sql("SELECT * FROM run_frame"), con.sql("SELECT * FROM qrels_frame")),
        "table": ("run_table", "qrels_table"),
        "parquet": (str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet")),
    }


def test_every_input_kind_gives_the_same_result(tmp_path) -> None:
    run = pl.DataFrame(
        {
            "query": ["q1", "q1", "q1", "q2"],
            "doc": ["a", "b", "c", "a"],
            "score": [1.0, 1.0, 0.5, 2.0],
        }
    )
    qrels = pl.DataFrame(
        {"query": ["q1", "q1", "q3"], "doc": ["b", "d", "a"], "relevance": [2, 1, 1]}
    )
    expected = pr.evaluate(run, qrels, METRICS, per_query=True)
    con = duckdb.connect()
    for kind, (r, q) in _inputs(tmp_path, con, run, qrels).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = pr.evaluate(r, q, METRICS, per_query=True, engine="duckdb", con=con)
        if kind == "lazy":
            assert isinstance(result, pl.LazyFrame)
            result = result.collect()
        assert_same(expected, result)


def test_other_column_names() -> None:
    run = pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "sim": [0.3, 0.7]})
    qrels = pl.DataFrame({"qid": ["1"], "docno": ["a"], "grade": [1]})
    options = {"query": "qid", "doc": "docno", "score": "sim", "relevance": "grade"}
    for per_query in (True, False):
        a = pr.evaluate(run, qrels, ["RR", "nDCG"], per_query=per_query, **options)
        b = pr.evaluate(run, qrels, ["RR", "nDCG"], per_query=per_query, engine="duckdb", **options)
        assert_same(a, b)


#: DuckDB collations that would change how text ids compare if the engine did not fix bytes
COLLATIONS = ["nocase", "noaccent", "nocase.noaccent", "nfc"]


@pytest.mark.parametrize("collation", COLLATIONS)
def test_tie_break_is_bytewise_under_any_default_collation(collation) -> None:
    """Docs 'B' and 'a' tie, 'B' is relevant. As bytes 'a' (0x61) > 'B' (0x42), so trec_eval's
    descending doc order ranks 'a' first and 'B' second: RR = 1/2 — in the Polars engine, the
    DuckDB engine and the judge macro, whatever the connection's default collation."""
    run = pl.DataFrame({"query": ["q", "q"], "doc": ["B", "a"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"], "doc": ["B"], "relevance": [1]})
    con = duckdb.connect()
    con.execute(f"SET default_collation = '{collation}'")
    assert pr.evaluate(run, qrels, ["RR"])["RR"][0] == 0.5
    assert pr.evaluate(run, qrels, ["RR"], engine="duckdb", con=con)["RR"][0] == 0.5
    pr.duckdb.register(con)
    con.register("run_t", run)
    con.register("qrels_t", qrels)
    judged = con.sql("SELECT doc, rank FROM judge('run_t', 'qrels_t') ORDER BY rank").fetchall()
    assert judged == [("a", 1), ("B", 2)]


@pytest.mark.slow
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=runs_and_qrels(queries=CASED_QUERIES, docs=CASED_DOCS, recommender=True),
    collation=st.sampled_from(COLLATIONS),
    part=SHARE,
)
def test_engines_agree_under_any_default_collation(data, collation, part) -> None:
    """Ids that differ only in case or accents stay distinct, and sort as bytes, on a DuckDB
    connection whose default collation would merge or reorder them — also in the recommender
    metrics' joins, pairs and long-tail order."""
    run, qrels, recommender = data
    kind = recommender.pop("kind")
    con = duckdb.connect()
    con.execute(f"SET default_collation = '{collation}'")
    for per_query in (True, False):
        metrics = share(
            registry_metric_names(level="query", kind=kind)
            if per_query
            else summary_metric_names(kind=kind),
            part,
        )
        expected, expected_warnings = _evaluate(
            run, qrels, "polars", metrics, per_query=per_query, **recommender
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = pr.evaluate(
                run,
                qrels,
                metrics,
                engine="duckdb",
                con=con,
                per_query=per_query,
                **recommender,
            )
        assert_same(expected, got)
        assert expected_warnings == [str(w.message) for w in caught]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_summary_is_repeatable_to_the_last_bit(engine) -> None:
    """Per-query values are added in query order, whatever order the engine produced the
    queries in: shuffled inputs give the same summary bits, and the summary equals the
    sequential sum over queries sorted by id."""
    from polars_rank.demo import demo_data

    qrels, runs = demo_data()
    run = runs["bm25"]
    metrics = ["AP", "nDCG@10", "gm_map", "NumRel"]
    expected = pr.evaluate(run, qrels, metrics, engine=engine).row(0)
    for seed in range(8):
        shuffled = run.sample(fraction=1.0, shuffle=True, seed=seed)
        assert pr.evaluate(shuffled, qrels, metrics, engine=engine).row(0) == expected
    per_query = pr.evaluate(run, qrels, ["AP"], per_query=True).sort("query")
    total = 0.0
    for value in per_query["AP"]:
        total += value
    assert pr.evaluate(run, qrels, ["AP"], engine="polars")["AP"][0] == total / per_query.height
