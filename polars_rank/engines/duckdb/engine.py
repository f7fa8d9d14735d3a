"""The DuckDB engine: one SQL query over the package's macros, on the user's connection (a
cursor of its own) or the package's in-memory database."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from polars_rank.engines.base import Engine
from polars_rank.engines.registry import register
from polars_rank.engines.request import ClassificationRequest, PolicyRequest, RatingRequest, Request

if TYPE_CHECKING:
    import duckdb

    from polars_rank.catalog.names import MetricSpec
    from polars_rank.core.options import Options
    from polars_rank.core.types import Connection, TableInput


def _duck(con: Connection | None) -> duckdb.DuckDBPyConnection | None:
    return cast("duckdb.DuckDBPyConnection | None", con)


@register
class DuckDBEngine(Engine):
    """:mod:`polars_rank.engines.duckdb`; it also reads table and view names of ``con``,
    DuckDB relations and Parquet paths (:func:`polars_rank.duckdb.read_input`)."""

    name = "duckdb"

    def read(self, obj: TableInput, what: str, con: Connection | None) -> TableInput:
        from polars_rank.duckdb import read_input

        return read_input(obj, what, con)

    def evaluate(self, request: Request) -> pl.DataFrame | pl.LazyFrame:
        from polars_rank.engines.duckdb.ranking import evaluate_duckdb

        return evaluate_duckdb(
            request.run,
            request.qrels,
            request.specs,
            request.options,
            per_query=request.per_query,
            con=_duck(request.con),
            recommender=request.recommender,
            warn=request.warn,
        )

    def evaluate_by_in_engine(self, request: Request) -> tuple[pl.LazyFrame, pl.DataFrame] | None:
        """A run that is a Parquet path, a table name or a relation stays in DuckDB
        (:mod:`polars_rank.engines.duckdb.grouped`) unless that module hands it back;
        :func:`~polars_rank.evaluate_runs`' stacked runs are frames."""
        from polars_rank.engines.duckdb import grouped

        duck = _duck(request.con)
        if request.run_names is not None or request.qrels is None:
            return None
        if not grouped.in_duckdb(request.run, request.options, duck):
            return None
        return grouped.evaluate_duckdb_by(
            request.run,
            request.qrels,
            request.specs,
            request.options,
            request.by,
            con=duck,
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
        """The keyed run numbered (:func:`polars_rank.core.grouping.numbered_inputs`: DuckDB
        reads plain columns), evaluated per query, the keys given back."""
        from polars_rank.core import grouping
        from polars_rank.engines.duckdb.ranking import evaluate_duckdb

        run_df, qrels_df, ids, checked = grouping.numbered_inputs(
            run.collect(), qrels.collect(), options
        )
        numbered = evaluate_duckdb(
            run_df, qrels_df, specs, checked, per_query=True, con=_duck(con), warn=warn
        )
        return grouping.from_numbers(numbered.lazy(), ids, options.columns.query)

    def evaluate_recommender_groups(
        self,
        run: pl.LazyFrame,
        qrels: pl.LazyFrame | None,
        request: Request,
        groups: pl.DataFrame,
        given: dict[str, Any],
    ) -> pl.DataFrame | pl.LazyFrame:
        from polars_rank.engines.duckdb.grouped_recsys import evaluate_duckdb_by

        return evaluate_duckdb_by(
            run.collect(),
            None if qrels is None else qrels.collect(),
            request.specs,
            request.options,
            request.by,
            groups,
            given,
            per_query=request.per_query,
            con=_duck(request.con),
            warn=request.warn,
        )

    def classify(
        self, lf: pl.LazyFrame, specs: list[MetricSpec], request: ClassificationRequest
    ) -> pl.DataFrame:
        """The ``cls_*`` macros; with a weight, the compiled SQL of ``to_sql``."""
        from polars_rank.engines.duckdb import classification

        segments, groups, label, score = request.by, request.group, request.label, request.score
        if request.weight is not None:
            columns = list(dict.fromkeys([*segments, *groups, label, score, request.weight]))
            return classification.evaluate_compiled(
                lf.select(columns).collect(),
                specs,
                label=label,
                score=score,
                by=segments,
                group=groups,
                weight=request.weight,
                con=request.con,
            )
        frame = lf.select(list(dict.fromkeys([*segments, *groups, label, score]))).collect()
        return classification.evaluate_classification(
            frame, specs, label=label, score=score, by=segments, group=groups, con=request.con
        )

    def rate(
        self, ratings: pl.LazyFrame, predictions: pl.LazyFrame, request: RatingRequest
    ) -> pl.DataFrame:
        """The compiled SQL of :func:`~polars_rank.rating_sql` (dialect ``duckdb``)."""
        from polars_rank.engines.duckdb.rating import evaluate_ratings

        return evaluate_ratings(
            ratings.collect(), predictions.collect(), request, _duck(request.con)
        )

    def estimate(
        self,
        log: pl.LazyFrame,
        policy: pl.LazyFrame,
        q_hat: pl.LazyFrame | None,
        request: PolicyRequest,
    ) -> pl.DataFrame:
        """The compiled SQL of :func:`~polars_rank.policy_sql` (dialect ``duckdb``)."""
        from polars_rank.engines.duckdb.policy import evaluate_policy

        return evaluate_policy(
            log.collect(), policy.collect(), _collect(q_hat), request, _duck(request.con)
        )


def _collect(lf: pl.LazyFrame | None) -> pl.DataFrame | None:
    return lf.collect() if lf is not None else None
