"""BigQuery: backtick-quoted names with backslash escapes; dashed project names in table
references (``my-project.ds.run``); a dot in a column name is a path; ``NULLS FIRST/LAST``
only in a query's ORDER BY; ``COLLATE(x, '')`` is the byte order."""

from __future__ import annotations

import re
from typing import ClassVar

from polars_rank.core.dialects.base import Dialect


class BigQuery(Dialect):
    name = "bigquery"
    title = "BigQuery"
    quote_char = "`"
    backslash_escapes = True
    #: Unquoted path parts may hold single dashes (``my-project``), not at either end.
    unquoted_table_part: ClassVar[re.Pattern[str]] = re.compile(
        r"[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*"
    )
    column_names_may_hold_dots = False
    byte_key: ClassVar[tuple[str, str | None, bool] | None] = ("string", "", True)
    order_by_null_clause_in_windows = False

    def quote(self, name: str) -> str:
        escaped = name.replace("\\", "\\\\").replace("`", "\\`").replace("\n", "\\n")
        return "`" + escaped.replace("\r", "\\r").replace("\t", "\\t") + "`"
