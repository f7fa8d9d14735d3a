"""Input checks on Polars frames: null ids, null or NaN scores and grades, infinite grades,
duplicate pairs.

Clean input costs one pass per table that counts problems; only when it finds any do the exact
checks run to name the first one (messages in :mod:`polars_rank.core.messages`, shared with
the DuckDB engine's checks on SQL inputs).

>>> import polars as pl
>>> run = pl.LazyFrame({"query": ["q", "q"], "doc": ["a", "a"], "score": [1.0, 2.0]})
>>> qrels = pl.LazyFrame({"query": ["q"], "doc": ["a"], "relevance": [1]})
>>> validate(run, qrels, Options().resolve(run.collect_schema(), qrels.collect_schema()))
Traceback (most recent call last):
...
polars_rank.core.errors.PolarsRankError: run has 1 duplicate (query, doc) pair(s), e.g. query 'q' doc 'a'; pass duplicates='first' or duplicates='max' to keep one row per pair
"""  # noqa: E501

from __future__ import annotations

from typing import Any

import polars as pl

from polars_rank.core import messages
from polars_rank.core.columns import fresh
from polars_rank.core.conventions import Columns
from polars_rank.core.options import Options


def _is_bad_number(name: str, dtype: pl.DataType) -> pl.Expr:
    bad = pl.col(name).is_null()
    if dtype.is_float():
        bad = bad | pl.col(name).is_nan()
    return bad


def _is_infinite(name: str, dtype: pl.DataType) -> pl.Expr:
    """True for an infinite value (a grade: no gain or relevance level makes sense of it)."""
    return pl.col(name).is_infinite() if dtype.is_float() else pl.lit(False)


def _null_id(cols: Columns) -> pl.Expr:
    return pl.col(cols.query).is_null() | pl.col(cols.doc).is_null()


def pair_hash(cols: Columns) -> pl.Expr:
    """A 64-bit hash of ``(query, doc)``: equal pairs give equal hashes; a collision (or a
    swapped pair, query a doc b vs query b doc a) only sends the table to the exact check."""
    return pl.col(cols.query).hash(seed=1) ^ pl.col(cols.doc).hash(seed=2)


#: The column of :func:`repeated_pair_count`'s sorted hashes.
PAIR_HASH = "__pr_pair_hash"


def _sorted_pair_hashes(frame: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    return frame.select(pair_hash(cols).alias(PAIR_HASH)).sort(PAIR_HASH)


def repeated_pair_count(frame: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    """One row, ``count``: the rows minus the distinct ``(query, doc)`` hashes, counted by
    sorting the hashes (equal ones are then neighbours), to collect with other work on the
    same input. A hash count: equal pairs hash alike, so 0 proves there is no duplicate;
    above 0, :func:`duplicate_suspects` and the exact check tell a duplicate from a
    collision.

    At 100M rows from Parquet, on the streaming engine and with each query's size counted
    alongside, this takes 3.98 s (string ids) and 3.20 s (Int64 ids) where rows − distinct
    hashes in 64 hash partitions took 7.05 and 8.47 s, at a peak RSS of 1.9–2.0 GiB against
    1.2 (bench/README.md).

    >>> run = pl.LazyFrame({"query": ["q", "q", "r", "q"], "doc": ["a", "a", "a", "a"]})
    >>> repeated_pair_count(run, Columns()).collect().item()
    2
    """
    key = pl.col(PAIR_HASH)
    return _sorted_pair_hashes(frame, cols).select(
        (key == key.shift(1)).sum().cast(pl.Int64).alias("count")
    )


def duplicate_suspects(frame: pl.LazyFrame, cols: Columns) -> pl.Expr:
    """True for the rows of ``frame`` whose ``(query, doc)`` hash repeats: the only rows the
    exact duplicate check must search (a pass over ``frame``, made only when
    :func:`repeated_pair_count` counted repeats)."""
    key = pl.col(PAIR_HASH)
    repeated = (
        _sorted_pair_hashes(frame, cols)
        .filter(key == key.shift(1))
        .unique()
        .collect(engine="streaming")
        .to_series()
    )
    return pair_hash(cols).is_in(repeated.implode())


def _above(name: str, limit: float) -> pl.Expr:
    """True for a grade above ``limit`` (null and NaN grades are reported by their own check)."""
    value = pl.col(name)
    return (value > limit).fill_null(False) & ~value.cast(pl.Float64).is_nan()


def _problem_count(
    frame: pl.LazyFrame,
    cols: Columns,
    value: str,
    dtype: pl.DataType,
    pairs: bool,
    limit: float | None = None,
    finite: bool = False,
) -> pl.LazyFrame:
    """The fast pre-check, one pass: null ids + null/NaN values (+ infinite ones with
    ``finite``) (+ rows − distinct pair hashes with ``pairs``) (+ grades above ``limit``), and
    the number of rows.

    0 problems proves the table is clean; anything else sends it to the exact checks, which
    find the first problem and tell a real duplicate from a hash collision.
    """
    counts = [row_problem_count(cols, value, dtype)]
    if finite:
        counts.append(_is_infinite(value, dtype).sum().cast(pl.Int64))
    if limit is not None:
        counts.append(_above(value, limit).sum().cast(pl.Int64))
    if pairs:
        counts.append((pl.len() - pair_hash(cols).n_unique()).cast(pl.Int64))
    return frame.select(pl.sum_horizontal(counts).alias("problems"), pl.len().alias("rows"))


def row_problem_count(cols: Columns, value: str, dtype: pl.DataType) -> pl.Expr:
    """The rows with a null id plus the null (or NaN) values of ``value`` (a run's score or
    rank, or a grade): the part of the counting pass that an aggregation over the table's
    rows (e.g. each query's size, :func:`polars_rank.core.judged.run_sizes`) can carry."""
    return _null_id(cols).sum().cast(pl.Int64) + _is_bad_number(value, dtype).sum().cast(pl.Int64)


def _first_bad(frame: pl.LazyFrame, bad: pl.Expr, cols: Columns, check: str) -> pl.LazyFrame:
    """One-row summary: how many rows are bad and where the first one is."""
    return frame.select(
        pl.lit(check).alias("check"),
        bad.sum().cast(pl.Int64).alias("count"),
        bad.arg_true().first().cast(pl.Int64).alias("row"),
        pl.col(cols.query).filter(bad).first().cast(pl.String).alias("query"),
        pl.col(cols.doc).filter(bad).first().cast(pl.String).alias("doc"),
    )


def _pair_hash_collisions(frame: pl.LazyFrame, cols: Columns, check: str) -> pl.LazyFrame:
    """Rows minus distinct 64-bit hashes of ``(query, doc)``, in the checks' format."""
    return frame.select(
        pl.lit(check).alias("check"),
        (pl.len() - pair_hash(cols).n_unique()).cast(pl.Int64).alias("count"),
    )


def _duplicate_example(frame: pl.LazyFrame, cols: Columns, check: str) -> pl.LazyFrame:
    """Count of duplicated ``(query, doc)`` pairs and the first one in the frame's row order
    (the same pair whichever rows a caller's filter kept), in the checks' format."""
    keys = [cols.query, cols.doc]
    n = fresh("len", keys)
    return (
        frame.select(keys)
        .group_by(keys, maintain_order=True)
        .len(n)
        .filter(pl.col(n) > 1)
        .select(
            pl.lit(check).alias("check"),
            pl.len().cast(pl.Int64).alias("count"),
            pl.lit(None, pl.Int64).alias("row"),
            pl.col(cols.query).first().cast(pl.String).alias("query"),
            pl.col(cols.doc).first().cast(pl.String).alias("doc"),
        )
    )


def problem_counts(
    run: pl.LazyFrame, qrels: pl.LazyFrame, options: Options, *, run_pairs: bool = True
) -> list[pl.LazyFrame]:
    """The counting pass of :func:`validate`: one one-row frame per input (``problems``,
    ``rows``), to collect (possibly with other work on the same inputs) and hand to
    :func:`check_counts`. ``run_pairs=False`` leaves the run's duplicate pairs out: the caller
    counts them (see :func:`check_counts`). ``options`` must be resolved."""
    cols, order_column, duplicates = options.columns, options.order_column, options.duplicates
    limit = options.grade_limit
    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()
    return [
        _problem_count(
            run,
            cols,
            order_column,
            run_schema[order_column],
            duplicates == "error" and run_pairs,
        ),
        _problem_count(
            qrels,
            cols,
            cols.relevance,
            qrels_schema[cols.relevance],
            duplicates == "error",
            None if limit is None else limit.value,
            finite=True,
        ),
    ]


def validate(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    options: Options,
    *,
    in_memory: bool = False,
    judgments_given: bool = True,
) -> None:
    """Raise :class:`~polars_rank.PolarsRankError` naming the first problem in the inputs.

    Checks that neither input is empty, null ids, null/NaN scores (or ranks) and relevance,
    infinite relevance, and duplicate ``(query, doc)`` pairs (only when
    ``options.duplicates == "error"``).
    ``options`` must be resolved.
    ``judgments_given=False`` (recommender metrics without qrels: ``qrels`` is an empty
    stand-in) skips the check that the judgments are not empty.
    ``in_memory=True`` (inputs that are DataFrames) runs the counting pass on the in-memory
    engine, about twice as fast as the streaming engine for a hash count; lazy inputs, which
    may be larger than memory, keep Polars' default engine.
    """
    # the common-subplan cache would hold a lazy input whole (see judged.pass_flags)
    flags = pl.QueryOptFlags() if in_memory else pl.QueryOptFlags(comm_subplan_elim=False)
    found = pl.collect_all(
        problem_counts(run, qrels, options),
        engine="in-memory" if in_memory else "auto",
        optimizations=flags,
    )
    check_counts(found, run, qrels, options, judgments_given=judgments_given)


def check_counts(
    found: list[pl.DataFrame],
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    options: Options,
    *,
    judgments_given: bool = True,
    run_duplicates: int = 0,
    run_suspects: pl.Expr | None = None,
) -> None:
    """Raise for the first problem when the counts of :func:`problem_counts` (``found``) or
    ``run_duplicates`` (the run's rows minus its distinct pairs, counted by the caller when
    ``run_pairs=False``; a hash count: anything above 0 sends the run to the exact checks)
    show any; see :func:`validate`. ``run_suspects`` (see :func:`duplicate_suspects`) limits
    the exact duplicate check of the run to the rows it selects, so that it holds the
    suspected pairs rather than the whole run."""
    cols, order_column, duplicates = options.columns, options.order_column, options.duplicates
    limit = options.grade_limit
    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()
    for what, frame in zip(("run", "qrels"), found, strict=True):
        if frame["rows"][0] == 0 and (what == "run" or judgments_given):
            raise messages.empty_input(what)
    if not run_duplicates and not any(frame["problems"][0] for frame in found):
        return
    checks = [
        _first_bad(run, _null_id(cols), cols, "run_null_id"),
        _first_bad(qrels, _null_id(cols), cols, "qrels_null_id"),
        _first_bad(
            run, _is_bad_number(order_column, run_schema[order_column]), cols, "run_bad_order_value"
        ),
        _first_bad(
            qrels,
            _is_bad_number(cols.relevance, qrels_schema[cols.relevance]),
            cols,
            "qrels_bad_rel",
        ),
        _first_bad(
            qrels,
            _is_infinite(cols.relevance, qrels_schema[cols.relevance]),
            cols,
            "qrels_infinite_rel",
        ),
    ]
    extra: dict[str, dict[str, Any]] = {}  # format() arguments of the message
    if limit is not None:
        checks.append(
            _first_bad(qrels, _above(cols.relevance, limit.value), cols, "qrels_grade_above_max")
        )
        largest = qrels.select(pl.col(cols.relevance).cast(pl.Float64).max())
        extra["qrels_grade_above_max"] = {"limit": limit.value, "metric": limit.metric}
    suspects = run if run_suspects is None else run.filter(run_suspects)
    if duplicates == "error":
        checks += [
            _pair_hash_collisions(suspects, cols, "run_duplicate"),
            _pair_hash_collisions(qrels, cols, "qrels_duplicate"),
        ]
    for result in pl.collect_all(checks):
        if not result.height or (result["count"][0] or 0) == 0:
            continue
        if "query" not in result.columns:  # the hash pre-check saw a possible duplicate
            source = suspects if result["check"][0] == "run_duplicate" else qrels
            result = _duplicate_example(source, cols, result["check"][0]).collect()
            if not result["count"][0]:
                continue  # a hash collision, not a duplicate
        details = extra.get(result["check"][0], {})
        if details:  # the grade check names the largest grade
            details = {**details, "largest": largest.collect().item()}
        raise messages.input_problem(
            **result.row(0, named=True), **details, order_column=order_column, rel=cols.relevance
        )
