"""Data and comparisons the portable-SQL tests share: trec_eval's test files, stacked random
data sets, and the Polars engine's result as the reference.

Every metric list comes from the registry (:func:`strategies.registry_metric_names`), so a
metric added to the registry is checked on every engine and dialect without a test change.
"""

from __future__ import annotations

import math
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_rank as pr
from polars_rank.catalog.names import parse_metric
from polars_rank.compiler import column_names
from polars_rank.compiler.compile import not_portable
from polars_rank.io import read_trec_qrels, read_trec_run
from tests.support.strategies import assert_same, registry_metric_names

#: Every registry metric with portable SQL, with and without cutoffs, levels and parameters.
METRICS = [
    name
    for name in registry_metric_names(table="judged")
    if not_portable(parse_metric(name).entry) is None
]

#: trec_eval's test files: case -> (qrels file, run file, options), as trec_eval was run for
#: its expected outputs (see tests/oracles/test_conformance.py).
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
    every engine refuses (tests/oracles/test_err_rbp.py checks the error): ``ERR(max_grade=3)`` on
    qrels.rel_level, whose grades reach 4."""
    from polars_rank.catalog.names import parse_metric

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


def _int_frames(run_rows: list, qrels_rows: list) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run ``(query, doc, score)`` and qrels ``(query, doc, relevance)`` with Int64 ids."""
    run = pl.DataFrame(
        run_rows, schema={"query": pl.Int64, "doc": pl.Int64, "score": pl.Float64}, orient="row"
    )
    qrels = pl.DataFrame(
        qrels_rows,
        schema={"query": pl.Int64, "doc": pl.Int64, "relevance": pl.Int64},
        orient="row",
    )
    return run, qrels


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
    run, qrels = _int_frames(run_rows, qrels_rows)
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


#: Every recommender metric with portable SQL, with and without cutoffs and parameters, and
#: a few combinations (RecBole's TailPercentage: tail_share, unknown=head, count=interactions).
RECOMMENDER_METRICS = [
    *(
        name
        for name in registry_metric_names(table="recommendations", kind="vectors")
        if not_portable(parse_metric(name).entry) is None
    ),
    "TailPercentage@5",
    "user_coverage(rel=1)@5",
    "novelty(unknown=zero,model=discovery,count=interactions)@5",
    "entropy(base=2.718281828459045,per_item=true)",
    "serendipity(gain=graded,rel=2)@5",
]

#: The metrics that read item features (vectors in the portable SQL).
FEATURE_METRICS = ("intra_list_diversity", "serendipity")


def _features(metrics: list[str], with_features: bool) -> list[str]:
    """``metrics`` without those that read item features, unless there are features."""
    return [m for m in metrics if with_features or parse_metric(m).metric not in FEATURE_METRICS]


def recommender_random(n_users: int, *, int_ids: bool, seed: int = 0) -> dict[str, pl.DataFrame]:
    """``run, qrels, interactions, catalog, item_features`` over ``n_users`` users and 60
    items: score ties (and -0.0), users only in the run, only in the qrels and without history,
    history users outside the run, repeated history rows, popularity ties, recommended items
    without history and items outside the catalog (and catalog items never recommended);
    feature vectors (``doc, vector``, 4 components, equal and opposite vectors among them) for
    most items, with a zero and a NULL vector. Integer ids (whose text order differs from their
    numeric order) or the same ids as text."""
    rng = np.random.default_rng(seed)
    run_rows, qrels_rows, history = [], [], []
    for q in range(n_users):
        kind = rng.integers(0, 10)  # 0: run only, 1: qrels only, else both
        pool = rng.choice(60, size=rng.integers(1, 16), replace=False)
        if kind != 1:
            scores = rng.integers(0, 4, len(pool)) / 2.0
            if rng.random() < 0.2:
                scores = -scores
            run_rows += [(q, int(d), float(s)) for d, s in zip(pool, scores, strict=True)]
        if kind != 0:
            judged = rng.choice(60, size=rng.integers(1, 8), replace=False)
            qrels_rows += [(q, int(d), int(rng.integers(-1, 4))) for d in judged]
        if rng.random() < 0.8:  # a history of items 0..49, popular ones more often
            seen = np.minimum(rng.geometric(0.08, size=rng.integers(1, 12)) - 1, 49)
            history += [(q, int(d)) for d in seen]
    history += [(n_users + u, int(d)) for u in range(5) for d in rng.choice(50, 3)]
    catalog = [d for d in range(70) if d % 7 != 3]  # misses some recommended items
    run, qrels = _int_frames(run_rows, qrels_rows)
    interactions = pl.DataFrame(history, schema={"query": pl.Int64, "doc": pl.Int64}, orient="row")
    items = pl.DataFrame({"doc": catalog}, schema={"doc": pl.Int64})
    with_vector = [d for d in range(70) if d % 11 != 5]  # the others have no vector
    vectors = rng.choice([-1.0, 0.0, 0.0, 0.5, 1.0, 2.0], size=(len(with_vector), 4)).tolist()
    vectors[0], vectors[1] = [0.0] * 4, None  # a zero and a NULL vector: similar to nothing
    features = pl.DataFrame(
        {"doc": with_vector, "vector": vectors},
        schema={"doc": pl.Int64, "vector": pl.List(pl.Float64)},
    )
    frames = [run, qrels, interactions, items, features]
    if not int_ids:  # ids whose byte order is not the numeric one nor a locale's
        frames = [
            f.with_columns(pl.col(c).cast(pl.String) for c in ("query", "doc") if c in f.columns)
            for f in frames
        ]
        frames = [
            f.with_columns(
                pl.when(pl.col("doc").cast(pl.Int64) % 3 == 0)
                .then(pl.lit("I") + pl.col("doc"))
                .otherwise(pl.lit("i") + pl.col("doc"))
                .alias("doc")
            )
            for f in frames
        ]
    names = ["run", "qrels", "interactions", "catalog", "item_features"]
    return dict(zip(names, frames, strict=True))


def recommender_reference(
    run: pl.DataFrame | None,
    qrels: pl.DataFrame | None,
    metrics: list[str],
    *,
    per_query: bool,
    **options,
) -> pl.DataFrame:
    """The Polars engine's result for recommender metrics (its warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pr.evaluate(run, qrels, metrics, per_query=per_query, **options)


def per_query_metrics(metrics: list[str]) -> list[str]:
    """The metrics of ``metrics`` that have a value per query (not the corpus ones)."""
    return [m for m in metrics if parse_metric(m).entry.level == "query"]


#: Option sets the recommender SQL is checked under (the users follow ``queries``; the top
#: rows are cut at ``max_rank``).
RECOMMENDER_OPTIONS = [{}, {"queries": "both", "max_rank": 4}]

#: Table names the recommender tests load their frames under.
RECOMMENDER_TABLES = {
    "run": "run_t",
    "qrels": "qrels_t",
    "interactions": "inter_t",
    "catalog": "cat_t",
    "item_features": "feat_t",
}


def _reads_qrels(name: str) -> bool:
    spec = parse_metric(name)
    return spec.entry.uses_qrels(spec.arguments())


def assert_recommender_sql(
    query,
    dialect: str,
    frames: dict[str, pl.DataFrame | None],
    *,
    batch: int | None = None,
    **options,
) -> None:
    """The compiled recommender SQL, run by ``query`` (SQL text -> frame) over the
    :data:`RECOMMENDER_TABLES` holding ``frames``, equals the Polars engine within 1e-12:
    the summary of every portable recommender metric (with nDCG@3 beside them) with the
    default and an explicit catalog; the per-query values of the per-user metrics; and,
    without qrels, every run user evaluated (summary and per user). ILD and serendipity only
    when ``frames["item_features"]`` (vectors) is not None. ``batch``: at most this many
    metrics per query (a Spark task with 2 GB runs out of memory on the plan of all of them)."""
    features = frames.get("item_features")
    metrics = _features([*RECOMMENDER_METRICS, "nDCG@3"], features is not None)
    size = batch or len(metrics)
    for start in range(0, len(metrics), size):
        _assert_recommender_batch(query, dialect, frames, metrics[start : start + size], options)


def _assert_recommender_batch(query, dialect, frames, metrics, options) -> None:
    t = RECOMMENDER_TABLES
    run, qrels = frames["run"], frames["qrels"]
    features = frames.get("item_features")
    options = dict(options)
    tables = {"interactions": t["interactions"]}
    inputs = {"interactions": frames["interactions"]}
    if features is not None:
        tables["item_features"] = t["item_features"]
        inputs["item_features"] = features
    for catalog in (None, frames["catalog"]):
        sql = pr.to_sql(
            metrics,
            dialect,
            t["run"],
            t["qrels"],
            catalog=None if catalog is None else t["catalog"],
            **tables,
            **options,
        )
        expected = recommender_reference(
            run, qrels, metrics, per_query=False, catalog=catalog, **inputs, **options
        )
        assert_same(expected, as_labels(query(sql), metrics, expected))
    per_user = per_query_metrics(metrics)
    if per_user:
        sql = pr.to_sql(
            per_user, dialect, t["run"], t["qrels"], per_query=True, **tables, **options
        )
        expected = recommender_reference(run, qrels, per_user, per_query=True, **inputs, **options)
        assert_same(expected, as_labels(query(sql), per_user, expected))
    without_qrels = [m for m in metrics if not _reads_qrels(m)]
    options.pop("queries", None)
    for per_query in (False, True):
        chosen = per_query_metrics(without_qrels) if per_query else without_qrels
        if not chosen:
            continue
        sql = pr.to_sql(chosen, dialect, t["run"], None, per_query=per_query, **tables, **options)
        expected = recommender_reference(
            run, None, chosen, per_query=per_query, **inputs, **options
        )
        assert_same(expected, as_labels(query(sql), chosen, expected))


# --- ids and groups that differ only by case (a case-insensitive collation must not merge them)


def _cased(column: str, lower: str) -> pl.Expr:
    """Integer ids as text ids whose pairs differ only by case: 2k → upper, 2k+1 → lower."""
    n = pl.col(column)
    letter = pl.when(n % 2 == 0).then(pl.lit(lower.upper())).otherwise(pl.lit(lower))
    return (letter + (n // 2).cast(pl.String)).alias(column)


def case_frames() -> dict[str, pl.DataFrame]:
    """Tables (by :data:`RECOMMENDER_TABLES` name, and ``case_run``, ``case_qrels``,
    ``case_pred``) whose ids and groups differ only by case: the recommender frames of
    :func:`recommender_random` with users ``U0, u0, U1, ...`` and items ``D0, d0, ...``; a run
    whose queries ``Q1``/``q1`` (groups ``A``/``a``) rank docs ``d1``/``D1``; predictions
    with GAUC groups ``A``/``a`` and segments ``X``/``x``."""
    frames = recommender_random(24, int_ids=True, seed=5)
    out = {}
    for key, frame in frames.items():
        ids = [_cased(c, "u" if c == "query" else "d") for c in ("query", "doc") if c in frame]
        out[RECOMMENDER_TABLES[key]] = frame.with_columns(ids)
    out["case_run"] = pl.DataFrame(
        {
            "query": ["Q1", "Q1", "q1", "q1"],
            "doc": ["d1", "d2", "D1", "d2"],
            "score": [2.0, 1.0, 2.0, 1.0],
            "grp": ["A", "A", "a", "a"],
        }
    )
    out["case_qrels"] = pl.DataFrame(
        {"query": ["Q1", "q1"], "doc": ["d2", "D1"], "relevance": [1, 1], "grp": ["A", "a"]}
    )
    out["case_pred"] = pl.DataFrame(
        {
            "label": [1, 0, 0, 1],
            "score": [0.9, 0.1, 0.8, 0.2],
            "g": ["A", "A", "a", "a"],
            "seg": ["X", "X", "x", "x"],
        }
    )
    return out


def assert_case_sensitive_ids(query, dialect: str, frames: dict[str, pl.DataFrame]) -> None:
    """The compiled SQL, run by ``query`` over :func:`case_frames` (loaded with a
    case-insensitive collation), keeps ids and groups that differ by case apart, as the
    Polars engine does.

    By hand: query ``Q1`` (group ``A``) ranks ``d1`` (not relevant) then ``d2`` (relevant):
    P@1 = 0, AP = 1/2, nDCG@10 = (1/log2(3)) / 1; ``q1`` (group ``a``) ranks ``D1`` (relevant)
    first: 1, 1, 1. Merged by case, ``d1`` would be judged in ``Q1``. Predictions: group
    ``A`` scores its positive 0.9 over its negative 0.1 (AUC 1), group ``a`` its positive 0.2
    under its negative 0.8 (AUC 0): GAUC = (2·1 + 2·0) / 4 = 0.5 (merged: 3 of 4 pairs, 0.75);
    segments ``X``/``x`` (the same rows): AUC 1 and 0."""
    run, qrels = frames["case_run"], frames["case_qrels"]
    metrics = ["P@1", "AP", "nDCG@10"]
    sql = pr.to_sql(metrics, dialect, "case_run", "case_qrels", by="grp", qrels_by=["grp"])
    got = query(sql).sort("grp")
    ndcg = 1 / math.log2(3)
    assert got["grp"].to_list() == ["A", "a"]
    for column, hand in zip(got.columns[1:], ([0.0, 1.0], [0.5, 1.0], [ndcg, 1.0]), strict=True):
        assert got[column].to_list() == pytest.approx(hand, abs=1e-12), column
    assert_sql_result(
        query(compiled(metrics, dialect, "case_run", "case_qrels", per_query=True)),
        run,
        qrels,
        metrics,
    )
    expected = pr.evaluate(run, qrels, metrics, by="grp").sort("grp")
    for a, b in zip(got.rows(), expected.rows(), strict=True):
        assert a[0] == b[0] and list(a[1:]) == pytest.approx(list(b[1:]), abs=1e-12)
    gauc = pr.to_sql(["GAUC"], dialect, predictions="case_pred", group="g")
    assert query(gauc).item() == pytest.approx(0.5, abs=1e-12)
    auc = query(pr.to_sql(["AUC"], dialect, predictions="case_pred", by="seg")).sort("seg")
    assert auc.rows() == [("X", 1.0), ("x", 0.0)]
    polars_auc = pr.evaluate_classification(frames["case_pred"], ["AUC"], by="seg").sort("seg")
    assert auc.rows() == polars_auc.rows()
    recommender = {key: frames[name] for key, name in RECOMMENDER_TABLES.items()}
    assert_recommender_sql(query, dialect, recommender)


def to_duckdb(sql: str, dialect: str) -> str:
    """``sql`` read as ``dialect``, written as DuckDB by sqlglot; Snowflake's byte collation
    ``'utf8'`` (which sqlglot has no DuckDB word for) as DuckDB's ``"binary"``."""
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(sql, read=dialect, error_level=sqlglot.ErrorLevel.RAISE)
    for node in list(tree.find_all(exp.Collate)):
        if node.expression.is_string and node.expression.name.lower() == "utf8":
            node.set("expression", exp.to_identifier("binary", quoted=True))
    return tree.sql("duckdb")
