"""The ranking measures torchmetrics has and trec_eval lacks: fall-out@k and the per-query ROC
AUC, worked by hand and against torchmetrics' definitions (``retrieval_fall_out``, re-implemented
below from its source; ``retrieval_auroc``, which is scikit-learn's ``roc_auc_score`` over the
top k), on the Polars and DuckDB engines and the compiled SQL on DuckDB. PostgreSQL and Spark
run them with every other portable ranking metric (``tests/support/sql_cases.METRICS``)."""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl
import pytest

import polars_rank as pr

ENGINES = ["polars", "duckdb"]


def _frames(
    run_rows: list[tuple[str, str, float]], qrels_rows: list[tuple[str, str, int]]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    run = pl.DataFrame(run_rows, schema=["query", "doc", "score"], orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=["query", "doc", "relevance"], orient="row")
    return run, qrels


def _compiled(run: pl.DataFrame, qrels: pl.DataFrame, metrics: list[str]) -> pl.DataFrame:
    con = duckdb.connect()
    con.register("run", run.to_arrow())
    con.register("qrels", qrels.to_arrow())
    sql = pr.to_sql(metrics, "duckdb", "run", "qrels", per_query=True)
    out = con.sql(sql).pl()
    return out.rename(dict(zip(out.columns, ["query", *metrics], strict=True))).sort("query")


def _per_query(
    engine: str, run: pl.DataFrame, qrels: pl.DataFrame, metrics: list[str]
) -> pl.DataFrame:
    """Per-query values, sorted by query: ``engine``'s, or (``"sql"``) ``to_sql``'s on DuckDB."""
    if engine == "sql":
        return _compiled(run, qrels, metrics)
    return pr.evaluate(run, qrels, metrics, per_query=True, engine=engine).sort("query")


@pytest.mark.parametrize("engine", [*ENGINES, "sql"])
def test_fallout_by_hand(engine: str) -> None:
    """q1 ranks d1 (grade 0), d2 (2), d3 (unjudged), d4 (-1), d5 (0); its judgments also hold
    d6 (0), not retrieved, so its judged non-relevant documents are d1, d5, d6: N = 3 (d4's
    negative grade and the unjudged d3 count on neither side).
    fallout@1 = 1/3 (d1); fallout@4 = 1/3 (d1; d3 and d4 not counted); fallout = 2/3 (d1, d5).
    q2 has no judged non-relevant document (N = 0): 0 at every k, as torchmetrics'
    ``retrieval_fall_out``. With relevance_level 3, grades 1 and 2 are non-relevant too: q1's
    N = 4 (d1, d2, d5, d6), fallout@2 = 2/4 (d1, d2); q2's N = 1 (a, at rank 1): 1/1."""
    run, qrels = _frames(
        [("q1", "d1", 5.0), ("q1", "d2", 4.0), ("q1", "d3", 3.0), ("q1", "d4", 2.0)]
        + [("q1", "d5", 1.0), ("q2", "a", 2.0), ("q2", "b", 1.0)],
        [("q1", "d1", 0), ("q1", "d2", 2), ("q1", "d4", -1), ("q1", "d5", 0), ("q1", "d6", 0)]
        + [("q2", "a", 1)],
    )
    metrics = ["fallout@1", "fallout@4", "fallout", "FallOut@2"]
    got = _per_query(engine, run, qrels, metrics)
    assert got.rows() == [("q1", 1 / 3, 1 / 3, 2 / 3, 1 / 3), ("q2", 0.0, 0.0, 0.0, 0.0)]
    if engine != "sql":
        level3 = pr.evaluate(
            run, qrels, ["fallout@2"], per_query=True, engine=engine, relevance_level=3
        )
        assert level3.sort("query")["fallout@2"].to_list() == [2 / 4, 1 / 1]
        summary = pr.evaluate(run, qrels, ["fallout"], engine=engine)
        assert summary.item() == pytest.approx((2 / 3 + 0.0) / 2, rel=1e-15)  # the mean


def _torchmetrics_fall_out(preds: np.ndarray, target: np.ndarray, top_k: int | None) -> float:
    """torchmetrics' ``retrieval_fall_out(preds, target, top_k)``, step for step: the
    non-relevant targets are ``1 - target``; none gives 0; else those among the top_k by
    descending prediction over all of them."""
    top_k = preds.shape[-1] if top_k is None else top_k
    negative = 1 - target
    if not negative.sum():
        return 0.0
    return float(negative[np.argsort(-preds, kind="stable")][:top_k].sum() / negative.sum())


@pytest.mark.parametrize("engine", [*ENGINES, "sql"])
def test_fallout_is_torchmetrics_retrieval_fall_out(engine: str) -> None:
    """Random queries where every retrieved document is judged 0 or 1 (torchmetrics has no
    unjudged documents) and no other is, with tie-free scores: per query, fall-out@k is
    ``retrieval_fall_out(preds, target, top_k=k)`` within 1e-12."""
    rng = np.random.default_rng(7)
    run_rows, qrels_rows, cases = [], [], {}
    for q in range(40):
        size = int(rng.integers(1, 12))
        preds = rng.permutation(size).astype(np.float64) + rng.random()  # distinct scores
        target = (rng.random(size) < rng.random()).astype(np.int64)
        query = f"q{q:02d}"
        cases[query] = (preds, target)
        for i in range(size):
            run_rows.append((query, f"d{i}", float(preds[i])))
            qrels_rows.append((query, f"d{i}", int(target[i])))
    run, qrels = _frames(run_rows, qrels_rows)
    ks = [1, 3, 5, None]
    metrics = [f"fallout@{k}" if k else "fallout" for k in ks]
    got = _per_query(engine, run, qrels, metrics)
    assert got.height == 40
    for row in got.iter_rows(named=True):
        preds, target = cases[row["query"]]
        for k, name in zip(ks, metrics, strict=True):
            assert row[name] == pytest.approx(
                _torchmetrics_fall_out(preds, target, k), rel=1e-12, abs=1e-15
            ), (row["query"], name)


def test_fallout_is_lower_is_better_and_takes_no_other_parameter() -> None:
    from polars_rank.catalog.names import parse_metric

    entry = parse_metric("fallout@10").entry
    assert entry.higher_is_better is False and entry.value_range == (0.0, 1.0)
    with pytest.raises(pr.PolarsRankError):
        parse_metric("fallout(p=0.5)@10")


@pytest.mark.parametrize("engine", [*ENGINES, "sql"])
def test_query_auc_by_hand(engine: str) -> None:
    """q1 ranks d1 (grade 0), d2 (2), d3 (unjudged), d4 (1), d5 (0); d6 (1) is judged and not
    retrieved (not counted). Relevant: d2 and d4; others: d1, d3, d5.
    query_auc (all 5): P = 2, M = 3, the ranks 2 + 4: (6 − (6 − 3)) / 6 = 1/2 (d2 beats d3
    and d5, d4 beats d5: 3 of 6 pairs). query_auc@3: d2 against d1 and d3: P = 1, M = 2,
    (2 − (2 − 1)) / 2 = 1/2. query_auc@4: d2, d4 against d1, d3: (4 − (6 − 3)) / 4 = 1/4.
    query_auc@1: only d1, no relevant: 0. q2 retrieves a (relevant) above b (unjudged): 1,
    except @1 (a alone: no pair, 0); q3 retrieves only relevant documents: no pair, 0
    (torchmetrics: 0)."""
    run, qrels = _frames(
        [("q1", "d1", 5.0), ("q1", "d2", 4.0), ("q1", "d3", 3.0), ("q1", "d4", 2.0)]
        + [("q1", "d5", 1.0), ("q2", "a", 2.0), ("q2", "b", 1.0), ("q3", "x", 1.0)],
        [("q1", "d1", 0), ("q1", "d2", 2), ("q1", "d4", 1), ("q1", "d5", 0), ("q1", "d6", 1)]
        + [("q2", "a", 1), ("q3", "x", 1)],
    )
    metrics = ["query_auc", "query_auc@3", "query_auc@4", "RetrievalAUROC@1"]
    got = _per_query(engine, run, qrels, metrics)
    assert got.rows() == [
        ("q1", 1 / 2, 1 / 2, 1 / 4, 0.0),
        ("q2", 1.0, 1.0, 1.0, 0.0),
        ("q3", 0.0, 0.0, 0.0, 0.0),
    ]


@pytest.mark.parametrize("engine", [*ENGINES, "sql"])
def test_query_auc_is_roc_auc_score_of_the_top_k(engine: str) -> None:
    """Random queries with tie-free scores, judged 0 or 1 or unjudged (an unjudged document is
    a negative, as trec_eval's convention), and relevant documents that were not retrieved:
    per query, query_auc@k is torchmetrics' ``retrieval_auroc(preds, target, top_k=k)``, i.e.
    scikit-learn's ``roc_auc_score`` over the top k when it holds both kinds, else 0; within
    1e-12."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(11)
    run_rows, qrels_rows, cases = [], [], {}
    for q in range(40):
        size = int(rng.integers(1, 14))
        preds = rng.permutation(size).astype(np.float64) + rng.random()
        grade = rng.integers(-1, 2, size)  # -1: unjudged
        query = f"q{q:02d}"
        cases[query] = (preds, (grade == 1).astype(np.int64))
        for i in range(size):
            run_rows.append((query, f"d{i}", float(preds[i])))
            if grade[i] >= 0:
                qrels_rows.append((query, f"d{i}", int(grade[i])))
        qrels_rows.append((query, "missed", 1))  # relevant, never retrieved
    run, qrels = _frames(run_rows, qrels_rows)
    ks = [2, 5, None]
    metrics = [f"query_auc@{k}" if k else "query_auc" for k in ks]
    got = _per_query(engine, run, qrels, metrics)
    assert got.height == 40
    both = 0
    for row in got.iter_rows(named=True):
        preds, target = cases[row["query"]]
        order = np.argsort(-preds)
        for k, name in zip(ks, metrics, strict=True):
            top = order[: len(preds) if k is None else k]
            labels = target[top]
            if 0 in labels and 1 in labels:
                expected = roc_auc_score(labels, preds[top])
                both += 1
            else:
                expected = 0.0
            assert row[name] == pytest.approx(expected, rel=1e-12, abs=1e-15), (row, name)
    assert both > 40  # most cases have both kinds


@pytest.mark.parametrize("engine", [*ENGINES, "sql"])
def test_query_auc_breaks_score_ties_by_doc_id(engine: str) -> None:
    """a (relevant) and b (not) tie at 1.0: the package's order puts b first (ties by doc id
    descending), so the one pair is lost: 0, where ``roc_auc_score([1, 0], [1.0, 1.0])``
    counts the tie 1/2."""
    run, qrels = _frames([("q1", "a", 1.0), ("q1", "b", 1.0)], [("q1", "a", 1), ("q1", "b", 0)])
    got = _per_query(engine, run, qrels, ["query_auc"])
    assert got["query_auc"].to_list() == [0.0]
