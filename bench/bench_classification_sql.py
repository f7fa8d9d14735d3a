"""Benchmark: classification metrics in the compiled SQL (``pr.to_sql(..., predictions=)``) on
DuckDB and on Spark (``evaluate_classification(..., engine="spark")``), beside the Polars
engine and Spark MLlib's ``BinaryClassificationEvaluator`` (AUC only, ``numBins=0``: exact; its
default of 1,000 bins gives an approximate AUC).

Usage (from the repository root; Spark needs Java 17+):

    uv run python bench/bench_classification_sql.py --rows 10M --users 1M --repeat 3
    uv run python bench/bench_classification_sql.py --rows 1M --skip-spark

Data: ``rows`` impressions over ``users`` users, click rate 30%, scores on a 1/1000 grid (ties),
weights 1-3. Metrics: AUC, GAUC (group = user), LogLoss, NE, Brier, calibration, AP,
F1, TP. Timings: median of ``--repeat`` runs after loading (Parquet for Spark, an in-memory
table for DuckDB); Spark's session start is not timed. Prints one JSON line per variant with
the seconds and the largest difference from the Polars engine's values.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

import polars_rank as pr
from polars_rank.compiler.columns import column_names

METRICS = ["AUC", "GAUC", "LogLoss", "NE", "Brier", "calibration", "AP", "F1", "TP"]


def parse_count(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1], 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def make_data(rows: int, users: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    clicked = (rng.random(rows) < 0.3).astype(np.int64)
    score = np.round(np.clip(0.2 * clicked + rng.random(rows) * 0.8, 0, 1), 3)
    return pl.DataFrame(
        {
            "user": rng.integers(0, users, rows, dtype=np.int64),
            "clicked": clicked,
            "p": score,
            "w": rng.integers(1, 4, rows).astype(np.float64),
        }
    )


def timed(go: Callable[[], pl.DataFrame], repeat: int) -> tuple[float, pl.DataFrame]:
    times, out = [], pl.DataFrame()
    for _ in range(repeat):
        start = time.perf_counter()
        out = go()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def largest_difference(a: pl.DataFrame, b: pl.DataFrame, labels: list[str]) -> float:
    """The largest relative difference (absolute below 1) over the metrics."""
    return max(abs(float(a[c][0]) - float(b[c][0])) / max(1.0, abs(float(a[c][0]))) for c in labels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1M")
    parser.add_argument("--users", default="100K")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-spark", action="store_true")
    args = parser.parse_args()
    df = make_data(parse_count(args.rows), parse_count(args.users))
    options = {"label": "clicked", "score": "p", "group": "user"}
    seconds, reference = timed(
        lambda: pr.evaluate_classification(df, METRICS, validate=False, **options), args.repeat
    )
    print(json.dumps({"variant": "polars engine", "rows": df.height, "seconds": seconds}))

    import duckdb

    con = duckdb.connect()
    con.execute("CREATE TABLE preds AS SELECT * FROM df")
    sql = pr.to_sql(METRICS, "duckdb", predictions="preds", **options)
    names = column_names(METRICS)
    seconds, out = timed(
        lambda: con.sql(sql).pl().rename({v: k for k, v in names.items()}), args.repeat
    )
    diff = largest_difference(reference, out, METRICS)
    print(json.dumps({"variant": "to_sql on DuckDB", "seconds": seconds, "max_rel_diff": diff}))

    if args.skip_spark:
        return
    from pyspark.ml.evaluation import BinaryClassificationEvaluator
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "6g")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "preds.parquet"
        df.write_parquet(path)
        sdf = spark.read.parquet(str(path)).cache()
        sdf.count()
        seconds, out = timed(
            lambda: pr.evaluate_classification(
                sdf, METRICS, engine="spark", validate=False, **options
            ),
            args.repeat,
        )
        diff = largest_difference(reference, out, METRICS)
        print(json.dumps({"variant": "engine=spark", "seconds": seconds, "max_rel_diff": diff}))
        seconds, _ = timed(
            lambda: pr.evaluate_classification(sdf, METRICS, engine="spark", **options), 1
        )
        print(json.dumps({"variant": "engine=spark, validate", "seconds": seconds}))
        scored = sdf.selectExpr("CAST(clicked AS DOUBLE) AS label", "p AS rawPrediction")
        for bins in (0, 1000):
            evaluator = BinaryClassificationEvaluator(
                rawPredictionCol="rawPrediction", labelCol="label", numBins=bins
            )
            start = time.perf_counter()
            auc = evaluator.evaluate(scored)
            print(
                json.dumps(
                    {
                        "variant": f"MLlib BinaryClassificationEvaluator numBins={bins} (AUC)",
                        "seconds": time.perf_counter() - start,
                        "auc_diff": abs(auc - float(reference["AUC"][0])),
                    }
                )
            )
    spark.stop()


if __name__ == "__main__":
    main()
