"""``evaluate(..., engine="spark")``: the portable SQL of :func:`polars_rank.to_sql` runs in
Spark; only the result rows come back, as a Polars frame.

The run and the qrels may be PySpark DataFrames, table or view names the session knows, or
Polars frames (checked in Polars, then sent to Spark through Arrow: for tests and small data).
They are registered as temporary views under unique names (dropped afterwards), checked in
Spark as the Polars engine checks its input (:mod:`.spark_checks`), and evaluated by one query
(dialect ``"spark"``). The result has the Polars engine's columns (the metric labels as written;
with ``per_query`` the query column first, in the run's dtype, sorted), dtypes and warning.

pyspark is not a dependency of polars_rank: it is imported here, when the engine runs.

Example, with ``spark`` a running SparkSession (``tests/engines/spark/test_parity.py`` runs it)::

    pr.evaluate("db.run", "db.qrels", ["nDCG@10", "AP"], engine="spark", con=spark)
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, cast

import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.core import messages
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.extras import require
from polars_rank.core.frames import from_arrow
from polars_rank.core.identifiers import table_reference
from polars_rank.core.options import Options
from polars_rank.core.types import TableInput
from polars_rank.engines.compiled import (
    Table,
    evaluate_tables,
    refuse_unsupported,
    require_qrels,
)
from polars_rank.engines.spark.checks import SparkTables, quoted

if TYPE_CHECKING:
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql import SparkSession


def _pyspark() -> None:
    """Import pyspark, or say what to install (a PolarsRankError naming the extra)."""
    require("pyspark.sql", "spark")


def _session(con: SparkSession | None, *inputs: object) -> SparkSession:
    """The SparkSession: ``con``, else the one of a DataFrame input, else the active one."""
    if con is not None:
        return con
    for frame in inputs:
        session = getattr(frame, "sparkSession", None)
        if session is not None:
            return cast("SparkSession", session)  # a Spark DataFrame's session
    _pyspark()
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    if session is None:
        raise PolarsRankError(
            "engine='spark' needs a SparkSession: pass con=spark, or Spark DataFrames"
        )
    return session


def _spark_frame(
    spark: SparkSession, obj: TableInput | None, what: str
) -> tuple[SparkDataFrame, pl.Schema, pl.DataFrame | None]:
    """``obj`` as a Spark DataFrame, with its schema as Polars dtypes and, for a Polars input,
    the Polars frame itself."""
    _pyspark()
    from pyspark.sql import DataFrame as SparkDataFrame

    if isinstance(obj, pl.LazyFrame):
        obj = obj.collect()
    if isinstance(obj, pl.DataFrame):
        unsigned = [c for c, t in obj.schema.items() if t.is_unsigned_integer()]
        sent = obj.with_columns(pl.col(unsigned).cast(pl.Int64)) if unsigned else obj
        return spark.createDataFrame(sent.to_arrow()), obj.schema, obj
    if isinstance(obj, str):
        reference = table_reference(obj, what, "spark").sql("spark")  # a table, never other SQL
        try:
            obj = spark.table(reference)
        except Exception as error:  # AnalysisException: no such table or view
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise PolarsRankError(
                f"{what} table {obj!r} cannot be read by Spark: {first}"
            ) from None
    if not isinstance(obj, SparkDataFrame):
        raise TypeError(
            f"{what} must be a Spark DataFrame, a table name or a polars DataFrame or "
            f"LazyFrame, got {type(obj).__name__}"
        )
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = from_arrow(to_arrow_schema(obj.schema).empty_table()).schema
    return obj, schema, None


@contextmanager
def _temp_views(spark: SparkSession, **frames: SparkDataFrame) -> Iterator[dict[str, str]]:
    """Each frame as a uniquely named temporary view, dropped afterwards.

    The caller's cached DataFrames stay cached: ``spark.catalog.dropTempView`` uncaches every
    cached plan the view reads (Spark 4), so a view of a DataFrame the caller cached would
    unpersist it. The view is of ``frame.select("*")`` (a plan no caller cached; queries on
    it still read the caller's cache) and is dropped by ``DROP VIEW``, which uncaches only
    a plan with the view's own result."""
    names = {key: f"pr_{key}_{uuid.uuid4().hex}" for key in frames}
    try:
        for key, frame in frames.items():
            frame.select("*").createOrReplaceTempView(names[key])
        yield names
    finally:
        for name in names.values():
            spark.sql(f"DROP VIEW IF EXISTS {quoted(name)}")


def evaluate_spark(
    run: TableInput,
    qrels: TableInput | None,
    specs: list[MetricSpec],
    options: Options,
    *,
    per_query: bool,
    con: SparkSession | None = None,
    warn: Callable[[int], None] = messages.warn_left_out_here,
    by: Sequence[str] = (),
) -> pl.DataFrame | pl.LazyFrame:
    """Evaluate in Spark; the same result as the Polars engine (see :func:`evaluate`; with
    ``by``, :mod:`polars_rank.core.grouping`'s rules, the SQL of ``to_sql(..., by=...)``).

    ``con`` is the SparkSession (by default the DataFrames' or the active one). The inputs
    become temporary views and :func:`polars_rank.engines.compiled.evaluate_tables` checks
    and evaluates them (for Spark data one job counting nulls and NaNs, each table read once,
    and with ``duplicates="error"`` the repeated pairs). ``duplicates="first"`` is refused: a
    Spark table has no row order. Gives ``warn`` the number of run queries without
    judgments, as the Polars engine does.
    """
    refuse_unsupported(specs, "spark")
    require_qrels(specs, per_query, qrels)
    options = options.unordered("engine='spark'")
    lazy_out = isinstance(run, pl.LazyFrame)
    spark = _session(con, run, qrels)
    run_df, run_schema, run_frame = _spark_frame(spark, run, "run")
    qrels_df, qrels_schema, qrels_frame = _spark_frame(spark, qrels, "qrels")
    with _temp_views(spark, run=run_df, qrels=qrels_df) as views:
        result = evaluate_tables(
            SparkTables(spark),
            Table(views["run"], run_schema, run_frame),
            Table(views["qrels"], qrels_schema, qrels_frame),
            specs,
            options,
            per_query=per_query,
            warn=warn,
            by=by,
        )
    return result.lazy() if lazy_out else result
