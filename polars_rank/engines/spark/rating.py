"""``evaluate_ratings(..., engine="spark")``: the compiled SQL of
:func:`polars_rank.rating_sql` (dialect ``spark``) runs in Spark over the checked ratings and
predictions (Polars frames, sent through Arrow as temporary views); one row per ``by``
segment comes back."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank.core.frames import from_arrow
from polars_rank.engines.rating_inputs import compiled_result
from polars_rank.engines.spark.checks import quoted
from polars_rank.engines.spark.ranking import _session, _spark_frame, _temp_views

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from polars_rank.engines.request import RatingRequest


def evaluate_ratings(
    ratings: pl.DataFrame,
    predictions: pl.DataFrame,
    request: RatingRequest,
    con: SparkSession | None,
) -> pl.DataFrame:
    """The Polars engine's result, computed by Spark."""
    from polars_rank.compiler.rating import rating_sql

    spark = _session(con)
    rated, _, _ = _spark_frame(spark, ratings, "ratings")
    predicted, _, _ = _spark_frame(spark, predictions, "predictions")
    with _temp_views(spark, ratings=rated, predictions=predicted) as views:
        sql = rating_sql(
            request.specs,
            "spark",
            quoted(views["ratings"]),
            quoted(views["predictions"]),
            user=request.user,
            item=request.item,
            rating=request.rating,
            prediction=request.prediction,
            by=request.by or None,
            weight=request.weight,
        )
        values = from_arrow(spark.sql(sql).toArrow())
    return compiled_result(values, ratings.schema, request)
