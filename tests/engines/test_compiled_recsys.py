"""``evaluate(..., engine="spark" | "clickhouse", interactions=, catalog=, item_features=)``
(:mod:`polars_rank.engines.compiled_recsys`, written once for both) gives the Polars engine's
result (values within 1e-12, columns, query order) and warnings, with the engine's own tables,
table names or Polars frames for every input: score ties, items outside the catalog, catalog
items never interacted with, users without history, a NULL vector; item features as vectors,
categories or a similarity table; the input errors are the other engines'."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl
import pytest

import polars_rank as pr
from polars_rank.core.errors import PolarsRankError
from tests.support.sql_cases import recommender_random

METRICS = [
    "nDCG@3",
    "coverage@5",
    "entropy@5",
    "gini@5",
    "user_coverage@5",
    "novelty@5",
    "novelty(unknown=zero)@5",
    "arp@5",
    "aplt@5",
    "TailPercentage@5",
    "ild@5",
    "serendipity@5",
]
PER_USER = [m for m in METRICS if not m.startswith(("coverage", "entropy", "gini", "user_cov"))]


@dataclass
class Live:
    """An engine that runs SQL: its name, ``con``, a Polars frame as the engine's own input
    (a Spark DataFrame; for ClickHouse the frame itself) and a frame saved as a table of the
    session under a name."""

    name: str
    con: Any
    own: Callable[[pl.DataFrame], Any]
    save: Callable[[str, pl.DataFrame], None]


SPARK = pytest.param("spark", marks=[pytest.mark.slow, pytest.mark.spark])


@pytest.fixture(params=[SPARK, "clickhouse"])
def live(request) -> Live:
    if request.param == "spark":
        spark = request.getfixturevalue("spark")

        def save(name: str, frame: pl.DataFrame) -> None:
            spark.createDataFrame(frame.to_arrow()).createOrReplaceTempView(name)

        return Live("spark", spark, lambda f: spark.createDataFrame(f.to_arrow()), save)
    clickhouse = request.getfixturevalue("clickhouse")
    return Live("clickhouse", clickhouse.session, lambda f: f, clickhouse.load)


def _evaluate(run, qrels, metrics, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = pr.evaluate(run, qrels, metrics, **options)
    return result, sorted(str(w.message) for w in caught)


def _same(left: pl.DataFrame, right: pl.DataFrame) -> None:
    assert left.columns == right.columns
    assert left.schema == right.schema
    for a, b in zip(left.rows(), right.rows(), strict=True):
        for x, y in zip(a, b, strict=True):
            if isinstance(x, float) and isinstance(y, float):
                assert abs(x - y) <= 1e-12 * max(1.0, abs(y)), (a, b)
            else:
                assert x == y, (a, b)


def _equals_the_polars_engine(live: Live, int_ids: bool) -> None:
    frames = recommender_random(40, int_ids=int_ids, seed=7)
    inputs = {k: frames[k] for k in ("interactions", "catalog", "item_features")}
    own = {k: live.own(v) for k, v in frames.items()}
    live.save("pr_test_catalog", frames["catalog"])
    for per_query, metrics in ((False, METRICS), (True, PER_USER)):
        want, want_warnings = _evaluate(
            frames["run"], frames["qrels"], metrics, per_query=per_query, **inputs
        )
        got, got_warnings = _evaluate(
            own["run"],
            own["qrels"],
            metrics,
            per_query=per_query,
            engine=live.name,
            con=live.con,
            interactions=own["interactions"],
            catalog="pr_test_catalog",
            item_features=own["item_features"],
        )
        _same(got, want)
        assert got_warnings == want_warnings and want_warnings  # left out, outside catalog
    # no qrels: every user of the run, metrics that read no judgments; the catalog a Series
    no_judgments = ["coverage@5", "novelty@5", "TailPercentage@5", "ild@5"]
    inputs["catalog"] = frames["catalog"]["doc"]
    want, want_warnings = _evaluate(frames["run"], None, no_judgments, **inputs)
    got, got_warnings = _evaluate(
        frames["run"], None, no_judgments, engine=live.name, con=live.con, **inputs
    )
    _same(got, want)
    assert got_warnings == want_warnings


@pytest.mark.parametrize("int_ids", [False, True], ids=["text ids", "integer ids"])
def test_equals_the_polars_engine(live, int_ids):
    _equals_the_polars_engine(live, int_ids)


def _categories_and_similarities(live: Live) -> None:
    frames = recommender_random(30, int_ids=False, seed=11)
    run, qrels = frames["run"], frames["qrels"]
    items = frames["catalog"]["doc"].to_list()
    # categories: one row per (item, category); ILD is the share of pairs with no category
    # in common (the Polars engine's definition)
    categories = pl.DataFrame(
        {
            "doc": [d for i, d in enumerate(items) for _ in range(1 + i % 2)],
            "genre": [g for i, _ in enumerate(items) for g in ("a", "b")[: 1 + i % 2]][::-1],
        }
    )
    doc = run["doc"].unique().sort()
    pairs = pl.DataFrame({"doc_a": doc}).join(pl.DataFrame({"doc_b": doc}), how="cross")
    similarities = pairs.filter(pl.col("doc_a") < pl.col("doc_b")).with_columns(
        similarity=(pl.col("doc_a").str.len_chars() + pl.col("doc_b").str.len_chars()) / 10.0
    )
    for features in (categories, similarities):
        metrics = ["ild@5"]
        want, want_warnings = _evaluate(run, qrels, metrics, item_features=features)
        got, got_warnings = _evaluate(
            live.own(run),
            live.own(qrels),
            metrics,
            engine=live.name,
            con=live.con,
            item_features=live.own(features),
        )
        _same(got, want)
        assert got_warnings == want_warnings


def test_categories_and_similarities(live):
    _categories_and_similarities(live)


@pytest.mark.parametrize(
    ("input_name", "bad", "message"),
    [
        (
            "interactions",
            lambda f: f["interactions"].with_columns(doc=pl.lit(None, f["run"]["doc"].dtype)),
            "interactions has .* row.* with a null query or doc id",
        ),
        (
            "interactions",  # integer doc ids beside the run's text ones
            lambda f: f["interactions"].with_columns(doc=pl.int_range(pl.len())),
            "run column 'doc' is String but interactions column 'doc' is Int64; ids must have",
        ),
        (
            "catalog",
            lambda f: pl.concat([f["catalog"], pl.DataFrame({"doc": [None]}, f["catalog"].schema)]),
            "catalog has 1 null doc id",
        ),
        (
            "item_features",  # vectors with a NaN component; one with a null one
            lambda f: f["item_features"].with_columns(
                vector=pl.when(pl.int_range(pl.len()).is_in([2, 3]))
                .then(pl.lit([1.0, float("nan"), 0.0, 0.0]))
                .when(pl.int_range(pl.len()) == 4)
                .then(pl.concat_list(pl.lit(1.0), pl.lit(None, pl.Float64), 0.0, 0.0))
                .otherwise("vector")
            ),
            "item_features column 'vector' has 3 vector.* with a null or NaN component",
        ),
        (
            "item_features",  # vectors of lengths 2 and 4 (and a NULL one: no length)
            lambda f: f["item_features"].with_columns(
                vector=pl.when(pl.int_range(pl.len()) == 3)
                .then(pl.lit([1.0, 2.0]))
                .otherwise("vector")
            ),
            r"item_features column 'vector' holds vectors of different lengths \[2, 4\]",
        ),
        (
            "item_features",  # two vectors for an item
            lambda f: pl.concat([f["item_features"], f["item_features"].head(1)]),
            "item_features has 1 item.* with more than one vector, e.g. doc 'I0'",
        ),
        (
            "item_features",  # a similarity table with a NaN similarity
            lambda f: pl.DataFrame(
                {"doc_a": ["I0", "i1"], "doc_b": ["i1", "i2"], "similarity": [0.5, float("nan")]}
            ),
            "item_features has 1 row.* with a null doc_a, doc_b or similarity, or a NaN",
        ),
        (
            "item_features",  # a null category
            lambda f: pl.DataFrame({"doc": ["I0", "i1"], "genre": ["a", None]}),
            "item_features column 'genre' has 1 null categories",
        ),
    ],
    ids=["null interaction", "dtype", "null catalog id", "bad vectors", "lengths", "two vectors",
         "NaN similarity", "null category"],
)  # fmt: skip
def test_input_errors_are_the_polars_engines(live, input_name, bad, message):
    """Each bad input, given as the engine's own table, raises the Polars engine's message
    (first checked in Polars, the same words; the row counts by hand from the frames)."""
    frames = recommender_random(10, int_ids=False, seed=1)
    wrong = bad(frames)
    metric = "ild@5" if input_name == "item_features" else "novelty@5"
    if input_name == "catalog":
        metric = "coverage@5"
    with pytest.raises(PolarsRankError, match=message):
        pr.evaluate(frames["run"], frames["qrels"], [metric], **{input_name: wrong})
    with pytest.raises(PolarsRankError, match=message):
        pr.evaluate(frames["run"], frames["qrels"], [metric], engine=live.name, con=live.con,
                    **{input_name: live.own(wrong)})  # fmt: skip


def test_errors_as_the_other_engines(live):
    frames = recommender_random(10, int_ids=False, seed=1)
    with pytest.raises(PolarsRankError, match="needs"):
        pr.evaluate(frames["run"], frames["qrels"], ["novelty@5"], engine=live.name,
                    con=live.con)  # fmt: skip
    bad = frames["interactions"].with_columns(pl.lit(None, dtype=frames["run"]["doc"].dtype)
                                              .alias("doc"))  # fmt: skip
    with pytest.raises(PolarsRankError, match="interactions has .* null query or doc id"):
        pr.evaluate(frames["run"], frames["qrels"], ["novelty@5"], engine=live.name,
                    con=live.con, interactions=live.own(bad))  # fmt: skip
