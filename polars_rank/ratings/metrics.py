"""Rating prediction metrics as Polars aggregations: the error between a rating and its
prediction, scikit-learn's regression metrics (``mean_squared_error``,
``root_mean_squared_error``, ``mean_absolute_error``, ``r2_score``,
``explained_variance_score``, ``max_error``, ``mean_absolute_percentage_error``) with its
``sample_weight``.

Each function takes the rating column, the prediction column and an optional weight column
and gives an aggregate expression, named as the function, over the rows of one (user, item)
pair each, already joined
(:func:`polars_rank.evaluate_ratings` joins them). With ``e = rating − prediction`` and
``w`` the weights (1 without): MSE = Σw·e² / Σw; null when Σw = 0 (no pair, or every
weight 0; scikit-learn raises).

>>> import polars as pl
>>> df = pl.DataFrame({"rating": [3.0, 5.0], "prediction": [2.0, 5.0]})
>>> df.select(mse("rating", "prediction"), mae("rating", "prediction")).rows()
[(0.5, 0.5)]
"""

from __future__ import annotations

import polars as pl

#: float64 machine epsilon: MAPE's floor on |rating| (scikit-learn's).
EPS = 2.220446049250313e-16


def _parts(rating: str, prediction: str, weight: str | None) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """``(y, e, w)``: the rating, the error ``y − prediction`` and the weight (1 without)."""
    y = pl.col(rating).cast(pl.Float64)
    e = y - pl.col(prediction).cast(pl.Float64)
    w = pl.col(weight).cast(pl.Float64) if weight is not None else y.is_not_null().cast(pl.Float64)
    return y, e, w


def _mean(value: pl.Expr, w: pl.Expr) -> pl.Expr:
    """Σw·value / Σw, null when Σw is not positive."""
    total = w.sum()
    return pl.when(total > 0).then((w * value).sum() / total)


def _fraction(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """1 − numerator / denominator with scikit-learn's ``force_finite=True``: 1.0 when the
    numerator is 0, 0.0 when only the denominator is."""
    return (
        pl.when(numerator == 0)
        .then(pl.lit(1.0))
        .when(denominator == 0)
        .then(pl.lit(0.0))
        .otherwise(1.0 - numerator / denominator)
    )


def mse(rating: str, prediction: str, weight: str | None = None) -> pl.Expr:
    """Mean squared error, Σw·e² / Σw (scikit-learn ``mean_squared_error``)."""
    _, e, w = _parts(rating, prediction, weight)
    return _mean(e * e, w).alias("mse")


def rmse(rating: str, prediction: str, weight: str | None = None) -> pl.Expr:
    """Root mean squared error, √(Σw·e² / Σw) (scikit-learn ``root_mean_squared_error``;
    MS Recommenders ``rmse``)."""
    return mse(rating, prediction, weight).sqrt().alias("rmse")


def mae(rating: str, prediction: str, weight: str | None = None) -> pl.Expr:
    """Mean absolute error, Σw·|e| / Σw (scikit-learn ``mean_absolute_error``)."""
    _, e, w = _parts(rating, prediction, weight)
    return _mean(e.abs(), w).alias("mae")


def r2(rating: str, prediction: str, weight: str | None = None) -> pl.Expr:
    """Coefficient of determination, 1 − Σw·e² / Σw·(y − ȳ)², ȳ the weighted mean rating
    (scikit-learn ``r2_score``, ``force_finite=True``); null for fewer than two pairs
    (scikit-learn: NaN) or Σw = 0."""
    y, e, w = _parts(rating, prediction, weight)
    total = w.sum()
    mean_y = (w * y).sum() / total
    value = _fraction((w * e * e).sum(), (w * (y - mean_y) ** 2).sum())
    return pl.when((pl.len() >= 2) & (total > 0)).then(value).alias("r2")


def explained_variance(rating: str, prediction: str, weight: str | None = None) -> pl.Expr:
    """Explained variance, 1 − var_w(e) / var_w(y) with weighted means (scikit-learn
    ``explained_variance_score``, ``force_finite=True``); null when Σw = 0."""
    y, e, w = _parts(rating, prediction, weight)
    total = w.sum()
    mean_y, mean_e = (w * y).sum() / total, (w * e).sum() / total
    value = _fraction((w * (e - mean_e) ** 2).sum() / total, (w * (y - mean_y) ** 2).sum() / total)
    return pl.when(total > 0).then(value).alias("explained_variance")


def max_error(rating: str, prediction: str, weight: str | None = None) -> pl.Expr:
    """The largest |e| (scikit-learn ``max_error``, which takes no weights); null without a
    pair."""
    _, e, _ = _parts(rating, prediction, None)
    return e.abs().max().alias("max_error")


def mape(rating: str, prediction: str, weight: str | None = None) -> pl.Expr:
    """Mean absolute percentage error, Σw·|e| / max(|y|, ε) / Σw, ε = 2⁻⁵² (scikit-learn
    ``mean_absolute_percentage_error``: a fraction, not a percentage)."""
    y, e, w = _parts(rating, prediction, weight)
    return _mean(e.abs() / pl.max_horizontal(y.abs(), pl.lit(EPS)), w).alias("mape")
