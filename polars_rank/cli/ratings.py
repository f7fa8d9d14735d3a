"""``polars-rank ratings RATINGS PREDICTIONS``: rating prediction errors
(:func:`polars_rank.evaluate_ratings`: RMSE, MAE, R², ... with scikit-learn's numbers), one
row (per ``--by`` segment), in the output formats of ``classify``.

Each table is a CSV, TSV, Parquet or NDJSON file (``--format`` when its name does not say);
``--user``, ``--item``, ``--rating``, ``--prediction`` name the columns. Pairs on one side
only are left out (an inner join, as MS Recommenders), with a warning that counts them.
"""

from __future__ import annotations

import argparse

from polars_rank.cli.inputs import read_frame
from polars_rank.cli.options import add_by_option, by_columns, reported_warnings, split_metrics
from polars_rank.cli.output import add_table_output, check_table_output, write_table
from polars_rank.engines import registry

#: The metrics without ``-m``.
DEFAULT = ("RMSE", "MAE", "R2", "explained_variance")


def run_ratings(args: argparse.Namespace) -> int:
    """``polars-rank ratings``."""
    import polars_rank as pr

    check_table_output(args, [args.ratings, args.predictions])
    metrics = split_metrics(args.metrics) or list(DEFAULT)
    by = by_columns(args)
    ratings = read_frame(args.ratings, args.format)
    predictions = read_frame(args.predictions, args.format)
    with reported_warnings():
        result = pr.evaluate_ratings(
            ratings,
            predictions,
            metrics,
            user=args.user,
            item=args.item,
            rating=args.rating,
            prediction=args.prediction,
            by=by or None,
            weight=args.weight,
            engine=args.engine,
        )
    write_table(result, args)
    return 0


def build_ratings_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``polars-rank ratings``."""
    from polars_rank.cli.inputs import FORMATS as TABLES

    parser.add_argument("ratings", metavar="RATINGS", help="true ratings: user, item, rating")
    parser.add_argument(
        "predictions", metavar="PREDICTIONS", help="predicted ratings: user, item, prediction"
    )
    parser.add_argument(
        "-m",
        "--metric",
        dest="metrics",
        action="append",
        metavar="METRIC",
        help="RMSE, MSE, MAE, R2, explained_variance, max_error, MAPE (repeatable or "
        f"comma-separated; default {','.join(DEFAULT)})",
    )
    for name in ("user", "item", "rating", "prediction"):
        parser.add_argument(f"--{name}", default=name, help=f"column name (default {name})")
    parser.add_argument("--weight", metavar="COL", help="a sample-weight column of RATINGS")
    add_by_option(parser, "one row per value of these columns of RATINGS (e.g. --by market)")
    parser.add_argument(
        "--engine",
        choices=registry.command_line_names(),
        default=registry.DEFAULT,
        help=f"default: {registry.DEFAULT}",
    )
    add_table_output(parser)
    parser.add_argument("--format", choices=[f for f in TABLES if f != "trec"])
