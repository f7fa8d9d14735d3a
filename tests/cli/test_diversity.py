"""``polars-rank diversity``: TREC diversity qrels and TREC runs, the library's numbers per
run in one plan; a hand-checked case."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import polars_rank as pr
from polars_rank.cli import main
from tests.support.diversity import random_tables


def _files(tmp_path: Path) -> tuple[Path, list[Path], dict[str, pl.DataFrame], pl.DataFrame]:
    runs, qrels = {}, None
    for seed, name in ((21, "bm25"), (22, "dense")):
        run, judged = random_tables(seed)
        runs[name] = run
        qrels = judged if qrels is None else qrels
    assert qrels is not None
    qrels_path = tmp_path / "qrels.txt"
    lines = [
        f"{q} {s} {d} {r}"
        for q, s, d, r in qrels.select("query", "subtopic", "doc", "relevance").iter_rows()
    ]
    qrels_path.write_text("\n".join(lines) + "\n")
    paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.run"
        ranked = run.sort(["query", "score"], descending=[False, True])
        lines = [f"{q} Q0 {d} 1 {s!r} {name}" for q, d, s in ranked.iter_rows()]
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return qrels_path, paths, runs, pr.read_trec_qrels(qrels_path, subtopics=True)


def test_runs_equal_the_library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels_path, paths, runs, qrels = _files(tmp_path)
    names = ["alpha-nDCG@20", "ERR-IA@20", "nNRBP"]
    args = ["diversity", str(qrels_path), *map(str, paths), "-m", ",".join(names), "-o", "json"]
    assert main(args) == 0
    got = json.loads(capsys.readouterr().out)
    assert [row["run"] for row in got] == ["bm25", "dense"]
    for row in got:
        run = runs[row["run"]].with_columns(pl.col("query").cast(pl.String))
        want = pr.evaluate_diversity(run, qrels, names)
        for name in names:
            assert row[name] == pytest.approx(want[name].item(), rel=1e-12)


def test_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Query 1, subtopics 1 (d1) and 2 (d2); the run ranks d1, d9, d2: subtopic recall@1 is
    1/2 and @3 is 2/2; P-IA@2 = (1 + 0) / (2 subtopics · 2) = 0.25."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 1 d1 1\n1 2 d2 1\n")
    run = tmp_path / "a.run"
    run.write_text("1 Q0 d1 1 3.0 a\n1 Q0 d9 2 2.0 a\n1 Q0 d2 3 1.0 a\n")
    args = ["diversity", str(qrels), str(run), "-m", "strec@1,strec@3,P-IA@2", "-o", "csv"]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines() == [
        "run,strec@1,strec@3,P-IA@2",
        "a,0.5,1.0,0.25",
    ]


def test_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels_path, paths, _, _ = _files(tmp_path)
    for extra, message in (
        (["-m", "nope@5"], "nope"),
        (["-o", "parquet"], "needs --out"),
        (["--alpha", "1.5"], "alpha"),
    ):
        assert main(["diversity", str(qrels_path), str(paths[0]), *extra]) == 2
        assert message in capsys.readouterr().err
