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
    by: list[str] | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """``(ranked, relevant, evaluated)``: the run as ``query, doc, rank`` (score descending,
    ties by doc id descending), the unique ``query, doc, subtopic`` judged relevant, and the
    ``query`` column of the queries to evaluate; ``columns`` maps ``query, doc, score,
    subtopic, relevance`` to the caller's names.

    With ``by`` (columns of the run), each ``query`` is the struct of the ``by`` values and
    the query id, so that the plan evaluates every (segment, query) at once: judgments that
    have a ``by`` column belong to that segment (joined on it), those without are shared by
    every segment; the queries evaluated are each segment's."""
    by = by or []
    query, doc, score = columns["query"], columns["doc"], columns["score"]
    subtopic, relevance = columns["subtopic"], columns["relevance"]
    run_lf, qrels_lf = to_lazy(run, "run"), to_lazy(qrels, "qrels")
    segments = {f"__pr_by_{i}": c for i, c in enumerate(by)}
    qrels_schema = qrels_lf.collect_schema()
    shared = {k: c for k, c in segments.items() if c not in qrels_schema}
    ranked = _columns(run_lf, "run", {**segments, "query": query, "doc": doc, "score": score})
    judged = _columns(
        qrels_lf,
        "qrels",
        {
            **{k: c for k, c in segments.items() if k not in shared},
            "query": query,
            "subtopic": subtopic,
            "doc": doc,
            "relevance": relevance,
        },
    )
    _number(ranked, "run", "score", score)
    _number(judged, "qrels", "relevance", relevance)
    for ours, column in (("query", query), ("doc", doc)):
        if ranked.schema[ours] != judged.schema[ours]:
            raise PolarsRankError(
                f"column {column!r} has type {ranked.schema[ours]} in the run and "
                f"{judged.schema[ours]} in the qrels"
            )
    own = [k for k in segments if k not in shared]
    for key in own:
        if ranked.schema[key] != judged.schema[key]:
            raise PolarsRankError(
                f"by column {segments[key]!r} has type {ranked.schema[key]} in the run and "
                f"{judged.schema[key]} in the qrels"
            )
    names = [*segments.values(), query]
    _once(ranked, "run", [*segments, "query", "doc"], ", ".join([*names, doc]))
    _once(
        judged,
        "qrels",
        [*own, "query", "subtopic", "doc"],
        ", ".join([*(segments[k] for k in own), query, subtopic, doc]),
    )
    keys = [*segments, "query"]
    ranked = ranked.sort([*keys, "score", "doc"], descending=[*([False] * len(keys)), True, True])
    ranked = ranked.select(
        *keys, "doc", (pl.int_range(pl.len()).over(keys) + 1).cast(pl.Int32).alias("rank")
    )
    relevant = judged.filter(pl.col("relevance") >= relevance_level).select(
        *own, "query", "doc", "subtopic"
    )
    evaluated = judged.select(*own, "query").unique()
    if segments:
        # the segments are the run's (as evaluate's by): judged segments the run lacks are
        # left out, shared judgments go to every segment
        groups = ranked.select(list(segments)).unique()
        if own:
            relevant = groups.join(relevant, on=own)
            evaluated = groups.join(evaluated, on=own)
        else:
            relevant = groups.join(relevant, how="cross")
            evaluated = groups.join(evaluated, how="cross")
    if queries == "both":
        evaluated = evaluated.join(ranked.select(keys).unique(), on=keys)
    if not segments:
        return ranked, relevant, evaluated

    def keyed(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.with_columns(pl.struct(keys).alias("query")).drop(list(segments))

    return keyed(ranked), keyed(relevant), keyed(evaluated)
