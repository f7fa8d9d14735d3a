"""The options of the recommender metrics, checked once, with one error type.

Every choice a recommender metric offers (how popularity is counted, which novelty model, how
the long tail is cut, how unknown items count, ...) is checked here, for the Python functions,
for :func:`polars_rank.evaluate` and for the SQL engine alike; a bad value is a
:class:`~polars_rank.PolarsRankError` naming the option and what it accepts.

>>> ItemOptions(head_share=1.5)
Traceback (most recent call last):
...
polars_rank.core.errors.PolarsRankError: head_share must be a number in [0, 1], got 1.5
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, TypeGuard, get_args

from polars_rank.core.errors import PolarsRankError, bad_choice

PopularityCount = Literal["users", "interactions"]
NoveltyModel = Literal["choice", "discovery"]
Unknown = Literal["skip", "zero"]
CategorySimilarity = Literal["cosine", "jaccard"]
SerendipityGain = Literal["binary", "graded", "none"]


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    """``value`` must be one of ``choices``."""
    if value not in choices:
        raise bad_choice(name, value, choices)


def _is_number(value: object) -> TypeGuard[int | float]:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def check_number(
    name: str, value: object, low: float, high: float, *, open_low: bool = False
) -> None:
    """``value`` must be a finite number in [low, high] (or (low, high] with ``open_low``)."""
    ok = _is_number(value) and (low < value if open_low else low <= value) and value <= high
    if not ok:
        bracket = "(" if open_low else "["
        shown = "∞" if math.isinf(high) else f"{high:g}"
        raise PolarsRankError(
            f"{name} must be a number in {bracket}{low:g}, {shown}], got {value!r}"
        )


def check_base(base: object) -> None:
    """A logarithm base: positive and not 1."""
    if not _is_number(base) or base <= 0 or base == 1:
        raise PolarsRankError(f"base must be a positive number other than 1, got {base!r}")


def check_k(k: object, name: str) -> None:
    """A cutoff: None (the whole list) or a positive integer."""
    if k is None:
        return
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise PolarsRankError(f"{name}: k must be a positive integer, got {k!r}")


@dataclass(frozen=True)
class ItemOptions:
    """How the item table is built from the interactions (see :func:`item_table`).

    Attributes:
        count: ``"users"`` (distinct users per item) or ``"interactions"`` (rows per item).
        model: novelty's model, ``"choice"`` (−log2(pop / Σ pop)) or ``"discovery"``
            (−log2(pop / users)).
        head_share: the head is the ⌊head_share · n⌋ most popular of the n known items.
        tail_share: instead, the tail is the max(⌊tail_share · n⌋, 1) least popular (RecBole).
        tail_popularity: instead, the tail is the items with popularity ≤ this (RecBole).
        unknown_in_tail: whether an item without interactions is tail.
    """

    count: PopularityCount = "users"
    model: NoveltyModel = "choice"
    head_share: float = 0.2
    tail_share: float | None = None
    tail_popularity: float | None = None
    unknown_in_tail: bool = True

    def __post_init__(self) -> None:
        check_choice("count", self.count, get_args(PopularityCount))
        check_choice("model", self.model, get_args(NoveltyModel))
        check_number("head_share", self.head_share, 0.0, 1.0)
        if self.tail_share is not None:
            check_number("tail_share", self.tail_share, 0.0, 1.0, open_low=True)
        if self.tail_popularity is not None:
            check_number("tail_popularity", self.tail_popularity, 0.0, math.inf)
        if self.tail_share is not None and self.tail_popularity is not None:
            raise PolarsRankError("give at most one of tail_share and tail_popularity")
        if not isinstance(self.unknown_in_tail, bool):
            raise PolarsRankError(
                f"unknown_in_tail must be True or False, got {self.unknown_in_tail!r}"
            )
