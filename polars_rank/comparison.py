"""Compare runs against a baseline, query by query, with significance tests.

:func:`compare_per_query` takes per-query metric values of several runs and returns one row per
(run, metric) comparison against the baseline: means, difference, paired t-test and
randomization-test p-values, a bootstrap confidence interval, wins / ties / losses and
Holm–Bonferroni adjusted p-values. :func:`compare` evaluates the runs first.
:func:`to_markdown` and :func:`to_latex` render the result as a table of means with
significance marks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl

from polars_rank._errors import PolarsRankError

# ---------------------------------------------------------------- statistics (numpy only)
# Rows of random signs / resampling weights drawn at a time: bounds memory to
# about ``_CHUNK_CELLS`` float64 cells whatever the number of permutations.
_CHUNK_CELLS = 2_000_000
# Relative size below which a per-query difference is rounding noise and counts as a tie.
_TIE_TOLERANCE = 1e-12


def _chunks(total: int, n: int) -> list[int]:
    """Split ``total`` draws of length ``n`` into chunk sizes of at most ``_CHUNK_CELLS`` cells."""
    size = max(1, _CHUNK_CELLS // max(n, 1))
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


def _t_two_sided_pvalue(t: float, df: float) -> float:
    """Two-sided p-value ``2·P(T_df ≥ |t|) = I_{df/(df+t²)}(df/2, 1/2)`` of Student's t.

    >>> round(_t_two_sided_pvalue(2.0, 10), 6)
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


def _paired_t_pvalues(d: np.ndarray) -> np.ndarray:
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
            out[j] = _t_two_sided_pvalue(float(mean[j] / math.sqrt(var[j] / n)), n - 1)
    return out


def _sign_flip_pvalues(d: np.ndarray, permutations: int, rng: np.random.Generator) -> np.ndarray:
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
    for size in _chunks(permutations, n):
        signs = rng.integers(0, 2, size=(size, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
        stats = np.abs(signs @ d) / n
        hits += (stats >= threshold).sum(axis=0)
    return (hits + 1.0) / (permutations + 1.0)


def _bootstrap_ci(
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
    for size in _chunks(resamples, n):
        counts = rng.multinomial(n, probabilities, size=size).astype(np.float64)
        means[start : start + size] = counts @ d / n
        start += size
    alpha = 1.0 - confidence
    low, high = np.quantile(means, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return low, high


def _holm(pvalues: np.ndarray) -> np.ndarray:
    """Holm–Bonferroni step-down adjusted p-values.

    Sort the ``m`` p-values ascending; ``p̃_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j))``.
    NaN p-values stay NaN and do not count in ``m``.

    >>> _holm(np.array([0.01, 0.04, 0.03])).round(6).tolist()
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


# ---------------------------------------------------------------- comparison table
_RESULT_SCHEMA: dict[str, pl.DataType] = {
    "run": pl.String(),
    "baseline": pl.String(),
    "metric": pl.String(),
    "mean": pl.Float64(),
    "baseline_mean": pl.Float64(),
    "diff": pl.Float64(),
    "t_pvalue": pl.Float64(),
    "perm_pvalue": pl.Float64(),
    "ci_low": pl.Float64(),
    "ci_high": pl.Float64(),
    "wins": pl.Int64(),
    "ties": pl.Int64(),
    "losses": pl.Int64(),
    "t_pvalue_holm": pl.Float64(),
    "perm_pvalue_holm": pl.Float64(),
    "significant": pl.Boolean(),
}


def _metric_columns(per_query: pl.DataFrame, run: str, query: str) -> list[str]:
    return [
        name
        for name, dtype in per_query.schema.items()
        if name not in (run, query) and dtype.is_numeric()
    ]


def _check_input(
    per_query: pl.DataFrame, baseline: str, metrics: list[str], run: str, query: str
) -> list[str]:
    """Validate the long per-query frame; return the run names in order of appearance."""
    missing = [c for c in (run, query, *metrics) if c not in per_query.columns]
    if missing:
        raise PolarsRankError(f"compare: column(s) {missing} not in the per-query frame")
    if not metrics:
        raise PolarsRankError("compare: no metric columns to compare")
    for metric in metrics:
        if not per_query.schema[metric].is_numeric():
            raise PolarsRankError(f"compare: metric column {metric!r} is not numeric")
    if per_query.select(pl.col(run, query).is_null().any()).row(0) != (False, False):
        raise PolarsRankError(f"compare: null values in the {run!r} or {query!r} column")
    bad = per_query.select(pl.col(metrics).cast(pl.Float64).fill_nan(None).is_null().any())
    for metric, has_missing in bad.row(0, named=True).items():
        if has_missing:
            raise PolarsRankError(f"compare: metric {metric!r} has null or NaN values")
    dup = per_query.filter(pl.struct(run, query).is_duplicated())
    if dup.height:
        r, q = dup.row(0, named=True)[run], dup.row(0, named=True)[query]
        raise PolarsRankError(f"compare: run {r!r} has more than one row for query {q!r}")
    runs = per_query[run].unique(maintain_order=True).to_list()
    if baseline not in runs:
        raise PolarsRankError(f"compare: baseline run {baseline!r} not among runs {runs}")
    if len(runs) < 2:
        raise PolarsRankError("compare: need at least one run besides the baseline")
    base_queries = per_query.filter(pl.col(run) == baseline).select(query)
    for name in runs:
        if name == baseline:
            continue
        other = per_query.filter(pl.col(run) == name).select(query)
        lacking = base_queries.join(other, on=query, how="anti", nulls_equal=True)
        if lacking.height:
            q = lacking.sort(query)[query][0]
            raise PolarsRankError(
                f"compare: run {name!r} is missing query {q!r} (present in baseline {baseline!r}); "
                "every run must have the same queries"
            )
        extra = other.join(base_queries, on=query, how="anti", nulls_equal=True)
        if extra.height:
            q = extra.sort(query)[query][0]
            raise PolarsRankError(
                f"compare: baseline {baseline!r} is missing query {q!r} (present in run {name!r}); "
                "every run must have the same queries"
            )
    return runs


def _matrix(
    per_query: pl.DataFrame, name: str, metrics: list[str], run: str, query: str
) -> np.ndarray:
    """Metric values of one run as a (queries × metrics) matrix, rows sorted by query."""
    frame = per_query.filter(pl.col(run) == name).sort(query)
    return frame.select(pl.col(metrics).cast(pl.Float64)).to_numpy()


def compare_per_query(
    per_query: pl.DataFrame,
    *,
    baseline: str,
    metrics: list[str] | None = None,
    run: str = "run",
    query: str = "query",
    permutations: int = 10_000,
    bootstrap: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> pl.DataFrame:
    """Compare every run with ``baseline`` on every metric, query by query.

    ``per_query`` is a long frame ``run, query, <metric columns>`` with one row per run and
    query; all runs must have the same queries. ``metrics`` defaults to every numeric column
    other than ``run`` and ``query``. With ``d_q = run_q − baseline_q`` over the ``n`` queries,
    each output row (one per non-baseline run and metric, runs in order of appearance) holds:

    - ``run``, ``baseline``, ``metric``; ``mean``, ``baseline_mean``; ``diff = mean(d)``.
    - ``t_pvalue``: paired two-sided t-test, ``t = mean(d) / (sd(d)/√n)``, ``n − 1`` degrees of
      freedom (equals ``scipy.stats.ttest_rel``). All ``d = 0`` (identical runs) → 1.0;
      constant non-zero ``d`` → 0.0; ``n = 1`` → NaN.
    - ``perm_pvalue``: two-sided paired randomization test: ``permutations`` random sign flips
      of ``d``, statistic ``|mean|``, ``p = (#{|perm| ≥ |observed|} + 1) / (permutations + 1)``
      (never 0; identical runs → 1.0).
    - ``ci_low``, ``ci_high``: percentile bootstrap interval (``bootstrap`` resamples of the
      queries) at level ``confidence`` for ``mean(d)``.
    - ``wins``, ``ties``, ``losses``: number of queries with ``d > 0``, ``d = 0``, ``d < 0``.
    - ``t_pvalue_holm``, ``perm_pvalue_holm``: Holm–Bonferroni adjusted over all rows of the
      output (every run × metric comparison).
    - ``significant``: ``t_pvalue_holm < 1 − confidence``.

    Ties: a difference ``|d_q| ≤ 1e-12 · max(1, |run_q|, |baseline_q|)`` is floating-point
    rounding noise (the same ranking scored twice may differ in the last bit) and is set to 0
    before every statistic, so equal values tie and identical runs get p = 1.

    Random draws come from ``numpy.random.default_rng`` seeded with ``seed``; the same sign
    flips and resamples are shared by all comparisons, so a row does not depend on which other
    runs or metrics are in the table.

    >>> pq = pl.DataFrame({"run": ["a"] * 3 + ["b"] * 3, "query": ["1", "2", "3"] * 2,
    ...                    "AP": [0.1, 0.2, 0.3, 0.2, 0.2, 0.5]})
    >>> out = compare_per_query(pq, baseline="a")
    >>> out.select("run", "metric", "wins", "ties", "losses").row(0), round(out["diff"][0], 6)
    (('b', 'AP', 2, 1, 0), 0.1)
    """
    if permutations < 1 or bootstrap < 1:
        raise PolarsRankError("compare: permutations and bootstrap must be positive")
    if not 0.0 < confidence < 1.0:
        raise PolarsRankError("compare: confidence must be between 0 and 1")
    metrics = list(metrics) if metrics is not None else _metric_columns(per_query, run, query)
    runs = _check_input(per_query, baseline, metrics, run, query)
    others = [name for name in runs if name != baseline]

    base = _matrix(per_query, baseline, metrics, run, query)
    values = np.concatenate([_matrix(per_query, n, metrics, run, query) for n in others], axis=1)
    tiled = np.tile(base, (1, len(others)))
    d = values - tiled
    # Differences at rounding-noise level are ties (see the docstring).
    scale = np.maximum(1.0, np.maximum(np.abs(values), np.abs(tiled)))
    d[np.abs(d) <= _TIE_TOLERANCE * scale] = 0.0

    perm_rng, boot_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    t_p = _paired_t_pvalues(d)
    perm_p = _sign_flip_pvalues(d, permutations, perm_rng)
    ci_low, ci_high = _bootstrap_ci(d, bootstrap, confidence, boot_rng)
    t_holm = _holm(t_p)
    run_dtype = per_query.schema[run]  # run names keep their type (usually String)
    return pl.DataFrame(
        {
            "run": [name for name in others for _ in metrics],
            "baseline": [baseline] * d.shape[1],
            "metric": metrics * len(others),
            "mean": values.mean(axis=0),
            "baseline_mean": np.tile(base.mean(axis=0), len(others)),
            "diff": d.mean(axis=0),
            "t_pvalue": t_p,
            "perm_pvalue": perm_p,
            "ci_low": ci_low,
            "ci_high": ci_high,
            "wins": (d > 0).sum(axis=0),
            "ties": (d == 0).sum(axis=0),
            "losses": (d < 0).sum(axis=0),
            "t_pvalue_holm": t_holm,
            "perm_pvalue_holm": _holm(perm_p),
            "significant": t_holm < 1.0 - confidence,
        },
        schema={**_RESULT_SCHEMA, "run": run_dtype, "baseline": run_dtype},
    )


def compare(
    qrels: pl.DataFrame,
    runs: Mapping[str, pl.DataFrame],
    metrics: list[str],
    *,
    baseline: str | None = None,
    permutations: int = 10_000,
    bootstrap: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    **evaluate_kwargs: Any,
) -> pl.DataFrame:
    """Evaluate each run per query and compare it with ``baseline`` (default: the first run).

    ``runs`` maps a run name to a ``query, doc, score`` frame. Each run is scored with
    ``evaluate(run, qrels, metrics, per_query=True, **evaluate_kwargs)``; the per-query frames
    are stacked with a ``run`` column and passed to :func:`compare_per_query` (see there for
    the output columns and the meaning of ``permutations``, ``bootstrap``, ``confidence`` and
    ``seed``). With the default ``queries="qrels"`` every run is scored on the same queries
    (all judged ones); ``queries="both"`` may give runs different query sets, which is an error.

    >>> compare(qrels, {"bm25": bm25, "dense": dense}, ["nDCG@10", "AP"])  # doctest: +SKIP
    """
    from polars_rank.evaluate import evaluate

    if not runs:
        raise PolarsRankError("compare: no runs given")
    names = list(runs)
    baseline = names[0] if baseline is None else baseline
    if baseline not in runs:
        raise PolarsRankError(f"compare: baseline {baseline!r} not among runs {names}")
    query = evaluate_kwargs.get("query", "query")
    frames = []
    for name, frame in runs.items():
        scores = evaluate(frame, qrels, metrics, per_query=True, **evaluate_kwargs)
        if isinstance(scores, pl.LazyFrame):
            scores = scores.collect()
        frames.append(scores.select(pl.lit(name, dtype=pl.String).alias("run"), pl.all()))
    return compare_per_query(
        pl.concat(frames, how="vertical_relaxed"),
        baseline=baseline,
        metrics=metrics,
        query=query,
        permutations=permutations,
        bootstrap=bootstrap,
        confidence=confidence,
        seed=seed,
    )


def _marked_table(
    result: pl.DataFrame, digits: int, alpha: float, pvalue: str, better: str, worse: str
) -> tuple[list[str], list[str], list[list[str]]]:
    """Run names, metric names and cell texts (mean + mark), baseline row first."""
    if result.is_empty():
        raise PolarsRankError("compare: empty comparison result")
    if pvalue not in result.columns:
        raise PolarsRankError(f"compare: no p-value column {pvalue!r} in the result")
    baselines = result["baseline"].unique().to_list()
    if len(baselines) != 1:
        raise PolarsRankError(f"compare: result mixes several baselines {baselines}")
    metrics = result["metric"].unique(maintain_order=True).to_list()
    runs = [baselines[0], *result["run"].unique(maintain_order=True).to_list()]
    base_means = dict(result.group_by("metric").agg(pl.col("baseline_mean").first()).iter_rows())
    cells = {(runs[0], m): f"{base_means[m]:.{digits}f}" for m in metrics}
    for row in result.iter_rows(named=True):
        text = f"{row['mean']:.{digits}f}"
        p = row[pvalue]
        if p is not None and p < alpha and row["diff"] != 0:
            text += better if row["diff"] > 0 else worse
        cells[(row["run"], row["metric"])] = text
    return runs, metrics, [[cells.get((r, m), "") for m in metrics] for r in runs]


def _footnote(baseline: str, pvalue: str, n: int) -> str:
    """Footnote text up to the threshold, e.g. ``... (paired t-test, Holm–Bonferroni ...,``."""
    test = "paired t-test" if pvalue.startswith("t_") else "paired randomization test"
    adjusted = ""
    if pvalue.endswith("_holm"):
        adjusted = f", Holm–Bonferroni adjusted over {n} comparison{'s' if n != 1 else ''}"
    return f"significantly different from the baseline {baseline} ({test}{adjusted},"


def to_markdown(
    result: pl.DataFrame,
    *,
    digits: int = 4,
    alpha: float = 0.05,
    pvalue: str = "t_pvalue_holm",
) -> str:
    """Markdown table of a :func:`compare_per_query` result: one row per run (baseline first),
    one column per metric holding the mean.

    A mean is marked ``†▲`` (better) or ``†▼`` (worse) when the ``pvalue`` column (default the
    Holm-adjusted t-test) is below ``alpha``; a footnote line explains the marks.

    >>> print(to_markdown(result))  # doctest: +SKIP
    | Run | nDCG@10 |
    |:---|---:|
    | bm25 | 0.4210 |
    | dense | 0.4935†▲ |
    <BLANKLINE>
    † significantly different from the baseline bm25 (paired t-test, ...); ▲ better, ▼ worse ...
    """
    runs, metrics, cells = _marked_table(result, digits, alpha, pvalue, "†▲", "†▼")

    def esc(text: object) -> str:
        return str(text).replace("|", "\\|")

    lines = [
        "| Run | " + " | ".join(esc(m) for m in metrics) + " |",
        "|:---|" + "---:|" * len(metrics),
    ]
    for name, row in zip(runs, cells, strict=True):
        lines.append(f"| {esc(name)} | " + " | ".join(row) + " |")
    lines.append("")
    note = _footnote(runs[0], pvalue, result.height)
    lines.append(f"† {note} p < {alpha:g}); ▲ better, ▼ worse than the baseline.")
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex_escape(text: object) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def to_latex(
    result: pl.DataFrame,
    *,
    digits: int = 4,
    alpha: float = 0.05,
    pvalue: str = "t_pvalue_holm",
) -> str:
    """LaTeX ``tabular`` of a :func:`compare_per_query` result (same layout and marks as
    :func:`to_markdown`). Needs the ``booktabs`` and ``amssymb`` packages.

    Marks: ``$^{\\dagger\\blacktriangle}$`` significantly better,
    ``$^{\\dagger\\blacktriangledown}$`` significantly worse; the footnote is the last row.
    """
    better, worse = r"$^{\dagger\blacktriangle}$", r"$^{\dagger\blacktriangledown}$"
    runs, metrics, cells = _marked_table(result, digits, alpha, pvalue, better, worse)
    ncol = len(metrics) + 1
    note = _latex_escape(_footnote(runs[0], pvalue, result.height)).replace("–", "--")
    note += rf" $p < {alpha:g}$); $\blacktriangle$ better, $\blacktriangledown$ worse"
    note += " than the baseline."
    lines = [
        r"\begin{tabular}{l" + "r" * len(metrics) + "}",
        r"\toprule",
        "Run & " + " & ".join(_latex_escape(m) for m in metrics) + r" \\",
        r"\midrule",
    ]
    for name, row in zip(runs, cells, strict=True):
        lines.append(_latex_escape(name) + " & " + " & ".join(row) + r" \\")
    lines += [
        r"\bottomrule",
        rf"\multicolumn{{{ncol}}}{{l}}{{\footnotesize $^{{\dagger}}$ {note}}} \\",
        r"\end{tabular}",
    ]
    return "\n".join(lines) + "\n"
