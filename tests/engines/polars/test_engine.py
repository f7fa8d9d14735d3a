"""The Polars engine's shortcuts give the numbers of the plain definitions.

* Ratio metrics (nDCG, AP, recall, ...) are aggregated in two parts and divided after the
  ``group_by`` (``Metric.ratio``): the same bits as the metric's own expression.
* Judged documents are ranked by counting the rows above them, and their tied rows only when
  a tie exists: the ranks of trec_eval's order, worked out by hand.
* Run rows are tested against the hashes of the judged pairs (and of the tied judged
  documents' ``(query, score)``) before the exact joins: a hash collision only lets a row
  through, it never changes a number.
"""

from __future__ import annotations

import random
import warnings
from unittest import mock

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rank as pr
from polars_rank.catalog.names import parse_metric
from polars_rank.catalog.registry import REGISTRY
from polars_rank.core import judged
from polars_rank.core.options import Options
from tests.support.strategies import examples, runs_and_qrels

# every metric with two parts, with its parameters varied
RATIO_METRICS = [
    "nDCG", "nDCG@5", "nDCG(gain=exponential)@10", "nDCG(gains={1:3,2:9})@10", "AP", "AP@10",
    "AP(denominator=min)@10", "AP(rel=2)", "R@10", "R", "R(rel=3)@20", "R_cap@5", "Rprec",
    "Rprec(rel=2)", "gm_map",
]  # fmt: skip


def _random_inputs(seed: int, id_type=pl.String) -> tuple[pl.DataFrame, pl.DataFrame]:
    """40 queries, up to 40 retrieved and 30 judged documents each (many not retrieved),
    scores with ties (and -0.0), grades -1..4, one query without judgments."""
    rng = random.Random(seed)
    rows, judgments = [], []
    for q in range(40):
        for d in rng.sample(range(80), rng.randint(1, 40)):
            rows.append((q, d, rng.choice([-0.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0])))
        if q == 39:
            continue
        for d in rng.sample(range(80), rng.randint(1, 30)):
            judgments.append((q, d, rng.choice([-1, 0, 1, 2, 3, 4])))
    schema = {"query": pl.Int64, "doc": pl.Int64}
    run = pl.DataFrame(rows, schema={**schema, "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(judgments, schema={**schema, "relevance": pl.Int64}, orient="row")
    ids = [pl.col("query").cast(id_type), pl.col("doc").cast(id_type)]
    return run.with_columns(ids), qrels.with_columns(ids)


def test_every_ratio_metric_is_listed():
    """The test below covers every registry metric that has two parts."""
    with_parts = {name for name, entry in REGISTRY.items() if entry.ratio is not None}
    assert with_parts == {parse_metric(name).metric for name in RATIO_METRICS}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ratio_metrics_in_two_parts_give_the_expressions_bits(seed):
    """``evaluate`` divides the two parts after the group_by; each metric's own expression
    (one ``safe_div`` inside the aggregation) over the same judged table gives the same
    numbers to the last bit, for every query."""
    run, qrels = _random_inputs(seed)
    specs = [parse_metric(name) for name in RATIO_METRICS]
    options = Options().resolve(run.schema, qrels.schema)
    table = judged.compact_table(run.lazy(), qrels.lazy(), options, in_memory=True)
    expected = (
        table.group_by("query")
        .agg(spec.expr(relevance_level=1) for spec in specs)
        .filter(pl.col("query").is_in(qrels["query"].implode()))
        .sort("query")
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the query without judgments
        got = pr.evaluate(run, qrels, RATIO_METRICS, per_query=True)
    assert got.columns == ["query", *[spec.label for spec in specs]]
    assert got.height == 39
    assert got.equals(expected), [c for c in got.columns if not got[c].equals(expected[c])]


@pytest.mark.parametrize("id_type", [pl.String, pl.Int64])
def test_ranks_of_judged_documents_with_and_without_ties(id_type):
    """Query t: a 2.0; c, b, 9, 10 tie at 1.0; d 0.5. trec_eval's order breaks the tie by
    doc id descending as text ("c" > "b" > "9" > "10", also for integer ids: "9" > "10"),
    so the ranks are a 1, c 2, b 3, 9 4, 10 5, d 6; judged b, 10 and d rank 3, 5, 6.
    Query u has no tie (scores 3, 2, 1): its judged documents rank by score alone, 1 and 3.
    With integer ids the tie at 1.0 is among 13, 12, 10 and 9, in text order 9, 13, 12, 10.
    """
    if id_type == pl.String:
        t = [("t", "a", 2.0), ("t", "c", 1.0), ("t", "b", 1.0), ("t", "10", 1.0)]
        t += [("t", "9", 1.0), ("t", "d", 0.5)]
        u = [("u", "x", 3.0), ("u", "y", 2.0), ("u", "z", 1.0)]
        judgments = [("t", "b", 1), ("t", "10", 2), ("t", "d", 1), ("u", "x", 1), ("u", "z", 1)]
        # a 1, c 2, b 3, 9 4, 10 5, d 6
        expected = {("t", "b"): 3, ("t", "10"): 5, ("t", "d"): 6, ("u", "x"): 1, ("u", "z"): 3}
    else:
        # the tie at 1.0 among 13, 12, 10, 9 in text order: "9" > "13" > "12" > "10"
        t = [(1, 11, 2.0), (1, 13, 1.0), (1, 12, 1.0), (1, 10, 1.0), (1, 9, 1.0), (1, 14, 0.5)]
        u = [(2, 21, 3.0), (2, 22, 2.0), (2, 23, 1.0)]
        judgments = [(1, 12, 1), (1, 10, 2), (1, 14, 1), (2, 21, 1), (2, 23, 1)]
        # 11 1, 9 2, 13 3, 12 4, 10 5, 14 6
        expected = {(1, 12): 4, (1, 10): 5, (1, 14): 6, (2, 21): 1, (2, 23): 3}
    run = pl.DataFrame(t + u, schema=["query", "doc", "score"], orient="row")
    qrels = pl.DataFrame(judgments, schema=["query", "doc", "relevance"], orient="row")
    options = Options().resolve(run.schema, qrels.schema)
    table = judged.compact_table(run.lazy(), qrels.lazy(), options, in_memory=True)
    ranks = {(q, d): r for q, d, r, _ in table.filter(pl.col("doc").is_not_null()).rows()}
    assert ranks == expected
    # the row standing for the unjudged documents carries the number retrieved
    sizes = dict(table.filter(pl.col("doc").is_null()).select("query", "rank").rows())
    assert sizes == {run["query"][0]: 6, run["query"][6]: 3}


@pytest.mark.parametrize("id_type", [pl.String, pl.Int64])
def test_hash_collisions_never_change_a_number(id_type):
    """With pair hashes that collide all the time (the query's hash alone, or a constant:
    every run row passes the test), the exact joins still keep only judged pairs and, for
    the tie-break, only tied rows: every per-query value equals the one with the real
    hashes."""
    run, qrels = _random_inputs(5, id_type)
    names = ["nDCG@10", "AP", "R@20", "P@5", "RR", "bpref", "NumRelRet", "NumRet"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = pr.evaluate(run, qrels, names, per_query=True)
        for weak in (pl.col("query").hash(seed=1), pl.lit(0, pl.UInt64)):
            with (
                mock.patch.object(judged, "pair_hash", lambda cols, weak=weak: weak),
                mock.patch.object(judged, "_tie_hash", lambda query, weak=weak: weak),
            ):
                assert pr.evaluate(run, qrels, names, per_query=True).equals(expected)


def test_the_hash_test_leaves_no_judged_row_out():
    """Every retrieved judged document passes the hash test: the hits of the engine are the
    rows of an inner join of run and judgments, for string and integer ids."""
    for id_type in (pl.String, pl.Int64):
        run, qrels = _random_inputs(7, id_type)
        options = Options().resolve(run.schema, qrels.schema)
        pairs = judged.judged_pair_hashes(run.lazy(), qrels.lazy(), options).collect()
        assert pairs.height == qrels.height  # the test is on: both hold ids of one kind
        hits = judged.judged_hits(run.lazy(), qrels.lazy(), options, pairs["__pr_pair"])
        got = hits.collect().select("query", "doc").sort("query", "doc")
        expected = run.join(qrels, on=["query", "doc"]).select("query", "doc")
        assert got.equals(expected.sort("query", "doc"))


@given(
    data=runs_and_qrels(),
    buckets=st.integers(2, 5),
    queries=st.sampled_from(["qrels", "both"]),
)
@settings(max_examples=examples(60), deadline=None)
def test_buckets_of_queries_give_the_same_numbers(data, buckets, queries):
    """With more judgments than judged.BUCKET_JUDGMENTS the judged documents are ranked in
    buckets of queries (a hash of the query): every per-query value, for a run in memory or
    lazy and with ``by``, is the one of a single bucket (the same terms in the same order; a
    float sum may still round 1 ulp apart when a query's rows sit elsewhere in a buffer:
    Polars' vectorised sums), and the run queries without judgments are warned about once,
    with the same count."""
    run, qrels = data
    run = run.drop("rank")
    names = ["nDCG@10", "AP", "R@20", "P@5", "RR", "bpref", "NumRelRet", "NumRet", "ERR@5"]
    stacked = pl.concat([run.with_columns(system=pl.lit(s)) for s in ("a", "b")])

    def warned(call):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = call()
        return value, [str(w.message) for w in caught]

    calls = [
        lambda: pr.evaluate(run, qrels, names, per_query=True, queries=queries),
        lambda: pr.evaluate(
            run.lazy(), qrels.lazy(), names, per_query=True, queries=queries
        ).collect(),
        lambda: pr.evaluate(stacked, qrels, names, per_query=True, by="system"),
    ]
    expected = [warned(call) for call in calls]
    size = max(1, -(-qrels.height // buckets))  # at least `buckets` buckets
    with (
        mock.patch.object(judged, "BUCKET_JUDGMENTS", size),
        mock.patch.object(judged, "DUPLICATE_BUCKET_ROWS", max(1, run.height // buckets)),
    ):
        for call, (want, messages) in zip(calls, expected, strict=True):
            got, said = warned(call)
            assert_frame_equal(got, want, check_exact=False, rtol=1e-13, atol=0)
            assert said == messages


@given(data=runs_and_qrels(duplicates=True), rows=st.integers(1, 8))
@settings(max_examples=examples(60), deadline=None)
def test_the_duplicate_count_in_buckets_finds_every_repeated_pair(data, rows):
    """The duplicate check of a lazy run sorts the pair hashes bucket by bucket (queries
    split by a hash of the query) when the run has more than judged.DUPLICATE_BUCKET_ROWS
    rows: it raises exactly when the run repeats a (query, doc) pair, with the same message
    as in one bucket."""
    run, qrels = data
    run, qrels = run.drop("rank"), qrels.unique(subset=["query", "doc"], maintain_order=True)
    # the message counts the pairs that repeat (a pair three times is one)
    repeated = run.group_by("query", "doc").len().filter(pl.col("len") > 1).height

    def outcome() -> str:
        try:
            pr.evaluate(run.lazy(), qrels.lazy(), ["AP", "nDCG@10"]).collect()
        except pr.PolarsRankError as error:
            return str(error)
        return "no error"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = outcome()
        with mock.patch.object(judged, "DUPLICATE_BUCKET_ROWS", rows):
            assert outcome() == expected
    assert expected.startswith(f"run has {repeated} duplicate") == (repeated > 0)
    assert (expected == "no error") == (repeated == 0)
