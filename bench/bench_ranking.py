"""Benchmark: polars_rank.evaluate vs pytrec_eval, ranx and the Polars floor.

Usage (from the repository root):

    uv run python bench/bench_ranking.py --rows 1M --repeat 5
    uv run python bench/bench_ranking.py --rows 10M --repeat 3 --skip-references
    uv run python bench/bench_ranking.py --rows 10M --memory

``polars_rank`` is ``pr.evaluate`` with the Polars engine, ``polars_rank_duckdb`` the same call
with ``engine="duckdb"`` (bench_duckdb.py compares that engine with DuckDB's own floor).

Lower bounds, timed in the same run: ``floor`` (Polars: ``rank("ordinal").over("query")`` by
score plus one grouped sum); ``duckdb_floor`` (DuckDB: ``row_number() OVER (PARTITION BY query
ORDER BY score DESC)`` plus one grouped sum, from the same frames); ``duckdb_floor_loaded``
(the same query on tables already copied into DuckDB, the copy not timed); ``duckdb_counting``
(the least a DuckDB evaluation by counting does: the run joined with the judgments, each
judged document's rows at least as high counted with a join on the query, one grouped sum of
relevance / count; no tie-break, no checks, one metric), from the frames. With the references,
the run prints the time each speed target allows (a tenth of pytrec_eval's, a twentieth of
ranx's) and which variants are above it.

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
from functools import partial
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    DUCKDB_FLOOR,
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

TREC_MEASURES = {"ndcg_cut.10", "recip_rank", "map", "recall.100", "P.10"}
REFERENCES = ("pytrec_eval", "ranx")
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


_DUCKDB_COUNTING = """
WITH hits AS (SELECT r.query, r.score, q.relevance FROM {run} r JOIN {qrels} q USING (query, doc)),
above AS (
    SELECT h.query, h.score, h.relevance, count(*) AS at_least
    FROM {run} r JOIN hits h ON r.query = h.query AND r.score >= h.score
    GROUP BY ALL
)
SELECT query, sum(relevance / at_least) AS value FROM above GROUP BY query
"""


def duckdb_floor_loaded(run: pl.DataFrame, qrels: pl.DataFrame) -> Callable[[], object]:
    """DuckDB's floor on a table already in DuckDB: the copy runs now, the returned call is
    what is timed."""
    import duckdb

    con = duckdb.connect()
    con.register("run_frame", run)
    con.execute("CREATE TABLE run AS SELECT * FROM run_frame")
    return lambda: con.sql(DUCKDB_FLOOR.format(run="run")).pl()


def duckdb_counting(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """The least a DuckDB evaluation by counting does, from the frames (see the module
    docstring)."""
    import duckdb

    con = duckdb.connect()
    con.register("run", run)
    con.register("qrels", qrels)
    return con.sql(_DUCKDB_COUNTING.format(run="run", qrels="qrels")).pl()


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
    "duckdb_floor": duckdb_floor,
    "duckdb_counting": duckdb_counting,
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
    variants = ["polars_rank", "polars_rank_duckdb", "floor", "duckdb_floor", "duckdb_counting"]
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
    print(f"machine: {machine()}; load average {load()}")
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
    calls = {name: partial(VARIANTS[name], run, qrels) for name in variants}
    calls["duckdb_floor_loaded"] = duckdb_floor_loaded(run, qrels)
    calls["duckdb_floor_loaded"]()  # first-call set-up, not timed
    results = {}
    for name, call in calls.items():
        median, times, cpu = _timed(call, repeat)
        results[name] = median
        print(
            f"{name:19s} median {median:7.3f}s  cpu {cpu:7.3f}s  "
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
    for ref, factor in (("pytrec_eval", 10), ("ranx", 20)):
        if ref in results:
            allowed = results[ref] / factor
            above = [n for n in calls if n not in REFERENCES and results[n] > allowed]
            print(f"{factor}x {ref} allows {allowed:.3f}s; above it: {', '.join(above) or 'none'}")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
