"""Shared test fixtures: trec_eval's own test files (tests/data/trec_eval) and how to read its
output."""

from __future__ import annotations

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
