"""Shared test fixtures: trec_eval's own test files (tests/data/trec_eval), how to read its
output, and the real engines of the SQL tests (PostgreSQL, Spark; started by
``tests/support/engines.py``); the hypothesis profiles and the markers.

Markers (``pyproject.toml``): ``spark`` and ``postgres`` are added here to every test that
uses the engine's fixture; ``slow`` and ``install`` are set by the tests, and ``slow`` here to
every Spark test but the ``smoke`` one (a Spark session takes 15 s to start and each query
seconds: the fast loop starts it once, for one test). The README's test
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


#: Tests the fast loop leaves to ``-m slow`` (``.ci/run`` runs them), by node id (a function,
#: or one parametrisation of it), each with why: the fast loop keeps a cheaper test of the
#: same engine and code path, named in the reason.
OUT_OF_THE_FAST_LOOP: dict[str, str] = {
    "tests/compiler/test_compiler.py::test_only_portable_constructs": (
        "to_sql of every metric per dialect, ~5 s each; the fast loop keeps [duckdb]"
    ),
    "tests/compiler/test_compiler.py::test_only_portable_constructs[duckdb]": "",
    "tests/compiler/test_duckdb.py::test_random_stacked": (
        "stacked random runs through DuckDB, 20-35 s; the fast loop keeps trec_eval's files"
    ),
    "tests/compiler/test_duckdb.py::test_duplicates_max": (
        "24 s; duplicates='max' stays in tests/engines/duckdb/test_parity.py"
    ),
    "tests/compiler/test_duckdb.py::test_recommender_metrics_with_the_ranking_options": (
        "three option sets, 5-8 s each; test_recommender_metrics stays"
    ),
    "tests/compiler/test_clickhouse.py::test_ids_that_differ_by_case_stay_apart": (
        "30 s; ClickHouse compares String as bytes, and the DuckDB and PostgreSQL collation "
        "tests stay"
    ),
    "tests/compiler/test_transpiled.py::test_trec_files_through_duckdb": (
        "BigQuery's SQL transpiled to DuckDB, 30 s; test_parses_back_in_its_dialect stays"
    ),
    "tests/compiler/test_transpiled.py::test_recommender_through_duckdb": "as above, 20 s",
    "tests/compiler/test_transpiled.py::test_random_through_duckdb": "as above, 13 s",
    "tests/compiler/test_postgres.py::test_duplicates_max_and_rank_order": (
        "17 s; the other PostgreSQL tests stay"
    ),
    "tests/engines/duckdb/test_settings.py::test_macros_on_the_users_connection": (
        "30 s under the hostile settings; test_engine_on_the_users_connection and "
        "test_compiled_ranking_sql stay"
    ),
    "tests/engines/duckdb/test_settings.py::test_compiled_recommender_sql": "as above, 16 s",
    "tests/engines/duckdb/test_settings.py::test_engine_queries_state_every_sort": (
        "26 s; test_compiled_sql_states_every_sort stays"
    ),
    "tests/engines/duckdb/test_parity.py::test_query_dtype_is_kept": (
        "5-9 s per dtype; the fast loop keeps [String]"
    ),
    "tests/engines/duckdb/test_parity.py::test_query_dtype_is_kept[String]": "",
    "tests/compiler/test_duckdb.py::test_recommender_metrics": (
        "4-6 s per option set and id kind; the fast loop keeps [{}-text ids]"
    ),
    "tests/compiler/test_duckdb.py::test_recommender_metrics[{}-text ids]": "",
    "tests/engines/clickhouse/test_parity.py::test_random_stacked": (
        "8-10 s per id kind; trec_eval's files and the input kinds stay"
    ),
    "tests/compiler/test_clickhouse.py::test_trec_eval_files": (
        "9 s; tests/engines/clickhouse/test_parity.py runs the same SQL on trec_eval's files"
    ),
    "tests/compiler/test_clickhouse.py::test_recommender_metrics": (
        "15 s; tests/engines/test_compiled_recsys.py runs the recommender SQL in ClickHouse"
    ),
    "tests/compiler/test_duckdb.py::test_case_insensitive_collations_keep_ids_apart[column]": (
        "5 s; [setting] stays"
    ),
    "tests/sql/test_duckdb_cli.py::test_ranking_macros_match_polars[True]": "5 s; [False] stays",
    "tests/docs/test_console.py::test_console_examples_run": (
        "one CLI process per example, 7-9 s a page; the fast loop keeps the README's"
    ),
    "tests/docs/test_console.py::test_console_examples_run[README.md]": "",
}


def _out_of_the_fast_loop(nodeid: str) -> bool:
    """Whether :data:`OUT_OF_THE_FAST_LOOP` leaves the test out (its own id first, with an
    empty reason keeping it in; then its function's)."""
    if nodeid in OUT_OF_THE_FAST_LOOP:
        return bool(OUT_OF_THE_FAST_LOOP[nodeid])
    return OUT_OF_THE_FAST_LOOP.get(nodeid.split("[", 1)[0], "") != ""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses an engine's fixture with the engine's marker, and record its
    timed markers."""
    for item in items:
        for fixture, marker in ENGINE_FIXTURES.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(getattr(pytest.mark, marker))
        if item.get_closest_marker("spark") and not item.get_closest_marker("smoke"):
            item.add_marker(pytest.mark.slow)  # the fast loop starts Spark for its smoke test
        if _out_of_the_fast_loop(item.nodeid):
            item.add_marker(pytest.mark.slow)
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
