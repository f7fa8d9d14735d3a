"""Rating prediction: scikit-learn's regression metrics over (user, item) pairs, as Polars
aggregations (:mod:`.metrics`); :func:`polars_rank.evaluate_ratings` evaluates them on every
engine and :func:`polars_rank.rating_sql` prints their SQL.

>>> import polars as pl
>>> from polars_rank import ratings
>>> df = pl.DataFrame({"rating": [4.0, 2.0], "prediction": [3.0, 2.0]})
>>> df.select(ratings.rmse("rating", "prediction")).item()
0.7071067811865476
"""

from polars_rank.ratings.metrics import explained_variance, mae, mape, max_error, mse, r2, rmse

__all__ = ["explained_variance", "mae", "mape", "max_error", "mse", "r2", "rmse"]
