"""Ranking metrics as Polars expressions over the judged table.

Every function returns a ``pl.Expr`` that aggregates one query's rows of the judged table
(``query, doc, rank, relevance`` from :func:`polars_rank.judge`) to one Float64 value, for use in
``judged.group_by("query").agg(...)``. Definitions are trec_eval 10.0's:

* ``R`` is the number of judged documents with ``relevance >= relevance_level`` (retrieved or
  not); negative judgments never count as relevant and never give gain.
* ``k`` counts positions, not retrieved documents: P@10 of a run with 3 documents divides by 10.
* A document is retrieved when its rank is not null; the number retrieved is the largest rank.

The expressions only read judged rows and the largest rank of each query, so they give the same
values on the compact table :func:`polars_rank.evaluate` builds internally. Sums run in the
table's row order; :func:`polars_rank.judge` returns rows in rank order, so sums follow ranks
(as trec_eval's do) and results are repeatable bit for bit. IDCG sums the ideal ranking's gains
in its own order, largest first (judged documents that were not retrieved have no rank).

Example:
    >>> import polars as pl, polars_rank as pr
    >>> judged = pl.DataFrame({"query": ["q"] * 3, "rank": [1, 2, None],
    ...                        "relevance": [0, 1, 1]})
    >>> judged.group_by("query").agg(pr.precision(2), pr.recall(2), pr.reciprocal_rank()).rows()
    [('q', 0.5, 0.5, 0.5)]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Literal

import polars as pl

from polars_rank.core.conventions import judged_nonrelevant, relevant
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.expr import ColumnOrExpr, Ratio, group_constant
from polars_rank.core.expr import col as _col
from polars_rank.core.expr import safe_div as _div
from polars_rank.ranking.gains import Gains, gain_table, table_gain

__all__ = [
    "ELEVEN_POINTS",
    "average_precision",
    "bpref",
    "dcg",
    "eleven_pt_avg",
    "err",
    "f1",
    "fallout",
    "hit_rate",
    "hits",
    "ideal_dcg",
    "iprec_at_recall",
    "judged",
    "judged_fraction",
    "ndcg",
    "num_nonrel_judged_ret",
    "num_q",
    "num_rel",
    "num_rel_ret",
    "query_auc",
    "num_ret",
    "precision",
    "r_precision",
    "rbp",
    "rbp_residual",
    "recall",
    "recall_cap",
    "reciprocal_rank",
    "set_f",
    "set_precision",
    "set_recall",
    "unjudged",
]

Gain = Literal["linear", "exponential"]
APDenominator = Literal["R", "min(k,R)"]

#: The recall levels of trec_eval's 11-point interpolated precision (``11pt_avg``).
ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

#: gdeval.pl's ``$MAX_JUDGMENT``: the default largest grade of ERR (ir_measures ``ERR@k``).
ERR_MAX_GRADE = 4
#: The largest ``max_grade`` of ERR: 2^max_grade must be a finite double.
ERR_LARGEST_MAX_GRADE = 1023

#: ir_measures' default persistence of RBP.
RBP_P = 0.8

_F64 = pl.Float64


def _check_k(k: int | None, name: str, *, required: bool = False) -> None:
    if k is None:
        if required:
            raise PolarsRankError(f"{name} needs a cutoff k (a positive integer)")
        return
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise PolarsRankError(f"{name}: k must be a positive integer, got {k!r}")


def _retrieved_within(rank: ColumnOrExpr, k: int | None) -> pl.Expr:
    r = _col(rank)
    return r.is_not_null() if k is None else (r <= k).fill_null(False)


def _is_rel(relevance: ColumnOrExpr, relevance_level: float) -> pl.Expr:
    return relevant(_col(relevance), relevance_level)


# --------------------------------------------------------------------------------------------
# counts


def num_ret(
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float | None = None,
) -> pl.Expr:
    """NumRet: number of documents retrieved (the largest rank; 0 for a query not in the run).

    With ``relevance_level`` (ir_measures' ``NumRet(rel=N)``): the retrieved documents with
    ``relevance >= relevance_level``, i.e. NumRelRet at that level.

    >>> judged = pl.DataFrame({"query": "q", "rank": [1, 2, 3], "relevance": [2, 1, None]})
    >>> judged.group_by("query").agg(num_ret(), num_ret(relevance_level=2).alias("rel2")).row(0)
    ('q', 3.0, 1.0)
    """
    if relevance_level is None:
        return _col(rank).max().fill_null(0).cast(_F64).alias("num_ret")
    return num_rel_ret(rank=rank, relevance=relevance, relevance_level=relevance_level).alias(
        "num_ret"
    )


def num_rel(*, relevance: ColumnOrExpr = "relevance", relevance_level: float = 1) -> pl.Expr:
    """NumRel: R, the number of judged documents with ``relevance >= relevance_level``."""
    return _is_rel(relevance, relevance_level).sum().cast(_F64).alias("num_rel")


def hits(
    k: int | None = None,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """Hits@k: number of relevant documents in the top k (all retrieved when k is None)."""
    _check_k(k, "hits")
    within = _retrieved_within(rank, k)
    return (_is_rel(relevance, relevance_level) & within).sum().cast(_F64).alias("hits")


def num_rel_ret(
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """NumRelRet: number of relevant documents retrieved."""
    return hits(None, rank=rank, relevance=relevance, relevance_level=relevance_level).alias(
        "num_rel_ret"
    )


def num_nonrel_judged_ret(
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """Number of retrieved documents judged non-relevant (``0 <= relevance < level``)."""
    nonrel = judged_nonrelevant(_col(relevance), relevance_level)
    return (nonrel & _col(rank).is_not_null()).sum().cast(_F64).alias("num_nonrel_judged_ret")


def num_q() -> pl.Expr:
    """NumQ: 1 per query (summed over queries by :func:`polars_rank.evaluate`)."""
    return pl.lit(1.0, _F64).alias("num_q")


# --------------------------------------------------------------------------------------------
# cutoff metrics


def precision(
    k: int | None = None,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """P@k = relevant in the top k / k (k even when fewer were retrieved; trec_eval ``P_k``).

    Without k: relevant retrieved / retrieved, 0 when nothing was retrieved (ranx's
    ``precision``; trec_eval's ``set_P``).

    >>> judged = pl.DataFrame({"query": ["q"], "rank": [1], "relevance": [1]})
    >>> judged.group_by("query").agg(precision(10)).item(0, 1)  # 1 relevant in the top 10
    0.1
    >>> judged.group_by("query").agg(precision()).item(0, 1)  # 1 relevant of 1 retrieved
    1.0
    """
    _check_k(k, "precision")
    h = hits(k, rank=rank, relevance=relevance, relevance_level=relevance_level)
    if k is None:
        return _div(h, num_ret(rank=rank)).alias("precision")
    return (h / group_constant(k)).alias("precision")


def recall(
    k: int | None = None,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """R@k = relevant in the top k / R, 0 when R = 0 (trec_eval ``recall_k``)."""
    ratio = _recall_ratio(k, rank=rank, relevance=relevance, relevance_level=relevance_level)
    return ratio.expr().alias("recall")


def _recall_ratio(
    k: int | None = None,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> Ratio:
    _check_k(k, "recall")
    h = hits(k, rank=rank, relevance=relevance, relevance_level=relevance_level)
    r = num_rel(relevance=relevance, relevance_level=relevance_level)
    return Ratio(h, r)


def recall_cap(
    k: int,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """R_cap@k = relevant in the top k / min(k, R) (BEIR; trec_eval ``relative_P_k``)."""
    ratio = _recall_cap_ratio(k, rank=rank, relevance=relevance, relevance_level=relevance_level)
    return ratio.expr().alias("recall_cap")


def _recall_cap_ratio(
    k: int,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> Ratio:
    _check_k(k, "recall_cap", required=True)
    h = hits(k, rank=rank, relevance=relevance, relevance_level=relevance_level)
    r = num_rel(relevance=relevance, relevance_level=relevance_level)
    return Ratio(h, pl.min_horizontal(r, pl.lit(float(k))))


def hit_rate(
    k: int | None = None,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """Success@k / HR@k = 1 if any relevant document is in the top k, else 0."""
    _check_k(k, "hit_rate")
    h = hits(k, rank=rank, relevance=relevance, relevance_level=relevance_level)
    return (h > 0).cast(_F64).alias("hit_rate")


def f1(
    k: int | None = None,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """F1@k = 2·P@k·R@k / (P@k + R@k), 0 when both are 0 (ranx's ``f1@k``).

    Without k, P uses the number retrieved as its denominator (ranx's convention).
    """
    _check_k(k, "f1")
    h = hits(k, rank=rank, relevance=relevance, relevance_level=relevance_level)
    denominator = group_constant(k) if k is not None else num_ret(rank=rank)
    p = _div(h, denominator)
    r = _div(h, num_rel(relevance=relevance, relevance_level=relevance_level))
    return _div(2.0 * p * r, p + r).alias("f1")


def reciprocal_rank(
    k: int | None = None,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """RR@k = 1 / rank of the first relevant document within k, else 0; MRR is its mean.

    >>> judged = pl.DataFrame({"query": ["q", "q"], "rank": [1, 2], "relevance": [0, 1]})
    >>> judged.group_by("query").agg(reciprocal_rank()).item(0, 1)  # first relevant at rank 2
    0.5
    """
    _check_k(k, "reciprocal_rank")
    mask = _is_rel(relevance, relevance_level) & _retrieved_within(rank, k)
    first = _col(rank).filter(mask).min().cast(_F64)
    return (1.0 / first).fill_null(0.0).alias("reciprocal_rank")


def average_precision(
    k: int | None = None,
    *,
    denominator: APDenominator = "R",
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """AP@k = Σ over relevant documents at rank i ≤ k of P@i, divided by R (trec_eval
    ``map`` / ``map_cut_k``), or by min(k, R) with ``denominator="min(k,R)"`` (Spark's and
    recommender libraries' AP@k). 0 when the denominator is 0.

    >>> judged = pl.DataFrame({"query": ["q"] * 3, "rank": [1, 4, 6], "relevance": [1, 1, 1]})
    >>> round(judged.group_by("query").agg(average_precision()).item(0, 1), 4)
    0.6667

    (R = 3, relevant at ranks 1, 4, 6: (1/1 + 2/4 + 3/6) / 3.)
    """
    ratio = _average_precision_ratio(
        k,
        denominator=denominator,
        rank=rank,
        relevance=relevance,
        relevance_level=relevance_level,
    )
    return ratio.expr().alias("average_precision")


def _average_precision_ratio(
    k: int | None = None,
    *,
    denominator: APDenominator = "R",
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> Ratio:
    _check_k(k, "average_precision")
    if denominator not in ("R", "min(k,R)"):
        raise PolarsRankError(
            f"average_precision: denominator must be 'R' or 'min(k,R)', got {denominator!r}"
        )
    mask = _is_rel(relevance, relevance_level) & _retrieved_within(rank, k)
    ranks = _col(rank).filter(mask).cast(_F64)
    total = (ranks.rank("ordinal").cast(_F64) / ranks).sum()
    r = num_rel(relevance=relevance, relevance_level=relevance_level)
    if denominator == "min(k,R)" and k is not None:
        r = pl.min_horizontal(r, pl.lit(float(k)))
    return Ratio(total, r)


def r_precision(
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """Rprec = relevant in the top R / R, 0 when R = 0."""
    ratio = _r_precision_ratio(rank=rank, relevance=relevance, relevance_level=relevance_level)
    return ratio.expr().alias("r_precision")


def _r_precision_ratio(
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> Ratio:
    r = num_rel(relevance=relevance, relevance_level=relevance_level)
    within_r = (_col(rank).cast(_F64) <= r).fill_null(False)
    h = (_is_rel(relevance, relevance_level) & within_r).sum()
    return Ratio(h, r)


def judged_fraction(
    k: int | None = None, *, rank: ColumnOrExpr = "rank", relevance: ColumnOrExpr = "relevance"
) -> pl.Expr:
    """Judged@k = judged documents in the top k / min(k, number retrieved) (ir_measures);
    any judgment counts, negative ones too; 0 when nothing was retrieved.

    >>> judged = pl.DataFrame({"query": ["q"] * 2, "rank": [1, 3], "relevance": [0, 2]})
    >>> judged.group_by("query").agg(judged_fraction(4)).item(0, 1)  # 2 judged of 3 retrieved
    0.6666666666666666
    """
    _check_k(k, "judged_fraction")
    within = _retrieved_within(rank, k)
    count = (within & _col(relevance).is_not_null()).sum()
    shown = num_ret(rank=rank)
    if k is not None:
        shown = pl.min_horizontal(shown, pl.lit(float(k)))
    return _div(count, shown).alias("judged_fraction")


#: The former name of :func:`judged_fraction` (ir_measures' ``Judged@k``).
judged = judged_fraction


def unjudged(
    k: int, *, rank: ColumnOrExpr = "rank", relevance: ColumnOrExpr = "relevance"
) -> pl.Expr:
    """trec_eval ``unj_k``: documents in the top k that are unjudged (or judged negative) / k."""
    _check_k(k, "unjudged", required=True)
    within = _retrieved_within(rank, k)
    judged_count = (within & (_col(relevance) >= 0).fill_null(False)).sum().cast(_F64)
    shown = pl.min_horizontal(num_ret(rank=rank), pl.lit(float(k)))
    return ((shown - judged_count) / group_constant(k)).alias("unjudged")


def fallout(
    k: int | None = None,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """Fall-out@k: judged non-relevant documents in the top k / N, N the query's judged
    non-relevant documents (retrieved or not); all retrieved when k is None.

    Judged non-relevant is bpref's: a grade ``0 <= g < relevance_level``; unjudged documents
    and negative grades are not counted, on either side. A query with N = 0 scores 0 (as
    torchmetrics' ``retrieval_fall_out`` and ``RetrievalFallOut(empty_target_action="neg")``;
    the class's default, ``"pos"``, would give 1). Lower is better.

    >>> judged = pl.DataFrame({"rank": [1, 2, 3, None], "relevance": [0, 1, 0, 0]})
    >>> judged.select(fallout(2)).item()  # 1 of the 3 judged non-relevant in the top 2
    0.3333333333333333
    """
    _check_k(k, "fallout")
    nonrel = judged_nonrelevant(_col(relevance), relevance_level)
    found = (nonrel & _retrieved_within(rank, k)).sum().cast(_F64)
    return _div(found, nonrel.sum().cast(_F64)).alias("fallout")


def query_auc(
    k: int | None = None,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """The ROC AUC of one query's top k: the share of (relevant, other) pairs among the top
    k retrieved documents in which the relevant document ranks higher; all retrieved when k
    is None. With P relevant and M others in the top k, the relevant ones at ranks r_j:
    (P·M − (Σ r_j − P(P+1)/2)) / (P·M), 0 when P or M is 0 (torchmetrics'
    ``retrieval_auroc`` and ``RetrievalAUROC``, whose default ``empty_target_action="neg"``
    gives 0 too).

    "Other" is every retrieved document that is not relevant, unjudged included (trec_eval's
    convention); relevant documents not retrieved are not counted. Documents are ordered by
    the package's ranking (score descending, ties by doc id), so no pair is tied:
    scikit-learn's ``roc_auc_score`` on the scores counts a tied pair 1/2. The numerator and
    denominator are whole numbers, so the value is one division, identical on every engine.

    >>> judged = pl.DataFrame({"rank": [1, 2, 3, None], "relevance": [1, 0, 1, 1]})
    >>> judged.select(query_auc()).item()  # (rel, other) pairs: (1, 2) won, (3, 2) lost
    0.5
    """
    _check_k(k, "query_auc")
    hit = _is_rel(relevance, relevance_level) & _retrieved_within(rank, k)
    retrieved = num_ret(rank=rank)  # the number retrieved: unjudged ones too
    shown = retrieved if k is None else pl.min_horizontal(retrieved, pl.lit(float(k)))
    p = hit.sum().cast(_F64)
    m = shown - p
    ranks = pl.when(hit).then(_col(rank).cast(_F64)).otherwise(0.0).sum()
    pairs = p * m
    won = pairs - (ranks - p * (p + 1.0) / 2.0)
    return pl.when(pairs > 0).then(won / pairs).otherwise(0.0).alias("query_auc")


# --------------------------------------------------------------------------------------------
# graded


def _gain(relevance: ColumnOrExpr, gain: Gain, table: dict[int, float] | None = None) -> pl.Expr:
    if table is not None:
        if gain != "linear":
            raise PolarsRankError("gains (a gain table) cannot be combined with gain='exponential'")
        return table_gain(relevance, table)
    rel = _col(relevance).cast(_F64)
    if gain == "linear":
        return pl.when(rel > 0).then(rel).otherwise(0.0)
    if gain == "exponential":
        return pl.when(rel > 0).then(pl.lit(2.0).pow(rel) - 1.0).otherwise(0.0)
    raise PolarsRankError(f"gain must be 'linear' or 'exponential', got {gain!r}")


def dcg(
    k: int | None = None,
    *,
    gain: Gain = "linear",
    gains: Gains | None = None,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
) -> pl.Expr:
    """DCG@k = Σ over retrieved documents at rank i ≤ k of gain / log2(i + 1).

    Linear gain is the grade (trec_eval); exponential gain is 2^grade − 1 (Burges et al.).
    Negative and unjudged documents give 0. ``gains`` is a gain table ``{grade: gain}``
    (trec_eval ``-m dcg.1=3,2=9``; see :mod:`polars_rank.ranking.gains`): a grade without an
    entry gains its grade, level -2 stands for every negative grade, and negative gains count.

    >>> judged = pl.DataFrame({"query": ["q"] * 2, "rank": [1, 2], "relevance": [2, 1]})
    >>> round(judged.group_by("query").agg(dcg(gains={2: 5.0})).item(0, 1), 4)  # 5 + 1/log2(3)
    5.6309
    """
    _check_k(k, "dcg")
    within = _retrieved_within(rank, k)
    g = _gain(relevance, gain, gain_table(gains, "dcg")).filter(within)
    discount = (_col(rank).filter(within).cast(_F64) + 1.0).log(2)
    return (g / discount).sum().alias("dcg")


def ideal_dcg(
    k: int | None = None,
    *,
    gain: Gain = "linear",
    gains: Gains | None = None,
    relevance: ColumnOrExpr = "relevance",
) -> pl.Expr:
    """IDCG@k: DCG of all judged documents of the query sorted by gain, cut at k (only the
    positive gains of grades >= 0 enter, as trec_eval's ``ideal_dcg``)."""
    _check_k(k, "ideal_dcg")
    table = gain_table(gains, "ideal_dcg")
    g = _gain(relevance, gain, table)
    if table is not None:  # a table may give negative gains, or gains to negative grades
        rel = _col(relevance)
        g = pl.when(((rel >= 0) & (g > 0)).fill_null(False)).then(g).otherwise(0.0)
    # summed in the ideal order, largest gain first (as trec_eval): the same number whatever
    # the order of the query's rows (judged documents not retrieved come in no set order)
    ideal = g.sort(descending=True)
    position = ideal.cum_count().cast(_F64)  # 1, 2, ... (gains are never null)
    terms = ideal / (position + 1.0).log(2)
    if k is not None:
        terms = terms.head(k)
    return terms.sum().alias("ideal_dcg")


def ndcg(
    k: int | None = None,
    *,
    gain: Gain = "linear",
    gains: Gains | None = None,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
) -> pl.Expr:
    """nDCG@k = DCG@k / IDCG@k, 0 when IDCG = 0 (trec_eval ``ndcg`` / ``ndcg_cut_k``).

    IDCG uses **all** judged documents of the query, retrieved or not. The relevance level does
    not apply (trec_eval ignores ``-l`` here). ``gain="exponential"`` gives Burges' 2^rel − 1;
    ``gains={1: 3, 2: 9}`` a gain table (trec_eval ``-m ndcg.1=3,2=9``, ir_measures
    ``nDCG(gains={1:3,2:9})``; see :func:`dcg`).

    Judged a=3 b=2 c=1 d=0 e=2, run c d a: DCG@3 = 1 + 0 + 3/2 = 2.5,
    IDCG@3 = 3 + 2/log2(3) + 2/2 = 5.2619, nDCG@3 = 0.4751:

    >>> judged = pl.DataFrame({"query": ["q"] * 5, "rank": [3, None, 1, 2, None],
    ...                        "relevance": [3, 2, 1, 0, 2]})
    >>> round(judged.group_by("query").agg(ndcg(3)).item(0, 1), 4)
    0.4751
    """
    ratio = _ndcg_ratio(k, gain=gain, gains=gains, rank=rank, relevance=relevance)
    return ratio.expr().alias("ndcg")


def _ndcg_ratio(
    k: int | None = None,
    *,
    gain: Gain = "linear",
    gains: Gains | None = None,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
) -> Ratio:
    d = dcg(k, gain=gain, gains=gains, rank=rank, relevance=relevance)
    i = ideal_dcg(k, gain=gain, gains=gains, relevance=relevance)
    return Ratio(d, i)


# --------------------------------------------------------------------------------------------
# judgment-based and set metrics


def bpref(
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """bpref (trec_eval): (1/R) Σ over retrieved relevant r of 1 − min(n_r, R) / min(N, R),
    where n_r is the number of judged non-relevant documents ranked above r and N the number of
    judged non-relevant documents of the query; a relevant document with no judged non-relevant
    above it scores 1. Unjudged documents are skipped; negative judgments count as unjudged.
    """
    r = _col(rank)
    retrieved = r.is_not_null()
    order = r.filter(retrieved)
    rel = _is_rel(relevance, relevance_level)
    nonrel = judged_nonrelevant(_col(relevance), relevance_level)
    rel_sorted = rel.filter(retrieved).sort_by(order)
    above = nonrel.filter(retrieved).sort_by(order).cast(_F64).cum_sum()
    big_r = rel.sum().cast(_F64)
    big_n = nonrel.sum().cast(_F64)
    penalty = pl.min_horizontal(above, big_r) / pl.min_horizontal(big_n, big_r)
    contribution = pl.when(above > 0).then(1.0 - penalty).otherwise(1.0)
    total = (contribution * rel_sorted.cast(_F64)).sum()
    return _div(total, big_r).alias("bpref")


def set_precision(
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """SetP = relevant retrieved / retrieved (trec_eval ``set_P``)."""
    h = num_rel_ret(rank=rank, relevance=relevance, relevance_level=relevance_level)
    return _div(h, num_ret(rank=rank)).alias("set_precision")


def set_recall(
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """SetR = relevant retrieved / R (trec_eval ``set_recall``)."""
    h = num_rel_ret(rank=rank, relevance=relevance, relevance_level=relevance_level)
    return _div(h, num_rel(relevance=relevance, relevance_level=relevance_level)).alias(
        "set_recall"
    )


def set_f(
    beta: float = 1.0,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """SetF = (β + 1)·P·R / (β·P + R) over the retrieved set (trec_eval ``set_F``, whose
    parameter β weighs recall against precision and is **not** squared); 0 when nothing
    relevant was retrieved."""
    p = set_precision(rank=rank, relevance=relevance, relevance_level=relevance_level)
    r = set_recall(rank=rank, relevance=relevance, relevance_level=relevance_level)
    return _div((beta + 1.0) * p * r, beta * p + r).alias("set_f")


def _iprec_parts(
    rank: ColumnOrExpr, relevance: ColumnOrExpr, relevance_level: float
) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    mask = _is_rel(relevance, relevance_level) & _col(rank).is_not_null()
    ranks = _col(rank).filter(mask).cast(_F64)
    position = ranks.rank("ordinal").cast(_F64)
    return position, position / ranks, num_rel(relevance=relevance, relevance_level=relevance_level)


def iprec_at_recall(
    recall_level: float,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """Interpolated precision at a recall level (trec_eval 10.0 ``iprec_at_recall``).

    The level becomes a number of relevant documents c = lround(level · R) (trec_eval 10.0;
    version 9 and pytrec_eval used ⌊level · R + 0.9⌋); the value is the highest precision at or
    after the rank of the c-th relevant document (the first, when c = 0), 0 when fewer than c
    relevant documents were retrieved.
    """
    if not 0.0 <= recall_level <= 1.0:
        raise PolarsRankError(
            f"iprec_at_recall: the recall level must be in [0, 1], got {recall_level}"
        )
    position, prec, big_r = _iprec_parts(rank, relevance, relevance_level)
    needed = (pl.lit(float(recall_level)) * big_r.cast(_F64) + 0.5).floor()
    needed = pl.max_horizontal(needed, pl.lit(1.0))
    return prec.filter(position >= needed).max().fill_null(0.0).alias("iprec_at_recall")


def eleven_pt_avg(
    points: Sequence[float] = ELEVEN_POINTS,
    *,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float = 1,
) -> pl.Expr:
    """11pt_avg: mean of :func:`iprec_at_recall` at the recall points, 0.0, 0.1, …, 1.0 by
    default (trec_eval ``11pt_avg``; other points as ``-m 11pt_avg.0.25,0.5,0.75``).

    Each point x becomes c = lround(x · R) relevant documents. trec_eval does not sort the
    points: it matches them from the last one backwards while it walks the ranking upwards, and
    this function gives its value for any order. For ascending points (the usual case) the value
    is the plain mean of the interpolated precisions. Otherwise: trailing points with c above
    the relevant documents retrieved count 0; walking back from the last other point, each
    point is matched while 1 <= c <= the c of the point after it; the first point that is not,
    and every point before it, count the highest precision of the ranking.

    >>> judged = pl.DataFrame({"query": ["q"] * 2, "rank": [1, 3], "relevance": [1, 1]})
    >>> judged.group_by("query").agg(eleven_pt_avg((0.5, 1.0))).item(0, 1)  # (1 + 2/3) / 2
    0.8333333333333333
    """
    points = _check_points(points)
    mask = _is_rel(relevance, relevance_level) & _col(rank).is_not_null()
    ranks = _col(rank).filter(mask).cast(_F64).sort()
    position = ranks.rank("ordinal").cast(_F64)
    prec = position / ranks
    retrieved = mask.sum().cast(_F64)  # relevant documents retrieved
    big_r = num_rel(relevance=relevance, relevance_level=relevance_level)
    top = prec.max().fill_null(0.0)  # the highest precision of the ranking (0 if none)
    cuts = [(pl.lit(float(x)) * big_r).round(0, mode="half_away_from_zero") for x in points]

    def iprec(c: pl.Expr) -> pl.Expr:
        """The highest precision at or after the c-th relevant document retrieved: the top
        one for c <= 0, 0 when fewer than c were retrieved."""
        return prec.filter(position >= c).max().fill_null(0.0)

    n = len(points)
    if all(a <= b for a, b in zip(points, points[1:], strict=False)):
        values = [iprec(c) for c in cuts]
    else:
        above = [c > retrieved for c in cuts]
        skipped = [pl.all_horizontal(above[j:]) for j in range(n)] + [pl.lit(True)]
        ok = []
        for i in range(n):
            first = ~skipped[i] & skipped[i + 1]  # the last point that is not skipped
            step = first if i == n - 1 else first | (cuts[i] <= cuts[i + 1])
            ok.append(((cuts[i] >= 1.0) & step) | skipped[i])
        values = []
        for j in range(n):
            matched = ~skipped[j] & pl.all_horizontal(ok[j:])
            values.append(
                pl.when(skipped[j]).then(0.0).when(matched).then(iprec(cuts[j])).otherwise(top)
            )
    total = values[-1]
    for value in reversed(values[:-1]):  # added from the last point down, as trec_eval does
        total = total + value
    return (total / group_constant(n)).alias("eleven_pt_avg")


def _check_points(points: Sequence[float]) -> tuple[float, ...]:
    if isinstance(points, str) or not isinstance(points, Sequence) or not points:
        raise PolarsRankError(f"eleven_pt_avg: points must be a non-empty list, got {points!r}")
    out: list[float] = []
    for x in points:
        # not checked against [0, 1] here: the trec_eval drop-in takes any point, as trec_eval
        # (a point above 1 counts 0); metric names refuse them (the catalog's Param.valid)
        if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(x):
            raise PolarsRankError(f"eleven_pt_avg: points must be finite numbers, got {x!r}")
        out.append(float(x))
    return tuple(out)


# --------------------------------------------------------------------------------------------
# cascade and user-model metrics: ERR, RBP


def check_max_grade(max_grade: float, name: str = "err") -> None:
    """``max_grade`` must be a positive number up to :data:`ERR_LARGEST_MAX_GRADE` (2^1023 is
    the largest power of two a double holds)."""
    if (
        isinstance(max_grade, bool)
        or not isinstance(max_grade, numbers.Real)
        or not (0 < max_grade <= ERR_LARGEST_MAX_GRADE)
    ):
        raise PolarsRankError(
            f"{name}: max_grade must be a positive number up to {ERR_LARGEST_MAX_GRADE}, "
            f"got {max_grade!r}"
        )


def check_persistence(p: float, name: str = "rbp") -> None:
    """RBP's persistence ``p`` must lie strictly between 0 and 1."""
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0.0 < p < 1.0:
        raise PolarsRankError(f"{name}: p must be in (0, 1), got {p!r}")


def err(
    k: int | None = None,
    *,
    max_grade: float = ERR_MAX_GRADE,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
) -> pl.Expr:
    """ERR@k, expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009), as
    gdeval.pl computes it (ir_measures' only ``ERR@k`` provider):

        R(g) = (2^g − 1) / 2^max_grade,   ERR@k = Σ_{r ≤ k} R(g_r) / r · Π_{i < r} (1 − R(g_i)).

    g is the grade of the document at rank r; unjudged and negative grades give R = 0 (gdeval
    drops grades ≤ 0). gdeval fixes ``max_grade = 4`` and refuses larger grades;
    :func:`polars_rank.evaluate` raises for a grade above ``max_grade``, while this expression,
    which cannot raise, clips such a grade to ``max_grade``. gdeval prints 5 decimals; this is
    the exact value. The relevance level does not apply.

    Ranks 1–3 graded 2, 0, 4 (R = 3/16, 0, 15/16):
    3/16 + 0 + (15/16)·(13/16)·(1)/3 = 0.1875 + 0.25390625 = 0.44140625.

    >>> judged = pl.DataFrame({"query": ["q"] * 3, "rank": [1, 2, 3], "relevance": [2, 0, 4]})
    >>> judged.group_by("query").agg(err(3)).item(0, 1)
    0.44140625
    """
    _check_k(k, "err")
    check_max_grade(max_grade)
    within = _retrieved_within(rank, k)
    grade = _col(relevance).cast(_F64).fill_null(0.0).clip(0.0, float(max_grade))
    stop: pl.Expr = (pl.lit(2.0).pow(grade) - 1.0) / (2.0 ** float(max_grade))
    order = _col(rank).filter(within)
    stop = stop.filter(within).sort_by(order)
    position = order.sort().cast(_F64)
    reach = (1.0 - stop).cum_prod().shift(1, fill_value=1.0)
    return (stop * reach / position).sum().alias("err")


def _rbp_weight(rank: ColumnOrExpr, p: float) -> pl.Expr:
    """(1 − p) · p^(rank − 1), the weight RBP gives rank ``rank``."""
    return (1.0 - float(p)) * pl.lit(float(p)).pow(_col(rank).cast(_F64) - 1.0)


def rbp(
    k: int | None = None,
    *,
    p: float = RBP_P,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
    relevance_level: float | None = None,
) -> pl.Expr:
    """RBP(p)@k, rank-biased precision (Moffat & Zobel, TOIS 2008):
    (1 − p) · Σ_{r ≤ k} p^(r−1) · gain_r.

    * ``relevance_level=None`` (ir_measures ``RBP(p=…)``, its trectools provider): graded, the
      gain is the grade itself when positive, else 0. It is not normalised: a grade-3 document
      adds 3·(1 − p)·p^(r−1), so RBP can exceed 1.
    * ``relevance_level=ℓ`` (ir_measures ``RBP(p=…,rel=ℓ)``, its cwl_eval provider): binary,
      gain 1 when the grade is ≥ ℓ (and not negative).

    :func:`polars_rank.evaluate`'s ``relevance_level`` does not make RBP binary: only the
    metric's own ``rel=`` does. Unjudged documents give 0 (the lower bound; the rest is
    :func:`rbp_residual`). cwl_eval stops at 1000 documents and normalises by Σ_{i<1000} p^i
    instead of 1/(1 − p): the same up to p^1000.

    Ranks 1, 3 graded 1, 2 with p = 0.5: 0.5 · (1 + 0.25 · 2) = 0.75; binary at level 2:
    0.5 · 0.25 = 0.125.

    >>> judged = pl.DataFrame({"query": ["q"] * 2, "rank": [1, 3], "relevance": [1, 2]})
    >>> judged.group_by("query").agg(rbp(p=0.5), rbp(p=0.5, relevance_level=2).alias("b")).row(0)
    ('q', 0.75, 0.125)
    """
    _check_k(k, "rbp")
    check_persistence(p)
    grade = _col(relevance).cast(_F64)
    if relevance_level is None:
        gain = pl.when(grade > 0).then(grade).otherwise(0.0)
    else:
        gain = _is_rel(relevance, relevance_level).cast(_F64)
    within = _retrieved_within(rank, k)
    return (gain * _rbp_weight(rank, p)).filter(within).sum().alias("rbp")


def rbp_residual(
    k: int | None = None,
    *,
    p: float = RBP_P,
    rank: ColumnOrExpr = "rank",
    relevance: ColumnOrExpr = "relevance",
) -> pl.Expr:
    """The RBP residual (Moffat & Zobel 2008, section 4): the weight the judgments do not see,

        residual = Σ_{r ≤ d, retrieved, unjudged} (1 − p)·p^(r−1) + p^d,

    with depth d = k, or the number retrieved n without a cutoff. Computed from the judged rows
    as (1 − p^min(n, d)) − Σ_{judged r ≤ d} (1 − p)·p^(r−1) + p^d. A negative grade counts as
    judged. Binary RBP lies in [RBP, RBP + residual] (graded: RBP + max grade · residual).
    trectools' ``get_rbp`` gives the same with a cutoff and leaves out p^d without one.

    Two retrieved documents, rank 1 judged, p = 0.5, k = 3: unjudged rank 2 weighs 0.25, and
    p^3 = 0.125: residual 0.375.

    >>> judged = pl.DataFrame({"query": ["q"] * 2, "rank": [1, 2], "relevance": [0, None]})
    >>> judged.group_by("query").agg(rbp_residual(3, p=0.5)).item(0, 1)
    0.375
    """
    _check_k(k, "rbp_residual")
    check_persistence(p, "rbp_residual")
    within = _retrieved_within(rank, k)
    n = _col(rank).max().fill_null(0).cast(_F64)
    depth = n if k is None else group_constant(k)
    judged_weight = _rbp_weight(rank, p).filter(within & _col(relevance).is_not_null()).sum()
    persistence = pl.lit(float(p))
    seen = 1.0 - persistence.pow(pl.min_horizontal(n, depth))
    return (seen - judged_weight + persistence.pow(depth)).alias("rbp_residual")
