"""The recommendation table: each user's recommendations ranked with the package's order.

Users are the run's queries, items its docs. The order is the ranking metrics' (score
descending, ties broken by item id descending compared as text bytes, see
:mod:`polars_rank.core.conventions`), so a top-k cut here keeps the same items as P@k.
The run must hold one row per ``(query, doc)`` (:func:`polars_rank.evaluate` checks it, or
keeps one row per pair with its ``duplicates`` option): the top k are k distinct items.

>>> import polars as pl
>>> run = pl.LazyFrame({"query": [1, 1, 1], "doc": [10, 9, 7], "score": [0.5, 0.5, 0.9]})
>>> top_k(run, 2).sort("rank").collect().rows()  # the tie 10/9 goes to "9" > "10" as text
[(1, 7, 1), (1, 9, 2)]
"""

from __future__ import annotations

import polars as pl

from polars_rank.core.conventions import Columns, OrderBy, rank_expr
from polars_rank.recsys.options import check_choice, check_k


def top_k(
    run: pl.LazyFrame,
    k: int | None = None,
    *,
    query: str = "query",
    doc: str = "doc",
    score: str = "score",
    rank: str = "rank",
    order_by: OrderBy = "score",
) -> pl.LazyFrame:
    """``query, doc, rank``: the run ranked per user (``order_by="rank"``: by its own rank
    column, ascending, ties by item id descending), cut at ``rank <= k`` (all when None)."""
    check_k(k, "top_k")
    check_choice("order_by", order_by, ("score", "rank"))
    cols = Columns(query=query, doc=doc, score=score, rank=rank)
    doc_dtype = run.collect_schema()[doc]
    ranked = run.select(query, doc, rank_expr(cols, order_by, doc_dtype))
    return ranked if k is None else ranked.filter(pl.col(rank) <= k)
