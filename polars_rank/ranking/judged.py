"""The judged table: a run ranked in trec_eval's order with its judgments attached.

``query, doc, rank, relevance`` holds every retrieved document with its 1-based rank and its
judgment (null if unjudged), plus every judged document that was not retrieved, with a null
rank. Every metric reads this table (ordering and judging: :mod:`.conventions`).
"""

from __future__ import annotations

import polars as pl

from polars_rank._frames import as_polars, like, to_lazy
from polars_rank.ranking.conventions import Columns, OrderBy, rank_expr
from polars_rank.ranking.options import Duplicates, Options
from polars_rank.ranking.validation import validate


def _dedupe(frame: pl.LazyFrame, cols: Columns, value: str, policy: Duplicates) -> pl.LazyFrame:
    keys = [cols.query, cols.doc]
    if policy == "first":
        return frame.unique(subset=keys, keep="first", maintain_order=True)
    if policy == "max":
        return frame.group_by(keys).agg(pl.col(value).max())
    return frame


def judged_table(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    options: Options,
    *,
    compact: bool = False,
    in_memory: bool = False,
) -> pl.LazyFrame:
    """The judged table as a LazyFrame (see :func:`judge`), after the input checks.

    With ``compact=True`` only the rows every metric needs are kept: judged rows, and one
    unjudged row per query at rank = number retrieved (so that ``rank.max()`` still counts the
    retrieved documents; its doc is null). Every metric of :mod:`polars_rank.ranking.metrics`
    gives the same value on the compact and the full table. ``in_memory=True`` says the inputs
    are DataFrames, so the input checks may use the in-memory engine.
    """
    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()
    options = options.resolve(run_schema, qrels_schema)
    cols, order_column = options.columns, options.order_column
    if options.validate:
        validate(run, qrels, options, in_memory=in_memory)

    run = _dedupe(
        run.select(cols.query, cols.doc, order_column), cols, order_column, options.duplicates
    )
    qrels = _dedupe(
        qrels.select(cols.query, cols.doc, cols.relevance), cols, cols.relevance, options.duplicates
    )
    rank = rank_expr(cols, options.order_by, run_schema[cols.doc])
    keys = [cols.query, cols.doc]
    max_rank = options.max_rank
    if not compact:
        ranked = run.with_columns(rank).select(cols.query, cols.doc, cols.rank)
        if max_rank is not None:
            ranked = ranked.filter(pl.col(cols.rank) <= max_rank)
        table = ranked.join(qrels, on=keys, how="full", coalesce=True, maintain_order="none")
        return table.select(cols.query, cols.doc, cols.rank, cols.relevance)

    # Compact: the judged retrieved rows (an inner join that probes the small qrels), one
    # synthetic unjudged row per query at rank = number retrieved (so rank.max() still counts the
    # retrieved documents), and the judged rows not retrieved (an anti-join against the few
    # judged retrieved rows). The ranked run is computed once and cached.
    retrieved = pl.len().over(cols.query).cast(pl.UInt32)
    if max_rank is not None:
        retrieved = pl.min_horizontal(retrieved, pl.lit(max_rank, pl.UInt32))
    ranked = run.with_columns(rank, retrieved.alias("__retrieved"))
    if max_rank is not None:
        ranked = ranked.filter(pl.col(cols.rank) <= max_rank)
    ranked = ranked.cache()
    found = ranked.join(qrels, on=keys, how="inner", maintain_order="none").select(
        cols.query, cols.doc, cols.rank, cols.relevance
    )
    last = ranked.filter(pl.col(cols.rank) == pl.col("__retrieved")).select(
        cols.query,
        pl.lit(None, run_schema[cols.doc]).alias(cols.doc),
        cols.rank,
        pl.lit(None, qrels_schema[cols.relevance]).alias(cols.relevance),
    )
    missed = qrels.join(found.select(keys), on=keys, how="anti").select(
        cols.query, cols.doc, pl.lit(None, pl.UInt32).alias(cols.rank), cols.relevance
    )
    # rank order within each query makes every sum run in rank order (repeatable results)
    return pl.concat([found, last, missed], how="vertical").sort(cols.rank, nulls_last=True)


def judge(
    run: pl.DataFrame | pl.LazyFrame,
    qrels: pl.DataFrame | pl.LazyFrame,
    *,
    query: str = "query",
    doc: str = "doc",
    score: str = "score",
    rank: str = "rank",
    relevance: str = "relevance",
    order_by: OrderBy | None = None,
    max_rank: int | None = None,
    duplicates: Duplicates = "error",
    validate: bool = True,
) -> pl.DataFrame | pl.LazyFrame:
    """Rank a run as trec_eval does and attach the judgments: the table every metric reads.

    Returns ``query, doc, rank, relevance``: every retrieved document with its 1-based rank
    (score descending, ties by doc id descending as text) and its judgment (null if unjudged),
    plus every judged document that was not retrieved, with a null rank. DataFrame in,
    DataFrame out; LazyFrame in, LazyFrame out (validation then reads the inputs once).

    Args:
        run: ``query, doc`` and ``score`` (higher is better) and/or ``rank`` (1 is best).
        qrels: ``query, doc, relevance`` (grade; 0 judged non-relevant; negative judged, never
            relevant).
        order_by: ``"score"`` (trec_eval; the default when the run has scores) or ``"rank"``
            (the run's own rank column, ascending; ties by doc id descending).
        max_rank: keep only the top ``max_rank`` documents per query (trec_eval ``-M``).
        duplicates: a repeated ``(query, doc)`` is an error (default), or keep the ``"first"``
            row, or the ``"max"`` one (highest score, best given rank, highest grade).
        validate: check nulls, NaNs and duplicates first (one pass over each input).

    Example:
        >>> import polars as pl, polars_rank as pr
        >>> run = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [1.0, 1.0]})
        >>> qrels = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "c"], "relevance": [1, 2]})
        >>> pr.judge(run, qrels).rows()
        [('q', 'b', 1, None), ('q', 'a', 2, 1), ('q', 'c', None, 2)]
    """
    options = Options.from_arguments(
        query=query,
        doc=doc,
        score=score,
        rank=rank,
        relevance=relevance,
        order_by=order_by,
        max_rank=max_rank,
        duplicates=duplicates,
        validate=validate,
    )
    run, qrels = as_polars(run), as_polars(qrels)
    table = judged_table(
        to_lazy(run, "run"),
        to_lazy(qrels, "qrels"),
        options,
        in_memory=isinstance(run, pl.DataFrame) and isinstance(qrels, pl.DataFrame),
    )
    return like(table.sort(query, rank, nulls_last=True, maintain_order=True), run)
