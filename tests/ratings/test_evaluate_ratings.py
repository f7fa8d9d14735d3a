"""``evaluate_ratings`` and ``rating_sql``: scikit-learn's regression metrics on the (user,
item) pairs of two tables, on every engine and in every dialect."""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest
from sklearn import metrics as skm

import polars_rank as pr
from tests.support.ratings import ALL, WEIGHTED, expected, random_tables

DIALECTS = ["duckdb", "postgres", "spark", "bigquery", "snowflake", "trino"]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("weight", [None, "w"])
def test_equals_sklearn(engine: str, weight: str | None) -> None:
    ratings, predictions = random_tables(7)
    names = WEIGHTED if weight else ALL
    with pytest.warns(UserWarning, match="without a prediction"):
        got = pr.evaluate_ratings(ratings, predictions, names, weight=weight, engine=engine)
    want = expected(ratings, predictions, weight)
    for name in names:
        assert got[name].item() == pytest.approx(want[name], rel=1e-12, abs=1e-12), name


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_by_equals_sklearn_per_segment(engine: str) -> None:
    ratings, predictions = random_tables(11)
    with pytest.warns(UserWarning):
        got = pr.evaluate_ratings(
            ratings, predictions, WEIGHTED, by="market", weight="w", engine=engine
        )
    assert got["market"].to_list() == ["de", "fr", "us"]
    for market in ("de", "fr", "us"):
        want = expected(ratings.filter(pl.col("market") == market), predictions, "w")
        row = got.filter(pl.col("market") == market).row(0, named=True)
        for name in WEIGHTED:
            assert row[name] == pytest.approx(want[name], rel=1e-12, abs=1e-12), (market, name)


def test_aliases_of_other_tools_give_the_same_values() -> None:
    ratings, predictions = random_tables(3)
    with pytest.warns(UserWarning):
        got = pr.evaluate_ratings(
            ratings,
            predictions,
            ["rmse", "rsquared", "exp_var", "mae", "r2_score", "root_mean_squared_error"],
        )
    row = got.row(0, named=True)
    want = expected(ratings, predictions, None)
    assert row["rmse"] == pytest.approx(want["RMSE"], rel=1e-12)
    assert row["root_mean_squared_error"] == row["rmse"]
    assert row["rsquared"] == row["r2_score"] == pytest.approx(want["R2"], rel=1e-12)
    assert row["exp_var"] == pytest.approx(want["explained_variance"], rel=1e-12)


def _tiny() -> tuple[pl.DataFrame, pl.DataFrame]:
    ratings = pl.DataFrame(
        {"user": ["u", "u", "v", "v"], "item": ["a", "b", "a", "c"], "rating": [4.0, 2.0, 5.0, 1.0]}
    )
    predictions = pl.DataFrame(
        {
            "user": ["u", "u", "v", "w"],
            "item": ["a", "b", "a", "z"],
            "prediction": [3.0, 2.5, 3.0, 1.0],
        }
    )
    return ratings, predictions


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_tiny_example_by_hand(engine: str) -> None:
    # pairs (u,a), (u,b), (v,a): y = 4, 2, 5; ŷ = 3, 2.5, 3; e = 1, -0.5, 2
    # (v,c) has no prediction and (w,z) no rating: one warning counting 1 and 1
    ratings, predictions = _tiny()
    with pytest.warns(UserWarning, match="1 ratings without a prediction and 1 predictions"):
        got = pr.evaluate_ratings(ratings, predictions, ALL, engine=engine).row(0, named=True)
    e = [1.0, -0.5, 2.0]
    y = [4.0, 2.0, 5.0]
    mse = (1 + 0.25 + 4) / 3  # = 1.75
    mean_y = 11 / 3
    ss_y = sum((v - mean_y) ** 2 for v in y)  # (1/3)² + (5/3)² + (4/3)² = 42/9
    mean_e = 2.5 / 3
    var_e = sum((v - mean_e) ** 2 for v in e) / 3
    assert got["MSE"] == pytest.approx(mse, rel=1e-15)
    assert got["RMSE"] == pytest.approx(math.sqrt(1.75), rel=1e-15)
    assert got["MAE"] == pytest.approx(3.5 / 3, rel=1e-15)
    assert got["R2"] == pytest.approx(1 - 5.25 / (42 / 9), rel=1e-14)
    assert ss_y == pytest.approx(42 / 9)
    assert got["explained_variance"] == pytest.approx(1 - var_e / (ss_y / 3), rel=1e-14)
    assert got["max_error"] == 2.0
    assert got["MAPE"] == pytest.approx((1 / 4 + 0.5 / 2 + 2 / 5) / 3, rel=1e-15)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_constant_ratings_follow_force_finite(engine: str) -> None:
    # y constant: Σ(y − ȳ)² = 0; perfect predictions give 1, others 0 (scikit-learn)
    ratings = pl.DataFrame({"user": [1, 2], "item": [1, 1], "rating": [3.0, 3.0]})
    right = pl.DataFrame({"user": [1, 2], "item": [1, 1], "prediction": [3.0, 3.0]})
    wrong = right.with_columns(prediction=pl.Series([2.0, 3.0]))
    for preds, value in ((right, 1.0), (wrong, 0.0)):
        got = pr.evaluate_ratings(ratings, preds, ["R2", "exp_var"], engine=engine)
        y, p = ratings["rating"].to_numpy(), preds["prediction"].to_numpy()
        assert (
            got.row(0)
            == (value, skm.explained_variance_score(y, p))
            == (
                skm.r2_score(y, p),
                value,
            )
        )


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_empty_join_and_a_segment_without_pairs_are_null(engine: str) -> None:
    ratings, predictions = _tiny()
    elsewhere = predictions.with_columns(user=pl.lit("x") + pl.col("user"))
    with pytest.warns(UserWarning, match="4 ratings without a prediction and 4 predictions"):
        got = pr.evaluate_ratings(ratings, elsewhere, ALL, engine=engine)
    assert got.height == 1 and all(v is None for v in got.row(0))
    segmented = ratings.with_columns(seg=pl.Series(["a", "a", "b", "c"]))
    with pytest.warns(UserWarning):
        got = pr.evaluate_ratings(segmented, predictions, ["MAE", "R2"], by="seg", engine=engine)
    # seg a: pairs (u,a), (u,b): |e| = 1, 0.5; seg b: (v,a) alone (R2 null); seg c: no pair
    assert got.rows() == [
        ("a", 0.75, pytest.approx(1 - 1.25 / 2)),
        ("b", 2.0, None),
        ("c", None, None),
    ]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_null_weights_are_skipped(engine: str) -> None:
    ratings, predictions = _tiny()
    weighted = ratings.with_columns(w=pl.Series([1.0, None, 3.0, 1.0]))
    with pytest.warns(UserWarning):
        got = pr.evaluate_ratings(weighted, predictions, ["MAE"], weight="w", engine=engine)
    # (u,b) skipped: (1·1 + 3·2) / (1 + 3)
    assert got.item() == pytest.approx(7 / 4, rel=1e-15)


def test_no_warning_when_every_pair_matches() -> None:
    ratings, predictions = _tiny()
    both = ratings.join(predictions, on=["user", "item"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pr.evaluate_ratings(both.drop("prediction"), both.drop("rating"), ["MAE"])


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ratings": lambda r: pl.concat([r, r.head(1)])}, "ratings have 1 .* more than once"),
        ({"predictions": lambda p: pl.concat([p, p.head(2)])}, "predictions have 2 .*"),
        (
            {"ratings": lambda r: r.with_columns(rating=pl.Series([None, 2.0, 5.0, 1.0]))},
            "ratings column 'rating' has 1 NULL",
        ),
        (
            {
                "predictions": lambda p: p.with_columns(
                    prediction=pl.Series([float("nan"), 1, 2, 3])
                )
            },
            "predictions column 'prediction' has 1 NaN",
        ),
        (
            {"predictions": lambda p: p.with_columns(user=pl.Series(["u", None, "v", "w"]))},
            "predictions column 'user' has 1 NULL",
        ),
        (
            {"predictions": lambda p: p.drop("prediction")},
            "'prediction' not found in the predictions",
        ),
        (
            {"ratings": lambda r: r.with_columns(rating=pl.col("rating").cast(pl.String))},
            "must hold numbers",
        ),
    ],
)
def test_hostile_inputs_are_refused_by_name(engine: str, change: dict, message: str) -> None:
    ratings, predictions = _tiny()
    ratings = change.get("ratings", lambda r: r)(ratings)
    predictions = change.get("predictions", lambda p: p)(predictions)
    with pytest.raises(pr.PolarsRankError, match=message):
        pr.evaluate_ratings(ratings, predictions, ["MAE"], engine=engine)


def test_weights_and_metric_names_are_checked() -> None:
    ratings, predictions = _tiny()
    negative = ratings.with_columns(w=pl.Series([1.0, -1.0, 1.0, 1.0]))
    with pytest.raises(pr.PolarsRankError, match="weight column 'w' has 1 negative"):
        pr.evaluate_ratings(negative, predictions, ["MAE"], weight="w")
    with pytest.raises(pr.PolarsRankError, match="'max_error' takes no weight"):
        pr.evaluate_ratings(negative.with_columns(w=1.0), predictions, ["max_error"], weight="w")
    with pytest.raises(pr.PolarsRankError, match="'max_error' takes no weight"):
        pr.rating_sql(["max_error"], "duckdb", "r", "p", weight="w")
    with pytest.raises(pr.PolarsRankError, match="evaluate_ratings"):
        pr.evaluate(ratings, None, ["RMSE"])
    clash = ratings.with_columns(prediction=pl.lit("x"))
    with pytest.raises(pr.PolarsRankError, match="'prediction' .* has the name of the predictions"):
        pr.evaluate_ratings(clash, predictions, ["MAE"], by="prediction")
    with pytest.raises(pr.PolarsRankError, match="evaluate / to_sql takes it"):
        pr.evaluate_ratings(ratings, predictions, ["nDCG@10"])


@pytest.mark.parametrize("dialect", DIALECTS)
def test_rating_sql_prints_every_dialect(dialect: str) -> None:
    sql = pr.rating_sql(WEIGHTED, dialect, "db.ratings", "db.preds", by="market", weight="w")
    assert "LEFT JOIN" in sql.upper() and sql.count("SELECT") >= 4


def test_catalog_lists_the_family() -> None:
    frame = pr.metric_catalog("rating")
    assert set(frame["name"]) == {
        "rmse",
        "mse",
        "mae",
        "r2",
        "explained_variance",
        "max_error",
        "mape",
    }
    # the four engines and the eight dialects but Databricks (Spark SQL's second name)
    assert all(len(e) == 4 + 8 - 1 for e in frame["engines"])


@pytest.mark.parametrize("collation", ["nocase", "noaccent", "nocase.noaccent"])
def test_ids_join_as_bytes_under_any_default_collation(collation: str) -> None:
    """Users ``u`` and ``U`` and items ``é`` and ``e`` are different ids: on a DuckDB
    connection whose default collation would take them for equal, the join still pairs
    (u, é) with its own prediction only. By hand: pairs (u, é) y 4 ŷ 3, (U, é) y 2 ŷ 2,
    (u, e) y 5 ŷ 1 → |e| = 1, 0, 4: MAE 5/3; a case- or accent-blind join would pair each
    rating with two or more predictions (and find duplicates)."""
    import duckdb

    ratings = pl.DataFrame(
        {"user": ["u", "U", "u"], "item": ["é", "é", "e"], "rating": [4.0, 2.0, 5.0]}
    )
    predictions = ratings.with_columns(prediction=pl.Series([3.0, 2.0, 1.0])).drop("rating")
    con = duckdb.connect()
    con.execute(f"SET default_collation = '{collation}'")
    got = pr.evaluate_ratings(ratings, predictions, ["MAE", "max_error"], engine="duckdb", con=con)
    assert got.rows() == [(pytest.approx(5 / 3, rel=1e-15), 4.0)]
    assert got.rows() == pr.evaluate_ratings(ratings, predictions, ["MAE", "max_error"]).rows()
