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


def judgments(qrels: pl.LazyFrame, options: Options) -> pl.LazyFrame:
    """``query, doc, relevance`` with one row per ``(query, doc)`` (the duplicates policy)."""
    cols = options.columns
    return _dedupe(
        qrels.select(cols.query, cols.doc, cols.relevance), cols, cols.relevance, options.duplicates
    )


def empty_qrels(run_schema: pl.Schema, options: Options) -> pl.LazyFrame:
    """Judgments without a row, with the run's id dtypes (for an evaluation without qrels)."""
    cols = options.columns
    schema = {c: run_schema[c] for c in (cols.query, cols.doc) if c in run_schema}
    return pl.LazyFrame(schema={**schema, cols.relevance: pl.Int64})


def deduplicated_run(run: pl.LazyFrame, options: Options) -> pl.LazyFrame:
    """``query, doc, <score or rank>`` with one row per ``(query, doc)`` (the duplicates
    policy). ``options`` must be resolved."""
    cols, order_column = options.columns, options.order_column
    return _dedupe(
        run.select(cols.query, cols.doc, order_column), cols, order_column, options.duplicates
    )


def ranked_run(run: pl.LazyFrame, options: Options, doc_dtype: pl.DataType) -> pl.LazyFrame:
    """``query, doc, rank``: the run with one row per ``(query, doc)`` (the duplicates policy),
    ranked in trec_eval's order, cut at ``max_rank``. ``options`` must be resolved."""
    cols = options.columns
    run = deduplicated_run(run, options)
    ranked = run.with_columns(rank_expr(cols, options.order_by, doc_dtype))
    if options.max_rank is not None:
        ranked = ranked.filter(pl.col(cols.rank) <= options.max_rank)
    return ranked.select(cols.query, cols.doc, cols.rank)


def judged_table(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    options: Options,
    *,
    compact: bool = False,
    in_memory: bool = False,
    ranked: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """The judged table as a LazyFrame (see :func:`judge`), after the input checks.

    With ``compact=True`` only the rows every metric needs are kept: judged rows, and one
    unjudged row per query at rank = number retrieved (so that ``rank.max()`` still counts the
    retrieved documents; its doc is null). Every metric of :mod:`polars_rank.ranking.metrics`
    gives the same value on the compact and the full table. ``in_memory=True`` says the inputs
    are DataFrames, so the input checks may use the in-memory engine. ``ranked`` is
    :func:`ranked_run` of the same run and options when the caller has it already (it is then
    shared, and the checks are the caller's).
    """
    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()
    options = options.resolve(run_schema, qrels_schema)
    cols = options.columns
    if options.validate and ranked is None:
        validate(run, qrels, options, in_memory=in_memory)
    if ranked is None:
        ranked = ranked_run(run, options, run_schema[cols.doc])
    qrels = judgments(qrels, options)
    keys = [cols.query, cols.doc]
    if not compact:
        table = ranked.join(qrels, on=keys, how="full", coalesce=True, maintain_order="none")
        return table.select(cols.query, cols.doc, cols.rank, cols.relevance)

    # Compact: the judged retrieved rows (an inner join that probes the small qrels), one
    # synthetic unjudged row per query at rank = number retrieved (so rank.max() still counts the
    # retrieved documents), and the judged rows not retrieved (an anti-join against the few
    # judged retrieved rows). The ranked run is computed once and cached.
    retrieved = pl.len().over(cols.query).cast(pl.UInt32)
    ranked = ranked.cache()
    found = ranked.join(qrels, on=keys, how="inner", maintain_order="none").select(
        cols.query, cols.doc, cols.rank, cols.relevance
    )
    last = ranked.filter(pl.col(cols.rank) == retrieved).select(
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
