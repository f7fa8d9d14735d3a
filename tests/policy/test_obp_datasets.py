"""The estimators on OBP's own synthetic data sets against OBP's own numbers: the fixtures of
tests/data/obp (written by its make_fixtures.py from OBP's source: SyntheticBanditDataset
and SyntheticSlateBanditDataset, then OBP's ``estimate_policy_value`` and
``estimate_interval``), within 1e-12 on every engine; the bootstrap on the Polars engine."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import polars_rank as pr

DATA = Path(__file__).resolve().parents[1] / "data" / "obp"
EXPECTED = json.loads((DATA / "expected.json").read_text())
BANDIT = ["IPW", "SNIPW", "DM", "DR", "SNDR", "SwitchDR"]
SLATE = ["SIPS", "IIPS", "RIPS", "SNSIPS", "SNIIPS", "SNRIPS"]
INTERVAL = ["bootstrap_mean", "ci_lower", "ci_upper"]


def _table(name: str) -> pl.DataFrame:
    return pl.read_parquet(DATA / f"{name}.parquet")


@pytest.mark.parametrize("engine", ["polars", "duckdb", "clickhouse"])
@pytest.mark.parametrize("lambda_", [float("inf"), 5.0])
def test_bandit_estimates_equal_obp(engine: str, lambda_: float) -> None:
    got = pr.evaluate_policy(
        _table("bandit_log"),
        _table("bandit_policy"),
        BANDIT,
        q_hat=_table("bandit_q_hat"),
        lambda_=lambda_,
        engine=engine,  # type: ignore[arg-type]
    )
    key = "inf" if lambda_ == float("inf") else str(lambda_)
    for row in got.iter_rows(named=True):
        want = EXPECTED["bandit"][f"{row['estimator']}|{key}"]
        assert row["estimate"] == pytest.approx(want["estimate"], rel=1e-12, abs=1e-15), row
        assert row["n"] == 2000


def test_bandit_intervals_equal_obp() -> None:
    got = pr.evaluate_policy(
        _table("bandit_log"),
        _table("bandit_policy"),
        BANDIT,
        q_hat=_table("bandit_q_hat"),
        lambda_=5.0,
        bootstrap=1000,
        seed=7,
    )
    for row in got.iter_rows(named=True):
        want = EXPECTED["bandit"][f"{row['estimator']}|5.0"]["interval"]
        got_interval = [row[c] for c in INTERVAL]
        assert got_interval == pytest.approx(want, rel=1e-12, abs=1e-15), row["estimator"]


@pytest.mark.parametrize("engine", ["polars", "duckdb", "clickhouse"])
def test_slate_estimates_equal_obp(engine: str) -> None:
    got = pr.evaluate_slate_policy(
        _table("slate_log"),
        _table("slate_policy"),
        SLATE,
        engine=engine,  # type: ignore[arg-type]
    )
    for row in got.iter_rows(named=True):
        want = EXPECTED["slate"][row["estimator"]]
        assert row["estimate"] == pytest.approx(want["estimate"], rel=1e-12, abs=1e-15), row
        assert row["n"] == 600


def test_slate_intervals_equal_obp() -> None:
    got = pr.evaluate_slate_policy(
        _table("slate_log"), _table("slate_policy"), SLATE, bootstrap=1000, seed=7
    )
    for row in got.iter_rows(named=True):
        want = EXPECTED["slate"][row["estimator"]]["interval"]
        got_interval = [row[c] for c in INTERVAL]
        assert got_interval == pytest.approx(want, rel=1e-12, abs=1e-15), row["estimator"]
