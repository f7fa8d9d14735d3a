"""Gain tables: a gain for each relevance level, as trec_eval's ``level=gain`` parameters
(``-m ndcg.1=3,2=9,4=4.5``) and ir_measures' ``nDCG(gains={0:0,1:1,2:3})`` give them.

Shared by nDCG, DCG and IDCG (their ``gains`` parameter) and by trec_eval's G, ndcg_rel, Rndcg
and rbp. A judged document's level is its grade, or -2 for any negative grade (trec_eval's "in
the pool but unjudged"); a level without an entry gains its grade when the grade is >= 0 and 0
otherwise; an unjudged document gains 0. Level -1 (trec_eval's documents missing from the
judgments) cannot be given a gain: the metrics read only judged rows of the compact judged
table, and a gain for every unjudged position would need all of them.

>>> import polars as pl
>>> table = gain_table({1: 3, 2: 9, -2: 0.5})
>>> grades = pl.DataFrame({"rel": [0, 1, 2, 3, -1, None]})
>>> grades.select(table_gain("rel", table)).to_series().to_list()
[0.0, 3.0, 9.0, 3.0, 0.5, 0.0]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.core.expr import ColumnOrExpr
from polars_rank.core.expr import col as _col

#: A gain table as the metric functions accept it: ``{level: gain}`` or ``(level, gain)`` pairs.
Gains = Mapping[int, float] | Iterable[tuple[int, float]]

#: trec_eval's level of a judged document with a negative grade (RELVALUE_UNJUDGED).
NEGATIVE_LEVEL = -2

_F64 = pl.Float64


def gain_table(gains: Gains | None, name: str = "gains") -> dict[int, float] | None:
    """``gains`` checked and as a dict ``{level: gain}`` (``None`` stays ``None``).

    Levels are integers (a level given twice is an error: trec_eval's result would depend on the
    order of its sorted table); gains are finite numbers; level -1 is refused (see the module
    docstring).

    >>> gain_table([(2, 9), (1, 3)])
    {2: 9.0, 1: 3.0}
    """
    if gains is None:
        return None
    pairs = list(gains.items()) if isinstance(gains, Mapping) else list(gains)
    table: dict[int, float] = {}
    for pair in pairs:
        try:
            level, gain = pair
        except (TypeError, ValueError):
            raise PolarsRankError(f"{name}: expected level: gain pairs, got {pair!r}") from None
        if isinstance(level, bool) or not isinstance(level, int):
            raise PolarsRankError(f"{name}: a level must be an integer, got {level!r}")
        if isinstance(gain, bool) or not isinstance(gain, int | float) or not math.isfinite(gain):
            raise PolarsRankError(f"{name}: the gain of level {level} must be a finite number")
        if level == -1:
            raise PolarsRankError(
                f"{name}: level -1 (documents missing from the judgments) cannot take a gain"
            )
        if level in table:
            raise PolarsRankError(f"{name}: level {level} is given twice")
        table[level] = float(gain)
    return table


def table_gain(relevance: ColumnOrExpr, table: Mapping[int, float]) -> pl.Expr:
    """The gain of each row: the table's entry for its level (its grade, -2 for a negative
    grade), else its grade when >= 0, else 0; 0 for an unjudged row (null relevance)."""
    rel = _col(relevance).cast(_F64)
    gain = pl.when(rel >= 0).then(rel).otherwise(pl.lit(0.0, _F64))
    for level, value in table.items():
        matches = rel < 0 if level == NEGATIVE_LEVEL else rel == float(level)
        gain = pl.when(matches).then(pl.lit(value, _F64)).otherwise(gain)
    return gain


def ideal_gains(relevance: ColumnOrExpr, table: Mapping[int, float]) -> pl.Expr:
    """The ideal ranking's gains: the positive gains of the judged rows with a grade >= 0,
    largest first (trec_eval walks its sorted table down and stops at the first gain <= 0)."""
    rel = _col(relevance)
    gain = table_gain(relevance, table)
    keep = ((rel >= 0) & (gain > 0)).fill_null(False)
    return gain.filter(keep).sort(descending=True)


def ideal_discounted_sums(ideal: pl.Expr) -> pl.Expr:
    """IDCG through each position of the ideal ranking (``ideal`` from :func:`ideal_gains`)."""
    position = pl.int_range(1, ideal.len() + 1).cast(_F64)
    return (ideal / (position + 1.0).log(2)).cum_sum()


def sql_gains(table: Mapping[int, float] | None) -> str:
    """A gain table as a DuckDB ``MAP(INTEGER, DOUBLE)`` literal (``NULL`` for none).

    >>> sql_gains({1: 3.0, 2: 4.5})
    "MAP {1: CAST('3.0' AS DOUBLE), 2: CAST('4.5' AS DOUBLE)}"
    """
    if table is None:
        return "NULL"
    if not table:
        return "MAP {}::MAP(INTEGER, DOUBLE)"
    items = ", ".join(f"{int(k)}: CAST('{float(v)!r}' AS DOUBLE)" for k, v in table.items())
    return "MAP {" + items + "}"
