"""``evaluate_classification(..., engine="spark")``: the portable SQL of
:func:`polars_rank.compiler.classification.classification_sql` runs in Spark; only the result
rows (one per ``by`` segment) come back, as a Polars frame.

The predictions may be a PySpark DataFrame, a table or view name the session knows, or a
Polars frame (sent through Arrow: for tests and small data). The input is registered as a
temporary view under a unique name (dropped afterwards), checked by one aggregation job (the
query of :func:`~polars_rank.check_sql` with ``predictions=``) unless ``validate=False``, and
evaluated by one query (dialect ``"spark"``). The result has the Polars engine's columns (the
``by`` columns in their Spark types, then the metric labels as written: Float64, the counts
Int64 without a weight, as in the Polars engine).

Example, with ``spark`` a running SparkSession (``tests/compiler/test_classification.py`` runs it)::

    pr.evaluate_classification("db.impressions", ["AUC", "GAUC", "LogLoss"], label="clicked",
                                score="p", group="user", engine="spark", con=spark)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.compiler.classification import (
    HARD_PROBLEMS,
    classification_sql,
    predictions_check_sql,
)
from polars_rank.compiler.columns import column_names, metric_outputs
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.frames import from_arrow
from polars_rank.core.grouping import check_by_names
from polars_rank.engines.spark.checks import quoted
from polars_rank.engines.spark.ranking import _session, _spark_frame, _temp_views

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_WORDING = {
    "empty": "has no row",
    "bad_label": "has labels other than 0 and 1, e.g. {example}",
    "bad_score": "has NaN scores",
    "score_outside_0_1": "has scores outside [0, 1] (the metrics of probabilities need "
    "probabilities), e.g. {example}",
    "bad_weight": "has negative, NaN or infinite weights, e.g. {example}",
}


def _check(
    spark: SparkSession,
    view: str,
    specs: list[MetricSpec],
    label: str,
    score: str,
    weight: str | None,
) -> None:
    """Raise :class:`PolarsRankError` for the first problem the Polars engine refuses (NULL
    rows are skipped there, as here)."""
    sql = predictions_check_sql(
        "spark", quoted(view), metrics=specs, label=label, score=score, weight=weight
    )
    for row in spark.sql(sql).collect():
        if row["problem"] in HARD_PROBLEMS and row["problem"] != "empty":
            column = {"bad_label": label, "bad_weight": weight}.get(row["problem"], score)
            wording = _WORDING[row["problem"]].format(example=row["example_query"])
            raise PolarsRankError(f"column {column!r} {wording} ({row['rows_affected']} rows)")


def evaluate_classification_spark(
    data: Any,
    specs: list[MetricSpec],
    *,
    label: str,
    score: str,
    by: Sequence[str],
    group: Sequence[str],
    threshold: float,
    weight: str | None,
    con: SparkSession | None = None,
    validate: bool = True,
) -> pl.DataFrame:
    """Evaluate in Spark; the same result as the Polars engine (see
    :func:`polars_rank.evaluate_classification`). No input row is collected to the driver:
    Spark runs the check and the evaluation, and returns one row per segment."""
    try:
        cut = float(threshold)
    except (TypeError, ValueError):
        cut = math.nan
    if not math.isfinite(cut):
        raise PolarsRankError(f"threshold must be a finite number, got {threshold!r}")
    spark = _session(con, data)
    frame, schema, _ = _spark_frame(spark, data, "data")
    weights = [weight] if weight is not None else []
    for column in dict.fromkeys([label, score, *by, *group, *weights]):
        if column not in schema:
            raise PolarsRankError(f"column {column!r} not found; columns are {schema.names()}")
    check_by_names(by, {}, metric_outputs(specs))
    for name, dtype in ((label, schema[label]), (score, schema[score])):
        if not (dtype.is_numeric() or dtype == pl.Boolean):
            raise PolarsRankError(f"column {name!r} must hold numbers, got {dtype} values")
    if schema[label] == pl.Boolean:
        frame = frame.withColumn(label, frame[label].cast("int"))
    with _temp_views(spark, predictions=frame) as views:
        view = views["predictions"]
        if validate:
            _check(spark, view, specs, label, score, weight)
        sql = classification_sql(
            specs,
            "spark",
            quoted(view),
            label=label,
            score=score,
            by=list(by) or None,
            group=list(group) or None,
            threshold=cut,
            weight=weight,
        )
        result = from_arrow(spark.sql(sql).toArrow())
    names = column_names(specs, reserved=list(by))
    result = result.rename({v: k for k, v in names.items()})
    labels = [s.label for s in specs]
    # the SQL's BIGINT counts (unweighted) stay integers, as the Polars engine's Int64
    return result.select(*by, *labels).with_columns(
        pl.col(c).cast(pl.Int64 if result.schema[c].is_integer() else pl.Float64) for c in labels
    )
