"""``evaluate``: a run against judgments, many metrics, one engine call; ``evaluate_runs``:
several runs into one frame with a ``run`` column."""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any, Unpack, get_args, overload

import polars as pl

from polars_rank.catalog.names import MetricNames, MetricSpec, parse_metrics
from polars_rank.compiler.policy import policy_by
from polars_rank.core import messages
from polars_rank.core.columns import RESERVED
from polars_rank.core.conventions import OrderBy
from polars_rank.core.errors import CallSite, PolarsRankError, bad_choice, check_boolean
from polars_rank.core.frames import Frame, as_polars
from polars_rank.core.grouping import by_list
from polars_rank.core.options import Duplicates, GradeLimit, Options, Queries
from polars_rank.core.types import (
    CatalogInput,
    Connection,
    EngineName,
    EvaluateOptions,
    FrameLike,
    TableInput,
)
from polars_rank.engines import registry
from polars_rank.engines.request import ClassificationRequest, FusionRequest, Request
from polars_rank.policy.bootstrap import bootstrap_options
from polars_rank.ranking import fusion

Engine = EngineName


def grade_limit(specs: list[MetricSpec]) -> GradeLimit | None:
    """The smallest ``max_grade`` among the requested metrics (ERR's), with its metric."""
    limits = [
        (float(s.arguments()["max_grade"]), s.label) for s in specs if "max_grade" in s.entry.param
    ]
    return GradeLimit(*min(limits)) if limits else None


def evaluate(
    run: TableInput,
    qrels: TableInput | None,
    metrics: MetricNames,
    *,
    interactions: TableInput | None = None,
    item_features: TableInput | None = None,
    catalog: CatalogInput | None = None,
    per_query: bool = False,
    by: str | Sequence[str] | None = None,
    engine: Engine = "polars",
    queries: Queries = "qrels",
    relevance_level: float = 1,
    query: str = "query",
    doc: str = "doc",
    score: str = "score",
    rank: str = "rank",
    relevance: str = "relevance",
    order_by: OrderBy | None = None,
    max_rank: int | None = None,
    duplicates: Duplicates = "error",
    validate: bool = True,
    con: Connection | None = None,
) -> pl.DataFrame | pl.LazyFrame:
    """Evaluate a run against judgments.

    Args:
        run: ``query, doc, score`` (and/or ``rank``): a DataFrame or LazyFrame, or a pandas
            DataFrame or pyarrow Table (converted with ``pl.from_pandas`` / ``pl.from_arrow``;
            the DuckDB engine also takes relations, table names and Parquet paths; the Spark
            engine Spark DataFrames and table names).
        qrels: ``query, doc, relevance``; None to evaluate only recommender metrics that do
            not read judgments, over every user of the run.
        metrics: names such as ``["nDCG@10", "RR@10", "AP", "P(rel=2)@5", "ndcg_cut.10"]``
            (see the docs' metric reference), and the recommender metrics such as
            ``["coverage@10", "novelty@10", "ild@10", "serendipity@10"]``.
        interactions: the training history ``query, doc`` (item popularity, novelty, the long
            tail, serendipity's history), for the recommender metrics that need it.
        item_features: item vectors (``doc`` and a list/array column), categories (``doc`` and
            one other column, one row per item and category) or a similarity table
            (``doc_a, doc_b, similarity``), for diversity and serendipity.
        catalog: the item universe (a frame with the ``doc`` column, or a Series) for coverage
            and Gini; default: the items of the interactions and of the run. Recommended items
            outside it are not counted (a warning says how many).
        per_query: ``True``: one row per query (sorted by query) instead of one summary row;
            ``True`` or ``False`` only (a truthy ``"no"`` is an error). Corpus-level
            metrics (coverage, entropy, Gini, user coverage) have no per-query value: asking
            for them per query is an error.
        by: column(s) of the run whose every combination (a system, a date, a market) is
            evaluated independently, in one pass: ranking and ties within (group, query),
            one summary row per group (sorted, the ``by`` columns first), or with
            ``per_query=True`` the ``by`` columns before ``query``. A ``by`` column the
            judgments have too joins them on it; one they lack shares them across groups.
            ``queries`` applies within each group; a group none of whose queries counts
            gets null means and 0 counts. A null in a ``by`` column is an error naming it;
            so is a ``by`` column that is the query, doc, score, rank or relevance column,
            on every engine and in :func:`evaluate_runs` too.
            Ranking and trec_eval metrics (see :mod:`polars_rank.core.grouping`), and
            recommender metrics: interactions, catalog and item features join the groups
            as the judgments do, each group's numbers are ``evaluate`` on its rows alone,
            every group in one plan (Polars) or one query (DuckDB, Spark: the SQL of
            ``to_sql(..., by=)``). See docs/guides/by.md.
        engine: ``"polars"`` (lazy in, lazy out), ``"duckdb"`` (one SQL query) or
            ``"spark"`` (the portable SQL of :func:`polars_rank.to_sql`, run by Spark; needs
            pyspark; every input a Spark DataFrame, a table name or a Polars frame).
        queries: ``"qrels"`` (default; every query with judgments counts, a query missing from
            the run scores 0, as trec_eval ``-c``, ir_measures and MS MARCO) or ``"both"``
            (only queries in both the run and the qrels, as trec_eval without ``-c``,
            pytrec_eval and BEIR). Run queries without judgments are never evaluated; a warning
            says how many were left out.
        relevance_level: grades ``>=`` this are relevant (trec_eval ``-l``); a metric's own
            ``(rel=N)`` wins.
        order_by, max_rank, duplicates, validate: see :func:`polars_rank.judge`.
        con: a DuckDB connection for ``engine="duckdb"`` (the package's in-memory database by
            default; each call works on a cursor of its own and leaves it as it was: see
            :func:`polars_rank.duckdb.session`; table names are refused while it has an open
            transaction), or the SparkSession for ``engine="spark"``
            (by default the DataFrames' or the active one).

    The recommender metrics see the same users as the ranking metrics (the ``queries`` rule:
    a judged user without recommendations has null per-user values and counts as uncovered);
    without qrels, every user of the run.

    Returns:
        One row with one column per metric, named as written (mean over queries; counts such
        as ``NumRet`` are summed and ``gm_map`` is a geometric mean, as in trec_eval), or with
        ``per_query=True`` a ``query`` column plus one column per metric.

    Example:
        >>> import polars as pl, polars_rank as pr
        >>> run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
        >>> qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
        >>> pr.evaluate(run, qrels, ["RR", "P@1"]).rows()
        [(0.5, 0.0)]
    """
    return _evaluate(
        run,
        qrels,
        metrics,
        per_query=per_query,
        by=by,
        engine=engine,
        queries=queries,
        relevance_level=relevance_level,
        query=query,
        doc=doc,
        score=score,
        rank=rank,
        relevance=relevance,
        order_by=order_by,
        max_rank=max_rank,
        duplicates=duplicates,
        validate=validate,
        con=con,
        interactions=interactions,
        item_features=item_features,
        catalog=catalog,
    )


def _evaluate(
    run: TableInput,
    qrels: TableInput | None,
    metrics: MetricNames,
    *,
    per_query: bool,
    engine: Engine,
    query: str,
    doc: str,
    score: str,
    rank: str,
    relevance: str,
    con: Connection | None,
    interactions: TableInput | None = None,
    item_features: TableInput | None = None,
    catalog: CatalogInput | None = None,
    run_name: str | None = None,
    by: str | Sequence[str] | None = None,
    run_names: Sequence[str] | None = None,
    **settings: object,
) -> pl.DataFrame | pl.LazyFrame:
    """:func:`evaluate`, with the run's name for the warning about left-out queries (which
    points at the user's call, found here, whenever the evaluation runs)."""
    site = CallSite.here()
    warn = partial(messages.warn_left_out, where=site, run=run_name)
    check_boolean("per_query", per_query)
    run, qrels = as_polars(run, "run"), as_polars(qrels, "qrels")
    specs = parse_metrics(metrics)
    options = Options.from_arguments(
        query=query,
        doc=doc,
        score=score,
        rank=rank,
        relevance=relevance,
        grade_limit=grade_limit(specs),
        **settings,
    )
    backend = registry.engine(engine)
    for spec in specs:
        if spec.label == query or spec.label in RESERVED:
            raise PolarsRankError(f"metric name {spec.label!r} clashes with a column name")
        if spec.summary == "none" and not per_query:
            raise PolarsRankError(
                f"metric {spec.label!r} has one value per query and no summary over queries "
                "(pass per_query=True; on the command line, --per-query)"
            )
        if spec.entry.table == "judged":
            spec.expr()  # checks the parameters (gain tables, lists) the same way for every engine
    request = Request(
        run,
        qrels,
        specs,
        options,
        per_query,
        by=by_list(by),
        recommender={
            "interactions": interactions,
            "item_features": item_features,
            "catalog": catalog,
        },
        con=con,
        warn=warn,
        run_names=run_names,
        site=site,
    )
    if not request.by:
        return backend.evaluate(request)
    if request.recommends:
        return backend.evaluate_recommender_by(request)
    if qrels is None:
        raise PolarsRankError("by: evaluating groups needs qrels")
    return backend.evaluate_by(request)


def evaluate_runs(
    runs: Mapping[str, TableInput] | Iterable[tuple[str, TableInput]],
    qrels: TableInput | None,
    metrics: MetricNames,
    *,
    per_query: bool = False,
    run_column: str = "run",
    **options: Unpack[EvaluateOptions],
) -> pl.DataFrame:
    """Evaluate several runs against the same judgments: one frame, a leading ``run`` column.

    ``runs`` maps a run name to its frame (or is an iterable of ``(name, frame)`` pairs).
    Polars frames with the same columns, evaluated on ranking metrics, are stacked into one
    table with the run's name as a group column and evaluated in one call
    (``evaluate(..., by=[run_column, *by])``, ranking and recommender metrics alike);
    other runs (DuckDB or Spark tables, runs of different columns) go one at a time through
    :func:`evaluate`.
    The rows come in the order of ``runs`` (per query: sorted by query within each run).
    Empty runs and the warning about queries without judgments name the run.

    >>> import polars as pl, polars_rank as pr
    >>> qrels = pl.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]})
    >>> runs = {name: pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": s})
    ...         for name, s in [("good", [1.0, 2.0]), ("bad", [2.0, 1.0])]}
    >>> pr.evaluate_runs(runs, qrels, ["RR"]).rows()
    [('good', 1.0), ('bad', 0.5)]
    """
    pairs = _run_pairs(runs)
    arguments = dict(_EVALUATE_DEFAULTS, **options)
    unknown = set(arguments) - set(_EVALUATE_DEFAULTS)
    if unknown:
        raise TypeError(f"evaluate_runs() got unexpected keyword argument(s) {sorted(unknown)}")
    # metric names and options are checked once, before any run is read
    check_boolean("per_query", per_query)
    parse_metrics(metrics)
    Options.from_arguments(**{k: v for k, v in arguments.items() if k not in _NOT_OPTIONS})
    listed = [(name, as_polars(frame, "run")) for name, frame in pairs]
    if not listed:
        raise PolarsRankError("no runs given")
    if all(isinstance(f, pl.DataFrame | pl.LazyFrame) for _, f in listed):
        stacked = _stacked_runs(listed, qrels, metrics, per_query, run_column, arguments)
        if stacked is not None:
            return stacked
    # tables Polars does not read (DuckDB or Spark names, Spark DataFrames), or runs that
    # differ in their columns (one scored, one ranked): one evaluation each
    frames = []
    for name, frame in listed:
        try:
            result = _evaluate(
                frame, qrels, metrics, per_query=per_query, run_name=str(name), **arguments
            )
            if isinstance(result, pl.LazyFrame):
                result = result.collect()
        except PolarsRankError as err:
            raise PolarsRankError(f"evaluating run {str(name)!r}: {err}") from None
        frames.append(result.select(pl.lit(name).alias(run_column), pl.all()))
    return pl.concat(frames, how="vertical_relaxed")


def _stacked_runs(
    runs: list[tuple[Any, Any]],
    qrels: TableInput | None,
    metrics: MetricNames,
    per_query: bool,
    run_column: str,
    arguments: dict[str, Any],
) -> pl.DataFrame | None:
    """:func:`evaluate_runs` of Polars frames: one table, the run's name in a
    ``run_column`` column (an Enum of the names in the order of ``runs``, so that the rows
    keep that order and messages show the name), evaluated with ``by=[run_column, *by]`` in
    one call; the names are then given back as they were. None when the runs do not have
    the same columns (a scored and a ranked run) or two share a name."""
    from polars_rank.core.frames import to_lazy

    by = by_list(arguments.get("by"))
    if run_column in by:
        raise PolarsRankError(f"by column {run_column!r} is the run column")
    wanted = [arguments[k] for k in ("query", "doc", "score", "rank")]
    labels = [str(name) for name, _ in runs]
    if len(set(labels)) < len(labels):
        return None
    enum = pl.Enum(labels)
    parts: list[pl.LazyFrame] = []
    for label, (name, frame) in zip(labels, runs, strict=True):
        lazy = to_lazy(frame, "run")
        names = lazy.collect_schema().names()
        missing = [c for c in by if c not in names]
        if missing:
            raise PolarsRankError(
                f"by column {missing[0]!r} is not a column of run {str(name)!r}; its columns "
                f"are {names}"
            )
        if run_column in names and run_column not in wanted:
            lazy = lazy.drop(run_column)
            names.remove(run_column)
        # a by column that is an input column is kept once; evaluate refuses it by name
        keep = [c for c in dict.fromkeys([*wanted, *by]) if c in names]
        if parts and keep != parts[0].collect_schema().names()[1:]:
            return None
        parts.append(lazy.select(pl.lit(label, enum).alias(run_column), *keep))
    stacked = pl.concat(parts, how="diagonal_relaxed")
    settings = dict(arguments, by=[run_column, *by])
    result = _evaluate(stacked, qrels, metrics, per_query=per_query, run_names=labels, **settings)
    if isinstance(result, pl.LazyFrame):
        result = result.collect()
    run_names = pl.Series(run_column, [name for name, _ in runs])
    return result.with_columns(run_names.gather(result[run_column].to_physical()))


def _is_frame(obj: Any) -> bool:
    """Whether ``obj`` is a table (Polars, pandas, pyarrow, ...) rather than a name."""
    return isinstance(obj, pl.DataFrame | pl.LazyFrame | pl.Series) or any(
        hasattr(obj, attribute) for attribute in ("__arrow_c_stream__", "__dataframe__")
    )


def _run_pairs(runs: Any) -> Iterator[tuple[Any, Any]]:
    """``(name, run)`` of each run of :func:`evaluate_runs`, checked as they come (runs may be
    read one at a time): a mapping's items, or the pairs of an iterable."""
    expected = "runs must map run names to runs ({'bm25': run}) or be (name, run) pairs"
    if isinstance(runs, Mapping):
        yield from runs.items()
        return
    if _is_frame(runs) or isinstance(runs, str) or not isinstance(runs, Iterable):
        raise PolarsRankError(
            f"{expected}, got a {type(runs).__name__} (one run: pr.evaluate, or {{'name': run}})"
        )
    for position, item in enumerate(runs):
        if _is_frame(item) or not isinstance(item, tuple | list) or len(item) != 2:
            raise PolarsRankError(
                f"{expected}; item {position} is a {type(item).__name__}, not a (name, run) "
                "pair (give runs names: {'bm25': run, ...} or [('bm25', run), ...])"
            )
        if _is_frame(item[0]):
            raise PolarsRankError(
                f"{expected}; item {position} is a pair of tables, not (name, run)"
            )
        yield item[0], item[1]


#: The options of :func:`evaluate` besides its inputs, metrics and ``per_query``, with their
#: defaults (what :func:`evaluate_runs` passes on).
_EVALUATE_DEFAULTS: dict[str, Any] = {
    name: parameter.default
    for name, parameter in inspect.signature(evaluate).parameters.items()
    if parameter.kind is inspect.Parameter.KEYWORD_ONLY and name != "per_query"
}


#: The arguments of :func:`evaluate` that are not :class:`Options`.
_NOT_OPTIONS = ("engine", "con", "interactions", "item_features", "catalog", "by")


def evaluate_classification(
    data: TableInput,
    metrics: MetricNames,
    *,
    label: str = "label",
    score: str = "score",
    by: str | Iterable[str] | None = None,
    group: str | Iterable[str] | None = None,
    threshold: float = 0.5,
    weight: str | None = None,
    engine: Engine = "polars",
    con: Any = None,
    validate: bool = True,
) -> pl.DataFrame:
    """Evaluate a binary classifier's (or click model's) scores against 0/1 labels.

    Args:
        data: a table with the ``label`` and ``score`` columns: a Polars DataFrame or
            LazyFrame, a pandas DataFrame or a pyarrow Table; with ``engine="duckdb"`` also a
            DuckDB relation, a table or view name on ``con`` (a table reference only, read as
            :func:`evaluate` reads one) or a ``.parquet`` path; with ``engine="spark"`` a
            Spark DataFrame or a table name.
        metrics: classification metric names (``polars-rank metrics --family classification``
            lists them): ``AUC`` (``roc_auc``), ``GAUC``, ``LogLoss``, ``AP``, ``Brier``, ``NE``
            (normalized entropy), ``calibration``, ``accuracy``,
            ``precision``, ``recall``, ``F1``, ``Fbeta(beta=2)``, ``specificity``, ``TP``,
            ``FP``, ``TN``, ``FN``; a thresholded metric may set its own threshold,
            ``F1(threshold=0.3)``, and ``zero_division`` (0, 1 or nan).
        label: the 0/1 (or boolean) label column. score: the score column (probabilities
            for ``LogLoss``).
        by: column(s) whose values split the table: one row per segment, sorted (nulls first).
        group: column(s) naming GAUC's groups (e.g. the user): GAUC averages the groups' AUC,
            each weighted by its rows, over the groups with both classes.
        threshold: thresholded metrics predict positive when ``score >= threshold``, unless
            the name sets its own.
        weight: a sample-weight column (scikit-learn's ``sample_weight``): counts become
            sums of weights, every mean and pair weighs by it, GAUC's groups weigh their
            total weight; rows with a null weight are skipped, negative weights refused.
        engine: ``"polars"`` (one lazy plan), ``"duckdb"`` (the ``cls_*`` macros of
            ``sql/classification.sql``, on ``con`` or the package's in-memory database; with
            ``weight``, the compiled SQL of :func:`~polars_rank.to_sql`) or ``"spark"``
            (``data`` a Spark DataFrame or a table name, ``con`` the SparkSession: the
            compiled SQL runs in Spark, only the result rows come back;
            :mod:`polars_rank.engines.spark.classification`).
        validate: check the input first (labels, NaN scores, probabilities, weights); on
            Spark one aggregation job (:func:`~polars_rank.check_sql`'s query).

    Returns:
        A DataFrame: the ``by`` columns, then one column per metric named as written. An
        undefined value (AUC of one class, AP without positives) is null, never NaN.

    Example:
        >>> import polars as pl, polars_rank as pr
        >>> data = pl.DataFrame({"label": [0, 1, 0, 1], "score": [0.1, 0.4, 0.4, 0.8]})
        >>> pr.evaluate_classification(data, ["AUC", "F1(threshold=0.4)", "TP"]).rows()
        [(0.875, 0.8, 1)]
    """
    from polars_rank.catalog.model import TARGETS

    specs = parse_metrics(metrics, scope="classification")
    backend = registry.find(engine)
    if backend is None:
        refused = [s for s in specs if engine in TARGETS and s.entry.reason(str(engine))]
        why = f"; {refused[0].label}: {refused[0].entry.reason(str(engine))}" if refused else ""
        *rest, last = [repr(name) for name in registry.names()]
        raise PolarsRankError(
            f"engine {engine!r}: evaluate_classification runs on {', '.join(rest)} or {last} "
            f"(for SQL, pr.to_sql(..., predictions=...)){why}"
        )
    request = ClassificationRequest(
        data,
        specs,
        label=label,
        score=score,
        by=_column_list(by),
        group=_column_list(group),
        threshold=threshold,
        weight=weight,
        con=con,
        validate=validate,
    )
    return backend.evaluate_classification(request)


def _column_list(columns: str | Iterable[str] | None) -> list[str]:
    if columns is None:
        return []
    return [columns] if isinstance(columns, str) else list(columns)


def evaluate_ratings(
    ratings: TableInput,
    predictions: TableInput,
    metrics: MetricNames,
    *,
    user: str = "user",
    item: str = "item",
    rating: str = "rating",
    prediction: str = "prediction",
    by: str | Iterable[str] | None = None,
    weight: str | None = None,
    engine: Engine = "polars",
    con: Any = None,
) -> pl.DataFrame:
    """Evaluate predicted ratings against true ratings: RMSE, MAE, R², ... of (user, item)
    pairs, as MS Recommenders' ``rmse``, ``mae``, ``rsquared``, ``exp_var`` and
    scikit-learn's regression metrics.

    A separate entry point, beside :func:`evaluate` and :func:`evaluate_classification`:
    its input is two tables joined on (user, item), a truth and a prediction per pair, not
    a ranking (a run and its judgments) nor one table of labels and scores.

    Args:
        ratings: ``user, item, rating`` (and the ``by`` and ``weight`` columns): a Polars
            DataFrame or LazyFrame, a pandas DataFrame or a pyarrow Table (with
            ``engine="duckdb"`` or ``"spark"`` also what :func:`evaluate` reads there: a
            DuckDB relation or table name; a Spark DataFrame or table name).
        predictions: ``user, item, prediction``.
        metrics: rating metric names (``polars-rank metrics --family rating`` lists them):
            ``RMSE`` (``rmse``, ``root_mean_squared_error``), ``MSE``, ``MAE``, ``R2``
            (``rsquared``, ``r2_score``), ``explained_variance`` (``exp_var``,
            ``explained_variance_score``), ``max_error``, ``MAPE``
            (``mean_absolute_percentage_error``: a fraction, |rating| floored at 2⁻⁵²).
        user, item: the columns both tables join on. rating, prediction: the values.
        by: column(s) of the ratings table whose values split it: one row per segment,
            sorted (nulls first); a segment none of whose ratings has a prediction gets
            null values.
        weight: a sample-weight column of the ratings table (scikit-learn's
            ``sample_weight``): every mean weighs by it (R²'s mean rating too); rows with a
            null weight are skipped, negative, NaN or infinite weights refused; ``max_error``
            takes none (refused by name).
        engine: ``"polars"`` (one lazy plan), ``"duckdb"`` or ``"spark"`` (``con`` the
            SparkSession; the inputs also Spark DataFrames or table names of the session,
            checked there and never collected to the driver): both run the one query of
            :func:`polars_rank.rating_sql`, which prints it for every dialect.

    Conventions: only the pairs in both tables count (MS Recommenders' inner join); one
    warning counts the ratings without a prediction and the predictions without a rating.
    A (user, item) pair twice in either table, a NULL user or item, a NULL or NaN rating or
    prediction are errors naming the table and the column. R² and explained variance follow
    scikit-learn's ``force_finite``: 1 when the errors (their variance) are 0, else 0 when
    the ratings do not vary. No pair left (or a total weight of 0) gives null values; R² of
    one pair is null (scikit-learn's NaN).

    Returns:
        A DataFrame: the ``by`` columns, then one Float64 column per metric named as written.

    Example:
        >>> import polars as pl, polars_rank as pr
        >>> ratings = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"],
        ...                         "rating": [4.0, 2.0, 5.0]})
        >>> predictions = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"],
        ...                             "prediction": [3.0, 2.0, 5.0]})
        >>> pr.evaluate_ratings(ratings, predictions, ["MSE", "MAE", "R2"]).rows()
        [(0.3333333333333333, 0.3333333333333333, 0.7857142857142857)]
    """
    from polars_rank.compiler.rating import rating_specs
    from polars_rank.engines.request import RatingRequest

    if weight is not None and (not isinstance(weight, str) or not weight):
        raise PolarsRankError(f"weight must be a column name or None, got {weight!r}")
    for what, value in (
        ("user", user),
        ("item", item),
        ("rating", rating),
        ("prediction", prediction),
    ):
        if not isinstance(value, str) or not value:
            raise PolarsRankError(f"{what} must be a column name, got {value!r}")
    specs = rating_specs(metrics, weight)
    request = RatingRequest(
        ratings,
        predictions,
        specs,
        user=user,
        item=item,
        rating=rating,
        prediction=prediction,
        by=_column_list(by),
        weight=weight,
        con=con,
        site=CallSite.here(),
    )
    return registry.engine(engine).evaluate_ratings(request)


def evaluate_diversity(
    run: FrameLike,
    qrels: FrameLike,
    metrics: str | Sequence[str] = ("alpha_ndcg@20", "err_ia@20", "nrbp"),
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
    relevance_level: float = 1,
    per_query: bool = False,
    queries: Queries = "qrels",
    engine: EngineName = "polars",
    query: str = "query",
    doc: str = "doc",
    score: str = "score",
    subtopic: str = "subtopic",
    relevance: str = "relevance",
    by: str | Iterable[str] | None = None,
) -> pl.DataFrame:
    """Diversity by intent, ndeval's metrics (TREC Web 2009–2012): ``alpha_ndcg@k``,
    ``alpha_dcg@k``, ``err_ia@k``, ``nerr_ia@k``, ``nrbp``, ``nnrbp``, ``p_ia@k``,
    ``subtopic_recall@k`` (ndeval's spellings ``alpha-nDCG@20``, ``ERR-IA@20``, ``strec@20``
    too), one Float64 column each, labelled as written.

    Conventions (ndeval's, checked against ``pyndeval`` to 1e-9):

    * the run is ranked by score descending, ties by doc id descending (trec_eval's order;
      ndeval breaks ties by doc id *ascending*: runs with tied scores may differ);
    * a judgment is relevant when ``relevance ≥ relevance_level`` (binary, grades above
      count as 1); a query's ``N`` subtopics are those with a relevant document — a
      subtopic with none is not counted;
    * uniform intents, ``alpha`` the chance a relevant document satisfies its intent,
      ``beta`` NRBP's patience; formulas in :mod:`polars_rank.diversity.metrics`;
    * the normalised metrics divide by the greedy ideal ranking (each rank takes the
      document of largest gain, ties to the largest doc id);
    * ``queries`` as :func:`polars_rank.evaluate`: ``"qrels"`` (default) evaluates every
      query with judgments, one missing from the run scoring 0 (ir_measures' mean);
      ``"both"`` only the queries of the run that have judgments (pyndeval's queries, and
      trec_eval's without ``-c``). Run queries without judgments are never evaluated; a
      query with judgments but no relevant document scores 0 on every metric, nNRBP
      included (ndeval: NaN). The result is their mean, or one row per query with
      ``per_query``; no query to evaluate gives nulls (zero rows with ``per_query``).

    ``by``: column(s) of the run (e.g. ``"system"``) whose values split it: one row per
    segment of the run (sorted), or per segment and query with ``per_query``, in one plan. Judgments
    with a ``by`` column belong to that segment (joined on it); those without are shared by
    every segment (the engines' rule for ``evaluate``).

    Runs on the Polars engine only (``engine="polars"``): DuckDB and Spark refuse by name,
    the greedy ideal ranking not being compiled to SQL.

    >>> run = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame(
    ...     {"query": ["q"] * 3, "subtopic": ["1", "2", "2"], "doc": ["b", "a", "b"],
    ...      "relevance": [1, 1, 1]}
    ... )
    >>> evaluate_diversity(run, qrels, ["alpha_ndcg@5", "subtopic_recall@1"]).rows()
    [(0.8406064155285841, 0.5)]
    """
    from polars_rank.engines.diversity_inputs import checked_inputs

    plan = registry.engine(engine).diversity_plan()
    specs = parse_metrics(metrics, scope="diversity")
    if queries not in get_args(Queries):
        raise bad_choice("queries", queries, get_args(Queries))
    for name, value, top in (("alpha", alpha, 1.0), ("beta", beta, 1.0)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise PolarsRankError(f"{name} must be a number, got {value!r}")
        if not 0.0 <= value < top:
            raise PolarsRankError(f"{name} must be in [0, 1), got {value!r}")
    columns = {
        "query": query,
        "doc": doc,
        "score": score,
        "subtopic": subtopic,
        "relevance": relevance,
    }
    segments = by_list(by)
    labels = [m.label for m in specs]
    for column in segments:
        if column in (query, doc, score, subtopic, relevance) or column in labels:
            raise PolarsRankError(
                f"by column {column!r} is one of the run's, the qrels' or the output's columns"
            )
    if len(set(segments)) < len(segments):
        raise PolarsRankError(f"by names a column twice: {segments}")
    ranked, relevant, evaluated = checked_inputs(
        run, qrels, columns, relevance_level, queries, segments
    )
    formulas = [
        (s.label, s.entry.polars(**s.arguments(), alpha=float(alpha), beta=float(beta)))
        for s in specs
    ]
    values = plan(ranked, relevant, evaluated, formulas, float(alpha))
    if segments:
        keys = [f"__pr_by_{i}" for i in range(len(segments))]
        values = values.unnest("query").rename(dict(zip(keys, segments, strict=True)))
        values = values.sort([*segments, "query"])
    if check_boolean("per_query", per_query):
        return values.rename({"query": query}) if query not in values.columns[1:] else values
    if segments:
        means = values.group_by(segments).agg(pl.col(label).mean() for label in labels)
        return means.sort(segments)
    return values.select(pl.col(label).mean() for label in labels)


def evaluate_policy(
    log: TableInput,
    policy: TableInput,
    estimators: Sequence[str] | str = ("IPW", "SNIPW", "DR"),
    *,
    q_hat: TableInput | None = None,
    context: str = "context",
    action: str = "action",
    reward: str = "reward",
    pscore: str = "pscore",
    probability: str = "probability",
    q_hat_column: str = "q_hat",
    by: str | Iterable[str] | None = None,
    lambda_: float = math.inf,
    engine: Engine = "polars",
    con: Any = None,
    bootstrap: int | None = None,
    alpha: float = 0.05,
    seed: int | None = None,
) -> pl.DataFrame:
    """Estimate the value of an evaluation policy from a log collected by another policy
    (off-policy evaluation), with the estimators of the Open Bandit Pipeline (OBP 0.5,
    ``obp.ope``), on every engine.

    With w_i = π_e(a_i|x_i) / π_b(a_i|x_i) the importance weight of logged decision i
    (π_b(a_i|x_i) its ``pscore``), q̂(x, a) the reward model and
    q̂(x, π_e) = Σ_a π_e(a|x)·q̂(x, a) / Σ_a π_e(a|x):

    * ``IPW`` (``IPS``): mean(min(w, λ)·r);
    * ``SNIPW`` (``SNIPS``): Σ w·r / Σ w;
    * ``DM``: mean(q̂(x, π_e));
    * ``DR``: mean(q̂(x, π_e) + min(w, λ)·(r − q̂(x, a)));
    * ``SNDR``: mean(q̂(x, π_e)) + Σ w·(r − q̂(x, a)) / Σ w;
    * ``SwitchDR``: mean(q̂(x, π_e) + 1{w ≤ λ}·w·(r − q̂(x, a))).

    Args:
        log: ``context, action, reward, pscore`` (and the ``by`` columns), one row per
            logged decision (``context`` its id): a Polars DataFrame or LazyFrame, a pandas
            DataFrame or a pyarrow Table (with ``engine="duckdb"`` also a table name or a
            relation).
        policy: ``context, action, probability``: the evaluation policy π_e. An action it
            does not list for a context has probability 0 (a deterministic policy lists one
            action per context); every logged context must be listed.
        estimators: estimator names (any case): ``IPW``/``IPS``, ``SNIPW``/``SNIPS``,
            ``DM``, ``DR``, ``SNDR``, ``SwitchDR`` (``switch-dr``); each row's
            ``estimator`` is the name as written.
        q_hat: ``context, action, q_hat``: the reward model's estimates, read by DM, DR,
            SNDR and SwitchDR for every logged action and every action the policy gives a
            positive probability.
        context, action, reward, pscore, probability, q_hat_column: the column names.
        by: column(s) of the log whose values split it (e.g. a day): one row per estimator
            per segment, sorted (nulls first).
        lambda_: OBP's ``lambda_``: IPW and DR clip each weight at λ, SwitchDR uses DM
            alone where w > λ (default infinity: neither); SNIPW and SNDR do not read it.
        engine: ``"polars"`` (one lazy plan), ``"duckdb"``, ``"spark"`` (``con`` the
            SparkSession) or ``"clickhouse"``: those run the one query of
            :func:`polars_rank.policy_sql`, which prints it for every dialect.
        bootstrap, alpha, seed: OBP's ``estimate_interval`` (``n_bootstrap_samples``,
            ``alpha``, ``random_state``): with a number of samples, each estimator's round
            rewards are resampled as OBP resamples them (in the log's row order, one draw
            per segment from ``RandomState(seed)``; :mod:`polars_rank.policy.bootstrap`)
            and three columns follow ``n``: ``bootstrap_mean``, ``ci_lower``,
            ``ci_upper``. The Polars engine only; the others refuse it.

    Checks, on every engine, each a :class:`PolarsRankError` naming the table and column: a
    pscore outside (0, 1]; a probability outside [0, 1]; a context whose probabilities do
    not sum to 1 within 1e-6 (the error lists them with their sums); a logged context
    missing from the policy; a context logged twice; a (context, action) twice in the
    policy or q_hat; a missing q_hat where one is read; NULL, NaN or infinite numbers.

    Returns:
        A DataFrame: the ``by`` columns, ``estimator``, ``estimate``, ``standard_error``
        (the sample standard deviation, ddof 1, of the per-decision values over √n; for
        SNIPW and SNDR the delta method's), ``ess`` (Kish's effective sample size
        (Σω)² / Σω² of the weights ω the estimator applies; null for DM), ``max_weight``
        (the largest ω; null for DM) and ``n`` (the logged decisions).

    Example:
        >>> import polars as pl, polars_rank as pr
        >>> log = pl.DataFrame({"context": [1, 2, 3, 4], "action": ["a", "b", "a", "b"],
        ...                     "reward": [1.0, 0.0, 0.0, 1.0],
        ...                     "pscore": [0.5, 0.5, 0.5, 0.5]})
        >>> policy = pl.DataFrame({"context": [1, 2, 3, 4], "action": ["a", "a", "a", "a"],
        ...                        "probability": [1.0, 1.0, 1.0, 1.0]})
        >>> pr.evaluate_policy(log, policy, ["IPS", "SNIPS"]).select(
        ...     "estimator", "estimate", "ess", "max_weight").rows()
        [('IPS', 0.5, 2.0, 2.0), ('SNIPS', 0.5, 2.0, 2.0)]
    """
    from polars_rank.compiler.policy import check_lambda, policy_specs
    from polars_rank.engines.request import PolicyRequest

    for what, value in (
        ("context", context),
        ("action", action),
        ("reward", reward),
        ("pscore", pscore),
        ("probability", probability),
        ("q_hat_column", q_hat_column),
    ):
        if not isinstance(value, str) or not value:
            raise PolarsRankError(f"{what} must be a column name, got {value!r}")
    roles = {context: "context", action: "action", reward: "reward", pscore: "pscore"}
    segments = policy_by(by, roles)
    request = PolicyRequest(
        log,
        policy,
        q_hat,
        policy_specs(estimators, q_hat is not None),
        context=context,
        action=action,
        reward=reward,
        pscore=pscore,
        probability=probability,
        q_hat_column=q_hat_column,
        by=segments,
        lambda_=check_lambda(lambda_),
        con=con,
        bootstrap=bootstrap_options(bootstrap, alpha, seed),
    )
    return registry.engine(engine).evaluate_policy(request)


def evaluate_slate_policy(
    log: FrameLike | TableInput,
    policy: FrameLike | TableInput,
    estimators: Sequence[str] | str = ("SIPS", "IIPS", "RIPS"),
    *,
    slate: str = "slate_id",
    position: str = "position",
    reward: str = "reward",
    pscore: str = "pscore",
    pscore_item_position: str = "pscore_item_position",
    pscore_cascade: str = "pscore_cascade",
    by: str | Iterable[str] | None = None,
    engine: EngineName = "polars",
    con: Any = None,
    bootstrap: int | None = None,
    alpha: float = 0.05,
    seed: int | None = None,
) -> pl.DataFrame:
    """Estimate the value of an evaluation policy that shows slates (ranked lists) from
    slates logged by another policy, with OBP's slate estimators (every definition:
    :mod:`polars_rank.policy.slate`).

    Args:
        log: one row per slot of a logged slate: ``slate_id, position, reward`` and the
            logging policy's propensities of the slot: ``pscore`` (the whole slate's, SIPS),
            ``pscore_item_position`` (the item at its position, IIPS), ``pscore_cascade``
            (the top ``position`` items', RIPS); only those the estimators read are needed.
        policy: the evaluation policy's propensities of the same slots (``slate_id,
            position`` and the same propensity columns). A slot it does not list has
            propensity 0; a logged slate it does not list at all is an error.
        estimators: ``SIPS``, ``IIPS``, ``RIPS``, ``SNSIPS``, ``SNIIPS``, ``SNRIPS`` (or
            OBP's class names, e.g. ``SlateIndependentIPS``), any case.
        slate, position, reward, pscore, pscore_item_position, pscore_cascade: the column
            names (the propensity columns have the same names in both tables).
        by: column(s) of the log whose values split it (e.g. the day); constant within a
            slate.
        engine: ``"polars"`` (one lazy plan), ``"duckdb"``, ``"spark"`` or
            ``"clickhouse"`` (the compiled query of :func:`~polars_rank.slate_policy_sql`);
            the inputs are checked in Polars first, with the same messages on every engine.
        con: the engine's connection or session.
        bootstrap, alpha, seed: OBP's ``estimate_interval`` (``n_bootstrap_samples``,
            ``alpha``, ``random_state``): with a number of samples, the slates are
            resampled as OBP resamples them (one draw per segment from
            ``RandomState(seed)``; :mod:`polars_rank.policy.bootstrap`) and three columns
            follow ``n``: ``bootstrap_mean``, ``ci_lower``, ``ci_upper``. The Polars
            engine only; the others refuse it.

    Returns:
        ``[by...,] estimator, estimate, standard_error, ess, max_weight, n`` (``n``: the
        number of slates), one row per estimator per segment (segments sorted, nulls first).

    Example:
        >>> import polars as pl, polars_rank as pr
        >>> log = pl.DataFrame({"slate_id": [1, 1, 2, 2], "position": [0, 1, 0, 1],
        ...                     "reward": [1.0, 0.0, 0.0, 1.0],
        ...                     "pscore_item_position": [0.5, 0.5, 0.25, 0.5]})
        >>> policy = log.select("slate_id", "position",
        ...                     pscore_item_position=pl.Series([1.0, 0.5, 0.5, 0.25]))
        >>> # weights 2, 1, 2, 0.5: (1·2 + 0·1 + 0·2 + 1·0.5) / 2 slates = 1.25
        >>> pr.evaluate_slate_policy(log, policy, "IIPS").select("estimate", "n").rows()
        [(1.25, 2)]
    """
    from polars_rank.engines.request import SlateRequest
    from polars_rank.policy.slate import PROPENSITIES, slate_specs

    columns = {"slate": slate, "position": position, "reward": reward}
    propensities = dict(
        zip(PROPENSITIES, (pscore, pscore_item_position, pscore_cascade), strict=True)
    )
    for what, value in {**columns, **propensities}.items():
        if not isinstance(value, str) or not value:
            raise PolarsRankError(f"{what} must be a column name, got {value!r}")
    specs = slate_specs(estimators)
    used = {est.propensity for _, est in specs}
    read = [propensities[p] for p in PROPENSITIES if p in used]
    roles = {slate: "slate", position: "position", reward: "reward"}
    roles.update({c: p for p, c in propensities.items() if p in used})
    if len({c.lower() for c in [slate, position, reward, *read]}) < 3 + len(read):
        raise PolarsRankError(
            f"the slate, position, reward and propensity columns {[slate, position, reward, *read]}"
            " must differ (case-insensitively)"
        )
    request = SlateRequest(
        log,
        policy,
        specs,
        slate=slate,
        position=position,
        reward=reward,
        propensities=propensities,
        by=policy_by(by, roles),
        con=con,
        bootstrap=bootstrap_options(bootstrap, alpha, seed),
    )
    return registry.engine(engine).evaluate_slate_policy(request)


@overload
def fuse(
    runs: Frame,
    method: str = ...,
    *,
    norm: str | None = ...,
    weights: Mapping[Any, float] | Sequence[float] | None = ...,
    k: float = ...,
    run: str = ...,
    query: str = ...,
    doc: str = ...,
    score: str = ...,
    engine: EngineName = ...,
    con: Any = ...,
) -> Frame: ...
@overload
def fuse(
    runs: object,
    method: str = ...,
    *,
    norm: str | None = ...,
    weights: Mapping[Any, float] | Sequence[float] | None = ...,
    k: float = ...,
    run: str = ...,
    query: str = ...,
    doc: str = ...,
    score: str = ...,
    engine: EngineName = ...,
    con: Any = ...,
) -> pl.DataFrame | pl.LazyFrame: ...
def fuse(
    runs: object,
    method: str = "rrf",
    *,
    norm: str | None = "min-max",
    weights: Mapping[Any, float] | Sequence[float] | None = None,
    k: float = 60,
    run: str = "run",
    query: str = "query",
    doc: str = "doc",
    score: str = "score",
    engine: EngineName = "polars",
    con: Any = None,
) -> pl.DataFrame | pl.LazyFrame:
    """Fuse several runs into one run ``(query, doc, score)`` that
    :func:`polars_rank.evaluate` takes (every formula: :mod:`polars_rank.ranking.fusion`).

    Args:
        runs: one table stacking the runs, told apart by the ``run`` column, or a dict
            ``{name: run}``; each a polars DataFrame or LazyFrame, a pandas DataFrame or a
            pyarrow Table with ``query``, ``doc`` and ``score`` columns. At least two runs.
        method: ``"sum"``, ``"mnz"``, ``"max"``, ``"min"``, ``"med"``, ``"anz"``, ``"wsum"``
            or ``"rrf"`` (ranx's names).
        norm: the normalisation applied to each run per query first: ``"min-max"`` (ranx's
            default, for every method), ``"min-max-inverted"``, ``"max"``, ``"sum"``,
            ``"zmuv"``, ``"rank"``, ``"borda"`` or ``None``.
        weights: ``wsum`` only (and required there): ``{run name: weight}`` for every run, or
            with a dict of runs a sequence in the dict's order.
        k: ``rrf``'s constant, a positive number.
        run, query, doc, score: the column names (``run`` of the stacked table only).
        engine: ``"polars"`` (one lazy plan), or an engine that runs SQL (``"duckdb"``,
            ``"spark"``, ``"clickhouse"``): the runs are checked in Polars, then the
            compiled query of :func:`~polars_rank.fusion_sql` runs there on them.
        con: the engine's connection or session (as :func:`polars_rank.evaluate`'s).

    Returns:
        The fused run, sorted by query and score descending (ties by doc id descending):
        lazy for a LazyFrame input (or a dict of them), a DataFrame otherwise. The input is
        read once up front to check it (null ids, null/NaN/infinite scores, duplicate
        ``(run, query, doc)`` rows, the number of runs).

    >>> import polars as pl
    >>> stacked = pl.DataFrame({
    ...     "run": ["x", "x", "y", "y"], "query": ["q"] * 4,
    ...     "doc": ["a", "b", "a", "b"], "score": [3.0, 1.0, 0.0, 5.0]})
    >>> fuse(stacked, "rrf", k=1).rows()  # a and b rank 1 once and 2 once: 1/2 + 1/3 each
    [('q', 'b', 0.8333333333333333), ('q', 'a', 0.8333333333333333)]
    """
    columns = (run, query, doc, score)
    stacked, template, names, run_weights = fusion.prepare(runs, method, norm, weights, k, columns)
    request = FusionRequest(method, norm, run_weights, k, names, con)
    fused = registry.engine(engine, "engine").fuse(stacked, request)
    return fusion.finish(fused, stacked, template, columns)
