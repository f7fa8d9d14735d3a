"""ndeval's greedy ideal ranking, for all queries at once: step ``t`` gives every query the
judged-relevant document with the largest gain ``Σ_s (1 − α)^{c_s}`` (``c_s`` the number of
documents already placed that are relevant to subtopic ``s``), ties to the largest doc id
(the choice that matches ndeval's); one vectorised step per rank (window expressions over
the candidates left), never a loop over queries.

>>> import polars as pl
>>> rel = pl.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "b"], "subtopic": ["1", "1", "2"]})
>>> ideal_gains(rel, 0.5, depth=None).rows()
[('q', 1, 2.0), ('q', 2, 0.5)]
"""

from __future__ import annotations

import polars as pl


def ideal_gains(relevant: pl.DataFrame, alpha: float, depth: int | None) -> pl.DataFrame:
    """``query, rank, gain``: the gain the greedy ideal ranking places at each ``rank`` (1 to
    ``depth``, or every relevant document when ``depth`` is ``None``), from ``relevant``'s
    unique ``query, doc, subtopic`` rows (the relevant judgments)."""
    left = relevant.select("query", "doc", "subtopic").with_columns(pl.lit(0).alias("seen"))
    gain = (pl.lit(1.0 - alpha) ** pl.col("seen")).sum().over("query", "doc")
    top = pl.col("gain") == pl.col("gain").max().over("query")
    best = top & (pl.col("doc") == pl.col("doc").filter(top).max().over("query"))
    steps: list[pl.DataFrame] = []
    rank = 0
    while left.height and (depth is None or rank < depth):
        rank += 1
        left = left.with_columns(gain.alias("gain")).with_columns(best.alias("best"))
        chosen = left.filter(pl.col("best")).group_by("query").agg(pl.col("gain").first())
        steps.append(chosen.select("query", pl.lit(rank).alias("rank"), "gain"))
        covered = pl.col("best").any().over("query", "subtopic").cast(pl.Int32)
        left = (
            left.with_columns(pl.col("seen") + covered).filter(~pl.col("best")).drop("gain", "best")
        )
    schema = pl.Schema(
        {"query": relevant.schema["query"], "rank": pl.Int32(), "gain": pl.Float64()}
    )
    if not steps:
        return pl.DataFrame(schema=schema)
    return pl.concat(steps).cast(schema).sort("query", "rank")
