"""The Polars engine: one lazy plan, LazyFrame in, LazyFrame out."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank.engines.base import Engine
from polars_rank.engines.registry import register
from polars_rank.engines.request import (
    ClassificationRequest,
    FusionRequest,
    PolicyRequest,
    RatingRequest,
    Request,
    SlateRequest,
)

if TYPE_CHECKING:
    from polars_rank.catalog.names import MetricSpec
    from polars_rank.core.options import Options
    from polars_rank.core.types import Connection


@register
class PolarsEngine(Engine):
    """:mod:`polars_rank.engines.polars`: the metrics' expressions in one lazy plan."""

    name = "polars"

    def evaluate(self, request: Request) -> pl.DataFrame | pl.LazyFrame:
        from polars_rank.catalog.recommender_inputs import prepare
        from polars_rank.engines.polars.ranking import evaluate_polars

        run, qrels, specs, options = request.run, request.qrels, request.specs, request.options
        inputs = prepare(
            specs, run, qrels, request.recommender, options, per_query=request.per_query
        )
        return evaluate_polars(
            run,
            qrels,
            specs,
            options,
            per_query=request.per_query,
            inputs=inputs,
            warn=request.warn,
        )

    def evaluate_keyed(
        self,
        run: pl.LazyFrame,
        qrels: pl.LazyFrame,
        specs: list[MetricSpec],
        options: Options,
        warn: Callable[[int], None],
        con: Connection | None,
    ) -> pl.LazyFrame:
        from polars_rank.engines.polars.ranking import evaluate_polars

        return evaluate_polars(run, qrels, specs, options, per_query=True, warn=warn).lazy()

    def evaluate_recommender_groups(
        self,
        run: pl.LazyFrame,
        qrels: pl.LazyFrame | None,
        request: Request,
        groups: pl.DataFrame,
        given: dict[str, Any],
    ) -> pl.DataFrame | pl.LazyFrame:
        from polars_rank.engines.polars.ranking import evaluate_by

        return evaluate_by(
            run,
            qrels,
            request.specs,
            request.options,
            request.by,
            groups,
            given,
            per_query=request.per_query,
            warn=request.warn,
        )

    def classify(
        self, lf: pl.LazyFrame, specs: list[MetricSpec], request: ClassificationRequest
    ) -> pl.DataFrame:
        from polars_rank.engines.polars.classification import evaluate_classification

        return evaluate_classification(
            lf,
            specs,
            label=request.label,
            score=request.score,
            by=request.by,
            group=request.group,
            weight=request.weight,
        )

    def rate(
        self, ratings: pl.LazyFrame, predictions: pl.LazyFrame, request: RatingRequest
    ) -> pl.DataFrame:
        from polars_rank.engines.polars.rating import evaluate_ratings

        return evaluate_ratings(ratings, predictions, request)

    def estimate_slates(
        self, log: pl.LazyFrame, policy: pl.LazyFrame, request: SlateRequest
    ) -> pl.DataFrame:
        from polars_rank.engines.slate_inputs import joined
        from polars_rank.policy.slate import estimate

        rows = joined(log, policy, request)
        return estimate(rows, request.specs, request.by, request.bootstrap)

    def fuse(self, runs: pl.LazyFrame, request: FusionRequest) -> pl.LazyFrame:
        from polars_rank.ranking.fusion import plan

        return plan(runs, request.method, request.norm, request.runs, request.weights, request.k)

    def diversity_plan(self) -> Callable[..., pl.DataFrame]:
        from polars_rank.diversity.plan import per_query

        return per_query

    def estimate(
        self,
        log: pl.LazyFrame,
        policy: pl.LazyFrame,
        q_hat: pl.LazyFrame | None,
        request: PolicyRequest,
    ) -> pl.DataFrame:
        from polars_rank.engines.polars.policy import evaluate_policy

        return evaluate_policy(log, policy, q_hat, request)
