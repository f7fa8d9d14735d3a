"""``polars-rank compare``: evaluate runs per query and test them against a baseline, or every
pair of runs (``--all-pairs``), per segment with ``--by``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import polars as pl

from polars_rank.catalog.names import parse_metrics
from polars_rank.cli.inputs import Inputs, add_input_options
from polars_rank.cli.options import (
    add_by_option,
    add_digits_option,
    add_evaluation_options,
    add_metric_option,
    by_columns,
    evaluation_kwargs,
    input_columns,
    reported_warnings,
    split_metrics,
)
from polars_rank.cli.output import check_out, render, same_file, terminal_table, write_output
from polars_rank.core.errors import PolarsRankError

#: Metrics of ``compare`` when no ``-m`` is given (no counts: they are not compared).
DEFAULT_COMPARE_METRICS = ["nDCG@10", "RR@10", "AP", "P@10", "R@100"]
COMPARE_FORMATS = ("table", "markdown", "latex", "csv", "json")


def _p_text(p: float | None) -> str:
    if p is None or p != p:
        return "nan"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def compare_table(
    result: pl.DataFrame, digits: int = 4, alpha: float = 0.05, by: list[str] | None = None
) -> str:
    """The terminal view of a comparison: one line per (segment,) pair of runs and metric;
    the ``sig`` column holds ``*`` where the Holm-adjusted t-test p-value is below ``alpha``
    (the result's ``significant`` column, computed at 1 − confidence). With one baseline it
    heads the table; else (``--all-pairs``) each line names its ``baseline``."""

    def num(v: float, sign: bool = False) -> str:
        return f"{v:+.{digits}f}" if sign else f"{v:.{digits}f}"

    by = by or []
    several = result["baseline"].n_unique() > 1
    rows = [
        {
            **{column: str(r[column]) for column in by},
            **({"vs": str(r["baseline"])} if several else {}),
            "run": str(r["run"]),
            "metric": r["metric"],
            "baseline": num(r["baseline_mean"]),
            "mean": num(r["mean"]),
            "diff": num(r["diff"], sign=True),
            "95% CI": f"[{num(r['ci_low'], True)}, {num(r['ci_high'], True)}]",
            "p (t)": _p_text(r["t_pvalue"]),
            "p (perm)": _p_text(r["perm_pvalue"]),
            "p (t, Holm)": _p_text(r["t_pvalue_holm"]),
            "p (perm, Holm)": _p_text(r["perm_pvalue_holm"]),
            "p (Tukey)": _p_text(r["tukey_pvalue"]),
            "W/T/L": f"{r['wins']}/{r['ties']}/{r['losses']}",
            "sig": "*" if r["significant"] else "",
        }
        for r in result.iter_rows(named=True)
    ]
    frame = pl.DataFrame(rows)
    right = [c for c in frame.columns if c not in (*by, "vs", "run", "metric", "sig")]
    n = result.height // max(1, result.select(by).n_unique()) if by else result.height
    first = "vs: the baseline of each pair" if several else f"baseline: {result['baseline'][0]}"
    head = (
        f"{first}; baseline = its mean; diff = run − baseline; 95% CI: bootstrap; "
        f"W/T/L: queries better/equal/worse; Holm-adjusted over {n} comparison"
        f"{'s' if n != 1 else ''}{' per segment' if by else ''}; "
        f"sig: * when p (t, Holm) < {alpha:g}\n"
    )
    return head + terminal_table(frame, right=right)


def run_compare(args: argparse.Namespace) -> int:
    """``polars-rank compare``."""
    from polars_rank.comparison import compare_per_query, to_latex, to_markdown

    metrics = split_metrics(args.metrics) or list(DEFAULT_COMPARE_METRICS)
    parse_metrics(metrics)
    by = by_columns(args, input_columns(args))
    given = [args.qrels, args.baseline, *args.runs]
    check_out(args.out, given)
    check_out(args.plot, given, "--plot")
    if args.plot and args.out and same_file(Path(args.plot), Path(args.out)):
        raise PolarsRankError(f"--plot {args.plot} and --out {args.out} name the same file")
    options = evaluation_kwargs(args)
    if by:
        options["by"] = by
    inputs = Inputs(args, args.qrels, [args.baseline, *args.runs])
    if len(set(inputs.names)) != len(inputs.names):
        raise PolarsRankError("compare: the same run file is named twice")
    with reported_warnings():
        per_query = inputs.evaluate(metrics, options, per_query=True)
    with inputs.progress.stage("comparing"):
        result = compare_per_query(
            per_query,
            baseline=None if args.all_pairs else inputs.names[0],
            pairs="all" if args.all_pairs else "baseline",
            metrics=metrics,
            by=by,
            permutations=args.permutations,
            bootstrap=args.bootstrap,
            confidence=args.confidence,
            seed=args.seed,
        )
    renderers: dict[str, Callable[[], str]] = {
        "table": lambda: compare_table(result, args.digits, 1 - args.confidence, by),
        "markdown": lambda: to_markdown(result, digits=args.digits, alpha=1 - args.confidence),
        "latex": lambda: to_latex(result, digits=args.digits, alpha=1 - args.confidence),
        "csv": lambda: result.write_csv(),
        "json": lambda: render(result, "json") or "",
    }
    write_output(renderers[args.output_format](), args.out)
    if args.plot:
        from polars_rank.plot import per_query_differences

        path = per_query_differences(
            per_query, metrics[0], inputs.names[0], inputs.names[1], args.plot
        )
        sys.stderr.write(f"polars-rank: wrote {path}\n")
    return 0


def build_compare_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``polars-rank compare``."""
    parser.add_argument("qrels", metavar="QRELS", help="judgments: query, doc, relevance")
    parser.add_argument("baseline", metavar="BASELINE", help="the baseline run")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="runs compared with the baseline")
    parser.add_argument(
        "--all-pairs",
        action="store_true",
        help="compare every pair of runs (BASELINE is then the first run), as ranx's compare; "
        "markdown and latex mark each mean with the letters of the runs it beats",
    )
    add_metric_option(parser, DEFAULT_COMPARE_METRICS)
    parser.add_argument(
        "-o",
        "--output-format",
        choices=COMPARE_FORMATS,
        default="table",
        help="table (default), markdown or latex (means with significance marks), csv, json",
    )
    parser.add_argument("--out", metavar="FILE", help="write the output to FILE")
    add_by_option(
        parser,
        "column(s) of the runs (as for evaluate): each segment is compared on its own; "
        "markdown and latex render one segment only",
    )
    add_digits_option(parser, "shown")
    parser.add_argument(
        "--permutations",
        type=int,
        default=10_000,
        help="random sign flips of the randomization test (default 10000)",
    )
    parser.add_argument(
        "--bootstrap", type=int, default=10_000, help="bootstrap resamples (default 10000)"
    )
    parser.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        help="level of the bootstrap interval; significance at 1 − confidence (default 0.95)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="also plot the per-query differences of the first metric, baseline vs the first "
        "run (PNG, or SVG for .svg)",
    )
    add_evaluation_options(parser)
    add_input_options(parser)
