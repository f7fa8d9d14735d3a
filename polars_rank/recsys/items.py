"""Item tables from the interactions (training history): popularity, self-information and
the long tail, and the recommendation table enriched with them.

* popularity(i) = the number of distinct users who interacted with item i (the issue's and
  the usual definition), or the number of interaction rows with ``count="interactions"``
  (RecBole's ``item_counter``, MS Recommenders' ``groupby(item).size()``; the same on a history
  without repeated rows).
* self-information (Castells, Vargas & Wang, ECIR 2011, eq. 1 and 6): ``model="choice"``
  −log2(pop(i) / Σ_j pop(j)) (MS Recommenders' ``historical_item_novelty``);
  ``model="discovery"`` −log2(pop(i) / |U|), |U| the users with an interaction.
* long tail: by default the head is the ⌊0.2 · n⌋ most popular of the n items with an
  interaction and every other item is tail (Abdollahpouri et al. 2019: "tail = outside the top
  x %"); ``tail_share=r`` makes the max(⌊r · n⌋, 1) least popular items the tail and
  ``tail_popularity=t`` the items with popularity ≤ t (RecBole ``TailPercentage``'s two modes).
  Items are ordered by (popularity, doc id) ascending, RecBole's order; ⌊·⌋ is taken in
  float64 (0.1 · 30 = 3.0000000000000004 → 3).

>>> import polars as pl
>>> inter = pl.LazyFrame({"query": [1, 1, 2, 3], "doc": ["a", "b", "a", "a"]})
>>> items = item_table(item_popularity(inter), n_users=3).sort("doc").collect()
>>> items.select("doc", "popularity", "self_information").rows()  # -log2(3/4), -log2(1/4)
[('a', 3, 0.4150374992788438), ('b', 1, 2.0)]
"""

from __future__ import annotations

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.recsys.options import ItemOptions, NoveltyModel, PopularityCount

_F64 = pl.Float64

#: Columns of the item table (besides the doc column).
POPULARITY, SELF_INFORMATION, IN_TAIL = "popularity", "self_information", "in_tail"


def item_popularity(
    interactions: pl.LazyFrame,
    *,
    count: PopularityCount = "users",
    query: str = "query",
    doc: str = "doc",
) -> pl.LazyFrame:
    """``doc, popularity``: distinct users per item (``count="users"``) or interaction rows
    (``count="interactions"``), for every item with an interaction.

    >>> inter = pl.LazyFrame({"query": [1, 1, 2], "doc": ["a", "a", "b"]})
    >>> item_popularity(inter, count="interactions").sort("doc").collect().rows()
    [('a', 2), ('b', 1)]
    """
    ItemOptions(count=count)
    counted = pl.col(query).n_unique() if count == "users" else pl.len()
    return interactions.group_by(doc).agg(counted.cast(pl.Int64).alias(POPULARITY))


def user_count(
    interactions: pl.LazyFrame, *, query: str = "query", group: str | None = None
) -> pl.LazyFrame:
    """One row, ``n_users``: the distinct users of the interactions (the discovery model's
    |U|); with ``group`` (a column), one row per group: ``group, n_users``."""
    users = pl.col(query).n_unique().cast(_F64).alias("n_users")
    if group is None:
        return interactions.select(users)
    return interactions.group_by(group).agg(users)


def item_table(
    popularity: pl.LazyFrame,
    *,
    n_users: float | pl.LazyFrame | None = None,
    model: NoveltyModel = "choice",
    head_share: float = 0.2,
    tail_share: float | None = None,
    tail_popularity: float | None = None,
    doc: str = "doc",
    group: str | None = None,
) -> pl.LazyFrame:
    """``doc, popularity, self_information, in_tail`` for every item of ``popularity``
    (``doc, popularity``, e.g. :func:`item_popularity`, or RecBole's item counter, whose
    items with count 0 are known items that no one interacted with).

    ``n_users`` (a number or :func:`user_count`) is needed for ``model="discovery"``. The
    tail is cut by ``tail_popularity`` if given, else ``tail_share`` if given, else
    ``head_share`` (see the module docstring). An item with popularity 0 has an infinite
    self-information under either model.

    ``group`` (a column of ``popularity``, and of an ``n_users`` frame): items of several
    groups at once, each group's table on its own (its total, its item count and order, its
    ``n_users``, joined on the column); the column is kept.

    >>> pop = pl.LazyFrame({"doc": [1, 2, 3, 4, 5], "popularity": [5, 4, 3, 2, 1]})
    >>> item_table(pop, head_share=0.4).sort("doc").collect()["in_tail"].to_list()
    [False, False, True, True, True]
    """
    options = ItemOptions(
        model=model, head_share=head_share, tail_share=tail_share, tail_popularity=tail_popularity
    )
    pop = pl.col(POPULARITY).cast(_F64)

    def within(expr: pl.Expr) -> pl.Expr:
        return expr if group is None else expr.over(group)

    if options.model == "choice":
        share = pop / within(pop.sum())
        items = popularity.with_columns(share.alias("_share"))
    else:
        if n_users is None:
            raise PolarsRankError("model='discovery' needs n_users (see user_count)")
        users = (
            n_users
            if isinstance(n_users, pl.LazyFrame)
            else pl.LazyFrame({"n_users": [float(n_users)]})
        )
        joined = (
            popularity.join(users, how="cross")
            if group is None or not isinstance(n_users, pl.LazyFrame)
            else popularity.join(users, on=group, how="left")
        )
        items = joined.with_columns((pop / pl.col("n_users")).alias("_share"))
    n = within(pl.len()).cast(_F64)
    # ascending (popularity, doc): position 1 is the least popular item
    position = within(pl.struct(pl.col(POPULARITY), pl.col(doc)).rank("ordinal")).cast(_F64)
    if options.tail_popularity is not None:
        in_tail = pl.col(POPULARITY) <= options.tail_popularity
    elif options.tail_share is not None:
        in_tail = position <= pl.max_horizontal((n * options.tail_share).floor(), pl.lit(1.0))
    else:
        in_tail = position <= n - (n * options.head_share).floor()
    return items.select(
        *([] if group is None else [group]),
        doc,
        POPULARITY,
        (-pl.col("_share").log(2)).alias(SELF_INFORMATION),
        in_tail.alias(IN_TAIL),
    )


def enrich(
    recommendations: pl.LazyFrame,
    items: pl.LazyFrame,
    *,
    unknown_in_tail: bool = True,
    doc: str = "doc",
) -> pl.LazyFrame:
    """The recommendations with the item columns of :func:`item_table`. An item without
    interactions gets popularity 0, a null self-information (−log2 0 is infinite: novelty
    skips it or counts it 0, see :func:`~polars_rank.recsys.novelty`) and is tail unless
    ``unknown_in_tail=False`` (RecBole never counts such an item as tail).

    >>> top = pl.LazyFrame({"query": [1, 1], "doc": ["a", "z"], "rank": [1, 2]})
    >>> items = pl.LazyFrame({"doc": ["a"], "popularity": [3], "self_information": [0.5],
    ...                       "in_tail": [False]})
    >>> enrich(top, items).sort("rank").collect().rows()
    [(1, 'a', 1, 3, 0.5, False), (1, 'z', 2, 0, None, True)]
    """
    ItemOptions(unknown_in_tail=unknown_in_tail)
    return recommendations.join(items, on=doc, how="left").with_columns(
        pl.col(POPULARITY).fill_null(0),
        pl.col(IN_TAIL).fill_null(unknown_in_tail),
    )
