"""``evaluate_ratings(..., engine="spark")`` on the session's tables: ratings or predictions
given as Spark DataFrames or table names stay in Spark. Both become temporary views (a Polars,
pandas or Arrow frame beside them is sent through Arrow), dropped afterwards;
:func:`polars_rank.engines.rating_inputs.evaluate_tables` checks them (one job counting the
problems, with the Polars engine's messages) and runs the compiled query of
:func:`polars_rank.rating_sql`: only the counts and the result rows (one per ``by`` segment)
come back to the driver.

Example, with ``spark`` a running SparkSession (``tests/ratings/test_spark_tables.py`` runs
it)::

    pr.evaluate_ratings("db.ratings", spark.table("db.predictions"), ["RMSE", "MAE"],
                        by="market", engine="spark", con=spark)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rank.compiler.columns import metric_outputs
from polars_rank.core.frames import to_frame
from polars_rank.core.grouping import check_by_names
from polars_rank.engines.compiled import Table
from polars_rank.engines.rating_inputs import evaluate_tables
from polars_rank.engines.spark.checks import SparkTables
from polars_rank.engines.spark.ranking import _session, _spark_frame, _temp_views

if TYPE_CHECKING:
    import polars as pl

    from polars_rank.engines.request import RatingRequest


def in_session(obj: object) -> bool:
    """Whether ``obj`` is a table of a Spark session: a Spark DataFrame or a table name."""
    return isinstance(obj, str) or getattr(obj, "sparkSession", None) is not None


def evaluate_ratings_spark(request: RatingRequest) -> pl.DataFrame:
    """The Polars engine's result for ``request``, whose ratings or predictions (or both)
    are tables of the session (see the module docstring)."""
    check_by_names(request.by, {}, metric_outputs(request.specs))
    spark = _session(request.con, request.ratings, request.predictions)
    tables = {}
    for what, obj in (("ratings", request.ratings), ("predictions", request.predictions)):
        tables[what] = _spark_frame(spark, obj if in_session(obj) else to_frame(obj, what), what)
    with _temp_views(spark, **{what: t[0] for what, t in tables.items()}) as views:
        return evaluate_tables(
            SparkTables(spark),
            Table(views["ratings"], tables["ratings"][1], tables["ratings"][2]),
            Table(views["predictions"], tables["predictions"][1], tables["predictions"][2]),
            request,
        )
