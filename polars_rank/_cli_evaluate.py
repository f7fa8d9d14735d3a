"""``polars-rank evaluate`` and ``polars-rank compare``: read judgments and runs, evaluate,
render."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import polars as pl

from polars_rank._cli_io import (
    ColumnMap,
    detect_format,
    estimated_rows,
    read_qrels,
    read_run,
    unique_run_names,
)
from polars_rank._cli_output import (
    OUTPUT_FORMATS,
    render,
    terminal_table,
    trec_line,
    write_output,
)
from polars_rank._cli_progress import Progress
from polars_rank._errors import PolarsRankError

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
#: Metrics of ``compare`` when no ``-m`` is given (no counts: they are not compared).
DEFAULT_COMPARE_METRICS = ["nDCG@10", "RR@10", "AP", "P@10", "R@100"]
COMPARE_FORMATS = ("table", "markdown", "latex", "csv", "json")


def split_metrics(values: list[str] | None) -> list[str]:
    """``-m`` values, each possibly a comma-separated list; commas inside ``(...)`` stay.

    >>> split_metrics(["nDCG@10,RR@10", "SetF(beta=0.5,rel=2)"])
    ['nDCG@10', 'RR@10', 'SetF(beta=0.5,rel=2)']
    """
    out: list[str] = []
    for value in values or []:
        depth, start = 0, 0
        for i, ch in enumerate(value):
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
            elif ch == "," and depth == 0:
                out.append(value[start:i])
                start = i + 1
        out.append(value[start:])
    return [m.strip() for m in out if m.strip()]


def add_evaluation_options(parser: argparse.ArgumentParser) -> None:
    """Options that decide what is evaluated (shared by evaluate, compare and plot)."""
    group = parser.add_argument_group("evaluation")
    group.add_argument(
        "--queries",
        choices=("qrels", "both"),
        default="qrels",
        help="qrels: every judged query counts, a query missing from the run scores 0 "
        "(trec_eval -c; default); both: only queries in both run and judgments",
    )
    group.add_argument(
        "--relevance-level",
        type=float,
        default=1,
        metavar="N",
        help="grades >= N are relevant (trec_eval -l; default 1)",
    )
    group.add_argument(
        "--engine", choices=("polars", "duckdb"), default="polars", help="default: polars"
    )
    group.add_argument(
        "--order-by",
        choices=("score", "rank"),
        help="rank documents by score (descending) or by the rank column "
        "(default: score when the run has one)",
    )
    group.add_argument(
        "--max-rank", type=int, metavar="N", help="use only the top N documents of each query"
    )
    group.add_argument(
        "--duplicates",
        choices=("error", "first", "max"),
        default="error",
        help="a document retrieved twice for a query: error (default), keep the first, "
        "or keep the highest score",
    )
    group.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="show stages and elapsed time on stderr (auto: for inputs of a million rows or "
        "more when stderr is a terminal)",
    )


def evaluation_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments of :func:`polars_rank.evaluate` from the command line options."""
    if args.max_rank is not None and args.max_rank < 1:
        raise PolarsRankError(f"--max-rank must be positive, got {args.max_rank}")
    return {
        "queries": args.queries,
        "relevance_level": args.relevance_level,
        "engine": args.engine,
        "order_by": args.order_by,
        "max_rank": args.max_rank,
        "duplicates": args.duplicates,
    }


@contextmanager
def reported_warnings() -> Iterator[None]:
    """Show library warnings as single ``polars-rank: warning: ...`` lines on stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    seen: set[str] = set()
    for w in caught:
        text = str(w.message).splitlines()[0] if str(w.message) else w.category.__name__
        if text not in seen:
            seen.add(text)
            sys.stderr.write(f"polars-rank: warning: {text}\n")


class Inputs:
    """The judgments and runs named on the command line, read lazily one run at a time."""

    def __init__(self, args: argparse.Namespace, qrels: str, runs: list[str]) -> None:
        self.columns = ColumnMap.from_args(args)
        self.run_format = getattr(args, "run_format", None) or args.format
        self.qrels_format = getattr(args, "qrels_format", None) or args.format
        self.qrels_path = qrels
        self.run_paths = list(runs)
        self.names = unique_run_names(self.run_paths)
        rows = sum(estimated_rows(p, detect_format(p, self.run_format)) for p in self.run_paths)
        self.progress = Progress.for_inputs(getattr(args, "progress", "auto"), rows)

    def qrels(self) -> pl.DataFrame:
        """The judgments (``query, doc, relevance``)."""
        with self.progress.stage(f"reading judgments {self.qrels_path}"):
            return read_qrels(self.qrels_path, self.qrels_format, self.columns)

    def runs(self) -> Iterator[tuple[str, pl.DataFrame]]:
        """``(name, run)`` for every run, read when needed."""
        for name, path in zip(self.names, self.run_paths, strict=True):
            with self.progress.stage(f"reading run {name}"):
                frame = read_run(path, self.run_format, self.columns)
            yield name, frame


def evaluate_runs(
    inputs: Inputs,
    metrics: list[str],
    kwargs: dict[str, Any],
    *,
    per_query: bool,
    qrels: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Evaluate every run; rows are tagged with a leading ``run`` column."""
    from polars_rank.evaluate import evaluate

    qrels = inputs.qrels() if qrels is None else qrels
    frames = []
    for name, run in inputs.runs():
        with inputs.progress.stage(f"evaluating {name}"):
            result = evaluate(run, qrels, metrics, per_query=per_query, **kwargs)
            if isinstance(result, pl.LazyFrame):
                result = result.collect()
        del run
        frames.append(result.select(pl.lit(name, dtype=pl.String).alias("run"), pl.all()))
    return pl.concat(frames, how="vertical_relaxed")


def _count_columns(metrics: list[str]) -> list[str]:
    from polars_rank._names import parse_metrics

    return [s.label for s in parse_metrics(metrics) if s.aggregate == "sum"]


def _trec_text(values: pl.DataFrame, metrics: list[str], per_query: bool) -> str:
    """trec_eval-style lines per run: ``runid``, per-query lines if any, then ``all``."""
    from polars_rank._names import parse_metrics
    from polars_rank.evaluate import aggregate_expr

    specs = parse_metrics(metrics)
    counts = set(_count_columns(metrics))
    lines: list[str] = []
    for (name,), part in values.group_by("run", maintain_order=True):
        lines.append(trec_line("runid", "all", str(name)))
        if per_query:
            for row in part.iter_rows(named=True):
                query = str(row["query"])
                lines += [trec_line(m, query, row[m], integer=m in counts) for m in metrics]
            summary = part.select(aggregate_expr(s) for s in specs).row(0, named=True)
        else:
            summary = part.row(0, named=True)
        lines += [trec_line(m, "all", summary[m], integer=m in counts) for m in metrics]
    return "\n".join(lines) + "\n"


def run_evaluate(args: argparse.Namespace) -> int:
    """``polars-rank evaluate``."""
    from polars_rank._names import parse_metrics

    metrics = split_metrics(args.metrics) or list(DEFAULT_METRICS)
    parse_metrics(metrics)  # unknown names fail before any file is read
    if args.output_format == "parquet" and not args.out:
        raise PolarsRankError("-o parquet needs --out FILE")
    kwargs = evaluation_kwargs(args)
    inputs = Inputs(args, args.qrels, args.runs)
    with reported_warnings():
        values = evaluate_runs(inputs, metrics, kwargs, per_query=args.per_query)
    if args.output_format == "trec":
        text: str | None = _trec_text(values, metrics, args.per_query)
    else:
        text = render(
            values, args.output_format, integers=_count_columns(metrics), digits=args.digits
        )
    write_output(text, args.out, values)
    return 0


def _p_text(p: float | None) -> str:
    if p is None or p != p:
        return "nan"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def compare_table(result: pl.DataFrame, digits: int = 4) -> str:
    """The terminal view of a comparison: one line per run and metric."""

    def num(v: float, sign: bool = False) -> str:
        return f"{v:+.{digits}f}" if sign else f"{v:.{digits}f}"

    rows = [
        {
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
            "W/T/L": f"{r['wins']}/{r['ties']}/{r['losses']}",
            "": "*" if r["significant"] else "",
        }
        for r in result.iter_rows(named=True)
    ]
    frame = pl.DataFrame(rows)
    right = [c for c in frame.columns if c not in ("run", "metric", "")]
    baseline = result["baseline"][0]
    n = result.height
    head = (
        f"baseline: {baseline}; diff = run − baseline; 95% CI: bootstrap; "
        f"W/T/L: queries better/equal/worse; Holm-adjusted over {n} comparison"
        f"{'s' if n != 1 else ''}; * p (t, Holm) < 0.05\n"
    )
    return head + terminal_table(frame, right=right)


def run_compare(args: argparse.Namespace) -> int:
    """``polars-rank compare``."""
    from polars_rank._names import parse_metrics
    from polars_rank.comparison import compare_per_query, to_latex, to_markdown

    metrics = split_metrics(args.metrics) or list(DEFAULT_COMPARE_METRICS)
    parse_metrics(metrics)
    kwargs = evaluation_kwargs(args)
    inputs = Inputs(args, args.qrels, [args.baseline, *args.runs])
    if len(set(inputs.names)) != len(inputs.names):
        raise PolarsRankError("compare: the same run file is named twice")
    with reported_warnings():
        per_query = evaluate_runs(inputs, metrics, kwargs, per_query=True)
    with inputs.progress.stage("comparing"):
        result = compare_per_query(
            per_query,
            baseline=inputs.names[0],
            metrics=metrics,
            permutations=args.permutations,
            bootstrap=args.bootstrap,
            confidence=args.confidence,
            seed=args.seed,
        )
    renderers: dict[str, Callable[[], str]] = {
        "table": lambda: compare_table(result, args.digits),
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


def build_evaluate_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``polars-rank evaluate``."""
    from polars_rank._cli_io import add_input_options

    parser.add_argument("qrels", metavar="QRELS", help="judgments: query, doc, relevance")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="one or more runs")
    _add_metric_option(parser, DEFAULT_METRICS)
    parser.add_argument("--per-query", action="store_true", help="one row per run and query")
    parser.add_argument(
        "-o",
        "--output-format",
        choices=OUTPUT_FORMATS,
        default="table",
        help="table (default), csv, json, markdown, parquet (needs --out) or trec "
        "(trec_eval's measure/query/value lines)",
    )
    parser.add_argument("--out", metavar="FILE", help="write the output to FILE")
    parser.add_argument(
        "--digits", type=int, default=4, help="decimals in table/markdown (default 4)"
    )
    add_evaluation_options(parser)
    add_input_options(parser)


def build_compare_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``polars-rank compare``."""
    from polars_rank._cli_io import add_input_options

    parser.add_argument("qrels", metavar="QRELS", help="judgments: query, doc, relevance")
    parser.add_argument("baseline", metavar="BASELINE", help="the baseline run")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="runs compared with the baseline")
    _add_metric_option(parser, DEFAULT_COMPARE_METRICS)
    parser.add_argument(
        "-o",
        "--output-format",
        choices=COMPARE_FORMATS,
        default="table",
        help="table (default), markdown or latex (means with significance marks), csv, json",
    )
    parser.add_argument("--out", metavar="FILE", help="write the output to FILE")
    parser.add_argument("--digits", type=int, default=4, help="decimals shown (default 4)")
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


def _add_metric_option(parser: argparse.ArgumentParser, defaults: list[str]) -> None:
    parser.add_argument(
        "-m",
        "--metric",
        dest="metrics",
        action="append",
        metavar="METRIC",
        help="metric name, repeatable or comma-separated (e.g. -m nDCG@10,RR@10 -m AP). "
        f"Default: {', '.join(defaults)}",
    )
