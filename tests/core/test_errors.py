"""Bad input: every error names what is wrong."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys

import polars as pl
import pytest

import polars_rank as pr
from polars_rank import PolarsRankError


@pytest.fixture
def run() -> pl.DataFrame:
    return pl.DataFrame(
        {"query": ["q1", "q1", "q2"], "doc": ["a", "b", "a"], "score": [1.0, 0.5, 0.25]}
    )


@pytest.fixture
def qrels() -> pl.DataFrame:
    return pl.DataFrame({"query": ["q1", "q2"], "doc": ["a", "c"], "relevance": [1, 2]})


def both_entry_points(run, qrels, **kw):
    """Yield callables for pr.evaluate and pr.judge with the same input."""
    yield lambda: pr.evaluate(run, qrels, ["AP"], **kw)
    yield lambda: pr.judge(run, qrels, **kw)


def test_error_type_is_a_value_error():
    assert issubclass(PolarsRankError, ValueError)


# ------------------------------------------------------------------------------------------
# duplicates


def test_duplicate_run_pair(run, qrels):
    bad = pl.concat([run, run.slice(1, 1)])
    for call in both_entry_points(bad, qrels):
        with pytest.raises(
            PolarsRankError,
            match=r"run has 1 duplicate \(query, doc\) pair\(s\), e\.g\. query 'q1' doc 'b'",
        ):
            call()
    # lazy input: the same check
    with pytest.raises(PolarsRankError, match="run has 1 duplicate"):
        pr.evaluate(bad.lazy(), qrels.lazy(), ["AP"]).collect()


def test_duplicate_run_pairs_counted_from_sorted_hashes():
    """A lazy run counts its duplicates from its pair hashes, sorted; the exact check then
    searches only the rows whose pair hash repeats. 500 queries × 20 docs, with pairs
    repeated: (q7, d3) three times (2 extra rows) and (q9, d0), (q123, d19) twice each (1
    extra row each): 4 extra rows, in 3 pairs. The error counts the pairs, as for a
    DataFrame."""
    from polars_rank.core.conventions import Columns
    from polars_rank.core.validation import duplicate_suspects, repeated_pair_count

    clean = pl.DataFrame(
        {
            "query": [f"q{i // 20}" for i in range(10_000)],
            "doc": [f"d{i % 20}" for i in range(10_000)],
            "score": [float(i % 7) for i in range(10_000)],
        }
    )
    extra = pl.DataFrame(
        {
            "query": ["q7", "q7", "q9", "q123"],
            "doc": ["d3", "d3", "d0", "d19"],
            "score": [1.0, 2.0, 3.0, 4.0],
        }
    )
    bad = pl.concat([clean, extra])
    assert repeated_pair_count(bad.lazy(), Columns()).collect().item() == 4  # 10,004 − 10,000
    # the suspects are exactly the 7 rows of the 3 repeated pairs (3 + 2 + 2)
    searched = bad.filter(duplicate_suspects(bad.lazy(), Columns()))
    assert sorted(searched.select("query", "doc").unique().rows()) == [
        ("q123", "d19"),
        ("q7", "d3"),
        ("q9", "d0"),
    ]
    assert searched.height == 7
    assert repeated_pair_count(clean.lazy(), Columns()).collect().item() == 0
    # one row, and no row, repeat nothing
    assert repeated_pair_count(clean.lazy().head(1), Columns()).collect().item() == 0
    assert repeated_pair_count(clean.lazy().head(0), Columns()).collect().item() == 0
    qrels = pl.LazyFrame({"query": ["q7"], "doc": ["d3"], "relevance": [1]})
    with pytest.raises(PolarsRankError, match=r"run has 3 duplicate \(query, doc\) pair\(s\)"):
        pr.evaluate(bad.lazy(), qrels, ["AP"])
    with pytest.raises(PolarsRankError, match=r"run has 3 duplicate \(query, doc\) pair\(s\)"):
        pr.evaluate(bad, qrels.collect(), ["AP"])


def test_duplicate_far_apart_in_a_parquet_run_is_found(tmp_path):
    """A run of 300,000 rows read from Parquet (streamed in many chunks) whose first and last
    rows are the same pair: the sorted hashes bring them together, and the error names the
    pair."""
    n = 300_000
    run = pl.DataFrame(
        {
            "query": (pl.int_range(n, eager=True) // 100).cast(pl.String),
            "doc": pl.int_range(n, eager=True).cast(pl.String),
            "score": pl.int_range(n, eager=True).cast(pl.Float64),
        }
    )
    run = pl.concat([run, run.head(1).with_columns(score=pl.lit(-1.0))])
    path = tmp_path / "run.parquet"
    run.write_parquet(path, row_group_size=10_000)
    qrels = pl.LazyFrame({"query": ["0"], "doc": ["0"], "relevance": [1]})
    with pytest.raises(PolarsRankError, match=r"run has 1 duplicate.*query '0' doc '0'"):
        pr.evaluate(pl.scan_parquet(path), qrels, ["AP"])
    # without the repeated row the run passes: doc 0 scores 0.0, the lowest of query 0's 100
    # docs (scores 0.0 to 99.0): rank 100, RR = 1/100
    clean = pl.scan_parquet(path).head(n)
    with pytest.warns(UserWarning, match="2999 queries in the run have no judgments"):
        got = pr.evaluate(clean, qrels, ["RR"]).collect()
    assert got["RR"].item() == 1 / 100


@pytest.mark.parametrize("weak", ["query hash", "constant"])
def test_duplicate_check_of_a_lazy_run_tells_collisions_from_duplicates(weak):
    """With pair hashes that collide (each query's hash alone, or one constant), every row of
    a clean lazy run looks repeated to the sorted hashes: the exact check then finds no
    duplicate and the values equal those of the real hashes; a real duplicate is still
    named."""
    from unittest import mock

    from polars_rank.core import validation

    run = pl.DataFrame(
        {"query": ["q1", "q1", "q1", "q2"], "doc": ["a", "b", "c", "a"], "score": [3.0, 2, 1, 1]}
    )
    qrels = pl.DataFrame({"query": ["q1", "q2"], "doc": ["b", "a"], "relevance": [1, 1]})
    # q1: b at rank 2 -> RR 1/2; q2: a at rank 1 -> RR 1; mean 0.75
    weak_hash = pl.col("query").hash(seed=1) if weak == "query hash" else pl.lit(0, pl.UInt64)
    with mock.patch.object(validation, "pair_hash", lambda cols: weak_hash):
        got = pr.evaluate(run.lazy(), qrels.lazy(), ["RR"]).collect()
        assert got["RR"].item() == 0.75
        doubled = pl.concat([run, run.tail(1)]).lazy()
        with pytest.raises(PolarsRankError, match=r"run has 1 duplicate.*query 'q2' doc 'a'"):
            pr.evaluate(doubled, qrels.lazy(), ["RR"])


def test_duplicate_qrels_pair(run, qrels):
    bad = pl.concat([qrels, qrels.slice(1, 1).with_columns(relevance=pl.lit(0, pl.Int64))])
    for call in both_entry_points(run, bad):
        with pytest.raises(
            PolarsRankError,
            match=r"qrels has 1 duplicate \(query, doc\) pair\(s\), e\.g\. query 'q2' doc 'c'",
        ):
            call()


def test_duplicate_message_suggests_the_policies(run, qrels):
    with pytest.raises(PolarsRankError, match="duplicates='first' or duplicates='max'"):
        pr.evaluate(pl.concat([run, run]), qrels, ["AP"])


def test_duplicates_first_and_max_in_run():
    # (q, a) appears with 0.1 and then 5.0; b has 1.0; a is the relevant doc.
    run = pl.DataFrame({"query": ["q", "q", "q"], "doc": ["a", "b", "a"], "score": [0.1, 1.0, 5.0]})
    qrels = pl.DataFrame({"query": ["q"], "doc": ["a"], "relevance": [1]})
    # first: a keeps 0.1 → b, a → RR 1/2; two docs retrieved
    assert pr.evaluate(run, qrels, ["RR", "NumRet"], duplicates="first").row(0) == (0.5, 2.0)
    # max: a keeps 5.0 → a, b → RR 1
    assert pr.evaluate(run, qrels, ["RR", "NumRet"], duplicates="max").row(0) == (1.0, 2.0)
    judged = pr.judge(run, qrels, duplicates="first")
    assert judged.select("doc", "rank").rows() == [("b", 1), ("a", 2)]
    judged = pr.judge(run.lazy(), qrels.lazy(), duplicates="max").collect()
    assert judged.select("doc", "rank").rows() == [("a", 1), ("b", 2)]


def test_duplicates_first_and_max_in_qrels():
    run = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    # (q, a) judged 0 and then 2
    qrels = pl.DataFrame({"query": ["q", "q", "q"], "doc": ["a", "b", "a"], "relevance": [0, 1, 2]})
    # first: a is 0 → relevant b at rank 2 → RR 1/2, R = 1
    assert pr.evaluate(run, qrels, ["RR", "NumRel"], duplicates="first").row(0) == (0.5, 1.0)
    # max: a is 2 → RR 1, R = 2
    assert pr.evaluate(run, qrels, ["RR", "NumRel"], duplicates="max").row(0) == (1.0, 2.0)


def test_duplicates_with_order_by_rank():
    run = pl.DataFrame({"query": ["q", "q", "q"], "doc": ["a", "b", "a"], "rank": [3, 1, 2]})
    qrels = pl.DataFrame({"query": ["q"], "doc": ["a"], "relevance": [1]})
    with pytest.raises(PolarsRankError, match="duplicates='max' is not defined with order_by"):
        pr.evaluate(run, qrels, ["RR"], duplicates="max")
    # first: a keeps rank 3 → order b(1), a(3) → RR 1/2
    assert pr.evaluate(run, qrels, ["RR"], duplicates="first").item() == 0.5


def test_bad_duplicates_value(run, qrels):
    with pytest.raises(PolarsRankError, match="duplicates must be 'error', 'first' or 'max'"):
        pr.evaluate(run, qrels, ["AP"], duplicates="last")


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("value", ["no", "false", 0, 1, None])
def test_per_query_takes_booleans_only(run, qrels, engine, value):
    """``per_query="no"`` is truthy: a per-query report where a summary was meant. Every
    entry point that takes it accepts True or False only."""
    message = f"per_query must be True or False, got {value!r}"
    with pytest.raises(PolarsRankError, match=re.escape(message)):
        pr.evaluate(run, qrels, ["AP"], per_query=value, engine=engine)
    with pytest.raises(PolarsRankError, match=re.escape(message)):
        pr.evaluate_runs({"a": run}, qrels, ["AP"], per_query=value, engine=engine)
    with pytest.raises(PolarsRankError, match=re.escape(message)):
        pr.to_sql(["AP"], "duckdb", "run", "qrels", per_query=value)
    with pytest.raises(PolarsRankError, match=re.escape(message)):
        pr.to_sql(["AUC"], "duckdb", predictions="preds", per_query=value)


# ------------------------------------------------------------------------------------------
# nulls and NaNs


def test_null_query_id_in_run(run, qrels):
    bad = run.with_columns(query=pl.Series(["q1", None, "q2"]))
    for call in both_entry_points(bad, qrels):
        with pytest.raises(
            PolarsRankError,
            match=r"run has 1 row\(s\) with a null query or doc id; first at row 1 "
            r"\(query None, doc 'b'\)",
        ):
            call()


def test_null_doc_id_in_run(run, qrels):
    bad = run.with_columns(doc=pl.Series([None, "b", None], dtype=pl.String))
    with pytest.raises(
        PolarsRankError, match=r"run has 2 row\(s\) with a null query or doc id; first at row 0"
    ):
        pr.evaluate(bad, qrels, ["AP"])


def test_null_ids_in_qrels(run, qrels):
    bad = qrels.with_columns(doc=pl.Series(["a", None]))
    for call in both_entry_points(run, bad):
        with pytest.raises(
            PolarsRankError,
            match=r"qrels has 1 row\(s\) with a null query or doc id; first at row 1 "
            r"\(query 'q2', doc None\)",
        ):
            call()


@pytest.mark.parametrize("value", [None, math.nan])
def test_null_or_nan_score(run, qrels, value):
    bad = run.with_columns(score=pl.Series([1.0, 0.5, value], dtype=pl.Float64))
    for call in both_entry_points(bad, qrels):
        with pytest.raises(
            PolarsRankError,
            match=r"run column 'score' has 1 null or NaN value\(s\); first at row 2 "
            r"\(query 'q2', doc 'a'\)",
        ):
            call()


def test_null_score_with_custom_column_name(run, qrels):
    bad = run.rename({"score": "sim"}).with_columns(sim=pl.Series([None, 0.5, None]))
    with pytest.raises(PolarsRankError, match=r"run column 'sim' has 2 null or NaN"):
        pr.evaluate(bad, qrels, ["AP"], score="sim")


def test_null_rank_with_order_by_rank(qrels):
    run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "rank": [1, None]})
    with pytest.raises(PolarsRankError, match=r"run column 'rank' has 1 null or NaN"):
        pr.evaluate(run, qrels, ["AP"])


@pytest.mark.parametrize("value", [None, math.nan])
def test_null_or_nan_relevance(run, qrels, value):
    bad = qrels.with_columns(relevance=pl.Series([value, 2.0], dtype=pl.Float64))
    for call in both_entry_points(run, bad):
        with pytest.raises(
            PolarsRankError,
            match=r"qrels column 'relevance' has 1 null or NaN value\(s\); first at row 0 "
            r"\(query 'q1', doc 'a'\)",
        ):
            call()


def test_null_relevance_integer_column(run, qrels):
    bad = qrels.with_columns(relevance=pl.Series([1, None], dtype=pl.Int64))
    with pytest.raises(PolarsRankError, match="qrels column 'relevance' has 1 null"):
        pr.evaluate(run.lazy(), bad.lazy(), ["AP"]).collect()


# ------------------------------------------------------------------------------------------
# schema


def test_mismatched_doc_dtypes(run, qrels):
    bad = qrels.with_columns(pl.col("doc").cast(pl.Categorical))
    for call in both_entry_points(run, bad):
        with pytest.raises(
            PolarsRankError,
            match=r"run column 'doc' is String but qrels column 'doc' is Categorical",
        ):
            call()


def test_mismatched_query_dtypes(run, qrels):
    bad_run = run.with_columns(pl.col("query").str.slice(1).cast(pl.Int64))
    with pytest.raises(
        PolarsRankError, match=r"run column 'query' is Int64 but qrels column 'query' is String"
    ):
        pr.evaluate(bad_run, qrels, ["AP"])
    bad_qrels = qrels.with_columns(pl.col("query").str.slice(1).cast(pl.Int32))
    with pytest.raises(
        PolarsRankError, match=r"run column 'query' is Int64 but qrels column 'query' is Int32"
    ):
        pr.evaluate(bad_run, bad_qrels, ["AP"])


def test_missing_run_column(run, qrels):
    bad = run.rename({"doc": "docno"})
    for call in both_entry_points(bad, qrels):
        with pytest.raises(
            PolarsRankError,
            match=r"run has no column 'doc'; its columns are \['query', 'docno', 'score'\]",
        ):
            call()


def test_missing_qrels_column(run, qrels):
    bad = qrels.rename({"relevance": "rel"})
    with pytest.raises(
        PolarsRankError,
        match=r"qrels has no column 'relevance'; its columns are \['query', 'doc', 'rel'\]",
    ):
        pr.evaluate(run, bad, ["AP"])


def test_custom_column_names_are_used_and_named_in_errors(run, qrels):
    renamed_run = run.rename({"query": "qid", "doc": "docno"})
    renamed_qrels = qrels.rename({"query": "qid", "doc": "docno", "relevance": "label"})
    ok = pr.evaluate(
        renamed_run, renamed_qrels, ["AP"], query="qid", doc="docno", relevance="label"
    )
    assert ok.item() == pytest.approx(0.5)  # q1: a at rank 1 → 1; q2: c not retrieved → 0
    with pytest.raises(PolarsRankError, match=r"qrels has no column 'label'; its columns are"):
        pr.evaluate(
            renamed_run,
            qrels.rename({"query": "qid", "doc": "docno"}),
            ["AP"],
            query="qid",
            doc="docno",
            relevance="label",
        )


def test_run_without_score_or_rank(run, qrels):
    with pytest.raises(
        PolarsRankError,
        match=r"run has neither a score column 'score' nor a rank column 'rank'; "
        r"its columns are \['query', 'doc'\]",
    ):
        pr.evaluate(run.drop("score"), qrels, ["AP"])


@pytest.mark.parametrize("dtype", [pl.String, pl.Boolean])
def test_non_numeric_score(run, qrels, dtype):
    bad = run.with_columns(pl.col("score").cast(dtype))
    for call in both_entry_points(bad, qrels):
        with pytest.raises(
            PolarsRankError, match=rf"run column 'score' must be numeric, got {dtype}"
        ):
            call()


def test_non_numeric_relevance(run, qrels):
    bad = qrels.with_columns(pl.col("relevance").cast(pl.String))
    with pytest.raises(
        PolarsRankError, match=r"qrels column 'relevance' must be numeric, got String"
    ):
        pr.evaluate(run, bad, ["AP"])


# ------------------------------------------------------------------------------------------
# metric names


def test_unknown_metric_suggests_the_closest_names(run, qrels):
    with pytest.raises(PolarsRankError) as info:
        pr.evaluate(run, qrels, ["ndgc@10"])
    message = str(info.value)
    assert message.startswith("metric 'ndgc@10': unknown name 'ndgc'; did you mean nDCG@10?")
    assert "polars-rank metrics" in message
    assert len(message) < 200  # a hint, not the list of every name
    # given a cutoff, metrics without one (Rndcg, r-precision, set_precision) are suggested
    # only when closest of all
    with pytest.raises(PolarsRankError, match=r"did you mean precision@5\? \("):
        pr.parse_metric("presicion@5")
    with pytest.raises(PolarsRankError, match=r"did you mean Rprec, prec@10 or IPrec@10\?"):
        pr.parse_metric("Rprecc@10")
    with pytest.raises(PolarsRankError, match=r"did you mean nDCG or Rndcg\?"):
        pr.parse_metric("ndgc")  # no cutoff given: every close name
    with pytest.raises(PolarsRankError, match=r"unknown name 'foo' \(every name"):
        pr.parse_metric("foo@10")  # nothing close: no guess


def test_unknown_metric_message_is_the_same_in_every_process():
    """The suggestions do not depend on hash randomisation (set or dict order)."""
    code = (
        "import polars_rank as pr\n"
        "try: pr.parse_metric('recal@100')\n"
        "except Exception as e: print(e)"
    )
    processes = [  # started together: each spends a second or more importing polars
        subprocess.Popen(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in ("1", "2", "3")
    ]
    texts = set()
    for process in processes:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        texts.add(out)
    assert len(texts) == 1
    assert "did you mean recall@100" in texts.pop()


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("ndcg10", r"unknown name 'ndcg10' \(a cutoff follows '@'\); did you mean nDCG@10\?"),
        ("P10", r"unknown name 'P10' \(a cutoff follows '@'\); did you mean P@10\?"),
        ("ndcg_cut10", r"unknown name 'ndcg_cut10' .*; did you mean ndcg_cut@10\?"),
        ("P@0", r"cutoff '0' is not a positive integer \(k counts ranks from 1\)"),
        ("nDCG@-1", r"cutoff '-1' is not a positive integer"),
        ("nDCG@", r"no cutoff after '@' \(e\.g\. nDCG@10\)"),
        ("IPrec@x", r"recall level 'x' is not a number"),
    ],
)
def test_name_errors_say_why(name, why):
    with pytest.raises(PolarsRankError, match=rf"^metric '{re.escape(name)}': {why}"):
        pr.parse_metric(name)


def test_bad_parameter(run, qrels):
    with pytest.raises(
        PolarsRankError,
        match=r"metric 'P\(foo=1\)@5': parameter 'foo' is not one of \['rel', 'cutoff'\] for P",
    ):
        pr.evaluate(run, qrels, ["P(foo=1)@5"])
    with pytest.raises(PolarsRankError, match=r"parameter 'rel' is not one of .* for nDCG"):
        pr.evaluate(run, qrels, ["nDCG(rel=2)@5"])


def test_bad_parameter_value(run, qrels):
    with pytest.raises(PolarsRankError, match=r"bad value 'foo' for gain"):
        pr.evaluate(run, qrels, ["nDCG(gain=foo)@5"])
    with pytest.raises(PolarsRankError, match=r"parameter rel needs a number, got 'x'"):
        pr.evaluate(run, qrels, ["P(rel=x)@5"])
    with pytest.raises(PolarsRankError, match=r"is not key=value"):
        pr.evaluate(run, qrels, ["P(2)@5"])


def test_missing_cutoff(run, qrels):
    with pytest.raises(
        PolarsRankError, match=r"metric 'Rcap': Rcap needs a cutoff, e\.g\. Rcap@10"
    ):
        pr.evaluate(run, qrels, ["Rcap"])
    with pytest.raises(PolarsRankError, match=r"IPrec needs a recall level"):
        pr.evaluate(run, qrels, ["IPrec"])


def test_cutoff_on_metric_without_one(run, qrels):
    with pytest.raises(PolarsRankError, match=r"metric 'Rprec@5': Rprec takes no cutoff"):
        pr.evaluate(run, qrels, ["Rprec@5"])
    with pytest.raises(PolarsRankError, match=r"bpref takes no cutoff"):
        pr.evaluate(run, qrels, ["bpref@10"])


@pytest.mark.parametrize("name", ["P@0", "P@1.5", "nDCG@0"])
def test_bad_cutoff(run, qrels, name):
    with pytest.raises(PolarsRankError, match=r"is not a positive integer"):
        pr.evaluate(run, qrels, [name])


def test_recall_level_out_of_range(run, qrels):
    with pytest.raises(PolarsRankError, match=r"recall level 2 is outside \[0, 1\]"):
        pr.evaluate(run, qrels, ["IPrec@2"])


def test_duplicate_metric_labels(run, qrels):
    with pytest.raises(PolarsRankError, match=r"metric 'AP' is listed twice"):
        pr.evaluate(run, qrels, ["AP", "nDCG@10", "AP"])
    # different labels for the same metric are fine: one column each
    out = pr.evaluate(run, qrels, ["AP", "map"])
    assert out.columns == ["AP", "map"]
    assert out["AP"].item() == out["map"].item()


@pytest.mark.parametrize("metrics", [[], [""], ["  "], [5]])
def test_empty_or_non_string_metric(run, qrels, metrics):
    with pytest.raises(PolarsRankError, match=r"no metrics given|non-empty string"):
        pr.evaluate(run, qrels, metrics)


# ------------------------------------------------------------------------------------------
# options


def test_bad_queries_value(run, qrels):
    with pytest.raises(PolarsRankError, match=r"queries must be 'qrels' or 'both', got 'run'"):
        pr.evaluate(run, qrels, ["AP"], queries="run")


def test_bad_engine_value(run, qrels):
    expected = r"engine must be 'polars', 'clickhouse', 'duckdb' or 'spark', got 'sparkle'"
    with pytest.raises(PolarsRankError, match=expected):
        pr.evaluate(run, qrels, ["AP"], engine="sparkle")


@pytest.mark.parametrize("max_rank", [0, -1, 2.5])
def test_bad_max_rank(run, qrels, max_rank):
    with pytest.raises(PolarsRankError, match=r"max_rank must be a positive integer"):
        pr.evaluate(run, qrels, ["AP"], max_rank=max_rank)


def test_bad_order_by(run, qrels):
    with pytest.raises(PolarsRankError, match=r"order_by must be 'score' or 'rank', got 'foo'"):
        pr.evaluate(run, qrels, ["AP"], order_by="foo")


def test_order_by_rank_without_rank_column(run, qrels):
    with pytest.raises(PolarsRankError, match=r"run has no column 'rank'"):
        pr.evaluate(run, qrels, ["AP"], order_by="rank")


def test_validate_false_skips_checks(run, qrels):
    # With validate=False a duplicate is not reported (the caller vouches for the input).
    dup = pl.concat([run, run.slice(0, 1)])
    pr.evaluate(dup, qrels, ["AP"], validate=False)
    with pytest.raises(PolarsRankError):
        pr.evaluate(dup, qrels, ["AP"])


# ------------------------------------------------------------------------------------------
# non-frame input


@pytest.mark.parametrize(
    "bad", [{"query": ["q"], "doc": ["a"], "score": [1.0]}, None, "run.tsv", [("q", "a", 1.0)]]
)
def test_non_frame_run(qrels, bad):
    accepted = "a polars DataFrame or LazyFrame, a pandas DataFrame or a pyarrow Table"
    with pytest.raises(TypeError, match=rf"run must be {accepted}, got"):
        pr.evaluate(bad, qrels, ["AP"])
    with pytest.raises(TypeError, match=r"run must be a polars DataFrame or LazyFrame"):
        pr.judge(bad, qrels)


def test_non_frame_qrels(run):
    with pytest.raises(TypeError, match=r"qrels must be a polars DataFrame or .* got dict"):
        pr.evaluate(run, {"q1": {"a": 1}}, ["AP"])


# ------------------------------------------------------------------------------------------
# expression builders


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: pr.precision(0), "k must be a positive integer"),
        (lambda: pr.recall_cap(None), "needs a cutoff"),
        (lambda: pr.ndcg(-1), "k must be a positive integer"),
        (lambda: pr.recall(True), "k must be a positive integer"),
        (lambda: pr.ndcg(10, gain="cubic"), "gain must be 'linear' or 'exponential'"),
        (lambda: pr.average_precision(10, denominator="k"), "denominator must be"),
        (lambda: pr.iprec_at_recall(1.5), r"recall level must be in \[0, 1\]"),
    ],
)
def test_expression_argument_errors(build, match):
    with pytest.raises(ValueError, match=match):
        build()
