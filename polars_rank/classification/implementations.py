"""The frame-level classification functions' engines: the Polars implementation
(:mod:`polars_rank.classification.frames`, one lazy plan) and the DuckDB one (the table macros
of ``sql/classification.sql``). Each is a :class:`FrameFunctions` that names its engine; the
public functions (:func:`polars_rank.classification.roc_curve`, ...) look one up by the
``engine`` argument and call it, so that no function chooses by comparing engine names.

Every method takes the checked input as a LazyFrame and returns the engine's frame; the
caller gives it back in the input's kind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

import duckdb
import polars as pl

from polars_rank.classification import frames as _frames
from polars_rank.classification.binary import check_zero_division
from polars_rank.core.errors import PolarsRankError, bad_choice
from polars_rank.core.frames import to_lazy
from polars_rank.duckdb import read_input, table_macro

if TYPE_CHECKING:
    from polars_rank.core.types import FrameLike

#: A DuckDB connection, or None for the package's in-memory database.
Con = duckdb.DuckDBPyConnection | None
#: What an implementation returns.
Out = pl.DataFrame | pl.LazyFrame


class FrameFunctions:
    """One engine's frame-level classification functions (see the module docstring)."""

    #: The ``engine=`` name.
    engine: ClassVar[str]

    def read(self, df: object, con: Con) -> tuple[pl.LazyFrame, Out]:
        """The input as a LazyFrame, and the template of the result's kind: the frame
        itself (a Polars frame in, the same kind out)."""
        if isinstance(df, str | duckdb.DuckDBPyRelation):
            what = repr(df) if isinstance(df, str) else "a DuckDB relation"
            raise PolarsRankError(
                f"df {what}: a table or view name, a DuckDB relation or a .parquet path is "
                f"read by engine='duckdb' (with con); engine={self.engine!r} takes a Polars "
                "frame"
            )
        frame = cast("FrameLike", df)
        return to_lazy(frame, "the input"), cast("Out", frame)

    def curve(
        self,
        lf: pl.LazyFrame,
        kind: str,
        label: str,
        score: str,
        groups: list[str],
        drop_intermediate: bool,
        con: Con,
    ) -> Out:
        """``kind`` is ``roc_curve`` or ``precision_recall_curve``."""
        raise NotImplementedError

    def group_auc(
        self,
        lf: pl.LazyFrame,
        groups: list[str],
        label: str,
        score: str,
        weight: str,
        con: Con,
    ) -> Out:
        raise NotImplementedError

    def confusion_matrix(
        self,
        lf: pl.LazyFrame,
        actual: str,
        predicted: str,
        groups: list[str],
        con: Con,
    ) -> Out:
        raise NotImplementedError

    def classification_report(
        self,
        lf: pl.LazyFrame,
        actual: str,
        predicted: str,
        groups: list[str],
        zero_division: float,
        con: Con,
    ) -> Out:
        raise NotImplementedError


class PolarsFrames(FrameFunctions):
    """:mod:`polars_rank.classification.frames`: lazy in, lazy out."""

    engine = "polars"

    def curve(
        self,
        lf: pl.LazyFrame,
        kind: str,
        label: str,
        score: str,
        groups: list[str],
        drop_intermediate: bool,
        con: Con,
    ) -> Out:
        curves = {
            "roc_curve": _frames.roc_curve,
            "precision_recall_curve": _frames.precision_recall_curve,
        }
        return curves[kind](lf, label, score, groups, drop_intermediate)

    def group_auc(
        self, lf: pl.LazyFrame, groups: list[str], label: str, score: str, weight: str, con: Con
    ) -> Out:
        return _frames.group_auc(lf, groups, label, score, weight)

    def confusion_matrix(
        self, lf: pl.LazyFrame, actual: str, predicted: str, groups: list[str], con: Con
    ) -> Out:
        return _frames.confusion_matrix(lf, actual, predicted, groups)

    def classification_report(
        self,
        lf: pl.LazyFrame,
        actual: str,
        predicted: str,
        groups: list[str],
        zero_division: float,
        con: Con,
    ) -> Out:
        return _frames.classification_report(lf, actual, predicted, groups, zero_division)


def _sorted(df: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Groups in key order (nulls first), rows within a group kept as the engine gave them."""
    return df.sort(by, nulls_last=False, maintain_order=True) if by else df


def run_table_macro(
    frame: pl.DataFrame,
    macro: str,
    args: list[object],
    named: dict[str, object],
    con: duckdb.DuckDBPyConnection | None,
) -> pl.DataFrame:
    """:func:`polars_rank.duckdb.table_macro` with the macros of ``classification.sql``."""
    return table_macro(frame, macro, args, named, con, ["classification.sql"])


class MacroFrames(FrameFunctions):
    """The table macros of ``sql/classification.sql`` on a cursor of ``con`` (or the
    package's in-memory database); it also reads a table or view name on ``con``, a DuckDB
    relation or a ``.parquet`` path (:func:`polars_rank.duckdb.read_input`), and returns a
    DataFrame."""

    engine = "duckdb"

    def read(self, df: object, con: Con) -> tuple[pl.LazyFrame, Out]:
        if not isinstance(df, str | duckdb.DuckDBPyRelation):
            frame = cast("FrameLike", df)
            return to_lazy(frame, "the input"), cast("Out", frame)
        return to_lazy(cast("FrameLike", read_input(df, "df", con)), "df"), pl.DataFrame()

    def curve(
        self,
        lf: pl.LazyFrame,
        kind: str,
        label: str,
        score: str,
        groups: list[str],
        drop_intermediate: bool,
        con: Con,
    ) -> Out:
        frame = lf.select(*groups, label, score).collect()
        options = {"by_cols": groups, "drop_intermediate": drop_intermediate}
        return _sorted(run_table_macro(frame, f"cls_{kind}", [label, score], options, con), groups)

    def group_auc(
        self, lf: pl.LazyFrame, groups: list[str], label: str, score: str, weight: str, con: Con
    ) -> Out:
        # each group numbered here, as Polars compares them: no collation of con merges two
        key = "__cls_group"
        numbers = lf.select(groups).unique(maintain_order=True).with_row_index(key)
        frame = lf.join(numbers, on=groups, how="left", nulls_equal=True, maintain_order="left")
        frame = frame.select(key, label, score)
        return run_table_macro(
            frame.collect(), "cls_group_auc", [key, label, score], {"weight": weight}, con
        )

    def confusion_matrix(
        self, lf: pl.LazyFrame, actual: str, predicted: str, groups: list[str], con: Con
    ) -> Out:
        frame = lf.select(*groups, actual, predicted).collect()
        out = run_table_macro(
            frame, "cls_confusion_matrix", [actual, predicted], {"by_cols": groups}, con
        )
        return _sorted(out, groups)

    def classification_report(
        self,
        lf: pl.LazyFrame,
        actual: str,
        predicted: str,
        groups: list[str],
        zero_division: float,
        con: Con,
    ) -> Out:
        frame = lf.select(*groups, actual, predicted).collect()
        out = run_table_macro(
            frame,
            "cls_classification_report",
            [actual, predicted],
            {"by_cols": groups, "zero_division": check_zero_division(zero_division)},
            con,
        )
        return _sorted(out, groups)


#: The implementations by engine name.
IMPLEMENTATIONS: dict[str, FrameFunctions] = {
    impl.engine: impl for impl in (PolarsFrames(), MacroFrames())
}


def implementation(engine: object) -> FrameFunctions:
    """The frame functions of ``engine``; another name is an error listing the engines."""
    found = IMPLEMENTATIONS.get(engine) if isinstance(engine, str) else None
    if found is None:
        raise bad_choice("engine", engine, IMPLEMENTATIONS)
    return found
