"""Benchmark: per-group ROC AUC and log loss — Polars, DuckDB, a scikit-learn loop, polars-ds.

Usage (from the repository root):

    uv run python bench/bench_classification.py --rows 10M --groups 1M --repeat 3
    uv run --with polars-ds python bench/bench_classification.py --rows 10M --groups 1M

Data: ``rows`` impressions spread uniformly over ``groups`` users, click rate 30%, scores on a
1/1000 grid (so ties occur). Each variant computes AUC and log loss for every group.

* polars: ``df.group_by("user").agg(cls.roc_auc(...), cls.log_loss(...))``.
* duckdb: ``SELECT user, cls_roc_auc(...), cls_log_loss(...) FROM t GROUP BY user`` on an
  in-memory table (loading the table is not timed).
* sklearn loop: ``roc_auc_score`` and ``log_loss`` per group, in a Python loop over a sample
  of groups (``--sample-groups``), extrapolated linearly to all groups.
* polars-ds: ``query_roc_auc`` inside the same ``group_by`` (log loss with its
  ``query_log_loss``), only when the package imports.

Each variant runs in a fresh subprocess (so peak RSS is its own); timings are the median of
``--repeat`` runs inside that process.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable

import numpy as np
import polars as pl


def parse_count(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1], 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def make_data(rows: int, groups: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "user": rng.integers(0, groups, rows, dtype=np.int64),
            "clicked": (rng.random(rows) < 0.3).astype(np.int8),
            "p": np.round(rng.random(rows), 3),
        }
    )


def run_polars(df: pl.DataFrame) -> Callable[[], float]:
    import polars_rank.classification as cls

    def go() -> float:
        out = df.group_by("user").agg(cls.roc_auc("clicked", "p"), cls.log_loss("clicked", "p"))
        return out.height

    return go


def run_duckdb(df: pl.DataFrame) -> Callable[[], float]:
    import duckdb

    import polars_rank.classification as cls

    con = duckdb.connect()
    cls.register(con)
    con.register("src", df)
    con.execute("CREATE TABLE t AS SELECT * FROM src")
    con.unregister("src")

    def go() -> float:
        sql = (
            "SELECT user, cls_roc_auc(clicked, p) AS auc, cls_log_loss(clicked, p) AS ll "
            "FROM t GROUP BY user"
        )
        return con.sql(sql).pl().height

    return go


def run_polars_ds(df: pl.DataFrame) -> Callable[[], float]:
    import polars_ds as pds

    def go() -> float:
        out = df.group_by("user").agg(
            pds.query_roc_auc("clicked", "p").alias("auc"),
            pds.query_log_loss("clicked", "p").alias("ll"),
        )
        return out.height

    return go


def run_sklearn(df: pl.DataFrame, sample_groups: int, groups: int) -> Callable[[], float]:
    from sklearn.metrics import log_loss, roc_auc_score

    chosen = np.random.default_rng(1).choice(groups, size=min(sample_groups, groups), replace=False)
    parts = df.filter(pl.col("user").is_in(chosen.tolist())).partition_by("user")
    arrays = [(part["clicked"].to_numpy(), part["p"].to_numpy()) for part in parts]

    def go() -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            for y, p in arrays:
                if 0 < y.sum() < len(y):
                    roc_auc_score(y, p)
                try:
                    log_loss(y, y_proba=p, labels=[0, 1])
                except TypeError:
                    log_loss(y, p, labels=[0, 1])
            return (time.perf_counter() - start) * groups / len(arrays)

    return go


def child(args: argparse.Namespace) -> None:
    """Run one variant ``args.variant`` and print a JSON line."""
    df = make_data(args.rows, args.groups)
    if args.variant == "polars":
        go = run_polars(df)
    elif args.variant == "duckdb":
        go = run_duckdb(df)
    elif args.variant == "polars-ds":
        go = run_polars_ds(df)
    else:
        go = run_sklearn(df, args.sample_groups, args.groups)
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = go()
        elapsed = time.perf_counter() - start
        times.append(result if args.variant == "sklearn" else elapsed)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"variant": args.variant, "times": times, "peak_rss_mib": peak_mib}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", default="10M")
    parser.add_argument("--groups", default="1M")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample-groups", type=int, default=20_000)
    parser.add_argument("--variant", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--variants", default="polars,duckdb,sklearn,polars-ds")
    args = parser.parse_args()
    args.rows, args.groups = parse_count(str(args.rows)), parse_count(str(args.groups))
    if args.variant:
        child(args)
        return
    size = make_data(args.rows, args.groups).estimated_size("mb")
    print(f"rows={args.rows:,} groups={args.groups:,} input={size:.0f} MB repeat={args.repeat}")
    print(f"{'variant':<12} {'median s':>9} {'runs s':<28} {'peak RSS MiB':>12}")
    for variant in args.variants.split(","):
        if variant == "polars-ds":
            probe = subprocess.run([sys.executable, "-c", "import polars_ds"], capture_output=True)
            if probe.returncode != 0:
                print(f"{variant:<12} not installed (uv run --with polars-ds ...)")
                continue
        cmd = [
            sys.executable,
            __file__,
            "--rows",
            str(args.rows),
            "--groups",
            str(args.groups),
            "--repeat",
            str(args.repeat),
            "--sample-groups",
            str(args.sample_groups),
            "--variant",
            variant,
        ]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{variant:<12} failed: {done.stderr.strip().splitlines()[-1]}")
            continue
        row = json.loads(done.stdout.strip().splitlines()[-1])
        runs = ", ".join(f"{t:.2f}" for t in row["times"])
        note = " (extrapolated)" if variant == "sklearn" else ""
        median = statistics.median(row["times"])
        print(f"{variant:<12} {median:>9.2f} {runs:<28} {row['peak_rss_mib']:>12.0f}{note}")


if __name__ == "__main__":
    main()
