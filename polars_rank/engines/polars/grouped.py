"""``evaluate(..., by=[...])`` with recommender metrics in the Polars engine: every group in
one lazy plan, whose size does not depend on the number of groups.

As for ranking metrics (:mod:`polars_rank.core.grouping`), the query id is the pair (group,
query): per-user metrics, the users that count and the top k are per (group, user). What
the recommender metrics compute per item (popularity, the item table, the recommendation
counts, the catalog, item features, the history) must be per group too: the doc ids of the
top rows, the judgments' grades and of every recommender input are **packed** with their
group, ``group index · 2³² + the doc's rank`` (a UInt64; the rank is that of the doc id
among every doc id of the inputs, in the ids' own order, so that the item table's order by
(popularity, doc id) is unchanged within a group). Every join, ``group_by`` and comparison
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
from polars_rank.engines.polars.recsys import GROUP, PACK
from polars_rank.recsys.features import DOC_A, DOC_B, ItemFeatures

#: The column of a doc's rank among every doc id (:class:`Packer`).
_RANK = "__pr_doc_rank"


@dataclass(frozen=True)
class Packer:
    """Packs doc ids with their group (see the module docstring): ``index`` holds the groups
    (``by`` columns under :meth:`aliases`) and their :data:`GROUP` index, ``docs`` every doc
    id with its rank."""

    by: tuple[str, ...]
    query: str
    doc: str
    index: pl.LazyFrame
    docs: pl.LazyFrame

    def aliases(self) -> list[str]:
        return [f"__pr_by_{i}" for i in range(len(self.by))]

    def with_group(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """``frame`` (a (group, query) id in the query column) with its :data:`GROUP`."""
        fields = [
            pl.col(self.query).struct.field(b).alias(a)
            for b, a in zip(self.by, self.aliases(), strict=True)
        ]
        return frame.with_columns(fields).join(self.index, on=self.aliases()).drop(self.aliases())

    def packed(self, frame: pl.LazyFrame, column: str) -> pl.LazyFrame:
        """``frame`` (with its :data:`GROUP`) with ``column`` (doc ids) packed; rows whose
        doc id no input has are left out (they match nothing)."""
        ranked = frame.join(self.docs.rename({self.doc: column}), on=column)
        value = pl.col(GROUP).cast(pl.UInt64) * PACK + pl.col(_RANK).cast(pl.UInt64)
        return ranked.with_columns(value.alias(column)).drop(_RANK)

    def pack(self, frame: pl.LazyFrame, *, distinct: bool = False) -> pl.LazyFrame:
        """``frame`` (a (group, query) id and a doc id) with its doc id packed; ``distinct``:
        only the distinct packed doc ids (the query column dropped)."""
        if distinct:
            fields = [
                pl.col(self.query).struct.field(b).alias(a)
                for b, a in zip(self.by, self.aliases(), strict=True)
            ]
            frame = frame.select(*fields, self.doc).unique().join(self.index, on=self.aliases())
            return self.packed(frame, self.doc).select(self.doc)
        return self.packed(self.with_group(frame), self.doc).drop(GROUP)


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


def keyed_inputs(
    given: dict[str, Any],
    by: Sequence[str],
    groups: pl.DataFrame,
    run: pl.LazyFrame,
    options: Options,
    specs: list[MetricSpec],
    *,
    per_query: bool,
    has_qrels: bool,
) -> tuple[RecommenderInputs, Packer]:
    """The recommender inputs (interactions, item features, catalog) checked
    (:func:`checked_inputs`), then per group: user ids as (group, user) ids, doc ids
    packed; and the :class:`Packer` for the run's rows."""
    cols = options.columns
    query, doc = cols.query, cols.doc
    checked = checked_inputs(
        given,
        by,
        run.collect_schema(),
        options,
        specs,
        per_query=per_query,
        has_qrels=has_qrels,
    )
    tables, shared, features = checked.tables, checked.shared, checked.resolved.item_features
    index = groups.with_row_index(GROUP).lazy()
    parts = [run.select(pl.col(doc))]
    if "interactions" in tables:
        parts.append(tables["interactions"].select(doc))
    if "catalog" in tables:
        parts.append(tables["catalog"].select(doc))
    if features is not None:
        names = (DOC_A, DOC_B) if features.kind == "similarities" else (doc,)
        parts += [tables["item_features"].select(pl.col(c).alias(doc)) for c in names]
    docs = (
        pl.concat(parts, how="vertical")
        .unique()
        .drop_nulls()
        .sort(doc)
        .with_row_index(_RANK)
        .cache()
    )
    aliases = [f"__pr_by_{i}" for i in range(len(by))]
    packer = Packer(tuple(by), query, doc, index.rename(dict(zip(by, aliases, strict=True))), docs)

    def grouped(name: str) -> pl.LazyFrame:
        return _joined(tables[name], shared[name], index)

    interactions = catalog = None
    if "interactions" in tables:
        frame = grouped("interactions").with_columns(grouping.group_key(by, query))
        interactions = packer.packed(frame.select(query, doc, GROUP), doc).drop(GROUP)
    if "catalog" in tables:
        catalog = packer.packed(grouped("catalog").select(doc, GROUP), doc).drop(GROUP)
    keyed_features = None
    if features is not None:
        columns = features.frame.collect_schema().names()
        frame = grouped("item_features").select(*columns, GROUP)
        for column in (DOC_A, DOC_B) if features.kind == "similarities" else (doc,):
            frame = packer.packed(frame, column)
        keyed_features = ItemFeatures(
            features.kind, frame.drop(GROUP), features.doc, features.column, features.dim
        )
    return RecommenderInputs(interactions, keyed_features, catalog), packer


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
    those of ``evaluate`` on its rows alone (see the module docstring)."""
    query = options.columns.query
    inputs, packer = keyed_inputs(
        given, by, groups, run, options, specs, per_query=per_query, has_qrels=qrels is not None
    )
    keyed_run, keyed_qrels = grouping.keyed_inputs(run, qrels, by, options, groups)
    if (
        qrels is not None
        and keyed_qrels is not None
        and grouping.judges_no_group(qrels, keyed_qrels)
    ):
        # no judgment joins any group: no query counts (one judgment of a query no group has)
        shared = [c for c in by if c in qrels.collect_schema()]
        judged = qrels.drop(shared).collect()
        users = run.select(query).unique().collect()
        nobody = grouping.judging_nobody(judged.clear(), judged, users, query)
        keyed = nobody.join(groups.head(1), how="cross").with_columns(grouping.group_key(by, query))
        keyed_qrels = keyed.drop(by).lazy()
        options = replace(options, queries="both")
    values, corpus, resolved = polars_values(
        keyed_run, keyed_qrels, specs, options, inputs=inputs, warn=warn, packer=packer
    )
    values = grouping.per_query_frame(values, by, query)
    labels = [s.label for s in specs]
    if per_query:
        return values.select(*by, query, *labels)
    query_level = [(s.label, s.summary) for s in specs if s.entry.level == "query"]
    result = grouping.group_summary(values, query_level, by, query, groups)
    if corpus is not None:
        named = corpus.join(groups.with_row_index(GROUP).lazy(), on=GROUP).drop(GROUP)
        result = result.join(named, on=by, how="left", nulls_equal=True)
    return result.select(*by, *labels).sort(by)
