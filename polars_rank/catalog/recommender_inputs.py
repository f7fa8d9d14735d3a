"""The recommender inputs of :func:`polars_rank.evaluate` — interactions, item features and a
catalog — checked against the requested metrics and the run, for both engines.

* which metrics need which input (from the registry): a metric without its input is a
  :class:`~polars_rank.PolarsRankError` naming the metric and the argument to pass;
* corpus-level metrics (coverage, entropy, Gini, user coverage) have no per-query value: with
  ``per_query=True`` they are an error naming them;
* id columns must have the run's dtypes;
* with ``validate=True``: no null ids, no null or NaN vector component or similarity, one
  vector per item, one similarity per pair, vectors of one length.

>>> import polars as pl
>>> from polars_rank.catalog.names import parse_metrics
>>> check_request(parse_metrics(["coverage@10", "novelty@10"]), per_query=True, has_qrels=True,
...               given={"interactions"})
Traceback (most recent call last):
...
polars_rank.core.errors.PolarsRankError: coverage@10 has one value for the whole run, not one per query: leave it out of per_query=True or evaluate it apart
"""  # noqa: E501

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank.core import messages
from polars_rank.core.errors import PolarsRankError, option
from polars_rank.core.frames import to_lazy
from polars_rank.core.options import Options
from polars_rank.core.types import CatalogInput, TableInput
from polars_rank.recsys.features import DOC_A, DOC_B, SIMILARITY, ItemFeatures, item_features
from polars_rank.recsys.options import ItemOptions

if TYPE_CHECKING:
    from polars_rank.catalog.names import MetricSpec

#: What each input a metric may need holds.
_ARGUMENT = {
    "qrels": "the judgments: query, doc, relevance",
    "interactions": "the training history: query, doc",
    "item_features": "vectors, categories or a similarity table",
}


class _Given:
    """The value of an input in a message: ``interactions=…`` as a keyword argument,
    ``--interactions FILE`` as a command-line flag."""

    def __repr__(self) -> str:
        return "…"

    def __str__(self) -> str:
        return "FILE"


class GivenTable(_Given):
    """The value of an input that is a table name: ``--interactions TABLE`` on the command
    line (:func:`polars_rank.to_sql`, ``polars-rank sql``)."""

    def __str__(self) -> str:
        return "TABLE"


def _needs(name: str, given: _Given) -> str:
    """How to pass input ``name``, and what it holds."""
    how = "qrels" if name == "qrels" else option(name, given)
    return f"{how} ({_ARGUMENT[name]})"


def recommender_specs(specs: list[MetricSpec]) -> list[MetricSpec]:
    """The metrics that read the recommendations (not the judged table)."""
    return [s for s in specs if s.entry.table == "recommendations"]


def largest_cutoff(specs: list[MetricSpec]) -> int | None:
    """The largest k of the metrics (None when one of them has no cutoff)."""
    ks = [s.k for s in specs if s.k is not None]
    return None if len(ks) < len(specs) else max(ks)


def outside_catalog_message(count: int, labels: list[str]) -> str:
    """How many recommended items the catalog does not hold."""
    items_ = "item is" if count == 1 else "items are"
    return (
        f"{count} recommended {items_} not in the catalog and "
        f"{'was' if count == 1 else 'were'} not counted by {', '.join(labels)}"
    )


def warn_outside_catalog(count: int, labels: list[str], stacklevel: int = 2) -> None:
    """Warn how many recommended items were outside the catalog (nothing when 0)."""
    if count:
        warnings.warn(
            outside_catalog_message(count, labels), UserWarning, stacklevel=stacklevel + 1
        )


def item_options(spec: MetricSpec) -> ItemOptions:
    """The item-table options of a popularity metric (:attr:`Metric.item_value
    <polars_rank.catalog.model.Metric.item_value>`): its ``scope="table"`` parameters
    (defaults for the rest)."""
    args = spec.arguments()
    table = {p.name: args[p.name] for p in spec.entry.params if p.scope == "table"}
    return ItemOptions(
        count=table.get("count", "users"),
        model=table.get("model", "choice"),
        head_share=table.get("head_share", 0.2),
        tail_share=table.get("tail_share"),
        tail_popularity=table.get("tail_popularity"),
        unknown_in_tail=table.get("unknown", True),
    )


def check_request(
    specs: list[MetricSpec],
    *,
    per_query: bool,
    has_qrels: bool,
    given: set[str],
    feature_kind: str | None = None,
    shown: _Given | None = None,
) -> None:
    """Raise for a request that cannot be answered: a corpus-level metric per query, a metric
    without its input (``given``: the inputs passed besides the run and qrels; ``shown``: how
    a message shows an input's value, a file by default), a parameter that does not fit the
    kind of item features, inconsistent item-table options."""
    if per_query:
        corpus = [s.label for s in specs if s.entry.level == "corpus"]
        if corpus:
            names = ", ".join(corpus)
            raise PolarsRankError(
                f"{names} {'has' if len(corpus) == 1 else 'have'} one value for the whole run, "
                "not one per query: leave "
                f"{'it' if len(corpus) == 1 else 'them'} out of per_query=True or evaluate "
                f"{'it' if len(corpus) == 1 else 'them'} apart"
            )
    available = set(given) | ({"qrels"} if has_qrels else set())
    for spec in specs:
        needed = list(spec.entry.inputs)
        if spec.entry.uses_qrels(spec.arguments()):
            needed.insert(0, "qrels")
        for name in needed:
            if name not in available:
                raise PolarsRankError(
                    f"metric {spec.label!r} needs {_needs(name, shown or _Given())}"
                )
        for param in spec.entry.params:
            value = dict(spec.params).get(param.name)
            if value is not None and param.variants and feature_kind not in param.variants:
                raise PolarsRankError(
                    f"metric {spec.label!r}: {param.name}={value} needs "
                    f"{' or '.join(param.variants)} features, got {feature_kind}"
                )
        if spec.entry.item_value:
            try:
                item_options(spec)
            except PolarsRankError as error:
                raise PolarsRankError(f"metric {spec.label!r}: {error}") from None


@dataclass(frozen=True)
class RecommenderInputs:
    """The recommender inputs as Polars LazyFrames (None when not given), with the item
    features' kind."""

    interactions: pl.LazyFrame | None = None
    item_features: ItemFeatures | None = None
    catalog: pl.LazyFrame | None = None


def same_dtype(
    what: str, schema: pl.Schema, name: str, column: str, run_dtype: pl.DataType
) -> None:
    """The input ``what``'s ``column`` exists and has the dtype of the run's column ``name``
    (``run_dtype``); else the error every engine raises."""
    if column not in schema:
        raise messages.missing_column(what, column, list(schema.names()))
    if schema[column] != run_dtype:
        raise PolarsRankError(
            f"run column {name!r} is {run_dtype} but {what} column {column!r} is "
            f"{schema[column]}; ids must have the same dtype in both (cast one of them)"
        )


def resolve_inputs(
    interactions: TableInput | None,
    features: TableInput | None,
    catalog: CatalogInput | None,
    run_schema: pl.Schema,
    *,
    query: str = "query",
    doc: str = "doc",
) -> RecommenderInputs:
    """The inputs as LazyFrames with checked columns and id dtypes. ``catalog`` may be a
    frame with the doc column or a Series of ids."""
    inter = feats = cat = None
    if interactions is not None:
        inter = to_lazy(interactions, "interactions")
        schema = inter.collect_schema()
        same_dtype("interactions", schema, query, query, run_schema[query])
        same_dtype("interactions", schema, doc, doc, run_schema[doc])
        inter = inter.select(query, doc)
    if features is not None:
        feats = item_features(to_lazy(features, "item_features"), doc=doc)
        schema = feats.frame.collect_schema()
        for column in (DOC_A, DOC_B) if feats.kind == "similarities" else (doc,):
            same_dtype("item_features", schema, doc, column, run_schema[doc])
    if catalog is not None:
        if isinstance(catalog, pl.Series):
            catalog = catalog.rename(doc).to_frame()
        cat = to_lazy(catalog, "catalog")
        same_dtype("catalog", cat.collect_schema(), doc, doc, run_schema[doc])
        cat = cat.select(doc)
    return RecommenderInputs(inter, feats, cat)


def _first_bad(
    frame: pl.LazyFrame, bad: pl.Expr, show: list[str]
) -> tuple[int, int | None, dict[str, Any]]:
    found = frame.select(
        bad.sum().alias("_count"),
        bad.arg_true().first().alias("_row"),
        *[pl.col(c).filter(bad).first().cast(pl.String).alias(c) for c in show],
    ).collect()
    row = found.row(0, named=True)
    return int(row.pop("_count") or 0), row.pop("_row"), row


def _raise_if(frame: pl.LazyFrame, bad: pl.Expr, show: list[str], message: str) -> None:
    count, row, values = _first_bad(frame, bad, show)
    if count:
        shown = ", ".join(f"{k} {v!r}" for k, v in values.items())
        raise PolarsRankError(f"{message.format(count=count)}; first at row {row} ({shown})")


def validate_inputs(
    inputs: RecommenderInputs, *, query: str = "query", doc: str = "doc", by: Sequence[str] = ()
) -> None:
    """The input checks of the recommender inputs (see the module docstring); each raises a
    :class:`~polars_rank.PolarsRankError` naming the input, the column, the count and the
    first row. ``by``: columns of the item features (``evaluate``'s ``by`` columns they
    have) within whose values an item has one vector and a pair one similarity."""
    if inputs.interactions is not None:
        null = pl.col(query).is_null() | pl.col(doc).is_null()
        _raise_if(
            inputs.interactions,
            null,
            [query, doc],
            "interactions has {count} row(s) with a null query or doc id",
        )
    if inputs.catalog is not None:
        _raise_if(
            inputs.catalog, pl.col(doc).is_null(), [doc], "catalog has {count} null doc id(s)"
        )
    feats = inputs.item_features
    if feats is None:
        return
    frame = feats.frame
    if feats.kind == "similarities":
        value = pl.col(SIMILARITY)
        bad = pl.col(DOC_A).is_null() | pl.col(DOC_B).is_null() | value.is_null()
        if frame.collect_schema()[SIMILARITY].is_float():
            bad = bad | value.is_nan()
        _raise_if(
            frame,
            bad,
            [DOC_A, DOC_B],
            "item_features has {count} row(s) with a null doc_a, doc_b or similarity, or a "
            "NaN similarity",
        )
        a, b = pl.col(DOC_A), pl.col(DOC_B)
        pairs = frame.filter(a != b).select(
            *by,
            pl.min_horizontal(a, b).alias(DOC_A),
            pl.max_horizontal(a, b).alias(DOC_B),
            value.cast(pl.Float64),
        )
        conflicts = (
            pairs.group_by(*by, DOC_A, DOC_B)
            .agg(pl.col(SIMILARITY).n_unique().alias("_values"))
            .filter(pl.col("_values") > 1)
        )
        found = conflicts.select(pl.len(), pl.col(DOC_A).first(), pl.col(DOC_B).first())
        count, first_a, first_b = found.collect().row(0)
        if count:
            raise PolarsRankError(
                f"item_features gives {count} pair(s) two different similarities (either "
                f"orientation counts as the same pair), e.g. {first_a!r} and {first_b!r}"
            )
        return
    column = feats.column or ""
    _raise_if(frame, pl.col(doc).is_null(), [doc], "item_features has {count} null doc id(s)")
    if feats.kind == "categories":
        _raise_if(
            frame,
            pl.col(column).is_null(),
            [doc],
            f"item_features column {column!r} has {{count}} null categories",
        )
        return
    values = pl.col(column)
    is_array = isinstance(frame.collect_schema()[column], pl.Array)
    elements = values.arr.to_list() if is_array else values
    bad_element = elements.list.eval(
        pl.element().is_null() | pl.element().cast(pl.Float64).is_nan()
    ).list.any()
    _raise_if(
        frame,
        bad_element.fill_null(False),
        [doc],
        f"item_features column {column!r} has {{count}} vector(s) with a null or NaN component",
    )
    repeated = frame.group_by(*by, doc).len().filter(pl.col("len") > 1)
    count, first = repeated.select(pl.len(), pl.col(doc).first()).collect().row(0)
    if count:
        raise PolarsRankError(
            f"item_features has {count} item(s) with more than one vector, e.g. doc {first!r}"
        )


def prepare(
    specs: list[MetricSpec],
    run: TableInput,
    qrels: TableInput | None,
    given: Mapping[str, CatalogInput | None],
    options: Options,
    *,
    per_query: bool,
) -> RecommenderInputs:
    """Check a request and its recommender inputs (Polars frames) for :func:`evaluate`: the
    metrics against the inputs given, the inputs' columns and dtypes against the run, and,
    with ``options.validate``, their values."""
    present = {name for name, value in given.items() if value is not None}
    run_schema = to_lazy(run, "run").collect_schema()
    cols = options.columns
    inputs = resolve_inputs(
        given["interactions"],
        given["item_features"],
        given["catalog"],
        run_schema,
        query=cols.query,
        doc=cols.doc,
    )
    kind = inputs.item_features.kind if inputs.item_features is not None else None
    check_request(
        specs, per_query=per_query, has_qrels=qrels is not None, given=present, feature_kind=kind
    )
    if options.validate and recommender_specs(specs):
        validate_inputs(inputs, query=cols.query, doc=cols.doc)
    return inputs
