""":func:`to_sql`: metric names in, one self-contained ``SELECT`` for a dialect out.

>>> sql = to_sql(["nDCG@10", "AP"], "bigquery", "project.ds.run", "project.ds.qrels")
>>> "FROM project.ds.run" in sql, "ndcg_at_10" in sql
(True, True)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal

from polars_rank.catalog.model import Metric
from polars_rank.catalog.names import MetricSpec, parse_metric, parse_metrics
from polars_rank.catalog.recommender_inputs import GivenTable, check_request
from polars_rank.compiler import placeholders as ph
from polars_rank.compiler import plan
from polars_rank.compiler.columns import column_names, metric_outputs
from polars_rank.compiler.dialects import render
from polars_rank.compiler.recsys import (
    CATALOG,
    CATEGORY,
    DOC_A,
    DOC_B,
    FEATURE_KINDS,
    FEATURES,
    INTERACTIONS,
    SIMILARITY,
    VECTOR,
)
from polars_rank.core import messages
from polars_rank.core.conventions import OrderBy
from polars_rank.core.dialects import Dialect, DialectName, get_dialect
from polars_rank.core.errors import PolarsRankError, check_boolean, option
from polars_rank.core.grouping import by_list, check_by_names
from polars_rank.core.identifiers import table_reference
from polars_rank.core.options import Duplicates, Options, Queries

Layout = Literal["wide", "long"]
LAYOUTS: tuple[str, ...] = ("wide", "long")

#: The columns of the long layout besides the query.
LONG_COLUMNS = ("measure", "value")


def not_portable(entry: Metric, dialect: str = "duckdb") -> str | None:
    """Why a catalog metric has no portable SQL in ``dialect`` (None when it has): the reason
    its entry gives (:attr:`Metric.unsupported`), e.g. trec_eval's ``relstring``, a string
    built in rank order, which the dialects aggregate in incompatible ways. (Every recommender
    metric has it, with vectors, categories or a similarity table, see :func:`to_sql`.)"""
    return entry.reason(f"sql:{dialect}")


def _specs(metrics: Sequence[str | MetricSpec] | str | MetricSpec) -> list[MetricSpec]:
    """Metric names parsed (parsed ones kept); an error for none, a repeated label or a metric
    without portable SQL (:func:`not_portable`)."""
    specs = _parsed(metrics)
    for spec in specs:
        why = not_portable(spec.entry)
        if why is not None:
            raise PolarsRankError(f"metric {spec.label!r} has no portable SQL: {why}")
    return specs


def _parsed(metrics: Sequence[str | MetricSpec] | str | MetricSpec) -> list[MetricSpec]:
    if isinstance(metrics, str | MetricSpec):
        metrics = [metrics]
    if all(isinstance(m, str) for m in metrics):
        return parse_metrics(list(metrics))
    specs = [m if isinstance(m, MetricSpec) else parse_metric(m) for m in metrics]
    labels = [s.label for s in specs]
    repeated = [label for label in labels if labels.count(label) > 1]
    if repeated:
        raise PolarsRankError(f"metric {repeated[0]!r} is listed twice")
    return specs


def _check_dotless_names(columns: dict[str, str], rules: Dialect) -> None:
    """A dialect whose column names cannot hold a dot reads one in a quoted column name as a
    path (BigQuery: ``t.`a.b``` is field ``b`` of ``a``): refuse such a name rather than read
    another column."""
    for what, name in columns.items():
        if "." in name:
            raise PolarsRankError(
                f"the {what} column {name!r} has a '.', which {rules.title} reads as a path "
                "(its column names cannot contain one)"
            )


def _check_by(
    specs: list[MetricSpec],
    by: list[str],
    shared: list[str],
    qrels: str | None,
    roles: dict[str, str],
) -> None:
    """``by`` and ``qrels_by`` of :func:`to_sql`: group columns named by the rule of
    :func:`~polars_rank.core.grouping.check_by_names` (none of the id, score, rank and
    relevance columns, no metric's name), ranking metrics with qrels, ``qrels_by`` within
    ``by``."""
    outside = [c for c in shared if c not in by]
    if outside:
        raise PolarsRankError(f"qrels_by column {outside[0]!r} is not one of the by columns {by}")
    if not by:
        return
    check_by_names(by, roles, metric_outputs(specs))
    if qrels is None and any(s.entry.table == "judged" for s in specs):
        raise PolarsRankError("by: ranking metrics per group need qrels")


def require_input_by(by: list[str], given: dict[str, tuple[str | None, object]]) -> None:
    """With ``by``, every table given needs its ``*_by`` argument (``given``: argument name
    → (the table, the argument as passed)): which ``by`` columns a table has too changes
    the numbers, and the SQL cannot see the table, so None is refused and ``[]`` means
    shared by every group."""
    if not by:
        return
    for argument, (table, value) in given.items():
        if table is not None and value is None:
            raise messages.by_columns_needed(argument, argument.removesuffix("_by"))


def roles_of(query: str, doc: str, score: str, rank: str, relevance: str) -> dict[str, str]:
    """The input's role columns, as :func:`~polars_rank.core.grouping.check_by_names` takes
    them."""
    return {query: "query", doc: "doc", score: "score", rank: "rank", relevance: "relevance"}


def to_sql(
    metrics: Sequence[str | MetricSpec] | str,
    dialect: DialectName,
    run: str | None = None,
    qrels: str | None = None,
    *,
    interactions: str | None = None,
    catalog: str | None = None,
    item_features: str | None = None,
    per_query: bool = False,
    by: str | Sequence[str] | None = None,
    qrels_by: str | Sequence[str] | None = None,
    interactions_by: str | Sequence[str] | None = None,
    catalog_by: str | Sequence[str] | None = None,
    item_features_by: str | Sequence[str] | None = None,
    queries: Queries = "qrels",
    relevance_level: float = 1,
    max_rank: int | None = None,
    query: str = "query",
    doc: str = "doc",
    score: str = "score",
    rank: str = "rank",
    relevance: str = "relevance",
    vector: str = "vector",
    features: str = "vectors",
    category: str = "category",
    order_by: OrderBy = "score",
    duplicates: Duplicates = "error",
    layout: Layout = "wide",
    left_out_column: str | None = None,
    duplicates_column: str | None = None,
    pretty: bool = True,
    predictions: str | None = None,
    label: str = "label",
    group: str | Sequence[str] | None = None,
    threshold: float = 0.5,
    weight: str | None = None,
) -> str:
    """One self-contained ``SELECT`` computing ``metrics`` in ``dialect``, with trec_eval's
    numbers (the Polars engine's, within 1e-12).

    The query uses only window functions, joins, ``GROUP BY`` and ``CASE`` — no UDFs, macros,
    arrays or lambdas — so it runs unchanged in a scheduled query, a dbt model or a notebook.
    Every metric value is a DOUBLE. The conventions are :func:`polars_rank.evaluate`'s: score
    descending, ties by doc id descending compared as bytes (integer ids as their decimal
    text), R and IDCG from all judgments, a query missing from the run scoring 0.

    Args:
        metrics: metric names as :func:`polars_rank.evaluate` takes them (``"nDCG@10"``,
            ``"P(rel=2)@5"``, ``"ndcg_cut.10"``, ...) or parsed :class:`MetricSpec` objects.
        dialect: ``"spark"`` (also ``"databricks"``), ``"postgres"``, ``"bigquery"``,
            ``"snowflake"``, ``"trino"``, ``"clickhouse"`` or ``"duckdb"``.
        run, qrels: table (or view) references, ``[catalog.][schema.]table``, e.g.
            ``"catalog.db.run"``, ``"my-project.dataset.run"`` or ``'db."My Runs"'``; each
            part a plain or a quoted identifier (backticks too on Spark, Databricks and
            BigQuery), kept as written (a reserved word quoted). Anything else (a function
            call, a subquery, a ``;``) is refused: to evaluate a query, create a view
            (:func:`~polars_rank.core.identifiers.table_reference`; the same holds for
            ``interactions``, ``catalog`` and ``item_features``). ``qrels`` may be None
            when every metric is a recommender metric that reads no judgments: then every
            user of the run is evaluated.
        interactions: the training history table (``query, doc``, the run's column names)
            for novelty, ARP and APLT (item popularity); its items also join the default
            catalog.
        catalog: the item universe table (a ``doc`` column) for catalog coverage and Gini;
            default: the items of the run and of ``interactions``. Recommended items outside
            it are not counted.
        item_features: the item feature vectors table (``doc`` and the array column
            ``vector``: cosine similarity) for intra-list diversity and serendipity. The SQL
            explodes the arrays with their positions (``UNNEST ... WITH ORDINALITY``,
            ``POSEXPLODE`` on Spark, ``WITH OFFSET`` on BigQuery, ``FLATTEN`` on Snowflake).
            ``features="categories"``: ``doc`` and the ``category`` column, a row per item and
            category (cosine of the multi-hot vectors, or Jaccard with ILD's
            ``similarity=jaccard``); ``features="similarities"``: a similarity table ``doc_a,
            doc_b, similarity`` (either orientation; a missing pair 0, an item with itself 1).
        per_query: ``True``: one row per query (ordered by query) instead of one summary row;
            ``True`` or ``False`` only.
        by: column(s) of the run whose every combination is evaluated independently (named
            by :func:`~polars_rank.core.grouping.check_by_names`' rule: no id, score, rank or
            relevance column, no metric's label or SQL column, case-insensitively), as
            :func:`polars_rank.evaluate`'s ``by``: ranking within (group, query), one row per
            group (the group columns first, ordered by them; with ``per_query`` before the
            query). Rows with a null group are left out (:func:`~polars_rank.check_sql`
            reports them). Ranking, trec_eval, popularity (novelty, ARP, APLT) and corpus
            metrics (coverage, Gini, entropy, user coverage): the popularity, item table,
            catalog and counts are the group's; ILD and serendipity per (group, user).
        qrels_by: the ``by`` columns the qrels table has too: the judgments join each group
            on them; those it lacks share the judgments across groups (``[]``: all shared,
            several systems against one qrels). Required with ``by`` and ``qrels``: the SQL
            cannot see the table, so it does not guess (a ``PolarsRankError`` naming the
            argument); the engines and the dbt package read it from the table.
        interactions_by, catalog_by, item_features_by: the ``by`` columns the
            interactions, the catalog and the item features tables have too (as
            ``qrels_by``): a group sees their rows of its values; the others are shared by
            every group (``[]``: all shared). Required with ``by`` and that table.
        queries, relevance_level, max_rank, order_by: as in :func:`polars_rank.evaluate`
            (``order_by="rank"`` ranks by the run's ``rank`` column).
        query, doc, score, rank, relevance, vector: the tables' column names, any name: a
            plain lower-case name not reserved in ``dialect`` stays unquoted (case folding
            finds columns created unquoted), any other is quoted exactly as given
            (:func:`~polars_rank.core.identifiers.identifier`).
        duplicates: ``"error"``: the query expects one row per ``(query, doc)`` in each table
            and does not check it (the engines check before running it; a repeated pair would
            count twice); ``"max"``: keep the highest score / grade of a repeated pair.
            ``"first"`` is refused: a table has no row order.
        layout: ``"wide"``: one column per metric, named by :func:`column_names` (e.g.
            ``nDCG@10`` → ``ndcg_at_10``); ``"long"``: columns ``measure`` (the label as
            written) and ``value``, a row per metric (and query).
        left_out_column: also output, under this name, the number of run queries that have no
            judgments and were not evaluated (what the engines warn about), a BIGINT on
            every dialect.
        duplicates_column: also output, under this name, the number of run queries with a
            repeated ``(query, doc)`` pair (within a ``by`` group; the rows with a null id,
            score or group left out), a BIGINT: the duplicate check of ``duplicates="error"``
            made by the evaluation itself (``engine="spark"`` reads it). When it is not 0 the
            metrics are meaningless. Needs ``qrels`` and ``duplicates="error"``.
        pretty: indent the SQL.

    The recommender metrics (coverage, entropy, Gini, user coverage, novelty, ARP, APLT, ILD
    and serendipity) have :func:`polars_rank.evaluate`'s numbers and users (the ``queries``
    rule); the corpus ones have one value for the whole run, so they are refused with
    ``per_query``.

    Classification: with ``predictions`` (a table of ``label`` and ``score`` columns,
    instead of ``run`` and ``qrels``), ``metrics`` are classification names (``AUC``,
    ``GAUC``, ``LogLoss``, ``AP``, ``Brier``, ``NE``, ``calibration``, ``F1``, ``TP``, ...),
    ``by`` splits the table into segments, ``group`` names GAUC's groups, ``threshold`` is
    the thresholded metrics' default and ``weight`` a sample-weight column:
    :func:`~polars_rank.compiler.classification.classification_sql`. One family per call;
    curves come from :func:`~polars_rank.compiler.classification.curve_sql`.

    Returns:
        The query text.

    Example:
        >>> print(to_sql(["P@10"], "spark", "db.run", "db.qrels").splitlines()[0])
        WITH pr_run AS (
        >>> "auc" in to_sql(["AUC"], "postgres", predictions="db.preds", label="clicked")
        True
    """
    check_boolean("per_query", per_query)
    if predictions is not None:
        from polars_rank.compiler.classification import classification_sql

        if run is not None or qrels is not None:
            raise PolarsRankError(
                "to_sql takes either run and qrels (ranking and recommender metrics) or "
                "predictions= (classification metrics): one family per call"
            )
        ranking_only = {
            "interactions": (interactions, None),
            "catalog": (catalog, None),
            "item_features": (item_features, None),
            "per_query": (per_query, False),
            "qrels_by": (qrels_by, None),
            "queries": (queries, "qrels"),
            "relevance_level": (relevance_level, 1),
            "max_rank": (max_rank, None),
            "query": (query, "query"),
            "doc": (doc, "doc"),
            "rank": (rank, "rank"),
            "relevance": (relevance, "relevance"),
            "vector": (vector, "vector"),
            "features": (features, "vectors"),
            "category": (category, "category"),
            "order_by": (order_by, "score"),
            "duplicates": (duplicates, "error"),
            "layout": (layout, "wide"),
            "left_out_column": (left_out_column, None),
            "duplicates_column": (duplicates_column, None),
        }
        changed = [name for name, (value, default) in ranking_only.items() if value != default]
        if changed:
            raise PolarsRankError(
                f"to_sql with predictions= (classification) does not take {changed[0]}= "
                "(an option of the ranking and recommender metrics)"
            )
        return classification_sql(
            metrics,
            dialect,
            predictions,
            label=label,
            score=score,
            by=by,
            group=group,
            threshold=threshold,
            weight=weight,
            pretty=pretty,
        )
    if run is None:
        raise PolarsRankError(
            "to_sql needs run (and qrels) for ranking and recommender metrics, or "
            "predictions= for classification metrics"
        )
    if group is not None or weight is not None or label != "label" or threshold != 0.5:
        raise PolarsRankError(
            "label=, group=, threshold= and weight= go with predictions= (classification)"
        )
    options = Options.from_arguments(
        query=query,
        doc=doc,
        score=score,
        rank=rank,
        relevance=relevance,
        queries=queries,
        relevance_level=relevance_level,
        order_by=order_by,
        max_rank=max_rank,
        duplicates=duplicates,
    )
    return compile_query(
        metrics,
        dialect,
        options,
        run,
        qrels,
        interactions=interactions,
        catalog=catalog,
        item_features=item_features,
        per_query=per_query,
        by=by,
        qrels_by=qrels_by,
        interactions_by=interactions_by,
        catalog_by=catalog_by,
        item_features_by=item_features_by,
        vector=vector,
        features=features,
        category=category,
        layout=layout,
        left_out_column=left_out_column,
        duplicates_column=duplicates_column,
        pretty=pretty,
    )


def compile_query(
    metrics: Sequence[str | MetricSpec] | str,
    dialect: str,
    options: Options,
    run: str,
    qrels: str | None,
    *,
    interactions: str | None = None,
    catalog: str | None = None,
    item_features: str | None = None,
    per_query: bool = False,
    by: str | Sequence[str] | None = None,
    qrels_by: str | Sequence[str] | None = None,
    interactions_by: str | Sequence[str] | None = None,
    catalog_by: str | Sequence[str] | None = None,
    item_features_by: str | Sequence[str] | None = None,
    vector: str = "vector",
    features: str = "vectors",
    category: str = "category",
    layout: Layout = "wide",
    left_out_column: str | None = None,
    duplicates_column: str | None = None,
    pretty: bool = True,
) -> str:
    """:func:`to_sql` for ranking and recommender metrics, the evaluation options as one
    :class:`~polars_rank.core.options.Options`: the engines' entry point (they pass theirs,
    resolved or not); ``to_sql``'s keywords are the public face that builds one. The column
    names, query set, relevance level, ordering (None: ``"score"``), cut-off depth and
    duplicates policy are read from ``options`` (``duplicates="first"`` is refused: a table
    has no row order); its ``validate`` and ``grade_limit`` are the engines' business and do
    not change the SQL. The other arguments are ``to_sql``'s."""
    cols = options.columns
    query, doc, score, rank, relevance = (
        cols.query,
        cols.doc,
        cols.score,
        cols.rank,
        cols.relevance,
    )
    specs = _specs(metrics)
    by_columns, shared = by_list(by), by_list(qrels_by, "qrels_by")
    _check_by(specs, by_columns, shared, qrels, roles_of(query, doc, score, rank, relevance))
    require_input_by(
        by_columns,
        {
            "qrels_by": (qrels, qrels_by),
            "interactions_by": (interactions, interactions_by),
            "catalog_by": (catalog, catalog_by),
            "item_features_by": (item_features, item_features_by),
        },
    )
    input_by = {
        "interactions_by": by_list(interactions_by, "interactions_by"),
        "catalog_by": by_list(catalog_by, "catalog_by"),
        "item_features_by": by_list(item_features_by, "item_features_by"),
    }
    for name, listed in input_by.items():
        outside = [c for c in listed if c not in by_columns]
        if outside:
            raise PolarsRankError(
                f"{name} column {outside[0]!r} is not one of the by columns {by_columns}"
            )
    options = options.unordered("SQL tables")
    if options.order_by is None:
        options = dataclasses.replace(options, order_by="score")
    rules = get_dialect(dialect)
    if layout not in LAYOUTS:
        raise messages.bad_choice("layout", layout, LAYOUTS)
    given = {
        name
        for name, value in (
            ("interactions", interactions),
            ("catalog", catalog),
            ("item_features", item_features),
        )
        if value is not None
    }
    if item_features is None:
        for spec in specs:
            if "item_features" in spec.entry.inputs:  # a table of features of some kind
                shown = option("item_features", GivenTable())
                raise PolarsRankError(
                    f"metric {spec.label!r} needs {shown} (feature vectors: doc and an array "
                    "column; or categories or a similarity table, with features=)"
                )
    if features not in FEATURE_KINDS:
        raise messages.bad_choice("features", features, FEATURE_KINDS)
    check_request(
        specs,
        per_query=per_query,
        has_qrels=qrels is not None,
        given=given,
        feature_kind=features,
        shown=GivenTable(),
    )
    if not isinstance(category, str) or not category:
        raise PolarsRankError(
            f"the category column name must be a non-empty string, got {category!r}"
        )
    if not isinstance(vector, str) or not vector:
        raise PolarsRankError(f"the vector column name must be a non-empty string, got {vector!r}")
    tables = {
        placeholder: (what, table_reference(value, what, dialect))
        for placeholder, what, value in (
            (ph.RUN, "run", run),
            (ph.QRELS, "qrels", qrels),
            (INTERACTIONS, "interactions", interactions),
            (CATALOG, "catalog", catalog),
            (FEATURES, "item_features", item_features),
        )
        if value is not None or placeholder == ph.RUN
    }
    if left_out_column is not None and (
        not isinstance(left_out_column, str) or not left_out_column
    ):
        raise PolarsRankError(
            f"left_out_column must be a non-empty string, got {left_out_column!r}"
        )
    if duplicates_column is not None:
        if not isinstance(duplicates_column, str) or not duplicates_column:
            raise PolarsRankError(
                f"duplicates_column must be a non-empty string, got {duplicates_column!r}"
            )
        if qrels is None or options.duplicates != "error":
            raise PolarsRankError(
                "duplicates_column counts repeated run pairs: it needs qrels and duplicates='error'"
            )
    reserved = [*by_columns, query] + ([left_out_column] if left_out_column else [])
    reserved += [duplicates_column] if duplicates_column else []
    if layout == "long":
        reserved += list(LONG_COLUMNS)
    if len({name.lower() for name in reserved}) < len(reserved):
        raise PolarsRankError(
            f"the output columns {reserved} must differ (case-insensitively): the query column "
            f"({messages.option('query', query)}) clashes with a column the query adds"
        )
    out = column_names(specs, reserved=reserved)
    internal = [f"pr_m{n}" for n in range(1, len(specs) + 1)]
    text = plan.query_text(
        specs,
        internal,
        options,
        per_query=per_query,
        layout=layout,
        left_out=left_out_column is not None,
        duplicates_out=duplicates_column is not None,
        has_qrels=qrels is not None,
        has_catalog=catalog is not None,
        has_interactions=interactions is not None,
        feature_kind=features,
        by_count=len(by_columns),
        shared=[by_columns.index(c) for c in shared],
        interactions_shared=[by_columns.index(c) for c in input_by["interactions_by"]],
        catalog_shared=[by_columns.index(c) for c in input_by["catalog_by"]],
        features_shared=[by_columns.index(c) for c in input_by["item_features_by"]],
    )
    cols = options.columns
    if not rules.column_names_may_hold_dots:
        _check_dotless_names(
            {
                "query": cols.query,
                "doc": cols.doc,
                str(options.order_by): options.order_column,
                "relevance": cols.relevance,
                "vector": vector,
                "left_out_column": left_out_column or "",
                **{f"by column {c!r}": c for c in by_columns},
            },
            rules,
        )
    names = {
        ph.QUERY: cols.query,
        ph.DOC: cols.doc,
        ph.ORDER: options.order_column,
        ph.RELEVANCE: cols.relevance,
        ph.QUERY_OUT: cols.query,
        VECTOR: vector,
        CATEGORY: category,
        DOC_A: "doc_a",
        DOC_B: "doc_b",
        SIMILARITY: "similarity",
    }
    names.update({plan.by_placeholder(i): c for i, c in enumerate(by_columns)})
    names.update(zip(internal, out.values(), strict=True))
    names.update(zip((ph.MEASURE_OUT, ph.VALUE_OUT), LONG_COLUMNS, strict=True))
    if left_out_column is not None:
        names[ph.LEFT_OUT_OUT] = left_out_column
    if duplicates_column is not None:
        names[ph.DUPLICATES_OUT] = duplicates_column
    return render(text, dialect, tables, names, doc_key=ph.DOC_KEY, pretty=pretty)
