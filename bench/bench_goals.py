"""Issue 28's goals table in one run: each engine against its own floor and the peers.

Usage (from the repository root):

    uv run python bench/bench_goals.py                       # every row (about 20 min)
    uv run python bench/bench_goals.py --rows polars_1m,duckdb_10m
    uv run python bench/bench_goals.py --scale-dir /tmp/scale   # 100M rows: generated there once

Each row runs the benchmark script that owns it, in a fresh process, one after the other (so no
two rows compete for the cores), echoes that script's own output, and reads its medians. The end
is one table: the row, what it measures, the value, the goal and whether it is met. The ratios
are those of the variants timed side by side in the same script run; the machine line and the
load average before and after each row are printed with it (this machine is shared: a ratio is
only as good as the load next to it).

Rows (the scripts, data generators, floors and metric set are those of the other bench files,
unchanged):

* ``polars_1m``: ``bench_ranking.py --rows 1M``: pytrec_eval / Polars >= 10x, ranx / Polars
  >= 20x (input checks on, five metrics).
* ``polars_10m``: ``bench_ranking.py --rows 10M --skip-references``: Polars / its floor <= 1.3x.
* ``scale_100m``: ``bench_scale.py run`` on 100M rows from Parquet (string ids): engine / its
  floor <= 1.5x (Polars), <= 1.2x (DuckDB); peak RSS <= 4 GiB.
* ``duckdb_1m``, ``duckdb_10m``: ``bench_duckdb.py``: DuckDB engine / DuckDB's floor <= 1.2x.
* ``memory_10m``: ``bench_ranking.py --memory`` and ``bench_duckdb.py --memory`` at 10M rows:
  peak RSS minus the RSS after loading the input, over the input's size, <= 2x.
* ``spark_10m``: ``bench_warehouse.py --rows 10M``: ``engine="spark"`` checks on / off <= 1.3x.
* ``recsys_1m``: ``bench_recsys.py all``: pandas / Polars >= 10x in wall and in CPU time.
* ``by_20x1m`` (issue 27): ``bench_by.py``: 20 systems x 1M rows in one ``by="system"`` call
  against the per-run loop and ranx (measured, no goal).
* ``by_date_100m`` (issue 27): ``bench_scale.py run`` on 100M rows over 30 dates (``gen
  --dates 30``): ``by="date"`` in both engines, peak RSS <= 4 GiB.

The 1B-row figures come from a separate command, run once (about an hour and 12 GiB of
Parquet): ``bench_scale.py gen --rows 1000M --ids string --dir D`` then ``bench_scale.py run
--dir D``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import load, machine  # noqa: E402

_MEDIAN = re.compile(r"^(\S+)\s+median\s+([\d.]+)\s*s\s+cpu\s+([\d.]+)\s*s", re.M)
_WALL = re.compile(r"^(?P<name>\S+)\s+median\s+(?P<wall>[\d.]+) s", re.M)
_MEMORY = re.compile(r"^(\S+)\s+input frames\s+([\d.]+) MiB.*growth\s+([-\d.]+) MiB", re.M)
_SCALE = re.compile(r"^(\S+)\s+wall\s+([\d.]+) s\s+cpu\s+([\d.]+) s.*peak RSS\s+([\d.]+) GiB", re.M)


@dataclass
class Result:
    row: str
    measure: str
    value: str
    goal: str
    met: bool | None


def _script(args: list[str]) -> str:
    """Run one bench script (fresh process), echo its output, return its stdout."""
    command = [sys.executable, str(HERE / args[0]), *args[1:]]
    print(f"\n$ python bench/{' '.join(args)}   (load {load()})", flush=True)
    done = subprocess.run(command, capture_output=True, text=True)
    print(done.stdout, end="", flush=True)
    if done.returncode:
        print(done.stderr[-3000:], flush=True)
        raise RuntimeError(f"{args[0]} exited with {done.returncode}")
    return done.stdout


def _medians(out: str) -> dict[str, tuple[float, float]]:
    return {m[1]: (float(m[2]), float(m[3])) for m in _MEDIAN.finditer(out)}


def polars_1m(_: argparse.Namespace) -> list[Result]:
    m = _medians(_script(["bench_ranking.py", "--rows", "1M", "--repeat", "9"]))
    ours = m["polars_rank"][0]
    pytrec, ranx = m["pytrec_eval"][0] / ours, m["ranx"][0] / ours
    return [
        Result(
            "polars_1m", "pytrec_eval / Polars, 1M rows", f"{pytrec:.1f}x", ">= 10x", pytrec >= 10
        ),
        Result("polars_1m", "ranx / Polars, 1M rows", f"{ranx:.1f}x", ">= 20x", ranx >= 20),
    ]


def polars_10m(_: argparse.Namespace) -> list[Result]:
    m = _medians(
        _script(["bench_ranking.py", "--rows", "10M", "--repeat", "3", "--skip-references"])
    )
    ratio = m["polars_rank"][0] / m["floor"][0]
    return [
        Result(
            "polars_10m", "Polars / its floor, 10M rows", f"{ratio:.2f}x", "<= 1.3x", ratio <= 1.3
        )
    ]


def _duckdb(rows: str, repeat: str) -> list[Result]:
    m = _medians(_script(["bench_duckdb.py", "--rows", rows, "--repeat", repeat]))
    ratio = m["duckdb_engine"][0] / m["duckdb_floor"][0]
    row = f"duckdb_{rows.lower()}"
    return [
        Result(
            row,
            f"DuckDB engine / DuckDB's floor, {rows} rows",
            f"{ratio:.2f}x",
            "<= 1.2x",
            ratio <= 1.2,
        )
    ]


def duckdb_1m(_: argparse.Namespace) -> list[Result]:
    return _duckdb("1M", "5")


def duckdb_10m(_: argparse.Namespace) -> list[Result]:
    return _duckdb("10M", "3")


def memory_10m(_: argparse.Namespace) -> list[Result]:
    results = []
    for script, name, engine in (
        ("bench_ranking.py", "polars_rank", "Polars"),
        ("bench_duckdb.py", "duckdb_engine", "DuckDB"),
    ):
        out = _script([script, "--rows", "10M", "--memory"])
        rows = {m[1]: (float(m[2]), float(m[3])) for m in _MEMORY.finditer(out)}
        size, growth = rows[name]
        ratio = growth / size
        results.append(
            Result(
                "memory_10m",
                f"{engine}: evaluation's RSS growth / input, 10M rows",
                f"{growth:.0f} MiB / {size:.0f} MiB = {ratio:.2f}x",
                "<= 2x",
                ratio <= 2,
            )
        )
    return results


def scale_100m(args: argparse.Namespace) -> list[Result]:
    data = Path(args.scale_dir)
    if not (data / "run.parquet").exists():
        _script(["bench_scale.py", "gen", "--rows", "100M", "--ids", "string", "--dir", str(data)])
    out = _script(
        [
            "bench_scale.py",
            "run",
            "--dir",
            str(data),
            "--variants",
            "polars,polars_floor,duckdb,duckdb_floor",
        ]
    )
    m = {x[1]: (float(x[2]), float(x[4])) for x in _SCALE.finditer(out)}
    results = []
    for engine, goal in (("polars", 1.5), ("duckdb", 1.2)):
        (wall, peak), (floor, _) = m[engine], m[f"{engine}_floor"]
        ratio = wall / floor
        results.append(
            Result(
                "scale_100m",
                f"{engine} / floor, 100M rows from Parquet; peak RSS",
                f"{wall:.1f} / {floor:.1f} s = {ratio:.2f}x; {peak:.2f} GiB",
                f"<= {goal}x, <= 4 GiB",
                ratio <= goal and peak <= 4,
            )
        )
    return results


def spark_10m(_: argparse.Namespace) -> list[Result]:
    out = _script(["bench_warehouse.py", "--rows", "10M", "--repeat", "2"])
    walls = {
        m["name"]: float(m["wall"])
        for m in _WALL.finditer(
            out.replace('engine="spark" validate=True', "spark_checks_on").replace(
                'engine="spark"', "spark_checks_off"
            )
        )
    }
    on, off = walls["spark_checks_on"], walls["spark_checks_off"]
    ratio = on / off
    return [
        Result(
            "spark_10m",
            'engine="spark" checks on / off, 10M rows',
            f"{on:.1f} / {off:.1f} s = {ratio:.2f}x",
            "<= 1.3x",
            ratio <= 1.3,
        )
    ]


def recsys_1m(_: argparse.Namespace) -> list[Result]:
    out = _script(["bench_recsys.py", "all", "--repeat", "3"])
    data = json.loads(out[out.index("{") :])
    wall, cpu = data["wall_ratio"], data["cpu_ratio"]
    return [
        Result(
            "recsys_1m",
            "pandas / Polars, 1M users x 20, wall",
            f"{wall:.1f}x",
            ">= 10x",
            wall >= 10,
        ),
        Result(
            "recsys_1m",
            "pandas / Polars, 1M users x 20, CPU time",
            f"{cpu:.1f}x",
            ">= 10x",
            cpu >= 10,
        ),
    ]


_BY = re.compile(r"^(\S+)\s+([\d.]+) s \(median", re.M)


def by_20x1m(_: argparse.Namespace) -> list[Result]:
    """Issue 27: 20 systems x 1M rows in one ``by="system"`` call, against the per-run loop
    (the baseline) and ranx's multi-run evaluation without its significance tests."""
    out = _script(["bench_by.py", "--systems", "20", "--rows", "1M", "--repeat", "3"])
    m = {x[1]: float(x[2]) for x in _BY.finditer(out)}
    results = []
    for engine in ("polars", "duckdb"):
        one, loop = m[f"by_{engine}"], m[f"loop_{engine}"]
        results.append(
            Result(
                "by_20x1m",
                f"{engine}: per-run loop / one by= call; ranx / one call, 20 x 1M rows",
                f"{loop / one:.2f}x; {m['ranx_compare'] / one:.1f}x",
                "(issue 27: measured)",
                None,
            )
        )
    return results


def by_date_100m(args: argparse.Namespace) -> list[Result]:
    """Issue 27: 100M rows over 30 dates from Parquet, ``by="date"``, peak RSS <= 4 GiB."""
    data = Path(args.by_dir)
    if not (data / "run.parquet").exists():
        gen = ["bench_scale.py", "gen", "--rows", "100M", "--ids", "string", "--dates", "30"]
        _script([*gen, "--dir", str(data)])
    variants = "polars_by_date,duckdb_by_date,polars_floor,duckdb_floor"
    out = _script(["bench_scale.py", "run", "--dir", str(data), "--variants", variants])
    m = {x[1]: (float(x[2]), float(x[4])) for x in _SCALE.finditer(out)}
    results = []
    for engine in ("polars", "duckdb"):
        (wall, peak), (floor, _) = m[f"{engine}_by_date"], m[f"{engine}_floor"]
        results.append(
            Result(
                "by_date_100m",
                f"{engine}, by date: wall / the engine's floor (no by); peak RSS",
                f"{wall:.1f} / {floor:.1f} s = {wall / floor:.2f}x; {peak:.2f} GiB",
                "<= 4 GiB",
                peak <= 4,
            )
        )
    return results


ROWS = {
    f.__name__: f
    for f in (
        polars_1m,
        polars_10m,
        duckdb_1m,
        duckdb_10m,
        memory_10m,
        scale_100m,
        spark_10m,
        recsys_1m,
        by_20x1m,
        by_date_100m,
    )
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", default=",".join(ROWS), help=f"of {', '.join(ROWS)}")
    parser.add_argument(
        "--by-dir", default="/tmp/polars_rank_scale_100m_dates", help="100M rows, 30 dates"
    )
    parser.add_argument(
        "--scale-dir", default="/tmp/polars_rank_scale_100m", help="100M-row Parquet data"
    )
    args = parser.parse_args()
    names = [n for n in args.rows.split(",") if n]
    unknown = [n for n in names if n not in ROWS]
    if unknown:
        raise SystemExit(f"unknown rows {unknown}; known: {', '.join(ROWS)}")
    print(f"machine: {machine()}; load average {load()}", flush=True)
    results: list[Result] = []
    for name in names:
        before = load()
        try:
            found = ROWS[name](args)
        except (RuntimeError, KeyError, ValueError) as error:
            found = [Result(name, "failed", repr(error), "", None)]
        for r in found:
            r.measure += f" (load {before} -> {load()})"
        results += found
    print("\n| row | measure | now | goal | met |\n| --- | --- | ---: | --- | --- |")
    for r in results:
        met = "?" if r.met is None else ("yes" if r.met else "no")
        print(f"| {r.row} | {r.measure} | {r.value} | {r.goal} | {met} |")


if __name__ == "__main__":
    main()
