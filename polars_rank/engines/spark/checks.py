"""Input checks for the Spark engine on Spark data, raising exactly the Polars engine's errors:
:mod:`polars_rank.engines.sql_checks` on :class:`SparkTables` (the session's temporary views).

One Spark job counts the problems. The pairs of string or integer keys are
pre-tested by one 64-bit doc hash per row, per query (:data:`_PAIR_HASH`). The first bad
row is counted in the DataFrame's partition order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank.compiler import engine_checks as queries
from polars_rank.core.dialects import Dialect, get_dialect
from polars_rank.core.frames import from_arrow
from polars_rank.core.options import Options
from polars_rank.engines import sql_checks

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


#: The dialect of the check queries (:mod:`polars_rank.compiler.engine_checks`).
SPARK = get_dialect("spark")


def quoted(name: str) -> str:
    """A Spark SQL identifier in backticks."""
    return SPARK.quote(name)


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


@dataclass(frozen=True)
class SparkTables:
    """The Spark session as :class:`~polars_rank.engines.compiled.SqlEngine`."""

    spark: SparkSession

    @property
    def dialect(self) -> Dialect:
        return SPARK

    @property
    def pair_hash(self) -> str:
        return _PAIR_HASH

    def rows(self, sql: str) -> list[dict[str, Any]]:
        return [row.asDict() for row in self.spark.sql(sql).collect()]

    def result(self, sql: str) -> pl.DataFrame:
        return from_arrow(self.spark.sql(sql).toArrow())

    def columns(self, table: str) -> list[str]:
        return list(self.spark.table(sql_checks.source(self, table)).columns)

    def hashable(self, table: str, columns: Sequence[str]) -> bool:
        return _hashable(self.spark, table, columns)


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
    """:func:`polars_rank.engines.sql_checks.find_problems` on two temporary views."""
    return sql_checks.find_problems(
        SparkTables(spark),
        run_view,
        qrels_view,
        options,
        by=by,
        qrels_by=qrels_by,
        run_duplicates=run_duplicates,
    )


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
    """:func:`polars_rank.engines.sql_checks.raise_problem` on two temporary views."""
    sql_checks.raise_problem(
        SparkTables(spark), failed, run_view, qrels_view, options, by=by, qrels_by=qrels_by
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
    """:func:`polars_rank.engines.sql_checks.check_tables` on two temporary views: the checks
    of :func:`polars_rank.core.validation.validate`, with the same messages, in the same
    order."""
    sql_checks.check_tables(
        SparkTables(spark), run_view, qrels_view, options, by=by, qrels_by=qrels_by
    )
