"""Diversity by intent (:mod:`polars_rank.diversity`): ndeval's metrics over judgments with a
subtopic column, as TREC Web 2009–2012 scored them, and as ir_measures exposes them.

:func:`polars_rank.evaluate_diversity` takes these names (ndeval's ``alpha-nDCG@20``,
``ERR-IA@20``, ``NRBP``, ``strec@20``; ir_measures' ``alpha_nDCG@20``, ``ERR_IA@20``,
``StRecall@20``; snake case ``alpha_ndcg@20``); :func:`polars_rank.evaluate` refuses them,
naming the entry point that takes them. ``alpha`` and ``beta`` are evaluate_diversity's
arguments (ndeval's defaults 0.5), the same for every metric of a call.

>>> from polars_rank.catalog.names import parse_metric
>>> parse_metric("alpha-nDCG@20", scope="diversity").metric
'alpha_ndcg'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from polars_rank.catalog.model import Alias, Cutoff, Metric, alias, with_family
from polars_rank.diversity import metrics as d

#: Why only the Polars engine runs them (an engine's refusal says it too): ndeval's greedy
#: ideal ranking is built step by step (one vectorised step per rank) in Polars; the other
#: engines and the portable SQL have no such loop, and the metrics are one family, so every
#: one of them runs on the Polars engine only.
WHY = (
    "ndeval's metrics are evaluated with the greedy ideal ranking (alpha-nDCG, nERR-IA, "
    "nNRBP), built rank by rank, which is not compiled to SQL; use engine='polars'"
)
_UNSUPPORTED: tuple[tuple[str, str], ...] = (
    ("duckdb", WHY),
    ("spark", WHY),
    ("clickhouse", WHY),
    ("sql", WHY),
)

#: What each metric reads besides the run: judgments with a subtopic column.
_N = "N the query's subtopics with a relevant document"
_GAIN = "g(i) = Σ_s J(d_i, s)·(1 − α)^c_s(i), c_s(i) the documents above i relevant to s"


def _entry(
    name: str,
    polars: Callable[..., Any],
    formula: str,
    aliases: tuple[Alias, ...],
    title: str,
    *,
    cutoff: Cutoff = "required",
    normalised: bool = False,
) -> Metric:
    if normalised:  # the greedy ideal ranking is not always the best one
        formula += " (above 1 when the run beats ndeval's greedy ideal, which is not optimal)"
    return Metric(
        name,
        polars,
        formula,
        cutoff=cutoff,
        relevance_level=False,
        columns=(),
        aliases=aliases,
        title=title,
        table="diversity",
        inputs=("qrels",),
        reference="ndeval.c (TREC Web track); Clarke et al., SIGIR 2008 and ICTIR 2009",
        unsupported=_UNSUPPORTED,
        value_range=(0.0, math.inf) if normalised else (0.0, 1.0),
    )


_ENTRIES: tuple[Metric, ...] = (
    _entry(
        "alpha_ndcg",
        d.alpha_ndcg,
        f"Σ_(i≤k) g(i)/log2(i+1) over the same sum of the greedy ideal ranking; {_GAIN}",
        (
            alias("alpha-nDCG", "ndeval"),
            alias("alpha_nDCG", "ir_measures"),
            alias("alpha_ndcg"),
        ),
        "alpha-nDCG",
        normalised=True,
    ),
    _entry(
        "alpha_dcg",
        d.alpha_dcg,
        f"Σ_(i≤k) g(i)/log2(i+1) / (N·Σ_(i≤k) (1 − α)^(i−1)/log2(i+1)), {_N}; {_GAIN}",
        (
            alias("alpha-DCG", "ndeval"),
            alias("alpha_DCG", "ir_measures"),
            alias("alpha_dcg"),
        ),
        "alpha-DCG",
    ),
    _entry(
        "err_ia",
        d.err_ia,
        f"Σ_(i≤k) g(i)/i / (N·Σ_(i≤k) (1 − α)^(i−1)/i), {_N}; {_GAIN}",
        (
            alias("ERR-IA", "ndeval"),
            alias("ERR_IA", "ir_measures"),
            alias("err_ia"),
        ),
        "intent-aware expected reciprocal rank",
    ),
    _entry(
        "nerr_ia",
        d.nerr_ia,
        f"Σ_(i≤k) g(i)/i over the same sum of the greedy ideal ranking; {_GAIN}",
        (
            alias("nERR-IA", "ndeval"),
            alias("nERR_IA", "ir_measures"),
            alias("nerr_ia"),
        ),
        "normalised intent-aware expected reciprocal rank",
        normalised=True,
    ),
    _entry(
        "nrbp",
        d.nrbp,
        f"(1 − (1 − α)β)·Σ_i β^(i−1)·g(i) / N over the whole ranking, {_N}; {_GAIN}",
        (alias("NRBP", "ndeval", "ir_measures"), alias("nrbp")),
        "novelty- and rank-biased precision",
        cutoff="none",
    ),
    _entry(
        "nnrbp",
        d.nnrbp,
        f"Σ_i β^(i−1)·g(i) over the same sum of the greedy ideal ranking; {_GAIN}",
        (alias("nNRBP", "ndeval", "ir_measures"), alias("nnrbp")),
        "normalised NRBP",
        cutoff="none",
        normalised=True,
    ),
    _entry(
        "p_ia",
        d.p_ia,
        f"Σ_s |{{i ≤ k: d_i relevant to s}}| / (N·k), {_N}",
        (alias("P-IA", "ndeval"), alias("P_IA", "ir_measures"), alias("p_ia")),
        "intent-aware precision",
    ),
    _entry(
        "subtopic_recall",
        d.subtopic_recall,
        f"|{{s: some d_i with i ≤ k relevant to s}}| / N, {_N}",
        (
            alias("strec", "ndeval"),
            alias("StRecall", "ir_measures"),
            alias("subtopic_recall"),
            alias("s_recall"),
        ),
        "subtopic recall",
    ),
)

ENTRIES = with_family("diversity", _ENTRIES)
