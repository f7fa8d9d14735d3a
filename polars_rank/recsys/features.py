"""Item features for similarity: feature vectors, categories, or a similarity table.

:func:`item_features` recognises the kind of a features frame:

* **similarities** — columns ``doc_a, doc_b, similarity``: one value per unordered pair,
  either orientation; pairs not listed have similarity 0; an item's similarity with itself is
  1 (self pairs in the table are ignored).
* **vectors** — ``doc`` and one List/Array column of numbers: cosine similarity
  x_a·x_b / (‖x_a‖‖x_b‖). An item without a vector, or with a zero vector, has similarity 0
  with every item, itself included (MS Recommenders raises ``ZeroDivisionError`` instead).
* **categories** — ``doc`` and one other column (text, integer, ...), one row per item and
  category: the cosine of the items' multi-hot category vectors |C_a ∩ C_b| / √(|C_a||C_b|)
  (what MS Recommenders computes from one-hot genre vectors), or with
  ``similarity="jaccard"`` |C_a ∩ C_b| / |C_a ∪ C_b|. Repeated ``(doc, category)`` rows count
  once. An item without a category has similarity 0 with every item.

>>> import polars as pl
>>> item_features(pl.LazyFrame({"doc": [1], "vector": [[1.0, 0.0]]})).kind
'vectors'
>>> item_features(pl.LazyFrame({"doc": [1], "genre": ["jazz"]})).kind
'categories'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.core.frames import ACCEPTED, as_polars
from polars_rank.core.types import FrameLike

FeatureKind = Literal["vectors", "categories", "similarities"]

#: The kinds of item features, in the order the registry lists metric variants.
KINDS: tuple[FeatureKind, ...] = ("vectors", "categories", "similarities")

#: Column names of a similarity table.
DOC_A, DOC_B, SIMILARITY = "doc_a", "doc_b", "similarity"

_F64 = pl.Float64


@dataclass(frozen=True)
class ItemFeatures:
    """A features frame with its kind: ``frame`` keeps the caller's columns; ``column`` is the
    vector or category column (None for a similarity table); ``dim`` the vector length."""

    kind: FeatureKind
    frame: pl.LazyFrame
    doc: str = "doc"
    column: str | None = None
    dim: int | None = None


#: Item features (vectors, categories or a similarity table) for the diversity and
#: serendipity functions of :mod:`polars_rank.recsys`: a frame, or features already
#: recognised by :func:`item_features`.
ItemFeaturesLike: TypeAlias = "FrameLike | ItemFeatures"


def _is_vector(dtype: pl.DataType) -> bool:
    return isinstance(dtype, pl.List | pl.Array) and dtype.inner.is_numeric()


def _vector_dim(frame: pl.LazyFrame, column: str) -> int:
    dtype = frame.collect_schema()[column]
    if isinstance(dtype, pl.Array):
        return int(dtype.size)
    lengths = (
        frame.select(pl.col(column).list.len().drop_nulls().unique().sort())
        .collect()
        .to_series()
        .to_list()
    )
    if len(lengths) > 1:
        raise PolarsRankError(
            f"item_features column {column!r} holds vectors of different lengths {lengths}; "
            "every vector must have the same length"
        )
    return int(lengths[0]) if lengths else 0


def item_features(features: ItemFeaturesLike, *, doc: str = "doc") -> ItemFeatures:
    """The kind of a features frame (see the module docstring), or a
    :class:`~polars_rank.PolarsRankError` saying what is expected."""
    if isinstance(features, ItemFeatures):
        return features
    features = as_polars(features)
    if isinstance(features, pl.DataFrame):
        features = features.lazy()
    if not isinstance(features, pl.LazyFrame):
        raise TypeError(f"item_features must be {ACCEPTED}, got {type(features).__name__}")
    schema = features.collect_schema()
    names = list(schema.names())
    if DOC_A in schema or DOC_B in schema:
        for name in (DOC_A, DOC_B, SIMILARITY):
            if name not in schema:
                raise PolarsRankError(
                    f"item_features looks like a similarity table but has no column {name!r}; "
                    f"its columns are {names} (expected doc_a, doc_b, similarity)"
                )
        if not schema[SIMILARITY].is_numeric():
            raise PolarsRankError(
                f"item_features column 'similarity' must be numeric, got {schema[SIMILARITY]}"
            )
        return ItemFeatures("similarities", features, doc)
    others = [n for n in names if n != doc]
    if doc not in schema or len(others) != 1:
        raise PolarsRankError(
            f"item_features must have the columns {doc!r} and one feature column (a list or "
            "array of numbers: vectors; anything else: categories, one row per item and "
            f"category), or doc_a, doc_b, similarity; its columns are {names}"
        )
    column = others[0]
    if _is_vector(schema[column]):
        # no non-empty vector at all: one null component, so that every similarity is 0
        dim = max(_vector_dim(features, column), 1)
        return ItemFeatures("vectors", features, doc, column, dim)
    if isinstance(schema[column], pl.List | pl.Array):
        raise PolarsRankError(
            f"item_features column {column!r} is {schema[column]}: vectors must hold numbers"
        )
    return ItemFeatures("categories", features, doc, column)


def category_weights(features: ItemFeatures) -> pl.LazyFrame:
    """``doc, category, _w, _size``: the unit multi-hot vector of each item (weight 1/√|C_i|
    per category) and its number of categories |C_i|; repeated rows count once."""
    if features.kind != "categories" or features.column is None:
        raise AssertionError("category_weights needs category features")
    doc = features.doc
    cats = features.frame.select(doc, pl.col(features.column).alias("category")).unique()
    size = pl.len().over(doc).cast(_F64)
    return cats.with_columns((1.0 / size.sqrt()).alias("_w"), size.alias("_size"))


def canonical_pairs(features: ItemFeatures) -> pl.LazyFrame:
    """``_a, _b, _sim``: the similarity table keyed by (min(doc_a, doc_b), max(doc_a, doc_b)),
    self pairs left out (one value per pair: checked by :func:`polars_rank.evaluate`)."""
    if features.kind != "similarities":
        raise AssertionError("canonical_pairs needs a similarity table")
    a, b = pl.col(DOC_A), pl.col(DOC_B)
    return (
        features.frame.filter(a != b)
        .select(
            pl.min_horizontal(a, b).alias("_a"),
            pl.max_horizontal(a, b).alias("_b"),
            pl.col(SIMILARITY).cast(_F64).alias("_sim"),
        )
        .unique(subset=["_a", "_b"], keep="first")
    )


def cooccurrence_similarity(
    interactions: pl.DataFrame | pl.LazyFrame, *, query: str = "query", doc: str = "doc"
) -> pl.LazyFrame:
    """MS Recommenders' default item similarity (``item_cooccurrence_count``; Zhang et al.,
    Auralist, WSDM 2012): |U_a ∩ U_b| / (√|U_a| · √|U_b|) over the users who interacted with
    each item, as a similarity table ``doc_a < doc_b, similarity``. Cost: Σ_u |H_u|² pairs.

    Users 1 (items a, b) and 2 (item a): |U_a ∩ U_b| = 1, √2 · √1: 0.7071.

    >>> inter = pl.LazyFrame({"query": [1, 1, 2], "doc": ["a", "b", "a"]})
    >>> cooccurrence_similarity(inter).collect().rows()
    [('a', 'b', 0.7071067811865475)]
    """
    if isinstance(interactions, pl.DataFrame):
        interactions = interactions.lazy()
    history = interactions.select(query, doc).unique()
    roots = history.group_by(doc).agg(pl.len().cast(_F64).sqrt().alias("_root"))
    left = history.rename({doc: "_a"})
    right = history.rename({doc: "_b"})
    both = (
        left.join(right, on=query)
        .filter(pl.col("_a") < pl.col("_b"))
        .group_by("_a", "_b")
        .agg(pl.len().cast(_F64).alias("_both"))
    )
    return (
        both.join(roots.rename({doc: "_a", "_root": "_ra"}), on="_a")
        .join(roots.rename({doc: "_b", "_root": "_rb"}), on="_b")
        .select(
            pl.col("_a").alias(DOC_A),
            pl.col("_b").alias(DOC_B),
            (pl.col("_both") / (pl.col("_ra") * pl.col("_rb"))).alias(SIMILARITY),
        )
        .sort(DOC_A, DOC_B)
    )
