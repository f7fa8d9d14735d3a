"""Shared test fixtures: trec_eval's own test files (tests/data/trec_eval), how to read its
output, and the real engines of the SQL tests (PostgreSQL, Spark; started by
``tests/support/engines.py``); the hypothesis profiles and the markers.

Markers (``pyproject.toml``): ``spark`` and ``postgres`` are added here to every test that
uses the engine's fixture; ``slow`` and ``install`` are set by the tests. The README's test
command runs ``-m "not slow and not install"`` with the ``dev`` hypothesis profile (a tenth of
the examples); ``.ci/run`` runs everything with the ``ci`` profile (every example count as
written in the tests, derandomized: the same examples on every run), two tests at a time.
``explore`` draws as many new ones each run. ``HYPOTHESIS_PROFILE`` chooses the profile. At
the end of a run the time spent under each marker is printed.
"""

from __future__ import annotations

import os
import shutil
import time
from collections import defaultdict
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, settings

#: ``ci``: every test's example count as written, the same examples on every run (a CI
#: result is reproduced by running it again); ``explore``: as many, new ones each run (to
#: hunt for failing inputs); ``dev``: a tenth, new ones each run (see ``examples``).
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

#: The markers whose time is summed at the end of a run.
TIMED_MARKERS = ("spark", "postgres", "slow", "install")

#: Fixtures that start an engine, and the marker each adds to the tests using it.
ENGINE_FIXTURES = {"spark": "spark", "postgres": "postgres"}


#: The ``user_properties`` key under which each test carries its timed markers to the report
#: (a report's ``keywords`` also hold the words of its name and parameters, e.g. ``spark`` in
#: ``test_x[spark]``, which are not markers; a report's properties also reach the controlling
#: process of a parallel run, which collects no test itself).
_TIMED = "timed markers"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses an engine's fixture with the engine's marker, and record its
    timed markers."""
    for item in items:
        for fixture, marker in ENGINE_FIXTURES.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(getattr(pytest.mark, marker))
        names = {m.name for m in item.iter_markers()}
        item.user_properties.append((_TIMED, tuple(m for m in TIMED_MARKERS if m in names)))


_TIMES: dict[str, float] = defaultdict(float)
_COUNTS: dict[str, int] = defaultdict(int)
_STARTED = time.perf_counter()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add each phase's time to every timed marker of its test (``other`` when none)."""
    markers = list(dict(report.user_properties).get(_TIMED, ())) or ["other"]
    for marker in markers:
        _TIMES[marker] += report.duration
        if report.when == "call":
            _COUNTS[marker] += 1


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    """The time spent under each marker (a test with two markers counts in both)."""
    if not _COUNTS:
        return
    terminalreporter.section("time per marker")
    for marker in (*TIMED_MARKERS, "other"):
        if _COUNTS.get(marker):
            terminalreporter.write_line(
                f"{marker:>8}: {_COUNTS[marker]:5d} tests {_TIMES[marker]:8.1f} s"
            )
    wall = time.perf_counter() - _STARTED
    terminalreporter.write_line(
        f"hypothesis profile {settings._current_profile}, wall {wall:.1f} s"  # noqa: SLF001
    )


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
    """A PostgreSQL server for the whole test run (see ``tests/support/engines.py``), always
    stopped."""
    from tests.support.engines import start_postgres, stop_postgres

    server = start_postgres()
    try:
        yield server
    finally:
        stop_postgres(server.process)
        shutil.rmtree(server.directory, ignore_errors=True)


@pytest.fixture(scope="session")
def clickhouse():
    """chDB's in-process ClickHouse for the whole test run (see ``tests/support/engines.py``),
    closed at the end."""
    from tests.support.engines import ClickHouseSession

    session = ClickHouseSession()
    try:
        yield session
    finally:
        session.close()


@pytest.fixture(scope="session")
def spark():
    """A ``local[2]`` SparkSession for the whole test run (see ``tests/support/engines.py``),
    stopped at the end."""
    from tests.support.engines import start_spark

    session = start_spark()
    try:
        yield session
    finally:
        session.stop()
