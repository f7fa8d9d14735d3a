"""The statistics of run comparison, on NumPy matrices of per-query differences (queries ×
comparisons): paired t-test, randomization (sign-flip) test, bootstrap interval, Holm–Bonferroni.

The Student t tail comes from ``scipy.stats.t`` (imported on first use: importing
``scipy.stats`` takes about 1.5 s).

The randomization test and the bootstrap stay hand-written because, with the same seeds,
``scipy.stats.permutation_test`` and ``scipy.stats.bootstrap`` draw other random streams (index
permutations and resampled indices, not ±1 sign rows and multinomial counts) and so give other
numbers (measured for 10–50 queries and 2 000 draws: p-values differ by up to 0.04, interval
ends by up to 0.006); ``permutation_test`` also enumerates exactly once ``2**n ≤ n_resamples``,
doubles the smaller one-sided p instead of counting ``|mean|``, and was about 150 times slower
on 200 queries × 40 comparisons, as it cannot share one sign matrix between comparisons.

>>> round(t_two_sided_pvalue(2.0, 10), 6)
0.073388
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

#: A NumPy array of float64 (per-query differences, p-values, interval ends).
Floats = npt.NDArray[np.float64]

# Rows of random signs / resampling weights drawn at a time: bounds memory to
# about ``CHUNK_CELLS`` float64 cells whatever the number of permutations.
CHUNK_CELLS = 2_000_000
# Relative size below which a per-query difference is rounding noise and counts as a tie.
TIE_TOLERANCE = 1e-12


def chunks(total: int, n: int) -> list[int]:
    """Split ``total`` draws of length ``n`` into chunk sizes of at most ``CHUNK_CELLS`` cells."""
    size = max(1, CHUNK_CELLS // max(n, 1))
    return [min(size, total - start) for start in range(0, total, size)]


def _t_tail(t: Floats | np.float64, df: float) -> Floats:
    """``2·P(T_df ≥ |t|)`` elementwise, by ``scipy.stats.t.sf`` (as ``scipy.stats.ttest_rel``)."""
    from scipy import stats  # deferred: keeps ``import polars_rank`` free of scipy.stats

    tail: Floats = 2.0 * stats.t.sf(np.abs(t), df)  # scipy has no type information here
    return tail


def t_two_sided_pvalue(t: float, df: float) -> float:
    """Two-sided p-value ``2·P(T_df ≥ |t|) = I_{df/(df+t²)}(df/2, 1/2)`` of Student's t with
    ``df`` degrees of freedom, from ``scipy.stats.t.sf``.

    Conventions: NaN ``t`` or ``df ≤ 0`` → NaN; ``t = ±∞`` → 0.0; ``t = 0`` → 1.0.

    >>> round(t_two_sided_pvalue(2.0, 10), 6)
    0.073388
    """
    if math.isnan(t) or not df > 0:
        return math.nan
    if math.isinf(t):
        return 0.0
    if t == 0.0:
        return 1.0
    return float(_t_tail(np.float64(t), df))


def paired_t_pvalues(d: Floats) -> Floats:
    """Paired two-sided t-test p-values, one per column of differences ``d`` (n × m).

    ``t = mean(d) / (sd(d) / √n)`` with ``sd`` the sample standard deviation (ddof = 1) and
    ``n − 1`` degrees of freedom; ``p = 2·P(T_{n−1} ≥ |t|)`` by ``scipy.stats.t.sf``, as
    ``scipy.stats.ttest_rel``. Conventions: all differences zero (identical runs) → 1.0 (where
    ``ttest_rel`` gives NaN); constant non-zero differences → 0.0; ``n < 2`` → NaN; a column
    with NaN → NaN.
    """
    n = d.shape[0]
    out = np.full(d.shape[1], math.nan)
    if n < 2:
        return out
    mean = d.mean(axis=0)
    var = d.var(axis=0, ddof=1)
    zero = ~d.any(axis=0)
    constant = ~zero & (var == 0.0)
    rest = ~zero & ~constant
    out[zero] = 1.0
    out[constant] = 0.0
    if rest.any():
        out[rest] = _t_tail(mean[rest] / np.sqrt(var[rest] / n), n - 1)
    return out


def sign_flip_pvalues(d: Floats, permutations: int, rng: np.random.Generator) -> Floats:
    """Two-sided paired randomization (sign-flip) test p-values, one per column of ``d``.

    Under the null hypothesis each per-query difference is equally likely to have either sign.
    Each permutation multiplies the differences by an independent random ±1 vector; the
    statistic is the mean difference. ``p = (#{|perm mean| ≥ |observed mean|} + 1) /
    (permutations + 1)``, where ``≥`` tolerates a relative rounding error of 1e-9 of the mean
    absolute difference. The same sign matrix is shared by all columns. Identical runs → 1.0.
    """
    n, m = d.shape
    observed = np.abs(d.mean(axis=0))
    tolerance = 1e-9 * np.abs(d).mean(axis=0)
    threshold = observed - tolerance
    hits = np.zeros(m, dtype=np.int64)
    for size in chunks(permutations, n):
        signs = rng.integers(0, 2, size=(size, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
        stats = np.abs(signs @ d) / n
        hits += (stats >= threshold).sum(axis=0)
    return (hits.astype(np.float64) + 1.0) / (permutations + 1.0)  # exact: counts < 2**53


def bootstrap_ci(
    d: Floats, resamples: int, confidence: float, rng: np.random.Generator
) -> tuple[Floats, Floats]:
    """Percentile bootstrap confidence interval of the mean of each column of ``d``.

    Each resample draws ``n`` queries with replacement (as multinomial counts, shared by all
    columns); the interval is the ``(1 − confidence)/2`` and ``(1 + confidence)/2`` quantiles
    (linear interpolation) of the resampled means.
    """
    n, m = d.shape
    means = np.empty((resamples, m))
    start = 0
    probabilities = np.full(n, 1.0 / n)
    for size in chunks(resamples, n):
        counts = rng.multinomial(n, probabilities, size=size).astype(np.float64)
        means[start : start + size] = counts @ d / n
        start += size
    alpha = 1.0 - confidence
    low, high = np.quantile(means, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return low, high


def tukey_pvalues(runs: list[Floats]) -> Floats:
    """Tukey's HSD p-values of every pair of runs for every metric: ``runs`` holds one
    (queries × metrics) matrix per run; the result is (metrics × runs × runs), entry
    ``[m, i, j]`` the p-value of runs ``i`` and ``j`` on metric ``m``, from
    ``scipy.stats.tukey_hsd`` on the runs' values (one-way: the queries are not paired), as
    ranx's ``tukey`` test computes it. With no variance within the runs, scipy's value: 0.0
    for runs of different means, NaN for equal ones; NaN with one query. With two runs it is
    the two-sample t-test's p-value.

    >>> a, b = np.array([[0.1], [0.2], [0.3]]), np.array([[0.5], [0.6], [0.7]])
    >>> round(float(tukey_pvalues([a, b])[0, 0, 1]), 6)  # t = -0.4 / sqrt(2 * 0.01 / 3), 4 df
    0.00805
    """
    from scipy import stats  # deferred, as in _t_tail

    n_metrics = runs[0].shape[1]
    out = np.full((n_metrics, len(runs), len(runs)), np.nan)
    if runs[0].shape[0] < 2:
        return out
    for m in range(n_metrics):
        with np.errstate(divide="ignore", invalid="ignore"):  # no variance: scipy's value
            out[m] = stats.tukey_hsd(*(r[:, m] for r in runs)).pvalue
    return out


def holm(pvalues: Floats) -> Floats:
    """Holm–Bonferroni step-down adjusted p-values.

    Sort the ``m`` p-values ascending; ``p̃_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j))``.
    NaN p-values stay NaN and do not count in ``m``.

    >>> holm(np.array([0.01, 0.04, 0.03])).round(6).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, math.nan)
    valid = np.flatnonzero(~np.isnan(p))
    m = valid.size
    if m == 0:
        return out
    order = valid[np.argsort(p[valid], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out
