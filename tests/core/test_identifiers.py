"""The reserved-word lists and the identifier rules of :mod:`polars_rank.core.identifiers`.

The DuckDB, PostgreSQL and Spark lists are read again from the live engines with the query in
each file's header and compared with the file (a word with a note after it is an addition the
file explains); the BigQuery and Trino lists hold sqlglot's own reserved sets.
"""

from __future__ import annotations

import duckdb
import pytest

from polars_rank.compiler import DIALECTS
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.identifiers import (
    KEYWORDS,
    LISTS,
    header,
    identifier,
    is_plain,
    quote,
    read_list,
    reserved,
    table_reference,
)


def _from_engine(name: str) -> set[str]:
    """The words of a list that come from its engine's query (those without a note)."""
    return {word for word, note in read_list(KEYWORDS / f"{name}.txt").items() if note is None}


def _query(name: str) -> str:
    (query,) = header(KEYWORDS / f"{name}.txt", "query")
    return query


def test_duckdb_list_is_the_engines():
    con = duckdb.connect()
    found = {row[0] for row in con.sql(_query("duckdb")).fetchall()}
    assert found == _from_engine("duckdb")


def test_postgres_list_is_the_servers(postgres):
    found = set(postgres.query(_query("postgres"))["word"].to_list())
    assert found == _from_engine("postgres")


@pytest.mark.slow
def test_spark_list_is_the_sessions(spark):
    (setup,) = header(KEYWORDS / "spark.txt", "setup")
    key = setup.removeprefix("SET ").split("=")[0]
    before = spark.conf.get(key)
    spark.sql(setup)
    try:
        found = {row[0] for row in spark.sql(_query("spark")).collect()}
    finally:
        spark.conf.set(key, before)
    assert found == _from_engine("spark")


@pytest.mark.parametrize("name", ["bigquery", "trino"])
def test_sqlglots_reserved_words_are_in_the_documented_lists(name):
    """The words sqlglot quotes itself for these dialects are on the lists: a sqlglot upgrade
    that reserves a new word shows here."""
    import sqlglot.dialects as dialects

    generator = getattr(dialects, {"bigquery": "BigQuery", "trino": "Trino"}[name]).Generator
    assert {w.lower() for w in generator.RESERVED_KEYWORDS} <= reserved(name)


@pytest.mark.parametrize("name", sorted(set(LISTS.values())))
def test_every_list_has_a_header_naming_its_source_and_lower_case_words(name):
    path = KEYWORDS / f"{name}.txt"
    assert header(path, "Source"), f"{path} has no '# Source:' line"
    words = list(read_list(path))
    assert words == sorted(set(words)) and all(w == w.lower() and w.isidentifier() for w in words)
    assert {"select", "from", "where"} <= set(words)


def test_every_dialect_has_a_list():
    assert set(DIALECTS) == set(LISTS)


@pytest.mark.parametrize(
    ("name", "dialect", "shown"),
    [
        ("query", "postgres", "query"),
        ("user", "postgres", '"user"'),  # a function in PostgreSQL: quoted
        ("current_date", "snowflake", '"current_date"'),
        ("Query", "postgres", '"Query"'),  # mixed case: quoted exactly
        ("QUERY", "snowflake", '"QUERY"'),
        ("a b", "spark", "`a b`"),
        ("a`b", "spark", "`a``b`"),
        ("a`b", "bigquery", "`a\\`b`"),
        ('a"b', "trino", '"a""b"'),
        ("a.b", "duckdb", '"a.b"'),
        ("é", "postgres", '"é"'),
        ("_x", "postgres", "_x"),
        ("_x", "trino", '"_x"'),  # Trino's bare names start with a letter
        ("map", "postgres", "map"),  # not reserved in PostgreSQL
        ("true", "spark", "`true`"),  # the measured addition
        ("window", "snowflake", "window"),  # not on Snowflake's list: stays foldable
    ],
)
def test_identifier_rule(name, dialect, shown):
    assert identifier(name, dialect) == shown
    assert is_plain(name, dialect) == (shown == name)


def test_quote_knows_every_dialect():
    for dialect in DIALECTS:
        assert quote("x", dialect) in ('"x"', "`x`")
    with pytest.raises(PolarsRankError, match="no SQL dialect 'nope'"):
        quote("x", "nope")


@pytest.mark.parametrize(
    ("text", "dialect", "shown"),
    [
        ("run", "postgres", "run"),
        ("  db.s.run  ", "postgres", "db.s.run"),
        ("Db.Run", "snowflake", "Db.Run"),  # unquoted: folded by the dialect, as written
        ('"My Runs"', "postgres", '"My Runs"'),
        ('"a""b".c', "duckdb", '"a""b".c'),
        ("`a``b`.c", "spark", "`a``b`.c"),
        ('"x y".z', "spark", "`x y`.z"),  # double quotes accepted everywhere
        ("my-project.ds.run", "bigquery", "my-project.ds.run"),
        ("`my-project.ds.run`", "bigquery", "`my-project.ds.run`"),
        ("`a\\`b`", "bigquery", "`a\\`b`"),
        ("order", "postgres", '"order"'),  # a reserved word, written bare: quoted as given
        ("s.user", "duckdb", "s.user"),  # not reserved in DuckDB
        ("_t", "trino", '"_t"'),
    ],
)
def test_table_references(text, dialect, shown):
    assert table_reference(text, "run", dialect).sql(dialect) == shown


@pytest.mark.parametrize(
    "text",
    [
        "read_text('/etc/passwd')",
        "query('SELECT 1')",
        "nextval('s')",
        "(SELECT * FROM run)",
        "run; DROP TABLE run",
        "run --",
        "run /* x */",
        "a.b.c.d",
        "a..b",
        ".a",
        "a.",
        '""',
        '"a',
        "a b",
        "run AS r",
        "run r",
        "`run`",  # backticks are not PostgreSQL's
        "my-project.ds.run",  # dashes only in BigQuery
        "1run",
        "rün",
        "run\nx",
        "run\x00",
    ],
)
def test_anything_but_a_table_reference_is_refused(text):
    with pytest.raises(PolarsRankError, match=r"^run must be a table reference \(\[catalog\.\]"):
        table_reference(text, "run", "postgres")


@pytest.mark.parametrize("value", [None, "", "   ", 3])
def test_a_missing_table_name_is_refused(value):
    with pytest.raises(PolarsRankError, match="the qrels table name must be a non-empty string"):
        table_reference(value, "qrels", "duckdb")
