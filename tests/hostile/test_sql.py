"""Hostile names: any column name works in every engine and dialect, table arguments are table
references and nothing else, and caller's columns named like the engines' own work.

* Column names — reserved words of every dialect (``user``, ``order``, ``current_date`` ...),
  mixed case, spaces, quotes, backticks, dots, unicode, and the names the engines use
  internally (``qid``, ``docno``, ``pos``, ``grade``, ``rank``, ``sort_key``, ``__pr_key``,
  ``len`` ...) — for the query, doc, score and relevance columns: ``to_sql``'s query, run by
  DuckDB, a live PostgreSQL server and a live Spark session, equals the Polars engine within
  1e-12 and keeps the caller's query column name; ``engine="duckdb"`` and ``engine="spark"``
  too. The property tests (``slow``) draw the names from each dialect's own reserved list
  (:func:`polars_rank.core.identifiers.reserved`) and from the hostile names; one example per
  engine runs in the fast loop.
* Table arguments (``run``, ``qrels``, ``interactions``, ``catalog``, ``item_features``,
  ``polars-rank sql --run/--qrels``, a table name given to ``engine="duckdb"`` or
  ``engine="spark"``): a function call, a subquery, a ``;`` ... is a PolarsRankError naming
  the argument, before any SQL runs.
"""

from __future__ import annotations

import re
import warnings

import duckdb
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank.cli import main
from polars_rank.compiler import DIALECTS
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.identifiers import reserved
from tests.support.sql_cases import assert_sql_result, to_duckdb
from tests.support.strategies import assert_same, examples, runs_and_qrels

#: Ranking metrics over every part of the plan (windows, parts, counts), and a recommender
#: metric that reads the interactions table (its own CTE over the caller's columns).
METRICS = ["AP", "nDCG@5", "P@2", "RR", "bpref", "Rprec", "NumRet", "recall@3", "novelty@3"]

#: Names that are not reserved words but break naive SQL or clash with the engines' own names.
HOSTILE = [
    "Query",
    "QUERY",
    "Doc Id",
    "a b",
    'x"y',
    "x`y",
    "x'y",
    "a.b",
    "db.run",
    "é",
    "名前",
    "back\\slash",
    "semi;colon",
    "--dash",
    "/*c*/",
    "1st",
    " lead",
    "trail ",
    "qid",
    "docno",
    "pos",
    "grade",
    "rank",
    "sort_key",
    "in_run",
    "judged",
    "pr_src",
    "pr_qid",
    "pr_run",
    "r",
    "j",
    "__pr_key",
    "__pr_row",
    "__left_out",
    "__pr_query",
    "len",
    "_doc",
]

#: Every dialect's reserved words (each engine's test draws its own list and these).
ALL_RESERVED = sorted(set().union(*(reserved(d) for d in DIALECTS)))

#: Characters of generated names: letters in both cases, digits, quotes, dots, spaces, unicode.
ALPHABET = "abcXYZ09_ .\"'`-;()éßÖ名"

ROLES = ("query", "doc", "score", "relevance")


def names(dialect: str) -> st.SearchStrategy[str]:
    """A column name: a reserved word of ``dialect`` (as it is, upper case or title case), of
    any dialect, a hostile name, or generated text."""
    own = sorted(reserved(dialect))
    return st.one_of(
        st.sampled_from(own),
        st.sampled_from(own).map(str.upper),
        st.sampled_from(own).map(str.title),
        st.sampled_from(ALL_RESERVED),
        st.sampled_from(HOSTILE),
        st.text(alphabet=ALPHABET, min_size=1, max_size=10),
    )


def role_names(dialect: str) -> st.SearchStrategy[dict[str, str]]:
    """Distinct (case-insensitively: DuckDB and Spark do not tell case apart) names for the
    query, doc, score and relevance columns."""
    drawn = st.lists(names(dialect), min_size=4, max_size=4, unique_by=str.lower)
    return drawn.map(lambda found: dict(zip(ROLES, found, strict=True)))


def _renamed(run: pl.DataFrame, qrels: pl.DataFrame, named: dict[str, str]):
    """The run, qrels and interactions (the run's pairs) under the caller's column names."""
    run = run.select("query", "doc", "score")
    interactions = run.select("query", "doc")
    return (
        run.rename({c: named[c] for c in run.columns}),
        qrels.rename({c: named[c] for c in qrels.columns}),
        interactions.rename({c: named[c] for c in interactions.columns}),
    )


def _compiled(dialect: str, named: dict[str, str], tables: dict[str, str], **options) -> str:
    return pr.to_sql(
        METRICS,
        dialect,
        tables["run"],
        tables["qrels"],
        interactions=tables["interactions"],
        **named,
        **options,
    )


def _check(query, dialect, tables, run, qrels, named, **options) -> None:
    """``to_sql`` in ``dialect`` over ``tables``, run by ``query`` (SQL -> frame), equals the
    Polars engine, per query (the query column under the caller's name) and summarised."""
    frames = _renamed(run, qrels, named)
    for per_query in (True, False):
        sql = _compiled(dialect, named, tables, per_query=per_query, **options)
        got = query(sql)
        if per_query:
            assert got.columns[0] == named["query"], (got.columns, named)
        assert_sql_result(
            got, frames[0], frames[1], METRICS, interactions=frames[2], **named, **options
        )


def _duckdb_query(con):
    return lambda sql: con.sql(sql).pl()


def _with_duckdb(run, qrels, named, **options) -> None:
    con = duckdb.connect()
    frames = _renamed(run, qrels, named)
    tables = {"run": '"run t"', "qrels": "qrels_t", "interactions": '"Inter"'}
    for name, frame in zip(tables.values(), frames, strict=True):
        con.register(name.strip('"'), frame)
    _check(_duckdb_query(con), "duckdb", tables, run, qrels, named, **options)
    # engine="duckdb" on the same frames and on the table names
    metrics = METRICS[:-1]
    for inputs in (frames[:2], (tables["run"], tables["qrels"])):
        for per_query in (True, False):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = pr.evaluate(
                    *frames[:2], metrics, per_query=per_query, **named, **options
                )
                got = pr.evaluate(
                    *inputs, metrics, per_query=per_query, engine="duckdb", con=con, **named,
                    **options,
                )  # fmt: skip
            assert_same(expected, got)


def _with_postgres(server, run, qrels, named, **options) -> None:
    frames = _renamed(run, qrels, named)
    tables = {"run": '"Run T"', "qrels": "qrels_t", "interactions": "inter_t"}
    for name, frame in zip(tables.values(), frames, strict=True):
        server.load(name.strip('"'), frame)
    _check(server.query, "postgres", tables, run, qrels, named, **options)


def _with_clickhouse(session, run, qrels, named, **options) -> None:
    frames = _renamed(run, qrels, named)
    tables = {"run": "`Run T`", "qrels": "qrels_t", "interactions": "inter_t"}
    for name, frame in zip(tables.values(), frames, strict=True):
        session.load(name.strip("`"), frame)
    _check(session.query, "clickhouse", tables, run, qrels, named, **options)


def _with_spark(spark, run, qrels, named, **options) -> None:
    frames = _renamed(run, qrels, named)
    tables = {"run": "`run t`", "qrels": "qrels_t", "interactions": "inter_t"}
    for name, frame in zip(tables.values(), frames, strict=True):
        spark.createDataFrame(frame.to_arrow()).createOrReplaceTempView(name)
    _check(
        lambda sql: pl.from_arrow(spark.sql(sql).toArrow()),
        "spark",
        tables,
        run,
        qrels,
        named,
        **options,
    )


#: One hand-picked set of hostile names, for the fast loop.
EXAMPLE = {"query": "user", "doc": "Order", "score": 'current_date"', "relevance": "rank"}


def _example_data() -> tuple[pl.DataFrame, pl.DataFrame]:
    run = pl.DataFrame(
        {
            "query": ["q1", "q1", "q1", "q2", "q2", "q3"],
            "doc": ["a", "b", "c", "a", "d", "e"],
            "score": [3.0, 2.0, 2.0, 1.0, 0.0, 1.0],
        }
    )
    qrels = pl.DataFrame(
        {"query": ["q1", "q1", "q2", "q4"], "doc": ["b", "c", "d", "x"], "relevance": [1, 2, 0, 1]}
    )
    return run, qrels


def test_reserved_and_internal_names_through_duckdb():
    run, qrels = _example_data()
    _with_duckdb(run, qrels, EXAMPLE)
    _with_duckdb(run, qrels, {"query": "qid", "doc": "docno", "score": "pos", "relevance": "grade"})
    _with_duckdb(run, qrels, EXAMPLE, duplicates="max", queries="both")


def test_reserved_names_through_postgres(postgres):
    run, qrels = _example_data()
    _with_postgres(postgres, run, qrels, EXAMPLE)
    named = {"query": "current_user", "doc": "Doc Id", "score": "order", "relevance": "x.y"}
    _with_postgres(postgres, run, qrels, named, duplicates="max")


def test_reserved_names_through_clickhouse(clickhouse):
    run, qrels = _example_data()
    _with_clickhouse(clickhouse, run, qrels, EXAMPLE)
    named = {"query": "select", "doc": "Doc `Id`", "score": "order", "relevance": "x.y\\z"}
    _with_clickhouse(clickhouse, run, qrels, named, duplicates="max")


#: Spark reads a bare current_path as the function.
SPARK_EXAMPLE = {"query": "current_path", "doc": "x`y", "score": "a.b", "relevance": "rank"}


def test_reserved_names_through_spark(spark):
    run, qrels = _example_data()
    named = SPARK_EXAMPLE
    _with_spark(spark, run, qrels, named)
    # engine="spark": the same names, on Polars frames
    frames = _renamed(run, qrels, named)
    for per_query in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = pr.evaluate(*frames[:2], METRICS[:-1], per_query=per_query, **named)
            got = pr.evaluate(
                *frames[:2], METRICS[:-1], per_query=per_query, engine="spark", **named
            )
        assert_same(expected, got)


def _with_transpiled(dialect, run, qrels, named, **options) -> None:
    """BigQuery, Snowflake and Trino cannot run here: their SQL, read back in its dialect by
    sqlglot and written as DuckDB's, runs on DuckDB (the names must survive the round trip)."""

    con = duckdb.connect()
    frames = _renamed(run, qrels, named)
    tables = {"run": "run_t", "qrels": "qrels_t", "interactions": "inter_t"}
    for name, frame in zip(tables.values(), frames, strict=True):
        con.register(name, frame)

    def query(sql: str) -> pl.DataFrame:
        return con.sql(to_duckdb(sql, dialect)).pl()

    _check(query, dialect, tables, run, qrels, named, **options)


#: Hostile names for the dialects that run transpiled (no '.' on BigQuery: below).
TRANSPILED = [
    EXAMPLE,
    {"query": "current_timestamp", "doc": "x`y\\z", "score": "a:b", "relevance": "Order"},
    {"query": "_q", "doc": "group", "score": "qualify", "relevance": "rank"},
]


@pytest.mark.parametrize("dialect", ["bigquery", "snowflake", "trino"])
@pytest.mark.parametrize("named", TRANSPILED, ids=str)
def test_reserved_names_through_sqlglot_to_duckdb(dialect, named):
    run, qrels = _example_data()
    _with_transpiled(dialect, run, qrels, named, duplicates="max")


def test_bigquery_refuses_a_dot_in_a_column_name():
    """BigQuery reads ``t.`a.b``` as a path, and its column names cannot hold a dot."""
    with pytest.raises(PolarsRankError, match="the score column 'a.b' has a '.', which BigQuery"):
        pr.to_sql(["AP"], "bigquery", "run", "qrels", score="a.b")
    assert "`a.b`" in pr.to_sql(["AP"], "spark", "run", "qrels", score="a.b")


def test_postgres_sql_quotes_what_postgres_would_misread():
    """``user`` bare is PostgreSQL's session user: the query must not read it so."""
    sql = pr.to_sql(["AP"], "postgres", "run", "qrels", query="user", doc="current_date")
    # each read as its byte key (COLLATE "C"), the caller's name quoted
    assert 'CAST(pr_src."user" AS TEXT) COLLATE "C" AS qid' in sql
    assert 'CAST(pr_src."current_date" AS TEXT) COLLATE "C" AS docno' in sql
    for dialect in ("postgres", "spark", "snowflake"):
        sql = pr.to_sql(["AP"], dialect, "run", "qrels", query="order", per_query=True)
        assert re.search(r"\border AS qid", sql) is None
    snowflake = pr.to_sql(["AP"], "snowflake", "run", "qrels", query="qid", per_query=True)
    # plain: left to Snowflake's case folding (read as its byte key, the value carried as is)
    assert "COLLATE(CAST(pr_src.qid AS VARCHAR), 'utf8') AS qid" in snowflake
    assert "pr_src.qid AS pr_qv" in snowflake


def test_hostile_metric_and_left_out_names():
    """Metric names are parsed, never pasted; the left-out column takes any name."""
    with pytest.raises(PolarsRankError, match="cannot parse the name"):
        pr.to_sql(["AP) AS x FROM run; DROP TABLE run; --"], "duckdb", "run", "qrels")
    run, qrels = _example_data()
    con = duckdb.connect()
    con.register("run", run)
    con.register("qrels", qrels)
    sql = pr.to_sql(["AP"], "duckdb", "run", "qrels", left_out_column='left "out"')
    assert con.sql(sql).pl().columns == ["ap", 'left "out"']


# --------------------------------------------------------------------------------------------
# Table arguments

#: SQL that is not a table reference.
INJECTIONS = [
    "read_text('/etc/passwd')",
    "query('SELECT 1')",
    "nextval('s')",
    "(SELECT * FROM run)",
    "run; DROP TABLE run",
    "run -- comment",
    "run WHERE 1 = 1",
    "a.b.c.d",
]

#: The recommender metrics that read each optional table.
TABLE_METRICS = {
    "run": ["AP"],
    "qrels": ["AP"],
    "interactions": ["novelty@5"],
    "catalog": ["coverage@5"],
    "item_features": ["ILD@5"],
}


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("argument", list(TABLE_METRICS))
@pytest.mark.parametrize("text", INJECTIONS)
def test_to_sql_takes_table_references_only(dialect, argument, text):
    tables = {"run": "run", "qrels": "qrels"}
    tables[argument] = text
    run, qrels = tables.pop("run"), tables.pop("qrels")
    message = rf"^{argument} must be a table reference \(\[catalog\.\]\[schema\.\]table\), got "
    with pytest.raises(PolarsRankError, match=message + ".*to evaluate a query, create a view"):
        pr.to_sql(TABLE_METRICS[argument], dialect, run, qrels, **tables)


@pytest.mark.parametrize("option", ["--run", "--qrels"])
def test_cli_takes_table_references_only(capsys, option):
    argv = {"--run": "run", "--qrels": "qrels", option: "read_text('/etc/passwd')"}
    assert main(["sql", "--dialect", "duckdb", *(x for kv in argv.items() for x in kv)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"polars-rank: error: {option[2:]} must be a table reference")


def test_a_table_named_like_a_cte_needs_its_schema():
    with pytest.raises(PolarsRankError, match="the run table 'pr_run' has the name of one of"):
        pr.to_sql(["AP"], "duckdb", "pr_run", "qrels")
    assert "FROM main.pr_run" in pr.to_sql(["AP"], "duckdb", "main.pr_run", "qrels")


def test_duckdb_engine_reads_table_references_as_to_sql_does():
    """A quoted name with a space and a dot, a reserved word, a schema: the DuckDB engine and
    ``to_sql(..., "duckdb")`` read the same tables; anything else is refused by both."""
    run, qrels = _example_data()
    con = duckdb.connect()
    con.execute("CREATE SCHEMA s")
    con.execute('CREATE TABLE "my run.v1" AS SELECT * FROM run')
    con.execute('CREATE TABLE s."order" AS SELECT * FROM qrels')
    names = ('"my run.v1"', 's."order"')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = pr.evaluate(run, qrels, ["AP", "nDCG@5"], per_query=True)
        got = pr.evaluate(*names, ["AP", "nDCG@5"], per_query=True, engine="duckdb", con=con)
        assert_same(expected, got)
        sql = pr.to_sql(["AP", "nDCG@5"], "duckdb", *names, per_query=True)
        assert_sql_result(con.sql(sql).pl(), run, qrels, ["AP", "nDCG@5"])
    for text in INJECTIONS:
        for args in ((text, names[1]), (names[0], text)):
            what = "run" if args[0] == text else "qrels"
            with pytest.raises(PolarsRankError, match=f"^{what} must be a table reference"):
                pr.evaluate(*args, ["AP"], engine="duckdb", con=con)


def test_duckdb_engine_recommender_tables_are_references_only():
    run, qrels = _example_data()
    con = duckdb.connect()
    with pytest.raises(PolarsRankError, match="^interactions must be a table reference"):
        pr.evaluate(
            run, qrels, ["novelty@3"], engine="duckdb", con=con, interactions="query('SELECT 1')"
        )


def test_spark_engine_takes_table_references_only(spark):
    run, qrels = _example_data()
    spark.createDataFrame(qrels.to_arrow()).createOrReplaceTempView("hostile_qrels")
    for text in INJECTIONS:
        with pytest.raises(PolarsRankError, match="^run must be a table reference"):
            pr.evaluate(text, "hostile_qrels", ["AP"], engine="spark", con=spark)
    spark.createDataFrame(run.to_arrow()).createOrReplaceTempView("`hostile run`")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pr.evaluate("`hostile run`", '"hostile_qrels"', ["AP"], engine="spark", con=spark)
        assert_same(pr.evaluate(run, qrels, ["AP"]), got)


# --------------------------------------------------------------------------------------------
# The Polars engine: caller's columns named like its own


@pytest.mark.parametrize(
    "named",
    [
        {"query": "doc", "doc": "query"},
        {"query": "doc", "doc": "docid"},
        {"relevance": "rank"},
        {"query": "rank"},
        {"doc": "rank", "relevance": "grade"},
        {"score": "__pr_key", "relevance": "__pr_at_least"},
        {"query": "__pr_jid", "doc": "__pr_size"},
        {"query": "len", "doc": "__in_run"},
        {"query": "__judged", "relevance": "__left_out"},
        {"query": "_doc", "score": "_primary"},
    ],
    ids=str,
)
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_internal_names_work(named, engine):
    """No polars DuplicateError, no wrong number: the same values as with the default names."""
    run, qrels = _example_data()
    roles = {"query": "query", "doc": "doc", "score": "score", "relevance": "relevance", **named}
    renamed_run = run.rename({c: roles[c] for c in run.columns})
    renamed_qrels = qrels.rename({c: roles[c] for c in qrels.columns})
    metrics = ["AP", "nDCG@5", "P@2", "RR", "bpref", "NumRet", "novelty@3"]
    interactions = run.select("query", "doc")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for per_query in (True, False):
            expected = pr.evaluate(
                run, qrels, metrics, per_query=per_query, interactions=interactions
            )
            got = pr.evaluate(
                renamed_run,
                renamed_qrels,
                metrics,
                per_query=per_query,
                engine=engine,
                interactions=interactions.rename({c: roles[c] for c in interactions.columns}),
                **named,
            )
            if per_query:
                expected = expected.rename({"query": roles["query"]})
            assert_same(expected, got)


#: Other columns of the inputs named like the input checks' own (``GROUP BY h``, row numbers).
EXTRA = {"h": [1, 2, 3, 4], "__row": [0, 0, 0, 0], "pr_row": [7, 7, 7, 7]}


def _bad_inputs() -> list[tuple[pl.DataFrame, pl.DataFrame]]:
    """Inputs each with one problem (a repeated pair, a null grade, a NaN score), and the
    extra columns :data:`EXTRA`."""
    run = pl.DataFrame(
        {"query": ["q1"] * 4, "doc": ["a", "b", "c", "d"], "score": [4.0, 3.0, 2.0, 1.0], **EXTRA}
    )
    qrels = pl.DataFrame(
        {"query": ["q1"] * 4, "doc": ["a", "b", "c", "d"], "relevance": [1, 0, 1, 0], **EXTRA}
    )
    return [
        (run, qrels.with_columns(doc=pl.Series(["a", "b", "c", "b"]))),
        (run, qrels.with_columns(relevance=pl.Series([1, 0, None, 1]))),
        (run.with_columns(score=pl.Series([4.0, 3.0, float("nan"), 1.0])), qrels),
    ]


def _message(call) -> str:
    with pytest.raises(PolarsRankError) as caught:
        call()
    return str(caught.value)


def test_duckdb_checks_ignore_other_columns_named_like_theirs():
    """The SQL input checks on tables name the problem the Polars engine names (a column ``h``
    once turned the duplicate check into a binder error, ``__row`` moved the row)."""
    con = duckdb.connect()
    for run, qrels in _bad_inputs():
        expected = _message(lambda r=run, q=qrels: pr.evaluate(r, q, ["AP"]))
        con.register("bad_run", run)
        con.register("bad_qrels", qrels)
        got = _message(
            lambda: pr.evaluate("bad_run", "bad_qrels", ["AP"], engine="duckdb", con=con)
        )
        assert got == expected


def test_spark_checks_ignore_other_columns_named_like_theirs(spark):
    for run, qrels in _bad_inputs():
        expected = _message(lambda r=run, q=qrels: pr.evaluate(r, q, ["AP"]))
        inputs = [spark.createDataFrame(frame.to_arrow()) for frame in (run, qrels)]
        got = _message(lambda i=inputs: pr.evaluate(*i, ["AP"], engine="spark"))
        assert got == expected


def test_judge_names_the_clash_it_cannot_avoid():
    """``judge`` returns the judged table under the caller's names: a relevance column called
    ``rank`` would be two columns ``rank``."""
    run, qrels = _example_data()
    with pytest.raises(PolarsRankError, match="name the judged table's rank column with rank="):
        pr.judge(run, qrels.rename({"relevance": "rank"}), relevance="rank")
    table = pr.judge(run, qrels.rename({"relevance": "rank"}), relevance="rank", rank="pos")
    assert table.columns == ["query", "doc", "pos", "rank"]


# --------------------------------------------------------------------------------------------
# Property tests: names drawn from each dialect's reserved list and the hostile names


def slow_settings(count: int) -> settings:
    """``count`` examples (scaled by :func:`examples`), no deadline, fixtures allowed."""
    return settings(
        max_examples=examples(count),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


OPTIONS = st.fixed_dictionaries(
    {"duplicates": st.sampled_from(["error", "max"]), "queries": st.sampled_from(["qrels", "both"])}
)


def _usable(named: dict[str, str]) -> bool:
    """A query column named like a metric label is refused by every engine (tested apart)."""
    return named["query"] not in METRICS


@pytest.mark.slow
@slow_settings(40)
@given(
    data=runs_and_qrels(),
    dialect=st.sampled_from(["bigquery", "snowflake", "trino"]),
    options=OPTIONS,
    drawn=st.data(),
)
def test_property_transpiled(data, dialect, options, drawn):
    named = drawn.draw(role_names(dialect))
    assume(_usable(named) and not (dialect == "bigquery" and any("." in n for n in named.values())))
    _with_transpiled(dialect, *data, named, **options)


@pytest.mark.slow
@slow_settings(60)
@given(data=runs_and_qrels(), named=role_names("duckdb"), options=OPTIONS)
@example(data=_example_data(), named=EXAMPLE, options={"duplicates": "max", "queries": "both"})
def test_property_duckdb(data, named, options):
    assume(_usable(named))
    _with_duckdb(*data, named, **options)


@pytest.mark.slow
@slow_settings(40)
@given(data=runs_and_qrels(), named=role_names("postgres"), options=OPTIONS)
@example(
    data=_example_data(),
    named={"query": "current_user", "doc": "Doc Id", "score": "order", "relevance": "x.y"},
    options={"duplicates": "max", "queries": "both"},
)
def test_property_postgres(postgres, data, named, options):
    assume(_usable(named))
    _with_postgres(postgres, *data, named, **options)


@pytest.mark.slow
@slow_settings(25)
@given(data=runs_and_qrels(), named=role_names("spark"), options=OPTIONS)
@example(
    data=_example_data(), named=SPARK_EXAMPLE, options={"duplicates": "max", "queries": "both"}
)
def test_property_spark(spark, data, named, options):
    assume(_usable(named))
    _with_spark(spark, *data, named, **options)


@pytest.mark.slow
@slow_settings(40)
@given(data=runs_and_qrels(), named=role_names("clickhouse"), options=OPTIONS)
def test_property_clickhouse(clickhouse, data, named, options):
    assume(_usable(named))
    _with_clickhouse(clickhouse, *data, named, **options)
