"""The SQL dialects of :func:`polars_rank.to_sql`: one :class:`Dialect` subclass per module,
overriding only what differs, each registering itself here by its name.

>>> get_dialect("bigquery").quote("my col")
'`my col`'
>>> get_dialect("trino").names_may_start_with_underscore
False

A new dialect is a new module here (a subclass of :class:`Dialect`, or of the dialect it
extends, setting ``name`` and the facts that differ) named in :data:`DialectName` (which
imports it), and its reserved list in ``core/keywords/``; no other code names it.
"""

from __future__ import annotations

from importlib import import_module
from typing import Literal, get_args

from polars_rank.core.dialects.base import (
    Dialect,
    dialect_names,
    get_dialect,
    register,
    unregister,
)

#: The built-in dialects' names, as :func:`polars_rank.to_sql` takes them (``databricks`` is
#: Spark SQL): each is the module of this package that defines it, imported (and so
#: registered) in this order, the order of every list of dialects (the catalog's targets, the
#: dbt adapters, the command line's choices); ``tests/core/test_identifiers.py`` checks they
#: are the registered ones.
DialectName = Literal[
    "duckdb", "postgres", "spark", "databricks", "bigquery", "snowflake", "trino", "clickhouse"
]

for _module in get_args(DialectName):
    import_module(f"{__name__}.{_module}")

#: The built-in dialects (the registry's names once they are imported).
DIALECTS: tuple[str, ...] = dialect_names()

__all__ = [
    "DIALECTS",
    "Dialect",
    "DialectName",
    "dialect_names",
    "get_dialect",
    "register",
    "unregister",
]
