"""Benchmark: ``evaluate(engine="duckdb")`` vs DuckDB's own floor and the Polars engine.

Usage (from the repository root):

    uv run python bench/bench_duckdb.py --rows 1M --repeat 5
    uv run python bench/bench_duckdb.py --rows 10M --repeat 3
    uv run python bench/bench_duckdb.py --rows 10M --memory

Data: the same generator as bench_ranking.py (``n_queries × 100`` retrieved documents with
scores on a 1/1000 grid, so ties occur; ~5 judged documents per query, 3 retrieved, grades
0–3). Metrics: nDCG@10, RR@10, AP, R@100, P@10.

Variants, all starting from the same Polars DataFrames and ending with a Polars DataFrame:

* ``duckdb_engine``: ``pr.evaluate(run, qrels, METRICS, engine="duckdb")`` (validation on).
* ``duckdb_engine_novalidate``: the same with ``validate=False``.
* ``duckdb_floor``: DuckDB's floor, ``row_number() OVER (PARTITION BY query ORDER BY score
  DESC)`` and one grouped sum, on the run registered with DuckDB.
* ``polars_engine``: ``pr.evaluate(run, qrels, METRICS)``.

Timing: the variants run in turn, ``--repeat`` rounds; the median wall time and the median
process CPU time (all threads) are reported. ``--memory`` runs each variant in a fresh
subprocess, which reads the data from Parquet, and reports its peak resident set size and
its growth during the evaluation.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402  (the data and metrics of bench_ranking.py)
    METRICS,
    Variant,
    cpu_seconds,
    duckdb_floor,
    frame_mib,
    generate,
    load,
    machine,
    make_data,
    memory,
    memory_child,
    parse_rows,
)


def duckdb_engine(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    import polars_rank as pr

    return pr.evaluate(run, qrels, METRICS, engine="duckdb")


def duckdb_engine_novalidate(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    import polars_rank as pr

    return pr.evaluate(run, qrels, METRICS, engine="duckdb", validate=False)


def polars_engine(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    import polars_rank as pr

    return pr.evaluate(run, qrels, METRICS)


VARIANTS: dict[str, Variant] = {
    "duckdb_engine": duckdb_engine,
    "duckdb_engine_novalidate": duckdb_engine_novalidate,
    "duckdb_floor": duckdb_floor,
    "polars_engine": polars_engine,
}


def _timing(rows: int, repeat: int) -> None:
    run, qrels = make_data(rows // 100)
    print(f"machine: {machine()}; load average {load()}")
    print(
        f"rows={run.height:,} queries={run['query'].n_unique():,} qrels={qrels.height:,} "
        f"input={frame_mib(run, qrels):.1f} MiB repeat={repeat}"
    )
    for fn in VARIANTS.values():  # warm-up: imports, first connection
        fn(run.head(1000), qrels.head(1000))
    wall: dict[str, list[float]] = {v: [] for v in VARIANTS}
    cpu: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for _ in range(repeat):
        for variant, fn in VARIANTS.items():
            cpu_start, start = cpu_seconds(), time.perf_counter()
            fn(run, qrels)
            wall[variant].append(time.perf_counter() - start)
            cpu[variant].append(cpu_seconds() - cpu_start)
    median = {v: statistics.median(t) for v, t in wall.items()}
    for variant in VARIANTS:
        print(
            f"{variant:26s} median {median[variant]:7.3f}s  "
            f"cpu {statistics.median(cpu[variant]):7.3f}s"
            f"  runs {[round(t, 3) for t in wall[variant]]}"
        )
    for variant in ("duckdb_engine", "duckdb_engine_novalidate"):
        print(
            f"{variant} / duckdb_floor = {median[variant] / median['duckdb_floor']:.2f}x   "
            f"/ polars_engine = {median[variant] / median['polars_engine']:.2f}x"
        )
    print(f"load average after: {load()}")


def main() -> None:
    warnings.simplefilter("ignore")  # the "queries without judgments" notice
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="1M", help="run rows: 1M, 10M, ... (100 per query)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--memory", action="store_true", help="peak RSS of each variant, each in its own subprocess"
    )
    parser.add_argument("--_child", help=argparse.SUPPRESS)
    parser.add_argument("--_data", help=argparse.SUPPRESS)
    parser.add_argument("--_generate", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rows = parse_rows(args.rows)
    if args._generate:
        generate(rows, args._generate)
    elif args._child:
        memory_child(VARIANTS[args._child], args._data)
    elif args.memory:
        memory(__file__, rows, VARIANTS)
    else:
        _timing(rows, args.repeat)


if __name__ == "__main__":
    main()
