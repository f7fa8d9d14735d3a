"""The one place that defines polars_rank's conventions.

Everything that decides *which* documents are ranked where, and *what* a judgment means, lives
here; metrics only read the judged table this module produces.

* **Ordering** (trec_eval 10.0): score descending; ties broken by document id descending,
  compared as text bytes, so doc ``"9"`` ranks above doc ``"10"`` when they tie, also when the
  ids are integers. A ``rank`` column in a run that has scores is ignored unless
  ``order_by="rank"`` (ranks ascending, ties again by document id descending).
* **Judging**: relevance ``>= relevance_level`` is relevant; ``0 <= relevance < level`` is judged
  non-relevant; a negative relevance is judged but never relevant and never gain (trec_eval's
  "unjudged in pool"); a retrieved document with no judgment has a null relevance.
* **The judged table**: ``query, doc, rank, relevance`` holding every retrieved document with its
  1-based rank and its judgment (null if unjudged), plus every judged document that was not
  retrieved, with a null rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from polars_rank._errors import PolarsRankError
from polars_rank._frames import like, to_lazy

OrderBy = Literal["score", "rank"]
Duplicates = Literal["error", "first", "max"]


@dataclass(frozen=True)
class Columns:
    """Column names of the run, the qrels and the judged table."""

    query: str = "query"
    doc: str = "doc"
    score: str = "score"
    rank: str = "rank"
    relevance: str = "relevance"


def relevant(relevance: pl.Expr, relevance_level: float) -> pl.Expr:
    """True where a judgment counts as relevant: ``relevance >= level`` and never negative."""
    return ((relevance >= relevance_level) & (relevance >= 0)).fill_null(False)


def judged_nonrelevant(relevance: pl.Expr, relevance_level: float) -> pl.Expr:
    """True where a judgment counts as non-relevant: ``0 <= relevance < level``."""
    return ((relevance >= 0) & (relevance < relevance_level)).fill_null(False)


def doc_order_key(doc: str, dtype: pl.DataType) -> pl.Expr:
    """The document id as text, the key trec_eval breaks score ties with (bytes, descending)."""
    return pl.col(doc) if dtype == pl.String else pl.col(doc).cast(pl.String)


# --------------------------------------------------------------------------------------------
# validation


def _require(schema: pl.Schema, names: list[str], what: str) -> None:
    missing = [n for n in names if n not in schema]
    if missing:
        raise PolarsRankError(
            f"{what} has no column {missing[0]!r}; its columns are {list(schema.names())}"
            " (pass the column names as parameters, e.g. query='qid', doc='docno')"
        )


def _check_dtypes(run_schema: pl.Schema, qrels_schema: pl.Schema, cols: Columns, by: str) -> None:
    for name in (cols.query, cols.doc):
        a, b = run_schema[name], qrels_schema[name]
        if a != b:
            raise PolarsRankError(
                f"run column {name!r} is {a} but qrels column {name!r} is {b}; "
                "ids must have the same dtype in both (cast one of them)"
            )
    by_dtype = run_schema[by]
    if not by_dtype.is_numeric():
        raise PolarsRankError(f"run column {by!r} must be numeric, got {by_dtype}")
    rel_dtype = qrels_schema[cols.relevance]
    if not rel_dtype.is_numeric():
        raise PolarsRankError(f"qrels column {cols.relevance!r} must be numeric, got {rel_dtype}")


def _first_bad(frame: pl.LazyFrame, bad: pl.Expr, cols: Columns, label: str) -> pl.LazyFrame:
    """One-row summary: how many rows are bad and where the first one is."""
    return frame.select(
        pl.lit(label).alias("check"),
        bad.sum().cast(pl.Int64).alias("count"),
        bad.arg_true().first().cast(pl.Int64).alias("row"),
        pl.col(cols.query).filter(bad).first().cast(pl.String).alias("query"),
        pl.col(cols.doc).filter(bad).first().cast(pl.String).alias("doc"),
    )


def _pair_hash(cols: Columns) -> pl.Expr:
    """A 64-bit hash of ``(query, doc)``: equal pairs give equal hashes; a collision (or a
    swapped pair, query a doc b vs query b doc a) only sends the table to the exact check."""
    return pl.col(cols.query).hash(seed=1) ^ pl.col(cols.doc).hash(seed=2)


def _problem_count(
    frame: pl.LazyFrame, cols: Columns, value: str, dtype: pl.DataType, duplicates: Duplicates
) -> pl.LazyFrame:
    """The fast pre-check, one pass: null ids + null/NaN values + (rows − distinct pair hashes).

    0 proves the table is clean; anything else sends it to the exact checks, which find the
    first problem and tell a real duplicate from a hash collision.
    """
    null_id = pl.col(cols.query).is_null() | pl.col(cols.doc).is_null()
    counts = [
        null_id.sum().cast(pl.Int64),
        _is_bad_number(value, dtype).sum().cast(pl.Int64),
    ]
    if duplicates == "error":
        counts.append((pl.len() - _pair_hash(cols).n_unique()).cast(pl.Int64))
    return frame.select(pl.sum_horizontal(counts).alias("problems"))


def _pair_hash_collisions(frame: pl.LazyFrame, cols: Columns, label: str) -> pl.LazyFrame:
    """Rows minus distinct 64-bit hashes of ``(query, doc)``, in the checks' format."""
    return frame.select(
        pl.lit(label).alias("check"),
        (pl.len() - _pair_hash(cols).n_unique()).cast(pl.Int64).alias("count"),
    )


def _duplicate_example(frame: pl.LazyFrame, cols: Columns, label: str) -> pl.LazyFrame:
    """Count of duplicated ``(query, doc)`` pairs and the first one, in the check's format."""
    keys = [cols.query, cols.doc]
    return (
        frame.select(keys)
        .group_by(keys)
        .len()
        .filter(pl.col("len") > 1)
        .select(
            pl.lit(label).alias("check"),
            pl.len().cast(pl.Int64).alias("count"),
            pl.lit(None, pl.Int64).alias("row"),
            pl.col(cols.query).first().cast(pl.String).alias("query"),
            pl.col(cols.doc).first().cast(pl.String).alias("doc"),
        )
    )


_MESSAGES = {
    "run_null_id": "run has {count} row(s) with a null query or doc id; first at row {row} "
    "(query {query!r}, doc {doc!r})",
    "qrels_null_id": "qrels has {count} row(s) with a null query or doc id; first at row {row} "
    "(query {query!r}, doc {doc!r})",
    "run_bad_by": "run column {by!r} has {count} null or NaN value(s); first at row {row} "
    "(query {query!r}, doc {doc!r})",
    "qrels_bad_rel": "qrels column {rel!r} has {count} null or NaN value(s); first at row {row} "
    "(query {query!r}, doc {doc!r})",
    "run_duplicate": "run has {count} duplicate (query, doc) pair(s), e.g. query {query!r} doc "
    "{doc!r}; pass duplicates='first' or duplicates='max' to keep one row per pair",
    "qrels_duplicate": "qrels has {count} duplicate (query, doc) pair(s), e.g. query {query!r} "
    "doc {doc!r}; pass duplicates='first' or duplicates='max' to keep one judgment per pair",
}


def _is_bad_number(name: str, dtype: pl.DataType) -> pl.Expr:
    bad = pl.col(name).is_null()
    if dtype.is_float():
        bad = bad | pl.col(name).is_nan()
    return bad


def validate(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    cols: Columns,
    by: str,
    duplicates: Duplicates,
    *,
    in_memory: bool = False,
) -> None:
    """Raise :class:`PolarsRankError` naming the first problem found in the run or the qrels.

    Checks null ids, null/NaN scores (or ranks) and relevance, and duplicate ``(query, doc)``
    pairs (only when ``duplicates="error"``). Clean input costs one pass per table that counts
    problems; only when it finds any do the exact checks run to name the first one.
    ``in_memory=True`` (inputs that are DataFrames) runs that count on the in-memory engine,
    about twice as fast as the streaming engine for a hash count; lazy inputs, which may be
    larger than memory, keep Polars' default engine.
    """
    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()
    found = pl.collect_all(
        [
            _problem_count(run, cols, by, run_schema[by], duplicates),
            _problem_count(qrels, cols, cols.relevance, qrels_schema[cols.relevance], duplicates),
        ],
        engine="in-memory" if in_memory else "auto",
    )
    if not any(frame["problems"][0] for frame in found):
        return
    null_id = pl.col(cols.query).is_null() | pl.col(cols.doc).is_null()
    checks = [
        _first_bad(run, null_id, cols, "run_null_id"),
        _first_bad(qrels, null_id, cols, "qrels_null_id"),
        _first_bad(run, _is_bad_number(by, run_schema[by]), cols, "run_bad_by"),
        _first_bad(
            qrels,
            _is_bad_number(cols.relevance, qrels_schema[cols.relevance]),
            cols,
            "qrels_bad_rel",
        ),
    ]
    if duplicates == "error":
        checks += [
            _pair_hash_collisions(run, cols, "run_duplicate"),
            _pair_hash_collisions(qrels, cols, "qrels_duplicate"),
        ]
    for result in pl.collect_all(checks):
        if not result.height or (result["count"][0] or 0) == 0:
            continue
        if "query" not in result.columns:  # the hash pre-check saw a possible duplicate
            frame = run if result["check"][0] == "run_duplicate" else qrels
            result = _duplicate_example(frame, cols, result["check"][0]).collect()
            if not result.height:
                continue  # a hash collision, not a duplicate
        row = result.row(0, named=True)
        message = _MESSAGES[row["check"]].format(by=by, rel=cols.relevance, **row)
        raise PolarsRankError(message)


# --------------------------------------------------------------------------------------------
# ordering and judging


def _dedupe(frame: pl.LazyFrame, cols: Columns, value: str, policy: Duplicates) -> pl.LazyFrame:
    keys = [cols.query, cols.doc]
    if policy == "first":
        return frame.unique(subset=keys, keep="first", maintain_order=True)
    if policy == "max":
        return frame.group_by(keys).agg(pl.col(value).max())
    return frame


def rank_expr(cols: Columns, by: OrderBy, by_column: str, doc_dtype: pl.DataType) -> pl.Expr:
    """1-based rank within the query, trec_eval's ordering (see the module docstring)."""
    doc_key = doc_order_key(cols.doc, doc_dtype)
    if by == "score":
        # ``+ 0.0`` turns -0.0 into 0.0 so that the two tie, as they do in C.
        primary = pl.col(by_column).cast(pl.Float64) + 0.0
    else:
        primary = -pl.col(by_column).cast(pl.Float64)
    return (
        pl.struct(primary.alias("_primary"), doc_key.alias("_doc"))
        .rank("ordinal", descending=True)
        .over(cols.query)
        .cast(pl.UInt32)
        .alias(cols.rank)
    )


def resolve_order_by(run_schema: pl.Schema, cols: Columns, order_by: OrderBy | None) -> OrderBy:
    """``order_by`` given, or "score" when the run has scores, else "rank"."""
    if order_by is None:
        if cols.score in run_schema:
            return "score"
        if cols.rank in run_schema:
            return "rank"
        raise PolarsRankError(
            f"run has neither a score column {cols.score!r} nor a rank column {cols.rank!r}; "
            f"its columns are {list(run_schema.names())}"
        )
    if order_by not in ("score", "rank"):
        raise PolarsRankError(f"order_by must be 'score' or 'rank', got {order_by!r}")
    return order_by


def judged_table(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    cols: Columns,
    *,
    order_by: OrderBy | None = None,
    max_rank: int | None = None,
    duplicates: Duplicates = "error",
    validate_input: bool = True,
    compact: bool = False,
    in_memory: bool = False,
) -> pl.LazyFrame:
    """The judged table as a LazyFrame (see :func:`judge`).

    With ``compact=True`` only the rows every metric needs are kept: judged rows, and one
    unjudged row per query at rank = number retrieved (so that ``rank.max()`` still counts the
    retrieved documents; its doc is null). Every metric in :mod:`polars_rank.metrics` gives the
    same value on the compact and the full table. ``in_memory=True`` says the inputs are
    DataFrames, so the input checks may use the in-memory engine (see :func:`validate`).
    """
    if duplicates not in ("error", "first", "max"):
        raise PolarsRankError(f"duplicates must be 'error', 'first' or 'max', got {duplicates!r}")
    if max_rank is not None and (not isinstance(max_rank, int) or max_rank < 1):
        raise PolarsRankError(f"max_rank must be a positive integer, got {max_rank!r}")
    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()
    by = resolve_order_by(run_schema, cols, order_by)
    if by == "rank" and duplicates == "max":
        raise PolarsRankError("duplicates='max' is not defined with order_by='rank'; use 'first'")
    by_column = cols.score if by == "score" else cols.rank
    _require(run_schema, [cols.query, cols.doc, by_column], "run")
    _require(qrels_schema, [cols.query, cols.doc, cols.relevance], "qrels")
    _check_dtypes(run_schema, qrels_schema, cols, by_column)
    if validate_input:
        validate(run, qrels, cols, by_column, duplicates, in_memory=in_memory)

    run = _dedupe(run.select(cols.query, cols.doc, by_column), cols, by_column, duplicates)
    qrels = _dedupe(
        qrels.select(cols.query, cols.doc, cols.relevance), cols, cols.relevance, duplicates
    )

    rank = rank_expr(cols, by, by_column, run_schema[cols.doc])
    keys = [cols.query, cols.doc]
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
        >>> pr.judge(run, qrels).sort("rank", nulls_last=True).rows()
        [('q', 'b', 1, None), ('q', 'a', 2, 1), ('q', 'c', None, 2)]
    """
    cols = Columns(query=query, doc=doc, score=score, rank=rank, relevance=relevance)
    table = judged_table(
        to_lazy(run, "run"),
        to_lazy(qrels, "qrels"),
        cols,
        order_by=order_by,
        max_rank=max_rank,
        duplicates=duplicates,
        validate_input=validate,
        in_memory=isinstance(run, pl.DataFrame) and isinstance(qrels, pl.DataFrame),
    )
    return like(table.sort(query, rank, nulls_last=True, maintain_order=True), run)
