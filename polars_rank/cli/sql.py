"""``polars-rank sql``: print the portable SQL of a metric list for a warehouse dialect
(:func:`polars_rank.to_sql`), for pasting into a scheduled query, a dbt model or a notebook."""

from __future__ import annotations

import argparse

from polars_rank.cli.evaluate import DEFAULT_METRICS
from polars_rank.cli.options import (
    add_by_option,
    add_metric_option,
    column_list,
    finite_float,
    split_metrics,
)
from polars_rank.cli.output import check_out, write_output
from polars_rank.compiler import to_sql
from polars_rank.compiler.classification import CURVES, curve_sql
from polars_rank.compiler.compile import LAYOUTS
from polars_rank.core.dialects import dialect_names
from polars_rank.core.errors import PolarsRankError

#: Column flags: command-line name -> to_sql parameter.
_COLUMNS = {
    "query": "query",
    "doc": "doc",
    "score": "score",
    "rank": "rank",
    "relevance": "relevance",
    "vector": "vector",
}


#: Ranking flags (attribute -> default) refused with --predictions, and the flag's name.
_RANKING_ONLY = {
    "qrels": (None, "--qrels"),
    "per_query": (False, "--per-query"),
    "qrels_by": (None, "--qrels-by"),
    "layout": ("wide", "--layout"),
    "interactions": (None, "--interactions"),
    "catalog": (None, "--catalog"),
    "item_features": (None, "--item-features"),
    "queries": ("qrels", "--queries"),
    "relevance_level": (1, "--relevance-level"),
    "order_by": ("score", "--order-by"),
    "max_rank": (None, "--max-rank"),
    "duplicates": ("error", "--duplicates"),
    **{f"{name}_col": (None, f"--{name}-col") for name in _COLUMNS if name != "score"},
}

#: Classification flags (attribute -> flag) refused without --predictions.
_PREDICTIONS_ONLY = {
    "label": "--label",
    "weight": "--weight",
    "group": "--group",
    "threshold": "--threshold",
    "curve": "--curve",
}


def _check_family(args: argparse.Namespace) -> None:
    """One family per call: --run (ranking, recommender) or --predictions (classification),
    and no flag of the other family."""
    if (args.run is None) == (args.predictions is None):
        raise PolarsRankError(
            "give --run TABLE (ranking and recommender metrics) or --predictions TABLE "
            "(classification metrics), one of them"
        )
    if args.predictions is not None:
        for name, (default, flag) in _RANKING_ONLY.items():
            if getattr(args, name) != default:
                raise PolarsRankError(f"{flag} goes with --run (ranking), not --predictions")
    else:
        for name, flag in _PREDICTIONS_ONLY.items():
            if getattr(args, name) is not None:
                raise PolarsRankError(f"{flag} goes with --predictions (classification)")


def _classification_sql(args: argparse.Namespace) -> str:
    """``--predictions``: :func:`~polars_rank.to_sql`'s classification query, or with
    ``--curve`` :func:`~polars_rank.curve_sql`'s curve."""
    names = split_metrics(args.metrics)
    label = args.label or "label"
    score = args.score_col or "score"
    by = column_list(args.by, "--by")
    if args.curve is not None:
        if names or args.group or args.threshold is not None:
            raise PolarsRankError(
                "--curve gives the curve alone: leave out -m, --group and --threshold"
            )
        return curve_sql(
            args.curve,
            args.dialect,
            args.predictions,
            label=label,
            score=score,
            by=by,
            weight=args.weight,
            pretty=not args.compact,
        )
    if not names:
        raise PolarsRankError(
            "--predictions needs -m METRIC: classification metrics (e.g. -m AUC,LogLoss; "
            "`polars-rank metrics --family classification` lists them)"
        )
    return to_sql(
        names,
        args.dialect,
        predictions=args.predictions,
        label=label,
        score=score,
        by=by,
        group=split_metrics(args.group),
        threshold=0.5 if args.threshold is None else args.threshold,
        weight=args.weight,
        pretty=not args.compact,
    )


def _table_by(values: list[str] | None, flag: str) -> list[str] | None:
    """A ``--qrels-by``-like flag's columns: None when it is not given (``to_sql``'s own rule
    for a table whose ``by`` columns are not stated then applies), ``[]`` for ``--qrels-by
    ""`` (the table has none of the ``by`` columns: shared by every group)."""
    if values is None:
        return None
    if all(not value.strip() for value in values):
        return []
    return column_list(values, flag)


def run_sql(args: argparse.Namespace) -> int:
    """``polars-rank sql``."""
    check_out(args.out, [])
    _check_family(args)
    if args.predictions is not None:
        write_output(_classification_sql(args) + "\n", args.out)
        return 0
    metrics = split_metrics(args.metrics) or list(DEFAULT_METRICS)
    columns = {
        parameter: getattr(args, f"{name}_col")
        for name, parameter in _COLUMNS.items()
        if getattr(args, f"{name}_col") is not None
    }
    text = to_sql(
        metrics,
        args.dialect,
        args.run,
        args.qrels,
        interactions=args.interactions,
        catalog=args.catalog,
        item_features=args.item_features,
        per_query=args.per_query,
        by=column_list(args.by, "--by"),  # comma-separated or repeated, as -m
        qrels_by=_table_by(args.qrels_by, "--qrels-by"),
        interactions_by=_table_by(args.interactions_by, "--interactions-by"),
        catalog_by=_table_by(args.catalog_by, "--catalog-by"),
        item_features_by=_table_by(args.item_features_by, "--item-features-by"),
        queries=args.queries,
        relevance_level=args.relevance_level,
        max_rank=args.max_rank,
        order_by=args.order_by,
        duplicates=args.duplicates,
        layout=args.layout,
        pretty=not args.compact,
        **columns,
    )
    write_output(text + "\n", args.out)  # no ";": a dbt model must not end with one
    return 0


def build_sql_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``polars-rank sql``."""
    parser.add_argument(
        "--dialect",
        required=True,
        choices=dialect_names(),  # the registry's, when the parser is built
        help="the SQL dialect",
    )
    parser.add_argument(
        "--run",
        metavar="TABLE",
        help="the run table: query, doc, score (ranking and recommender metrics)",
    )
    parser.add_argument(
        "--qrels",
        metavar="TABLE",
        help="the judgments table: query, doc, relevance (leave it out for recommender "
        "metrics that read no judgments: every user of the run is evaluated)",
    )
    add_metric_option(parser, DEFAULT_METRICS)
    parser.add_argument(
        "--per-query", action="store_true", help="one row per query instead of the summary"
    )
    add_by_option(
        parser,
        "evaluate every value (combination) of these run (or predictions) columns "
        "apart: one row per group (e.g. --by model_version,date)",
    )
    parser.add_argument(
        "--qrels-by",
        action="append",
        metavar="COL",
        help="the --by columns the judgments table has too (joined on them; the others "
        'share the judgments across groups; "": none)',
    )
    for table in ("interactions", "catalog", "item-features"):
        parser.add_argument(
            f"--{table}-by",
            action="append",
            metavar="COL",
            help=f"the --by columns the {table} table has too (joined on them; the others "
            f'share the {table} across groups; "": none)',
        )
    parser.add_argument(
        "--layout",
        choices=LAYOUTS,
        default="wide",
        help="wide: a column per metric (nDCG@10 -> ndcg_at_10; default); "
        "long: measure and value columns",
    )
    parser.add_argument("--compact", action="store_true", help="one line, no indentation")
    parser.add_argument("--out", metavar="FILE", help="write the query to FILE")
    recommender = parser.add_argument_group("recommender metrics (coverage, novelty, aplt, ...)")
    recommender.add_argument(
        "--interactions",
        metavar="TABLE",
        help="the training history: query, doc (popularity for novelty, arp, aplt)",
    )
    recommender.add_argument(
        "--catalog",
        metavar="TABLE",
        help="the item universe: doc (coverage, gini; default: the items of the run and the "
        "interactions)",
    )
    recommender.add_argument(
        "--item-features",
        metavar="TABLE",
        help="the item feature vectors: doc and an array column (--vector-col; default "
        "vector) for ild and serendipity",
    )
    classification = parser.add_argument_group(
        "classification metrics (AUC, GAUC, LogLoss, AP, F1, ...), instead of --run"
    )
    classification.add_argument(
        "--predictions",
        metavar="TABLE",
        help="the predictions table: a 0/1 label and a score column per row; -m names "
        "classification metrics",
    )
    classification.add_argument(
        "--label", metavar="NAME", help="the label column's name (default: label)"
    )
    classification.add_argument(
        "--weight", metavar="NAME", help="a sample-weight column (default: every row weighs 1)"
    )
    classification.add_argument(
        "--group",
        action="append",
        metavar="COL",
        help="the columns naming GAUC's groups (e.g. user; GAUC needs it)",
    )
    classification.add_argument(
        "--threshold",
        type=finite_float,
        metavar="T",
        help="the thresholded metrics (precision, recall, F1, TP, ...) predict positive when "
        "score >= T (default 0.5) unless the name sets one: F1(threshold=0.3)",
    )
    classification.add_argument(
        "--curve",
        choices=sorted(set(CURVES.values())),
        help="instead of -m: the ROC or precision-recall curve, one row per threshold "
        "(pr.curve_sql)",
    )
    group = parser.add_argument_group("evaluation")
    group.add_argument(
        "--queries",
        choices=("qrels", "both"),
        default="qrels",
        help="qrels: every judged query counts, a query missing from the run scores 0 "
        "(default); both: only queries in both tables",
    )
    group.add_argument(
        "--relevance-level",
        type=finite_float,
        default=1,
        metavar="N",
        help="grades >= N are relevant",
    )
    group.add_argument(
        "--order-by",
        choices=("score", "rank"),
        default="score",
        help="rank documents by score (descending; default) or by the rank column",
    )
    group.add_argument(
        "--max-rank", type=int, metavar="N", help="use only the top N documents of each query"
    )
    group.add_argument(
        "--duplicates",
        choices=("error", "max"),
        default="error",
        help="error: the tables have one row per (query, doc) (default; not checked by the "
        "query); max: keep the highest score / grade of a repeated pair",
    )
    columns = parser.add_argument_group("columns")
    for name in _COLUMNS:
        flags = [f"--{name}-col"] + (["--score"] if name == "score" else [])
        columns.add_argument(
            *flags, metavar="NAME", help=f"the {name} column's name (default: {name})"
        )
