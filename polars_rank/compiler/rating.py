"""Rating prediction metrics as portable SQL: :func:`rating_sql`, what
:func:`polars_rank.evaluate_ratings` runs on DuckDB and Spark, printed for every dialect.

Two tables in (the ratings, the predictions), one ``SELECT`` out, with the Polars engine's
numbers (scikit-learn's, within 1e-12):

* the ratings are LEFT JOINed to the predictions on (user, item): a rating without a
  prediction, or whose rating, prediction or weight is NULL, weighs 0 (it keeps its ``by``
  segment, whose metrics are NULL when no pair is left); a prediction without a rating is
  not read (MS Recommenders' inner join);
* every pair weighs 1, or its ``weight`` (scikit-learn's ``sample_weight``);
* one aggregation of sums per segment (Σw, Σw·e², Σw·|e|, ...), the weighted means
  ȳ and ē first as window sums, so that R² and explained variance sum squared deviations
  Σw·(y − ȳ)² (never Σw·y² − Σw·ȳ², which loses digits);
* every division is of DOUBLEs and guarded (NULL when Σw = 0; R² NULL for fewer than two
  pairs, as scikit-learn's NaN).

>>> sql = rating_sql(["RMSE", "R2"], "spark", "db.ratings", "db.preds", rating="stars")
>>> "FROM db.ratings" in sql, "AS rmse" in sql
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from polars_rank.catalog.names import MetricSpec, parse_metrics
from polars_rank.catalog.rating import UNWEIGHTED
from polars_rank.compiler.columns import check_dotless, column_names, given_column, metric_outputs
from polars_rank.compiler.dialects import RAW, render
from polars_rank.core.dialects import Dialect, DialectName, get_dialect
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.grouping import check_by_names
from polars_rank.core.identifiers import table_reference
from polars_rank.ratings.metrics import EPS

#: The placeholders of the two tables and of their columns.
RATINGS, PREDICTIONS = "pr_input_ratings", "pr_input_predictions"
USER, ITEM, RATING, PREDICTION, WEIGHT = (
    "pr_col_user",
    "pr_col_item",
    "pr_col_rating",
    "pr_col_prediction",
    "pr_col_weight",
)
_DOUBLE = "DOUBLE PRECISION"


def _num(value: float) -> str:
    return f"CAST({float(value)!r} AS {_DOUBLE})"


def _div(numerator: str, denominator: str) -> str:
    return f"CASE WHEN ({denominator}) > 0 THEN ({numerator}) / ({denominator}) END"


def _fraction(numerator: str, denominator: str) -> str:
    """1 − numerator / denominator, scikit-learn's force_finite: 1 for a zero numerator,
    0 for a zero denominator."""
    return (
        f"CASE WHEN {numerator} = 0 THEN {_num(1.0)} WHEN {denominator} = 0 THEN {_num(0.0)} "
        f"ELSE 1.0 - ({numerator}) / ({denominator}) END"
    )


#: The final expression of each metric over the sums of ``pr_sums``.
_FINAL = {
    "mse": _div("pr_see", "pr_sw"),
    "rmse": f"SQRT({_div('pr_see', 'pr_sw')})",
    "mae": _div("pr_sae", "pr_sw"),
    "mape": _div("pr_sape", "pr_sw"),
    "max_error": "pr_max",
    "r2": f"CASE WHEN pr_n >= 2 AND pr_sw > 0 THEN {_fraction('pr_see', 'pr_sdy')} END",
    "explained_variance": (
        f"CASE WHEN pr_sw > 0 THEN {_fraction('pr_sde / pr_sw', 'pr_sdy / pr_sw')} END"
    ),
}


def _query(specs: list[MetricSpec], segments: int, weighted: bool) -> str:
    keys = [k for i in range(segments) for k in (f"pr_b{i}v", f"pr_b{i}")]
    lead = "".join(f"{k}, " for k in keys)
    window = f"PARTITION BY {', '.join(keys)}" if keys else ""
    grouped = f" GROUP BY {', '.join(keys)}" if keys else ""
    ok = [f"pr_r.{RATING} IS NOT NULL", f"pr_p.{PREDICTION} IS NOT NULL"]
    if weighted:
        ok.append(f"pr_r.{WEIGHT} IS NOT NULL")
    present = " AND ".join(ok)
    weight = f"CAST(pr_r.{WEIGHT} AS {_DOUBLE})" if weighted else _num(1.0)
    zero = _num(0.0)
    segment_keys = "".join(
        f"{RAW}(pr_r.pr_col_b{i}) AS pr_b{i}v, pr_r.pr_col_b{i} AS pr_b{i}, "
        for i in range(segments)
    )
    pairs = (
        f"pr_pairs AS (SELECT {segment_keys}"
        f"CASE WHEN {present} THEN 1 ELSE 0 END AS pr_ok, "
        f"CASE WHEN {present} THEN {weight} ELSE {zero} END AS pr_w, "
        f"CASE WHEN {present} THEN CAST(pr_r.{RATING} AS {_DOUBLE}) ELSE {zero} END AS pr_y, "
        f"CASE WHEN {present} THEN CAST(pr_r.{RATING} AS {_DOUBLE}) "
        f"- CAST(pr_p.{PREDICTION} AS {_DOUBLE}) ELSE {zero} END AS pr_e "
        f"FROM {RATINGS} AS pr_r LEFT JOIN {PREDICTIONS} AS pr_p "
        f"ON pr_r.{USER} = pr_p.{USER} AND pr_r.{ITEM} = pr_p.{ITEM})"
    )
    means = (
        f"pr_means AS (SELECT {lead}pr_ok, pr_w, pr_y, pr_e, "
        f"SUM(pr_w) OVER ({window}) AS pr_tw, SUM(pr_w * pr_y) OVER ({window}) AS pr_twy, "
        f"SUM(pr_w * pr_e) OVER ({window}) AS pr_twe FROM pr_pairs)"
    )
    mean_y = f"(CASE WHEN pr_tw > 0 THEN pr_twy / pr_tw ELSE {zero} END)"
    mean_e = f"(CASE WHEN pr_tw > 0 THEN pr_twe / pr_tw ELSE {zero} END)"
    sums = (
        f"pr_sums AS (SELECT {lead}COALESCE(SUM(pr_w), {zero}) AS pr_sw, "
        "COALESCE(SUM(pr_ok), 0) AS pr_n, "
        "SUM(pr_w * pr_e * pr_e) AS pr_see, SUM(pr_w * ABS(pr_e)) AS pr_sae, "
        f"SUM(pr_w * ABS(pr_e) / GREATEST(ABS(pr_y), {_num(EPS)})) AS pr_sape, "
        "MAX(CASE WHEN pr_ok = 1 THEN ABS(pr_e) END) AS pr_max, "
        f"SUM(pr_w * (pr_y - {mean_y}) * (pr_y - {mean_y})) AS pr_sdy, "
        f"SUM(pr_w * (pr_e - {mean_e}) * (pr_e - {mean_e})) AS pr_sde "
        f"FROM pr_means{grouped})"
    )
    outputs = [f"pr_b{i}v AS pr_col_bout{i}" for i in range(segments)]
    outputs += [
        f"CAST({_FINAL[spec.entry.name]} AS {_DOUBLE}) AS pr_m{n}"
        for n, spec in enumerate(specs, 1)
    ]
    terms = [t for k in keys for t in (f"CASE WHEN {k} IS NULL THEN 0 ELSE 1 END", k)]
    order = f" ORDER BY {', '.join(terms)}" if terms else ""
    return f"WITH {pairs}, {means}, {sums} SELECT {', '.join(outputs)} FROM pr_sums{order}"


def rating_specs(metrics: Sequence[str | MetricSpec] | str, weight: str | None) -> list[MetricSpec]:
    """Rating metric names parsed (the ``rating`` name space); a metric scikit-learn defines
    without weights (``max_error``) is refused with ``weight``."""
    names = [metrics] if isinstance(metrics, str | MetricSpec) else list(metrics)
    specs = parse_metrics(names, scope="rating")
    if weight is not None:
        for spec in specs:
            if spec.entry.name in UNWEIGHTED:
                raise PolarsRankError(
                    f"metric {spec.label!r} takes no weight (scikit-learn's max_error has no "
                    "sample_weight): leave it out or drop weight="
                )
    return specs


def rating_sql(
    metrics: Sequence[str | MetricSpec] | str,
    dialect: DialectName,
    ratings: str,
    predictions: str,
    *,
    user: str = "user",
    item: str = "item",
    rating: str = "rating",
    prediction: str = "prediction",
    by: str | Iterable[str] | None = None,
    weight: str | None = None,
    pretty: bool = True,
) -> str:
    """One ``SELECT`` computing rating ``metrics`` (``RMSE``, ``MSE``, ``MAE``, ``R2``,
    ``explained_variance``, ``max_error``, ``MAPE``) of the ``predictions`` table against the
    ``ratings`` table in ``dialect``: the ``by`` columns, then one DOUBLE column per metric
    (named by :func:`~polars_rank.compiler.columns.column_names`), one row per ``by``
    segment (sorted, NULL keys first) — :func:`polars_rank.evaluate_ratings`'s numbers
    within 1e-12.

    Args:
        metrics: rating metric names.
        dialect: as :func:`~polars_rank.to_sql`.
        ratings: the table of ``user, item, rating`` (and the ``by`` and ``weight``
            columns), a table reference (``[catalog.][schema.]table``).
        predictions: the table of ``user, item, prediction``.
        user, item: the columns both tables join on. rating, prediction: the values.
        by: column(s) of the ratings table whose values split it.
        weight: a sample-weight column of the ratings table.

    The query does not check its input (duplicate pairs would be counted twice):
    :func:`polars_rank.evaluate_ratings` does, on every engine.

    >>> print(rating_sql("MAE", "duckdb", "r", "p").splitlines()[0])
    WITH pr_pairs AS (
    """
    get_dialect(dialect)
    names = {
        USER: given_column("user", user),
        ITEM: given_column("item", item),
        RATING: given_column("rating", rating),
        PREDICTION: given_column("prediction", prediction),
    }
    if weight is not None:
        names[WEIGHT] = given_column("weight", weight)
    segments = [by] if isinstance(by, str) else list(by or [])
    for i, column in enumerate(segments):
        names[f"pr_col_b{i}"] = names[f"pr_col_bout{i}"] = given_column("by", column)
    lowered = [c.lower() for c in segments]
    if len(set(lowered)) < len(lowered):
        raise PolarsRankError(f"the by columns {segments} must differ (case-insensitively)")
    specs = rating_specs(metrics, weight)
    check_by_names(segments, {}, metric_outputs(specs))
    get_dialect(dialect)
    check_dotless(names.values(), dialect)
    out = column_names(specs, reserved=segments)
    names.update({f"pr_m{n}": out[s.label] for n, s in enumerate(specs, 1)})
    tables = {
        RATINGS: ("ratings", table_reference(ratings, "ratings", dialect)),
        PREDICTIONS: ("predictions", table_reference(predictions, "predictions", dialect)),
    }
    text = _query(specs, len(segments), weight is not None)
    return render(text, dialect, tables, names, doc_key="pr_no_doc_key", pretty=pretty)


def rating_checks_sql(
    dialect: DialectName | Dialect,
    ratings: str,
    predictions: str,
    *,
    user: str,
    item: str,
    values: Mapping[str, Sequence[str]],
    weight: str | None = None,
    join: bool = True,
) -> tuple[str, list[tuple[str, str, str]]]:
    """The counts behind :func:`polars_rank.evaluate_ratings`' checks as one row, for an
    engine that holds both tables (``ratings`` and ``predictions`` are ``FROM`` texts of
    ``dialect``, used as given): each table read once for its NULL ids, its NULL and NaN
    ``values`` (per table, ``"ratings"`` / ``"predictions"``: the numeric columns checked),
    the ratings' negative, NaN or infinite ``weight`` and its rows; each table's (user, item)
    pairs that occur more than once, grouped apart; with ``join``, the pairs in both tables
    (an inner join: the pairs on one side only are the rows less these once no pair repeats).

    The query, and the key of each column ``pr_k<n>`` in order: ``(table, problem, column)``
    with the problems ``null``, ``nan``, ``bad_weight``, ``rows``, ``repeated`` and
    ``matched`` (table ``"both"``). A column that is not numeric must be left out of
    ``values`` (and ``weight``): the counts cast to DOUBLE.

    >>> sql, keys = rating_checks_sql("spark", "r", "p", user="u", item="i",
    ...                               values={"ratings": ["y"], "predictions": ["x"]})
    >>> keys[:3]
    [('ratings', 'null', 'u'), ('ratings', 'null', 'i'), ('ratings', 'null', 'y')]
    """
    d = get_dialect(dialect)
    keys: list[tuple[str, str, str]] = []

    def count(condition: str, key: tuple[str, str, str]) -> str:
        keys.append(key)
        column = f"pr_k{len(keys) - 1}"
        if not condition:
            return f"COUNT(*) AS {column}"
        return f"COUNT(CASE WHEN {condition} THEN 1 END) AS {column}"

    u, i = d.quote(user), d.quote(item)
    parts = []
    for what, source in (("ratings", ratings), ("predictions", predictions)):
        counts = [count(f"{d.quote(c)} IS NULL", (what, "null", c)) for c in (user, item)]
        checked = list(values.get(what, ()))
        counts += [count(f"{d.quote(c)} IS NULL", (what, "null", c)) for c in checked]
        counts += [count(d.is_nan_per_row(d.quote(c)), (what, "nan", c)) for c in checked]
        if what == "ratings" and weight is not None:
            w = f"CAST({d.quote(weight)} AS DOUBLE)"
            bad = f"{w} < 0 OR {d.is_nan_per_row(d.quote(weight))} OR {d.is_infinite(w)}"
            counts.append(count(bad, (what, "bad_weight", weight)))
        counts.append(count("", (what, "rows", "")))
        parts.append(f"SELECT {', '.join(counts)} FROM {source}")
    for what, source in (("ratings", ratings), ("predictions", predictions)):
        repeated = count("", (what, "repeated", ""))
        parts.append(
            f"SELECT {repeated} FROM (SELECT 1 AS pr_one FROM {source} "
            f"GROUP BY {u}, {i} HAVING COUNT(*) > 1) AS pr_repeated"
        )
    if join:
        matched = count("", ("both", "matched", ""))
        parts.append(
            f"SELECT {matched} FROM {ratings} AS pr_r INNER JOIN {predictions} AS pr_p "
            f"ON pr_r.{u} = pr_p.{u} AND pr_r.{i} = pr_p.{i}"
        )
    tables = " CROSS JOIN ".join(f"({part}) AS pr_c{n}" for n, part in enumerate(parts))
    columns = ", ".join(f"pr_k{n}" for n in range(len(keys)))
    return f"SELECT {columns} FROM {tables}", keys


def repeated_pair_sql(dialect: DialectName | Dialect, source: str, user: str, item: str) -> str:
    """At most one row: ``pr_pairs`` (the number of (user, item) pairs of ``source``, a
    ``FROM`` text, that occur more than once) and the smallest such pair, ``pr_user`` and
    ``pr_item`` in their own types (the example :func:`polars_rank.evaluate_ratings` names).

    >>> repeated_pair_sql("duckdb", "r", "u", "i").split(" FROM ")[0]
    'SELECT "u" AS pr_user, "i" AS pr_item, COUNT(*) OVER () AS pr_pairs'
    """
    d = get_dialect(dialect)
    u, i = d.quote(user), d.quote(item)
    return (
        f"SELECT {u} AS pr_user, {i} AS pr_item, COUNT(*) OVER () AS pr_pairs FROM {source} "
        f"GROUP BY {u}, {i} HAVING COUNT(*) > 1 "
        f"ORDER BY {u} ASC NULLS LAST, {i} ASC NULLS LAST LIMIT 1"
    )
