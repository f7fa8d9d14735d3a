"""The compiled off-policy query on a live PostgreSQL server and in Spark: every estimator
at once, with ``by`` and ``lambda_``, equal to OBP's values (the numpy oracle of
:mod:`tests.support.policy`) and to the Polars engine within 1e-12."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import polars_rank as pr
from tests.support.policy import ALL, oracle, random_log, subset


def _same_as_obp(got: pl.DataFrame, data: dict[str, object]) -> None:
    assert got["day"].to_list() == [d for d in ("mon", "tue", "wed") for _ in ALL]
    assert got["estimator"].to_list() == ALL * 3
    day = np.asarray(data["day"])
    for row in got.iter_rows(named=True):
        want = oracle(row["estimator"], subset(data, day == row["day"]), 2.5)
        for column in ("estimate", "standard_error", "ess", "max_weight"):
            if math.isnan(want[column]):
                assert row[column] is None
            else:
                assert row[column] == pytest.approx(want[column], rel=1e-12, abs=1e-12), (
                    row["day"],
                    row["estimator"],
                    column,
                )
        assert row["n"] == want["n"]


def _polars(data: dict[str, object]) -> pl.DataFrame:
    return pr.evaluate_policy(
        data["log"], data["policy"], ALL, q_hat=data["q_hat"], by="day", lambda_=2.5
    )


def test_postgres_equals_obp(postgres) -> None:
    data = random_log(31)
    for name in ("log", "policy", "q_hat"):
        postgres.load(f"ope_{name}_t", data[name])
    sql = pr.policy_sql(
        ALL, "postgres", "ope_log_t", "ope_policy_t", q_hat="ope_q_hat_t", by="day", lambda_=2.5
    )
    got = postgres.query(sql)
    assert got.columns == [
        "day",
        "estimator",
        "estimate",
        "standard_error",
        "ess",
        "max_weight",
        "n",
    ]
    _same_as_obp(got, data)
    want = _polars(data)
    for column in ("estimate", "standard_error"):
        assert got[column].to_list() == pytest.approx(want[column].to_list(), rel=1e-12, abs=1e-12)


def test_clickhouse_equals_obp(clickhouse) -> None:
    data = random_log(33)
    for name in ("log", "policy", "q_hat"):
        clickhouse.load(f"ope_{name}_t", data[name])
    sql = pr.policy_sql(
        ALL, "clickhouse", "ope_log_t", "ope_policy_t", q_hat="ope_q_hat_t", by="day", lambda_=2.5
    )
    got = clickhouse.query(sql)
    assert got.columns == [
        "day",
        "estimator",
        "estimate",
        "standard_error",
        "ess",
        "max_weight",
        "n",
    ]
    _same_as_obp(got, data)
    want = _polars(data)
    for column in ("estimate", "standard_error"):
        assert got[column].to_list() == pytest.approx(want[column].to_list(), rel=1e-12, abs=1e-12)


def test_spark_equals_obp(spark) -> None:
    data = random_log(32)
    got = pr.evaluate_policy(
        data["log"],
        data["policy"],
        ALL,
        q_hat=data["q_hat"],
        by="day",
        lambda_=2.5,
        engine="spark",
        con=spark,
    )
    assert got.schema == _polars(data).schema
    _same_as_obp(got, data)
