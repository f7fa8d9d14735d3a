"""The checks of :func:`polars_rank.evaluate_ratings`, the same for every engine: columns
present and numeric, no NULL or NaN rating or prediction, no NULL user or item, no duplicate
(user, item) pair in either table, weights not negative, NaN or infinite; and the one
warning counting the pairs on one side only (left out: the inner join); and
:func:`compiled_result`, the compiled query's rows as the Polars engine gives them.

The checks are written once (:func:`_check`, in their order, with their messages) over the
counts they read (:class:`_Counts`): counted in Polars (:func:`checked_inputs`, for Polars
frames), or by the compiled query of :func:`polars_rank.compiler.rating.rating_checks_sql`
in an engine that holds the tables (:func:`evaluate_tables`: a Spark session's DataFrames,
checked and evaluated without collecting them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.core.frames import require_columns, to_lazy

if TYPE_CHECKING:
    from polars_rank.core.dialects import DialectName
    from polars_rank.core.types import FrameLike
    from polars_rank.engines.compiled import SqlEngine, Table
    from polars_rank.engines.request import RatingRequest


class _Counts(Protocol):
    """What the checks read of the two tables (``what``: ``"ratings"`` or ``"predictions"``);
    each asked only once the checks before it passed."""

    def nulls(self, what: str, column: str) -> int: ...

    def nans(self, what: str, column: str) -> int: ...

    def bad_weights(self, column: str) -> int: ...

    def repeated(self, what: str) -> tuple[int, Any, Any]:
        """The (user, item) pairs that occur more than once, and the smallest (0: None)."""
        ...

    def unmatched(self) -> tuple[int, int]:
        """The ratings without a prediction, the predictions without a rating."""
        ...


def _check(counts: _Counts, rschema: pl.Schema, pschema: pl.Schema, request: RatingRequest) -> None:
    """Raise :class:`PolarsRankError` (naming the table and column) for the first failed
    check, in their order; warn once when a pair is on one side only. Both tables have the
    columns the metrics read (``rschema``, ``pschema``: their schemas)."""
    user, item = request.user, request.item
    for what, schema, column in (
        ("ratings", rschema, request.rating),
        ("predictions", pschema, request.prediction),
    ):
        dtype = schema[column]
        if not dtype.is_numeric():
            raise PolarsRankError(f"{what} column {column!r} must hold numbers, got {dtype} values")
        nulls = counts.nulls(what, column)
        if nulls:
            raise PolarsRankError(f"{what} column {column!r} has {nulls} NULL values")
        nans = counts.nans(what, column)
        if nans:
            raise PolarsRankError(f"{what} column {column!r} has {nans} NaN values")
    weight = request.weight
    if weight is not None:
        dtype = rschema[weight]
        if not dtype.is_numeric():
            raise PolarsRankError(f"weight column {weight!r} must hold numbers, got {dtype} values")
        bad = counts.bad_weights(weight)
        if bad:
            raise PolarsRankError(
                f"weight column {weight!r} has {bad} negative, NaN or infinite values"
            )
    if request.prediction in _kept(request):
        raise PolarsRankError(
            f"the ratings column {request.prediction!r} (a by, weight or rating column) has "
            "the name of the predictions' prediction column: rename one"
        )
    for what in ("ratings", "predictions"):
        for column in (user, item):
            nulls = counts.nulls(what, column)
            if nulls:
                raise PolarsRankError(f"{what} column {column!r} has {nulls} NULL values")
        pairs, u, i = counts.repeated(what)
        if pairs:
            raise PolarsRankError(
                f"the {what} have {pairs} (user, item) pairs more than once, e.g. "
                f"({u!r}, {i!r}): one {what[:-1]} per pair"
            )
    if rschema[user] != pschema[user] or rschema[item] != pschema[item]:
        raise PolarsRankError(
            f"the user and item columns differ in type: ratings ({rschema[user]}, "
            f"{rschema[item]}), predictions ({pschema[user]}, {pschema[item]})"
        )
    lonely = counts.unmatched()
    if any(lonely) and request.site is not None:
        request.site.warn(unmatched_message(*lonely))


def _kept(request: RatingRequest) -> list[str]:
    """The ratings' columns the metrics read."""
    weights = [request.weight] if request.weight is not None else []
    return list(dict.fromkeys([request.user, request.item, request.rating, *request.by, *weights]))


def _required(request: RatingRequest) -> tuple[list[str], list[str]]:
    """The columns each table must have."""
    weights = [request.weight] if request.weight is not None else []
    ratings = [request.user, request.item, request.rating, *request.by, *weights]
    return ratings, [request.user, request.item, request.prediction]


class _PolarsCounts:
    """The counts of two Polars frames."""

    def __init__(self, request: RatingRequest, **frames: pl.LazyFrame) -> None:
        self.request, self.frames = request, frames

    def nulls(self, what: str, column: str) -> int:
        return int(self.frames[what].select(pl.col(column).is_null().sum()).collect().item())

    def nans(self, what: str, column: str) -> int:
        nan = pl.col(column).cast(pl.Float64).is_nan().sum()
        return int(self.frames[what].select(nan).collect().item())

    def bad_weights(self, column: str) -> int:
        w = pl.col(column).cast(pl.Float64)
        bad = ((w < 0) | w.is_nan() | w.is_infinite()).sum()
        return int(self.frames["ratings"].select(bad).collect().item())

    def repeated(self, what: str) -> tuple[int, Any, Any]:
        user, item = self.request.user, self.request.item
        twice = (
            self.frames[what]
            .group_by(user, item)
            .len()
            .filter(pl.col("len") > 1)
            .sort(user, item)
            .select(user, item, pl.len().alias("pairs"))
            .collect()
        )
        if not twice.height:
            return 0, None, None
        u, i, pairs = twice.row(0)
        return int(pairs), u, i

    def unmatched(self) -> tuple[int, int]:
        on = [self.request.user, self.request.item]
        rated, predicted = self.frames["ratings"], self.frames["predictions"]
        lonely_ratings = rated.join(predicted, on=on, how="anti").select(pl.len())
        lonely_predictions = predicted.join(rated, on=on, how="anti").select(pl.len())
        counts = pl.concat([lonely_ratings, lonely_predictions]).collect().to_series().to_list()
        return int(counts[0]), int(counts[1])


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
    rated = to_lazy(ratings, "ratings")
    predicted = to_lazy(predictions, "predictions")
    rcolumns, pcolumns = _required(request)
    rschema = require_columns(rated, "ratings", rcolumns)
    pschema = require_columns(predicted, "predictions", pcolumns)
    rated = rated.select(_kept(request))
    predicted = predicted.select(request.user, request.item, request.prediction)
    _check(_PolarsCounts(request, ratings=rated, predictions=predicted), rschema, pschema, request)
    return rated, predicted


class _SqlCounts:
    """The counts of two tables an engine holds: one query
    (:func:`~polars_rank.compiler.rating.rating_checks_sql`, run when first asked), and
    the query naming the smallest repeated pair when a table has one."""

    def __init__(
        self,
        engine: SqlEngine,
        ratings: str,
        predictions: str,
        rschema: pl.Schema,
        pschema: pl.Schema,
        request: RatingRequest,
    ) -> None:
        from polars_rank.engines.sql_checks import source

        self.engine, self.request = engine, request
        self.sources = {
            "ratings": source(engine, ratings),
            "predictions": source(engine, predictions),
        }
        self.schemas = {"ratings": rschema, "predictions": pschema}
        self._counts: dict[tuple[str, str, str], int] | None = None

    def _count(self, what: str, problem: str, column: str) -> int:
        if self._counts is None:
            self._counts = self._run()
        return self._counts[what, problem, column]

    def _run(self) -> dict[tuple[str, str, str], int]:
        """Every count, from one query: the values of the numeric columns only, the pairs
        in both tables only when the ids have the same types (the checks ask for no other)."""
        from polars_rank.compiler.rating import rating_checks_sql

        request, rschema, pschema = (
            self.request,
            self.schemas["ratings"],
            self.schemas["predictions"],
        )
        user, item, weight = request.user, request.item, request.weight
        values = {
            table: [value] if self.schemas[table][value].is_numeric() else []
            for table, value in (("ratings", request.rating), ("predictions", request.prediction))
        }
        sql, keys = rating_checks_sql(
            self.engine.dialect,
            self.sources["ratings"],
            self.sources["predictions"],
            user=user,
            item=item,
            values=values,
            weight=weight if weight is not None and rschema[weight].is_numeric() else None,
            join=rschema[user] == pschema[user] and rschema[item] == pschema[item],
        )
        row = self.engine.rows(sql)[0]
        return {key: int(row[f"pr_k{n}"] or 0) for n, key in enumerate(keys)}

    def nulls(self, what: str, column: str) -> int:
        return self._count(what, "null", column)

    def nans(self, what: str, column: str) -> int:
        return self._count(what, "nan", column)

    def bad_weights(self, column: str) -> int:
        return self._count("ratings", "bad_weight", column)

    def repeated(self, what: str) -> tuple[int, Any, Any]:
        from polars_rank.compiler.rating import repeated_pair_sql

        if not self._count(what, "repeated", ""):
            return 0, None, None
        sql = repeated_pair_sql(
            self.engine.dialect, self.sources[what], self.request.user, self.request.item
        )
        row = self.engine.rows(sql)[0]
        return int(row["pr_pairs"]), row["pr_user"], row["pr_item"]

    def unmatched(self) -> tuple[int, int]:
        """The rows less the matched pairs (no pair repeats, no id is NULL: checked)."""
        matched = self._count("both", "matched", "")
        return (
            self._count("ratings", "rows", "") - matched,
            self._count("predictions", "rows", "") - matched,
        )


def evaluate_tables(
    engine: SqlEngine, ratings: Table, predictions: Table, request: RatingRequest
) -> pl.DataFrame:
    """:func:`polars_rank.evaluate_ratings` over two tables the engine holds (``by`` names
    checked): the checks of :func:`checked_inputs` with its messages, in its order, counted
    by the engine (one query; a second names a repeated pair), then the compiled query of
    :func:`~polars_rank.compiler.rating.rating_sql`; only the counts and the result rows
    come back."""
    rcolumns, pcolumns = _required(request)
    rschema = _require(ratings.schema, "ratings", rcolumns)
    pschema = _require(predictions.schema, "predictions", pcolumns)
    counts = _SqlCounts(engine, ratings.reference, predictions.reference, rschema, pschema, request)
    _check(counts, rschema, pschema, request)
    dialect: DialectName = engine.dialect.name  # type: ignore[assignment]
    sql = request_sql(request, dialect, ratings.reference, predictions.reference)
    return compiled_result(engine.result(sql), rschema, request)


def request_sql(
    request: RatingRequest, dialect: DialectName, ratings: str, predictions: str
) -> str:
    """:func:`polars_rank.rating_sql` of ``request`` in ``dialect`` over the table references
    ``ratings`` and ``predictions``: the one query every SQL engine runs."""
    from polars_rank.compiler.rating import rating_sql

    return rating_sql(
        request.specs,
        dialect,
        ratings,
        predictions,
        user=request.user,
        item=request.item,
        rating=request.rating,
        prediction=request.prediction,
        by=request.by or None,
        weight=request.weight,
    )


def _require(schema: pl.Schema, what: str, columns: Sequence[str]) -> pl.Schema:
    """:func:`~polars_rank.core.frames.require_columns` on a schema."""
    return require_columns(pl.LazyFrame(schema=schema), what, list(columns))


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
