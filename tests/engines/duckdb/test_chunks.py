"""Frames read in pieces (a Parquet file's row groups) go to DuckDB chunk by chunk: the
same values as the frame in one piece, and the caller's frame keeps its chunks."""

import duckdb
import polars as pl

import polars_rank as pr
from polars_rank.core.arrow import register_frame, to_polars

RUN = pl.DataFrame(
    {
        "query": ["q1", "q1", "q1", "q2", "q2"],
        "doc": ["a", "b", "c", "a", "d"],
        "score": [3.0, 2.0, 1.0, 1.0, 2.0],
        "empty": [None] * 5,  # a Null column, exported as booleans
    }
)
QRELS = pl.DataFrame({"query": ["q1", "q2"], "doc": ["c", "a"], "relevance": [1, 2]})


def _in_pieces(frame: pl.DataFrame, sizes: list[int]) -> pl.DataFrame:
    parts, start = [], 0
    for size in sizes:
        parts.append(frame.slice(start, size))
        start += size
    return pl.concat(parts, rechunk=False)


def test_a_frame_in_pieces_reads_as_in_one_piece():
    pieces = _in_pieces(RUN, [2, 1, 2])
    assert pieces.n_chunks() == 3
    con = duckdb.connect()
    register_frame(con, "t", pieces)
    got = to_polars(con.sql("SELECT * FROM t"))
    assert got.rows() == RUN.with_columns(pl.col("empty").cast(pl.Boolean)).rows()
    assert got.columns == RUN.columns
    assert pieces.n_chunks() == 3  # not gathered in place


def test_evaluate_on_a_frame_in_pieces():
    pieces = _in_pieces(RUN.drop("empty"), [1, 3, 1])
    # q1: c (relevant) at rank 3: RR 1/3; q2: a (grade 2) at rank 2 (d scores 2.0): RR 1/2
    got = pr.evaluate(pieces, QRELS, ["RR"], engine="duckdb", per_query=True)
    assert got.rows() == [("q1", 1 / 3), ("q2", 0.5)]
    assert pieces.n_chunks() == 3
