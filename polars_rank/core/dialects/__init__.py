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

from polars_rank.core.dialects.base import Dialect
from polars_rank.core.errors import bad_choice

_REGISTRY: dict[str, Dialect] = {}


def register(cls: type[Dialect]) -> type[Dialect]:
    """Register the dialect class ``cls`` under its ``name`` (a subclass of :class:`Dialect`
    that sets ``name`` is registered when it is defined)."""
    _REGISTRY[cls.name] = cls()
    return cls


def unregister(name: str) -> None:
    """Remove the dialect ``name`` from the registry."""
    del _REGISTRY[name]


def dialect_names() -> tuple[str, ...]:
    """The registered dialects' names, in the order they were registered."""
    return tuple(_REGISTRY)


def get_dialect(name: str | Dialect) -> Dialect:
    """The registered dialect ``name`` (a :class:`Dialect` is returned as it is); any other
    value is a :class:`~polars_rank.core.errors.PolarsRankError` naming the choices."""
    if isinstance(name, Dialect):
        return name
    if isinstance(name, str) and name in _REGISTRY:
        return _REGISTRY[name]
    raise bad_choice("dialect", name, _REGISTRY)


#: The built-in dialects' names, as :func:`polars_rank.to_sql` takes them (``databricks`` is
#: Spark SQL): each is the module of this package that defines it, imported (and so
#: registered) in this order; ``tests/test_identifiers.py`` checks they are the registered ones.
DialectName = Literal["spark", "databricks", "postgres", "bigquery", "snowflake", "trino", "duckdb"]

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
