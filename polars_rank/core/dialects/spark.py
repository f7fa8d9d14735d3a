"""Spark SQL: backtick-quoted names; its cast to STRING is the byte-comparing default
collation (UTF8_BINARY), and a STRING column's collation (Spark 4's UTF8_LCASE) would order
text ids by it."""

from __future__ import annotations

from typing import ClassVar

from polars_rank.core.dialects.base import Dialect


class Spark(Dialect):
    name = "spark"
    title = "Spark"

    @property
    def dbt_adapters(self) -> tuple[str, ...]:
        """dbt's ``spark`` and ``databricks`` adapters (Databricks runs Spark SQL)."""
        return ("spark", "databricks")
    quote_char = "`"
    byte_key: ClassVar[tuple[str, str | None, bool] | None] = ("string", None, False)
    integer_id_number: ClassVar[str | None] = (
        "CASE WHEN TYPEOF(x) IN ('tinyint', 'smallint', 'int', 'bigint') "
        "THEN TRY_CAST(CAST(x AS STRING) AS BIGINT) END"
    )
