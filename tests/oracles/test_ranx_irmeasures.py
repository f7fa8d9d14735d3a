"""Property tests against ranx and ir_measures for metrics pytrec_eval does not have.

* ranx: ``f1@k`` / ``f1``, ``precision`` / ``P`` without a cutoff, ``hit_rate@k``,
  ``hits@k`` / ``hits``, ``mrr@k`` (RR with a cutoff), ``map@k`` (AP@k over R),
  ``ndcg_burges@k`` (exponential gain 2^rel − 1).
* ir_measures' own ``Judged@k`` provider, and its ``NumRet(rel=N)``.
* AP@k over min(k, R) and R_cap@k (ranx has neither) against a plain Python reference.

ranx sorts with an unstable argsort and ir_measures' Judged sorts by (-score, doc id ascending),
both unlike trec_eval on ties, so every query here has distinct scores.
"""

from __future__ import annotations

import warnings

import ir_measures
import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_measures import Judged, NumRelRet, NumRet

import polars_rank as pr
from tests.support.strategies import examples

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from ranx import evaluate as ranx_evaluate

TOL = 1e-12
CUTOFFS = (1, 2, 3, 5, 10)
DOCS = [f"d{i}" for i in range(14)] + ["9", "10", "x"]
GRADES = [-1, 0, 0, 1, 1, 2, 3]


@st.composite
def datasets(draw):
    """``(run, qrels)`` dicts with the same queries, in the same order, distinct scores."""
    run: dict = {}
    qrels: dict = {}
    for i in range(draw(st.integers(1, 4))):
        qid = f"q{i}"
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=12, unique=True))
        scores = draw(
            st.lists(st.integers(-50, 50), min_size=len(docs), max_size=len(docs), unique=True)
        )
        run[qid] = {d: s / 4 for d, s in zip(docs, scores, strict=True)}
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        qrels[qid] = {d: draw(st.sampled_from(GRADES)) for d in judged}
    return run, qrels


def frames(run: dict, qrels: dict) -> tuple[pl.DataFrame, pl.DataFrame]:
    run_df = pl.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        schema={"query": pl.String, "doc": pl.String, "score": pl.Float64},
        orient="row",
    )
    qrels_df = pl.DataFrame(
        [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()],
        schema={"query": pl.String, "doc": pl.String, "relevance": pl.Int64},
        orient="row",
    )
    return run_df, qrels_df


def ours(run: dict, qrels: dict, metrics: list[str], relevance_level: int = 1) -> dict:
    run_df, qrels_df = frames(run, qrels)
    table = pr.evaluate(
        run_df,
        qrels_df,
        metrics,
        per_query=True,
        queries="both",
        relevance_level=relevance_level,
    )
    return {row["query"]: row for row in table.iter_rows(named=True)}


def ranx_values(run: dict, qrels: dict, metrics: list[str]) -> dict:
    # ranx's evaluate mishandles a single metric with return_mean=False; always ask for two.
    asked = list(metrics) if len(metrics) > 1 else [*metrics, "f1" if "hits" in metrics else "hits"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = ranx_evaluate(qrels, run, asked, return_mean=False)
    queries = list(run)
    return {m: dict(zip(queries, map(float, v), strict=True)) for m, v in values.items()}


def ranked(run_docs: dict) -> list[str]:
    """Doc ids by score descending (scores are distinct here)."""
    return [d for d, _ in sorted(run_docs.items(), key=lambda item: -item[1])]


SETTINGS = settings(
    max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@SETTINGS
@given(data=datasets(), relevance_level=st.sampled_from([1, 2]))
def test_binary_metrics_match_ranx(data, relevance_level):
    run, qrels = data
    suffix = "" if relevance_level == 1 else f"-l{relevance_level}"
    pairs = {}  # our name -> ranx name
    for k in CUTOFFS:
        pairs[f"F1@{k}"] = f"f1@{k}"
        pairs[f"HR@{k}"] = f"hit_rate@{k}"
        pairs[f"Success@{k}"] = f"hit_rate@{k}"
        pairs[f"hits@{k}"] = f"hits@{k}"
        pairs[f"RR@{k}"] = f"mrr@{k}"
        pairs[f"AP@{k}"] = f"map@{k}"
    pairs["f1"] = "f1"
    pairs["precision"] = "precision"  # no cutoff: relevant retrieved / retrieved
    pairs["P"] = "precision"
    pairs["hits"] = "hits"
    pairs["MRR"] = "mrr"
    pairs["AP"] = "map"
    theirs = ranx_values(run, qrels, sorted({v + suffix for v in pairs.values()}))
    mine = ours(run, qrels, list(pairs), relevance_level)
    assert set(mine) == set(run)
    for qid in run:
        for our_name, ranx_name in pairs.items():
            expected = theirs[ranx_name + suffix][qid]
            got = mine[qid][our_name]
            assert abs(got - expected) <= TOL, (qid, our_name, got, ranx_name, expected)


@SETTINGS
@given(data=datasets())
def test_exponential_gain_ndcg_matches_ranx_ndcg_burges(data):
    """ranx builds the ideal ranking from the qrels it is given; grades 0 and below give no
    gain (2^0 − 1 = 0, and ours clamps negatives to 0), so its ideal equals ours."""
    run, qrels = data
    pairs = {}
    for k in CUTOFFS:
        pairs[f"ndcg_burges@{k}"] = f"ndcg_burges@{k}"
        pairs[f"nDCG(gain=exp)@{k}"] = f"ndcg_burges@{k}"
    pairs["ndcg_burges"] = "ndcg_burges"
    pairs["nDCG(gain=exp)"] = "ndcg_burges"
    theirs = ranx_values(run, qrels, sorted(set(pairs.values())))
    mine = ours(run, qrels, list(pairs))
    for qid in run:
        for our_name, ranx_name in pairs.items():
            expected = theirs[ranx_name][qid]
            got = mine[qid][our_name]
            assert abs(got - expected) <= TOL, (qid, our_name, got, expected)


@SETTINGS
@given(data=datasets())
def test_numret_with_rel_matches_ir_measures(data):
    """ir_measures' NumRet(rel=N) counts the retrieved documents with grade >= N (its
    NumRelRet is NumRet(rel=1)); NumRet without rel counts every retrieved document, whatever
    the evaluation's relevance level. Its provider (pytrec_eval) gives 0 for every measure of a
    query without a relevant judgment (trec_eval leaves such queries out), so those queries are
    not compared."""
    run, qrels = data
    compared = [q for q in run if any(g >= 1 for g in qrels[q].values())]
    measures = [NumRet, NumRet(rel=1), NumRet(rel=2), NumRet(rel=3), NumRelRet]
    theirs = {
        (m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)
    }
    names = ["NumRet", "NumRet(rel=1)", "NumRet(rel=2)", "NumRet(rel=3)", "NumRelRet"]
    for level in (1, 2):
        mine = ours(run, qrels, names, relevance_level=level)
        for qid in compared:
            for name, measure in zip(names, measures, strict=True):
                expected = theirs[(qid, str(measure))]
                got = mine[qid][name]
                if name == "NumRelRet" and level == 2:  # NumRelRet follows the level
                    expected = theirs[(qid, str(NumRet(rel=2)))]
                assert got == expected, (qid, name, level, got, expected)


@SETTINGS
@given(data=datasets())
def test_judged_matches_ir_measures(data):
    run, qrels = data
    measures = [Judged @ k for k in CUTOFFS] + [Judged]
    theirs = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.judged.iter_calc(measures, qrels, run)
    }
    names = [f"Judged@{k}" for k in CUTOFFS] + ["Judged"]
    mine = ours(run, qrels, names)
    for qid in run:
        for name, measure in zip(names, measures, strict=True):
            expected = theirs[(qid, str(measure))]
            got = mine[qid][name]
            assert abs(got - expected) <= TOL, (qid, name, got, expected)


def reference_ap_min(ranking: list[str], grades: dict, k: int, level: int) -> float:
    """Σ over relevant docs at rank i ≤ k of (relevant in top i) / i, over min(k, R)."""
    big_r = sum(1 for g in grades.values() if g >= level)
    if big_r == 0:
        return 0.0
    found, total = 0, 0.0
    for i, doc in enumerate(ranking[:k], start=1):
        if grades.get(doc, -1) >= level:
            found += 1
            total += found / i
    return total / min(k, big_r)


def reference_recall_cap(ranking: list[str], grades: dict, k: int, level: int) -> float:
    big_r = sum(1 for g in grades.values() if g >= level)
    if big_r == 0:
        return 0.0
    hits = sum(1 for doc in ranking[:k] if grades.get(doc, -1) >= level)
    return hits / min(k, big_r)


@SETTINGS
@given(data=datasets(), relevance_level=st.sampled_from([1, 2]))
def test_ap_min_denominator_and_recall_cap_match_reference(data, relevance_level):
    run, qrels = data
    names = []
    for k in CUTOFFS:
        names += [f"AP(denominator=min)@{k}", f"Rcap@{k}", f"recall_cap@{k}"]
    mine = ours(run, qrels, names, relevance_level)
    for qid in run:
        ranking = ranked(run[qid])
        for k in CUTOFFS:
            expected = reference_ap_min(ranking, qrels[qid], k, relevance_level)
            got = mine[qid][f"AP(denominator=min)@{k}"]
            assert abs(got - expected) <= TOL, (qid, k, got, expected)
            expected = reference_recall_cap(ranking, qrels[qid], k, relevance_level)
            for name in (f"Rcap@{k}", f"recall_cap@{k}"):
                assert abs(mine[qid][name] - expected) <= TOL, (qid, name, expected)


def test_ap_min_denominator_differs_from_ranx_map_at_k():
    """R = 4, relevant at ranks 1 and 2 of 2: ranx map@2 = (1 + 1) / 4 = 0.5 (over R);
    AP(denominator=min)@2 = (1 + 1) / min(2, 4) = 1.0."""
    run = {"q": {"a": 2.0, "b": 1.0}}
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 1}}
    theirs = ranx_values(run, qrels, ["map@2"])["map@2"]["q"]
    mine = ours(run, qrels, ["AP@2", "AP(denominator=min)@2"])["q"]
    assert theirs == 0.5
    assert mine["AP@2"] == theirs
    assert mine["AP(denominator=min)@2"] == 1.0
