"""Intra-list diversity, unexpectedness and serendipity: per-user values that need item
similarities (:mod:`.features`), as frame-level functions (LazyFrame in, LazyFrame out).

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
user is (Σ_i g_i − (Σ_i g_i u_i)·C_u / |H_u|) / n with the history sum C_u = Σ_{j∈H_u} u_j.

>>> import polars as pl
>>> top = pl.LazyFrame({"query": [1, 1, 1], "doc": ["a", "b", "c"], "rank": [1, 2, 3]})
>>> vectors = pl.LazyFrame({"doc": ["a", "b", "c"], "v": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]})
>>> round(intra_list_diversity(top, vectors).collect().item(0, 1), 6)  # 1 - (0 + 2/√2)/3
0.528595
"""

from __future__ import annotations

import polars as pl

from polars_rank._errors import PolarsRankError
from polars_rank.ranking.conventions import relevant
from polars_rank.recsys.features import (
    ItemFeatures,
    canonical_pairs,
    category_weights,
    components,
    item_features,
    unit_vectors,
)
from polars_rank.recsys.options import CategorySimilarity, SerendipityGain, check_choice, check_k

_F64 = pl.Float64
ILD, UNEXPECTEDNESS, SERENDIPITY = "intra_list_diversity", "unexpectedness", "serendipity"


def cut(top: pl.LazyFrame, k: int | None, rank: str = "rank") -> pl.LazyFrame:
    """The rows of ``top`` with ``rank <= k`` (all when k is None)."""
    return top if k is None else top.filter(pl.col(rank) <= k)


def gain_expr(
    gain: SerendipityGain, relevance: str = "relevance", relevance_level: float = 1
) -> pl.Expr:
    """Serendipity's relevance factor of a recommendation from its qrels grade (null when
    unjudged): binary (grade ≥ level), graded (the grade when positive) or 1 (``"none"``)."""
    check_choice("gain", gain, ("binary", "graded", "none"))
    if gain == "none":
        return pl.lit(1.0, _F64)
    grade = pl.col(relevance).cast(_F64)
    if gain == "binary":
        return relevant(grade, relevance_level).cast(_F64)
    return pl.when(grade > 0).then(grade).otherwise(0.0)


def ild_from_pair_sum(pair_sum: pl.Expr, n: pl.Expr) -> pl.Expr:
    """1 − pair_sum / C(n, 2); null when the list has fewer than 2 items."""
    pairs = n.cast(_F64) * (n.cast(_F64) - 1.0) / 2.0
    return pl.when(n >= 2).then(1.0 - pair_sum / pairs)


def history(interactions: pl.LazyFrame, query: str = "query", doc: str = "doc") -> pl.LazyFrame:
    """The distinct ``query, doc`` pairs of the interactions (H_u of every user). A group-by
    on both ids: 25 % less CPU than ``unique()`` on 10M rows."""
    return interactions.group_by(query, doc).agg()


def _features(features, doc: str) -> ItemFeatures:
    found = item_features(features, doc=doc)
    if found.doc != doc:
        raise AssertionError("features and recommendations share the doc column name")
    return found


# ------------------------------------------------------------------------------------------
# vectors: closed forms from per-user sums


def vector_sum_aggs(
    dim: int, *, mask: pl.Expr | None = None, gain: pl.Expr | None = None, suffix: str = ""
) -> list[pl.Expr]:
    """The aggregations of :func:`vector_sums` over the rows where ``mask`` holds (all rows
    when None), their names ending in ``suffix``; the unit-vector columns ``_u{j}`` and
    ``_sq`` must be joined already."""

    def within(value: pl.Expr) -> pl.Expr:
        return value if mask is None else pl.when(mask).then(value)

    names = components(dim)
    count = pl.len() if mask is None else mask.sum()
    aggs = [count.alias(f"_n{suffix}"), within(pl.col("_sq")).sum().alias(f"_sq{suffix}")]
    aggs += [within(pl.col(c)).sum().alias(f"_s{j}{suffix}") for j, c in enumerate(names)]
    if gain is not None:
        aggs.append(within(gain).sum().alias(f"_g{suffix}"))
        aggs += [
            within(gain * pl.col(c)).sum().alias(f"_t{j}{suffix}") for j, c in enumerate(names)
        ]
    return aggs


def vector_sums(
    rows: pl.LazyFrame,
    unit: pl.LazyFrame,
    dim: int,
    *,
    gain: pl.Expr | None = None,
    query: str = "query",
    doc: str = "doc",
) -> pl.LazyFrame:
    """Per user of ``rows`` (already cut at k): ``_n`` items, ``_sq`` = Σ_i ‖u_i‖²,
    ``_s{j}`` = Σ_i u_ij and, with a ``gain``, ``_g`` = Σ_i g_i and ``_t{j}`` = Σ_i g_i u_ij.
    Plain sums over one join: an item without a vector adds nothing but counts in ``_n``."""
    return rows.join(unit, on=doc, how="left").group_by(query).agg(vector_sum_aggs(dim, gain=gain))


def ild_from_vector_sums(dim: int, suffix: str = "") -> pl.Expr:
    """ILD from :func:`vector_sums`: 1 − (‖s‖² − Σ‖u_i‖²) / 2 / C(n, 2)."""
    s = [pl.col(f"_s{j}{suffix}") for j in range(dim)]
    total = pl.sum_horizontal([x * x for x in s])
    pair_sum = (total - pl.col(f"_sq{suffix}").fill_null(0.0)) / 2.0
    return ild_from_pair_sum(pair_sum, pl.col(f"_n{suffix}")).alias(ILD)


def history_sums(
    past: pl.LazyFrame, unit: pl.LazyFrame, dim: int, *, query: str = "query", doc: str = "doc"
) -> pl.LazyFrame:
    """Per user with a history (``past``: distinct pairs): ``_h`` = |H_u| and
    ``_c{j}`` = Σ_{i ∈ H_u} u_ij."""
    names = components(dim)
    return (
        past.join(unit, on=doc, how="left")
        .group_by(query)
        .agg(
            pl.len().cast(_F64).alias("_h"),
            *[pl.col(c).sum().alias(f"_c{j}") for j, c in enumerate(names)],
        )
    )


def serendipity_from_sums(dim: int, *, with_gain: bool, suffix: str = "") -> pl.Expr:
    """Serendipity from :func:`vector_sums` joined with :func:`history_sums`:
    (G − (Σ_i g_i u_i) · C / |H|) / n, G = Σ_i g_i (n and Σ_i u_i when every gain is 1);
    null without history or without items."""
    n = pl.col(f"_n{suffix}").cast(_F64)
    t, g = ("_t", pl.col(f"_g{suffix}")) if with_gain else ("_s", n)
    dot = pl.sum_horizontal(
        [(pl.col(f"{t}{j}{suffix}") * pl.col(f"_c{j}")).fill_null(0.0) for j in range(dim)]
    )
    value = (g - dot / pl.col("_h")) / n
    return pl.when(pl.col("_h").is_not_null() & (n > 0)).then(value).alias(SERENDIPITY)


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


def intra_list_diversity(
    top: pl.LazyFrame,
    item_features: pl.LazyFrame | pl.DataFrame | ItemFeatures,
    k: int | None = None,
    *,
    similarity: CategorySimilarity = "cosine",
    query: str = "query",
    doc: str = "doc",
    rank: str = "rank",
) -> pl.LazyFrame:
    """``query, intra_list_diversity``: ILD@k = 1 − mean similarity over the C(n, 2) pairs of
    each user's top-k items (see the module docstring; similarity: :mod:`.features`).
    ``similarity="jaccard"`` applies to category features only.

    Items a, b, c with vectors (1, 0), (0, 1), (1, 1): cosines 0, 1/√2, 1/√2, ILD = 1 − √2/3.
    """
    check_k(k, "intra_list_diversity")
    check_choice("similarity", similarity, ("cosine", "jaccard"))
    features = _features(item_features, doc)
    if similarity == "jaccard" and features.kind != "categories":
        raise PolarsRankError(f"similarity='jaccard' needs category features, got {features.kind}")
    rows = cut(top, k, rank).select(query, doc, rank)
    if features.kind == "vectors":
        dim = features.dim or 0
        sums = vector_sums(rows, unit_vectors(features), dim, query=query, doc=doc)
        return sums.select(query, ild_from_vector_sums(dim))
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
    the history is similar)."""
    if features.kind == "vectors":
        dim = features.dim or 0
        unit = unit_vectors(features)
        centroid = history_sums(past, unit, dim, query=query, doc=doc)
        names = components(dim)
        dot = pl.sum_horizontal(
            [(pl.col(c) * pl.col(f"_c{j}")).fill_null(0.0) for j, c in enumerate(names)]
        )
        return (
            rows.join(unit, on=doc, how="left")
            .join(centroid, on=query, how="left")
            .select(query, doc, rank, dot.alias("_simsum"))
        )
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


def unexpectedness(
    top: pl.LazyFrame,
    interactions: pl.LazyFrame,
    item_features: pl.LazyFrame | pl.DataFrame | ItemFeatures,
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
    sizes = past.group_by(query).agg(pl.len().cast(_F64).alias("_h"))
    rows = cut(top, k, rank).select(query, doc, rank)
    sims = _similarity_sums(rows, past, features, query, doc, rank)
    return sims.join(sizes, on=query, how="inner").select(
        query, doc, rank, (1.0 - pl.col("_simsum") / pl.col("_h")).alias(UNEXPECTEDNESS)
    )


def serendipity(
    top: pl.LazyFrame,
    interactions: pl.LazyFrame,
    item_features: pl.LazyFrame | pl.DataFrame | ItemFeatures,
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
    null when unjudged). Null for a user without history.

    User 1 saw a; recommended b (orthogonal to a, relevant) and a itself (not relevant):
    binary gains 1, 0 → (1 · 1 + 0 · 0) / 2 = 0.5; without relevance (1 + 0) / 2 = 0.5 too.

    >>> top = pl.LazyFrame({"query": [1, 1], "doc": ["b", "a"], "rank": [1, 2],
    ...                     "relevance": [1, None]})
    >>> past = pl.LazyFrame({"query": [1], "doc": ["a"]})
    >>> vectors = pl.LazyFrame({"doc": ["a", "b"], "v": [[1.0, 0.0], [0.0, 2.0]]})
    >>> serendipity(top, past, vectors).collect().rows()
    [(1, 0.5)]
    """
    check_k(k, "serendipity")
    gain_value = gain_expr(gain, relevance, relevance_level)
    features = _features(item_features, doc)
    past = history(interactions, query, doc)
    columns = [query, doc, rank] + ([relevance] if gain != "none" else [])
    rows = cut(top, k, rank).select(columns)
    if features.kind == "vectors":
        dim = features.dim or 0
        unit = unit_vectors(features)
        with_gain = gain != "none"
        sums = vector_sums(
            rows, unit, dim, gain=gain_value if with_gain else None, query=query, doc=doc
        )
        centroids = history_sums(past, unit, dim, query=query, doc=doc)
        return sums.join(centroids, on=query, how="left").select(
            query, serendipity_from_sums(dim, with_gain=with_gain)
        )
    sizes = past.group_by(query).agg(pl.len().cast(_F64).alias("_h"))
    sims = _similarity_sums(rows.select(query, doc, rank), past, features, query, doc, rank)
    if gain != "none":
        sims = sims.join(rows.select(query, doc, relevance), on=[query, doc], how="left")
    term = (1.0 - pl.col("_simsum") / pl.col("_h")) * gain_value
    return (
        sims.join(sizes, on=query, how="left")
        .group_by(query)
        .agg(pl.when(pl.col("_h").is_not_null()).then(term).mean().alias(SERENDIPITY))
    )
