"""The engines by name: each ``engines/<name>/engine.py`` defines an
:class:`~polars_rank.engines.base.Engine` subclass and registers it here, so that a new engine
is new modules only. The registry is the one place that knows the engines' names:
``evaluate``'s choices, the messages listing them, the CLI's ``--engine`` choices.

>>> from polars_rank.engines import registry
>>> registry.names()
('polars', 'clickhouse', 'duckdb', 'spark')
>>> registry.engine("duckdb").name
'duckdb'
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import TypeVar

from polars_rank.core.errors import bad_choice
from polars_rank.engines.base import Engine

#: The engine used when none is named (listed first).
DEFAULT = "polars"

_ENGINES: dict[str, Engine] = {}
_LOADED: list[bool] = []
_E = TypeVar("_E", bound=type[Engine])


def register(cls: _E) -> _E:
    """Class decorator: register one instance of the engine ``cls`` under ``cls.name``."""
    _ENGINES[cls.name] = cls()
    return cls


def _load() -> None:
    """Import every ``engines/<name>/engine.py`` (each registers its engine); an engine's
    heavy imports (DuckDB's macros, pyspark) happen only when it runs."""
    if _LOADED:
        return
    _LOADED.append(True)
    folder = Path(__file__).resolve().parent
    for module in sorted(pkgutil.iter_modules([str(folder)]), key=lambda m: m.name):
        if module.ispkg and (folder / module.name / "engine.py").is_file():
            importlib.import_module(f"{__package__}.{module.name}.engine")


def names() -> tuple[str, ...]:
    """The registered engines' names: the default first, then by name (whatever order they
    were imported in)."""
    _load()
    return tuple(sorted(_ENGINES, key=lambda name: (name != DEFAULT, name)))


def command_line_names() -> tuple[str, ...]:
    """The engines the command line offers (``--engine``): those that run without a session
    the command would have to start (:attr:`~polars_rank.engines.base.Engine.command_line`)."""
    return tuple(name for name in names() if _ENGINES[name].command_line)


def find(name: object) -> Engine | None:
    """The engine registered as ``name``, or None."""
    _load()
    return _ENGINES.get(name) if isinstance(name, str) else None


def engine(name: object, option: str = "engine") -> Engine:
    """The engine registered as ``name``; an unknown name is an error listing the engines."""
    found = find(name)
    if found is None:
        raise bad_choice(option, name, names())
    return found
