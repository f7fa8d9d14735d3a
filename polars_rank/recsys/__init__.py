"""Recommender metrics beyond accuracy: coverage, exposure, novelty, popularity, diversity and
serendipity, as Polars expressions and frame-level functions over long tables (the SQL macros
are in ``sql/recsys.sql``). :func:`polars_rank.evaluate` computes them next to the ranking
metrics when given ``interactions`` (and ``item_features``, ``catalog``).

Tables: the recommendations ``query, doc, rank`` (:func:`top_k` of a run ``query, doc,
score``); the interactions (training history) ``query, doc``; item features (vectors,
categories or a similarity table, :func:`item_features`); a catalog ``doc``.

* per user, expressions over the enriched recommendations (:func:`enrich`): :func:`novelty`,
  :func:`average_popularity`, :func:`long_tail_share`;
* per user, expressions over the recommendations joined with the unit feature vectors
  (:func:`unit_vectors`: of vectors, or of categories as multi-hot vectors) and, for
  serendipity, the users' history sums (:func:`history_vectors`):
  :func:`intra_list_diversity`, :func:`serendipity`;
* per user, frame-level, for every kind of item features (vectors, categories, a similarity
  table): :func:`user_diversity`, :func:`user_serendipity` (:func:`unexpectedness` gives the
  per-item values);
* corpus-level, frame-level: :func:`catalog_coverage`, :func:`shannon_entropy`,
  :func:`gini_index`, :func:`user_coverage`.

Conventions shared by every metric (each function's docstring names its reference and where
MS Recommenders or RecBole differ): the top k is cut **after** one row per ``(query, doc)`` is
kept and the list is ranked as the ranking metrics rank it (score descending, ties by item id);
popularity is counted on the **training** interactions (distinct users per item; RecBole's
``count="interactions"`` counts rows), never on the test set or the recommendations;
logarithms are base 2 (novelty, entropy; ``base=`` for entropy); an undefined per-user value
is null and stays out of the mean over users.

>>> import polars as pl
>>> from polars_rank import recsys
>>> run = pl.LazyFrame({"query": [1, 1, 2], "doc": ["a", "b", "a"], "score": [0.9, 0.5, 0.7]})
>>> inter = pl.LazyFrame({"query": [1, 2, 3], "doc": ["a", "a", "c"]})
>>> items = recsys.item_table(recsys.item_popularity(inter))
>>> table = recsys.enrich(recsys.top_k(run, 1), items)
>>> table.group_by("query").agg(recsys.novelty()).sort("query").collect().rows()
[(1, 0.5849625007211563), (2, 0.5849625007211563)]
"""

from polars_rank.recsys.corpus import (
    catalog_coverage,
    default_catalog,
    gini_index,
    recommendation_counts,
    shannon_entropy,
    user_coverage,
)
from polars_rank.recsys.diversity import unexpectedness, user_diversity, user_serendipity
from polars_rank.recsys.expressions import average_popularity, long_tail_share, novelty
from polars_rank.recsys.features import ItemFeatures, cooccurrence_similarity, item_features
from polars_rank.recsys.items import enrich, item_popularity, item_table, user_count
from polars_rank.recsys.options import ItemOptions
from polars_rank.recsys.top import top_k
from polars_rank.recsys.vectors import (
    history_vectors,
    intra_list_diversity,
    serendipity,
    unit_vectors,
)

__all__ = [
    "ItemFeatures",
    "ItemOptions",
    "average_popularity",
    "catalog_coverage",
    "cooccurrence_similarity",
    "default_catalog",
    "enrich",
    "gini_index",
    "history_vectors",
    "intra_list_diversity",
    "item_features",
    "item_popularity",
    "item_table",
    "long_tail_share",
    "novelty",
    "recommendation_counts",
    "serendipity",
    "shannon_entropy",
    "top_k",
    "unexpectedness",
    "unit_vectors",
    "user_count",
    "user_coverage",
    "user_diversity",
    "user_serendipity",
]
