"""Compare runs against a baseline, or every run against every other, query by query, with
significance tests.

:func:`compare_per_query` takes per-query metric values of several runs and returns one row per
(run, metric) comparison against the baseline (``pairs="all"``: per pair of runs): means,
difference, paired t-test and randomization-test p-values, a bootstrap confidence interval,
wins / ties / losses, Holm–Bonferroni adjusted p-values and Tukey's HSD over all the runs.
:func:`compare` evaluates the runs first; both take ``by=`` (one comparison per segment).
:func:`to_markdown` and :func:`to_latex` render the result as a table of means with
significance marks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal, Unpack

import numpy as np
import polars as pl

from polars_rank.comparison import statistics
from polars_rank.comparison.render import to_latex, to_markdown
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.frames import to_frame
from polars_rank.core.types import EvaluateOptions, FrameLike, TableInput

__all__ = ["compare", "compare_per_query", "statistics", "to_latex", "to_markdown"]

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
    "tukey_pvalue": pl.Float64(),
    "significant": pl.Boolean(),
}

#: ``pairs=`` of :func:`compare_per_query`: each run against the baseline, or every pair.
Pairs = Literal["baseline", "all"]


def _metric_columns(per_query: pl.DataFrame, run: str, query: str) -> list[str]:
    return [
        name
        for name, dtype in per_query.schema.items()
        if name not in (run, query) and dtype.is_numeric()
    ]


def _check_input(
    per_query: pl.DataFrame, baseline: str | None, metrics: list[str], run: str, query: str
) -> list[str]:
    """Validate the long per-query frame; return the run names in order of appearance (the
    baseline, when given, must be one; every run must have the first run's queries)."""
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
    if baseline is not None and baseline not in runs:
        raise PolarsRankError(f"compare: baseline run {baseline!r} not among runs {runs}")
    if len(runs) < 2:
        what = "besides the baseline" if baseline is not None else "to compare with"
        raise PolarsRankError(f"compare: need at least one run {what}; runs are {runs}")
    first = baseline if baseline is not None else runs[0]
    label = "baseline" if baseline is not None else "run"
    base_queries = per_query.filter(pl.col(run) == first).select(query)
    for name in runs:
        if name == first:
            continue
        other = per_query.filter(pl.col(run) == name).select(query)
        lacking = base_queries.join(other, on=query, how="anti", nulls_equal=True)
        if lacking.height:
            q = lacking.sort(query)[query][0]
            raise PolarsRankError(
                f"compare: run {name!r} is missing query {q!r} (present in {label} {first!r}); "
                "every run must have the same queries"
            )
        extra = other.join(base_queries, on=query, how="anti", nulls_equal=True)
        if extra.height:
            q = extra.sort(query)[query][0]
            raise PolarsRankError(
                f"compare: {label} {first!r} is missing query {q!r} (present in run {name!r}); "
                "every run must have the same queries"
            )
    return runs


def _matrix(
    per_query: pl.DataFrame, name: str, metrics: list[str], run: str, query: str
) -> statistics.Floats:
    """Metric values of one run as a (queries × metrics) matrix, rows sorted by query."""
    frame = per_query.filter(pl.col(run) == name).sort(query)
    return frame.select(pl.col(metrics).cast(pl.Float64)).to_numpy()


def compare_per_query(
    per_query: FrameLike,
    *,
    baseline: str | None = None,
    pairs: Pairs = "baseline",
    metrics: list[str] | None = None,
    run: str = "run",
    query: str = "query",
    by: str | Iterable[str] | None = None,
    permutations: int = 10_000,
    bootstrap: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> pl.DataFrame:
    """Compare every run with ``baseline`` (or, ``pairs="all"``, every run with every other)
    on every metric, query by query.

    ``per_query`` is a long frame ``run, query, <metric columns>`` with one row per run and
    query; all runs must have the same queries. ``metrics`` defaults to every numeric column
    other than ``run``, ``query`` and ``by``.

    ``pairs="baseline"`` (``baseline`` required) compares each other run with the baseline;
    ``pairs="all"`` (no ``baseline``: ranx's ``compare``) compares every pair of runs, each
    once: with the runs in order of appearance, run ``j`` against run ``i < j``, which is the
    row's ``baseline``. ``by`` names segment columns of ``per_query``: each segment is compared
    on its own (its queries, its Holm family, the same seeds), one block of rows per segment,
    segments sorted (nulls first) and their columns first.

    With ``d_q = run_q − baseline_q`` over the ``n`` queries, each output row (one per
    compared pair and metric, in the order above) holds:

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
      output (every pair × metric comparison; per segment with ``by``).
    - ``tukey_pvalue``: Tukey's honestly significant difference test over all the runs (not
      only the compared ones) for the metric, the pair's p-value as ranx's ``tukey`` test
      computes it (``scipy.stats.tukey_hsd`` on the runs' per-query values: one-way, not
      paired, already adjusted for all pairs); NaN with one query.
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
    >>> pq3 = pl.concat([pq, pq.filter(pl.col("run") == "b").with_columns(run=pl.lit("c"))])
    >>> compare_per_query(pq3, pairs="all").select("baseline", "run").rows()
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    """
    frame = to_frame(per_query, "per_query")
    if permutations < 1 or bootstrap < 1:
        raise PolarsRankError("compare: permutations and bootstrap must be positive")
    if not 0.0 < confidence < 1.0:
        raise PolarsRankError("compare: confidence must be between 0 and 1")
    if pairs not in ("baseline", "all"):
        raise PolarsRankError(f"compare: pairs must be 'baseline' or 'all', got {pairs!r}")
    if pairs == "baseline" and baseline is None:
        raise PolarsRankError("compare: pairs='baseline' needs baseline= (a run's name)")
    if pairs == "all" and baseline is not None:
        raise PolarsRankError("compare: pairs='all' compares every pair of runs: no baseline=")
    segments = [by] if isinstance(by, str) else list(by or [])
    missing = [c for c in segments if c not in frame.columns]
    if missing:
        raise PolarsRankError(f"compare: by column(s) {missing} not in the per-query frame")
    if metrics is None:
        metrics = [m for m in _metric_columns(frame, run, query) if m not in segments]
    metrics = list(metrics)

    def one(part: pl.DataFrame) -> pl.DataFrame:
        return _compare_frame(
            part,
            baseline=baseline,
            metrics=metrics,
            run=run,
            query=query,
            permutations=permutations,
            bootstrap=bootstrap,
            confidence=confidence,
            seed=seed,
        )

    if not segments:
        return one(frame)
    if set(segments) & {run, query, *metrics}:
        raise PolarsRankError(f"compare: by {segments} names the run, query or a metric column")
    blocks = []
    keys = frame.select(segments).unique().sort(segments, nulls_last=False)
    for key in keys.iter_rows(named=True):
        part = frame.filter(
            pl.all_horizontal(
                pl.col(c).eq_missing(pl.lit(v, dtype=keys.schema[c])) for c, v in key.items()
            )
        )
        try:
            result = one(part.drop(segments))
        except PolarsRankError as error:
            raise PolarsRankError(f"{error} (segment {key})") from None
        blocks.append(pl.DataFrame([key] * result.height, schema=keys.schema).hstack(result))
    return pl.concat(blocks)


def _compare_frame(
    frame: pl.DataFrame,
    *,
    baseline: str | None,
    metrics: list[str],
    run: str,
    query: str,
    permutations: int,
    bootstrap: int,
    confidence: float,
    seed: int,
) -> pl.DataFrame:
    """:func:`compare_per_query` of one segment (its options checked)."""
    runs = _check_input(frame, baseline, metrics, run, query)
    matrices = {name: _matrix(frame, name, metrics, run, query) for name in runs}
    if baseline is not None:
        compared = [(baseline, name) for name in runs if name != baseline]
    else:
        compared = [(a, b) for i, a in enumerate(runs) for b in runs[i + 1 :]]
    values = np.concatenate([matrices[name] for _, name in compared], axis=1)
    tiled = np.concatenate([matrices[base] for base, _ in compared], axis=1)
    d = values - tiled
    # Differences at rounding-noise level are ties (see the docstring).
    scale = np.maximum(1.0, np.maximum(np.abs(values), np.abs(tiled)))
    d[np.abs(d) <= statistics.TIE_TOLERANCE * scale] = 0.0

    perm_rng, boot_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    t_p = statistics.paired_t_pvalues(d)
    perm_p = statistics.sign_flip_pvalues(d, permutations, perm_rng)
    ci_low, ci_high = statistics.bootstrap_ci(d, bootstrap, confidence, boot_rng)
    t_holm = statistics.holm(t_p)
    tukey = statistics.tukey_pvalues([matrices[name] for name in runs])
    index = {name: i for i, name in enumerate(runs)}
    run_dtype = frame.schema[run]  # run names keep their type (usually String)
    return pl.DataFrame(
        {
            "run": [name for _, name in compared for _ in metrics],
            "baseline": [base for base, _ in compared for _ in metrics],
            "metric": metrics * len(compared),
            "mean": values.mean(axis=0),
            "baseline_mean": tiled.mean(axis=0),
            "diff": d.mean(axis=0),
            "t_pvalue": t_p,
            "perm_pvalue": perm_p,
            "ci_low": ci_low,
            "ci_high": ci_high,
            "wins": (d > 0).sum(axis=0),
            "ties": (d == 0).sum(axis=0),
            "losses": (d < 0).sum(axis=0),
            "t_pvalue_holm": t_holm,
            "perm_pvalue_holm": statistics.holm(perm_p),
            "tukey_pvalue": [
                tukey[m, index[base], index[name]]
                for base, name in compared
                for m in range(len(metrics))
            ],
            "significant": t_holm < 1.0 - confidence,
        },
        schema={**_RESULT_SCHEMA, "run": run_dtype, "baseline": run_dtype},
    )


def compare(
    runs: Mapping[str, TableInput],
    qrels: TableInput | None,
    metrics: list[str],
    *,
    baseline: str | None = None,
    pairs: Pairs = "baseline",
    permutations: int = 10_000,
    bootstrap: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    **evaluate_options: Unpack[EvaluateOptions],
) -> pl.DataFrame:
    """Evaluate each run per query and compare it with ``baseline`` (default: the first run),
    or, ``pairs="all"``, compare every pair of runs (ranx's ``compare``).

    ``runs`` maps a run name to a ``query, doc, score`` frame. The runs are scored with
    :func:`polars_rank.evaluate_runs` (``per_query=True``, ``evaluate_options`` passed on,
    ``by`` included: each segment is compared on its own) and the result goes to
    :func:`compare_per_query` (see there for the output columns and the meaning of ``pairs``,
    ``permutations``, ``bootstrap``, ``confidence`` and ``seed``). With the default
    ``queries="qrels"`` every run is scored on the same queries (all judged ones);
    ``queries="both"`` may give runs different query sets, which is an error.

    The arguments come in the order of :func:`polars_rank.evaluate` (runs, qrels, metrics).

    >>> import polars as pl, polars_rank as pr
    >>> qrels = pl.DataFrame({"query": ["q1", "q2"], "doc": ["a", "b"], "relevance": [1, 1]})
    >>> run = pl.DataFrame({"query": ["q1", "q1", "q2", "q2"], "doc": ["a", "b", "a", "b"],
    ...                     "score": [2.0, 1.0, 2.0, 1.0]})
    >>> out = pr.compare({"base": run, "same": run}, qrels, ["RR"], permutations=10, bootstrap=10)
    >>> out.select("run", "mean", "baseline_mean", "t_pvalue").rows()
    [('same', 0.75, 0.75, 1.0)]
    """
    from polars_rank.evaluation import evaluate_runs

    if not runs:
        raise PolarsRankError("compare: no runs given")
    names = list(runs)
    if pairs == "baseline":
        baseline = names[0] if baseline is None else baseline
        if baseline not in runs:
            raise PolarsRankError(f"compare: baseline {baseline!r} not among runs {names}")
    if len(names) < 2:
        raise PolarsRankError(f"compare: need at least two runs; got {names}")
    by = evaluate_options.get("by")
    per_query = evaluate_runs(runs, qrels, metrics, per_query=True, **evaluate_options)
    return compare_per_query(
        per_query,
        baseline=baseline,
        pairs=pairs,
        metrics=metrics,
        query=evaluate_options.get("query", "query"),
        by=by,
        permutations=permutations,
        bootstrap=bootstrap,
        confidence=confidence,
        seed=seed,
    )
