"""The per-query values of the diversity metrics, in Polars, with ndeval's definitions
(``N`` the query's subtopics with a relevant document, ``J(d, s)`` 1 when ``d`` is judged
relevant to ``s``, ``c_s(i)`` the documents above rank ``i`` relevant to ``s``, and the gain
``g(i) = Σ_s J(d_i, s)·(1 − α)^{c_s(i)}``):

* ``alpha_dcg@k = Σ_{i≤k} g(i)/log2(i+1) / (N·Σ_{i≤k} (1 − α)^{i−1}/log2(i+1))``;
* ``err_ia@k = Σ_{i≤k} g(i)/i / (N·Σ_{i≤k} (1 − α)^{i−1}/i)``;
* ``nrbp = (1 − (1 − α)β)·Σ_i β^{i−1} g(i) / N`` (the whole ranking);
* ``p_ia@k = Σ_s |{i ≤ k: J(d_i, s)}| / (N·k)``; ``subtopic_recall@k`` the share of the
  ``N`` subtopics with a relevant document in the top ``k``;
* ``alpha_ndcg@k``, ``nerr_ia@k``, ``nnrbp``: the sums over ``g`` divided by the same sums
  over the greedy ideal ranking's gains (:mod:`.ideal`).

A query without a relevant document (``N = 0``) scores 0 on every metric (ndeval: 0, and NaN
for nNRBP).
"""

from __future__ import annotations

import math

import polars as pl

from polars_rank.diversity.ideal import ideal_gains
from polars_rank.diversity.names import NORMALISED, DiversityMetric


def _sums(gains: pl.LazyFrame, k: int | None, beta: float, kind: str) -> pl.Expr:
    """Per query (after ``group_by``): Σ over ranks ≤ k of the gain times the discount of
    ``kind`` (``dcg``: 1/log2(i+1), ``err``: 1/i, ``rbp``: β^(i−1))."""
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


def _norm(kind: str, k: int, alpha: float) -> float:
    """The ``kind`` sum of a ranking whose every document is new to one subtopic."""
    discount = (lambda i: 1.0 / math.log2(i + 1)) if kind == "dcg" else (lambda i: 1.0 / i)
    return sum((1.0 - alpha) ** (i - 1) * discount(i) for i in range(1, k + 1))


_KIND = {
    "alpha_dcg": "dcg",
    "alpha_ndcg": "dcg",
    "err_ia": "err",
    "nerr_ia": "err",
    "nrbp": "rbp",
    "nnrbp": "rbp",
}


def per_query(
    ranked: pl.DataFrame,
    relevant: pl.DataFrame,
    queries: pl.DataFrame,
    metrics: list[DiversityMetric],
    alpha: float,
    beta: float,
) -> pl.DataFrame:
    """``query, <label>...`` for every query of ``queries``: ``ranked`` holds ``query, doc,
    rank`` (1, 2, ... in each query), ``relevant`` the unique ``query, doc, subtopic`` of
    the relevant judgments."""
    hits = (
        ranked.lazy()
        .join(relevant.lazy(), on=["query", "doc"], how="inner")
        .sort("query", "subtopic", "rank")
        .with_columns(pl.int_range(pl.len()).over("query", "subtopic").alias("seen"))
        .with_columns((pl.lit(1.0 - alpha) ** pl.col("seen")).alias("g"))
    )
    gains = hits.group_by("query", "rank").agg(pl.col("g").sum().alias("gain"))
    subtopics = relevant.lazy().group_by("query").agg(pl.col("subtopic").n_unique().alias("n"))
    sums = [
        _sums(gains, m.k, beta, _KIND[m.name]).alias(f"run_{i}")
        for i, m in enumerate(metrics)
        if m.name in _KIND
    ]
    counts = [
        (
            pl.col("subtopic").filter(pl.col("rank") <= m.k).n_unique()
            if m.name == "subtopic_recall"
            else (pl.col("rank") <= m.k).sum()
        ).alias(f"run_{i}")
        for i, m in enumerate(metrics)
        if m.name in ("p_ia", "subtopic_recall")
    ]
    frame = queries.lazy().join(subtopics, on="query", how="left")
    if sums:
        frame = frame.join(gains.group_by("query").agg(sums), on="query", how="left")
    if counts:
        frame = frame.join(hits.group_by("query").agg(counts), on="query", how="left")
    normalised = [m for m in metrics if m.name in NORMALISED]
    if normalised:
        whole = any(m.k is None for m in normalised)
        depth = None if whole else max(m.k or 0 for m in normalised)
        ideal = ideal_gains(relevant, alpha, depth).lazy()
        ideal_sums = [
            _sums(ideal, m.k, beta, _KIND[m.name]).alias(f"ideal_{i}")
            for i, m in enumerate(metrics)
            if m.name in NORMALISED
        ]
        frame = frame.join(ideal.group_by("query").agg(ideal_sums), on="query", how="left")
    n = pl.col("n").cast(pl.Float64)
    values = []
    for i, m in enumerate(metrics):
        run = pl.col(f"run_{i}").cast(pl.Float64).fill_null(0.0)
        if m.name in NORMALISED:
            value = run / pl.col(f"ideal_{i}")
        elif m.name in ("alpha_dcg", "err_ia"):
            value = run / (n * _norm(_KIND[m.name], m.k or 0, alpha))
        elif m.name == "nrbp":
            value = run * (1.0 - (1.0 - alpha) * beta) / n
        elif m.name == "p_ia":
            value = run / (n * float(m.k or 0))
        else:
            value = run / n
        values.append(pl.when(n > 0).then(value).otherwise(0.0).alias(m.label))
    return frame.select("query", *values).sort("query").collect()
