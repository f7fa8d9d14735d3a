"""``polars-rank plot``: per-query differences, metric@k curves, 11-point precision–recall
curves of runs, and ROC / precision–recall curves of classification scores."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.evaluation import evaluate_runs

if TYPE_CHECKING:
    from polars_rank.cli.inputs import Inputs

#: Plot kinds and what they show.
KINDS = {
    "differences": "per-query differences of one metric between a baseline and a run",
    "at-k": "a metric at every cutoff k = 1..K, one line per run",
    "pr": "11-point interpolated precision-recall curve, one line per run",
    "roc": "ROC curve of classification scores",
    "pr-curve": "precision-recall curve of classification scores",
}


def _add_out(parser: argparse.ArgumentParser, kind: str) -> None:
    parser.add_argument(
        "--out",
        metavar="FILE",
        default=f"{kind}.png",
        help=f"image to write: PNG, or SVG when FILE ends in .svg (default {kind}.png)",
    )


def build_plot_parser(
    parser: argparse.ArgumentParser, parents: Sequence[argparse.ArgumentParser]
) -> None:
    """The ``plot`` subcommands."""
    from polars_rank.cli.inputs import FORMATS, add_input_options
    from polars_rank.cli.options import add_evaluation_options

    kinds = parser.add_subparsers(dest="kind", metavar="KIND", required=True)
    sub = kinds.add_parser("differences", help=KINDS["differences"], parents=parents)
    sub.add_argument("qrels", metavar="QRELS")
    sub.add_argument("baseline", metavar="BASELINE")
    sub.add_argument("run", metavar="RUN")
    sub.add_argument("-m", "--metric", default="nDCG@10", help="default nDCG@10")
    _add_out(sub, "differences")
    add_evaluation_options(sub)
    add_input_options(sub)

    sub = kinds.add_parser("at-k", help=KINDS["at-k"], parents=parents)
    sub.add_argument("qrels", metavar="QRELS")
    sub.add_argument("runs", metavar="RUN", nargs="+")
    sub.add_argument(
        "-m",
        "--metric",
        default="nDCG",
        help="metric, e.g. nDCG, P, R, AP; with a cutoff (nDCG@20) the curve ends there",
    )
    sub.add_argument(
        "--max-k",
        type=int,
        help="largest cutoff (default: the metric's own cutoff, else 100)",
    )
    _add_out(sub, "at-k")
    add_evaluation_options(sub)
    add_input_options(sub)

    sub = kinds.add_parser("pr", help=KINDS["pr"], parents=parents)
    sub.add_argument("qrels", metavar="QRELS")
    sub.add_argument("runs", metavar="RUN", nargs="+")
    _add_out(sub, "pr")
    add_evaluation_options(sub)
    add_input_options(sub)

    for kind in ("roc", "pr-curve"):
        sub = kinds.add_parser(kind, help=KINDS[kind], parents=parents)
        sub.add_argument("data", metavar="DATA", help="a table with a label and a score column")
        sub.add_argument("--label", required=True, help="column of true labels (0/1 or bool)")
        sub.add_argument("--score", required=True, help="column of predicted scores")
        sub.add_argument("--group", help="column naming groups: one curve each")
        sub.add_argument(
            "--max-lines",
            type=int,
            default=20,
            help="beyond this many groups, draw their mean curve and spread (default 20)",
        )
        sub.add_argument("--format", choices=[f for f in FORMATS if f != "trec"])
        _add_out(sub, kind)


def _metric_at_k(metric: str, max_k: int | None) -> tuple[str, int]:
    """The metric without its cutoff and the largest k: ``--max-k``, else the metric's own
    cutoff, else 100 (both, disagreeing, are an error)."""
    from polars_rank.plot import _without_cutoff

    if max_k is not None and max_k < 1:
        raise PolarsRankError(f"--max-k must be positive, got {max_k}")
    base, cutoff = _without_cutoff(metric)
    if cutoff is not None and max_k is not None and cutoff != max_k:
        raise PolarsRankError(
            f"-m {metric} ends the curve at k = {cutoff} but --max-k is {max_k}: give one"
        )
    return base, max_k or cutoff or 100


def _ranking_inputs(
    args: argparse.Namespace, runs: list[str]
) -> tuple[Inputs, pl.DataFrame, dict[str, Any]]:
    from polars_rank.cli.inputs import Inputs
    from polars_rank.cli.options import evaluation_kwargs

    options = evaluation_kwargs(args)
    inputs = Inputs(args, args.qrels, runs)
    return inputs, inputs.qrels(), options


def _classification_curve(args: argparse.Namespace) -> pl.DataFrame:
    """The ROC or precision-recall curve of the table (one per ``--group`` value)."""
    from polars_rank import classification
    from polars_rank.cli.inputs import detect_format, read_table

    fmt = detect_format(args.data, args.format)
    if fmt == "trec":
        raise PolarsRankError(f"{args.data}: give a CSV, TSV, Parquet or NDJSON table (--format)")
    data = read_table(args.data, fmt)
    for column in (args.label, args.score, args.group):
        if column is not None and column not in data.columns:
            raise PolarsRankError(f"{args.data}: no column {column!r}; columns: {data.columns}")
    compute = (
        classification.roc_curve if args.kind == "roc" else classification.precision_recall_curve
    )
    return compute(data, args.label, args.score, by=args.group)


def run_plot(args: argparse.Namespace) -> int:
    """``polars-rank plot KIND ...``: write the image, report its path on stderr."""
    from polars_rank import plot
    from polars_rank.cli.options import reported_warnings
    from polars_rank.cli.output import check_out

    given = [getattr(args, name, None) for name in ("qrels", "baseline", "run", "data")]
    check_out(args.out, [*given, *getattr(args, "runs", [])])
    out = Path(args.out)
    if args.kind == "differences":
        inputs, qrels, options = _ranking_inputs(args, [args.baseline, args.run])
        if len(set(inputs.names)) != 2:
            raise PolarsRankError("plot differences: the two runs must be different files")
        with reported_warnings():
            per_query = evaluate_runs(
                inputs.runs(), qrels, [args.metric], per_query=True, **options
            )
        a, b = inputs.names
        plot.per_query_differences(per_query, args.metric, a, b, out)
    elif args.kind == "at-k":
        base, max_k = _metric_at_k(args.metric, args.max_k)
        inputs, qrels, options = _ranking_inputs(args, args.runs)
        with reported_warnings():
            curves = plot.metric_at_k_frame(
                inputs.runs(), qrels, base, range(1, max_k + 1), **options
            )
        plot.metric_at_k(curves, out, metric_name=base)
    elif args.kind == "pr":
        inputs, qrels, options = _ranking_inputs(args, args.runs)
        with reported_warnings():
            curves = plot.precision_recall_11pt_frame(inputs.runs(), qrels, **options)
        plot.precision_recall_11pt(curves, out)
    elif args.kind == "roc":
        plot.roc_curve(_classification_curve(args), out, by=args.group, max_lines=args.max_lines)
    else:
        plot.precision_recall_curve(
            _classification_curve(args), out, by=args.group, max_lines=args.max_lines
        )
    sys.stderr.write(f"polars-rank: wrote {out}\n")
    return 0
