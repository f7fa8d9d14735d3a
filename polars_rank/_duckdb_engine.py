"""``evaluate(..., engine="duckdb")``: one SQL query over the polars_rank macros.

The query ranks the run (score descending, ties by doc id descending as text; or the run's
own ranks with ``order_by="rank"``), joins the judgments, and aggregates each query with the
macros of ``sql/ranking.sql``; the result matches the Polars engine's column for column.

Inputs may be Polars frames (registered on the connection through Arrow), DuckDB relations,
table or view names on ``con``, or Parquet paths (strings ending in ``.parquet``, read with
``read_parquet``).

Example:
    >>> import polars as pl, polars_rank as pr
    >>> run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
    >>> pr.evaluate(run, qrels, ["RR", "P@1"], engine="duckdb").rows()
    [(0.5, 0.0)]
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import duckdb
import polars as pl

from polars_rank import _conventions as conv
from polars_rank._conventions import Columns, Duplicates, OrderBy
from polars_rank._duckdb_checks import check_frames, check_sql
from polars_rank._duckdb_sql import aggregate_sql, ident, metric_sql
from polars_rank._errors import PolarsRankError
from polars_rank._names import MetricSpec
from polars_rank.duckdb import register_ranking

_IN_RUN = "__in_run"
_JUDGED = "__judged"
_LEFT_OUT = "__left_out"
_ROW = "__pr_row"


@dataclass
class _Source:
    """One input as something DuckDB can read: ``sql`` goes after ``FROM``."""

    sql: str
    schema: pl.Schema
    frame: pl.DataFrame | None = None  # the Polars frame, when the input was one
    views: list[str] = field(default_factory=list)  # names registered on the connection


def _is_parquet(obj: Any) -> bool:
    return isinstance(obj, str) and obj.lower().endswith(".parquet")


def _table_sql(name: str) -> str:
    """A table or view name, possibly ``schema.table`` or ``catalog.schema.table``, quoted."""
    return ".".join(ident(part) for part in name.split("."))


def _schema_of(con, sql: str) -> pl.Schema:
    return con.sql(f"SELECT * FROM {sql} LIMIT 0").pl().schema


def _source(con, obj: Any, what: str, *, row_index: bool) -> _Source:
    """Make ``obj`` readable by ``con``; register Polars data under a unique name."""
    if isinstance(obj, duckdb.DuckDBPyRelation):
        obj = obj.pl()
    if isinstance(obj, pl.LazyFrame):
        obj = obj.collect()
    if isinstance(obj, pl.DataFrame):
        name = f"__pr_{what}_{uuid.uuid4().hex}"
        registered = obj.with_row_index(_ROW) if row_index else obj
        con.register(name, registered)
        return _Source(ident(name), obj.schema, frame=obj, views=[name])
    if isinstance(obj, str):
        if _is_parquet(obj):
            sql = "read_parquet(" + "'" + obj.replace("'", "''") + "')"
        else:
            sql = _table_sql(obj)
        try:
            schema = _schema_of(con, sql)
        except duckdb.Error as error:
            raise PolarsRankError(f"{what} {obj!r} cannot be read by DuckDB: {error}") from None
        if row_index:
            sql = f"(SELECT *, row_number() OVER () - 1 AS {_ROW} FROM {sql})"
        return _Source(sql, schema)
    raise TypeError(
        f"{what} must be a polars DataFrame or LazyFrame, a DuckDB relation, a table name or "
        f"a .parquet path, got {type(obj).__name__}"
    )


_SHARED: list[Any] = []  # one in-memory database holding the macros, for con=None


def _shared_cursor():
    """A new connection to a process-wide in-memory database whose macros are defined once
    (each cursor has its own registered frames; the catalog, with the macros, is shared)."""
    if not _SHARED:
        _SHARED.append(register_ranking(duckdb.connect()))
    return _SHARED[0].cursor()


@contextmanager
def _connection(con) -> Iterator[Any]:
    """``con`` with the macros (re)defined, or a fresh cursor closed afterwards."""
    if con is not None:
        yield register_ranking(con)
        return
    cursor = _shared_cursor()
    try:
        yield cursor
    finally:
        cursor.close()


def _check_options(
    specs: list[MetricSpec],
    cols: Columns,
    order_by: OrderBy | None,
    max_rank: int | None,
    duplicates: Duplicates,
    run_schema: pl.Schema,
    qrels_schema: pl.Schema,
) -> tuple[OrderBy, str]:
    """The Polars engine's option and schema checks, in its order; returns (order, column)."""
    for spec in specs:
        if spec.label in (cols.query, _IN_RUN, _JUDGED):
            raise PolarsRankError(f"metric name {spec.label!r} clashes with a column name")
    if duplicates not in ("error", "first", "max"):
        raise PolarsRankError(f"duplicates must be 'error', 'first' or 'max', got {duplicates!r}")
    if max_rank is not None and (not isinstance(max_rank, int) or max_rank < 1):
        raise PolarsRankError(f"max_rank must be a positive integer, got {max_rank!r}")
    by = conv.resolve_order_by(run_schema, cols, order_by)
    if by == "rank" and duplicates == "max":
        raise PolarsRankError("duplicates='max' is not defined with order_by='rank'; use 'first'")
    by_column = cols.score if by == "score" else cols.rank
    conv._require(run_schema, [cols.query, cols.doc, by_column], "run")
    conv._require(qrels_schema, [cols.query, cols.doc, cols.relevance], "qrels")
    conv._check_dtypes(run_schema, qrels_schema, cols, by_column)
    return by, by_column


def _deduped(source: str, value: str, policy: Duplicates) -> str:
    """``query, doc, <value>`` with one row per (query, doc) under the duplicates policy."""
    if policy == "first":
        return (
            f"SELECT query, doc, arg_min_null({value}, {_ROW}) AS {value} "
            f"FROM {source} GROUP BY query, doc"
        )
    if policy == "max":
        return f"SELECT query, doc, max({value}) AS {value} FROM {source} GROUP BY query, doc"
    return f"SELECT query, doc, {value} FROM {source}"


#: Queries with at most this many retrieved judged documents rank them by counting the
#: documents above each (a join, linear in the query's length); longer lists of judged
#: documents are ranked by sorting the whole query (a window).
_PAIRWISE_MAX_JUDGED = 32


def _judged_sql(
    run: _Source,
    qrels: _Source,
    cols: Columns,
    *,
    by: OrderBy,
    by_column: str,
    max_rank: int | None,
    duplicates: Duplicates,
) -> str:
    """CTEs ending in ``_judged(query, rank, relevance)``: the compact judged table.

    It holds every judged document (rank NULL when not retrieved, or ranked below
    ``max_rank``) and one unjudged row per run query whose rank is the number retrieved, the
    only rows the metrics read. A retrieved judged document's rank is 1 + the number of the
    query's documents ordered before it: higher score, or the same score and a doc id that
    is larger as text (trec_eval's order; ``order_by="rank"`` orders by rank ascending).
    """
    row = f", {_ROW}" if duplicates == "first" else ""
    run_in = (
        f"SELECT {ident(cols.query)} AS query, {ident(cols.doc)} AS doc, "
        f"{ident(by_column)} AS by_value{row} FROM {run.sql}"
    )
    qrels_in = (
        f"SELECT {ident(cols.query)} AS query, {ident(cols.doc)} AS doc, "
        f"{ident(cols.relevance)} AS relevance{row} FROM {qrels.sql}"
    )
    doc_key = "doc" if run.schema[cols.doc] == pl.String else "CAST(doc AS VARCHAR)"
    # Scores compare as Float64, as in the Polars engine (large integers may tie); -0.0 ties
    # with 0.0, as in C. order_by="rank" negates the ranks so that higher is better.
    value = "by_value" if run.schema[by_column] == pl.Float64 else "CAST(by_value AS DOUBLE)"
    key = value if by == "score" else f"-{value}"
    cut = "" if max_rank is None else f" AND rank <= {int(max_rank)}"
    retrieved = "n" if max_rank is None else f"least(n, {int(max_rank)})"
    # the run is read several times: recompute a plain scan, keep a deduplicated one
    materialized = "NOT MATERIALIZED" if duplicates == "error" else "MATERIALIZED"
    return f"""
WITH _run AS {materialized} (
    SELECT query, doc, {key} AS sort_key, {doc_key} AS doc_key
    FROM ({_deduped(f"({run_in})", "by_value", duplicates)})
),
_qrels AS ({_deduped(f"({qrels_in})", "relevance", duplicates)}),
_hit AS (
    SELECT r.query, r.doc, r.sort_key, r.doc_key, q.relevance
    FROM _run AS r JOIN _qrels AS q ON r.query = q.query AND r.doc = q.doc
),
_size AS (SELECT query, count(*) AS n FROM _run GROUP BY query),
_long AS (
    SELECT query FROM _hit GROUP BY query HAVING count(*) > {_PAIRWISE_MAX_JUDGED}
),
_counted AS (
    SELECT h.query, h.doc, h.relevance,
           1 + count(*) FILTER (WHERE r.sort_key > h.sort_key
                                OR (r.sort_key = h.sort_key AND r.doc_key > h.doc_key)) AS rank
    FROM (SELECT * FROM _hit WHERE query NOT IN (SELECT query FROM _long)) AS h
    JOIN _run AS r ON r.query = h.query
    GROUP BY h.query, h.doc, h.relevance
),
_sorted AS (
    SELECT h.query, h.doc, h.relevance, w.rank
    FROM (
        SELECT query, doc,
               row_number() OVER (PARTITION BY query ORDER BY sort_key DESC, doc_key DESC)
                   AS rank
        FROM _run WHERE query IN (SELECT query FROM _long)
    ) AS w
    JOIN _hit AS h ON w.query = h.query AND w.doc = h.doc
),
_judged AS (
    SELECT query, CASE WHEN rank IS NOT NULL{cut} THEN rank END AS rank, relevance
    FROM (SELECT * FROM _counted UNION ALL SELECT * FROM _sorted)
    UNION ALL
    SELECT q.query, NULL, q.relevance
    FROM _qrels AS q ANTI JOIN _hit AS h ON q.query = h.query AND q.doc = h.doc
    UNION ALL
    SELECT query, {retrieved}, NULL FROM _size
),
"""


def _query_sql(
    run: _Source,
    qrels: _Source,
    specs: list[MetricSpec],
    cols: Columns,
    *,
    by: OrderBy,
    by_column: str,
    per_query: bool,
    queries: str,
    relevance_level: float,
    max_rank: int | None,
    duplicates: Duplicates,
) -> str:
    """The whole evaluation as one SELECT (see the module docstring)."""
    metrics = ",\n       ".join(
        f"{metric_sql(s, relevance_level)} AS {ident(s.label)}" for s in specs
    )
    keep = _JUDGED if queries == "qrels" else f"{_JUDGED} AND {_IN_RUN}"
    labels = [ident(s.label) for s in specs]
    judged = _judged_sql(
        run, qrels, cols, by=by, by_column=by_column, max_rank=max_rank, duplicates=duplicates
    )
    sql = (
        judged
        + f"""_per_query AS (
    SELECT query,
       bool_or(rank IS NOT NULL) AS {_IN_RUN},
       bool_or(relevance IS NOT NULL) AS {_JUDGED},
       {metrics}
    FROM _judged
    GROUP BY query
)
"""
    )
    left_out = f"count(*) FILTER (WHERE {_IN_RUN} AND NOT {_JUDGED})"
    if per_query:
        columns = ", ".join(
            [f"query AS {ident(cols.query)}", *labels, f"{left_out} OVER () AS {_LEFT_OUT}"]
        )
        return sql + f"SELECT {columns} FROM _per_query QUALIFY {keep} ORDER BY query"
    aggregates = ", ".join(
        [
            *(f"{aggregate_sql(s, keep)} AS {ident(s.label)}" for s in specs),
            f"{left_out} AS {_LEFT_OUT}",
        ]
    )
    return sql + f"SELECT {aggregates} FROM _per_query"


def _left_out_fallback(con, run: _Source, qrels: _Source, cols: Columns) -> int:
    """Run queries without judgments, counted apart (only needed when no row came back)."""
    q = ident(cols.query)
    rows = con.sql(
        f"SELECT count(DISTINCT {q}) FROM {run.sql} WHERE {q} NOT IN (SELECT {q} FROM {qrels.sql})"
    ).fetchall()
    return rows[0][0]


def evaluate_duckdb(
    run: Any,
    qrels: Any,
    specs: list[MetricSpec],
    *,
    per_query: bool,
    queries: str,
    relevance_level: float,
    cols: Columns,
    order_by: OrderBy | None,
    max_rank: int | None,
    duplicates: Duplicates,
    validate: bool,
    con=None,
) -> pl.DataFrame | pl.LazyFrame:
    """Evaluate in DuckDB; the same result as the Polars engine (see :func:`evaluate`).

    Returns a DataFrame, or a LazyFrame over the computed result when ``run`` is a LazyFrame
    (as the Polars engine does). Warns, as the Polars engine does, how many run queries have
    no judgments. ``con`` gets the macros defined on it; a fresh in-memory connection is used
    when it is None (table names then cannot be resolved, so pass ``con`` with them).
    """
    lazy_out = isinstance(run, pl.LazyFrame)
    row_index = duplicates == "first"  # only needed to know which row came first
    with _connection(con) as con:
        sources: list[_Source] = []
        try:
            run_src = _source(con, run, "run", row_index=row_index)
            sources.append(run_src)
            qrels_src = _source(con, qrels, "qrels", row_index=row_index)
            sources.append(qrels_src)
            by, by_column = _check_options(
                specs, cols, order_by, max_rank, duplicates, run_src.schema, qrels_src.schema
            )
            if validate:
                if run_src.frame is not None and qrels_src.frame is not None:
                    check_frames(run_src.frame, qrels_src.frame, cols, by_column, duplicates)
                else:
                    check_sql(
                        con,
                        run_src.sql,
                        run_src.schema,
                        qrels_src.sql,
                        qrels_src.schema,
                        cols,
                        by_column,
                        duplicates,
                    )
            sql = _query_sql(
                run_src,
                qrels_src,
                specs,
                cols,
                by=by,
                by_column=by_column,
                per_query=per_query,
                queries=queries,
                relevance_level=relevance_level,
                max_rank=max_rank,
                duplicates=duplicates,
            )
            result = con.sql(sql).pl()
            if result.height:
                left_out = int(result[_LEFT_OUT][0] or 0)
            else:
                left_out = _left_out_fallback(con, run_src, qrels_src, cols)
        finally:
            for source in sources:
                for view in source.views:
                    con.unregister(view)
    if left_out:
        from polars_rank.evaluate import _left_out_message

        warnings.warn(_left_out_message(left_out), stacklevel=3)
    result = result.drop(_LEFT_OUT)
    if per_query:
        result = result.with_columns(pl.col(cols.query).cast(run_src.schema[cols.query]))
    return result.lazy() if lazy_out else result
