"""Category features and similarity tables in the portable SQL (``to_sql(...,
features="categories" | "similarities")``) and on Spark: intra-list diversity (cosine and
Jaccard) and serendipity per user within 1e-12 of the Polars engine — on DuckDB for every
dialect (transpiled back), on a live PostgreSQL server and in Spark — with integer and text
ids, items without features, similarity pairs in either orientation and a self pair."""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl
import pytest

import polars_rank as pr
from polars_rank.compiler import DIALECTS, column_names
from tests.support.sql_cases import recommender_random, to_duckdb
from tests.support.strategies import fast_first

CATEGORY_METRICS = ["ild@5", "ild(similarity=jaccard)@5", "ild", "serendipity@5",
                    "serendipity(gain=none)@3", "serendipity(gain=graded,rel=2)"]  # fmt: skip
TABLE_METRICS = ["ild@5", "ild", "serendipity@5", "serendipity(gain=none)@3"]


def feature_frames(int_ids: bool, seed: int = 0) -> dict[str, pl.DataFrame]:
    """:func:`recommender_random`'s inputs, with category features (0-3 categories per item,
    some items none) and a similarity table (random pairs in either orientation, a self pair)
    over its item ids."""
    frames = recommender_random(40, int_ids=int_ids, seed=seed)
    rng = np.random.default_rng(seed)
    items = (
        pl.concat([frames["run"].select("doc"), frames["catalog"].select("doc")])
        .unique()
        .sort("doc")["doc"]
        .to_list()
    )
    categories = [(d, int(c)) for d in items for c in rng.choice(6, rng.integers(0, 4))]
    pairs = []
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            if rng.random() < 0.15:
                first, second = (a, b) if rng.random() < 0.5 else (b, a)
                pairs.append((first, second, float(rng.integers(0, 8)) / 7))
    pairs.append((items[0], items[0], 0.25))  # a self pair: left out (an item with itself: 1)
    doc_type = frames["run"].schema["doc"]
    frames["categories"] = pl.DataFrame(
        categories, schema={"doc": doc_type, "category": pl.Int64}, orient="row"
    ).unique()
    frames["similarities"] = pl.DataFrame(
        pairs, schema={"doc_a": doc_type, "doc_b": doc_type, "similarity": pl.Float64}, orient="row"
    )
    return frames


def expected(frames: dict, kind: str, metrics: list[str]) -> pl.DataFrame:
    return pr.evaluate(
        frames["run"],
        frames["qrels"],
        metrics,
        interactions=frames["interactions"],
        item_features=frames[kind],
        per_query=True,
    )


def compiled(kind: str, metrics: list[str], dialect: str) -> str:
    return pr.to_sql(
        metrics,
        dialect,
        "run_t",
        "qrels_t",
        interactions="inter_t",
        item_features="feat_t",
        features=kind,
        per_query=True,
    )


def assert_same(got: pl.DataFrame, want: pl.DataFrame, metrics: list[str]) -> None:
    names = column_names(metrics)
    got = got.rename({v: k for k, v in names.items() if v in got.columns})
    got = got.sort(got.columns[0])
    assert got.height == want.height
    for metric in metrics:
        for a, b in zip(got[metric].to_list(), want[metric].to_list(), strict=True):
            assert (a is None and b is None) or (
                a is not None and b is not None and abs(a - b) <= 1e-12 * max(1, abs(b))
            ), (metric, a, b)


def _duckdb(frames: dict, kind: str, sql: str, dialect: str) -> pl.DataFrame:
    con = duckdb.connect()
    for name, key in (("run_t", "run"), ("qrels_t", "qrels"), ("inter_t", "interactions"),
                      ("feat_t", kind)):  # fmt: skip
        con.register(name, frames[key])
    if dialect != "duckdb":
        sql = to_duckdb(sql, dialect)
    out = con.sql(sql).pl()
    return out.rename(str.lower) if dialect == "snowflake" else out


@pytest.mark.parametrize("int_ids", [False, True], ids=["text ids", "integer ids"])
@pytest.mark.parametrize(
    ("kind", "metrics"),
    [("categories", CATEGORY_METRICS), ("similarities", TABLE_METRICS)],
    ids=["categories", "similarities"],
)
@pytest.mark.parametrize("dialect", fast_first(list(DIALECTS)))
def test_every_dialect_through_duckdb(dialect, kind, metrics, int_ids):
    frames = feature_frames(int_ids)
    got = _duckdb(frames, kind, compiled(kind, metrics, dialect), dialect)
    assert_same(got, expected(frames, kind, metrics), metrics)


def test_postgres(postgres):
    for int_ids in (False, True):
        frames = feature_frames(int_ids, seed=2)
        postgres.load("run_t", frames["run"])
        postgres.load("qrels_t", frames["qrels"])
        postgres.load("inter_t", frames["interactions"])
        for kind, metrics in (("categories", CATEGORY_METRICS), ("similarities", TABLE_METRICS)):
            postgres.load("feat_t", frames[kind])
            got = postgres.query(compiled(kind, metrics, "postgres"))
            assert_same(got, expected(frames, kind, metrics), metrics)


def test_spark(spark):
    frames = feature_frames(False, seed=3)
    sdf = {k: spark.createDataFrame(v.to_arrow()) for k, v in frames.items()}
    for kind, metrics in (("categories", CATEGORY_METRICS), ("similarities", TABLE_METRICS)):
        got = pr.evaluate(
            sdf["run"],
            sdf["qrels"],
            metrics,
            engine="spark",
            interactions=sdf["interactions"],
            item_features=sdf[kind],
            per_query=True,
        )
        assert_same(got, expected(frames, kind, metrics), metrics)
