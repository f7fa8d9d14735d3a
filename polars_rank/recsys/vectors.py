"""Intra-list diversity and serendipity of one user as Polars expressions over unit vectors.

The expressions aggregate one user's rows of the recommendation table (``query, doc, rank``)
for ``table.group_by("query").agg(...)``, once the rows carry what they read:

* ``unit_vector``: the item's feature vector divided by its norm, as a struct with one Float64
  field per component (:func:`unit_vectors` of the item features, joined on ``doc``; null for
  an item without a vector or with a zero vector). Cosine similarity is then a dot product,
  and the expressions only sum fields: a struct's fields are plain columns that Polars sums in
  one pass, where a list or array column would be taken apart group by group.
* for serendipity, the user's history (:func:`history_vectors` of the interactions, joined on
  ``query``): ``history_sum`` = C_u = Σ_{j ∈ H_u} u_j over the distinct items H_u of the
  user's interactions, and ``history_size`` = |H_u|; and, with a ``gain`` other than
  ``"none"``, the qrels grade in ``relevance`` (null when unjudged).

``k`` keeps the rows with ``rank <= k`` (all rows when None). Definitions (MS Recommenders
``user_diversity`` and ``user_serendipity``, see :mod:`.diversity`), in closed form from
per-user sums, O(k·d) per user rather than O(k²·d):

* ILD@k = 1 − Σ_{i<j} u_i·u_j / C(n, 2) over the n items of the top k, with
  Σ_{i<j} u_i·u_j = (‖Σ_i u_i‖² − m) / 2 and m the number of items with a vector (‖u_i‖² = 1);
  an item without a vector counts in n and is similar to nothing; null for n < 2.
* serendipity@k = (1/n) Σ_i g_i (1 − u_i·C_u / |H_u|) = (G − D / |H_u|) / n, G = Σ_i g_i,
  D = Σ_i g_i u_i·C_u, g_i the gain (binary: grade ≥ level; graded: the grade when positive;
  none: 1); null for a user without history (``history_size`` null) or without items. The
  expression sums the per-row dot products u_i·C_u (each row carries C_u); ``evaluate``, which
  joins C_u onto one row per user instead, takes D = (Σ_i g_i u_i)·C_u: the same sum.

>>> import polars as pl
>>> top = pl.LazyFrame({"query": [1, 1, 1], "doc": ["a", "b", "c"], "rank": [1, 2, 3]})
>>> vectors = pl.LazyFrame({"doc": ["a", "b", "c"], "v": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]})
>>> rows = top.join(unit_vectors(vectors), on="doc", how="left")
>>> ild = rows.group_by("query").agg(intra_list_diversity()).collect().item(0, 1)
>>> round(ild, 6)  # cosines 0, 1/√2, 1/√2: 1 − (2/√2) / 3
0.528595
"""

from __future__ import annotations

import polars as pl

from polars_rank.core.conventions import relevant
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.expr import ColumnOrExpr
from polars_rank.core.expr import col as _col
from polars_rank.recsys.expressions import _within, masked
from polars_rank.recsys.features import ItemFeatures, ItemFeaturesLike
from polars_rank.recsys.features import item_features as _item_features
from polars_rank.recsys.options import SerendipityGain, check_choice, check_k

_F64 = pl.Float64

#: The columns the expressions read by default.
UNIT_VECTOR, HISTORY_SUM, HISTORY_SIZE = "unit_vector", "history_sum", "history_size"
ILD, SERENDIPITY = "intra_list_diversity", "serendipity"


# ------------------------------------------------------------------------------------------
# the tables the expressions read


def _category_unit_vectors(features: ItemFeatures) -> pl.LazyFrame:
    """``doc, unit_vector`` of category features: one field per category (sorted), 1/√|C_i|
    where item i has the category, else 0; repeated ``(doc, category)`` rows count once."""
    doc, column = features.doc, features.column or ""
    pairs = features.frame.select(doc, pl.col(column).alias("_category")).unique()
    values = pairs.select(pl.col("_category").unique().sort()).collect().to_series()
    if values.null_count():
        raise PolarsRankError(f"item_features column {column!r} has null categories")
    dtype = values.dtype
    size = pl.len().cast(_F64).sqrt()
    fields = [
        ((pl.col("_category") == pl.lit(v, dtype)).any().cast(_F64) / size).alias(f"u{j}")
        for j, v in enumerate(values.to_list())
    ]
    if not fields:  # no category at all: every item is similar to nothing
        return features.frame.select(doc, pl.lit(None, pl.Struct({"u0": _F64})).alias(UNIT_VECTOR))
    return pairs.group_by(doc).agg(pl.struct(fields).alias(UNIT_VECTOR))


def unit_vectors(item_features: ItemFeaturesLike, *, doc: str = "doc") -> pl.LazyFrame:
    """``doc, unit_vector``: each item's vector divided by its Euclidean norm, a struct of
    Float64 fields ``u0 … u{d-1}``; null for a null or zero vector (similar to nothing).

    Category features (``doc, category``, one row per item and category) give each item's
    multi-hot category vector over its norm: one field per distinct category (in sorted
    order), 1/√|C_i| where the item has it. Their dot product is the cosine of the
    categories, |C_a ∩ C_b| / √(|C_a||C_b|), so :func:`intra_list_diversity` and
    :func:`serendipity` compute the category (cosine) variants with it. One field per
    category suits tens or hundreds of categories (genres); with thousands, or for Jaccard
    similarity, use the frame-level :func:`~polars_rank.recsys.user_diversity` and
    :func:`~polars_rank.recsys.user_serendipity`. A similarity table has no vectors (an
    error).

    >>> v = pl.LazyFrame({"doc": ["a", "b"], "v": [[3, 4], [0, 0]]})
    >>> unit_vectors(v).collect().rows()
    [('a', {'u0': 0.6, 'u1': 0.8}), ('b', None)]
    >>> genres = pl.LazyFrame({"doc": ["a", "c", "c"], "genre": ["jazz", "jazz", "rock"]})
    >>> unit_vectors(genres).sort("doc").collect().rows()  # c: (1, 1)/√2
    [('a', {'u0': 1.0, 'u1': 0.0}), ('c', {'u0': 0.7071067811865475, 'u1': 0.7071067811865475})]
    """
    features = _item_features(item_features, doc=doc)
    if features.kind == "categories":
        return _category_unit_vectors(features)
    if features.kind != "vectors":
        raise PolarsRankError(
            "unit vectors need vector features (a list or array column) or categories, got a "
            "similarity table"
        )
    if features.column is None or features.dim is None:
        raise AssertionError("vector features have a column and a dimension")
    v = pl.col(features.column)
    if isinstance(features.frame.collect_schema()[features.column], pl.Array):
        xs = [v.arr.get(j, null_on_oob=True).cast(_F64) for j in range(features.dim)]
    else:
        xs = [v.list.get(j, null_on_oob=True).cast(_F64) for j in range(features.dim)]
    norm = pl.sum_horizontal([x * x for x in xs]).sqrt()
    unit = pl.struct([(x / norm).alias(f"u{j}") for j, x in enumerate(xs)])
    return features.frame.select(pl.col(doc), pl.when(norm > 0).then(unit).alias(UNIT_VECTOR))


def history(interactions: pl.LazyFrame, query: str = "query", doc: str = "doc") -> pl.LazyFrame:
    """The distinct ``query, doc`` pairs of the interactions (H_u of every user). A group-by
    on both ids: 25 % less CPU than ``unique()`` on 10M rows."""
    return interactions.group_by(query, doc).agg()


def history_sums(
    past: pl.LazyFrame, unit: pl.LazyFrame, *, query: str = "query", doc: str = "doc"
) -> pl.LazyFrame:
    """:func:`history_vectors` from the distinct pairs ``past`` and :func:`unit_vectors`."""
    return (
        past.join(unit, on=doc, how="left")
        .group_by(query)
        .agg(
            pl.struct(pl.col(UNIT_VECTOR).struct.unnest().sum()).alias(HISTORY_SUM),
            pl.len().cast(_F64).alias(HISTORY_SIZE),
        )
    )


def history_vectors(
    interactions: pl.LazyFrame | pl.DataFrame,
    item_features: ItemFeaturesLike,
    *,
    query: str = "query",
    doc: str = "doc",
) -> pl.LazyFrame:
    """``query, history_sum, history_size`` for every user with an interaction: the sum of the
    unit vectors of the user's distinct items (a struct like :func:`unit_vectors`'; an item
    without a vector adds nothing) and their number (Float64).

    User 1 saw a twice and b once: H = {a, b}, C = (1, 0) + (0, 1).

    >>> inter = pl.LazyFrame({"query": [1, 1, 1], "doc": ["a", "a", "b"]})
    >>> v = pl.LazyFrame({"doc": ["a", "b"], "v": [[2.0, 0.0], [0.0, 5.0]]})
    >>> history_vectors(inter, v).collect().rows()
    [(1, {'u0': 1.0, 'u1': 1.0}, 2.0)]
    """
    if isinstance(interactions, pl.DataFrame):
        interactions = interactions.lazy()
    unit = unit_vectors(item_features, doc=doc)
    return history_sums(history(interactions, query, doc), unit, query=query, doc=doc)


# ------------------------------------------------------------------------------------------
# the formulas


def gain_expr(
    gain: SerendipityGain, relevance: ColumnOrExpr = "relevance", relevance_level: float = 1
) -> pl.Expr:
    """Serendipity's relevance factor of a recommendation from its qrels grade (null when
    unjudged): binary (grade ≥ level), graded (the grade when positive) or 1 (``"none"``)."""
    check_choice("gain", gain, ("binary", "graded", "none"))
    if gain == "none":
        return pl.lit(1.0, _F64)
    grade = _col(relevance).cast(_F64)
    if gain == "binary":
        return relevant(grade, relevance_level).cast(_F64)
    return pl.when(grade > 0).then(grade).otherwise(0.0)


def ild_from_pair_sum(pair_sum: pl.Expr, n: pl.Expr) -> pl.Expr:
    """1 − pair_sum / C(n, 2); null when the list has fewer than 2 items."""
    pairs = n.cast(_F64) * (n.cast(_F64) - 1.0) / 2.0
    return pl.when(n >= 2).then(1.0 - pair_sum / pairs)


def count(rank: ColumnOrExpr = "rank", k: int | None = None) -> pl.Expr:
    """The number of rows within k."""
    return pl.len() if k is None else _within(rank, k).sum()


def _components(
    vector: ColumnOrExpr, rank: ColumnOrExpr, k: int | None, weight: pl.Expr | None = None
) -> pl.Expr:
    """The fields of ``vector`` (one expression per component), times ``weight``, on the rows
    within k (null elsewhere)."""
    fields = _col(vector).struct.unnest()
    if weight is not None:
        fields = fields * weight  # the field keeps its name
    return masked(fields, rank, k)


def vector_sum(
    k: int | None = None,
    *,
    vector: ColumnOrExpr = UNIT_VECTOR,
    rank: ColumnOrExpr = "rank",
    weight: pl.Expr | None = None,
) -> pl.Expr:
    """Σ_i w_i u_i over a user's rows within k, as a struct like ``vector``'s (w_i = 1 when
    ``weight`` is None)."""
    return pl.struct(_components(vector, rank, k, weight).sum())


def with_vector_count(
    k: int | None = None, *, vector: ColumnOrExpr = UNIT_VECTOR, rank: ColumnOrExpr = "rank"
) -> pl.Expr:
    """m: the number of a user's rows within k whose item has a unit vector."""
    return masked(_col(vector).is_not_null(), rank, k).sum().cast(_F64)


def ild_from_sums(sums: pl.Expr, with_vector: pl.Expr, n: pl.Expr) -> pl.Expr:
    """1 − (‖Σ_i u_i‖² − m) / 2 / C(n, 2) from the components of Σ_i u_i (``sums``, one
    expression per component), m items with a vector and n items; null for n < 2."""
    squares = pl.sum_horizontal(sums.pow(2))
    return ild_from_pair_sum((squares - with_vector) / 2.0, n)


def history_dot(
    vector: ColumnOrExpr = UNIT_VECTOR, history_sum: ColumnOrExpr = HISTORY_SUM
) -> pl.Expr:
    """Row by row: u_i·C_u = Σ_{j ∈ H_u} cos(i, j), the item's summed similarity to the user's
    history (0 for an item without a vector or a user without history)."""
    products = _col(vector).struct.unnest() * _col(history_sum).struct.unnest()
    return pl.sum_horizontal(products.fill_null(0.0))


def serendipity_from_sums(
    dot_total: pl.Expr, gain_total: pl.Expr, n: pl.Expr, history_size: pl.Expr
) -> pl.Expr:
    """(G − D / |H|) / n from D = Σ_i g_i u_i·C (``dot_total``), G = Σ_i g_i
    (``gain_total``), n items and |H|; null without history or without items."""
    n = n.cast(_F64)
    value = (gain_total - dot_total / history_size) / n
    return pl.when(history_size.is_not_null() & (n > 0)).then(value)


# ------------------------------------------------------------------------------------------
# the expressions


def intra_list_diversity(
    k: int | None = None, *, vector: ColumnOrExpr = UNIT_VECTOR, rank: ColumnOrExpr = "rank"
) -> pl.Expr:
    """ILD@k of one user: 1 − the mean cosine similarity over the C(n, 2) pairs of its top-k
    items (Ziegler et al. 2005; MS Recommenders ``user_diversity`` with item-feature
    similarity), from the unit vectors in ``vector`` (see the module docstring). Null for a
    user with fewer than 2 items; an item without a vector counts in n with similarity 0 to
    every other item (MS Recommenders' missing similarity).

    Items a, b, c with vectors (1, 0), (0, 1), (1, 1): Σ u = (1 + 1/√2, 1 + 1/√2),
    ‖Σ u‖² = 2 (1 + 1/√2)² = 3 + 2√2, pair sum (3 + 2√2 − 3) / 2 = √2, ILD = 1 − √2 / 3.
    At k = 2 (a, b): pair sum (2 − 2) / 2 = 0, ILD = 1.

    >>> top = pl.LazyFrame({"query": [1, 1, 1], "doc": ["a", "b", "c"], "rank": [1, 2, 3]})
    >>> vectors = pl.LazyFrame({"doc": ["a", "b", "c"],
    ...                         "v": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]})
    >>> rows = top.join(unit_vectors(vectors), on="doc", how="left")
    >>> rows.group_by("query").agg(intra_list_diversity(), intra_list_diversity(2).alias("at2")
    ...                            ).select(pl.all().round(6)).collect().rows()
    [(1, 0.528595, 1.0)]
    """
    check_k(k, "intra_list_diversity")
    sums = _components(vector, rank, k).sum()
    m = with_vector_count(k, vector=vector, rank=rank)
    return ild_from_sums(sums, m, count(rank, k)).alias(ILD)


def serendipity(
    k: int | None = None,
    *,
    gain: SerendipityGain = "binary",
    relevance_level: float = 1,
    vector: ColumnOrExpr = UNIT_VECTOR,
    history_sum: ColumnOrExpr = HISTORY_SUM,
    history_size: ColumnOrExpr = HISTORY_SIZE,
    relevance: ColumnOrExpr = "relevance",
    rank: ColumnOrExpr = "rank",
) -> pl.Expr:
    """serendipity@k of one user: the mean over its top-k items of unexpectedness · gain,
    unexpectedness = 1 − the mean cosine similarity of the item to the user's history (MS
    Recommenders ``user_serendipity`` with item-feature similarity; Zhang et al. 2012). The
    rows carry the item's unit vector, the user's history (:func:`history_vectors`, null
    without history: the value is null) and, unless ``gain="none"``, the qrels grade in
    ``relevance`` (null when unjudged: gain 0). See the module docstring.

    User 1 saw a and c (vectors (1, 0), (0, 1)): C = (1, 1), |H| = 2. Recommended b = (1, 1)/√2
    (relevant) and a (not relevant): unexpectedness 1 − (2/√2)/2 = 1 − 1/√2 and 1 − 1/2;
    binary gains 1, 0: (1 − 1/√2) / 2 = 0.146447; without relevance
    (1 − 1/√2 + 1/2) / 2 = 0.396447.

    >>> vectors = pl.LazyFrame({"doc": ["a", "b", "c"],
    ...                         "v": [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]})
    >>> past = pl.LazyFrame({"query": [1, 1], "doc": ["a", "c"]})
    >>> top = pl.LazyFrame({"query": [1, 1], "doc": ["b", "a"], "rank": [1, 2],
    ...                     "relevance": [1, 0]})
    >>> rows = (top.join(unit_vectors(vectors), on="doc", how="left")
    ...            .join(history_vectors(past, vectors), on="query", how="left"))
    >>> rows.group_by("query").agg(serendipity(), serendipity(gain="none").alias("none")
    ...                            ).select(pl.all().round(6)).collect().rows()
    [(1, 0.146447, 0.396447)]
    """
    check_k(k, "serendipity")
    g = gain_expr(gain, relevance, relevance_level)
    dot = history_dot(vector, history_sum)
    n = count(rank, k)
    if gain == "none":
        gains, dots = n.cast(_F64), masked(dot, rank, k).sum()
    else:
        gains, dots = masked(g, rank, k).sum(), masked(dot * g, rank, k).sum()
    value = serendipity_from_sums(dots, gains, n, _col(history_size).first())
    return value.alias(SERENDIPITY)


def item_unexpectedness(
    *,
    vector: ColumnOrExpr = UNIT_VECTOR,
    history_sum: ColumnOrExpr = HISTORY_SUM,
    history_size: ColumnOrExpr = HISTORY_SIZE,
) -> pl.Expr:
    """Row by row: 1 − u_i·C_u / |H_u|, the unexpectedness of each recommendation (an item
    without a vector: 1; null without history)."""
    return 1.0 - history_dot(vector, history_sum) / _col(history_size)
