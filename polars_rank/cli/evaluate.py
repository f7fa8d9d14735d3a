"""``polars-rank evaluate``: read judgments and runs, evaluate, render."""

from __future__ import annotations

import argparse

import polars as pl

from polars_rank.catalog.names import parse_metrics
from polars_rank.cli.inputs import (
    RECOMMENDER_INPUTS,
    Inputs,
    add_input_options,
    add_recommender_options,
)
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
from polars_rank.cli.output import OUTPUT_FORMATS, check_out, render, trec_line, write_output
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.summary import summary_expr

#: Metrics of ``evaluate`` when no ``-m`` is given.
DEFAULT_METRICS = [
    "nDCG@10",
    "RR@10",
    "AP",
    "P@10",
    "R@100",
    "Rprec",
    "Bpref",
    "NumRet",
    "NumRel",
    "NumRelRet",
]


def count_columns(metrics: list[str]) -> list[str]:
    """The metrics that are counts (summed over queries, printed as integers)."""
    return [s.label for s in parse_metrics(metrics) if s.summary == "sum"]


def integer_counts(values: pl.DataFrame, counts: list[str]) -> pl.DataFrame:
    """The count columns (NumRet, ...: sums of whole numbers) as Int64, so that every output
    format (CSV, JSON, Parquet too) keeps them integers.

    >>> integer_counts(pl.DataFrame({"AP": [0.5], "NumRet": [12.0]}), ["NumRet"]).dtypes
    [Float64, Int64]
    """
    return values.with_columns(pl.col(counts).round().cast(pl.Int64))


def _trec_text(values: pl.DataFrame, metrics: list[str], per_query: bool) -> str:
    """trec_eval-style lines per run: ``runid``, per-query lines if any, then ``all``."""
    specs = parse_metrics(metrics)
    counts = set(count_columns(metrics))
    lines: list[str] = []
    for (name,), part in values.group_by("run", maintain_order=True):
        lines.append(trec_line("runid", "all", str(name)))
        if per_query:
            for row in part.iter_rows(named=True):
                query = str(row["query"])
                lines += [trec_line(m, query, row[m], integer=m in counts) for m in metrics]
            summary = part.select(summary_expr(s.summary, s.label) for s in specs).row(
                0, named=True
            )
        else:
            summary = part.row(0, named=True)
        lines += [trec_line(m, "all", summary[m], integer=m in counts) for m in metrics]
    return "\n".join(lines) + "\n"


def run_evaluate(args: argparse.Namespace) -> int:
    """``polars-rank evaluate``."""
    metrics = split_metrics(args.metrics) or list(DEFAULT_METRICS)
    parse_metrics(metrics)  # unknown names fail before any file is read
    if args.output_format == "parquet" and not args.out:
        raise PolarsRankError("-o parquet needs --out FILE")
    recommender = [getattr(args, name, None) for name in RECOMMENDER_INPUTS]
    check_out(args.out, [args.qrels, *args.runs, *recommender])
    options = evaluation_kwargs(args)
    by = by_columns(args, input_columns(args))  # comma-separated or repeated, as -m
    if by:
        if args.output_format == "trec":
            raise PolarsRankError(
                "--by: -o trec prints one block per run; use -o table, csv, json, markdown "
                "or parquet for one row per group"
            )
        options["by"] = by
    inputs = Inputs(args, args.qrels, args.runs)
    options |= inputs.recommender(args)
    with reported_warnings():
        values = inputs.evaluate(metrics, options, per_query=args.per_query)
    values = integer_counts(values, count_columns(metrics))
    if args.output_format == "trec":
        text: str | None = _trec_text(values, metrics, args.per_query)
    else:
        text = render(
            values, args.output_format, integers=count_columns(metrics), digits=args.digits
        )
    write_output(text, args.out, values)
    return 0


def build_evaluate_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``polars-rank evaluate``."""
    parser.add_argument("qrels", metavar="QRELS", help="judgments: query, doc, relevance")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="one or more runs")
    add_metric_option(parser, DEFAULT_METRICS)
    parser.add_argument("--per-query", action="store_true", help="one row per run and query")
    add_by_option(
        parser,
        "evaluate every value (combination) of these run columns apart, in one pass: "
        "any column of a table run (e.g. --by model_version,date), or run_id, the run tag of "
        "TREC files; judgments with the column are joined on it, others are shared",
    )
    parser.add_argument(
        "-o",
        "--output-format",
        choices=OUTPUT_FORMATS,
        default="table",
        help="table (default), csv, json, markdown, parquet (needs --out) or trec "
        "(trec_eval's measure/query/value lines)",
    )
    parser.add_argument("--out", metavar="FILE", help="write the output to FILE")
    add_digits_option(parser)
    add_evaluation_options(parser)
    add_input_options(parser)
    add_recommender_options(parser)
