"""Input checks for the Spark engine on Spark data, raising exactly the Polars engine's errors.

The checks are those of :func:`polars_rank.core.validation.validate`: empty inputs, null
ids, null or NaN scores (or ranks) and grades, infinite grades, and duplicate
``(query, doc)`` pairs when ``duplicates="error"``. One Spark job counts the problems with
the conditions of :func:`polars_rank.check_sql`, reading each table once
(:func:`~polars_rank.compiler.checks.check_counts_sql`); with ``run_duplicates=False`` the
run's repeated pairs are left to the evaluation query (``to_sql(..., duplicates_column=...)``,
off in ``engine="spark"``: see ``_PAIRS_IN_QUERY``). The pairs of string or integer keys
are pre-tested by one 64-bit doc hash per row, per query (:data:`_PAIR_HASH`); only a
repeated hash costs the exact grouping of the pairs, which decides. Only when a check fails
is the message built: the first bad row (0-based, in the DataFrame's partition order) and
its ids, or an example of a repeated pair. The queries are
:mod:`polars_rank.compiler.engine_checks`' in the Spark dialect; this module runs them and
raises the messages of :mod:`polars_rank.core.messages`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from polars_rank.compiler import engine_checks as queries
from polars_rank.core import messages
from polars_rank.core.columns import fresh
from polars_rank.core.dialects import get_dialect
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.options import Options

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


#: The dialect of the check queries (:mod:`polars_rank.compiler.engine_checks`).
SPARK = get_dialect("spark")


def quoted(name: str) -> str:
    """A Spark SQL identifier in backticks."""
    return SPARK.quote(name)


def _first_bad(spark: SparkSession, view: str, bad: str, query: str, doc: str) -> dict[str, Any]:
    """count, first row (0-based, partition order) and its query and doc as text."""
    # the row number under a name none of the view's columns has (Spark ignores case)
    n = fresh("pr_row", [c.lower() for c in spark.table(quoted(view)).columns])
    sql = queries.first_bad_sql(SPARK, quoted(view), bad, query, doc, n)
    return spark.sql(sql).collect()[0].asDict()


#: The hash of a row's doc that pre-tests the repeated pairs (a Spark SQL expression of
#: ``{doc}``: :func:`~polars_rank.compiler.engine_checks.pair_hash`): each query's list of
#: 64-bit doc hashes is built (partly before the shuffle) and its distinct values counted
#: (:func:`~polars_rank.compiler.engine_checks.distinct_count`), instead of every pair being
#: grouped. A seam for tests (a constant makes every doc of a query collide, so the exact
#: grouping decides).
_PAIR_HASH = queries.pair_hash(SPARK)

#: Spark types hashed for the pre-test: those whose GROUP BY equality is plainly equality
#: of the value hashed (strings of the default binary collation, integers, dates). Other
#: types (doubles, decimals, collated strings, ...) keep the exact grouping.
_HASHABLE = ("StringType", "IntegerType", "LongType", "ShortType", "ByteType", "DateType")


def _hashable(spark: SparkSession, view: str, columns: Sequence[str]) -> bool:
    """Whether the pairs of ``view`` over ``columns`` may be pre-tested by a hash: every
    column of a type in :data:`_HASHABLE` (strings: the default binary collation)."""
    from pyspark.sql.types import StringType

    fields = {f.name.lower(): f.dataType for f in spark.table(quoted(view)).schema.fields}
    for column in columns:
        kind = fields.get(column.lower())
        if kind is None or type(kind).__name__ not in _HASHABLE:
            return False
        if isinstance(kind, StringType) and kind != StringType():  # a collated string
            return False
    return True


def _repeated_pairs(spark: SparkSession, view: str, keys: Sequence[str]) -> int:
    """The exact number of ``keys`` tuples of ``view`` that occur more than once."""
    sql = queries.repeated_pairs_sql(SPARK, quoted(view), [quoted(k) for k in keys])
    return int(spark.sql(sql).collect()[0]["n"])


def find_problems(
    spark: SparkSession,
    run_view: str,
    qrels_view: str,
    options: Options,
    *,
    by: Sequence[str] = (),
    qrels_by: Sequence[str] = (),
    run_duplicates: bool = True,
) -> set[tuple[str, str]]:
    """The ``(input, problem)`` pairs of the failed checks of :func:`check_spark`, from one
    Spark job: :func:`polars_rank.compiler.checks.check_counts_sql`'s row of counts (each
    view read once; the duplicate pairs of the qrels, and of the run unless
    ``run_duplicates`` is False, grouped apart). ``options`` must be resolved.

    A table whose key columns are :func:`_hashable` has its pairs pre-tested by one 64-bit
    hash of the doc per row (:data:`_PAIR_HASH`), counted per query: no hash repeated within
    a query proves that no pair repeats. When one repeats, the exact grouping of the pairs
    decides (:func:`_repeated_pairs`)."""
    from polars_rank.compiler.checks import check_counts_sql

    cols, order_column = options.columns, options.order_column
    by_rank = options.order_by == "rank"
    views = {"run": (run_view, list(by)), "qrels": (qrels_view, list(qrels_by))}
    distinct = queries.distinct_count(SPARK, _PAIR_HASH)
    pair_hash = {
        what: distinct
        for what, (view, groups) in views.items()
        if _hashable(spark, view, [*groups, cols.query, cols.doc])
    }
    sql, keys = check_counts_sql(
        "spark",
        run_view,
        qrels_view,
        query=cols.query,
        doc=cols.doc,
        score=cols.score if by_rank else order_column,
        rank=order_column if by_rank else cols.rank,
        relevance=cols.relevance,
        order_by="rank" if by_rank else "score",
        duplicates="error" if options.duplicates == "error" else "max",
        run_duplicates=run_duplicates,
        by=list(by),
        qrels_by=list(qrels_by),
        pair_hash=pair_hash,
        pretty=False,
    )
    counts = spark.sql(sql).collect()[0]
    failed = {key for key, count in zip(keys, counts, strict=True) if count}
    for what, (view, groups) in views.items():
        if (what, "duplicate_pair_hash") in failed:  # a repeated hash: the exact count decides
            failed.discard((what, "duplicate_pair_hash"))
            if _repeated_pairs(spark, view, [*groups, cols.query, cols.doc]):
                failed.add((what, "duplicate_pair"))
    return failed


def raise_problem(
    spark: SparkSession,
    failed: set[tuple[str, str]],
    run_view: str,
    qrels_view: str,
    options: Options,
    *,
    by: Sequence[str] = (),
    qrels_by: Sequence[str] = (),
) -> None:
    """Raise the Polars engine's error for the first of the ``failed`` checks (in
    :func:`polars_rank.core.validation.validate`'s order); nothing when ``failed`` is empty.
    The jobs that name the first offending row (or a repeated pair) run here."""
    if not failed:
        return
    cols, order_column = options.columns, options.order_column
    by_rank = options.order_by == "rank"
    for what in ("run", "qrels"):
        if (what, "empty") in failed:
            raise messages.empty_input(what)
    for what, view, columns in (("run", run_view, by), ("qrels", qrels_view, qrels_by)):
        if (what, "null_group") in failed:
            for column in columns:
                sql = queries.count_where_sql(
                    SPARK, quoted(view), queries.null_value(SPARK, column)
                )
                nulls = spark.sql(sql).collect()[0]["n"]
                if nulls:
                    raise PolarsRankError(
                        f"by column {column!r} of the {what} has null values: a group must "
                        "be named (fill them or filter those rows out)"
                    )
    null_id = queries.null_id(SPARK, cols.query, cols.doc)
    checks = [
        ("run_null_id", ("run", "null_id"), run_view, null_id),
        ("qrels_null_id", ("qrels", "null_id"), qrels_view, null_id),
        (
            "run_bad_order_value",
            ("run", "bad_rank" if by_rank else "bad_score"),
            run_view,
            queries.bad_number(SPARK, order_column),
        ),
        (
            "qrels_bad_rel",
            ("qrels", "bad_grade"),
            qrels_view,
            queries.bad_number(SPARK, cols.relevance),
        ),
        (
            "qrels_infinite_rel",
            ("qrels", "infinite_grade"),
            qrels_view,
            queries.infinite(SPARK, cols.relevance),
        ),
    ]
    for check, key, view, bad in checks:
        if key in failed:
            problem = _first_bad(spark, view, bad, cols.query, cols.doc)
            raise messages.input_problem(
                check, order_column=order_column, rel=cols.relevance, **problem
            )
    for what, view in (("run", run_view), ("qrels", qrels_view)):
        if (what, "duplicate_pair") not in failed:
            continue
        keys = [quoted(cols.query), quoted(cols.doc)]
        groups = by if what == "run" else qrels_by
        sql = queries.duplicate_example_sql(SPARK, quoted(view), keys, groups)
        example = spark.sql(sql).collect()
        raise messages.input_problem(
            f"{what}_duplicate",
            order_column=order_column,
            rel=cols.relevance,
            row=None,
            **example[0].asDict(),
        )


def check_spark(
    spark: SparkSession,
    run_view: str,
    qrels_view: str,
    options: Options,
    *,
    by: Sequence[str] = (),
    qrels_by: Sequence[str] = (),
) -> None:
    """The checks of :func:`polars_rank.core.validation.validate` on two temporary views,
    with the same messages, raised in the same order. ``options`` must be resolved. With
    ``by`` (``qrels_by``: those the qrels have), a null group is an error naming its column
    and duplicates are pairs repeated within a group.

    One Spark job counts the problems (:func:`find_problems`); only when it reports one do
    the jobs that name the first offending row (or a repeated pair) run."""
    failed = find_problems(spark, run_view, qrels_view, options, by=by, qrels_by=qrels_by)
    raise_problem(spark, failed, run_view, qrels_view, options, by=by, qrels_by=qrels_by)
