"""``check_sql``: the engines' input checks as one portable query, on DuckDB, a live PostgreSQL
and a live Spark session, with the rows worked out by hand; clean tables give no row, and each
problem it reports is one the Polars engine refuses."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest
import sqlglot

import polars_rank as pr
from polars_rank.compiler.checks import CHECK_COLUMNS
from tests.support.sql_cases import to_duckdb

NAN, INF = float("nan"), float("inf")

#: A run with each problem once: q2's doc is null, q3's score is NaN, q4's score is null,
#: (q1, a) occurs twice.
DIRTY_RUN = pl.DataFrame(
    {
        "query": ["q1", "q1", "q1", "q2", "q3", "q4"],
        "doc": ["a", "a", "b", None, "c", "d"],
        "score": [1.0, 2.0, 0.5, 0.3, NAN, None],
    }
)
#: Judgments with each problem once: q2/x has no grade, q3/y a NaN grade, q3/z an infinite
#: one, q4/w grade 7 (above ERR's max_grade 4), (q1, a) twice.
DIRTY_QRELS = pl.DataFrame(
    {
        "query": ["q1", "q1", "q2", "q3", "q3", "q4"],
        "doc": ["a", "a", "x", "y", "z", "w"],
        "relevance": [1.0, 2.0, None, NAN, INF, 7.0],
    }
)

#: By hand, in check order: run null ids (1 row: q2), run null-or-NaN scores (q3 NaN and q4
#: null: 2 rows, smallest example q3/c), run duplicate pairs ((q1, a): its 2 rows), qrels
#: null-or-NaN grades (q2/x null, q3/y NaN: 2 rows, smallest q2/x), infinite grades (q3/z),
#: grades above 4 (q4/w: 7; the infinite one has its own check), duplicate pairs ((q1, a)).
EXPECTED = [
    ("run", "null_id", 1, "q2", None),
    ("run", "bad_score", 2, "q3", "c"),
    ("run", "duplicate_pair", 2, "q1", "a"),
    ("qrels", "bad_grade", 2, "q2", "x"),
    ("qrels", "infinite_grade", 1, "q3", "z"),
    ("qrels", "grade_above_max", 1, "q4", "w"),
    ("qrels", "duplicate_pair", 2, "q1", "a"),
]

CLEAN_RUN = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [1.0, 0.5]})
CLEAN_QRELS = pl.DataFrame({"query": ["q1"], "doc": ["a"], "relevance": [1]})


def _rows(frame: pl.DataFrame) -> list[tuple]:
    assert frame.columns == list(CHECK_COLUMNS)
    return [(a, b, int(c), d, e) for a, b, c, d, e in frame.rows()]


def _duckdb(sql: str, run: pl.DataFrame, qrels: pl.DataFrame) -> list[tuple]:
    con = duckdb.connect()
    con.register("run_v", run.to_arrow())
    con.register("qrels_v", qrels.to_arrow())
    con.execute("CREATE TABLE run_t AS SELECT * FROM run_v")
    con.execute("CREATE TABLE qrels_t AS SELECT * FROM qrels_v")
    return _rows(pl.from_arrow(con.sql(sql).to_arrow_table()))


def test_duckdb_finds_each_problem_in_order() -> None:
    sql = pr.check_sql("duckdb", "run_t", "qrels_t", metrics=["ERR@10"])
    assert _duckdb(sql, DIRTY_RUN, DIRTY_QRELS) == EXPECTED


def test_judgments_alone() -> None:
    """run=None: the judgments' checks only (what the dbt test valid_judgments runs)."""
    sql = pr.check_sql("duckdb", None, "qrels_t", metrics=["ERR@10"])
    assert _duckdb(sql, DIRTY_RUN, DIRTY_QRELS) == [r for r in EXPECTED if r[0] == "qrels"]
    with pytest.raises(pr.PolarsRankError, match="needs a run table, a qrels table or both"):
        pr.check_sql("duckdb", None, None)


def test_clean_tables_give_no_row() -> None:
    sql = pr.check_sql("duckdb", "run_t", "qrels_t", metrics=["ERR@10", "nDCG@5"])
    assert _duckdb(sql, CLEAN_RUN, CLEAN_QRELS) == []


def test_empty_tables_and_duplicates_max() -> None:
    sql = pr.check_sql("duckdb", "run_t", "qrels_t", duplicates="max")
    got = _duckdb(sql, DIRTY_RUN.clear(), DIRTY_QRELS)
    assert got[0] == ("run", "empty", 0, None, None)
    assert [p for _, p, *_ in got if p == "duplicate_pair"] == []  # max keeps one per pair
    with pytest.raises(pr.PolarsRankError, match="duplicates='first' is refused"):
        pr.check_sql("duckdb", "run_t", duplicates="first")


def test_each_problem_is_one_the_polars_engine_refuses() -> None:
    """One problem at a time: check_sql reports it, and evaluate raises."""
    sql = pr.check_sql("duckdb", "run_t", "qrels_t", metrics=["ERR@10"])
    run_cases = {
        "null_id": CLEAN_RUN.with_columns(doc=pl.Series(["a", None])),
        "bad_score": CLEAN_RUN.with_columns(score=pl.Series([1.0, NAN])),
        "duplicate_pair": pl.concat([CLEAN_RUN, CLEAN_RUN.head(1)]),
    }
    for problem, run in run_cases.items():
        assert [p for _, p, *_ in _duckdb(sql, run, CLEAN_QRELS)] == [problem]
        with pytest.raises(pr.PolarsRankError):
            pr.evaluate(run, CLEAN_QRELS, ["ERR@10"])
    qrels_cases = {
        "bad_grade": CLEAN_QRELS.with_columns(relevance=pl.Series([None], dtype=pl.Float64)),
        "infinite_grade": CLEAN_QRELS.with_columns(relevance=pl.Series([INF])),
        "grade_above_max": CLEAN_QRELS.with_columns(relevance=pl.Series([5])),
    }
    for problem, qrels in qrels_cases.items():
        assert [p for _, p, *_ in _duckdb(sql, CLEAN_RUN, qrels)] == [problem]
        with pytest.raises(pr.PolarsRankError):
            pr.evaluate(CLEAN_RUN, qrels, ["ERR@10"])


def test_rank_order_and_other_column_names() -> None:
    run = DIRTY_RUN.rename({"query": "user", "doc": "item"}).with_columns(
        pos=pl.Series([1, 2, None, 1, 1, 1])
    )
    qrels = DIRTY_QRELS.rename({"query": "user", "doc": "item", "relevance": "grade"})
    sql = pr.check_sql(
        "duckdb",
        "run_t",
        "qrels_t",
        query="user",
        doc="item",
        rank="pos",
        relevance="grade",
        order_by="rank",
    )
    got = _duckdb(sql, run, qrels)
    assert ("run", "bad_rank", 1, "q1", "b") in got  # only the null rank: NaN scores unread
    assert ("qrels", "grade_above_max", 1, "q4", "w") not in got  # no metric sets a limit


def test_recommender_inputs() -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE run_t AS SELECT 'u1' AS query, 'a' AS doc, 1.0 AS score")
    con.execute(
        "CREATE TABLE hist AS SELECT * FROM (VALUES ('u1', NULL), ('u2', 'b')) t(query, doc)"
    )
    con.execute("CREATE TABLE cat AS SELECT * FROM (VALUES ('a'), (NULL)) t(doc)")
    sql = pr.check_sql("duckdb", "run_t", interactions="hist", catalog="cat")
    assert _rows(pl.from_arrow(con.sql(sql).to_arrow_table())) == [
        ("interactions", "null_id", 1, "u1", None),
        ("catalog", "null_id", 1, None, None),
    ]


@pytest.mark.parametrize("dialect", ["bigquery", "snowflake", "trino", "spark", "postgres"])
def test_every_dialect_parses_back_and_transpiled_to_duckdb_is_equal(dialect) -> None:
    sql = pr.check_sql(dialect, "run_t", "qrels_t", metrics=["ERR@10"])
    tree = sqlglot.parse_one(sql, read=dialect)
    assert tree is not None
    if dialect in ("bigquery", "trino", "spark"):  # NaN tests there translate to DuckDB's
        back = to_duckdb(sql, dialect)
        assert _duckdb(back, DIRTY_RUN, DIRTY_QRELS) == EXPECTED


def test_postgres(postgres) -> None:
    postgres.load("run_t", DIRTY_RUN)
    postgres.load("qrels_t", DIRTY_QRELS)
    sql = pr.check_sql("postgres", "run_t", "qrels_t", metrics=["ERR@10"])
    assert _rows(postgres.query(sql)) == EXPECTED
    postgres.load("run_t", CLEAN_RUN)
    postgres.load("qrels_t", CLEAN_QRELS)
    assert postgres.query(sql).height == 0


def test_clickhouse(clickhouse) -> None:
    clickhouse.load("run_t", DIRTY_RUN)
    clickhouse.load("qrels_t", DIRTY_QRELS)
    sql = pr.check_sql("clickhouse", "run_t", "qrels_t", metrics=["ERR@10"])
    assert _rows(clickhouse.query(sql)) == EXPECTED
    clickhouse.load("run_t", CLEAN_RUN)
    clickhouse.load("qrels_t", CLEAN_QRELS)
    assert clickhouse.query(sql).height == 0


@pytest.mark.slow
def test_spark(spark) -> None:
    spark.createDataFrame(DIRTY_RUN.to_arrow()).createOrReplaceTempView("run_t")
    spark.createDataFrame(DIRTY_QRELS.to_arrow()).createOrReplaceTempView("qrels_t")
    sql = pr.check_sql("spark", "run_t", "qrels_t", metrics=["ERR@10"])
    assert _rows(pl.from_arrow(spark.sql(sql).toArrow())) == EXPECTED
    spark.createDataFrame(CLEAN_RUN.to_arrow()).createOrReplaceTempView("run_t")
    spark.createDataFrame(CLEAN_QRELS.to_arrow()).createOrReplaceTempView("qrels_t")
    assert spark.sql(sql).count() == 0


def test_a_null_score_gives_one_answer_in_every_dialect(postgres) -> None:
    """The compiled query leaves rows with a null score out: PostgreSQL (NULLS FIRST when
    descending) and DuckDB (NULLS LAST) rank the same rows. By hand: without the null row, q1
    ranks a (0.9) then b (0.5); only b is relevant, so P@2 = 1/2."""
    run = pl.DataFrame(
        {"query": ["q1", "q1", "q1"], "doc": ["a", "b", "c"], "score": [0.9, 0.5, None]}
    )
    qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
    postgres.load("run_t", run)
    postgres.load("qrels_t", qrels)
    in_postgres = postgres.query(pr.to_sql(["P@2"], "postgres", "run_t", "qrels_t"))
    con = duckdb.connect()
    con.register("run_t", run.to_arrow())
    con.register("qrels_t", qrels.to_arrow())
    in_duckdb = con.sql(pr.to_sql(["P@2"], "duckdb", "run_t", "qrels_t")).fetchall()
    assert in_postgres.item() == in_duckdb[0][0] == 0.5
    expected = pr.evaluate(run.drop_nulls(), qrels, ["P@2"]).item()
    assert expected == 0.5
    with pytest.raises(pr.PolarsRankError, match="null or NaN"):
        pr.evaluate(run, qrels, ["P@2"])  # the engines refuse it; check_sql reports it


def test_counts_in_one_row_flag_check_sqls_problems() -> None:
    """``check_counts_sql``: one row of counts over the same conditions. On the dirty tables
    (no metrics, so no grade_above_max) the failed checks are check_sql's, in its order; by
    hand the counts: 1 null id, 2 bad scores, 1 repeated run pair, 2 bad grades, 1 infinite
    grade, 1 repeated qrels pair. Clean tables count nothing, and ``run_duplicates=False``
    leaves the run's pairs out."""
    from polars_rank.compiler.checks import check_counts_sql

    sql, keys = check_counts_sql("duckdb", "run_t", "qrels_t")
    con = duckdb.connect()
    for name, frame in (("run_t", DIRTY_RUN), ("qrels_t", DIRTY_QRELS)):
        con.register(name, frame.to_arrow())
    counts = dict(zip(keys, con.sql(sql).fetchall()[0], strict=True))
    failed = {key: n for key, n in counts.items() if n}
    assert list(failed) == [(a, b) for a, b, *_ in EXPECTED if b != "grade_above_max"]
    assert list(failed.values()) == [1, 2, 1, 2, 1, 1]
    for name, frame in (("run_t", CLEAN_RUN), ("qrels_t", CLEAN_QRELS)):
        con.register(name, frame.to_arrow())
    assert set(con.sql(sql).fetchall()[0]) == {0}
    for name, frame in (("run_t", CLEAN_RUN.clear()), ("qrels_t", CLEAN_QRELS)):
        con.register(name, frame.to_arrow())
    assert [k for k, n in zip(keys, con.sql(sql).fetchall()[0], strict=True) if n] == [
        ("run", "empty")
    ]
    _, without = check_counts_sql("duckdb", "run_t", "qrels_t", run_duplicates=False)
    assert ("run", "duplicate_pair") not in without
    assert without == [k for k in keys if k != ("run", "duplicate_pair")]


def test_counts_pre_test_pairs_by_hash() -> None:
    """``check_counts_sql(..., pair_hash=...)``: a table's pairs pre-tested per query, its
    rows less its distinct doc hashes, under ``duplicate_pair_hash``. By hand on the dirty
    tables: q1's docs a, a, b are 3 rows and 2 hashes in each table, every other query
    has one row: 1 each; the clean tables 0; a constant hash (every doc of a query
    collides) counts q1's 2 clean rows as 1 hash: 1 in the run, 0 in the single judgment
    (a collision the caller resolves exactly)."""
    from polars_rank.compiler.checks import check_counts_sql

    hashes = {"run": "COUNT(DISTINCT HASH({doc}))", "qrels": "COUNT(DISTINCT HASH({doc}))"}
    sql, keys = check_counts_sql("duckdb", "run_t", "qrels_t", pair_hash=hashes)
    exact_sql, exact_keys = check_counts_sql("duckdb", "run_t", "qrels_t")
    assert keys == [
        (what, "duplicate_pair_hash" if problem == "duplicate_pair" else problem)
        for what, problem in exact_keys
    ]
    con = duckdb.connect()
    for name, frame in (("run_t", DIRTY_RUN), ("qrels_t", DIRTY_QRELS)):
        con.register(name, frame.to_arrow())
    counts = dict(zip(keys, con.sql(sql).fetchall()[0], strict=True))
    assert counts[("run", "duplicate_pair_hash")] == counts[("qrels", "duplicate_pair_hash")] == 1
    exact = con.sql(exact_sql).fetchall()[0]
    assert [n for k, n in counts.items() if "duplicate" not in k[1]] == [
        n for k, n in zip(exact_keys, exact, strict=True) if "duplicate" not in k[1]
    ]
    for name, frame in (("run_t", CLEAN_RUN), ("qrels_t", CLEAN_QRELS)):
        con.register(name, frame.to_arrow())
    assert set(con.sql(sql).fetchall()[0]) == {0}
    assert (CLEAN_RUN.height, CLEAN_QRELS.height) == (2, 1)
    constant = {"run": "COUNT(DISTINCT 42)", "qrels": "COUNT(DISTINCT 42)"}
    sql, keys = check_counts_sql("duckdb", "run_t", "qrels_t", pair_hash=constant)
    counts = dict(zip(keys, con.sql(sql).fetchall()[0], strict=True))
    assert counts[("run", "duplicate_pair_hash")] == 1
    assert counts[("qrels", "duplicate_pair_hash")] == 0
    con.register("run_t", CLEAN_RUN.clear().to_arrow())  # no row: no query to sum over
    assert [k for k, n in zip(keys, con.sql(sql).fetchall()[0], strict=True) if n] == [
        ("run", "empty")
    ]


def test_to_sql_counts_repeated_run_pairs() -> None:
    """``to_sql(..., duplicates_column=...)``: the run queries with a repeated pair. By hand:
    q1 repeats (q1, a) (scores 1 and 3, not neighbours in q1's ranking), q2 is clean; with
    ``by`` the same pair in two groups is no repeat. A clean run counts 0 and its metrics
    are those of the query without the column."""
    run = pl.DataFrame(
        {
            "g": [1, 1, 1, 1, 2],
            "query": ["q1", "q1", "q1", "q2", "q1"],
            "doc": ["a", "b", "a", "c", "a"],
            "score": [1.0, 2.0, 3.0, 1.0, 1.0],
        }
    )
    qrels = pl.DataFrame({"query": ["q1", "q2"], "doc": ["b", "c"], "relevance": [1, 1]})
    con = duckdb.connect()
    con.register("run_t", run.to_arrow())
    con.register("qrels_t", qrels.to_arrow())

    def dups(**options) -> list:
        sql = pr.to_sql(["AP"], "duckdb", "run_t", "qrels_t", duplicates_column="d", **options)
        return [row[-1] for row in con.sql(sql).fetchall()]

    assert dups() == [1]
    assert dups(per_query=True) == [1, 1]
    # group 1 has the repeat; group 2's (q1, a) is single
    assert dups(by="g", qrels_by=[]) == [1, 0]
    con.register("run_t", run.filter(pl.col("g") == 2).to_arrow())
    plain = con.sql(pr.to_sql(["AP", "nDCG"], "duckdb", "run_t", "qrels_t")).fetchall()
    sql = pr.to_sql(["AP", "nDCG"], "duckdb", "run_t", "qrels_t", duplicates_column="d")
    assert con.sql(sql).fetchall() == [(*plain[0], 0)]
    with pytest.raises(pr.PolarsRankError, match="needs qrels and duplicates='error'"):
        pr.to_sql(["AP"], "duckdb", "run_t", "qrels_t", duplicates="max", duplicates_column="d")


#: Ids that differ only by case, and one real repeated pair: (Q1, a) and (q1, a), (q1, D1)
#: and (q1, d1) are four pairs; (q1, e) occurs twice.
CASE_RUN = pl.DataFrame(
    {
        "query": ["Q1", "q1", "q1", "q1", "q1", "q1"],
        "doc": ["a", "a", "D1", "d1", "e", "e"],
        "score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    }
)
CASE_QRELS = CASE_RUN.select("query", "doc", relevance=pl.lit(1))

#: By hand, comparing ids as bytes: only (q1, e) repeats, its 2 rows, in each table. Under a
#: case-insensitive collation (q1, a), (q1, d1) and (q1, e) would each repeat: 6 rows.
CASE_EXPECTED = [
    ("run", "duplicate_pair", 2, "q1", "e"),
    ("qrels", "duplicate_pair", 2, "q1", "e"),
]


def _case_counts(sql: str, keys: list[tuple[str, str]], query) -> dict[tuple[str, str], int]:
    return {k: n for k, n in zip(keys, query(sql), strict=True) if n}


@pytest.mark.parametrize("where", ["session", "column"])
def test_ids_that_differ_by_case_are_not_duplicates_in_duckdb(where: str) -> None:
    """``check_sql`` and ``check_counts_sql`` compare ids as bytes, as the evaluation does,
    under ``SET default_collation = 'nocase'`` and on ``VARCHAR COLLATE NOCASE`` columns:
    ids that differ only by case are not duplicate pairs (one repeated pair in each table)."""
    from polars_rank.compiler.checks import check_counts_sql

    con = duckdb.connect()
    collate = " COLLATE NOCASE" if where == "column" else ""
    if where == "session":
        con.execute("SET default_collation = 'nocase'")
    for name, frame, last in (
        ("run_t", CASE_RUN, "score DOUBLE"),
        ("qrels_t", CASE_QRELS, "relevance INTEGER"),
    ):
        con.execute(f"CREATE TABLE {name} (query VARCHAR{collate}, doc VARCHAR{collate}, {last})")
        con.register("frame_v", frame.to_arrow())
        con.execute(f"INSERT INTO {name} SELECT * FROM frame_v")
        con.unregister("frame_v")
    assert con.sql("SELECT COUNT(DISTINCT doc) FROM run_t").fetchall() == [(3,)]  # the guard
    sql = pr.check_sql("duckdb", "run_t", "qrels_t")
    assert _rows(pl.from_arrow(con.sql(sql).to_arrow_table())) == CASE_EXPECTED
    counts, keys = check_counts_sql("duckdb", "run_t", "qrels_t")
    failed = _case_counts(counts, keys, lambda s: con.sql(s).fetchall()[0])
    assert failed == {("run", "duplicate_pair"): 1, ("qrels", "duplicate_pair"): 1}


def test_ids_that_differ_by_case_are_not_duplicates_in_postgres(postgres) -> None:
    """The same on PostgreSQL, in text columns of a nondeterministic (case-insensitive) ICU
    collation; the duplicate pairs' query groups by the byte keys and reads its examples
    through an aggregate (PostgreSQL refuses a column read outside the grouped keys)."""
    from polars_rank.compiler.checks import check_counts_sql

    with postgres.connect() as con:
        con.execute(
            "CREATE COLLATION IF NOT EXISTS pr_ci "
            "(provider = icu, locale = 'und-u-ks-level2', deterministic = false)"
        )
    for name, frame in (("case_run_t", CASE_RUN), ("case_qrels_t", CASE_QRELS)):
        postgres.load(name, frame)
        with postgres.connect() as con:
            for column in ("query", "doc"):
                con.execute(f"ALTER TABLE {name} ALTER {column} TYPE text COLLATE pr_ci")
    assert postgres.query("SELECT COUNT(DISTINCT doc) AS n FROM case_run_t").item() == 3
    sql = pr.check_sql("postgres", "case_run_t", "case_qrels_t")
    assert _rows(postgres.query(sql)) == CASE_EXPECTED
    counts, keys = check_counts_sql("postgres", "case_run_t", "case_qrels_t")
    failed = _case_counts(counts, keys, lambda s: postgres.query(s).row(0))
    assert failed == {("run", "duplicate_pair"): 1, ("qrels", "duplicate_pair"): 1}


def test_nan_in_a_view_over_parquet_is_found(tmp_path) -> None:
    """A Parquet file written by Polars leaves NaN out of its min/max statistics; DuckDB
    trusts them and drops a plain ``isnan`` filter, so the checks must test row by row.
    Run: q1/a 1.0, q1/b NaN, q2/c 0.5 -> one bad score, the first at q1/b. Judgments: q1/a
    1.0, q2/c NaN -> one bad grade at q2/c. Predictions: scores 0.2, NaN, 0.9 -> one bad
    score, the offending value NaN."""
    from polars_rank.compiler.classification import predictions_check_sql

    run, qrels, preds = (tmp_path / f"{n}.parquet" for n in ("run", "qrels", "preds"))
    nan = float("nan")
    pl.DataFrame(
        {"query": ["q1", "q1", "q2"], "doc": ["a", "b", "c"], "score": [1.0, nan, 0.5]}
    ).write_parquet(run)
    pl.DataFrame({"query": ["q1", "q2"], "doc": ["a", "c"], "relevance": [1.0, nan]}).write_parquet(
        qrels
    )
    pl.DataFrame({"label": [0, 1, 1], "score": [0.2, nan, 0.9]}).write_parquet(preds)
    con = duckdb.connect()
    for name, path in (("r", run), ("j", qrels), ("p", preds)):
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}')")
    assert con.sql(pr.check_sql("duckdb", run="r", qrels="j")).fetchall() == [
        ("run", "bad_score", 1, "q1", "b"),
        ("qrels", "bad_grade", 1, "q2", "c"),
    ]
    found = con.sql(predictions_check_sql("duckdb", "p")).fetchall()
    assert [(i, p, n) for i, p, n, *_ in found] == [("predictions", "bad_score", 1)]
