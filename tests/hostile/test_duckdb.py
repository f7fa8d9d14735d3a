"""The DuckDB engine in a user's hands: it leaves the user's database as it found it, a process
that used it exits quietly, and the SQL macros refuse bad parameters instead of answering 0.

* The engine never changes the user's connection: ``duckdb_functions()``, ``duckdb_tables()``
  and ``duckdb_views()`` read the same before and after ``evaluate(..., engine="duckdb",
  con=con)`` and the classification and recommender DuckDB paths; the user's own macros named
  like polars_rank's (``recall``, ``judge``) still answer their own result; a file database
  reopened afterwards holds no polars_rank macro; a read-only connection works.
* A process that ran ``engine="duckdb"`` ends without nanobind's "leaked ..." report.
* Each macro parameter with a rule (a positive integer cutoff, a positive ``max_rank``, a
  positive finite ``max_grade``, a choice among its spellings) is checked by the macro itself,
  with DuckDB's ``error()`` naming the parameter.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import threading
import warnings
from collections.abc import Callable
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_rank.core.arrow import register_frame

RUN = pl.DataFrame(
    {"query": ["q1", "q1", "q1", "q2"], "doc": ["a", "b", "c", "a"], "score": [0.5, 0.4, 0.3, 0.9]}
)
QRELS = pl.DataFrame({"query": ["q1", "q2"], "doc": ["a", "b"], "relevance": [1, 2]})


# ------------------------------------------------------------------------------------------
# a process that used the DuckDB engine exits quietly


def _stderr_of(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_no_leak_report_at_exit() -> None:
    """Polars remembers the class of every object given to ``pl.DataFrame`` (a
    ``functools.cache``); given DuckDB's relation, that kept DuckDB's modules alive past their
    teardown and nanobind reported ~40 lines of "leaked ..." at every exit."""
    stderr = _stderr_of(
        """
        import warnings
        import polars as pl, polars_rank as pr
        warnings.simplefilter("ignore")
        run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
        qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
        pr.evaluate(run, qrels, ["RR", "P@1", "nDCG@10"], engine="duckdb")
        pr.evaluate(run, qrels, ["coverage@10", "novelty@10"], engine="duckdb",
                    interactions=pl.DataFrame({"query": ["u"], "doc": ["a"]}))
        data = pl.DataFrame({"label": [0, 1, 1], "score": [0.2, 0.7, 0.4], "g": [1, 1, 2]})
        pr.evaluate_classification(data, ["AUC", "F1", "GAUC"], group="g", engine="duckdb")
        pr.classification.roc_curve(data, "label", "score", engine="duckdb")
        """
    )
    assert "leaked" not in stderr, stderr


# ------------------------------------------------------------------------------------------
# the user's connection is left as it was


def test_cursor_temporary_macros_stay_on_the_cursor() -> None:
    """What the engine relies on, measured: a temporary macro defined on a cursor is invisible
    to the connection (not in its ``duckdb_functions()``, not callable), the connection's own
    macro of that name keeps answering there, and on the cursor the temporary macro wins."""
    con = duckdb.connect()
    con.execute("CREATE MACRO recall(a) AS 'mine'")
    before = _catalog(con)
    cursor = con.cursor()
    cursor.execute("CREATE OR REPLACE TEMPORARY MACRO recall(a, b) AS a + b")
    cursor.execute("CREATE OR REPLACE TEMPORARY MACRO __pr_only_here(a) AS a")
    assert cursor.sql("SELECT recall(1, 2)").fetchall() == [(3,)]
    assert con.sql("SELECT recall(1)").fetchall() == [("mine",)]
    with pytest.raises(duckdb.CatalogException):
        con.sql("SELECT __pr_only_here(1)").fetchall()
    assert _catalog(con) == before
    cursor.close()
    assert _catalog(con) == before


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[tuple]:
    return sorted(con.sql(sql).fetchall(), key=repr)


def _catalog(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple]]:
    """What a user can see of their connection: functions, tables, views, schemas, databases,
    the session's place and search path."""
    return {
        "functions": _rows(con, "SELECT * FROM duckdb_functions()"),
        "tables": _rows(con, "SELECT * FROM duckdb_tables()"),
        "views": _rows(con, "SELECT * FROM duckdb_views()"),
        "schemas": _rows(con, "SELECT * FROM duckdb_schemas()"),
        "databases": _rows(con, "SELECT database_name, path, readonly FROM duckdb_databases()"),
        "session": _rows(
            con,
            "SELECT current_database(), current_schema(), current_setting('search_path')",
        ),
    }


def _own_macros(con: duckdb.DuckDBPyConnection) -> None:
    """Macros of the user's named like polars_rank's."""
    con.execute("CREATE MACRO recall(a) AS 'my recall'")
    con.execute("CREATE MACRO f1(a, b) AS 'my f1'")
    con.execute("CREATE MACRO judge(t) AS TABLE SELECT 'my judge' AS what")


def _assert_own_macros(con: duckdb.DuckDBPyConnection) -> None:
    assert con.sql("SELECT recall(1), f1(1, 2)").fetchall() == [("my recall", "my f1")]
    assert con.sql("SELECT * FROM judge('x')").fetchall() == [("my judge",)]


def _every_duckdb_path(con: duckdb.DuckDBPyConnection, run, qrels) -> list[pl.DataFrame]:
    """evaluate (ranking, trec_eval, recommender metrics), evaluate_classification and the
    classification frame functions, all with ``engine="duckdb", con=con``."""
    import polars_rank as pr
    from polars_rank import classification as cls

    data = pl.DataFrame(
        {"y": [0, 1, 1, 0, 1], "p": [0.2, 0.7, 0.4, 0.6, 0.9], "g": [1, 1, 2, 2, 2]}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [
            pr.evaluate(run, qrels, ["nDCG@10", "AP", "R@2", "P@1"], engine="duckdb", con=con),
            pr.evaluate(run, qrels, ["bpref", "infAP", "G"], engine="duckdb", con=con),
            pr.evaluate(
                run,
                qrels,
                ["coverage@10", "novelty@10", "ild@10"],
                engine="duckdb",
                con=con,
                interactions=pl.DataFrame({"query": ["q1", "q2"], "doc": ["a", "c"]}),
                item_features=pl.DataFrame(
                    {"doc": ["a", "b", "c"], "v": [[1.0, 0], [0, 1], [1, 1]]}
                ),
            ),
            pr.evaluate_classification(
                data,
                ["AUC", "F1", "GAUC", "LogLoss"],
                label="y",
                score="p",
                group="g",
                engine="duckdb",
                con=con,
            ),
            cls.roc_curve(data, "y", "p", engine="duckdb", con=con),
            cls.group_auc(data, "g", "y", "p", engine="duckdb", con=con),
            cls.confusion_matrix(data, "y", "p", threshold=0.5, engine="duckdb", con=con),
        ]


def test_engine_leaves_the_connection_as_it_was() -> None:
    con = duckdb.connect()
    _own_macros(con)
    con.execute("CREATE TABLE mine AS SELECT 1 AS x")
    con.execute("CREATE VIEW my_view AS SELECT 2 AS y")
    before = _catalog(con)
    _every_duckdb_path(con, RUN, QRELS)
    assert _catalog(con) == before
    _assert_own_macros(con)


def test_engine_gives_the_numbers_of_the_package_database() -> None:
    """On the user's connection (their own ``recall`` and ``judge`` defined) the numbers are
    those of the package's in-memory database."""
    con = duckdb.connect()
    _own_macros(con)
    for mine, package in zip(
        _every_duckdb_path(con, RUN, QRELS), _every_duckdb_path(None, RUN, QRELS), strict=True
    ):
        assert_frame_equal(mine, package)


def _file_database(tmp_path: Path) -> Path:
    """A file database holding the run and the judgments as tables ``run`` and ``qrels``."""
    path = tmp_path / "user.duckdb"
    con = duckdb.connect(str(path))
    register_frame(con, "run_frame", RUN)
    register_frame(con, "qrels_frame", QRELS)
    con.execute("CREATE TABLE run AS FROM run_frame; CREATE TABLE qrels AS FROM qrels_frame")
    con.close()
    return path


def _expected(metrics: list[str]) -> pl.DataFrame:
    import polars_rank as pr

    return pr.evaluate(RUN, QRELS, metrics)


METRICS = ["nDCG@10", "AP", "R@2", "P@1", "bpref"]


def test_file_database_keeps_no_macro(tmp_path: Path) -> None:
    """Evaluating on a file database's tables leaves no polars_rank macro in the file."""
    import polars_rank as pr

    path = _file_database(tmp_path)
    con = duckdb.connect(str(path))
    _own_macros(con)
    before = _catalog(con)
    assert_frame_equal(
        pr.evaluate("run", "qrels", METRICS, engine="duckdb", con=con), _expected(METRICS)
    )
    _every_duckdb_path(con, "run", "qrels")
    assert _catalog(con) == before
    con.close()
    reopened = duckdb.connect(str(path))
    found = reopened.sql("SELECT function_name FROM duckdb_functions() WHERE NOT internal")
    names = {name for (name,) in found.fetchall()}
    assert {"recall", "f1", "judge"} <= names
    assert not names & {"ndcg", "average_precision", "_pr_div", "inferred_ap", "cls_roc_auc", "ild"}
    _assert_own_macros(reopened)
    reopened.close()


def test_read_only_connection(tmp_path: Path) -> None:
    import polars_rank as pr

    path = _file_database(tmp_path)
    con = duckdb.connect(str(path), read_only=True)
    before = _catalog(con)
    got = pr.evaluate("run", "qrels", METRICS, engine="duckdb", con=con)
    assert_frame_equal(got, _expected(METRICS))
    _every_duckdb_path(con, "run", "qrels")
    assert _catalog(con) == before
    con.close()


def test_tables_only_the_users_session_sees() -> None:
    """A frame registered on the user's connection, a temporary table and a table of a schema
    on the user's search path are read as the user reads them (the engine's cursor has its
    own session)."""
    import polars_rank as pr

    con = duckdb.connect()
    register_frame(con, "run_frame", RUN)
    con.execute(
        "CREATE TEMP TABLE qrels_temp AS FROM (VALUES ('q1', 'a', 1), ('q2', 'b', 2)) "
        "t(query, doc, relevance)"
    )
    con.execute("CREATE SCHEMA s; CREATE TABLE s.qrels AS FROM qrels_temp")
    con.execute("CREATE TABLE main.qrels AS SELECT * FROM qrels_temp WHERE false")  # a decoy
    con.execute("SET search_path = 's,main'")
    before = _catalog(con)
    expected = _expected(METRICS)
    for qrels in ("qrels_temp", "qrels", "s.qrels"):
        got = pr.evaluate("run_frame", qrels, METRICS, engine="duckdb", con=con)
        assert_frame_equal(got, expected)
    got = pr.evaluate(
        "run_frame", "qrels", ["coverage@10"], engine="duckdb", con=con, interactions="run_frame"
    )
    assert got["coverage@10"].item() == 1.0
    assert _catalog(con) == before
    with pytest.raises(pr.PolarsRankError, match="qrels 'nowhere' cannot be read by DuckDB"):
        pr.evaluate("run_frame", "nowhere", METRICS, engine="duckdb", con=con)


def test_tables_of_the_schema_in_use(tmp_path: Path) -> None:
    """``USE`` on the user's connection (another attached database, another schema) is
    followed by the engine's cursor, and left as it was."""
    import polars_rank as pr

    con = duckdb.connect()
    con.execute(f"ATTACH '{_file_database(tmp_path)}' AS \"my.db\"")
    con.execute('CREATE SCHEMA "my.db".s; CREATE TABLE "my.db".s.run AS FROM "my.db".main.run')
    con.execute('CREATE TABLE "my.db".s.qrels AS FROM "my.db".main.qrels; USE "my.db".s')
    before = _catalog(con)
    got = pr.evaluate("run", "qrels", METRICS, engine="duckdb", con=con)
    assert_frame_equal(got, _expected(METRICS))
    assert _catalog(con) == before


# ------------------------------------------------------------------------------------------
# one connection, many threads; an open transaction on it

#: A run with systems (for ``by="sys"``), users' histories, and predictions, as tables.
SYSTEMS = pl.DataFrame(
    {
        "sys": ["a", "a", "a", "b", "b"],
        "query": ["q1", "q1", "q2", "q1", "q2"],
        "doc": ["a", "b", "a", "c", "b"],
        "score": [0.9, 0.5, 0.7, 0.8, 0.6],
    }
)
HISTORY = pl.DataFrame({"query": ["u1", "u2", "u3", "u4"], "doc": ["a", "a", "b", "a"]})
PREDICTIONS = pl.DataFrame(
    {"g": [1, 1, 1, 2, 2, 2], "label": [0, 1, 1, 0, 1, 0], "score": [0.2, 0.7, 0.4, 0.6, 0.9, 0.1]}
)


def _tables(con: duckdb.DuckDBPyConnection) -> None:
    """RUN, QRELS, SYSTEMS, HISTORY and PREDICTIONS as the tables ``run``, ``qrels``,
    ``systems``, ``history`` and ``preds`` of ``con``."""
    frames = {"run": RUN, "qrels": QRELS, "systems": SYSTEMS, "history": HISTORY}
    for name, frame in {**frames, "preds": PREDICTIONS}.items():
        register_frame(con, "frame", frame)
        con.execute(f"CREATE TABLE {name} AS FROM frame")
        con.unregister("frame")


def _every_table_entry(con: duckdb.DuckDBPyConnection) -> dict[str, Callable[[], pl.DataFrame]]:
    """Every entry of the DuckDB engine that reads table names on ``con``: the ranking
    engine, its recommender inputs, ``by`` (ranking and recommender) and classification
    (the macros, and the compiled SQL of sample weights)."""
    import polars_rank as pr

    duck = {"engine": "duckdb", "con": con}
    return {
        "ranking": lambda: pr.evaluate("run", "qrels", METRICS, **duck),
        "recommender": lambda: pr.evaluate(
            "systems", "qrels", ["ARP@2", "coverage@2"], interactions="history", **duck
        ),
        "by": lambda: pr.evaluate("systems", "qrels", ["AP", "P@1"], by="sys", **duck),
        "by recommender": lambda: pr.evaluate(
            "systems", None, ["ARP@2"], by="sys", interactions="history", **duck
        ),
        "classification": lambda: pr.evaluate_classification(
            "preds", ["AUC", "F1", "GAUC"], group="g", **duck
        ),
        "classification weighted": lambda: pr.evaluate_classification(
            "preds", ["AUC", "LogLoss"], weight="g", **duck
        ),
    }


def _every_frame_entry() -> dict[str, pl.DataFrame]:
    """What :func:`_every_table_entry` gives, from the frames and the Polars engine."""
    import polars_rank as pr

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "ranking": pr.evaluate(RUN, QRELS, METRICS),
            "recommender": pr.evaluate(
                SYSTEMS, QRELS, ["ARP@2", "coverage@2"], interactions=HISTORY
            ),
            "by": pr.evaluate(SYSTEMS, QRELS, ["AP", "P@1"], by="sys"),
            "by recommender": pr.evaluate(SYSTEMS, None, ["ARP@2"], by="sys", interactions=HISTORY),
            "classification": pr.evaluate_classification(
                PREDICTIONS, ["AUC", "F1", "GAUC"], group="g"
            ),
            "classification weighted": pr.evaluate_classification(
                PREDICTIONS, ["AUC", "LogLoss"], weight="g"
            ),
        }


def test_threads_share_one_connection() -> None:
    """Threads evaluating table names on one connection at once: every statement of a call
    runs on a cursor of its own (``con`` answers only the two one-row statements that read
    its session's place, one call at a time), so DuckDB refuses none ("connection is busy
    with another call") and every call gives the frames' numbers. ``slow`` is a view that
    takes a while to read (a statement on ``con`` reading it would keep ``con`` busy)."""
    import polars_rank as pr

    con = duckdb.connect()
    _tables(con)
    con.execute(
        "CREATE VIEW slow AS SELECT s.* FROM systems AS s, (SELECT count(*) AS n "
        "FROM range(2000000) t(i) WHERE i % 7 = 1) AS w WHERE w.n > 0"
    )
    before = _catalog(con)
    expected = _every_frame_entry()
    entries = {k: v for k, v in _every_table_entry(con).items() if k not in ("by", "recommender")}
    entries["slow"] = lambda: pr.evaluate(
        "slow", None, ["ARP@2"], by="sys", interactions="history", engine="duckdb", con=con
    )
    expected["slow"] = expected["by recommender"]
    threads, rounds = 3, 1
    barrier = threading.Barrier(threads)
    failed: list[BaseException] = []
    got: list[tuple[str, pl.DataFrame]] = []

    def work(offset: int) -> None:
        others = [name for name in entries if name != "slow"]
        for round_ in range(rounds):
            barrier.wait()  # every thread reads the slow view at once, then the other entries
            for i in range(len(entries)):
                name = "slow" if i == 0 else others[(i + offset + round_) % len(others)]
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        got.append((name, entries[name]()))
                except BaseException as error:  # kept, asserted in the test's thread
                    failed.append(error)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not failed, failed
    assert len(got) == threads * rounds * len(entries)
    for name, frame in got:
        assert_frame_equal(frame, expected[name], check_exact=False, rel_tol=1e-12)
    assert _catalog(con) == before


def test_open_transaction_is_refused() -> None:
    """With a transaction open on ``con``, every entry reading table names refuses (its
    cursor would not see the transaction's rows), leaving the transaction open and its
    rows as they were; frames still work; after COMMIT the committed rows are read. An
    aborted transaction is refused too."""
    import polars_rank as pr

    con = duckdb.connect()
    _tables(con)
    txid = "SELECT current_transaction_id()"
    con.begin()
    con.execute("INSERT INTO qrels VALUES ('q1', 'b', 1)")  # P@1 of q1 stays 0, R@2 becomes 1/2
    con.execute("INSERT INTO preds VALUES (2, 1, 0.05)")
    opened = con.sql(txid).fetchall()
    for name, call in _every_table_entry(con).items():
        with pytest.raises(pr.PolarsRankError, match="con has an open transaction"):
            call()
        assert con.sql(txid).fetchall() == opened, name  # the same transaction, still open
        assert con.sql("SELECT count(*) FROM qrels").fetchall() == [(3,)], name
    got = pr.evaluate(RUN, QRELS, METRICS, engine="duckdb", con=con)  # nothing read of con
    assert_frame_equal(got, _expected(METRICS))
    con.commit()
    qrels = pl.concat([QRELS, pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})])
    got = pr.evaluate("run", "qrels", METRICS, engine="duckdb", con=con)
    assert_frame_equal(got, pr.evaluate(RUN, qrels, METRICS))
    assert got["R@2"].item() == (1.0 + 0.0) / 2  # q1: a, b in the top 2; q2: b not retrieved
    con.begin()
    with pytest.raises(duckdb.ConstraintException):
        con.execute("CREATE TABLE once (x INT PRIMARY KEY); INSERT INTO once VALUES (1), (1)")
    with pytest.raises(pr.PolarsRankError, match="con has an open transaction"):
        pr.evaluate("run", "qrels", METRICS, engine="duckdb", con=con)
    con.rollback()
    con.execute("SELECT 42 AS mine").fetchall()
    assert_frame_equal(pr.evaluate("run", "qrels", METRICS, engine="duckdb", con=con), got)
    assert [column[0] for column in con.description] == ["mine"]  # the user's result's


def test_busy_connection_is_named() -> None:
    """A ``con`` holding an unfinished result of ``con.execute()`` cannot tell its session's
    place: table names get a ``PolarsRankError`` saying so (not DuckDB's raw refusal), frames
    (nothing read on ``con``) still work, and the user's result is still there to fetch."""
    import polars_rank as pr

    con = duckdb.connect()
    _tables(con)
    con.execute("SELECT * FROM range(5000)")
    assert con.fetchone() == (0,)
    with pytest.raises(pr.PolarsRankError, match="con is busy"):
        pr.evaluate("run", "qrels", METRICS, engine="duckdb", con=con)
    assert_frame_equal(
        pr.evaluate(RUN, QRELS, METRICS, engine="duckdb", con=con), _expected(METRICS)
    )
    assert con.fetchone() == (1,)


# ------------------------------------------------------------------------------------------
# register(con, schema=..., prefix=...): the macros in the user's database, kept apart


MACRO_QUERY = """
    SELECT query, {p}ndcg(rank, relevance, k := 10) AS ndcg, {p}recall(rank, relevance) AS r,
           {p}precision_at_k(rank, relevance, k := 2) AS p, {p}bpref(rank, relevance) AS bpref,
           {p}inferred_ap(rank, relevance) AS infap
    FROM {p}judge('run', 'qrels') GROUP BY query ORDER BY query
"""


def _with_frames(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    register_frame(con, "run", RUN)
    register_frame(con, "qrels", QRELS)
    return con


@pytest.mark.parametrize(
    ("options", "qualifier"),
    [
        ({"schema": "pr"}, "pr."),
        ({"prefix": "pr_"}, "pr_"),
        ({"schema": "memory.tools", "prefix": "m_"}, "memory.tools.m_"),
    ],
)
def test_register_in_a_schema_or_with_a_prefix(options: dict, qualifier: str) -> None:
    """The user's own ``recall`` and ``judge`` stay theirs; the macros answer as the plain
    ones do, each calling the others under the same schema and prefix."""
    import polars_rank as pr
    from polars_rank import classification as cls
    from polars_rank.duckdb import macro_names

    plain = _with_frames(pr.duckdb.register(duckdb.connect()))
    expected = plain.sql(MACRO_QUERY.format(p="")).fetchall()
    con = _with_frames(duckdb.connect())
    _own_macros(con)
    assert pr.duckdb.register(con, **options) is con
    pr.duckdb.register(con, **options)  # twice is harmless
    cls.register(con, **options)
    _assert_own_macros(con)
    assert con.sql(MACRO_QUERY.format(p=qualifier)).fetchall() == expected
    schema = options.get("schema", "main").split(".")[-1]
    defined = con.sql(
        "SELECT DISTINCT function_name FROM duckdb_functions() WHERE schema_name = ? "
        "AND NOT internal",
        params=[schema],
    ).fetchall()
    prefix = options.get("prefix", "")
    ours = {name for (name,) in defined if name.startswith(prefix)}
    assert ours == {prefix + name for name in macro_names()}


def test_register_refuses_a_bad_prefix_or_schema() -> None:
    import polars_rank as pr

    con = duckdb.connect()
    before = _catalog(con)
    for options in ({"prefix": "pr-"}, {"prefix": "1x"}, {"schema": " "}):
        with pytest.raises(pr.PolarsRankError, match="prefix|schema"):
            pr.duckdb.register(con, **options)
    assert _catalog(con) == before


# ------------------------------------------------------------------------------------------
# the macros refuse bad parameters, naming them


@pytest.fixture(scope="module")
def macros() -> duckdb.DuckDBPyConnection:
    """Every macro, over the run and judgments (``run``, ``qrels``), the recommendations
    ``top`` (with their grades), the interactions ``seen``, the popularity and item tables
    ``pop`` and ``items``, and item categories ``cats``."""
    import polars_rank as pr

    con = _with_frames(pr.duckdb.register(duckdb.connect()))
    register_frame(con, "seen", pl.DataFrame({"query": ["q1", "q2", "q2"], "doc": ["b", "a", "c"]}))
    register_frame(con, "cats", pl.DataFrame({"doc": ["a", "b", "c"], "category": ["x", "y", "x"]}))
    con.execute(
        "CREATE TABLE top AS SELECT t.*, q.relevance FROM top_k('run') AS t "
        "LEFT JOIN qrels AS q ON t.query = q.query AND t.doc = q.doc"
    )
    con.execute("CREATE TABLE pop AS FROM item_popularity('seen')")
    con.execute("CREATE TABLE items AS FROM item_table('pop')")
    return con


JUDGED = "FROM judge('run', 'qrels') GROUP BY query"

#: (SQL, the error's message): each bad parameter through a macro, as a user writes it.
BAD_PARAMETERS = {
    "k 0": (
        f"SELECT ndcg(rank, relevance, k := 0) {JUDGED}",
        "k must be a positive integer, got 0",
    ),
    "k negative": (
        f"SELECT recall(rank, relevance, k := -1) {JUDGED}",
        "k must be a positive integer, got -1",
    ),
    "k fraction": (
        f'SELECT "precision"(rank, relevance, 2.5) {JUDGED}',
        "k must be a positive integer, got 2.5",
    ),
    "k NaN": (
        f"SELECT average_precision(rank, relevance, k := 'nan'::DOUBLE) {JUDGED}",
        "k must be a positive integer, got nan",
    ),
    "k of idcg": (
        f"SELECT ideal_dcg(relevance, k := 0) {JUDGED}",
        "k must be a positive integer, got 0",
    ),
    "k of rr": (
        f"SELECT reciprocal_rank(rank, relevance, k := 0) {JUDGED}",
        "k must be a positive integer, got 0",
    ),
    "k of err": (
        f"SELECT err(rank, relevance, k := 0) {JUDGED}",
        "k must be a positive integer, got 0",
    ),
    "k of rbp": (
        f"SELECT rbp(rank, relevance, k := -3) {JUDGED}",
        "k must be a positive integer, got -3",
    ),
    "k of recall_cap missing": (
        f"SELECT recall_cap(rank, relevance, NULL) {JUDGED}",
        "k must be a positive integer, got NULL",
    ),
    "k of unjudged": (
        f"SELECT unjudged(rank, relevance, 0) {JUDGED}",
        "k must be a positive integer, got 0",
    ),
    "max_rank": (
        "SELECT count(*) FROM judge('run', 'qrels', max_rank := -1)",
        "max_rank must be a positive integer, got -1",
    ),
    "max_rank 0 without rows": (
        "SELECT count(*) FROM judge('run', 'qrels', max_rank := 0) WHERE false",
        "max_rank must be a positive integer, got 0",
    ),
    "max_grade 0": (
        f"SELECT err(rank, relevance, max_grade := 0) {JUDGED}",
        "max_grade must be a positive number, got 0",
    ),
    "max_grade infinite": (
        f"SELECT err(rank, relevance, max_grade := 'inf'::DOUBLE) {JUDGED}",
        "max_grade must be a positive number, got inf",
    ),
    "denominator without k": (
        f"SELECT average_precision(rank, relevance, denominator := 'bogus') {JUDGED}",
        "denominator must be 'R' or 'min(k,R)', got 'bogus'",
    ),
    "denominator with k": (
        f"SELECT average_precision(rank, relevance, k := 5, denominator := 'bogus') {JUDGED}",
        "denominator must be 'R' or 'min(k,R)', got 'bogus'",
    ),
    "gain": (
        f"SELECT ndcg(rank, relevance, gain := 'log') {JUDGED}",
        "gain must be 'linear' or 'exponential', got 'log'",
    ),
    "gain with a gain table": (
        f"SELECT dcg(rank, relevance, gain := 'log', gains := MAP {{1: 2.0}}) {JUDGED}",
        "gain must be 'linear' or 'exponential', got 'log'",
    ),
    "k of top_k": ("SELECT * FROM top_k('run', k := 0)", "k must be a positive integer, got 0"),
    "k of top_k without rows": (
        "SELECT * FROM top_k('run', k := 0) WHERE false",
        "k must be a positive integer, got 0",
    ),
    "k of novelty": (
        "SELECT novelty(rank, self_information, k := 0) FROM enrich('top', 'items') GROUP BY query",
        "k must be a positive integer, got 0",
    ),
    "unknown": (
        "SELECT novelty(rank, self_information, unknown := 'drop') "
        "FROM enrich('top', 'items') GROUP BY query",
        "unknown must be 'skip' or 'zero', got 'drop'",
    ),
    "k of coverage": (
        "SELECT * FROM catalog_coverage('top', 'seen', k := 0)",
        "k must be a positive integer, got 0",
    ),
    "k of entropy": (
        "SELECT * FROM shannon_entropy('top', k := -1)",
        "k must be a positive integer, got -1",
    ),
    "k of gini": (
        "SELECT * FROM gini_index('top', 'seen', k := 0)",
        "k must be a positive integer, got 0",
    ),
    "k of user coverage": (
        "SELECT * FROM user_coverage('top', 'seen', k := 0)",
        "k must be a positive integer, got 0",
    ),
    "count": (
        "SELECT * FROM item_popularity('seen', count := 'rows')",
        "count must be 'users' or 'interactions', got 'rows'",
    ),
    "model": (
        "SELECT * FROM item_table('pop', model := 'popularity')",
        "model must be 'choice' or 'discovery', got 'popularity'",
    ),
    "similarity": (
        "SELECT * FROM intra_list_diversity_categories('top', 'cats', similarity := 'dice')",
        "similarity must be 'cosine' or 'jaccard', got 'dice'",
    ),
    "k of ild": (
        "SELECT * FROM intra_list_diversity_categories('top', 'cats', k := 0)",
        "k must be a positive integer, got 0",
    ),
    "k of unexpectedness": (
        "SELECT * FROM unexpectedness_categories('top', 'seen', 'cats', k := 0.5)",
        "k must be a positive integer, got 0.5",
    ),
    "serendipity gain": (
        "SELECT * FROM serendipity_categories('top', 'seen', 'cats', gain := 'ndcg')",
        "gain must be 'binary', 'graded' or 'none', got 'ndcg'",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_PARAMETERS))
def test_macros_refuse_bad_parameters(macros: duckdb.DuckDBPyConnection, case: str) -> None:
    sql, message = BAD_PARAMETERS[case]
    with pytest.raises(duckdb.InvalidInputException, match=re.escape(message)):
        macros.sql(sql).fetchall()


def test_macros_take_good_parameters(macros: duckdb.DuckDBPyConnection) -> None:
    """The edges that stay valid: k NULL (no cutoff), 1, an integral DOUBLE, max_rank 1, a
    small max_grade, the alias 'min' of 'min(k,R)'."""
    rows = macros.sql(
        "SELECT query, ndcg(rank, relevance, k := NULL), recall(rank, relevance, k := 1), "
        "recall(rank, relevance, k := 2.0), recall(rank, relevance, k := 2), "
        "err(rank, relevance, max_grade := 0.5), "
        "average_precision(rank, relevance, k := 2, denominator := 'min'), "
        "average_precision(rank, relevance, k := 2, denominator := 'min(k,R)') "
        f"{JUDGED} ORDER BY query"
    ).fetchall()
    assert [r[0] for r in rows] == ["q1", "q2"]
    for row in rows:
        assert row[3] == row[4] and row[6] == row[7]
    assert macros.sql("SELECT count(*) FROM judge('run', 'qrels', max_rank := 1)").fetchall() == [
        (3,)
    ]


def test_macro_files_still_load_one_by_one() -> None:
    """As the DuckDB CLI's ``.read`` executes them: each file's text, in order, on a new
    connection; and classification.sql alone."""
    from polars_rank.duckdb import sql_path, sql_paths

    con = duckdb.connect()
    for path in sql_paths():
        con.execute(path.read_text(encoding="utf-8"))
    duckdb.connect().execute(sql_path("classification.sql").read_text(encoding="utf-8"))
