"""``evaluate(..., by=[...])``, ``to_sql(..., by=...)`` and ``check_sql(..., by=...)``: each
group evaluated in one pass equals ``evaluate`` on that group's rows alone (the reference: the
per-group loop), in the Polars and DuckDB engines and the compiled SQL (DuckDB, PostgreSQL);
judgments joined on the ``by`` columns they have and shared otherwise; groups without a
counted query; null and mismatched group columns; a plan whose size does not depend on the
number of groups."""

from __future__ import annotations

import datetime as dt
import io
import warnings

import duckdb
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank.compiler import column_names
from tests.support.strategies import DOCS, QUERIES, assert_same, examples

METRICS = ["nDCG@5", "AP", "RR", "P@3", "num_rel_ret", "num_q", "gm_map", "bpref", "Rprec", "G"]
ENGINES = ["polars", "duckdb"]


@st.composite
def grouped(draw):
    """``(run, qrels, shared)``: a run of 1-3 systems over 1-2 dates (each system its own
    scores over its own pairs: the same (query, doc) in several groups), and qrels with a
    ``date`` column (joined on it: ``shared=["date"]``) or without (shared by every group)."""
    integer_ids = draw(st.booleans())
    systems = draw(st.lists(st.sampled_from(["bm25", "dense", "s3"]), min_size=1, unique=True))
    dates = draw(st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=2, unique=True))
    pair = st.tuples(st.sampled_from(QUERIES), st.sampled_from(DOCS))
    score = st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0])
    rows = []
    for system in systems:
        for date in dates:
            for q, d in draw(st.lists(pair, min_size=1, max_size=12, unique=True)):
                rows.append((system, date, q, d, draw(score)))
    judged_dates = draw(st.sampled_from([None, dates, dates[:1], [9]]))
    qrels_rows = []
    for date in judged_dates or [0]:
        for q, d in draw(st.lists(pair, min_size=1, max_size=10, unique=True)):
            qrels_rows.append((date, q, d, draw(st.sampled_from([-1, 0, 1, 1, 2]))))

    def ids(values, table):
        if integer_ids:
            return pl.Series([table.index(v) * 7 + 3 for v in values], dtype=pl.Int64)
        return pl.Series(values, dtype=pl.String)

    run = pl.DataFrame(
        {
            "system": [r[0] for r in rows],
            "date": pl.Series([r[1] for r in rows], dtype=pl.Int32),
            "query": ids([r[2] for r in rows], QUERIES),
            "doc": ids([r[3] for r in rows], DOCS),
            "score": pl.Series([r[4] for r in rows], dtype=pl.Float64),
        }
    )
    qrels = pl.DataFrame(
        {
            "date": pl.Series([r[0] for r in qrels_rows], dtype=pl.Int32),
            "query": ids([r[1] for r in qrels_rows], QUERIES),
            "doc": ids([r[2] for r in qrels_rows], DOCS),
            "relevance": pl.Series([r[3] for r in qrels_rows], dtype=pl.Int64),
        }
    )
    if judged_dates is None:
        return run, qrels.drop("date"), []
    return run, qrels, ["date"]


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


def one_by_one(run, qrels, shared, by, metrics, *, per_query, **options) -> pl.DataFrame:
    """The reference: ``evaluate`` on each group's rows alone (its judgments: the rows with
    its ``shared`` values). A group whose judgments are empty, which ``evaluate`` refuses,
    is evaluated as a group of which no query counts: ``queries="both"`` with a judgment
    of no run query (mean: null, counts: 0)."""
    frames = []
    for key, rows in run.sort(by, maintain_order=True).group_by(by, maintain_order=True):
        values = dict(zip(by, key, strict=True))
        judged = qrels.filter(*[pl.col(c) == values[c] for c in shared]).drop(shared)
        group_options = dict(options)
        if judged.is_empty():
            nobody = "none" if qrels.schema["query"] == pl.String else -1
            judged = qrels.drop(shared).head(1).with_columns(pl.lit(nobody).alias("query"))
            judged = judged.with_columns(pl.col("query").cast(qrels.schema["query"]))
            group_options["queries"] = "both"
        result = _quiet(
            pr.evaluate,
            rows.drop(by),
            judged,
            metrics,
            per_query=per_query,
            **group_options,
        )
        frames.append(
            result.select(*[pl.lit(values[c], run.schema[c]).alias(c) for c in by], pl.all())
        )
    return pl.concat(frames)


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    data=grouped(),
    engine=st.sampled_from(ENGINES),
    per_query=st.booleans(),
    queries=st.sampled_from(["qrels", "both"]),
    max_rank=st.sampled_from([None, 3]),
    ordering=st.sampled_from(["score", "rank", "first", "max"]),
)
def test_each_group_as_if_alone(data, engine, per_query, queries, max_rank, ordering):
    """``ordering``: by score, by the run's own ranks, or with a repeated pair in each group
    kept by ``duplicates="first"`` / ``"max"``."""
    run, qrels, shared = data
    by = ["system", "date"]
    options = {"queries": queries, "max_rank": max_rank, "relevance_level": 1}
    if ordering == "rank":
        run = run.with_columns(rank=pl.int_range(1, pl.len() + 1).over(by).reverse().over(by))
        run = run.drop("score")
        options["order_by"] = "rank"
    elif ordering in ("first", "max"):  # every group's first row again, with another score
        repeated = run.group_by(by, maintain_order=True).first().with_columns(score=pl.lit(0.75))
        run = pl.concat([run, repeated])
        options["duplicates"] = ordering
    got = _quiet(
        pr.evaluate, run, qrels, METRICS, by=by, per_query=per_query, engine=engine, **options
    )
    expected = one_by_one(run, qrels, shared, by, METRICS, per_query=per_query, **options)
    assert_same(expected, got)


@pytest.mark.parametrize("engine", ENGINES)
def test_judgments_shared_or_joined_and_a_group_without_judgments(engine):
    """Worked by hand. System a ranks x over y, b y over x; judged: y (relevant) for every
    date when the qrels have no date, else y on date 1 only."""
    run = pl.DataFrame(
        {
            "system": ["a", "a", "b", "b", "a", "a"],
            "date": [1, 1, 1, 1, 2, 2],
            "query": ["q"] * 6,
            "doc": ["x", "y", "x", "y", "x", "y"],
            "score": [2.0, 1.0, 1.0, 2.0, 2.0, 1.0],
        }
    )
    shared_qrels = pl.DataFrame({"query": ["q"], "doc": ["y"], "relevance": [1]})
    got = pr.evaluate(run, shared_qrels, ["RR", "num_q"], by=["system", "date"], engine=engine)
    # a: y at rank 2 (RR 1/2) on both dates; b: y at rank 1
    assert got.rows() == [("a", 1, 0.5, 1.0), ("a", 2, 0.5, 1.0), ("b", 1, 1.0, 1.0)]
    dated = shared_qrels.with_columns(date=pl.lit(1, pl.Int64))
    got = pr.evaluate(run, dated, ["RR", "num_q"], by=["system", "date"], engine=engine)
    # (a, 2) has no judgment: no query counts, mean null, count 0
    assert got.rows() == [("a", 1, 0.5, 1.0), ("a", 2, None, 0.0), ("b", 1, 1.0, 1.0)]
    per_query = pr.evaluate(run, dated, ["RR"], by=["system", "date"], per_query=True)
    assert per_query.columns == ["system", "date", "query", "RR"]
    assert per_query.rows() == [("a", 1, "q", 0.5), ("b", 1, "q", 1.0)]


@pytest.mark.parametrize("engine", ENGINES)
def test_same_pair_in_two_groups_is_no_duplicate_but_within_one_is(engine):
    run = pl.DataFrame(
        {"system": ["a", "b"], "query": ["q", "q"], "doc": ["x", "x"], "score": [1.0, 2.0]}
    )
    qrels = pl.DataFrame({"query": ["q"], "doc": ["x"], "relevance": [1]})
    assert pr.evaluate(run, qrels, ["RR"], by="system", engine=engine)["RR"].to_list() == [1, 1]
    doubled = run.with_columns(system=pl.lit("a"))
    with pytest.raises(pr.PolarsRankError, match="duplicate"):
        pr.evaluate(doubled, qrels, ["RR"], by="system", engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_null_group_is_an_error_naming_the_column(engine):
    run = pl.DataFrame(
        {"system": ["a", None], "query": ["q", "q"], "doc": ["x", "y"], "score": [1.0, 2.0]}
    )
    qrels = pl.DataFrame({"query": ["q"], "doc": ["x"], "relevance": [1]})
    with pytest.raises(pr.PolarsRankError, match="by column 'system' of the run has null"):
        pr.evaluate(run, qrels, ["RR"], by="system", engine=engine)
    clean = run.with_columns(system=pl.lit("a"), date=pl.lit(1))
    dated = qrels.with_columns(date=pl.Series([None], dtype=pl.Int32))
    with pytest.raises(pr.PolarsRankError, match="by column 'date' of the qrels has null"):
        pr.evaluate(clean, dated, ["RR"], by=["system", "date"], engine=engine)


def test_group_columns_of_several_types_and_mismatched_types():
    run = pl.DataFrame(
        {
            "day": [dt.date(2026, 1, 1), dt.date(2026, 1, 2)],
            "live": [True, False],
            "bucket": [0.5, 1.5],
            "query": ["q", "q"],
            "doc": ["x", "x"],
            "score": [1.0, 1.0],
        }
    )
    qrels = pl.DataFrame({"query": ["q"], "doc": ["x"], "relevance": [1]})
    got = pr.evaluate(run, qrels, ["RR"], by=["day", "live", "bucket"])
    assert got.schema == pl.Schema(
        {"day": pl.Date, "live": pl.Boolean, "bucket": pl.Float64, "RR": pl.Float64}
    )
    assert got.rows() == [
        (dt.date(2026, 1, 1), True, 0.5, 1.0),
        (dt.date(2026, 1, 2), False, 1.5, 1.0),
    ]
    texts = qrels.with_columns(day=pl.lit("2026-01-01"))
    with pytest.raises(pr.PolarsRankError, match="'day' is Date in the run but String"):
        pr.evaluate(run, texts, ["RR"], by="day")
    pandas = pytest.importorskip("pandas")
    mixed = pandas.DataFrame(
        {"g": [1, "a"], "query": ["q", "q"], "doc": ["x", "y"], "score": [1.0, 2.0]}
    )
    with pytest.raises(pr.PolarsRankError, match="'g'.*mixes types"):
        pr.evaluate(mixed, qrels, ["RR"], by="g")


@pytest.mark.parametrize(
    ("by", "message"),
    [
        ("query", "is the query column"),
        ("nope", "'nope' is not a column of the run"),
        (["system", "system"], "listed twice"),
        ("RR", "has the name of a metric"),
    ],
)
def test_bad_by_arguments(by, message):
    run = pl.DataFrame({"system": ["a"], "RR": [1], "query": ["q"], "doc": ["x"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["q"], "doc": ["x"], "relevance": [1]})
    with pytest.raises(pr.PolarsRankError, match=message):
        pr.evaluate(run, qrels, ["RR"], by=by)


def _systems(n: int) -> pl.LazyFrame:
    return pl.LazyFrame(
        {
            "system": [f"s{i}" for i in range(n) for _ in range(2)],
            "query": ["q"] * (2 * n),
            "doc": ["x", "y"] * n,
            "score": [float(i % 3) for i in range(2 * n)],
        }
    )


def test_plan_does_not_grow_with_the_number_of_groups():
    qrels = pl.LazyFrame({"query": ["q"], "doc": ["y"], "relevance": [1]})
    plans = [
        pr.evaluate(_systems(n), qrels, ["nDCG@10", "AP"], by="system").explain() for n in (2, 200)
    ]
    assert plans[0] == plans[1]
    results = [pr.evaluate(_systems(n), qrels, ["AP"], by="system").collect() for n in (2, 200)]
    assert [r.height for r in results] == [2, 200]
    sql = [pr.to_sql(["AP"], "trino", "run", "qrels", by="system", qrels_by=[])] * 2
    assert "s0" not in sql[0]  # the SQL names columns, never groups


def test_evaluate_runs_is_one_grouped_call():
    """Runs sharing (query, doc) pairs, names kept in the given order, rows equal to
    evaluating each run alone."""
    qrels = pl.DataFrame({"query": ["q", "r"], "doc": ["y", "x"], "relevance": [1, 2]})
    runs = {
        "zeta": pl.DataFrame({"query": ["q", "q"], "doc": ["x", "y"], "score": [2.0, 1.0]}),
        "alpha": pl.DataFrame(
            {"query": ["q", "q", "r"], "doc": ["x", "y", "x"], "rank": [2, 1, 1]}
        ),
    }
    got = pr.evaluate_runs(runs, qrels, ["RR", "nDCG@3"], per_query=True)
    expected = pl.concat(
        pr.evaluate(run, qrels, ["RR", "nDCG@3"], per_query=True).select(
            pl.lit(name).alias("run"), pl.all()
        )
        for name, run in runs.items()
    )
    assert_same(expected, got)
    scored = {name: run.rename({"rank": "score"}, strict=False) for name, run in runs.items()}
    got = pr.evaluate_runs(scored, qrels, ["RR", "nDCG@3"])
    expected = pl.concat(
        pr.evaluate(run, qrels, ["RR", "nDCG@3"]).select(pl.lit(name).alias("run"), pl.all())
        for name, run in scored.items()
    )
    assert got["run"].to_list() == ["zeta", "alpha"]
    assert_same(expected, got)


# --- the compiled SQL ---------------------------------------------------------------------

DIALECTS = ["duckdb", "postgres", "spark", "bigquery", "snowflake", "trino"]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_to_sql_by_in_every_dialect(dialect):
    import sqlglot

    for per_query in (False, True):
        sql = pr.to_sql(
            METRICS,
            dialect,
            "db.run",
            "db.qrels",
            by=["system", "date"],
            qrels_by="date",
            per_query=per_query,
        )
        tree = sqlglot.parse_one(sql, read="databricks" if dialect == "spark" else dialect)
        assert tree is not None
        assert "PARTITION BY" in sql
    sql = pr.check_sql(dialect, "db.run", "db.qrels", by=["system", "date"], qrels_by="date")
    assert "null_group" in sql


def _sql_result(con, sql, metrics, by, expected) -> pl.DataFrame:
    got = con.sql(sql).pl()
    got = got.rename({v: k for k, v in column_names(metrics, reserved=[*by, "query"]).items()})
    got = got.with_columns(
        pl.col(c).cast(expected.schema[c]) for c in got.columns if c in by or c == "query"
    )
    return got.sort([c for c in [*by, "query"] if c in got.columns])


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=grouped(), per_query=st.booleans(), queries=st.sampled_from(["qrels", "both"]))
def test_to_sql_by_on_duckdb(data, per_query, queries):
    run, qrels, shared = data
    by = ["system", "date"]
    con = duckdb.connect()
    con.register("run_t", run)
    con.register("qrels_t", qrels)
    sql = pr.to_sql(
        METRICS,
        "duckdb",
        "run_t",
        "qrels_t",
        by=by,
        qrels_by=shared,
        per_query=per_query,
        queries=queries,
    )
    expected = one_by_one(run, qrels, shared, by, METRICS, per_query=per_query, queries=queries)
    assert_same(expected, _sql_result(con, sql, METRICS, by, expected))


def test_check_sql_by_on_duckdb():
    con = duckdb.connect()
    run = pl.DataFrame(
        {
            "system": ["a", "b", "b", None],
            "query": ["q"] * 4,
            "doc": ["x", "x", "x", "y"],
            "score": [1.0, 2.0, 3.0, 1.0],
        }
    )
    qrels = pl.DataFrame(
        {"system": ["a", "b"], "query": ["q", "q"], "doc": ["x", "x"], "relevance": [1, 1]}
    )
    con.register("run_t", run)
    con.register("qrels_t", qrels)
    rows = con.sql(pr.check_sql("duckdb", "run_t", "qrels_t", by="system", qrels_by="system"))
    # (a, q, x) and (b, q, x) in the qrels are two groups: no duplicate; (b, q, x) twice in
    # the run is one (2 rows); the null system is reported
    assert rows.fetchall() == [
        ("run", "null_group", 1, "q", "y"),
        ("run", "duplicate_pair", 2, "q", "x"),
    ]
    assert con.sql(pr.check_sql("duckdb", "run_t", "qrels_t")).fetchall() == [
        ("run", "duplicate_pair", 3, "q", "x"),
        ("qrels", "duplicate_pair", 2, "q", "x"),
    ]


def test_to_sql_by_errors():
    with pytest.raises(pr.PolarsRankError, match="qrels_by column 'day'"):
        pr.to_sql(["AP"], "duckdb", "run", "qrels", by="system", qrels_by="day")
    with pytest.raises(pr.PolarsRankError, match="by column 'query'"):
        pr.to_sql(["AP"], "duckdb", "run", "qrels", by="query")
    with pytest.raises(pr.PolarsRankError, match="ranking metrics per group need qrels"):
        pr.to_sql(["AP"], "duckdb", "run", None, by="system")


#: Two systems over one query; the judgments carry the system (each system its own).
OWN_RUN = pl.DataFrame(
    {"system": ["a", "a", "b", "b"], "query": ["q1"] * 4, "doc": ["x", "y", "x", "y"],
     "score": [2.0, 1.0, 1.0, 2.0]}
)  # fmt: skip
OWN_QRELS = pl.DataFrame(
    {"system": ["a", "b"], "query": ["q1", "q1"], "doc": ["y", "x"], "relevance": [1, 1]}
)


def test_to_sql_by_requires_the_judgments_by_columns():
    """The SQL cannot see whether the judgments carry a by column, so with by and qrels,
    qrels_by is required ([] = shared). By hand, RR: joined on system, a's relevant doc y is
    at rank 2 (x 2.0 > y 1.0) and b's x at rank 2: 1/2 each (evaluate reads the column from
    the frame); shared, both x and y are relevant for both systems: the first doc, 1/1."""
    con = duckdb.connect()
    con.register("run_t", OWN_RUN)
    con.register("qrels_t", OWN_QRELS)
    with pytest.raises(pr.PolarsRankError, match=r"give qrels_by= .*qrels_by=\[\] shares"):
        pr.to_sql(["RR"], "duckdb", "run_t", "qrels_t", by="system")
    with pytest.raises(pr.PolarsRankError, match=r"give qrels_by= "):
        pr.check_sql("duckdb", "run_t", "qrels_t", by="system")
    own = pr.to_sql(["RR"], "duckdb", "run_t", "qrels_t", by="system", qrels_by="system")
    assert con.sql(own).fetchall() == [("a", 0.5), ("b", 0.5)]
    assert pr.evaluate(OWN_RUN, OWN_QRELS, ["RR"], by="system").rows() == [("a", 0.5), ("b", 0.5)]
    shared = pr.to_sql(["RR"], "duckdb", "run_t", "qrels_t", by="system", qrels_by=[])
    assert con.sql(shared).fetchall() == [("a", 1.0), ("b", 1.0)]
    for table in ("interactions", "catalog", "item_features"):
        with pytest.raises(pr.PolarsRankError, match=rf"give {table}_by= with the {table} table"):
            pr.to_sql(["coverage@2", "ILD@2"], "duckdb", "run_t", None, by="system",
                      **{table: "t"})  # fmt: skip
    # without by, or with the argument given, no error
    assert pr.to_sql(["RR"], "duckdb", "run_t", "qrels_t")
    assert pr.check_sql("duckdb", "run_t", "qrels_t", by="system", qrels_by=[])


@pytest.mark.parametrize("argument", ["by", "qrels_by", "interactions_by", "group"])
@pytest.mark.parametrize("name", ["", "  ", "\t"])
def test_empty_by_names_are_refused_naming_the_argument(argument, name):
    """An empty or whitespace-only column name would be written as a quoted empty
    identifier (pr_src.""): refused in to_sql and check_sql, naming the argument."""
    call = {"by": ["system"], "qrels_by": [], "interactions_by": []}
    if argument == "group":
        with pytest.raises(pr.PolarsRankError, match=r"^group: column names are non-empty"):
            pr.to_sql(["GAUC"], "duckdb", predictions="p", group=name)
        with pytest.raises(pr.PolarsRankError, match=r"^by: column names are non-empty"):
            pr.to_sql(["AUC"], "duckdb", predictions="p", by=["seg", name])
        return
    call[argument] = [name] if argument != "by" else name
    message = rf"^{argument}: column names are non-empty strings \(not only spaces\)"
    with pytest.raises(pr.PolarsRankError, match=message):
        pr.to_sql(["AP", "ARP@2"], "duckdb", "run", "qrels", interactions="h", **call)
    with pytest.raises(pr.PolarsRankError, match=message):
        pr.check_sql("duckdb", "run", "qrels", interactions="h", **call)


def test_one_rule_for_by_names_in_every_entry_point():
    """A by column named like a metric's output column (its label AP or its SQL column ap,
    case-insensitively) is refused by evaluate, to_sql and check_sql alike (to_sql renamed
    the metric ap_2); an id column as by is refused by check_sql as by to_sql."""
    run = OWN_RUN.with_columns(pl.col("system").alias("ap"), pl.col("system").alias("AP"))
    for by in ("AP", "ap", "Ap"):
        with pytest.raises(pr.PolarsRankError, match=rf"by column '{by}' has the name of a metric"):
            pr.to_sql(["AP"], "duckdb", "run", "qrels", by=by, qrels_by=[])
        with pytest.raises(pr.PolarsRankError, match=rf"by column '{by}' has the name of a metric"):
            pr.check_sql("duckdb", "run", "qrels", by=by, qrels_by=[], metrics=["AP"])
        if by in run.columns:
            for engine in ENGINES:
                with pytest.raises(pr.PolarsRankError, match="has the name of a metric"):
                    pr.evaluate(run, OWN_QRELS.drop("system"), ["AP"], by=by, engine=engine)
    with pytest.raises(pr.PolarsRankError, match="by column 'ndcg_at_10' has the name of a"):
        pr.evaluate(run.rename({"ap": "ndcg_at_10"}), OWN_QRELS, ["nDCG@10"], by="ndcg_at_10")
    for by in ("query", "Doc", "score"):
        with pytest.raises(pr.PolarsRankError, match=rf"by column '{by}' is the \w+ column"):
            pr.check_sql("duckdb", "run", "qrels", by=by, qrels_by=[])
        with pytest.raises(pr.PolarsRankError, match=rf"by column '{by}' is the \w+ column"):
            pr.to_sql(["AP"], "duckdb", "run", "qrels", by=by, qrels_by=[])


def test_to_sql_by_on_postgres(postgres):
    """The live server (ICU collation, not byte order) on groups of both kinds of judgments."""
    run, qrels, _ = _fixed_grouped()
    by = ["system", "date"]
    postgres.load("run_by", run)
    for name, judged, on in (
        ("qrels_by_shared", qrels.drop("date"), []),
        ("qrels_by_date", qrels, ["date"]),
    ):
        postgres.load(name, judged)
        for per_query in (False, True):
            sql = pr.to_sql(
                METRICS, "postgres", "run_by", name, by=by, qrels_by=on, per_query=per_query
            )
            expected = one_by_one(run, judged, on, by, METRICS, per_query=per_query)
            got = postgres.query(sql)
            got = got.rename(
                {v: k for k, v in column_names(METRICS, reserved=[*by, "query"]).items()}
            )
            got = got.with_columns(
                pl.col(c).cast(expected.schema[c]) for c in [*by, "query"] if c in got.columns
            ).sort([c for c in [*by, "query"] if c in got.columns])
            assert_same(expected, got)


def _fixed_grouped():
    """Three systems over two dates, mixed-case ids, ties; qrels dated 1 only (date 2 of
    every system has no judgment when joined on the date)."""
    queries, docs = ["q1", "Q1", "q2"], ["a", "B", "b", "é", "10", "9"]
    rows = []
    for s, system in enumerate(["bm25", "dense", "Sys"]):
        for date in (1, 2):
            for i, (q, d) in enumerate((q, d) for q in queries for d in docs):
                if (i + s + date) % 3:
                    rows.append((system, date, q, d, float((i * (s + 2) + date) % 4)))
    run = pl.DataFrame(rows, schema=["system", "date", "query", "doc", "score"], orient="row")
    run = run.with_columns(pl.col("date").cast(pl.Int32))
    judged = [
        (1, q, d, (i % 3) - (i % 5 == 0))
        for i, (q, d) in enumerate((q, d) for q in queries for d in docs)
        if i % 2
    ]
    qrels = pl.DataFrame(judged, schema=["date", "query", "doc", "relevance"], orient="row")
    return run, qrels.with_columns(pl.col("date").cast(pl.Int32)), ["date"]


def test_spark_engine_by(spark):
    run, qrels, _ = _fixed_grouped()
    by = ["system", "date"]
    for judged, on in ((qrels.drop("date"), []), (qrels, ["date"])):
        for per_query in (False, True):
            got = _quiet(
                pr.evaluate,
                run,
                judged,
                METRICS,
                by=by,
                per_query=per_query,
                engine="spark",
                con=spark,
            )
            assert_same(one_by_one(run, judged, on, by, METRICS, per_query=per_query), got)
    spark_run = spark.createDataFrame(run.to_arrow())
    spark_qrels = spark.createDataFrame(qrels.to_arrow())
    got = _quiet(pr.evaluate, spark_run, spark_qrels, METRICS, by=by, engine="spark")
    assert_same(one_by_one(run, qrels, ["date"], by, METRICS, per_query=False), got)
    nulls = spark.createDataFrame(run.with_columns(system=pl.lit(None, pl.String)).to_arrow())
    with pytest.raises(pr.PolarsRankError, match="by column 'system' of the run has null"):
        pr.evaluate(nulls, spark_qrels, METRICS, by=by, engine="spark")


def test_cli_by_run_tag_and_table_column(tmp_path, capsys):
    """``--by run_id`` splits a TREC file by its run tag; ``--by market`` a table's column.
    Worked by hand: bm25 ranks a over b (b relevant: RR 1/2), dense b first (RR 1)."""
    from polars_rank.cli import main

    (tmp_path / "mixed.run").write_text(
        "q1 Q0 a 1 2.0 bm25\nq1 Q0 b 2 1.0 bm25\nq1 Q0 a 2 1.0 dense\nq1 Q0 b 1 2.0 dense\n"
    )
    (tmp_path / "q.qrels").write_text("q1 0 b 1\n")
    argv = [str(tmp_path / "q.qrels"), str(tmp_path / "mixed.run"), "-m", "RR,P@1", "-o", "csv"]
    assert main(["evaluate", *argv, "--by", "run_id"]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    assert got.rows() == [("mixed", "bm25", 0.5, 0.0), ("mixed", "dense", 1.0, 1.0)]
    table = pl.DataFrame(
        {"market": ["de", "de", "fr", "fr"], "query": ["q1"] * 4, "doc": ["a", "b"] * 2,
         "score": [2.0, 1.0, 1.0, 2.0]}
    )  # fmt: skip
    table.write_parquet(tmp_path / "markets.parquet")
    argv[1] = str(tmp_path / "markets.parquet")
    assert main(["evaluate", *argv, "--by", "market", "--per-query"]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    assert got.columns == ["run", "market", "query", "RR", "P@1"]
    assert got.select("market", "RR").rows() == [("de", 0.5), ("fr", 1.0)]
    assert main(["evaluate", *argv, "--by", "nope"]) != 0
    assert "by column 'nope' is not a column of run 'markets'" in capsys.readouterr().err


# --- the DuckDB macros (sql/ranking.sql) --------------------------------------------------


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=grouped(), max_rank=st.sampled_from([None, 2]))
def test_judge_by_macro(data, max_rank):
    """``judge_by`` and the per-query macros, per (group, query) over the judged queries,
    equal ``evaluate(..., by=..., per_query=True)``."""
    from polars_rank.duckdb import register

    run, qrels, _ = data
    con = duckdb.connect()
    register(con)
    con.register("run_t", run)
    con.register("qrels_t", qrels)
    limit = "NULL" if max_rank is None else str(max_rank)
    got = con.sql(
        "SELECT group_key.system AS system, group_key.date AS date, query, "
        'ndcg(rank, relevance, k := 5) AS "nDCG@5", average_precision(rank, relevance) AS AP, '
        'reciprocal_rank(rank, relevance) AS RR, "precision"(rank, relevance, 3) AS "P@3" '
        f"FROM judge_by('run_t', 'qrels_t', ['system', 'date'], max_rank := {limit}) "
        "GROUP BY group_key, query HAVING count(relevance) > 0"
    ).pl()
    expected = _quiet(
        pr.evaluate, run, qrels, ["nDCG@5", "AP", "RR", "P@3"], by=["system", "date"],
        per_query=True, max_rank=max_rank,
    )  # fmt: skip
    assert_same(expected, got.sort("system", "date", "query"))


def test_evaluate_runs_empty_run_and_warnings_per_run():
    qrels = pl.DataFrame({"query": ["q"], "doc": ["y"], "relevance": [1]})
    full = pl.DataFrame({"query": ["q", "z"], "doc": ["y", "y"], "score": [1.0, 1.0]})
    with pytest.raises(pr.PolarsRankError, match="evaluating run 'empty': run is empty"):
        pr.evaluate_runs({"full": full, "empty": full.head(0)}, qrels, ["RR"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pr.evaluate_runs({"a": full.head(1), "b": full}, qrels, ["RR"], engine="duckdb")
    assert [str(w.message) for w in caught] == [
        "run 'b': 1 query in the run has no judgments and was not evaluated"
    ]


def test_duckdb_engine_by_reads_tables_relations_and_parquet(tmp_path):
    run, qrels, _ = _fixed_grouped()
    expected = one_by_one(run, qrels, ["date"], ["system", "date"], METRICS, per_query=False)
    con = duckdb.connect()
    con.execute("CREATE TABLE run_t AS SELECT * FROM run")
    con.execute("CREATE TABLE qrels_t AS SELECT * FROM qrels")
    run.write_parquet(tmp_path / "run.parquet")
    for inputs in (
        ("run_t", "qrels_t"),
        (con.sql("FROM run_t"), con.sql("FROM qrels_t")),
        (str(tmp_path / "run.parquet"), qrels),
    ):
        got = _quiet(pr.evaluate, *inputs, METRICS, by=["system", "date"], engine="duckdb", con=con)
        assert_same(expected, got)


def test_cli_sql_by(capsys):
    from polars_rank.cli import main

    argv = ["sql", "--dialect", "snowflake", "--run", "db.run", "--qrels", "db.qrels", "-m", "AP"]
    assert main([*argv, "--by", "system,date", "--qrels-by", "date"]) == 0
    expected = pr.to_sql(["AP"], "snowflake", "db.run", "db.qrels", by=["system", "date"],
                         qrels_by=["date"])  # fmt: skip
    assert capsys.readouterr().out == expected + "\n"


def test_check_sql_by_on_postgres(postgres):
    run = pl.DataFrame(
        {
            "system": ["a", "b", "b", None],
            "query": ["q"] * 4,
            "doc": ["x", "x", "x", "y"],
            "score": [1.0, 2.0, 3.0, 1.0],
        }
    )
    qrels = pl.DataFrame(
        {"system": ["a", "b"], "query": ["q", "q"], "doc": ["x", "x"], "relevance": [1, 1]}
    )
    postgres.load("run_chk", run)
    postgres.load("qrels_chk", qrels)
    got = postgres.query(
        pr.check_sql("postgres", "run_chk", "qrels_chk", by="system", qrels_by="system")
    )
    assert got.rows() == [
        ("run", "null_group", 1, "q", "y"),
        ("run", "duplicate_pair", 2, "q", "x"),
    ]


def test_duckdb_engine_by_ignores_the_connection_collation():
    """Groups and queries differing only in case stay apart on a connection whose default
    collation is case-insensitive (as they do in Polars)."""
    con = duckdb.connect()
    con.execute("SET default_collation = 'nocase'")
    run = pl.DataFrame(
        {"sys": ["A", "a"], "query": ["q", "Q"], "doc": ["x", "x"], "score": [1.0, 1.0]}
    )
    qrels = pl.DataFrame({"query": ["q", "Q"], "doc": ["x", "x"], "relevance": [1, 0]})
    for per_query in (False, True):
        got = _quiet(
            pr.evaluate, run, qrels, ["P@1", "num_q"], by="sys", engine="duckdb", con=con,
            per_query=per_query,
        )  # fmt: skip
        assert_same(
            _quiet(pr.evaluate, run, qrels, ["P@1", "num_q"], by="sys", per_query=per_query), got
        )
    # A: q retrieves x (relevant), Q is missing: (1 + 0) / 2; a: Q retrieves x (grade 0)
    assert got.filter(query="q")["P@1"].to_list() == [1.0, 0.0]


def test_judge_by_macro_groups_as_bytes():
    """Groups 'A' and 'a' stay apart under a case-insensitive collation, and the qrels join
    on the group column they share byte for byte."""
    from polars_rank.duckdb import register

    con = duckdb.connect()
    register(con)
    con.execute("SET default_collation = 'nocase'")
    run = pl.DataFrame(
        {"system": ["A", "a"], "query": ["q", "q"], "doc": ["x", "x"], "score": [1.0, 1.0]}
    )
    con.register("run_t", run)
    con.register(
        "qrels_t", pl.DataFrame({"system": ["a"], "query": ["q"], "doc": ["x"], "relevance": [1]})
    )
    rows = con.sql(
        "SELECT group_key.system AS system, count(relevance) AS judged "
        "FROM judge_by('run_t', 'qrels_t', ['system']) "
        "GROUP BY _pr_id_bytes(group_key), group_key ORDER BY _pr_id_bytes(group_key)"
    ).fetchall()
    assert rows == [("A", 0), ("a", 1)]


def test_plot_frames_take_no_by_and_compare_needs_two_runs_first():
    """``compare`` takes ``by`` (tests/comparison/test_all_pairs.py) but checks its runs
    before evaluating them; the plot frames take no ``by``."""
    from polars_rank.plot import precision_recall_11pt_frame

    qrels = pl.DataFrame({"query": ["q"], "doc": ["y"], "relevance": [1]})
    runs = {"a": pl.DataFrame({"query": ["q"], "doc": ["y"], "score": [1.0], "g": [1]})}
    with pytest.raises(pr.PolarsRankError, match=r"compare: need at least two runs; got \['a'\]$"):
        pr.compare(runs, qrels, ["RR"], by="g")
    with pytest.raises(pr.PolarsRankError, match="take no by="):
        precision_recall_11pt_frame(runs, qrels, by="g")


def test_evaluate_runs_with_by_splits_each_run():
    qrels = pl.DataFrame({"query": ["q"], "doc": ["y"], "relevance": [1]})
    run = pl.DataFrame(
        {"date": [1, 1, 2, 2], "query": ["q"] * 4, "doc": ["x", "y"] * 2,
         "score": [2.0, 1.0, 1.0, 2.0]}
    )  # fmt: skip
    got = pr.evaluate_runs({"z": run, "a": run.filter(date=2)}, qrels, ["RR"], by="date")
    # y is second on date 1, first on date 2; the rows in the order of the runs
    assert got.columns == ["run", "date", "RR"]
    assert got.rows() == [("z", 1, 0.5), ("z", 2, 1.0), ("a", 2, 1.0)]
    # duplicates are per (run, date, query, doc): one date for all of a's rows repeats pairs,
    # and the message names the run
    with pytest.raises(pr.PolarsRankError, match="duplicate.*a.*3.*q"):
        pr.evaluate_runs({"z": run, "a": run.with_columns(date=3)}, qrels, ["RR"], by="date")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("column", ["query", "doc", "score", "rank", "run"])
def test_cli_by_an_input_column_is_refused(tmp_path, capsys, engine, column):
    """``--by`` naming a column the command reads as the query, doc, score or rank (or the
    output's run column) is one error naming ``--by`` and the clash, on every engine."""
    from polars_rank.cli import main

    (tmp_path / "r.run").write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n")
    (tmp_path / "q.qrels").write_text("q1 0 b 1\n")
    argv = ["evaluate", str(tmp_path / "q.qrels"), str(tmp_path / "r.run"), "-m", "RR"]
    assert main([*argv, "--by", column, "--engine", engine]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"polars-rank: error: --by {column}: '{column}' is the ")
    assert "a group column must be another column of the run" in err


def test_cli_by_a_mapped_input_column_is_refused(tmp_path, capsys):
    """A table's column mapped by ``--query-col qid`` is the query column under both names."""
    from polars_rank.cli import main

    run = pl.DataFrame({"qid": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    run.write_parquet(tmp_path / "r.parquet")
    (tmp_path / "q.qrels").write_text("q1 0 b 1\n")
    argv = ["evaluate", str(tmp_path / "q.qrels"), str(tmp_path / "r.parquet"), "-m", "RR"]
    for column in ("qid", "query"):
        assert main([*argv, "--query-col", "qid", "--by", column]) == 2
        err = capsys.readouterr().err
        assert f"--by {column}: '{column}' is the query column" in err


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("column", ["query", "doc", "score"])
def test_evaluate_runs_by_an_input_column_is_evaluates_error(engine, column):
    """``evaluate_runs(by="query")`` gives ``evaluate``'s error (was Polars' DuplicateError)."""
    qrels = pl.DataFrame({"query": ["q"], "doc": ["y"], "relevance": [1]})
    run = pl.DataFrame({"query": ["q", "q"], "doc": ["x", "y"], "score": [2.0, 1.0]})
    message = f"by column '{column}' is the {column} column"
    with pytest.raises(pr.PolarsRankError, match=message):
        pr.evaluate(run, qrels, ["RR"], by=column, engine=engine)
    with pytest.raises(pr.PolarsRankError, match=message):
        pr.evaluate_runs({"a": run, "b": run}, qrels, ["RR"], by=column, engine=engine)


@pytest.mark.parametrize("command", ["sql", "evaluate", "classify"])
@pytest.mark.parametrize("by", ["", "a,,b", " "])
def test_cli_empty_by_name_is_refused(tmp_path, capsys, command, by):
    """``--by ""`` (or an empty name in a list) is an error naming ``--by``, never dropped."""
    from polars_rank.cli import main

    (tmp_path / "r.run").write_text("q1 Q0 a 1 2.0 t\n")
    (tmp_path / "q.qrels").write_text("q1 0 a 1\n")
    pl.DataFrame({"y": [0, 1], "p": [0.2, 0.7]}).write_csv(tmp_path / "p.csv")
    argv = {
        "sql": ["sql", "--dialect", "duckdb", "--run", "r", "--qrels", "q", "-m", "AP"],
        "evaluate": ["evaluate", str(tmp_path / "q.qrels"), str(tmp_path / "r.run"), "-m", "AP"],
        "classify": ["classify", str(tmp_path / "p.csv"), "--label", "y", "--score", "p", "-m",
                     "AUC"],
    }[command]  # fmt: skip
    assert main([*argv, "--by", by]) == 2
    assert f"polars-rank: error: --by {by!r}: an empty column name" in capsys.readouterr().err


def test_cli_compare_by_compares_each_segment(tmp_path, capsys):
    """``compare --by`` compares each segment of the runs on its own, as
    ``pr.compare(by=...)``: run ``b`` ranks the relevant document first where ``a`` ranks
    it second in segment ``x`` only (RR 1 against 1/2 on q1; equal on q2)."""
    from polars_rank.cli import main

    (tmp_path / "a.csv").write_text("query,doc,score,seg\nq1,a,1,x\nq1,z,2,x\nq2,a,2,y\nq2,z,1,y\n")
    (tmp_path / "b.csv").write_text("query,doc,score,seg\nq1,a,2,x\nq1,z,1,x\nq2,a,2,y\nq2,z,1,y\n")
    (tmp_path / "q.csv").write_text("query,doc,relevance\nq1,a,1\nq2,a,1\n")
    argv = ["compare", str(tmp_path / "q.csv"), str(tmp_path / "a.csv"), str(tmp_path / "b.csv")]
    options = ["-m", "RR", "--by", "seg", "-o", "csv", "--bootstrap", "10", "--permutations", "10"]
    assert main([*argv, *options]) == 0
    out = pl.read_csv(io.StringIO(capsys.readouterr().out))
    # each segment has both judged queries (queries="qrels"): in x, q1 RR a 1/2, b 1; q2 0, 0
    assert out.select("seg", "mean", "baseline_mean").rows() == [("x", 0.5, 0.25), ("y", 0.5, 0.5)]
