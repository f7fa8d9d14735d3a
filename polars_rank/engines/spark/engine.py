"""The Spark engine: the portable SQL of :func:`polars_rank.to_sql`, run by Spark; only the
result rows come back to the driver. ``con`` is the SparkSession."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import polars as pl

from polars_rank.engines.base import Engine
from polars_rank.engines.registry import register
from polars_rank.engines.request import ClassificationRequest, RatingRequest, Request

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from pyspark.sql import SparkSession

    from polars_rank.core.dialects import DialectName
    from polars_rank.core.types import Connection


def _spark(con: Connection | None) -> SparkSession | None:
    return cast("SparkSession | None", con)


@register
class SparkEngine(Engine):
    """:mod:`polars_rank.engines.spark`: every input a Spark DataFrame, a table name or a
    Polars frame; ``by`` is the SQL's own (``to_sql(..., by=...)``), evaluated in Spark."""

    name = "spark"
    #: the command line starts no Spark session
    command_line = False

    def evaluate(self, request: Request) -> pl.DataFrame | pl.LazyFrame:
        if any(v is not None for v in request.recommender.values()) or any(
            s.entry.family == "recommender" for s in request.specs
        ):
            return self._recommender(request)
        from polars_rank.engines.spark.ranking import evaluate_spark

        return evaluate_spark(
            request.run,
            request.qrels,
            request.specs,
            request.options,
            per_query=request.per_query,
            con=_spark(request.con),
            warn=request.warn,
        )

    def evaluate_by(self, request: Request) -> pl.DataFrame | pl.LazyFrame:
        from polars_rank.engines.spark.ranking import evaluate_spark

        return evaluate_spark(
            request.run,
            request.qrels,
            request.specs,
            request.options,
            per_query=request.per_query,
            con=_spark(request.con),
            warn=request.warn,
            by=request.by,
        )

    def evaluate_recommender_by(self, request: Request) -> pl.DataFrame | pl.LazyFrame:
        return self._recommender(request)

    def _recommender(self, request: Request) -> pl.DataFrame | pl.LazyFrame:
        """Ranking and recommender metrics with the recommender inputs, one query (with
        ``by``, the SQL's groups)."""
        from polars_rank.engines.spark.recsys import evaluate_spark_recommender

        return evaluate_spark_recommender(
            request.run,
            request.qrels,
            request.specs,
            request.options,
            per_query=request.per_query,
            recommender=request.recommender,
            con=_spark(request.con),
            warn=request.warn,
            by=request.by,
        )

    def evaluate_classification(self, request: ClassificationRequest) -> pl.DataFrame:
        """The check and the evaluation run in Spark, one row per segment comes back."""
        from polars_rank.engines.spark.classification import evaluate_classification_spark

        return evaluate_classification_spark(
            request.data,
            request.specs,
            label=request.label,
            score=request.score,
            by=request.by,
            group=request.group,
            threshold=request.threshold,
            weight=request.weight,
            con=request.con,
            validate=request.validate,
        )

    def evaluate_ratings(self, request: RatingRequest) -> pl.DataFrame:
        """Ratings or predictions that are Spark DataFrames or table names of the session are
        checked and evaluated in Spark (:mod:`polars_rank.engines.spark.ratings`); Polars
        frames (pandas, Arrow) are checked in Polars and sent through Arrow, as on every
        engine."""
        from polars_rank.engines.spark.ratings import evaluate_ratings_spark, in_session

        if in_session(request.ratings) or in_session(request.predictions):
            return evaluate_ratings_spark(request)
        return super().evaluate_ratings(request)

    def run_sql(
        self,
        frames: Mapping[str, pl.DataFrame],
        sql: Callable[[DialectName, Mapping[str, str]], str],
        con: Connection | None,
    ) -> pl.DataFrame:
        """The frames sent through Arrow as temporary views of ``con`` (or the active
        session), dropped afterwards; only the result rows come back."""
        from polars_rank.core.frames import from_arrow
        from polars_rank.engines.spark.checks import quoted
        from polars_rank.engines.spark.ranking import _session, _spark_frame, _temp_views

        spark = _session(_spark(con))
        sent = {key: _spark_frame(spark, frame, key)[0] for key, frame in frames.items()}
        with _temp_views(spark, **sent) as views:
            query = sql("spark", {key: quoted(name) for key, name in views.items()})
            return from_arrow(spark.sql(query).toArrow())


def _collect(lf: pl.LazyFrame | None) -> pl.DataFrame | None:
    return lf.collect() if lf is not None else None
