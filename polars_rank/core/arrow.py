"""Moving frames between Polars and DuckDB through the Arrow PyCapsule interface.

DuckDB reads any object with an ``__arrow_c_stream__`` method, and a DuckDB relation has one
that Polars reads: the data crosses as Arrow C streams, without a copy and without pyarrow.
(DuckDB's own ``con.register(name, polars_frame)`` and ``relation.pl()`` convert through
pyarrow, which polars_rank does not need.)

>>> import duckdb
>>> con = duckdb.connect()
>>> register_frame(con, "t", pl.DataFrame({"x": [1, 2]}))
>>> to_polars(con.sql("SELECT max(x) + 1 AS y FROM t")).rows()
[(3,)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    import duckdb


class _ArrowStream:
    """A Polars DataFrame seen only through its Arrow C stream (DuckDB then reads the stream
    instead of converting the frame with pyarrow)."""

    __slots__ = ("_frame",)

    def __init__(self, frame: pl.DataFrame) -> None:
        # A column of dtype Null is exported without a validity bitmap, which DuckDB refuses;
        # all-null booleans carry the same values.
        nulls = [name for name, dtype in frame.schema.items() if dtype == pl.Null]
        self._frame = frame.with_columns(pl.col(nulls).cast(pl.Boolean)) if nulls else frame

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        frame = self._frame
        if frame.width and frame.n_chunks() > 1:
            # A DataFrame's own export first gathers each column into one chunk: a copy of
            # the whole frame when it was read in pieces (a Parquet file's row groups). A
            # struct Series of its columns exports chunk by chunk, without a copy, and its
            # stream is the frame's stream of record batches (a struct array per batch).
            return frame.to_struct().__arrow_c_stream__(requested_schema)
        return frame.__arrow_c_stream__(requested_schema)


def register_frame(con: duckdb.DuckDBPyConnection, name: str, frame: pl.DataFrame) -> None:
    """Make ``frame`` readable as the view ``name`` on the DuckDB connection ``con``."""
    con.register(name, _ArrowStream(frame))


class _RelationStream:
    """A DuckDB relation seen only through its Arrow C stream.

    ``pl.DataFrame(obj)`` remembers ``type(obj)`` for good (``polars._dependencies._might_be``
    is a ``functools.cache`` keyed by the class). Given a relation itself, that cache keeps
    DuckDB's relation class, and through it DuckDB's Python modules and their type objects,
    alive past DuckDB's own teardown: every process then ends with nanobind's "leaked ..."
    report on stderr. Polars remembers this class instead (its module holds nothing of
    DuckDB's)."""

    __slots__ = ("_relation",)

    def __init__(self, relation: Any) -> None:
        self._relation = relation

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._relation.__arrow_c_stream__(requested_schema)


def to_polars(relation: duckdb.DuckDBPyRelation) -> pl.DataFrame:
    """The result of a DuckDB relation as a Polars DataFrame (what ``relation.pl()`` gives,
    without pyarrow)."""
    return pl.DataFrame(_RelationStream(relation))
