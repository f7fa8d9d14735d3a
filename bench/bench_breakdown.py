"""Where the Polars engine's time goes: each pass of ``evaluate`` timed alone, beside the floor.

Usage (from the repository root):

    uv run python bench/bench_breakdown.py --rows 1M --repeat 9
    uv run python bench/bench_breakdown.py --rows 10M --repeat 3

Data and metrics: those of ``bench_ranking.py`` (``make_data``, nDCG@10, RR@10, AP, R@100,
P@10), DataFrames in memory, input checks on. Each line is the median wall and CPU time of one
step run alone, in the order ``evaluate`` runs them (``polars_rank.core.judged.compact_table``
and ``engines/polars/ranking.py``), each step's inputs computed beforehand:

* ``floor``: ``rank("ordinal").over("query")`` by score and one grouped sum (bench_ranking's);
* ``first pass``: the input checks' counts, each query's size and distinct doc hashes (the
  duplicate check), the judged pairs' hashes (one ``collect_all``);
* ``  of which duplicates``: the distinct doc-hash count per query alone, minus the sizes
  alone;
* ``judged hits``: the run rows whose pair hash is judged, joined with the judgments;
* ``counted ranks``: each judged document's rows above and ties (the counting join), plus the
  tie pass;
* ``table``: the compact table from those (the judged documents not retrieved, one row per
  query for the sizes, sorted by query and rank) — ``compact_judged_table`` minus the step
  before;
* ``metrics``: the five metrics per query from the compact table, and their means;
* ``evaluate``: the whole call; ``the rest`` is ``evaluate`` minus the steps (options, plans,
  schema reads).

Then three bounds: ``floor in trec_eval's order`` (the floor's window ranking by score and doc
id, the tie-break trec_eval makes), ``floor + judgments join`` (the floor with the judgments
joined to the run), and the sum of the cheapest exact forms measured of the pieces every exact
plan needs (the judged documents' ranks: counted or ranked in trec_eval's order; the duplicate
check; the metrics). The sum of the steps is a lower bound on what this plan shape costs;
bench/README.md reads issue 28's goals against these.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import METRICS, load, machine, make_data, parse_rows  # noqa: E402

import polars_rank as pr  # noqa: E402
from polars_rank.catalog.names import parse_metrics  # noqa: E402
from polars_rank.core import judged  # noqa: E402
from polars_rank.core.options import Options  # noqa: E402
from polars_rank.core.summary import summary_expr  # noqa: E402
from polars_rank.core.validation import problem_counts  # noqa: E402
from polars_rank.engines.polars.ranking import per_query_values  # noqa: E402


def timed(label: str, fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    print(f"{label:26s} median {wall * 1000:8.1f} ms  cpu {cpu * 1000:8.1f} ms", flush=True)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", default="1M", help="run rows: 1M, 10M (100 per query)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    run, qrels = make_data(parse_rows(args.rows) // 100)
    print(f"machine: {machine()}; load average {load()}")
    print(f"rows={run.height:,} judgments={qrels.height:,} repeat={args.repeat}")
    options = judged.with_rank_name(Options().resolve(run.schema, qrels.schema))
    cols, lazy_run, lazy_qrels = options.columns, run.lazy(), qrels.lazy()
    specs = parse_metrics(METRICS)

    def first_pass() -> list[pl.DataFrame]:
        return pl.collect_all(
            [
                *problem_counts(lazy_run, lazy_qrels, options, run_pairs=False),
                judged.run_sizes(lazy_run, options, distinct=True),
                judged.judged_pair_hashes(lazy_run, lazy_qrels, options),
            ],
            engine=judged.PASS_ENGINE,
        )

    *_, sizes, wanted = first_pass()
    hits = judged.judged_hits(lazy_run, lazy_qrels, options, wanted["__pr_pair"]).collect(
        engine=judged.PASS_ENGINE
    )
    keyed = judged._keyed(lazy_run, options)
    table = judged.compact_judged_table(lazy_run, lazy_qrels, hits, sizes, options, pl.String())

    def metrics() -> pl.DataFrame:
        values = per_query_values(table.lazy(), specs, options)
        return values.select(summary_expr(s.summary, s.label, cols.query) for s in specs).collect()

    steps = {
        "floor": lambda: (
            run.lazy()
            .with_columns(pl.col("score").rank("ordinal").over("query").alias("r"))
            .group_by("query")
            .agg(pl.col("r").sum())
            .collect()
        ),
        "floor in trec_eval's order": lambda: (
            run.lazy()
            .with_columns(
                pl.struct("score", "doc").rank("ordinal", descending=True).over("query").alias("r")
            )
            .group_by("query")
            .agg(pl.col("r").sum())
            .collect()
        ),
        "floor + judgments join": lambda: (
            run.lazy()
            .with_columns(pl.col("score").rank("ordinal").over("query").alias("r"))
            .join(qrels.lazy(), on=["query", "doc"])
            .group_by("query")
            .agg(pl.col("r").sum())
            .collect()
        ),
        "first pass": first_pass,
        "sizes alone": lambda: judged.run_sizes(lazy_run, options).collect(
            engine=judged.PASS_ENGINE
        ),
        "sizes + distinct alone": lambda: judged.run_sizes(
            lazy_run, options, distinct=True
        ).collect(engine=judged.PASS_ENGINE),
        "judged hits": lambda: judged.judged_hits(
            lazy_run, lazy_qrels, options, wanted["__pr_pair"]
        ).collect(engine=judged.PASS_ENGINE),
        "counted ranks": lambda: judged._counted_ranks(keyed, hits, cols, pl.String()).collect(),
        "counted ranks + table": lambda: judged.compact_judged_table(
            lazy_run, lazy_qrels, hits, sizes, options, pl.String()
        ),
        "metrics": metrics,
        "evaluate": lambda: pr.evaluate(run, qrels, METRICS),
    }
    got = {name: timed(name, fn, args.repeat) for name, fn in steps.items()}
    wall = {name: value[0] for name, value in got.items()}
    duplicates = wall["sizes + distinct alone"] - wall["sizes alone"]
    table_only = wall["counted ranks + table"] - wall["counted ranks"]
    parts = {
        "first pass": wall["first pass"],
        "  of which duplicates": duplicates,
        "judged hits": wall["judged hits"],
        "counted ranks": wall["counted ranks"],
        "table": table_only,
        "metrics": wall["metrics"],
    }
    steps_sum = sum(v for k, v in parts.items() if not k.startswith(" "))
    floor = wall["floor"]
    print(f"\nin floors ({floor * 1000:.1f} ms), wall:")
    for name, value in parts.items():
        print(f"  {name:24s} {value / floor:5.2f}")
    print(f"  {'sum of the steps':24s} {steps_sum / floor:5.2f}")
    print(f"  {'the rest':24s} {(wall['evaluate'] - steps_sum) / floor:5.2f}")
    print(f"  {'evaluate':24s} {wall['evaluate'] / floor:5.2f}")
    # the cheapest exact form measured of each piece every exact plan needs: the ranks of the
    # judged documents in trec_eval's order (counted here, or the whole run ranked with the
    # doc-id tie-break), the duplicate check, the metrics
    ranks = min(wall["judged hits"] + wall["counted ranks"], wall["floor in trec_eval's order"])
    bound = ranks + duplicates + wall["metrics"]
    print("\nbounds, in floors:")
    trec_order = wall["floor in trec_eval's order"]
    print(f"  {'floor in trec_eval order':24s} {trec_order / floor:5.2f}")
    print(f"  {'floor + judgments join':24s} {wall['floor + judgments join'] / floor:5.2f}")
    print(f"  {'ranks+duplicates+metrics':24s} {bound / floor:5.2f}")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
