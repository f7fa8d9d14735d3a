"""``evaluate_runs``: several runs into one frame, the same rows as ``evaluate`` run by run;
and the one argument order ``(runs, qrels, metrics)`` of every function that takes runs."""

from __future__ import annotations

import polars as pl
import pytest

import polars_rank as pr
from polars_rank.demo import demo_data

METRICS = ["nDCG@10", "AP", "NumRelRet"]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("per_query", [False, True])
def test_rows_are_evaluate_run_by_run(engine, per_query) -> None:
    qrels, runs = demo_data()
    got = pr.evaluate_runs(runs, qrels, METRICS, per_query=per_query, engine=engine)
    expected = pl.concat(
        pr.evaluate(run, qrels, METRICS, per_query=per_query, engine=engine).select(
            pl.lit(name).alias("run"), pl.all()
        )
        for name, run in runs.items()
    )
    assert got.equals(expected)
    assert got["run"].unique(maintain_order=True).to_list() == list(runs)


def test_pairs_lazy_frames_and_run_column_name() -> None:
    qrels, runs = demo_data()
    pairs = ((name, run.lazy()) for name, run in runs.items())  # read one at a time
    got = pr.evaluate_runs(pairs, qrels, ["RR"], run_column="system")
    assert got.columns == ["system", "RR"]
    assert got["RR"].to_list() == [pr.evaluate(r, qrels, ["RR"])["RR"][0] for r in runs.values()]


def test_no_runs_is_an_error() -> None:
    qrels, _ = demo_data()
    with pytest.raises(pr.PolarsRankError, match="no runs given"):
        pr.evaluate_runs({}, qrels, ["RR"])
