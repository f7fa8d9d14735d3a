"""Expression helpers every metric module shares: column coercion, safe division, constants.

>>> import polars as pl
>>> pl.DataFrame({"a": [1, 3], "b": [2, 0]}).select(safe_div(col("a"), "b")).to_series().to_list()
[0.5, 0.0]
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

#: A column name or an expression, as every metric function accepts.
ColumnOrExpr = str | pl.Expr


def col(column: ColumnOrExpr) -> pl.Expr:
    """A column name or an expression, as an expression."""
    return pl.col(column) if isinstance(column, str) else column


def safe_div(
    numerator: ColumnOrExpr, denominator: ColumnOrExpr, zero_division: float = 0.0
) -> pl.Expr:
    """``numerator / denominator`` as Float64; ``zero_division`` where the denominator is not
    positive (every denominator here is a count or a sum of non-negative terms)."""
    num, den = col(numerator), col(denominator)
    return (
        pl.when(den > 0)
        .then(num.cast(pl.Float64) / den.cast(pl.Float64))
        .otherwise(pl.lit(zero_division, pl.Float64))
    )


@dataclass(frozen=True)
class Ratio:
    """A metric that is one aggregation divided by another, kept in its two parts.

    :meth:`expr` is the metric's expression (:func:`safe_div` of the parts). An engine may
    instead aggregate ``numerator`` and ``denominator`` as two columns of its ``group_by`` and
    divide them afterwards, with :func:`safe_div` again: the same numbers to the last bit, and
    cheaper, because Polars evaluates an arithmetic operation between two grouped aggregations
    group by group (nDCG@10 over 100,000 queries: 62 ms in parts, 120 ms in one expression).

    >>> df = pl.DataFrame({"g": [1, 1, 2], "x": [1.0, 2.0, 0.0]})
    >>> ratio = Ratio(pl.col("x").sum(), pl.len())
    >>> df.group_by("g", maintain_order=True).agg(ratio.expr().alias("mean"))["mean"].to_list()
    [1.5, 0.0]
    """

    numerator: pl.Expr
    denominator: pl.Expr
    zero_division: float = 0.0

    def expr(self) -> pl.Expr:
        """``numerator / denominator``, ``zero_division`` where the denominator is not
        positive (:func:`safe_div`)."""
        return safe_div(self.numerator, self.denominator, self.zero_division)


def group_constant(value: float) -> pl.Expr:
    """The constant ``value`` as a per-group expression rather than a literal.

    In a grouped aggregation Polars turns ``x / literal`` into ``x * (1 / literal)``, which is
    off in the last bit (3 · (1/5) ≠ 3/5); dividing by this expression divides exactly, as C
    does.

    >>> df = pl.DataFrame({"g": [1, 1, 1], "x": [1.0, 1.0, 1.0]})
    >>> df.group_by("g").agg(pl.col("x").sum() / group_constant(5)).item(0, "x")
    0.6
    """
    return pl.len().cast(pl.Float64) * 0.0 + float(value)
