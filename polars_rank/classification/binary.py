"""Binary classification metrics as Polars expressions (aggregations over a group's rows).

Conventions shared by every function here:

* ``label``: 1 (or ``True``) is the positive class, anything else negative
  (:func:`polars_rank.classification.validate_binary` insists on {0, 1}).
* A row whose label or score is null is skipped.
* Thresholded metrics predict positive when ``score >= threshold``.
* ``zero_division`` (0.0, 1.0 or NaN, as in scikit-learn) is returned for a zero denominator.
"""

from __future__ import annotations

import math

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.core.expr import ColumnOrExpr as ColumnLike
from polars_rank.core.expr import col, safe_div

#: float64 machine epsilon (2**-52): scikit-learn 1.9 clips probabilities to [EPS, 1 - EPS].
EPS = 2.220446049250313e-16


def check_zero_division(zero_division: float) -> float:
    """``zero_division`` as a float; 0.0, 1.0 or NaN (scikit-learn's choices) only."""
    value = float(zero_division)
    if not (value in (0.0, 1.0) or math.isnan(value)):
        raise PolarsRankError(f"zero_division must be 0.0, 1.0 or NaN, got {zero_division!r}")
    return value


def _pairs(label: ColumnLike, score: ColumnLike) -> tuple[pl.Expr, pl.Expr]:
    """(is-positive, score as Float64), restricted to rows where both columns are present."""
    y = col(label).cast(pl.Float64)
    s = col(score).cast(pl.Float64)
    keep = y.is_not_null() & s.is_not_null()
    return (y == 1).filter(keep), s.filter(keep)


def _predicted(score: ColumnLike, threshold: float) -> pl.Expr:
    return col(score).cast(pl.Float64) >= pl.lit(float(threshold), dtype=pl.Float64)


def _positive(label: ColumnLike) -> pl.Expr:
    return col(label).cast(pl.Float64) == 1


def _count(mask: pl.Expr) -> pl.Expr:
    # null & false is false and null & true is null: a row with a null column never counts
    return mask.sum().cast(pl.Int64)


def tp(label: ColumnLike, score: ColumnLike, threshold: float = 0.5) -> pl.Expr:
    """True positives: rows with label 1 and ``score >= threshold``."""
    return _count(_positive(label) & _predicted(score, threshold)).alias("tp")


def fp(label: ColumnLike, score: ColumnLike, threshold: float = 0.5) -> pl.Expr:
    """False positives: rows with label 0 and ``score >= threshold``."""
    return _count(~_positive(label) & _predicted(score, threshold)).alias("fp")


def tn(label: ColumnLike, score: ColumnLike, threshold: float = 0.5) -> pl.Expr:
    """True negatives: rows with label 0 and ``score < threshold``."""
    return _count(~_positive(label) & ~_predicted(score, threshold)).alias("tn")


def fn(label: ColumnLike, score: ColumnLike, threshold: float = 0.5) -> pl.Expr:
    """False negatives: rows with label 1 and ``score < threshold``."""
    return _count(_positive(label) & ~_predicted(score, threshold)).alias("fn")


def confusion(label: ColumnLike, score: ColumnLike, threshold: float = 0.5) -> pl.Expr:
    """The four counts as one struct ``{tp, fp, tn, fn}`` (Int64 fields).

    >>> df = pl.DataFrame({"y": [1, 0, 1], "p": [0.9, 0.6, 0.2]})
    >>> df.select(confusion("y", "p")).item()
    {'tp': 1, 'fp': 1, 'tn': 0, 'fn': 1}
    """
    return pl.struct(
        tp(label, score, threshold),
        fp(label, score, threshold),
        tn(label, score, threshold),
        fn(label, score, threshold),
    ).alias("confusion")


def _div(numerator: pl.Expr, denominator: pl.Expr, zero_division: float) -> pl.Expr:
    return safe_div(numerator, denominator, check_zero_division(zero_division))


def accuracy(label: ColumnLike, score: ColumnLike, threshold: float = 0.5) -> pl.Expr:
    """(tp + tn) / n; null for no rows. sklearn: ``accuracy_score(y, p >= threshold)``."""
    t, f = tp(label, score, threshold), tn(label, score, threshold)
    n = t + f + fp(label, score, threshold) + fn(label, score, threshold)
    return pl.when(n > 0).then((t + f).cast(pl.Float64) / n.cast(pl.Float64)).alias("accuracy")


def precision(
    label: ColumnLike, score: ColumnLike, threshold: float = 0.5, zero_division: float = 0.0
) -> pl.Expr:
    """tp / (tp + fp); ``zero_division`` when nothing is predicted positive.

    sklearn: ``precision_score(y, p >= threshold, zero_division=...)``.
    """
    t = tp(label, score, threshold)
    return _div(t, t + fp(label, score, threshold), zero_division).alias("precision")


def recall(
    label: ColumnLike, score: ColumnLike, threshold: float = 0.5, zero_division: float = 0.0
) -> pl.Expr:
    """tp / (tp + fn); ``zero_division`` when there is no positive.

    sklearn: ``recall_score(y, p >= threshold, zero_division=...)``.
    """
    t = tp(label, score, threshold)
    return _div(t, t + fn(label, score, threshold), zero_division).alias("recall")


def specificity(
    label: ColumnLike, score: ColumnLike, threshold: float = 0.5, zero_division: float = 0.0
) -> pl.Expr:
    """tn / (tn + fp), the recall of the negative class; ``zero_division`` with no negative.

    sklearn: ``recall_score(y, p >= threshold, pos_label=0, zero_division=...)``.
    """
    t = tn(label, score, threshold)
    return _div(t, t + fp(label, score, threshold), zero_division).alias("specificity")


def fbeta(
    label: ColumnLike,
    score: ColumnLike,
    beta: float,
    threshold: float = 0.5,
    zero_division: float = 0.0,
) -> pl.Expr:
    """(1 + β²)·tp / (β²·(tp + fn) + (tp + fp)); ``zero_division`` when that denominator is 0.

    sklearn: ``fbeta_score(y, p >= threshold, beta=beta, zero_division=...)``.
    """
    b2 = float(beta) ** 2
    t = tp(label, score, threshold).cast(pl.Float64)
    actual = t + fn(label, score, threshold)
    predicted = t + fp(label, score, threshold)
    return _div((1 + b2) * t, b2 * actual + predicted, zero_division).alias("fbeta")


def f1(
    label: ColumnLike, score: ColumnLike, threshold: float = 0.5, zero_division: float = 0.0
) -> pl.Expr:
    """2·tp / (2·tp + fp + fn); sklearn: ``f1_score(y, p >= threshold, zero_division=...)``."""
    return fbeta(label, score, 1.0, threshold, zero_division).alias("f1")


def roc_auc(label: ColumnLike, score: ColumnLike) -> pl.Expr:
    """ROC AUC by Mann–Whitney: (Σ average-rank of positives − P(P+1)/2) / (P·N).

    A tied (positive, negative) pair counts 1/2, exactly as ``roc_auc_score``. Null when the
    group lacks positives or negatives (scikit-learn warns and returns NaN).

    >>> df = pl.DataFrame({"y": [0, 1, 0, 1], "p": [0.1, 0.4, 0.4, 0.8]})
    >>> df.select(roc_auc("y", "p")).item()  # pairs: 1 + 1/2 + 1 + 1 of 4
    0.875
    """
    pos, s = _pairs(label, score)
    y = pos.cast(pl.Float64)
    p = y.sum()
    n = y.count().cast(pl.Float64) - p
    u = (s.rank("average") * y).sum() - p * (p + 1) / 2
    return pl.when((p > 0) & (n > 0)).then(u / (p * n)).alias("roc_auc")


def average_precision(label: ColumnLike, score: ColumnLike) -> pl.Expr:
    """Average precision, scikit-learn's step-wise sum Σ (Rₖ − Rₖ₋₁)·Pₖ over distinct scores.

    Equal to the mean over positives of (positives with score ≥ s) / (rows with score ≥ s), s
    the positive's score — so tied scores form one threshold, as in
    ``precision_recall_curve``. Null when there is no positive (scikit-learn returns 0.0).
    """
    pos, s = _pairs(label, score)
    above_pos = s.filter(pos).rank("max", descending=True).cast(pl.Float64)
    above_all = s.rank("max", descending=True).filter(pos).cast(pl.Float64)
    return (above_pos / above_all).mean().alias("average_precision")


def log_loss(label: ColumnLike, probability: ColumnLike) -> pl.Expr:
    """Mean of −ln(p) over positives and −ln(1 − p) over negatives (natural log).

    Each of p and 1 − p is clipped to [ε, 1 − ε], ε = 2⁻⁵² (float64 machine epsilon), as
    scikit-learn 1.9's ``log_loss`` does. Null for no rows.
    """
    pos, p = _pairs(label, probability)
    chosen = pl.when(pos).then(p).otherwise(1 - p)
    return (-(chosen.clip(EPS, 1 - EPS).log())).mean().alias("log_loss")


def brier_score(label: ColumnLike, probability: ColumnLike) -> pl.Expr:
    """Mean of (p − y)² (scikit-learn's ``brier_score_loss``). Null for no rows.

    >>> df = pl.DataFrame({"y": [1, 0], "p": [0.8, 0.4]})
    >>> round(df.select(brier_score("y", "p")).item(), 12)  # (0.2² + 0.4²) / 2
    0.1
    """
    pos, p = _pairs(label, probability)
    return ((p - pos.cast(pl.Float64)) ** 2).mean().alias("brier_score")


def normalized_entropy(label: ColumnLike, probability: ColumnLike) -> pl.Expr:
    """Log loss over the entropy of the base rate r (the share of positives):
    ``log_loss / −(r·ln r + (1 − r)·ln(1 − r))`` (He et al. 2014), below 1 when the model
    beats always predicting r. Null when a class is missing (the entropy is 0).

    >>> df = pl.DataFrame({"y": [1, 0], "p": [0.5, 0.5]})
    >>> df.select(normalized_entropy("y", "p")).item()  # ln 2 / ln 2
    1.0
    """
    pos, _ = _pairs(label, probability)
    r = pos.cast(pl.Float64).mean()
    entropy = -(r * r.log() + (1 - r) * (1 - r).log())
    loss = log_loss(label, probability)
    return pl.when((r > 0) & (r < 1)).then(loss / entropy).alias("normalized_entropy")


def calibration(label: ColumnLike, probability: ColumnLike) -> pl.Expr:
    """Predicted over observed rate: mean(p) / mean(y) = Σ p / Σ y, 1 for a calibrated model
    on average. Null without positives.

    >>> df = pl.DataFrame({"y": [1, 0, 0, 0], "p": [0.5, 0.25, 0.25, 0.5]})
    >>> df.select(calibration("y", "p")).item()  # 1.5 / 1
    1.5
    """
    pos, p = _pairs(label, probability)
    positives = pos.cast(pl.Float64).sum()
    return pl.when(positives > 0).then(p.sum() / positives).alias("calibration")
