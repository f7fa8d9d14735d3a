"""Every message the ranking side shows a user, defined once and used by both engines.

>>> left_out_message(2)
'2 queries in the run have no judgments and were not evaluated'
"""

from __future__ import annotations

import warnings
from typing import Any

from polars_rank._errors import PolarsRankError, bad_choice, not_positive_integer

__all__ = [
    "INPUT_PROBLEMS",
    "bad_choice",
    "input_problem",
    "left_out_message",
    "missing_column",
    "not_positive_integer",
    "warn_left_out",
]


def missing_column(what: str, name: str, columns: list[str]) -> PolarsRankError:
    """A required column is absent."""
    return PolarsRankError(
        f"{what} has no column {name!r}; its columns are {columns}"
        " (pass the column names as parameters, e.g. query='qid', doc='docno')"
    )


#: Input problems found by the checks, keyed by check; formatted with the check's count, first
#: row (0-based) and its query and doc, plus ``order_column`` (the score or rank column) and
#: ``rel`` (the relevance column).
INPUT_PROBLEMS = {
    "run_null_id": "run has {count} row(s) with a null query or doc id; first at row {row} "
    "(query {query!r}, doc {doc!r})",
    "qrels_null_id": "qrels has {count} row(s) with a null query or doc id; first at row {row} "
    "(query {query!r}, doc {doc!r})",
    "run_bad_order_value": "run column {order_column!r} has {count} null or NaN value(s); "
    "first at row {row} (query {query!r}, doc {doc!r})",
    "qrels_bad_rel": "qrels column {rel!r} has {count} null or NaN value(s); first at row {row} "
    "(query {query!r}, doc {doc!r})",
    "run_duplicate": "run has {count} duplicate (query, doc) pair(s), e.g. query {query!r} doc "
    "{doc!r}; pass duplicates='first' or duplicates='max' to keep one row per pair",
    "qrels_duplicate": "qrels has {count} duplicate (query, doc) pair(s), e.g. query {query!r} "
    "doc {doc!r}; pass duplicates='first' or duplicates='max' to keep one judgment per pair",
}


def input_problem(check: str, *, order_column: str, rel: str, **found: Any) -> PolarsRankError:
    """The error for one failed input check (see :data:`INPUT_PROBLEMS`)."""
    return PolarsRankError(
        INPUT_PROBLEMS[check].format(order_column=order_column, rel=rel, **found)
    )


def left_out_message(count: int) -> str:
    """How many run queries had no judgments and were left out."""
    return (
        f"{count} quer{'y' if count == 1 else 'ies'} in the run "
        f"{'has' if count == 1 else 'have'} no judgments and "
        f"{'was' if count == 1 else 'were'} not evaluated"
    )


def warn_left_out(count: int, stacklevel: int = 2) -> None:
    """Warn that ``count`` run queries without judgments were left out (nothing when 0)."""
    if count:
        warnings.warn(left_out_message(count), UserWarning, stacklevel=stacklevel + 1)
