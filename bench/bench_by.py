"""Benchmark: many systems in one call (``evaluate(..., by="system")``) against the per-run
loop (one ``evaluate`` per system, what ``evaluate_runs`` did before ``by``: the baseline)
and ranx's multi-run ``compare`` without its significance tests (the per-run evaluation it
runs first, ``evaluate(..., return_mean=False, make_comparable=True)`` on each run).

Usage (from the repository root):

    uv run python bench/bench_by.py --systems 20 --rows 1M --repeat 3
    uv run python bench/bench_by.py --systems 20 --rows 50k --repeat 3   # a quick check

Data: one stacked table ``system, query, doc, score`` of ``systems × rows`` rows (each system
``rows / 100`` queries × 100 documents, the same (query, doc) pairs with its own scores on a
1/1000 grid, so ties occur) and one qrels shared by every system (~5 judged documents per
query, 3 retrieved, grades 0–3), from ``_common.make_data``.

Variants (each from the same Polars frames; splitting the stacked table into one frame per
system is done before timing; ranx's dict construction from the frames is timed, as in
bench_ranking.py): ``by_polars`` / ``by_duckdb`` (one call, ``by="system"``),
``loop_polars`` / ``loop_duckdb`` (one ``evaluate`` per system), ``ranx_compare`` (ranx per
run, numba warm-up run apart and not timed).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import METRICS, machine, make_data, parse_rows  # noqa: E402

import polars_rank as pr  # noqa: E402

RANX_METRICS = ["ndcg@10", "mrr@10", "map", "recall@100", "precision@10"]


def stacked_systems(systems: int, rows: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``system, query, doc, score`` for ``systems`` systems of ``rows`` rows each, and the
    shared qrels."""
    run, qrels = make_data(max(1, rows // 100))
    rng = np.random.default_rng(1)
    parts = [
        run.with_columns(
            system=pl.lit(f"s{i:02d}"), score=pl.Series(rng.integers(0, 1000, run.height) / 1000)
        )
        for i in range(systems)
    ]
    return pl.concat(parts).select("system", "query", "doc", "score"), qrels


def by_call(engine: str) -> Callable[[pl.DataFrame, dict, pl.DataFrame], object]:
    def call(stacked: pl.DataFrame, runs: dict, qrels: pl.DataFrame) -> object:
        return pr.evaluate(stacked, qrels, METRICS, by="system", engine=engine)

    return call


def loop_call(engine: str) -> Callable[[pl.DataFrame, dict, pl.DataFrame], object]:
    def call(stacked: pl.DataFrame, runs: dict, qrels: pl.DataFrame) -> object:
        return [pr.evaluate(run, qrels, METRICS, engine=engine) for run in runs.values()]

    return call


def _ranx_inputs(runs: dict, qrels: pl.DataFrame) -> tuple[list, object]:
    from ranx import Qrels, Run

    qrels_dict: dict[str, dict[str, int]] = {}
    for q, d, r in qrels.iter_rows():
        qrels_dict.setdefault(q, {})[d] = r
    ranx_runs = []
    for name, run in runs.items():
        run_dict: dict[str, dict[str, float]] = {}
        for q, d, s in run.select("query", "doc", "score").iter_rows():
            run_dict.setdefault(q, {})[d] = s
        ranx_runs.append(Run(run_dict, name=name))
    return ranx_runs, Qrels(qrels_dict)


def ranx_compare(stacked: pl.DataFrame, runs: dict, qrels: pl.DataFrame) -> object:
    """What ``ranx.compare`` computes before its significance tests: every run's per-query
    scores."""
    from ranx import evaluate

    ranx_runs, ranx_qrels = _ranx_inputs(runs, qrels)
    return [
        evaluate(ranx_qrels, run, RANX_METRICS, return_mean=False, make_comparable=True)
        for run in ranx_runs
    ]


VARIANTS = {
    "by_polars": by_call("polars"),
    "loop_polars": loop_call("polars"),
    "by_duckdb": by_call("duckdb"),
    "loop_duckdb": loop_call("duckdb"),
    "ranx_compare": ranx_compare,
}


def main() -> None:
    warnings.simplefilter("ignore")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--rows", default="1M", help="rows per system: 50k, 1M, ...")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-ranx", action="store_true")
    args = parser.parse_args()
    rows = parse_rows(args.rows)
    stacked, qrels = stacked_systems(args.systems, rows)
    runs = {name: part.drop("system") for (name,), part in stacked.group_by("system")}
    print(machine())
    print(
        f"{args.systems} systems x {rows:,} rows = {stacked.height:,} rows, "
        f"{qrels.height:,} judgments"
    )
    variants = [v for v in VARIANTS if not (args.skip_ranx and v.startswith("ranx"))]
    if "ranx_compare" in variants:  # numba compiles on the first call: not timed
        warm = dict(list(runs.items())[:1])
        ranx_compare(stacked, {k: v.head(1000) for k, v in warm.items()}, qrels)
    times: dict[str, float] = {}
    for name in variants:
        samples = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            VARIANTS[name](stacked, runs, qrels)
            samples.append(time.perf_counter() - start)
        times[name] = statistics.median(samples)
        print(f"{name:14s} {times[name]:8.3f} s (median of {args.repeat})")
    for engine in ("polars", "duckdb"):
        by, loop = times.get(f"by_{engine}"), times.get(f"loop_{engine}")
        if by and loop:
            print(f"{engine}: per-run loop / one call = {loop / by:.2f}x")
        if by and "ranx_compare" in times:
            print(
                f"{engine}: ranx compare (no tests) / one call = {times['ranx_compare'] / by:.2f}x"
            )


if __name__ == "__main__":
    main()
