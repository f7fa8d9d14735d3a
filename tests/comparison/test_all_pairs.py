"""``pairs="all"`` (every run against every other, ranx's ``compare``), Tukey's HSD, ``by=``
and the lettered tables: against ranx 0.3's ``compare`` (its paired t-test and Tukey test are
deterministic; its randomization test draws another stream), by hand, and hostile inputs."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import polars as pl
import pytest

import polars_rank as pr
from polars_rank.comparison import compare_per_query, statistics, to_latex, to_markdown
from polars_rank.comparison.render import SUPERSCRIPTS
from polars_rank.core.errors import PolarsRankError

N_QUERIES, N_DOCS = 30, 12
#: ranx's names of the metrics compared, and ours
METRICS = {"ndcg@5": "nDCG@5", "map": "AP", "precision@3": "P@3"}


def _data(n_runs: int = 4, seed: int = 3) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """Graded judgments and ``n_runs`` tie-free runs (random float scores), run
    ``i`` a little better than run ``i - 1`` on average, so that some pairs differ."""
    rng = np.random.default_rng(seed)
    queries = [f"q{i:02d}" for i in range(N_QUERIES) for _ in range(N_DOCS)]
    docs = [f"d{j:02d}" for _ in range(N_QUERIES) for j in range(N_DOCS)]
    grades = rng.choice([0, 0, 1, 2], size=len(queries))
    grades[::N_DOCS] = 1  # every query has a relevant document
    qrels = pl.DataFrame({"query": queries, "doc": docs, "relevance": grades})
    runs = {}
    for i in range(n_runs):
        scores = grades * 0.15 * i + rng.random(len(queries))  # no two equal
        runs[f"run_{i + 1}"] = pl.DataFrame({"query": queries, "doc": docs, "score": scores})
    return qrels, runs


def _ranx_report(qrels: pl.DataFrame, runs: dict[str, pl.DataFrame], stat_test: str):
    from ranx import Qrels, Run
    from ranx import compare as ranx_compare

    def nested(frame: pl.DataFrame, value: str) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for q, d, v in frame.select("query", "doc", value).iter_rows():
            out.setdefault(q, {})[d] = v
        return out

    ranx_qrels = Qrels(nested(qrels.filter(pl.col("relevance") > 0), "relevance"))
    ranx_runs = [Run(nested(frame, "score"), name=name) for name, frame in runs.items()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ranx_compare(
            ranx_qrels, ranx_runs, list(METRICS), stat_test=stat_test, max_p=0.05, threads=1
        )


@pytest.fixture(scope="module")
def compared() -> tuple[pl.DataFrame, dict[str, pl.DataFrame], pl.DataFrame]:
    qrels, runs = _data()
    result = pr.compare(runs, qrels, list(METRICS.values()), pairs="all", permutations=200)
    return qrels, runs, result


def test_every_pair_once_in_order_of_appearance(compared):
    _, runs, result = compared
    names = list(runs)
    pairs = list(itertools.combinations(names, 2))  # (i, j), i < j: 4 runs → 6 pairs
    expected = [(b, r, m) for b, r in pairs for m in METRICS.values()]
    assert result.select("baseline", "run", "metric").rows() == expected


@pytest.mark.parametrize("stat_test", ["student", "tukey"])
def test_pvalues_and_means_equal_ranx(compared, stat_test):
    qrels, runs, result = compared
    report = _ranx_report(qrels, runs, stat_test)
    column = "t_pvalue" if stat_test == "student" else "tukey_pvalue"
    for row in result.iter_rows(named=True):
        ranx_metric = next(k for k, v in METRICS.items() if v == row["metric"])
        ranx_p = report.comparisons[row["baseline"], row["run"]][ranx_metric]["p_value"]
        assert row[column] == pytest.approx(ranx_p, rel=1e-9, abs=1e-12)
        assert row["mean"] == pytest.approx(report.results[row["run"]][ranx_metric], abs=1e-12)
        base_mean = report.results[row["baseline"]][ranx_metric]
        assert row["baseline_mean"] == pytest.approx(base_mean, abs=1e-12)


@pytest.mark.parametrize(
    ("stat_test", "column"), [("student", "t_pvalue"), ("tukey", "tukey_pvalue")]
)
def test_letters_equal_ranx_superscripts(compared, stat_test, column):
    """ranx marks a mean with the letters of the runs it beats at ``p <= max_p`` (unadjusted
    p); our table with ``pvalue=column, alpha=max_p`` marks ``p < alpha`` (no p-value here
    equals 0.05 exactly)."""
    qrels, runs, result = compared
    report = _ranx_report(qrels, runs, stat_test)
    assert not result.filter(pl.col(column) == 0.05).height
    text = to_markdown(result, digits=3, alpha=0.05, pvalue=column)
    rows = [line.split(" | ") for line in text.splitlines()[2 : 2 + len(runs)]]
    for i, (name, cells) in enumerate(zip(runs, rows, strict=True)):
        assert cells[0] == f"| {'abcd'[i]} {name}"
        for ranx_metric, cell in zip(METRICS, cells[1:], strict=True):
            ours = "".join(c for c in cell.rstrip(" |") if c in SUPERSCRIPTS)
            assert ours == report.get_superscript_for_table(name, ranx_metric)
    some = sum(1 for row in rows for cell in row[1:] if any(c in SUPERSCRIPTS for c in cell))
    assert some > 0  # the data has significant pairs: the comparison above is not vacuous


def test_holm_adjusts_over_every_pair_and_metric(compared):
    _, _, result = compared
    adjusted = statistics.holm(result["t_pvalue"].to_numpy())
    assert result["t_pvalue_holm"].to_numpy() == pytest.approx(adjusted, abs=0)
    assert result.height == 6 * 3


def test_tukey_two_runs_by_hand():
    """Two runs: Tukey's HSD is the pooled two-sample t-test. a = (0.1, 0.2, 0.3),
    b = (0.5, 0.6, 0.7): means 0.2 and 0.6, pooled variance (0.02 + 0.02) / 4 = 0.01,
    t = 0.4 / sqrt(0.01 · (1/3 + 1/3)) = 4.898979, 4 degrees of freedom: p = 0.008049893
    (Student's t table: 2·P(T_4 ≥ 4.899) ≈ 0.00805)."""
    pq = pl.DataFrame(
        {
            "run": ["a"] * 3 + ["b"] * 3,
            "query": ["1", "2", "3"] * 2,
            "AP": [0.1, 0.2, 0.3, 0.5, 0.6, 0.7],
        }
    )
    out = compare_per_query(pq, pairs="all", bootstrap=10, permutations=10)
    t = 0.4 / np.sqrt(0.01 * (2 / 3))
    assert t == pytest.approx(4.898979, abs=1e-6)
    assert out["tukey_pvalue"][0] == pytest.approx(statistics.t_two_sided_pvalue(t, 4), rel=1e-9)
    assert out["tukey_pvalue"][0] == pytest.approx(0.008049893, abs=1e-9)


def test_tukey_is_nan_with_one_query_and_zero_for_distinct_constant_runs():
    one = pl.DataFrame({"run": ["a", "b"], "query": ["1", "1"], "AP": [0.1, 0.5]})
    assert np.isnan(
        compare_per_query(one, pairs="all", bootstrap=5, permutations=5)["tukey_pvalue"][0]
    )
    flat = pl.DataFrame(
        {"run": ["a"] * 2 + ["b"] * 2, "query": ["1", "2"] * 2, "AP": [0.1, 0.1, 0.5, 0.5]}
    )
    assert (
        compare_per_query(flat, pairs="all", bootstrap=5, permutations=5)["tukey_pvalue"][0] == 0.0
    )


def test_baseline_rows_are_the_all_pairs_rows_of_the_baseline(compared):
    """A pair's statistics do not depend on the other pairs (same seeds): the baseline rows
    are the all-pairs rows whose baseline is the first run; only Holm's family differs."""
    qrels, runs, result = compared
    base = pr.compare(runs, qrels, list(METRICS.values()), permutations=200)
    columns = [
        "run",
        "baseline",
        "metric",
        "mean",
        "diff",
        "t_pvalue",
        "perm_pvalue",
        "ci_low",
        "ci_high",
        "tukey_pvalue",
    ]
    assert base.select(columns).equals(result.filter(pl.col("baseline") == "run_1").select(columns))


def test_by_compares_each_segment_on_its_own(compared):
    _, _, result = compared
    rng = np.random.default_rng(0)
    pq = pl.DataFrame(
        {
            "run": [r for r in ("x", "y", "z") for _ in range(20)],
            "query": [f"q{i}" for _ in range(3) for i in range(20)],
            "AP": rng.random(60),
            "seg": [
                None if i < 5 else ("s" if i < 12 else "t") for _ in range(3) for i in range(20)
            ],
        }
    )
    out = compare_per_query(pq, pairs="all", by="seg", bootstrap=50, permutations=50)
    assert out.columns[0] == "seg" and out["seg"].to_list()[::3] == [None, "s", "t"]  # nulls first
    for key in (None, "s", "t"):
        part = pq.filter(pl.col("seg").eq_missing(key)).drop("seg")
        alone = compare_per_query(part, pairs="all", bootstrap=50, permutations=50)
        assert out.filter(pl.col("seg").eq_missing(key)).drop("seg").equals(alone)


def test_compare_by_on_runs():
    """``by`` a run column: each segment's runs are evaluated as ``evaluate(by=...)`` does
    (with ``queries="qrels"``, every judged query in every segment) and compared on their
    own, as if each segment's rows were compared alone."""
    qrels, runs = _data(3)
    segmented = {n: f.with_columns(half=pl.col("query") < "q15") for n, f in runs.items()}
    options = {"pairs": "all", "bootstrap": 20, "permutations": 20}
    out = pr.compare(segmented, qrels, ["AP"], by="half", **options)
    assert out["half"].to_list() == [False] * 3 + [True] * 3
    for half in (False, True):
        kept = {n: f.filter(pl.col("half") == half).drop("half") for n, f in segmented.items()}
        expected = pr.compare(kept, qrels, ["AP"], **options)
        assert out.filter(pl.col("half") == half).drop("half").equals(expected)


def test_hostile_inputs():
    pq = pl.DataFrame({"run": ["a", "a"], "query": ["1", "2"], "AP": [0.1, 0.2]})
    with pytest.raises(PolarsRankError, match="need at least one run to compare with"):
        compare_per_query(pq, pairs="all")
    two = pl.concat([pq, pq.with_columns(run=pl.lit("b"))])
    with pytest.raises(
        PolarsRankError, match="pairs='all' compares every pair of runs: no baseline="
    ):
        compare_per_query(two, pairs="all", baseline="a")
    with pytest.raises(PolarsRankError, match="pairs='baseline' needs baseline="):
        compare_per_query(two)
    with pytest.raises(PolarsRankError, match="pairs must be 'baseline' or 'all'"):
        compare_per_query(two, pairs="every", baseline="a")  # type: ignore[arg-type]
    with pytest.raises(PolarsRankError, match=r"by column\(s\) \['seg'\] not in"):
        compare_per_query(two, pairs="all", by="seg")
    lacking = two.filter(~((pl.col("run") == "b") & (pl.col("query") == "2")))
    with pytest.raises(
        PolarsRankError, match="run 'b' is missing query '2' \\(present in run 'a'\\)"
    ):
        compare_per_query(lacking, pairs="all")
    segmented = pl.concat([two.with_columns(seg=pl.lit(s)) for s in ("s", "t")])
    out = compare_per_query(segmented, pairs="all", by="seg", bootstrap=5, permutations=5)
    with pytest.raises(PolarsRankError, match="render one segment at a time"):
        to_markdown(out)
    with pytest.raises(PolarsRankError, match="several baselines"):
        to_markdown(_three_runs(), marks="baseline")


def _three_runs() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "run": ["dense", "hybrid", "hybrid"],
            "baseline": ["bm25", "bm25", "dense"],
            "metric": ["AP"] * 3,
            "mean": [0.31, 0.36, 0.36],
            "baseline_mean": [0.25, 0.25, 0.31],
            "t_pvalue_holm": [0.01, 0.001, 0.2],
        }
    )


def test_lettered_tables_by_hand():
    """dense beats bm25 (p 0.01) and hybrid beats bm25 (p 0.001); hybrid vs dense is not
    significant (p 0.2): dense and hybrid carry a, bm25 nothing."""
    text = to_markdown(_three_runs(), digits=2)
    assert text.splitlines()[2:5] == [
        "| a bm25 | 0.25 |",
        "| b dense | 0.31ᵃ |",
        "| c hybrid | 0.36ᵃ |",
    ]
    latex = to_latex(_three_runs(), digits=2)
    assert r"a bm25 & 0.25 \\" in latex and r"c hybrid & 0.36$^{a}$ \\" in latex
    assert "Holm--Bonferroni adjusted over 3 comparisons, $p < 0.05$" in latex
    # at alpha 0.3 hybrid also beats dense: c carries a and b
    assert "| c hybrid | 0.36ᵃᵇ |" in to_markdown(_three_runs(), digits=2, alpha=0.3)
