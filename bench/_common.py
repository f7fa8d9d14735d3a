"""Shared by the ranking benchmarks: the data generator, size parsing, and the peak-memory
measurement (each variant in a fresh process that reads the data from Parquet)."""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import polars as pl

METRICS = ["nDCG@10", "RR@10", "AP", "R@100", "P@10"]

Variant = Callable[[pl.DataFrame, pl.DataFrame], object]


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
    qrels = qrels.with_columns(relevance=pl.Series(rng.integers(0, 4, qrels.height)).cast(pl.Int64))
    return run, qrels


#: DuckDB's floor: rank by score within query (no tie-break, no judgments), one grouped sum.
DUCKDB_FLOOR = (
    "SELECT query, sum(rank) AS rank FROM (SELECT query, row_number() OVER "
    "(PARTITION BY query ORDER BY score DESC) AS rank FROM {run}) GROUP BY query"
)


def duckdb_floor(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """:data:`DUCKDB_FLOOR` on the run registered with a new DuckDB connection, fetched as a
    Polars frame."""
    import duckdb

    con = duckdb.connect()
    con.register("run", run)
    return con.sql(DUCKDB_FLOOR.format(run="run")).pl()


def machine() -> str:
    """The CPU model, cores, RAM and library versions, for the first line of a benchmark."""
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    import duckdb

    return (
        f"{cpu}, {os.cpu_count()} cores, {ram:.1f} GiB RAM; Python {platform.python_version()}, "
        f"Polars {pl.__version__}, DuckDB {duckdb.__version__}"
    )


def load() -> str:
    """The load averages over 1, 5 and 15 minutes."""
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def parse_rows(text: str) -> int:
    """``"1M"`` → 1,000,000; ``"50K"`` → 50,000; plain integers as they are."""
    text = text.upper()
    if text.endswith("M"):
        return int(float(text[:-1]) * 1_000_000)
    if text.endswith("K"):
        return int(float(text[:-1]) * 1_000)
    return int(text)


def frame_mib(*frames: pl.DataFrame) -> float:
    """In-memory size of the frames, MiB."""
    return sum(f.estimated_size() for f in frames) / 2**20


def cpu_seconds() -> float:
    """User + system CPU time of this process so far (all threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def generate(rows: int, data_dir: str) -> None:
    """Write the benchmark data of ``rows`` run rows to ``data_dir`` as Parquet."""
    run, qrels = make_data(rows // 100)
    run.write_parquet(Path(data_dir) / "run.parquet")
    qrels.write_parquet(Path(data_dir) / "qrels.parquet")


def memory_child(variant: Variant, data_dir: str) -> None:
    """In a fresh process: read the data, warm the variant up on a small slice, then print its
    peak RSS before and after the full evaluation as one JSON line."""
    run = pl.read_parquet(Path(data_dir) / "run.parquet")
    qrels = pl.read_parquet(Path(data_dir) / "qrels.parquet")
    variant(run.head(1000), qrels)  # imports and first-call set-up, not the peak
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    variant(run, qrels)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {"input_mib": frame_mib(run, qrels), "rss_before_mib": before, "peak_rss_mib": peak}
        )
    )


def memory(script: str, rows: int, variants: Iterable[str]) -> None:
    """Peak RSS of each variant, each in its own process running ``script --_child NAME
    --_data DIR`` (the data generated first by ``script --rows N --_generate DIR``, in a child
    too: Linux keeps a process's peak RSS across exec, so this process must stay small)."""
    print(f"machine: {machine()}; load average {load()}")
    print(f"rows={rows:,}")
    with tempfile.TemporaryDirectory() as data_dir:
        subprocess.run(
            [sys.executable, script, "--rows", str(rows), "--_generate", data_dir], check=True
        )
        for name in variants:
            out = subprocess.run(
                [sys.executable, script, "--_child", name, "--_data", data_dir],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            data = json.loads(out.strip().splitlines()[-1])
            growth = data["peak_rss_mib"] - data["rss_before_mib"]
            print(
                f"{name:26s} input frames {data['input_mib']:7.1f} MiB   "
                f"RSS before {data['rss_before_mib']:7.1f} MiB   "
                f"peak RSS {data['peak_rss_mib']:7.1f} MiB   growth {growth:7.1f} MiB "
                f"({growth / data['input_mib']:.2f}x input)"
            )
