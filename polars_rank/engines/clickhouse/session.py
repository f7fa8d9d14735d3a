"""The ClickHouse engine's session: chDB (the in-process ClickHouse) as
:class:`~polars_rank.engines.compiled.SqlEngine`, and the inputs as its tables.

``con`` is the caller's chDB session (``chdb.session.Session``) or connection
(``chdb.connect()``); without it the package opens one session for the process, on first use,
and reuses it (never closed by the package). chDB runs one embedded engine per process, on one
path: the session is in memory unless the process's engine already runs on a path, which it
then joins (a session on another path is refused by chDB). A connection the caller gave is
never closed either.

Inputs: a Polars frame (or LazyFrame, collected), a PyArrow table or a Parquet path becomes a
``TEMPORARY`` table of the session (``ENGINE = Memory``, the data copied in; it belongs to the
session alone, lives in no database and is dropped afterwards), so the caller's databases are
never written to; a table name is read where it is, as a table reference of the dialect.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from polars_rank.compiler import engine_checks as queries
from polars_rank.core.dialects import Dialect, get_dialect
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.extras import require
from polars_rank.core.frames import from_arrow
from polars_rank.core.identifiers import table_reference
from polars_rank.engines import sql_checks
from polars_rank.engines.compiled import Table

#: The dialect of every query the engine runs.
CLICKHOUSE = get_dialect("clickhouse")

#: The package's own session, opened on first use (see the module docstring).
_OWN: list[Any] = []

#: ClickHouse types whose ``GROUP BY`` equality is the equality of the value hashed (the
#: check queries' pre-test of repeated pairs, :mod:`polars_rank.engines.sql_checks`).
_HASHABLE = ("String", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64")


def _session(con: object | None) -> Any:
    """``con``, else the package's session of the process."""
    if con is not None:
        if not callable(getattr(con, "query", None)):
            raise PolarsRankError(
                "engine='clickhouse' takes con= a chDB session (chdb.session.Session()) or "
                f"connection (chdb.connect()), got {type(con).__name__}"
            )
        return con
    if not _OWN:
        require("chdb", "clickhouse")
        from chdb import session

        try:
            _OWN.append(session.Session())  # type: ignore[no-untyped-call]
        except RuntimeError as error:  # the process's engine runs on another path: join it
            found = re.search(r"initialized with path '([^']*)'", str(error))
            if found is None:
                raise
            _OWN.append(session.Session(found.group(1)))  # type: ignore[no-untyped-call]
    return _OWN[0]


@dataclass
class ClickHouseTables:
    """A chDB session (or connection) as :class:`~polars_rank.engines.compiled.SqlEngine`,
    with the temporary tables it made for the inputs."""

    con: Any
    made: list[str] = field(default_factory=list)

    @property
    def dialect(self) -> Dialect:
        return CLICKHOUSE

    @property
    def pair_hash(self) -> str:
        return queries.pair_hash(CLICKHOUSE)

    def arrow(self, sql: str) -> Any:
        """The result of ``sql`` as a PyArrow table; chDB's error as a PolarsRankError. A
        query without its own ``SETTINGS`` (the engine's check queries) gets the dialect's
        pinned settings."""
        if re.search(r"\sSETTINGS\s", sql) is None and sql.lstrip().upper().startswith("SELECT"):
            sql = CLICKHOUSE.pinned(sql)
        try:
            return self.con.query(sql, "ArrowTable")
        except Exception as error:  # chdb's ChdbError / RuntimeError
            first = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
            raise PolarsRankError(f"ClickHouse (chDB) refused a query: {first}") from None

    def result(self, sql: str) -> pl.DataFrame:
        return from_arrow(self.arrow(sql))

    def rows(self, sql: str) -> list[dict[str, Any]]:
        return self.result(sql).to_dicts()

    def columns(self, table: str) -> list[str]:
        return self.schema(table).names()

    def schema(self, table: str) -> pl.Schema:
        """``table``'s columns as Polars dtypes (from an empty read)."""
        return self.result(f"SELECT * FROM {sql_checks.source(self, table)} LIMIT 0").schema

    def hashable(self, table: str, columns: Sequence[str]) -> bool:
        described = self.result(f"DESCRIBE TABLE {sql_checks.source(self, table)}")
        types = dict(zip(described["name"], described["type"], strict=True))
        return all(_base_type(types.get(c, "")) in _HASHABLE for c in columns)

    def table(self, obj: object, what: str) -> Table:
        """``obj`` (the input named ``what``) as a table of the session (see the module
        docstring)."""
        if isinstance(obj, pl.LazyFrame):
            obj = obj.collect()
        if isinstance(obj, pl.DataFrame):
            return Table(self._load(obj.to_arrow(), None), obj.schema, obj)
        if _is_arrow(obj):
            frame = from_arrow(obj)
            return Table(self._load(obj, None), frame.schema, frame)
        if isinstance(obj, str) and obj.lower().endswith(".parquet"):
            name = self._load(None, obj)
            return Table(name, self.schema(name))
        if isinstance(obj, str):
            reference = table_reference(obj, what, "clickhouse").sql("clickhouse")
            try:
                schema = self.schema(reference)
            except PolarsRankError as error:
                raise PolarsRankError(
                    f"{what} table {obj!r} cannot be read by ClickHouse: "
                    f"{str(error).split(': ', 1)[-1]}"
                ) from None
            return Table(reference, schema)
        raise TypeError(
            f"{what} must be a polars DataFrame or LazyFrame, a PyArrow table, a Parquet path "
            f"or a table name, got {type(obj).__name__}"
        )

    def _load(self, data: Any, path: str | None) -> str:
        """A new temporary table holding ``data`` (a PyArrow table) or the Parquet file at
        ``path``; its name."""
        name = f"pr_input_{uuid.uuid4().hex}"
        source = "Python(pr_data)" if path is None else f"file({_string(path)}, Parquet)"
        pr_data = data  # noqa: F841 - read by chDB's Python() table function
        self.made.append(name)
        self.arrow(f"CREATE TEMPORARY TABLE {name} ENGINE = Memory AS SELECT * FROM {source}")
        return name

    def drop(self) -> None:
        """Drop the temporary tables made for the inputs."""
        while self.made:
            self.con.query(f"DROP TEMPORARY TABLE IF EXISTS {self.made.pop()}")


@contextmanager
def tables(con: object | None) -> Iterator[ClickHouseTables]:
    """The session of ``con`` (see :func:`_session`), its input tables dropped afterwards."""
    held = ClickHouseTables(_session(con))
    try:
        yield held
    finally:
        held.drop()


def _is_arrow(obj: object) -> bool:
    return type(obj).__module__.startswith("pyarrow") and hasattr(obj, "column_names")


def _base_type(name: str) -> str:
    """A ClickHouse type name without ``Nullable(...)`` / ``LowCardinality(...)``."""
    for wrapper in ("Nullable(", "LowCardinality("):
        while name.startswith(wrapper):
            name = name[len(wrapper) : -1]
    return name


def _string(text: str) -> str:
    """A ClickHouse string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
