"""DuckDB: text may compare by a collation (``COLLATE "binary"`` compares bytes); every
column name is quoted, so that ``preserve_identifier_case`` folds none of the output names.
The engine's check queries: ``hash``, a NaN test no Parquet statistics skip, ``first(...
ORDER BY ...)`` (``min_by`` skips NULL), text ids keyed by the session's ``_pr_id_bytes``."""

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
    hash_function: ClassVar[str | None] = "hash"

    def is_nan_per_row(self, column: str) -> str:
        # a plain isnan(x) finds no NaN in a Parquet file whose statistics leave NaN out of
        # the min/max (as Polars writes them): DuckDB trusts them and drops the test; the
        # volatile random() keeps it row by row
        return f"isnan(coalesce(CAST({column} AS DOUBLE), random()))"

    def is_infinite(self, double: str) -> str:
        return f"coalesce(isinf({double}), false)"

    def value_at_smallest(self, value: str, key: str) -> str:
        # min_by skips a NULL value
        return f"first({value} ORDER BY {key} ASC NULLS LAST)"

    def text_id_key(self, column: str) -> str:
        # the engine session's macro: CAST(id AS VARCHAR) COLLATE "binary"
        return f"_pr_id_bytes({column})"
