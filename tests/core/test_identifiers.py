"""The reserved-word lists and the identifier rules of :mod:`polars_rank.core.identifiers`.

The DuckDB, PostgreSQL, Spark and ClickHouse (chDB) lists are read again from the live engines
with the query in each file's header and compared with the file (a word with a note after it
is an addition the file explains); the BigQuery and Trino lists hold sqlglot's own reserved
sets.
"""

from __future__ import annotations

from typing import ClassVar, get_args

import duckdb
import pytest

from polars_rank.compiler import DIALECTS, to_sql
from polars_rank.core.dialects import (
    DialectName,
    dialect_names,
    get_dialect,
    unregister,
)
from polars_rank.core.dialects.postgres import Postgres
from polars_rank.core.dialects.spark import Spark
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.identifiers import (
    KEYWORDS,
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


def test_clickhouse_list_is_the_engines(clickhouse):
    found = set(clickhouse.query(_query("clickhouse")).to_series().to_list())
    assert found == _from_engine("clickhouse")


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


#: The reserved lists the dialects read (Databricks reads Spark's).
LISTS = sorted({get_dialect(d).reserved_list for d in DIALECTS})


@pytest.mark.parametrize("name", LISTS)
def test_every_list_has_a_header_naming_its_source_and_lower_case_words(name):
    path = KEYWORDS / f"{name}.txt"
    assert header(path, "Source"), f"{path} has no '# Source:' line"
    words = list(read_list(path))
    assert words == sorted(set(words)) and all(w == w.lower() and w.isidentifier() for w in words)
    assert {"select", "from", "where"} <= set(words)


def test_every_dialect_has_a_list():
    assert LISTS == ["bigquery", "clickhouse", "duckdb", "postgres", "snowflake", "spark", "trino"]
    assert all((KEYWORDS / f"{name}.txt").is_file() for name in LISTS)


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
    with pytest.raises(PolarsRankError, match="dialect must be 'duckdb', .* got 'nope'"):
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


def test_the_dialect_literal_names_the_registered_dialects():
    """The public ``DialectName`` type and the registry list the same dialects, in order."""
    assert get_args(DialectName) == dialect_names() == tuple(DIALECTS)
    assert get_args(DialectName) == (
        "duckdb",
        "postgres",
        "spark",
        "databricks",
        "bigquery",
        "snowflake",
        "trino",
        "clickhouse",
    )


def test_databricks_is_spark_sql():
    """Databricks overrides only its names (Spark's quoting and reserved list)."""
    databricks, spark = get_dialect("databricks"), get_dialect("spark")
    assert isinstance(databricks, Spark)
    assert (databricks.quote_char, databricks.reserved_list) == ("`", "spark")
    assert databricks.sqlglot_name == "databricks" and spark.sqlglot_name == "spark"


def test_a_new_dialect_is_a_subclass_only():
    """A Dialect subclass defined here registers itself: to_sql, quote and table_reference
    take its name, with no other code naming it; a subclass of PostgreSQL that overrides
    nothing of its SQL prints PostgreSQL's query."""

    class PostgresCopy(Postgres):
        name: ClassVar[str] = "pr_test_dialect"

        @property
        def reserved_list(self) -> str:
            return "postgres"

        @property
        def sqlglot_name(self) -> str:
            return "postgres"

    try:
        assert dialect_names()[-1] == "pr_test_dialect"
        assert get_dialect("pr_test_dialect").name == "pr_test_dialect"
        assert quote("a b", "pr_test_dialect") == '"a b"'
        assert table_reference('db."My Runs"', "run", "pr_test_dialect").parts[1].quoted
        args = (["nDCG@10", "AP"], "db.run", "db.qrels")
        assert to_sql(args[0], "pr_test_dialect", *args[1:]) == to_sql(
            args[0], "postgres", *args[1:]
        )
    finally:
        unregister("pr_test_dialect")
    assert "pr_test_dialect" not in dialect_names()
    with pytest.raises(PolarsRankError, match="dialect must be"):
        get_dialect("pr_test_dialect")
