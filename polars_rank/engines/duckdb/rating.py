"""The DuckDB engine of :func:`polars_rank.evaluate_ratings`: both checked tables
registered on a cursor, the compiled SQL of :func:`polars_rank.rating_sql` run once."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

import duckdb
import polars as pl

from polars_rank.core.arrow import register_frame, to_polars
from polars_rank.core.sqltext import ident
from polars_rank.engines.rating_inputs import compiled_result

if TYPE_CHECKING:
    from polars_rank.engines.request import RatingRequest


def evaluate_ratings(
    ratings: pl.DataFrame,
    predictions: pl.DataFrame,
    request: RatingRequest,
    con: duckdb.DuckDBPyConnection | None,
) -> pl.DataFrame:
    """What the Polars engine gives, from one query on a cursor of ``con`` (or a fresh
    in-memory database); the ``by`` columns come back in the ratings' types."""
    from polars_rank.compiler.rating import rating_sql

    names = {key: f"__rating_{key}_{uuid.uuid4().hex}" for key in ("ratings", "predictions")}
    connection = (con or duckdb.connect()).cursor()
    try:
        register_frame(connection, names["ratings"], ratings)
        register_frame(connection, names["predictions"], predictions)
        sql = rating_sql(
            request.specs,
            "duckdb",
            ident(names["ratings"]),
            ident(names["predictions"]),
            user=request.user,
            item=request.item,
            rating=request.rating,
            prediction=request.prediction,
            by=request.by or None,
            weight=request.weight,
        )
        values = to_polars(connection.sql(sql))
    finally:
        for name in names.values():
            connection.unregister(name)
        connection.close()
    return compiled_result(values, ratings.schema, request)
