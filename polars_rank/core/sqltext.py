"""SQL text for values and names: with :mod:`.identifiers` (column names per dialect, table
references), the one place polars_rank quotes anything into SQL.

>>> ident('nDCG@10'), literal("it's"), literal(0.5), literal(2.0), literal(["a", "b"])
('"nDCG@10"', "'it''s'", "CAST('0.5' AS DOUBLE)", '2', "['a', 'b']::VARCHAR[]")
"""

from __future__ import annotations

import math


def ident(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def table_name(name: str) -> str:
    """A table or view name, possibly ``schema.table`` or ``catalog.schema.table``, quoted."""
    return ".".join(ident(part) for part in name.split("."))


def literal(value: object) -> str:
    """A Python value as a SQL literal: text quoted, booleans, integers as written, floats as
    DOUBLE (never DECIMAL, whose arithmetic would not be IEEE arithmetic; integral floats as
    integers), ``None`` as NULL, lists of strings as ``VARCHAR[]``."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 2**53:
            return str(int(value))
        return f"CAST('{value!r}' AS DOUBLE)"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]::VARCHAR[]"
    raise TypeError(f"no SQL literal for {type(value).__name__} {value!r}")
