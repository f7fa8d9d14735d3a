"""The DuckDB engine of the frame-level classification functions: register the Polars frame
on a connection, load ``sql/classification.sql``, call its table macro, return Polars."""

from __future__ import annotations

import uuid

import duckdb
import polars as pl

from polars_rank.core.arrow import register_frame, to_polars
from polars_rank.core.sqltext import literal
from polars_rank.duckdb import session, sql_path


def register(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Create (or replace) every ``cls_*`` macro of ``sql/classification.sql`` on ``con``."""
    con.execute(sql_path("classification.sql").read_text(encoding="utf-8"))
    return con


def run_table_macro(
    frame: pl.DataFrame,
    macro: str,
    args: list[object],
    named: dict[str, object],
    con: duckdb.DuckDBPyConnection | None,
) -> pl.DataFrame:
    """``SELECT * FROM macro('<frame>', args..., name := value...)`` as a Polars frame, on
    ``con`` or the package's in-memory database (see :func:`polars_rank.duckdb.session`)."""
    name = f"__cls_input_{uuid.uuid4().hex}"
    with session(con) as connection:
        register_frame(connection, name, frame)
        try:
            parts = [literal(name), *(literal(a) for a in args)]
            parts += [f"{key} := {literal(value)}" for key, value in named.items()]
            return to_polars(connection.sql(f"SELECT * FROM {macro}({', '.join(parts)})"))
        finally:
            connection.unregister(name)
