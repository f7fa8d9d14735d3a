"""Trino: unquoted names start with a letter; no collations (text compares as bytes)."""

from __future__ import annotations

from polars_rank.core.dialects.base import Dialect


class Trino(Dialect):
    name = "trino"
    title = "Trino"
    names_may_start_with_underscore = False
