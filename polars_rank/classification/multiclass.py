"""Multi-class metrics from (actual, predicted) label columns as Polars expressions.

For a class c of a group: T_c = rows with actual = predicted = c, A_c = rows with actual c
(its support), P_c = rows predicted c. The classes are the labels seen in either column of
the group (scikit-learn's default ``labels``). Per class: precision T/P, recall T/A,
F-beta (1 + β²)T / (β²A + P).

Averages (``average=``): ``"macro"`` is the plain mean over classes, ``"weighted"`` the mean
weighted by A_c, ``"micro"`` is computed from the summed counts (ΣT / n for all three). A class
whose denominator is 0 scores ``zero_division``; with NaN it is left out of the average, as in
scikit-learn — and when the classes left all have weight 0 (every row's actual class was never
predicted), the weighted average falls back to their plain mean, as scikit-learn's does.

Each sum over classes is taken as a sum over the correctly classified rows, each worth
1/P_c (or the matching per-class weight), with A_c and P_c read from equal-value counts
(``rank("max") − rank("min") + 1``): one pass, no Python loop, valid inside ``group_by``.
"""

from __future__ import annotations

import math
from typing import Literal

import polars as pl

from polars_rank.classification.binary import check_zero_division
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.expr import ColumnOrExpr as ColumnLike
from polars_rank.core.expr import col

Average = Literal["macro", "micro", "weighted"]


def _pairs(actual: ColumnLike, predicted: ColumnLike) -> tuple[pl.Expr, pl.Expr]:
    a, p = col(actual), col(predicted)
    keep = a.is_not_null() & p.is_not_null()
    return a.filter(keep), p.filter(keep)


def _equal_count(values: pl.Expr) -> pl.Expr:
    """For each row, how many rows of the group share its value."""
    return (values.rank("max") - values.rank("min") + 1).cast(pl.Float64)


def multiclass_accuracy(actual: ColumnLike, predicted: ColumnLike) -> pl.Expr:
    """Share of rows with actual = predicted; null for no rows. sklearn: ``accuracy_score``."""
    a, p = _pairs(actual, predicted)
    return (a == p).cast(pl.Float64).mean().alias("accuracy")


def _score(
    actual: ColumnLike,
    predicted: ColumnLike,
    wa: float,
    wp: float,
    average: Average,
    zero_division: float,
    name: str,
) -> pl.Expr:
    """Per-class (wa + wp)·T / (wa·A + wp·P), averaged: precision (0, 1), recall (1, 0)."""
    zd = check_zero_division(zero_division)
    a, p = _pairs(actual, predicted)
    n = a.len().cast(pl.Float64)
    correct = a == p
    if average == "micro":
        return pl.when(n > 0).then(correct.cast(pl.Float64).sum() / n).alias(name)
    if average not in ("macro", "weighted"):
        raise PolarsRankError(f"average must be 'macro', 'micro' or 'weighted', got {average!r}")
    count_a, count_p = _equal_count(a), _equal_count(p)
    per_row = (wa + wp) / (wa * count_a + wp * count_p)  # class score per correct row
    classes = a.append(p).n_unique().cast(pl.Float64)
    if wa == 0:  # precision: undefined for classes never predicted
        undefined_classes = classes - p.n_unique().cast(pl.Float64)
        undefined_rows = (~a.is_in(p.implode())).cast(pl.Float64).sum()
    elif wp == 0:  # recall: undefined for classes never actual (weight 0 in "weighted")
        undefined_classes = classes - a.n_unique().cast(pl.Float64)
        undefined_rows = pl.lit(0.0)
    else:  # F-beta: β²A + P > 0 for every class seen
        undefined_classes = undefined_rows = pl.lit(0.0)
    macro_total = per_row.filter(correct).sum()
    if average == "macro":
        total, count, undefined = macro_total, classes, undefined_classes
    else:
        total = (per_row * count_a).filter(correct).sum()
        count, undefined = n, undefined_rows
    if math.isnan(zd):
        # scikit-learn's _nanaverage: when every defined class has weight 0, the plain mean
        defined = count - undefined
        plain_mean = macro_total / (classes - undefined_classes)
        value = pl.when(defined > 0).then(total / defined).otherwise(plain_mean)
    else:
        value = (total + zd * undefined) / count
    return pl.when(n > 0).then(value).alias(name)


def multiclass_precision(
    actual: ColumnLike,
    predicted: ColumnLike,
    average: Average = "macro",
    zero_division: float = 0.0,
) -> pl.Expr:
    """Averaged per-class precision T_c / P_c (``zero_division`` for a class never predicted).

    sklearn: ``precision_score(actual, predicted, average=..., zero_division=...)``.

    >>> df = pl.DataFrame({"a": ["x", "x", "y"], "p": ["x", "y", "y"]})
    >>> df.select(multiclass_precision("a", "p")).item()  # (1/1 + 1/2) / 2
    0.75
    """
    return _score(actual, predicted, 0.0, 1.0, average, zero_division, "precision")


def multiclass_recall(
    actual: ColumnLike,
    predicted: ColumnLike,
    average: Average = "macro",
    zero_division: float = 0.0,
) -> pl.Expr:
    """Averaged per-class recall T_c / A_c (``zero_division`` for a class never actual).

    sklearn: ``recall_score(actual, predicted, average=..., zero_division=...)``.
    """
    return _score(actual, predicted, 1.0, 0.0, average, zero_division, "recall")


def multiclass_fbeta(
    actual: ColumnLike,
    predicted: ColumnLike,
    beta: float,
    average: Average = "macro",
    zero_division: float = 0.0,
) -> pl.Expr:
    """Averaged per-class F-beta (1 + β²)·T_c / (β²·A_c + P_c).

    sklearn: ``fbeta_score(actual, predicted, beta=..., average=..., zero_division=...)``.
    """
    b2 = float(beta) ** 2
    return _score(actual, predicted, b2, 1.0, average, zero_division, "fbeta")


def multiclass_f1(
    actual: ColumnLike,
    predicted: ColumnLike,
    average: Average = "macro",
    zero_division: float = 0.0,
) -> pl.Expr:
    """Averaged per-class F1 2·T_c / (A_c + P_c). sklearn: ``f1_score(..., average=...)``."""
    return multiclass_fbeta(actual, predicted, 1.0, average, zero_division).alias("f1")
