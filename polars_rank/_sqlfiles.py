"""Locate the DuckDB macro files (``sql/*.sql``) in a source tree or an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def sql_dir() -> Path:
    """Folder holding the ``.sql`` macro files.

    In a wheel they are shipped as ``polars_rank/_sql/``; in a source checkout they live in
    the top-level ``sql/`` folder beside the package.
    """
    for candidate in (_PACKAGE_DIR / "_sql", _PACKAGE_DIR.parent / "sql"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("polars_rank: the sql/ macro folder is missing from this installation")


def sql_text(name: str) -> str:
    """Text of one macro file, e.g. ``sql_text("ranking.sql")``."""
    return (sql_dir() / name).read_text(encoding="utf-8")
