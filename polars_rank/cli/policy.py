"""``polars-rank policy LOG POLICY``: off-policy estimates of a new policy from a logged one,
:func:`polars_rank.evaluate_policy` (OBP's bandit estimators) or, with ``--slates``,
:func:`polars_rank.evaluate_slate_policy` (OBP's slate estimators), one row per estimator
(per ``--by`` segment), in the output formats of ``classify``.

Each table is a CSV, TSV, Parquet or NDJSON file (``--format`` when its name does not say);
the columns keep the library's names unless renamed (``--context``, ``--action``, ...).
"""

from __future__ import annotations

import argparse

from polars_rank.cli.inputs import read_frame
from polars_rank.cli.options import (
    add_by_option,
    by_columns,
    finite_float,
    reported_warnings,
    split_metrics,
)
from polars_rank.cli.output import add_table_output, check_table_output, write_table
from polars_rank.core.errors import PolarsRankError
from polars_rank.engines import registry


def run_policy(args: argparse.Namespace) -> int:
    """``polars-rank policy``."""
    import math

    import polars_rank as pr

    check_table_output(args, [args.log, args.policy, *([args.q_hat] if args.q_hat else [])])
    if args.slates and (args.q_hat or args.lambda_ is not None):
        raise PolarsRankError("--slates: the slate estimators read no --q-hat nor --lambda")
    estimators = split_metrics(args.estimators)
    by = by_columns(args)
    log, policy = read_frame(args.log, args.format), read_frame(args.policy, args.format)
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
            q_hat = read_frame(args.q_hat, args.format) if args.q_hat else None
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
    write_table(result, args, integers=["n"])
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
    add_table_output(parser)
    parser.add_argument("--format", choices=[f for f in TABLES if f != "trec"])
