"""The reader's data the documentation's examples use without defining it (see
``tests/docs/test_examples.py``'s docstring), as the ``reader`` fixture."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from polars_rank.demo import demo_data, write_data
from polars_rank.io import write_trec_run


def _recommender(run: pl.DataFrame, qrels: pl.DataFrame) -> dict[str, pl.DataFrame]:
    docs = sorted(set(run["doc"]) | set(qrels["doc"]))
    k = np.arange(len(docs), dtype=np.float64)
    vectors = np.stack([np.cos(k), np.sin(k / 3.0), (k % 5) - 2.0], axis=1)
    features = pl.DataFrame(
        {"doc": docs, "vector": pl.Series(vectors.tolist(), dtype=pl.List(pl.Float64))}
    )
    return {
        "train": qrels.select("query", "doc").gather_every(3),
        "vectors": features,
        "features": features,
        "items": pl.DataFrame({"doc": docs}),
    }


@pytest.fixture()
def reader(tmp_path: Path, monkeypatch) -> dict[str, object]:
    """The reader's data (see the module docstring) in a fresh folder, the working folder."""
    import duckdb

    qrels, runs = demo_data()
    run = runs["rerank"]
    monkeypatch.chdir(tmp_path)
    write_data(tmp_path / "data")
    write_trec_run(run, tmp_path / "run.txt", run_id="rerank")
    (tmp_path / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.iter_rows()), encoding="utf-8"
    )
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    con = duckdb.connect()
    con.execute(f"CREATE TABLE my_run AS SELECT * FROM '{tmp_path / 'run.parquet'}'")
    con.execute(f"CREATE TABLE my_qrels AS SELECT * FROM '{tmp_path / 'qrels.parquet'}'")
    joined = run.join(qrels, on=["query", "doc"], how="inner")
    clicks = joined.select(
        pl.col("query").alias("user"),
        (pl.col("relevance") >= 2).cast(pl.Int64).alias("clicked"),
        (1.0 / (1.0 + (-pl.col("score")).exp())).alias("p"),
    )
    return {
        "run": run,
        "run2": runs["dense"],
        "qrels": qrels,
        "bm25": runs["bm25"],
        "dense": runs["dense"],
        "hybrid": runs["rerank"],
        "clicks": clicks,
        "con": con,
        **_recommender(run, qrels),
    }
