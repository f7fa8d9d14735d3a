"""``polars-rank fuse``: TREC runs fused into a TREC run."""

from __future__ import annotations

from pathlib import Path

import pytest

import polars_rank as pr
from polars_rank.cli import main
from polars_rank.io import read_trec_run


def _runs(tmp_path: Path) -> list[str]:
    one = tmp_path / "one.txt"
    two = tmp_path / "two.txt"
    one.write_text("q Q0 a 1 2.0 bm25\nq Q0 b 2 1.0 bm25\n")
    two.write_text("q Q0 b 1 0.9 dense\nq Q0 c 2 0.1 dense\n")
    return [str(one), str(two)]


def test_rrf_by_hand(tmp_path: Path) -> None:
    out = tmp_path / "fused.txt"
    assert main(["fuse", *_runs(tmp_path), "--method", "rrf", "--k", "60", "-o", str(out)]) == 0
    fused = read_trec_run(out)
    # ranks: run one a=1, b=2; run two b=1, c=2; rrf = sum of 1 / (60 + rank)
    expected = [("b", 1 / 62 + 1 / 61), ("a", 1 / 61), ("c", 1 / 62)]
    assert fused["doc"].to_list() == [d for d, _ in expected]
    assert fused["rank"].to_list() == [1, 2, 3]
    assert set(fused["run_id"]) == {"fused"}
    for got, (_, want) in zip(fused["score"], expected, strict=True):
        assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("engine", ["duckdb", "clickhouse"])
def test_rrf_by_hand_on_an_engine(tmp_path: Path, engine: str) -> None:
    """``--engine``: the compiled query gives the file the Polars engine's numbers above."""
    out = tmp_path / "fused.txt"
    assert main(["fuse", *_runs(tmp_path), "--engine", engine, "-o", str(out)]) == 0
    fused = read_trec_run(out)
    expected = [("b", 1 / 62 + 1 / 61), ("a", 1 / 61), ("c", 1 / 62)]
    assert fused["doc"].to_list() == [d for d, _ in expected]
    for got, (_, want) in zip(fused["score"], expected, strict=True):
        assert got == pytest.approx(want, rel=1e-12)


def test_wsum_sum_tie_order(tmp_path: Path) -> None:
    out = tmp_path / "fused.txt"
    args = ["fuse", *_runs(tmp_path), "--method", "wsum", "--weights", "1", "1", "-o", str(out)]
    assert main(args) == 0
    # min-max: one a=1 b=0; two b=1 c=0 -> a=1, b=1 (tie: doc id descending), c=0
    fused = read_trec_run(out)
    assert fused.select("doc", "rank", "score").rows() == [
        ("b", 1, 1.0),
        ("a", 2, 1.0),
        ("c", 3, 0.0),
    ]


@pytest.mark.parametrize("method", ["sum", "mnz", "max", "min", "med", "anz", "rrf"])
@pytest.mark.parametrize("norm", ["min-max", "zmuv", "borda", "none"])
def test_matches_fuse(tmp_path: Path, method: str, norm: str) -> None:
    paths = _runs(tmp_path)
    out = tmp_path / "fused.txt"
    assert main(["fuse", *paths, "--method", method, "--norm", norm, "-o", str(out)]) == 0
    runs = {str(i): read_trec_run(p).select("query", "doc", "score") for i, p in enumerate(paths)}
    want = pr.fuse(runs, method, norm=None if norm == "none" else norm)
    got = read_trec_run(out)
    assert got["doc"].to_list() == want["doc"].to_list()
    assert got["score"].to_list() == pytest.approx(want["score"].to_list(), rel=1e-12, abs=1e-15)


def test_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = _runs(tmp_path)
    out = str(tmp_path / "fused.txt")
    assert main(["fuse", paths[0], "-o", out]) == 2
    assert "at least two run files" in capsys.readouterr().err
    assert main(["fuse", *paths, "--method", "wsum", "--weights", "1", "-o", out]) == 2
    assert "one weight per run" in capsys.readouterr().err
    assert main(["fuse", *paths, "-o", paths[0]]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert main(["fuse", *paths, "--method", "nope", "-o", out]) == 2
