"""The per-query values of the diversity metrics, in Polars: every metric's
:class:`~.metrics.Formula` (ndeval's definitions, :mod:`.metrics`) aggregated over the
query's ranked gains or hits, the normalised ones over the greedy ideal ranking's gains too
(:mod:`.ideal`), in one plan.

A query without a relevant document (``N = 0``) scores 0 on every metric (ndeval: 0, and NaN
for nNRBP).
"""

from __future__ import annotations

import polars as pl

from polars_rank.diversity.ideal import ideal_gains
from polars_rank.diversity.metrics import Formula


def per_query(
    ranked: pl.DataFrame,
    relevant: pl.DataFrame,
    queries: pl.DataFrame,
    metrics: list[tuple[str, Formula]],
    alpha: float,
) -> pl.DataFrame:
    """``query, <label>...`` for every query of ``queries``: ``metrics`` the (label,
    formula) pairs, ``ranked`` holds ``query, doc, rank`` (1, 2, ... in each query),
    ``relevant`` the unique ``query, doc, subtopic`` of the relevant judgments, ``alpha``
    the gain's (for the ideal ranking)."""
    hits = (
        ranked.lazy()
        .join(relevant.lazy(), on=["query", "doc"], how="inner")
        .sort("query", "subtopic", "rank")
        .with_columns(pl.int_range(pl.len()).over("query", "subtopic").alias("seen"))
        .with_columns((pl.lit(1.0 - alpha) ** pl.col("seen")).alias("g"))
    )
    gains = hits.group_by("query", "rank").agg(pl.col("g").sum().alias("gain"))
    subtopics = relevant.lazy().group_by("query").agg(pl.col("subtopic").n_unique().alias("n"))
    frame = queries.lazy().join(subtopics, on="query", how="left")
    for reads, table in (("gains", gains), ("hits", hits)):
        totals = [f.total.alias(f"run_{i}") for i, (_, f) in enumerate(metrics) if f.reads == reads]
        if totals:
            frame = frame.join(table.group_by("query").agg(totals), on="query", how="left")
    normalised = [f for _, f in metrics if f.normalised]
    if normalised:
        whole = any(f.k is None for f in normalised)
        depth = None if whole else max(f.k or 0 for f in normalised)
        ideal = ideal_gains(relevant, alpha, depth).lazy()
        ideal_totals = [
            f.total.alias(f"ideal_{i}") for i, (_, f) in enumerate(metrics) if f.normalised
        ]
        frame = frame.join(ideal.group_by("query").agg(ideal_totals), on="query", how="left")
    n = pl.col("n").cast(pl.Float64)
    values = []
    for i, (label, formula) in enumerate(metrics):
        run = pl.col(f"run_{i}").cast(pl.Float64).fill_null(0.0)
        if formula.normalised:
            value = run / pl.col(f"ideal_{i}")
        else:
            assert formula.finish is not None, label
            value = formula.finish(run, n)
        values.append(pl.when(n > 0).then(value).otherwise(0.0).alias(label))
    return frame.select("query", *values).sort("query").collect()
