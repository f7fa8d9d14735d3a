"""``evaluate(..., engine="polars")``: the compact judged table, then every metric.

The ranking metrics read the compact judged table (:func:`~polars_rank.core.judged.
compact_table`: two streamed passes over the run, computed when ``evaluate`` is called, the
input checks collected with the first), the recommender metrics
(:mod:`polars_rank.engines.polars.recsys`) the run's top k per user.

With ``by`` (:func:`evaluate_by`) the same plan evaluates every group at once: a parameter of
:func:`polars_values` (``packer``), not a second engine. With recommender metrics every group is in
one lazy plan, whose size does not depend on the number of groups.

The user and doc ids of the run, the judgments and every recommender input are **packed**
with their group: ``group index · 2³² + the id's rank`` (a UInt64; the rank is that of the
id among every id of the inputs, in the ids' own order, so that the item table's order by
(popularity, doc id) is unchanged within a group; integer ids in [0, 2³²) are their own
rank, with no join). Per-user metrics, the users that count and the top k are then per
(group, user), as ranking metrics are per (group, query), and what the recommender metrics
compute per item (popularity, the item table, the recommendation counts, the catalog, item
features, the history) per (group, item). The inputs are checked first with (group,
query) struct ids (:func:`~polars_rank.core.grouping.keyed_inputs`), so that a message
shows the group. Every join, ``group_by`` and comparison
on doc ids is then per group with no change, and only what sums over all items (the item
table's total, item count and order, the discovery model's user count, the corpus metrics)
is taken per group (:data:`~polars_rank.engines.polars.recsys.GROUP`).

The interactions, catalog and item features join the groups as the judgments do: on the
``by`` columns they have; one without any is shared by every group (its rows repeated per
group, as a group evaluated alone reads all of them).

>>> import polars as pl
>>> from polars_rank.catalog.names import parse_metrics
>>> from polars_rank.core.options import Options
>>> run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
>>> evaluate_polars(run, qrels, parse_metrics(["RR"]), Options(), per_query=True).rows()
[('q1', 0.5)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.catalog.recommender_inputs import (
    RecommenderInputs,
    check_request,
    recommender_specs,
    resolve_inputs,
    validate_inputs,
)
from polars_rank.core import grouping, messages
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
from polars_rank.core.summary import summary_expr
from polars_rank.core.types import TableInput
from polars_rank.core.validation import validate
from polars_rank.engines.polars.recsys import GROUP, PACK, group_of, recommender_values, top_rows
from polars_rank.recsys.features import DOC_A, DOC_B, ItemFeatures


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
    :func:`evaluate_by`): the query ids are (group, query) ids, the
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


# --- by: every group in the one plan, ids packed with their group ----------------------

#: The columns of a doc's and a user's rank among every doc (user) id (:class:`Packer`).
_RANK, _USER = "__pr_doc_rank", "__pr_user_rank"


def _packed_id(rank: str) -> pl.Expr:
    """``group index · PACK + rank``: a packed id (UInt64)."""
    return pl.col(GROUP).cast(pl.UInt64) * PACK + pl.col(rank).cast(pl.UInt64)


@dataclass(frozen=True)
class Packer:
    """Packs user and doc ids with their group (see the module docstring): ``users`` and
    ``docs`` hold every user (doc) id of the inputs with its rank (:data:`_USER`,
    :data:`_RANK`), or are None for integer ids in [0, 2³²) (their own rank);
    ``query_dtype`` is the user ids' dtype."""

    query: str
    doc: str
    users: pl.LazyFrame | None
    docs: pl.LazyFrame | None
    query_dtype: pl.DataType = pl.Int64()

    def with_group(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """``frame`` (packed user ids) with their :data:`GROUP`."""
        return frame.with_columns(group_of(self.query))

    def packed(self, frame: pl.LazyFrame, column: str, *, user: bool = False) -> pl.LazyFrame:
        """``frame`` (with its :data:`GROUP`) with ``column`` (doc ids; user ids with
        ``user``) packed; rows whose id no input has are left out (they match nothing)."""
        ids, rank = (self.users, _USER) if user else (self.docs, _RANK)
        if ids is None:  # integer ids in [0, 2³²): their own rank
            value = pl.col(GROUP).cast(pl.UInt64) * PACK + pl.col(column).cast(pl.UInt64)
            return frame.with_columns(value.alias(column))
        name = self.query if user else self.doc
        ranked = frame.join(ids.rename({name: column}), on=column)
        return ranked.with_columns(_packed_id(rank).alias(column)).drop(rank)

    def pack(self, frame: pl.LazyFrame, *, distinct: bool = False) -> pl.LazyFrame:
        """``frame`` (packed user ids and doc ids) with its doc ids packed; ``distinct``:
        only the distinct packed doc ids (the user column dropped)."""
        if distinct:
            frame = frame.select(group_of(self.query), self.doc).unique()
            return self.packed(frame, self.doc).select(self.doc)
        return self.packed(self.with_group(frame), self.doc).drop(GROUP)

    def unpacked(self, frame: pl.LazyFrame, index: pl.LazyFrame) -> pl.LazyFrame:
        """``frame`` (packed user ids) with the user ids and the group's ``by`` columns of
        ``index`` (the groups and their :data:`GROUP`) back, the ``by`` columns first."""
        split = frame.with_columns(
            group_of(self.query), (pl.col(self.query) % PACK).cast(pl.UInt32).alias(_USER)
        )
        if self.users is None:
            user = pl.col(_USER).cast(self.query_dtype).alias(self.query)
            joined = split.drop(self.query).join(index, on=GROUP).with_columns(user)
        else:
            users = self.users.with_columns(pl.col(_USER).cast(pl.UInt32))
            joined = split.drop(self.query).join(index, on=GROUP).join(users, on=_USER)
        names = index.collect_schema().names()
        by = [c for c in names if c != GROUP]
        rest = [c for c in frame.collect_schema().names() if c != self.query]
        return joined.select(*by, self.query, *rest)


def _small_integers(parts: list[pl.LazyFrame], column: str) -> bool:
    """Whether the ids of ``parts`` (each a ``column``) are integers in [0, 2³²) (packed as
    they are, in their own order)."""
    dtype = parts[0].collect_schema()[column]
    if not dtype.is_integer():
        return False
    ids = pl.concat([p.select(column) for p in parts])  # one dtype: checked against the run
    bounds = ids.select(pl.col(column).min().alias("low"), pl.col(column).max().alias("high"))
    low, high = bounds.collect().row(0)
    return low is None or (low >= 0 and high < PACK)


def _joined(table: pl.LazyFrame, shared: Sequence[str], index: pl.LazyFrame) -> pl.LazyFrame:
    """The rows of ``table`` each group sees, with the group's ``by`` values and
    :data:`GROUP`: joined on the ``by`` columns it has (``shared``), or every row for every
    group."""
    if not shared:
        return table.join(index, how="cross")
    return table.join(index, on=shared, how="inner")


@dataclass(frozen=True)
class GroupedInputs:
    """The recommender inputs of a grouped evaluation, checked (:func:`checked_inputs`):
    each table with its ``by`` columns (``tables``), the ``by`` columns each has
    (``shared``), and the inputs as :func:`~polars_rank.catalog.recommender_inputs.
    resolve_inputs` reads them without those columns (``resolved``)."""

    tables: dict[str, pl.LazyFrame]
    shared: dict[str, list[str]]
    resolved: RecommenderInputs


def checked_inputs(
    given: dict[str, Any],
    by: Sequence[str],
    run_schema: pl.Schema,
    options: Options,
    specs: list[MetricSpec],
    *,
    per_query: bool,
    has_qrels: bool,
) -> GroupedInputs:
    """The recommender inputs (interactions, item features, catalog) checked as
    :func:`~polars_rank.catalog.recommender_inputs.prepare` checks them, the one vector per item
    and one similarity per pair within each group's features, and no null in the ``by``
    columns each has."""
    cols = options.columns
    query, doc = cols.query, cols.doc
    tables: dict[str, pl.LazyFrame] = {}
    shared: dict[str, list[str]] = {}
    for name, obj in given.items():
        if obj is None:
            continue
        frame = obj.rename(doc).to_frame().lazy() if isinstance(obj, pl.Series) else obj
        tables[name] = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
        schema = tables[name].collect_schema()
        what = name.replace("_", " ")
        shared[name] = grouping.check_shared(by, run_schema, schema, what)
        if shared[name]:
            counts = tables[name].select(pl.col(shared[name]).null_count()).collect()
            nulls = counts.row(0, named=True)
            grouping.no_nulls([c for c in shared[name] if nulls[c]], what)
    own = {name: frame.drop(shared[name]) for name, frame in tables.items()}
    resolved = resolve_inputs(
        own.get("interactions"),
        own.get("item_features"),
        own.get("catalog"),
        run_schema,
        query=query,
        doc=doc,
    )
    features = resolved.item_features
    check_request(
        specs,
        per_query=per_query,
        has_qrels=has_qrels,
        given=set(tables),
        feature_kind=None if features is None else features.kind,
    )
    if options.validate and recommender_specs(specs):
        checked = resolved
        if features is not None:  # one vector (similarity) per item (pair) of a group
            frame = tables["item_features"]
            checked = replace(resolved, item_features=replace(features, frame=frame))
        validate_inputs(checked, query=query, doc=doc, by=shared.get("item_features", []))
    return GroupedInputs(tables, shared, resolved)


def evaluate_by(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame | None,
    specs: list[MetricSpec],
    options: Options,
    by: list[str],
    groups: pl.DataFrame,
    given: dict[str, Any],
    *,
    per_query: bool,
    warn: Callable[[int], None],
) -> pl.LazyFrame:
    """``evaluate(..., by=by)`` with recommender metrics: one row per group of ``groups``
    (the run's, sorted), or per (group, query) with ``per_query``; every group's numbers are
    those of ``evaluate`` on its rows alone (see the module docstring). The inputs are
    checked with (group, query) ids (struct ids, so that messages show the group), then
    evaluated with packed ids."""
    cols = options.columns
    query, doc = cols.query, cols.doc
    run_schema = run.collect_schema()
    checked = checked_inputs(
        given, by, run_schema, options, specs, per_query=per_query, has_qrels=qrels is not None
    )
    tables, shared, features = checked.tables, checked.shared, checked.resolved.item_features
    keyed_run, keyed_qrels = grouping.keyed_inputs(run, qrels, by, options, groups)
    if (
        qrels is not None
        and keyed_qrels is not None
        and grouping.judges_no_group(qrels, keyed_qrels)
    ):
        # no judgment joins any group: no query counts (one judgment of a query no group has)
        own = [c for c in by if c in qrels.collect_schema()]
        if options.validate:  # the judgments checked keyed by their own groups
            keyed_qrels = qrels.with_columns(grouping.group_key(own, query)).drop(own)
        judged = qrels.drop(own).collect()
        run_users = run.select(query).unique().collect()
        nobody = grouping.judging_nobody(judged.clear(), judged, run_users, query)
        qrels = nobody.join(groups.head(1), how="cross").lazy()
        options = replace(options, queries="both")
    if options.validate:
        from polars_rank.core.judged import empty_qrels
        from polars_rank.core.validation import validate

        judgments = keyed_qrels
        if judgments is None:
            judgments = empty_qrels(keyed_run.collect_schema(), options)
        raw = (qrels if qrels is not None else empty_qrels(run_schema, options)).collect_schema()
        resolved = options.resolve(run_schema, raw)  # checks the id dtypes
        validate(keyed_run, judgments, resolved, in_memory=False, judgments_given=qrels is not None)
        options = replace(options, validate=False)
    index = groups.with_row_index(GROUP).lazy()
    tables["run"] = run
    shared["run"] = list(by)
    if qrels is not None:
        tables["qrels"] = qrels
        shared["qrels"] = [c for c in by if c in qrels.collect_schema()]
    user_parts = [tables[n].select(query) for n in ("run", "qrels", "interactions") if n in tables]
    users: pl.LazyFrame | None = None
    if not _small_integers(user_parts, query):
        users = pl.concat(user_parts).unique().drop_nulls().sort(query).with_row_index(_USER)
        users = users.cache()
    with_docs = ("run", "qrels", "interactions", "catalog")
    doc_parts = [tables[n].select(doc) for n in with_docs if n in tables]
    if features is not None:
        names = (DOC_A, DOC_B) if features.kind == "similarities" else (doc,)
        doc_parts += [tables["item_features"].select(pl.col(c).alias(doc)) for c in names]
    docs: pl.LazyFrame | None = None
    if not _small_integers(doc_parts, doc):
        docs = pl.concat(doc_parts).unique().drop_nulls().sort(doc).with_row_index(_RANK)
        docs = docs.cache()
    packer = Packer(query, doc, users, docs, run_schema[query])

    def grouped(name: str) -> pl.LazyFrame:
        frame = _joined(tables[name], shared[name], index)
        return frame.drop([c for c in by if c in frame.collect_schema()])

    # each packed table is read by several parts of the plan: computed once (cache)
    packed_run = packer.packed(grouped("run"), query, user=True).drop(GROUP).cache()
    packed_qrels = None
    if qrels is not None:
        packed_qrels = packer.packed(grouped("qrels"), query, user=True).drop(GROUP).cache()
    interactions = catalog = None
    if "interactions" in tables:
        frame = grouped("interactions").select(query, doc, GROUP)
        interactions = packer.packed(packer.packed(frame, query, user=True), doc).drop(GROUP)
        interactions = interactions.cache()
    if "catalog" in tables:
        catalog = packer.packed(grouped("catalog").select(doc, GROUP), doc).drop(GROUP).cache()
    keyed_features = None
    if features is not None:
        columns = features.frame.collect_schema().names()
        frame = grouped("item_features").select(*columns, GROUP)
        for column in (DOC_A, DOC_B) if features.kind == "similarities" else (doc,):
            frame = packer.packed(frame, column)
        keyed_features = ItemFeatures(
            features.kind, frame.drop(GROUP).cache(), features.doc, features.column, features.dim
        )
    inputs = RecommenderInputs(interactions, keyed_features, catalog)
    values, corpus, _ = polars_values(
        packed_run, packed_qrels, specs, options, inputs=inputs, warn=warn, packer=packer
    )
    labels = [s.label for s in specs]
    values = packer.unpacked(values, index)
    if per_query:
        return values.select(*by, query, *labels).sort([*by, query])
    query_level = [(s.label, s.summary) for s in specs if s.entry.level == "query"]
    result = grouping.group_summary(values, query_level, by, query, groups)
    if corpus is not None:
        named = corpus.join(index, on=GROUP).drop(GROUP)
        result = result.join(named, on=by, how="left", nulls_equal=True)
    return result.select(*by, *labels).sort(by)
