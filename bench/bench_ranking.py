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
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    METRICS,
    Variant,
    cpu_seconds,
    frame_mib,
    generate,
    make_data,
    memory,
    memory_child,
    parse_rows,
)

TREC_MEASURES = {"ndcg_cut.10", "recip_rank", "map", "recall.100", "P.10"}
RANX_METRICS = ["ndcg@10", "mrr@10", "map", "recall@100", "precision@10"]


def _timed(fn: Callable[[], object], repeat: int) -> tuple[float, list[float], float]:
    """Median wall time, every wall time, median CPU time (all threads)."""
    times, cpu = [], []
    for _ in range(repeat):
        cpu_start, start = cpu_seconds(), time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        cpu.append(cpu_seconds() - cpu_start)
    return statistics.median(times), times, statistics.median(cpu)


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


def _nested_dicts(run: pl.DataFrame, qrels: pl.DataFrame) -> tuple[dict, dict]:
    """``{query: {doc: score}}`` and ``{query: {doc: grade}}``, the reference tools' input."""
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, d, r in qrels.iter_rows():
        qrels_dict.setdefault(q, {})[d] = r
    run_dict: dict[str, dict[str, float]] = {}
    for q, d, s in run.iter_rows():
        run_dict.setdefault(q, {})[d] = s
    return run_dict, qrels_dict


def pytrec_eval_eval(run: pl.DataFrame, qrels: pl.DataFrame) -> dict:
    import pytrec_eval

    run_dict, qrels_dict = _nested_dicts(run, qrels)
    return pytrec_eval.RelevanceEvaluator(qrels_dict, TREC_MEASURES).evaluate(run_dict)


def ranx_eval(run: pl.DataFrame, qrels: pl.DataFrame) -> dict:
    from ranx import Qrels, Run, evaluate

    run_dict, qrels_dict = _nested_dicts(run, qrels)
    return evaluate(Qrels(qrels_dict), Run(run_dict), RANX_METRICS, make_comparable=True)


VARIANTS: dict[str, Variant] = {
    "polars_rank": polars_rank_eval,
    "polars_rank_duckdb": polars_rank_duckdb,
    "floor": floor,
    "pytrec_eval": pytrec_eval_eval,
    "ranx": ranx_eval,
}


def main() -> None:
    warnings.simplefilter("ignore")  # the "queries without judgments" notice
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="1M", help="run rows: 1M, 10M, ... (100 per query)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--skip-references", action="store_true", help="leave out pytrec_eval and ranx"
    )
    parser.add_argument(
        "--memory", action="store_true", help="peak RSS of each variant, each in its own process"
    )
    parser.add_argument("--_child", help=argparse.SUPPRESS)
    parser.add_argument("--_data", help=argparse.SUPPRESS)
    parser.add_argument("--_generate", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rows = parse_rows(args.rows)
    variants = ["polars_rank", "polars_rank_duckdb", "floor"]
    if not args.skip_references:
        variants += ["pytrec_eval", "ranx"]
    if args._generate:
        generate(rows, args._generate)
    elif args._child:
        memory_child(VARIANTS[args._child], args._data)
    elif args.memory:
        memory(__file__, rows, variants)
    else:
        _timing(rows, args.repeat, variants)


def _timing(rows: int, repeat: int, variants: list[str]) -> None:
    run, qrels = make_data(rows // 100)
    print(
        f"rows={run.height:,} queries={run['query'].n_unique():,} qrels={qrels.height:,} "
        f"input={frame_mib(run, qrels):.1f} MiB repeat={repeat}"
    )
    if "ranx" in variants:
        start = time.perf_counter()
        ranx_eval(run.head(1000), qrels)
        print(f"ranx warm-up (numba compile) {time.perf_counter() - start:.2f}s (excluded)")
    for name in variants:  # imports and first-call set-up, not timed
        VARIANTS[name](run.head(1000), qrels)
    results = {}
    for name in variants:
        median, times, cpu = _timed(lambda v=name: VARIANTS[v](run, qrels), repeat)
        results[name] = median
        print(
            f"{name:18s} median {median:7.3f}s  cpu {cpu:7.3f}s  "
            f"runs {[round(t, 3) for t in times]}"
        )
    for name in ("polars_rank", "polars_rank_duckdb"):
        print(f"{name} / floor = {results[name] / results['floor']:.2f}x")
    for ref in ("pytrec_eval", "ranx"):
        if ref in results:
            print(
                f"{ref} / polars_rank = {results[ref] / results['polars_rank']:.1f}x   "
                f"{ref} / polars_rank_duckdb = {results[ref] / results['polars_rank_duckdb']:.1f}x"
            )


if __name__ == "__main__":
    main()
