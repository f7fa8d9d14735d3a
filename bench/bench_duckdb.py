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
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ranking import METRICS, make_data  # noqa: E402  (the same data and metrics)


def duckdb_engine(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    import polars_rank as pr

    return pr.evaluate(run, qrels, METRICS, engine="duckdb")


def duckdb_engine_novalidate(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    import polars_rank as pr

    return pr.evaluate(run, qrels, METRICS, engine="duckdb", validate=False)


def duckdb_floor(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """DuckDB's floor: rank by score within query, then one grouped sum."""
    import duckdb

    con = duckdb.connect()
    con.register("run", run)
    return con.sql(
        "SELECT query, sum(rank) AS rank FROM (SELECT query, row_number() OVER "
        "(PARTITION BY query ORDER BY score DESC) AS rank FROM run) GROUP BY query"
    ).pl()


def polars_engine(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    import polars_rank as pr

    return pr.evaluate(run, qrels, METRICS)


VARIANTS: dict[str, Callable[[pl.DataFrame, pl.DataFrame], object]] = {
    "duckdb_engine": duckdb_engine,
    "duckdb_engine_novalidate": duckdb_engine_novalidate,
    "duckdb_floor": duckdb_floor,
    "polars_engine": polars_engine,
}


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _rows(text: str) -> int:
    text = text.upper()
    if text.endswith("M"):
        return int(float(text[:-1]) * 1_000_000)
    if text.endswith("K"):
        return int(float(text[:-1]) * 1_000)
    return int(text)


def _frame_mib(*frames: pl.DataFrame) -> float:
    return sum(f.estimated_size() for f in frames) / 2**20


def _memory_child(variant: str, data_dir: str) -> None:
    run = pl.read_parquet(Path(data_dir) / "run.parquet")
    qrels = pl.read_parquet(Path(data_dir) / "qrels.parquet")
    VARIANTS[variant](run.head(1000), qrels)  # imports and first-call set-up, not the peak
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    VARIANTS[variant](run, qrels)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "variant": variant,
                "input_mib": _frame_mib(run, qrels),
                "rss_before_mib": before,
                "peak_rss_mib": peak,
            }
        )
    )


def _memory(rows: int) -> None:
    """Each variant in a fresh process that reads the data from Parquet (so that the data
    generator's own peak does not hide the variant's)."""
    print(f"rows={rows:,}")
    with tempfile.TemporaryDirectory() as data_dir:
        # generated in a child too: Linux keeps a process's peak RSS across exec, so this
        # process must stay small for its children's numbers to mean anything
        subprocess.run(
            [sys.executable, __file__, "--rows", str(rows), "--_generate", data_dir], check=True
        )
        for variant in VARIANTS:
            out = subprocess.run(
                [sys.executable, __file__, "--_child", variant, "--_data", data_dir],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            data = json.loads(out.strip().splitlines()[-1])
            growth = data["peak_rss_mib"] - data["rss_before_mib"]
            print(
                f"{variant:26s} input frames {data['input_mib']:7.1f} MiB   "
                f"RSS before {data['rss_before_mib']:7.1f} MiB   "
                f"peak RSS {data['peak_rss_mib']:7.1f} MiB   growth {growth:7.1f} MiB "
                f"({growth / data['input_mib']:.2f}x input)"
            )


def _timing(rows: int, repeat: int) -> None:
    run, qrels = make_data(rows // 100)
    print(
        f"rows={run.height:,} queries={run['query'].n_unique():,} qrels={qrels.height:,} "
        f"input={_frame_mib(run, qrels):.1f} MiB repeat={repeat}"
    )
    for fn in VARIANTS.values():  # warm-up: imports, first connection
        fn(run.head(1000), qrels.head(1000))
    wall: dict[str, list[float]] = {v: [] for v in VARIANTS}
    cpu: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for _ in range(repeat):
        for variant, fn in VARIANTS.items():
            cpu_start, start = _cpu_seconds(), time.perf_counter()
            fn(run, qrels)
            wall[variant].append(time.perf_counter() - start)
            cpu[variant].append(_cpu_seconds() - cpu_start)
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
    rows = _rows(args.rows)
    if args._generate:
        run, qrels = make_data(rows // 100)
        run.write_parquet(Path(args._generate) / "run.parquet")
        qrels.write_parquet(Path(args._generate) / "qrels.parquet")
    elif args._child:
        _memory_child(args._child, args._data)
    elif args.memory:
        _memory(rows)
    else:
        _timing(rows, args.repeat)


if __name__ == "__main__":
    main()
