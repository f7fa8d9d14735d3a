"""The DuckDB engine of the frame-level classification functions: register the Polars frame
on a connection, load ``sql/classification.sql``, call its table macro, return Polars."""

from __future__ import annotations

import uuid

import duckdb
import polars as pl

from polars_rank._sqlfiles import sql_text


def register(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Create (or replace) every ``cls_*`` macro of ``sql/classification.sql`` on ``con``."""
    con.execute(sql_text("classification.sql"))
    return con


def literal(value: object) -> str:
    """A Python string, bool, number or list of strings as a SQL literal."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]::VARCHAR[]"
    if isinstance(value, float):
        return f"CAST('{value!r}' AS DOUBLE)"
    return repr(value)


def run_table_macro(
    frame: pl.DataFrame,
    macro: str,
    args: list[object],
    named: dict[str, object],
    con: duckdb.DuckDBPyConnection | None,
) -> pl.DataFrame:
    """``SELECT * FROM macro('<frame>', args..., name := value...)`` as a Polars frame."""
    own = con is None
    con = duckdb.connect() if own else con
    name = f"__cls_input_{uuid.uuid4().hex}"
    try:
        register(con)
        con.register(name, frame)
        parts = [literal(name), *(literal(a) for a in args)]
        parts += [f"{key} := {literal(value)}" for key, value in named.items()]
        return con.sql(f"SELECT * FROM {macro}({', '.join(parts)})").pl()
    finally:
        con.unregister(name)
        if own:
            con.close()
