"""Snowflake: the ``utf8`` collation is its byte order (``COLLATE(x, 'utf8')``); no
``isnan``, and NaN compares equal to itself and above every number."""

from __future__ import annotations

from typing import ClassVar

from polars_rank.core.dialects.base import Dialect


class Snowflake(Dialect):
    name = "snowflake"
    title = "Snowflake"
    byte_key: ClassVar[tuple[str, str | None, bool] | None] = ("varchar", "utf8", True)
    nan_above_every_number = True

    def is_nan(self, double: str) -> str:
        return f"{double} = CAST('NaN' AS DOUBLE)"
