"""Hand-worked cases, with the arithmetic in comments.

Every numeric case is checked twice: through ``pr.evaluate`` with metric names, and through the
expressions applied directly to ``pr.judge(...)`` with ``group_by("query").agg(...)``.
"""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest

import polars_rank as pr

TOL = 1e-12


def make_run(rows, id_type=pl.String) -> pl.DataFrame:
    """rows: (query, doc, score)."""
    return pl.DataFrame(
        rows, schema={"query": id_type, "doc": id_type, "score": pl.Float64}, orient="row"
    )


def make_qrels(rows, id_type=pl.String) -> pl.DataFrame:
    """rows: (query, doc, relevance)."""
    return pl.DataFrame(
        rows, schema={"query": id_type, "doc": id_type, "relevance": pl.Int64}, orient="row"
    )


def ranked_run(query, docs, id_type=pl.String) -> list[tuple]:
    """Rows giving ``docs`` in that order (distinct, descending scores)."""
    return [(query, d, float(len(docs) - i)) for i, d in enumerate(docs)]


def check_both_ways(run, qrels, cases: dict[str, tuple[pl.Expr, float]], *, places=None, **kw):
    """``cases``: metric name -> (expression, expected mean over queries).

    ``places``: compare rounded to that many decimals (for textbook values given to 4 places);
    otherwise to 1e-12.
    """
    names = list(cases)
    via_names = pr.evaluate(run, qrels, names, **kw).row(0, named=True)
    exprs = [expr.alias(name) for name, (expr, _) in cases.items()]
    per_query = pr.judge(run, qrels).group_by("query").agg(exprs)
    via_exprs = per_query.select(pl.col(n).mean() for n in names).row(0, named=True)
    for name, (_, expected) in cases.items():
        for how, got in (("evaluate", via_names[name]), ("judge+agg", via_exprs[name])):
            if places is None:
                assert abs(got - expected) <= TOL, (how, name, got, expected)
            else:
                assert round(got, places) == pytest.approx(expected, abs=1e-12), (
                    how,
                    name,
                    got,
                    expected,
                )


# ------------------------------------------------------------------------------------------
# small cases


def test_tie_broken_by_doc_id_descending():
    # a and b tie; ties go by doc id descending, so b (non-relevant) is rank 1, a rank 2.
    # RR = 1/2; P@1 = 0/1; AP = (1/2) / R = 0.5 with R = 1.
    run = make_run([("q", "a", 1.0), ("q", "b", 1.0)])
    qrels = make_qrels([("q", "a", 1), ("q", "b", 0)])
    check_both_ways(
        run,
        qrels,
        {
            "RR": (pr.reciprocal_rank(), 0.5),
            "P@1": (pr.precision(1), 0.0),
            "AP": (pr.average_precision(), 0.5),
        },
    )


def test_cutoffs_count_positions_not_retrieved_docs():
    # R = 2 (a, b); only a retrieved, at rank 1.
    # P@10 = 1/10; R@10 = 1/2; Rprec = relevant in top R=2 / 2 = 1/2; Success@10 = 1.
    run = make_run([("q", "a", 1.0)])
    qrels = make_qrels([("q", "a", 1), ("q", "b", 1)])
    check_both_ways(
        run,
        qrels,
        {
            "P@10": (pr.precision(10), 0.1),
            "R@10": (pr.recall(10), 0.5),
            "Rprec": (pr.r_precision(), 0.5),
            "Success@10": (pr.hit_rate(10), 1.0),
        },
    )


def test_ap_at_k_divides_by_r():
    # R = 4; run: relevant r1 at rank 1, then a non-relevant doc.
    # AP@1 = (1/1) / 4 = 0.25; AP@2 = AP@10 = 0.25 (no further relevant doc).
    run = make_run([("q", "r1", 2.0), ("q", "n", 1.0)])
    qrels = make_qrels([("q", f"r{i}", 1) for i in range(1, 5)] + [("q", "n", 0)])
    check_both_ways(
        run,
        qrels,
        {
            "AP@1": (pr.average_precision(1), 0.25),
            "AP@2": (pr.average_precision(2), 0.25),
            "AP@10": (pr.average_precision(10), 0.25),
        },
    )


def test_graded_ndcg_with_unretrieved_judged_docs():
    # qrels a3 b2 c1 d0 e2; run c d a x (scores 5 4 3 2), x unjudged.
    # DCG = 1/log2(2) + 0/log2(3) + 3/log2(4) + 0/log2(5) = 1 + 0 + 1.5 + 0 = 2.5
    # IDCG (gains 3 2 2 1 0 from all judged docs) = 3 + 2/log2(3) + 2/2 + 1/log2(5)
    #      = 3 + 1.2618595 + 1 + 0.4306766 = 5.6925361 → nDCG = 2.5 / 5.6925361 = 0.4392
    # nDCG@1 = 1 / 3 = 0.3333
    # nDCG@3 = 2.5 / (3 + 1.2618595 + 1) = 2.5 / 5.2618595 = 0.4751
    run = make_run([("q", "c", 5.0), ("q", "d", 4.0), ("q", "a", 3.0), ("q", "x", 2.0)])
    qrels = make_qrels([("q", "a", 3), ("q", "b", 2), ("q", "c", 1), ("q", "d", 0), ("q", "e", 2)])
    idcg = 3 + 2 / math.log2(3) + 2 / 2 + 1 / math.log2(5)
    idcg3 = 3 + 2 / math.log2(3) + 2 / 2
    cases = {
        "nDCG": (pr.ndcg(), 2.5 / idcg),
        "nDCG@1": (pr.ndcg(1), 1 / 3),
        "nDCG@3": (pr.ndcg(3), 2.5 / idcg3),
    }
    check_both_ways(run, qrels, cases)
    check_both_ways(
        run,
        qrels,
        {
            "nDCG": (pr.ndcg(), 0.4392),
            "nDCG@1": (pr.ndcg(1), 0.3333),
            "nDCG@3": (pr.ndcg(3), 0.4751),
        },
        places=4,
    )


def test_query_judged_all_zero_scores_zero_and_counts():
    # q1: a relevant at rank 1 → AP 1, P@1 1, nDCG 1. q2: every judgment 0 → R = 0 → all 0.
    # Means over 2 queries: 0.5.
    run = make_run([("q1", "a", 1.0), ("q2", "a", 1.0), ("q2", "b", 0.5)])
    qrels = make_qrels([("q1", "a", 1), ("q2", "a", 0), ("q2", "b", 0)])
    check_both_ways(
        run,
        qrels,
        {
            "AP": (pr.average_precision(), 0.5),
            "P@1": (pr.precision(1), 0.5),
            "nDCG": (pr.ndcg(), 0.5),
            "RR": (pr.reciprocal_rank(), 0.5),
            "bpref": (pr.bpref(), 0.5),
        },
    )
    per_query = pr.evaluate(run, qrels, ["AP", "NumRel"], per_query=True)
    assert per_query.rows() == [("q1", 1.0, 1.0), ("q2", 0.0, 0.0)]


def test_query_judged_all_negative_scores_zero_and_counts():
    # Negative grades are judged but never relevant: q2 is a judged query with R = 0.
    # q1: AP 1; q2: AP 0 → mean 0.5. q2 retrieves 2 docs, none judged non-relevant.
    run = make_run([("q1", "a", 1.0), ("q2", "a", 1.0), ("q2", "b", 0.5)])
    qrels = make_qrels([("q1", "a", 1), ("q2", "a", -1), ("q2", "b", -2)])
    check_both_ways(
        run,
        qrels,
        {
            "AP": (pr.average_precision(), 0.5),
            "bpref": (pr.bpref(), 0.5),
            "nDCG": (pr.ndcg(), 0.5),
        },
    )
    per_query = pr.evaluate(
        run, qrels, ["AP", "NumRet", "num_nonrel_judged_ret", "Judged@2"], per_query=True
    )
    # q2: Judged@2 = 2 judged (negative counts as judged) / 2 = 1.
    assert per_query.rows() == [("q1", 1.0, 1.0, 0.0, 1.0), ("q2", 0.0, 2.0, 0.0, 1.0)]


# ------------------------------------------------------------------------------------------
# textbook examples


def test_mrr_at_5_textbook():
    # first relevant at ranks 2, 1, 5 → (1/2 + 1/1 + 1/5) / 3 = 1.7 / 3 = 0.5667
    def query(q, first_relevant_rank):
        docs = [f"{q}d{i}" for i in range(1, 7)]
        relevant = [] if first_relevant_rank is None else [docs[first_relevant_rank - 1]]
        run = ranked_run(q, docs)
        qrels = [(q, d, 1 if d in relevant else 0) for d in docs]
        if not relevant:
            qrels.append((q, f"{q}unretrieved", 1))
        return run, qrels

    run, qrels = [], []
    for q, first in (("a", 2), ("b", 1), ("c", 5)):
        r, j = query(q, first)
        run += r
        qrels += j
    check_both_ways(make_run(run), make_qrels(qrels), {"MRR@5": (pr.reciprocal_rank(5), 1.7 / 3)})
    check_both_ways(
        make_run(run), make_qrels(qrels), {"MRR@5": (pr.reciprocal_rank(5), 0.5667)}, places=4
    )
    # ranks 1, 2, 5, none → (1 + 1/2 + 1/5 + 0) / 4 = 1.7 / 4 = 0.425
    run, qrels = [], []
    for q, first in (("a", 1), ("b", 2), ("c", 5), ("d", None)):
        r, j = query(q, first)
        run += r
        qrels += j
    check_both_ways(make_run(run), make_qrels(qrels), {"MRR@5": (pr.reciprocal_rank(5), 0.425)})
    # a first relevant document at rank 6 is outside the cutoff: RR@5 = 0 but RR = 1/6.
    r, j = query("e", 6)
    check_both_ways(
        make_run(r),
        make_qrels(j),
        {"RR@5": (pr.reciprocal_rank(5), 0.0), "RR": (pr.reciprocal_rank(), 1 / 6)},
    )


def test_ndcg_at_5_textbook_linear_and_exponential():
    # Retrieved in order, judged 3 2 3 0 1.
    # linear: DCG = 3 + 2/log2(3) + 3/2 + 0 + 1/log2(6) = 3 + 1.26186 + 1.5 + 0.38685 = 6.14871
    #         IDCG (3 3 2 1 0) = 3 + 3/log2(3) + 2/2 + 1/log2(5) = 3 + 1.89279 + 1 + 0.43068
    #         = 6.32347 → 0.9724
    # exponential (2^g − 1 = 7 3 7 0 1): DCG = 7 + 3/log2(3) + 7/2 + 0 + 1/log2(6) = 12.77964
    #         IDCG (7 7 3 1 0) = 7 + 7/log2(3) + 3/2 + 1/log2(5) = 13.34719 → 0.9575
    docs = ["d1", "d2", "d3", "d4", "d5"]
    run = make_run(ranked_run("q", docs))
    qrels = make_qrels(list(zip(["q"] * 5, docs, [3, 2, 3, 0, 1], strict=True)))
    lin = (3 + 2 / math.log2(3) + 3 / 2 + 1 / math.log2(6)) / (
        3 + 3 / math.log2(3) + 2 / 2 + 1 / math.log2(5)
    )
    exp = (7 + 3 / math.log2(3) + 7 / 2 + 1 / math.log2(6)) / (
        7 + 7 / math.log2(3) + 3 / 2 + 1 / math.log2(5)
    )
    check_both_ways(
        run,
        qrels,
        {
            "nDCG@5": (pr.ndcg(5), lin),
            "ndcg_burges@5": (pr.ndcg(5, gain="exponential"), exp),
        },
    )
    check_both_ways(
        run,
        qrels,
        {
            "nDCG@5": (pr.ndcg(5), 0.9724),
            "ndcg_burges@5": (pr.ndcg(5, gain="exponential"), 0.9575),
        },
        places=4,
    )


def test_ap_at_6_textbook():
    # 1 0 0 1 0 1, R = 3: (1/1 + 2/4 + 3/6) / 3 = 2/3 = 0.6667
    # 0 1 0 0 1 0, R = 2: (1/2 + 2/5) / 2 = 0.45
    # 1 1 0 1 0 0, R = 3: (1/1 + 2/2 + 3/4) / 3 = 0.9167
    # mean: (0.6667 + 0.45 + 0.9167) / 3 = 0.6778
    patterns = {"a": [1, 0, 0, 1, 0, 1], "b": [0, 1, 0, 0, 1, 0], "c": [1, 1, 0, 1, 0, 0]}
    expected = {"a": 2 / 3, "b": 0.45, "c": 2.75 / 3}
    run, qrels = [], []
    for q, labels in patterns.items():
        docs = [f"{q}{i}" for i in range(6)]
        run += ranked_run(q, docs)
        qrels += [(q, d, g) for d, g in zip(docs, labels, strict=True)]
    run, qrels = make_run(run), make_qrels(qrels)
    for q, value in expected.items():
        check_both_ways(
            run.filter(pl.col("query") == q),
            qrels.filter(pl.col("query") == q),
            {"AP@6": (pr.average_precision(6), value)},
        )
    mean = sum(expected.values()) / 3
    check_both_ways(run, qrels, {"AP@6": (pr.average_precision(6), mean)})
    check_both_ways(run, qrels, {"AP@6": (pr.average_precision(6), 0.6778)}, places=4)


def test_hit_rate_at_3_textbook_with_integer_ids():
    # relevant {2} → ranked [1, 2, 5]: 2 at rank 2 → hit
    # relevant {3, 4} → [1, 5, 6]: no hit
    # relevant {4, 7} → [3, 7, 9]: 7 at rank 2 → hit      → HR@3 = 2/3 = 0.6667
    cases = {1: ({2}, [1, 2, 5]), 2: ({3, 4}, [1, 5, 6]), 3: ({4, 7}, [3, 7, 9])}
    run, qrels = [], []
    for q, (relevant, ranking) in cases.items():
        run += ranked_run(q, ranking)
        qrels += [(q, d, 1) for d in relevant]
    run, qrels = make_run(run, pl.Int64), make_qrels(qrels, pl.Int64)
    check_both_ways(run, qrels, {"HR@3": (pr.hit_rate(3), 2 / 3)})
    check_both_ways(run, qrels, {"HR@3": (pr.hit_rate(3), 0.6667)}, places=4)


@pytest.mark.parametrize(("found", "recall", "capped"), [(10, 0.5, 1.0), (5, 0.25, 0.5)])
def test_recall_vs_recall_cap(found, recall, capped):
    # 20 relevant; `found` of them in the top 10:
    # R@10 = found / 20; R_cap@10 = found / min(10, 20) = found / 10.
    relevant = [f"r{i}" for i in range(20)]
    top = relevant[:found] + [f"n{i}" for i in range(10 - found)]
    run = make_run(ranked_run("q", top + relevant[found:]))
    qrels = make_qrels([("q", d, 1) for d in relevant])
    check_both_ways(
        run,
        qrels,
        {"R@10": (pr.recall(10), recall), "Recall_cap@10": (pr.recall_cap(10), capped)},
    )


# ------------------------------------------------------------------------------------------
# ordering and options


def test_integer_doc_ids_tie_break_as_text():
    # 9 vs 10 tied: "9" > "10" as text, so 9 ranks first; 99 vs 100 tied: "99" > "100".
    run = make_run([(1, 10, 1.0), (1, 9, 1.0), (1, 100, 0.5), (1, 99, 0.5)], pl.Int64)
    judged = pr.judge(run, make_qrels([(1, 10, 1)], pl.Int64))
    assert judged.select("doc", "rank").rows() == [(9, 1), (10, 2), (99, 3), (100, 4)]
    # relevant 10 at rank 2 → RR 0.5; relevant 9 at rank 1 → RR 1; relevant 100 → RR 1/4.
    for relevant_doc, rr in ((10, 0.5), (9, 1.0), (100, 0.25), (99, 1 / 3)):
        qrels = make_qrels([(1, relevant_doc, 1)], pl.Int64)
        check_both_ways(run, qrels, {"RR": (pr.reciprocal_rank(), rr)})
    # the same with string ids
    run_s = run.with_columns(pl.col("query", "doc").cast(pl.String))
    qrels_s = make_qrels([("1", "10", 1)])
    check_both_ways(run_s, qrels_s, {"RR": (pr.reciprocal_rank(), 0.5)})


def test_negative_zero_ties_with_zero():
    # -0.0 and 0.0 tie, so the doc id decides: b before a.
    run = make_run([("q", "a", 0.0), ("q", "b", -0.0)])
    qrels = make_qrels([("q", "a", 1)])
    check_both_ways(run, qrels, {"RR": (pr.reciprocal_rank(), 0.5)})
    run = make_run([("q", "a", -0.0), ("q", "b", 0.0)])
    check_both_ways(run, qrels, {"RR": (pr.reciprocal_rank(), 0.5)})


def test_order_by_rank():
    # Scores say a, b, c; the rank column says c, b, a.
    run = pl.DataFrame(
        {"query": ["q"] * 3, "doc": ["a", "b", "c"], "score": [3.0, 2.0, 1.0], "rank": [3, 2, 1]}
    )
    qrels = make_qrels([("q", "c", 1)])
    # by score (default, the rank column is ignored): c at rank 3 → RR 1/3
    assert pr.evaluate(run, qrels, ["RR"]).item() == pytest.approx(1 / 3, abs=TOL)
    # by the given rank: c at rank 1 → RR 1
    assert pr.evaluate(run, qrels, ["RR"], order_by="rank").item() == 1.0
    judged = pr.judge(run, qrels, order_by="rank")
    assert judged.select("doc", "rank").rows() == [("c", 1), ("b", 2), ("a", 3)]
    # a run with only a rank column is ordered by it; tied ranks go by doc id descending:
    # b and c share rank 1 → c first, then b, then a.
    rank_only = pl.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "rank": [2, 1, 1]})
    judged = pr.judge(rank_only, make_qrels([("q", "b", 1)]))
    assert judged.select("doc", "rank").rows() == [("c", 1), ("b", 2), ("a", 3)]
    assert pr.evaluate(rank_only, make_qrels([("q", "b", 1)]), ["RR"]).item() == 0.5


def test_max_rank_cuts_the_run():
    # relevant doc at rank 4 of 5.
    docs = ["a", "b", "c", "r", "e"]
    run = make_run(ranked_run("q", docs))
    qrels = make_qrels([("q", "r", 1), ("q", "a", 0)])
    full = pr.evaluate(run, qrels, ["RR", "NumRet", "NumRelRet", "R@100"]).row(0)
    # RR 1/4; 5 retrieved; 1 relevant retrieved; recall 1.
    assert full == pytest.approx((0.25, 5.0, 1.0, 1.0), abs=TOL)
    cut = pr.evaluate(run, qrels, ["RR", "NumRet", "NumRelRet", "R@100"], max_rank=3).row(0)
    # top 3 only: a b c → RR 0, 3 retrieved, none relevant, recall 0.
    assert cut == (0.0, 3.0, 0.0, 0.0)
    judged = pr.judge(run, qrels, max_rank=3)
    assert judged.filter(pl.col("rank").is_not_null())["doc"].to_list() == ["a", "b", "c"]
    # the relevant doc is still in the judged table, unretrieved
    assert judged.filter(pl.col("doc") == "r")["rank"].to_list() == [None]


def test_queries_both_vs_qrels():
    # q1 retrieved and judged (AP 1); q2 judged but missing from the run; q3 only in the run.
    run = make_run([("q1", "a", 1.0), ("q3", "a", 1.0)])
    qrels = make_qrels([("q1", "a", 1), ("q2", "b", 1)])
    with pytest.warns(UserWarning, match="1 query in the run has no judgments"):
        default = pr.evaluate(run, qrels, ["AP", "NumQ"], per_query=True)
    # default ("qrels"): q1 → 1, q2 → 0; mean 0.5 over 2 queries
    assert default.rows() == [("q1", 1.0, 1.0), ("q2", 0.0, 1.0)]
    with pytest.warns(UserWarning):
        both = pr.evaluate(run, qrels, ["AP", "NumQ"], queries="both", per_query=True)
    assert both.rows() == [("q1", 1.0, 1.0)]
    with pytest.warns(UserWarning):
        assert pr.evaluate(run, qrels, ["AP", "NumQ"]).row(0) == (0.5, 2.0)
    with pytest.warns(UserWarning):
        assert pr.evaluate(run, qrels, ["AP", "NumQ"], queries="both").row(0) == (1.0, 1.0)


def test_per_query_output_shape():
    run = make_run([("q3", "a", 1.0), ("q1", "a", 1.0), ("q1", "b", 2.0), ("q2", "c", 1.0)])
    qrels = make_qrels([("q2", "c", 1), ("q3", "a", 0), ("q1", "a", 1)])
    out = pr.evaluate(run, qrels, ["P@1", "nDCG@10", "AP"], per_query=True)
    assert out.columns == ["query", "P@1", "nDCG@10", "AP"]
    assert out.schema["query"] == pl.String
    assert all(out.schema[c] == pl.Float64 for c in ["P@1", "nDCG@10", "AP"])
    assert out["query"].to_list() == ["q1", "q2", "q3"]
    # q1: b, a → a relevant at rank 2: P@1 0, AP 1/2; q2: c at 1 → 1, 1; q3: R = 0 → 0, 0.
    assert out.select("query", "P@1", "AP").rows() == [
        ("q1", 0.0, 0.5),
        ("q2", 1.0, 1.0),
        ("q3", 0.0, 0.0),
    ]
    summary = pr.evaluate(run, qrels, ["P@1", "nDCG@10", "AP"])
    assert summary.columns == ["P@1", "nDCG@10", "AP"]
    assert summary.height == 1
    assert summary["AP"].item() == pytest.approx(0.5, abs=TOL)  # (0.5 + 1 + 0) / 3
    # integer query ids stay integers and sort as numbers (q3 becomes 10: 1, 2, 10)
    as_int = pl.col("query").str.slice(1).cast(pl.Int64).replace(3, 10)
    out = pr.evaluate(run.with_columns(as_int), qrels.with_columns(as_int), ["AP"], per_query=True)
    assert out.schema["query"] == pl.Int64
    assert out.rows() == [(1, 0.5), (2, 1.0), (10, 0.0)]


def test_lazy_in_lazy_out_and_streaming():
    run = make_run(
        [("q1", "a", 1.0), ("q1", "b", 1.0), ("q1", "c", 0.5), ("q2", "a", 0.25), ("q2", "d", 0.75)]
    )
    qrels = make_qrels([("q1", "a", 2), ("q1", "c", 1), ("q2", "a", 1), ("q2", "x", 3)])
    metrics = ["nDCG@10", "AP", "RR", "P@2", "bpref", "NumRet", "gm_map", "11pt_avg"]
    eager = pr.evaluate(run, qrels, metrics, per_query=True)
    lazy = pr.evaluate(run.lazy(), qrels.lazy(), metrics, per_query=True)
    assert isinstance(eager, pl.DataFrame)
    assert isinstance(lazy, pl.LazyFrame)
    for engine in ("auto", "streaming", "in-memory"):
        got = lazy.collect(engine=engine)
        assert got.equals(eager), engine
    summary = pr.evaluate(run.lazy(), qrels.lazy(), metrics)
    assert isinstance(summary, pl.LazyFrame)
    assert summary.collect(engine="streaming").equals(pr.evaluate(run, qrels, metrics))
    judged = pr.judge(run.lazy(), qrels.lazy())
    assert isinstance(judged, pl.LazyFrame)
    assert judged.collect(engine="streaming").equals(pr.judge(run, qrels))
    # q1: b(rank 1, unjudged), a(2, grade 2), c(3, grade 1): RR = 1/2, AP = (1/2 + 2/3) / 2
    assert eager.row(0, named=True)["AP"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=TOL)


def test_warning_for_run_queries_without_judgments():
    run = make_run([("q1", "a", 1.0), ("q2", "a", 1.0), ("q3", "a", 1.0)])
    qrels = make_qrels([("q1", "a", 1)])
    with pytest.warns(UserWarning, match="2 queries in the run have no judgments"):
        pr.evaluate(run, qrels, ["AP"])
    with pytest.warns(UserWarning, match="1 query in the run has no judgments"):
        pr.evaluate(run.filter(pl.col("query") != "q3"), qrels, ["AP"])
    lazy = pr.evaluate(run.lazy(), qrels.lazy(), ["AP"])
    with pytest.warns(UserWarning, match="2 queries"):
        lazy.collect()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pr.evaluate(run.filter(pl.col("query") == "q1"), qrels, ["AP"])


# ------------------------------------------------------------------------------------------
# metric names


@pytest.fixture(scope="module")
def graded_data():
    """Three queries with graded labels, ties and unjudged docs, so the metrics below take
    non-trivial values."""
    run = make_run(
        [
            ("q1", "a", 0.9),
            ("q1", "b", 0.8),
            ("q1", "c", 0.8),
            ("q1", "d", 0.5),
            ("q1", "e", 0.4),
            ("q1", "f", 0.3),
            ("q1", "g", 0.2),
            ("q2", "a", 0.9),
            ("q2", "h", 0.7),
            ("q2", "i", 0.6),
            ("q2", "j", 0.5),
            ("q2", "k", 0.1),
            ("q2", "l", 0.05),
            ("q3", "m", 1.0),
            ("q3", "n", 1.0),
        ]
    )
    qrels = make_qrels(
        [
            ("q1", "a", 0),
            ("q1", "b", 2),
            ("q1", "c", 1),
            ("q1", "e", 3),
            ("q1", "z", 2),
            ("q2", "a", 1),
            ("q2", "i", 2),
            ("q2", "k", 0),
            ("q2", "y", 1),
            ("q3", "n", 2),
            ("q3", "o", 1),
            ("q3", "p", -1),
        ]
    )
    return run, qrels


NAME_GROUPS = [
    (["nDCG@10", "ndcg@10", "ndcg_cut.10", "ndcg_cut_10"], pr.ndcg(10)),
    (["RR@10", "mrr@10"], pr.reciprocal_rank(10)),
    (["AP", "map"], pr.average_precision()),
    (["P@5", "precision@5", "P_5", "P.5"], pr.precision(5)),
    (["R@100", "recall@100", "recall_100"], pr.recall(100)),
    (["Success@10", "hit_rate@10", "success_10"], pr.hit_rate(10)),
    (["Rprec", "r_precision"], pr.r_precision()),
    (["ndcg_burges@10", "nDCG(gain=exp)@10"], pr.ndcg(10, gain="exponential")),
    (["AP(denominator=min)@10"], pr.average_precision(10, denominator="min(k,R)")),
]


@pytest.mark.parametrize(("names", "expr"), NAME_GROUPS, ids=[g[0][0] for g in NAME_GROUPS])
def test_metric_name_aliases_agree(graded_data, names, expr):
    run, qrels = graded_data
    table = pr.evaluate(run, qrels, names, per_query=True)
    reference = (
        pr.judge(run, qrels).group_by("query").agg(expr.alias("value")).sort("query")["value"]
    )
    assert reference.max() > 0  # the dataset gives the metric something to measure
    for name in names:
        assert table[name].to_list() == pytest.approx(reference.to_list(), abs=TOL), name


def test_relevance_level_in_name_matches_argument(graded_data):
    run, qrels = graded_data
    by_name = pr.evaluate(run, qrels, ["P(rel=2)@5", "AP(rel=2)", "R(rel=2)@100"], per_query=True)
    by_arg = pr.evaluate(run, qrels, ["P@5", "AP", "R@100"], per_query=True, relevance_level=2)
    level1 = pr.evaluate(run, qrels, ["P@5", "AP", "R@100"], per_query=True)
    assert by_name.rows() == by_arg.rows()
    assert by_name.rows() != level1.rows()  # the level makes a difference on this data
    # Ordering q1: a(0.9) 1, then b and c tie at 0.8 and "c" > "b": c 2, b 3; d 4, e 5, f 6.
    # level 2 relevant: b(2), e(3), z(2, unretrieved) → R = 3; in top 5: b, e → P@5 = 2/5.
    # AP = (1/3 + 2/5) / 3.
    q1 = by_name.row(0, named=True)
    assert q1["P(rel=2)@5"] == pytest.approx(0.4, abs=TOL)
    assert q1["AP(rel=2)"] == pytest.approx((1 / 3 + 2 / 5) / 3, abs=TOL)
    assert q1["R(rel=2)@100"] == pytest.approx(2 / 3, abs=TOL)
    # a name's own level wins over the argument
    mixed = pr.evaluate(run, qrels, ["P(rel=2)@5", "P@5"], per_query=True, relevance_level=1)
    assert mixed["P(rel=2)@5"].to_list() == by_arg["P@5"].to_list()
    assert mixed["P@5"].to_list() == level1["P@5"].to_list()


def test_ap_min_denominator_differs_on_data(graded_data):
    # q1 at level 1: relevant b, c, e, z → R = 4; ranks c 2, b 3, e 5.
    # AP@3 over R = (1/2 + 2/3) / 4; over min(3, 4) = 3: (1/2 + 2/3) / 3.
    run, qrels = graded_data
    out = pr.evaluate(
        run, qrels, ["AP@3", "AP(denominator=min)@3", "AP(denominator=R)@3"], per_query=True
    ).row(0, named=True)
    assert out["AP@3"] == pytest.approx((1 / 2 + 2 / 3) / 4, abs=TOL)
    assert out["AP(denominator=R)@3"] == out["AP@3"]
    assert out["AP(denominator=min)@3"] == pytest.approx((1 / 2 + 2 / 3) / 3, abs=TOL)
