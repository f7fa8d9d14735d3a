"""Plots: each function writes a real PNG (or SVG) and the frame helpers match evaluate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

pytest.importorskip("matplotlib")

from polars_rank import evaluate, plot  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _assert_png(path: Path, min_bytes: int = 8_000) -> None:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert len(data) > min_bytes


def _collection(n_queries: int = 20):
    rng = np.random.default_rng(0)
    qrels, runs = [], {"bm25": [], "dense": []}
    for q in range(n_queries):
        relevant = set(rng.choice(30, size=5, replace=False).tolist())
        qrels += [(f"q{q:02d}", f"d{i}", 1) for i in relevant]
        for i in range(30):
            signal = 1.0 if i in relevant else 0.0
            runs["bm25"].append((f"q{q:02d}", f"d{i}", signal + rng.normal(0, 1.0)))
            runs["dense"].append((f"q{q:02d}", f"d{i}", signal + rng.normal(0, 0.5)))
    qrels_df = pl.DataFrame(qrels, schema=["query", "doc", "relevance"], orient="row")
    run_dfs = {
        name: pl.DataFrame(rows, schema=["query", "doc", "score"], orient="row")
        for name, rows in runs.items()
    }
    return qrels_df, run_dfs


def _per_query(n: int = 60) -> pl.DataFrame:
    rng = np.random.default_rng(1)
    base = rng.random(n)
    queries = [f"q{i:03d}" for i in range(n)]
    return pl.concat(
        [
            pl.DataFrame({"run": "bm25", "query": queries, "nDCG@10": base}),
            pl.DataFrame(
                {
                    "run": "dense",
                    "query": queries,
                    "nDCG@10": np.clip(base + rng.normal(0.05, 0.2, n), 0, 1),
                }
            ),
        ]
    )


def test_per_query_differences_png(tmp_path):
    out = plot.per_query_differences(_per_query(), "nDCG@10", "bm25", "dense", tmp_path / "d.png")
    assert out == tmp_path / "d.png"
    _assert_png(out)


def test_per_query_differences_few_queries_with_labels_and_custom_columns(tmp_path):
    frame = _per_query(12).rename({"run": "system", "query": "qid"})
    out = plot.per_query_differences(
        frame, "nDCG@10", "bm25", "dense", str(tmp_path / "d.png"), run="system", query="qid"
    )
    _assert_png(out)


def test_per_query_differences_errors(tmp_path):
    frame = _per_query(10)
    with pytest.raises(ValueError, match="no rows for run 'bm26'"):
        plot.per_query_differences(frame, "nDCG@10", "bm26", "dense", tmp_path / "x.png")
    with pytest.raises(ValueError, match="same queries"):
        plot.per_query_differences(frame.head(15), "nDCG@10", "bm25", "dense", tmp_path / "x.png")
    with pytest.raises(ValueError, match=r"\['AP'\] missing"):
        plot.per_query_differences(frame, "AP", "bm25", "dense", tmp_path / "x.png")


def test_metric_at_k_frame_and_plot(tmp_path):
    qrels, runs = _collection()
    ks = [1, 2, 3, 5, 10, 20]
    curves = plot.metric_at_k_frame(runs, qrels, "nDCG", ks)
    assert curves.columns == ["run", "k", "value"]
    assert curves.height == 2 * len(ks)
    direct = evaluate(runs["dense"], qrels, ["nDCG@5"])["nDCG@5"][0]
    assert curves.filter(run="dense", k=5)["value"][0] == pytest.approx(direct, abs=1e-12)
    _assert_png(plot.metric_at_k(curves, tmp_path / "k.png", metric_name="nDCG"))


def test_metric_at_k_svg(tmp_path):
    curves = pl.DataFrame(
        {
            "run": ["a"] * 3 + ["b"] * 3,
            "k": [1, 5, 10] * 2,
            "value": [0.2, 0.3, 0.35, 0.4, 0.5, 0.5],
        }
    )
    out = plot.metric_at_k(curves, tmp_path / "k.svg", metric_name="P")
    text = out.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text and len(text) > 5_000


def test_precision_recall_11pt_frame_and_plot(tmp_path):
    qrels, runs = _collection()
    curves = plot.precision_recall_11pt_frame(runs, qrels)
    assert curves.columns == ["run", "recall", "precision"]
    assert curves.filter(run="bm25")["recall"].to_list() == pytest.approx(
        [i / 10 for i in range(11)]
    )
    direct = evaluate(runs["bm25"], qrels, ["IPrec@0.3"])["IPrec@0.3"][0]
    assert curves.filter(run="bm25", recall=0.3)["precision"][0] == pytest.approx(direct)
    # Interpolated precision never increases with recall.
    for _, part in curves.group_by("run"):
        assert (part.sort("recall")["precision"].diff().drop_nulls() <= 1e-12).all()
    _assert_png(plot.precision_recall_11pt(curves, tmp_path / "pr11.png"))


def test_roc_curve_single_and_grouped(tmp_path):
    single = pl.DataFrame({"fpr": [0.0, 0.0, 0.2, 0.5, 1.0], "tpr": [0.0, 0.4, 0.7, 0.9, 1.0]})
    _assert_png(plot.roc_curve(single, tmp_path / "roc.png"))
    grouped = pl.concat(
        [
            single.with_columns(group=pl.lit("model A")),
            pl.DataFrame(
                {"fpr": [0.0, 0.3, 1.0], "tpr": [0.0, 0.5, 1.0], "group": ["model B"] * 3}
            ),
        ]
    )
    _assert_png(plot.roc_curve(grouped, tmp_path / "roc_groups.png"))
    with pytest.raises(ValueError, match="tpr"):
        plot.roc_curve(single.drop("tpr"), tmp_path / "bad.png")


def test_precision_recall_curve(tmp_path):
    curve = pl.DataFrame(
        {"recall": [1.0, 0.8, 0.6, 0.4, 0.2, 0.0], "precision": [0.5, 0.55, 0.7, 0.8, 1.0, 1.0]}
    )
    _assert_png(plot.precision_recall_curve(curve, tmp_path / "pr.png"))
    runs = pl.concat([curve.with_columns(run=pl.lit(n)) for n in ("x", "y")])
    _assert_png(plot.precision_recall_curve(runs, tmp_path / "pr_runs.png"))


def test_importing_the_package_does_not_import_matplotlib():
    code = (
        "import sys, polars_rank, polars_rank.plot, polars_rank.comparison; "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported eagerly'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
