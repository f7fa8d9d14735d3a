"""Recommender metrics beyond accuracy (:mod:`polars_rank.recsys`): coverage, entropy, Gini,
novelty, popularity, long tail, intra-list diversity, serendipity; macros in ``sql/recsys.sql``."""

from __future__ import annotations

import math

from polars_rank import recsys as rs
from polars_rank.catalog.model import Metric, Param, alias, with_family
from polars_rank.catalog.params import COUNT_PARAM

_ENTRIES: tuple[Metric, ...] = (
    Metric(
        "catalog_coverage",
        rs.catalog_coverage,
        "catalog items in any user's top k / catalog size (items outside the catalog are not "
        "counted: a warning says how many)",
        cutoff="optional",
        relevance_level=False,
        columns=(),
        tables=("top", "catalog"),
        level="corpus",
        table="recommendations",
        title="catalog coverage",
        aliases=(
            alias("coverage"),
            alias("catalog_coverage", "recommenders"),
            alias("ItemCoverage", "recbole"),
        ),
        reference="MS Recommenders catalog_coverage (catalog = train items), RecBole "
        "ItemCoverage (catalog = item ids with the padding id)",
    ),
    Metric(
        "shannon_entropy",
        rs.shannon_entropy,
        "−Σ_i p(i) log_base p(i), p(i) = count(i) / Σ count over the top-k lists; "
        "per_item divides by the number of recommended items",
        cutoff="optional",
        params=(
            Param(
                "base",
                2.0,
                doc="logarithm base (2: bits)",
                valid=lambda v: v > 0 and v != 1,
                valid_doc="positive and not 1",
                examples=("10", "2.718281828459045"),
            ),
            Param(
                "per_item",
                False,
                {"true": True, "false": False},
                "divide by the number of recommended items (RecBole)",
            ),
        ),
        relevance_level=False,
        columns=(),
        tables=("top",),
        level="corpus",
        table="recommendations",
        title="Shannon entropy",
        aliases=(
            alias("entropy"),
            alias("shannon_entropy"),
            alias("distributional_coverage", "recommenders"),
            alias("ShannonEntropy", "recbole", base=math.e, per_item=True),
        ),
        reference="MS Recommenders distributional_coverage; RecBole ShannonEntropy with "
        "base=e, per_item=true",
        value_range=(0.0, float("inf")),
    ),
    Metric(
        "gini_index",
        rs.gini_index,
        "Σ_j (2j − n − 1) c_(j) / (n Σ c) over the n catalog items' top-k counts in ascending "
        "order (0: equal exposure)",
        cutoff="optional",
        relevance_level=False,
        columns=(),
        tables=("top", "catalog"),
        level="corpus",
        table="recommendations",
        title="Gini index",
        aliases=(alias("gini"), alias("gini_index"), alias("GiniIndex", "recbole")),
        reference="RecBole GiniIndex (n = its item count, padding id included)",
        higher_is_better=False,
    ),
    Metric(
        "user_coverage",
        rs.user_coverage,
        "users with at least one item in the top k (with rel=ℓ: one item of grade ≥ ℓ) / users",
        cutoff="optional",
        explicit_level=True,
        columns=(),
        tables=("top", "users"),
        level="corpus",
        table="recommendations",
        needs_qrels=lambda a: a["relevance_level"] is not None,
        title="user coverage",
        aliases=(alias("user_coverage"),),
        reference="Ge, Delgado-Battenfeld & Jannach 2010 (neither MS Recommenders nor RecBole "
        "has it)",
    ),
    Metric(
        "novelty",
        rs.novelty,
        "mean over the top-k items of −log2 p(i), p(i) = pop(i) / Σ pop (choice) or pop(i) / "
        "users (discovery); items without interactions skipped (unknown=zero: 0)",
        cutoff="optional",
        params=(
            Param(
                "unknown",
                "skip",
                {"skip": "skip", "zero": "zero"},
                "an item without interactions is left out (`skip`) or counts 0 (`zero`, MS "
                "Recommenders)",
            ),
            COUNT_PARAM,
            Param(
                "model",
                "choice",
                {"choice": "choice", "discovery": "discovery"},
                "`choice`: p = pop / Σ pop (MS Recommenders); `discovery`: p = pop / users",
                scope="table",
            ),
        ),
        relevance_level=False,
        columns=("rank", "self_information"),
        table="recommendations",
        inputs=("interactions",),
        aliases=(alias("novelty"),),
        item_value="self_information",
        unknown_value=lambda a: 0.0 if a["unknown"] == "zero" else None,
        reference="MS Recommenders historical_item_novelty (per item); its novelty averages "
        "over all recommendations with unknown=zero",
        value_range=(0.0, float("inf")),
    ),
    Metric(
        "average_popularity",
        rs.average_popularity,
        "mean popularity of the top-k items (0 for an item without interactions)",
        cutoff="optional",
        params=(COUNT_PARAM,),
        relevance_level=False,
        columns=("rank", "popularity"),
        table="recommendations",
        inputs=("interactions",),
        item_value="popularity",
        unknown_value=lambda a: 0,
        title="average recommendation popularity",
        aliases=(
            alias("arp"),
            alias("average_popularity"),
            alias("AveragePopularity", "recbole", count="interactions"),
        ),
        reference="RecBole AveragePopularity (count=interactions)",
        higher_is_better=None,
        value_range=(0.0, float("inf")),
    ),
    Metric(
        "long_tail_share",
        rs.long_tail_share,
        "share of the top-k items in the long tail: outside the ⌊head_share · n⌋ most popular "
        "of the n items with interactions (or tail_share / tail_popularity, RecBole)",
        cutoff="optional",
        params=(
            COUNT_PARAM,
            Param(
                "head_share",
                0.2,
                doc="the head: this share of the items, most popular first",
                valid=lambda v: 0.0 <= v <= 1.0,
                valid_doc="in [0, 1]",
                scope="table",
                examples=("0.1", "0.5"),
            ),
            Param(
                "tail_share",
                None,
                doc="instead, the tail: max(⌊share · n⌋, 1) least popular items (RecBole)",
                valid=lambda v: 0.0 < v <= 1.0,
                valid_doc="in (0, 1]",
                scope="table",
                examples=("0.1", "0.3"),
            ),
            Param(
                "tail_popularity",
                None,
                doc="instead, the tail: items with popularity ≤ this (RecBole)",
                valid=lambda v: v >= 0,
                valid_doc="non-negative",
                scope="table",
                examples=("1", "3"),
            ),
            Param(
                "unknown",
                True,
                {"tail": True, "head": False},
                "an item without interactions is `tail` (default) or `head` (RecBole)",
                scope="table",
            ),
        ),
        relevance_level=False,
        columns=("rank", "in_tail"),
        table="recommendations",
        inputs=("interactions",),
        item_value="in_tail",
        unknown_value=lambda a: a["unknown"],  # the item-table option: tail True, head False
        title="long-tail share (APLT)",
        aliases=(
            alias("aplt"),
            alias("long_tail_share"),
            alias(
                "TailPercentage",
                "recbole",
                tail_share=0.1,
                unknown=False,
                count="interactions",
            ),
        ),
        reference="RecBole TailPercentage (tail_share or tail_popularity, unknown=head, "
        "count=interactions)",
    ),
    Metric(
        "intra_list_diversity",
        rs.user_diversity,
        "1 − Σ_{i<j} sim(i, j) / C(n, 2) over the n top-k items (null for n < 2); sim: cosine "
        "of vectors or categories, Jaccard of categories, or a similarity table (missing 0)",
        cutoff="optional",
        params=(
            Param(
                "similarity",
                "cosine",
                {"cosine": "cosine", "jaccard": "jaccard"},
                "for category features: `cosine` of multi-hot vectors or `jaccard`",
                variants=("categories",),
            ),
        ),
        relevance_level=False,
        columns=(),
        tables=("top", "item_features"),
        variants=rs.features.KINDS,
        table="recommendations",
        inputs=("item_features",),
        pairwise=True,
        title="intra-list diversity",
        aliases=(
            alias("ild"),
            alias("intra_list_diversity"),
            alias("diversity", "recommenders"),
        ),
        reference="MS Recommenders user_diversity / diversity",
        value_range=(0.0, 2.0),
    ),
    Metric(
        "serendipity",
        rs.user_serendipity,
        "mean over the top-k items of (1 − mean_{j ∈ history} sim(i, j)) · gain, gain from the "
        "qrels (binary, graded or none); null without history",
        cutoff="optional",
        params=(
            Param(
                "gain",
                "binary",
                {"binary": "binary", "graded": "graded", "none": "none"},
                "relevance factor: `binary` (grade ≥ level), `graded` (the grade) or `none` "
                "(1, MS Recommenders without relevance)",
            ),
        ),
        columns=(),
        tables=("top", "interactions", "item_features"),
        variants=rs.features.KINDS,
        table="recommendations",
        inputs=("interactions", "item_features"),
        pairwise=True,
        history=True,
        needs_qrels=lambda a: a["gain"] != "none",
        aliases=(alias("serendipity", "recommenders"),),
        reference="MS Recommenders user_serendipity / serendipity",
        value_range=(-float("inf"), float("inf")),
    ),
)

ENTRIES = with_family("recommender", _ENTRIES)
