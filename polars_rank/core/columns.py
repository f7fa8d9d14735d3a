"""The engines that run an evaluation: Polars (one lazy plan) and DuckDB (one SQL query).

Both produce per-query values with the same internal bookkeeping columns, named here.
"""

from __future__ import annotations

from collections.abc import Iterable

#: Whether a query has retrieved documents / judgments, and how many run queries were left out.
IN_RUN = "__in_run"
JUDGED = "__judged"
LEFT_OUT = "__left_out"

#: Names a metric label may not take.
RESERVED = (IN_RUN, JUDGED, LEFT_OUT)


def fresh(base: str, taken: Iterable[str]) -> str:
    """``base``, with ``_`` appended until it is none of ``taken``: an internal column name
    that no caller's column can clash with.

    >>> fresh("len", ["query", "len"])
    'len_'
    """
    taken = set(taken)
    name = base
    while name in taken:
        name += "_"
    return name


def is_internal_looking(name: str) -> bool:
    """Whether the Polars engine may use ``name`` for a column of its own (``__pr_key``,
    ``__in_run``, ``_doc``, ``len`` ...): a caller's column with such a name is renamed for
    the evaluation (:func:`polars_rank.core.judged.canonical_inputs`)."""
    return name.startswith("_") or name == "len"
