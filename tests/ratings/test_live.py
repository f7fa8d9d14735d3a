"""The compiled rating query on a live PostgreSQL server and in Spark: every metric at once,
with ``by`` and weights, equal to the Polars engine within 1e-12."""

from __future__ import annotations

import polars as pl
import pytest

import polars_rank as pr
from polars_rank.compiler.columns import column_names
from tests.support.ratings import WEIGHTED, random_tables


def _polars(ratings: pl.DataFrame, predictions: pl.DataFrame) -> pl.DataFrame:
    with pytest.warns(UserWarning):
        return pr.evaluate_ratings(ratings, predictions, WEIGHTED, by="market", weight="w")


def _same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert got["market"].to_list() == want["market"].to_list() == ["de", "fr", "us"]
    for name in WEIGHTED:
        for a, b in zip(got[name], want[name], strict=True):
            assert a == pytest.approx(b, rel=1e-12, abs=1e-12), name


def test_postgres_equals_the_polars_engine(postgres) -> None:
    ratings, predictions = random_tables(21)
    postgres.load("ratings_t", ratings)
    postgres.load("rating_preds_t", predictions)
    sql = pr.rating_sql(
        WEIGHTED, "postgres", "ratings_t", "rating_preds_t", by="market", weight="w"
    )
    labels = column_names(WEIGHTED, reserved=["market"])
    got = postgres.query(sql).rename({v: k for k, v in labels.items()})
    _same(got, _polars(ratings, predictions))


def test_clickhouse_equals_the_polars_engine(clickhouse) -> None:
    ratings, predictions = random_tables(23)
    clickhouse.load("ratings_t", ratings)
    clickhouse.load("rating_preds_t", predictions)
    sql = pr.rating_sql(
        WEIGHTED, "clickhouse", "ratings_t", "rating_preds_t", by="market", weight="w"
    )
    labels = column_names(WEIGHTED, reserved=["market"])
    got = clickhouse.query(sql).rename({v: k for k, v in labels.items()})
    _same(got, _polars(ratings, predictions))


def test_spark_equals_the_polars_engine(spark) -> None:
    ratings, predictions = random_tables(22)
    with pytest.warns(UserWarning):
        got = pr.evaluate_ratings(
            ratings, predictions, WEIGHTED, by="market", weight="w", engine="spark", con=spark
        )
    assert got.columns == ["market", *WEIGHTED]
    _same(got, _polars(ratings, predictions))
