"""The speed guard: this checkout's package against another commit's, row by row, alternated.

Usage (from the repository root):

    uv run python bench/bench_ab.py                          # against 354a74c, 5 rounds
    uv run python bench/bench_ab.py --base HEAD~3 --rounds 7 --rows polars_1m,cls_duckdb_1m

The other commit is checked out once (``git worktree add --detach`` in a temporary folder,
removed at the end); each measurement is a fresh Python process whose ``PYTHONPATH`` puts one
checkout's ``polars_rank`` first (the child prints the package it imported, so a run that
read the wrong one is visible). Per round and row, the two sides run one after the other, the
order swapped every round, so a machine that drifts slows both. A child loads its data from
Parquet, runs the call once (warm-up: imports, DuckDB macros), then ``--repeat`` times, and
reports the median wall time and its peak RSS. The table gives, per row, the median over
rounds of each side, the ratio new / base and whether it is within ``--tolerance`` (5 %).

Rows: the rows of :mod:`bench_goals` that fit five rounds on a small machine, at 1M rows
(``polars_1m``, ``duckdb_1m``; ``duckdb_parquet_1m`` is the DuckDB engine reading Parquet, the
SQL-input path with its checks; ``by_*`` is ``by="system"`` over 10 systems x 100k rows), and
the rows this guard adds: classification (AUC and log loss per user, 1M predictions, both
engines) and recommender metrics with ``by`` (``rec_by_*``: 5 systems x 20k users x 10 items,
history and item vectors). ``spark_200k`` (``engine="spark"``, checks on) starts a local
session per child and is left out unless named. The 10M-1B rows of :mod:`bench_goals` (floors,
memory growth, scale) are that script's: a ratio that moves here is followed up there.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

DEFAULT_ROWS = (
    "polars_1m",
    "duckdb_1m",
    "duckdb_parquet_1m",
    "by_polars",
    "by_duckdb",
    "cls_polars_1m",
    "cls_duckdb_1m",
    "rec_by_polars",
    "rec_by_duckdb",
)
OPTIONAL_ROWS = ("spark_200k",)


def generate(data: Path) -> None:
    """The rows' inputs as Parquet files in ``data`` (once; kept for the next run)."""
    import polars as pl
    from _common import make_data
    from bench_by import recommender_data, stacked_systems
    from bench_classification import make_data as predictions

    data.mkdir(parents=True, exist_ok=True)
    done = data / "done"
    if done.exists():
        return
    run, qrels = make_data(10_000)
    run.write_parquet(data / "run.parquet")
    qrels.write_parquet(data / "qrels.parquet")
    small, small_qrels = make_data(2_000)
    small.write_parquet(data / "run_200k.parquet")
    small_qrels.write_parquet(data / "qrels_200k.parquet")
    stacked, shared = stacked_systems(10, 100_000)
    stacked.write_parquet(data / "stacked.parquet")
    shared.write_parquet(data / "stacked_qrels.parquet")
    predictions(1_000_000, 10_000).write_parquet(data / "predictions.parquet")
    rec, history, vectors = recommender_data(5, 20_000, 10)
    rec.write_parquet(data / "rec.parquet")
    history.write_parquet(data / "history.parquet")
    vectors.write_parquet(data / "vectors.parquet")
    pl.DataFrame({"done": [True]}).write_parquet(done)


def _call(row: str, data: Path) -> Callable[[], object]:
    """The timed call of ``row`` (its inputs read here, outside the timing)."""
    import polars as pl
    from _common import METRICS

    import polars_rank as pr

    def read(name: str) -> pl.DataFrame:
        return pl.read_parquet(data / f"{name}.parquet")

    if row in ("polars_1m", "duckdb_1m"):
        run, qrels = read("run"), read("qrels")
        engine = row.split("_")[0]
        return lambda: pr.evaluate(run, qrels, METRICS, engine=engine)
    if row == "duckdb_parquet_1m":
        paths = str(data / "run.parquet"), str(data / "qrels.parquet")
        return lambda: pr.evaluate(*paths, METRICS, engine="duckdb")
    if row.startswith("by_"):
        stacked, shared = read("stacked"), read("stacked_qrels")
        engine = row.removeprefix("by_")
        return lambda: pr.evaluate(stacked, shared, METRICS, by="system", engine=engine)
    if row.startswith("cls_"):
        predictions = read("predictions")
        engine = row.split("_")[1]
        return lambda: pr.evaluate_classification(
            predictions, ["AUC", "LogLoss"], label="clicked", score="p", by="user", engine=engine
        )
    if row.startswith("rec_by_"):
        from bench_by import REC_METRICS

        rec, history, vectors = read("rec"), read("history"), read("vectors")
        engine = row.removeprefix("rec_by_")
        return lambda: pr.evaluate(
            rec,
            None,
            REC_METRICS,
            by="system",
            engine=engine,
            interactions=history,
            item_features=vectors,
        )
    if row == "spark_200k":
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.master("local[2]").getOrCreate()
        run, qrels = read("run_200k"), read("qrels_200k")
        sdf_run, sdf_qrels = (
            spark.createDataFrame(run.to_arrow()),
            spark.createDataFrame(qrels.to_arrow()),
        )
        return lambda: pr.evaluate(sdf_run, sdf_qrels, METRICS, engine="spark", con=spark)
    raise SystemExit(f"unknown row {row!r} (rows: {', '.join(DEFAULT_ROWS + OPTIONAL_ROWS)})")


def child(row: str, data: Path, repeat: int) -> None:
    """One measurement: warm-up, then ``repeat`` timed calls; one JSON line on stdout."""
    import polars_rank

    call = _call(row, data)
    call()
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        walls.append(time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "package": str(Path(polars_rank.__file__).resolve().parent.parent),
                "wall": statistics.median(walls),
                "peak_mib": peak,
            }
        )
    )


def _measure(checkout: Path, row: str, data: Path, repeat: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": f"{checkout}{os.pathsep}{HERE}"}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "child", row, str(data), str(repeat)],
        capture_output=True,
        text=True,
        env=env,
        cwd=checkout,
    )
    if done.returncode:
        raise RuntimeError(f"{row} in {checkout} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if Path(result["package"]) != checkout.resolve():
        raise RuntimeError(f"{row}: imported {result['package']}, not {checkout}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    kid = sub.add_parser("child")
    kid.add_argument("row")
    kid.add_argument("data", type=Path)
    kid.add_argument("repeat", type=int)
    gen = sub.add_parser("generate")
    gen.add_argument("data", type=Path)
    parser.add_argument("--base", default="354a74c", help="the commit to compare against")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per child")
    parser.add_argument("--rows", default=",".join(DEFAULT_ROWS))
    parser.add_argument("--tolerance", type=float, default=0.05)
    parser.add_argument(
        "--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "polars_rank_bench_ab"
    )
    args = parser.parse_args()
    if args.command == "child":
        child(args.row, args.data, args.repeat)
        return
    if args.command == "generate":
        generate(args.data)
        return
    from _common import load, machine

    rows = [r for r in args.rows.split(",") if r]
    # in a process of its own: a child's peak RSS would include this process' (Linux keeps
    # the high-water mark across fork and exec)
    here = str(Path(__file__).resolve())
    subprocess.run([sys.executable, here, "generate", str(args.data_dir)], check=True)
    print(machine(), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base), args.base],
            check=True,
        )
        try:
            sides = {"base": base, "new": ROOT}
            walls: dict[tuple[str, str], list[float]] = {}
            peaks: dict[tuple[str, str], list[float]] = {}
            for i in range(args.rounds):
                print(f"round {i + 1}/{args.rounds} (load {load()})", flush=True)
                for row in rows:
                    order = ["base", "new"] if i % 2 == 0 else ["new", "base"]
                    for side in order:
                        result = _measure(sides[side], row, args.data_dir, args.repeat)
                        walls.setdefault((row, side), []).append(result["wall"])
                        peaks.setdefault((row, side), []).append(result["peak_mib"])
                        print(f"  {row:<18} {side:<4} {result['wall']:.3f} s", flush=True)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False
            )
    print(f"\nbase {args.base}, {args.rounds} rounds, load {load()}")
    print(
        "| row | base median s | new median s | new / base | per-round ratios "
        "| peak MiB base/new | within |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        b, n = walls[(row, "base")], walls[(row, "new")]
        ratio = statistics.median(n) / statistics.median(b)
        rounds = ", ".join(f"{y / x:.2f}" for x, y in zip(b, n, strict=True))
        peak = f"{max(peaks[(row, 'base')]):.0f}/{max(peaks[(row, 'new')]):.0f}"
        within = "yes" if ratio <= 1 + args.tolerance else "no"
        print(
            f"| {row} | {statistics.median(b):.3f} | {statistics.median(n):.3f} | {ratio:.3f} "
            f"| {rounds} | {peak} | {within} |"
        )


if __name__ == "__main__":
    main()
