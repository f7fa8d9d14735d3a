"""How the command line's messages name what a user can change: the one mapping from the
Python API's option names to the command line's flags.

Errors of the library name options as Python keywords (``duplicates='first'``); while a
command runs, :data:`CLI` makes them name the flags instead.

>>> from polars_rank.core.errors import option, worded
>>> with worded(CLI):
...     option("duplicates", "first"), option("query", "qid")
('--duplicates first', '--query-col qid')
"""

from __future__ import annotations

from typing import Any

from polars_rank.core.errors import Wording

#: Python option name → command-line flag.
FLAGS = {
    "query": "--query-col",
    "doc": "--doc-col",
    "score": "--score-col",
    "rank": "--rank-col",
    "relevance": "--relevance-col",
    "duplicates": "--duplicates",
    "order_by": "--order-by",
    "max_rank": "--max-rank",
    "queries": "--queries",
    "relevance_level": "--relevance-level",
    "engine": "--engine",
    "interactions": "--interactions",
    "item_features": "--item-features",
    "catalog": "--catalog",
}


def flag(name: str, value: Any) -> str:
    """The flag that sets option ``name`` to ``value`` (``--duplicates first``)."""
    if name not in FLAGS:
        return f"{name}={value!r}"
    return f"{FLAGS[name]} {value}"


CLI = Wording(
    option=flag,
    cast_ids="--ids-as-text reads the ids of every input as text",
    metric_names="`polars-rank metrics`",
)
