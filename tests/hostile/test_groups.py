"""Hostile names at this stop's new entry points: ``by`` columns (``to_sql(by=)``, the
DuckDB and Polars engines), and the table arguments of ``to_sql(predictions=)``,
``curve_sql`` and ``check_sql(predictions=)``.

* ``by`` columns named like reserved words, with quotes, spaces, a ``;`` or like the
  compiled query's own prefixes give, through ``to_sql`` run by DuckDB in every dialect
  (transpiled), the numbers ``evaluate(..., by=)`` gives, under the caller's column names.
* A table argument that is not a table reference (a subquery, a function call, a ``;``) is a
  ``PolarsRankError`` naming the argument, before any SQL is built.
"""

from __future__ import annotations

import warnings

import duckdb
import polars as pl
import pytest

import polars_rank as pr
from polars_rank.compiler import DIALECTS
from polars_rank.core.errors import PolarsRankError
from tests.support.sql_cases import to_duckdb

GROUP_NAMES = ["select", 'a"b', "x y; DROP TABLE run", "pr_run", "Order"]
NOT_TABLES = ["(SELECT 1)", "read_parquet('x')", "t; DROP TABLE t", "t --", "a.b.c.d"]


def _stacked() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Two systems on two days under hostile column names, one shared qrels."""
    run = pl.DataFrame(
        {
            "query": ["q1"] * 3 + ["q2"] * 2,
            "doc": ["a", "b", "c", "a", "d"],
            "score": [0.9, 0.5, 0.5, 0.3, 0.8],
        }
    )
    parts = [
        run.with_columns(
            pl.lit(system).alias(GROUP_NAMES[0]),
            pl.lit(day).alias(GROUP_NAMES[1]),
            (pl.col("score") * factor).alias("score"),
        )
        for system, factor in (("s1", 1.0), ("s2", -1.0))
        for day in ("d1", "d2")
    ]
    qrels = pl.DataFrame(
        {"query": ["q1", "q1", "q2", "q2"], "doc": ["a", "c", "d", "x"], "relevance": [1, 2, 1, 1]}
    )
    return pl.concat(parts), qrels


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_by_columns_with_hostile_names(dialect: str) -> None:
    run, qrels = _stacked()
    by = GROUP_NAMES[:2]
    metrics = ["AP", "nDCG@3", "P@2"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = pr.evaluate(run, qrels, metrics, by=by)
    sql = pr.to_sql(metrics, dialect, "run_t", "qrels_t", by=by, qrels_by=[])
    text = to_duckdb(sql, dialect) if dialect != "duckdb" else sql
    con = duckdb.connect()
    con.register("run_t", run)
    con.register("qrels_t", qrels)
    got = con.sql(text).pl()
    names = pr.compiler.column_names(metrics)
    assert [c.lower() for c in got.columns[:2]] == [c.lower() for c in by]
    got = got.rename(dict(zip(got.columns[:2], by, strict=True)))
    assert got.select(by).rows() == want.select(by).rows()
    for metric in metrics:
        assert got[names[metric]].to_list() == pytest.approx(want[metric].to_list(), abs=1e-12)


def test_by_columns_with_hostile_names_duckdb_engine() -> None:
    run, qrels = _stacked()
    by = GROUP_NAMES[:2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = pr.evaluate(run, qrels, ["AP", "RR"], by=by)
        got = pr.evaluate(run, qrels, ["AP", "RR"], by=by, engine="duckdb")
    assert got.columns == want.columns == [*by, "AP", "RR"]
    # by hand (trec_eval's order: score descending, ties by doc id descending; R from qrels):
    # s1 q1: a, c, b (c before b on the tie) -> AP (1/1 + 2/2)/2 = 1, RR 1;
    #    q2: d, a -> AP (1/1)/2 = 0.5 (x is never retrieved), RR 1: means 0.75 and 1.
    # s2 q1: c, b, a (scores negated) -> AP (1/1 + 2/3)/2 = 5/6, RR 1;
    #    q2: a, d -> AP (1/2)/2 = 1/4, RR 1/2: means 13/24 and 3/4. Both days alike.
    expected = [("s1", d, 0.75, 1.0) for d in ("d1", "d2")]
    expected += [("s2", d, 13 / 24, 0.75) for d in ("d1", "d2")]
    for frame in (got, want):
        assert [r[:2] for r in frame.rows()] == [r[:2] for r in expected]
        for row, hand in zip(frame.rows(), expected, strict=True):
            assert row[2:] == pytest.approx(hand[2:], abs=1e-12)


@pytest.mark.parametrize("bad", NOT_TABLES)
def test_classification_table_arguments_are_references(bad: str) -> None:
    calls = {
        "predictions": lambda: pr.to_sql(["AUC"], "postgres", predictions=bad),
        "curve": lambda: pr.curve_sql("roc", "spark", bad),
        "check": lambda: pr.check_sql("bigquery", predictions=bad),
    }
    for what, call in calls.items():
        with pytest.raises(PolarsRankError, match="table") as err:
            call()
        assert bad in str(err.value) or "predictions" in str(err.value), (what, str(err.value))
