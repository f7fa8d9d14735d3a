"""The Polars engine of :func:`polars_rank.evaluate_ratings`: the pairs joined and every
metric by its catalog entry's expression (:mod:`polars_rank.ratings`) in one lazy plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from polars_rank.engines.request import RatingRequest


def evaluate_ratings(
    ratings: pl.LazyFrame, predictions: pl.LazyFrame, request: RatingRequest
) -> pl.DataFrame:
    """``[by...,] <label>...``: the (user, item) pairs in both tables (an inner join; rows
    with a null weight skipped), each metric's expression in one ``group_by(by).agg``; a
    ``by`` segment of the ratings without a pair left has null values (one row per segment,
    sorted, nulls first)."""
    by, weight = request.by, request.weight
    pairs = ratings.join(predictions, on=[request.user, request.item], how="inner")
    if weight is not None:
        pairs = pairs.filter(pl.col(weight).is_not_null())
    exprs = []
    for spec in request.specs:
        expr = spec.entry.polars(request.rating, request.prediction, weight)
        assert isinstance(expr, pl.Expr)  # a rating metric is an aggregation of columns
        exprs.append(expr.alias(spec.label))
    if not by:
        return pairs.select(exprs).collect()
    values = pairs.group_by(by).agg(exprs)
    segments = ratings.select(by).unique()
    out = segments.join(values, on=by, how="left", nulls_equal=True)
    return out.sort(by, nulls_last=False).collect()
