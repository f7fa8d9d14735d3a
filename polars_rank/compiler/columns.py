"""The output column of each metric in the compiled SQL: a name every dialect accepts unquoted.

Metric labels such as ``nDCG@10`` or ``IPrec@0.3`` cannot be column names everywhere (BigQuery
reads a backticked alias with a dot as a table and a column), so the compiled query names its
columns by one rule, and :func:`column_names` gives the mapping back to the labels.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from polars_rank.catalog.names import MetricSpec

#: At most this many characters before a uniqueness suffix (PostgreSQL keeps 63).
MAX_LENGTH = 60


def column_names(
    metrics: Iterable[str | MetricSpec], *, reserved: Iterable[str] = ("query",)
) -> dict[str, str]:
    """The output column of each metric label in :func:`~polars_rank.to_sql`'s wide layout.

    The rule: lower case; ``@`` becomes ``_at_``; every other run of characters outside
    ``[a-z0-9]`` becomes ``_``; leading and trailing ``_`` go; a name starting with a digit or
    with ``pr_`` (the query's own prefix) gets the prefix ``m_``; at most 60 characters; a name
    already taken — by an earlier metric or a ``reserved`` name such as the query column,
    compared case-insensitively — gets ``_2``, ``_3``, …

    >>> column_names(["nDCG@10", "P(rel=2)@5", "IPrec@0.3", "ndcg_cut.10", "11pt_avg"])
    {'nDCG@10': 'ndcg_at_10', 'P(rel=2)@5': 'p_rel_2_at_5', 'IPrec@0.3': 'iprec_at_0_3', \
'ndcg_cut.10': 'ndcg_cut_10', '11pt_avg': 'm_11pt_avg'}
    >>> column_names(["P@10", "p@10", "query"])
    {'P@10': 'p_at_10', 'p@10': 'p_at_10_2', 'query': 'query_2'}
    """
    taken = {name.lower() for name in reserved}
    names: dict[str, str] = {}
    for metric in metrics:
        label = metric.label if isinstance(metric, MetricSpec) else metric
        base = re.sub(r"[^a-z0-9]+", "_", label.lower().replace("@", "_at_")).strip("_")
        if not base or base[0].isdigit() or base.startswith("pr_"):
            base = f"m_{base}".rstrip("_")
        base = base[:MAX_LENGTH]
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}_{n}"
        taken.add(name)
        names[label] = name
    return names


def metric_outputs(metrics: Iterable[str | MetricSpec]) -> list[str]:
    """The names a metric's output column has in some entry point: its label (the engines)
    and its column in the compiled SQL (:func:`column_names`); a ``by`` column may have
    neither (:func:`~polars_rank.core.grouping.check_by_names`).

    >>> metric_outputs(["nDCG@10", "AP"])
    ['nDCG@10', 'AP', 'ndcg_at_10', 'ap']
    """
    labels = [m.label if isinstance(m, MetricSpec) else m for m in metrics]
    return [*labels, *column_names(labels, reserved=()).values()]


def given_column(what: str, value: object) -> str:
    """A caller's column name for ``what`` (an argument of the compiled queries): a
    non-blank string, else the error naming the argument."""
    from polars_rank.core import messages

    if not isinstance(value, str) or not value.strip():
        raise messages.bad_column_name(what, value)
    return value


def check_dotless(columns: Iterable[str], dialect: str) -> None:
    """No column name holds a '.' where ``dialect`` reads one as a path (BigQuery, ...)."""
    from polars_rank.core.dialects import get_dialect
    from polars_rank.core.errors import PolarsRankError

    rules = get_dialect(dialect)
    if rules.column_names_may_hold_dots:
        return
    for column in columns:
        if "." in column:
            raise PolarsRankError(
                f"the column {column!r} has a '.', which {rules.title} reads as a path "
                "(its column names cannot contain one)"
            )
