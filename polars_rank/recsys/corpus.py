"""Corpus-level recommender metrics: one value for all users' recommendations together
(catalog coverage, Shannon entropy and Gini index of the exposure, user coverage), as
frame-level functions (LazyFrame in, one-row LazyFrame out).

The recommendations ``top`` are ``query, doc, rank`` (e.g. :func:`~polars_rank.recsys.top_k`);
``k`` keeps ``rank <= k``. count(i) is the number of users with item i in their top k.

* **Catalog coverage** (Shani & Gunawardana 2011; MS Recommenders ``catalog_coverage``,
  RecBole ``ItemCoverage``): |catalog items in any top k| / |catalog|. A recommended item
  outside the catalog is not counted (MS Recommenders counts it, so its value can exceed 1);
  :func:`polars_rank.evaluate` warns how many there are. MS Recommenders' catalog is the
  items of the training data; RecBole's item count includes its padding id.
* **Shannon entropy** (Shani & Gunawardana eq. 21; MS Recommenders
  ``distributional_coverage``): H = −Σ_i p(i) log_base p(i), p(i) = count(i) / Σ_j count(j),
  base 2. RecBole ``ShannonEntropy`` is ``base=e, per_item=True``: natural log, and H divided
  by the number of distinct recommended items.
* **Gini index** (RecBole ``GiniIndex``): G = Σ_{j=1..n} (2j − n − 1) c_(j) / (n Σ c), the
  counts of the n catalog items in ascending order, 0 for items never recommended. 0 when
  every catalog item is recommended equally often; (n − 1)/n when one item takes everything.
* **User coverage** (Ge, Delgado-Battenfeld & Jannach, RecSys 2010): the share of users
  with at least one item in their top k — or, with a relevance level, at least one item
  whose qrels grade reaches it (then the mean Success@k over the users).

>>> import polars as pl
>>> top = pl.LazyFrame({"query": [1, 1, 2, 2], "doc": ["a", "b", "a", "c"],
...                     "rank": [1, 2, 1, 2]})
>>> catalog = pl.LazyFrame({"doc": ["a", "b", "c", "d"]})
>>> catalog_coverage(top, catalog, 1).collect().item()  # only a is shown at k = 1: 1/4
0.25
"""

from __future__ import annotations

import math

import polars as pl

from polars_rank.core.conventions import relevant
from polars_rank.core.errors import PolarsRankError
from polars_rank.recsys.diversity import cut
from polars_rank.recsys.options import check_base, check_k

_F64 = pl.Float64
COUNT = "count"


def recommendation_counts(
    top: pl.LazyFrame, k: int | None = None, *, doc: str = "doc", rank: str = "rank"
) -> pl.LazyFrame:
    """``doc, count``: how many users have the item in their top k."""
    check_k(k, "recommendation_counts")
    return cut(top, k, rank).group_by(doc).agg(pl.len().cast(pl.Int64).alias(COUNT))


def default_catalog(
    run: pl.LazyFrame, interactions: pl.LazyFrame | None = None, *, doc: str = "doc"
) -> pl.LazyFrame:
    """``doc``: the items of the interactions and every item of the run (all ranks, all users,
    so that coverage@10 and coverage@20 share one denominator)."""
    parts = [run.select(doc)]
    if interactions is not None:
        parts.append(interactions.select(doc))
    return pl.concat(parts).unique()


def coverage_from_counts(
    counts: pl.LazyFrame, catalog: pl.LazyFrame, *, doc: str = "doc", group: str | None = None
) -> pl.LazyFrame:
    """Catalog coverage from :func:`recommendation_counts` (null for an empty catalog).

    ``group``: a column of ``catalog`` (the doc ids being distinct across groups, e.g. the
    group packed into them): one row per group of the catalog, ``group, catalog_coverage``."""
    value = (pl.when(pl.col("_size") > 0).then(pl.col("_shown") / pl.col("_size"))).alias(
        "catalog_coverage"
    )
    if group is not None:
        items = catalog.select(group, doc).unique()
        shown = counts.select(doc).join(items, on=doc, how="inner")
        shown = shown.group_by(group).agg(pl.len().cast(_F64).alias("_shown"))
        size = items.group_by(group).agg(pl.len().cast(_F64).alias("_size"))
        joined = size.join(shown, on=group, how="left")
        return joined.with_columns(pl.col("_shown").fill_null(0.0)).select(group, value)
    items = catalog.select(doc).unique()
    shown = counts.join(items, on=doc, how="semi").select(pl.len().cast(_F64).alias("_shown"))
    size = items.select(pl.len().cast(_F64).alias("_size"))
    return shown.join(size, how="cross").select(value)


def catalog_coverage(
    top: pl.LazyFrame,
    catalog: pl.LazyFrame,
    k: int | None = None,
    *,
    doc: str = "doc",
    rank: str = "rank",
) -> pl.LazyFrame:
    """``catalog_coverage``: the share of the catalog (``doc`` column) shown in any top k
    (see the module docstring)."""
    check_k(k, "catalog_coverage")
    return coverage_from_counts(recommendation_counts(top, k, doc=doc, rank=rank), catalog, doc=doc)


def entropy_from_counts(
    counts: pl.LazyFrame, *, base: float = 2.0, per_item: bool = False, group: str | None = None
) -> pl.LazyFrame:
    """Shannon entropy from :func:`recommendation_counts` (null when nothing is recommended);
    ``group`` (a column of ``counts``): one row per group with counts, ``group,
    shannon_entropy``."""
    check_base(base)
    c = pl.col(COUNT).cast(_F64)
    p = c / c.sum()
    # added smallest term first, one after the other: the same bits whatever order the
    # counts come in (a plain sum adds the partial sums of Polars' threads in no set order)
    h = -(p * (p.log() / math.log(base))).sort().cum_sum().last()
    if per_item:
        h = h / pl.len().cast(_F64)
    value = pl.when(pl.len() > 0).then(h).alias("shannon_entropy")
    if group is not None:
        return counts.group_by(group).agg(value)
    return counts.select(value)


def shannon_entropy(
    top: pl.LazyFrame,
    k: int | None = None,
    *,
    base: float = 2.0,
    per_item: bool = False,
    doc: str = "doc",
    rank: str = "rank",
) -> pl.LazyFrame:
    """``shannon_entropy`` of the recommendation counts (see the module docstring).

    Counts a: 2, b: 1, c: 1 → p = ½, ¼, ¼: H = ½ + ½ + ½ = 1.5 bits.

    >>> top = pl.LazyFrame({"query": [1, 1, 2, 2], "doc": ["a", "b", "a", "c"],
    ...                     "rank": [1, 2, 1, 2]})
    >>> shannon_entropy(top).collect().item()
    1.5
    """
    check_k(k, "shannon_entropy")
    if not isinstance(per_item, bool):
        raise PolarsRankError(f"per_item must be True or False, got {per_item!r}")
    counts = recommendation_counts(top, k, doc=doc, rank=rank)
    return entropy_from_counts(counts, base=base, per_item=per_item)


def gini_from_counts(
    counts: pl.LazyFrame, catalog: pl.LazyFrame, *, doc: str = "doc", group: str | None = None
) -> pl.LazyFrame:
    """Gini index from :func:`recommendation_counts` over the catalog (null when no catalog
    item is recommended). Only the m recommended items are materialised: the n − m others
    take positions 1 … n − m with count 0 and add nothing. ``group``: as
    :func:`coverage_from_counts`, a column of ``counts`` too (a row per group with a
    recommended catalog item)."""
    c = pl.col(COUNT).cast(_F64)
    position = (pl.col("_n") - pl.len().cast(_F64)) + c.rank("ordinal").cast(_F64)
    total = ((2.0 * position - pl.col("_n") - 1.0) * c).sum()
    value = pl.when(c.sum() > 0).then(total / (pl.col("_n").first() * c.sum())).alias("gini")
    if group is not None:
        items = catalog.select(group, doc).unique()
        n = items.group_by(group).agg(pl.len().cast(_F64).alias("_n"))
        shown = counts.join(items.select(doc), on=doc, how="semi").join(n, on=group)
        return shown.group_by(group).agg(value)
    items = catalog.select(doc).unique()
    n = items.select(pl.len().cast(_F64).alias("_n"))
    return counts.join(items, on=doc, how="semi").join(n, how="cross").select(value)


def gini_index(
    top: pl.LazyFrame,
    catalog: pl.LazyFrame,
    k: int | None = None,
    *,
    doc: str = "doc",
    rank: str = "rank",
) -> pl.LazyFrame:
    """``gini``: the Gini index of the recommendation counts over the catalog (see the module
    docstring).

    Catalog a, b, c, d; counts a: 2, c: 1 → sorted 0, 0, 1, 2 at j = 1 … 4:
    ((−3)·0 + (−1)·0 + 1·1 + 3·2) / (4 · 3) = 7/12.

    >>> top = pl.LazyFrame({"query": [1, 2, 2], "doc": ["a", "a", "c"], "rank": [1, 1, 2]})
    >>> gini_index(top, pl.LazyFrame({"doc": ["a", "b", "c", "d"]})).collect().item()
    0.5833333333333334
    """
    check_k(k, "gini_index")
    return gini_from_counts(recommendation_counts(top, k, doc=doc, rank=rank), catalog, doc=doc)


def user_coverage(
    top: pl.LazyFrame,
    users: pl.LazyFrame,
    k: int | None = None,
    *,
    relevance_level: float | None = None,
    query: str = "query",
    rank: str = "rank",
    relevance: str = "relevance",
) -> pl.LazyFrame:
    """``user_coverage``: the share of ``users`` (``query`` column) with at least one item in
    their top k; with ``relevance_level``, with at least one item whose ``relevance`` (a
    column of ``top``: the qrels grade, null when unjudged) is ≥ the level.

    >>> top = pl.LazyFrame({"query": [1, 2], "doc": ["a", "b"], "rank": [1, 3]})
    >>> users = pl.LazyFrame({"query": [1, 2, 3]})
    >>> user_coverage(top, users, 2).collect().item()  # user 1 only: 1/3
    0.3333333333333333
    """
    return user_coverage_by(
        top, users, k, relevance_level=relevance_level, query=query, rank=rank, relevance=relevance
    )


def user_coverage_by(
    top: pl.LazyFrame,
    users: pl.LazyFrame,
    k: int | None = None,
    *,
    relevance_level: float | None = None,
    query: str = "query",
    rank: str = "rank",
    relevance: str = "relevance",
    group: str | None = None,
) -> pl.LazyFrame:
    """:func:`user_coverage`; with ``group`` (a column of ``users``, the user ids being
    distinct across groups), one row per group of the users: ``group, user_coverage``."""
    check_k(k, "user_coverage")
    rows = cut(top, k, rank)
    if relevance_level is not None:
        rows = rows.filter(relevant(pl.col(relevance), relevance_level))
    value = pl.when(pl.col("_all") > 0).then(pl.col("_hit") / pl.col("_all")).alias("user_coverage")
    if group is not None:
        everyone = users.select(group, query).unique()
        covered = rows.select(query).unique().join(everyone, on=query, how="inner")
        hit = covered.group_by(group).agg(pl.len().cast(_F64).alias("_hit"))
        size = everyone.group_by(group).agg(pl.len().cast(_F64).alias("_all"))
        joined = size.join(hit, on=group, how="left")
        return joined.with_columns(pl.col("_hit").fill_null(0.0)).select(group, value)
    everyone = users.select(query).unique()
    covered = rows.select(query).unique().join(everyone, on=query, how="semi")
    hit = covered.select(pl.len().cast(_F64).alias("_hit"))
    size = everyone.select(pl.len().cast(_F64).alias("_all"))
    return hit.join(size, how="cross").select(value)
