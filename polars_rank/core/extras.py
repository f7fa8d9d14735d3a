"""The optional features and the extra that installs each: ``dbt`` (PyYAML, for
``polars-rank dbt``), ``plot`` (matplotlib), ``spark`` (pyspark with its SQL dependencies) and
``clickhouse`` (chDB, the in-process ClickHouse).
A feature imports its packages through :func:`require`, which raises a
:class:`PolarsRankError` naming the extra when one is missing.

>>> require("math", "plot").__name__
'math'
>>> require("no_such_module_xyz", "plot")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
polars_rank.core.errors.PolarsRankError: plots need no_such_module_xyz, which is not installed: ...
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from polars_rank.core.errors import PolarsRankError


@dataclass(frozen=True)
class Extra:
    """An optional dependency group of ``pyproject.toml``: what needs it (``"plots need"``),
    the packages it installs (as pip requirements) and anything it cannot install."""

    needs: str
    packages: tuple[str, ...]
    also: str = ""


#: The extras of ``pyproject.toml`` (``all`` installs every one).
EXTRAS: dict[str, Extra] = {
    "clickhouse": Extra("engine='clickhouse' needs", ("chdb>=4.4",)),
    "dbt": Extra("polars-rank dbt needs", ("pyyaml>=6",)),
    "plot": Extra("plots need", ("matplotlib>=3.8",)),
    "spark": Extra(
        "engine='spark' needs",
        ("pyspark[sql]>=4.0",),
        also="; Spark also needs Java 17 or newer, which pip does not install",
    ),
}


def install_hint(extra: str) -> str:
    """How to install ``extra``: its packages, or the extra from a clone (the package is not
    on PyPI yet, so ``pip install 'polars-rank[...]'`` would fail).

    >>> install_hint("spark")
    "pip install 'pyspark[sql]>=4.0', or in a clone of polars_rank: pip install '.[spark]'"
    """
    packages = " ".join(f"'{p}'" for p in EXTRAS[extra].packages)
    return f"pip install {packages}, or in a clone of polars_rank: pip install '.[{extra}]'"


def missing_message(module: str, extra: str) -> str:
    """The message for ``module`` of ``extra`` not being importable."""
    spec = EXTRAS[extra]
    top = module.split(".")[0]
    return f"{spec.needs} {top}, which is not installed: {install_hint(extra)}{spec.also}"


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` (a package of ``extra``), or raise a :class:`PolarsRankError` that
    names the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise PolarsRankError(missing_message(module, extra)) from err
