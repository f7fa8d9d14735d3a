""":func:`evaluate_diversity`: the diversity-by-intent metrics of the TREC Web track (ndeval,
as ``pyndeval`` and ir_measures run it) of a run against qrels with a subtopic column."""

from __future__ import annotations

from collections.abc import Sequence
from typing import get_args

import polars as pl

from polars_rank.core.errors import PolarsRankError, bad_choice, check_boolean
from polars_rank.core.frames import to_lazy
from polars_rank.core.options import Queries
from polars_rank.core.types import FrameLike
from polars_rank.diversity.names import parse_diversity_metrics
from polars_rank.diversity.plan import per_query as _per_query


def _columns(lf: pl.LazyFrame, what: str, names: dict[str, str]) -> pl.DataFrame:
    """``lf``'s columns ``names`` (ours → the caller's), renamed to ours, none NULL."""
    schema = lf.collect_schema()
    for column in names.values():
        if column not in schema:
            raise PolarsRankError(
                f"column {column!r} not found in the {what}; columns are {schema.names()}"
            )
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


def evaluate_diversity(
    run: FrameLike,
    qrels: FrameLike,
    metrics: str | Sequence[str] = ("alpha_ndcg@20", "err_ia@20", "nrbp"),
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
    relevance_level: float = 1,
    per_query: bool = False,
    queries: Queries = "qrels",
    query: str = "query",
    doc: str = "doc",
    score: str = "score",
    subtopic: str = "subtopic",
    relevance: str = "relevance",
) -> pl.DataFrame:
    """Diversity by intent, ndeval's metrics (TREC Web 2009–2012): ``alpha_ndcg@k``,
    ``alpha_dcg@k``, ``err_ia@k``, ``nerr_ia@k``, ``nrbp``, ``nnrbp``, ``p_ia@k``,
    ``subtopic_recall@k`` (ndeval's spellings ``alpha-nDCG@20``, ``ERR-IA@20``, ``strec@20``
    too), one Float64 column each, labelled as written.

    Conventions (ndeval's, checked against ``pyndeval`` to 1e-9):

    * the run is ranked by score descending, ties by doc id descending (trec_eval's order;
      ndeval breaks ties by doc id *ascending*: runs with tied scores may differ);
    * a judgment is relevant when ``relevance ≥ relevance_level`` (binary, grades above
      count as 1); a query's ``N`` subtopics are those with a relevant document — a
      subtopic with none is not counted;
    * uniform intents, ``alpha`` the chance a relevant document satisfies its intent,
      ``beta`` NRBP's patience; formulas in :mod:`polars_rank.diversity.plan`;
    * the normalised metrics divide by the greedy ideal ranking (each rank takes the
      document of largest gain, ties to the largest doc id);
    * ``queries`` as :func:`polars_rank.evaluate`: ``"qrels"`` (default) evaluates every
      query with judgments, one missing from the run scoring 0 (ir_measures' mean);
      ``"both"`` only the queries of the run that have judgments (pyndeval's queries, and
      trec_eval's without ``-c``). Run queries without judgments are never evaluated; a
      query with judgments but no relevant document scores 0 on every metric, nNRBP
      included (ndeval: NaN). The result is their mean, or one row per query with
      ``per_query``; no query to evaluate gives nulls (zero rows with ``per_query``).

    Runs on the Polars engine only: the greedy ideal ranking is not compiled to SQL.

    >>> run = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame(
    ...     {"query": ["q"] * 3, "subtopic": ["1", "2", "2"], "doc": ["b", "a", "b"],
    ...      "relevance": [1, 1, 1]}
    ... )
    >>> evaluate_diversity(run, qrels, ["alpha_ndcg@5", "subtopic_recall@1"]).rows()
    [(0.8406064155285841, 0.5)]
    """
    specs = parse_diversity_metrics(metrics)
    if queries not in get_args(Queries):
        raise bad_choice("queries", queries, get_args(Queries))
    for name, value, top in (("alpha", alpha, 1.0), ("beta", beta, 1.0)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise PolarsRankError(f"{name} must be a number, got {value!r}")
        if not 0.0 <= value < top:
            raise PolarsRankError(f"{name} must be in [0, 1), got {value!r}")
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
    values = _per_query(ranked, relevant, evaluated, specs, float(alpha), float(beta))
    if check_boolean("per_query", per_query):
        return values.rename({"query": query}) if query not in values.columns[1:] else values
    return values.select(pl.col(m.label).mean() for m in specs)
