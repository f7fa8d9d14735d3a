"""The compiled rank fusion (:func:`polars_rank.fusion_sql`, ``fuse(engine=...)``) against
the Polars engine's ``fuse`` (itself equal to ranx 0.3.21's, tests/ranking/test_fusion.py):
every method × norm on DuckDB and ClickHouse (chDB), a live PostgreSQL server and Spark;
every dialect renders and parses; ids compared as bytes under any collation; hostile names."""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl
import pytest
import sqlglot

import polars_rank as pr
from polars_rank.core.dialects import DIALECTS, get_dialect
from polars_rank.core.errors import PolarsRankError
from polars_rank.ranking.fusion import FUSION_METHODS, FUSION_NORMS

TOL = 1e-12
WEIGHTS = {"bm25": 0.5, "dense": 1.0, "splade": 2.0}


def _stacked(seed: int) -> pl.DataFrame:
    """Three runs over three queries, overlapping docs, distinct scores: tie-free, so every
    engine ranks alike (the fused scores' ties are then ranx's RRF and borda ones, which
    every engine breaks by doc id)."""
    rng = np.random.default_rng(seed)
    rows = []
    for name in WEIGHTS:
        for q in ("q1", "q2", "q3"):
            docs = rng.choice(12, size=int(rng.integers(2, 9)), replace=False)
            rows += [(name, q, f"d{d:02d}", float(rng.normal())) for d in docs]
    return pl.DataFrame(rows, schema=["run", "query", "doc", "score"], orient="row")


def _options(method: str) -> dict[str, object]:
    return {"weights": WEIGHTS} if method == "wsum" else {}


def _same(got: pl.DataFrame, want: pl.DataFrame, what: str) -> None:
    """Equal scores within 1e-12 on the same (query, doc) rows, and the same ranking once
    scores that differ by float rounding only (sums added in another order) count as ties."""
    assert got.columns == want.columns, what
    assert got.height == want.height, what
    joined = want.join(got, on=["query", "doc"], how="left", suffix="_got")
    assert joined["score_got"].null_count() == 0, what
    assert (joined["score"] - joined["score_got"]).abs().max() <= TOL, what

    def ranking(frame: pl.DataFrame) -> list[tuple[str, str]]:
        rounded = frame.with_columns(pl.col("score").round(9))
        ordered = rounded.sort(["query", "score", "doc"], descending=[False, True, True])
        return list(ordered.select("query", "doc").iter_rows())

    assert ranking(got) == ranking(want), what
    ordered = got.sort(["query", "score", "doc"], descending=[False, True, True])
    assert got.equals(ordered), what


@pytest.mark.parametrize("method", FUSION_METHODS)
@pytest.mark.parametrize("engine", ["duckdb", "clickhouse"])
def test_engines_equal_the_polars_engine(engine: str, method: str) -> None:
    runs = _stacked(7)
    for norm in FUSION_NORMS:
        want = pr.fuse(runs, method, norm=norm, **_options(method))  # type: ignore[arg-type]
        got = pr.fuse(runs, method, norm=norm, engine=engine, **_options(method))  # type: ignore[arg-type]
        _same(got, want, f"{engine} {method} {norm}")


def test_postgres_equals_the_polars_engine(postgres) -> None:
    runs = _stacked(11)
    postgres.load("fusion_runs", runs)
    for method in FUSION_METHODS:
        for norm in FUSION_NORMS:
            sql = pr.fusion_sql(method, "postgres", "fusion_runs", norm=norm, **_options(method))  # type: ignore[arg-type]
            got = postgres.query(sql).with_columns(pl.col("score").cast(pl.Float64))
            want = pr.fuse(runs, method, norm=norm, **_options(method))  # type: ignore[arg-type]
            _same(got, want, f"postgres {method} {norm}")


def test_spark_equals_the_polars_engine(spark) -> None:
    """Every method once and every norm once (a Spark query costs a second or two)."""
    runs = _stacked(13)
    cases = [(m, "min-max") for m in FUSION_METHODS] + [("sum", n) for n in FUSION_NORMS]
    cases += [("med", "borda"), ("rrf", "zmuv")]
    for method, norm in cases:
        want = pr.fuse(runs, method, norm=norm, **_options(method))  # type: ignore[arg-type]
        got = pr.fuse(runs, method, norm=norm, engine="spark", con=spark, **_options(method))  # type: ignore[arg-type]
        _same(got, want, f"spark {method} {norm}")


def test_the_median_by_hand() -> None:
    """med of the runs that returned a document, without normalisation: d has 1, 4 and 2
    (median 2); e has 5 and 3 (median (5 + 3) / 2 = 4); f has 7 only."""
    runs = pl.DataFrame(
        {
            "run": ["x", "y", "z", "x", "y", "z"],
            "query": ["q"] * 6,
            "doc": ["d", "d", "d", "e", "e", "f"],
            "score": [1.0, 4.0, 2.0, 5.0, 3.0, 7.0],
        }
    )
    for engine in ("polars", "duckdb", "clickhouse"):
        got = pr.fuse(runs, "med", norm=None, engine=engine)
        assert got.rows() == [("q", "f", 7.0), ("q", "e", 4.0), ("q", "d", 2.0)], engine


def test_every_dialect_renders_and_parses() -> None:
    """Every method and every norm prints for every dialect (each method with a norm, each
    norm with a method, in rotation: the method and norm parts of the query are independent)
    and sqlglot reads it back; Trino's median is the exact one (no approximate percentile
    anywhere)."""
    methods, norms = list(FUSION_METHODS), list(FUSION_NORMS)
    cases = [(m, norms[i % len(norms)]) for i, m in enumerate(methods)]
    cases += [(methods[i % len(methods)], n) for i, n in enumerate(norms)]
    cases += [("med", "borda"), ("wsum", "borda")]
    for dialect in DIALECTS:
        read = get_dialect(dialect).sqlglot_name
        for method, norm in cases:
            sql = pr.fusion_sql(method, dialect, "db.runs", norm=norm, **_options(method))  # type: ignore[arg-type]
            sqlglot.parse_one(sql, read=read)
            assert "approx" not in sql.lower() and "percentile" not in sql.lower()


@pytest.mark.parametrize("collation", ["nocase", "noaccent"])
def test_ids_compare_as_bytes_under_any_default_collation(collation: str) -> None:
    """Under DuckDB's default collation ``nocase`` ("a" = "A") or ``noaccent`` ("é" = "e"),
    the documents a / A and é / e stay four documents, the runs R / r two, and ties break by
    bytes: the fused run equals the Polars engine's."""
    runs = pl.DataFrame(
        {
            "run": ["R", "R", "R", "R", "r", "r"],
            "query": ["q"] * 6,
            "doc": ["a", "A", "é", "e", "a", "é"],
            "score": [1.0, 1.0, 2.0, 2.0, 3.0, 1.0],
        }
    )
    con = duckdb.connect()
    con.execute(f"SET default_collation = '{collation}'")
    for method in ("sum", "max", "med"):
        for norm in ("borda", "rank", None):
            want = pr.fuse(runs, method, norm=norm)
            got = pr.fuse(runs, method, norm=norm, engine="duckdb", con=con)
            assert got.rows() == want.rows(), (collation, method, norm)
    assert pr.fuse(runs, "sum", norm=None, engine="duckdb", con=con).height == 4


def test_integer_ids_and_their_tie_order() -> None:
    """Integer query and doc ids come back in their types; tied documents 9 and 10 rank by
    their text ("9" > "10"), trec_eval's order, on every engine."""
    runs = pl.DataFrame(
        {
            "run": [1, 1, 2, 2],
            "query": pl.Series([7, 7, 7, 7], dtype=pl.Int32),
            "doc": [10, 9, 9, 10],
            "score": [1.0, 1.0, 5.0, 5.0],
        }
    )
    for engine in ("polars", "duckdb", "clickhouse"):
        got = pr.fuse(runs, "sum", norm=None, engine=engine)
        assert got.schema == pl.Schema({"query": pl.Int32, "doc": pl.Int64, "score": pl.Float64})
        assert got.rows() == [(7, 9, 6.0), (7, 10, 6.0)], engine


def test_a_run_without_rows_still_counts() -> None:
    """A run of the dict with no row is a run that returned nothing: with borda each of the
    query's two candidates gets 0.5 - (0 - 1) / (2 · 2) = 0.75 from it, and max takes
    ranx's -1e9 nowhere (every document has a run without it, but some run with it)."""
    runs = {
        "x": pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [2.0, 1.0]}),
        "empty": pl.DataFrame(
            {"query": [], "doc": [], "score": []},
            schema={"query": pl.String, "doc": pl.String, "score": pl.Float64},
        ),
    }
    for engine in ("polars", "duckdb", "clickhouse"):
        # a: 1 - 0/2 + 0.75 = 1.75; b: 1 - 1/2 + 0.75 = 1.25
        assert pr.fuse(runs, "sum", norm="borda", engine=engine).rows() == [
            ("q", "a", 1.75),
            ("q", "b", 1.25),
        ], engine
        # min-max: a 1, b 0; the empty run did not return them: max(1, -1e9), max(0, -1e9)
        assert pr.fuse(runs, "max", engine=engine).rows() == [("q", "a", 1.0), ("q", "b", 0.0)]


def test_hostile_run_names_and_columns() -> None:
    """Run names with a quote and a backslash are weights' keys in the SQL text; column
    names that need quoting are quoted; wsum equals the Polars engine's on DuckDB and
    ClickHouse."""
    names = {"it's": 2.0, "back\\slash": 0.5}
    runs = pl.DataFrame(
        {
            "the run": ["it's", "it's", "back\\slash", "back\\slash"],
            "Query": ["q"] * 4,
            "select": ["a", "b", "a", "c"],
            "s-core": [3.0, 1.0, 2.0, 1.0],
        }
    )
    columns = {"run": "the run", "query": "Query", "doc": "select", "score": "s-core"}
    want = pr.fuse(runs, "wsum", norm=None, weights=names, **columns)
    # a: 2 · 3 + 0.5 · 2 = 7; b: 2 · 1 = 2; c: 0.5 · 1 = 0.5
    assert want.rows() == [("q", "a", 7.0), ("q", "b", 2.0), ("q", "c", 0.5)]
    assert want.columns == ["Query", "select", "s-core"]
    for engine in ("duckdb", "clickhouse"):
        got = pr.fuse(runs, "wsum", norm=None, weights=names, engine=engine, **columns)
        assert got.equals(want), engine


def test_postgres_hostile_run_names(postgres) -> None:
    runs = pl.DataFrame(
        {"run": ["it's", "b\\s", "b\\s"], "query": ["q"] * 3, "doc": ["a", "a", "b"]}
    ).with_columns(score=pl.Series([1.0, 2.0, 1.0]))
    postgres.load("fusion_hostile", runs)
    weights = {"it's": 3.0, "b\\s": 1.0}
    sql = pr.fusion_sql("wsum", "postgres", "fusion_hostile", norm=None, weights=weights)
    # a: 3 · 1 + 1 · 2 = 5; b: 1 · 1 = 1
    assert postgres.query(sql).rows() == [("q", "a", 5.0), ("q", "b", 1.0)]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "mean"}, "method"),
        ({"norm": "softmax"}, "norm"),
        ({"method": "wsum"}, "needs weights"),
        ({"weights": {"a": 1.0}}, "wsum' only"),
        ({"method": "wsum", "weights": {"a": float("inf")}}, "must be finite"),
        ({"method": "wsum", "weights": {"a": "1"}}, "must be a number"),
        ({"method": "wsum", "weights": {1.5: 1.0}}, "text or integers"),
        ({"k": 0}, "k must be a positive"),
        ({"doc": "query"}, "must differ"),
        ({"runs": []}, "at least one run"),
        ({"method": "wsum", "weights": {"a": 1.0}, "runs": ["a", "b"]}, "every run"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"method": "sum", "dialect": "duckdb", "runs_table": "t"}
    arguments.update(kwargs)
    with pytest.raises(PolarsRankError, match=message):
        pr.fusion_sql(**arguments)  # type: ignore[arg-type]


def test_a_table_reference_only() -> None:
    with pytest.raises(PolarsRankError, match="runs_table"):
        pr.fusion_sql("sum", "duckdb", "runs; DROP TABLE x")


def test_the_polars_engine_refuses_nothing_and_infinite_weights_everywhere() -> None:
    runs = _stacked(3)
    with pytest.raises(PolarsRankError, match="must be finite"):
        pr.fuse(runs, "wsum", weights={**WEIGHTS, "dense": float("-inf")})
    with pytest.raises(PolarsRankError, match="engine"):
        pr.fuse(runs, "sum", engine="nope")
