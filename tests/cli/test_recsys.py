"""``polars-rank evaluate`` with the recommender inputs: ``--interactions``,
``--item-features`` and ``--catalog`` files next to the run and judgments, giving the same
numbers as :func:`polars_rank.evaluate`."""

from __future__ import annotations

import json

import polars as pl
import pytest

import polars_rank as pr
from polars_rank.cli import main

RUN = pl.DataFrame(
    {
        "query": ["u1", "u1", "u1", "u2", "u2", "u3"],
        "doc": ["a", "b", "c", "a", "e", "b"],
        "score": [0.9, 0.8, 0.7, 0.5, 0.4, 1.0],
    }
)
QRELS = pl.DataFrame({"query": ["u1", "u2", "u3"], "doc": ["b", "e", "a"], "relevance": [1, 2, 1]})
INTERACTIONS = pl.DataFrame({"query": ["u1", "u2", "u2", "u3"], "doc": ["a", "a", "b", "c"]})
VECTORS = pl.DataFrame(
    {"doc": ["a", "b", "c", "e"], "vector": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 1.0]]}
)
CATEGORIES = pl.DataFrame({"doc": ["a", "b", "c", "c"], "genre": ["x", "y", "x", "y"]})
METRICS = ["nDCG@3", "coverage@2", "novelty@2", "ild@3", "serendipity@3", "ERR@3"]


@pytest.fixture()
def files(tmp_path):
    paths = {}
    for name, frame in (
        ("run", RUN),
        ("qrels", QRELS),
        ("interactions", INTERACTIONS),
        ("vectors", VECTORS),
    ):
        paths[name] = tmp_path / f"{name}.parquet"
        frame.write_parquet(paths[name])
    paths["categories"] = tmp_path / "categories.csv"
    CATEGORIES.write_csv(paths["categories"])
    paths["catalog"] = tmp_path / "catalog.csv"
    pl.DataFrame({"doc": ["a", "b", "c", "d"]}).write_csv(paths["catalog"])
    return paths


@pytest.mark.parametrize("features", ["vectors", "categories"])
def test_evaluate_with_recommender_inputs(files, features, capsys) -> None:
    code = main(
        [
            "evaluate",
            str(files["qrels"]),
            str(files["run"]),
            "-m",
            ",".join(METRICS),
            "--interactions",
            str(files["interactions"]),
            "--item-features",
            str(files[features]),
            "-o",
            "json",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    row = json.loads(out)[0]
    features_frame = VECTORS if features == "vectors" else CATEGORIES
    expected = pr.evaluate(
        RUN, QRELS, METRICS, interactions=INTERACTIONS, item_features=features_frame
    ).row(0, named=True)
    for name in METRICS:
        assert row[name] == pytest.approx(expected[name], rel=1e-12), name


def test_catalog_file_and_its_warning(files, capsys) -> None:
    """Catalog a, b, c, d: shown at k = 2 a, b, e → e is outside (a warning line), 2 of 4."""
    code = main(
        [
            "evaluate",
            str(files["qrels"]),
            str(files["run"]),
            "-m",
            "coverage@2",
            "--catalog",
            str(files["catalog"]),
            "-o",
            "csv",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert out.splitlines()[1].split(",")[1] == "0.5"
    assert "polars-rank: warning: 1 recommended item is not in the catalog" in err


def test_missing_input_and_text_file_are_errors(files, tmp_path, capsys) -> None:
    code = main(["evaluate", str(files["qrels"]), str(files["run"]), "-m", "novelty@2"])
    assert code == 2
    assert "metric 'novelty@2' needs --interactions FILE (the training" in capsys.readouterr().err
    text = tmp_path / "history.txt"
    text.write_text("u1 a\n")
    code = main(["evaluate", str(files["qrels"]), str(files["run"]), "--interactions", str(text)])
    assert code == 2
    assert "must be a table (.parquet, .csv, .tsv or .jsonl)" in capsys.readouterr().err
