"""``polars-rank diversity QRELS RUN [RUN ...]``: ndeval's diversity metrics
(:func:`polars_rank.evaluate_diversity`) of one or more runs against TREC diversity qrels,
one row per run (per run and query with ``--per-query``), in the output formats of
``classify``.

The judgments are TREC diversity qrels (``topic subtopic doc judgment``) or a table with
``query, subtopic, doc, relevance``; each run a TREC run file or a table with ``query, doc,
score``. Several runs are evaluated in one plan (``by="run"``), named by their files.
"""

from __future__ import annotations

import argparse

import polars as pl

from polars_rank.cli.options import finite_float, reported_warnings, split_metrics
from polars_rank.cli.output import add_table_output, check_table_output, write_table
from polars_rank.core.errors import PolarsRankError

#: The metrics without ``-m``: ndeval's headline ones (TREC Web).
DEFAULT = ("alpha-nDCG@20", "ERR-IA@20", "nERR-IA@20", "NRBP", "nNRBP", "P-IA@20", "strec@20")


def _read(path: str, fmt: str | None, what: str) -> pl.DataFrame:
    from polars_rank.cli.inputs import detect_format, read_frame
    from polars_rank.io import read_trec_qrels, read_trec_run

    if detect_format(path, fmt) != "trec":
        return read_frame(path, fmt, text_ids=("query", "doc", "subtopic"))
    if what == "qrels":
        return read_trec_qrels(path, subtopics=True)
    return read_trec_run(path).select("query", "doc", "score")


def run_diversity(args: argparse.Namespace) -> int:
    """``polars-rank diversity``."""
    import polars_rank as pr
    from polars_rank.cli.inputs import unique_run_names

    check_table_output(args, [args.qrels, *args.runs])
    metrics = split_metrics(args.metrics) or list(DEFAULT)
    qrels = _read(args.qrels, args.format, "qrels")
    names = unique_run_names(args.runs)
    runs = []
    for name, path in zip(names, args.runs, strict=True):
        frame = _read(path, args.format, "run")
        if "run" in frame.columns:
            raise PolarsRankError(f"{path}: a run table cannot have a 'run' column (the output's)")
        runs.append(frame.with_columns(run=pl.lit(name)))
    stacked = pl.concat(runs, how="diagonal_relaxed")
    with reported_warnings():
        result = pr.evaluate_diversity(
            stacked,
            qrels,
            metrics,
            alpha=args.alpha,
            beta=args.beta,
            relevance_level=args.relevance_level,
            per_query=args.per_query,
            queries=args.queries,
            by="run",
        )
    order = pl.Series("run", names).to_frame().with_row_index("__pr_order")
    result = result.join(order, on="run").sort("__pr_order", maintain_order=True)
    write_table(result.drop("__pr_order"), args)
    return 0


def build_diversity_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``polars-rank diversity``."""
    from polars_rank.cli.inputs import FORMATS as TABLES

    parser.add_argument(
        "qrels", metavar="QRELS", help="TREC diversity qrels: topic subtopic doc judgment"
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files or tables")
    parser.add_argument(
        "-m",
        "--metric",
        dest="metrics",
        action="append",
        metavar="METRIC",
        help="diversity metrics, repeatable or comma-separated: alpha_ndcg@k, alpha_dcg@k, "
        "err_ia@k, nerr_ia@k, nrbp, nnrbp, p_ia@k, subtopic_recall@k or ndeval's names "
        f"(default: {','.join(DEFAULT)})",
    )
    parser.add_argument("--alpha", type=finite_float, default=0.5, help="ndeval's alpha (0.5)")
    parser.add_argument("--beta", type=finite_float, default=0.5, help="NRBP's beta (0.5)")
    parser.add_argument(
        "--relevance-level",
        type=finite_float,
        default=1,
        metavar="N",
        help="judgments >= N are relevant (default 1)",
    )
    parser.add_argument("--per-query", action="store_true", help="one row per run and query")
    parser.add_argument(
        "--queries",
        choices=("qrels", "both"),
        default="qrels",
        help="qrels (default): every judged query, 0 when the run lacks it; both: pyndeval's",
    )
    add_table_output(parser)
    parser.add_argument("--format", choices=[f for f in TABLES])
