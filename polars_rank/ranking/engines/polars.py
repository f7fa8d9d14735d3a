"""``evaluate(..., engine="polars")``: the judged table and every metric in one lazy plan.

>>> import polars as pl
>>> from polars_rank.ranking.names import parse_metrics
>>> from polars_rank.ranking.options import Options
>>> run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
>>> evaluate_polars(run, qrels, parse_metrics(["RR"]), Options(), per_query=True).rows()
[('q1', 0.5)]
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from polars_rank._frames import like, to_lazy
from polars_rank.ranking import messages
from polars_rank.ranking.engines import IN_RUN, JUDGED, LEFT_OUT
from polars_rank.ranking.judged import judged_table
from polars_rank.ranking.names import MetricSpec
from polars_rank.ranking.options import Options
from polars_rank.ranking.registry import summary_expr


def _reporting(warn: Callable[[int], None]) -> Callable[[pl.Series], pl.Series]:
    def report(count: pl.Series) -> pl.Series:
        warn(int(count.sum() or 0))
        return count

    return report


def per_query_values(
    table: pl.LazyFrame,
    specs: list[MetricSpec],
    options: Options,
    warn: Callable[[int], None] = messages.warn_left_out_here,
) -> pl.LazyFrame:
    """Per-query metric values from a judged table, for the queries that count.

    When the plan runs, ``warn`` gets the number of run queries without judgments, which are
    left out (it may run on a Polars thread: it must not depend on the calling stack).
    """
    cols = options.columns
    exprs = [
        s.expr(relevance_level=options.relevance_level, rank=cols.rank, relevance=cols.relevance)
        for s in specs
    ]
    grouped = table.group_by(cols.query).agg(
        pl.col(cols.rank).is_not_null().any().alias(IN_RUN),
        pl.col(cols.relevance).is_not_null().any().alias(JUDGED),
        *exprs,
    )
    left_out = (pl.col(IN_RUN) & ~pl.col(JUDGED)).sum()
    grouped = grouped.with_columns(
        left_out.map_batches(_reporting(warn), return_dtype=pl.UInt32, returns_scalar=True).alias(
            LEFT_OUT
        )
    )
    keep = pl.col(JUDGED) if options.queries == "qrels" else pl.col(JUDGED) & pl.col(IN_RUN)
    # reading the warning column in the filter keeps the optimiser from pruning it
    keep = keep & pl.col(LEFT_OUT).is_not_null()
    return grouped.filter(keep).select(cols.query, *[s.label for s in specs]).sort(cols.query)


def evaluate_polars(
    run: pl.DataFrame | pl.LazyFrame,
    qrels: pl.DataFrame | pl.LazyFrame,
    specs: list[MetricSpec],
    options: Options,
    *,
    per_query: bool,
    warn: Callable[[int], None] = messages.warn_left_out_here,
) -> pl.DataFrame | pl.LazyFrame:
    """Evaluate with Polars: LazyFrame in, LazyFrame out; DataFrame in, DataFrame out.
    ``warn`` reports the run queries left out (see :func:`per_query_values`)."""
    table = judged_table(
        to_lazy(run, "run"),
        to_lazy(qrels, "qrels"),
        options,
        compact=True,
        in_memory=isinstance(run, pl.DataFrame) and isinstance(qrels, pl.DataFrame),
    )
    result = per_query_values(table, specs, options, warn)
    if not per_query:
        result = result.select(
            summary_expr(s.summary, s.label, options.columns.query) for s in specs
        )
    return like(result, run)
