"""polars_rank's metrics as DuckDB SQL macros.

The macros are plain SQL text in ``sql/*.sql`` (``ranking.sql``: ``ndcg``, ``average_precision``,
``judge``, ``standard_metrics``, ...). :func:`register` defines them on a connection; from the
DuckDB CLI, ``.read`` the files listed by :func:`sql_paths`.

Example:
    >>> import duckdb, polars_rank as pr
    >>> con = pr.duckdb.register(duckdb.connect())
    >>> con.sql("SELECT reciprocal_rank(r, g) FROM (VALUES (1, 0), (2, 1)) t(r, g)").fetchall()
    [(0.5,)]
"""

from __future__ import annotations

from pathlib import Path

from polars_rank._sqlfiles import sql_dir

#: Files loaded first, in this order; any other ``*.sql`` file follows in name order.
_FIRST = ("ranking.sql",)


def sql_paths() -> list[Path]:
    """Every macro file, in the order :func:`register` executes them."""
    files = sorted(sql_dir().glob("*.sql"))
    first = [f for name in _FIRST for f in files if f.name == name]
    return first + [f for f in files if f not in first]


def sql_path(name: str = "ranking.sql") -> Path:
    """Path of one macro file, e.g. for ``.read`` in the DuckDB CLI.

    >>> sql_path().name
    'ranking.sql'
    """
    path = sql_dir() / name
    if not path.is_file():
        available = [p.name for p in sql_paths()]
        raise FileNotFoundError(f"no macro file {name!r}; available: {available}")
    return path


def register_ranking(con):
    """Define only the ranking macros (``ranking.sql``) on ``con``; return ``con``."""
    con.execute(sql_path("ranking.sql").read_text(encoding="utf-8"))
    return con


def register(con):
    """Define every polars_rank macro on a DuckDB connection and return the connection.

    Executes each file of :func:`sql_paths` as the CLI's ``.read`` would. The macros are
    ``CREATE OR REPLACE``: calling this twice is harmless.
    """
    for path in sql_paths():
        con.execute(path.read_text(encoding="utf-8"))
    return con
