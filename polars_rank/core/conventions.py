"""The one place that defines what a judgment means and how a run is ordered (Polars side).

Every other module reads these definitions; the SQL side has its counterparts, by the same
names, at the top of ``sql/ranking.sql`` (``_pr_rel``, ``_pr_nonrel``, ``_pr_score_key``,
``_pr_rank_key``, ``_pr_id_bytes``).

* **Ordering** (trec_eval 10.0): score descending; ties broken by document id descending,
  compared as text bytes, so doc ``"9"`` ranks above doc ``"10"`` when they tie, also when the
  ids are integers. ``-0.0`` ties with ``0.0``, as in C. With ``order_by="rank"`` the run's own
  ranks are used (ascending), ties again by document id descending.
* **Judging**: relevance ``>= relevance_level`` is relevant; ``0 <= relevance < level`` is judged
  non-relevant; a negative relevance is judged but never relevant and never gain (trec_eval's
  "unjudged in pool"); a retrieved document with no judgment has a null relevance.

>>> import polars as pl
>>> run = pl.DataFrame({"query": ["q"] * 3, "doc": ["10", "9", "a"], "score": [1.0, 1.0, 2.0]})
>>> run.with_columns(rank_expr(Columns(), "score", pl.String)).sort("rank")["doc"].to_list()
['a', '9', '10']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

OrderBy = Literal["score", "rank"]

#: The largest cutoff ``k`` and ``max_rank``: the largest SQL ``INTEGER`` (every engine and
#: dialect holds it), far beyond any ranking's length.
LARGEST_RANK = 2**31 - 1


@dataclass(frozen=True)
class Columns:
    """Column names of the run, the qrels and the judged table."""

    query: str = "query"
    doc: str = "doc"
    score: str = "score"
    rank: str = "rank"
    relevance: str = "relevance"

    def order_column(self, order_by: OrderBy) -> str:
        """The run column the ordering reads: the score or the rank."""
        return self.score if order_by == "score" else self.rank


def relevant(relevance: pl.Expr, relevance_level: float) -> pl.Expr:
    """True where a judgment counts as relevant: ``relevance >= level`` and never negative."""
    return ((relevance >= relevance_level) & (relevance >= 0)).fill_null(False)


def judged_nonrelevant(relevance: pl.Expr, relevance_level: float) -> pl.Expr:
    """True where a judgment counts as non-relevant: ``0 <= relevance < level``."""
    return ((relevance >= 0) & (relevance < relevance_level)).fill_null(False)


def order_key(column: str, order_by: OrderBy) -> pl.Expr:
    """The first sort key, higher is better: the score as Float64 (``+ 0.0`` makes -0.0 tie
    with 0.0, as in C), or the negated rank with ``order_by="rank"``."""
    value = pl.col(column).cast(pl.Float64)
    return value + 0.0 if order_by == "score" else -value


def doc_key(doc: str, dtype: pl.DataType) -> pl.Expr:
    """The second sort key (descending): the document id as text, compared as bytes."""
    return pl.col(doc) if dtype == pl.String else pl.col(doc).cast(pl.String)


def rank_expr(cols: Columns, order_by: OrderBy, doc_dtype: pl.DataType) -> pl.Expr:
    """1-based rank within the query in trec_eval's order (see the module docstring)."""
    keys = pl.struct(
        order_key(cols.order_column(order_by), order_by).alias("_primary"),
        doc_key(cols.doc, doc_dtype).alias("_doc"),
    )
    return keys.rank("ordinal", descending=True).over(cols.query).cast(pl.UInt32).alias(cols.rank)
