"""``sql/ranking.sql`` on its own: loaded into a fresh DuckDB connection with plain
``con.execute(text)`` (what the CLI's ``.read`` does), no polars_rank code involved; then the
table macros against the Python package."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import duckdb
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings

import polars_rank as pr
import polars_rank.duckdb as prd
from tests.support.strategies import assert_same, examples, runs_and_qrels

SQL_FILE = Path(__file__).resolve().parents[2] / "sql" / "ranking.sql"

#: standard_metrics column -> metric name
STANDARD = {
    "ndcg_10": "nDCG@10",
    "ndcg": "nDCG",
    "rr_10": "RR@10",
    "rr": "RR",
    "ap": "AP",
    "ap_100": "AP@100",
    "p_10": "P@10",
    "r_100": "R@100",
    "r_1000": "R@1000",
    "rprec": "Rprec",
    "bpref": "bpref",
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
}


@pytest.fixture()
def con():
    """A fresh connection with only the SQL file loaded, and a small run and qrels.

    run   q1: a 3.0, b 2.0, c 2.0, d 1.0   (b and c tie: c ranks first, doc ids descending)
          q2: x 1.0                       (no judgments)
    qrels q1: a 1, c 2, e 1, d 0          (e not retrieved)
          q3: z 1                         (not in the run)
    judged q1: a rank 1 grade 1, c 2 grade 2, b 3 unjudged, d 4 grade 0, e unretrieved grade 1
    """
    connection = duckdb.connect()
    connection.execute(SQL_FILE.read_text(encoding="utf-8"))
    connection.execute(
        "CREATE TABLE run AS SELECT * FROM (VALUES ('q1', 'a', 3.0), ('q1', 'b', 2.0), "
        "('q1', 'c', 2.0), ('q1', 'd', 1.0), ('q2', 'x', 1.0)) t(query, doc, score)"
    )
    connection.execute(
        "CREATE TABLE qrels AS SELECT * FROM (VALUES ('q1', 'a', 1), ('q1', 'c', 2), "
        "('q1', 'e', 1), ('q1', 'd', 0), ('q3', 'z', 1)) t(query, doc, relevance)"
    )
    return connection


def _one(con, sql: str) -> tuple:
    return con.sql(sql).fetchall()[0]


def test_judge_by_hand(con) -> None:
    rows = con.sql(
        "SELECT query, doc, rank, relevance FROM judge('run', 'qrels') "
        "ORDER BY query, rank NULLS LAST, doc"
    ).fetchall()
    assert rows == [
        ("q1", "a", 1, 1),
        ("q1", "c", 2, 2),
        ("q1", "b", 3, None),
        ("q1", "d", 4, 0),
        ("q1", "e", None, 1),
        ("q2", "x", 1, None),
        ("q3", "z", None, 1),
    ]
    top2 = con.sql(
        "SELECT doc, rank FROM judge('run', 'qrels', max_rank := 2) "
        "WHERE query = 'q1' ORDER BY rank NULLS LAST, doc"
    ).fetchall()
    assert top2 == [("a", 1), ("c", 2), ("d", None), ("e", None)]


def test_metrics_by_hand(con) -> None:
    q1 = _one(
        con,
        """SELECT ndcg(rank, relevance, 10), "precision"(rank, relevance, 2),
                  precision_at_k(rank, relevance, 3), reciprocal_rank(rank, relevance),
                  average_precision(rank, relevance), bpref(rank, relevance),
                  recall(rank, relevance, k := 1), r_precision(rank, relevance),
                  iprec_at_recall(rank, relevance, 0.5), num_ret(rank), num_rel(relevance),
                  num_rel_ret(rank, relevance), hits(rank, relevance),
                  num_nonrel_judged_ret(rank, relevance), judged(rank, relevance, k := 3),
                  unjudged(rank, relevance, 5), dcg(rank, relevance),
                  ideal_dcg(relevance, k := 1), ndcg(rank, relevance, 2, gain := 'exponential'),
                  "precision"(rank, relevance, 2, relevance_level := 2)
           FROM judge('run', 'qrels') WHERE query = 'q1'""",
    )
    log2_3 = math.log2(3)
    dcg = 1 + 2 / log2_3  # a (grade 1) at rank 1, c (grade 2) at rank 2
    idcg = 2 + 1 / log2_3 + 1 / 2  # grades 2, 1, 1 at ranks 1, 2, 3
    expected = [
        dcg / idcg,  # nDCG@10 = 0.7224
        2 / 2,  # P@2: a and c
        2 / 3,  # P@3
        1.0,  # RR: a at rank 1
        (1 / 1 + 2 / 2) / 3,  # AP: R = 3 (a, c, e)
        (1 + 1) / 3,  # bpref: no judged non-relevant (d) above a or c
        1 / 3,  # R@1
        2 / 3,  # Rprec: a, c in the top 3
        1.0,  # IPrec@0.5: c = floor(0.5 * 3 + 0.5) = 2; precision at c is 2/2
        4.0,
        3.0,
        2.0,
        2.0,  # NumRet, NumRel, NumRelRet, Hits
        1.0,  # d judged 0 and retrieved
        2 / 3,  # Judged@3: a, c judged, b not
        (4 - 3) / 5,  # unj@5: 4 shown, 3 judged (a, c, d)
        dcg,
        2.0,  # IDCG@1: the grade-2 document
        (1 + 3 / log2_3) / (3 + 1 / log2_3),  # exponential gains 2^g - 1: 1, 3 vs ideal 3, 1
        1 / 2,  # P(rel=2)@2: only c
    ]
    assert q1 == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_query_missing_from_the_run_scores_zero(con) -> None:
    q3 = _one(
        con,
        "SELECT ndcg(rank, relevance), average_precision(rank, relevance), num_ret(rank), "
        "num_rel(relevance), eleven_pt_avg(rank, relevance), set_f(rank, relevance) "
        "FROM judge('run', 'qrels') WHERE query = 'q3'",
    )
    assert q3 == (0.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def test_standard_metrics_by_hand(con) -> None:
    rows = con.sql(
        "SELECT query, ndcg_10, ap, num_ret FROM standard_metrics('run', 'qrels')"
    ).fetchall()
    dcg, idcg = 1 + 2 / math.log2(3), 2 + 1 / math.log2(3) + 1 / 2
    assert [r[0] for r in rows] == ["q1", "q3"]
    assert rows[0][1:] == pytest.approx((dcg / idcg, 2 / 3, 4.0), rel=1e-12)
    assert rows[1][1:] == (0.0, 0.0, 0.0)
    mean = _one(con, "SELECT avg(ndcg_10) FROM standard_metrics('run', 'qrels')")[0]
    assert mean == pytest.approx(dcg / idcg / 2, rel=1e-12)  # q2 has no judgments: left out


def test_bad_parameters_fail(con) -> None:
    with pytest.raises(duckdb.Error, match="gain must be"):
        con.sql(
            "SELECT ndcg(rank, relevance, gain := 'cubic') FROM judge('run', 'qrels')"
        ).fetchall()
    with pytest.raises(duckdb.Error, match="denominator must be"):
        con.sql(
            "SELECT average_precision(rank, relevance, k := 3, denominator := 'k') "
            "FROM judge('run', 'qrels')"
        ).fetchall()


def test_register_and_paths() -> None:
    assert prd.sql_path().read_text() == SQL_FILE.read_text()
    assert prd.sql_paths()[0].name == "ranking.sql"
    con = prd.register(duckdb.connect())
    prd.register(con)  # twice is harmless
    assert con.sql(
        "SELECT reciprocal_rank(r, g) FROM (VALUES (1, 0), (2, 1)) t(r, g)"
    ).fetchall() == [(0.5,)]
    with pytest.raises(FileNotFoundError):
        prd.sql_path("nothing.sql")


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs_and_qrels())
def test_table_macros_match_the_package(data) -> None:
    run, qrels = data
    run = run.drop("rank")
    con = duckdb.connect()
    con.execute(SQL_FILE.read_text(encoding="utf-8"))
    con.register("run", run)
    con.register("qrels", qrels)
    ours = con.sql("SELECT query, doc, rank, relevance FROM judge('run', 'qrels')").pl()
    expected = pr.judge(run, qrels)
    keys = ["query", "doc"]
    assert_same(
        expected.with_columns(pl.col("rank").cast(pl.Int64)).sort(keys),
        ours.with_columns(pl.col("relevance").cast(pl.Int64)).sort(keys),
    )
    standard = con.sql("SELECT * FROM standard_metrics('run', 'qrels')").pl()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = pr.evaluate(run, qrels, list(STANDARD.values()), per_query=True)
    assert_same(expected, standard.rename(STANDARD))


# --------------------------------------------------------------------------------------------
# sql/trec_eval.sql: trec_eval's other measures, loaded after ranking.sql

TREC_SQL_FILE = SQL_FILE.parent / "trec_eval.sql"

#: metric name for evaluate -> the same metric as a macro call over the judged table
TREC_MACROS = {
    "relstring": "relevance_string(rank, relevance)",
    "relstring(length=3)": "relevance_string(rank, relevance, length := 3)",
    "infAP": "inferred_ap(rank, relevance)",
    "yaap(rel=2)": "yaap(rank, relevance, relevance_level := 2)",
    "Rprec_mult(multiple=0.5)": "r_precision_multiple(rank, relevance, multiple := 0.5)",
    "utility(coefficients=[2,-1,-1,0.5],collection_size=10)": (
        "utility(rank, relevance, coefficients := [2, -1, -1, 0.5], collection_size := 10)"
    ),
    "11pt_avg(points=[0.5,0.2,1])": "eleven_pt_avg(rank, relevance, points := [0.5, 0.2, 1.0])",
    "binG": "binary_g(rank, relevance)",
    "G(gains={1:3,2:9})": "normalized_gain(rank, relevance, gains := MAP {1: 3.0::DOUBLE, 2: 9})",
    "ndcg_rel": "ndcg_rel(rank, relevance)",
    "Rndcg(gains={0:-1,-2:2})": "r_ndcg(rank, relevance, gains := MAP {0: -1.0::DOUBLE, -2: 2})",
    "set_relative_P": "set_relative_precision(rank, relevance)",
    "SetAP": "set_average_precision(rank, relevance)",
    "trec_rbp(gains={2:1,3:0.5})": (
        "trec_rbp(rank, relevance, gains := MAP {2: 1.0::DOUBLE, 3: 0.5})"
    ),
    "trec_rbp_resid(p=0.8)": "trec_rbp_residual(rank, relevance, p := 0.8)",
    "nDCG(gains={0:-1,-2:2})@3": "ndcg(rank, relevance, 3, gains := MAP {0: -1.0::DOUBLE, -2: 2})",
}


@pytest.fixture()
def trec_con(con):
    """The fixture's connection with sql/trec_eval.sql loaded after ranking.sql."""
    con.execute(TREC_SQL_FILE.read_text(encoding="utf-8"))
    return con


def test_trec_eval_macros_by_hand(trec_con) -> None:
    """q1 judged: a rank 1 grade 1, c rank 2 grade 2, b rank 3 unjudged, d rank 4 grade 0,
    e not retrieved grade 1; R = 3 (a, c, e)."""
    got = _one(
        trec_con,
        """SELECT relevance_string(rank, relevance), inferred_ap(rank, relevance),
                  set_relative_precision(rank, relevance), set_average_precision(rank, relevance),
                  utility(rank, relevance),
                  utility(rank, relevance, coefficients := [2, -1, -1, 0.5],
                          collection_size := 10),
                  binary_g(rank, relevance), r_precision_multiple(rank, relevance, multiple := 2),
                  yaap(rank, relevance), trec_rbp(rank, relevance),
                  trec_rbp_residual(rank, relevance),
                  ndcg(rank, relevance, gains := MAP {2: 5.0::DOUBLE})
           FROM judge('run', 'qrels') WHERE query = 'q1'""",
    )
    eps = 1e-5
    log2_3 = math.log2(3)
    expected = [
        "12-0",  # grades 1, 2, unjudged, 0
        (1 + 1 / 2 + (1 / 2) * (1 / 1) * ((1 + eps) / (1 + 2 * eps))) / 3,  # infAP
        2 / 3,  # 2 relevant retrieved / min(4 retrieved, R = 3)
        2 * 2 / (4 * 3),  # set_map
        1 * 2 - 1 * 2,  # utility: 2 relevant and 2 other retrieved
        2 * 2 - 1 * 2 - 1 * 1 + 0.5 * (10 + 2 - 4 - 3),  # 3.5
        (1 / math.log2(2) + 1 / math.log2(2)) / 3,  # binG: no non-relevant above a or c
        2 / 6,  # Rprec_mult 2: c = ⌊2·3 + 0.9⌋ = 6
        math.log((1 + 2) / (1 + 3 - 2)),  # yaap: S = 1/1 + 2/2
        0.1 * (0.5 + 0.9 * 1.0),  # rbp: top grade 2, gains divided by 2
        1 - 0.1 * (1 + 0.9 + 0.9**3),  # rbp_resid: b unjudged at rank 3
        (1 + 5 / log2_3) / (5 + 1 / log2_3 + 1 / 2),  # ndcg with grade 2 gaining 5
    ]
    assert got[0] == expected[0]
    assert got[1:] == pytest.approx(expected[1:], rel=1e-12, abs=1e-12)


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs_and_qrels())
def test_trec_eval_macros_on_the_full_judged_table_match_the_package(data) -> None:
    """The macros over judge()'s full table (every retrieved document) give the Polars
    engine's values, which read the compact table (judged rows + one row per query)."""
    run, qrels = data
    run = run.drop("rank")
    con = duckdb.connect()
    con.execute(SQL_FILE.read_text(encoding="utf-8"))
    con.execute(TREC_SQL_FILE.read_text(encoding="utf-8"))
    con.register("run", run)
    con.register("qrels", qrels)
    calls = ", ".join(f'{call} AS "{name}"' for name, call in TREC_MACROS.items())
    ours = con.sql(
        f"SELECT query, {calls} FROM judge('run', 'qrels') "
        "GROUP BY query HAVING count(relevance) > 0 ORDER BY query"
    ).pl()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = pr.evaluate(run, qrels, list(TREC_MACROS), per_query=True)
    assert_same(expected, ours)
