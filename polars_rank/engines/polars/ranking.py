"""``evaluate(..., engine="polars")``: the compact judged table, then every metric.

The ranking metrics read the compact judged table (:func:`~polars_rank.core.judged.
compact_table`: two streamed passes over the run, computed when ``evaluate`` is called, the
input checks collected with the first), the recommender metrics
(:mod:`polars_rank.engines.polars.recsys`) the run's top k per user.

>>> import polars as pl
>>> from polars_rank.catalog.names import parse_metrics
>>> from polars_rank.core.options import Options
>>> run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
>>> evaluate_polars(run, qrels, parse_metrics(["RR"]), Options(), per_query=True).rows()
[('q1', 0.5)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.core import messages
from polars_rank.core.columns import IN_RUN, JUDGED, LEFT_OUT, fresh
from polars_rank.core.expr import safe_div
from polars_rank.core.frames import like, to_lazy
from polars_rank.core.judged import (
    canonical_inputs,
    compact_tables,
    empty_qrels,
    judgments,
    needs_canonical,
    with_rank_name,
)
from polars_rank.core.options import Options
from polars_rank.core.recommender_inputs import RecommenderInputs, recommender_specs
from polars_rank.core.summary import summary_expr
from polars_rank.core.types import TableInput
from polars_rank.core.validation import validate
from polars_rank.engines.polars.recsys import recommender_values, top_rows

if TYPE_CHECKING:
    from polars_rank.engines.polars.grouped import Packer


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
    level, rank, relevance = options.relevance_level, cols.rank, cols.relevance
    exprs: list[pl.Expr] = []
    divided: list[pl.Expr] = []
    for i, spec in enumerate(specs):
        ratio = spec.ratio(relevance_level=level, rank=rank, relevance=relevance)
        if ratio is None:
            exprs.append(spec.expr(relevance_level=level, rank=rank, relevance=relevance))
            continue
        # the parts aggregated apart, divided after the group_by (see Metric.ratio)
        parts = f"__pr_numerator_{i}", f"__pr_denominator_{i}"
        exprs += [ratio.numerator.alias(parts[0]), ratio.denominator.alias(parts[1])]
        divided.append(safe_div(*parts, ratio.zero_division).alias(spec.label))
    grouped = table.group_by(cols.query).agg(
        pl.col(cols.rank).is_not_null().any().alias(IN_RUN),
        pl.col(cols.relevance).is_not_null().any().alias(JUDGED),
        *exprs,
    )
    if divided:
        grouped = grouped.with_columns(divided)
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


def _values(
    tables: Iterator[pl.DataFrame],
    specs: list[MetricSpec],
    options: Options,
    warn: Callable[[int], None],
) -> pl.LazyFrame:
    """:func:`per_query_values` of the compact table, made bucket by bucket
    (:func:`~polars_rank.core.judged.compact_tables`): one bucket's values stay lazy; with
    several, each bucket's values are computed before the next bucket's table is made (its
    table then freed), the left-out count warned once for all."""
    first = next(tables)
    second = next(tables, None)
    if second is None:
        return per_query_values(first.lazy(), specs, options, warn)
    counts: list[int] = []
    parts = []
    for table in (first, second):
        parts.append(per_query_values(table.lazy(), specs, options, counts.append).collect())
    del first, second, table
    for table in tables:
        parts.append(per_query_values(table.lazy(), specs, options, counts.append).collect())
        del table
    warn(sum(counts))
    return pl.concat(parts).lazy().sort(options.columns.query)


def judged_users(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    options: Options,
    warn: Callable[[int], None] = messages.warn_left_out_here,
) -> pl.LazyFrame:
    """``query``: the queries that count (those of :func:`per_query_values`), found without
    ranking the run; ``warn`` gets (when the plan runs) how many run queries have no
    judgments."""
    query = options.columns.query
    in_run = run.select(query).unique()
    judged = qrels.filter(pl.col(options.columns.relevance).is_not_null()).select(query).unique()
    users = judged if options.queries == "qrels" else judged.join(in_run, on=query, how="semi")
    count = fresh("__pr_left_out", [query])
    left_out = in_run.join(judged, on=query, how="anti").select(
        pl.len()
        .map_batches(_reporting(warn), return_dtype=pl.UInt32, returns_scalar=True)
        .alias(count)
    )
    # reading the warning column keeps the optimiser from pruning it
    return (
        users.join(left_out, how="cross")
        .filter(pl.col(count).is_not_null())
        .select(query)
        .sort(query)
    )


def evaluate_polars(
    run: TableInput,
    qrels: TableInput | None,
    specs: list[MetricSpec],
    options: Options,
    *,
    per_query: bool,
    inputs: RecommenderInputs | None = None,
    warn: Callable[[int], None] = messages.warn_left_out_here,
) -> pl.DataFrame | pl.LazyFrame:
    """Evaluate with Polars: LazyFrame in, LazyFrame out; DataFrame in, DataFrame out (a
    table input that is no frame, :data:`~polars_rank.core.types.FrameLike`, is a
    ``TypeError``). With
    ranking metrics the heavy part runs now (the compact judged table, streamed; the
    LazyFrame returned reads it); ``warn`` reports the run queries left out (see
    :func:`per_query_values`).

    Without ``qrels`` every user of the run is evaluated (only recommender metrics that do
    not read judgments can be asked for: the caller checks). Recommender metrics rank only
    the lists a cutoff cuts."""
    values, corpus, options = polars_values(run, qrels, specs, options, inputs=inputs, warn=warn)
    query = options.columns.query
    values = values.sort(query)
    query_level = [s for s in specs if s.entry.level == "query"]
    if per_query:
        return like(values.select(query, *[s.label for s in specs]), run)
    parts = []
    if query_level:
        parts.append(values.select(summary_expr(s.summary, s.label, query) for s in query_level))
    if corpus is not None:
        parts.append(corpus)
    result = pl.concat(parts, how="horizontal").select(s.label for s in specs)
    return like(result, run)


def polars_values(
    run: TableInput,
    qrels: TableInput | None,
    specs: list[MetricSpec],
    options: Options,
    *,
    inputs: RecommenderInputs | None = None,
    warn: Callable[[int], None] = messages.warn_left_out_here,
    packer: Packer | None = None,
) -> tuple[pl.LazyFrame, pl.LazyFrame | None, Options]:
    """:func:`evaluate_polars`' values: ``(per query, corpus, resolved options)``: ``query``
    and every query-level metric for the queries that count (unsorted), and the one-row
    corpus metrics (None without any). With ``packer`` (``by``, see
    :mod:`polars_rank.engines.polars.grouped`): the query ids are (group, query) ids, the
    recommender inputs' doc ids are packed with their group, and the corpus frame has a
    row per group (its index in ``GROUP``)."""
    run_lazy = to_lazy(run, "run")
    run_schema = run_lazy.collect_schema()
    in_memory = isinstance(run, pl.DataFrame) and not isinstance(qrels, pl.LazyFrame)
    given = to_lazy(qrels, "qrels") if qrels is not None else empty_qrels(run_schema, options)
    options = with_rank_name(options.resolve(run_schema, given.collect_schema()))
    query, doc_dtype = options.columns.query, run_schema[options.columns.doc]
    rec_specs = recommender_specs(specs)
    judged_specs = [s for s in specs if s not in rec_specs]
    canonical = bool(judged_specs) and needs_canonical(options)
    if options.validate and (canonical or not judged_specs):
        validate(run_lazy, given, options, in_memory=in_memory, judgments_given=qrels is not None)
    if judged_specs:  # the input checks run with its first pass
        table_inputs = (run_lazy, given, options)
        if canonical:  # names like the engine's own: work on the canonical names
            table_inputs = canonical_inputs(run_lazy, given, options)
        table_options = table_inputs[2]
        tables = compact_tables(
            *table_inputs, judgments_given=qrels is not None, in_memory=in_memory
        )
        values = _values(tables, judged_specs, table_options, warn)
        if canonical:
            values = values.rename({table_options.columns.query: query})
    elif qrels is not None:
        values = judged_users(run_lazy, given, options, warn)
    else:
        values = run_lazy.select(query).unique().sort(query)
    corpus = None
    if rec_specs:
        values = values.cache()  # one plan node: the left-out warning fires once
        grades = judgments(given, options) if qrels is not None else None
        top = top_rows(run_lazy, options, doc_dtype, rec_specs)
        users = values.select(query)
        catalog_run = run_lazy.select(options.columns.doc)
        if packer is not None:  # by: the docs packed with their group's index
            top = packer.pack(top)
            grades = None if grades is None else packer.pack(grades)
            catalog_run = packer.pack(run_lazy.select(query, options.columns.doc), distinct=True)
            users = packer.with_group(users)
        per_user, corpus = recommender_values(
            top,
            users,
            grades,
            rec_specs,
            inputs or RecommenderInputs(),
            options,
            catalog_run.select(options.columns.doc),
            every_user=qrels is None,
            grouped=packer is not None,
        )
        if per_user is not None:
            # without qrels the per-user frame has every user already
            values = per_user if qrels is None else values.join(per_user, on=query, how="left")
    return values, corpus, options
