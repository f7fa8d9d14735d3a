"""``polars-rank classify`` against scikit-learn: AUC, group AUC (a loop of roc_auc_score
weighted by group size), log loss, average precision, precision/recall/F1 at a threshold; in
every output format of ``evaluate``."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import (
    average_precision_score,
    f1_score,
    fbeta_score,
    log_loss,
    precision_score,
    recall_score,
    roc_auc_score,
)

from polars_rank.cli import main


@pytest.fixture(scope="module")
def clicks(tmp_path_factory):
    rng = np.random.default_rng(7)
    n = 3000
    user = rng.integers(0, 60, n)
    clicked = (rng.random(n) < 0.25).astype(int)
    # scores on a 1/100 grid: ties; some users see no click (left out of the group AUC)
    clicked[user < 3] = 0
    p = np.round(np.clip(0.3 * clicked + rng.normal(0.35, 0.2, n), 0, 1), 2)
    frame = pl.DataFrame({"user": user, "clicked": clicked, "p": p})
    path = tmp_path_factory.mktemp("classify") / "clicks.parquet"
    frame.write_parquet(path)
    return frame, path


def _sklearn(frame: pl.DataFrame, threshold: float) -> dict[str, float]:
    y, p = frame["clicked"].to_numpy(), frame["p"].to_numpy()
    predicted = (p >= threshold).astype(int)
    return {
        "rows": frame.height,
        "positives": int(y.sum()),
        "roc_auc": roc_auc_score(y, p),
        "log_loss": log_loss(y, p, labels=[0, 1]),
        "average_precision": average_precision_score(y, p),
        f"precision@{threshold:g}": precision_score(y, predicted, zero_division=0.0),
        f"recall@{threshold:g}": recall_score(y, predicted, zero_division=0.0),
        f"f1@{threshold:g}": f1_score(y, predicted, zero_division=0.0),
    }


def _group_auc(frame: pl.DataFrame) -> tuple[float, int, int]:
    total, weight, used, left_out = 0.0, 0, 0, 0
    for _, part in frame.group_by("user"):
        y = part["clicked"].to_numpy()
        if y.min() == y.max():
            left_out += 1
            continue
        total += part.height * roc_auc_score(y, part["p"].to_numpy())
        weight += part.height
        used += 1
    return total / weight, used, left_out


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("threshold", [0.5, 0.35])
def test_classify_matches_scikit_learn(clicks, capsys, threshold):
    frame, path = clicks
    code = main(
        ["classify", str(path), "--label", "clicked", "--score", "p", "--group", "user",
         "-o", "json", "--threshold", str(threshold)]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    (row,) = json.loads(out)
    expected = _sklearn(frame, threshold)
    gauc, used, left_out = _group_auc(frame)
    expected.update(group_auc=gauc, groups_used=used, groups_left_out=left_out)
    assert list(row) == [
        "rows", "positives", "roc_auc", "group_auc", "groups_used", "groups_left_out",
        "log_loss", "average_precision", f"precision@{threshold:g}", f"recall@{threshold:g}",
        f"f1@{threshold:g}",
    ]  # fmt: skip
    assert left_out == 3
    for name, value in expected.items():
        assert _close(row[name], value), (name, row[name], value)
    for name in ("rows", "positives", "groups_used", "groups_left_out"):
        assert type(row[name]) is int


def test_classify_per_group_matches_scikit_learn(clicks, capsys):
    frame, path = clicks
    code = main(
        ["classify", str(path), "--label", "clicked", "--score", "p", "--group", "user",
         "--per-group", "-o", "csv"]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    got = pl.read_csv(out.encode())
    assert got["user"].to_list() == sorted(frame["user"].unique().to_list())
    for row in got.iter_rows(named=True):
        part = frame.filter(pl.col("user") == row["user"])
        if part["clicked"].sum() == 0:  # AUC and AP undefined: empty, never NaN
            assert row["roc_auc"] is None and row["average_precision"] is None
            continue
        for name, value in _sklearn(part, 0.5).items():
            assert _close(row[name], value), (row["user"], name)


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "trec", "parquet"])
def test_classify_output_formats(clicks, capsys, tmp_path, fmt):
    frame, path = clicks
    out_file = tmp_path / "out.parquet"
    extra = ["--out", str(out_file)] if fmt == "parquet" else []
    code = main(["classify", str(path), "--label", "clicked", "--score", "p", "-o", fmt, *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    auc = roc_auc_score(frame["clicked"].to_numpy(), frame["p"].to_numpy())
    if fmt == "parquet":
        got = pl.read_parquet(out_file)
        assert got.schema["rows"] == pl.Int64 and _close(got["roc_auc"][0], auc)
    elif fmt == "trec":
        lines = dict(line.split("\t")[0::2] for line in out.splitlines())
        assert lines["rows                  "] == str(frame.height)
        assert lines["roc_auc               "] == f"{auc:6.4f}"
    else:
        assert f"{auc:.4f}" in out and str(frame.height) in out
        assert f"{frame.height}.0" not in out


def test_classify_errors_and_warnings(clicks, capsys, tmp_path):
    frame, path = clicks
    code = main(["classify", str(path), "--label", "click", "--score", "p"])
    assert code == 2 and "no column 'click'" in capsys.readouterr().err
    code = main(["classify", str(path), "--label", "clicked", "--score", "p", "--per-group"])
    assert code == 2 and "--per-group needs --group" in capsys.readouterr().err
    logits = frame.with_columns(pl.col("p") * 4 - 2)
    logits.write_parquet(tmp_path / "logits.parquet")
    code = main(["classify", str(tmp_path / "logits.parquet"), "--label", "clicked", "--score",
                 "p", "-o", "json"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0
    assert "log loss needs probabilities: column 'p' has" in err
    (row,) = json.loads(out)
    assert row["log_loss"] is None
    assert _close(row["roc_auc"], _sklearn(frame, 0.5)["roc_auc"])  # a monotone transform


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_classify_metric_names(clicks, capsys, engine):
    """``-m`` takes classification names (repeatable or comma-separated), through
    ``evaluate_classification``; counts print as integers; ``--threshold`` applies unless the
    name sets one."""
    frame, path = clicks
    code = main(
        ["classify", str(path), "--label", "clicked", "--score", "p", "--group", "user",
         "-m", "AUC,LogLoss", "-m", "GAUC", "-m", "Fbeta(beta=2),F1(threshold=0.6)",
         "-m", "TP,FN", "--threshold", "0.35", "--engine", engine, "-o", "json"]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    (row,) = json.loads(out)
    assert list(row) == ["AUC", "LogLoss", "GAUC", "Fbeta(beta=2)", "F1(threshold=0.6)", "TP", "FN"]
    y, p = frame["clicked"].to_numpy(), frame["p"].to_numpy()
    gauc, _, _ = _group_auc(frame)
    expected = {
        "AUC": roc_auc_score(y, p),
        "LogLoss": log_loss(y, p, labels=[0, 1]),
        "GAUC": gauc,
        "Fbeta(beta=2)": fbeta_score(y, (p >= 0.35).astype(int), beta=2),
        "F1(threshold=0.6)": f1_score(y, (p >= 0.6).astype(int)),
        "TP": int(((p >= 0.35) & (y == 1)).sum()),
        "FN": int(((p < 0.35) & (y == 1)).sum()),
    }
    for name, value in expected.items():
        assert _close(row[name], value), (name, row[name], value)
    assert type(row["TP"]) is int and type(row["FN"]) is int


def test_classify_metric_names_per_group(clicks, capsys):
    frame, path = clicks
    code = main(
        ["classify", str(path), "--label", "clicked", "--score", "p", "--group", "user",
         "--per-group", "-m", "AUC,AP,TP", "-o", "trec"]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = [line.split("\t") for line in out.splitlines()]
    assert [(m.strip(), g) for m, g, _ in lines[:3]] == [("AUC", "0"), ("AP", "0"), ("TP", "0")]
    assert len(lines) == 3 * frame["user"].n_unique()
    part = frame.filter(pl.col("user") == 5)
    auc = roc_auc_score(part["clicked"].to_numpy(), part["p"].to_numpy())
    assert ["AUC                   ", "5", f"{auc:6.4f}"] in lines
    tp = int(((part["p"] >= 0.5) & (part["clicked"] == 1)).sum())
    assert ["TP                    ", "5", str(tp)] in lines


def test_classify_metric_name_errors(clicks, capsys):
    _, path = clicks
    args = ["classify", str(path), "--label", "clicked", "--score", "p"]
    assert main([*args, "-m", "nDCG@10"]) == 2
    err = capsys.readouterr().err
    assert "ranking metric" in err and "evaluate_classification" in err
    assert main([*args, "-m", "GAUC"]) == 2
    assert "GAUC averages AUC over groups: it needs --group" in capsys.readouterr().err
    assert main([*args, "-m", "Fbeta"]) == 2
    assert "needs beta" in capsys.readouterr().err
    assert main(["classify", "missing.csv", "--label", "y", "--score", "p", "-m", "AUCC"]) == 2
    assert "unknown metric 'AUCC'" in capsys.readouterr().err  # before reading the file


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_classify_by_matches_the_api_and_scikit_learn(clicks, capsys, tmp_path, engine):
    """``--by COL`` (repeatable, comma-separated) is ``evaluate_classification(by=...)``: one
    row per segment, each segment's numbers scikit-learn's on its rows alone; with
    ``--per-group``, one row per (segment, group)."""
    import polars_rank as pr

    frame, _ = clicks
    frame = frame.with_columns(half=pl.col("user") % 2, site=pl.lit("s"))
    path = tmp_path / "clicks.parquet"
    frame.write_parquet(path)
    argv = ["classify", str(path), "--label", "clicked", "--score", "p", "-m", "AUC,TP",
            "--engine", engine, "-o", "json"]  # fmt: skip
    assert main([*argv, "--by", "half,site"]) == 0
    rows = json.loads(capsys.readouterr().out)
    api = pr.evaluate_classification(
        frame, ["AUC", "TP"], label="clicked", score="p", by=["half", "site"], engine=engine
    )
    assert rows == api.to_dicts()
    assert [(r["half"], r["site"]) for r in rows] == [(0, "s"), (1, "s")]
    for row in rows:
        part = frame.filter(pl.col("half") == row["half"])
        y, p = part["clicked"].to_numpy(), part["p"].to_numpy()
        assert _close(row["AUC"], roc_auc_score(y, p))
        assert row["TP"] == int(((p >= 0.5) & (y == 1)).sum())
    assert main([*argv, "--by", "half", "--group", "user", "--per-group"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [list(r)[:2] for r in rows[:1]] == [["half", "user"]]
    assert len(rows) == frame.select("half", "user").unique().height
    assert main([*argv[:-1], "trec", "--by", "half"]) == 2  # one row per segment
    assert "--by: -o trec" in capsys.readouterr().err
    assert main(["classify", str(path), "--label", "clicked", "--score", "p", "--by", "x"]) == 2
    assert "--by goes with -m METRIC" in capsys.readouterr().err
