"""Benchmark: polars_rank.evaluate vs pytrec_eval, ranx and the Polars floor.

Usage (from the repository root):

    uv run python bench/bench_ranking.py --rows 1M --repeat 5
    uv run python bench/bench_ranking.py --rows 10M --repeat 3 --skip-references
    uv run python bench/bench_ranking.py --rows 10M --memory

``polars_rank`` is ``pr.evaluate`` with the Polars engine, ``polars_rank_duckdb`` the same call
with ``engine="duckdb"`` (bench_duckdb.py compares that engine with DuckDB's own floor).

Data: ``n_queries × 100`` retrieved documents per query with scores on a 1/1000 grid (so ties
occur), and ~5 judged documents per query (3 retrieved, 2 not; grades 0–3).

Every variant starts from the same Polars DataFrames; the reference tools' input construction
from those frames is included in their time. ranx compiles with numba on its first call: that
warm-up is timed and reported apart. ``--memory`` runs each variant in a fresh subprocess and
reports its peak resident set size next to the in-memory size of the input frames.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np
import polars as pl

METRICS = ["nDCG@10", "RR@10", "AP", "R@100", "P@10"]
TREC_MEASURES = {"ndcg_cut.10", "recip_rank", "map", "recall.100", "P.10"}
RANX_METRICS = ["ndcg@10", "mrr@10", "map", "recall@100", "precision@10"]


def make_data(
    n_queries: int, docs_per_query: int = 100, judged_per_query: int = 5, seed: int = 0
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run of ``n_queries × docs_per_query`` rows and qrels with ~``judged_per_query`` rows
    per query (60 % of them retrieved)."""
    rng = np.random.default_rng(seed)
    n = n_queries * docs_per_query
    query = np.repeat(np.arange(n_queries), docs_per_query)
    doc = rng.integers(0, 50 * n_queries + 1000, n)
    score = rng.integers(0, 1000, n) / 1000.0
    run = pl.DataFrame(
        {
            "query": pl.Series(query).cast(pl.String),
            "doc": pl.Series(doc).cast(pl.String),
            "score": score,
        }
    ).unique(subset=["query", "doc"], keep="first", maintain_order=True)
    retrieved = max(1, round(judged_per_query * 0.6))
    judged_run = run.filter(
        pl.int_range(pl.len()).shuffle(seed=seed).over("query") < retrieved
    ).select("query", "doc")
    unretrieved = pl.DataFrame(
        {
            "query": pl.Series(np.repeat(np.arange(n_queries), judged_per_query - retrieved)).cast(
                pl.String
            ),
            "doc": pl.Series(
                rng.integers(10**9, 2 * 10**9, n_queries * (judged_per_query - retrieved))
            ).cast(pl.String),
        }
    )
    qrels = pl.concat([judged_run, unretrieved]).unique(subset=["query", "doc"])
    qrels = qrels.with_columns(
        relevance=pl.Series(rng.integers(0, 4, qrels.height)).cast(pl.Int64)
    )
    return run, qrels


def _timed(fn: Callable[[], object], repeat: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def polars_rank_eval(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    import polars_rank as pr

    return pr.evaluate(run, qrels, METRICS)


def polars_rank_duckdb(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    import polars_rank as pr

    return pr.evaluate(run, qrels, METRICS, engine="duckdb")


def floor(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """The floor: rank by score within query, then one grouped sum."""
    return (
        run.lazy()
        .with_columns(rank=pl.col("score").rank("ordinal", descending=True).over("query"))
        .group_by("query")
        .agg(pl.col("rank").sum())
        .collect()
    )


def pytrec_eval_eval(run: pl.DataFrame, qrels: pl.DataFrame) -> dict:
    import pytrec_eval

    qrels_dict: dict[str, dict[str, int]] = {}
    for q, d, r in qrels.iter_rows():
        qrels_dict.setdefault(q, {})[d] = r
    run_dict: dict[str, dict[str, float]] = {}
    for q, d, s in run.iter_rows():
        run_dict.setdefault(q, {})[d] = s
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, TREC_MEASURES)
    return evaluator.evaluate(run_dict)


def ranx_eval(run: pl.DataFrame, qrels: pl.DataFrame) -> dict:
    from ranx import Qrels, Run, evaluate

    qrels_dict: dict[str, dict[str, int]] = {}
    for q, d, r in qrels.iter_rows():
        qrels_dict.setdefault(q, {})[d] = r
    run_dict: dict[str, dict[str, float]] = {}
    for q, d, s in run.iter_rows():
        run_dict.setdefault(q, {})[d] = s
    return evaluate(Qrels(qrels_dict), Run(run_dict), RANX_METRICS, make_comparable=True)


VARIANTS: dict[str, Callable[[pl.DataFrame, pl.DataFrame], object]] = {
    "polars_rank": polars_rank_eval,
    "polars_rank_duckdb": polars_rank_duckdb,
    "floor": floor,
    "pytrec_eval": pytrec_eval_eval,
    "ranx": ranx_eval,
}


def _rows(text: str) -> int:
    text = text.upper()
    if text.endswith("M"):
        return int(float(text[:-1]) * 1_000_000)
    if text.endswith("K"):
        return int(float(text[:-1]) * 1_000)
    return int(text)


def _frame_mib(*frames: pl.DataFrame) -> float:
    return sum(f.estimated_size() for f in frames) / 2**20


def _memory_child(variant: str, rows: int) -> None:
    run, qrels = make_data(rows // 100)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    VARIANTS[variant](run, qrels)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"variant": variant, "input_mib": _frame_mib(run, qrels),
                      "rss_before_mib": before, "peak_rss_mib": peak}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="1M", help="run rows: 1M, 10M, ... (100 per query)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-references", action="store_true",
                        help="time only polars_rank and the floor")
    parser.add_argument("--memory", action="store_true",
                        help="peak RSS of each variant, each in its own subprocess")
    parser.add_argument("--_child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rows = _rows(args.rows)
    variants = ["polars_rank", "polars_rank_duckdb", "floor"]
    if not args.skip_references:
        variants += ["pytrec_eval", "ranx"]
    if args._child:
        _memory_child(args._child, rows)
        return
    if args.memory:
        print(f"rows={rows:,}")
        for variant in variants:
            out = subprocess.run(
                [sys.executable, __file__, "--rows", str(rows), "--_child", variant],
                check=True, capture_output=True, text=True,
            ).stdout
            data = json.loads(out.strip().splitlines()[-1])
            growth = data["peak_rss_mib"] - data["rss_before_mib"]
            print(f"{variant:18s} input frames {data['input_mib']:8.1f} MiB   "
                  f"peak RSS {data['peak_rss_mib']:8.1f} MiB   "
                  f"growth during evaluation {growth:8.1f} MiB "
                  f"({growth / data['input_mib']:.2f}x input)")
        return

    run, qrels = make_data(rows // 100)
    print(f"rows={run.height:,} queries={run['query'].n_unique():,} qrels={qrels.height:,} "
          f"input={_frame_mib(run, qrels):.1f} MiB repeat={args.repeat}")
    if "ranx" in variants:
        start = time.perf_counter()
        ranx_eval(run.head(1000), qrels)
        print(f"ranx warm-up (numba compile) {time.perf_counter() - start:.2f}s (excluded)")
    results = {}
    for variant in variants:
        median, times = _timed(lambda v=variant: VARIANTS[v](run, qrels), args.repeat)
        results[variant] = median
        print(f"{variant:18s} median {median:7.3f}s  runs {[round(t, 3) for t in times]}")
    base = results["polars_rank"]
    print(f"polars_rank / floor = {base / results['floor']:.2f}x")
    print(f"polars_rank_duckdb / floor = {results['polars_rank_duckdb'] / results['floor']:.2f}x")
    for ref in ("pytrec_eval", "ranx"):
        if ref in results:
            duck = results["polars_rank_duckdb"]
            print(f"{ref} / polars_rank = {results[ref] / base:.1f}x   "
                  f"{ref} / polars_rank_duckdb = {results[ref] / duck:.1f}x")


if __name__ == "__main__":
    main()
