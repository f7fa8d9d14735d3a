"""The engines' check queries (``compiler/engine_checks.py``) against ``check_sql`` and the
DuckDB engine's message, on a hostile table, with the expected values worked by hand."""

from __future__ import annotations

import duckdb
import pytest

import polars_rank as pr
from polars_rank import PolarsRankError
from polars_rank.compiler import engine_checks
from polars_rank.compiler.checks import check_sql

#: Hostile column names: a quote, a keyword, a space, and a column named like the row number.
QUERY, DOC, SCORE = 'Se"lect', "from", "Score Col"

#: The run in scan order (0-based row numbers on the left).
ROWS = [
    ("q2", "d1", 0.5),  # 0
    ("q1", 'd"2', float("nan")),  # 1: NaN score (the first bad score)
    ("q1", "a", 0.3),  # 2
    ("q0", "b'", None),  # 3: null score
    ("q3", "z", float("nan")),  # 4: NaN score
    (None, "y", 1.0),  # 5: null query (the first null id)
    ("q4", None, 1.0),  # 6: null doc
]


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.sql(
        'CREATE TABLE "my run" ("Se""lect" VARCHAR, "from" VARCHAR, "Score Col" DOUBLE, '
        '"__row" INTEGER)'
    )
    con.executemany('INSERT INTO "my run" VALUES (?, ?, ?, 0)', ROWS)
    con.sql('CREATE TABLE qrels ("Se""lect" VARCHAR, "from" VARCHAR, relevance INTEGER)')
    con.sql("INSERT INTO qrels VALUES ('q1', 'a', 1)")
    return con


def _first_bad(con: duckdb.DuckDBPyConnection, bad: str) -> tuple:
    sql = engine_checks.first_bad_sql("duckdb", '"my run"', bad, QUERY, DOC, "__row_1")
    return con.sql(sql).fetchall()[0]


def test_first_bad_row_and_check_sql_agree(con: duckdb.DuckDBPyConnection) -> None:
    """Null ids: rows 5 and 6, so 2 rows, the first at row 5 (query NULL, doc 'y'); check_sql
    counts the same 2 rows, its examples the smallest ids among them: query 'q4' (row 6's,
    the only non-null), doc 'y' (row 5's). Bad scores: rows 1, 3 and 4 (NaN, NULL, NaN), so
    3 rows, the first at row 1 (query 'q1', doc 'd"2'); check_sql's examples: min('q1', 'q0',
    'q3') = 'q0' and min('d"2', "b'", 'z') = "b'" (b < d < z). A NULL query on the first bad
    row stays NULL (``min_by`` would skip it and answer 'q4')."""
    null_id = engine_checks.null_id("duckdb", QUERY, DOC)
    bad_score = engine_checks.bad_number("duckdb", SCORE)
    assert _first_bad(con, null_id) == (2, 5, None, "y")
    assert _first_bad(con, bad_score) == (3, 1, "q1", 'd"2')
    found = con.sql(
        check_sql("duckdb", run='"my run"', query=QUERY, doc=DOC, score=SCORE)
    ).fetchall()
    assert found == [
        ("run", "null_id", 2, "q4", "y"),
        ("run", "bad_score", 3, "q0", "b'"),
    ]


def test_the_engine_names_the_first_bad_row(con: duckdb.DuckDBPyConnection) -> None:
    """The engine raises the first failed check (null ids before scores) with the first bad
    row of :func:`test_first_bad_row_and_check_sql_agree`: 2 rows, row 5, query None."""
    with pytest.raises(PolarsRankError) as error:
        pr.evaluate(
            '"my run"', "qrels", ["ndcg@10"], engine="duckdb", con=con,
            query=QUERY, doc=DOC, score=SCORE,
        )  # fmt: skip
    assert str(error.value) == (
        "run has 2 row(s) with a null query or doc id; first at row 5 (query None, doc 'y')"
    )
    con.sql('DELETE FROM "my run" WHERE "Se""lect" IS NULL OR "from" IS NULL')
    with pytest.raises(PolarsRankError) as error:
        pr.evaluate(
            '"my run"', "qrels", ["ndcg@10"], engine="duckdb", con=con,
            query=QUERY, doc=DOC, score=SCORE,
        )  # fmt: skip
    assert str(error.value) == (
        "run column 'Score Col' has 3 null or NaN value(s); first at row 1 (query 'q1', doc 'd\"2')"
    )


def test_repeated_pairs_by_hash_then_by_example(con: duckdb.DuckDBPyConnection) -> None:
    """Rows 1 and 2 share query 'q1' with docs 'd"2' and 'a': no pair repeats (0). One more
    ('q1', 'a') row repeats one pair: 1 hash, 1 pair, and that pair is the example."""
    keys = [engine_checks.id_key("duckdb", c, text=False) for c in (QUERY, DOC)]
    repeated = engine_checks.repeated_hashes_sql("duckdb", '"my run"', keys)
    assert con.sql(repeated).fetchall() == [(0,)]
    con.sql("""INSERT INTO "my run" VALUES ('q1', 'a', 0.1, 0)""")
    assert con.sql(repeated).fetchall() == [(1,)]
    exact = engine_checks.repeated_pairs_sql("duckdb", '"my run"', keys)
    assert con.sql(exact).fetchall() == [(1,)]
    example = engine_checks.duplicate_example_sql("duckdb", '"my run"', keys)
    assert con.sql(example).fetchall() == [(1, "q1", "a")]
