"""The checks of :func:`polars_rank.evaluate_ratings`, the same for every engine, in Polars:
columns present and numeric, no NULL or NaN rating or prediction, no NULL user or item, no
duplicate (user, item) pair in either table, weights not negative, NaN or infinite; and the
one warning counting the pairs on one side only (left out: the inner join); and
:func:`compiled_result`, the compiled query's rows as the Polars engine gives them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.core.frames import require_columns, to_lazy

if TYPE_CHECKING:
    from polars_rank.core.types import FrameLike
    from polars_rank.engines.request import RatingRequest


def _numbers(lf: pl.LazyFrame, what: str, schema: pl.Schema, column: str) -> None:
    """``column`` holds numbers, none NULL or NaN."""
    dtype = schema[column]
    if not dtype.is_numeric():
        raise PolarsRankError(f"{what} column {column!r} must hold numbers, got {dtype} values")
    value = pl.col(column)
    nulls, nans = (
        lf.select(
            value.is_null().sum().alias("n"), value.cast(pl.Float64).is_nan().sum().alias("m")
        )
        .collect()
        .row(0)
    )
    if nulls:
        raise PolarsRankError(f"{what} column {column!r} has {nulls} NULL values")
    if nans:
        raise PolarsRankError(f"{what} column {column!r} has {nans} NaN values")


def _keys(lf: pl.LazyFrame, what: str, user: str, item: str) -> None:
    """No NULL user or item, no (user, item) pair twice."""
    for column in (user, item):
        nulls = lf.select(pl.col(column).is_null().sum()).collect().item()
        if nulls:
            raise PolarsRankError(f"{what} column {column!r} has {nulls} NULL values")
    twice = (
        lf.group_by(user, item)
        .len()
        .filter(pl.col("len") > 1)
        .sort(user, item)
        .select(user, item, pl.len().alias("pairs"))
        .collect()
    )
    if twice.height:
        u, i, pairs = twice.row(0)
        raise PolarsRankError(
            f"the {what} have {pairs} (user, item) pairs more than once, e.g. "
            f"({u!r}, {i!r}): one {what[:-1]} per pair"
        )


def _weights(lf: pl.LazyFrame, schema: pl.Schema, weight: str) -> None:
    dtype = schema[weight]
    if not dtype.is_numeric():
        raise PolarsRankError(f"weight column {weight!r} must hold numbers, got {dtype} values")
    w = pl.col(weight).cast(pl.Float64)
    bad = lf.select(((w < 0) | w.is_nan() | w.is_infinite()).sum()).collect().item()
    if bad:
        raise PolarsRankError(
            f"weight column {weight!r} has {bad} negative, NaN or infinite values"
        )


def unmatched_message(ratings: int, predictions: int) -> str:
    """The warning about pairs on one side only."""
    return (
        f"{ratings} ratings without a prediction and {predictions} predictions without a "
        "rating are left out (the metrics read the (user, item) pairs in both tables)"
    )


def checked_inputs(
    ratings: FrameLike, predictions: FrameLike, request: RatingRequest
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Both tables checked (raising :class:`PolarsRankError` naming the table and column),
    reduced to the columns the metrics read; warns once when a pair is on one side only."""
    user, item = request.user, request.item
    weights = [request.weight] if request.weight is not None else []
    rated = to_lazy(ratings, "ratings")
    predicted = to_lazy(predictions, "predictions")
    rschema = require_columns(rated, "ratings", [user, item, request.rating, *request.by, *weights])
    pschema = require_columns(predicted, "predictions", [user, item, request.prediction])
    _numbers(rated, "ratings", rschema, request.rating)
    _numbers(predicted, "predictions", pschema, request.prediction)
    if request.weight is not None:
        _weights(rated, rschema, request.weight)
    kept = list(dict.fromkeys([user, item, request.rating, *request.by, *weights]))
    if request.prediction in kept:
        raise PolarsRankError(
            f"the ratings column {request.prediction!r} (a by, weight or rating column) has "
            "the name of the predictions' prediction column: rename one"
        )
    rated = rated.select(kept)
    predicted = predicted.select(user, item, request.prediction)
    _keys(rated, "ratings", user, item)
    _keys(predicted, "predictions", user, item)
    if rschema[user] != pschema[user] or rschema[item] != pschema[item]:
        raise PolarsRankError(
            f"the user and item columns differ in type: ratings ({rschema[user]}, "
            f"{rschema[item]}), predictions ({pschema[user]}, {pschema[item]})"
        )
    lonely_ratings = rated.join(predicted, on=[user, item], how="anti").select(pl.len())
    lonely_predictions = predicted.join(rated, on=[user, item], how="anti").select(pl.len())
    counts = pl.concat([lonely_ratings, lonely_predictions]).collect().to_series().to_list()
    if any(counts) and request.site is not None:
        request.site.warn(unmatched_message(*counts))
    return rated, predicted


def compiled_result(
    values: pl.DataFrame, schema: pl.Schema, request: RatingRequest
) -> pl.DataFrame:
    """The compiled query's rows as the Polars engine gives them: metric labels as written
    (Float64), the ``by`` columns in the ratings' types, sorted nulls first."""
    from polars_rank.compiler.columns import column_names

    by = request.by
    names = column_names(request.specs, reserved=by)
    values = values.rename({v: k for k, v in names.items()})
    labels = [s.label for s in request.specs]
    out = values.select(
        *(pl.col(c).cast(schema[c]) for c in by), *(pl.col(c).cast(pl.Float64) for c in labels)
    )
    return out.sort(by, nulls_last=False) if by else out
