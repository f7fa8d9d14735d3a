"""The Spark engine: the portable SQL of :func:`polars_rank.to_sql`, run by Spark; only the
result rows come back to the driver. ``con`` is the SparkSession."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import polars as pl

from polars_rank.engines.base import Engine
from polars_rank.engines.registry import register
from polars_rank.engines.request import ClassificationRequest, PolicyRequest, RatingRequest, Request

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

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

    def rate(
        self, ratings: pl.LazyFrame, predictions: pl.LazyFrame, request: RatingRequest
    ) -> pl.DataFrame:
        """The compiled SQL of :func:`~polars_rank.rating_sql` (dialect ``spark``) run by
        Spark on the checked tables."""
        from polars_rank.engines.spark.rating import evaluate_ratings

        return evaluate_ratings(
            ratings.collect(), predictions.collect(), request, _spark(request.con)
        )

    def estimate(
        self,
        log: pl.LazyFrame,
        policy: pl.LazyFrame,
        q_hat: pl.LazyFrame | None,
        request: PolicyRequest,
    ) -> pl.DataFrame:
        """The compiled SQL of :func:`~polars_rank.policy_sql` (dialect ``spark``) run by
        Spark on the checked tables."""
        from polars_rank.engines.spark.policy import evaluate_policy

        return evaluate_policy(
            log.collect(), policy.collect(), _collect(q_hat), request, _spark(request.con)
        )


def _collect(lf: pl.LazyFrame | None) -> pl.DataFrame | None:
    return lf.collect() if lf is not None else None
