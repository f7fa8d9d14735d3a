"""``evaluate``: a run against judgments, many metrics, one lazy plan."""

from __future__ import annotations

import math
import warnings
from typing import Literal

import polars as pl

from polars_rank._conventions import Columns, Duplicates, OrderBy, judged_table
from polars_rank._errors import PolarsRankError
from polars_rank._frames import like, to_lazy
from polars_rank._names import MetricSpec, parse_metrics

Queries = Literal["qrels", "both"]
Engine = Literal["polars", "duckdb"]

#: trec_eval's floor for the geometric mean of AP (gm_map).
GM_FLOOR = 1e-5

_IN_RUN = "__in_run"
_JUDGED = "__judged"


def aggregate_expr(spec: MetricSpec) -> pl.Expr:
    """How one metric's per-query values become the summary value."""
    column = pl.col(spec.label)
    if spec.aggregate == "sum":
        return column.sum().cast(pl.Float64)
    if spec.aggregate == "gmean":
        return column.clip(lower_bound=GM_FLOOR).log(math.e).mean().exp()
    return column.mean()


def _left_out_message(count: int) -> str:
    return (
        f"{count} quer{'y' if count == 1 else 'ies'} in the run "
        f"{'has' if count == 1 else 'have'} no judgments and "
        f"{'was' if count == 1 else 'were'} not evaluated"
    )


def _warn_left_out(count: pl.Series) -> pl.Series:
    n = int(count.sum() or 0)
    if n:
        warnings.warn(_left_out_message(n), stacklevel=2)
    return count


def evaluate(
    run: pl.DataFrame | pl.LazyFrame,
    qrels: pl.DataFrame | pl.LazyFrame,
    metrics: list[str] | tuple[str, ...] | str,
    *,
    per_query: bool = False,
    engine: Engine = "polars",
    queries: Queries = "qrels",
    relevance_level: float = 1,
    query: str = "query",
    doc: str = "doc",
    score: str = "score",
    rank: str = "rank",
    relevance: str = "relevance",
    order_by: OrderBy | None = None,
    max_rank: int | None = None,
    duplicates: Duplicates = "error",
    validate: bool = True,
    con=None,
) -> pl.DataFrame | pl.LazyFrame:
    """Evaluate a run against judgments.

    Args:
        run: ``query, doc, score`` (and/or ``rank``), a DataFrame or LazyFrame.
        qrels: ``query, doc, relevance``.
        metrics: names such as ``["nDCG@10", "RR@10", "AP", "P(rel=2)@5", "ndcg_cut.10"]``
            (see the README's metric table).
        per_query: one row per query (sorted by query) instead of one summary row.
        engine: ``"polars"`` (lazy in, lazy out) or ``"duckdb"`` (one SQL query).
        queries: ``"qrels"`` (default; every query with judgments counts, a query missing from
            the run scores 0, as trec_eval ``-c``, ir_measures and MS MARCO) or ``"both"``
            (only queries in both the run and the qrels, as trec_eval without ``-c``,
            pytrec_eval and BEIR). Run queries without judgments are never evaluated; a warning
            says how many were left out.
        relevance_level: grades ``>=`` this are relevant (trec_eval ``-l``); a metric's own
            ``(rel=N)`` wins.
        order_by, max_rank, duplicates, validate: see :func:`polars_rank.judge`.
        con: a DuckDB connection for ``engine="duckdb"`` (a fresh in-memory one by default).

    Returns:
        One row with one column per metric, named as written (mean over queries; counts such
        as ``NumRet`` are summed and ``gm_map`` is a geometric mean, as in trec_eval), or with
        ``per_query=True`` a ``query`` column plus one column per metric.

    Example:
        >>> import polars as pl, polars_rank as pr
        >>> run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
        >>> qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
        >>> pr.evaluate(run, qrels, ["RR", "P@1"]).rows()
        [(0.5, 0.0)]
    """
    specs = parse_metrics(metrics)
    if queries not in ("qrels", "both"):
        raise PolarsRankError(f"queries must be 'qrels' or 'both', got {queries!r}")
    if engine == "duckdb":
        from polars_rank._duckdb_engine import evaluate_duckdb

        return evaluate_duckdb(
            run,
            qrels,
            specs,
            per_query=per_query,
            queries=queries,
            relevance_level=relevance_level,
            cols=Columns(query=query, doc=doc, score=score, rank=rank, relevance=relevance),
            order_by=order_by,
            max_rank=max_rank,
            duplicates=duplicates,
            validate=validate,
            con=con,
        )
    if engine != "polars":
        raise PolarsRankError(f"engine must be 'polars' or 'duckdb', got {engine!r}")
    cols = Columns(query=query, doc=doc, score=score, rank=rank, relevance=relevance)
    for spec in specs:
        if spec.label in (query, _IN_RUN, _JUDGED):
            raise PolarsRankError(f"metric name {spec.label!r} clashes with a column name")
    table = judged_table(
        to_lazy(run, "run"),
        to_lazy(qrels, "qrels"),
        cols,
        order_by=order_by,
        max_rank=max_rank,
        duplicates=duplicates,
        validate_input=validate,
        compact=True,
        in_memory=isinstance(run, pl.DataFrame) and isinstance(qrels, pl.DataFrame),
    )
    result = per_query_values(table, specs, cols, relevance_level=relevance_level, queries=queries)
    if not per_query:
        result = result.select(aggregate_expr(s) for s in specs)
    return like(result, run)


def per_query_values(
    table: pl.LazyFrame,
    specs: list[MetricSpec],
    cols: Columns,
    *,
    relevance_level: float = 1,
    queries: Queries = "qrels",
) -> pl.LazyFrame:
    """Per-query metric values from a judged table, for the queries that count.

    Warns (when the plan runs) how many run queries have no judgments and were left out.
    """
    exprs = [
        s.expr(relevance_level=relevance_level, rank=cols.rank, relevance=cols.relevance)
        for s in specs
    ]
    grouped = table.group_by(cols.query).agg(
        pl.col(cols.rank).is_not_null().any().alias(_IN_RUN),
        pl.col(cols.relevance).is_not_null().any().alias(_JUDGED),
        *exprs,
    )
    left_out = (pl.col(_IN_RUN) & ~pl.col(_JUDGED)).sum()
    grouped = grouped.with_columns(
        left_out.map_batches(_warn_left_out, return_dtype=pl.UInt32, returns_scalar=True).alias(
            "__left_out"
        )
    )
    keep = pl.col(_JUDGED) if queries == "qrels" else pl.col(_JUDGED) & pl.col(_IN_RUN)
    # reading the warning column in the filter keeps the optimiser from pruning it
    keep = keep & pl.col("__left_out").is_not_null()
    return grouped.filter(keep).select(cols.query, *[s.label for s in specs]).sort(cols.query)
