"""Ranking metrics as Polars expressions (the import path of :mod:`polars_rank.ranking.metrics`)."""

from polars_rank.ranking.metrics import *  # noqa: F403
from polars_rank.ranking.metrics import __all__  # noqa: F401
