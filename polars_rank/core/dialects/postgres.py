"""PostgreSQL, the dialect the base query is written in: text may compare by a locale
(``COLLATE "C"`` compares bytes); no ``isnan``, and NaN compares equal to itself and above
every number."""

from __future__ import annotations

from typing import ClassVar

from polars_rank.core.dialects.base import Dialect


class Postgres(Dialect):
    name = "postgres"
    title = "PostgreSQL"
    byte_collation: ClassVar[str | None] = "C"
    byte_key: ClassVar[tuple[str, str | None, bool] | None] = ("text", "C", False)
    least_ignores_nulls = True
    integer_id_number: ClassVar[str | None] = (
        "CASE WHEN CAST(PG_TYPEOF(x) AS TEXT) IN ('smallint', 'integer', 'bigint') "
        "THEN CAST(CAST(x AS TEXT) AS BIGINT) END"
    )
    nan_above_every_number = True

    def is_nan(self, double: str) -> str:
        return f"{double} = CAST('NaN' AS DOUBLE)"
