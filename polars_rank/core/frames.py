"""Accepting a DataFrame or a LazyFrame (or a pandas DataFrame, a pyarrow Table) and giving
back the same kind."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, overload

import polars as pl

if TYPE_CHECKING:
    import pyarrow as pa

from polars_rank.core.errors import PolarsRankError

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)
T = TypeVar("T")

#: What the functions taking frames accept, for messages.
ACCEPTED = "a polars DataFrame or LazyFrame, a pandas DataFrame or a pyarrow Table"


def as_polars(obj: T, what: str | None = None) -> T | pl.DataFrame:
    """A pandas DataFrame or a pyarrow Table (or RecordBatch) as a Polars DataFrame; anything
    else unchanged. A pandas column that cannot be converted (an ``object`` column mixing
    text and numbers) is an error naming it (and ``what`` the frame is).

    ``pl.from_pandas`` and ``pl.from_arrow`` convert without a copy where the column types
    allow it (numbers, Arrow-backed columns); neither pandas nor pyarrow is imported here.

    >>> import pyarrow as pa
    >>> as_polars(pa.table({"query": ["q1"], "score": [0.5]})).schema
    Schema([('query', String), ('score', Float64)])
    >>> import pandas as pd
    >>> as_polars(pd.DataFrame({"query": ["q1", 2]}), "run")
    Traceback (most recent call last):
    ...
    polars_rank.core.errors.PolarsRankError: run: the pandas column 'query' (dtype object) mixes types (int, str) and cannot be converted; make it one type, e.g. df['query'] = df['query'].astype(str)
    """  # noqa: E501
    kind = type(obj)
    package = kind.__module__.partition(".")[0]
    if package == "pandas" and kind.__name__ == "DataFrame":
        try:
            return pl.from_pandas(obj)
        except (TypeError, ValueError, pl.exceptions.PolarsError) as err:  # pyarrow's errors
            raise _unconvertible(obj, what, err) from None
    if package == "pyarrow" and kind.__name__ in ("Table", "RecordBatch"):
        return from_arrow(obj)
    return obj


def from_arrow(table: pa.Table | pa.RecordBatch) -> pl.DataFrame:
    """``pl.from_arrow`` of a pyarrow Table or RecordBatch, which gives a DataFrame (an Arrow
    array would give a Series)."""
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame), "a Table or RecordBatch gives a DataFrame"
    return frame


def _unconvertible(frame: Any, what: str | None, err: Exception) -> PolarsRankError:
    """The error for a pandas DataFrame ``pl.from_pandas`` cannot convert: the first column
    that fails alone, with the Python types it mixes."""
    where = f"{what}: " if what else ""
    for name in frame.columns:
        try:
            pl.from_pandas(frame[[name]])
        except (TypeError, ValueError, pl.exceptions.PolarsError):
            values = frame[name]
            types = sorted({type(v).__name__ for v in values[values.notna()]})
            return PolarsRankError(
                f"{where}the pandas column {name!r} (dtype {values.dtype}) mixes types "
                f"({', '.join(types)}) and cannot be converted; make it one type, e.g. "
                f"df[{name!r}] = df[{name!r}].astype(str)"
            )
    first = " ".join(str(err).split()) or type(err).__name__
    return PolarsRankError(f"{where}the pandas DataFrame cannot be converted ({first})")


def to_lazy(frame: object, what: str) -> pl.LazyFrame:
    """``frame`` (a :data:`~polars_rank.core.types.FrameLike`) as a LazyFrame; a clear error
    for anything that is not a frame."""
    frame = as_polars(frame, what)
    if isinstance(frame, pl.LazyFrame):
        return frame
    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    raise TypeError(f"{what} must be {ACCEPTED}, got {type(frame).__name__}")


def to_frame(frame: object, what: str) -> pl.DataFrame:
    """``frame`` (a :data:`~polars_rank.core.types.FrameLike`) as a DataFrame (a LazyFrame is
    collected); a clear error otherwise."""
    frame = as_polars(frame, what)
    if isinstance(frame, pl.LazyFrame):
        return frame.collect()
    if isinstance(frame, pl.DataFrame):
        return frame
    raise TypeError(f"{what} must be {ACCEPTED}, got {type(frame).__name__}")


@overload
def like(result: pl.DataFrame | pl.LazyFrame, template: Frame) -> Frame: ...
@overload
def like(result: pl.DataFrame | pl.LazyFrame, template: object) -> pl.DataFrame | pl.LazyFrame: ...
def like(result: pl.DataFrame | pl.LazyFrame, template: object) -> pl.DataFrame | pl.LazyFrame:
    """``result`` as the kind of ``template``: lazy for a LazyFrame, a collected DataFrame for
    anything else (a DataFrame, pandas, pyarrow).

    >>> like(pl.LazyFrame({"a": [1]}), pl.DataFrame()).shape
    (1, 1)
    """
    if isinstance(template, pl.LazyFrame):
        return result.lazy() if isinstance(result, pl.DataFrame) else result
    return result.collect() if isinstance(result, pl.LazyFrame) else result


def require_columns(lf: pl.LazyFrame, what: str, columns: list[str]) -> pl.Schema:
    """``lf``'s schema, once every one of ``columns`` is in it; else an error naming the
    missing column, the table (``what``) and the columns it has.

    >>> require_columns(pl.LazyFrame({"a": [1]}), "ratings", ["a", "b"])
    Traceback (most recent call last):
    ...
    polars_rank.core.errors.PolarsRankError: column 'b' not found in the ratings; columns are ['a']
    """
    schema = lf.collect_schema()
    for column in dict.fromkeys(columns):
        if column not in schema:
            raise PolarsRankError(
                f"column {column!r} not found in the {what}; columns are {schema.names()}"
            )
    return schema
