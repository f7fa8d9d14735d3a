"""The DuckDB engine of :func:`polars_rank.evaluate_policy`: the checked tables registered on
a cursor, the compiled SQL of :func:`polars_rank.policy_sql` run once."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

import duckdb
import polars as pl

from polars_rank.core.arrow import register_frame, to_polars
from polars_rank.core.sqltext import ident
from polars_rank.engines.policy_inputs import compiled_result, request_sql

if TYPE_CHECKING:
    from polars_rank.engines.request import PolicyRequest


def evaluate_policy(
    log: pl.DataFrame,
    policy: pl.DataFrame,
    q_hat: pl.DataFrame | None,
    request: PolicyRequest,
    con: duckdb.DuckDBPyConnection | None,
) -> pl.DataFrame:
    """What the Polars engine gives, from one query on a cursor of ``con`` (or a fresh
    in-memory database)."""
    frames = {"log": log, "policy": policy}
    if q_hat is not None:
        frames["q_hat"] = q_hat
    names = {key: f"__policy_{key}_{uuid.uuid4().hex}" for key in frames}
    connection = (con or duckdb.connect()).cursor()
    try:
        for key, frame in frames.items():
            register_frame(connection, names[key], frame)
        sql = request_sql(request, "duckdb", {k: ident(names[k]) for k in names})
        values = to_polars(connection.sql(sql))
    finally:
        for name in names.values():
            connection.unregister(name)
        connection.close()
    return compiled_result(values, log.schema, request)
