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
from functools import partial
from typing import TYPE_CHECKING, cast

import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.catalog.recommender_inputs import check_request
from polars_rank.compiler import column_names, compile_query
from polars_rank.compiler.columns import metric_outputs
from polars_rank.core import grouping, messages
from polars_rank.core.columns import fresh
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.extras import require
from polars_rank.core.frames import from_arrow
from polars_rank.core.identifiers import table_reference
from polars_rank.core.options import Options
from polars_rank.core.types import TableInput
from polars_rank.core.validation import validate
from polars_rank.engines.spark.checks import find_problems, quoted, raise_problem

if TYPE_CHECKING:
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql import SparkSession

#: The result column that counts run queries without judgments.
LEFT_OUT = "pr_left_out"

#: Count the run's repeated ``(query, doc)`` pairs in the evaluation query itself
#: (``to_sql(..., duplicates_column=...)``: a window after the ranking window, no second
#: shuffle of the run) instead of in the checking job (a grouping of the run by pair, a
#: shuffle). Off: with it, 10M-row summaries differed from ``validate=False``'s by up to
#: 6.8e-14 (a changed plan sums in another order; each way is repeatable), and the results
#: must stay bit-identical to those of ``validate=False``.
_PAIRS_IN_QUERY = False


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

    ``con`` is the SparkSession (by default the DataFrames' or the active one). With
    ``validate`` the inputs are checked: for Spark data one job counting nulls and NaNs (each
    table read once) and, with ``duplicates="error"``, the repeated pairs (with
    :data:`_PAIRS_IN_QUERY` the run's are counted by the evaluation query itself and
    reported once it has run, before the qrels'). ``duplicates="first"`` is refused: a
    Spark table has no row order. Gives ``warn`` the number of run queries without
    judgments, as the Polars engine does.
    """
    refused: dict[str, list[str]] = {}
    for spec in specs:
        why = spec.entry.reason("spark")
        if why is not None:
            refused.setdefault(why, []).append(spec.label)
    for why, labels in refused.items():  # the catalog's reason, with the metrics it stops
        head, _, tail = why.partition(":")
        raise PolarsRankError(f"engine='spark' {head} ({', '.join(labels)}):{tail}")
    if qrels is None:  # every metric Spark runs reads the judgments: the other engines' error
        check_request(specs, per_query=per_query, has_qrels=False, given=set())
    options = options.unordered("engine='spark'")
    lazy_out = isinstance(run, pl.LazyFrame)
    spark = _session(con, run, qrels)
    run_df, run_schema, run_frame = _spark_frame(spark, run, "run")
    qrels_df, qrels_schema, qrels_frame = _spark_frame(spark, qrels, "qrels")
    options = options.resolve(run_schema, qrels_schema)
    cols = options.columns
    by = list(by)
    shared = [c for c in by if c in qrels_schema]
    if by:
        grouping.check_by(by, run_schema, qrels_schema, options, metric_outputs(specs))
    # the result's count of left-out queries, under a name the query column does not have
    left_out_column = LEFT_OUT if cols.query.lower() != LEFT_OUT else f"{LEFT_OUT}_n"
    polars_inputs = run_frame is not None and qrels_frame is not None
    if options.validate and run_frame is not None and qrels_frame is not None:
        run_lazy, qrels_lazy = run_frame.lazy(), qrels_frame.lazy()
        if by:  # checked as the Polars engine checks them: keyed by (group, query)
            groups = grouping.run_groups(run_lazy, by)
            keyed = grouping.keyed_inputs(run_lazy, qrels_lazy, by, options, groups)
            run_lazy, qrels_lazy = keyed[0], cast("pl.LazyFrame", keyed[1])
        validate(run_lazy, qrels_lazy, options, in_memory=True)
    # Spark data is checked in Spark: one job counts every problem but the run's repeated
    # pairs, which the evaluation counts itself (a window over the rows its ranking window
    # has already brought together), under a name no other result column has
    spark_checks = options.validate and not polars_inputs
    in_query = _PAIRS_IN_QUERY and spark_checks and options.duplicates == "error"
    taken = [c.lower() for c in [*by, cols.query, left_out_column]]
    duplicates_column = fresh("pr_duplicates", taken) if in_query else None
    with _temp_views(spark, run=run_df, qrels=qrels_df) as views:
        find = partial(
            find_problems, spark, views["run"], views["qrels"], options, by=by, qrels_by=shared
        )
        report = partial(
            raise_problem,
            spark,
            run_view=views["run"],
            qrels_view=views["qrels"],
            options=options,
            by=by,
            qrels_by=shared,
        )
        failed: set[tuple[str, str]] = set()
        if spark_checks:
            failed = find(run_duplicates=not in_query)
            # the qrels' repeated pairs are reported after the run's
            report(failed - {("qrels", "duplicate_pair")} if in_query else failed)
        sql = compile_query(
            specs,
            "spark",
            options,
            quoted(views["run"]),
            quoted(views["qrels"]),
            per_query=per_query,
            by=by,
            qrels_by=shared,
            left_out_column=left_out_column,
            duplicates_column=duplicates_column,
        )
        result = from_arrow(spark.sql(sql).toArrow())
        if duplicates_column is not None:
            if result.height:  # the run queries with a repeated pair, on every row (group)
                counts = result[duplicates_column]
                repeated = bool(counts[0] if per_query else counts.sum())
            else:  # no row to carry the count: count apart
                repeated = ("run", "duplicate_pair") in find()
            report(failed | {("run", "duplicate_pair")} if repeated else failed)
            result = result.drop(duplicates_column)
        if result.height:
            counts = result[left_out_column]  # per group without per_query
            left_out = int((counts[0] if per_query else counts.sum()) or 0)
        else:  # no query to evaluate: count the run's queries apart
            q = quoted(cols.query)
            keys = ", ".join(f"r.{quoted(c)}" for c in [*by, cols.query])
            on = "".join(f" AND r.{quoted(c)} = j.{quoted(c)}" for c in shared)
            left_out = spark.sql(
                f"SELECT COUNT(DISTINCT {keys}) AS n FROM {quoted(views['run'])} AS r "
                f"LEFT ANTI JOIN {quoted(views['qrels'])} AS j ON r.{q} = j.{q}{on}"
            ).collect()[0]["n"]
    warn(left_out)
    reserved = [*by, cols.query, left_out_column, *([duplicates_column] if in_query else [])]
    names = column_names(specs, reserved=[c for c in reserved if c is not None])
    result = result.drop(left_out_column).rename({v: k for k, v in names.items()})
    labels = [s.label for s in specs]
    result = result.with_columns(pl.col(labels).cast(pl.Float64))
    result = result.with_columns(pl.col(c).cast(run_schema[c]) for c in by)
    if per_query:
        result = result.with_columns(pl.col(cols.query).cast(run_schema[cols.query]))
        result = result.sort([*by, cols.query])
    elif by:
        result = result.sort(by)
    return result.lazy() if lazy_out else result
