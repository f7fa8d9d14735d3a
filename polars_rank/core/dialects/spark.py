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
    text_type: ClassVar[str] = "STRING"
    #: A DataFrame has no row order of its own: its partition order.
    scan_order_row_number: ClassVar[str] = (
        "ROW_NUMBER() OVER (ORDER BY monotonically_increasing_id() ASC NULLS LAST)"
    )
    hash_function: ClassVar[str | None] = "XXHASH64"

    def array_length(self, array: str) -> str:
        return f"ARRAY_SIZE({array})"  # SIZE gives -1 for NULL under some settings

    def any_element(self, array: str, element: str, condition: str) -> str:
        return f"EXISTS({array}, {element} -> {condition})"

    def distinct_count(self, value: str) -> str:
        # a query's list is built partly before the shuffle when the table is clustered by
        # query, where COUNT(DISTINCT ...) shuffles and hashes every value
        return f"SIZE(ARRAY_DISTINCT(COLLECT_LIST({value})))"
