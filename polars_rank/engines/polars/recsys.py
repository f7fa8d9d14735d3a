"""The recommender metrics of :func:`polars_rank.evaluate` in the Polars engine: one lazy plan.

* **The recommendations** are the evaluated users' rows within the largest cutoff asked for.
  A user whose list is no longer than every cutoff (and ``max_rank``) keeps all its rows
  whatever their order, so only longer lists are ranked (the package's order, see
  :func:`top_rows`); when ranking metrics are asked for too, their ranked run is reused.
* **Per-user metrics** share one join and one group-by: the recommendations get the item
  table's columns (one per item-table configuration) and the unit feature vectors (a struct
  column, :func:`~polars_rank.recsys.unit_vectors`), and one ``group_by(query)`` computes the
  popularity metrics and the per-user sums of the expressions of :mod:`.vectors` (n, the
  items with a vector, Σ u, and per gain Σ g and Σ g·u), one set per cutoff shared by
  intra-list diversity and serendipity. Their closed forms (the same functions as the
  expressions' :func:`~polars_rank.recsys.vectors.ild_from_sums` and
  :func:`~polars_rank.recsys.vectors.serendipity_from_sums`) are then evaluated on the
  per-user rows, after the users' history sums are joined onto those 1 row per user rather
  than onto the k rows per user that the public expression reads them from. Category and
  similarity-table features go through :mod:`.diversity`'s frame-level functions.
* **The history** is de-duplicated once when serendipity is asked for, for its history sums
  and the popularity (distinct users per item), and only when a count of distinct pair
  hashes (run when ``evaluate`` is called) finds that a pair may repeat
  (:func:`distinct_pairs`); otherwise the popularity counts ``n_unique(query)`` per item,
  which is cheaper than de-duplicating first.
* **Corpus metrics** at one k share the recommendation counts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.catalog.recommender_inputs import (
    RecommenderInputs,
    item_options,
    largest_cutoff,
    warn_outside_catalog,
)
from polars_rank.core.columns import fresh
from polars_rank.core.conventions import Columns, rank_expr
from polars_rank.core.judged import deduplicated_run
from polars_rank.core.options import Options
from polars_rank.core.validation import repeated_pair_count
from polars_rank.recsys import corpus, diversity, items, vectors
from polars_rank.recsys.expressions import masked
from polars_rank.recsys.options import ItemOptions

#: With ``by`` (:func:`~polars_rank.engines.polars.ranking.evaluate_by`): a group's index.
GROUP = "__pr_group"
#: A packed doc id is ``group index · PACK + the doc's rank`` (UInt64): distinct across
#: groups, in the doc ids' own order within one.
PACK = 1 << 32


def group_of(doc: str) -> pl.Expr:
    """The group index of a packed doc id, as :data:`GROUP`."""
    return (pl.col(doc) // PACK).cast(pl.UInt32).alias(GROUP)


def top_rows(
    run: pl.LazyFrame,
    options: Options,
    doc_dtype: pl.DataType,
    specs: list[MetricSpec],
    ranked: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """``query, doc, rank``: the rows within the largest cutoff of ``specs``.

    A user with n items, n at most every cutoff and ``max_rank``, keeps every row: its rank is
    not needed and is 0 here (only ``rank <= k`` reads it). Longer lists are ranked in the
    package's order (a first pass over the list lengths finds whether there are any).
    ``ranked`` (the ranking metrics' ranked run) is used when given."""
    cols = options.columns
    query, rank = cols.query, cols.rank
    largest = largest_cutoff(specs)
    if ranked is not None:
        return diversity.cut(ranked.select(query, cols.doc, rank), largest, rank)
    deduped = deduplicated_run(run, options)
    bounds = [s.k for s in specs if s.k is not None]
    if options.max_rank is not None:
        bounds.append(options.max_rank)
    unranked = deduped.select(query, cols.doc, pl.lit(0, pl.UInt32).alias(rank))
    if not bounds:
        return unranked
    bound = min(bounds)
    # one cheap pass (list lengths) saves ranking anything when no list is longer than the cut
    n = fresh("len", [query])
    longest = deduped.group_by(query).len(n).select(pl.col(n).max()).collect().item()
    if longest is None or longest <= bound:
        return unranked
    size = pl.len().over(query)
    short = deduped.filter(size <= bound).select(query, cols.doc, pl.lit(0, pl.UInt32).alias(rank))
    long = deduped.filter(size > bound).with_columns(rank_expr(cols, options.ordering, doc_dtype))
    cut = [b for b in (largest, options.max_rank) if b is not None]
    if cut:
        long = long.filter(pl.col(rank) <= min(cut))
    return pl.concat([short, long.select(query, cols.doc, rank)], how="vertical")


def _mask(k: int | None, top_cut: int | None, rank: str) -> pl.Expr | None:
    """``rank <= k`` when k cuts the recommendations further, else None (every row)."""
    if k is None or (top_cut is not None and k >= top_cut):
        return None
    return pl.col(rank) <= k


def _item_table(
    interactions: pl.LazyFrame,
    distinct: pl.LazyFrame | None,
    option: ItemOptions,
    query: str,
    doc: str,
    catalog: pl.LazyFrame | None = None,
    grouped: bool = False,
) -> pl.LazyFrame:
    """The item table (``grouped``: one per group of the packed doc ids); with the
    de-duplicated history at hand (``distinct``, computed for serendipity anyway), distinct
    users per item are its rows per item. Items of an explicit
    ``catalog`` without interactions are known items of popularity 0 (the least popular:
    in the tail, as in RecBole's item counter); their self-information is null (novelty's
    ``unknown`` rule applies to them, as −log₂ 0 is infinite)."""
    if option.count == "users" and distinct is not None:
        popularity = distinct.group_by(doc).agg(pl.len().cast(pl.Int64).alias(items.POPULARITY))
    else:
        popularity = items.item_popularity(interactions, count=option.count, query=query, doc=doc)
    if catalog is not None:
        unseen = (
            catalog.select(doc)
            .unique()
            .join(popularity.select(doc), on=doc, how="anti", nulls_equal=False)
            .with_columns(pl.lit(0, dtype=pl.Int64).alias(items.POPULARITY))
        )
        popularity = pl.concat([popularity, unseen], how="vertical_relaxed")
    n_users = None
    group = GROUP if grouped else None
    if grouped:
        popularity = popularity.with_columns(group_of(doc))
    if option.model == "discovery":
        users = interactions.with_columns(group_of(doc)) if grouped else interactions
        n_users = items.user_count(users, query=query, group=group)
    table = items.item_table(
        popularity,
        n_users=n_users,
        model=option.model,
        head_share=option.head_share,
        tail_share=option.tail_share,
        tail_popularity=option.tail_popularity,
        doc=doc,
        group=group,
    )
    known = pl.col(items.POPULARITY) > 0
    table = table.with_columns(pl.when(known).then(pl.col(items.SELF_INFORMATION)))
    return table.drop(GROUP) if grouped else table


def _per_user(
    top: pl.LazyFrame,
    specs: list[MetricSpec],
    inputs: RecommenderInputs,
    options: Options,
    distinct: pl.LazyFrame | None,
    top_cut: int | None,
    grouped: bool = False,
) -> list[pl.LazyFrame]:
    """``query, <labels>`` frames for the query-level metrics: one fused group-by for the
    popularity metrics (:attr:`~polars_rank.catalog.model.Metric.item_value`) and the vector
    closed forms of the pairwise ones, one frame per other (pairwise) metric."""
    cols = options.columns
    query, doc, rank = cols.query, cols.doc, cols.rank
    features = inputs.item_features
    has_vectors = features is not None and features.kind == "vectors"
    fused = [s for s in specs if s.entry.item_value or (has_vectors and s.entry.pairwise)]
    aggs: list[pl.Expr] = []
    finals: list[pl.Expr] = []
    item_columns: list[pl.LazyFrame] = []  # small per-item tables, joined to the rows once
    groups: dict[ItemOptions, list[MetricSpec]] = {}
    for spec in fused:
        if spec.entry.item_value:
            groups.setdefault(item_options(spec), []).append(spec)
    for g, (option, group) in enumerate(groups.items()):
        assert inputs.interactions is not None
        table = _item_table(
            inputs.interactions, distinct, option, query, doc, inputs.catalog, grouped
        )
        renamed = {c: f"_{c}{g}" for c in (items.POPULARITY, items.SELF_INFORMATION, items.IN_TAIL)}
        item_columns.append(table.rename(renamed))
        for spec in group:
            column = pl.col(renamed[spec.entry.item_value])
            unknown = spec.entry.unknown_value
            fill = None if unknown is None else unknown(spec.arguments())
            if fill is not None:  # what an item without interactions counts
                column = column.fill_null(fill)
            args = spec.call_arguments(options.relevance_level)
            args["k"] = None if _mask(spec.k, top_cut, rank) is None else spec.k
            entry_columns = {c: column for c in spec.entry.columns if c != "rank"}
            expr = spec.entry.polars(rank=rank, **entry_columns, **args)
            assert isinstance(expr, pl.Expr)  # a popularity metric is an expression
            aggs.append(expr.alias(spec.label))
    similar = [s for s in fused if s.entry.pairwise]
    # per-user sums shared by the metrics at one k: n, m, Σ u (ILD, serendipity without
    # gain) and, per (gain, level), G and Σ g u (serendipity with a gain)
    # key (k, what, gain, level) -> column name (2 and 2.0 are one key)
    sums: dict[tuple[int | None, str, Any, Any], str] = {}

    def tag(k: int | None, what: str, gain: Any = None, level: Any = None) -> str:
        key = (k, what, gain, level)
        if key not in sums:
            sums[key] = name = f"_v{len(sums)}"
            if what == "n":
                aggs.append(vectors.count(rank, k).cast(pl.Float64).alias(name))
            elif what == "m":
                aggs.append(vectors.with_vector_count(k, rank=rank).alias(name))
            elif what == "s":
                aggs.append(vectors.vector_sum(k, rank=rank).alias(name))
            else:  # gain total and gain-weighted sum
                weight = vectors.gain_expr(gain, cols.relevance, level)
                if what == "g":
                    aggs.append(masked(weight, rank, k).sum().alias(name))
                else:
                    aggs.append(vectors.vector_sum(k, rank=rank, weight=weight).alias(name))
        return sums[key]

    for spec in similar:
        args = spec.call_arguments(options.relevance_level, "vectors")
        k = spec.k if _mask(spec.k, top_cut, rank) is not None else None
        n = pl.col(tag(k, "n"))
        if not spec.entry.history:  # intra-list diversity: the top-k items with each other
            total = pl.col(tag(k, "s")).struct.unnest()
            value = vectors.ild_from_sums(total, pl.col(tag(k, "m")), n)
        else:
            gain, level = args.get("gain", "none"), args.get("relevance_level")
            if gain == "none":
                weighted, gains = pl.col(tag(k, "s")), n
            else:
                weighted = pl.col(tag(k, "t", gain, level))
                gains = pl.col(tag(k, "g", gain, level))
            # D = (Σ_i g_i u_i)·C on the per-user row (the expression sums u_i·C row by row)
            history = pl.col(vectors.HISTORY_SUM).struct.unnest()
            dots = pl.sum_horizontal((weighted.struct.unnest() * history).fill_null(0.0))
            value = vectors.serendipity_from_sums(dots, gains, n, pl.col(vectors.HISTORY_SIZE))
        finals.append(value.alias(spec.label))
    with_history = any(s.entry.history for s in similar)
    frames = []
    if aggs:
        if similar:
            assert features is not None
            unit = vectors.unit_vectors(features, doc=doc).cache()
            item_columns.append(unit)
        per_item = item_columns[0]
        for table in item_columns[1:]:
            per_item = per_item.join(table, on=doc, how="full", coalesce=True)
        rows = top.join(per_item, on=doc, how="left")
        sums_per_user = rows.group_by(query).agg(aggs)
        if with_history:
            # the history joins the per-user sums (one row per user), not the recommendations
            assert distinct is not None
            history_sums = vectors.history_sums(distinct, unit, query=query, doc=doc)
            sums_per_user = sums_per_user.join(history_sums, on=query, how="left")
        labels = [s.label for s in fused if s.entry.item_value]
        frames.append(sums_per_user.select(query, *labels, *finals))
    for spec in (s for s in specs if s not in fused):
        assert features is not None  # check_request: a pairwise metric has its features
        args = spec.call_arguments(options.relevance_level, features.kind)
        if not spec.entry.history:  # intra-list diversity
            frame = diversity.user_diversity(top, features, **args, query=query, doc=doc, rank=rank)
            out_column = vectors.ILD
        else:
            assert distinct is not None  # check_request: serendipity has its interactions
            frame = diversity.serendipity_with_history(
                top,
                distinct,
                features,
                **args,
                query=query,
                doc=doc,
                rank=rank,
                relevance=cols.relevance,
            )
            out_column = vectors.SERENDIPITY
        frames.append(frame.select(query, pl.col(out_column).alias(spec.label)))
    return frames


def _corpus_frames(
    top: pl.LazyFrame,
    users: pl.LazyFrame,
    specs: list[MetricSpec],
    catalog: pl.LazyFrame,
    explicit_catalog: bool,
    options: Options,
    grouped: bool = False,
) -> list[pl.LazyFrame]:
    """One one-row frame per corpus-level metric (counts shared per k), plus the warning
    about recommended items outside an explicit catalog. ``grouped`` (packed doc ids, the
    users with their :data:`GROUP`): a row per group, its index in :data:`GROUP`."""
    cols = options.columns
    doc, rank = cols.doc, cols.rank
    counts: dict[int | None, pl.LazyFrame] = {}
    group = GROUP if grouped else None
    if grouped:
        catalog = catalog.with_columns(group_of(doc))

    def counts_at(k: int | None) -> pl.LazyFrame:
        if k not in counts:
            frame = corpus.recommendation_counts(top, k, doc=doc, rank=rank)
            counts[k] = (frame.with_columns(group_of(doc)) if grouped else frame).cache()
        return counts[k]

    # the Polars implementation of each corpus metric, looked up by its entry's name
    builders: dict[str, Callable[[MetricSpec], pl.LazyFrame]] = {
        "catalog_coverage": lambda s: corpus.coverage_from_counts(
            counts_at(s.k), catalog, doc=doc, group=group
        ),
        "gini_index": lambda s: corpus.gini_from_counts(
            counts_at(s.k), catalog, doc=doc, group=group
        ),
        "shannon_entropy": lambda s: corpus.entropy_from_counts(
            counts_at(s.k),
            base=s.arguments()["base"],
            per_item=s.arguments()["per_item"],
            group=group,
        ),
        "user_coverage": lambda s: corpus.user_coverage_by(
            top,
            users,
            s.k,
            relevance_level=s.relevance_level,
            query=cols.query,
            rank=rank,
            relevance=cols.relevance,
            group=group,
        ),
    }
    frames = []
    for spec in specs:
        frame = builders[spec.entry.name](spec)
        value = pl.col(frame.collect_schema().names()[-1]).alias(spec.label)
        frames.append(frame.select(GROUP, value) if grouped else frame.select(value))
    uses_catalog = [s for s in specs if "catalog" in s.entry.tables]
    if explicit_catalog and uses_catalog:
        labels = [s.label for s in uses_catalog]
        shown = diversity.cut(top, largest_cutoff(uses_catalog), rank).select(doc).unique()
        outside = shown.join(catalog.select(doc), on=doc, how="anti")
        outside = outside.select(pl.len().alias("_outside"))

        def warn(count: pl.Series) -> pl.Series:
            warn_outside_catalog(int(count.sum() or 0), labels, stacklevel=2)
            return count

        checked = outside.select(
            pl.col("_outside").map_batches(warn, return_dtype=pl.UInt32, returns_scalar=True)
        )
        # the first corpus value reads the warning column, so the plan keeps it
        first = frames[0].join(checked, how="cross")
        label = specs[0].label
        frames[0] = first.select(
            *([GROUP] if grouped else []),
            pl.when(pl.col("_outside").is_not_null()).then(pl.col(label)).alias(label),
        )
    return frames


def distinct_pairs(interactions: pl.LazyFrame, query: str, doc: str) -> pl.LazyFrame:
    """``query, doc``: the distinct pairs of the interactions. Interactions are often distinct
    already: their pair hashes, sorted now, say whether any pair may repeat
    (:func:`~polars_rank.core.validation.repeated_pair_count`; none repeated proves no
    pair does: equal pairs hash alike), and only then are they de-duplicated
    (:func:`~polars_rank.recsys.vectors.history`). On 9.8M distinct interactions of integer
    ids the test takes 0.15 s, the de-duplication it saves 0.57 s (a count in 8 hash
    partitions took 0.32 s).

    >>> inter = pl.LazyFrame({"query": [1, 1, 2], "doc": ["a", "a", "a"]})
    >>> distinct_pairs(inter, "query", "doc").sort("query").collect().rows()
    [(1, 'a'), (2, 'a')]
    """
    pairs = interactions.select(query, doc)
    count = repeated_pair_count(pairs, Columns(query=query, doc=doc))
    repeated = count.collect(engine="streaming").item()
    return vectors.history(pairs, query, doc) if repeated else pairs


def recommender_values(
    top: pl.LazyFrame,
    users: pl.LazyFrame,
    qrels: pl.LazyFrame | None,
    specs: list[MetricSpec],
    inputs: RecommenderInputs,
    options: Options,
    catalog_run: pl.LazyFrame,
    *,
    every_user: bool = False,
    grouped: bool = False,
) -> tuple[pl.LazyFrame | None, pl.LazyFrame | None]:
    """``(per_user, corpus)``: ``query`` plus the query-level metrics for every evaluated user
    (null where undefined), and one row of corpus-level metrics; None when there are none.

    ``top`` is :func:`top_rows` of the run, ``users`` the evaluated users (``query``),
    ``qrels`` the judgments (serendipity's relevance, user coverage with a relevance level),
    ``catalog_run`` the run's ``doc`` column for the default catalog; ``every_user`` says
    that ``users`` are all the run's users (no filter needed). ``grouped`` (``by``): the doc
    ids of ``top``, ``qrels``, ``catalog_run`` and the inputs are packed with their group
    (:data:`PACK`), ``users`` has its :data:`GROUP`, and the corpus frame a row per group
    (:data:`GROUP` first).
    """
    cols = options.columns
    query, doc = cols.query, cols.doc
    top_cut = largest_cutoff(specs)
    if not every_user:
        top = top.join(users, on=query, how="semi")
    if qrels is not None and any(s.entry.uses_qrels(s.arguments()) for s in specs):
        grades = qrels.select(query, doc, cols.relevance)
        top = top.join(grades, on=[query, doc], how="left")
    top = top.cache()
    distinct = None
    if inputs.interactions is not None and any(s.entry.history for s in specs):
        # the distinct (user, item) pairs: serendipity's histories, and the popularity
        distinct = distinct_pairs(inputs.interactions, query, doc).cache()
    query_level = [s for s in specs if s.entry.level == "query"]
    per_user = None
    if query_level:
        frames = _per_user(top, query_level, inputs, options, distinct, top_cut, grouped)
        # every user of the run has a row in each frame: no need to join onto the users
        per_user = frames[0] if every_user else users.join(frames[0], on=query, how="left")
        for frame in frames[1:]:
            per_user = per_user.join(frame, on=query, how="left")
        per_user = per_user.select(query, *[s.label for s in query_level])
    corpus_specs = [s for s in specs if s.entry.level == "corpus"]
    result = None
    if corpus_specs:
        catalog = inputs.catalog
        if catalog is None:
            catalog = corpus.default_catalog(catalog_run, inputs.interactions, doc=doc)
        catalog = catalog.select(doc).unique().cache()
        corpus_frames = _corpus_frames(
            top, users, corpus_specs, catalog, inputs.catalog is not None, options, grouped
        )
        if grouped:  # a row per group that has a value of any of them
            result = corpus_frames[0]
            for frame in corpus_frames[1:]:
                result = result.join(frame, on=GROUP, how="full", coalesce=True)
        else:
            result = pl.concat(corpus_frames, how="horizontal")
    return per_user, result
