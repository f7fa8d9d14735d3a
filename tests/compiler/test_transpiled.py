"""BigQuery, Snowflake and Trino cannot run here: their SQL must parse back in its own dialect,
and — transpiled back to DuckDB by sqlglot — give the Polars engine's numbers within 1e-12."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest
import sqlglot

import polars_rank as pr
from polars_rank.compiler import DIALECTS
from tests.support.sql_cases import (
    METRICS,
    OPTION_SETS,
    RECOMMENDER_METRICS,
    RECOMMENDER_TABLES,
    accepted,
    assert_recommender_sql,
    assert_sql_result,
    compiled,
    recommender_random,
    stacked_random,
    to_duckdb,
    trec_case,
)
from tests.support.strategies import fast_first

REMOTE = ["bigquery", "snowflake", "trino"]


def run_transpiled(sql: str, dialect: str, run: pl.DataFrame, qrels: pl.DataFrame):
    """``sql`` read as ``dialect``, written as DuckDB, run over ``run_t`` and ``qrels_t``."""
    con = duckdb.connect()
    con.register("run_t", run)
    con.register("qrels_t", qrels)
    result = con.sql(to_duckdb(sql, dialect)).pl()
    if dialect == "snowflake":  # unquoted names come back upper case, as on Snowflake
        result = result.rename(str.lower)
    return result


@pytest.mark.parametrize("dialect", fast_first(DIALECTS))
def test_parses_back_in_its_dialect(dialect):
    for per_query in (False, True):
        sql = pr.to_sql(METRICS, dialect, "run_t", "qrels_t", per_query=per_query, max_rank=50)
        tree = sqlglot.parse_one(sql, read=dialect, error_level=sqlglot.ErrorLevel.RAISE)
        again = tree.sql(dialect, pretty=True)  # may differ in form, e.g. NOT x IS NULL
        assert sqlglot.parse_one(again, read=dialect).sql(dialect, pretty=True) == again


@pytest.mark.parametrize("dialect", fast_first(DIALECTS))
def test_recommender_sql_parses_back_in_its_dialect(dialect):
    sql = pr.to_sql(
        RECOMMENDER_METRICS,
        dialect,
        "run_t",
        "qrels_t",
        interactions="i_t",
        catalog="c_t",
        item_features="f_t",
    )
    tree = sqlglot.parse_one(sql, read=dialect, error_level=sqlglot.ErrorLevel.RAISE)
    again = tree.sql(dialect, pretty=True)
    assert sqlglot.parse_one(again, read=dialect).sql(dialect, pretty=True) == again


SNOWFLAKE_FLATTEN = "CROSS JOIN TABLE(FLATTEN(INPUT => f.vector)) AS t(seq, key, path, j, x, this)"
FLATTEN_AS_DUCKDB = "TABLE(UNNEST(INPUT => f.vector)) AS t(seq, key, path, j, x, this)"


@pytest.mark.parametrize("dialect", fast_first(REMOTE))
def test_recommender_through_duckdb(dialect):
    """The recommender metrics' SQL, read in its dialect and run by DuckDB (integer ids for
    Trino, text ids for the others)."""
    frames = recommender_random(40, int_ids=dialect == "trino", seed=4)
    con = duckdb.connect()
    for key, name in RECOMMENDER_TABLES.items():
        con.register(name, frames[key])

    def query(sql: str) -> pl.DataFrame:
        text = to_duckdb(sql, dialect)
        if dialect == "snowflake" and "FLATTEN" in sql:
            # sqlglot does not write Snowflake's FLATTEN back as DuckDB: check the Snowflake
            # clause (FLATTEN's columns are SEQ, KEY, PATH, INDEX, VALUE, THIS: j is the
            # position, x the component), then run DuckDB's UNNEST in its place
            assert sql.count(SNOWFLAKE_FLATTEN) == 1
            assert text.count(FLATTEN_AS_DUCKDB) == 1
            text = text.replace(FLATTEN_AS_DUCKDB, "UNNEST(f.vector) WITH ORDINALITY AS t(x, j)")
        result = con.sql(text).pl()
        return result.rename(str.lower) if dialect == "snowflake" else result

    assert_recommender_sql(query, dialect, frames, queries="both", max_rank=6)


@pytest.mark.parametrize("dialect", fast_first(REMOTE))
@pytest.mark.parametrize("case", fast_first(["trunc_c_M100", "test", "rel_level_l2"]))
def test_trec_files_through_duckdb(trec_dir, dialect, case):
    run, qrels, options = trec_case(trec_dir, case)
    metrics = accepted(qrels)
    for per_query in (True, False):
        sql = compiled(metrics, dialect, "run_t", "qrels_t", per_query=per_query, **options)
        got = run_transpiled(sql, dialect, run, qrels)
        assert_sql_result(got, run, qrels, metrics, **options)


@pytest.mark.parametrize("dialect", fast_first(REMOTE))
@pytest.mark.parametrize("options", fast_first(OPTION_SETS), ids=str)
def test_random_through_duckdb(dialect, options):
    run, qrels = stacked_random(30, int_ids=dialect == "trino")
    sql = compiled(METRICS, dialect, "run_t", "qrels_t", per_query=True, **options)
    assert_sql_result(run_transpiled(sql, dialect, run, qrels), run, qrels, METRICS, **options)


def test_bigquery_project_names():
    sql = pr.to_sql(
        ["IPrec@0.3", "nDCG@10"], "bigquery", "my-project.ds.run", "my-project.ds.qrels"
    )
    assert "FROM my-project.ds.run" in sql and "FROM my-project.ds.qrels" in sql
    assert "iprec_at_0_3" in sql and "@" not in sql
