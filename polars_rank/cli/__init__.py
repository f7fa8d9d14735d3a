"""The ``polars-rank`` command: evaluate, trec_eval, compare, classify, plot, metrics, sql,
fuse, diversity, ratings, policy, dbt and demo.

Errors are one line on stderr (``polars-rank: error: ...``) with exit code 2 (``trec_eval``
uses trec_eval's codes); ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from polars_rank.core.extras import install_hint

PROG = "polars-rank"

#: How to install the plotting extra: a command that works before the package is published.
PLOT_INSTALL = install_hint("plot")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, like every other error."""

    #: The exit code of a usage error (``trec_eval`` sets trec_eval's, 1).
    usage_exit_code = 2

    def error(self, message: str) -> NoReturn:
        hint = f" (see {self.prog} --help)"
        self.exit(self.usage_exit_code, f"{PROG}: error: {message}{hint}\n")


def _debug_parent() -> _Parser:
    parent = _Parser(add_help=False)
    parent.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show the full traceback of an error",
    )
    return parent


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``polars-rank`` and its subcommands."""
    from polars_rank import __version__
    from polars_rank.cli.classify import build_classify_parser
    from polars_rank.cli.compare import build_compare_parser
    from polars_rank.cli.dbt import build_dbt_parser
    from polars_rank.cli.demo import build_demo_parser
    from polars_rank.cli.diversity import build_diversity_parser
    from polars_rank.cli.evaluate import build_evaluate_parser
    from polars_rank.cli.fuse import build_fuse_parser
    from polars_rank.cli.metrics import build_metrics_parser
    from polars_rank.cli.plot import build_plot_parser
    from polars_rank.cli.policy import build_policy_parser
    from polars_rank.cli.ratings import build_ratings_parser
    from polars_rank.cli.sql import build_sql_parser
    from polars_rank.cli.trec_eval import USAGE_EXIT_CODE
    from polars_rank.cli.trec_eval import build_parser as build_trec_eval_parser

    parser = _Parser(
        prog=PROG,
        description="Evaluate rankings (IR and recommender runs) with trec_eval's numbers.",
        epilog="Run 'polars-rank demo' for an example that needs no files.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    debug = [_debug_parent()]
    # (name, help, how to build its parser; None: the plot command's own, with sub-commands)
    specs: list[tuple[str, str, Callable[[argparse.ArgumentParser], None] | None]] = [
        ("evaluate", "evaluate runs against judgments", build_evaluate_parser),
        ("trec_eval", "drop-in for trec_eval (same flags and output)", build_trec_eval_parser),
        ("compare", "compare runs with a baseline: significance tests", build_compare_parser),
        (
            "classify",
            "scores against 0/1 labels: AUC, group AUC, log loss, AP, P/R/F1",
            build_classify_parser,
        ),
        ("plot", "plots: per-query differences, metric@k, precision-recall, ROC", None),
        ("metrics", "every metric and the names it is known by", build_metrics_parser),
        ("sql", "print the SQL of a metric list for a warehouse or Spark", build_sql_parser),
        (
            "fuse",
            "fuse several TREC runs into one (rank fusion, ranx's methods)",
            build_fuse_parser,
        ),
        (
            "diversity",
            "diversity by intent (ndeval: alpha-nDCG, ERR-IA, NRBP, ...) of runs",
            build_diversity_parser,
        ),
        (
            "ratings",
            "rating prediction errors: RMSE, MAE, R2, ... (scikit-learn's numbers)",
            build_ratings_parser,
        ),
        (
            "policy",
            "off-policy estimates of a new policy from a log (OBP's estimators)",
            build_policy_parser,
        ),
        ("dbt", "generate the dbt package's report macros from polars_rank.yml", build_dbt_parser),
        ("demo", "a built-in example: evaluation, comparison, code", build_demo_parser),
    ]
    for name, help_text, build in specs:
        sub = commands.add_parser(
            name,
            help=help_text,
            description=help_text[:1].upper() + help_text[1:] + ".",
            parents=debug,
        )
        if name == "trec_eval":  # usage errors exit with trec_eval's code
            sub.usage_exit_code = USAGE_EXIT_CODE
        if build is None:
            build_plot_parser(sub, debug)
        else:
            build(sub)
    return parser


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "evaluate":
        from polars_rank.cli.evaluate import run_evaluate

        return run_evaluate(args)
    if args.command == "classify":
        from polars_rank.cli.classify import run_classify

        return run_classify(args)
    if args.command == "compare":
        from polars_rank.cli.compare import run_compare

        return run_compare(args)
    if args.command == "trec_eval":
        from polars_rank.cli.output import write_output
        from polars_rank.cli.trec_eval import run_trec_eval

        write_output(run_trec_eval(args), None)
        return 0
    if args.command == "plot":
        from polars_rank.cli.plot import run_plot

        return run_plot(args)
    if args.command == "metrics":
        from polars_rank.cli.metrics import run_metrics

        return run_metrics(args)
    if args.command == "sql":
        from polars_rank.cli.sql import run_sql

        return run_sql(args)
    if args.command == "fuse":
        from polars_rank.cli.fuse import run_fuse

        return run_fuse(args)
    if args.command == "diversity":
        from polars_rank.cli.diversity import run_diversity

        return run_diversity(args)
    if args.command == "ratings":
        from polars_rank.cli.ratings import run_ratings

        return run_ratings(args)
    if args.command == "policy":
        from polars_rank.cli.policy import run_policy

        return run_policy(args)
    if args.command == "dbt":
        from polars_rank.cli.dbt import run_dbt

        return run_dbt(args)
    if args.command == "demo":
        from polars_rank.cli.demo import run_demo

        return run_demo(args)
    raise AssertionError(args.command)


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    if isinstance(err, FileNotFoundError) and err.filename:
        return f"{err.filename}: no such file"
    if isinstance(err, ModuleNotFoundError) and err.name and err.name.startswith("matplotlib"):
        return f"{text}: plots need matplotlib ({PLOT_INSTALL})"
    if isinstance(err, ModuleNotFoundError):
        return f"{text} (install the missing package {err.name!r})"
    return text or type(err).__name__


def _silence_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so that the exit flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help, --version, usage errors
        code = int(stop.code or 0) if not isinstance(stop.code, str) else 2
        words = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")]
        if code == 2 and words[:1] == ["trec_eval"]:  # e.g. an unknown option: trec_eval's 1
            from polars_rank.cli.trec_eval import USAGE_EXIT_CODE

            return USAGE_EXIT_CODE
        return code
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    debug = bool(getattr(args, "debug", False))
    from polars_rank.cli.wording import CLI
    from polars_rank.core.errors import worded

    try:
        with worded(CLI):
            return _dispatch(args)
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. `polars-rank ... | head`
        _silence_stdout()
        return 0
    except Exception as err:  # every error becomes one line
        if debug:
            raise
        from polars_rank.core.errors import PolarsRankError

        prefix = "" if isinstance(err, PolarsRankError | OSError) else f"{type(err).__name__}: "
        sys.stderr.write(f"{PROG}: error: {prefix}{_one_line(err)}\n")
        return getattr(err, "exit_code", 2)  # trec_eval's codes for the trec_eval command


if __name__ == "__main__":
    sys.exit(main())
