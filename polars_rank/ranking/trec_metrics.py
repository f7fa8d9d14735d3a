"""trec_eval's other measures as Polars expressions: the ones of ``-m all_trec`` that the common
tools lack (relstring, infAP, Rprec_mult, utility, binG, G, ndcg_rel, Rndcg, set_relative_P,
set_map, rbp, rbp_resid), and yaap.

Same conventions as :mod:`polars_rank.ranking.metrics`: each function returns a ``pl.Expr``
aggregating one query's rows of the judged table (``rank``, ``relevance``) to one value, Float64
except :func:`relevance_string` (String). Definitions are trec_eval 10.0's; each docstring names
the trec_eval file that defines it. How trec_eval sees a retrieved document, and its
counterpart in the judged table:

* a grade ``>= 0`` from the judgments: ``relevance`` is that grade;
* judged with a negative grade ("in the pool but unjudged", level -2): ``relevance < 0``;
* not in the judgments (level -1): ``relevance`` is null.

Every function reads only judged rows, the number retrieved (``rank.max()``) and counts of
unjudged positions, so it gives the same value on the compact judged table
:func:`polars_rank.evaluate` builds (judged rows plus one unjudged row per query at rank =
number retrieved).

>>> import polars as pl
>>> judged = pl.DataFrame({"query": ["q"] * 4, "rank": [1, 2, 4, None],
...                        "relevance": [1, 0, None, 2]})
>>> judged.group_by("query").agg(relevance_string(), set_average_precision()).rows()
[('q', '10--', 0.125)]

(Four retrieved: rank 1 graded 1, rank 2 graded 0, ranks 3 and 4 unjudged; set_map =
relevant retrieved² / (retrieved · R) = 1 / (4 · 2).)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from polars_rank.core.conventions import judged_nonrelevant, relevant
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.expr import ColumnOrExpr
from polars_rank.core.expr import col as _col
from polars_rank.core.expr import safe_div as _div
from polars_rank.ranking.gains import (
    Gains,
    gain_table,
    ideal_discounted_sums,
    ideal_gains,
    table_gain,
)

__all__ = [
    "INFAP_EPSILON",
    "UTILITY_COEFFICIENTS",
    "binary_g",
    "inferred_ap",
    "ndcg_rel",
    "normalized_gain",
    "r_ndcg",
    "r_precision_multiple",
    "relevance_string",
    "set_average_precision",
    "set_relative_precision",
    "trec_rbp",
    "trec_rbp_residual",
    "utility",
    "yaap",
]

#: The epsilon of trec_eval's infAP (``INFAP_EPSILON`` in trec_eval.h).
INFAP_EPSILON = 1e-5

#: utility's default coefficients (relevant retrieved, other retrieved, relevant missed, rest).
UTILITY_COEFFICIENTS = (1.0, -1.0, 0.0, 0.0)

_F64 = pl.Float64


def _num_ret(rank: ColumnOrExpr) -> pl.Expr:
    return _col(rank).max().fill_null(0).cast(_F64)


def _num_rel(relevance: ColumnOrExpr, level: float) -> pl.Expr:
    return relevant(_col(relevance), level).sum().cast(_F64)


def _num_rel_ret(rank: ColumnOrExpr, relevance: ColumnOrExpr, level: float) -> pl.Expr:
    return (relevant(_col(relevance), level) & _col(rank).is_not_null()).sum().cast(_F64)


def _judged_retrieved(rank: ColumnOrExpr, relevance: ColumnOrExpr) -> pl.Expr:
    """Retrieved rows with a judgment (any grade): never the compact table's unjudged row."""
    return _col(rank).is_not_null() & _col(relevance).is_not_null()


def _in_rank_order(values: pl.Expr, mask: pl.Expr, rank: ColumnOrExpr) -> pl.Expr:
    return values.filter(mask).sort_by(_col(rank).filter(mask))


def _number(value: float, name: str, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise PolarsRankError(f"{name}: {what} must be a finite number, got {value!r}")
    return float(value)


# --------------------------------------------------------------------------------------------
# relstring


def relevance_string(
    length: float = 10, *, rank: ColumnOrExpr = "rank", relevance: ColumnOrExpr = "relevance"
) -> pl.Expr:
    """trec_eval ``relstring`` (m_relstring.c): one character per retrieved document at ranks
    1 … min(⌊length⌋, retrieved): its grade 0–9, ``>`` above 9, ``-`` not in the judgments,
    ``.`` judged with a negative grade. A String per query (trec_eval prints it per query only;
    it has no summary over queries).

    >>> judged = pl.DataFrame({"query": ["q"] * 3, "rank": [1, 3, 5],
    ...                        "relevance": [12, -1, None]})
    >>> judged.group_by("query").agg(relevance_string(4)).item(0, 1)
    '>-.-'
    """
    size = max(math.trunc(_number(length, "relevance_string", "length")), 0)
    shown = pl.min_horizontal(_num_ret(rank), pl.lit(float(size))).cast(pl.Int64)
    mask = _judged_retrieved(rank, relevance) & (_col(rank) <= shown)
    ranks = _col(rank).filter(mask).sort().cast(pl.Int64)
    grade = _in_rank_order(_col(relevance), mask, rank).cast(_F64)
    char = (
        pl.when(grade > 9)
        .then(pl.lit(">"))
        .when(grade >= 0)
        .then(grade.floor().cast(pl.Int64).cast(pl.String))
        .otherwise(pl.lit("."))
    )
    gap = ranks - ranks.shift(1).fill_null(0)  # one '-' for each unjudged rank in between
    return (
        char.str.pad_start(gap, "-").str.join("").str.pad_end(shown, "-").alias("relevance_string")
    )


# --------------------------------------------------------------------------------------------
# judgment-based


def inferred_ap(
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """infAP (m_infap.c; Yilmaz & Aslam, CIKM 2006): over the retrieved relevant documents, at
    rank j + 1 with r relevant, n judged non-relevant and u negative-graded documents above,
    1 if j = 0, else 1/(j+1) + (j/(j+1)) · ((r+n+u)/j) · ((r+ε)/(r+n+2ε)), ε = 1e-5; summed
    and divided by R (0 when R = 0). Documents missing from the judgments only count in j.
    With complete judgments infAP equals AP up to ε.

    >>> judged = pl.DataFrame({"query": ["q"] * 3, "rank": [1, 2, 3],
    ...                        "relevance": [1, None, 1]})
    >>> round(judged.group_by("query").agg(inferred_ap()).item(0, 1), 6)
    0.833332

    (Rank 1 adds 1; rank 3 (j = 2, r = 1) adds 1/3 + (2/3)(1/2)(1 + ε)/(1 + 2ε); R = 2.)
    """
    mask = _judged_retrieved(rank, relevance)
    grade = _in_rank_order(_col(relevance), mask, rank)
    j = _col(rank).filter(mask).sort().cast(_F64) - 1.0
    is_rel = relevant(grade, relevance_level).cast(_F64)
    r = is_rel.cum_sum() - is_rel
    n = judged_nonrelevant(grade, relevance_level).cast(_F64).cum_sum()
    u = (grade < 0).cast(_F64).cum_sum()
    eps = INFAP_EPSILON
    term = (
        pl.when(j == 0.0)
        .then(1.0)
        .otherwise(
            1.0 / (j + 1.0)
            + (j / (j + 1.0)) * ((r + n + u) / j) * ((r + eps) / ((r + n) + 2.0 * eps))
        )
    )
    total = term.filter(is_rel > 0).sum()
    return _div(total, _num_rel(relevance, relevance_level)).alias("inferred_ap")


def yaap(
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """trec_eval ``yaap``, "yet another AP" (m_yaap.c; Robertson, ECIR 2012):
    ln((1 + S) / (1 + R − S)), S = Σ over the retrieved relevant documents of the precision at
    their rank (AP · R); 0 when nothing is relevant.

    >>> judged = pl.DataFrame({"query": ["q"] * 2, "rank": [1, None], "relevance": [1, 1]})
    >>> round(judged.group_by("query").agg(yaap()).item(0, 1), 4)  # ln(2 / 2)
    0.0
    """
    mask = relevant(_col(relevance), relevance_level) & _col(rank).is_not_null()
    ranks = _col(rank).filter(mask).cast(_F64)
    total = (ranks.rank("ordinal").cast(_F64) / ranks).sum()
    big_r = _num_rel(relevance, relevance_level)
    return ((1.0 + total) / (1.0 + big_r - total)).log().alias("yaap")


# --------------------------------------------------------------------------------------------
# precision-like and set measures


def r_precision_multiple(
    multiple: float = 1.0,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """trec_eval ``Rprec_mult`` (m_Rprec_mult.c): precision at c = ⌊multiple · R + 0.9⌋ (C's
    truncation; not the rounding of iprec_at_recall), counting positions (c above the number
    retrieved divides by c); 0 when c <= 0.

    >>> judged = pl.DataFrame({"query": ["q"] * 3, "rank": [1, 2, None],
    ...                        "relevance": [1, 0, 1]})
    >>> judged.group_by("query").agg(r_precision_multiple(2.0)).item(0, 1)  # c = 4: 1 / 4
    0.25
    """
    fraction = _number(multiple, "r_precision_multiple", "multiple")
    big_r = _num_rel(relevance, relevance_level)
    cut = (pl.lit(fraction) * big_r + 0.9).cast(pl.Int64).cast(_F64)  # C's (long) cast
    within = (_col(rank) <= cut).fill_null(False)
    hits = (relevant(_col(relevance), relevance_level) & within).sum()
    return _div(hits, cut).alias("r_precision_multiple")


def set_relative_precision(
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """trec_eval ``set_relative_P`` (m_set_rel_P.c): relevant retrieved / min(retrieved, R);
    0 when either is 0."""
    hits = _num_rel_ret(rank, relevance, relevance_level)
    size = pl.min_horizontal(_num_ret(rank), _num_rel(relevance, relevance_level))
    return _div(hits, size).alias("set_relative_precision")


def set_average_precision(
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """trec_eval ``set_map`` (m_set_map.c), ir_measures ``SetAP``: relevant retrieved² /
    (retrieved · R), i.e. set precision × set recall; 0 when either is 0."""
    hits = _num_rel_ret(rank, relevance, relevance_level)
    size = _num_ret(rank) * _num_rel(relevance, relevance_level)
    return _div(hits * hits, size).alias("set_average_precision")


def utility(
    coefficients: Sequence[float] = UTILITY_COEFFICIENTS,
    *,
    collection_size: float = 0,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """trec_eval ``utility`` (m_utility.c): p1·a + p2·b + p3·c + p4·d over the contingency
    table, a = relevant retrieved, b = other retrieved (unjudged ones too), c = relevant not
    retrieved, d = collection_size + a − retrieved − R (trec_eval ``-N``, default 0, so d is
    negative unless the collection size is given). Exactly 4 coefficients.

    >>> judged = pl.DataFrame({"query": ["q"] * 3, "rank": [1, 2, None],
    ...                        "relevance": [1, None, 1]})
    >>> judged.group_by("query").agg(utility((2, -1, -0.5, 0))).item(0, 1)  # 2 - 1 - 0.5
    0.5
    """
    values = list(coefficients) if not isinstance(coefficients, str) else []
    if len(values) != 4:
        raise PolarsRankError(
            f"utility needs exactly 4 coefficients (relevant retrieved, other retrieved, "
            f"relevant missed, the rest), got {coefficients!r}"
        )
    p1, p2, p3, p4 = (_number(x, "utility", "a coefficient") for x in values)
    size = _number(collection_size, "utility", "collection_size")
    a = _num_rel_ret(rank, relevance, relevance_level)
    retrieved = _num_ret(rank)
    big_r = _num_rel(relevance, relevance_level)
    d = size + a - retrieved - big_r
    return (p1 * a + p2 * (retrieved - a) + p3 * (big_r - a) + p4 * d).alias("utility")


# --------------------------------------------------------------------------------------------
# gain-based


def binary_g(
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """trec_eval ``binG`` (m_binG.c): (1/R) Σ over the retrieved relevant documents of
    1 / log2(2 + m), m = documents ranked above it that are not relevant (unjudged included);
    0 when none is retrieved.

    >>> judged = pl.DataFrame({"query": ["q"] * 2, "rank": [1, 3], "relevance": [1, 1]})
    >>> round(judged.group_by("query").agg(binary_g()).item(0, 1), 4)  # (1 + 1/log2(3)) / 2
    0.8155
    """
    mask = relevant(_col(relevance), relevance_level) & _col(rank).is_not_null()
    ranks = _col(rank).filter(mask).cast(_F64).sort()
    above = ranks - ranks.rank("ordinal").cast(_F64)
    total = (1.0 / (2.0 + above).log(2)).sum()
    return _div(total, _num_rel(relevance, relevance_level)).alias("binary_g")


def _ranked_gains(
    rank: ColumnOrExpr, relevance: ColumnOrExpr, table: dict[int, float]
) -> tuple[pl.Expr, pl.Expr]:
    """(gains, ranks) of the judged retrieved rows in rank order."""
    mask = _judged_retrieved(rank, relevance)
    gains = _in_rank_order(table_gain(relevance, table), mask, rank)
    return gains, _col(rank).filter(mask).sort().cast(_F64)


def normalized_gain(
    gains: Gains | None = None,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
) -> pl.Expr:
    """trec_eval ``G`` (m_G.c): Σ over retrieved documents at rank i with gain g_i ≠ 0 of
    g_i / log2(2 + C_i − S_i), divided by the sum of the ideal gains (0 when that is 0).
    S_i = gains of the ranking through rank i; C_i = Σ over ideal positions <= i of
    max(ideal gain, 1), each position past the positive ideal gains costing 1. ``gains``: a
    gain table as :func:`~polars_rank.ranking.metrics.ndcg`'s (``-m G.1=3,2=9``).

    >>> judged = pl.DataFrame({"query": ["q"] * 2, "rank": [1, 2], "relevance": [1, 1]})
    >>> judged.group_by("query").agg(normalized_gain()).item(0, 1)  # an ideal ranking
    1.0
    """
    table = gain_table(gains, "normalized_gain") or {}
    g, r = _ranked_gains(rank, relevance, table)
    ideal = ideal_gains(relevance, table)
    big_p = ideal.len().cast(_F64)
    cost = pl.when(ideal >= 1.0).then(ideal).otherwise(1.0).cum_sum().append(pl.lit(0.0))
    at = (pl.min_horizontal(r, big_p) - 1.0).clip(lower_bound=0.0).cast(pl.Int64)
    c = cost.gather(at) + (r - big_p).clip(lower_bound=0.0)
    terms = (g / ((2.0 + c) - g.cum_sum()).log(2)).filter(g != 0.0)
    return _div(terms.sum(), ideal.sum()).alias("normalized_gain")


def ndcg_rel(
    gains: Gains | None = None,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
) -> pl.Expr:
    """trec_eval ``ndcg_rel`` (m_ndcg_rel.c): nDCG averaged over the relevant documents. With
    P the number of positive ideal gains, D_i the DCG through rank i and I_k the ideal DCG
    through position k: (Σ over retrieved documents with gain > 0 of D_i / I_min(i,P)
    + (P − their number) · D_all / I_P) / P; 0 unless that sum is positive.

    >>> judged = pl.DataFrame({"query": ["q"] * 2, "rank": [1, None], "relevance": [1, 1]})
    >>> round(judged.group_by("query").agg(ndcg_rel()).item(0, 1), 4)  # (1 + 1/1.6309) / 2
    0.8066
    """
    table = gain_table(gains, "ndcg_rel") or {}
    g, r = _ranked_gains(rank, relevance, table)
    dcg_through = (g / (r + 1.0).log(2)).cum_sum()
    ideal = ideal_gains(relevance, table)
    big_p = ideal.len().cast(_F64)
    ideal_through = ideal_discounted_sums(ideal)
    at = (pl.min_horizontal(r, big_p) - 1.0).clip(lower_bound=0.0).cast(pl.Int64)
    terms = (dcg_through / ideal_through.append(pl.lit(0.0)).gather(at)).filter(g > 0.0)
    found = (g > 0.0).sum().cast(_F64)
    dcg_all = dcg_through.last().fill_null(0.0)
    ideal_all = ideal_through.last().fill_null(0.0)
    total = terms.sum() + (big_p - found) * dcg_all / ideal_all
    return pl.when((big_p > 0) & (total > 0.0)).then(total / big_p).otherwise(0.0).alias("ndcg_rel")


def r_ndcg(
    gains: Gains | None = None,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """trec_eval ``Rndcg`` (m_Rndcg.c): nDCG averaged at the R levels: the mean of
    D_min(k, retrieved) / I_k over the ends k of the runs of equal gains in the positive ideal
    gains (the last at k = P), plus D_all / I_P when more than P + 1 documents were retrieved.
    0 when R (at ``relevance_level``) is 0; NaN (trec_eval prints ``-nan``) when no value is
    recorded (no positive ideal gain).

    >>> judged = pl.DataFrame({"query": ["q"] * 2, "rank": [1, 2], "relevance": [1, 2]})
    >>> round(judged.group_by("query").agg(r_ndcg()).item(0, 1), 4)
    0.6799

    (Ideal gains 2, 1: at k = 1, D = 1 and I = 2; at k = 2, D = 1 + 2/log2(3) = 2.2619 and
    I = 2 + 1/log2(3) = 2.6309; (0.5 + 0.8597) / 2.)
    """
    table = gain_table(gains, "r_ndcg") or {}
    g, r = _ranked_gains(rank, relevance, table)
    dcg_through = pl.lit(0.0).append((g / (r + 1.0).log(2)).cum_sum())  # D at 0, 1, … rows
    ideal = ideal_gains(relevance, table)
    big_p = ideal.len().cast(_F64)
    ideal_through = ideal_discounted_sums(ideal)
    run_end = (ideal != ideal.shift(-1)).fill_null(True)
    ends = pl.int_range(1, ideal.len() + 1).filter(run_end).cast(_F64)
    recorded = dcg_through.gather(r.search_sorted(ends, side="right")) / ideal_through.filter(
        run_end
    )
    ideal_all = ideal_through.last().fill_null(0.0)
    extra = (_num_ret(rank) > big_p + 1.0) & (ideal_all > 0.0)
    total = recorded.sum() + pl.when(extra).then(dcg_through.last() / ideal_all).otherwise(0.0)
    count = recorded.len().cast(_F64) + extra.cast(_F64)
    value = total / count  # 0/0 is NaN, as in C
    has_relevant = _num_rel(relevance, relevance_level) > 0
    return pl.when(has_relevant).then(value).otherwise(0.0).alias("r_ndcg")


def trec_rbp(
    p: float = 0.9,
    *,
    gains: Gains | None = None,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
) -> pl.Expr:
    """trec_eval's ``rbp`` (m_rbp.c; Moffat & Zobel 2008): (1 − p) · Σ over retrieved
    documents of gain · p^(rank − 1), p = 0.9 by default. Gains as :func:`normalized_gain`'s
    (the grade by default); then, per query, when any gain of the query's gain table (the
    table's entries plus every level 0 … the query's top grade) is below 0 or above 1, every
    table gain g becomes (g − min) / (max − min) over that table — so a query whose top grade
    is 3 divides grades by 3. Ignores the relevance level. (trec_eval leaves min and max
    uninitialised in C; this is the evident intent, and what its expected outputs show.)
    Not ir_measures' ``RBP``, which uses the raw grades and p = 0.8.

    >>> judged = pl.DataFrame({"query": ["q"] * 2, "rank": [1, 2], "relevance": [2, 1]})
    >>> round(judged.group_by("query").agg(trec_rbp()).item(0, 1), 4)  # 0.1 · (1 + 0.9 · 0.5)
    0.145
    """
    table = gain_table(gains, "trec_rbp") or {}
    persistence = _number(p, "trec_rbp", "p")
    rel = _col(relevance)
    top = rel.filter(rel.is_not_null() & (rel >= 0)).max().cast(_F64).floor()
    lowest, highest = _table_range(table, top)
    mask = _judged_retrieved(rank, relevance)
    grade = _in_rank_order(rel.cast(_F64), mask, rank)
    raw = _in_rank_order(table_gain(relevance, table), mask, rank)
    in_table = grade >= 0
    if -2 in table:
        in_table = in_table | (grade < 0)
    rescale = (lowest < 0.0) | (highest > 1.0)
    scaled = pl.when(rescale & in_table).then((raw - lowest) / (highest - lowest)).otherwise(raw)
    r = _col(rank).filter(mask).sort().cast(_F64)
    weight = pl.lit(persistence).pow(r - 1.0)
    total = (scaled * weight).filter(scaled != 0.0).sum()
    return ((1.0 - persistence) * total).alias("trec_rbp")


def _table_range(table: dict[int, float], top: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Smallest and largest gain of trec_eval's gain table (gain_init.c): every entry of
    ``table``, plus the default gain (= the level) of each level 0 … ``top`` without an entry;
    ``top`` is the query's highest grade >= 0 (null when it has none)."""
    lowest_free = next(level for level in range(len(table) + 1) if level not in table)
    default_low = pl.when(top >= lowest_free).then(float(lowest_free)).otherwise(None)
    high = top
    for level in sorted((lv for lv in table if lv >= 0), reverse=True):
        high = pl.when(high == float(level)).then(high - 1.0).otherwise(high)
    default_high = pl.when(high >= 0.0).then(high).otherwise(None)
    entries = [pl.lit(value, _F64) for value in table.values()]
    return pl.min_horizontal(default_low, *entries), pl.max_horizontal(default_high, *entries)


def trec_rbp_residual(
    p: float = 0.9, *, rank: ColumnOrExpr = "rank", relevance: ColumnOrExpr = "relevance"
) -> pl.Expr:
    """trec_eval's ``rbp_resid`` (m_rbp_resid.c): RBP's residual, the most
    :func:`trec_rbp` could still gain if every retrieved document that is unjudged (or graded
    negative) had gain 1: p^N + (1 − p) · Σ over those documents of p^(rank − 1), N the number
    retrieved — but 0 when every retrieved document is judged (the tail p^N then is dropped
    too).

    >>> judged = pl.DataFrame({"query": ["q"] * 2, "rank": [1, 2], "relevance": [1, None]})
    >>> round(judged.group_by("query").agg(trec_rbp_residual()).item(0, 1), 4)  # .81 + .1·.9
    0.9
    """
    persistence = _number(p, "trec_rbp_residual", "p")
    judged = _col(rank).is_not_null() & (_col(relevance) >= 0).fill_null(False)
    seen = pl.lit(persistence).pow(_col(rank).filter(judged).cast(_F64) - 1.0).sum()
    some_unjudged = judged.sum().cast(_F64) < _num_ret(rank)
    value = 1.0 - (1.0 - persistence) * seen
    return pl.when(some_unjudged).then(value).otherwise(0.0).alias("trec_rbp_residual")
