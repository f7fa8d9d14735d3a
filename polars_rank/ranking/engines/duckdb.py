"""``evaluate(..., engine="duckdb")``: one SQL query over the polars_rank macros.

The query ranks the run (score descending, ties by doc id descending as bytes; or the run's
own ranks with ``order_by="rank"``), joins the judgments, and aggregates each query with the
macros of ``sql/ranking.sql`` (text in :mod:`.duckdb_sql`); the result matches the Polars
engine's column for column.

Inputs may be Polars frames (registered on the connection as Arrow streams, without a copy),
DuckDB relations, table or view names on ``con``, or Parquet paths (strings ending in
``.parquet``, read with ``read_parquet``).

Example:
    >>> import polars as pl, polars_rank as pr
    >>> run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
    >>> pr.evaluate(run, qrels, ["RR", "P@1"], engine="duckdb").rows()
    [(0.5, 0.0)]
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import duckdb
import polars as pl

from polars_rank._arrow import register_frame, to_polars
from polars_rank._errors import PolarsRankError
from polars_rank._frames import ACCEPTED
from polars_rank._sql import ident, literal, table_name
from polars_rank.duckdb import session
from polars_rank.ranking import messages
from polars_rank.ranking.engines import LEFT_OUT
from polars_rank.ranking.engines.duckdb_checks import check_sql
from polars_rank.ranking.engines.duckdb_sql import ROW, id_sql, query_sql
from polars_rank.ranking.names import MetricSpec
from polars_rank.ranking.options import Options
from polars_rank.ranking.validation import validate


@dataclass
class _Source:
    """One input as something DuckDB can read: ``sql`` goes after ``FROM``."""

    sql: str
    schema: pl.Schema
    frame: pl.DataFrame | None = None  # the Polars frame, when the input was one
    views: list[str] = field(default_factory=list)  # names registered on the connection


def _is_parquet(obj: Any) -> bool:
    return isinstance(obj, str) and obj.lower().endswith(".parquet")


def _source(con: duckdb.DuckDBPyConnection, obj: Any, what: str, *, row_index: bool) -> _Source:
    """Make ``obj`` readable by ``con``; register Polars data under a unique name."""
    if isinstance(obj, duckdb.DuckDBPyRelation):
        obj = to_polars(obj)
    if isinstance(obj, pl.LazyFrame):
        obj = obj.collect()
    if isinstance(obj, pl.DataFrame):
        name = f"__pr_{what}_{uuid.uuid4().hex}"
        register_frame(con, name, obj.with_row_index(ROW) if row_index else obj)
        return _Source(ident(name), obj.schema, frame=obj, views=[name])
    if isinstance(obj, str):
        sql = f"read_parquet({literal(obj)})" if _is_parquet(obj) else table_name(obj)
        try:
            schema = to_polars(con.sql(f"SELECT * FROM {sql} LIMIT 0")).schema
        except duckdb.Error as error:
            raise PolarsRankError(f"{what} {obj!r} cannot be read by DuckDB: {error}") from None
        if row_index:
            sql = f"(SELECT *, row_number() OVER () - 1 AS {ROW} FROM {sql})"
        return _Source(sql, schema)
    raise TypeError(
        f"{what} must be {ACCEPTED}, a DuckDB relation, a table name or a .parquet path, "
        f"got {type(obj).__name__}"
    )


def _left_out_fallback(con, run: _Source, qrels: _Source, query: str) -> int:
    """Run queries without judgments, counted apart (only needed when no row came back)."""
    q = id_sql(query, run.schema[query])
    rows = con.sql(
        f"SELECT count(DISTINCT {q}) FROM {run.sql} WHERE {q} NOT IN (SELECT {q} FROM {qrels.sql})"
    ).fetchall()
    return rows[0][0]


def evaluate_duckdb(
    run: Any,
    qrels: Any,
    specs: list[MetricSpec],
    options: Options,
    *,
    per_query: bool,
    con: duckdb.DuckDBPyConnection | None = None,
    warn: Callable[[int], None] = messages.warn_left_out_here,
) -> pl.DataFrame | pl.LazyFrame:
    """Evaluate in DuckDB; the same result as the Polars engine (see :func:`evaluate`).

    Returns a DataFrame, or a LazyFrame over the computed result when ``run`` is a LazyFrame
    (as the Polars engine does). Gives ``warn`` the number of run queries without judgments,
    as the Polars engine does. ``con`` gets the macros defined on it; without it a cursor of
    the package's in-memory database is used (table names then cannot be resolved: pass
    ``con`` with them).
    """
    lazy_out = isinstance(run, pl.LazyFrame)
    row_index = options.duplicates == "first"  # only needed to know which row came first
    with session(con) as con:
        sources: list[_Source] = []
        try:
            run_src = _source(con, run, "run", row_index=row_index)
            sources.append(run_src)
            qrels_src = _source(con, qrels, "qrels", row_index=row_index)
            sources.append(qrels_src)
            options = options.resolve(run_src.schema, qrels_src.schema)
            if options.validate:
                if run_src.frame is not None and qrels_src.frame is not None:
                    validate(run_src.frame.lazy(), qrels_src.frame.lazy(), options, in_memory=True)
                else:
                    check_sql(
                        con, run_src.sql, run_src.schema, qrels_src.sql, qrels_src.schema, options
                    )
            sql = query_sql(
                run_src.sql, qrels_src.sql, run_src.schema, specs, options, per_query=per_query
            )
            result = to_polars(con.sql(sql))
            if result.height:
                left_out = int(result[LEFT_OUT][0] or 0)
            else:
                left_out = _left_out_fallback(con, run_src, qrels_src, options.columns.query)
        finally:
            for source in sources:
                for view in source.views:
                    con.unregister(view)
    warn(left_out)
    result = result.drop(LEFT_OUT)
    if per_query:
        query = options.columns.query
        result = result.with_columns(pl.col(query).cast(run_src.schema[query]))
    return result.lazy() if lazy_out else result
