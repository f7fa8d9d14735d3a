"""polars_rank's metrics as DuckDB SQL macros, and the one way polars_rank gets a connection.

The macros are plain SQL text in ``sql/*.sql`` (``ranking.sql``: ``ndcg``, ``average_precision``,
``judge``, ``standard_metrics``, ...; ``trec_eval.sql``: trec_eval's other measures, which use
``ranking.sql``'s macros; ``classification.sql``: the ``cls_*`` macros).
:func:`register` defines them on a connection; from the DuckDB CLI, ``.read`` the files listed
by :func:`sql_paths`.

Example:
    >>> import duckdb, polars_rank as pr
    >>> con = pr.duckdb.register(duckdb.connect())
    >>> con.sql("SELECT reciprocal_rank(r, g) FROM (VALUES (1, 0), (2, 1)) t(r, g)").fetchall()
    [(0.5,)]
"""

from __future__ import annotations

import atexit
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import polars as pl

from polars_rank.core.arrow import register_frame, to_polars
from polars_rank.core.sqltext import literal

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


def register(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Define every polars_rank macro on a DuckDB connection and return the connection.

    Executes each file of :func:`sql_paths` as the CLI's ``.read`` would. The macros are
    ``CREATE OR REPLACE``: calling this twice is harmless.
    """
    for path in sql_paths():
        con.execute(path.read_text(encoding="utf-8"))
    return con


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
def session(con: duckdb.DuckDBPyConnection | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """The connection polars_rank's DuckDB engines work on, with every macro defined.

    With ``con``, the macros are (re)defined on it and it is yielded as is (the caller's tables
    and settings apply). Without, a new cursor of a process-wide in-memory database is yielded
    and closed afterwards: the macros are defined once per process, and frames registered on
    the cursor stay private to it.

    >>> with session() as con:
    ...     con.sql("SELECT num_q()").fetchall()
    [(1.0,)]
    """
    if con is not None:
        yield register(con)
        return
    cursor = _shared_database().cursor()
    try:
        yield cursor
    finally:
        cursor.close()


def table_macro(
    frame: pl.DataFrame,
    macro: str,
    args: list[object],
    named: dict[str, object],
    con: duckdb.DuckDBPyConnection | None,
) -> pl.DataFrame:
    """``SELECT * FROM macro('<frame>', args..., name := value...)`` as a Polars frame, on
    ``con`` or the package's in-memory database (see :func:`polars_rank.duckdb.session`)."""
    name = f"__pr_input_{uuid.uuid4().hex}"
    with session(con) as connection:
        register_frame(connection, name, frame)
        try:
            parts = [literal(name), *(literal(a) for a in args)]
            parts += [f"{key} := {literal(value)}" for key, value in named.items()]
            return to_polars(connection.sql(f"SELECT * FROM {macro}({', '.join(parts)})"))
        finally:
            connection.unregister(name)
