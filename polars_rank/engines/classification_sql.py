""":func:`polars_rank.evaluate_classification` by the compiled SQL of
:func:`polars_rank.compiler.classification.classification_sql`, in any engine that can hold a
Polars frame as a table and run a query on it (``execute``): DuckDB (with sample weights,
which its macros do not take) and ClickHouse.

The ``by`` values are numbered in Polars (one segment number per distinct tuple, NULLs a
segment of their own) and the query groups by that number, so that they come back in their
own types whatever the engine's types are; the result has one row per segment (sorted,
NULLs first) and one Float64 column per metric, named by its label."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from polars_rank.catalog.names import MetricSpec

#: The segment number's column.
SEGMENT = "__cls_segment"

#: How an engine runs a query on a frame: the frame held as a table, the query built for that
#: table's reference (the function's argument), its result as a Polars frame.
Execute = Callable[[pl.DataFrame, Callable[[str], str]], pl.DataFrame]


def evaluate_compiled(
    frame: pl.DataFrame,
    specs: list[MetricSpec],
    *,
    label: str,
    score: str,
    by: list[str],
    group: list[str],
    weight: str | None,
    dialect: str,
    execute: Execute,
) -> pl.DataFrame:
    """What :func:`polars_rank.evaluate_classification` gives, from the compiled query in
    ``dialect`` run by ``execute`` over ``frame`` (the checked predictions)."""
    from polars_rank.compiler.classification import classification_sql
    from polars_rank.compiler.columns import column_names

    keys = frame.select(by).unique(maintain_order=True).with_row_index(SEGMENT)
    if by:  # without by, no segment: one row even for no rows (as in Polars)
        frame = frame.join(keys, on=by, how="left", nulls_equal=True, maintain_order="left")

    def sql(table: str) -> str:
        return classification_sql(
            specs,
            dialect,  # type: ignore[arg-type]
            table,
            label=label,
            score=score,
            by=SEGMENT if by else None,
            group=group or None,
            weight=weight,
        )

    values = execute(frame, sql)
    names = column_names(specs, reserved=[SEGMENT])
    values = values.rename({v: k for k, v in names.items()})
    if by:
        values = values.cast({SEGMENT: pl.UInt32})
        out = keys.join(values, on=SEGMENT, how="left").select(*by, *(s.label for s in specs))
        return out.sort(by, nulls_last=False, maintain_order=True)
    return values.select(s.label for s in specs)
