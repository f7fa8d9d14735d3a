"""The DuckDB engine of the frame-level classification functions and of
:func:`polars_rank.evaluate_classification`: register the Polars frame on a connection, call
the macros of ``sql/classification.sql``, return Polars."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

import duckdb
import polars as pl

from polars_rank.core.arrow import register_frame, to_polars
from polars_rank.core.sqltext import ident, literal
from polars_rank.duckdb import session

if TYPE_CHECKING:
    from polars_rank.catalog.names import MetricSpec


_SEGMENT = "__cls_segment"
_GROUP_KEY = "__cls_group"


def _call(spec: MetricSpec, leading: dict[str, str]) -> str:
    """The macro call of ``spec``'s entry: its tables and columns as ``leading`` gives them,
    then its parameters (required ones by position, the others by name)."""
    from polars_rank.engines.duckdb.query import metric_sql

    entry = spec.entry
    given = (*entry.tables, *entry.columns)
    return metric_sql(spec, 1, leading=tuple(leading[name] for name in given))


def evaluate_classification(
    frame: pl.DataFrame,
    specs: list[MetricSpec],
    *,
    label: str,
    score: str,
    by: list[str],
    group: list[str],
    con: duckdb.DuckDBPyConnection | None,
) -> pl.DataFrame:
    """What :func:`polars_rank.engines.polars.classification.evaluate_classification` gives,
    from the macros of ``sql/classification.sql``: the aggregate macros in one ``GROUP BY``
    query, a table macro (``cls_group_auc``) once per ``by`` segment (one ``UNION ALL`` query
    over the segments' rows), on ``con`` or the package's in-memory database.

    ``frame`` holds the input columns; each ``by`` segment gets a number (the ``by`` values
    never travel through SQL, so they come back with their own types), and so does each GAUC
    group (compared as Polars compares them, never under the connection's collation)."""
    from polars_rank.catalog.classification import GROUP, bindings

    keys = frame.select(by).unique(maintain_order=True).with_row_index(_SEGMENT)
    if by:
        frame = frame.join(keys, on=by, how="left", nulls_equal=True, maintain_order="left")
    else:
        frame = frame.with_columns(pl.lit(0, dtype=pl.UInt32).alias(_SEGMENT))
        keys = pl.DataFrame({_SEGMENT: [0]}, schema={_SEGMENT: pl.UInt32})
    key = _GROUP_KEY
    if group:  # the groups numbered here, as the segments: no collation of con merges them
        numbers = frame.select(group).unique(maintain_order=True).with_row_index(_GROUP_KEY)
        frame = frame.join(numbers, on=group, how="left", nulls_equal=True, maintain_order="left")
    columns = bindings(label, score, group)
    scalar = [s for s in specs if not s.entry.tables]
    tabular = [s for s in specs if s.entry.tables]
    name = f"__cls_input_{uuid.uuid4().hex}"
    parts: dict[int, str] = {}
    registered: list[str] = []
    with session(con, ["classification.sql"]) as connection:
        try:
            register_frame(connection, name, frame.select(_SEGMENT, *_unique(label, score)))
            registered.append(name)
            if tabular:
                for (segment,), part in frame.partition_by(_SEGMENT, as_dict=True).items():
                    parts[int(segment)] = f"{name}_{segment}"
                    register_frame(
                        connection, parts[int(segment)], part.select(*_unique(key, label, score))
                    )
                    registered.append(parts[int(segment)])
            leading = {c: ident(v) for c, v in columns.items() if isinstance(v, str)}
            # an aggregate even when every metric is frame-level (one row per segment)
            calls = [f"count(*) AS {ident('__cls_rows')}"]
            calls += [f"{_call(s, leading)} AS {ident(s.label)}" for s in scalar]
            # without by, no GROUP BY: one row even for no rows (counts 0, as in Polars)
            seg = ident(_SEGMENT)  # quoted: output names keep their case (identifier folding)
            segment, grouped = (seg, f" GROUP BY {seg}") if by else (f"0 AS {seg}", "")
            sql = f"SELECT {', '.join([segment, *calls])} FROM {ident(name)}{grouped}"
            values = to_polars(connection.sql(sql)).cast({_SEGMENT: pl.UInt32})
            out = keys.join(values, on=_SEGMENT, how="left")
            for spec in tabular:
                values = _per_segment(connection, spec, parts, columns | {GROUP: key})
                out = out.join(values, on=_SEGMENT, how="left")
        finally:
            for view in registered:
                connection.unregister(view)
    out = out.select(*by, *(s.label for s in specs))
    return out.sort(by, nulls_last=False, maintain_order=True) if by else out


def _per_segment(
    connection: duckdb.DuckDBPyConnection,
    spec: MetricSpec,
    parts: dict[int, str],
    columns: dict[str, str | list[str]],
) -> pl.DataFrame:
    """``__cls_segment, <label>``: the table macro of ``spec``'s entry on each segment's rows
    (its value is the column named as the entry)."""
    schema = pl.Schema({_SEGMENT: pl.UInt32(), spec.label: pl.Float64()})
    if not parts:
        return pl.DataFrame(schema=schema)
    entry = spec.entry
    selects = []
    for segment, view in parts.items():
        leading = {c: literal(v) for c, v in columns.items()}
        leading |= {t: literal(view) for t in entry.tables}
        selects.append(
            f"SELECT {segment} AS {ident(_SEGMENT)}, {ident(entry.name)} AS {ident(spec.label)} "
            f"FROM {_call(spec, leading)}"
        )
    return to_polars(connection.sql(" UNION ALL ".join(selects))).cast(schema)


def _unique(*names: str) -> list[str]:
    return list(dict.fromkeys(names))


def evaluate_compiled(
    frame: pl.DataFrame,
    specs: list[MetricSpec],
    *,
    label: str,
    score: str,
    by: list[str],
    group: list[str],
    weight: str | None,
    con: duckdb.DuckDBPyConnection | None,
) -> pl.DataFrame:
    """What :func:`evaluate_classification` gives, from the compiled SQL
    (:func:`polars_rank.engines.classification_sql.evaluate_compiled`, dialect ``duckdb``)
    run over ``frame`` on a cursor of ``con`` (or a fresh in-memory database): the engine of
    sample weights, which the macros do not take."""
    from polars_rank.engines import classification_sql

    def execute(data: pl.DataFrame, sql: Callable[[str], str]) -> pl.DataFrame:
        name = f"__cls_input_{uuid.uuid4().hex}"
        connection = (con or duckdb.connect()).cursor()
        try:
            register_frame(connection, name, data)
            return to_polars(connection.sql(sql(ident(name))))
        finally:
            connection.unregister(name)
            connection.close()

    return classification_sql.evaluate_compiled(
        frame,
        specs,
        label=label,
        score=score,
        by=by,
        group=group,
        weight=weight,
        dialect="duckdb",
        execute=execute,
    )
