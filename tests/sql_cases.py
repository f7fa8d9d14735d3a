"""Data and comparisons the portable-SQL tests share: trec_eval's test files, stacked random
data sets, and the Polars engine's result as the reference.

Every metric list comes from the registry (:func:`strategies.registry_metric_names`), so a
metric added to the registry is checked on every engine and dialect without a test change.
"""

from __future__ import annotations

import warnings
from functools import cache
from pathlib import Path

import numpy as np
import polars as pl
from strategies import assert_same, registry_metric_names

import polars_rank as pr
from polars_rank.io import read_trec_qrels, read_trec_run
from polars_rank.ranking.names import parse_metric
from polars_rank.ranking.sql import column_names
from polars_rank.ranking.sql.compiler import not_portable

#: Every registry metric with portable SQL, with and without cutoffs, levels and parameters.
METRICS = [
    name
    for name in registry_metric_names(table="judged")
    if not_portable(parse_metric(name).entry) is None
]

#: trec_eval's test files: case -> (qrels file, run file, options), as trec_eval was run for
#: its expected outputs (see tests/test_conformance.py).
TREC_CASES = {
    "test": ("qrels.test", "results.test", {"queries": "both"}),
    "test_c": ("qrels.test", "results.test", {"queries": "qrels"}),
    "trunc_c": ("qrels.test", "results.trunc", {"queries": "qrels"}),
    "trunc_c_M100": ("qrels.test", "results.trunc", {"queries": "qrels", "max_rank": 100}),
    "rel_level_l2": ("qrels.rel_level", "results.test", {"queries": "both", "relevance_level": 2}),
}

#: Option sets the random data sets are checked under.
OPTION_SETS = [
    {"queries": "qrels"},
    {"queries": "both", "relevance_level": 2},
    {"queries": "qrels", "max_rank": 5},
    {"queries": "both", "max_rank": 20, "relevance_level": 0.5},
]


def accepted(qrels: pl.DataFrame, metrics: list[str] = METRICS) -> list[str]:
    """``metrics`` without ERR at a ``max_grade`` below the largest grade of ``qrels``, which
    every engine refuses (tests/test_err_rbp.py checks the error): ``ERR(max_grade=3)`` on
    qrels.rel_level, whose grades reach 4."""
    from polars_rank.ranking.names import parse_metric

    largest = qrels["relevance"].max()

    def ok(name: str) -> bool:
        arguments = parse_metric(name).arguments()
        return "max_grade" not in arguments or largest <= arguments["max_grade"]

    return [name for name in metrics if ok(name)]


def trec_case(trec_dir: Path, name: str) -> tuple[pl.DataFrame, pl.DataFrame, dict]:
    """Run ``query, doc, score``, qrels ``query, doc, relevance`` and options of a case."""
    qrels_name, run_name, options = TREC_CASES[name]
    run = read_trec_run(trec_dir / run_name).select("query", "doc", "score")
    qrels = read_trec_qrels(trec_dir / qrels_name).select("query", "doc", "relevance")
    return run, qrels, dict(options)


def _random_case(rng: np.random.Generator) -> tuple[list[tuple], list[tuple]]:
    """Rows of a small run and qrels: heavy score ties (and -0.0), grades -1..3, judged docs
    outside the run, queries only in the run and queries only in the qrels."""
    run_rows, qrels_rows = [], []
    for q in range(30):
        kind = rng.integers(0, 10)  # 0: run only, 1: qrels only, else both
        pool = rng.choice(200, size=rng.integers(1, 41), replace=False)
        if kind != 1:
            n = rng.integers(1, len(pool) + 1)
            scores = rng.integers(0, 4, n) / 2.0  # few distinct values: many ties
            if rng.random() < 0.2:
                scores = -scores
            run_rows += [(q, int(d), float(s)) for d, s in zip(pool[:n], scores, strict=True)]
        if kind != 0:
            judged = rng.choice(pool, size=rng.integers(1, len(pool) + 1), replace=False)
            extra = rng.choice(np.arange(200, 260), size=rng.integers(0, 4), replace=False)
            qrels_rows += [(q, int(d), int(rng.integers(-1, 4))) for d in [*judged, *extra]]
    return run_rows, qrels_rows


def stacked_random(
    n_cases: int, *, int_ids: bool, seed: int = 0
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``n_cases`` random data sets in one run and one qrels (query ids made distinct), so
    that one query per engine checks them all; integer ids (ties among doc 9 and doc 10 order
    by their decimal text) or the same ids as text."""
    rng = np.random.default_rng(seed)
    run_rows, qrels_rows = [], []
    for case in range(n_cases):
        run_part, qrels_part = _random_case(rng)
        run_rows += [(q + 1000 * case, d, s) for q, d, s in run_part]
        qrels_rows += [(q + 1000 * case, d, g) for q, d, g in qrels_part]
    run = pl.DataFrame(
        run_rows, schema={"query": pl.Int64, "doc": pl.Int64, "score": pl.Float64}, orient="row"
    )
    qrels = pl.DataFrame(
        qrels_rows,
        schema={"query": pl.Int64, "doc": pl.Int64, "relevance": pl.Int64},
        orient="row",
    )
    if not int_ids:
        run = run.with_columns(pl.col("query", "doc").cast(pl.String))
        qrels = qrels.with_columns(pl.col("query", "doc").cast(pl.String))
    return run, qrels


@cache
def _compiled(metrics: tuple[str, ...], dialect: str, run: str, qrels: str, options: tuple) -> str:
    return pr.to_sql(list(metrics), dialect, run, qrels, **dict(options))


def compiled(metrics: list[str], dialect: str, run: str, qrels: str, **options) -> str:
    """``pr.to_sql(...)``, remembered: generated data sets share a few option sets."""
    return _compiled(tuple(metrics), dialect, run, qrels, tuple(sorted(options.items())))


def reference(
    run: pl.DataFrame, qrels: pl.DataFrame, metrics: list[str], *, per_query: bool, **options
) -> pl.DataFrame:
    """The Polars engine's result (its warning silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pr.evaluate(run, qrels, metrics, per_query=per_query, **options)


def as_labels(
    result: pl.DataFrame, metrics: list[str], expected: pl.DataFrame, query: str = "query"
) -> pl.DataFrame:
    """A compiled query's result with the metric labels as column names, the query column in
    the expected dtype and rows sorted by query, for :func:`assert_same`."""
    result = result.rename({v: k for k, v in column_names(metrics, reserved=[query]).items()})
    if query in expected.columns:
        result = result.with_columns(pl.col(query).cast(expected.schema[query])).sort(query)
    return result


def assert_sql_result(
    got: pl.DataFrame, run: pl.DataFrame, qrels: pl.DataFrame, metrics: list[str], **options
) -> None:
    """A compiled query's result (per query when it has a query column, else the summary)
    equals the Polars engine's: same columns, dtypes (Float64 metrics) and values within
    1e-12."""
    query = options.get("query", "query")
    per_query = query in got.columns
    options.pop("per_query", None)
    expected = reference(run, qrels, metrics, per_query=per_query, **options)
    assert_same(expected, as_labels(got, metrics, expected, query))
