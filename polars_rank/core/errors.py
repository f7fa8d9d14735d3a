"""The one exception type polars_rank raises for bad input, the way its messages name what a
user can change, and its warnings.

Messages name options as the user sets them: Python keyword arguments (``duplicates='first'``)
by default; a front end with its own spelling (the command line: ``--duplicates first``)
installs a :class:`Wording` with :func:`worded`.

>>> bad_choice("duplicates", "last", ("error", "first", "max"))
PolarsRankError("duplicates must be 'error', 'first' or 'max', got 'last'")
>>> option("duplicates", "first")
"duplicates='first'"
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any


class PolarsRankError(ValueError):
    """Bad input: a message that names the column, query, metric, option or line at fault."""


def _keyword(name: str, value: object) -> str:
    return f"{name}={value!r}"


@dataclass(frozen=True)
class Wording:
    """How messages name what a user can change.

    Attributes:
        option: ``(option, value)`` → how the user sets it (``duplicates='first'``).
        cast_ids: how to make the id dtypes of run and judgments agree.
        metric_names: where every metric name is listed.
    """

    option: Callable[[str, object], str] = _keyword
    cast_ids: str = "cast one of them, e.g. pl.col('query').cast(pl.String)"
    metric_names: str = "polars_rank.valid_names() or `polars-rank metrics`"


#: The wording of the Python API.
PYTHON = Wording()

_WORDING: ContextVar[Wording | None] = ContextVar("polars_rank_wording", default=None)


def wording() -> Wording:
    """The wording messages use now."""
    return _WORDING.get() or PYTHON


def option(name: str, value: object) -> str:
    """Option ``name`` set to ``value``, as the user writes it."""
    return wording().option(name, value)


@contextmanager
def worded(wording: Wording) -> Iterator[None]:
    """Messages raised inside the block use ``wording``."""
    token = _WORDING.set(wording)
    try:
        yield
    finally:
        _WORDING.reset(token)


def bad_choice(option: str, value: object, choices: Iterable[object]) -> PolarsRankError:
    """``option`` got a value outside its choices."""
    *rest, last = [repr(c) for c in choices]
    listed = f"{', '.join(rest)} or {last}" if rest else last
    return PolarsRankError(f"{option} must be {listed}, got {value!r}")


def not_positive_integer(option: str, value: object) -> PolarsRankError:
    """``option`` needs a positive integer."""
    return PolarsRankError(f"{option} must be a positive integer, got {value!r}")


def check_boolean(option: str, value: object) -> bool:
    """``value`` of a switch (``per_query``): ``True`` or ``False`` only, never a truthy
    string such as ``"no"``.

    >>> check_boolean("per_query", "no")
    Traceback (most recent call last):
    ...
    polars_rank.core.errors.PolarsRankError: per_query must be True or False, got 'no'
    """
    if not isinstance(value, bool):
        raise PolarsRankError(f"{option} must be True or False, got {value!r}")
    return value


# ------------------------------------------------------------------------------------------
# warnings

_PACKAGE = Path(__file__).resolve().parents[1]  # polars_rank/


@lru_cache(maxsize=256)
def _inside_package(filename: str) -> bool:
    return Path(filename).resolve().is_relative_to(_PACKAGE)


@dataclass(frozen=True)
class CallSite:
    """Where user code called into polars_rank: warnings about that call point there."""

    filename: str
    lineno: int
    module: str
    module_globals: dict[str, Any] | None

    @classmethod
    def here(cls) -> CallSite:
        """The innermost frame outside the polars_rank package (the user's call)."""
        frame = sys._getframe(1)
        while frame.f_back is not None and _inside_package(frame.f_code.co_filename):
            frame = frame.f_back
        return cls(
            frame.f_code.co_filename,
            frame.f_lineno,
            frame.f_globals.get("__name__", "<unknown>"),
            frame.f_globals,
        )

    def warn(self, message: str, category: type[Warning] = UserWarning) -> None:
        """Warn at this call site, every time: a fresh registry each call, so Python's
        once-per-location rule (the ``"default"`` action) does not hide a repeat. Code whose
        source its loader cannot give warns without the source line: ``python -c`` (the
        built-in loader of ``__main__`` raises ``ImportError``), or code executed from a
        string in a module whose loader gives another source, shorter than the line number
        (Python's ``warn_explicit`` raises ``IndexError``). Whatever the loader does, the
        warning never raises (unless a warnings filter turns it into an error)."""
        try:
            self._warn(message, category, self.module_globals)
        except Exception as err:  # the loader's failure, never the warning made an error
            if isinstance(err, Warning):
                raise
            self._warn(message, category, None)

    def _warn(
        self, message: str, category: type[Warning], module_globals: dict[str, Any] | None
    ) -> None:
        warnings.warn_explicit(
            message,
            category,
            self.filename,
            self.lineno,
            module=self.module,
            registry={},
            module_globals=module_globals,
        )
