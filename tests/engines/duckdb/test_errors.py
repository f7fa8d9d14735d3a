"""The DuckDB engine fails as the Polars engine does: same exception type, same message, for
Polars input and for SQL input (tables, Parquet files)."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

import polars_rank as pr
from polars_rank import PolarsRankError

RUN = pl.DataFrame(
    {"query": ["q1", "q1", "q1", "q2"], "doc": ["a", "b", "c", "a"], "score": [0.5, 0.4, 0.3, 0.9]}
)
QRELS = pl.DataFrame({"query": ["q1", "q2"], "doc": ["a", "b"], "relevance": [1, 2]})


def _set(frame: pl.DataFrame, column: str, row: int, value) -> pl.DataFrame:
    values = frame[column].to_list()
    values[row] = value
    return frame.with_columns(pl.Series(column, values, dtype=frame.schema[column]))


BAD_INPUTS = {
    "run duplicate": (RUN.vstack(RUN[1:2]), QRELS),
    "qrels duplicate": (RUN, QRELS.vstack(QRELS[0:1].with_columns(relevance=pl.lit(0, pl.Int64)))),
    "run null query": (_set(RUN, "query", 2, None), QRELS),
    "run null doc": (_set(RUN, "doc", 1, None), QRELS),
    "qrels null doc": (RUN, _set(QRELS, "doc", 1, None)),
    "run NaN score": (_set(RUN, "score", 3, float("nan")), QRELS),
    "run null score": (_set(RUN, "score", 0, None), QRELS),
    "qrels null relevance": (RUN, _set(QRELS, "relevance", 1, None)),
    "qrels NaN relevance": (
        RUN,
        QRELS.with_columns(pl.col("relevance").cast(pl.Float64)).pipe(
            _set, "relevance", 0, float("nan")
        ),
    ),
    "id dtypes differ": (RUN, QRELS.with_columns(pl.col("doc").cast(pl.Categorical))),
    "score not numeric": (RUN.with_columns(pl.col("score").cast(pl.String)), QRELS),
    "missing column": (RUN.rename({"doc": "docno"}), QRELS),
    "run empty": (RUN.clear(), QRELS),
    "qrels empty": (RUN, QRELS.clear()),
    "swapped": (QRELS, RUN),
}


def _message(run, qrels, metrics="nDCG@10", **options) -> tuple[type, str]:
    with pytest.raises(Exception) as caught:
        pr.evaluate(run, qrels, metrics, **options)
    return caught.type, str(caught.value)


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_polars_input(case: str) -> None:
    run, qrels = BAD_INPUTS[case]
    expected = _message(run, qrels)
    assert expected[0] is PolarsRankError
    assert _message(run, qrels, engine="duckdb") == expected


@pytest.mark.parametrize(
    "case",
    [
        "run duplicate",
        "qrels duplicate",
        "run null query",
        "run null doc",
        "qrels null doc",
        "run NaN score",
        "run null score",
        "qrels null relevance",
        "qrels NaN relevance",
        "run empty",
        "qrels empty",
    ],
)
@pytest.mark.parametrize("kind", ["table", "parquet"])
def test_bad_sql_input(case: str, kind: str, tmp_path) -> None:
    run, qrels = BAD_INPUTS[case]
    expected = _message(run, qrels)
    con = duckdb.connect()
    if kind == "table":
        con.register("run_frame", run)
        con.register("qrels_frame", qrels)
        con.execute("CREATE TABLE run AS SELECT * FROM run_frame")
        con.execute("CREATE TABLE qrels AS SELECT * FROM qrels_frame")
        sources = ("run", "qrels")
    else:
        run.write_parquet(tmp_path / "run.parquet")
        qrels.write_parquet(tmp_path / "qrels.parquet")
        sources = (str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet"))
    assert _message(*sources, engine="duckdb", con=con) == expected


@pytest.mark.parametrize(
    "metrics, options",
    [
        ("nDCG@ten", {}),
        ("Rcap", {}),
        (["AP", "AP"], {}),
        ("query", {}),
        ("nDCG@10", {"duplicates": "last"}),
        ("nDCG@10", {"max_rank": 0}),
        ("nDCG@10", {"order_by": "rank", "duplicates": "max"}),
        ("nDCG@10", {"order_by": "relevance"}),
        ("nDCG@10", {"queries": "run"}),
    ],
)
def test_bad_options(metrics, options) -> None:
    run = RUN.with_columns(rank=pl.int_range(1, 5))
    expected = _message(run, QRELS, metrics, **options)
    assert expected[0] is PolarsRankError
    assert _message(run, QRELS, metrics, engine="duckdb", **options) == expected


def test_duplicates_allowed_without_validation_policy() -> None:
    run, qrels = BAD_INPUTS["run duplicate"]
    for duplicates in ("first", "max"):
        a = pr.evaluate(run, qrels, ["RR", "NumRet"], duplicates=duplicates)
        b = pr.evaluate(run, qrels, ["RR", "NumRet"], duplicates=duplicates, engine="duckdb")
        assert a.rows() == b.rows()


def test_unknown_table_is_reported() -> None:
    with pytest.raises(PolarsRankError, match="run 'no_such_table' cannot be read"):
        pr.evaluate("no_such_table", QRELS, "AP", engine="duckdb", con=duckdb.connect())


def test_not_a_frame() -> None:
    with pytest.raises(TypeError, match="run must be"):
        pr.evaluate([1, 2], QRELS, "AP", engine="duckdb")


# --- the checks of frames run beside the evaluation (engines/duckdb/ranking.py: _Checking) ----


def _failing_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """The evaluation's query fails (as DuckDB would on input the checks reject)."""
    import polars_rank.engines.duckdb.ranking as ranking

    def fail(relation: object) -> pl.DataFrame:
        raise duckdb.InvalidInputException("the evaluation failed")

    monkeypatch.setattr(ranking, "to_polars", fail)


@pytest.mark.parametrize("case", ["run duplicate", "run NaN score", "qrels null doc"])
def test_check_error_wins_over_a_failed_evaluation(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checked beside the evaluation, bad frames still fail with the checks' own message (the
    Polars engine's), as if the checks had run first, and not 'during handling' of the
    evaluation's error."""
    run, qrels = BAD_INPUTS[case]
    expected = _message(run, qrels)
    _failing_query(monkeypatch)
    with pytest.raises(PolarsRankError) as caught:
        pr.evaluate(run, qrels, "nDCG@10", engine="duckdb")
    assert str(caught.value) == expected[1]
    assert caught.value.__suppress_context__


def test_evaluation_error_kept_when_checks_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    _failing_query(monkeypatch)
    with pytest.raises(duckdb.InvalidInputException, match="the evaluation failed"):
        pr.evaluate(RUN, QRELS, "nDCG@10", engine="duckdb")


def test_checks_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ranking metrics: the frames are checked on a thread of their own; with recommender
    inputs (whose checks and notices come after) on the caller's thread, before them."""
    import threading

    import polars_rank.engines.duckdb.ranking as ranking

    seen: list[str] = []
    real = ranking.validate

    def spy(*args, **kwargs) -> None:
        seen.append(threading.current_thread().name)
        real(*args, **kwargs)

    monkeypatch.setattr(ranking, "validate", spy)
    pr.evaluate(RUN, QRELS, "nDCG@10", engine="duckdb")
    items = pl.DataFrame({"doc": ["a", "b", "c"]})
    pr.evaluate(RUN, QRELS, ["nDCG@10", "catalog_coverage@2"], engine="duckdb", catalog=items)
    assert seen == ["polars_rank-checks", threading.current_thread().name]


def test_failed_check_interrupts_the_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed check stops the evaluation's query (on the engine's own cursor) rather than
    waiting for it: the query below would run for hours if not interrupted."""
    import time

    import polars_rank.engines.duckdb.ranking as ranking

    endless = "SELECT sum(hash(range)) AS s FROM range(10000000000000)"
    monkeypatch.setattr(ranking, "query_sql", lambda *args, **kwargs: endless)
    real = ranking.validate

    def late(*args, **kwargs) -> None:  # fails once the query runs
        time.sleep(0.5)
        real(*args, **kwargs)

    monkeypatch.setattr(ranking, "validate", late)
    run, qrels = BAD_INPUTS["run duplicate"]
    expected = _message(run, qrels)
    start = time.perf_counter()
    with pytest.raises(PolarsRankError) as caught:
        pr.evaluate(run, qrels, "nDCG@10", engine="duckdb")
    assert str(caught.value) == expected[1]
    assert time.perf_counter() - start < 60
