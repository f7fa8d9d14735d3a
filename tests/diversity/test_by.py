"""``evaluate_diversity(..., by=...)``: several systems in one plan, each equal to pyndeval on
its own run (shared judgments) and to the call on that system alone; judgments with the
``by`` column belong to their segment."""

from __future__ import annotations

import math

import polars as pl
import pytest

import polars_rank as pr
from polars_rank.core.errors import PolarsRankError
from tests.support.diversity import NDEVAL, ndeval_values, random_tables

NAMES = list(NDEVAL.values())


def _systems() -> tuple[pl.DataFrame, pl.DataFrame, dict[str, pl.DataFrame]]:
    runs = {}
    qrels = None
    for seed, system in ((11, "bm25"), (12, "dense"), (13, "splade")):
        run, judged = random_tables(seed)
        if qrels is None:
            qrels = judged
        runs[system] = run
    assert qrels is not None
    stacked = pl.concat(r.with_columns(system=pl.lit(s)) for s, r in runs.items())
    return stacked, qrels, runs


def test_each_system_equals_pyndeval_with_shared_judgments() -> None:
    stacked, qrels, runs = _systems()
    got = pr.evaluate_diversity(stacked, qrels, NAMES, by="system", per_query=True, queries="both")
    assert got.columns[:2] == ["system", "query"]
    for system, run in runs.items():
        want = ndeval_values(run, qrels)
        rows = got.filter(pl.col("system") == system)
        assert sorted(rows["query"]) == sorted(want)
        for row in rows.iter_rows(named=True):
            for name, value in want[row["query"]].items():
                if math.isnan(value):
                    assert name == "nnrbp" and row[name] == 0.0
                    continue
                assert row[name] == pytest.approx(value, rel=1e-9, abs=1e-12), (system, name)


@pytest.mark.parametrize("queries", ["qrels", "both"])
def test_means_equal_one_call_per_system(queries: str) -> None:
    stacked, qrels, runs = _systems()
    got = pr.evaluate_diversity(stacked, qrels, NAMES, by=["system"], queries=queries)  # type: ignore[arg-type]
    assert got["system"].to_list() == sorted(runs)
    for row in got.iter_rows(named=True):
        alone = pr.evaluate_diversity(runs[row["system"]], qrels, NAMES, queries=queries)  # type: ignore[arg-type]
        for name in NAMES:
            assert row[name] == pytest.approx(alone[name].item(), rel=1e-12, abs=1e-15)


def test_judgments_of_a_segment() -> None:
    """A by column the judgments have joins them: year 1's query q has subtopics 1 and 2,
    year 2's only subtopic 1, so the same ranking [a, b] scores differently. Year 1:
    a covers 1, b covers 2 → subtopic recall@1 = 1/2; year 2: a covers 1 → 1/1 = 1."""
    run = pl.DataFrame(
        {"year": [1, 1, 2, 2], "query": ["q"] * 4, "doc": ["a", "b"] * 2, "score": [2.0, 1.0] * 2}
    )
    qrels = pl.DataFrame(
        {
            "year": [1, 1, 2],
            "query": ["q"] * 3,
            "subtopic": ["1", "2", "1"],
            "doc": ["a", "b", "a"],
            "relevance": [1, 1, 1],
        }
    )
    got = pr.evaluate_diversity(run, qrels, ["subtopic_recall@1"], by="year")
    assert got.rows() == [(1, 0.5), (2, 1.0)]
    # the segments are the run's, as evaluate's by: year 3's judgments alone give no row
    judged_only = pl.DataFrame(
        {"year": [3], "query": ["q"], "subtopic": ["1"], "doc": ["a"], "relevance": [1]}
    )
    got = pr.evaluate_diversity(run, pl.concat([qrels, judged_only]), ["strec@1"], by="year")
    assert got["year"].to_list() == [1, 2]
    assert pr.evaluate(run, qrels.drop("subtopic"), ["P@1"], by="year")["year"].to_list() == [1, 2]


def test_bad_by() -> None:
    stacked, qrels, _ = _systems()
    with pytest.raises(PolarsRankError, match="'nope'"):
        pr.evaluate_diversity(stacked, qrels, NAMES, by="nope")
    with pytest.raises(PolarsRankError, match="by column 'doc'"):
        pr.evaluate_diversity(stacked, qrels, NAMES, by="doc")
    with pytest.raises(PolarsRankError, match="NULL"):
        pr.evaluate_diversity(
            stacked.with_columns(system=pl.lit(None, pl.String)), qrels, NAMES, by="system"
        )
