"""``polars-rank fuse RUN1 RUN2 ... -o OUT``: fuse TREC runs into one TREC run with
:func:`polars_rank.fuse` (ranx's methods and normalisations; ``--engine`` as ``evaluate``'s:
the Polars plan, or the compiled query of :func:`polars_rank.fusion_sql` in DuckDB or chDB).

Each run file is read with :func:`polars_rank.io.read_trec_run` and named by its position
(``1``, ``2``, ...), the names ``--weights`` follow; the fused run is written with
:func:`polars_rank.io.write_trec_run`, ranks 1, 2, ... in the fused order (score descending,
ties by doc id descending).
"""

from __future__ import annotations

import argparse
import sys

from polars_rank.cli.output import check_out
from polars_rank.core.errors import PolarsRankError
from polars_rank.engines import registry

METHODS = ("sum", "mnz", "max", "min", "med", "anz", "wsum", "rrf")
NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", "none")


def run_fuse(args: argparse.Namespace) -> int:
    """``polars-rank fuse``."""
    import polars as pl

    from polars_rank.evaluation import fuse
    from polars_rank.io import read_trec_run, write_trec_run

    if len(args.runs) < 2:
        raise PolarsRankError(f"fuse needs at least two run files, got {len(args.runs)}")
    check_out(args.out, args.runs, option="--out")
    weights = None
    if args.weights is not None:
        if len(args.weights) != len(args.runs):
            raise PolarsRankError(
                f"--weights: {len(args.weights)} weights for {len(args.runs)} runs; "
                "give one weight per run, in the runs' order"
            )
        weights = list(args.weights)
    runs = {
        str(i): read_trec_run(path).select("query", "doc", "score")
        for i, path in enumerate(args.runs, start=1)
    }
    norm = None if args.norm == "none" else args.norm
    fused = fuse(runs, args.method, norm=norm, weights=weights, k=args.k, engine=args.engine)
    if isinstance(fused, pl.LazyFrame):  # a dict of DataFrames gives a DataFrame
        fused = fused.collect()
    fused = fused.with_columns(pl.int_range(1, pl.len() + 1).over("query").alias("rank"))
    write_trec_run(fused, args.out, run_id=args.run_id)
    sys.stderr.write(f"polars-rank: wrote {args.out} ({fused.height} lines)\n")
    return 0


def build_fuse_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``polars-rank fuse``."""
    parser.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (two or more)")
    parser.add_argument(
        "--method", choices=METHODS, default="rrf", help="the fusion method (default: rrf)"
    )
    parser.add_argument(
        "--norm",
        choices=NORMS,
        default="min-max",
        help="each run's per-query normalisation first (default: min-max; none: raw scores)",
    )
    parser.add_argument(
        "--weights",
        type=float,
        nargs="+",
        metavar="W",
        help="wsum's weights, one per run in the runs' order",
    )
    parser.add_argument("--k", type=float, default=60, help="rrf's constant (default: 60)")
    parser.add_argument(
        "--engine",
        choices=registry.command_line_names(),
        default=registry.DEFAULT,
        help=f"where the fusion runs (default: {registry.DEFAULT})",
    )
    parser.add_argument(
        "--run-id", default="fused", help="the run id written in the output (default: fused)"
    )
    parser.add_argument(
        "-o", "--out", required=True, metavar="FILE", help="the fused TREC run file to write"
    )
