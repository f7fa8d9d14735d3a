"""The built-in demo: deterministic data, systems ordered in quality as designed, and the
``polars-rank demo`` command (in-process and as ``python -m polars_rank``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import polars as pl
import pytest

import polars_rank as pr
from polars_rank.cli import main
from polars_rank.demo import DEMO_METRICS, N_QUERIES, demo_data, polars_snippet

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_demo_data_is_deterministic():
    qrels_a, runs_a = demo_data()
    qrels_b, runs_b = demo_data()
    assert qrels_a.equals(qrels_b)
    assert list(runs_a) == list(runs_b) == ["bm25", "dense", "rerank"]
    for name in runs_a:
        assert runs_a[name].equals(runs_b[name])


def test_demo_data_shape():
    qrels, runs = demo_data()
    assert qrels["query"].n_unique() == N_QUERIES
    assert set(qrels["relevance"].unique().to_list()) == {0, 1, 2, 3}
    for run in runs.values():
        assert run.columns == ["query", "doc", "rank", "score"]
        assert run.group_by("query").len()["len"].to_list() == [100] * N_QUERIES
        assert not run.select(pl.struct("query", "doc").is_duplicated().any()).item()


@pytest.mark.parametrize("metric", ["nDCG@10", "AP", "P@10", "R@100", "RR@10"])
def test_systems_are_ordered_in_quality(metric):
    qrels, runs = demo_data()
    means = [pr.evaluate(run, qrels, [metric])[metric][0] for run in runs.values()]
    assert means[0] < means[1] < means[2], means


def test_demo_command_prints_every_metric(capsys, tmp_path):
    code = main(["demo", "--permutations", "1000", "--plot-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    for metric in DEMO_METRICS:
        assert metric in out
    for name in ("bm25", "dense", "rerank"):
        assert name in out
    assert "pr.evaluate(run, qrels, metrics)" in out
    assert "FROM judge('run', 'qrels')" in out
    pngs = sorted(tmp_path.glob("*.png"))
    assert [p.name for p in pngs] == ["differences.png", "ndcg_at_k.png", "precision_recall.png"]
    for png in pngs:
        data = png.read_bytes()
        assert data[:8] == PNG_SIGNATURE and len(data) > 5_000


def test_python_dash_m_demo():
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-m", "polars_rank", "demo", "--permutations", "1000"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=root,
    )
    assert done.returncode == 0, done.stderr
    assert "Evaluation" in done.stdout and "Comparison with bm25" in done.stdout
    assert done.stderr == ""


def _python_snippet(out: str) -> str:
    """The Python code the demo prints (indented under its heading)."""
    block = out.split("The same in Python (Polars):\n", 1)[1].split("The same in SQL", 1)[0]
    return textwrap.dedent(block)


def test_write_data_makes_the_printed_snippet_run(capsys, tmp_path):
    folder = tmp_path / "demo data"
    code = main(["demo", "--permutations", "200", "--write-data", str(folder)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert sorted(p.name for p in folder.iterdir()) == [
        "bm25.parquet", "bm25.run", "dense.parquet", "dense.run", "qrels.parquet", "qrels.txt",
        "rerank.parquet", "rerank.run",
    ]  # fmt: skip
    snippet = _python_snippet(out)
    assert str(folder / "rerank.parquet") in snippet
    namespace: dict = {}
    exec(compile(snippet, "<demo snippet>", "exec"), namespace)  # runs as printed
    result = namespace["pr"].evaluate(namespace["run"], namespace["qrels"], namespace["metrics"])
    qrels, runs = demo_data()
    assert result.equals(pr.evaluate(runs["rerank"], qrels, DEMO_METRICS))
    # the printed evaluation table shows the same numbers for rerank
    row = next(line.split() for line in out.splitlines() if line.strip().startswith("rerank"))
    assert row[1] == f"{result['nDCG@10'][0]:.4f}"
    # and the TREC text files give the same numbers on the command line
    code = main(["evaluate", str(folder / "qrels.txt"), str(folder / "rerank.run"),
                 "-m", ",".join(DEMO_METRICS), "-o", "json"])  # fmt: skip
    got = json.loads(capsys.readouterr().out)[0]
    for metric in DEMO_METRICS:
        assert got[metric] == pytest.approx(result[metric][0], rel=1e-12)


def test_snippet_without_written_data_names_the_command():
    snippet = _python_snippet(
        "The same in Python (Polars):\n" + polars_snippet() + "The same in SQL"
    )
    assert "# the files of: polars-rank demo --write-data DIR" in snippet
    assert 'pl.read_parquet("DIR/rerank.parquet")' in snippet
