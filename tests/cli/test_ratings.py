"""``polars-rank ratings``: the library's rating errors from files; a case by hand; errors."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import polars_rank as pr
from polars_rank.cli import main
from tests.support.ratings import WEIGHTED, random_tables


def test_equal_to_the_library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ratings, predictions = random_tables(51)
    ratings = ratings.filter(pl.col("w").is_not_null())
    r, p = tmp_path / "ratings.parquet", tmp_path / "predictions.parquet"
    ratings.write_parquet(r)
    predictions.write_parquet(p)
    args = ["ratings", str(r), str(p), "-m", ",".join(WEIGHTED), "--by", "market"]
    assert main([*args, "--weight", "w", "-o", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    with pytest.warns(UserWarning):
        want = pr.evaluate_ratings(ratings, predictions, WEIGHTED, by="market", weight="w")
    assert [row["market"] for row in got] == want["market"].to_list()
    for row, expected in zip(got, want.iter_rows(named=True), strict=True):
        for name in WEIGHTED:
            assert row[name] == pytest.approx(expected[name], rel=1e-12, abs=1e-15), name


def test_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Errors 1 and -3: MAE (1 + 3) / 2 = 2, RMSE √((1 + 9) / 2) = √5."""
    r, p = tmp_path / "r.csv", tmp_path / "p.csv"
    r.write_text("user,item,stars\nu,a,4\nu,b,2\n")
    p.write_text("user,item,prediction\nu,a,3\nu,b,5\n")
    assert (
        main(["ratings", str(r), str(p), "--rating", "stars", "-m", "MAE,RMSE", "-o", "csv"]) == 0
    )
    header, values = capsys.readouterr().out.splitlines()
    assert header == "MAE,RMSE"
    mae, rmse = map(float, values.split(","))
    assert mae == 2.0 and rmse == pytest.approx(5**0.5, rel=1e-15)


def test_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r, p = tmp_path / "r.csv", tmp_path / "p.csv"
    r.write_text("user,item,rating\nu,a,4\n")
    p.write_text("user,item,prediction\nu,a,3\n")
    for extra, message in ((["-m", "nDCG@10"], "nDCG@10"), (["-o", "parquet"], "needs --out")):
        assert main(["ratings", str(r), str(p), *extra]) == 2
        assert message in capsys.readouterr().err
