"""``evaluate(..., by=[...])`` with recommender metrics in the Polars engine: every group in
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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.core import grouping
from polars_rank.core.options import Options
from polars_rank.core.recommender_inputs import (
    RecommenderInputs,
    check_request,
    recommender_specs,
    resolve_inputs,
    validate_inputs,
)
from polars_rank.engines.polars.ranking import polars_values
from polars_rank.engines.polars.recsys import GROUP, PACK, group_of
from polars_rank.recsys.features import DOC_A, DOC_B, ItemFeatures

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
    (``shared``), and the inputs as :func:`~polars_rank.core.recommender_inputs.
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
    :func:`~polars_rank.core.recommender_inputs.prepare` checks them, the one vector per item
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
