"""The classification metrics with sample weights (scikit-learn's ``sample_weight``), as Polars
expressions over a group's rows: what :func:`polars_rank.evaluate_classification` computes
with ``weight=``.

Every row weighs its weight instead of 1; a row whose label, score or weight is null is
skipped. Counts become sums of weights; AUC is the weighted Mann–Whitney statistic
Σ w⁺·(w⁻ below + ½·w⁻ tied) / (W⁺·W⁻) (the area under scikit-learn's weighted ROC curve); AP
is Σ over positives of w·precision(≥ s) / W⁺, precision weighted; log loss, Brier, NE and
calibration are weighted means. With every weight 1 these are the unweighted metrics.

>>> df = pl.DataFrame({"y": [0, 1, 0, 1], "p": [0.1, 0.4, 0.4, 0.8], "w": [1, 2, 1, 1]})
>>> df.select(expression("roc_auc", {}, "y", "p", "w")).item()  # (2·(1 + ½) + 1·2) / (3·2)
0.8333333333333334
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from polars_rank.classification.binary import EPS, check_zero_division
from polars_rank.core.errors import PolarsRankError


def _parts(label: str, score: str, weight: str) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(y as 0.0/1.0, score, weight) as Float64 over the rows with all three present."""
    keep = pl.col(label).is_not_null() & pl.col(score).is_not_null() & pl.col(weight).is_not_null()
    y = (pl.col(label).cast(pl.Float64) == 1).cast(pl.Float64).filter(keep)
    s = pl.col(score).cast(pl.Float64).filter(keep)
    w = pl.col(weight).cast(pl.Float64).filter(keep)
    return y, s, w


def _auc(y: pl.Expr, s: pl.Expr, w: pl.Expr) -> pl.Expr:
    negative, positive = w * (1 - y), w * y
    ascending = negative.sort_by(s)
    cumulative = ascending.cum_sum()
    first = (s.rank("min").cast(pl.Int64) - 1).cast(pl.UInt32)
    last = (s.rank("max").cast(pl.Int64) - 1).cast(pl.UInt32)
    below = cumulative.gather(first) - ascending.gather(first)
    tied = cumulative.gather(last) - below
    p, n = positive.sum(), negative.sum()
    u = (positive * (below + 0.5 * tied)).sum()
    return pl.when((p > 0) & (n > 0)).then(u / (p * n))


def _ap(y: pl.Expr, s: pl.Expr, w: pl.Expr) -> pl.Expr:
    positive = w * y
    last = (s.rank("max", descending=True).cast(pl.Int64) - 1).cast(pl.UInt32)
    tps = positive.sort_by(s, descending=True).cum_sum().gather(last)
    total = w.sort_by(s, descending=True).cum_sum().gather(last)
    terms = pl.when(total > 0).then(positive * tps / total).otherwise(0.0)
    p = positive.sum()
    return pl.when(p > 0).then(terms.sum() / p)


def _ratio(numerator: pl.Expr, denominator: pl.Expr, otherwise: float | None = None) -> pl.Expr:
    value = pl.when(denominator > 0).then(numerator / denominator)
    return value if otherwise is None else value.otherwise(pl.lit(otherwise, dtype=pl.Float64))


#: The weighted form of each catalog metric, by its canonical name (:func:`_form`).
_FORMS: dict[str, Callable[[_Rows, Mapping[str, Any]], pl.Expr]] = {}


class _Rows:
    """A group's rows: ``y`` (0.0/1.0), ``s`` (the score) and ``w`` (the weight), Float64
    over the rows with all three present; ``total`` and ``positives`` their weights."""

    def __init__(self, label: str, score: str, weight: str) -> None:
        self.y, self.s, self.w = _parts(label, score, weight)
        self.total, self.positives = self.w.sum(), (self.w * self.y).sum()

    def cells(self, arguments: Mapping[str, Any]) -> dict[str, pl.Expr]:
        """The weighted confusion counts at the metric's threshold."""
        y, w = self.y, self.w
        predicted = (self.s >= float(arguments["threshold"])).cast(pl.Float64)
        return {
            "tp": (w * y * predicted).sum(),
            "fp": (w * (1 - y) * predicted).sum(),
            "fn": (w * y * (1 - predicted)).sum(),
            "tn": (w * (1 - y) * (1 - predicted)).sum(),
        }


def _form(
    *names: str,
) -> Callable[[Callable[[_Rows, Mapping[str, Any]], pl.Expr]], Callable[..., pl.Expr]]:
    """Register the decorated function as the weighted form of the metrics ``names``."""

    def register(
        function: Callable[[_Rows, Mapping[str, Any]], pl.Expr],
    ) -> Callable[..., pl.Expr]:
        for name in names:
            _FORMS[name] = function
        return function

    return register


def expression(
    name: str, arguments: Mapping[str, Any], label: str, score: str, weight: str
) -> pl.Expr:
    """The weighted value of the catalog metric ``name`` (canonical name; ``arguments`` as
    :meth:`~polars_rank.catalog.names.MetricSpec.arguments` gives them) over a group's rows."""
    if name not in _FORMS:
        raise PolarsRankError(f"metric {name!r} has no weighted form")  # pragma: no cover
    return _FORMS[name](_Rows(label, score, weight), {**arguments, "metric": name})


@_form("roc_auc")
def _roc_auc(rows: _Rows, arguments: Mapping[str, Any]) -> pl.Expr:
    return _auc(rows.y, rows.s, rows.w)


@_form("average_precision")
def _average_precision(rows: _Rows, arguments: Mapping[str, Any]) -> pl.Expr:
    return _ap(rows.y, rows.s, rows.w)


def _log_loss_value(rows: _Rows) -> pl.Expr:
    chosen = pl.when(rows.y == 1).then(rows.s).otherwise(1 - rows.s).clip(EPS, 1 - EPS)
    return _ratio((rows.w * -chosen.log()).sum(), rows.total)


@_form("log_loss")
def _log_loss(rows: _Rows, arguments: Mapping[str, Any]) -> pl.Expr:
    return _log_loss_value(rows)


@_form("normalized_entropy")
def _normalized_entropy(rows: _Rows, arguments: Mapping[str, Any]) -> pl.Expr:
    rate = rows.positives / rows.total
    entropy = -(rate * rate.log() + (1 - rate) * (1 - rate).log())
    defined = (rows.total > 0) & (rate > 0) & (rate < 1)
    return pl.when(defined).then(_log_loss_value(rows) / entropy)


@_form("brier_score")
def _brier_score(rows: _Rows, arguments: Mapping[str, Any]) -> pl.Expr:
    return _ratio((rows.w * (rows.s - rows.y) ** 2).sum(), rows.total)


@_form("calibration")
def _calibration(rows: _Rows, arguments: Mapping[str, Any]) -> pl.Expr:
    return _ratio((rows.w * rows.s).sum(), rows.positives)


@_form("tp", "fp", "fn", "tn")
def _count(rows: _Rows, arguments: Mapping[str, Any]) -> pl.Expr:
    return rows.cells(arguments)[arguments["metric"]]


def _zero_division(arguments: Mapping[str, Any]) -> float:
    return check_zero_division(arguments.get("zero_division", 0.0))


@_form("accuracy")
def _accuracy(rows: _Rows, arguments: Mapping[str, Any]) -> pl.Expr:
    c = rows.cells(arguments)
    return _ratio(c["tp"] + c["tn"], c["tp"] + c["tn"] + c["fp"] + c["fn"])


@_form("precision")
def _precision(rows: _Rows, arguments: Mapping[str, Any]) -> pl.Expr:
    c = rows.cells(arguments)
    return _ratio(c["tp"], c["tp"] + c["fp"], _zero_division(arguments))


@_form("recall")
def _recall(rows: _Rows, arguments: Mapping[str, Any]) -> pl.Expr:
    c = rows.cells(arguments)
    return _ratio(c["tp"], c["tp"] + c["fn"], _zero_division(arguments))


@_form("specificity")
def _specificity(rows: _Rows, arguments: Mapping[str, Any]) -> pl.Expr:
    c = rows.cells(arguments)
    return _ratio(c["tn"], c["tn"] + c["fp"], _zero_division(arguments))


@_form("f1", "fbeta")
def _fbeta(rows: _Rows, arguments: Mapping[str, Any]) -> pl.Expr:
    c = rows.cells(arguments)
    b2 = float(arguments.get("beta", 1.0)) ** 2
    tp = c["tp"]
    return _ratio((1 + b2) * tp, b2 * (tp + c["fn"]) + tp + c["fp"], _zero_division(arguments))


def group_auc(
    lf: pl.LazyFrame,
    groups: Sequence[str],
    label: str,
    score: str,
    weight: str,
    mode: str,
    by: Sequence[str],
) -> pl.LazyFrame:
    """``[by...,] group_auc``: GAUC with sample weights, each group's AUC weighted and the
    group weighing its total weight (``mode="impressions"``) or 1 (``"uniform"``), over the
    groups with both classes; null when none has both."""
    y, _, w = _parts(label, score, weight)
    per_group = lf.group_by(*dict.fromkeys([*by, *groups])).agg(
        expression("roc_auc", {}, label, score, weight).alias("__cls_auc"),
        w.sum().alias("__cls_w"),
    )
    auc, size = pl.col("__cls_auc"), pl.col("__cls_w")
    used = auc.is_not_null()
    if mode == "uniform":
        value = auc.mean()
    else:
        value = (auc * size).filter(used).sum() / size.filter(used).sum()
    summary = pl.when(used.any()).then(value).alias("group_auc")
    return per_group.group_by(list(by)).agg(summary) if by else per_group.select(summary)
