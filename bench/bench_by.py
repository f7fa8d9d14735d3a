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

``--recommender``: recommender metrics instead (:data:`REC_METRICS`: novelty, ARP, APLT,
ILD, coverage, Gini, entropy at 10, no qrels): ``systems × users`` lists of ``--items``
items each (integer ids, 5,000 items, Zipf-like popularity), one shared history (10 items
per user) and 16-d item vectors; the loop is ``evaluate`` per system (what ``by`` did
before it became one plan / one query: a loop over the groups).

    uv run python bench/bench_by.py --recommender --systems 20 --users 50k --items 20

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


REC_METRICS = [
    "novelty@10",
    "ARP@10",
    "APLT@10",
    "ILD@10",
    "coverage@10",
    "Gini@10",
    "entropy@10",
]


def recommender_data(
    systems: int, users: int, items: int, n_items: int = 5_000, dim: int = 16
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """``system, query, doc, score`` (``items`` distinct items per user and system), the
    shared history ``query, doc`` (10 items per user, repeats dropped) and item vectors."""
    rng = np.random.default_rng(2)
    weights = 1.0 / np.arange(1, n_items + 1) ** 0.8
    weights /= weights.sum()
    rows = systems * users * items
    picked = rng.choice(n_items, size=rows, p=weights)
    run = pl.DataFrame(
        {
            "system": np.repeat([f"s{i:02d}" for i in range(systems)], users * items),
            "query": np.tile(np.repeat(np.arange(users, dtype=np.int64), items), systems),
            "doc": picked.astype(np.int64),
            "score": rng.random(rows),
        }
    ).unique(["system", "query", "doc"])
    history = pl.DataFrame(
        {
            "query": np.repeat(np.arange(users, dtype=np.int64), 10),
            "doc": rng.choice(n_items, size=users * 10, p=weights).astype(np.int64),
        }
    ).unique()
    vectors = pl.DataFrame(
        {"doc": np.arange(n_items, dtype=np.int64), "vector": rng.normal(size=(n_items, dim))}
    )
    return run, history, vectors


def rec_by(engine: str) -> Callable[..., object]:
    def call(stacked: pl.DataFrame, runs: dict, history: pl.DataFrame, vectors: object) -> object:
        return pr.evaluate(stacked, None, REC_METRICS, by="system", engine=engine,
                           interactions=history, item_features=vectors)  # fmt: skip

    return call


def rec_loop(engine: str) -> Callable[..., object]:
    def call(stacked: pl.DataFrame, runs: dict, history: pl.DataFrame, vectors: object) -> object:
        return [
            pr.evaluate(
                run, None, REC_METRICS, engine=engine, interactions=history, item_features=vectors
            )  # fmt: skip
            for run in runs.values()
        ]

    return call


REC_VARIANTS = {
    "by_polars": rec_by("polars"),
    "loop_polars": rec_loop("polars"),
    "by_duckdb": rec_by("duckdb"),
    "loop_duckdb": rec_loop("duckdb"),
}


def main_recommender(args: argparse.Namespace) -> None:
    users = parse_rows(args.users)
    stacked, history, vectors = recommender_data(args.systems, users, args.items)
    runs = {name: part.drop("system") for (name,), part in stacked.group_by("system")}
    print(machine())
    print(
        f"recommender: {args.systems} systems x {users:,} users x {args.items} items = "
        f"{stacked.height:,} rows; history {history.height:,} rows; metrics {REC_METRICS}"
    )
    wanted = args.variants.split(",") if args.variants else list(REC_VARIANTS)
    times: dict[str, float] = {}
    for name in wanted:
        samples = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            REC_VARIANTS[name](stacked, runs, history, vectors)
            samples.append(time.perf_counter() - start)
        times[name] = statistics.median(samples)
        print(f"{name:14s} {times[name]:8.3f} s (median of {args.repeat})", flush=True)
    for engine in ("polars", "duckdb"):
        by, loop = times.get(f"by_{engine}"), times.get(f"loop_{engine}")
        if by and loop:
            print(f"{engine}: per-system loop / one call = {loop / by:.2f}x")


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
    parser.add_argument("--recommender", action="store_true", help="recommender metrics")
    parser.add_argument("--users", default="50k", help="--recommender: users per system")
    parser.add_argument("--items", type=int, default=20, help="--recommender: items per list")
    parser.add_argument("--variants", help="--recommender: comma-separated variants to run")
    args = parser.parse_args()
    if args.recommender:
        main_recommender(args)
        return
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
