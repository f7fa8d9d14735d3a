"""Benchmark at scale: both engines over Parquet files of 100M–1B rows, each variant in its own
process, wall time, CPU time and peak RSS beside the engine's floor.

Usage (from the repository root; ``DIR`` needs ~1.1 GB of disk per 100M rows with string ids):

    uv run python bench/bench_scale.py gen --rows 100M --ids string --dir /tmp/scale
    uv run python bench/bench_scale.py run --dir /tmp/scale
    uv run python bench/bench_scale.py run --dir /tmp/scale --variants duckdb,duckdb_floor --delete

``gen`` writes ``run.parquet`` and ``qrels.parquet`` in the shape of ``_common.make_data``
(``rows / 100`` queries × 100 retrieved documents, scores on a 1/1000 grid so that ties occur,
~5 judged documents per query — 3 retrieved, 2 not — with grades 0–3), string ids
(``--ids string``) or Int64 ids (``--ids int``); ``--dates 30`` adds a ``date`` column (30
days) to both files for the ``*_by_date`` variants (``by="date"``, the judgments joined on it).
It generates ``--chunk-rows`` rows at a time
(1M by default: whole queries, appended to the files as Parquet row groups), so its memory
stays ~0.5 GiB whatever ``--rows`` is; ``--rows 1000M`` makes the 1B-row set (10M queries).

``run`` runs each variant of ``--variants`` (comma-separated, all four by default) in a fresh
subprocess and prints its wall time, CPU time (user + system, all threads), the RSS after the
imports and the peak RSS of that process (``ru_maxrss``), then each engine's ratio to its floor,
with the machine, the library versions and the load average before and after each variant.
The variants, with the metrics of ``_common.METRICS`` (nDCG@10, RR@10, AP, R@100, P@10):

* ``polars``: ``pr.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), METRICS)`` (a
  LazyFrame), collected with ``engine="streaming"``; input checks on.
* ``polars_floor``: ``pl.scan_parquet(run)``, ``score.rank("ordinal", descending=True)
  .over(query)`` and one grouped sum, collected with ``engine="streaming"``.
* ``duckdb``: ``pr.evaluate(run_path, qrels_path, METRICS, engine="duckdb")``; checks on.
* ``duckdb_floor``: ``row_number() OVER (PARTITION BY query ORDER BY score DESC)`` and one
  grouped sum over ``read_parquet(run_path)``, on a connection of the DuckDB engine's own
  (``polars_rank.duckdb.session()``, so with the engine's settings), fetched as a Polars frame.
* ``polars_by_date``, ``duckdb_by_date``: the engines with ``by="date"`` (data from
  ``gen --dates``), one row per date; timed against the same floors (not in the default list).
* ``sql_by_date``: ``to_sql(..., by=["date"], qrels_by=["date"])`` run on DuckDB with
  ``memory_limit='3GB'`` (not in the default list).
* ``polars_nocheck``, ``duckdb_nocheck``: the engines with ``validate=False`` (not in the
  default list).
* ``duckdb_4gb``: ``duckdb`` on a connection of its own with ``memory_limit='4GB'`` and a
  ``temp_directory`` in ``DIR`` (DuckDB otherwise fills its default limit, 80 % of RAM,
  before it spills: its peak RSS says what it was allowed, not what it needs).
* ``duplicates_per_query``, ``duplicates_sorted``, ``duplicates_global``, ``duplicates_16``,
  ``duplicates_64``: the Polars engine's count of duplicate pairs alone, with each query's
  size, as the engine counts it for a run in memory (per-query sets of doc-id hashes) and for
  a lazy run (the pair hashes sorted), and as rows − distinct pair hashes in 1,
  16 and 64 hash partitions (the lazy runs' count before; not in the default list).

A watchdog stops a variant whose RSS passes ``--max-rss-gib`` (12 by default: the machine is
shared). ``--delete`` removes ``DIR``'s two files at the end.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DUCKDB_FLOOR, METRICS, cpu_seconds, load, machine, parse_rows  # noqa: E402

RUN, QRELS = "run.parquet", "qrels.parquet"
DOCS_PER_QUERY, JUDGED_PER_QUERY, RETRIEVED_JUDGED = 100, 5, 3
FLOORS = {"polars": "polars_floor", "polars_nocheck": "polars_floor"}
FLOORS |= {"duckdb": "duckdb_floor", "duckdb_nocheck": "duckdb_floor"}
FLOORS |= {"duckdb_4gb": "duckdb_floor"}
FLOORS |= {"polars_by_date": "polars_floor", "duckdb_by_date": "duckdb_floor"}
FLOORS |= {"sql_by_date": "duckdb_floor", "polars_decode": "polars_floor"}
DEFAULT_VARIANTS = "polars,polars_floor,duckdb,duckdb_floor"


# --- data ------------------------------------------------------------------------------------


def _chunk(first: int, n_queries: int, total_queries: int, ids: str, seed: int, dates: int = 0):
    """Run and qrels rows of queries ``first .. first + n_queries - 1`` (as ``make_data``);
    with ``dates``, a ``date`` column first in both (query ``i`` on day ``i % dates`` of
    2026), so that the judgments join each date's queries on it."""
    rng = np.random.default_rng([seed, first])
    n = n_queries * DOCS_PER_QUERY
    run = pl.DataFrame(
        {
            "query": np.repeat(np.arange(first, first + n_queries), DOCS_PER_QUERY),
            "doc": rng.integers(0, 50 * total_queries + 1000, n),
            "score": rng.integers(0, 1000, n) / 1000.0,
        }
    ).unique(subset=["query", "doc"], keep="first", maintain_order=True)
    judged_run = run.filter(
        pl.int_range(pl.len()).shuffle(seed=seed + first).over("query") < RETRIEVED_JUDGED
    ).select("query", "doc")
    extra = JUDGED_PER_QUERY - RETRIEVED_JUDGED
    unretrieved = pl.DataFrame(
        {
            "query": np.repeat(np.arange(first, first + n_queries), extra),
            "doc": rng.integers(10**9, 2 * 10**9, n_queries * extra),
        }
    )
    qrels = pl.concat([judged_run, unretrieved]).unique(
        subset=["query", "doc"], maintain_order=True
    )
    qrels = qrels.with_columns(relevance=pl.Series(rng.integers(0, 4, qrels.height)))
    dtype = pl.String if ids == "string" else pl.Int64
    ids_cast = [pl.col("query").cast(dtype), pl.col("doc").cast(dtype)]
    if dates:
        day = (pl.date(2026, 1, 1) + pl.duration(days=pl.col("query") % dates)).alias("date")
        run, qrels = (f.select(day, pl.all()) for f in (run, qrels))
    return run.with_columns(ids_cast), qrels.with_columns(ids_cast)


def gen(rows: int, ids: str, data_dir: Path, chunk_rows: int, seed: int, dates: int = 0) -> None:
    """Write ``run.parquet`` and ``qrels.parquet`` chunk by chunk (pyarrow's ParquetWriter)."""
    import pyarrow.parquet as pq

    data_dir.mkdir(parents=True, exist_ok=True)
    total_queries = rows // DOCS_PER_QUERY
    per_chunk = max(1, chunk_rows // DOCS_PER_QUERY)
    writers: dict[str, pq.ParquetWriter] = {}
    start = time.perf_counter()
    run_rows = qrels_rows = 0
    try:
        for first in range(0, total_queries, per_chunk):
            run, qrels = _chunk(
                first, min(per_chunk, total_queries - first), total_queries, ids, seed, dates
            )
            run_rows, qrels_rows = run_rows + run.height, qrels_rows + qrels.height
            for name, frame in ((RUN, run), (QRELS, qrels)):
                table = frame.to_arrow()
                if name not in writers:
                    writers[name] = pq.ParquetWriter(
                        data_dir / name, table.schema, compression="zstd"
                    )
                writers[name].write_table(table, row_group_size=chunk_rows)
            if (first // per_chunk) % 20 == 0:
                print(f"  {first + per_chunk:,} / {total_queries:,} queries", flush=True)
    finally:
        for writer in writers.values():
            writer.close()
    sizes = {name: (data_dir / name).stat().st_size / 2**30 for name in (RUN, QRELS)}
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(
        f"wrote {run_rows:,} run rows ({sizes[RUN]:.2f} GiB) and {qrels_rows:,} qrels rows "
        f"({sizes[QRELS]:.2f} GiB), {ids} ids, to {data_dir} "
        f"in {time.perf_counter() - start:.0f} s; "
        f"peak RSS of the generator {peak:.2f} GiB"
    )


# --- variants (each runs in its own process) --------------------------------------------------


def _summary(frame: pl.DataFrame) -> dict:
    return {c: frame[c][0] for c in frame.columns} if frame.height == 1 else {}


def v_polars(run: str, qrels: str, validate: bool = True) -> dict:
    import polars_rank as pr

    lazy = pr.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), METRICS, validate=validate)
    return _summary(lazy.collect(engine="streaming"))


def v_polars_floor(run: str, qrels: str) -> dict:
    ranked = pl.scan_parquet(run).select(
        "query", rank=pl.col("score").rank("ordinal", descending=True).over("query")
    )
    ranked.group_by("query").agg(pl.col("rank").sum()).collect(engine="streaming")
    return {}


def v_polars_decode(run: str, qrels: str) -> dict:
    """One streamed read of the run's three columns, reduced to three sums: what every pass
    over the file pays before any work (the Polars engine passes over the run several times,
    each reading it again, so as not to hold it; bench/README.md)."""
    pl.scan_parquet(run).select(
        pl.col("query").str.len_bytes().sum(),
        pl.col("doc").str.len_bytes().sum(),
        pl.col("score").sum(),
    ).collect(engine="streaming")
    return {}


def v_polars_by_date(run: str, qrels: str) -> dict:
    """``polars`` with ``by="date"`` (data from ``gen --dates``): one row per date."""
    import polars_rank as pr

    lazy = pr.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), METRICS, by="date")
    frame = lazy.collect(engine="streaming")
    return {"dates": frame.height, **{c: frame[c].mean() for c in METRICS}}


def v_duckdb_by_date(run: str, qrels: str) -> dict:
    """``duckdb`` with ``by="date"`` (data from ``gen --dates``): one row per date."""
    import polars_rank as pr

    frame = pr.evaluate(run, qrels, METRICS, engine="duckdb", by="date")
    return {"dates": frame.height, **{c: frame[c].mean() for c in METRICS}}


def v_sql_by_date(run: str, qrels: str) -> dict:
    """``to_sql(..., by=["date"], qrels_by=["date"])`` run on a DuckDB connection of its own
    with ``memory_limit='3GB'`` (a ``temp_directory`` beside the data), over two views on
    ``read_parquet``: the compiled query, no input checks."""
    import duckdb

    import polars_rank as pr

    con = duckdb.connect()
    con.execute("SET memory_limit='3GB'")
    con.execute(f"SET temp_directory='{Path(run).parent / 'duckdb_spill'}'")
    con.execute(f"CREATE VIEW run AS SELECT * FROM read_parquet('{run}')")
    con.execute(f"CREATE VIEW qrels AS SELECT * FROM read_parquet('{qrels}')")
    sql = pr.to_sql(METRICS, "duckdb", "run", "qrels", by=["date"], qrels_by=["date"])
    frame = con.sql(sql).pl()
    names = pr.compiler.column_names(METRICS)
    return {"dates": frame.height, **{m: frame[names[m]].mean() for m in METRICS}}


def v_duckdb(run: str, qrels: str, validate: bool = True) -> dict:
    import polars_rank as pr

    return _summary(pr.evaluate(run, qrels, METRICS, engine="duckdb", validate=validate))


def v_duckdb_limited(run: str, qrels: str, limit: str) -> dict:
    """The DuckDB engine on a connection of the caller's with ``memory_limit`` set (and a
    ``temp_directory`` beside the data for what spills)."""
    import duckdb

    import polars_rank as pr

    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{limit}'")
    con.execute(f"SET temp_directory = '{Path(run).parent / 'duckdb_spill'}'")
    try:
        return _summary(pr.evaluate(run, qrels, METRICS, engine="duckdb", con=con))
    finally:
        con.close()


def v_duckdb_floor(run: str, qrels: str) -> dict:
    from polars_rank.core.arrow import to_polars
    from polars_rank.core.sqltext import literal
    from polars_rank.duckdb import session

    with session() as con:
        to_polars(con.sql(DUCKDB_FLOOR.format(run=f"read_parquet({literal(run)})")))
    return {}


def v_duplicates(run: str, qrels: str, how: str | int) -> dict:
    """The Polars engine's duplicate count alone, with each query's size: per-query sets of
    doc-id hashes (``how="per_query"``, the in-memory runs' count), the pair hashes sorted
    (``"sorted"``, lazy runs), or rows − distinct pair hashes in ``how`` hash
    partitions (lazy runs before), collected together."""
    from polars_rank.core.conventions import Columns
    from polars_rank.core.validation import pair_hash, repeated_pair_count

    frame = pl.scan_parquet(run)
    sizes = frame.group_by("query").agg(pl.len(), pl.col("doc").hash(seed=2).n_unique())
    if how == "per_query":
        found = pl.collect_all([sizes], engine="streaming")[0]
        return {"duplicates": int((found["len"] - found["doc"]).sum())}
    if how == "sorted":
        found = pl.collect_all(
            [sizes.select("query", "len"), repeated_pair_count(frame, Columns())],
            engine="streaming",
        )
        return {"duplicates": found[1].item()}
    key = pl.col("hash")
    hashed = frame.select(pair_hash(Columns()).alias("hash"))
    counts = [
        hashed.filter(key % how == part).select((pl.len() - key.n_unique()).alias("count"))
        for part in range(how)
    ]
    found = pl.collect_all([sizes.select("query", "len"), *counts], engine="streaming")
    return {"duplicates": sum(f["count"].item() for f in found[1:])}


VARIANTS = {
    "polars": v_polars,
    "polars_floor": v_polars_floor,
    "polars_decode": v_polars_decode,
    "duckdb": v_duckdb,
    "duckdb_floor": v_duckdb_floor,
    "polars_nocheck": lambda run, qrels: v_polars(run, qrels, validate=False),
    "duckdb_nocheck": lambda run, qrels: v_duckdb(run, qrels, validate=False),
    "duckdb_4gb": lambda run, qrels: v_duckdb_limited(run, qrels, "4GB"),
    "polars_by_date": v_polars_by_date,
    "duckdb_by_date": v_duckdb_by_date,
    "sql_by_date": v_sql_by_date,
    "duplicates_per_query": lambda run, qrels: v_duplicates(run, qrels, "per_query"),
    "duplicates_sorted": lambda run, qrels: v_duplicates(run, qrels, "sorted"),
    "duplicates_global": lambda run, qrels: v_duplicates(run, qrels, 1),
    "duplicates_16": lambda run, qrels: v_duplicates(run, qrels, 16),
    "duplicates_64": lambda run, qrels: v_duplicates(run, qrels, 64),
}


def child(name: str, data_dir: Path) -> None:
    """Run one variant, print one JSON line: wall, CPU, RSS after imports, peak RSS."""
    import duckdb  # noqa: F401  (imports are not timed)

    import polars_rank  # noqa: F401

    warnings.simplefilter("ignore")  # the "queries without judgments" notice
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    cpu_start, start = cpu_seconds(), time.perf_counter()
    values = VARIANTS[name](str(data_dir / RUN), str(data_dir / QRELS))
    wall, cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    out = {"wall": wall, "cpu": cpu, "rss_before": before, "peak": peak, "values": values}
    print(json.dumps(out))


# --- the parent ------------------------------------------------------------------------------


def _rss_gib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return 0.0


def _run_child(name: str, data_dir: Path, max_rss_gib: float) -> dict:
    """The variant in a subprocess, stopped if its RSS passes ``max_rss_gib``."""
    proc = subprocess.Popen(
        [sys.executable, __file__, "_child", name, "--dir", str(data_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stopped: list[float] = []

    def watch() -> None:
        while proc.poll() is None:
            rss = _rss_gib(proc.pid)
            if rss > max_rss_gib:
                stopped.append(rss)
                proc.kill()
                return
            time.sleep(0.2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    out, err = proc.communicate()
    watcher.join()
    if stopped:
        return {"error": f"stopped at RSS {stopped[0]:.1f} GiB > --max-rss-gib {max_rss_gib}"}
    if proc.returncode:
        return {"error": f"exit code {proc.returncode}: {err.strip()[-2000:]}"}
    return json.loads(out.strip().splitlines()[-1])


def run(data_dir: Path, variants: list[str], max_rss_gib: float, delete: bool) -> None:
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise SystemExit(f"unknown variants {unknown}; known: {sorted(VARIANTS)}")
    meta = pl.read_parquet_schema(data_dir / RUN)
    import pyarrow.parquet as pq

    rows = pq.ParquetFile(data_dir / RUN).metadata.num_rows
    size = sum((data_dir / n).stat().st_size for n in (RUN, QRELS)) / 2**30
    print(f"machine: {machine()}")
    print(
        f"data: {data_dir}: {rows:,} run rows, ids {meta['query']}, {size:.2f} GiB of Parquet; "
        f"metrics {', '.join(METRICS)}"
    )
    results: dict[str, dict] = {}
    for name in variants:
        load_before = load()
        result = _run_child(name, data_dir, max_rss_gib)
        result["load"] = f"{load_before} -> {load()}"
        results[name] = result
        if "error" in result:
            print(f"{name:15s} {result['error']}  load {result['load']}", flush=True)
            continue
        print(
            f"{name:15s} wall {result['wall']:8.2f} s  cpu {result['cpu']:8.2f} s  "
            f"RSS after imports {result['rss_before']:5.2f} GiB  peak RSS {result['peak']:5.2f} GiB"
            f"  load {result['load']}",
            flush=True,
        )
    for name, floor in FLOORS.items():
        a, b = results.get(name), results.get(floor)
        if a and b and "error" not in a and "error" not in b:
            print(
                f"{name} / {floor}: wall {a['wall'] / b['wall']:.2f}x  cpu "
                f"{a['cpu'] / b['cpu']:.2f}x  peak RSS {a['peak']:.2f} / {b['peak']:.2f} GiB"
            )
    engines = [n for n in FLOORS if n in results and results[n].get("values")]
    for name in engines:
        print(f"{name} summary: {results[name]['values']}")
    if len(engines) > 1:
        first = results[engines[0]]["values"]
        for name in engines[1:]:
            values = results[name]["values"]
            diff = max(abs(first[k] - values[k]) for k in first)
            print(f"largest difference {engines[0]} vs {name}: {diff:.3g}")
    if delete:
        for n in (RUN, QRELS):
            (data_dir / n).unlink(missing_ok=True)
        shutil.rmtree(data_dir / "duckdb_spill", ignore_errors=True)
        print(f"deleted {data_dir / RUN} and {data_dir / QRELS}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("gen", help="write run.parquet and qrels.parquet in chunks")
    g.add_argument("--rows", default="100M", help="run rows: 10M, 100M, 1000M (100 per query)")
    g.add_argument("--ids", choices=["string", "int"], default="string")
    g.add_argument("--dir", type=Path, required=True)
    g.add_argument("--chunk-rows", default="1M", help="rows generated (and written) at a time")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--dates", type=int, default=0, help="a date column of N days (for by=)")
    r = sub.add_parser("run", help="time each variant in its own process")
    r.add_argument("--dir", type=Path, required=True)
    r.add_argument("--variants", default=DEFAULT_VARIANTS, help=f"of {', '.join(VARIANTS)}")
    r.add_argument("--max-rss-gib", type=float, default=12.0)
    r.add_argument("--delete", action="store_true", help="remove the data at the end")
    c = sub.add_parser("_child")
    c.add_argument("name")
    c.add_argument("--dir", type=Path, required=True)
    args = parser.parse_args()
    if args.command == "gen":
        gen(
            parse_rows(args.rows),
            args.ids,
            args.dir,
            parse_rows(args.chunk_rows),
            args.seed,
            args.dates,
        )
    elif args.command == "run":
        run(args.dir, args.variants.split(","), args.max_rss_gib, args.delete)
    else:
        child(args.name, args.dir)


if __name__ == "__main__":
    main()
