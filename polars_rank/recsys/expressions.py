"""Per-user popularity metrics as Polars expressions over the recommendation table.

Each function returns a ``pl.Expr`` that aggregates one user's rows of the recommendation
table — ``query, doc, rank`` plus the item columns of :func:`~polars_rank.recsys.enrich` — to
one Float64 value, for ``table.group_by("query").agg(...)``. ``k`` keeps the rows with
``rank <= k`` (all rows when None); a user with no row left gets null, and null values stay out
of the mean over users that :func:`polars_rank.evaluate` reports.

>>> import polars as pl
>>> table = pl.DataFrame({"query": [1, 1, 1], "rank": [1, 2, 3],
...                       "self_information": [1.0, 3.0, None], "popularity": [4, 1, 0],
...                       "in_tail": [False, True, True]})
>>> table.group_by("query").agg(novelty(), average_popularity(2), long_tail_share()).row(0)
(1, 2.0, 2.5, 0.6666666666666666)
"""

from __future__ import annotations

import polars as pl

from polars_rank.core.expr import ColumnOrExpr
from polars_rank.core.expr import col as _col
from polars_rank.recsys.options import Unknown, check_choice, check_k

_F64 = pl.Float64


def _within(rank: ColumnOrExpr, k: int | None) -> pl.Expr:
    """Rows at a rank ≤ k (every row when k is None)."""
    r = _col(rank)
    return r.is_not_null() if k is None else (r <= k).fill_null(False)


def masked(value: pl.Expr, rank: ColumnOrExpr, k: int | None) -> pl.Expr:
    """``value`` on the rows within k, null elsewhere (so that sum and mean skip them).

    A mask rather than ``value.filter(...)``: inside ``group_by().agg()`` Polars evaluates a
    filter group by group, a mask in one pass (2× faster on 20M rows, same numbers).
    """
    return value if k is None else pl.when(_within(rank, k)).then(value)


def novelty(
    k: int | None = None,
    *,
    unknown: Unknown = "skip",
    rank: ColumnOrExpr = "rank",
    self_information: ColumnOrExpr = "self_information",
) -> pl.Expr:
    """novelty@k of one user: the mean self-information −log2 p(i) of its top-k items (p and
    the model: :func:`~polars_rank.recsys.item_table`; Castells et al. 2011). The value
    :func:`polars_rank.evaluate` reports is the mean over users.

    An item without interactions has no finite self-information: ``unknown="skip"``
    (default) leaves it out of the user's mean (null when no item is left); ``unknown="zero"``
    counts it as 0, as MS Recommenders' ``novelty`` does. MS Recommenders also averages over
    all recommendations at once rather than per user: the same number when every user has the
    same number of items.

    Items 1, 3 and an unknown one: skip → (1 + 3) / 2 = 2; zero → (1 + 3 + 0) / 3 = 4/3.

    >>> t = pl.DataFrame({"query": [1] * 3, "rank": [1, 2, 3],
    ...                   "self_information": [1.0, 3.0, None]})
    >>> t.group_by("query").agg(novelty(), novelty(unknown="zero").alias("z")).row(0)
    (1, 2.0, 1.3333333333333333)
    """
    check_k(k, "novelty")
    check_choice("unknown", unknown, ("skip", "zero"))
    value = _col(self_information).cast(_F64)
    if unknown == "zero":
        value = value.fill_null(0.0)
    return masked(value, rank, k).mean().alias("novelty")


def average_popularity(
    k: int | None = None, *, rank: ColumnOrExpr = "rank", popularity: ColumnOrExpr = "popularity"
) -> pl.Expr:
    """ARP@k of one user: the mean popularity of its top-k items, 0 for an item without
    interactions (RecBole ``AveragePopularity``; Abdollahpouri et al. 2019).

    >>> t = pl.DataFrame({"query": [1, 1], "rank": [1, 2], "popularity": [4, 0]})
    >>> t.group_by("query").agg(average_popularity()).item(0, 1)
    2.0
    """
    check_k(k, "average_popularity")
    return masked(_col(popularity).cast(_F64), rank, k).mean().alias("average_popularity")


def long_tail_share(
    k: int | None = None, *, rank: ColumnOrExpr = "rank", in_tail: ColumnOrExpr = "in_tail"
) -> pl.Expr:
    """APLT@k of one user: the share of its top-k items in the long tail (RecBole
    ``TailPercentage``; Abdollahpouri et al. 2019; the tail: :func:`item_table`).

    >>> t = pl.DataFrame({"query": [1, 1, 1, 1], "rank": [1, 2, 3, 4],
    ...                   "in_tail": [True, False, False, True]})
    >>> t.group_by("query").agg(long_tail_share(3)).item(0, 1)  # 1 of the top 3
    0.3333333333333333
    """
    check_k(k, "long_tail_share")
    return masked(_col(in_tail).cast(_F64), rank, k).mean().alias("long_tail_share")
