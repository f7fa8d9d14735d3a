"""Summary rules: how per-query values become one value per run, written once per language
(Polars here, DuckDB SQL here, the portable SQL in :mod:`polars_rank.compiler.plan`).

* ``mean``: the mean over the queries that count;
* ``sum``: the sum (counts; 0 over no query);
* ``gmean``: trec_eval's geometric mean exp(mean(ln(max(x, 1e-5)))) (``gm_map``);
* ``none``: no summary (trec_eval's ``relstring``, one string per query).

>>> import polars as pl
>>> df = pl.DataFrame({"query": ["b", "a"], "v": [0.5, 0.25]})
>>> df.select(summary_expr("mean", "v")).item()
0.375
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from polars_rank.core.sqltext import ident, literal

Summary = Literal["mean", "sum", "gmean", "none"]

#: trec_eval's floor for the geometric mean of a per-query value (``gm_map``).
GM_FLOOR = 1e-5


def summary_expr(rule: Summary, column: str, query: str = "query") -> pl.Expr:
    """How the per-query values in ``column`` become the summary value: their mean, their sum
    (counts), or trec_eval's geometric mean exp(mean(ln(max(x, 1e-5)))), over the non-null
    values (a recommender metric is null where it is undefined, e.g. ILD of one item).

    The values are added one after the other in query order, as trec_eval adds them, so the
    result does not depend on the order in which an engine produced the queries: repeatable to
    the last bit. (A running sum keeps the order: Polars may drop a sort before a plain sum.)
    """
    if rule == "none":
        raise ValueError(f"{column}: a metric without a summary has no summary expression")
    values = pl.col(column).sort_by(query).drop_nulls()  # undefined values: out of the mean
    if rule == "gmean":
        values = values.clip(lower_bound=GM_FLOOR).log()
    total = values.cum_sum().last()
    if rule == "sum":
        return total.fill_null(0.0).cast(pl.Float64).alias(column)
    mean = total / values.count()
    return (mean.exp() if rule == "gmean" else mean).alias(column)


def summary_sql(rule: Summary, column: str, where: str = "true", query: str = "query") -> str:
    """The SQL aggregate of :func:`summary_expr` over the rows where ``where`` holds, in query
    order (a sum over no row is 0, as Polars' sum)."""

    quoted, order = ident(column), f"ORDER BY {ident(query)} ASC NULLS LAST"
    if rule == "none":
        raise ValueError(f"{column}: a metric without a summary has no summary aggregate")
    if rule == "sum":
        return f"CAST(coalesce(sum({quoted} {order}) FILTER (WHERE {where}), 0) AS DOUBLE)"
    if rule == "gmean":
        floor = literal(GM_FLOOR)
        return f"exp(avg(ln(greatest({quoted}, {floor})) {order}) FILTER (WHERE {where}))"
    return f"avg({quoted} {order}) FILTER (WHERE {where})"
