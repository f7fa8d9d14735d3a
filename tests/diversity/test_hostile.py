"""evaluate_diversity on hostile input: ties, empty runs, subtopics and queries without a
relevant document, bad columns and names; and the diversity qrels reader."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

import polars_rank as pr


def _qrels(rows: list[tuple[str, str, str, int]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["query", "subtopic", "doc", "relevance"], orient="row")


def _run(rows: list[tuple[str, str, float]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["query", "doc", "score"], orient="row")


def test_ties_are_broken_by_doc_id_descending() -> None:
    # a (relevant) and b tie: trec_eval's order puts b first, so a is at rank 2:
    # alpha-nDCG@5 = (1/log2 3) / (1/log2 2); ERR-IA@5 = (1/2) / (1 + .5/2 + .25/3 + .125/4
    # + .0625/5); subtopic recall@1 = 0
    run = _run([("q", "a", 1.0), ("q", "b", 1.0)])
    qrels = _qrels([("q", "1", "a", 1)])
    got = pr.evaluate_diversity(run, qrels, ["alpha_ndcg@5", "err_ia@5", "subtopic_recall@1"])
    norm = 1 + 0.5 / 2 + 0.25 / 3 + 0.125 / 4 + 0.0625 / 5
    assert got.row(0) == pytest.approx((1 / math.log2(3), 0.5 / norm, 0.0), rel=1e-12)


def test_a_subtopic_without_a_relevant_document_is_not_counted() -> None:
    # subtopic 2 has only a non-relevant judgment: N = 1, a covers subtopic 1 at rank 1
    run = _run([("q", "a", 2.0), ("q", "b", 1.0)])
    qrels = _qrels([("q", "1", "a", 1), ("q", "2", "b", 0)])
    got = pr.evaluate_diversity(run, qrels, ["subtopic_recall@5", "p_ia@5", "alpha_ndcg@5"])
    assert got.row(0) == pytest.approx((1.0, 1 / 5, 1.0), rel=1e-12)


def test_a_query_without_a_relevant_document_scores_zero() -> None:
    run = _run([("q", "a", 2.0), ("r", "a", 1.0)])
    qrels = _qrels([("q", "1", "a", 0), ("r", "1", "a", 1)])
    got = pr.evaluate_diversity(run, qrels, ["alpha_ndcg@5", "nnrbp", "nrbp"], per_query=True)
    # q: every metric 0 (ndeval: 0, NaN for nNRBP); r: a at rank 1, NRBP = 1 − (1 − α)β
    assert got.rows() == [("q", 0.0, 0.0, 0.0), ("r", 1.0, 1.0, 0.75)]


def test_an_empty_run_scores_zero_or_gives_nulls_with_both() -> None:
    run = _run([("q", "a", 1.0)]).clear()
    qrels = _qrels([("q", "1", "a", 1)])
    # queries="qrels": the judged query q is missing from the run and scores 0
    assert pr.evaluate_diversity(run, qrels, ["nrbp"], per_query=True).rows() == [("q", 0.0)]
    # queries="both": no query to evaluate, a null mean and no rows
    assert pr.evaluate_diversity(run, qrels, ["nrbp"], queries="both").rows() == [(None,)]
    both = pr.evaluate_diversity(run, qrels, ["nrbp"], per_query=True, queries="both")
    assert both.height == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"metrics": ["alpha_ndcg"]}, "needs a cutoff"),
        ({"metrics": ["nrbp@5"]}, "takes no cutoff"),
        ({"metrics": ["ndcg@5"]}, r"ranking metric \(ndcg\): evaluate / to_sql takes it, not eval"),
        ({"metrics": ["div@5"]}, "unknown metric 'div@5'; the diversity metrics are: alpha-DCG"),
        ({"metrics": ["p_ia@0"]}, "cutoff '0' is not a positive integer"),
        ({"alpha": 1.0}, "alpha must be in"),
        ({"beta": -0.1}, "beta must be in"),
        ({"subtopic": "intent"}, "column 'intent' not found in the qrels"),
        ({"per_query": "yes"}, "per_query must be True or False"),
        ({"queries": "run"}, "queries must be 'qrels' or 'both'"),
        ({"engine": "duckdb"}, "engine 'duckdb' does not implement evaluate_diversity: ndeval"),
        ({"engine": "spark"}, "engine 'spark' does not implement evaluate_diversity: ndeval"),
        ({"engine": "oracle"}, "engine must be"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs: dict[str, object], message: str) -> None:
    run = _run([("q", "a", 1.0)])
    qrels = _qrels([("q", "1", "a", 1)])
    with pytest.raises(pr.PolarsRankError, match=message):
        pr.evaluate_diversity(run, qrels, **kwargs)  # type: ignore[arg-type]


def test_duplicates_and_nulls_are_refused() -> None:
    qrels = _qrels([("q", "1", "a", 1)])
    with pytest.raises(pr.PolarsRankError, match=r"run have 1 \(query, doc\) rows more than"):
        pr.evaluate_diversity(_run([("q", "a", 1.0), ("q", "a", 2.0)]), qrels)
    with pytest.raises(pr.PolarsRankError, match="run column 'score' has 1 NULL"):
        pr.evaluate_diversity(pl.DataFrame({"query": ["q"], "doc": ["a"], "score": [None]}), qrels)
    with pytest.raises(pr.PolarsRankError, match=r"\(query, subtopic, doc\) rows more than"):
        pr.evaluate_diversity(_run([("q", "a", 1.0)]), pl.concat([qrels, qrels]))


def test_read_trec_qrels_keeps_the_subtopic_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("wt09-1 1 clueweb09-a 1\nwt09-1 2 clueweb09-a 0\n")
    assert pr.read_trec_qrels(path, subtopics=True).rows() == [
        ("wt09-1", "1", "clueweb09-a", 1),
        ("wt09-1", "2", "clueweb09-a", 0),
    ]
    assert pr.read_trec_qrels(path).columns == ["query", "doc", "relevance"]
