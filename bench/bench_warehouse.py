"""Benchmark: the portable SQL of ``pr.to_sql`` on Spark, DuckDB and ClickHouse (chDB), next to
the Polars engine, the DuckDB engine (macros) and Spark MLlib's RankingEvaluator, on the same
data.

Usage (from the repository root; needs Java 17+ for Spark):

    uv run python bench/bench_warehouse.py --rows 1M --repeat 3
    uv run python bench/bench_warehouse.py --rows 10M --repeat 3
    uv run python bench/bench_warehouse.py --rows 10M --repeat 3 --skip-spark   # local only

Data: ``make_data`` of bench_ranking.py (``n_queries × 100`` retrieved documents, string ids,
scores on a 1/1000 grid so that ties occur, ~5 judged documents per query, grades 0–3),
written once to Parquet. Metrics: nDCG@10, RR@10, AP, R@100, P@10.

Variants (times are wall seconds of the evaluation alone, inputs already loaded):

* ``polars engine``: ``pr.evaluate(run, qrels, METRICS, validate=False)``;
* ``duckdb engine (macros)``: the same with ``engine="duckdb"``;
* ``to_sql on DuckDB``: ``pr.to_sql(METRICS, "duckdb", ...)`` over the registered frames;
* over the same Parquet files: ``duckdb engine, Parquet`` (the paths given to ``evaluate``),
  ``to_sql on DuckDB, Parquet`` (views over ``read_parquet``) and ``to_sql on chDB, Parquet``
  (``pr.to_sql(METRICS, "clickhouse", ...)`` in chDB's in-process ClickHouse, views over
  ``file(..., Parquet)``; the result comes back as Arrow) and ``clickhouse engine, Parquet``
  (the paths given to ``evaluate(..., engine="clickhouse")``, which copies each file into a
  temporary table first);
* ``engine="spark"``: ``pr.evaluate(run_df, qrels_df, METRICS, engine="spark")`` on a
  ``local[2]`` session, the inputs a cached DataFrame read from the Parquet files (session start
  and the read are reported apart), with ``validate=False`` and ``validate=True`` alternating
  round by round, and the ratio of their medians (the cost of the input checks);
* ``Spark MLlib RankingEvaluator``: the five metrics it has (precisionAtK(10), recallAtK(100),
  meanAveragePrecision, meanAveragePrecisionAtK(10), ndcgAtK(10)), including the building of
  its per-query input lists (each run's documents in trec_eval's order, the relevant set).

The in-process variants run round-robin, ``--repeat`` rounds, so that load changes on the
shared host hit them alike; every line prints the 1-minute load average before and after. At
the end each variant's summary is compared with the Polars engine's, and MLlib's values with
polars_rank's for the same definition (see docs/guides/warehouses.md, Spark MLlib's table).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import METRICS, make_data, parse_rows  # noqa: E402

import polars_rank as pr  # noqa: E402
from polars_rank.compiler import column_names  # noqa: E402

#: MLlib metric, its k, and the polars_rank label computing the same definition.
MLLIB = [
    ("precisionAtK", 10, "P@10"),
    ("recallAtK", 100, "R@100"),
    ("meanAveragePrecision", None, "AP"),
    ("meanAveragePrecisionAtK", 10, "AP(denominator=min)@10"),
    ("ndcgAtK", 10, "nDCG@10"),
]


def _line(name: str, times: list[float], load: float, note: str = "") -> None:
    runs = ", ".join(f"{t:.2f}" for t in times)
    print(
        f"{name:30s} median {statistics.median(times):7.2f} s  runs [{runs}]  "
        f"load {load:.1f}->{os.getloadavg()[0]:.1f} {note}",
        flush=True,
    )


def local_variants(
    run: pl.DataFrame, qrels: pl.DataFrame, paths: tuple[Path, Path], repeat: int
) -> dict[str, pl.DataFrame]:
    """Polars engine, DuckDB engine and to_sql on DuckDB over the frames; the DuckDB engine,
    to_sql on DuckDB and to_sql on ClickHouse (chDB, in process) over the Parquet files;
    round-robin."""
    import duckdb
    from chdb import session

    con = duckdb.connect()
    con.register("run_t", run)
    con.register("qrels_t", qrels)
    run_path, qrels_path = (str(p) for p in paths)
    con.execute(f"CREATE VIEW run_p AS SELECT * FROM read_parquet('{run_path}')")
    con.execute(f"CREATE VIEW qrels_p AS SELECT * FROM read_parquet('{qrels_path}')")
    chdb = session.Session()
    chdb.query(f"CREATE VIEW run_p AS SELECT * FROM file('{run_path}', Parquet)")
    chdb.query(f"CREATE VIEW qrels_p AS SELECT * FROM file('{qrels_path}', Parquet)")
    sql = pr.to_sql(METRICS, "duckdb", "run_t", "qrels_t")
    parquet_sql = pr.to_sql(METRICS, "duckdb", "run_p", "qrels_p")
    clickhouse_sql = pr.to_sql(METRICS, "clickhouse", "run_p", "qrels_p")
    labels = {v: k for k, v in column_names(METRICS).items()}

    def clickhouse() -> pl.DataFrame:
        return pl.from_arrow(chdb.query(clickhouse_sql, "ArrowTable")).rename(labels)  # type: ignore[union-attr]

    variants: dict[str, Callable[[], pl.DataFrame]] = {
        "polars engine": lambda: pr.evaluate(run, qrels, METRICS, validate=False),
        "duckdb engine (macros)": lambda: pr.evaluate(
            run, qrels, METRICS, engine="duckdb", validate=False
        ),
        "to_sql on DuckDB": lambda: con.sql(sql).pl().rename(labels),
        "duckdb engine, Parquet": lambda: pr.evaluate(
            run_path, qrels_path, METRICS, engine="duckdb", validate=False
        ),
        "to_sql on DuckDB, Parquet": lambda: con.sql(parquet_sql).pl().rename(labels),
        "to_sql on chDB, Parquet": clickhouse,
        "clickhouse engine, Parquet": lambda: pr.evaluate(
            run_path, qrels_path, METRICS, engine="clickhouse", validate=False
        ),
    }
    for fn in variants.values():  # first-call set-up (imports, macros), not timed
        fn()
    times: dict[str, list[float]] = {name: [] for name in variants}
    results: dict[str, pl.DataFrame] = {}
    load = os.getloadavg()[0]
    for _ in range(repeat):
        for name, fn in variants.items():
            start = time.perf_counter()
            results[name] = fn()
            times[name].append(time.perf_counter() - start)
    for name in variants:
        _line(name, times[name], load, "(validate=False)" if "engine" in name else "")
    return results


def mllib_lists(spark, run_df, qrels_df):
    """Per judged query: the run's documents in trec_eval's order (score descending, doc id
    descending as text) and the relevant documents (grade >= 1), as arrays of doubles (the
    benchmark's ids are decimal integers), as RankingEvaluator takes them; a judged query
    missing from the run gets an empty list."""
    run_df.createOrReplaceTempView("mllib_run")
    qrels_df.createOrReplaceTempView("mllib_qrels")
    return spark.sql(
        """
        WITH ranked AS (
            SELECT query, transform(sort_array(collect_list(struct(CAST(score AS DOUBLE) AS s,
                   CAST(doc AS STRING) AS d)), false), x -> CAST(x.d AS DOUBLE)) AS prediction
            FROM mllib_run GROUP BY query),
        relevant AS (
            SELECT query, collect_list(CASE WHEN relevance >= 1 THEN CAST(doc AS DOUBLE) END)
                   AS label
            FROM mllib_qrels GROUP BY query)
        SELECT r.query, coalesce(k.prediction, CAST(array() AS ARRAY<DOUBLE>)) AS prediction,
               r.label
        FROM relevant AS r LEFT JOIN ranked AS k ON r.query = k.query
        """
    )


def spark_variants(run_path: Path, qrels_path: Path, repeat: int) -> dict[str, pl.DataFrame]:
    """engine="spark" (validate off and on, alternating) and MLlib, on one local[2] session."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.sql import SparkSession

    start = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "6g")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    started = time.perf_counter() - start
    start = time.perf_counter()
    run_df = spark.read.parquet(str(run_path)).cache()
    qrels_df = spark.read.parquet(str(qrels_path)).cache()
    run_df.count(), qrels_df.count()
    loaded = time.perf_counter() - start
    print(
        f"Spark {spark.version} local[2]: session start {started:.1f} s, "
        f"Parquet read + cache {loaded:.1f} s (neither timed below)",
        flush=True,
    )
    results: dict[str, pl.DataFrame] = {}

    def timed(name: str, fn: Callable[[], pl.DataFrame], rounds: int, note: str = "") -> None:
        load, times = os.getloadavg()[0], []
        for _ in range(rounds):
            start = time.perf_counter()
            results[name] = fn()
            times.append(time.perf_counter() - start)
        _line(name, times, load, note)

    def spark_engine(validate: bool) -> pl.DataFrame:
        return pr.evaluate(run_df, qrels_df, METRICS, engine="spark", validate=validate)

    spark_engine(False)  # first queries of the session: JIT warm-up, not timed
    spark_engine(True)
    # checks off and on alternate, round by round, so that load changes hit both alike
    load, times = os.getloadavg()[0], {False: [], True: []}
    for _ in range(repeat):
        for validate in (False, True):
            start = time.perf_counter()
            results[f'engine="spark" validate={validate}'] = spark_engine(validate)
            times[validate].append(time.perf_counter() - start)
    _line('engine="spark"', times[False], load, "(validate=False)")
    _line('engine="spark" validate=True', times[True], load)
    ratio = statistics.median(times[True]) / statistics.median(times[False])
    same = results['engine="spark" validate=True'].equals(results['engine="spark" validate=False'])
    print(f"  input checks on / off (medians): {ratio:.2f}x; results bit-identical: {same}")

    def mllib() -> pl.DataFrame:
        lists = mllib_lists(spark, run_df, qrels_df).cache()
        values = {}
        for metric, k, label in MLLIB:
            evaluator = RankingEvaluator(
                metricName=metric, predictionCol="prediction", labelCol="label"
            )
            if k is not None:
                evaluator.setK(k)
            values[label] = evaluator.evaluate(lists)
        lists.unpersist()
        return pl.DataFrame({label: [value] for label, value in values.items()})

    timed("Spark MLlib RankingEvaluator", mllib, repeat, "(5 metrics, input lists built)")
    spark.stop()
    return results


def compare(results: dict[str, pl.DataFrame], run: pl.DataFrame, qrels: pl.DataFrame) -> None:
    reference = results["polars engine"]
    for name, result in results.items():
        if name.startswith("Spark MLlib") or name == "polars engine":
            continue
        worst = max(abs(result[m][0] - reference[m][0]) for m in METRICS)
        print(f"  {name}: max |summary difference| from the Polars engine {worst:.1e}")
    if "Spark MLlib RankingEvaluator" not in results:
        return
    mllib = results["Spark MLlib RankingEvaluator"]
    labels = [label for _, _, label in MLLIB]
    ours = pr.evaluate(run, qrels, labels)
    binary = qrels.with_columns(pl.col("relevance").clip(0, 1))
    ours_binary = pr.evaluate(run, binary, ["nDCG@10"])["nDCG@10"][0]
    print("MLlib and polars_rank on the same data (MLlib given trec_eval-ordered lists):")
    for metric, k, label in MLLIB:
        theirs, mine = mllib[label][0], ours[label][0]
        line = f"  {metric}{'' if k is None else f'({k})'}: MLlib {theirs:.15f}  "
        line += f"polars_rank {label} {mine:.15f}  (difference {theirs - mine:.1e})"
        if label == "nDCG@10":
            line += f"; on binarised judgments {ours_binary:.15f} ({theirs - ours_binary:.1e})"
        print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1M", help="run rows, e.g. 1M or 10M")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-spark", action="store_true", help="local variants only")
    parser.add_argument("--data-dir", help="keep the generated Parquet files here")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rows = parse_rows(args.rows)
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(args.data_dir or tmp)
        data_dir.mkdir(parents=True, exist_ok=True)
        run_path, qrels_path = data_dir / f"run_{rows}.parquet", data_dir / f"qrels_{rows}.parquet"
        if not run_path.exists():
            run, qrels = make_data(rows // 100)
            run.write_parquet(run_path)
            qrels.write_parquet(qrels_path)
        run, qrels = pl.read_parquet(run_path), pl.read_parquet(qrels_path)
        print(
            f"rows={run.height:,} queries={run['query'].n_unique():,} judgments={qrels.height:,} "
            f"metrics={', '.join(METRICS)}; cores={os.cpu_count()}",
            flush=True,
        )
        results = local_variants(run, qrels, (run_path, qrels_path), args.repeat)
        if not args.skip_spark:
            results.update(spark_variants(run_path, qrels_path, args.repeat))
        compare(results, run, qrels)


if __name__ == "__main__":
    main()
