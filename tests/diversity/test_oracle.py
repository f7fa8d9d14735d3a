"""evaluate_diversity against pyndeval (ndeval.c, as ir_measures runs it) on random tie-free
runs: every metric, every query, within 1e-9."""

from __future__ import annotations

import math

import pytest

import polars_rank as pr
from tests.support.diversity import NDEVAL, ndeval_values, random_tables


@pytest.mark.parametrize(("seed", "alpha", "beta"), [(1, 0.5, 0.5), (2, 0.5, 0.5), (3, 0.3, 0.8)])
def test_per_query_equals_pyndeval(seed: int, alpha: float, beta: float) -> None:
    run, qrels = random_tables(seed)
    want = ndeval_values(run, qrels, alpha, beta)
    got = pr.evaluate_diversity(
        run, qrels, list(NDEVAL.values()), alpha=alpha, beta=beta, per_query=True, queries="both"
    )
    assert sorted(got["query"]) == sorted(want)  # the run's queries with judgments
    for row in got.iter_rows(named=True):
        for name, value in want[row["query"]].items():
            if math.isnan(value):  # nNRBP of a query without a relevant document
                assert name == "nnrbp" and row[name] == 0.0
                continue
            assert row[name] == pytest.approx(value, rel=1e-9, abs=1e-12), (row["query"], name)


@pytest.mark.parametrize("queries", ["qrels", "both"])
def test_mean_is_over_the_queries_rule(queries: str) -> None:
    # pyndeval evaluates the run's queries with judgments; "qrels" adds the judged query
    # missing from the run ("only_qrels") as a 0
    run, qrels = random_tables(4)
    want = ndeval_values(run, qrels)
    names = ["alpha-nDCG@20", "ERR-IA@20", "NRBP"]
    got = pr.evaluate_diversity(run, qrels, names, queries=queries)  # type: ignore[arg-type]
    extra = 1 if queries == "qrels" else 0
    for label, name in (("alpha-nDCG@20", "alpha_ndcg@20"), ("ERR-IA@20", "err_ia@20")):
        mean = sum(v[name] for v in want.values()) / (len(want) + extra)
        assert got[label].item() == pytest.approx(mean, rel=1e-9)


def test_mean_equals_ir_measures() -> None:
    # ir_measures runs pyndeval with its own run sorting; Qrel's fourth field is the subtopic
    import ir_measures
    from ir_measures import ERR_IA, NRBP, P_IA, StRecall, alpha_nDCG

    run, qrels = random_tables(5)
    judged = [
        ir_measures.Qrel(q, d, r, s)
        for q, s, d, r in qrels.select("query", "subtopic", "doc", "relevance").rows()
    ]
    scored = [ir_measures.ScoredDoc(q, d, s) for q, d, s in run.rows()]
    measures = [alpha_nDCG @ 20, ERR_IA @ 20, NRBP, P_IA @ 10, StRecall @ 10]
    want = ir_measures.calc_aggregate(measures, judged, scored)
    names = ["alpha_ndcg@20", "err_ia@20", "nrbp", "p_ia@10", "subtopic_recall@10"]
    got = pr.evaluate_diversity(run, qrels, names).row(0)
    for measure, value in zip(measures, got, strict=True):
        assert value == pytest.approx(want[measure], rel=1e-9), str(measure)
    # ir_measures' own spellings name the same metrics (the catalog's aliases)
    spelled = [str(m) for m in measures]
    assert spelled == ["alpha_nDCG@20", "ERR_IA@20", "NRBP", "P_IA@10", "StRecall@10"]
    assert pr.evaluate_diversity(run, qrels, spelled).row(0) == got
