"""``polars-rank demo``: evaluate and compare the built-in example runs, show the equivalent
Python and SQL, optionally write the demo plots. Needs no files and takes seconds."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from typing import cast

import polars as pl


def build_demo_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``polars-rank demo``."""
    parser.add_argument(
        "--plot-dir", metavar="DIR", help="also write the demo plots (PNG) into DIR"
    )
    parser.add_argument(
        "--write-data",
        metavar="DIR",
        help="also write the demo's judgments and runs into DIR (Parquet and TREC text), the "
        "files the printed Python code reads",
    )
    parser.add_argument(
        "--permutations",
        type=int,
        default=10_000,
        help="random sign flips of the randomization test (default 10000)",
    )


def _sql_check(qrels: pl.DataFrame, run: pl.DataFrame) -> str:
    """Run the SQL snippet on DuckDB with polars_rank's macros; its mean nDCG@10."""
    import duckdb

    from polars_rank.core.arrow import register_frame
    from polars_rank.demo import SQL_SNIPPET
    from polars_rank.duckdb import register

    con = register(duckdb.connect())
    try:
        register_frame(con, "run", run)
        register_frame(con, "qrels", qrels)
        sql = SQL_SNIPPET.split("\n", 1)[1].rstrip().rstrip(";")
        row = con.execute(f'SELECT avg("nDCG@10") FROM ({sql})').fetchone()
        assert row is not None  # an aggregate without GROUP BY returns one row
        value = row[0]
    finally:
        con.close()
    return f"DuckDB's mean nDCG@10 for rerank: {value:.4f}"


def _write_plots(directory: Path, qrels: pl.DataFrame, runs: dict[str, pl.DataFrame]) -> list[Path]:
    from polars_rank import plot
    from polars_rank.evaluation import evaluate_runs

    directory.mkdir(parents=True, exist_ok=True)
    names = list(runs)
    per_query = evaluate_runs(runs, qrels, ["nDCG@10"], per_query=True)
    return [
        plot.per_query_differences(
            per_query, "nDCG@10", names[0], names[-1], directory / "differences.png"
        ),
        plot.metric_at_k(
            plot.metric_at_k_frame(runs, qrels, "nDCG"),
            directory / "ndcg_at_k.png",
            metric_name="nDCG",
        ),
        plot.precision_recall_11pt(
            plot.precision_recall_11pt_frame(runs, qrels), directory / "precision_recall.png"
        ),
    ]


def run_demo(args: argparse.Namespace) -> int:
    """Print the demo report (and write its plots with ``--plot-dir``)."""
    from polars_rank.cli.evaluate import count_columns
    from polars_rank.cli.output import terminal_table
    from polars_rank.comparison import compare_per_query, to_markdown
    from polars_rank.demo import DEMO_METRICS, SQL_SNIPPET, demo_data, polars_snippet, write_data
    from polars_rank.evaluation import evaluate_runs

    qrels, runs = demo_data()
    names = list(runs)
    written = write_data(args.write_data) if args.write_data else []
    n_queries = qrels["query"].n_unique()
    n_relevant = int((qrels["relevance"] > 0).sum())
    depth = cast(int, runs[names[0]].group_by("query").len()["len"].max())  # a row count
    out = sys.stdout
    out.write(
        f"polars-rank demo: {n_queries} queries, {qrels.height} judgments (grades 0-3, "
        f"{n_relevant} relevant), three runs ({', '.join(names)}) of {depth} documents per "
        "query, generated from a fixed seed.\n\n"
    )

    per_query = evaluate_runs(runs, qrels, DEMO_METRICS, per_query=True)
    summary = evaluate_runs(runs, qrels, DEMO_METRICS)
    counts = count_columns(DEMO_METRICS)
    out.write("Evaluation (mean over queries; counts summed)\n\n")
    out.write(textwrap.indent(terminal_table(summary, integers=counts), "  ") + "\n")

    compared = [m for m in DEMO_METRICS if m not in counts]
    result = compare_per_query(
        per_query.select("run", "query", *compared),
        baseline=names[0],
        metrics=compared,
        permutations=args.permutations,
        bootstrap=2_000,
    )
    out.write(f"Comparison with {names[0]}\n\n")
    out.write(textwrap.indent(to_markdown(result), "  ") + "\n")

    out.write("The same in Python (Polars):\n\n")
    out.write(textwrap.indent(polars_snippet(data_dir=args.write_data), "    ") + "\n")
    out.write("The same in SQL (DuckDB):\n\n")
    out.write(textwrap.indent(SQL_SNIPPET, "    ") + "\n")
    out.write(f"  {_sql_check(qrels, runs[names[-1]])}\n\n")

    out.write(
        "On your files: polars-rank evaluate QRELS RUN [RUN ...] -m nDCG@10 -m AP; "
        "polars-rank compare QRELS BASELINE RUN; polars-rank trec_eval -q QRELS RUN\n"
    )
    if args.write_data:
        folder = Path(args.write_data)
        out.write(
            f"wrote {len(written)} files into {folder} (Parquet and TREC text); try: "
            f"polars-rank evaluate {folder / 'qrels.txt'} {folder / 'bm25.run'} "
            f"{folder / 'rerank.run'}\n"
        )
    if args.plot_dir:
        for path in _write_plots(Path(args.plot_dir), qrels, runs):
            out.write(f"wrote {path}\n")
    out.flush()
    return 0
