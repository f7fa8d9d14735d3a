"""Input checks for the DuckDB engine, raising exactly the Polars engine's errors.

The checks are those of :func:`polars_rank.core.validation.validate`: empty inputs, null
ids, null or NaN scores (or ranks) and grades, and duplicate ``(query, doc)`` pairs when
``duplicates="error"``. A fast pass decides whether anything is wrong; only then is the
message built, the same way and in the same order as the Polars engine builds it.

* Polars frames: :func:`polars_rank.core.validation.validate` itself (a one-pass count of
  problems, then, only if it finds any, the exact checks that name the first one), on a
  thread beside the evaluation (``ranking._Checking``: its error is the one raised).
* SQL inputs (tables, views, Parquet files), with ``duplicates="error"``: the judgments are
  counted first (:func:`qrels_look_wrong`, one pass and one grouping by a hash of
  ``(query, doc)``); the run's checks are counted by the evaluation itself, in the pass that
  counts each query's documents (null ids, null or NaN scores, fewer distinct doc hashes than
  rows in a query: :func:`.duckdb_sql.run_checks`), so the run is not read again for them.
  Only when a count shows a problem (or the evaluation fails) does :func:`check_sql` run the
  exact checks, which build the message: one SQL pass per table, the row numbers in the
  messages counted in scan order (0-based). With the other ``duplicates`` policies
  :func:`check_sql` runs before the evaluation.

The queries are :mod:`polars_rank.compiler.engine_checks`' in the DuckDB dialect; this module
runs them and raises the messages of :mod:`polars_rank.core.messages`.
"""

from __future__ import annotations

from typing import Any

import duckdb
import polars as pl

from polars_rank.compiler import engine_checks as queries
from polars_rank.core import messages
from polars_rank.core.columns import fresh
from polars_rank.core.dialects import get_dialect
from polars_rank.core.options import Options
from polars_rank.engines.duckdb.query import BAD_VALUES, DUPLICATE_QUERIES, NULL_IDS, RUN_ROWS

#: The dialect of the check queries (:mod:`polars_rank.compiler.engine_checks`).
DUCKDB = get_dialect("duckdb")


def _one(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[Any, ...] | None:
    """The first row of a query's result, or None when it has none."""
    rows = con.sql(sql).fetchall()
    return rows[0] if rows else None


def _row(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[Any, ...]:
    """The row of an aggregate query without ``GROUP BY`` (it always has one)."""
    row = _one(con, sql)
    assert row is not None, "an aggregate without GROUP BY returns one row"
    return row


def _bad_value_sql(name: str, dtype: pl.DataType) -> str:
    """SQL true for a null or NaN value (tested row by row: see the dialect's
    :meth:`~polars_rank.core.dialects.Dialect.is_nan_per_row`)."""
    return queries.bad_number(DUCKDB, name, floating=dtype.is_float())


def _first_bad(
    con: duckdb.DuckDBPyConnection, source: str, bad: str, query: str, doc: str
) -> dict[str, Any]:
    """count, first row (0-based, scan order), and its query and doc as text."""
    # the row number under a name none of the source's columns has (DuckDB ignores case)
    columns = [c.lower() for c in con.sql(queries.columns_sql(DUCKDB, source)).columns]
    n = fresh("__row", columns)
    count, row, first_query, first_doc = _row(
        con, queries.first_bad_sql(DUCKDB, source, bad, query, doc, n)
    )
    return {"count": count, "row": row, "query": first_query, "doc": first_doc}


def _pairs(query: str, doc: str, dtypes: tuple[pl.DataType, pl.DataType]) -> tuple[str, str]:
    """The id columns as compared: text as bytes, whatever the connection's collation."""
    return (
        queries.id_key(DUCKDB, query, text=dtypes[0] == pl.String),
        queries.id_key(DUCKDB, doc, text=dtypes[1] == pl.String),
    )


def _duplicate_count_fast(con: duckdb.DuckDBPyConnection, source: str, q: str, d: str) -> int:
    """Number of (query, doc) hashes seen more than once: 0 proves there is no duplicate."""
    return int(_row(con, queries.repeated_hashes_sql(DUCKDB, source, [q, d]))[0])


def _duplicate_example(
    con: duckdb.DuckDBPyConnection, source: str, q: str, d: str
) -> dict[str, Any] | None:
    found = _one(con, queries.duplicate_example_sql(DUCKDB, source, [q, d]))
    if found is None:
        return None
    return {"count": found[0], "row": None, "query": found[1], "doc": found[2]}


def _qrels_bad(qrels_schema: pl.Schema, options: Options) -> tuple[str, str, str]:
    """SQL true for a null (or NaN) grade, for an infinite grade, and for a grade above a
    metric's limit."""
    limit, rel = options.grade_limit, options.columns.relevance
    floating = qrels_schema[rel].is_float()
    return (
        _bad_value_sql(rel, qrels_schema[rel]),
        queries.infinite(DUCKDB, rel, floating=floating),
        queries.above(DUCKDB, rel, None if limit is None else limit.value),
    )


def _qrels_counts(
    con: duckdb.DuckDBPyConnection, qrels: str, qrels_schema: pl.Schema, options: Options
) -> tuple[Any, ...]:
    """Rows with a null id, with a bad grade, with an infinite grade, with a grade above the
    limit; all rows."""
    null_id = queries.null_id(DUCKDB, options.columns.query, options.columns.doc)
    conditions = [null_id, *_qrels_bad(qrels_schema, options)]
    return _row(con, queries.counts_sql(DUCKDB, qrels, conditions))


def qrels_look_wrong(
    con: duckdb.DuckDBPyConnection,
    qrels: str,
    qrels_schema: pl.Schema,
    options: Options,
    *,
    judgments_given: bool = True,
) -> bool:
    """The checks of :func:`check_sql` on the judgments alone, as counts: True when one may
    fail (no rows, a null id or grade, a grade above the limit, a repeated ``(query, doc)``
    hash), and :func:`check_sql` must name the problem. For ``duplicates="error"``; the run's
    checks go with the evaluation (:func:`.duckdb_sql.run_checks`)."""
    null, bad, infinite, above, rows = _qrels_counts(con, qrels, qrels_schema, options)
    if null or bad or infinite or above or (rows == 0 and judgments_given):
        return True
    cols = options.columns
    keys = _pairs(cols.query, cols.doc, (qrels_schema[cols.query], qrels_schema[cols.doc]))
    return bool(_duplicate_count_fast(con, qrels, *keys))


def run_looks_wrong(counts: dict[str, Any]) -> bool:
    """Whether the run's check totals returned by the evaluation (``run_checks``) show a
    problem that :func:`check_sql` must name: no rows, null ids or scores, a query with fewer
    distinct ``(query, doc)`` hashes than rows."""
    return bool(
        counts[RUN_ROWS] == 0 or counts[NULL_IDS] or counts[BAD_VALUES] or counts[DUPLICATE_QUERIES]
    )


def check_sql(
    con: duckdb.DuckDBPyConnection,
    run: str,
    run_schema: pl.Schema,
    qrels: str,
    qrels_schema: pl.Schema,
    options: Options,
    *,
    judgments_given: bool = True,
) -> None:
    """The checks of :func:`polars_rank.core.validation.validate` on SQL sources (``FROM``
    texts), with the same messages, raised in the same order. ``options`` must be resolved;
    ``judgments_given=False``: ``qrels`` is the empty stand-in of a run without judgments."""
    cols, order_column = options.columns, options.order_column
    null_id = queries.null_id(DUCKDB, cols.query, cols.doc)
    bad_order_value = _bad_value_sql(order_column, run_schema[order_column])
    run_null, run_bad, run_rows = _row(
        con, queries.counts_sql(DUCKDB, run, [null_id, bad_order_value])
    )
    limit = options.grade_limit
    bad_rel, infinite, above = _qrels_bad(qrels_schema, options)
    qrels_null, qrels_bad, qrels_infinite, qrels_above, qrels_rows = _qrels_counts(
        con, qrels, qrels_schema, options
    )
    for what, rows in (("run", run_rows), ("qrels", qrels_rows)):
        if rows == 0 and (what == "run" or judgments_given):
            raise messages.empty_input(what)
    checks = [
        ("run_null_id", run_null, run, null_id),
        ("qrels_null_id", qrels_null, qrels, null_id),
        ("run_bad_order_value", run_bad, run, bad_order_value),
        ("qrels_bad_rel", qrels_bad, qrels, bad_rel),
        ("qrels_infinite_rel", qrels_infinite, qrels, infinite),
        ("qrels_grade_above_max", qrels_above, qrels, above),
    ]
    for check, count, source, bad in checks:
        if count:
            found = _first_bad(con, source, bad, cols.query, cols.doc)
            if check == "qrels_grade_above_max" and limit is not None:
                largest = _row(con, queries.largest_sql(DUCKDB, qrels, cols.relevance))[0]
                found |= {"limit": limit.value, "metric": limit.metric, "largest": largest}
            raise messages.input_problem(
                check, order_column=order_column, rel=cols.relevance, **found
            )
    if options.duplicates != "error":
        return
    keys = _pairs(cols.query, cols.doc, (run_schema[cols.query], run_schema[cols.doc]))
    for check, source in (("run_duplicate", run), ("qrels_duplicate", qrels)):
        if _duplicate_count_fast(con, source, *keys):
            example = _duplicate_example(con, source, *keys)
            if example is not None:
                raise messages.input_problem(
                    check, order_column=order_column, rel=cols.relevance, **example
                )
