"""``evaluate(engine="duckdb")`` against ``engine="polars"``: same shape, names, dtypes, query
order, warnings and values (within 1e-12), on generated runs and judgments with score ties,
graded, zero and negative labels, unjudged documents, queries missing from the run, run
queries without judgments, and string or integer ids."""

from __future__ import annotations

import math
import warnings
from unittest import mock

import duckdb
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rank as pr

#: every measure, with and without cutoffs and parameters
METRICS = [
    "P@1",
    "P@5",
    "P(rel=2)@3",
    "R",
    "R@5",
    "R(rel=2)@3",
    "R_cap@3",
    "R_cap(rel=2)@2",
    "Success@1",
    "Success",
    "HR(rel=2)@3",
    "Hits",
    "Hits@3",
    "RR",
    "RR@3",
    "RR(rel=2)",
    "AP",
    "AP@3",
    "AP(denominator=min)@3",
    "AP(rel=2)",
    "gm_map",
    "gm_map@5",
    "nDCG",
    "nDCG@3",
    "nDCG(gain=exp)@5",
    "nDCG(gain=exp)",
    "DCG",
    "DCG@2",
    "dcg_burges@3",
    "Rprec",
    "Rprec(rel=2)",
    "bpref",
    "bpref(rel=2)",
    "F1",
    "F1@3",
    "F1(rel=2)@2",
    "Judged",
    "Judged@3",
    "unj@3",
    "NumRet",
    "NumRel",
    "NumRel(rel=2)",
    "NumRelRet",
    "num_nonrel_judged_ret",
    "num_nonrel_judged_ret(rel=2)",
    "NumQ",
    "SetP",
    "SetR",
    "SetF",
    "SetF(beta=0.5)",
    "SetP(rel=2)",
    "IPrec@0",
    "IPrec@0.1",
    "IPrec@0.25",
    "IPrec@1",
    "IPrec(rel=2)@0.5",
    "11pt_avg",
    "11pt_avg(rel=2)",
    "ndcg_cut.10",
    "map_cut_100",
]

TOLERANCE = 1e-12

QUERIES = ["q1", "q2", "q3", "q4", "q10"]
DOCS = ["a", "b", "c", "d", "e", "f", "g", "9", "10", "é"]


@st.composite
def runs_and_qrels(draw, duplicates: bool = False):
    """(run, qrels) frames; ``duplicates=True`` repeats some (query, doc) pairs."""
    integer_ids = draw(st.booleans())
    pair = st.tuples(st.sampled_from(QUERIES), st.sampled_from(DOCS))
    run_pairs = draw(st.lists(pair, max_size=30, unique=not duplicates))
    qrels_pairs = draw(st.lists(pair, max_size=20, unique=not duplicates))
    scores = draw(
        st.lists(
            st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0, 0.25]),
            min_size=len(run_pairs),
            max_size=len(run_pairs),
        )
    )
    ranks = draw(st.lists(st.integers(1, 6), min_size=len(run_pairs), max_size=len(run_pairs)))
    grades = draw(
        st.lists(
            st.sampled_from([-1, 0, 0, 1, 1, 2, 3]),
            min_size=len(qrels_pairs),
            max_size=len(qrels_pairs),
        )
    )

    def ids(values: list[str], table: list[str]) -> pl.Series:
        if integer_ids:
            return pl.Series([table.index(v) * 7 + 3 for v in values], dtype=pl.Int64)
        return pl.Series(values, dtype=pl.String)

    run = pl.DataFrame(
        {
            "query": ids([q for q, _ in run_pairs], QUERIES),
            "doc": ids([d for _, d in run_pairs], DOCS),
            "score": pl.Series(scores, dtype=pl.Float64),
            "rank": pl.Series(ranks, dtype=pl.Int64),
        }
    )
    qrels = pl.DataFrame(
        {
            "query": ids([q for q, _ in qrels_pairs], QUERIES),
            "doc": ids([d for _, d in qrels_pairs], DOCS),
            "relevance": pl.Series(grades, dtype=pl.Int64),
        }
    )
    return run, qrels


def _evaluate(run, qrels, engine: str, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = pr.evaluate(run, qrels, METRICS, engine=engine, **options)
    return result, [str(w.message) for w in caught]


def assert_same(left: pl.DataFrame, right: pl.DataFrame) -> None:
    """Same columns, dtypes and rows; floats equal within 1e-12 (relative above 1)."""
    assert left.columns == right.columns
    assert left.schema == right.schema
    assert left.height == right.height
    for name in left.columns:
        a, b = left[name].to_list(), right[name].to_list()
        if left.schema[name] == pl.Float64:
            for x, y in zip(a, b, strict=True):
                if x is None or y is None:
                    assert x is None and y is None, (name, a, b)
                else:
                    assert math.isclose(x, y, rel_tol=TOLERANCE, abs_tol=TOLERANCE), (name, x, y)
        else:
            assert a == b, name


def assert_engines_agree(run, qrels, **options) -> None:
    for per_query in (True, False):
        polars_result, polars_warnings = _evaluate(
            run, qrels, "polars", per_query=per_query, **options
        )
        duckdb_result, duckdb_warnings = _evaluate(
            run, qrels, "duckdb", per_query=per_query, **options
        )
        assert_same(polars_result, duckdb_result)
        assert polars_warnings == duckdb_warnings


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=runs_and_qrels(),
    queries=st.sampled_from(["qrels", "both"]),
    relevance_level=st.sampled_from([1, 2, 0.5]),
    order_by=st.sampled_from([None, "rank"]),
    max_rank=st.sampled_from([None, None, 1, 3]),
    pairwise_max=st.sampled_from([32, 1, 0]),
)
def test_engines_agree(data, queries, relevance_level, order_by, max_rank, pairwise_max) -> None:
    """``pairwise_max`` moves queries between the DuckDB engine's two ways of ranking (counting
    the documents above each judged one, or sorting the query)."""
    run, qrels = data
    if order_by is None:
        run = run.drop("rank")
    with mock.patch("polars_rank.ranking.engines.duckdb_sql.PAIRWISE_MAX_JUDGED", pairwise_max):
        assert_engines_agree(
            run,
            qrels,
            queries=queries,
            relevance_level=relevance_level,
            order_by=order_by,
            max_rank=max_rank,
        )


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
