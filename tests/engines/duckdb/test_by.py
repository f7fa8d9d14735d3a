"""engine="duckdb" with by and the run in DuckDB (a Parquet path, a table name, a relation):
the run is keyed by (group, query) in SQL and never read into Polars; the values are the
Polars engine's, the errors its messages, and the user's connection is left as it was."""

import warnings

import duckdb
import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rank as pr
import polars_rank.core.grouping as grouping
from polars_rank.core.errors import PolarsRankError
from polars_rank.engines.duckdb.engine import DuckDBEngine

RUN = pl.DataFrame(
    {
        "date": [1, 1, 2],
        "query": ["q", "q", "q"],
        "doc": ["a", "b", "a"],
        "score": [2.0, 1.0, 1.0],
    }
)
QRELS = pl.DataFrame({"date": [1, 2], "query": ["q", "q"], "doc": ["b", "b"], "relevance": [1, 1]})
METRICS = ["nDCG@10", "RR", "AP", "P@5", "R@10", "num_ret", "num_rel_ret"]


def _fail(*_: object, **__: object) -> None:
    raise AssertionError("the run was read into Polars")


@pytest.fixture
def in_duckdb_only(monkeypatch):
    """The frames' path (the keyed run in Polars) fails if taken."""
    monkeypatch.setattr(grouping, "numbered_inputs", _fail)
    monkeypatch.setattr(DuckDBEngine, "read", _fail)


def _random_inputs(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Runs with ties (scores on a 1/4 grid), queries without judgments, judgments of dates
    and queries the run lacks, and a date no judgment joins."""
    rng = np.random.default_rng(seed)
    n = 1500
    run = pl.DataFrame(
        {
            "date": rng.integers(0, 4, n),
            "query": rng.integers(0, 25, n).astype(str),
            "doc": rng.integers(0, 40, n).astype(str),
            "score": rng.integers(0, 5, n) / 4,
        }
    ).unique(["date", "query", "doc"], maintain_order=True)
    qrels = pl.DataFrame(
        {
            "date": rng.integers(1, 6, 400),
            "query": rng.integers(0, 30, 400).astype(str),
            "doc": rng.integers(0, 40, 400).astype(str),
            "relevance": rng.integers(0, 3, 400),
        }
    ).unique(["date", "query", "doc"], maintain_order=True)
    return run, qrels


def test_worked_example_from_parquet(tmp_path, in_duckdb_only):
    run_path, qrels_path = str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet")
    RUN.write_parquet(run_path)
    QRELS.write_parquet(qrels_path)
    got = pr.evaluate(run_path, qrels_path, ["RR", "P@1"], by="date", engine="duckdb")
    # date 1: b (relevant) at rank 2: RR 1/2, P@1 0; date 2: a alone, not relevant: 0, 0
    assert got.rows() == [(1, 0.5, 0.0), (2, 0.0, 0.0)]
    assert got.schema == pl.Schema({"date": pl.Int64, "RR": pl.Float64, "P@1": pl.Float64})


@pytest.mark.parametrize("per_query", [False, True])
@pytest.mark.parametrize("queries", ["qrels", "both"])
@pytest.mark.parametrize("shared", [True, False], ids=["qrels by date", "qrels shared"])
def test_parquet_run_equals_the_polars_engine(tmp_path, in_duckdb_only, per_query, queries, shared):
    run, qrels = _random_inputs(7)
    if not shared:  # one set of judgments for every date
        qrels = qrels.drop("date").unique(["query", "doc"], maintain_order=True)
    run_path, qrels_path = str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet")
    run.write_parquet(run_path)
    qrels.write_parquet(qrels_path)
    options = {"by": "date", "per_query": per_query, "queries": queries}
    with warnings.catch_warnings(record=True) as warned_polars:
        warnings.simplefilter("always")
        expected = pr.evaluate(run, qrels, METRICS, **options)
    with warnings.catch_warnings(record=True) as warned_duckdb:
        warnings.simplefilter("always")
        got = pr.evaluate(run_path, qrels_path, METRICS, engine="duckdb", **options)
    assert_frame_equal(got, expected)
    assert [str(w.message) for w in warned_duckdb] == [str(w.message) for w in warned_polars]


def test_table_names_and_relations_equal_the_frames_path(in_duckdb_only):
    run, qrels = _random_inputs(3)
    con = duckdb.connect()
    con.register("run_frame", run)
    con.execute("CREATE TABLE run_t AS SELECT * FROM run_frame")
    con.unregister("run_frame")
    expected = pr.evaluate(run, qrels, METRICS, by="date", per_query=True, queries="both")
    got = pr.evaluate(
        "run_t",
        qrels,
        METRICS,
        by="date",
        engine="duckdb",
        con=con,
        per_query=True,
        queries="both",
    )
    assert_frame_equal(got, expected)
    relation = con.sql("SELECT * FROM run_t")
    got = pr.evaluate(relation, qrels, METRICS, by="date", engine="duckdb", queries="both")
    assert_frame_equal(got, pr.evaluate(run, qrels, METRICS, by="date", queries="both"))


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda run: run.with_columns(date=pl.Series([1, None, 2])), id="null group"),
        pytest.param(lambda run: pl.concat([run, run.head(1)]), id="duplicate pair"),
        pytest.param(lambda run: run.with_columns(doc=pl.Series(["a", None, "a"])), id="null id"),
        pytest.param(lambda run: run.with_columns(score=pl.Series([2.0, None, 1.0])), id="null"),
        pytest.param(
            lambda run: run.with_columns(score=pl.Series([2.0, float("nan"), 1.0])), id="nan"
        ),
        pytest.param(lambda run: run.head(0), id="empty"),
    ],
)
def test_errors_are_the_polars_engines(tmp_path, change):
    bad = change(RUN)
    path = str(tmp_path / "run.parquet")
    bad.write_parquet(path)
    with pytest.raises(PolarsRankError) as polars_error:
        pr.evaluate(bad, QRELS, ["RR"], by="date")
    with pytest.raises(PolarsRankError) as duckdb_error:
        pr.evaluate(path, QRELS, ["RR"], by="date", engine="duckdb")
    assert str(duckdb_error.value) == str(polars_error.value)


def test_qrels_errors_are_the_polars_engines(tmp_path):
    path = str(tmp_path / "run.parquet")
    RUN.write_parquet(path)
    for bad in (
        QRELS.with_columns(date=pl.Series([1, None])),
        # one row: the keyed judgments' row order (a join's) is not fixed, nor the row named
        QRELS.head(1).with_columns(relevance=pl.Series([None], dtype=pl.Int64)),
        pl.concat([QRELS, QRELS.head(1)]),
    ):
        with pytest.raises(PolarsRankError) as polars_error:
            pr.evaluate(RUN, bad, ["RR"], by="date")
        with pytest.raises(PolarsRankError) as duckdb_error:
            pr.evaluate(path, bad, ["RR"], by="date", engine="duckdb")
        assert str(duckdb_error.value) == str(polars_error.value)


def test_judgments_joining_no_group_are_evaluated_as_the_polars_engine(tmp_path):
    path = str(tmp_path / "run.parquet")
    RUN.write_parquet(path)
    qrels = QRELS.with_columns(date=pl.Series([7, 8]))  # no date of the run
    with pytest.warns(UserWarning):
        expected = pr.evaluate(RUN, qrels, ["RR"], by="date")
    with pytest.warns(UserWarning):
        got = pr.evaluate(path, qrels, ["RR"], by="date", engine="duckdb")
    assert_frame_equal(got, expected)
    assert got["RR"].to_list() == [None, None]  # no query counts: the mean over none


SETTINGS = ("memory_limit", "threads", "temp_directory", "preserve_insertion_order")


def _state(con: duckdb.DuckDBPyConnection) -> tuple[object, ...]:
    settings = con.sql(
        "SELECT " + ", ".join(f"current_setting('{s}')" for s in SETTINGS)
    ).fetchall()
    catalog = con.sql(
        "SELECT (SELECT count(*) FROM duckdb_views() WHERE NOT internal), "
        "(SELECT count(*) FROM duckdb_tables()), "
        "(SELECT count(*) FROM duckdb_functions() WHERE NOT internal)"
    ).fetchall()
    return settings[0], catalog[0]


@pytest.mark.parametrize("by", [None, "date"])
@pytest.mark.parametrize("run_as", ["table", "parquet", "frame"])
def test_the_users_connection_is_left_as_it_was(tmp_path, by, run_as):
    con = duckdb.connect()
    con.execute("SET memory_limit = '1234MB'")
    con.execute("SET threads = 1")
    con.execute(f"SET temp_directory = '{tmp_path / 'spill'}'")
    con.execute("SET preserve_insertion_order = false")
    frame = RUN if by else RUN.head(2)  # without by: date 1's rows (no repeated pair)
    con.execute("CREATE TABLE run_t AS SELECT * FROM frame")
    path = str(tmp_path / "run.parquet")
    frame.write_parquet(path)
    run = {"table": "run_t", "parquet": path, "frame": frame}[run_as]
    before = _state(con)
    qrels = QRELS if by else QRELS.head(1)
    got = pr.evaluate(run, qrels, ["RR"], by=by, engine="duckdb", con=con)
    assert got["RR"].to_list() == ([0.5, 0.0] if by else [0.5])  # b at rank 2 on date 1
    assert _state(con) == before
    assert before[0] == ("1.1 GiB", 1, str(tmp_path / "spill"), False)


def test_a_connection_with_a_collation_takes_the_frames_path(tmp_path, monkeypatch):
    con = duckdb.connect()
    con.execute("SET default_collation = 'nocase'")
    run = RUN.with_columns(doc=pl.Series(["a", "A", "a"]))
    qrels = QRELS.with_columns(doc=pl.Series(["A", "A"]))
    path = str(tmp_path / "run.parquet")
    run.write_parquet(path)
    got = pr.evaluate(path, qrels, ["RR"], by="date", engine="duckdb", con=con)
    # ids compare as bytes: date 1: A (relevant) at rank 2 (a scores 2.0); date 2: no A
    assert got.rows() == [(1, 0.5), (2, 0.0)]


def test_several_by_columns_with_hostile_names_and_values(tmp_path, in_duckdb_only):
    rng = np.random.default_rng(11)
    n = 800
    run = pl.DataFrame(
        {
            'it\'s "w"': rng.choice(["a", "A", "b'", 'c"d', "é"], n),  # case, quotes
            "Date": pl.Series(rng.integers(0, 3, n)).cast(pl.Date),
            "f": rng.choice([0.0, -0.0, 1.5], n),  # -0.0 and 0.0: one group
            "query": rng.integers(0, 6, n),  # integer ids
            "doc": rng.integers(0, 30, n).astype(str),
            "score": rng.integers(0, 4, n) / 2,
        }
    )
    by = ['it\'s "w"', "Date", "f"]
    run = run.unique([*by, "query", "doc"], maintain_order=True)
    qrels = run.sample(300, seed=3).select("Date", "query", "doc").with_columns(relevance=1)
    qrels = qrels.unique(["Date", "query", "doc"], maintain_order=True)
    run_path, qrels_path = str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet")
    run.write_parquet(run_path)
    qrels.write_parquet(qrels_path)
    for per_query in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = pr.evaluate(run, qrels, ["AP", "P@3"], by=by, per_query=per_query)
            got = pr.evaluate(
                run_path, qrels_path, ["AP", "P@3"], by=by, per_query=per_query, engine="duckdb"
            )
        assert_frame_equal(got, expected)


def test_duplicates_max_equals_the_polars_engine(tmp_path):
    run = pl.concat([RUN, RUN.head(1).with_columns(score=pl.lit(0.5))])  # (1, q, a) twice
    path = str(tmp_path / "run.parquet")
    run.write_parquet(path)
    for validate in (True, False):
        options = {"by": "date", "duplicates": "max", "validate": validate}
        expected = pr.evaluate(run, QRELS, ["RR"], **options)
        got = pr.evaluate(path, QRELS, ["RR"], engine="duckdb", **options)
        assert_frame_equal(got, expected)
        # date 1: a keeps 2.0 (the larger score), b at rank 2: RR 1/2
        assert got["RR"].to_list() == [0.5, 0.0]


def test_recommender_by_keeps_case_differing_ids_apart_under_nocase():
    """The recommender ``by`` path on a connection with ``default_collation='nocase'``: users
    ``U0``/``u0``, items ``D0``/``d0`` and groups ``A``/``a`` stay apart, as in Polars."""
    from tests.support.sql_cases import case_frames

    frames = case_frames()
    upper = pl.col("query").str.slice(0, 1) == "U"
    run = frames["run_t"].with_columns(grp=pl.when(upper).then(pl.lit("A")).otherwise(pl.lit("a")))
    con = duckdb.connect()
    con.execute("SET default_collation = 'nocase'")
    metrics = ["novelty@5", "coverage@5", "P@3"]
    args = (run, frames["qrels_t"], metrics)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = pr.evaluate(*args, interactions=frames["inter_t"], by="grp").sort("grp")
        got = pr.evaluate(
            *args, interactions=frames["inter_t"], by="grp", engine="duckdb", con=con
        ).sort("grp")
    assert got["grp"].to_list() == ["A", "a"]
    assert_frame_equal(expected, got, check_exact=False, abs_tol=1e-12)
