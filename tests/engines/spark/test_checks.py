"""``evaluate(..., engine="spark")`` on Spark DataFrames: every input check still fires, with
the Polars engine's message, now that one job counts the problems and the evaluation query
counts the run's repeated pairs itself; and the caller's session is left as found (cached
inputs stay cached, no temporary view is left behind).

One Spark session serves the file (the ``spark`` fixture); the frames are tiny."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import polars_rank as pr
from polars_rank.core.errors import PolarsRankError

NAN, INF = float("nan"), float("inf")

RUN = pl.DataFrame(
    {
        "query": ["a", "a", "a", "a", "b", "b"],
        "doc": ["x", "y", "z", "w", "x", "v"],
        "score": [4.0, 3.0, 2.0, 1.0, 2.0, 1.0],
    }
)
QRELS = pl.DataFrame({"query": ["a", "a", "b"], "doc": ["x", "y", "v"], "relevance": [1, 0, 2]})


def _message(run, qrels, **options) -> str:
    with pytest.raises(PolarsRankError) as caught, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pr.evaluate(run, qrels, ["AP", "nDCG@2"], **options)
    return str(caught.value)


def _same_message_as_polars(spark, run: pl.DataFrame, qrels: pl.DataFrame, **options) -> str:
    """The Spark engine on Spark DataFrames raises the Polars engine's message."""
    expected = _message(run, qrels, **options)
    spark_run = spark.createDataFrame(run.to_arrow())
    spark_qrels = spark.createDataFrame(qrels.to_arrow())
    got = _message(spark_run, spark_qrels, engine="spark", **options)
    assert got == expected
    return got


# (what the message names, run, qrels, options): one problem (or one pair of problems, to
# see which is reported first) per case
CASES = [
    ("query", RUN.with_columns(query=pl.Series(["a", "a", None, "a", "b", "b"])), QRELS, {}),
    ("qrels", RUN, QRELS.with_columns(doc=pl.Series(["x", None, "v"])), {}),
    ("score", RUN.with_columns(score=pl.Series([4.0, 3.0, 2.0, 1.0, NAN, 1.0])), QRELS, {}),
    ("infinite", RUN, QRELS.with_columns(relevance=pl.Series([1.0, INF, 2.0])), {}),
    # a repeated pair whose rows are far apart in the ranking: (a, x) at scores 4 and 0.5
    ("duplicate", pl.concat([RUN, RUN.head(1).with_columns(score=pl.lit(0.5))]), QRELS, {}),
    # the same, per query, and for a pair nobody judged: (b, x)
    (
        "duplicate",
        pl.concat([RUN, RUN.slice(4, 1).with_columns(score=pl.lit(9.0))]),
        QRELS,
        {"per_query": True},
    ),
    # repeated pairs in both tables: the run's is reported first
    ("run", pl.concat([RUN, RUN.tail(1)]), pl.concat([QRELS, QRELS.head(1)]), {}),
    # a repeated qrels pair and a NaN score: the NaN score is reported first
    (
        "score",
        RUN.with_columns(score=pl.Series([4.0, NAN, 2.0, 1.0, 2.0, 1.0])),
        pl.concat([QRELS, QRELS.head(1)]),
        {},
    ),
    # a repeated run pair and a null qrels id: the null id is reported first
    (
        "qrels",
        pl.concat([RUN, RUN.head(1)]),
        QRELS.with_columns(doc=pl.Series(["x", "y", None])),
        {},
    ),
    # a NaN rank, ranking by the run's rank column
    (
        "rank",
        RUN.with_columns(rank=pl.Series([1.0, 2.0, NAN, 4.0, 1.0, 2.0])).drop("score"),
        QRELS,
        {"order_by": "rank"},
    ),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_each_check_fires_with_the_polars_engines_message(spark, case):
    names, run, qrels, options = CASES[case]
    assert names in _same_message_as_polars(spark, run, qrels, **options)


def test_repeated_pair_without_a_result_row(spark):
    """Nothing to evaluate (no run query is judged, per query): the result has no row to
    carry the evaluation's count of repeated pairs, so they are counted apart."""
    unjudged = QRELS.with_columns(query=pl.lit("c"))
    run = pl.concat([RUN, RUN.head(1)])
    message = _same_message_as_polars(spark, run, unjudged, per_query=True)
    assert "duplicate" in message
    assert _same_message_as_polars(spark, RUN.clear(), unjudged, per_query=True)


def test_groups_repeated_pairs_and_null_groups(spark):
    """With ``by``: a pair repeated within a group is an error, the same pair in two groups
    is not; a null group is an error naming its column. The messages are the Spark engine's
    of before (they differ from the Polars engine's in the example's form)."""
    two_systems = pl.concat(
        [RUN.with_columns(system=pl.lit("s1")), RUN.with_columns(system=pl.lit("s2"))]
    )
    spark_qrels = spark.createDataFrame(QRELS.to_arrow())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = pr.evaluate(two_systems, QRELS, ["AP"], by="system")
        got = pr.evaluate(
            spark.createDataFrame(two_systems.to_arrow()),
            spark_qrels,
            ["AP"],
            by="system",
            engine="spark",
        )
    assert got.rows() == expected.rows()
    repeated = pl.concat([two_systems, two_systems.tail(1)])
    # the Polars engine names the pair by its keyed query ('{"s2","b"}'), Spark by the query
    got = _message(
        spark.createDataFrame(repeated.to_arrow()), spark_qrels, engine="spark", by="system"
    )
    assert got.startswith("run has 1 duplicate (query, doc) pair(s), e.g. query 'b' doc 'v'")
    unnamed = two_systems.with_columns(
        system=pl.when(pl.col("doc") == "w").then(None).otherwise(pl.col("system"))
    )
    got = _message(
        spark.createDataFrame(unnamed.to_arrow()), spark_qrels, engine="spark", by="system"
    )
    assert got == (  # the Polars engine adds a Polars hint: e.g. pl.col('system').fill_null
        "by column 'system' of the run has null values: a group must be named (fill them or "
        "filter those rows out)"
    )


def _views(spark) -> list[str]:
    return sorted(t.name for t in spark.catalog.listTables() if t.isTemporary)


def test_the_callers_session_is_left_as_found(spark):
    """Cached inputs stay cached (dropping a temporary view of a cached DataFrame used to
    uncache it), no temporary view is left behind and nothing new is cached: after a clean
    evaluation, with checks on and off, and after a failed check."""
    from pyspark import StorageLevel

    run_df = spark.createDataFrame(RUN.to_arrow()).cache()
    qrels_df = spark.createDataFrame(QRELS.to_arrow()).cache()
    repeated_df = spark.createDataFrame(pl.concat([RUN, RUN.head(1)]).to_arrow())
    run_df.count(), qrels_df.count()
    views, storage = _views(spark), spark.sparkContext._jsc.sc().getRDDStorageInfo()
    try:
        for validate in (True, False):
            pr.evaluate(run_df, qrels_df, ["AP"], engine="spark", validate=validate)
        with pytest.raises(PolarsRankError, match="duplicate"):
            pr.evaluate(repeated_df, qrels_df, ["AP"], engine="spark")
        assert run_df.storageLevel != StorageLevel.NONE
        assert qrels_df.storageLevel != StorageLevel.NONE
        assert repeated_df.storageLevel == StorageLevel.NONE
        assert _views(spark) == views
        now = spark.sparkContext._jsc.sc().getRDDStorageInfo()
        assert sorted(i.id() for i in now) == sorted(i.id() for i in storage)
    finally:
        run_df.unpersist()
        qrels_df.unpersist()


@pytest.fixture
def exact_groupings(monkeypatch) -> list[str]:
    """The views on which the exact grouping of the pairs ran (the hash pre-test's fallback)."""
    from polars_rank.engines import sql_checks

    views: list[str] = []
    exact = sql_checks._repeated_pairs

    def spy(engine, view, keys):
        views.append(view)
        return exact(engine, view, keys)

    monkeypatch.setattr(sql_checks, "_repeated_pairs", spy)
    return views


def _spark_values(spark, run: pl.DataFrame, qrels: pl.DataFrame, **options) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pr.evaluate(
            spark.createDataFrame(run.to_arrow()),
            spark.createDataFrame(qrels.to_arrow()),
            ["AP", "nDCG@2"],
            engine="spark",
            **options,
        )


def test_pairs_pre_tested_by_hash(spark, exact_groupings):
    """String ids: each table's pairs are pre-tested by one hash per row. Clean tables take no
    exact grouping (distinct hashes prove distinct pairs); a repeated pair repeats its hash,
    the exact grouping confirms it, and the message is the Polars engine's."""
    per_query = _spark_values(spark, RUN, QRELS, per_query=True)
    assert per_query.equals(_spark_values(spark, RUN, QRELS, per_query=True, validate=False))
    assert exact_groupings == []
    repeated = pl.concat([RUN, RUN.head(1).with_columns(score=pl.lit(0.5))])
    assert "duplicate" in _same_message_as_polars(spark, repeated, QRELS)
    assert len(exact_groupings) == 1  # the run's; the qrels' hashes were distinct
    assert "qrels" in _same_message_as_polars(spark, RUN, pl.concat([QRELS, QRELS.tail(1)]))
    assert len(exact_groupings) == 2


def test_a_hash_collision_falls_back_to_the_exact_grouping(spark, exact_groupings, monkeypatch):
    """A constant hash makes every pair collide: the exact grouping then decides, so clean
    tables still evaluate (the same values as without checks) and each repeated pair is
    still reported with the Polars engine's message, the run's before the qrels'."""
    monkeypatch.setattr("polars_rank.engines.spark.checks._PAIR_HASH", "CAST(0 AS BIGINT)")
    got = _spark_values(spark, RUN, QRELS, per_query=True)
    assert got.equals(_spark_values(spark, RUN, QRELS, per_query=True, validate=False))
    assert len(exact_groupings) == 2  # both tables' hashes collided; neither has a repeat
    repeated_run = pl.concat([RUN, RUN.slice(4, 1).with_columns(score=pl.lit(9.0))])
    repeated_qrels = pl.concat([QRELS, QRELS.head(1)])
    assert "run" in _same_message_as_polars(spark, repeated_run, repeated_qrels)
    assert "qrels" in _same_message_as_polars(spark, RUN, repeated_qrels)
    two_systems = pl.concat(  # the same pair in two groups is no repeat
        [RUN.with_columns(system=pl.lit("s1")), RUN.with_columns(system=pl.lit("s2"))]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = pr.evaluate(two_systems, QRELS, ["AP"], by="system")
    assert (
        _spark_values(spark, two_systems, QRELS, by="system").select("system", "AP").rows()
        == expected.rows()
    )


def test_only_exact_types_are_hashed(spark):
    """The hash pre-test is kept to keys whose GROUP BY equality is plainly byte equality:
    strings of the default collation and integers. Doubles and collated strings (GROUP BY
    puts 'A' with 'a' under UTF8_LCASE) are left to the exact grouping."""
    from polars_rank.engines.spark.checks import _hashable

    spark.sql(
        "SELECT 'a' AS s, 1 AS i, CAST(1 AS BIGINT) AS l, -0.0D AS f, "
        "CAST('A' AS STRING COLLATE UTF8_LCASE) AS c"
    ).createOrReplaceTempView("pr_test_hashable")
    try:
        assert _hashable(spark, "pr_test_hashable", ["s", "i", "l"])
        assert not _hashable(spark, "pr_test_hashable", ["s", "f"])
        assert not _hashable(spark, "pr_test_hashable", ["c", "i"])
    finally:
        spark.catalog.dropTempView("pr_test_hashable")
