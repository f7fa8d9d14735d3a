"""The checks of :func:`polars_rank.evaluate_diversity`, in Polars: columns present, no
NULL, numbers where numbers go, the same id types in both tables, no (query, doc) scored twice
nor (query, subtopic, doc) judged twice; and the checked tables as the plan reads them."""

from __future__ import annotations

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.core.frames import require_columns, to_lazy
from polars_rank.core.options import Queries
from polars_rank.core.types import FrameLike


def _columns(lf: pl.LazyFrame, what: str, names: dict[str, str]) -> pl.DataFrame:
    """``lf``'s columns ``names`` (ours → the caller's), renamed to ours, none NULL."""
    require_columns(lf, what, list(names.values()))
    frame = lf.select(pl.col(c).alias(ours) for ours, c in names.items()).collect()
    for ours, column in names.items():
        nulls = frame[ours].null_count()
        if nulls:
            raise PolarsRankError(f"{what} column {column!r} has {nulls} NULL values")
    return frame


def _number(frame: pl.DataFrame, what: str, ours: str, column: str) -> None:
    dtype = frame.schema[ours]
    if not dtype.is_numeric():
        raise PolarsRankError(f"{what} column {column!r} must hold numbers, got {dtype} values")
    if dtype.is_float() and frame[ours].is_nan().any():
        raise PolarsRankError(f"{what} column {column!r} has NaN values")


def _once(frame: pl.DataFrame, what: str, keys: list[str], shown: str) -> None:
    twice = frame.group_by(keys).len().filter(pl.col("len") > 1).sort(keys)
    if twice.height:
        raise PolarsRankError(
            f"the {what} have {twice.height} ({shown}) rows more than once, e.g. "
            f"{twice.row(0)[:-1]!r}: one row per ({shown})"
        )


def checked_inputs(
    run: FrameLike,
    qrels: FrameLike,
    columns: dict[str, str],
    relevance_level: float,
    queries: Queries,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """``(ranked, relevant, evaluated)``: the run as ``query, doc, rank`` (score descending,
    ties by doc id descending), the unique ``query, doc, subtopic`` judged relevant, and the
    ``query`` column of the queries to evaluate; ``columns`` maps ``query, doc, score,
    subtopic, relevance`` to the caller's names."""
    query, doc, score = columns["query"], columns["doc"], columns["score"]
    subtopic, relevance = columns["subtopic"], columns["relevance"]
    ranked = _columns(to_lazy(run, "run"), "run", {"query": query, "doc": doc, "score": score})
    judged = _columns(
        to_lazy(qrels, "qrels"),
        "qrels",
        {"query": query, "subtopic": subtopic, "doc": doc, "relevance": relevance},
    )
    _number(ranked, "run", "score", score)
    _number(judged, "qrels", "relevance", relevance)
    for ours, column in (("query", query), ("doc", doc)):
        if ranked.schema[ours] != judged.schema[ours]:
            raise PolarsRankError(
                f"column {column!r} has type {ranked.schema[ours]} in the run and "
                f"{judged.schema[ours]} in the qrels"
            )
    _once(ranked, "run", ["query", "doc"], f"{query}, {doc}")
    _once(judged, "qrels", ["query", "subtopic", "doc"], f"{query}, {subtopic}, {doc}")
    ranked = ranked.sort(["query", "score", "doc"], descending=[False, True, True]).select(
        "query", "doc", (pl.int_range(pl.len()).over("query") + 1).cast(pl.Int32).alias("rank")
    )
    relevant = judged.filter(pl.col("relevance") >= relevance_level).select(
        "query", "doc", "subtopic"
    )
    evaluated = judged.select("query").unique()
    if queries == "both":
        evaluated = evaluated.join(ranked.select("query").unique(), on="query")
    return ranked, relevant, evaluated
