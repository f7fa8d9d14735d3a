"""The engines' warning counts (``compiler/engine_warnings.py``): the outside-catalog count
printed for DuckDB and Spark, and run on DuckDB (and a live Spark session) over hostile
column names, with the counts worked by hand."""

from __future__ import annotations

from dataclasses import replace

import duckdb
import polars as pl
import pytest

from polars_rank.compiler.engine_warnings import outside_catalog_sql
from polars_rank.core.conventions import Columns
from polars_rank.core.options import Options
from polars_rank.duckdb import session

#: Hostile names: a quote, a keyword, a space, and a group column named as the query's
#: internal position column.
QUERY, DOC, SCORE, GROUP = 'Se"lect', "from", "Score Col", "pr_pos"
OPTIONS = Options(columns=Columns(query=QUERY, doc=DOC, score=SCORE, rank=SCORE), order_by="score")

#: s1: q1 ranks d3 (3.0), d2, d1; q2 ties "B" and "a" (as bytes "a" > "B": a first); q3 has
#: no judgments. s2: q1 ties d1 and d3 (d3 first).
RUN = pl.DataFrame(
    {
        GROUP: ["s1"] * 6 + ["s2"] * 2,
        QUERY: ["q1", "q1", "q1", "q2", "q2", "q3", "q1", "q1"],
        DOC: ["d3", "d2", "d1", "B", "a", "z", "d1", "d3"],
        SCORE: [3.0, 2.0, 1.0, 1.0, 1.0, 5.0, 2.0, 2.0],
    }
)
#: Judgments shared by both groups (no group column): q1 and q2.
QRELS = pl.DataFrame({QUERY: ["q1", "q2"], DOC: ["d1", "a"], "relevance": [1, 1]})
#: The catalog per group: s1 {d3, B}, s2 {d1}.
CATALOG = pl.DataFrame({GROUP: ["s1", "s1", "s2"], DOC: ["d3", "B", "d1"]})
TABLES = {"my_run": RUN, "my_qrels": QRELS, "my_catalog": CATALOG}


def _sql(dialect: str, options: Options = OPTIONS, k: int | None = 2, qrels: bool = True) -> str:
    quote = {"duckdb": '"{}"', "spark": "`{}`"}[dialect]
    return outside_catalog_sql(
        dialect,
        quote.format("my_run"),
        quote.format("my_catalog"),
        options,
        k,
        by=[GROUP],
        catalog_by=[GROUP],
        qrels=quote.format("my_qrels") if qrels else None,
        qrels_by=[],
    )


#: (k, with judgments, order) and the count of (group, item) pairs outside the catalog:
#: the top k per (group, query), the evaluated queries' items, less the group's catalog.
CASES = [
    # s1: q1 [d3, d2], q2 [a, B] -> {d3, d2, a, B} - {d3, B} = {d2, a}: 2;
    # s2: q1 [d3, d1] -> {d3, d1} - {d1} = {d3}: 1. 2 + 1 = 3
    ((2, True, "score"), 3),
    # s1: q1 [d3], q2 [a] -> {a}: 1; s2: q1 [d3] -> {d3}: 1. 1 + 1 = 2
    ((1, True, "score"), 2),
    # every item: s1 {d3, d2, d1, a, B} - {d3, B} = 3; s2 {d1, d3} - {d1} = 1. 3 + 1 = 4
    ((None, True, "score"), 4),
    # without judgments q3 counts too: s1 adds z to k=2's {d2, a}: 3; s2: 1. 3 + 1 = 4
    ((2, False, "score"), 4),
    # the score as a rank (ascending): s1 q1 [d1], q2 [a] (tied at 1: a first) -> {d1, a}: 2;
    # s2 q1 [d3] (tied: d3 first): 1. 2 + 1 = 3
    ((1, True, "rank"), 3),
]


def test_prints_each_dialect() -> None:
    """DuckDB quotes with ``"`` and compares ids by the session's ``_pr_id_bytes`` (the tie
    key as its text); Spark quotes with backticks, and casts the tie key to STRING (its byte
    order). Both count pairs without a match in the catalog (``NOT EXISTS``), and the
    internal position column steps aside from the group column ``pr_pos``."""
    duck, spark = _sql("duckdb"), _sql("spark")
    print(duck, spark, sep="\n")
    assert '_pr_id_bytes(CAST(r."from" AS VARCHAR)) DESC NULLS LAST' in duck
    assert '_pr_id_bytes(j."Se""lect") = _pr_id_bytes(r."Se""lect")' in duck
    assert 'AS "pr_pos_" FROM "my_run" AS r' in duck
    assert "CAST(r.`from` AS STRING) DESC NULLS LAST" in spark
    assert "c.`from` = s.`from` AND c.`pr_pos` = s.`pr_pos`" in spark
    assert '"' not in spark.replace('`Se"lect`', "")
    assert "_pr_id_bytes" not in spark
    for sql in (duck, spark):
        assert "WHERE NOT EXISTS (SELECT 1 FROM" in sql
        assert "ORDER BY CAST(r." in sql and "AS DOUBLE) DESC NULLS LAST" in sql
        assert "pr_pos_" in sql and "<= 2" in sql


def _options(order: str) -> Options:
    return replace(OPTIONS, order_by="rank") if order == "rank" else OPTIONS


@pytest.mark.parametrize("collation", [None, "nocase"])
@pytest.mark.parametrize(("case", "want"), CASES)
def test_counts_on_duckdb(case, want, collation) -> None:
    """Each case's hand-worked count, on a plain connection and on one whose
    ``default_collation`` is ``nocase`` (which would tie "a" and "A" and order "B" above
    "a"): the count compares as bytes."""
    k, judged, order = case
    con = duckdb.connect()
    if collation:
        con.execute(f"SET default_collation = '{collation}'")
    with session(con) as cursor:  # the engine's cursor, with the macros
        for name, frame in TABLES.items():
            cursor.register(name, frame.to_arrow())
        got = cursor.sql(_sql("duckdb", _options(order), k, judged)).fetchall()
    assert got == [(want,)]


@pytest.mark.spark
def test_counts_on_spark(spark) -> None:
    """The same counts in Spark SQL."""
    for name, frame in TABLES.items():
        spark.createDataFrame(frame.to_arrow()).createOrReplaceTempView(name)
    try:
        for (k, judged, order), want in CASES:
            got = spark.sql(_sql("spark", _options(order), k, judged)).collect()[0][0]
            assert got == want, (k, judged, order)
    finally:
        for name in TABLES:
            spark.catalog.dropTempView(name)
