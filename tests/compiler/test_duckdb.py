"""``to_sql(..., "duckdb")`` run in DuckDB equals both engines (Polars and the DuckDB macro
engine) per query and in the summary, within 1e-12; and the options it shares with them."""

from __future__ import annotations

import math
import warnings

import duckdb
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
    as_labels,
    assert_case_sensitive_ids,
    assert_recommender_sql,
    assert_sql_result,
    case_frames,
    compiled,
    recommender_random,
    reference,
    stacked_random,
    trec_case,
)
from tests.support.strategies import (
    SHARE,
    assert_same,
    examples,
    fast_first,
    runs_and_qrels,
    share,
)


def run_sql(run, qrels, metrics=METRICS, *, setup: str = "", **options) -> pl.DataFrame:
    """The compiled query on a fresh in-memory DuckDB over tables ``run_t`` and ``qrels_t``."""
    con = duckdb.connect()
    if setup:
        con.execute(setup)
    con.register("run_t", run)
    con.register("qrels_t", qrels)
    return con.sql(compiled(metrics, "duckdb", "run_t", "qrels_t", **options)).pl()


def assert_both_engines(run, qrels, metrics=METRICS, *, setup: str = "", **options) -> None:
    """Per query and summary: the compiled SQL equals the Polars engine and the DuckDB
    engine."""
    for per_query in (True, False):
        got = run_sql(run, qrels, metrics, setup=setup, per_query=per_query, **options)
        assert_sql_result(got, run, qrels, metrics, **options)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            engine = pr.evaluate(
                run, qrels, metrics, per_query=per_query, engine="duckdb", **options
            )
        assert_same(engine, as_labels(got, metrics, engine, options.get("query", "query")))


@pytest.mark.parametrize("case", fast_first(sorted(TREC_CASES)))
def test_trec_eval_files(trec_dir, case):
    run, qrels, options = trec_case(trec_dir, case)
    assert_both_engines(run, qrels, accepted(qrels), **options)


@pytest.mark.parametrize("int_ids", [False, True], ids=["text ids", "integer ids"])
@pytest.mark.parametrize("options", fast_first(OPTION_SETS), ids=str)
def test_random_stacked(int_ids, options):
    run, qrels = stacked_random(40, int_ids=int_ids)
    assert_both_engines(run, qrels, **options)


@pytest.mark.slow
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=runs_and_qrels(),
    queries=st.sampled_from(["qrels", "both"]),
    relevance_level=st.sampled_from([1, 2, 0.5]),
    order_by=st.sampled_from(["score", "rank"]),
    max_rank=st.sampled_from([None, None, 1, 3]),
    part=SHARE,
)
def test_generated(data, queries, relevance_level, order_by, max_rank, part):
    """Ties, integer or text ids, graded and negative judgments, queries on one side only."""
    run, qrels = data
    run = run.drop("rank" if order_by == "score" else "score")
    assert_both_engines(
        run,
        qrels,
        share(METRICS, part),
        queries=queries,
        relevance_level=relevance_level,
        order_by=order_by,
        max_rank=max_rank,
    )


@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs_and_qrels(duplicates=True))
def test_duplicates_max(data):
    run, qrels = data
    assert_both_engines(run.drop("rank"), qrels, duplicates="max")


def test_byte_order_under_a_case_insensitive_collation():
    """DuckDB honours ``default_collation``; the doc id's ``COLLATE "binary"`` keeps ties in
    byte order under ``nocase`` ("B" < "a" as bytes, not without case)."""
    docs = ["a", "B", "c", "D", "_x", "Z1", "é", "E2"]
    run = pl.DataFrame({"query": ["q"] * len(docs), "doc": docs, "score": [1.0] * len(docs)})
    qrels = pl.DataFrame({"query": ["q"] * 3, "doc": ["B", "a", "_x"], "relevance": [1, 2, 1]})
    setup = "SET default_collation = 'nocase'"
    assert_both_engines(run, qrels, ["AP", "RR", "nDCG@3", "P@2", "bpref"], setup=setup)
    # bytes: é, c, a, _x, Z1, E2, D, B; the first relevant is a, at rank 3
    assert run_sql(run, qrels, ["RR"], setup=setup).rows() == [(1 / 3,)]


def test_integer_ids_tie_by_decimal_text():
    """Doc 9 ranks above doc 10 when they tie: ids compare as text, descending."""
    run = pl.DataFrame({"query": [1, 1], "doc": [10, 9], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query": [1], "doc": [9], "relevance": [1]})
    assert run_sql(run, qrels, ["RR", "P@1"]).rows() == [(1.0, 1.0)]


def test_custom_column_names():
    run, qrels = stacked_random(3, int_ids=False)
    run = run.rename({"query": "Query Id", "doc": "select", "score": "Sim"})
    qrels = qrels.rename({"query": "Query Id", "doc": "select", "relevance": "grade"})
    options = {"query": "Query Id", "doc": "select", "score": "Sim", "relevance": "grade"}
    got = run_sql(run, qrels, ["nDCG@10", "AP"], per_query=True, **options)
    assert got.columns == ["Query Id", "ndcg_at_10", "ap"]
    assert_sql_result(got, run, qrels, ["nDCG@10", "AP"], **options)


def test_long_layout(trec_dir):
    run, qrels, options = trec_case(trec_dir, "trunc_c")
    metrics = ["nDCG@10", "IPrec@0.3", "P(rel=2)@5", "ndcg_cut.10", "NumQ"]
    long = run_sql(run, qrels, metrics, per_query=True, layout="long", **options)
    assert long.columns == ["query", "measure", "value"]
    assert long["measure"].to_list()[: len(metrics)] == metrics
    wide = long.pivot("measure", index="query", values="value").select("query", *metrics)
    assert_same(reference(run, qrels, metrics, per_query=True, **options), wide)
    summary = run_sql(run, qrels, metrics, layout="long", **options)
    expected = reference(run, qrels, metrics, per_query=False, **options)
    assert summary["measure"].to_list() == metrics
    assert summary["value"].to_list() == pytest.approx(list(expected.row(0)), abs=1e-12)


def test_left_out_count_and_empty_result():
    """Run queries without judgments are counted in ``left_out_column``; with no query to
    evaluate the summary is the Polars engine's: a null mean and a 0 sum."""
    run = pl.DataFrame({"query": ["a", "b", "c"], "doc": ["x", "y", "z"], "score": [1.0] * 3})
    qrels = pl.DataFrame({"query": ["a", "d"], "doc": ["x", "w"], "relevance": [1, 1]})
    got = run_sql(run, qrels, ["AP"], left_out_column="left_out")
    assert got.rows() == [(0.5, 2)]  # AP: a = 1, d (not retrieved) = 0; b and c left out
    per_query = run_sql(run, qrels, ["AP"], per_query=True, left_out_column="n")
    assert per_query.rows() == [("a", 1.0, 2), ("d", 0.0, 2)]
    only_d = qrels.filter(pl.col("query") == "d")
    got = run_sql(run, only_d, ["AP", "NumQ"], queries="both")
    assert got.rows() == [(None, 0.0)]
    assert_sql_result(got, run, only_d, ["AP", "NumQ"], queries="both")


def test_err_after_a_document_that_stops_every_user():
    """With max_grade = 60, R(60) = (2^60 − 1) / 2^60 rounds to 1 and R(59) to 1/2: the product
    over the ranks above is then exactly 0 (no LN(0)). Ranks graded 59, 60, 59:
    ERR = 0.5 / 1 + 1 · 0.5 / 2 + 0.5 · (0.5 · 0) / 3 = 0.75."""
    run = pl.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "relevance": [59, 60, 59]})
    metrics = ["ERR(max_grade=60)@3", "ERR(max_grade=60)@1"]
    assert run_sql(run, qrels, metrics).rows() == [(0.75, 0.5)]
    assert_both_engines(run, qrels, metrics)


def test_eleven_pt_avg_points_out_of_order():
    """R = 4, relevant documents retrieved at ranks 1 and 4 (precisions 1 and 1/2).
    Points 0.75, 0.25, 0.5, 1 need c = 3, 1, 2, 4: the last (4 > 2 retrieved) counts 0; back
    from c = 2 (iprec 1/2), c = 1 <= 2 is matched (iprec 1), c = 3 > 1 is not: the top
    precision, 1. (0 + 1/2 + 1 + 1) / 4 = 0.625. With 0.1 (c = 0) for 0.25: c = 0 < 1 is not
    matched, so it and the point before count 1: again 0.625. Sorted, the same points give
    the plain mean (0 + 1 + 1/2 + 0) / 4 = 0.375."""
    run = pl.DataFrame({"query": ["q"] * 4, "doc": ["a", "b", "c", "d"], "score": [4.0, 3, 2, 1]})
    qrels = pl.DataFrame({"query": ["q"] * 4, "doc": ["a", "d", "x", "y"], "relevance": [1] * 4})
    metrics = [
        "11pt_avg(points=[0.75,0.25,0.5,1])",
        "11pt_avg(points=[0.75,0.1,0.5,1])",
        "11pt_avg(points=[0.25,0.5,0.75,1])",
    ]
    assert run_sql(run, qrels, metrics).rows() == [(0.625, 0.625, 0.375)]
    assert_both_engines(run, qrels, metrics)


def test_gain_table_with_overlapping_levels():
    """Level -3 and level -2 (every negative grade) both match grade -3: the later entry wins,
    as in the Polars engine. Ranks 1-3 graded -3, -1, 2 under {-3: 4, -2: 1, 2: 0.5}: gains 1,
    1, 0.5; DCG = 1 + 1/log2(3) + 0.5/2."""
    run = pl.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "relevance": [-3, -1, 2]})
    metrics = ["DCG(gains={-3:4,-2:1,2:0.5})", "nDCG(gains={-3:4,-2:1,2:0.5})@2"]
    dcg = run_sql(run, qrels, metrics).item(0, 0)
    assert dcg == pytest.approx(1 + 1 / math.log2(3) + 0.5 / 2, abs=1e-12)
    assert_both_engines(run, qrels, metrics)


@pytest.mark.parametrize("int_ids", [False, True], ids=["text ids", "integer ids"])
@pytest.mark.parametrize("options", RECOMMENDER_OPTIONS, ids=str)
def test_recommender_metrics(int_ids, options):
    """Coverage, entropy, Gini, user coverage, novelty, ARP, APLT, ILD and serendipity (feature
    vectors) with every option."""
    frames = recommender_random(60, int_ids=int_ids, seed=1)
    con = duckdb.connect()
    con.execute("SET default_collation = 'nocase'")  # the query must not depend on it
    for key, name in RECOMMENDER_TABLES.items():
        con.register(name, frames[key])
    assert_recommender_sql(lambda sql: con.sql(sql).pl(), "duckdb", frames, **options)


@pytest.mark.slow
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=runs_and_qrels(recommender=True),
    queries=st.sampled_from(["qrels", "both"]),
    max_rank=st.sampled_from([None, 2]),
)
def test_recommender_generated(data, queries, max_rank):
    """Ties, integer or text ids (accented, digits), empty histories, catalogs with and
    without the recommended items, users on one side only."""
    run, qrels, inputs = data
    frames = {
        "run": run.drop("rank"),
        "qrels": qrels,
        "interactions": inputs["interactions"],
        "catalog": inputs["catalog"] if inputs["catalog"] is not None else run.select("doc"),
        "item_features": inputs["item_features"] if inputs["kind"] == "vectors" else None,
    }
    con = duckdb.connect()
    for key, name in RECOMMENDER_TABLES.items():
        if frames[key] is not None:
            con.register(name, frames[key])
    assert_recommender_sql(
        lambda sql: con.sql(sql).pl(), "duckdb", frames, queries=queries, max_rank=max_rank
    )


@pytest.mark.parametrize(
    "options",
    [{"duplicates": "max"}, {"order_by": "rank"}, {"relevance_level": 2}],
    ids=str,
)
def test_recommender_metrics_with_the_ranking_options(options):
    """A repeated (user, item) pair keeps its highest score; the run's own ranks order the
    items; evaluate's relevance level is serendipity's binary gain."""
    frames = recommender_random(50, int_ids=False, seed=9)
    run = frames["run"]
    if options.get("duplicates") == "max":
        run = pl.concat([run, run.with_columns(pl.col("score") - 1).head(80)])
    if options.get("order_by") == "rank":
        run = run.with_columns(rank=(pl.col("score") * 2).cast(pl.Int64).abs() + 1).drop("score")
    frames = frames | {"run": run}
    con = duckdb.connect()
    for key, name in RECOMMENDER_TABLES.items():
        con.register(name, frames[key])
    assert_recommender_sql(lambda sql: con.sql(sql).pl(), "duckdb", frames, **options)


def test_recommender_long_layout():
    frames = recommender_random(30, int_ids=True, seed=10)
    con = duckdb.connect()
    for key, name in RECOMMENDER_TABLES.items():
        con.register(name, frames[key])
    metrics = ["coverage@5", "gini", "novelty@5", "ild@5", "serendipity@5", "AP"]
    sql = pr.to_sql(
        metrics, "duckdb", "run_t", "qrels_t", interactions="inter_t", item_features="feat_t",
        layout="long",
    )  # fmt: skip
    got = con.sql(sql).pl()
    assert got["measure"].to_list() == metrics
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = pr.evaluate(
            frames["run"], frames["qrels"], metrics, interactions=frames["interactions"],
            item_features=frames["item_features"],
        )  # fmt: skip
    assert_same(expected, pl.DataFrame({m: [v] for m, v in got.rows()}))


@pytest.mark.parametrize("how", ["setting", "column"])
def test_case_insensitive_collations_keep_ids_apart(how):
    """Ids and groups that differ only by case stay apart under the connection's
    ``default_collation='nocase'`` and under ``VARCHAR COLLATE NOCASE`` columns."""
    con = duckdb.connect()
    if how == "setting":
        con.execute("SET default_collation = 'nocase'")
    for name, frame in case_frames().items():
        con.register("pr_case_frame", frame.to_arrow())
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM pr_case_frame")
        con.unregister("pr_case_frame")
        for column in ("query", "doc", "grp", "g", "seg"):
            if how == "column" and frame.schema.get(column) == pl.String:
                con.execute(f"ALTER TABLE {name} ALTER {column} TYPE VARCHAR COLLATE NOCASE")
    assert con.sql("SELECT COUNT(DISTINCT grp) FROM case_run").fetchall() == [(1,)]  # guard
    assert_case_sensitive_ids(lambda sql: con.sql(sql).pl(), "duckdb", case_frames())
