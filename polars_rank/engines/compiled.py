"""Ranking and trec_eval metrics evaluated by the compiled SQL of :func:`polars_rank.to_sql` in
an engine that runs SQL (Spark, ClickHouse), written once for any :class:`SqlEngine`.

The engine holds the run and the judgments as tables (temporary views or tables of its own,
or the caller's tables); :func:`evaluate_tables` checks them as the Polars engine checks its
input (Polars frames in Polars, with the Polars engine's own checks; the engine's tables by
:mod:`polars_rank.engines.sql_checks`), runs one query (with ``by``, the SQL's groups) and
gives the Polars engine's result: the metric labels as written, Float64 values, with
``per_query`` the query column first in the run's dtype, sorted; the run queries without
judgments counted by the query itself and passed to ``warn``.

The run's repeated ``(query, doc)`` pairs are counted by the checks, not by the evaluation
query (``to_sql(..., duplicates_column=...)``, a window after the ranking window, would save
Spark a shuffle): with it, Spark's 10M-row summaries differed from ``validate=False``'s by up
to 6.8e-14 (a changed plan sums in another order), and the results must stay bit-identical
to those of ``validate=False``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.catalog.recommender_inputs import check_request
from polars_rank.compiler import column_names, compile_query
from polars_rank.compiler.columns import metric_outputs
from polars_rank.core import grouping
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.options import Options
from polars_rank.core.validation import validate
from polars_rank.engines import sql_checks

#: The result column that counts run queries without judgments.
LEFT_OUT = "pr_left_out"


class SqlEngine(sql_checks.SqlTables, Protocol):
    """An engine that runs SQL on its tables: :class:`~.sql_checks.SqlTables`, and a query's
    result as a Polars frame."""

    def result(self, sql: str) -> pl.DataFrame:
        """The rows of a query as a Polars frame (the engine's column names and types)."""
        ...


@dataclass(frozen=True)
class Table:
    """An input as the engine holds it: a table reference of its dialect, its schema as
    Polars dtypes and, when it was given as a Polars frame, the frame."""

    reference: str
    schema: pl.Schema
    frame: pl.DataFrame | None = None


def refuse_unsupported(specs: Sequence[MetricSpec], engine: str) -> None:
    """The catalog's reason a metric has no compiled SQL on ``engine`` (its name as the
    catalog's targets spell it), with the metrics it stops."""
    refused: dict[str, list[str]] = {}
    for spec in specs:
        why = spec.entry.reason(engine)
        if why is not None:
            refused.setdefault(why, []).append(spec.label)
    for why, labels in refused.items():
        head, _, tail = why.partition(":")
        raise PolarsRankError(f"engine={engine!r} {head} ({', '.join(labels)}):{tail}")


def evaluate_tables(
    engine: SqlEngine,
    run: Table,
    qrels: Table,
    specs: list[MetricSpec],
    options: Options,
    *,
    per_query: bool,
    warn: Callable[[int], None],
    by: Sequence[str] = (),
) -> pl.DataFrame:
    """The Polars engine's result for ``specs`` over the engine's ``run`` and ``qrels``
    tables (see the module docstring); ``options`` unordered (:meth:`Options.unordered`:
    tables have no row order), not yet resolved."""
    options = options.resolve(run.schema, qrels.schema)
    cols = options.columns
    by = list(by)
    shared = [c for c in by if c in qrels.schema]
    if by:
        grouping.check_by(by, run.schema, qrels.schema, options, metric_outputs(specs))
    # the result's count of left-out queries, under a name the query column does not have
    left_out_column = LEFT_OUT if cols.query.lower() != LEFT_OUT else f"{LEFT_OUT}_n"
    if options.validate:
        if run.frame is not None and qrels.frame is not None:
            run_lazy, qrels_lazy = run.frame.lazy(), qrels.frame.lazy()
            if by:  # checked as the Polars engine checks them: keyed by (group, query)
                groups = grouping.run_groups(run_lazy, by)
                keyed = grouping.keyed_inputs(run_lazy, qrels_lazy, by, options, groups)
                run_lazy, qrels_lazy = keyed[0], keyed[1]  # type: ignore[assignment]
            validate(run_lazy, qrels_lazy, options, in_memory=True)
        else:
            sql_checks.check_tables(
                engine, run.reference, qrels.reference, options, by=by, qrels_by=shared
            )
    sql = compile_query(
        specs,
        engine.dialect.name,
        options,
        run.reference,
        qrels.reference,
        per_query=per_query,
        by=by,
        qrels_by=shared,
        left_out_column=left_out_column,
    )
    result = engine.result(sql)
    if result.height:
        left_out = left_out_in(result, left_out_column, per_query=per_query)
    else:  # no query to evaluate: count the run's queries apart
        left_out = left_out_count(engine, run.reference, qrels.reference, [*by, cols.query], shared)
    warn(left_out)
    return polars_result(result, specs, run.schema, cols.query, by, per_query, left_out_column)


def left_out_in(result: pl.DataFrame, column: str, *, per_query: bool) -> int:
    """The run queries without judgments, as the compiled query's ``column`` counts them: on
    every row (``per_query``), else once per ``by`` group."""
    counts = result[column]
    return int((counts[0] if per_query else counts.sum()) or 0)


def polars_result(
    result: pl.DataFrame,
    specs: Sequence[MetricSpec],
    run_schema: pl.Schema,
    query: str,
    by: Sequence[str],
    per_query: bool,
    left_out_column: str,
) -> pl.DataFrame:
    """The compiled query's ``result`` as the Polars engine gives it: the metric labels as
    written, Float64 values, the ``by`` columns (and with ``per_query`` the query column
    after them) in the run's dtypes, sorted by them; the ``left_out_column`` dropped."""
    names = column_names(list(specs), reserved=[*by, query, left_out_column])
    result = result.drop(left_out_column, strict=False).rename({v: k for k, v in names.items()})
    labels = [s.label for s in specs]
    result = result.with_columns(pl.col(labels).cast(pl.Float64))
    result = result.with_columns(pl.col(c).cast(run_schema[c]) for c in by)
    if per_query:
        result = result.with_columns(pl.col(query).cast(run_schema[query]))
        return result.sort([*by, query])
    return result.sort(by) if by else result


def left_out_count(
    engine: SqlEngine, run: str, qrels: str, keys: Sequence[str], shared: Sequence[str]
) -> int:
    """The number of the run's (group, query) keys that no judgment has."""
    d = engine.dialect
    query = d.quote(keys[-1])
    on = "".join(f" AND j.{d.quote(c)} = r.{d.quote(c)}" for c in shared)
    selected = ", ".join(f"r.{d.quote(k)}" for k in keys)
    sql = (
        f"SELECT COUNT(*) AS {d.quote('n')} FROM (SELECT DISTINCT {selected} FROM "
        f"{sql_checks.source(engine, run)} AS r WHERE NOT EXISTS (SELECT 1 FROM "
        f"{sql_checks.source(engine, qrels)} AS j WHERE j.{query} = r.{query}{on}))"
    )
    return int(engine.rows(sql)[0]["n"] or 0)


def require_qrels(specs: list[MetricSpec], per_query: bool, qrels: object) -> None:
    """Every metric these engines run reads the judgments: the other engines' error."""
    if qrels is None:
        check_request(specs, per_query=per_query, has_qrels=False, given=set())
