"""Small helpers for accepting DataFrame or LazyFrame input and returning the same kind."""

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
    result: pl.LazyFrame, template: pl.DataFrame | pl.LazyFrame
) -> pl.DataFrame | pl.LazyFrame:
    """Collect ``result`` when ``template`` is eager; keep it lazy otherwise."""
    return result if isinstance(template, pl.LazyFrame) else result.collect()


def schema_of(frame: pl.LazyFrame) -> pl.Schema:
    """The frame's schema without running the plan."""
    return frame.collect_schema()
