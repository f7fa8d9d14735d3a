"""``evaluate_policy(..., engine="spark")``: the compiled SQL of
:func:`polars_rank.policy_sql` (dialect ``spark``) runs in Spark over the checked log,
policy and reward model estimates (Polars frames, sent through Arrow as temporary views)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank.core.frames import from_arrow
from polars_rank.engines.policy_inputs import compiled_result, request_sql
from polars_rank.engines.spark.checks import quoted
from polars_rank.engines.spark.ranking import _session, _spark_frame, _temp_views

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from polars_rank.engines.request import PolicyRequest


def evaluate_policy(
    log: pl.DataFrame,
    policy: pl.DataFrame,
    q_hat: pl.DataFrame | None,
    request: PolicyRequest,
    con: SparkSession | None,
) -> pl.DataFrame:
    """The Polars engine's result, computed by Spark."""
    spark = _session(con)
    frames = {"log": log, "policy": policy}
    if q_hat is not None:
        frames["q_hat"] = q_hat
    sent = {key: _spark_frame(spark, frame, key)[0] for key, frame in frames.items()}
    with _temp_views(spark, **sent) as views:
        sql = request_sql(request, "spark", {k: quoted(views[k]) for k in views})
        values = from_arrow(spark.sql(sql).toArrow())
    return compiled_result(values, log.schema, request)
