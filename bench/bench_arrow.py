"""Benchmark: moving frames between Polars and DuckDB with and without pyarrow.

Usage (from the repository root; pyarrow is in the dev group, so both paths can run):

    uv run python bench/bench_arrow.py --rows 1M --repeat 7

polars_rank hands Polars frames to DuckDB as Arrow C streams (``__arrow_c_stream__``) and
reads results back the same way (``pl.DataFrame(relation)``), which needs no pyarrow.
DuckDB's own ``con.register(name, polars_frame)`` and ``relation.pl()`` convert through
pyarrow instead. Variants, on the data of bench_ranking.py:

* ``evaluate_capsule``: ``pr.evaluate(run, qrels, METRICS, engine="duckdb")`` as shipped.
* ``evaluate_pyarrow``: the same call with the engine's two transfer functions swapped for
  ``con.register(name, frame)`` and ``relation.pl()`` (the pyarrow path).
* ``scan_capsule`` / ``scan_pyarrow``: only the transfers: register the 1M-row run, read it
  back whole (``SELECT * FROM run``) as a Polars frame.

The variants run in turn, ``--repeat`` rounds; the median wall time is reported.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import METRICS, frame_mib, make_data, parse_rows  # noqa: E402

import polars_rank as pr  # noqa: E402
from polars_rank.core import arrow as _arrow  # noqa: E402
from polars_rank.core.columns import duckdb as engine  # noqa: E402


def _register_pyarrow(con, name: str, frame: pl.DataFrame) -> None:
    con.register(name, frame)


def _to_polars_pyarrow(relation) -> pl.DataFrame:
    return relation.pl()


@contextmanager
def _transfers(register: Callable, to_polars: Callable) -> Iterator[None]:
    """The DuckDB engine with other transfer functions for the duration of the block."""
    saved = engine.register_frame, engine.to_polars
    engine.register_frame, engine.to_polars = register, to_polars
    try:
        yield
    finally:
        engine.register_frame, engine.to_polars = saved


def evaluate_capsule(run: pl.DataFrame, qrels: pl.DataFrame) -> object:
    return pr.evaluate(run, qrels, METRICS, engine="duckdb")


def evaluate_pyarrow(run: pl.DataFrame, qrels: pl.DataFrame) -> object:
    with _transfers(_register_pyarrow, _to_polars_pyarrow):
        return pr.evaluate(run, qrels, METRICS, engine="duckdb")


def _scan(run: pl.DataFrame, register: Callable, to_polars: Callable) -> pl.DataFrame:
    con = duckdb.connect()
    register(con, "run", run)
    out = to_polars(con.sql("SELECT * FROM run"))
    con.close()
    assert out.height == run.height
    return out


def scan_capsule(run: pl.DataFrame, qrels: pl.DataFrame) -> object:
    return _scan(run, _arrow.register_frame, _arrow.to_polars)


def scan_pyarrow(run: pl.DataFrame, qrels: pl.DataFrame) -> object:
    return _scan(run, _register_pyarrow, _to_polars_pyarrow)


VARIANTS = {
    "evaluate_capsule": evaluate_capsule,
    "evaluate_pyarrow": evaluate_pyarrow,
    "scan_capsule": scan_capsule,
    "scan_pyarrow": scan_pyarrow,
}


def main() -> None:
    warnings.simplefilter("ignore")  # the "queries without judgments" notice
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="1M", help="run rows: 1M, 10M, ... (100 per query)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    run, qrels = make_data(parse_rows(args.rows) // 100)
    print(
        f"rows={run.height:,} qrels={qrels.height:,} input={frame_mib(run, qrels):.1f} MiB "
        f"repeat={args.repeat}"
    )
    same = evaluate_capsule(run, qrels).equals(evaluate_pyarrow(run, qrels))
    print(f"capsule and pyarrow results identical: {same}")
    for fn in VARIANTS.values():  # warm-up
        fn(run.head(1000), qrels.head(1000))
    wall: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for _ in range(args.repeat):
        for variant, fn in VARIANTS.items():
            start = time.perf_counter()
            fn(run, qrels)
            wall[variant].append(time.perf_counter() - start)
    median = {v: statistics.median(t) for v, t in wall.items()}
    for variant in VARIANTS:
        print(
            f"{variant:18s} median {median[variant]:7.3f}s  "
            f"runs {[round(t, 3) for t in wall[variant]]}"
        )
    for kind in ("evaluate", "scan"):
        ratio = median[f"{kind}_capsule"] / median[f"{kind}_pyarrow"]
        print(f"{kind}: capsule / pyarrow = {ratio:.2f}x")


if __name__ == "__main__":
    main()
