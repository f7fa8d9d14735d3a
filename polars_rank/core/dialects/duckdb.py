"""DuckDB: text may compare by a collation (``COLLATE "binary"`` compares bytes); every
column name is quoted, so that ``preserve_identifier_case`` folds none of the output names."""

from __future__ import annotations

from typing import ClassVar

from polars_rank.core.dialects.base import Dialect


class DuckDB(Dialect):
    name = "duckdb"
    title = "DuckDB"
    byte_collation: ClassVar[str | None] = "binary"
    byte_key: ClassVar[tuple[str, str | None, bool] | None] = ("varchar", "binary", False)
    least_ignores_nulls = True
    integer_id_number: ClassVar[str | None] = (
        "CASE WHEN TYPEOF(x) IN ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', "
        "'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT') "
        "THEN TRY_CAST(CAST(x AS TEXT) AS HUGEINT) END"
    )
    quotes_every_column = True
