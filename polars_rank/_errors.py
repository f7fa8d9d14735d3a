"""The one exception type polars_rank raises for bad input, and the messages every part of the
package shares.

>>> bad_choice("duplicates", "last", ("error", "first", "max"))
PolarsRankError("duplicates must be 'error', 'first' or 'max', got 'last'")
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class PolarsRankError(ValueError):
    """Bad input: a message that names the column, query, metric, option or line at fault."""


def bad_choice(option: str, value: Any, choices: Iterable[Any]) -> PolarsRankError:
    """``option`` got a value outside its choices."""
    *rest, last = [repr(c) for c in choices]
    listed = f"{', '.join(rest)} or {last}" if rest else last
    return PolarsRankError(f"{option} must be {listed}, got {value!r}")


def not_positive_integer(option: str, value: Any) -> PolarsRankError:
    """``option`` needs a positive integer."""
    return PolarsRankError(f"{option} must be a positive integer, got {value!r}")
