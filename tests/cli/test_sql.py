"""``polars-rank sql``: prints ``to_sql``'s query for the options given; the printed query runs
(in DuckDB) and gives the Polars engine's numbers; errors are one line."""

from __future__ import annotations

import warnings

import duckdb
import pytest

import polars_rank as pr
from polars_rank.cli import main
from polars_rank.cli.evaluate import DEFAULT_METRICS
from polars_rank.demo import demo_data
from tests.support.sql_cases import assert_sql_result


def test_prints_to_sql(capsys):
    argv = ["sql", "-m", "nDCG@10", "-m", "AP", "--dialect", "bigquery"]
    assert main([*argv, "--run", "project.ds.run", "--qrels", "project.ds.qrels"]) == 0
    expected = pr.to_sql(["nDCG@10", "AP"], "bigquery", "project.ds.run", "project.ds.qrels")
    assert capsys.readouterr().out == expected + "\n"


def test_every_option_reaches_to_sql(capsys):
    argv = [
        "sql", "-m", "P(rel=2)@5,RR", "--dialect", "postgres", "--run", "r", "--qrels", "q",
        "--per-query", "--layout", "long", "--compact", "--queries", "both",
        "--relevance-level", "2", "--order-by", "rank", "--max-rank", "100",
        "--query-col", "qid", "--doc-col", "docno", "--rank-col", "pos",
        "--relevance-col", "grade",
    ]  # fmt: skip
    assert main(argv) == 0
    expected = pr.to_sql(
        ["P(rel=2)@5", "RR"], "postgres", "r", "q", per_query=True, layout="long",
        pretty=False, queries="both", relevance_level=2, order_by="rank", max_rank=100,
        query="qid", doc="docno", rank="pos", relevance="grade",
    )  # fmt: skip
    assert capsys.readouterr().out == expected + "\n"


def test_the_printed_query_runs(capsys, tmp_path):
    qrels, runs = demo_data()
    run = runs["bm25"]
    argv = ["sql", "--dialect", "duckdb", "--run", "run_t", "--qrels", "qrels_t", "--per-query"]
    out = tmp_path / "query.sql"
    assert main([*argv, "--out", str(out)]) == 0
    assert capsys.readouterr().out == ""
    con = duckdb.connect()
    con.register("run_t", run)
    con.register("qrels_t", qrels)
    got = con.sql(out.read_text()).pl()  # without -m: evaluate's default metrics
    assert_sql_result(got, run, qrels, DEFAULT_METRICS)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--dialect", "mysql"], "argument --dialect: invalid choice: 'mysql'"),
        (["--dialect", "spark", "--max-rank", "0"], "max_rank must be a positive integer"),
        (["--dialect", "spark", "-m", "Px@10"], "unknown name 'Px'"),
        (["--dialect", "spark", "--duplicates", "first"], "invalid choice: 'first'"),
        (["--dialect", "spark", "--layout", "long", "--query-col", "value"], "(--query-col value)"),
    ],
)
def test_errors_are_one_line(capsys, extra, message):
    assert main(["sql", "--run", "r", "--qrels", "q", *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("polars-rank: error: ") and message in err
    assert err.count("\n") == 1


def test_an_empty_table_name_is_an_error(capsys):
    assert main(["sql", "--dialect", "trino", "--run", " ", "--qrels", "q"]) == 2
    err = capsys.readouterr().err
    assert (
        err == "polars-rank: error: the run table name must be a non-empty string "
        "(e.g. 'db.run'), got ' '\n"
    )


def test_recommender_tables(capsys):
    """--interactions, --catalog, --item-features and --vector-col reach to_sql; --qrels may be
    left out; the printed query runs and gives evaluate's numbers."""
    from tests.support.sql_cases import as_labels, recommender_random
    from tests.support.strategies import assert_same

    frames = recommender_random(20, int_ids=False, seed=6)
    features = frames["item_features"].rename({"vector": "emb"})
    metrics = ["coverage@5", "novelty@5", "ild@5"]
    argv = [
        "sql", "-m", ",".join(metrics), "--dialect", "duckdb", "--run", "run_t",
        "--interactions", "inter_t", "--catalog", "cat_t", "--item-features", "feat_t",
        "--vector-col", "emb",
    ]  # fmt: skip
    assert main(argv) == 0
    sql = capsys.readouterr().out
    expected_sql = pr.to_sql(
        metrics, "duckdb", "run_t", None, interactions="inter_t", catalog="cat_t",
        item_features="feat_t", vector="emb",
    )  # fmt: skip
    assert sql == expected_sql + "\n"
    con = duckdb.connect()
    for name, frame in [
        ("run_t", frames["run"]),
        ("inter_t", frames["interactions"]),
        ("cat_t", frames["catalog"]),
        ("feat_t", features),
    ]:
        con.register(name, frame)
    with warnings.catch_warnings():  # recommended items outside the catalog
        warnings.simplefilter("ignore")
        expected = pr.evaluate(
            frames["run"], None, metrics, interactions=frames["interactions"],
            catalog=frames["catalog"], item_features=features,
        )  # fmt: skip
    assert_same(expected, as_labels(con.sql(sql).pl(), metrics, expected))
