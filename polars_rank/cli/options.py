"""Options and helpers shared by the commands that evaluate runs: metric lists, evaluation
options, and warnings shown as one line each."""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from polars_rank.core.conventions import LARGEST_RANK
from polars_rank.core.errors import PolarsRankError, not_positive_integer
from polars_rank.engines import registry


def non_negative_int(text: str) -> int:
    """An option's value that must be an integer >= 0 (``--digits``); argparse reports a
    bad one as ``argument --digits: ...``.

    >>> non_negative_int("3")
    3
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}")
    return value


def finite_float(text: str) -> float:
    """An option's value that must be a finite number (``--threshold``, ``--relevance-level``):
    ``nan`` and ``inf`` are refused.

    >>> finite_float("0.5")
    0.5
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def add_digits_option(parser: argparse.ArgumentParser, what: str = "in table/markdown") -> None:
    """``--digits N``: decimals shown (default 4)."""
    parser.add_argument(
        "--digits",
        type=non_negative_int,
        default=4,
        metavar="N",
        help=f"decimals {what} (default 4)",
    )


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


def column_list(values: list[str] | None, flag: str) -> list[str]:
    """Column names of a repeatable option that takes comma-separated lists (``--by a,b --by
    c``), in order, each stripped of surrounding spaces. An empty name (``--by ""``,
    ``--by a,,b``) is an error naming ``flag``: it is never dropped.

    >>> column_list(["model,date", "user"], "--by")
    ['model', 'date', 'user']
    """
    names = [name.strip() for value in values or [] for name in value.split(",")]
    if "" in names:
        given = " ".join(f"{flag} {value!r}" for value in values or [])
        raise PolarsRankError(f"{given}: an empty column name; give {flag} COL[,COL...]")
    return names


def add_by_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--by COL``: repeatable, comma-separated (read with :func:`by_columns`)."""
    parser.add_argument("--by", action="append", metavar="COL", help=help_text)


def by_columns(args: argparse.Namespace, taken: dict[str, str] | None = None) -> list[str]:
    """The ``--by`` columns (:func:`column_list`). ``taken`` maps the columns a group column
    cannot be (the inputs' id, score, rank and relevance columns, the output's run column) to
    what they are: such a ``--by`` is an error naming ``--by`` and the clash, whatever the
    engine, before any file is read."""
    by = column_list(args.by, "--by")
    for column in by:
        if column in (taken or {}):
            raise PolarsRankError(
                f"--by {column}: {column!r} is {(taken or {})[column]}; a group column must be "
                "another column of the run"
            )
    return by


def input_columns(args: argparse.Namespace) -> dict[str, str]:
    """The columns ``--by`` cannot name in ``evaluate`` and ``compare``: each input column
    as the file names it (``--query-col qid``) and as the command names it (``query``), and
    the output's ``run`` column."""
    taken = {"run": "the output's run column (the run's name)"}
    for role in ("query", "doc", "score", "rank", "relevance"):
        given = getattr(args, f"{role}_col", None)
        taken[role] = f"the {role} column"
        if given:
            taken[given] = f"the {role} column (--{role}-col {given})"
    return taken


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
        type=finite_float,
        default=1,
        metavar="N",
        help="grades >= N are relevant (trec_eval -l; default 1)",
    )
    group.add_argument(
        "--engine",
        choices=registry.command_line_names(),
        default=registry.DEFAULT,
        help=f"default: {registry.DEFAULT}",
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
        raise not_positive_integer("--max-rank", args.max_rank)
    if args.max_rank is not None and args.max_rank > LARGEST_RANK:
        raise PolarsRankError(
            f"--max-rank must be at most {LARGEST_RANK}, got {args.max_rank} (leave it out to "
            "keep every document)"
        )
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


def add_metric_option(parser: argparse.ArgumentParser, defaults: list[str]) -> None:
    parser.add_argument(
        "-m",
        "--metric",
        dest="metrics",
        action="append",
        metavar="METRIC",
        help="metric name, repeatable or comma-separated (e.g. -m nDCG@10,RR@10 -m AP). "
        f"Default: {', '.join(defaults)}",
    )
