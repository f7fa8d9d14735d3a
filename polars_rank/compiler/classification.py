"""Classification metrics and curves as portable SQL: :func:`classification_sql` (what
:func:`~polars_rank.to_sql` runs when given ``predictions=``) and :func:`curve_sql`.

One predictions table in, one ``SELECT`` out, window functions, ``GROUP BY`` and ``CASE``
only, with the Polars engine's numbers (scikit-learn's, within 1e-12):

* a row whose label, score (or weight) is NULL is skipped: it keeps its segment but weighs 0;
* every row weighs 1, or its ``weight`` (scikit-learn's ``sample_weight``);
* AUC = Σ over distinct scores s of w⁺(s)·(w⁻ below s + ½·w⁻(s)) / (W⁺·W⁻): the Mann–Whitney
  statistic with average ranks (a tied pair counts ½), NULL without both classes;
* AP = Σ_s w⁺(s)·precision(≥ s) / W⁺, scikit-learn's step rule (tied scores are one
  threshold), NULL without positives;
* log loss clips p and 1 − p to [2⁻⁵², 1 − 2⁻⁵²] (the Polars engine's ε);
* the thresholded metrics predict positive when ``score >= threshold``;
* the counts (TP, FP, TN, FN) are BIGINT without a weight (sums of 1 over the rows: the
  Polars engine's Int64) and DOUBLE with one (sums of weights: its Float64); every other
  metric is DOUBLE, each division one of DOUBLEs (never an integer division, whatever the
  dialect or the session's settings).

The query sums each segment's parts in one ``UNION ALL`` of at most three blocks (rows;
distinct scores; GAUC's groups and their scores) and divides at the end, so segments whose
rows are all skipped still get a row, as in the Polars engine.

>>> sql = classification_sql(["AUC", "LogLoss"], "spark", "db.preds", label="y", score="p")
>>> "FROM db.preds" in sql, "AS logloss" in sql
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from polars_rank.catalog.classification import GROUP
from polars_rank.catalog.names import MetricSpec, parse_metrics
from polars_rank.compiler.columns import check_dotless, column_names, metric_outputs
from polars_rank.compiler.dialects import RAW, render
from polars_rank.core import messages
from polars_rank.core.dialects import DialectName, get_dialect
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.grouping import check_by_names
from polars_rank.core.identifiers import table_reference

#: The placeholder of the predictions table, and of its columns.
PREDICTIONS = "pr_input_predictions"
LABEL, SCORE, WEIGHT = "pr_col_label", "pr_col_score", "pr_col_weight"
_SRC = "pr_src"

#: float64 machine epsilon, the clipping of log loss (as the Polars engine).
_EPS = 2.220446049250313e-16

Curve = Literal["roc", "pr"]
CURVES: dict[str, Curve] = {
    "roc": "roc",
    "roc_curve": "roc",
    "pr": "pr",
    "pr_curve": "pr",
    "precision_recall": "pr",
    "precision_recall_curve": "pr",
}

#: Metrics whose value needs the distinct-score block or GAUC's group block.
_SCORE_METRICS = ("roc_auc", "average_precision")
_PROBABILITY_METRICS = ("log_loss", "brier_score", "normalized_entropy", "calibration")


#: The spellings of a label's text (:func:`_label_text`) read as positive and as negative:
#: booleans (every dialect writes ``true`` / ``false``), numbers (an integer ``1``; a
#: DOUBLE or DECIMAL ``1.0``, ``1.00`` once its trailing zeros are dropped; Trino's
#: ``1.0E0``) and text holding one of them. Any other label is ``bad_label``.
POSITIVE_LABELS = ("1", "true", "1e0", "1.0e0")
NEGATIVE_LABELS = ("0", "-0", "false", "0e0", "0.0e0", "-0e0", "-0.0e0")


def _label_text(column: str) -> str:
    """The label as lower-case text, a decimal's trailing zeros (and point) dropped: one
    expression for every type a label has (a number, a boolean, text), so that a boolean
    label works where it cannot be cast to a number (PostgreSQL) and a text label is never
    cast to one (a cast error); compared with :data:`POSITIVE_LABELS`."""
    text = f"LOWER(CAST({column} AS VARCHAR))"
    return (
        f"CASE WHEN {text} LIKE '%.%' AND {text} NOT LIKE '%e%' "
        f"THEN RTRIM(RTRIM({text}, '0'), '.') ELSE {text} END"
    )


def _spelled(values: tuple[str, ...]) -> str:
    return "(" + ", ".join(f"'{v}'" for v in values) + ")"


def _num(value: float) -> str:
    """A number as a DOUBLE literal (its shortest repr, never a DECIMAL's arithmetic); NaN
    (``zero_division=nan``) as the text ``'NaN'`` cast, which every dialect reads."""
    if math.isnan(value):
        return "CAST('NaN' AS DOUBLE PRECISION)"
    return f"CAST({float(value)!r} AS DOUBLE PRECISION)"


def _columns(value: str | Iterable[str] | None, what: str) -> list[str]:
    if value is None:
        return []
    names = [value] if isinstance(value, str) else list(value)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise messages.bad_column_name(what, name)
    return names


def _specs(metrics: Sequence[str | MetricSpec] | str, threshold: float) -> list[MetricSpec]:
    """Classification names parsed, each thresholded one with ``threshold`` unless it sets its
    own; a curve's name is refused (curves come from :func:`curve_sql`)."""
    from dataclasses import replace

    from polars_rank.catalog.model import REQUIRED

    names = [metrics] if isinstance(metrics, str | MetricSpec) else list(metrics)
    for name in names:
        if isinstance(name, str) and name.strip().lower() in CURVES:
            raise PolarsRankError(
                f"{name!r} is a curve, one row per threshold: curves come from "
                "pr.curve_sql(...), not with the scalar metrics of to_sql"
            )
    try:
        specs = parse_metrics(names, scope="classification")
    except PolarsRankError as err:
        raise PolarsRankError(
            f"{err} (to_sql with predictions= takes classification metrics only: one family "
            "per call)"
        ) from None
    out = []
    for spec in specs:
        given = dict(spec.params)
        for param in spec.entry.params:
            if param.default is REQUIRED and param.name not in given:
                raise PolarsRankError(
                    f"metric {spec.label!r} needs {param.name} ({param.doc}), e.g. "
                    f"{spec.entry.aliases[0].name}({param.name}="
                    f"{(param.examples or ('1',))[-1]})"
                )
        if "threshold" in spec.entry.param and "threshold" not in given:
            spec = replace(spec, params=tuple(sorted({**given, "threshold": threshold}.items())))
        out.append(spec)
    return out


def _threshold(threshold: float) -> float:
    try:
        cut = float(threshold)
    except (TypeError, ValueError):
        cut = math.nan
    if not math.isfinite(cut):
        raise PolarsRankError(f"threshold must be a finite number, got {threshold!r}")
    return cut


def _rows_cte(segments: int, groups: int, weighted: bool) -> str:
    """``pr_rows``: segment keys ``pr_b<i>``, group keys ``pr_g<i>``, ``pr_y`` (1.0 positive,
    0.0 otherwise), ``pr_s`` (the score, 0 when skipped) and ``pr_w`` (0 when skipped)."""
    present = [f"{_SRC}.{LABEL} IS NOT NULL", f"{_SRC}.{SCORE} IS NOT NULL"]
    if weighted:
        present.append(f"{_SRC}.{WEIGHT} IS NOT NULL")
    ok = " AND ".join(present)
    weight = f"CAST({_SRC}.{WEIGHT} AS DOUBLE PRECISION)" if weighted else "1.0"
    # the segment keys twice: the caller's value (output, order) and its byte key (rewrite 6
    # of render: grouping by both is grouping by bytes, whatever the column's collation)
    keys = [
        f"{RAW}({_SRC}.pr_col_b{i}) AS pr_b{i}v, {_SRC}.pr_col_b{i} AS pr_b{i}"
        for i in range(segments)
    ]
    keys += [f"{_SRC}.pr_col_g{i} AS pr_g{i}" for i in range(groups)]
    return (
        "pr_rows AS (SELECT "
        + "".join(f"{k}, " for k in keys)
        + f"CASE WHEN {ok} AND {_label_text(f'{_SRC}.{LABEL}')} IN {_spelled(POSITIVE_LABELS)} "
        "THEN CAST(1.0 AS DOUBLE PRECISION) ELSE CAST(0.0 AS DOUBLE PRECISION) END AS pr_y, "
        f"CASE WHEN {ok} THEN CAST({_SRC}.{SCORE} AS DOUBLE PRECISION) "
        "ELSE CAST(0.0 AS DOUBLE PRECISION) END AS pr_s, "
        f"CASE WHEN {ok} THEN CAST({weight} AS DOUBLE PRECISION) "
        "ELSE CAST(0.0 AS DOUBLE PRECISION) END AS pr_w, "
        f"CASE WHEN {ok} THEN 1 ELSE 0 END AS pr_ok "
        f"FROM {PREDICTIONS} AS {_SRC})"
    )


def _partition(keys: list[str]) -> str:
    return f"PARTITION BY {', '.join(keys)} " if keys else ""


def _group_by(keys: list[str]) -> str:
    return f" GROUP BY {', '.join(keys)}" if keys else ""


def _points_ctes(name: str, keys: list[str], *, skip_null: bool = False) -> str:
    """``<name>``: per ``keys`` and distinct score, the positive and negative weights
    (``pr_pw``, ``pr_nw``), the negative weight below the score (``pr_below``) and the weights
    at or above it (``pr_tps``, ``pr_fps``)."""
    where = " WHERE pr_ok = 1" if skip_null else ""
    window = _partition(keys)
    lead = "".join(f"{k}, " for k in keys)
    return (
        f"{name}_s AS (SELECT {lead}pr_s, SUM(pr_w * pr_y) AS pr_pw, "
        f"SUM(pr_w * (1.0 - pr_y)) AS pr_nw FROM pr_rows{where}"
        f"{_group_by([*keys, 'pr_s'])}), "
        f"{name} AS (SELECT {lead}pr_s, pr_pw, pr_nw, "
        f"SUM(pr_nw) OVER ({window}ORDER BY pr_s ROWS UNBOUNDED PRECEDING) - pr_nw AS pr_below, "
        f"SUM(pr_pw) OVER ({window}ORDER BY pr_s DESC ROWS UNBOUNDED PRECEDING) AS pr_tps, "
        f"SUM(pr_nw) OVER ({window}ORDER BY pr_s DESC ROWS UNBOUNDED PRECEDING) AS pr_fps "
        f"FROM {name}_s)"
    )


def _div(numerator: str, denominator: str, otherwise: str = "NULL") -> str:
    return (
        f"CASE WHEN ({denominator}) > 0 THEN ({numerator}) / ({denominator}) ELSE {otherwise} END"
    )


#: A part of the sums: (block, per-row expression, SQL type).
Part = tuple[str, str, str]
_DOUBLE, _BIGINT = "DOUBLE PRECISION", "BIGINT"


class _Sums:
    """The sums one metric's final expression reads, registered as parts (``parts``: name →
    :data:`Part`, shared by the query's metrics; ``n`` the metric's number). Without
    ``weighted``, the counts are BIGINT parts (a count metric's expression is its part's
    name), read as DOUBLE in the ratios. Every metric registers the weight sums ``sw`` and
    ``swy`` first."""

    w, y, s = "pr_w", "pr_y", "pr_s"

    def __init__(self, n: int, parts: dict[str, Part], weighted: bool) -> None:
        self.n, self.parts, self.weighted = n, parts, weighted
        self.sw = self.part("pr_sw", "rows", self.w)
        self.swy = self.part("pr_swy", "rows", f"{self.w} * {self.y}")

    def part(self, key: str, block: str, expression: str, kind: str = _DOUBLE) -> str:
        self.parts.setdefault(key, (block, expression, kind))
        return key

    def cells(self, args: dict[str, Any]) -> dict[str, str]:
        """The confusion counts at the metric's threshold: ``tp``, ``fp``, ``fn``, ``tn``."""
        w, y, s, n = self.w, self.y, self.s, self.n
        cut = _num(args["threshold"])
        counts = {}
        for cell, side, positive in (
            ("tp", ">=", 1),
            ("fp", ">=", 0),
            ("fn", "<", 1),
            ("tn", "<", 0),
        ):
            if self.weighted:
                weight = f"{w} * {y}" if positive else f"{w} * (1.0 - {y})"
                counts[cell] = self.part(
                    f"pr_{cell}{n}",
                    "rows",
                    f"CASE WHEN {s} {side} {cut} THEN {weight} ELSE 0.0 END",
                )
            else:  # each row counts 1 (a skipped row, pr_ok = 0, none): a sum of integers
                counts[cell] = self.part(
                    f"pr_{cell}{n}",
                    "rows",
                    f"CASE WHEN pr_ok = 1 AND {s} {side} {cut} AND {y} = {positive} "
                    "THEN 1 ELSE 0 END",
                    _BIGINT,
                )
        return counts

    def ratio_cells(self, args: dict[str, Any]) -> dict[str, str]:
        """:meth:`cells` as DOUBLE (the ratios divide DOUBLEs)."""
        counts = self.cells(args)
        if self.weighted:
            return counts
        return {cell: f"CAST({key} AS {_DOUBLE})" for cell, key in counts.items()}


#: The final SQL expression of each classification metric, by its catalog entry's name
#: (:func:`_sql_of`): given the metric's sums and its arguments.
_SQL: dict[str, Callable[[_Sums, dict[str, Any]], str]] = {}


def _sql_of(
    *names: str,
) -> Callable[[Callable[[_Sums, dict[str, Any]], str]], Callable[..., str]]:
    """Register the decorated function as the SQL of the catalog metrics ``names``."""

    def register(builder: Callable[[_Sums, dict[str, Any]], str]) -> Callable[..., str]:
        for name in names:
            _SQL[name] = builder
        return builder

    return register


def _metric(spec: MetricSpec, n: int, parts: dict[str, Part], weighted: bool) -> str:
    """The final expression of metric number ``n``, registering the parts it sums."""
    sums = _Sums(n, parts, weighted)
    if spec.entry.name not in _SQL:
        raise PolarsRankError(f"metric {spec.label!r} has no portable SQL")  # pragma: no cover
    return _SQL[spec.entry.name](sums, {**spec.arguments(), "metric": spec.entry.name})


@_sql_of("roc_auc")
def _roc_auc(q: _Sums, args: dict[str, Any]) -> str:
    u, p, n = (
        q.part("pr_u", "scores", "pr_pw * (pr_below + 0.5 * pr_nw)"),
        q.part("pr_p", "scores", "pr_pw"),
        q.part("pr_n", "scores", "pr_nw"),
    )
    return f"CASE WHEN {p} > 0 AND {n} > 0 THEN {u} / ({p} * {n}) END"


@_sql_of("average_precision")
def _average_precision(q: _Sums, args: dict[str, Any]) -> str:
    ap = q.part(
        "pr_ap",
        "scores",
        "CASE WHEN pr_tps + pr_fps > 0 THEN pr_pw * pr_tps / (pr_tps + pr_fps) ELSE 0.0 END",
    )
    return _div(ap, q.part("pr_p", "scores", "pr_pw"))


@_sql_of("group_auc")
def _group_auc(q: _Sums, args: dict[str, Any]) -> str:
    if args["weight"] == "uniform":
        value = q.part("pr_g_auc", "groups", "pr_auc")
        used = q.part("pr_g_used", "groups", "pr_used")
        return _div(value, used)
    value = q.part("pr_g_wauc", "groups", "pr_auc * pr_gw")
    used_w = q.part("pr_g_w", "groups", "pr_gw")
    used = q.part("pr_g_used", "groups", "pr_used")
    return f"CASE WHEN {used} > 0 THEN {value} / ({used_w}) END"


def _log_loss_sum(q: _Sums) -> str:
    chosen = f"CASE WHEN {q.y} = 1 THEN {q.s} ELSE 1.0 - {q.s} END"
    clipped = f"GREATEST(LEAST({chosen}, {_num(1 - _EPS)}), {_num(_EPS)})"
    return q.part("pr_ll", "rows", f"{q.w} * (-LN({clipped}))")


@_sql_of("log_loss")
def _log_loss(q: _Sums, args: dict[str, Any]) -> str:
    return _div(_log_loss_sum(q), q.sw)


@_sql_of("normalized_entropy")
def _normalized_entropy(q: _Sums, args: dict[str, Any]) -> str:
    ll, sw, swy = _log_loss_sum(q), q.sw, q.swy
    rate = f"({swy} / ({sw}))"
    entropy = f"(-({rate} * LN({rate}) + (1.0 - {rate}) * LN(1.0 - {rate})))"
    defined = f"{sw} > 0 AND {swy} > 0 AND {swy} < {sw}"
    return f"CASE WHEN {defined} THEN ({ll} / ({sw})) / {entropy} END"


@_sql_of("brier_score")
def _brier_score(q: _Sums, args: dict[str, Any]) -> str:
    return _div(q.part("pr_bs", "rows", f"{q.w} * ({q.s} - {q.y}) * ({q.s} - {q.y})"), q.sw)


@_sql_of("calibration")
def _calibration(q: _Sums, args: dict[str, Any]) -> str:
    return _div(q.part("pr_sws", "rows", f"{q.w} * {q.s}"), q.swy)


@_sql_of("tp", "fp", "fn", "tn")
def _count(q: _Sums, args: dict[str, Any]) -> str:
    return q.cells(args)[str(args["metric"])]


@_sql_of("accuracy")
def _accuracy(q: _Sums, args: dict[str, Any]) -> str:
    c = q.ratio_cells(args)
    tp, fp, fn, tn = c["tp"], c["fp"], c["fn"], c["tn"]
    return _div(f"{tp} + {tn}", f"{tp} + {tn} + {fp} + {fn}")


@_sql_of("precision")
def _precision(q: _Sums, args: dict[str, Any]) -> str:
    c = q.ratio_cells(args)
    return _div(c["tp"], f"{c['tp']} + {c['fp']}", _num(args.get("zero_division", 0.0)))


@_sql_of("recall")
def _recall(q: _Sums, args: dict[str, Any]) -> str:
    c = q.ratio_cells(args)
    return _div(c["tp"], f"{c['tp']} + {c['fn']}", _num(args.get("zero_division", 0.0)))


@_sql_of("specificity")
def _specificity(q: _Sums, args: dict[str, Any]) -> str:
    c = q.ratio_cells(args)
    return _div(c["tn"], f"{c['tn']} + {c['fp']}", _num(args.get("zero_division", 0.0)))


@_sql_of("f1", "fbeta")
def _fbeta(q: _Sums, args: dict[str, Any]) -> str:
    c = q.ratio_cells(args)
    tp, fp, fn = c["tp"], c["fp"], c["fn"]
    b2 = _num(float(args.get("beta", 1.0)) ** 2)
    zd = _num(args.get("zero_division", 0.0))
    return _div(f"(1.0 + {b2}) * {tp}", f"{b2} * ({tp} + {fn}) + {tp} + {fp}", zd)


def _query(specs: list[MetricSpec], segments: int, groups: int, weighted: bool) -> str:
    parts: dict[str, Part] = {}
    finals = [_metric(spec, n, parts, weighted) for n, spec in enumerate(specs, 1)]
    keys = [k for i in range(segments) for k in (f"pr_b{i}v", f"pr_b{i}")]
    lead = "".join(f"{k}, " for k in keys)
    blocks = {block for block, _, _ in parts.values()}
    ctes = [_rows_cte(segments, groups if "groups" in blocks else 0, weighted)]
    selects = []
    for block in ("rows", "scores", "groups"):
        if block not in blocks and block != "rows":
            continue
        columns = [
            f"CAST(SUM({expr}) AS {kind}) AS {key}"
            if where == block
            else f"CAST(0 AS {kind}) AS {key}"
            for key, (where, expr, kind) in parts.items()
        ]
        source = {"rows": "pr_rows", "scores": "pr_points", "groups": "pr_group_auc"}[block]
        selects.append(f"SELECT {lead}{', '.join(columns)} FROM {source}{_group_by(keys)}")
    if "scores" in blocks:
        ctes.append(_points_ctes("pr_points", keys))
    if "groups" in blocks:
        gkeys = [*keys, *(f"pr_g{i}" for i in range(groups))]
        ctes.append(_points_ctes("pr_gpoints", gkeys))
        ctes.append(
            "pr_group_sums AS (SELECT "
            + "".join(f"{k}, " for k in gkeys)
            + "SUM(pr_pw * (pr_below + 0.5 * pr_nw)) AS pr_gu, SUM(pr_pw) AS pr_gp, "
            f"SUM(pr_nw) AS pr_gn FROM pr_gpoints{_group_by(gkeys)})"
        )
        ctes.append(
            f"pr_group_auc AS (SELECT {lead}"
            "CASE WHEN pr_gp > 0 AND pr_gn > 0 THEN pr_gu / (pr_gp * pr_gn) ELSE 0.0 END "
            "AS pr_auc, CASE WHEN pr_gp > 0 AND pr_gn > 0 THEN pr_gp + pr_gn ELSE 0.0 END "
            "AS pr_gw, CASE WHEN pr_gp > 0 AND pr_gn > 0 THEN 1.0 ELSE 0.0 END AS pr_used "
            "FROM pr_group_sums)"
        )
    ctes.append("pr_parts AS (" + " UNION ALL ".join(selects) + ")")
    sums = ", ".join(
        f"COALESCE(SUM({key}), CAST(0 AS {kind})) AS {key}" for key, (_, _, kind) in parts.items()
    )
    ctes.append(f"pr_sums AS (SELECT {lead}{sums} FROM pr_parts{_group_by(keys)})")
    outputs = [f"pr_b{i}v AS pr_col_bout{i}" for i in range(segments)]
    outputs += [
        f"CAST({final} AS {parts[final][2] if final in parts else _DOUBLE}) AS pr_m{n}"
        for n, final in enumerate(finals, 1)
    ]
    return "WITH " + ", ".join(ctes) + f" SELECT {', '.join(outputs)} FROM pr_sums" + _order(keys)


def _order(keys: list[str], *extra: str) -> str:
    """Segments in key order, NULL keys first in every dialect; then ``extra``."""
    terms = [t for k in keys for t in (f"CASE WHEN {k} IS NULL THEN 0 ELSE 1 END", k)]
    terms += list(extra)
    return f" ORDER BY {', '.join(terms)}" if terms else ""


def _names(
    dialect: str,
    label: str,
    score: str,
    weight: str | None,
    segments: list[str],
    groups: list[str],
) -> dict[str, str]:
    names = {LABEL: label, SCORE: score}
    if weight is not None:
        names[WEIGHT] = weight
    for i, column in enumerate(segments):
        names[f"pr_col_b{i}"] = column
        names[f"pr_col_bout{i}"] = column
    for i, column in enumerate(groups):
        names[f"pr_col_g{i}"] = column
    get_dialect(dialect)
    check_dotless(names.values(), dialect)
    return names


def _check(dialect: str, label: str, score: str, weight: str | None, segments: list[str]) -> None:
    get_dialect(dialect)  # a registered dialect, else an error naming them
    for what, value in (("label", label), ("score", score)):
        if not isinstance(value, str) or not value:
            raise PolarsRankError(f"{what} must be a column name, got {value!r}")
    if weight is not None and (not isinstance(weight, str) or not weight):
        raise PolarsRankError(f"weight must be a column name or None, got {weight!r}")
    lowered = [c.lower() for c in segments]
    if len(set(lowered)) < len(lowered):
        raise PolarsRankError(f"the by columns {segments} must differ (case-insensitively)")


def classification_sql(
    metrics: Sequence[str | MetricSpec] | str,
    dialect: DialectName,
    predictions: str,
    *,
    label: str = "label",
    score: str = "score",
    by: str | Iterable[str] | None = None,
    group: str | Iterable[str] | None = None,
    threshold: float = 0.5,
    weight: str | None = None,
    pretty: bool = True,
) -> str:
    """One ``SELECT`` computing classification ``metrics`` over the ``predictions`` table in
    ``dialect``: the ``by`` columns, then one DOUBLE column per metric (the counts BIGINT
    without ``weight``; named by :func:`~polars_rank.compiler.columns.column_names`), one
    row per ``by`` segment (sorted,
    NULL keys first) — :func:`polars_rank.evaluate_classification`'s numbers within 1e-12.

    Args:
        metrics: classification names (``AUC``, ``GAUC``, ``LogLoss``, ``AP``, ``Brier``,
            ``NE``, ``calibration``, ``F1(threshold=0.3)``, ``TP``, ...).
        dialect: as :func:`~polars_rank.to_sql`.
        predictions: a table reference (``[catalog.][schema.]table``).
        label: the 0/1 label column: numbers 0 and 1, booleans, or text holding one of them
            (read through its text, :data:`POSITIVE_LABELS`). score: the score
            column (probabilities for log loss, Brier, NE and calibration).
        by: column(s) whose values split the table (none named like a metric's label or SQL
            column, case-insensitively: :func:`~polars_rank.core.grouping.check_by_names`).
            group: GAUC's group column(s) (may be a ``by`` column: each segment's groups).
        threshold: the thresholded metrics' default threshold (``score >= threshold``).
        weight: a sample-weight column (scikit-learn's ``sample_weight``): every sum, count
            and pair weighs by it (counts become sums of weights; GAUC's group weight is the
            group's weight).

    The query does not check its input: :func:`~polars_rank.check_sql` does (labels outside
    {0, 1}, scores outside [0, 1], NULLs).
    """
    segments, groups = _columns(by, "by"), _columns(group, "group")
    _check(dialect, label, score, weight, segments)
    specs = _specs(metrics, _threshold(threshold))
    if any(GROUP in s.entry.columns for s in specs) and not groups:
        raise PolarsRankError(
            "GAUC averages AUC over groups: give the group column(s), e.g. group='user'"
        )
    check_by_names(segments, {}, metric_outputs(specs))
    out = column_names(specs, reserved=segments)
    names = _names(dialect, label, score, weight, segments, groups)
    names.update({f"pr_m{n}": out[s.label] for n, s in enumerate(specs, 1)})
    tables = {PREDICTIONS: ("predictions", table_reference(predictions, "predictions", dialect))}
    text = _query(specs, len(segments), len(groups), weight is not None)
    return render(text, dialect, tables, names, doc_key="pr_no_doc_key", pretty=pretty)


def _curve_query(curve: Curve, segments: int, weighted: bool, drop_intermediate: bool) -> str:
    keys = [k for i in range(segments) for k in (f"pr_b{i}v", f"pr_b{i}")]
    lead = "".join(f"{k}, " for k in keys)
    window = _partition(keys)
    ctes = [_rows_cte(segments, 0, weighted), _points_ctes("pr_points", keys, skip_null=True)]
    ctes.append(
        f"pr_steps AS (SELECT {lead}pr_s, pr_tps, pr_fps, "
        f"ROW_NUMBER() OVER ({window}ORDER BY pr_s DESC) AS pr_i, "
        f"COUNT(*) OVER ({window.strip()}) AS pr_k, "
        f"SUM(pr_pw) OVER ({window.strip()}) AS pr_np, "
        f"SUM(pr_nw) OVER ({window.strip()}) AS pr_nn, "
        f"LAG(pr_tps) OVER ({window}ORDER BY pr_s DESC) AS pr_tps_before, "
        f"LEAD(pr_tps) OVER ({window}ORDER BY pr_s DESC) AS pr_tps_after, "
        f"LAG(pr_fps) OVER ({window}ORDER BY pr_s DESC) AS pr_fps_before, "
        f"LEAD(pr_fps) OVER ({window}ORDER BY pr_s DESC) AS pr_fps_after "
        "FROM pr_points)"
    )
    ends = "pr_k <= 2 OR pr_i = 1 OR pr_i = pr_k"
    outs = [f"pr_b{i}v AS pr_col_bout{i}" for i in range(segments)]
    if curve == "roc":
        turn = (
            "pr_fps_before - 2.0 * pr_fps + pr_fps_after <> 0 "
            "OR pr_tps_before - 2.0 * pr_tps + pr_tps_after <> 0"
        )
        where = f" WHERE {ends} OR {turn}" if drop_intermediate else ""
        ctes.append(
            f"pr_curve AS (SELECT {lead}CAST(0 AS DOUBLE PRECISION) AS pr_first, pr_s AS pr_t, "
            f"{_div('pr_fps', 'pr_nn')} AS pr_x, {_div('pr_tps', 'pr_np')} AS pr_y2 "
            f"FROM pr_steps{where} UNION ALL SELECT {lead}CAST(1 AS DOUBLE PRECISION), "
            "CAST('Infinity' AS DOUBLE PRECISION), "
            f"{_div('0.0', 'MAX(pr_nn)')}, {_div('0.0', 'MAX(pr_np)')} "
            f"FROM pr_steps{_group_by(keys)})"
        )
        outs += ["pr_t AS threshold", "pr_x AS fpr", "pr_y2 AS tpr"]
        order = _order(keys, "pr_first DESC", "pr_t DESC")
    else:
        turn = "pr_tps <> pr_tps_before OR pr_tps <> pr_tps_after"
        where = f" WHERE {ends} OR {turn}" if drop_intermediate else ""
        ctes.append(
            f"pr_curve AS (SELECT {lead}CAST(0 AS DOUBLE PRECISION) AS pr_first, pr_s AS pr_t, "
            f"{_div('pr_tps', 'pr_tps + pr_fps')} AS pr_x, {_div('pr_tps', 'pr_np')} AS pr_y2 "
            f"FROM pr_steps{where} UNION ALL SELECT DISTINCT {lead}"
            "CAST(1 AS DOUBLE PRECISION), CAST(NULL AS DOUBLE PRECISION), "
            "CAST(1.0 AS DOUBLE PRECISION), CAST(0.0 AS DOUBLE PRECISION) FROM pr_steps)"
        )
        outs += ["pr_t AS threshold", "pr_x AS precision", "pr_y2 AS recall"]
        order = _order(keys, "pr_first", "pr_t")
    return "WITH " + ", ".join(ctes) + f" SELECT {', '.join(outs)} FROM pr_curve" + order


def curve_sql(
    curve: str,
    dialect: DialectName,
    predictions: str,
    *,
    label: str = "label",
    score: str = "score",
    by: str | Iterable[str] | None = None,
    weight: str | None = None,
    drop_intermediate: bool | None = None,
    pretty: bool = True,
) -> str:
    """The ROC (``curve="roc"``) or precision–recall (``"pr"``) curve of the ``predictions``
    table as one ``SELECT`` in ``dialect``, scikit-learn's points, one row per distinct score
    (per ``by`` segment, sorted, NULL keys first):

    * ``roc``: ``[by...,] threshold, fpr, tpr``, from (threshold = +Infinity, 0, 0), then
      thresholds decreasing — ``sklearn.metrics.roc_curve``;
    * ``pr``: ``[by...,] threshold, precision, recall``, thresholds increasing, then the
      closing point (NULL, 1, 0) — ``sklearn.metrics.precision_recall_curve``.

    A rate without its class (fpr without negatives, tpr and recall without positives) is
    NULL (scikit-learn: NaN, or recall 1). ``drop_intermediate`` drops the points scikit-learn
    drops (default as scikit-learn: on for ROC, off for PR). ``weight``: a sample-weight
    column. Rows with a NULL label, score or weight are skipped.

    >>> print(curve_sql("roc", "duckdb", "preds").splitlines()[0])
    WITH pr_rows AS (
    """
    kind = CURVES.get(curve.strip().lower()) if isinstance(curve, str) else None
    if kind is None:
        raise messages.bad_choice("curve", curve, ("roc", "pr"))
    segments = _columns(by, "by")
    _check(dialect, label, score, weight, segments)
    reserved = {"threshold", *(("fpr", "tpr") if kind == "roc" else ("precision", "recall"))}
    clash = [c for c in segments if c.lower() in reserved]
    if clash:
        raise PolarsRankError(f"the by column {clash[0]!r} has the name of a curve column")
    drop = (kind == "roc") if drop_intermediate is None else bool(drop_intermediate)
    names = _names(dialect, label, score, weight, segments, [])
    tables = {PREDICTIONS: ("predictions", table_reference(predictions, "predictions", dialect))}
    text = _curve_query(kind, len(segments), weight is not None, drop)
    return render(text, dialect, tables, names, doc_key="pr_no_doc_key", pretty=pretty)


#: The columns of a check's result, as :func:`~polars_rank.check_sql` names them.
_OUT = {
    f"pr_out_{name}": name
    for name in ("input", "problem", "rows_affected", "example_query", "example_doc")
}
#: The largest finite DOUBLE: a weight beyond it is infinite.
_DOUBLE_MAX = "1.7976931348623157E308"


def _is_nan(column: str, dialect: str) -> str:
    """True for NaN (:meth:`~polars_rank.core.dialects.Dialect.is_nan`), as :mod:`.checks`
    writes it."""
    return get_dialect(dialect).is_nan_per_row(column)


#: Problems of :func:`predictions_check_sql` that make the metrics wrong (the others, NULLs,
#: are rows the metrics skip, reported so that a warehouse test can see them).
HARD_PROBLEMS = ("empty", "bad_label", "bad_score", "score_outside_0_1", "bad_weight")


def predictions_check_sql(
    dialect: DialectName,
    predictions: str,
    *,
    metrics: Sequence[str | MetricSpec] | str | None = None,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    pretty: bool = True,
) -> str:
    """:func:`~polars_rank.check_sql` for a predictions table: one row per failed check
    (``input`` = ``predictions``, ``problem``, ``rows_affected``, ``example_query`` = the
    smallest offending value as text, ``example_doc`` NULL), no row when clean. Problems:

    * ``empty``: no row;
    * ``null_label`` / ``null_score`` / ``null_weight``: rows every metric skips;
    * ``bad_label``: a label other than 0 and 1 (``true`` and ``false`` for booleans, the
      text of one of them for text);
    * ``bad_score``: a NaN score;
    * ``score_outside_0_1``: a score outside [0, 1], when a metric needs probabilities (log
      loss, Brier, NE, calibration) or ``metrics`` is not given;
    * ``bad_weight``: a negative, NaN or infinite weight.
    """
    _check(dialect, label, score, weight, [])
    specs = _specs(metrics, 0.5) if metrics is not None else None
    probability = specs is None or any(s.entry.name in _PROBABILITY_METRICS for s in specs)
    inp, problem, rows, query, doc = _OUT
    src = PREDICTIONS

    def rows_where(name: str, bad: str, column: str) -> str:
        return (
            f"SELECT 'predictions' AS {inp}, '{name}' AS {problem}, COUNT(*) AS {rows}, "
            f"MIN(CAST({column} AS VARCHAR)) AS {query}, CAST(NULL AS VARCHAR) AS {doc} "
            f"FROM {src} WHERE {bad} HAVING COUNT(*) > 0"
        )

    def number(column: str) -> str:
        return f"CAST({column} AS DOUBLE)"

    parts = [
        f"SELECT 'predictions' AS {inp}, 'empty' AS {problem}, 0 AS {rows}, "
        f"CAST(NULL AS VARCHAR) AS {query}, CAST(NULL AS VARCHAR) AS {doc} "
        f"FROM {src} HAVING COUNT(*) = 0",
        rows_where("null_label", f"{LABEL} IS NULL", LABEL),
        rows_where("null_score", f"{SCORE} IS NULL", SCORE),
        rows_where(
            "bad_label",
            f"{LABEL} IS NOT NULL AND {_label_text(LABEL)} NOT IN "
            f"{_spelled(POSITIVE_LABELS + NEGATIVE_LABELS)}",
            LABEL,
        ),
        rows_where("bad_score", f"{SCORE} IS NOT NULL AND {_is_nan(SCORE, dialect)}", SCORE),
    ]
    if probability:
        outside = f"({number(SCORE)} < 0 OR {number(SCORE)} > 1)"
        outside = f"({outside} AND NOT {_is_nan(SCORE, dialect)})"  # NaN: bad_score
        parts.append(rows_where("score_outside_0_1", f"{SCORE} IS NOT NULL AND {outside}", SCORE))
    if weight is not None:
        bad = (
            f"{WEIGHT} IS NOT NULL AND ({_is_nan(WEIGHT, dialect)} OR {number(WEIGHT)} < 0 "
            f"OR {number(WEIGHT)} > {_DOUBLE_MAX})"
        )
        parts += [
            rows_where("null_weight", f"{WEIGHT} IS NULL", WEIGHT),
            rows_where("bad_weight", bad, WEIGHT),
        ]
    numbered = [f"SELECT {n} AS pr_order, c.* FROM ({part}) AS c" for n, part in enumerate(parts)]
    text = (
        f"SELECT {', '.join(_OUT)} FROM ({' UNION ALL '.join(numbered)}) AS pr_checks "
        "ORDER BY pr_order"
    )
    names = _names(dialect, label, score, weight, [], []) | dict(_OUT)
    tables = {PREDICTIONS: ("predictions", table_reference(predictions, "predictions", dialect))}
    return render(text, dialect, tables, names, doc_key="", pretty=pretty)
