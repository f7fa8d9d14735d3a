"""``evaluate(..., engine="spark", interactions=, catalog=, item_features=)``: the recommender
metrics (and any ranking metrics asked with them) as the portable SQL of
:func:`polars_rank.to_sql`, run in Spark; only the result rows come back.

Every input may be a PySpark DataFrame, a table or view name, or a Polars frame (sent through
Arrow); the catalog also a Polars Series of ids. The inputs are registered as temporary
views (dropped afterwards), then checked and evaluated by
:func:`polars_rank.engines.compiled_recsys.evaluate_recommender_tables`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.core import messages
from polars_rank.core.options import Options
from polars_rank.engines.compiled import Table, refuse_unsupported
from polars_rank.engines.compiled_recsys import evaluate_recommender_tables, given_inputs
from polars_rank.engines.spark.checks import SparkTables
from polars_rank.engines.spark.ranking import _session, _spark_frame, _temp_views

if TYPE_CHECKING:
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql import SparkSession


def evaluate_spark_recommender(
    run: Any,
    qrels: Any,
    specs: list[MetricSpec],
    options: Options,
    *,
    per_query: bool,
    recommender: Mapping[str, Any],
    con: SparkSession | None = None,
    warn: Callable[[int], None] = messages.warn_left_out_here,
    by: Sequence[str] = (),
) -> pl.DataFrame | pl.LazyFrame:
    """Evaluate ranking and recommender ``specs`` in Spark with the recommender inputs
    (``interactions``, ``catalog``, ``item_features``): the other engines' result, warnings
    and errors (see :func:`polars_rank.evaluate`;
    :func:`~polars_rank.engines.compiled_recsys.evaluate_recommender_tables`)."""
    refuse_unsupported(specs, "spark")
    options = options.unordered("engine='spark'")
    given = given_inputs(recommender, options.columns.doc)
    spark = _session(con, run, qrels, *given.values())
    frames: dict[str, SparkDataFrame] = {}
    schemas: dict[str, pl.Schema] = {}
    for name, obj in {"run": run, "qrels": qrels, **given}.items():
        if obj is not None:
            frames[name], schemas[name], _ = _spark_frame(spark, obj, name)
    with _temp_views(spark, **frames) as views:
        tables = {name: Table(views[name], schemas[name]) for name in views}
        result = evaluate_recommender_tables(
            SparkTables(spark),
            tables.pop("run"),
            tables.pop("qrels", None),
            tables,
            specs,
            options,
            per_query=per_query,
            warn=warn,
            by=by,
        )
    return result.lazy() if isinstance(run, pl.LazyFrame) else result
