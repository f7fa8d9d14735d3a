"""Intra-list diversity, unexpectedness and serendipity: per-user values that need item
similarities (:mod:`.features`), as frame-level functions (LazyFrame in, LazyFrame out). With
feature vectors they join what the per-user expressions of :mod:`.vectors` read
(:func:`~polars_rank.recsys.intra_list_diversity`, :func:`~polars_rank.recsys.serendipity`)
and aggregate with them; categories and similarity tables are computed here.

The recommendations ``top`` are ``query, doc, rank`` (e.g. :func:`~polars_rank.recsys.top_k`);
``k`` keeps ``rank <= k``. Every user with at least one recommendation gets a row.

* **Intra-list diversity** (Ziegler et al. 2005; MS Recommenders ``user_diversity``):
  ILD@k = 1 − Σ_{i<j} sim(i, j) / C(n, 2) over the n items of the user's top k; null for
  n < 2 (MS Recommenders leaves such users out of its mean).
* **Unexpectedness** (MS Recommenders ``user_item_serendipity`` before relevance):
  1 − (1/|H_u|) Σ_{j ∈ H_u} sim(i, j), H_u the distinct items of the user's interactions.
* **Serendipity** (MS Recommenders ``user_serendipity``; Zhang et al. 2012): the mean over the
  user's top-k items of unexpectedness · relevance, relevance from the qrels: ``gain="binary"``
  (1 when the grade ≥ the relevance level, else 0; default), ``"graded"`` (the grade, 0 when
  not positive) or ``"none"`` (1 for every item: MS Recommenders without ``col_relevance``).
  Null for a user without history. Unlike MS Recommenders, an item already in the user's
  history is accepted (its similarity with itself counts).

Vectors and category cosines cost O(k·d) per user, not O(k²·d):
Σ_{i<j} u_i·u_j = (‖Σ_i u_i‖² − Σ_i ‖u_i‖²) / 2 for unit vectors u, and the serendipity of a
user is (Σ_i g_i − (Σ_i g_i u_i)·C_u / |H_u|) / n with the history sum C_u = Σ_{j∈H_u} u_j
(see :mod:`.vectors`).

>>> import polars as pl
>>> top = pl.LazyFrame({"query": [1, 1, 1], "doc": ["a", "b", "c"], "rank": [1, 2, 3]})
>>> vectors = pl.LazyFrame({"doc": ["a", "b", "c"], "v": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]})
>>> round(user_diversity(top, vectors).collect().item(0, 1), 6)  # 1 - (0 + 2/√2)/3
0.528595
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.recsys.features import (
    ItemFeatures,
    ItemFeaturesLike,
    canonical_pairs,
    category_weights,
    item_features,
)
from polars_rank.recsys.options import CategorySimilarity, SerendipityGain, check_choice, check_k
from polars_rank.recsys.vectors import (
    HISTORY_SIZE,
    ILD,
    SERENDIPITY,
    gain_expr,
    history,
    history_sums,
    ild_from_pair_sum,
    item_unexpectedness,
    unit_vectors,
)
from polars_rank.recsys.vectors import intra_list_diversity as ild_expression
from polars_rank.recsys.vectors import serendipity as serendipity_expression

_F64 = pl.Float64
UNEXPECTEDNESS = "unexpectedness"


def cut(top: pl.LazyFrame, k: int | None, rank: str = "rank") -> pl.LazyFrame:
    """The rows of ``top`` with ``rank <= k`` (all when k is None)."""
    return top if k is None else top.filter(pl.col(rank) <= k)


def _features(features: ItemFeaturesLike, doc: str) -> ItemFeatures:
    found = item_features(features, doc=doc)
    if found.doc != doc:
        raise AssertionError("features and recommendations share the doc column name")
    return found


# ------------------------------------------------------------------------------------------
# intra-list diversity


def _pair_sums_categories(
    rows: pl.LazyFrame, weights: pl.LazyFrame, similarity: str, query: str, doc: str, rank: str
) -> pl.LazyFrame:
    """``query, _pairs``: Σ_{i<j} sim(i, j) over each user's rows, from category weights."""
    joined = rows.join(weights, on=doc, how="inner")
    if similarity == "cosine":
        per_category = joined.group_by(query, "category").agg(
            pl.col("_w").sum().alias("_s"), (pl.col("_w") * pl.col("_w")).sum().alias("_q")
        )
        return per_category.group_by(query).agg(
            (((pl.col("_s") * pl.col("_s")).sum() - pl.col("_q").sum()) / 2.0).alias("_pairs")
        )
    # pairs by item id (distinct within a user's list), each unordered pair once
    a = joined.select(query, "category", pl.col(doc).alias("_ra"), pl.col("_size").alias("_na"))
    b = joined.select(query, "category", pl.col(doc).alias("_rb"), pl.col("_size").alias("_nb"))
    shared = (
        a.join(b, on=[query, "category"])
        .filter(pl.col("_ra") < pl.col("_rb"))
        .group_by(query, "_ra", "_rb")
        .agg(pl.len().cast(_F64).alias("_both"), pl.col("_na").first(), pl.col("_nb").first())
    )
    jaccard = pl.col("_both") / (pl.col("_na") + pl.col("_nb") - pl.col("_both"))
    return shared.group_by(query).agg(jaccard.sum().alias("_pairs"))


def _pair_sums_table(
    rows: pl.LazyFrame, pairs: pl.LazyFrame, query: str, doc: str, rank: str
) -> pl.LazyFrame:
    """``query, _pairs`` from a similarity table: one lookup per pair of a user's items."""
    a = rows.select(query, pl.col(doc).alias("_a"))
    b = rows.select(query, pl.col(doc).alias("_b"))
    both = a.join(b, on=query).filter(pl.col("_a") < pl.col("_b"))  # each pair once
    return (
        both.join(pairs, on=["_a", "_b"], how="inner")
        .group_by(query)
        .agg(pl.col("_sim").sum().alias("_pairs"))
    )


def user_diversity(
    top: pl.LazyFrame,
    item_features: ItemFeaturesLike,
    k: int | None = None,
    *,
    similarity: CategorySimilarity = "cosine",
    query: str = "query",
    doc: str = "doc",
    rank: str = "rank",
) -> pl.LazyFrame:
    """``query, intra_list_diversity``: ILD@k = 1 − mean similarity over the C(n, 2) pairs of
    each user's top-k items (see the module docstring; similarity: :mod:`.features`).
    ``similarity="jaccard"`` applies to category features only. With vectors, the per-user
    expression :func:`~polars_rank.recsys.intra_list_diversity` over :func:`unit_vectors`.

    Items a, b, c with vectors (1, 0), (0, 1), (1, 1): cosines 0, 1/√2, 1/√2, ILD = 1 − √2/3.
    """
    check_k(k, "user_diversity")
    check_choice("similarity", similarity, ("cosine", "jaccard"))
    features = _features(item_features, doc)
    if similarity == "jaccard" and features.kind != "categories":
        raise PolarsRankError(f"similarity='jaccard' needs category features, got {features.kind}")
    rows = cut(top, k, rank).select(query, doc, rank)
    if features.kind == "vectors":
        rows = rows.join(unit_vectors(features, doc=doc), on=doc, how="left")
        return rows.group_by(query).agg(ild_expression(rank=rank))
    sizes = rows.group_by(query).agg(pl.len().alias("_n"))
    if features.kind == "categories":
        pair_sums = _pair_sums_categories(
            rows, category_weights(features), similarity, query, doc, rank
        )
    else:
        pair_sums = _pair_sums_table(rows, canonical_pairs(features), query, doc, rank)
    return sizes.join(pair_sums, on=query, how="left").select(
        query, ild_from_pair_sum(pl.col("_pairs").fill_null(0.0), pl.col("_n")).alias(ILD)
    )


# ------------------------------------------------------------------------------------------
# unexpectedness and serendipity


def _similarity_sums(
    rows: pl.LazyFrame,
    past: pl.LazyFrame,
    features: ItemFeatures,
    query: str,
    doc: str,
    rank: str,
) -> pl.LazyFrame:
    """``query, doc, rank, _simsum`` = Σ_{j ∈ H_u} sim(doc, j) for each row (0 when no item of
    the history is similar), for category features and similarity tables."""
    if features.kind == "categories":
        weights = category_weights(features).select(doc, "category", "_w")
        profile = (
            past.join(weights, on=doc, how="inner")
            .group_by(query, "category")
            .agg(pl.col("_w").sum().alias("_p"))
        )
        dots = (
            rows.join(weights, on=doc, how="inner")
            .join(profile, on=[query, "category"], how="inner")
            .group_by(query, doc)
            .agg((pl.col("_w") * pl.col("_p")).sum().alias("_simsum"))
        )
    else:
        pairs = canonical_pairs(features)
        looked_up = (
            rows.select(query, doc)
            .join(past.rename({doc: "_h"}), on=query)
            .with_columns(
                pl.min_horizontal(doc, "_h").alias("_a"), pl.max_horizontal(doc, "_h").alias("_b")
            )
            .join(pairs, on=["_a", "_b"], how="left")
        )
        same = pl.col("_a") == pl.col("_b")
        dots = looked_up.group_by(query, doc).agg(
            pl.when(same).then(1.0).otherwise(pl.col("_sim").fill_null(0.0)).sum().alias("_simsum")
        )
    return rows.join(dots, on=[query, doc], how="left").select(
        query, doc, rank, pl.col("_simsum").fill_null(0.0)
    )


def _with_history(
    rows: pl.LazyFrame,
    past: pl.LazyFrame,
    features: ItemFeatures,
    query: str,
    doc: str,
    how: Literal["inner", "left"],
) -> pl.LazyFrame:
    """``rows`` with each item's unit vector and its user's history sum and size."""
    unit = unit_vectors(features, doc=doc)
    centroids = history_sums(past, unit, query=query, doc=doc)
    return rows.join(unit, on=doc, how="left").join(centroids, on=query, how=how)


def unexpectedness(
    top: pl.LazyFrame,
    interactions: pl.LazyFrame,
    item_features: ItemFeaturesLike,
    k: int | None = None,
    *,
    query: str = "query",
    doc: str = "doc",
    rank: str = "rank",
) -> pl.LazyFrame:
    """``query, doc, rank, unexpectedness`` for each top-k recommendation of a user with a
    history: 1 − (1/|H_u|) Σ_{j ∈ H_u} sim(i, j) (MS Recommenders ``user_item_serendipity``
    with relevance 1). Users without history are left out.

    User 1 saw a; recommended b orthogonal to a: unexpectedness 1 − 0/1 = 1.

    >>> top = pl.LazyFrame({"query": [1], "doc": ["b"], "rank": [1]})
    >>> past = pl.LazyFrame({"query": [1], "doc": ["a"]})
    >>> vectors = pl.LazyFrame({"doc": ["a", "b"], "v": [[1.0, 0.0], [0.0, 2.0]]})
    >>> unexpectedness(top, past, vectors).collect()["unexpectedness"].to_list()
    [1.0]
    """
    check_k(k, "unexpectedness")
    features = _features(item_features, doc)
    past = history(interactions, query, doc)
    rows = cut(top, k, rank).select(query, doc, rank)
    if features.kind == "vectors":
        joined = _with_history(rows, past, features, query, doc, "inner")
        return joined.select(query, doc, rank, item_unexpectedness().alias(UNEXPECTEDNESS))
    sizes = past.group_by(query).agg(pl.len().cast(_F64).alias(HISTORY_SIZE))
    sims = _similarity_sums(rows, past, features, query, doc, rank)
    return sims.join(sizes, on=query, how="inner").select(
        query, doc, rank, (1.0 - pl.col("_simsum") / pl.col(HISTORY_SIZE)).alias(UNEXPECTEDNESS)
    )


def user_serendipity(
    top: pl.LazyFrame,
    interactions: pl.LazyFrame,
    item_features: ItemFeaturesLike,
    k: int | None = None,
    *,
    gain: SerendipityGain = "binary",
    relevance_level: float = 1,
    query: str = "query",
    doc: str = "doc",
    rank: str = "rank",
    relevance: str = "relevance",
) -> pl.LazyFrame:
    """``query, serendipity``: the mean over each user's top-k items of unexpectedness ·
    relevance (MS Recommenders ``user_serendipity``; see the module docstring). With a
    ``gain`` other than ``"none"``, ``top`` needs the ``relevance`` column (the qrels grade,
    null when unjudged). Null for a user without history. With vectors, the per-user
    expression :func:`~polars_rank.recsys.serendipity` over :func:`unit_vectors` and
    :func:`history_vectors`.

    User 1 saw a; recommended b (orthogonal to a, relevant) and a itself (not relevant):
    binary gains 1, 0 → (1 · 1 + 0 · 0) / 2 = 0.5; without relevance (1 + 0) / 2 = 0.5 too.

    >>> top = pl.LazyFrame({"query": [1, 1], "doc": ["b", "a"], "rank": [1, 2],
    ...                     "relevance": [1, None]})
    >>> past = pl.LazyFrame({"query": [1], "doc": ["a"]})
    >>> vectors = pl.LazyFrame({"doc": ["a", "b"], "v": [[1.0, 0.0], [0.0, 2.0]]})
    >>> user_serendipity(top, past, vectors).collect().rows()
    [(1, 0.5)]
    """
    past = history(interactions, query, doc)
    return serendipity_with_history(
        top,
        past,
        item_features,
        k,
        gain=gain,
        relevance_level=relevance_level,
        query=query,
        doc=doc,
        rank=rank,
        relevance=relevance,
    )


def serendipity_with_history(
    top: pl.LazyFrame,
    past: pl.LazyFrame,
    item_features: ItemFeaturesLike,
    k: int | None = None,
    *,
    gain: SerendipityGain = "binary",
    relevance_level: float = 1,
    query: str = "query",
    doc: str = "doc",
    rank: str = "rank",
    relevance: str = "relevance",
) -> pl.LazyFrame:
    """:func:`user_serendipity` from the distinct ``query, doc`` pairs of the interactions
    (``past``, e.g. :func:`~polars_rank.recsys.vectors.history`)."""
    check_k(k, "user_serendipity")
    gain_value = gain_expr(gain, relevance, relevance_level)
    features = _features(item_features, doc)
    columns = [query, doc, rank] + ([relevance] if gain != "none" else [])
    rows = cut(top, k, rank).select(columns)
    if features.kind == "vectors":
        joined = _with_history(rows, past, features, query, doc, "left")
        value = serendipity_expression(
            gain=gain, relevance_level=relevance_level, relevance=relevance, rank=rank
        )
        return joined.group_by(query).agg(value)
    sizes = past.group_by(query).agg(pl.len().cast(_F64).alias(HISTORY_SIZE))
    sims = _similarity_sums(rows.select(query, doc, rank), past, features, query, doc, rank)
    if gain != "none":
        sims = sims.join(rows.select(query, doc, relevance), on=[query, doc], how="left")
    term = (1.0 - pl.col("_simsum") / pl.col(HISTORY_SIZE)) * gain_value
    return (
        sims.join(sizes, on=query, how="left")
        .group_by(query)
        .agg(pl.when(pl.col(HISTORY_SIZE).is_not_null()).then(term).mean().alias(SERENDIPITY))
    )
