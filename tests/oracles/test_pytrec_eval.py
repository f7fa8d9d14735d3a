"""Property tests against pytrec_eval-terrier (trec_eval compiled into Python).

Random runs and qrels with heavy score ties (scores on a grid of multiples of 0.25, so that
pytrec_eval's parsing of scores keeps the ties exact), string and integer document ids, graded,
zero and negative labels, unjudged retrieved documents, queries only in the run, queries only
in the qrels, queries with no relevant documents, and relevance levels 1, 2 and 3.

pytrec_eval evaluates only the queries present in both the run and the qrels, so our side uses
``queries="both"`` and the comparison is per query (and on the summary row).
"""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from tests.support.strategies import examples

TOL = 1e-12
CUTOFFS = (1, 3, 5, 10)
RECALL_LEVELS = (
    "0.00",
    "0.10",
    "0.20",
    "0.30",
    "0.40",
    "0.50",
    "0.60",
    "0.70",
    "0.80",
    "0.90",
    "1.00",
)

# pytrec_eval measure requests -> the keys it returns (which are also our metric names).
PYTREC_MEASURES = {
    "map",
    "map_cut." + ",".join(map(str, CUTOFFS)),
    "P." + ",".join(map(str, CUTOFFS)),
    "recall." + ",".join(map(str, CUTOFFS)),
    "ndcg",
    "ndcg_cut." + ",".join(map(str, CUTOFFS)),
    "Rprec",
    "bpref",
    "recip_rank",
    "success." + ",".join(map(str, CUTOFFS)),
    "set_P",
    "set_recall",
    "set_F",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "relative_P." + ",".join(map(str, CUTOFFS)),
    "num_nonrel_judged_ret",
    "gm_map",
    "iprec_at_recall",
    "11pt_avg",
}

EXACT_METRICS = [
    "map",
    "ndcg",
    "Rprec",
    "bpref",
    "recip_rank",
    "set_P",
    "set_recall",
    "set_F",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    *[
        f"{name}_{k}"
        for name in ("map_cut", "P", "recall", "ndcg_cut", "success", "relative_P")
        for k in CUTOFFS
    ],
]
IPREC_METRICS = [f"iprec_at_recall_{level}" for level in RECALL_LEVELS]
SUM_METRICS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
OUR_METRICS = [*EXACT_METRICS, "gm_map", *IPREC_METRICS, "11pt_avg"]

# Score grid: multiples of 0.25 (exact in binary), negative scores and -0.0 (ties with 0.0).
SCORES = [-1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0]
GRADES = [-1, 0, 0, 1, 1, 2, 3]
# Ids whose text order differs from any numeric or case-folded order.
STR_DOCS = ["a", "b", "c", "d", "e", "f", "9", "10", "100", "d1", "d10", "D2", "Z", "zz", "é"]
INT_DOCS = [-10, -1, 0, 1, 2, 3, 5, 8, 9, 10, 11, 19, 20, 99, 100, 101, 1000]


@st.composite
def datasets(draw, int_ids: bool):
    """``(run, qrels)`` as ``{query: {doc: value}}`` with native (str or int) ids; the first
    query is in both, so neither is empty (an empty input is an error, tested apart)."""
    universe = INT_DOCS if int_ids else STR_DOCS
    run: dict = {}
    qrels: dict = {}
    n_queries = draw(st.integers(1, 5))
    for i in range(n_queries):
        qid = 7 * i + 3 if int_ids else f"q{i}"
        kinds = ["both", "both", "both", "both", "run_only", "qrels_only"]
        kind = "both" if i == 0 else draw(st.sampled_from(kinds))
        if kind != "qrels_only":
            docs = draw(st.lists(st.sampled_from(universe), min_size=1, max_size=12, unique=True))
            run[qid] = {d: draw(st.sampled_from(SCORES)) for d in docs}
        if kind != "run_only":
            docs = draw(st.lists(st.sampled_from(universe), min_size=1, max_size=10, unique=True))
            grades = [draw(st.sampled_from(GRADES)) for _ in docs]
            if max(grades) < 0:
                # pytrec_eval-terrier crashes (SIGSEGV) on a query whose judgments are all
                # negative when bpref is requested with other measures; such queries are
                # tested by hand in tests/ranking/test_hand_cases.py.
                grades[0] = 0
            qrels[qid] = dict(zip(docs, grades, strict=True))
    return run, qrels


def to_frames(
    run: dict, qrels: dict, int_ids: bool, id_type: pl.DataType | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    if id_type is None:
        id_type = pl.Int64 if int_ids else pl.String
    run_df = pl.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        schema={"query": id_type, "doc": id_type, "score": pl.Float64},
        orient="row",
    )
    qrels_df = pl.DataFrame(
        [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()],
        schema={"query": id_type, "doc": id_type, "relevance": pl.Int64},
        orient="row",
    )
    return run_df, qrels_df


def to_pytrec(nested: dict) -> dict:
    return {str(q): {str(d): v for d, v in docs.items()} for q, docs in nested.items()}


def pytrec_values(run: dict, qrels: dict, relevance_level: int) -> dict:
    evaluator = pytrec_eval.RelevanceEvaluator(
        to_pytrec(qrels), PYTREC_MEASURES, relevance_level=relevance_level
    )
    return evaluator.evaluate(to_pytrec(run))


def lround(x: float) -> int:
    """C's lround for x >= 0: halves away from zero."""
    floor = math.floor(x)
    return floor + (1 if x - floor >= 0.5 else 0)


def iprec_roundings_agree(level: str, num_rel: float, num_rel_ret: float) -> bool:
    """True when trec_eval 9.x's ⌊p·R + 0.9⌋ and 10.0's lround(p·R) pick the same relevant
    document (a count of 0 acts as 1), or both ask for more relevant documents than were
    retrieved (value 0 either way)."""
    p = float(level)
    old = max(int(p * num_rel + 0.9), 1)
    new = max(lround(p * num_rel), 1)
    return old == new or min(old, new) > num_rel_ret


def ours_per_query(run_df, qrels_df, relevance_level: int) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = pr.evaluate(
            run_df,
            qrels_df,
            OUR_METRICS,
            per_query=True,
            queries="both",
            relevance_level=relevance_level,
        )
    return {str(row["query"]): row for row in table.iter_rows(named=True)}


def ours_from_judged_table(run_df, qrels_df, relevance_level: int) -> dict:
    """The same metrics built from the expressions on the full judged table."""
    judged = pr.judge(run_df, qrels_df)
    exprs = [pr.parse_metric(m).expr(relevance_level=relevance_level) for m in OUR_METRICS]
    in_both = judged.group_by("query").agg(
        pl.col("rank").is_not_null().any().alias("__in_run"),
        pl.col("relevance").is_not_null().any().alias("__judged"),
        *exprs,
    )
    in_both = in_both.filter(pl.col("__in_run") & pl.col("__judged"))
    return {str(row["query"]): row for row in in_both.iter_rows(named=True)}


def assert_close(ours: float, theirs: float, what: str) -> None:
    assert abs(ours - theirs) <= TOL, f"{what}: ours {ours!r} pytrec_eval {theirs!r}"


def check_against_pytrec(
    run: dict, qrels: dict, int_ids: bool, relevance_level: int, id_type=None
) -> None:
    run_df, qrels_df = to_frames(run, qrels, int_ids, id_type)
    theirs = pytrec_values(run, qrels, relevance_level)
    ours = ours_per_query(run_df, qrels_df, relevance_level)
    from_table = ours_from_judged_table(run_df, qrels_df, relevance_level)
    assert set(ours) == set(theirs)
    assert set(from_table) == set(theirs)

    for qid, their_row in theirs.items():
        for row, path in ((ours[qid], "evaluate"), (from_table[qid], "judge+agg")):
            for metric in EXACT_METRICS:
                assert_close(row[metric], their_row[metric], f"{path} {metric} query {qid}")
            # gm_map's per-query value is AP; pytrec_eval reports ln(max(AP, 1e-5)).
            assert_close(
                row["gm_map"],
                their_row["map"],
                f"{path} gm_map per query {qid}",
            )
            assert_close(
                math.log(max(row["gm_map"], 1e-5)), their_row["gm_map"], f"{path} ln gm_map {qid}"
            )
            agree = [
                iprec_roundings_agree(level, their_row["num_rel"], their_row["num_rel_ret"])
                for level in RECALL_LEVELS
            ]
            for level, ok in zip(RECALL_LEVELS, agree, strict=True):
                metric = f"iprec_at_recall_{level}"
                if ok:
                    assert_close(row[metric], their_row[metric], f"{path} {metric} query {qid}")
            if all(agree):
                assert_close(row["11pt_avg"], their_row["11pt_avg"], f"{path} 11pt_avg {qid}")

    # The summary row: means (sums for counts, geometric mean for gm_map) over the same queries.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summary = pr.evaluate(
            run_df,
            qrels_df,
            [*EXACT_METRICS, "gm_map"],
            queries="both",
            relevance_level=relevance_level,
        ).row(0, named=True)
    if not theirs:
        return
    n = len(theirs)
    for metric in EXACT_METRICS:
        values = [row[metric] for row in theirs.values()]
        expected = sum(values) if metric in SUM_METRICS else sum(values) / n
        assert abs(summary[metric] - expected) <= TOL, (metric, summary[metric], expected)
    expected_gm = math.exp(sum(row["gm_map"] for row in theirs.values()) / n)
    assert abs(summary["gm_map"] - expected_gm) <= TOL, (summary["gm_map"], expected_gm)


SETTINGS = settings(
    max_examples=examples(80),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(data=datasets(int_ids=False), relevance_level=st.sampled_from([1, 2, 3]))
def test_matches_pytrec_eval_string_ids(data, relevance_level):
    run, qrels = data
    check_against_pytrec(run, qrels, int_ids=False, relevance_level=relevance_level)


@SETTINGS
@given(data=datasets(int_ids=True), relevance_level=st.sampled_from([1, 2, 3]))
def test_matches_pytrec_eval_integer_ids(data, relevance_level):
    """Integer ids on our side (Int64 columns), their text on pytrec_eval's: ties are broken by
    the id as text, descending, so doc 9 ranks above doc 10 when they tie."""
    run, qrels = data
    check_against_pytrec(run, qrels, int_ids=True, relevance_level=relevance_level)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(int_ids=False), relevance_level=st.sampled_from([1, 2]))
def test_matches_pytrec_eval_categorical_ids(data, relevance_level):
    """Categorical query and doc ids: ties are still broken by the id text."""
    run, qrels = data
    check_against_pytrec(
        run, qrels, int_ids=False, relevance_level=relevance_level, id_type=pl.Categorical
    )


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(int_ids=True))
def test_lazy_streaming_gives_the_same_numbers(data):
    """The numbers checked against pytrec_eval above come out bit for bit the same from
    LazyFrame input collected with the streaming engine."""
    run, qrels = data
    run_df, qrels_df = to_frames(run, qrels, int_ids=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eager = pr.evaluate(run_df, qrels_df, OUR_METRICS, per_query=True)
        lazy = pr.evaluate(run_df.lazy(), qrels_df.lazy(), OUR_METRICS, per_query=True)
        streamed = lazy.collect(engine="streaming")
    assert streamed.equals(eager)


@settings(max_examples=examples(40), deadline=None)
@given(
    ranks_of_relevant=st.lists(st.integers(1, 25), min_size=1, max_size=10, unique=True),
    total=st.sampled_from([10, 20]),
)
def test_eleven_point_average_where_roundings_agree(ranks_of_relevant, total):
    """11pt_avg when R is a multiple of 10, where p·R is a whole number for every recall level,
    so trec_eval 9.x's ⌊p·R + 0.9⌋ and 10.0's lround(p·R) agree at all eleven levels."""
    retrieved = set(ranks_of_relevant)  # at most 10 of the R relevant documents
    relevant_docs = [f"r{i}" for i in range(total)]
    run = {"q": {}}
    rel_iter = iter(relevant_docs)
    last = max(retrieved)
    for position in range(1, last + 1):
        doc = next(rel_iter) if position in retrieved else f"n{position}"
        run["q"][doc] = float(1000 - position)
    qrels = {"q": {d: 1 for d in relevant_docs}}
    qrels["q"].update({f"n{p}": 0 for p in range(1, last + 1, 2)})
    run_df, qrels_df = to_frames(run, qrels, int_ids=False)
    theirs = pytrec_values(run, qrels, 1)["q"]
    ours = pr.evaluate(run_df, qrels_df, ["11pt_avg", *IPREC_METRICS]).row(0, named=True)
    for metric in ["11pt_avg", *IPREC_METRICS]:
        assert_close(ours[metric], theirs[metric], metric)


def test_pytrec_eval_iprec_uses_the_old_rounding():
    """Documents the difference: R = 4, relevant at ranks 1, 5, 6, 7.

    Precision at the relevant ranks: 1/1, 2/5, 3/6, 4/7.
    Recall level 0.3: p·R = 1.2. trec_eval 10.0: lround(1.2) = 1 → the highest precision at or
    after the 1st relevant document = 1.0. trec_eval 9.x (and pytrec_eval-terrier):
    ⌊1.2 + 0.9⌋ = 2 → highest precision at or after the 2nd = max(2/5, 3/6, 4/7) = 4/7.
    """
    run = {"q": {"r1": 10.0, "n1": 9.0, "n2": 8.0, "n3": 7.0, "r2": 6.0, "r3": 5.0, "r4": 1.0}}
    qrels = {"q": {"r1": 1, "r2": 1, "r3": 1, "r4": 1}}
    theirs = pytrec_values(run, qrels, 1)["q"]
    assert theirs["iprec_at_recall_0.30"] == pytest.approx(4 / 7, abs=TOL)
    run_df, qrels_df = to_frames(run, qrels, int_ids=False)
    ours = pr.evaluate(run_df, qrels_df, ["iprec_at_recall_0.30", "IPrec@0.2"]).row(0)
    assert ours[0] == pytest.approx(1.0, abs=TOL)
    # 0.2 · 4 = 0.8: lround → 1 and ⌊1.7⌋ = 1 agree → 1.0 in both.
    assert ours[1] == pytest.approx(theirs["iprec_at_recall_0.20"], abs=TOL) == 1.0


def test_query_missing_from_run_scores_zero_under_qrels_default():
    """pytrec_eval cannot express a judged query missing from the run; by hand: q2 has a
    relevant document but no run rows, so with ``queries="qrels"`` it counts with 0, and with
    ``queries="both"`` it is left out (the pytrec_eval numbers are those of q1 alone)."""
    run = {"q1": {"a": 1.0, "b": 0.5}}
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
    run_df, qrels_df = to_frames(run, qrels, int_ids=False)
    theirs = pytrec_values(run, qrels, 1)
    assert set(theirs) == {"q1"}
    metrics = ["map", "P_1", "recip_rank", "ndcg", "num_rel", "num_ret", "num_rel_ret"]
    both = pr.evaluate(run_df, qrels_df, metrics, queries="both").row(0, named=True)
    for metric in metrics:
        assert_close(both[metric], theirs["q1"][metric], metric)
    default = pr.evaluate(run_df, qrels_df, metrics).row(0, named=True)
    # q1: AP 1, P@1 1, RR 1, nDCG 1; q2: all 0 → means 0.5; counts summed: R = 1 + 1.
    assert default["map"] == default["P_1"] == default["recip_rank"] == default["ndcg"] == 0.5
    assert default["num_rel"] == 2.0
    assert default["num_ret"] == 2.0
    assert default["num_rel_ret"] == 1.0
    per_query = pr.evaluate(run_df, qrels_df, metrics, per_query=True)
    assert per_query["query"].to_list() == ["q1", "q2"]
    q2 = per_query.row(1, named=True)
    assert [q2[m] for m in metrics] == [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
