"""Shared by the rating tests: the metric names, scikit-learn's values, random ratings and
predictions."""

from __future__ import annotations

import numpy as np
import polars as pl
from sklearn import metrics as skm

ALL = ["RMSE", "MSE", "MAE", "R2", "explained_variance", "max_error", "MAPE"]
WEIGHTED = [m for m in ALL if m != "max_error"]


def sklearn_values(y: np.ndarray, p: np.ndarray, w: np.ndarray | None) -> dict[str, float]:
    out = {
        "RMSE": skm.root_mean_squared_error(y, p, sample_weight=w),
        "MSE": skm.mean_squared_error(y, p, sample_weight=w),
        "MAE": skm.mean_absolute_error(y, p, sample_weight=w),
        "R2": skm.r2_score(y, p, sample_weight=w),
        "explained_variance": skm.explained_variance_score(y, p, sample_weight=w),
        "MAPE": skm.mean_absolute_percentage_error(y, p, sample_weight=w),
    }
    if w is None:
        out["max_error"] = skm.max_error(y, p)
    return out


def random_tables(seed: int, n: int = 300) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Ratings of 40 users × 30 items (a sample of pairs), predictions of most of them plus
    some pairs without a rating; a segment column and weights (a few null)."""
    rng = np.random.default_rng(seed)
    pairs = rng.choice(40 * 30, size=n, replace=False)
    ratings = pl.DataFrame(
        {
            "user": pairs // 30,
            "item": [f"i{x}" for x in pairs % 30],
            "rating": rng.integers(1, 6, n).astype(float),
            "market": rng.choice(["de", "fr", "us"], n),
            "w": rng.uniform(0, 3, n),
        }
    )
    kept = ratings.sample(fraction=0.8, seed=seed).select(
        "user", "item", prediction=pl.col("rating") + pl.Series(rng.normal(0, 1, int(n * 0.8)))
    )
    extra = pl.DataFrame(
        {"user": [100, 101], "item": ["i0", "i1"], "prediction": [3.0, 4.0]},
        schema=kept.schema,
    )
    return ratings, pl.concat([kept, extra])


def expected(
    ratings: pl.DataFrame, predictions: pl.DataFrame, weight: str | None
) -> dict[str, float]:
    pairs = ratings.join(predictions, on=["user", "item"])
    w = pairs[weight].to_numpy() if weight else None
    return sklearn_values(pairs["rating"].to_numpy(), pairs["prediction"].to_numpy(), w)
