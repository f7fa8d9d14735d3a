"""Benchmark: every beyond-accuracy recommender metric at once, polars_rank against a
pandas/NumPy implementation of the same formulas.

Usage (from the repository root):

    uv run python bench/bench_recsys.py gen                  # writes the data (Parquet)
    uv run python bench/bench_recsys.py all --repeat 3       # both, each in its own process
    uv run python bench/bench_recsys.py polars --k 10        # one variant, prints JSON
    uv run python bench/bench_recsys.py breakdown            # CPU time per group of metrics
    uv run python bench/bench_recsys.py layouts              # ILD's join + sums: vector layouts

Data (seeded): 1,000,000 users × 20 recommendations (half drawn from a Zipf-like popularity
law over 100,000 items, half uniform; repeated items dropped, 19.84M rows, random scores),
10 interactions per user from the same law (9.84M rows after dropping repeats), a 16-d
feature vector per item.

Metrics at cutoff ``--k`` (default 20, the whole lists: no ranking needed to cut them; 10
cuts every list): catalog coverage, Shannon entropy, Gini index, user coverage, novelty,
ARP, APLT, intra-list diversity (cosine of the vectors) and serendipity without relevance
(MS Recommenders' default), per user and summarised, from one call:

* ``polars_rank``: ``pr.evaluate(run, None, METRICS, interactions=..., item_features=...)``
  (Polars engine, input checks on), one lazy plan;
* ``pandas``: :mod:`bench_recsys_pandas` — sort + ``groupby.head`` for the top k, merges and
  ``groupby`` means, ``value_counts``, pairwise cosines of each user's list on a dense
  (users × k × d) NumPy tensor with ``einsum``, serendipity through each user's history sum.

Each variant runs in a fresh process (the peak RSS is its own), reads the Parquet files
(not timed), runs once untimed on 10,000 users to warm up, then ``--repeat`` times; the
median wall time and its CPU time are reported. ``all`` also checks that both give the same
numbers (largest relative difference) and records the machine load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

N_USERS, N_ITEMS, LIST, N_HISTORY, DIM = 1_000_000, 100_000, 20, 10, 16
DEFAULT_DATA = Path(os.environ.get("TMPDIR", "/tmp")) / "polars_rank_bench_recsys"


def metric_names(k: int) -> list[str]:
    return [
        f"coverage@{k}",
        f"entropy@{k}",
        f"gini@{k}",
        f"user_coverage@{k}",
        f"novelty@{k}",
        f"arp@{k}",
        f"aplt@{k}",
        f"ild@{k}",
        f"serendipity(gain=none)@{k}",
    ]


def generate(data: Path, seed: int = 0) -> dict:
    import polars as pl

    rng = np.random.default_rng(seed)
    law = 1.0 / np.arange(1, N_ITEMS + 1) ** 0.9
    law /= law.sum()
    items = rng.permutation(N_ITEMS)  # popularity rank -> item id
    recommended = np.concatenate(
        [
            items[rng.choice(N_ITEMS, size=(N_USERS, LIST // 2), p=law)],
            rng.integers(0, N_ITEMS, size=(N_USERS, LIST // 2)),
        ],
        axis=1,
    )
    run = pl.DataFrame(
        {
            "query": np.repeat(np.arange(N_USERS, dtype=np.int64), LIST),
            "doc": recommended.ravel().astype(np.int64),
            "score": rng.random(N_USERS * LIST),
        }
    ).unique(subset=["query", "doc"], keep="first", maintain_order=True)
    history = items[rng.choice(N_ITEMS, size=(N_USERS, N_HISTORY), p=law)]
    interactions = pl.DataFrame(
        {
            "query": np.repeat(np.arange(N_USERS, dtype=np.int64), N_HISTORY),
            "doc": history.ravel().astype(np.int64),
        }
    ).unique(maintain_order=True)
    vectors = pl.DataFrame(
        {"doc": np.arange(N_ITEMS, dtype=np.int64), "vector": rng.normal(size=(N_ITEMS, DIM))}
    ).with_columns(pl.col("vector").arr.to_list())
    data.mkdir(parents=True, exist_ok=True)
    run.write_parquet(data / "run.parquet")
    interactions.write_parquet(data / "interactions.parquet")
    vectors.write_parquet(data / "vectors.parquet")
    return {"run_rows": run.height, "interaction_rows": interactions.height}


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _timed(call, repeat: int) -> dict:
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        cpu0, t0 = _cpu(), time.perf_counter()
        result = call()
        walls.append(time.perf_counter() - t0)
        cpus.append(_cpu() - cpu0)
    middle = walls.index(statistics.median_low(walls))
    return {
        "seconds": walls[middle],
        "cpu_seconds": cpus[middle],
        "all_seconds": walls,
        "result": result,
    }


def run_polars(data: Path, k: int, repeat: int, validate: bool = True) -> dict:
    import polars as pl

    import polars_rank as pr

    run = pl.read_parquet(data / "run.parquet")
    interactions = pl.read_parquet(data / "interactions.parquet")
    vectors = pl.read_parquet(data / "vectors.parquet")
    loaded = _peak_rss_mib()
    metrics = metric_names(k)

    def call(users: int | None = None) -> dict:
        r = run if users is None else run.filter(pl.col("query") < users)
        out = pr.evaluate(
            r,
            None,
            metrics,
            interactions=interactions,
            item_features=vectors,
            validate=validate,
        )
        return out.row(0, named=True)

    call(10_000)  # warm-up
    timed = _timed(call, repeat)
    summary = timed.pop("result")
    return {
        "variant": "polars_rank" + ("" if validate else " (validate=False)"),
        **timed,
        "rss_after_load_mib": loaded,
        "peak_rss_mib": _peak_rss_mib(),
        "summary": dict(zip(metrics, summary.values(), strict=True)),
    }


#: The metrics of :func:`metric_names` in groups that share their work.
GROUPS = {
    "corpus (coverage, entropy, Gini, user coverage)": slice(0, 4),
    "popularity (novelty, ARP, APLT)": slice(4, 7),
    "ILD": slice(7, 8),
    "serendipity": slice(8, 9),
}


def run_breakdown(data: Path, k: int) -> dict:
    """Each group of metrics on its own (with and without the input checks), and the cost of
    one pass that counts the list lengths and of de-duplicating the interactions."""
    import polars as pl

    import polars_rank as pr

    run = pl.read_parquet(data / "run.parquet")
    interactions = pl.read_parquet(data / "interactions.parquet")
    vectors = pl.read_parquet(data / "vectors.parquet")
    names = metric_names(k)
    out: dict = {}
    for validate in (True, False):
        for group, part in GROUPS.items():
            call = partial(
                pr.evaluate,
                run,
                None,
                names[part],
                interactions=interactions,
                item_features=vectors,
                validate=validate,
            )
            timed = _timed(call, 1)
            out[f"{group}, validate={validate}"] = [timed["seconds"], timed["cpu_seconds"]]
    for what, call in (
        ("run: group_by(query).len()", lambda: run.group_by("query").len()),
        ("interactions: unique()", lambda: interactions.unique()),
    ):
        timed = _timed(call, 1)
        out[what] = [timed["seconds"], timed["cpu_seconds"]]
    return {"load": os.getloadavg(), "[wall, cpu] seconds": out}


def run_layouts(data: Path) -> dict:
    """The per-user vector sums behind ILD (join the unit vectors onto the recommendations,
    sum them per user) with the vectors as 16 Float64 columns, as one struct column (what
    polars_rank uses) and as one Array column read with ``arr.get``; and the history side of
    serendipity (de-duplicating the interactions, joining and summing their unit vectors)."""
    import polars as pl

    from polars_rank import recsys

    run = pl.read_parquet(data / "run.parquet").lazy().select("query", "doc")
    interactions = pl.read_parquet(data / "interactions.parquet").lazy()
    vectors = pl.read_parquet(data / "vectors.parquet")
    unit = recsys.unit_vectors(vectors).collect()
    fields = unit.select(pl.col("unit_vector").struct.unnest()).columns
    columns = unit.select("doc", pl.col("unit_vector").struct.unnest()).lazy()
    array = unit.select("doc", pl.concat_arr(pl.col("unit_vector").struct.unnest()).alias("a"))
    dim = len(fields)
    plans = {
        "16 columns": run.join(columns, on="doc", how="left")
        .group_by("query")
        .agg(pl.len(), *[pl.col(f).sum() for f in fields]),
        "struct column": run.join(unit.lazy(), on="doc", how="left")
        .group_by("query")
        .agg(pl.len(), pl.col("unit_vector").struct.unnest().sum()),
        "array column, arr.get": run.join(array.lazy(), on="doc", how="left")
        .group_by("query")
        .agg(pl.len(), *[pl.col("a").arr.get(j).sum().alias(f"s{j}") for j in range(dim)]),
        "interactions: group_by(query, doc)": recsys.vectors.history(interactions),
        "interactions: history_vectors": recsys.history_vectors(interactions, vectors),
    }
    out = {}
    for name, plan in plans.items():
        timed = _timed(plan.collect, 1)
        out[name] = [timed["seconds"], timed["cpu_seconds"]]
    return {"load": os.getloadavg(), "[wall, cpu] seconds": out}


def run_pandas(data: Path, k: int, repeat: int) -> dict:
    import pandas as pd

    sys.path.insert(0, str(Path(__file__).parent))
    import bench_recsys_pandas as B

    run = pd.read_parquet(data / "run.parquet")
    interactions = pd.read_parquet(data / "interactions.parquet")
    vectors = pd.read_parquet(data / "vectors.parquet")
    loaded = _peak_rss_mib()

    def call(users: int | None = None) -> dict:
        r = run if users is None else run[run["query"] < users]
        summary, _ = B.beyond_accuracy(r, interactions, vectors, k)
        return summary

    call(10_000)
    timed = _timed(call, repeat)
    summary = timed.pop("result")
    names = metric_names(k)
    keys = B.SUMMARY_KEYS
    return {
        "variant": "pandas",
        **timed,
        "rss_after_load_mib": loaded,
        "peak_rss_mib": _peak_rss_mib(),
        "summary": {n: float(summary[key]) for n, key in zip(names, keys, strict=True)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "what",
        choices=("gen", "polars", "polars-novalidate", "pandas", "all", "breakdown", "layouts"),
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--k", type=int, default=LIST)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.what == "gen":
        print(json.dumps(generate(args.data)))
        return
    if args.what == "polars":
        print(json.dumps(run_polars(args.data, args.k, args.repeat)))
        return
    if args.what == "polars-novalidate":
        print(json.dumps(run_polars(args.data, args.k, args.repeat, validate=False)))
        return
    if args.what == "breakdown":
        print(json.dumps(run_breakdown(args.data, args.k), indent=1))
        return
    if args.what == "layouts":
        print(json.dumps(run_layouts(args.data), indent=1))
        return
    if args.what == "pandas":
        print(json.dumps(run_pandas(args.data, args.k, args.repeat)))
        return
    if not (args.data / "run.parquet").exists():
        generate(args.data)
    results: dict = {"load_before": os.getloadavg(), "cpus": os.cpu_count(), "k": args.k}
    for variant in ("polars", "polars-novalidate", "pandas"):
        command = [sys.executable, __file__, variant, "--data", str(args.data)]
        command += ["--k", str(args.k), "--repeat", str(args.repeat)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        results[variant] = json.loads(done.stdout)
    results["load_after"] = os.getloadavg()
    ours, theirs = results["polars"], results["pandas"]
    results["max_relative_difference"] = max(
        abs(ours["summary"][n] - theirs["summary"][n]) / max(1.0, abs(theirs["summary"][n]))
        for n in theirs["summary"]
    )
    results["wall_ratio"] = theirs["seconds"] / ours["seconds"]
    results["cpu_ratio"] = theirs["cpu_seconds"] / ours["cpu_seconds"]
    results["memory_ratio"] = theirs["peak_rss_mib"] / ours["peak_rss_mib"]
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
