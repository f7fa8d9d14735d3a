"""polars_rank's metrics as DuckDB SQL macros, and the one way polars_rank gets a connection.

The macros are plain SQL text in ``sql/*.sql`` (``ranking.sql``: ``ndcg``, ``average_precision``,
``judge``, ``standard_metrics``, ...; ``trec_eval.sql``: trec_eval's other measures, which use
``ranking.sql``'s macros; ``classification.sql``: the ``cls_*`` macros).
:func:`register` defines them on a connection (in a schema of your choice, or with a prefix);
from the DuckDB CLI, ``.read`` the files listed by :func:`sql_paths`.

``evaluate(..., engine="duckdb", con=con)`` and the other DuckDB paths never change ``con``:
they work on a cursor of it (:func:`session`), whose temporary macros the connection does not
see.

Example:
    >>> import duckdb, polars_rank as pr
    >>> con = pr.duckdb.register(duckdb.connect())
    >>> con.sql("SELECT reciprocal_rank(r, g) FROM (VALUES (1, 0), (2, 1)) t(r, g)").fetchall()
    [(0.5,)]
"""

from __future__ import annotations

import atexit
import re
import threading
import uuid
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import duckdb
import polars as pl

from polars_rank.core import messages
from polars_rank.core.arrow import register_frame, to_polars
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.identifiers import table_reference
from polars_rank.core.sqltext import ident, literal, table_name
from polars_rank.core.types import TableInput

_PACKAGE_DIR = Path(__file__).resolve().parent

#: Files loaded first, in this order; any other ``*.sql`` file follows in name order.
_FIRST = ("ranking.sql",)


def _sql_dir() -> Path:
    """Folder holding the ``.sql`` macro files: ``polars_rank/macros/`` in a wheel, the top-level
    ``sql/`` folder in a source checkout."""
    for candidate in (_PACKAGE_DIR / "macros", _PACKAGE_DIR.parent / "sql"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("polars_rank: the sql/ macro folder is missing from this installation")


def sql_paths() -> list[Path]:
    """Every macro file, in the order :func:`register` executes them."""
    files = sorted(_sql_dir().glob("*.sql"))
    first = [f for name in _FIRST for f in files if f.name == name]
    return first + [f for f in files if f not in first]


def sql_path(name: str = "ranking.sql") -> Path:
    """Path of one macro file, e.g. for ``.read`` in the DuckDB CLI.

    >>> sql_path().name
    'ranking.sql'
    """
    path = _sql_dir() / name
    if not path.is_file():
        available = [p.name for p in sql_paths()]
        raise FileNotFoundError(f"no macro file {name!r}; available: {available}")
    return path


# ------------------------------------------------------------------------------------------
# the macro files' text, rewritten for a schema, a prefix, or as temporary macros

#: ``CREATE OR REPLACE MACRO``, as every macro file defines its macros.
_CREATE = re.compile(r"\bCREATE\s+OR\s+REPLACE\s+MACRO\b", re.IGNORECASE)

#: What the rewriting tells apart: comments and string literals (left as they are), quoted and
#: bare identifiers.
_TOKEN = re.compile(
    r"""(?P<skip>--[^\n]*|/\*.*?\*/|'(?:[^']|'')*')
      | "(?P<quoted>(?:[^"]|"")*)"
      | (?P<word>[A-Za-z_][A-Za-z0-9_$]*)""",
    re.VERBOSE | re.DOTALL,
)

_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPEN = re.compile(r"\s*\(")
_AFTER_DOT = re.compile(r"\.\s*\Z")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@cache
def macro_names() -> frozenset[str]:
    """The name of every macro the files of :func:`sql_paths` define, in lower case.

    >>> {"recall", "judge", "precision", "cls_roc_auc"} <= macro_names()
    True
    """
    names: set[str] = set()
    for path in sql_paths():
        text = _text(path)
        for create in _CREATE.finditer(text):
            token = _TOKEN.search(text, create.end())
            if token is not None and token.group("skip") is None:
                name = token.group("word") or token.group("quoted").replace('""', '"')
                names.add(name.lower())
    return frozenset(names)


def _calls(text: str) -> Iterator[tuple[int, int, str, bool]]:
    """Each name of a polars_rank macro in ``text`` followed by ``(`` (a call, or the name of
    a definition), outside comments and strings and not after a dot: its span, the name as
    written (unquoted) and whether it was quoted."""
    names = macro_names()
    for token in _TOKEN.finditer(text):
        if token.group("skip") is not None:
            continue
        quoted = token.group("word") is None
        name = token.group("quoted").replace('""', '"') if quoted else token.group("word")
        if name.lower() not in names or not _OPEN.match(text, token.end()):
            continue
        if _AFTER_DOT.search(text, max(0, token.start() - 64), token.start()):
            continue
        yield token.start(), token.end(), name, quoted


def macro_sql(
    text: str, *, schema: str | None = None, prefix: str = "", temporary: bool = False
) -> str:
    """The text of a macro file with every polars_rank macro (each definition and each call)
    renamed ``prefix + name`` and qualified with ``schema``; ``temporary``: the macros are
    ``CREATE OR REPLACE TEMPORARY MACRO`` (visible to the one connection that defines them).

    >>> macro_sql("CREATE OR REPLACE MACRO hit_rate(r) AS hits(r) > 0 -- hits(r)", prefix="pr_")
    'CREATE OR REPLACE MACRO pr_hit_rate(r) AS pr_hits(r) > 0 -- hits(r)'
    >>> macro_sql('SELECT "precision"(r, g), my_hits(r)', schema="pr")
    'SELECT "pr"."precision"(r, g), my_hits(r)'
    """
    if prefix and not _PREFIX.fullmatch(prefix):
        raise PolarsRankError(
            f"prefix must start with a letter or _ and hold only letters, digits and _, "
            f"got {prefix!r}"
        )
    if schema is not None and not schema.strip():
        raise PolarsRankError(f"schema must name a schema, got {schema!r}")
    if schema is not None or prefix:
        qualifier = "" if schema is None else table_name(schema) + "."
        parts, last = [], 0
        for start, end, name, quoted in _calls(text):
            renamed = prefix + name
            renamed = '"' + renamed.replace('"', '""') + '"' if quoted else renamed
            parts += [text[last:start], qualifier + renamed]
            last = end
        text = "".join([*parts, text[last:]])
    if temporary:
        text = _CREATE.sub("CREATE OR REPLACE TEMPORARY MACRO", text)
    return text


@cache
def _file_sql(name: str, schema: str | None, prefix: str, temporary: bool) -> str:
    return macro_sql(_text(sql_path(name)), schema=schema, prefix=prefix, temporary=temporary)


def define(
    con: duckdb.DuckDBPyConnection,
    files: Iterable[str] | None = None,
    *,
    schema: str | None = None,
    prefix: str = "",
    temporary: bool = False,
) -> duckdb.DuckDBPyConnection:
    """Execute the macro files named ``files`` (by default every one, in :func:`sql_paths`
    order) on ``con``, rewritten by :func:`macro_sql`; ``schema`` is created if missing."""
    names = [p.name for p in sql_paths()] if files is None else list(files)
    if schema is not None:
        macro_sql("", schema=schema, prefix=prefix)  # the checks, before anything is created
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {table_name(schema)}")
    for name in names:
        con.execute(_file_sql(name, schema, prefix, temporary))
    return con


def register(
    con: duckdb.DuckDBPyConnection, *, schema: str | None = None, prefix: str = ""
) -> duckdb.DuckDBPyConnection:
    """Define every polars_rank macro on a DuckDB connection and return the connection.

    Executes each file of :func:`sql_paths` as the CLI's ``.read`` would. The macros are
    ``CREATE OR REPLACE``: calling this twice is harmless, and a macro of yours with the same
    name (``recall``, ``f1``, ``judge``, ...) is replaced; in a file database they persist.
    To keep them apart from your own:

    * ``schema="pr"`` creates the macros in that schema (created if missing; ``"db.schema"``
      names one of another attached database): call them ``pr.recall(rank, relevance, k := 10)``,
      ``FROM pr.judge('run', 'qrels')``. Each macro calls the others in that schema.
    * ``prefix="pr_"`` names them ``pr_recall``, ``pr_judge``, ... (``"pr_precision"``); each
      macro calls the others by their prefixed names.

    Both may be given. (``evaluate(..., engine="duckdb", con=con)`` does not need this: it
    defines the macros it uses as temporary macros of its own cursor of ``con``.)

    >>> con = register(duckdb.connect(), schema="pr", prefix="m_")
    >>> con.sql("SELECT pr.m_recall(r, g, k := 2) FROM (VALUES (1, 0), (2, 1)) t(r, g)").fetchall()
    [(1.0,)]
    """
    return define(con, schema=schema, prefix=prefix)


_SHARED: list[duckdb.DuckDBPyConnection] = []
_SHARED_LOCK = threading.Lock()


def _shared_database() -> duckdb.DuckDBPyConnection:
    """A process-wide in-memory database whose catalog holds the macros, defined once."""
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(register(duckdb.connect()))
            atexit.register(_SHARED[0].close)
        return _SHARED[0]


@contextmanager
def session(
    con: duckdb.DuckDBPyConnection | None = None, files: Iterable[str] | None = None
) -> Iterator[duckdb.DuckDBPyConnection]:
    """The connection polars_rank's DuckDB engines work on, with the macros of ``files``
    (names of :func:`sql_paths` files; by default every one) defined.

    With ``con``: a new cursor of it, closed afterwards. The cursor reads the same databases
    (``con``'s tables, views and attached databases, with its global settings such as
    ``memory_limit``), but its macros are temporary macros of its own, which ``con`` does not
    see, and its frames are registered on it alone: ``con``'s catalog, its own macros (a
    ``recall`` of yours stays yours) and its settings are left as they were, and a read-only
    connection works. (``con``'s registered frames and temporary tables are its own:
    :func:`follow` and :func:`read_session_table` reach them.)

    Without ``con``, a new cursor of a process-wide in-memory database is yielded and closed
    afterwards: the macros are defined once per process, and frames registered on the cursor
    stay private to it.

    >>> with session() as con:
    ...     con.sql("SELECT num_q()").fetchall()
    [(1.0,)]
    """
    if con is None:
        cursor = _shared_database().cursor()
    else:
        cursor = con.cursor()
        try:
            define(cursor, files, temporary=True)
        except BaseException:
            cursor.close()
            raise
    try:
        yield cursor
    finally:
        cursor.close()


#: One lock per user connection: polars_rank's few statements on a user's ``con`` itself
#: (:func:`follow`, :func:`read_session_table`) never run at once, so threads sharing ``con``
#: are not refused by DuckDB ("connection is busy with another call").
_CON_LOCKS: weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, threading.Lock] = (
    weakref.WeakKeyDictionary()
)


def _con_lock(con: duckdb.DuckDBPyConnection) -> threading.Lock:
    with _SHARED_LOCK:
        return _CON_LOCKS.setdefault(con, threading.Lock())


def follow(
    cursor: duckdb.DuckDBPyConnection, con: duckdb.DuckDBPyConnection, names: str = "table names"
) -> None:
    """Give ``cursor`` the current database and schema (``USE``) and the ``search_path`` of
    ``con``'s session, so that a table name reads on ``cursor`` what it reads on ``con``.

    Reads ``con``'s session in two one-row statements on ``con`` (under :func:`_con_lock`),
    which neither start nor end a transaction of ``con``'s: the same transaction id twice
    means ``con`` has an open transaction (in autocommit each statement has its own), and
    then ``names`` are refused (:func:`~polars_rank.core.messages.open_transaction`; an
    aborted transaction refuses the statements, the same refusal). A ``con`` busy with
    another thread's call or an unfinished result is a
    :func:`~polars_rank.core.messages.connection_busy` error."""
    place = "SELECT current_transaction_id(), current_database(), current_schema(), "
    place += "current_setting('search_path')"
    try:
        with _con_lock(con):
            # con.sql, not con.execute: the user's DB-API result (description, rowcount) stays
            first, database, schema, search_path = con.sql(place).fetchall()[0]
            (second,) = con.sql("SELECT current_transaction_id()").fetchall()[0]
    except duckdb.TransactionException:
        raise messages.open_transaction(names) from None
    except duckdb.ResourceInUseException as error:
        raise messages.connection_busy(error) from None
    if first == second:
        raise messages.open_transaction(names)
    cursor.execute(f"USE {ident(database)}.{ident(schema)}")
    if search_path:
        cursor.execute(f"SET search_path = {literal(search_path)}")


def read_session_table(con: duckdb.DuckDBPyConnection, source: str) -> pl.DataFrame | None:
    """``SELECT * FROM source`` read on ``con`` itself, for what only ``con``'s session sees
    (frames registered on it, its temporary tables and views; under :func:`_con_lock`);
    None when ``con`` cannot read it either, a ``PolarsRankError`` when ``con`` is busy.
    (:func:`follow` has refused an open transaction before.)"""
    try:
        with _con_lock(con):
            return to_polars(con.sql(f"SELECT * FROM {source}"))
    except duckdb.ResourceInUseException as error:
        raise messages.connection_busy(error) from None
    except duckdb.Error:
        return None


def read_table(con: duckdb.DuckDBPyConnection | None, name: str, what: str) -> pl.DataFrame:
    """The table or view ``name`` (a table reference only, never other SQL:
    :func:`~polars_rank.core.identifiers.table_reference`) read whole into Polars as ``con``
    reads it: on a cursor of ``con`` following its session (:func:`follow`; an open
    transaction refused), or on ``con`` itself for what only its session sees
    (:func:`read_session_table`); without ``con``, on the package's database. ``what`` names
    the argument in the error of a name DuckDB cannot read."""
    sql = table_reference(name, what, "duckdb").sql("duckdb")
    with session(con, []) as cursor:
        if con is not None:
            follow(cursor, con)
        try:
            return to_polars(cursor.sql(f"SELECT * FROM {sql}"))
        except duckdb.Error as error:
            frame = None if con is None else read_session_table(con, sql)
            if frame is None:
                message = f"{what} {name!r} cannot be read by DuckDB: {error}"
                raise PolarsRankError(message) from None
            return frame


def read_input(obj: TableInput, what: str, con: object = None) -> TableInput:
    """An input of ``engine="duckdb"`` read into Polars: a DuckDB relation or a table name
    (read as ``con`` reads it, on a cursor of ``con``: :func:`read_table`) is read into memory,
    a Parquet path scanned lazily; anything else is returned as it is. ``what`` names the
    argument in the errors."""
    if isinstance(obj, duckdb.DuckDBPyRelation):
        return to_polars(obj)
    if isinstance(obj, str):
        if obj.lower().endswith(".parquet"):
            return pl.scan_parquet(obj)
        if not isinstance(con, duckdb.DuckDBPyConnection):
            raise PolarsRankError(
                f"engine='duckdb': the {what} table {obj!r} needs con (the DuckDB "
                "connection that has it)"
            )
        return read_table(con, obj, what)
    return obj


def table_macro(
    frame: pl.DataFrame,
    macro: str,
    args: list[object],
    named: dict[str, object],
    con: duckdb.DuckDBPyConnection | None,
    files: Iterable[str] | None = None,
) -> pl.DataFrame:
    """``SELECT * FROM macro('<frame>', args..., name := value...)`` as a Polars frame, on
    ``con`` or the package's in-memory database (see :func:`polars_rank.duckdb.session`;
    ``files``: the macro files it needs)."""
    name = f"__pr_input_{uuid.uuid4().hex}"
    with session(con, files) as connection:
        register_frame(connection, name, frame)
        try:
            parts = [literal(name), *(literal(a) for a in args)]
            parts += [f"{key} := {literal(value)}" for key, value in named.items()]
            return to_polars(connection.sql(f"SELECT * FROM {macro}({', '.join(parts)})"))
        finally:
            connection.unregister(name)
