"""The one exception type polars_rank raises for bad input."""

from __future__ import annotations


class PolarsRankError(ValueError):
    """Bad input: a message that names the column, query, metric or line at fault."""
