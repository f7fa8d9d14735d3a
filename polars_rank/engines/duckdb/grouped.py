"""``evaluate(..., engine="duckdb", by=[...])`` with the run in DuckDB: a Parquet path, a
table or view name, or a DuckDB relation (read into a frame, as the engine reads relations,
but not keyed there). The keyed run is never built in Polars.

The DuckDB engine's own query (:func:`.ranking.evaluate_duckdb`) evaluates the run keyed by
(group, query) in SQL (:func:`.query.keyed_sql`: a struct of the ``by`` columns and the query
in the query column), with its checks counted by the evaluation's pass over the run. The
groups are the run's distinct ``by`` values (one more pass, over those columns only); the
per-query values then go through :mod:`polars_rank.core.grouping` as the Polars engine's do.
Its results are those of the frames' path, which keys and numbers the inputs in Polars
(:func:`polars_rank.core.grouping.numbered_inputs`): that path holds the keyed run in memory
(> 10 GiB for 100M rows).

The frames' path is taken instead (:func:`evaluate_duckdb_by` returns None) when a count finds
a problem in the inputs (it names the problem with the Polars engine's message), when no
judgment joins a group, for ``duplicates="first"`` (SQL tables have no row order), for
``duplicates="max"`` with checks (their exact pass would name a problem by the SQL key) and
on a connection with a ``default_collation`` (struct fields would compare under it).

Example (``tests/engines/duckdb/test_by.py`` compares it with the Polars engine)::

    pr.evaluate("run.parquet", "qrels.parquet", ["AP"], by="date", engine="duckdb")
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import duckdb
import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.compiler.columns import metric_outputs
from polars_rank.core import grouping, messages
from polars_rank.core.arrow import register_frame, to_polars
from polars_rank.core.options import Options
from polars_rank.core.sqltext import ident
from polars_rank.core.types import TableInput
from polars_rank.duckdb import follow, session
from polars_rank.engines.duckdb.ranking import (
    _is_parquet,
    _is_table_name,
    _Source,
    _source,
    evaluate_duckdb,
)


class _Fallback(Exception):
    """A count found a problem in the inputs: the frames' path names it."""


def in_duckdb(run: TableInput, options: Options, con: duckdb.DuckDBPyConnection | None) -> bool:
    """Whether :func:`evaluate_duckdb_by` takes this run: a Parquet path, a table name (with
    ``con``) or a DuckDB relation; ``duplicates`` is ``"error"`` (the checks counted by the
    evaluation) or ``"max"`` without checks; ``con`` has no ``default_collation``."""
    if not isinstance(run, str | duckdb.DuckDBPyRelation):
        return False
    if options.duplicates == "first" or (options.duplicates == "max" and options.validate):
        return False
    if con is None:
        return not _is_table_name(run)
    with session(con, []) as cursor:  # the engine's cursor's setting, never a statement on con
        rows = cursor.execute("SELECT current_setting('default_collation')").fetchall()
    return not (rows and rows[0][0])


def _schema(obj: TableInput, source: _Source) -> pl.Schema:
    """The input's schema as the frames' path sees it (a Parquet file as Polars scans it)."""
    if isinstance(obj, str) and _is_parquet(obj):
        return pl.scan_parquet(obj).collect_schema()
    return source.schema


def _groups(
    con: duckdb.DuckDBPyConnection,
    run: TableInput,
    qrels: TableInput,
    specs: list[MetricSpec],
    options: Options,
    by: list[str],
    user: duckdb.DuckDBPyConnection | None,
) -> tuple[pl.Schema, pl.DataFrame] | None:
    """The frames' path's checks before the evaluation, in its order (columns, ``by``
    columns, nulls in them), then the run's schema and its groups; None when the judgments
    have rows but none joins a group."""
    sources: list[_Source] = []
    try:
        if user is not None and any(_is_table_name(o) for o in (run, qrels)):
            follow(con, user)
        run_src = _source(con, run, "run", row_index=False, user=user)
        sources.append(run_src)
        qrels_src = _source(con, qrels, "qrels", row_index=False, user=user)
        sources.append(qrels_src)
        run_schema, qrels_schema = _schema(run, run_src), _schema(qrels, qrels_src)
        options.resolve(run_schema, qrels_schema)
        grouping.check_by(by, run_schema, qrels_schema, options, metric_outputs(specs))
        columns = ", ".join(ident(c) for c in by)
        distinct = to_polars(con.sql(f"SELECT DISTINCT {columns} FROM {run_src.sql}"))
        groups = grouping.run_groups(distinct.lazy(), by)
        shared = [c for c in by if c in qrels_schema]
        counts = ", ".join(f"count(*) FILTER (WHERE {ident(c)} IS NULL)" for c in shared)
        row = con.sql(f"SELECT count(*){', ' if counts else ''}{counts} FROM {qrels_src.sql}")
        rows, *nulls = row.fetchall()[0]
        grouping.no_nulls([c for c, n in zip(shared, nulls, strict=True) if n], "qrels")
        if groups.is_empty():
            return None  # an empty run: the frames' path names it
        if shared and rows:
            name = f"__pr_groups_{uuid.uuid4().hex}"
            register_frame(con, name, groups)
            sources.append(_Source(ident(name), groups.schema, views=[name]))
            on = " AND ".join(f"j.{ident(c)} = g.{ident(c)}" for c in shared)
            joined = con.sql(
                f"SELECT count(*) FROM {qrels_src.sql} AS j SEMI JOIN {ident(name)} AS g ON {on}"
            ).fetchall()[0][0]
            if not joined:
                return None
    finally:
        for source in sources:
            for view in source.views:
                con.unregister(view)
    return run_schema, groups


def evaluate_duckdb_by(
    run: TableInput,
    qrels: TableInput,
    specs: list[MetricSpec],
    options: Options,
    by: list[str],
    *,
    con: duckdb.DuckDBPyConnection | None = None,
    warn: Callable[[int], None] = messages.warn_left_out_here,
) -> tuple[pl.LazyFrame, pl.DataFrame] | None:
    """The per-query values of the run keyed by (group, query) (``by..., query, <metrics>``,
    :func:`polars_rank.core.grouping.per_query_frame`) and the run's groups; None when the
    frames' path must evaluate instead (see the module). ``con`` is left as it was."""
    with session(con) as cursor:
        found = _groups(cursor, run, qrels, specs, options, by, con)
    if found is None:
        return None
    run_schema, groups = found

    def fallback() -> None:
        raise _Fallback

    try:
        values = evaluate_duckdb(
            run,
            qrels,
            specs,
            options,
            per_query=True,
            con=con,
            warn=warn,
            keys=(by, groups),
            on_problem=fallback,
        )
    except _Fallback:
        return None
    query = options.columns.query
    key = pl.Struct({c: run_schema[c] for c in [*by, query]})
    values = values.lazy().with_columns(pl.col(query).struct.rename_fields([*by, query]).cast(key))
    return grouping.per_query_frame(values, by, query), groups
