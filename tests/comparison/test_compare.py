"""Run comparison: paired t-test, randomization test, bootstrap CI, Holm, tables."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys

import numpy as np
import polars as pl
import pytest

import polars_rank.comparison as cmp
from polars_rank.comparison import compare, compare_per_query, to_latex, to_markdown

N_QUERIES = 50


def _long(runs: dict[str, dict[str, np.ndarray]], queries: list[str] | None = None) -> pl.DataFrame:
    """Long per-query frame ``run, query, <metrics>`` from ``{run: {metric: values}}``."""
    frames = []
    for name, cols in runs.items():
        n = len(next(iter(cols.values())))
        qs = queries if queries is not None else [f"q{i:03d}" for i in range(n)]
        frames.append(pl.DataFrame({"run": name, "query": qs, **cols}))
    return pl.concat(frames)


@pytest.fixture
def random_runs() -> tuple[pl.DataFrame, dict[str, dict[str, np.ndarray]]]:
    rng = np.random.default_rng(7)
    base = {"nDCG@10": rng.random(N_QUERIES), "AP": rng.random(N_QUERIES)}
    runs = {
        "bm25": base,
        "dense": {m: np.clip(v + rng.normal(0.05, 0.2, N_QUERIES), 0, 1) for m, v in base.items()},
        "noisy": {m: rng.random(N_QUERIES) for m in base},
    }
    return _long(runs), runs


def t_two_sided_reference(t: float, df: int) -> float:
    """``2·P(T_df ≥ |t|)`` for an integer ``df`` by the finite series of Abramowitz & Stegun
    26.7.3–4, written here so that the t-test is checked without scipy. With
    ``θ = atan(|t|/√df)`` and ``c = cos θ``, ``P(|T| ≤ |t|)`` is, for odd ``df``,
    ``(2/π)·(θ + sin θ·(c + (2/3)·c³ + … + (2·4···(df−3))/(3·5···(df−2))·c^(df−2)))`` and,
    for even ``df``, ``sin θ·(1 + (1/2)·c² + (1·3)/(2·4)·c⁴ + … + (1·3···(df−3))/(2·4···(df−2))
    ·c^(df−2))``; each term is the previous one times ``c²·2k/(2k+1)`` (odd) or
    ``c²·(2k−1)/(2k)`` (even).
    df = 1 gives ``1 − 2θ/π`` (Cauchy), df = 2 gives ``1 − |t|/√(t² + 2)``.
    """
    theta = math.atan(abs(t) / math.sqrt(df))
    sin, cos2 = math.sin(theta), math.cos(theta) ** 2
    terms = []
    if df % 2 == 1:
        term = sin * math.cos(theta)
        for k in range(1, (df - 1) // 2 + 1):
            terms.append(term)
            term *= cos2 * (2 * k) / (2 * k + 1)
        return 1.0 - 2.0 / math.pi * (theta + math.fsum(terms))
    term = sin
    for k in range(1, df // 2 + 1):
        terms.append(term)
        term *= cos2 * (2 * k - 1) / (2 * k)
    return 1.0 - math.fsum(terms)


def _t_by_hand(d: np.ndarray) -> float:
    """``t = mean(d) / (sd(d)/√n)`` with the sample standard deviation (ddof = 1)."""
    return float(d.mean() / (d.std(ddof=1) / math.sqrt(len(d))))


def test_t_pvalues_by_hand():
    columns = {
        # d = [1, 2, 3]: mean 2; deviations −1, 0, 1 → var = (1 + 0 + 1)/2 = 1, sd = 1;
        # t = 2 / (1/√3) = 2√3 = 3.4641, df = 2. For df = 2 the t CDF is
        # 1/2 + t/(2·√(2 + t²)), so p = 1 − t/√(t² + 2) = 1 − √12/√14 = 1 − √(6/7) = 0.0741799.
        "1,2,3": ([1.0, 2.0, 3.0], 1 - math.sqrt(6 / 7)),
        # d = [1, 1, 4]: mean 2; deviations −1, −1, 2 → var = 6/2 = 3, sd = √3;
        # t = 2 / (√3/√3) = 2, df = 2 → p = 1 − 2/√6 = 0.1835034.
        "1,1,4": ([1.0, 1.0, 4.0], 1 - 2 / math.sqrt(6)),
        # d = [1, 3]: mean 2; deviations ±1 → var = 2/1 = 2, sd = √2; t = 2 / (√2/√2) = 2,
        # df = 1 (Cauchy, CDF 1/2 + atan(t)/π) → p = 1 − 2·atan(2)/π = 0.2951672.
        "1,3": ([1.0, 3.0], 1 - 2 * math.atan(2.0) / math.pi),
        # d = [−1, −3]: t = −2; two-sided, so the same p as t = +2.
        "-1,-3": ([-1.0, -3.0], 1 - 2 * math.atan(2.0) / math.pi),
        # d = [0, 1]: mean 1/2, var = 2·(1/2)²/1 = 1/2, sd = √(1/2); t = (1/2)/(√(1/2)/√2) = 1,
        # df = 1 → p = 1 − 2·atan(1)/π = 1 − 2·(π/4)/π = 1/2.
        "0,1": ([0.0, 1.0], 0.5),
        # d = [−1, 1]: mean 0, var 2 → t = 0 → p = 1.
        "-1,1": ([-1.0, 1.0], 1.0),
    }
    for name, (d, expected) in columns.items():
        got = cmp.statistics.paired_t_pvalues(np.array(d)[:, None])
        assert got.shape == (1,)
        assert got[0] == pytest.approx(expected, rel=1e-12, abs=0), name
    np.testing.assert_allclose(
        [1 - math.sqrt(6 / 7), 1 - 2 / math.sqrt(6), 1 - 2 * math.atan(2.0) / math.pi, 0.5],
        [0.0741799, 0.1835034, 0.2951672, 0.5],
        atol=5e-8,
    )  # the decimals quoted above
    # Columns of one matrix are tested independently: [1, 2, 3] and [1, 1, 4] side by side.
    both = cmp.statistics.paired_t_pvalues(np.array([[1.0, 1.0], [2.0, 1.0], [3.0, 4.0]]))
    np.testing.assert_allclose(both, [1 - math.sqrt(6 / 7), 1 - 2 / math.sqrt(6)], rtol=1e-12)


def test_t_pvalue_special_cases():
    p = cmp.statistics.paired_t_pvalues
    # All differences zero (identical runs): p = 1 by convention (ttest_rel would give NaN).
    assert p(np.zeros((5, 2))).tolist() == [1.0, 1.0]
    # Constant non-zero differences: sd = 0, t = ±∞ → p = 0.
    assert p(np.array([[0.25, -1.0], [0.25, -1.0], [0.25, -1.0]])).tolist() == [0.0, 0.0]
    # Mixed in one matrix: zero, constant, [1, 2, 3] (p from test_t_pvalues_by_hand), NaN.
    mixed = p(np.array([[0.0, 0.5, 1.0, math.nan], [0.0, 0.5, 2.0, 1.0], [0.0, 0.5, 3.0, 2.0]]))
    assert mixed[:2].tolist() == [1.0, 0.0]
    assert mixed[2] == pytest.approx(1 - math.sqrt(6 / 7), rel=1e-12)
    assert math.isnan(mixed[3])
    # Fewer than 2 queries: no variance, p = NaN (even for zero differences).
    for d in [np.array([[0.3, 0.0]]), np.zeros((0, 2))]:
        assert np.isnan(p(d)).all() and p(d).shape == (2,)
    assert p(np.zeros((4, 0))).shape == (0,)


def test_t_distribution_tail_closed_forms():
    tail = cmp.statistics.t_two_sided_pvalue
    for t in [1e-3, 0.5, 1.0, 1.96, 3.0, 8.0, 40.0, 1e3]:
        # df = 1: p = 1 − 2·atan(t)/π = 2·atan(1/t)/π (the second form keeps digits for big t).
        assert tail(t, 1) == pytest.approx(2 * math.atan(1 / t) / math.pi, rel=1e-12), t
        # df = 2: p = 1 − t/s with s = √(t² + 2); (s − t)/s = (s² − t²)/(s·(s + t)) = 2/(s·(s + t)).
        s = math.sqrt(t * t + 2)
        assert tail(t, 2) == pytest.approx(2 / (s * (s + t)), rel=1e-12), t
        assert tail(-t, 1) == tail(t, 1) and tail(-t, 2) == tail(t, 2)
    assert tail(2.0, 1) == pytest.approx(0.2951672, abs=5e-8)
    assert tail(2.0, 2) == pytest.approx(1 - 2 / math.sqrt(6), rel=1e-12)
    # t = 0 → 1; t = ±∞ → 0; NaN t or df ≤ 0 → NaN.
    assert tail(0.0, 5) == 1.0 and tail(math.inf, 5) == 0.0 and tail(-math.inf, 1) == 0.0
    assert math.isnan(tail(math.nan, 5)) and math.isnan(tail(2.0, 0)) and math.isnan(tail(2.0, -1))


def test_t_distribution_tail_series():
    for df in [1, 2, 3, 4, 5, 29, 49, 200, 999, 20_000]:
        for t in [0.0, 1e-3, 0.5, 1.0, 1.96, 3.0, 8.0, 40.0]:
            expected = t_two_sided_reference(t, df)
            assert abs(cmp.statistics.t_two_sided_pvalue(t, df) - expected) <= 1e-12, (df, t)


def test_t_pvalues_in_the_comparison(random_runs):
    frame, runs = random_runs
    out = compare_per_query(frame, baseline="bm25", permutations=100, bootstrap=100)
    assert out.height == 4
    for row in out.iter_rows(named=True):
        a, b = runs[row["run"]][row["metric"]], runs["bm25"][row["metric"]]
        expected = t_two_sided_reference(_t_by_hand(a - b), N_QUERIES - 1)
        assert abs(row["t_pvalue"] - expected) <= 1e-12
        assert row["mean"] == pytest.approx(a.mean(), abs=1e-15)
        assert row["baseline_mean"] == pytest.approx(b.mean(), abs=1e-15)
        assert row["diff"] == pytest.approx((a - b).mean(), abs=1e-15)


@pytest.mark.parametrize("n", [3, 4, 10, 200, 5000])
def test_t_pvalues_across_sizes(n):
    rng = np.random.default_rng(n)
    d = rng.normal(rng.normal(0, 0.05, 30), rng.uniform(0.01, 0.5, 30), size=(n, 30))
    expected = [t_two_sided_reference(_t_by_hand(d[:, j]), n - 1) for j in range(30)]
    np.testing.assert_allclose(cmp.statistics.paired_t_pvalues(d), expected, rtol=0, atol=1e-12)


def test_importing_the_package_does_not_import_scipy_stats():
    # scipy.stats takes about 1.5 s to import; the t-test imports it on first use only.
    code = "import sys, polars_rank; print('scipy.stats' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_identical_runs_are_not_different():
    rng = np.random.default_rng(1)
    values = {"AP": rng.random(N_QUERIES)}
    out = compare_per_query(_long({"a": values, "b": values}), baseline="a")
    row = out.row(0, named=True)
    assert row["t_pvalue"] == 1.0  # zero variance, zero mean: convention p = 1
    assert row["perm_pvalue"] == 1.0
    assert row["t_pvalue_holm"] == 1.0 and row["perm_pvalue_holm"] == 1.0
    assert (row["ci_low"], row["ci_high"], row["diff"]) == (0.0, 0.0, 0.0)
    assert (row["wins"], row["ties"], row["losses"]) == (0, N_QUERIES, 0)
    assert row["significant"] is False


def test_constant_nonzero_difference_has_t_pvalue_zero():
    values = np.arange(8) / 16  # exact binary fractions: every difference is exactly 0.25
    out = compare_per_query(_long({"a": {"m": values}, "b": {"m": values + 0.25}}), baseline="a")
    # d = 0.25 exactly for every query: t = +inf, as scipy (p = 0).
    assert out["t_pvalue"][0] == 0.0
    assert out["wins"][0] == 8


def test_strongly_worse_run_has_small_randomization_pvalue():
    rng = np.random.default_rng(2)
    good = rng.uniform(0.5, 1.0, N_QUERIES)
    frame = _long({"good": {"AP": good}, "bad": {"AP": good - rng.uniform(0.2, 0.4, N_QUERIES)}})
    out = compare_per_query(frame, baseline="good", permutations=10_000)
    p = out["perm_pvalue"][0]
    # Every difference is negative: no sign flip reaches |observed| except all -1 (prob 2^-50),
    # so p = (0 + 1) / (10_000 + 1).
    assert p < 0.01
    assert p == pytest.approx(1 / 10_001)
    assert out["diff"][0] < 0 and out["losses"][0] == N_QUERIES


def test_randomization_pvalue_matches_exact_enumeration():
    rng = np.random.default_rng(3)
    d = rng.normal(0.08, 0.2, 10)
    observed = abs(d.mean())
    # Exact two-sided sign-flip test over all 2^10 sign vectors.
    stats = [abs(np.dot(s, d)) / 10 for s in itertools.product([-1.0, 1.0], repeat=10)]
    exact = sum(s >= observed - 1e-12 for s in stats) / 1024
    base = rng.random(10)
    frame = _long({"a": {"m": base}, "b": {"m": base + d}})
    p = compare_per_query(frame, baseline="a", permutations=40_000, bootstrap=10)["perm_pvalue"][0]
    assert 0.01 < exact < 0.9  # a non-trivial case
    assert p == pytest.approx(exact, abs=0.01)  # Monte-Carlo sd ≈ 0.0025


def test_chunked_permutations_give_a_valid_count(monkeypatch):
    monkeypatch.setattr(cmp.statistics, "CHUNK_CELLS", 7 * N_QUERIES)  # 7 permutations per chunk
    rng = np.random.default_rng(4)
    base = rng.random(N_QUERIES)
    frame = _long({"a": {"m": base}, "b": {"m": base}, "c": {"m": base + rng.normal(0, 0.3, 50)}})
    out = compare_per_query(frame, baseline="a", permutations=1_000, bootstrap=1_000)
    assert out["perm_pvalue"][0] == 1.0
    hits = out["perm_pvalue"][1] * 1_001 - 1
    assert abs(hits - round(hits)) < 1e-9 and 0 <= round(hits) <= 1_000


def test_seed_makes_results_reproducible(random_runs):
    frame, _ = random_runs
    first = compare_per_query(frame, baseline="bm25", seed=5, permutations=2_000, bootstrap=2_000)
    again = compare_per_query(frame, baseline="bm25", seed=5, permutations=2_000, bootstrap=2_000)
    other = compare_per_query(frame, baseline="bm25", seed=6, permutations=2_000, bootstrap=2_000)
    assert first.equals(again)
    assert not first["ci_low"].equals(other["ci_low"])


def test_a_row_does_not_depend_on_the_other_rows(random_runs):
    frame, _ = random_runs
    full = compare_per_query(frame, baseline="bm25", permutations=2_000, bootstrap=2_000)
    alone = compare_per_query(
        frame.filter(pl.col("run") != "noisy"),
        baseline="bm25",
        metrics=["AP"],
        permutations=2_000,
        bootstrap=2_000,
    )
    row = full.filter(run="dense", metric="AP")
    for col in ["t_pvalue", "perm_pvalue", "ci_low", "ci_high"]:
        assert row[col][0] == pytest.approx(alone[col][0], rel=1e-12)


def test_bootstrap_ci_contains_the_difference_and_has_normal_width(random_runs):
    frame, runs = random_runs
    out = compare_per_query(frame, baseline="bm25", confidence=0.95)
    for row in out.iter_rows(named=True):
        assert row["ci_low"] < row["diff"] < row["ci_high"]
        d = runs[row["run"]][row["metric"]] - runs["bm25"][row["metric"]]
        normal_width = 2 * 1.959964 * d.std(ddof=0) / math.sqrt(N_QUERIES)
        assert row["ci_high"] - row["ci_low"] == pytest.approx(normal_width, rel=0.15)
    narrow = compare_per_query(frame, baseline="bm25", confidence=0.5)
    assert ((narrow["ci_high"] - narrow["ci_low"]) < (out["ci_high"] - out["ci_low"])).all()


def test_holm_by_hand():
    # Sorted: 0.01·3 = 0.03; 0.03·2 = 0.06; max(0.06, 0.04·1) = 0.06 → back in input order.
    np.testing.assert_allclose(
        cmp.statistics.holm(np.array([0.01, 0.04, 0.03])), [0.03, 0.06, 0.06]
    )
    # Sorted: 0.02·4 = 0.08; 0.5·3 = 1.5 → 1; then stays 1 (monotone); NaN is left out of m.
    got = cmp.statistics.holm(np.array([0.5, 0.02, math.nan, 0.9, 0.6]))
    np.testing.assert_allclose(got, [1.0, 0.08, math.nan, 1.0, 1.0])


def test_holm_columns_adjust_over_all_rows(random_runs):
    frame, _ = random_runs
    out = compare_per_query(frame, baseline="bm25", permutations=1_000, bootstrap=100)
    p = out["t_pvalue"].to_numpy()
    order = np.argsort(p)
    m = len(p)  # 2 runs × 2 metrics
    by_hand = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        by_hand[i] = running
    np.testing.assert_allclose(out["t_pvalue_holm"].to_numpy(), by_hand, rtol=1e-15)
    assert (out["perm_pvalue_holm"] >= out["perm_pvalue"]).all()
    assert out["significant"].to_list() == (out["t_pvalue_holm"] < 0.05).to_list()


def test_wins_ties_losses_by_hand():
    frame = _long(
        {
            "base": {"P@10": np.array([0.1, 0.5, 0.3, 0.0, 0.7])},
            "new": {"P@10": np.array([0.2, 0.5, 0.1, 0.0, 0.9])},
        }
    )
    row = compare_per_query(frame, baseline="base", bootstrap=100).row(0, named=True)
    # d = [+0.1, 0, −0.2, 0, +0.2]
    assert (row["wins"], row["ties"], row["losses"]) == (2, 2, 1)
    assert row["diff"] == pytest.approx(0.1 / 5)
    assert (row["run"], row["baseline"], row["metric"]) == ("new", "base", "P@10")


def test_rounding_noise_counts_as_a_tie():
    values = np.array([0.1, 0.2, 0.3, 0.7])
    noisy = values + np.array([0.0, 2e-17, -5e-17, 1e-16])  # last-bit differences
    frame = _long({"a": {"m": values}, "b": {"m": noisy}, "c": {"m": values + 1e-9}})
    out = compare_per_query(frame, baseline="a", bootstrap=100)
    b, c = out.row(0, named=True), out.row(1, named=True)
    assert (b["ties"], b["t_pvalue"], b["perm_pvalue"], b["diff"]) == (4, 1.0, 1.0, 0.0)
    assert (c["wins"], c["ties"]) == (4, 0)  # 1e-9 is a real difference


def test_rows_are_matched_by_query_not_by_position():
    base = pl.DataFrame({"run": "a", "query": ["q1", "q2", "q3"], "m": [0.1, 0.2, 0.3]})
    other = pl.DataFrame({"run": "b", "query": ["q3", "q1", "q2"], "m": [0.3, 0.1, 0.2]})
    row = compare_per_query(pl.concat([base, other]), baseline="a").row(0, named=True)
    assert row["ties"] == 3 and row["t_pvalue"] == 1.0


def test_output_schema_and_order(random_runs):
    frame, _ = random_runs
    out = compare_per_query(frame, baseline="dense", metrics=["AP"], bootstrap=10)
    assert out.columns == [
        "run", "baseline", "metric", "mean", "baseline_mean", "diff", "t_pvalue",
        "perm_pvalue", "ci_low", "ci_high", "wins", "ties", "losses", "t_pvalue_holm",
        "perm_pvalue_holm", "tukey_pvalue", "significant",
    ]  # fmt: skip
    assert out.select("run", "metric").rows() == [("bm25", "AP"), ("noisy", "AP")]


def test_missing_query_is_an_error_naming_run_and_query():
    frame = pl.concat(
        [
            pl.DataFrame({"run": "bm25", "query": ["q1", "q2", "q3"], "AP": [0.1, 0.2, 0.3]}),
            pl.DataFrame({"run": "dense", "query": ["q1", "q3"], "AP": [0.1, 0.3]}),
        ]
    )
    with pytest.raises(ValueError, match=r"run 'dense' is missing query 'q2'"):
        compare_per_query(frame, baseline="bm25")
    with pytest.raises(ValueError, match=r"baseline 'dense' is missing query 'q2'"):
        compare_per_query(frame, baseline="dense")


def test_other_bad_input_errors():
    frame = pl.DataFrame({"run": ["a", "b", "b"], "query": ["q1", "q1", "q1"], "AP": [0.1] * 3})
    with pytest.raises(ValueError, match=r"run 'b' has more than one row for query 'q1'"):
        compare_per_query(frame, baseline="a")
    ok = pl.DataFrame({"run": ["a", "b"], "query": ["q1", "q1"], "AP": [0.1, 0.2]})
    with pytest.raises(ValueError, match="baseline run 'c' not among"):
        compare_per_query(ok, baseline="c")
    with pytest.raises(ValueError, match="at least one run besides"):
        compare_per_query(ok.filter(run="a"), baseline="a")
    with pytest.raises(ValueError, match=r"\['nDCG'\] not in"):
        compare_per_query(ok, baseline="a", metrics=["nDCG"])
    with pytest.raises(ValueError, match="'AP' has null or NaN"):
        compare_per_query(ok.with_columns(AP=pl.lit(math.nan)), baseline="a")


def _table_result() -> pl.DataFrame:
    rng = np.random.default_rng(9)
    base = rng.uniform(0.3, 0.7, N_QUERIES)
    frame = _long(
        {
            "bm25": {"nDCG@10": base, "AP": base / 2},
            "dense_v2": {"nDCG@10": base + 0.2, "AP": base / 2},
            "bad": {"nDCG@10": base - 0.25, "AP": base / 2 + rng.normal(0, 0.01, N_QUERIES)},
        }
    )
    return compare_per_query(frame, baseline="bm25", permutations=1_000, bootstrap=1_000)


def test_markdown_table_marks():
    result = _table_result()
    text = to_markdown(result, digits=3)
    lines = text.splitlines()
    assert lines[0] == "| Run | nDCG@10 | AP |"
    assert lines[1] == "|:---|---:|---:|"
    base = result["baseline_mean"].to_list()
    assert lines[2] == f"| bm25 | {base[0]:.3f} | {base[1]:.3f} |"  # baseline first, no marks
    dense, bad = result.filter(run="dense_v2"), result.filter(run="bad")
    assert lines[3] == f"| dense_v2 | {dense['mean'][0]:.3f}†▲ | {dense['mean'][1]:.3f} |"
    assert lines[4].startswith(f"| bad | {bad['mean'][0]:.3f}†▼ | {bad['mean'][1]:.3f}")
    assert not lines[4].endswith("†▲ |")
    assert lines[-1].startswith("† significantly different from the baseline bm25")
    assert "Holm–Bonferroni adjusted over 4 comparisons" in lines[-1]
    assert "▲ better, ▼ worse" in lines[-1]


def test_markdown_alpha_and_pvalue_column():
    result = _table_result()
    assert "†" not in to_markdown(result, alpha=0.0).split("\n\n")[0]
    assert "paired randomization test" in to_markdown(result, pvalue="perm_pvalue")
    with pytest.raises(ValueError, match="no p-value column"):
        to_markdown(result, pvalue="nope")


def test_latex_table_marks_and_escaping():
    result = _table_result()
    text = to_latex(result, digits=2)
    assert text.startswith("\\begin{tabular}{lrr}\n\\toprule\nRun & nDCG@10 & AP \\\\\n")
    assert "dense\\_v2 & " in text
    dense = result.filter(run="dense_v2")["mean"][0]
    bad = result.filter(run="bad")["mean"][0]
    assert f"{dense:.2f}$^{{\\dagger\\blacktriangle}}$" in text
    assert f"{bad:.2f}$^{{\\dagger\\blacktriangledown}}$" in text
    assert text.index("bm25 &") < text.index("dense\\_v2 &") < text.index("bad &")
    assert "\\multicolumn{3}{l}" in text and "$p < 0.05$" in text
    assert text.rstrip().endswith("\\end{tabular}")


def _toy_collection(n_queries: int = 30, seed: int = 0):
    rng = np.random.default_rng(seed)
    qrels, good, weak = [], [], []
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(20)]
        relevant = set(rng.choice(20, size=4, replace=False).tolist())
        qrels += [(f"q{q:02d}", docs[i], 1) for i in relevant]
        for i, doc in enumerate(docs):
            signal = 1.0 if i in relevant else 0.0
            good.append((f"q{q:02d}", doc, signal + rng.normal(0, 0.5)))
            weak.append((f"q{q:02d}", doc, rng.normal(0, 1)))
    cols = ["query", "doc"]
    return (
        pl.DataFrame(qrels, schema=[*cols, "relevance"], orient="row"),
        pl.DataFrame(weak, schema=[*cols, "score"], orient="row"),
        pl.DataFrame(good, schema=[*cols, "score"], orient="row"),
    )


def test_compare_evaluates_every_run():
    from polars_rank import evaluate

    qrels, weak, good = _toy_collection()
    metrics = ["nDCG@10", "AP"]
    out = compare({"weak": weak, "good": good, "same": weak}, qrels, metrics, bootstrap=500)
    assert out.select("run", "baseline", "metric").rows() == [
        ("good", "weak", "nDCG@10"),
        ("good", "weak", "AP"),
        ("same", "weak", "nDCG@10"),
        ("same", "weak", "AP"),
    ]
    means = evaluate(good, qrels, metrics).row(0)
    assert out.filter(run="good")["mean"].to_list() == pytest.approx(list(means), abs=1e-12)
    assert out.filter(run="good")["significant"].all()
    assert out.filter(run="same")["t_pvalue"].to_list() == [1.0, 1.0]
    pq = evaluate(good, qrels, metrics, per_query=True)
    pq_weak = evaluate(weak, qrels, metrics, per_query=True)
    d = (pq["AP"] - pq_weak["AP"]).to_numpy()
    expected = t_two_sided_reference(_t_by_hand(d), len(d) - 1)
    assert abs(out.filter(run="good", metric="AP")["t_pvalue"][0] - expected) <= 1e-12
    other = compare({"weak": weak, "good": good}, qrels, metrics, baseline="good", bootstrap=50)
    assert other["run"].to_list() == ["weak", "weak"] and (other["diff"] < 0).all()


def test_compare_passes_evaluate_options():
    qrels, weak, good = _toy_collection(10)
    rename = {"query": "qid"}
    out = compare(
        {"weak": weak.rename(rename).lazy(), "good": good.rename(rename).lazy()},
        qrels.rename(rename),
        ["P@5"],
        query="qid",
        bootstrap=50,
    )
    assert out.height == 1 and out["metric"][0] == "P@5"
    with pytest.raises(ValueError, match="baseline 'x' not among"):
        compare({"weak": weak}, qrels, ["AP"], baseline="x")


def test_non_string_run_and_query_names():
    frame = pl.DataFrame({"run": [1, 1, 2, 2], "query": [7, 8, 7, 8], "AP": [0.1, 0.2, 0.3, 0.2]})
    out = compare_per_query(frame, baseline=1, bootstrap=10)
    assert out.schema["run"] == pl.Int64 and out.row(0, named=True)["run"] == 2
    assert to_markdown(out).splitlines()[2] == "| 1 | 0.1500 |"
    assert "Holm–Bonferroni adjusted over 1 comparison," in to_markdown(out)


def test_demo_data_identical_and_reversed_runs():
    """The demo's best system against itself (p = 1) and against its own reversal (the same
    documents, scores negated, so the worst-ranked document comes first): p < 0.01."""
    from polars_rank.demo import demo_data

    qrels, runs = demo_data()
    rerank = runs["rerank"]
    reversed_run = rerank.with_columns(-pl.col("score"))
    out = compare(
        {"rerank": rerank, "same": rerank.clone(), "reversed": reversed_run},
        qrels,
        ["nDCG@10", "AP"],
        permutations=10_000,
    )
    same = out.filter(pl.col("run") == "same")
    assert same["perm_pvalue"].to_list() == [1.0, 1.0]
    assert same["t_pvalue"].to_list() == [1.0, 1.0]
    rev = out.filter(pl.col("run") == "reversed")
    assert (rev["perm_pvalue"] < 0.01).all()
    assert (rev["diff"] < 0).all()
