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


# ------------------------------------------------------------------------------------------
# grouped classification curves, many queries, integer k


def _svg_texts(draw, path: Path) -> list[str]:
    """Every text of the SVG ``draw(path)`` writes (text kept as text, not glyph outlines)."""
    import html
    import re

    import matplotlib

    with matplotlib.rc_context({"svg.fonttype": "none"}):
        draw(path)
    found = re.findall(r"<text\b[^>]*>(.*?)</text>", path.read_text(), flags=re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", text)).strip() for text in found]


def _clicks(users: int, rows: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    user = rng.integers(0, users, rows)
    clicked = (rng.random(rows) < 0.3).astype(int)
    quality = rng.normal(0.25, 0.15, users)[user]
    p = np.round(np.clip(quality * clicked + rng.normal(0.4, 0.2, rows), 0, 1), 2)
    return pl.DataFrame({"user": user, "clicked": clicked, "p": p})


@pytest.mark.parametrize("kind", ["roc", "pr"])
def test_curves_by_user_one_line_per_group_with_area_in_the_legend(tmp_path, kind):
    import polars_rank.classification as cls

    clicks = _clicks(3, 600)
    if kind == "roc":
        curve = cls.roc_curve(clicks, "clicked", "p", by="user")
        draw, area, name = plot.roc_curve, cls.roc_auc("clicked", "p"), "AUC"
    else:
        curve = cls.precision_recall_curve(clicks, "clicked", "p", by="user")
        draw, area, name = plot.precision_recall_curve, cls.average_precision("clicked", "p"), "AP"
    expected = clicks.group_by("user").agg(area.alias("area")).sort("user")
    texts = _svg_texts(lambda p: draw(curve, p), tmp_path / f"{kind}.svg")
    legend = [t for t in texts if t.startswith("user ")]
    assert legend == [f"user {u} ({name} {a:.3f})" for u, a in expected.iter_rows()]
    _assert_png(draw(curve, tmp_path / f"{kind}.png"))


def test_single_curve_has_its_auc_and_one_class_groups_are_named(tmp_path):
    import polars_rank.classification as cls

    clicks = _clicks(4, 400).with_columns(
        clicked=pl.when(pl.col("user") == 3).then(0).otherwise(pl.col("clicked"))
    )
    single = cls.roc_curve(clicks, "clicked", "p")
    texts = _svg_texts(lambda p: plot.roc_curve(single, p), tmp_path / "one.svg")
    auc = clicks.select(cls.roc_auc("clicked", "p")).item()
    assert f"AUC {auc:.3f}" in texts
    by_user = cls.roc_curve(clicks, "clicked", "p", by="user")
    texts = _svg_texts(lambda p: plot.roc_curve(by_user, p), tmp_path / "users.svg")
    assert "1 group(s) with one class only: no curve" in texts
    assert [t.split(" (")[0] for t in texts if t.startswith("user ")] == [
        "user 0",
        "user 1",
        "user 2",
    ]


@pytest.mark.parametrize("kind", ["roc", "pr"])
def test_many_groups_are_summarised(tmp_path, kind):
    import polars_rank.classification as cls

    clicks = _clicks(500, 20_000, seed=3)
    if kind == "roc":
        curve = cls.roc_curve(clicks, "clicked", "p", by="user")
        draw, area, name = plot.roc_curve, cls.roc_auc("clicked", "p"), "AUC"
    else:
        curve = cls.precision_recall_curve(clicks, "clicked", "p", by="user")
        draw, area, name = plot.precision_recall_curve, cls.average_precision("clicked", "p"), "AP"
    areas = clicks.group_by("user").agg(area.alias("a")).drop_nulls()["a"]
    texts = _svg_texts(lambda p: draw(curve, p), tmp_path / f"{kind}.svg")
    assert not any(t.startswith("user ") for t in texts)
    assert "10th–90th percentile of groups" in texts
    assert (
        f"mean of {areas.len()} groups ({name} mean {areas.mean():.3f}, "
        f"median {areas.median():.3f})" in texts
    )
    _assert_png(draw(curve, tmp_path / f"{kind}.png"))


def test_mean_curve_of_identical_groups_is_their_curve():
    """Every group the same: the mean ROC at each false positive rate is that curve, read as
    straight segments between its points, and the band is the curve itself."""
    from polars_rank.classification import curves as _curves

    one = pl.DataFrame({"fpr": [0.0, 0.0, 0.5, 1.0], "tpr": [0.0, 0.5, 0.5, 1.0]})
    curve = pl.concat([one.with_columns(user=pl.lit(u)) for u in range(30)])
    mean = _curves.mean_roc(curve, ["user"])
    at = dict(zip(mean["fpr"], mean["mean"], strict=True))
    assert at[0.0] == 0.5 and at[0.25] == 0.5 and at[0.75] == pytest.approx(0.75)
    assert mean["low"].to_list() == pytest.approx(mean["mean"].to_list(), abs=1e-12)
    assert mean["high"].to_list() == pytest.approx(mean["mean"].to_list(), abs=1e-12)
    assert set(mean["groups"]) == {30}


def test_thousands_of_queries_draw_solid_areas(tmp_path):
    """3000 queries, half +0.5 and half −0.5: the green and the red parts are solid blocks
    (bars a fraction of a pixel wide alias into light stripes)."""
    from matplotlib.image import imread

    n = 3000
    queries = [f"q{i:04d}" for i in range(n)]
    per_query = pl.concat(
        [
            pl.DataFrame({"run": "a", "query": queries, "AP": [0.5] * n}),
            pl.DataFrame({"run": "b", "query": queries, "AP": [1.0, 0.0] * (n // 2)}),
        ]
    )
    out = plot.per_query_differences(per_query, "AP", "a", "b", tmp_path / "d.png")
    image = imread(out)[:, :, :3]
    green = np.array([0x2A, 0x9D, 0x4B]) / 255
    is_green = np.abs(image - green).max(axis=2) < 0.02
    row = int(np.argmax(is_green.sum(axis=1)))  # a row through the middle of the green block
    columns = np.flatnonzero(is_green[row])
    assert columns.size > 500
    inside = is_green[row, columns[0] : columns[-1] + 1]
    assert inside.all(), f"{(~inside).sum()} pixels of the green block are not green"


def test_metric_at_k_has_integer_ticks(tmp_path):
    curves = pl.DataFrame({"run": ["a"] * 3, "k": [1, 2, 3], "value": [0.2, 0.3, 0.35]})
    texts = _svg_texts(lambda p: plot.metric_at_k(curves, p, metric_name="P"), tmp_path / "k.svg")
    ticks = [t for t in texts if t.replace(".", "").replace("−", "").isdigit()]
    assert "1" in ticks and "3" in ticks
    assert not [t for t in ticks if "." in t and float(t) > 0.5], ticks  # x ticks: no 1.5


def test_metric_at_k_frame_keeps_the_metrics_own_cutoff():
    qrels, runs = _collection(5)
    curves = plot.metric_at_k_frame(runs, qrels, "P(rel=1)@7")
    assert curves.filter(run="bm25")["k"].to_list() == list(range(1, 8))
    direct = evaluate(runs["bm25"], qrels, ["P@7"])["P@7"][0]
    assert curves.filter(run="bm25", k=7)["value"][0] == pytest.approx(direct, abs=1e-12)
    assert plot.metric_at_k_frame(runs, qrels, "ndcg_cut.4")["k"].max() == 4
    with pytest.raises(ValueError, match=r"has its own cutoff 7: pass ks or the metric"):
        plot.metric_at_k_frame(runs, qrels, "P@7", [1, 2])
    with pytest.raises(ValueError, match=r"takes no cutoff k"):
        plot.metric_at_k_frame(runs, qrels, "Rprec")
