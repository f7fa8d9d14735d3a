"""Shared test fixtures: trec_eval's own test files (tests/data/trec_eval), how to read its
output, and the real engines of the SQL tests (PostgreSQL, Spark; started by
``tests/engines.py``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

#: trec_eval 10.0's own test inputs and expected outputs (its ``test/`` folder), with its licence.
CONFORMANCE = Path(__file__).resolve().parent / "data" / "trec_eval"


@pytest.fixture(scope="session")
def trec_dir() -> Path:
    """The folder of trec_eval's test inputs and expected outputs (part of the repository)."""
    assert (CONFORMANCE / "out.test.aq").is_file(), f"{CONFORMANCE} is missing"
    return CONFORMANCE


def read_trec_eval_output(path: Path) -> pl.DataFrame:
    """trec_eval's ``measure<TAB>query<TAB>value`` lines as a frame of strings."""
    rows = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        measure, query, value = (part.strip() for part in line.split("\t"))
        rows.append((measure, query, value))
    return pl.DataFrame(rows, schema=["measure", "query", "value"], orient="row")


@pytest.fixture(scope="session")
def postgres():
    """A PostgreSQL server for the whole test run (see ``tests/engines.py``), always stopped."""
    from engines import start_postgres, stop_postgres

    server = start_postgres()
    try:
        yield server
    finally:
        stop_postgres(server.process)
        shutil.rmtree(server.directory, ignore_errors=True)


@pytest.fixture(scope="session")
def spark():
    """A ``local[2]`` SparkSession for the whole test run (see ``tests/engines.py``), stopped
    at the end."""
    from engines import start_spark

    session = start_spark()
    try:
        yield session
    finally:
        session.stop()
