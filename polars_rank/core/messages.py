"""Every message the ranking side shows a user, defined once and used by both engines.

>>> left_out_message(2)
'2 queries in the run have no judgments and were not evaluated'
>>> left_out_message(1, "bm25")
"run 'bm25': 1 query in the run has no judgments and was not evaluated"
"""

from __future__ import annotations

from polars_rank.core.errors import (
    CallSite,
    PolarsRankError,
    bad_choice,
    not_positive_integer,
    option,
    wording,
)

__all__ = [
    "INPUT_PROBLEMS",
    "bad_choice",
    "connection_busy",
    "empty_input",
    "input_problem",
    "left_out_message",
    "missing_column",
    "no_row_order",
    "not_positive_integer",
    "not_utf8",
    "open_transaction",
    "option",
    "swapped_hint",
    "warn_left_out",
    "warn_left_out_here",
    "wording",
]


#: An example source column name for each role, for the hints of :func:`missing_column`.
_EXAMPLE_NAMES = {
    "query": "qid",
    "doc": "docno",
    "score": "sim",
    "rank": "pos",
    "relevance": "grade",
}


def missing_column(
    what: str, name: str, columns: list[str], role: str | None = None, swapped: bool = False
) -> PolarsRankError:
    """A required column is absent; ``role`` is the column's part (``query``, ``doc``, ...)
    and names the option that maps it; ``swapped`` adds the hint that run and judgments look
    exchanged."""
    hint = ""
    if role is not None:
        hint = f" (name the {role} column with {option(role, _EXAMPLE_NAMES[role])})"
    return PolarsRankError(
        f"{what} has no column {name!r}; its columns are {columns}{hint}"
        + (swapped_hint(what) if swapped else "")
    )


def swapped_hint(what: str) -> str:
    """The hint for a run given as judgments or judgments given as a run."""
    other = "a run" if what == "qrels" else "judgments"
    return f"; {what} looks like {other}: are run and qrels swapped?"


def empty_input(what: str) -> PolarsRankError:
    """The run or the judgments have no rows."""
    return PolarsRankError(
        f"{what} is empty (no rows): nothing to evaluate"
        + (" (every judged query would score 0)" if what == "run" else "")
    )


#: Input problems found by the checks, keyed by check; formatted with the check's count, first
#: row (0-based) and its query and doc, plus ``order_column`` (the score or rank column),
#: ``rel`` (the relevance column) and the options that keep one of duplicates.
INPUT_PROBLEMS = {
    "run_null_id": "run has {count} row(s) with a null query or doc id; first at row {row} "
    "(query {query!r}, doc {doc!r})",
    "qrels_null_id": "qrels has {count} row(s) with a null query or doc id; first at row {row} "
    "(query {query!r}, doc {doc!r})",
    "run_bad_order_value": "run column {order_column!r} has {count} null or NaN value(s); "
    "first at row {row} (query {query!r}, doc {doc!r})",
    "qrels_bad_rel": "qrels column {rel!r} has {count} null or NaN value(s); first at row {row} "
    "(query {query!r}, doc {doc!r})",
    "qrels_infinite_rel": "qrels column {rel!r} has {count} infinite grade(s); first at row "
    "{row} (query {query!r}, doc {doc!r}): grades must be finite numbers",
    "qrels_grade_above_max": "qrels column {rel!r} has {count} grade(s) above {limit:g}, the "
    "max_grade of metric {metric!r} (largest grade {largest:g}; first at row {row}: query "
    "{query!r}, doc {doc!r}); give the metric max_grade={largest:g} or more, e.g. "
    "'ERR(max_grade={largest:g})@10', or clip the grades",
    "run_duplicate": "run has {count} duplicate (query, doc) pair(s), e.g. query {query!r} doc "
    "{doc!r}; pass {keep_first} or {keep_max} to keep one row per pair",
    "qrels_duplicate": "qrels has {count} duplicate (query, doc) pair(s), e.g. query {query!r} "
    "doc {doc!r}; pass {keep_first} or {keep_max} to keep one judgment per pair",
}


def input_problem(check: str, *, order_column: str, rel: str, **found: object) -> PolarsRankError:
    """The error for one failed input check (see :data:`INPUT_PROBLEMS`); ``found`` holds the
    count, the first row, its query and doc, and for the grade check the limit, the metric
    and the largest grade."""
    return PolarsRankError(
        INPUT_PROBLEMS[check].format(
            order_column=order_column,
            rel=rel,
            keep_first=option("duplicates", "first"),
            keep_max=option("duplicates", "max"),
            **found,
        )
    )


def left_out_message(count: int, run: str | None = None) -> str:
    """How many queries of a run (named ``run``, when it has a name) had no judgments and
    were left out."""
    return (
        (f"run {run!r}: " if run is not None else "")
        + f"{count} quer{'y' if count == 1 else 'ies'} in the run "
        f"{'has' if count == 1 else 'have'} no judgments and "
        f"{'was' if count == 1 else 'were'} not evaluated"
    )


def warn_left_out(count: int, where: CallSite, run: str | None = None) -> None:
    """Warn, at the user's call ``where`` and every time, that ``count`` run queries without
    judgments were left out (nothing when 0)."""
    if count:
        where.warn(left_out_message(count, run))


def warn_left_out_here(count: int) -> None:
    """:func:`warn_left_out` at the caller of polars_rank, found now (for direct engine calls;
    :func:`polars_rank.evaluate` finds the call site before the plan runs)."""
    warn_left_out(count, CallSite.here())


def no_row_order(where: str) -> PolarsRankError:
    """``duplicates="first"`` asked of inputs that have no row order (SQL tables, Spark)."""
    return PolarsRankError(
        f"{option('duplicates', 'first')} needs the inputs' row order, which {where} does not "
        f"have; use {option('duplicates', 'max')} (keep the highest score / grade) or "
        f"{option('duplicates', 'error')}"
    )


def not_utf8(path: object, err: UnicodeDecodeError) -> PolarsRankError:
    """A text file (TREC run or judgments, ``polars_rank.yml``) that is not UTF-8: the file,
    the line (1-based, counted in the bytes read) and the byte at fault.

    >>> try:
    ...     b"a\\nb\\xff".decode("utf-8")
    ... except UnicodeDecodeError as err:
    ...     print(not_utf8("x.yml", err))
    x.yml: not UTF-8 text: line 2 has the byte 0xff (save the file as UTF-8)
    """
    line = bytes(err.object[: err.start]).count(b"\n") + 1
    byte = err.object[err.start]
    return PolarsRankError(
        f"{path}: not UTF-8 text: line {line} has the byte 0x{byte:02x} (save the file as UTF-8)"
    )


def open_transaction(names: str) -> PolarsRankError:
    """``con`` has an open transaction while table names are to be read on a cursor of it."""
    return PolarsRankError(
        f"con has an open transaction: the DuckDB engine reads {names} on a cursor of its own, "
        "which does not see the transaction's uncommitted rows (nor its snapshot), so it "
        "would not read what con reads; COMMIT or ROLLBACK first, or pass the data as a "
        "frame or a relation of con"
    )


def connection_busy(error: object) -> PolarsRankError:
    """``con`` refused the one-row statements that read its session's place."""
    return PolarsRankError(
        "con is busy (a call of another thread on it, or an unfinished result of "
        "con.execute()): table names are read as con's session reads them (its USE, "
        "search_path and transaction state, one moment of con), which needs con free; "
        f"finish that work first, or pass con.cursor() ({error})"
    )


def by_columns_needed(argument: str, table: str) -> PolarsRankError:
    """``to_sql`` / ``check_sql`` with ``by`` and a ``table`` but without its ``argument``
    (``qrels_by``, ...): the SQL cannot see which ``by`` columns the table has."""
    return PolarsRankError(
        f"by: give {argument}= with the {table} table: the by columns the {table} table has "
        f"too (each group then reads its own rows); {argument}=[] shares all of its rows "
        "across the groups. The SQL cannot see the table's columns, so it does not guess "
        "(the engines and the dbt package read them from the table)"
    )


def bad_column_name(argument: str, name: object) -> PolarsRankError:
    """A column name in ``argument`` (``by``, ``qrels_by``, ``group``, ...) that is not a
    non-empty string with a character besides spaces."""
    return PolarsRankError(
        f"{argument}: column names are non-empty strings (not only spaces), got {name!r}"
    )
