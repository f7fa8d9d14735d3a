"""``to_sql(..., "clickhouse")`` run in ClickHouse (chDB, in process) equals the Polars engine
per query and in the summary within 1e-12, with Float64 results; under session settings that
would change its meaning (the query pins its own), and with Nullable and plain columns."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from tests.support.sql_cases import (
    METRICS,
    OPTION_SETS,
    RECOMMENDER_OPTIONS,
    RECOMMENDER_TABLES,
    TREC_CASES,
    accepted,
    assert_case_sensitive_ids,
    assert_recommender_sql,
    assert_sql_result,
    case_frames,
    compiled,
    recommender_random,
    stacked_random,
    trec_case,
)
from tests.support.strategies import SHARE, examples, fast_first, runs_and_qrels, share

#: Session values opposite to the ones the query pins (each would change a number).
HOSTILE_SETTINGS = (
    "SET join_use_nulls = 0",
    "SET join_default_strictness = 'ANY'",
    "SET aggregate_functions_null_for_empty = 0",
    "SET count_distinct_implementation = 'uniq'",
    "SET transform_null_in = 1",
)
#: The session's defaults for the same settings.
DEFAULT_SETTINGS = (
    "SET join_use_nulls = 0",
    "SET join_default_strictness = 'ALL'",
    "SET aggregate_functions_null_for_empty = 0",
    "SET count_distinct_implementation = 'uniqExact'",
    "SET transform_null_in = 0",
)


@pytest.fixture
def hostile(clickhouse):
    """The chDB session with :data:`HOSTILE_SETTINGS`, set back to the defaults after."""
    for statement in HOSTILE_SETTINGS:
        clickhouse.run(statement)
    try:
        yield clickhouse
    finally:
        for statement in DEFAULT_SETTINGS:
            clickhouse.run(statement)


def assert_parity(session, run, qrels, metrics=METRICS, *, nullable=True, **options) -> None:
    session.load("run_t", run, nullable=nullable)
    session.load("qrels_t", qrels, nullable=nullable)
    for per_query in (True, False):
        sql = compiled(metrics, "clickhouse", "run_t", "qrels_t", per_query=per_query, **options)
        assert_sql_result(session.query(sql), run, qrels, metrics, **options)


def test_pinned_settings_are_needed(hostile):
    """The guard for this file: without its SETTINGS clause, the query gives other numbers
    under the hostile session (an unjudged document joins as judged, relevance 0)."""
    run = pl.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "doc": ["b", "x"], "relevance": [1, 1]})
    hostile.load("run_t", run)
    hostile.load("qrels_t", qrels)
    sql = pr.to_sql(["bpref", "AP"], "clickhouse", "run_t", "qrels_t")
    head, settings_clause = sql.rsplit("SETTINGS", 1)
    assert "join_use_nulls = 1" in settings_clause
    # by hand: R = 2 (b, x); a and c are unjudged and no judged non-relevant document is
    # above b: bpref = (1/R) (1 - 0) = 0.5; AP = (precision at b's rank 2 = 1/2) / R = 0.25
    assert hostile.query(sql).row(0) == pytest.approx((0.5, 0.25), abs=1e-12)
    # (the hostile session's ANY strictness refuses the query's FULL JOIN: shown alone)
    unpinned = head + "SETTINGS join_use_nulls = 0, join_default_strictness = 'ALL'"
    assert hostile.query(unpinned).row(0) != pytest.approx((0.5, 0.25), abs=1e-12)


@pytest.mark.parametrize("case", fast_first(sorted(TREC_CASES)))
def test_trec_eval_files(hostile, trec_dir, case):
    run, qrels, options = trec_case(trec_dir, case)
    assert_parity(hostile, run, qrels, accepted(qrels), **options)


@pytest.mark.slow  # the fast loop has trec_eval's files and the hand-made cases
@pytest.mark.parametrize("nullable", [True, False], ids=["Nullable", "plain"])
@pytest.mark.parametrize("int_ids", [False, True], ids=["text ids", "integer ids"])
@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_random_stacked(hostile, int_ids, options, nullable):
    run, qrels = stacked_random(40, int_ids=int_ids)
    assert_parity(hostile, run, qrels, nullable=nullable, **options)


@pytest.mark.slow
@settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    data=runs_and_qrels(),
    queries=st.sampled_from(["qrels", "both"]),
    relevance_level=st.sampled_from([1, 2, 0.5]),
    order_by=st.sampled_from(["score", "rank"]),
    max_rank=st.sampled_from([None, None, 1, 3]),
    part=SHARE,
)
def test_generated(hostile, data, queries, relevance_level, order_by, max_rank, part):
    """Ties, integer or text ids, graded and negative judgments, queries on one side only."""
    run, qrels = data
    run = run.drop("rank" if order_by == "score" else "score")
    options = {"queries": queries, "relevance_level": relevance_level, "max_rank": max_rank}
    assert_parity(hostile, run, qrels, share(METRICS, part), order_by=order_by, **options)


def test_mixed_case_ids_in_byte_order(hostile):
    """Tied ids ordered as bytes ('B' < 'a'), as trec_eval does."""
    docs = ["a", "B", "b", "A", "a-1", "a1", "B2", "_x", "Z", "z"]
    run = pl.DataFrame({"query": ["q"] * len(docs), "doc": docs, "score": [1.0] * len(docs)})
    qrels = pl.DataFrame({"query": ["q"] * 4, "doc": ["B", "a1", "Z", "_x"], "relevance": [1] * 4})
    assert_parity(hostile, run, qrels, ["AP", "RR", "nDCG@3", "P@2", "bpref"])


@pytest.mark.slow
def test_duplicates_max_and_rank_order(hostile):
    run, qrels = stacked_random(5, int_ids=False)
    doubled = pl.concat([run, run.with_columns(pl.col("score") - 1).head(60)])
    regraded = pl.concat([qrels, qrels.with_columns(pl.col("relevance") + 1).head(60)])
    assert_parity(hostile, doubled, regraded, accepted(regraded), duplicates="max")
    ranked = run.with_columns(rank=(pl.col("score") * 2).cast(pl.Int64).abs() + 1).drop("score")
    assert_parity(hostile, ranked, qrels, order_by="rank")


#: Text and integer ids under each recommender option set: the first in the fast loop.
RECOMMENDER_CASES = [(int_ids, o) for o in RECOMMENDER_OPTIONS for int_ids in (False, True)]


@pytest.mark.parametrize(
    ("int_ids", "options"),
    [pytest.param(*c, marks=pytest.mark.slow) if n else c for n, c in enumerate(RECOMMENDER_CASES)],
)
def test_recommender_metrics(hostile, int_ids, options):
    """Every portable recommender metric with every option; the items' tie order (the long
    tail) in byte order."""
    frames = recommender_random(60, int_ids=int_ids, seed=2)
    for key, name in RECOMMENDER_TABLES.items():
        if frames[key] is not None:
            hostile.load(name, frames[key])
    assert_recommender_sql(hostile.query, "clickhouse", frames, **options)


def test_ids_that_differ_by_case_stay_apart(hostile):
    frames = case_frames()
    for name, frame in frames.items():
        hostile.load(name, frame)
    assert_case_sensitive_ids(hostile.query, "clickhouse", frames)


def test_deduplicating_tables_are_read_as_stored(clickhouse):
    """A ReplacingMergeTree run with a row replaced but not merged holds both rows: check_sql
    reports the pair (2 rows); once merged (or read with FINAL) it holds one."""
    clickhouse.run("DROP TABLE IF EXISTS run_rmt")
    clickhouse.run(
        "CREATE TABLE run_rmt (query String, doc String, score Float64) "
        "ENGINE = ReplacingMergeTree ORDER BY (query, doc)"
    )
    clickhouse.run("INSERT INTO run_rmt VALUES ('q', 'a', 1.0), ('q', 'b', 0.5)")
    clickhouse.run("INSERT INTO run_rmt VALUES ('q', 'a', 2.0)")
    clickhouse.load("qrels_t", pl.DataFrame({"query": ["q"], "doc": ["a"], "relevance": [1]}))
    sql = pr.check_sql("clickhouse", "run_rmt", "qrels_t")
    problems = clickhouse.query(sql).select("problem", "rows_affected", "example_doc")
    assert problems.rows() == [("duplicate_pair", 2, "a")]
    clickhouse.run("CREATE OR REPLACE VIEW run_final AS SELECT * FROM run_rmt FINAL")
    assert clickhouse.query(pr.check_sql("clickhouse", "run_final", "qrels_t")).is_empty()
    # read through the view: a (2.0, the row inserted last) ranks first; P@1 = 1
    assert clickhouse.query(pr.to_sql(["P@1"], "clickhouse", "run_final", "qrels_t")).item() == 1
