"""The statistics of run comparison, on NumPy matrices of per-query differences (queries ×
comparisons): paired t-test, randomization (sign-flip) test, bootstrap interval, Holm–Bonferroni.

>>> round(t_two_sided_pvalue(2.0, 10), 6)
0.073388
"""

from __future__ import annotations

import math

import numpy as np

# Rows of random signs / resampling weights drawn at a time: bounds memory to
# about ``CHUNK_CELLS`` float64 cells whatever the number of permutations.
CHUNK_CELLS = 2_000_000
# Relative size below which a per-query difference is rounding noise and counts as a tie.
TIE_TOLERANCE = 1e-12


def chunks(total: int, n: int) -> list[int]:
    """Split ``total`` draws of length ``n`` into chunk sizes of at most ``CHUNK_CELLS`` cells."""
    size = max(1, CHUNK_CELLS // max(n, 1))
    return [min(size, total - start) for start in range(0, total, size)]


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def _stirling_correction(x: float) -> float:
    """``log Γ(x) − ((x − ½)·log x − x + ½·log 2π)`` for ``x ≥ 10`` (asymptotic series)."""
    r = 1.0 / (x * x)
    series = 1 / 12 - r * (
        1 / 360 - r * (1 / 1260 - r * (1 / 1680 - r * (1 / 1188 - r * (691 / 360360))))
    )
    return series / x


def _log_beta(a: float, b: float) -> float:
    """``log B(a, b)``, avoiding the cancellation of ``lgamma`` differences for large ``a, b``."""
    small, big = min(a, b), max(a, b)
    if big < 10.0:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    # log Γ(big + small) − log Γ(big), written without subtracting large numbers.
    ratio = (
        (big - 0.5) * math.log1p(small / big)
        + small * math.log(big + small)
        - small
        + _stirling_correction(big + small)
        - _stirling_correction(big)
    )
    if small < 10.0:
        return math.lgamma(small) - ratio
    return (
        0.5 * math.log(2.0 * math.pi)
        + (small - 0.5) * math.log(small)
        - small
        + _stirling_correction(small)
        - ratio
    )


def _betainc(a: float, b: float, x: float, y: float, log_x: float, log_y: float) -> float:
    """Regularized incomplete beta ``I_x(a, b)`` for ``a, b > 0``, given ``y = 1 − x`` and both
    logarithms (computed accurately by the caller)."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    front = math.exp(a * log_x + b * log_y - _log_beta(a, b))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, y) / b


def t_two_sided_pvalue(t: float, df: float) -> float:
    """Two-sided p-value ``2·P(T_df ≥ |t|) = I_{df/(df+t²)}(df/2, 1/2)`` of Student's t.

    >>> round(t_two_sided_pvalue(2.0, 10), 6)
    0.073388
    """
    if math.isnan(t) or not df > 0:
        return math.nan
    if math.isinf(t):
        return 0.0
    t2 = t * t
    if t2 == 0.0:
        return 1.0
    x, y = df / (df + t2), t2 / (df + t2)
    log_x, log_y = -math.log1p(t2 / df), -math.log1p(df / t2)
    # I_x(df/2, 1/2) = 1 − I_y(1/2, df/2); the continued fraction picks the convergent side.
    return _betainc(df / 2.0, 0.5, x, y, log_x, log_y)


def paired_t_pvalues(d: np.ndarray) -> np.ndarray:
    """Paired two-sided t-test p-values, one per column of differences ``d`` (n × m).

    ``t = mean(d) / (sd(d) / √n)`` with ``sd`` the sample standard deviation (ddof = 1) and
    ``n − 1`` degrees of freedom, as ``scipy.stats.ttest_rel``. Conventions: all differences
    zero (identical runs) → 1.0; constant non-zero differences → 0.0; ``n < 2`` → NaN.
    """
    n = d.shape[0]
    out = np.full(d.shape[1], math.nan)
    if n < 2:
        return out
    mean = d.mean(axis=0)
    var = d.var(axis=0, ddof=1)
    for j in range(d.shape[1]):
        if not np.any(d[:, j]):
            out[j] = 1.0
        elif var[j] == 0.0:
            out[j] = 0.0
        else:
            out[j] = t_two_sided_pvalue(float(mean[j] / math.sqrt(var[j] / n)), n - 1)
    return out


def sign_flip_pvalues(d: np.ndarray, permutations: int, rng: np.random.Generator) -> np.ndarray:
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
    return (hits + 1.0) / (permutations + 1.0)


def bootstrap_ci(
    d: np.ndarray, resamples: int, confidence: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
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


def holm(pvalues: np.ndarray) -> np.ndarray:
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
