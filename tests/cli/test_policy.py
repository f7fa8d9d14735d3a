"""``polars-rank policy``: the library's off-policy estimates from files, every option
passed through; the errors named before anything is estimated."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import polars_rank as pr
from polars_rank.cli import main
from tests.support import slates
from tests.support.policy import random_log


def test_bandit_estimates_equal_the_library(tmp_path: Path) -> None:
    data = random_log(41, n=120)
    paths = {}
    for name in ("log", "policy", "q_hat"):
        paths[name] = tmp_path / f"{name}.parquet"
        data[name].write_parquet(paths[name])  # type: ignore[attr-defined]
    out = tmp_path / "estimates.csv"
    args = ["policy", str(paths["log"]), str(paths["policy"]), "--q-hat", str(paths["q_hat"])]
    args += ["-e", "IPW,DR", "-e", "SwitchDR", "--by", "day", "--lambda", "2.5"]
    assert main([*args, "-o", "csv", "--out", str(out)]) == 0
    got = pl.read_csv(out)
    want = pr.evaluate_policy(
        data["log"],  # type: ignore[arg-type]
        data["policy"],  # type: ignore[arg-type]
        ["IPW", "DR", "SwitchDR"],
        q_hat=data["q_hat"],  # type: ignore[arg-type]
        by="day",
        lambda_=2.5,
    )
    assert got.columns == want.columns
    assert got["estimator"].to_list() == want["estimator"].to_list()
    for a, b in zip(got["estimate"], want["estimate"], strict=True):
        assert a == pytest.approx(b, rel=1e-12)


def test_slates_with_a_bootstrap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = slates.random_slates(42, n=60)
    log, policy = tmp_path / "log.csv", tmp_path / "policy.csv"
    data["log"].write_csv(log)  # type: ignore[attr-defined]
    data["policy"].write_csv(policy)  # type: ignore[attr-defined]
    args = ["policy", str(log), str(policy), "--slates", "-e", "IIPS,SNRIPS"]
    assert main([*args, "--bootstrap", "200", "--seed", "3", "-o", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    want = pr.evaluate_slate_policy(
        data["log"],  # type: ignore[arg-type]
        data["policy"],  # type: ignore[arg-type]
        ["IIPS", "SNRIPS"],
        bootstrap=200,
        seed=3,
    )
    assert [row["estimator"] for row in got] == ["IIPS", "SNRIPS"]
    for row, expected in zip(got, want.iter_rows(named=True), strict=True):
        for column in ("estimate", "ci_lower", "ci_upper", "n"):
            assert row[column] == pytest.approx(expected[column], rel=1e-12)


def test_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = random_log(43, n=20)
    log, policy = tmp_path / "log.parquet", tmp_path / "policy.parquet"
    data["log"].write_parquet(log)  # type: ignore[attr-defined]
    data["policy"].write_parquet(policy)  # type: ignore[attr-defined]
    cases = [
        (["--slates", "--q-hat", str(log)], "--slates"),
        (["-o", "parquet"], "needs --out"),
        (["-e", "DR"], "q_hat"),
        (["--bootstrap", "10", "--engine", "duckdb"], "bootstrap"),
    ]
    for extra, message in cases:
        assert main(["policy", str(log), str(policy), *extra]) == 2
        assert message in capsys.readouterr().err
    empty = tmp_path / "empty.csv"
    empty.write_text("context,action,reward,pscore\n")
    assert main(["policy", str(empty), str(policy)]) == 2
    assert "no rows" in capsys.readouterr().err
