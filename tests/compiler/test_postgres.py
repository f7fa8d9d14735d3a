"""``to_sql(..., "postgres")`` on a real PostgreSQL server whose default collation is ICU en-US
(not byte order) equals the Polars engine per query and in the summary within 1e-12, with
DOUBLE (float8) results."""

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


def assert_parity(server, run, qrels, metrics=METRICS, **options) -> None:
    server.load("run_t", run)
    server.load("qrels_t", qrels)
    for per_query in (True, False):
        sql = compiled(metrics, "postgres", "run_t", "qrels_t", per_query=per_query, **options)
        assert_sql_result(server.query(sql), run, qrels, metrics, **options)


def test_server_collation_is_not_bytewise(postgres):
    """The guard for this file: on this server a missing COLLATE "C" would show."""
    rows = postgres.query("""SELECT 'B' < 'a' AS by_default, 'B' < 'a' COLLATE "C" AS bytes""")
    assert rows.row(0) == (False, True)


@pytest.mark.parametrize("case", fast_first(sorted(TREC_CASES)))
def test_trec_eval_files(postgres, trec_dir, case):
    run, qrels, options = trec_case(trec_dir, case)
    assert_parity(postgres, run, qrels, accepted(qrels), **options)


@pytest.mark.slow
@pytest.mark.parametrize("int_ids", [False, True], ids=["text ids", "integer ids"])
@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_random_stacked(postgres, int_ids, options):
    run, qrels = stacked_random(40, int_ids=int_ids)
    assert_parity(postgres, run, qrels, **options)


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
def test_generated(postgres, data, queries, relevance_level, order_by, max_rank, part):
    """Ties, integer or text ids, graded and negative judgments, queries on one side only."""
    run, qrels = data
    run = run.drop("rank" if order_by == "score" else "score")
    options = {"queries": queries, "relevance_level": relevance_level, "max_rank": max_rank}
    assert_parity(postgres, run, qrels, share(METRICS, part), order_by=order_by, **options)


def test_mixed_case_ids_need_byte_order(postgres):
    """Tied ids that ICU and bytes order differently ('B' < 'a' only as bytes)."""
    docs = ["a", "B", "b", "A", "a-1", "a1", "B2", "_x", "Z", "z"]
    run = pl.DataFrame({"query": ["q"] * len(docs), "doc": docs, "score": [1.0] * len(docs)})
    qrels = pl.DataFrame({"query": ["q"] * 4, "doc": ["B", "a1", "Z", "_x"], "relevance": [1] * 4})
    assert_parity(postgres, run, qrels, ["AP", "RR", "nDCG@3", "P@2", "bpref"])
    # the same query without the collation gives other numbers on this server
    sql = pr.to_sql(["AP"], "postgres", "run_t", "qrels_t", per_query=True)
    assert sql.count('CAST(docno AS TEXT) COLLATE "C" DESC') == 1  # the ranking's ties
    # the ids are read as bytes too (their byte keys), so every collation goes
    without = postgres.query(sql.replace(' COLLATE "C"', ""))["ap"][0]
    assert without != postgres.query(sql)["ap"][0]


def test_duplicates_max_and_rank_order(postgres):
    run, qrels = stacked_random(5, int_ids=False)
    doubled = pl.concat([run, run.with_columns(pl.col("score") - 1).head(60)])
    regraded = pl.concat([qrels, qrels.with_columns(pl.col("relevance") + 1).head(60)])
    assert_parity(postgres, doubled, regraded, accepted(regraded), duplicates="max")
    ranked = run.with_columns(rank=(pl.col("score") * 2).cast(pl.Int64).abs() + 1).drop("score")
    assert_parity(postgres, ranked, qrels, order_by="rank")


@pytest.mark.slow
@pytest.mark.parametrize("int_ids", [False, True], ids=["text ids", "integer ids"])
@pytest.mark.parametrize("options", RECOMMENDER_OPTIONS, ids=str)
def test_recommender_metrics(postgres, int_ids, options):
    """Every portable recommender metric with every option (vectors as float8[]); the
    items' tie order (the long tail) in byte order on this ICU server."""
    frames = recommender_random(60, int_ids=int_ids, seed=2)
    for key, name in RECOMMENDER_TABLES.items():
        postgres.load(name, frames[key])
    assert_recommender_sql(postgres.query, "postgres", frames, **options)


def test_case_insensitive_collation_keeps_ids_apart(postgres):
    """Ids and groups that differ only by case stay apart in text columns of a
    nondeterministic (case-insensitive) ICU collation."""
    frames = case_frames()
    with postgres.connect() as con:
        con.execute(
            "CREATE COLLATION IF NOT EXISTS pr_ci "
            "(provider = icu, locale = 'und-u-ks-level2', deterministic = false)"
        )
    for name, frame in frames.items():
        postgres.load(name, frame)
        with postgres.connect() as con:
            for column in ("query", "doc", "grp", "g", "seg"):
                if frame.schema.get(column) == pl.String:
                    con.execute(f"ALTER TABLE {name} ALTER {column} TYPE text COLLATE pr_ci")
    guard = postgres.query("SELECT COUNT(DISTINCT grp) AS n FROM case_run")
    assert guard.item() == 1
    assert_case_sensitive_ids(postgres.query, "postgres", frames)
