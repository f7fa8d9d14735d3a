"""Accepting a DataFrame or a LazyFrame (or a pandas DataFrame, a pyarrow Table) and giving
back the same kind."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar, overload

import polars as pl

if TYPE_CHECKING:
    import pyarrow as pa

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)
T = TypeVar("T")

#: What the functions taking frames accept, for messages.
ACCEPTED = "a polars DataFrame or LazyFrame, a pandas DataFrame or a pyarrow Table"


def as_polars(obj: T) -> T | pl.DataFrame:
    """A pandas DataFrame or a pyarrow Table (or RecordBatch) as a Polars DataFrame; anything
    else unchanged.

    ``pl.from_pandas`` and ``pl.from_arrow`` convert without a copy where the column types
    allow it (numbers, Arrow-backed columns); neither pandas nor pyarrow is imported here.

    >>> import pyarrow as pa
    >>> as_polars(pa.table({"query": ["q1"], "score": [0.5]})).schema
    Schema([('query', String), ('score', Float64)])
    """
    kind = type(obj)
    package = kind.__module__.partition(".")[0]
    if package == "pandas" and kind.__name__ == "DataFrame":
        return pl.from_pandas(obj)
    if package == "pyarrow" and kind.__name__ in ("Table", "RecordBatch"):
        return from_arrow(obj)
    return obj


def from_arrow(table: pa.Table | pa.RecordBatch) -> pl.DataFrame:
    """``pl.from_arrow`` of a pyarrow Table or RecordBatch, which gives a DataFrame (an Arrow
    array would give a Series)."""
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame), "a Table or RecordBatch gives a DataFrame"
    return frame


def to_lazy(frame: object, what: str) -> pl.LazyFrame:
    """``frame`` (a :data:`~polars_rank.core.types.FrameLike`) as a LazyFrame; a clear error
    for anything that is not a frame."""
    frame = as_polars(frame)
    if isinstance(frame, pl.LazyFrame):
        return frame
    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    raise TypeError(f"{what} must be {ACCEPTED}, got {type(frame).__name__}")


def to_frame(frame: object, what: str) -> pl.DataFrame:
    """``frame`` (a :data:`~polars_rank.core.types.FrameLike`) as a DataFrame (a LazyFrame is
    collected); a clear error otherwise."""
    frame = as_polars(frame)
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
