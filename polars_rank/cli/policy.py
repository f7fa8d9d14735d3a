"""``polars-rank policy LOG POLICY``: off-policy estimates of a new policy from a logged one,
:func:`polars_rank.evaluate_policy` (OBP's bandit estimators) or, with ``--slates``,
:func:`polars_rank.evaluate_slate_policy` (OBP's slate estimators), one row per estimator
(per ``--by`` segment), in the output formats of ``classify``.

Each table is a CSV, TSV, Parquet or NDJSON file (``--format`` when its name does not say);
the columns keep the library's names unless renamed (``--context``, ``--action``, ...).
"""

from __future__ import annotations

import argparse

import polars as pl

from polars_rank.cli.options import (
    add_by_option,
    add_digits_option,
    by_columns,
    finite_float,
    reported_warnings,
)
from polars_rank.cli.output import check_out, render, write_output
from polars_rank.core.errors import PolarsRankError
from polars_rank.engines import registry

#: The output formats (no ``trec``: a row holds several numbers).
FORMATS = ("table", "csv", "json", "markdown", "parquet")


def read_input(path: str, fmt: str | None) -> pl.DataFrame:
    """A table file (not TREC text), read; an empty one is an error naming it."""
    from polars_rank.cli.inputs import detect_format, read_table

    found = detect_format(path, fmt)
    if found == "trec":
        raise PolarsRankError(f"{path}: give a CSV, TSV, Parquet or NDJSON table (or --format)")
    table = read_table(path, found)
    if table.height == 0:
        raise PolarsRankError(f"{path}: the file has no rows")
    return table


def run_policy(args: argparse.Namespace) -> int:
    """``polars-rank policy``."""
    import math

    import polars_rank as pr

    if args.output_format == "parquet" and not args.out:
        raise PolarsRankError("-o parquet needs --out FILE")
    inputs = [args.log, args.policy, *([args.q_hat] if args.q_hat else [])]
    check_out(args.out, inputs)
    if args.slates and (args.q_hat or args.lambda_ is not None):
        raise PolarsRankError("--slates: the slate estimators read no --q-hat nor --lambda")
    estimators = [e.strip() for text in args.estimators or [] for e in text.split(",")]
    estimators = [e for e in estimators if e]
    by = by_columns(args)
    log, policy = read_input(args.log, args.format), read_input(args.policy, args.format)
    interval = {"bootstrap": args.bootstrap, "alpha": args.alpha, "seed": args.seed}
    with reported_warnings():
        if args.slates:
            result = pr.evaluate_slate_policy(
                log,
                policy,
                estimators or ("SIPS", "IIPS", "RIPS"),
                by=by or None,
                engine=args.engine,
                **interval,
            )
        else:
            q_hat = read_input(args.q_hat, args.format) if args.q_hat else None
            names = estimators or (
                ("IPW", "SNIPW", "DR") if q_hat is not None else ("IPW", "SNIPW")
            )
            result = pr.evaluate_policy(
                log,
                policy,
                names,
                q_hat=q_hat,
                context=args.context,
                action=args.action,
                reward=args.reward,
                pscore=args.pscore,
                probability=args.probability,
                by=by or None,
                lambda_=math.inf if args.lambda_ is None else args.lambda_,
                engine=args.engine,
                **interval,
            )
    text = render(result, args.output_format, integers=["n"], digits=args.digits)
    write_output(text, args.out, result)
    return 0


def build_policy_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``polars-rank policy``."""
    from polars_rank.cli.inputs import FORMATS as TABLES

    parser.add_argument(
        "log", metavar="LOG", help="the log: context, action, reward, pscore (one row per decision)"
    )
    parser.add_argument(
        "policy", metavar="POLICY", help="the new policy: context, action, probability"
    )
    parser.add_argument(
        "-e",
        "--estimators",
        action="append",
        metavar="NAME",
        help="estimators, repeatable or comma-separated: IPW (IPS), SNIPW (SNIPS), DM, DR, "
        "SNDR, SwitchDR; with --slates SIPS, IIPS, RIPS, SNSIPS, SNIIPS, SNRIPS "
        "(default: IPW,SNIPW, and DR with --q-hat; SIPS,IIPS,RIPS with --slates)",
    )
    parser.add_argument(
        "--q-hat", metavar="FILE", help="the reward model: context, action, q_hat (DM, DR, ...)"
    )
    parser.add_argument(
        "--slates",
        action="store_true",
        help="the log is slates (slate_id, position, reward, pscore, pscore_item_position, "
        "pscore_cascade) and POLICY the new policy's propensities of the same slots",
    )
    for name, default in (
        ("context", "context"),
        ("action", "action"),
        ("reward", "reward"),
        ("pscore", "pscore"),
        ("probability", "probability"),
    ):
        parser.add_argument(f"--{name}", default=default, help=f"column name (default {default})")
    add_by_option(parser, "one row per value of these columns of the log (e.g. --by day)")
    parser.add_argument(
        "--lambda",
        dest="lambda_",
        type=finite_float,
        metavar="X",
        help="OBP's lambda_: IPW and DR clip weights at X, SwitchDR switches above it",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        metavar="B",
        help="add OBP's bootstrap interval from B resamples (Polars engine)",
    )
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="the interval's level (default 0.05: 95%%)"
    )
    parser.add_argument("--seed", type=int, help="the bootstrap's RandomState seed")
    parser.add_argument(
        "--engine",
        choices=registry.command_line_names(),
        default=registry.DEFAULT,
        help=f"default: {registry.DEFAULT}",
    )
    parser.add_argument(
        "-o",
        "--output-format",
        choices=FORMATS,
        default="table",
        help="table (default), csv, json, markdown or parquet (needs --out)",
    )
    parser.add_argument("--out", metavar="FILE", help="write the output to FILE")
    add_digits_option(parser)
    parser.add_argument("--format", choices=[f for f in TABLES if f != "trec"])
