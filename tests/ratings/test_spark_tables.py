"""``evaluate_ratings(..., engine="spark")`` on Spark DataFrames and table names: the checks
run as SQL in the session, with the Polars engine's messages (and its warning about the
pairs on one side only), and the values equal the Polars engine's within 1e-12; the inputs
are never collected to the driver, and no temporary view is left behind.

One Spark session serves the file (the ``spark`` fixture, which marks every test ``spark``
and ``slow``); the frames are small."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import polars_rank as pr
from polars_rank.core.errors import PolarsRankError
from tests.support.ratings import ALL, WEIGHTED, random_tables

NAN, INF = float("nan"), float("inf")


def _tiny() -> tuple[pl.DataFrame, pl.DataFrame]:
    ratings = pl.DataFrame(
        {
            "user": ["u", "u", "v", "v"],
            "item": ["a", "b", "a", "c"],
            "rating": [4.0, 2.0, 5.0, 1.0],
            "w": [1.0, 2.0, 1.0, 1.0],
        }
    )
    predictions = pl.DataFrame(
        {
            "user": ["u", "u", "v", "w"],
            "item": ["a", "b", "a", "z"],
            "prediction": [3.0, 2.5, 3.0, 1.0],
        }
    )
    return ratings, predictions


def _same(got: pl.DataFrame, want: pl.DataFrame, by: list[str]) -> None:
    assert got.columns == want.columns
    assert got.schema == want.schema
    assert got.select(by).rows() == want.select(by).rows()
    for name in want.columns[len(by) :]:
        for a, b in zip(got[name], want[name], strict=True):
            if b is None:
                assert a is None, name
            else:
                assert a == pytest.approx(b, rel=1e-12, abs=1e-12), name


def _run(ratings, predictions, metrics, **options) -> tuple[pl.DataFrame, list[str]]:
    """The result and the warnings' messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = pr.evaluate_ratings(ratings, predictions, metrics, **options)
    return got, [str(w.message) for w in caught]


@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("by", [None, "market", ["market", "tier"]])
def test_spark_dataframes_equal_the_polars_engine(spark, weight, by) -> None:
    ratings, predictions = random_tables(31)
    ratings = ratings.with_columns(tier=(pl.col("user") % 3).cast(pl.Int32))
    ratings = ratings.with_columns(w=pl.when(pl.col("user") == 7).then(None).otherwise("w"))
    metrics = WEIGHTED if weight else ALL
    want, want_warnings = _run(ratings, predictions, metrics, by=by, weight=weight)
    got, got_warnings = _run(
        spark.createDataFrame(ratings.to_arrow()),
        spark.createDataFrame(predictions.to_arrow()),
        metrics,
        by=by,
        weight=weight,
        engine="spark",
        con=spark,
    )
    segments = [by] if isinstance(by, str) else list(by or [])
    _same(got, want, segments)
    assert got_warnings == want_warnings
    assert len(want_warnings) == 1 and "without a prediction" in want_warnings[0]


def test_table_names_and_a_polars_frame_beside_a_spark_one(spark) -> None:
    # the session is shared with other tests, which may keep views of their own
    before = {t.name for t in spark.catalog.listTables()}
    ratings, predictions = random_tables(32)
    want, want_warnings = _run(ratings, predictions, WEIGHTED, by="market", weight="w")
    spark.createDataFrame(ratings.to_arrow()).createOrReplaceTempView("pr_test_ratings")
    try:
        for given in ("pr_test_ratings", spark.table("pr_test_ratings")):
            got, got_warnings = _run(
                given, predictions, WEIGHTED, by="market", weight="w", engine="spark"
            )
            _same(got, want, ["market"])
            assert got_warnings == want_warnings
    finally:
        spark.catalog.dropTempView("pr_test_ratings")
    assert {t.name for t in spark.catalog.listTables()} == before  # no view of ours left


def test_no_warning_when_every_pair_matches(spark) -> None:
    ratings, predictions = _tiny()
    both = ratings.join(predictions, on=["user", "item"])
    got, messages = _run(
        spark.createDataFrame(both.drop("prediction").to_arrow()),
        spark.createDataFrame(both.drop("rating").to_arrow()),
        ["MAE"],
        engine="spark",
    )
    assert messages == []
    assert got.rows() == pr.evaluate_ratings(both, both, ["MAE"]).rows()


def _nulls(column: str, values: list) -> object:
    return lambda f: f.with_columns(pl.Series(column, values))


BAD = {
    "ratings twice": ({"ratings": lambda r: pl.concat([r, r.head(1)])}, {}),
    "predictions twice": ({"predictions": lambda p: pl.concat([p, p.tail(2), p.tail(1)])}, {}),
    "integer pairs twice": (
        {
            "ratings": lambda r: r.with_columns(user=pl.Series([3, 2, 3, 2])),
            "predictions": lambda p: p.with_columns(user=pl.Series([3, 3, 2, 2])),
        },
        {},
    ),
    "null rating": ({"ratings": _nulls("rating", [None, 2.0, 5.0, 1.0])}, {}),
    "NaN rating": ({"ratings": _nulls("rating", [NAN, NAN, 5.0, 1.0])}, {}),
    "null prediction": ({"predictions": _nulls("prediction", [1.0, None, None, 1.0])}, {}),
    "NaN prediction": ({"predictions": _nulls("prediction", [NAN, 1.0, 2.0, 3.0])}, {}),
    "NaN rating before a text prediction": (
        {
            "ratings": _nulls("rating", [NAN, 2.0, 5.0, 1.0]),
            "predictions": lambda p: p.with_columns(pl.col("prediction").cast(pl.String)),
        },
        {},
    ),
    "text rating": ({"ratings": lambda r: r.with_columns(pl.col("rating").cast(pl.String))}, {}),
    "text prediction": (
        {"predictions": lambda p: p.with_columns(pl.col("prediction").cast(pl.String))},
        {},
    ),
    "null user": ({"predictions": _nulls("user", ["u", None, "v", "w"])}, {}),
    "null item": ({"ratings": _nulls("item", ["a", None, None, "c"])}, {}),
    "missing column": ({"predictions": lambda p: p.drop("prediction")}, {}),
    "missing weight": ({"ratings": lambda r: r.drop("w")}, {"weight": "w"}),
    "negative weight": ({"ratings": _nulls("w", [1.0, -1.0, 1.0, 1.0])}, {"weight": "w"}),
    "NaN and infinite weights": ({"ratings": _nulls("w", [NAN, INF, -INF, None])}, {"weight": "w"}),
    "text weight": ({"ratings": _nulls("w", ["1", "2", "1", "1"])}, {"weight": "w"}),
    "by named as the prediction": (
        {"ratings": lambda r: r.with_columns(prediction=pl.lit("x"))},
        {"by": "prediction"},
    ),
    "id types differ": (
        {"predictions": lambda p: p.with_columns(user=pl.Series([1, 2, 3, 4]))},
        {},
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_inputs_raise_the_polars_engines_message(spark, case: str) -> None:
    changes, options = BAD[case]
    ratings, predictions = _tiny()
    ratings = changes.get("ratings", lambda r: r)(ratings)
    predictions = changes.get("predictions", lambda p: p)(predictions)
    with pytest.raises(PolarsRankError) as polars_error, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pr.evaluate_ratings(ratings, predictions, ["MAE"], **options)
    with pytest.raises(PolarsRankError) as spark_error, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pr.evaluate_ratings(
            spark.createDataFrame(ratings.to_arrow()),
            spark.createDataFrame(predictions.to_arrow()),
            ["MAE"],
            engine="spark",
            con=spark,
            **options,
        )
    assert str(spark_error.value) == str(polars_error.value)
