"""The DuckDB engine: one SQL query over the package's macros, on the user's connection (a
cursor of its own) or the package's in-memory database."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import polars as pl

from polars_rank.engines.base import Engine
from polars_rank.engines.registry import register
from polars_rank.engines.request import ClassificationRequest, Request

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    import duckdb

    from polars_rank.catalog.names import MetricSpec
    from polars_rank.core.dialects import DialectName
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

    def run_sql(
        self,
        frames: Mapping[str, pl.DataFrame],
        sql: Callable[[DialectName, Mapping[str, str]], str],
        con: Connection | None,
    ) -> pl.DataFrame:
        """The frames registered on a cursor of ``con`` (or of a fresh in-memory database)
        under unique names, unregistered afterwards; the query run once."""
        import uuid

        import duckdb

        from polars_rank.core.arrow import register_frame, to_polars
        from polars_rank.core.sqltext import ident

        names = {key: f"__pr_{key}_{uuid.uuid4().hex}" for key in frames}
        connection = (_duck(con) or duckdb.connect()).cursor()
        try:
            for key, frame in frames.items():
                register_frame(connection, names[key], frame)
            return to_polars(connection.sql(sql("duckdb", {k: ident(n) for k, n in names.items()})))
        finally:
            for name in names.values():
                connection.unregister(name)
            connection.close()


def _collect(lf: pl.LazyFrame | None) -> pl.DataFrame | None:
    return lf.collect() if lf is not None else None
