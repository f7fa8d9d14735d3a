"""The diversity metrics as formulas over a query's ranked gains or hits, with ndeval's
definitions (``N`` the query's subtopics with a relevant document, ``J(d, s)`` 1 when ``d`` is
judged relevant to ``s``, ``c_s(i)`` the documents above rank ``i`` relevant to ``s``, and the
gain ``g(i) = Σ_s J(d_i, s)·(1 − α)^{c_s(i)}``):

* ``alpha_dcg@k = Σ_{i≤k} g(i)/log2(i+1) / (N·Σ_{i≤k} (1 − α)^{i−1}/log2(i+1))``;
* ``err_ia@k = Σ_{i≤k} g(i)/i / (N·Σ_{i≤k} (1 − α)^{i−1}/i)``;
* ``nrbp = (1 − (1 − α)β)·Σ_i β^{i−1} g(i) / N`` (the whole ranking);
* ``p_ia@k = Σ_s |{i ≤ k: J(d_i, s)}| / (N·k)``; ``subtopic_recall@k`` the share of the
  ``N`` subtopics with a relevant document in the top ``k``;
* ``alpha_ndcg@k``, ``nerr_ia@k``, ``nnrbp``: the sums over ``g`` divided by the same sums
  over the greedy ideal ranking's gains (:mod:`.ideal`).

Each function gives a :class:`Formula`: the aggregation over a query's ``gains`` (``rank,
gain``: one row per rank holding a relevant document) or ``hits`` (``rank, subtopic``: one
row per (rank, subtopic) judged relevant), and how it becomes the value; the catalog's
diversity entries (:mod:`polars_rank.catalog.diversity`) point at them and
:func:`.plan.per_query` evaluates them all in one plan.

>>> alpha_ndcg(5, alpha=0.5, beta=0.5).normalised, nrbp(alpha=0.5, beta=0.5).k is None
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import polars as pl

#: A discount: ``dcg`` 1/log2(i+1), ``err`` 1/i, ``rbp`` β^(i−1).
Discount = Literal["dcg", "err", "rbp"]


@dataclass(frozen=True)
class Formula:
    """One diversity metric: ``total``, an aggregation per query over the ``reads`` table
    (``"gains"`` or ``"hits"``); the value is ``total`` over the same aggregation of the
    greedy ideal ranking's gains when ``normalised``, else ``finish(total, N)``. ``k`` is
    the cutoff (the ideal ranking is built to the largest one; ``None``: the whole
    ranking)."""

    reads: Literal["gains", "hits"]
    total: pl.Expr
    k: int | None
    normalised: bool = False
    finish: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None


def _discounted(kind: Discount, k: int | None, beta: float) -> pl.Expr:
    """Σ over ranks ≤ k of the gain times the discount of ``kind``."""
    rank = pl.col("rank").cast(pl.Float64)
    discount = {
        "dcg": 1.0 / (rank + 1.0).log(2),
        "err": 1.0 / rank,
        "rbp": pl.lit(beta) ** (rank - 1.0),
    }[kind]
    term = pl.col("gain") * discount
    if k is not None:
        term = pl.when(pl.col("rank") <= k).then(term).otherwise(0.0)
    return term.sum()


def _norm(kind: Discount, k: int, alpha: float) -> float:
    """The ``kind`` sum of a ranking whose every document is new to one subtopic."""
    discount = (lambda i: 1.0 / math.log2(i + 1)) if kind == "dcg" else (lambda i: 1.0 / i)
    return sum((1.0 - alpha) ** (i - 1) * discount(i) for i in range(1, k + 1))


def _intent_aware(kind: Discount, k: int, alpha: float, beta: float) -> Formula:
    scale = _norm(kind, k, alpha)
    return Formula("gains", _discounted(kind, k, beta), k, finish=lambda t, n: t / (n * scale))


def alpha_dcg(k: int, *, alpha: float, beta: float) -> Formula:
    """α-DCG@k, divided by ``N`` times the DCG of a ranking of new documents (ndeval)."""
    return _intent_aware("dcg", k, alpha, beta)


def alpha_ndcg(k: int, *, alpha: float, beta: float) -> Formula:
    """α-nDCG@k: α-DCG over the greedy ideal ranking's."""
    return Formula("gains", _discounted("dcg", k, beta), k, normalised=True)


def err_ia(k: int, *, alpha: float, beta: float) -> Formula:
    """ERR-IA@k, divided by ``N`` times the ERR of a ranking of new documents (ndeval)."""
    return _intent_aware("err", k, alpha, beta)


def nerr_ia(k: int, *, alpha: float, beta: float) -> Formula:
    """nERR-IA@k: ERR-IA over the greedy ideal ranking's."""
    return Formula("gains", _discounted("err", k, beta), k, normalised=True)


def nrbp(*, alpha: float, beta: float) -> Formula:
    """NRBP: (1 − (1 − α)β)·Σ_i β^(i−1)·g(i) / N over the whole ranking."""
    scale = 1.0 - (1.0 - alpha) * beta
    return Formula("gains", _discounted("rbp", None, beta), None, finish=lambda t, n: t * scale / n)


def nnrbp(*, alpha: float, beta: float) -> Formula:
    """nNRBP: NRBP over the greedy ideal ranking's."""
    return Formula("gains", _discounted("rbp", None, beta), None, normalised=True)


def p_ia(k: int, *, alpha: float, beta: float) -> Formula:
    """P-IA@k: the (document, subtopic) hits in the top k over ``N·k``."""
    return Formula("hits", (pl.col("rank") <= k).sum(), k, finish=lambda t, n: t / (n * k))


def subtopic_recall(k: int, *, alpha: float, beta: float) -> Formula:
    """Subtopic recall@k: the share of the ``N`` subtopics found in the top k."""
    found = pl.col("subtopic").filter(pl.col("rank") <= k).n_unique()
    return Formula("hits", found, k, finish=lambda t, n: t / n)
