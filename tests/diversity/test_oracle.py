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
        run, qrels, list(NDEVAL.values()), alpha=alpha, beta=beta, per_query=True
    )
    assert sorted(got["query"]) == sorted(want)  # the run's queries with judgments
    for row in got.iter_rows(named=True):
        for name, value in want[row["query"]].items():
            if math.isnan(value):  # nNRBP of a query without a relevant document
                assert name == "nnrbp" and row[name] == 0.0
                continue
            assert row[name] == pytest.approx(value, rel=1e-9, abs=1e-12), (row["query"], name)


def test_mean_is_over_the_run_queries_with_judgments() -> None:
    run, qrels = random_tables(4)
    want = ndeval_values(run, qrels)
    got = pr.evaluate_diversity(run, qrels, ["alpha-nDCG@20", "ERR-IA@20", "NRBP"])
    for label, name in (("alpha-nDCG@20", "alpha_ndcg@20"), ("ERR-IA@20", "err_ia@20")):
        mean = sum(v[name] for v in want.values()) / len(want)
        assert got[label].item() == pytest.approx(mean, rel=1e-9)
