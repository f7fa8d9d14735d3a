"""``evaluate_slate_policy`` and ``slate_policy_sql``: OBP's slate estimators (the numpy
oracle of :mod:`tests.support.slates`) within 1e-12 per segment on every engine, live
PostgreSQL and Spark included; cross-checks with the bandit estimators; hostile inputs."""

from __future__ import annotations

import math

import duckdb
import numpy as np
import polars as pl
import pytest
import sqlglot

import polars_rank as pr
from polars_rank.core.dialects import DIALECTS, get_dialect
from polars_rank.core.errors import PolarsRankError
from tests.support.slates import ALL, oracle, random_slates, subset

COLUMNS = ("estimate", "standard_error", "ess", "max_weight")


def _same_as_obp(got: pl.DataFrame, data: dict[str, object], names: list[str]) -> None:
    assert got.columns == ["day", "estimator", *COLUMNS, "n"]
    assert got["day"].to_list() == [d for d in ("mon", "tue", "wed") for _ in names]
    assert got["estimator"].to_list() == names * 3
    day = np.asarray(data["day"])
    for row in got.iter_rows(named=True):
        want = oracle(row["estimator"], subset(data, day == row["day"]))
        for column in COLUMNS:
            assert row[column] == pytest.approx(want[column], rel=1e-12, abs=1e-12), (
                row["day"],
                row["estimator"],
                column,
            )
        assert row["n"] == want["n"]


@pytest.mark.parametrize("engine", ["polars", "duckdb", "clickhouse"])
def test_equal_to_obp_per_day(engine: str) -> None:
    data = random_slates(1)
    got = pr.evaluate_slate_policy(data["log"], data["policy"], ALL, by="day", engine=engine)
    _same_as_obp(got, data, ALL)


def test_obp_class_names_and_one_segment() -> None:
    """Without by: one row per estimator over every slate; OBP's class names as aliases."""
    data = random_slates(2, n=120, len_list=4)
    names = ["SlateStandardIPS", "SelfNormalizedSlateRewardInteractionIPS"]
    got = pr.evaluate_slate_policy(data["log"], data["policy"], names)
    assert got["estimator"].to_list() == names
    for row, short in zip(got.iter_rows(named=True), ["SIPS", "SNRIPS"], strict=True):
        want = oracle(short, data)
        for column in COLUMNS:
            assert row[column] == pytest.approx(want[column], rel=1e-12, abs=1e-12)
        assert row["n"] == 120


def test_postgres_equals_obp(postgres) -> None:
    data = random_slates(3)
    postgres.load("slate_log", data["log"])  # type: ignore[arg-type]
    postgres.load("slate_policy", data["policy"])  # type: ignore[arg-type]
    sql = pr.slate_policy_sql(ALL, "postgres", "slate_log", "slate_policy", by="day")
    got = postgres.query(sql).with_columns(pl.col("n").cast(pl.Int64))
    _same_as_obp(got.with_columns(pl.col(c).cast(pl.Float64) for c in COLUMNS), data, ALL)


def test_spark_equals_obp(spark) -> None:
    data = random_slates(4)
    got = pr.evaluate_slate_policy(
        data["log"], data["policy"], ALL, by="day", engine="spark", con=spark
    )
    _same_as_obp(got, data, ALL)


def test_one_slot_slates_are_the_bandit_estimators() -> None:
    """A slate of one slot is one bandit decision: SIPS is IPW and SNSIPS is SNIPW, standard
    errors, ESS and largest weight included (evaluate_policy's own oracle tests are
    against OBP's bandit estimators)."""
    rng = np.random.default_rng(5)
    n = 200
    pscore = rng.uniform(0.1, 1.0, n)
    probability = rng.uniform(0.0, 1.0, n)
    reward = rng.integers(0, 2, n).astype(float)
    log = pl.DataFrame(
        {"slate_id": np.arange(n), "position": np.zeros(n, dtype=np.int64), "reward": reward}
    ).with_columns(pscore=pl.Series(pscore))
    slate_policy = log.select("slate_id", "position").with_columns(pscore=pl.Series(probability))
    slates = pr.evaluate_slate_policy(log, slate_policy, ["SIPS", "SNSIPS"])
    bandit_log = log.select(
        context="slate_id", action=pl.lit("a"), reward="reward", pscore="pscore"
    )
    bandit_policy = pl.DataFrame(
        {
            "context": np.repeat(np.arange(n), 2),
            "action": ["a", "b"] * n,
            "probability": np.column_stack([probability, 1 - probability]).ravel(),
        }
    )
    bandit = pr.evaluate_policy(bandit_log, bandit_policy, ["IPW", "SNIPW"])
    for column in (*COLUMNS, "n"):
        for a, b in zip(slates[column], bandit[column], strict=True):
            assert a == pytest.approx(b, rel=1e-12, abs=1e-12), column


def test_by_hand() -> None:
    """Two slates of two slots; IIPS weights 2, 1 (slate 1) and 2, 0.5 (slate 2).
    IIPS = (1·2 + 0·1 + 0·2 + 1·0.5) / 2 = 1.25; per slate Y = 2 and 0.5, so the standard
    error is std([2, 0.5], ddof=1) / √2 = 1.0607 / 1.4142 = 0.75. SNIIPS divides by the
    mean weight of each position: position 0 weights 2, 2 (mean 2), position 1 weights 1,
    0.5 (mean 0.75): (1·2/2 + 0 + 0 + 1·0.5/0.75) / 2 = (1 + 2/3) / 2 = 5/6. ESS over the
    four weights: 5.5² / (4 + 1 + 4 + 0.25) = 30.25 / 9.25."""
    log = pl.DataFrame(
        {
            "slate_id": ["s1", "s1", "s2", "s2"],
            "position": [0, 1, 0, 1],
            "reward": [1.0, 0.0, 0.0, 1.0],
            "pscore_item_position": [0.5, 0.5, 0.25, 0.5],
        }
    )
    policy = log.select("slate_id", "position").with_columns(
        pscore_item_position=pl.Series([1.0, 0.5, 0.5, 0.25])
    )
    for engine in ("polars", "duckdb", "clickhouse"):
        got = pr.evaluate_slate_policy(log, policy, ["IIPS", "SNIIPS"], engine=engine)
        iips, sniips = got.iter_rows(named=True)
        assert iips["estimate"] == pytest.approx(1.25, rel=1e-15)
        assert iips["standard_error"] == pytest.approx(0.75, rel=1e-15)
        assert sniips["estimate"] == pytest.approx(5 / 6, rel=1e-15)
        assert iips["ess"] == sniips["ess"] == pytest.approx(30.25 / 9.25, rel=1e-15)
        assert iips["max_weight"] == 2.0 and iips["n"] == 2


def test_a_position_whose_weights_are_all_zero() -> None:
    """SNSIPS divides by the mean weight of each position: all 0 at a position gives a null
    estimate and standard error (OBP: NaN) on every engine; SIPS is 0 there."""
    log = pl.DataFrame(
        {"slate_id": [1, 1, 2, 2], "position": [0, 1, 0, 1], "reward": [1.0, 1.0, 0.0, 1.0]}
    ).with_columns(pscore=pl.lit(0.5))
    policy = log.select("slate_id", "position").with_columns(pscore=pl.Series([1.0, 0, 1, 0]))
    for engine in ("polars", "duckdb", "clickhouse"):
        got = pr.evaluate_slate_policy(log, policy, ["SIPS", "SNSIPS"], engine=engine)
        sips, snsips = got.iter_rows(named=True)
        assert sips["estimate"] == pytest.approx((1 * 2 + 0 + 0 + 0) / 2)
        assert snsips["estimate"] is None and snsips["standard_error"] is None, engine
        assert snsips["ess"] == sips["ess"] and snsips["n"] == 2


def test_ids_compare_as_bytes_under_any_default_collation() -> None:
    """Under DuckDB's ``nocase``, slates "a" and "A" stay two slates."""
    log = pl.DataFrame(
        {"slate_id": ["a", "A"], "position": [0, 0], "reward": [1.0, 0.0], "pscore": [0.5, 0.5]}
    )
    policy = pl.DataFrame({"slate_id": ["a", "A"], "position": [0, 0], "pscore": [1.0, 0.0]})
    con = duckdb.connect()
    con.execute("SET default_collation = 'nocase'")
    got = pr.evaluate_slate_policy(log, policy, "SIPS", engine="duckdb", con=con)
    assert got.select("estimate", "n").rows() == [(1.0, 2)]  # (1 · 2 + 0 · 0) / 2


def test_every_dialect_renders_and_parses() -> None:
    for dialect in DIALECTS:
        sql = pr.slate_policy_sql(ALL, dialect, "db.slates", "db.policy", by=["day", "market"])
        sqlglot.parse_one(sql, read=get_dialect(dialect).sqlglot_name)


def _tables() -> tuple[pl.DataFrame, pl.DataFrame]:
    log = pl.DataFrame(
        {
            "slate_id": [1, 1, 2, 2],
            "position": [0, 1, 0, 1],
            "reward": [1.0, 0.0, 1.0, 1.0],
            "pscore": [0.5, 0.5, 0.2, 0.2],
            "day": ["mon", "mon", "tue", "tue"],
        }
    )
    return log, log.select("slate_id", "position", pscore=pl.lit(0.4))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda log, pi: (log.with_columns(pscore=pl.lit(0.0)), pi), r"outside \(0, 1\]"),
        (lambda log, pi: (log, pi.with_columns(pscore=pl.lit(1.5))), r"outside \[0, 1\]"),
        (lambda log, pi: (log.with_columns(reward=pl.lit(None, pl.Float64)), pi), "NULL"),
        (lambda log, pi: (log.with_columns(reward=math.nan), pi), "NaN"),
        (lambda log, pi: (log.with_columns(position=0), pi), "more than once"),
        (lambda log, pi: (log, pi.filter(pl.col("slate_id") == 1)), "missing from the policy"),
        (lambda log, pi: (log.drop("pscore"), pi), "pscore"),
        (
            lambda log, pi: (log, pi.with_columns(pl.col("slate_id").cast(pl.String))),
            "differ in type",
        ),
    ],
)
def test_bad_inputs_are_refused_alike_on_every_engine(change, message: str) -> None:
    log, policy = change(*_tables())
    for engine in ("polars", "duckdb"):
        with pytest.raises(PolarsRankError, match=message):
            pr.evaluate_slate_policy(log, policy, "SIPS", engine=engine)


def test_bad_requests() -> None:
    log, policy = _tables()
    with pytest.raises(PolarsRankError, match="estimator"):
        pr.evaluate_slate_policy(log, policy, "CascadeDR")
    with pytest.raises(PolarsRankError, match="twice"):
        pr.evaluate_slate_policy(log, policy, ["SIPS", "sips"])
    with pytest.raises(PolarsRankError, match="at least one"):
        pr.evaluate_slate_policy(log, policy, [])
    with pytest.raises(PolarsRankError, match="more than one segment"):
        pr.evaluate_slate_policy(
            log.with_columns(day=pl.Series(["a", "b"] * 2)), policy, "SIPS", by="day"
        )
    with pytest.raises(PolarsRankError, match="slate column"):
        pr.evaluate_slate_policy(log, policy, "SIPS", by="slate_id")
    with pytest.raises(PolarsRankError, match="must differ"):
        pr.evaluate_slate_policy(log, policy, "SIPS", reward="pscore")
    with pytest.raises(PolarsRankError, match="log"):
        pr.slate_policy_sql("SIPS", "duckdb", "log; DROP TABLE x", "p")
