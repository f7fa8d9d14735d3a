"""The ClickHouse engine: the compiled SQL of :func:`polars_rank.to_sql` (dialect
``clickhouse``) run by chDB, the in-process ClickHouse; only the result rows come back.
``con`` is a chDB session or connection (:mod:`.session`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank.engines.base import Engine
from polars_rank.engines.registry import register
from polars_rank.engines.request import ClassificationRequest, Request

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from polars_rank.catalog.names import MetricSpec
    from polars_rank.core.dialects import DialectName
    from polars_rank.core.types import Connection, TableInput


@register
class ClickHouseEngine(Engine):
    """:mod:`polars_rank.engines.clickhouse`: every input a Polars frame, a PyArrow table, a
    Parquet path or a table name of the session; ``by`` is the SQL's own
    (``to_sql(..., by=...)``), evaluated in ClickHouse."""

    name = "clickhouse"

    def read(self, obj: TableInput, what: str, con: Connection | None) -> TableInput:
        """For the families checked in Polars (classification, ratings, off-policy): a
        Parquet path scanned, a table name read from the session, else the input."""
        if isinstance(obj, str) and obj.lower().endswith(".parquet"):
            return pl.scan_parquet(obj)
        if isinstance(obj, str):
            from polars_rank.engines.clickhouse.session import tables

            with tables(con) as session:
                table = session.table(obj, what)
                return session.result(f"SELECT * FROM {table.reference}")
        return obj

    def evaluate(self, request: Request) -> pl.DataFrame | pl.LazyFrame:
        return self.evaluate_by(request)

    def evaluate_by(self, request: Request) -> pl.DataFrame | pl.LazyFrame:
        from polars_rank.engines.clickhouse.session import tables
        from polars_rank.engines.compiled import (
            evaluate_tables,
            refuse_unsupported,
            require_qrels,
        )
        from polars_rank.engines.compiled_recsys import (
            evaluate_recommender_tables,
            given_inputs,
        )

        refuse_unsupported(request.specs, "clickhouse")
        options = request.options.unordered("engine='clickhouse'")
        given = given_inputs(request.recommender, options.columns.doc)
        recommender = given or any(s.entry.family == "recommender" for s in request.specs)
        if not recommender:
            require_qrels(request.specs, request.per_query, request.qrels)
        with tables(request.con) as session:
            run = session.table(request.run, "run")
            if recommender:
                qrels = request.qrels
                result = evaluate_recommender_tables(
                    session,
                    run,
                    session.table(qrels, "qrels") if qrels is not None else None,
                    {name: session.table(obj, name) for name, obj in given.items()},
                    request.specs,
                    options,
                    per_query=request.per_query,
                    warn=request.warn,
                    by=request.by,
                )
            else:
                result = evaluate_tables(
                    session,
                    run,
                    session.table(request.qrels, "qrels"),
                    request.specs,
                    options,
                    per_query=request.per_query,
                    warn=request.warn,
                    by=request.by,
                )
        return result.lazy() if isinstance(request.run, pl.LazyFrame) else result

    def evaluate_recommender_by(self, request: Request) -> pl.DataFrame | pl.LazyFrame:
        return self.evaluate_by(request)

    def classify(
        self, lf: pl.LazyFrame, specs: list[MetricSpec], request: ClassificationRequest
    ) -> pl.DataFrame:
        """The compiled classification query on the checked predictions
        (:func:`polars_rank.engines.classification_sql.evaluate_compiled`)."""
        from polars_rank.engines import classification_sql
        from polars_rank.engines.clickhouse.session import tables

        segments, groups, weights = (
            request.by,
            request.group,
            [request.weight] * bool(request.weight),
        )
        columns = list(dict.fromkeys([*segments, *groups, request.label, request.score, *weights]))

        def execute(frame: pl.DataFrame, sql: Callable[[str], str]) -> pl.DataFrame:
            with tables(request.con) as session:
                return session.result(sql(session.table(frame, "data").reference))

        return classification_sql.evaluate_compiled(
            lf.select(columns).collect(),
            specs,
            label=request.label,
            score=request.score,
            by=segments,
            group=groups,
            weight=request.weight,
            dialect="clickhouse",
            execute=execute,
        )

    def run_sql(
        self,
        frames: Mapping[str, pl.DataFrame],
        sql: Callable[[DialectName, Mapping[str, str]], str],
        con: Connection | None,
    ) -> pl.DataFrame:
        """The frames copied into temporary tables of the session, dropped afterwards."""
        from polars_rank.engines.clickhouse.session import tables

        with tables(con) as session:
            references = {key: session.table(frame, key).reference for key, frame in frames.items()}
            return session.result(sql("clickhouse", references))
