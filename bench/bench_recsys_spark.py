"""Benchmark: recommender metrics on Spark (``evaluate(..., engine="spark", interactions=,
catalog=, item_features=)``) and in the compiled SQL on DuckDB, beside the Polars engine.

Usage (from the repository root; Spark needs Java 17+):

    uv run python bench/bench_recsys_spark.py --users 1M --k 20 --repeat 1
    uv run python bench/bench_recsys_spark.py --users 50K --skip-spark

Data: ``users`` users with ``k`` recommendations each over 20,000 items (scores with ties), 5
interactions per user, a catalog of every item, 16-component feature vectors. Metrics:
nDCG@10, catalog coverage, Gini, novelty, ARP, APLT, TailPercentage, ILD (vectors). Timings:
median of ``--repeat`` runs after loading (Parquet for Spark; Spark's session start is not
timed); one JSON line per variant with the largest difference from the Polars engine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

import polars_rank as pr
from polars_rank.compiler.columns import column_names

METRICS = ["nDCG@10", "coverage@10", "gini@10", "novelty@10", "arp@10", "aplt@10",
           "TailPercentage@10", "ild@10"]  # fmt: skip
ITEMS = 20_000


def parse_count(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1], 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def make_data(users: int, k: int, seed: int = 0) -> dict[str, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    popularity = 1.0 / (np.arange(ITEMS) + 10.0) ** 0.8  # long tail
    p = popularity / popularity.sum()
    run = pl.DataFrame(
        {
            "query": np.repeat(np.arange(users, dtype=np.int64), k),
            "doc": rng.choice(ITEMS, users * k, p=p).astype(np.int64),
            "score": np.round(rng.random(users * k), 2),
        }
    ).unique(["query", "doc"])
    qrels = run.filter(pl.col("score") > 0.8).select(
        "query", "doc", pl.lit(1, dtype=pl.Int64).alias("relevance")
    )
    interactions = pl.DataFrame(
        {
            "query": np.repeat(np.arange(users, dtype=np.int64), 5),
            "doc": rng.choice(ITEMS, users * 5, p=p).astype(np.int64),
        }
    )
    catalog = pl.DataFrame({"doc": np.arange(ITEMS, dtype=np.int64)})
    vectors = pl.DataFrame(
        {"doc": np.arange(ITEMS, dtype=np.int64), "vector": rng.normal(size=(ITEMS, 16)).tolist()}
    )
    return {"run": run, "qrels": qrels, "interactions": interactions, "catalog": catalog,
            "item_features": vectors}  # fmt: skip


def timed(go: Callable[[], pl.DataFrame], repeat: int) -> tuple[float, pl.DataFrame]:
    times, out = [], pl.DataFrame()
    for _ in range(repeat):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = go()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def difference(a: pl.DataFrame, b: pl.DataFrame) -> float:
    """The largest relative difference (absolute below 1) over the metrics."""
    return max(
        abs(float(a[c][0]) - float(b[c][0])) / max(1.0, abs(float(a[c][0]))) for c in METRICS
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", default="50K")
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--skip-spark", action="store_true")
    args = parser.parse_args()
    data = make_data(parse_count(args.users), args.k)
    inputs = {k: data[k] for k in ("interactions", "catalog", "item_features")}
    seconds, reference = timed(
        lambda: pr.evaluate(data["run"], data["qrels"], METRICS, validate=False, **inputs),
        args.repeat,
    )
    rows = data["run"].height
    print(json.dumps({"variant": "polars engine", "run_rows": rows, "seconds": seconds}))

    import duckdb

    con = duckdb.connect()
    for name, frame in data.items():
        con.register("pr_source", frame)
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM pr_source")
        con.unregister("pr_source")
    sql = pr.to_sql(METRICS, "duckdb", "run", "qrels", interactions="interactions",
                    catalog="catalog", item_features="item_features")  # fmt: skip
    names = column_names(METRICS)
    seconds, out = timed(
        lambda: con.sql(sql).pl().rename({v: k for k, v in names.items()}), args.repeat
    )
    print(json.dumps({"variant": "to_sql on DuckDB", "seconds": seconds,
                      "max_rel_diff": difference(reference, out)}))  # fmt: skip
    if args.skip_spark:
        return
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
        frames = {}
        for name, frame in data.items():
            path = Path(folder) / f"{name}.parquet"
            frame.write_parquet(path)
            frames[name] = spark.read.parquet(str(path)).cache()
            frames[name].count()
        seconds, out = timed(
            lambda: pr.evaluate(
                frames["run"],
                frames["qrels"],
                METRICS,
                engine="spark",
                validate=False,
                interactions=frames["interactions"],
                catalog=frames["catalog"],
                item_features=frames["item_features"],
            ),
            args.repeat,
        )
        print(json.dumps({"variant": "engine=spark", "seconds": seconds,
                          "max_rel_diff": difference(reference, out)}))  # fmt: skip
    spark.stop()


if __name__ == "__main__":
    main()
