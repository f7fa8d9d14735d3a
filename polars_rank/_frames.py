"""Accepting a DataFrame or a LazyFrame and giving back the same kind."""

from __future__ import annotations

from typing import TypeVar

import polars as pl

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)


def to_lazy(frame: pl.DataFrame | pl.LazyFrame, what: str) -> pl.LazyFrame:
    """``frame`` as a LazyFrame; a clear error for anything that is not a Polars frame."""
    if isinstance(frame, pl.LazyFrame):
        return frame
    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    raise TypeError(f"{what} must be a polars DataFrame or LazyFrame, got {type(frame).__name__}")


def like(
    result: pl.DataFrame | pl.LazyFrame, template: pl.DataFrame | pl.LazyFrame
) -> pl.DataFrame | pl.LazyFrame:
    """``result`` as the kind of ``template``: collected when it is eager, lazy otherwise.

    >>> like(pl.LazyFrame({"a": [1]}), pl.DataFrame()).shape
    (1, 1)
    """
    if isinstance(template, pl.LazyFrame):
        return result.lazy() if isinstance(result, pl.DataFrame) else result
    return result.collect() if isinstance(result, pl.LazyFrame) else result
