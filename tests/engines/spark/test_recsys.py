"""``evaluate(..., engine="spark", interactions=, catalog=, item_features=)`` gives the Polars
engine's result (values within 1e-12, columns, query order) and warnings, with Spark
DataFrames, table names or Polars frames for every input: score ties, items outside the
catalog, catalog items never interacted with, users without history, a NULL vector."""

from __future__ import annotations

import warnings

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


def _evaluate(run, qrels, metrics, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = pr.evaluate(run, qrels, metrics, **options)
    return result, sorted(str(w.message) for w in caught)


def _same(left: pl.DataFrame, right: pl.DataFrame) -> None:
    assert left.columns == right.columns
    for a, b in zip(left.rows(), right.rows(), strict=True):
        for x, y in zip(a, b, strict=True):
            if isinstance(x, float) and isinstance(y, float):
                assert abs(x - y) <= 1e-12 * max(1.0, abs(y)), (a, b)
            else:
                assert x == y, (a, b)


@pytest.mark.parametrize("int_ids", [False, True], ids=["text ids", "integer ids"])
def test_spark_equals_the_polars_engine(spark, int_ids):
    frames = recommender_random(40, int_ids=int_ids, seed=7)
    inputs = {k: frames[k] for k in ("interactions", "catalog", "item_features")}
    sdf = {k: spark.createDataFrame(v.to_arrow()) for k, v in frames.items()}
    sdf["catalog"].createOrReplaceTempView("pr_test_catalog")
    for per_query, metrics in ((False, METRICS), (True, PER_USER)):
        want, want_warnings = _evaluate(
            frames["run"], frames["qrels"], metrics, per_query=per_query, **inputs
        )
        got, got_warnings = _evaluate(
            sdf["run"],
            sdf["qrels"],
            metrics,
            per_query=per_query,
            engine="spark",
            interactions=sdf["interactions"],
            catalog="pr_test_catalog",
            item_features=sdf["item_features"],
        )
        _same(got, want)
        assert got_warnings == want_warnings and want_warnings  # left out, outside catalog
    # no qrels: every user of the run, metrics that read no judgments
    no_judgments = ["coverage@5", "novelty@5", "TailPercentage@5", "ild@5"]
    want, _ = _evaluate(frames["run"], None, no_judgments, **inputs)
    got, _ = _evaluate(sdf["run"], None, no_judgments, engine="spark", **inputs)
    _same(got, want)


def test_spark_errors_as_the_other_engines(spark):
    frames = recommender_random(10, int_ids=False, seed=1)
    with pytest.raises(PolarsRankError, match="needs"):
        pr.evaluate(frames["run"], frames["qrels"], ["novelty@5"], engine="spark", con=spark)
    bad = frames["interactions"].with_columns(pl.lit(None, dtype=frames["run"]["doc"].dtype)
                                              .alias("doc"))  # fmt: skip
    with pytest.raises(PolarsRankError, match="interactions has .* null query or doc id"):
        pr.evaluate(frames["run"], frames["qrels"], ["novelty@5"], engine="spark", con=spark,
                    interactions=bad)  # fmt: skip
