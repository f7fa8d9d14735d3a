"""The bootstrap interval of ``evaluate_policy`` and ``evaluate_slate_policy``
(``bootstrap=``): OBP's ``estimate_interval`` as written (its loop of
``RandomState.choice``, :func:`tests.support.policy.obp_bootstrap`) on OBP's round rewards,
per segment, equal within 1e-12; the draws in chunks give the same numbers; the SQL engines
refuse it by name."""

from __future__ import annotations

import numpy as np
import pytest

import polars_rank as pr
from polars_rank.core.errors import PolarsRankError
from polars_rank.policy import bootstrap
from tests.support import slates
from tests.support.policy import ALL, obp_bootstrap, random_log, round_rewards, subset

INTERVAL = ("bootstrap_mean", "ci_lower", "ci_upper")


def test_bandit_estimators_equal_obp_per_day() -> None:
    data = random_log(31, n=240)
    got = pr.evaluate_policy(
        data["log"],
        data["policy"],
        ALL,
        q_hat=data["q_hat"],
        by="day",
        lambda_=2.5,
        bootstrap=300,
        alpha=0.1,
        seed=12,
    )
    assert got.columns[-3:] == list(INTERVAL)
    day = np.asarray(data["day"])
    for row in got.iter_rows(named=True):
        samples = round_rewards(row["estimator"], subset(data, day == row["day"]), 2.5)
        want = obp_bootstrap(samples, 0.1, 300, 12)
        for column, value in zip(INTERVAL, want, strict=True):
            assert row[column] == pytest.approx(value, rel=1e-12, abs=1e-12), (row, column)


def test_slate_estimators_equal_obp_per_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """Slates are resampled whole (the sum of each slate's round rewards, in slate-id order);
    a chunk of 1,000 indices makes the 400 draws of about 100 slates come in about 40
    chunks, with OBP's numbers."""
    monkeypatch.setattr(bootstrap, "_CHUNK", 1_000)
    data = slates.random_slates(32)
    got = pr.evaluate_slate_policy(
        data["log"], data["policy"], slates.ALL, by="day", bootstrap=400, seed=5
    )
    day = np.asarray(data["day"])
    for row in got.iter_rows(named=True):
        samples = slates.slate_sums(row["estimator"], slates.subset(data, day == row["day"]))
        want = obp_bootstrap(samples, 0.05, 400, 5)
        for column, value in zip(INTERVAL, want, strict=True):
            assert row[column] == pytest.approx(value, rel=1e-12, abs=1e-12), (row, column)


def test_without_a_seed_and_without_bootstrap() -> None:
    data = random_log(33, n=50)
    got = pr.evaluate_policy(data["log"], data["policy"], "IPW", bootstrap=50)
    lower, mean, upper = got.select("ci_lower", "bootstrap_mean", "ci_upper").row(0)
    assert lower <= mean <= upper
    assert "ci_lower" not in pr.evaluate_policy(data["log"], data["policy"], "IPW").columns


def test_sql_engines_refuse_it() -> None:
    data = random_log(34, n=20)
    with pytest.raises(PolarsRankError, match="'duckdb' does not implement the bootstrap"):
        pr.evaluate_policy(data["log"], data["policy"], "IPW", bootstrap=10, engine="duckdb")
    s = slates.random_slates(35, n=10)
    with pytest.raises(PolarsRankError, match="'clickhouse' does not implement the bootstrap"):
        pr.evaluate_slate_policy(s["log"], s["policy"], "SIPS", bootstrap=10, engine="clickhouse")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bootstrap": 0}, "bootstrap must be a positive"),
        ({"bootstrap": 2.5}, "bootstrap must be a positive"),
        ({"bootstrap": 10, "alpha": 1.0}, "alpha must be"),
        ({"bootstrap": 10, "seed": -1}, "seed must be"),
    ],
)
def test_bad_options(kwargs: dict[str, object], message: str) -> None:
    data = random_log(36, n=20)
    with pytest.raises(PolarsRankError, match=message):
        pr.evaluate_policy(data["log"], data["policy"], "IPW", **kwargs)  # type: ignore[arg-type]
