"""``evaluate(..., by=[...])`` with recommender metrics (per-user: novelty, ARP, APLT, ILD,
serendipity; corpus: coverage, Gini, entropy, user coverage) in the Polars, DuckDB and
ClickHouse engines (Spark: its own tests below): each group equals ``evaluate`` on that
group's rows alone, with the interactions, catalog and item features it sees (a table with a
``by`` column joins the group on it, one without it is shared); ``evaluate_runs`` with
recommender metrics is one grouped call."""

from __future__ import annotations

import math
import re
import warnings

import duckdb
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank.catalog.recommender_inputs import outside_catalog_message
from tests.support.strategies import DOCS, QUERIES, assert_same, examples

ENGINES = ["polars", "duckdb", "clickhouse"]
#: The generated cases' engines: not ClickHouse (a query per group: 45 s for the fast loop's
#: 4 examples, about 450 s for CI's 40; its by + recommender SQL is checked by the cases
#: below and by tests/engines/test_compiled_recsys.py).
GENERATED = ["polars", "duckdb"]
PER_USER = ["novelty@3", "ARP@3", "APLT@3", "TailPercentage@3", "ILD@3", "serendipity@3"]
CORPUS = ["coverage@3", "Gini@3", "entropy@3", "user_coverage@3", "coverage"]


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


@st.composite
def grouped_recommender(draw):
    """``(run, qrels, inputs)``: a run of 1-3 systems over 1-2 dates, qrels shared by every
    group, and interactions, item vectors and a catalog each either shared (no ``date``
    column) or per date (a ``date`` column; a date may have no rows)."""
    systems = draw(st.lists(st.sampled_from(["bm25", "dense", "s3"]), min_size=1, unique=True))
    dates = draw(st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=2, unique=True))
    pair = st.tuples(st.sampled_from(QUERIES), st.sampled_from(DOCS))
    score = st.sampled_from([0.0, 0.5, 1.0, 2.0])
    rows = [
        (system, date, q, d, draw(score))
        for system in systems
        for date in dates
        for q, d in draw(st.lists(pair, min_size=1, max_size=10, unique=True))
    ]
    run = pl.DataFrame(
        rows, schema={"system": pl.String, "date": pl.Int32, "query": pl.String,
                      "doc": pl.String, "score": pl.Float64}, orient="row",
    )  # fmt: skip
    judged = draw(st.lists(pair, min_size=1, max_size=10, unique=True))
    qrels = pl.DataFrame(
        [(q, d, draw(st.sampled_from([0, 1, 2]))) for q, d in judged],
        schema={"query": pl.String, "doc": pl.String, "relevance": pl.Int64},
        orient="row",
    )
    day = st.sampled_from([*dates, 9])
    history = draw(st.lists(st.tuples(day, st.sampled_from([*QUERIES, "u9"]),
                                      st.sampled_from(DOCS)), min_size=1, max_size=25))  # fmt: skip
    interactions = pl.DataFrame(
        history, schema={"date": pl.Int32, "query": pl.String, "doc": pl.String}, orient="row"
    )
    component = st.sampled_from([0.0, 1.0, -1.0, 0.5])
    vectors = [(draw(day), d, draw(st.lists(component, min_size=2, max_size=2)))
               for d in draw(st.lists(st.sampled_from(DOCS), unique=True))]  # fmt: skip
    features = pl.DataFrame(
        vectors,
        schema={"date": pl.Int32, "doc": pl.String, "vector": pl.List(pl.Float64)},
        orient="row",
    )
    catalog = pl.DataFrame(
        [(draw(day), d) for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, unique=True))],
        schema={"date": pl.Int32, "doc": pl.String},
        orient="row",
    )
    judged_dates = draw(st.sampled_from([None, dates, dates[:1], [9]]))
    if judged_dates is not None:  # qrels per date (a date may have none: no query counts)
        qrels = qrels.with_columns(
            date=pl.Series([draw(st.sampled_from(judged_dates)) for _ in range(qrels.height)],
                           dtype=pl.Int32)
        )  # fmt: skip
    inputs = {}
    for name, table in [("interactions", interactions), ("item_features", features),
                        ("catalog", catalog)]:  # fmt: skip
        if draw(st.booleans()):  # shared by every group: the date column dropped
            table = table.drop("date")
            if name != "catalog":
                table = table.unique(maintain_order=True) if name == "interactions" else table
        inputs[name] = table
    return run, qrels, inputs


def _integer_ids(run, qrels, inputs, start):
    """The tables with their text user and item ids as integers from ``start`` on."""
    users = {u: start + i for i, u in enumerate([*QUERIES, "u9", "none"])}
    items = {d: start + 3 * i for i, d in enumerate(DOCS)}

    def mapped(table):
        table = table.with_columns(
            pl.col(c).replace_strict(items, return_dtype=pl.Int64)
            for c in ("doc", "doc_a", "doc_b")
            if c in table.columns
        )
        if "query" in table.columns:
            table = table.with_columns(pl.col("query").replace_strict(users, return_dtype=pl.Int64))
        return table

    return mapped(run), mapped(qrels), {k: mapped(v) for k, v in inputs.items()}


def one_by_one(run, qrels, inputs, by, metrics, *, per_query, engine) -> pl.DataFrame:
    """The reference: ``evaluate`` on each group's rows alone, with the rows of each input
    of its values of the ``by`` columns the input has."""
    frames = []
    for key, rows in run.sort(by, maintain_order=True).group_by(by, maintain_order=True):
        values = dict(zip(by, key, strict=True))
        seen = {}
        for name, table in [("qrels", qrels), *inputs.items()]:
            if table is None:
                seen[name] = None
                continue
            shared = [c for c in by if c in table.columns]
            seen[name] = table.filter(*[pl.col(c) == values[c] for c in shared]).drop(shared)
        options = {}
        if seen["qrels"] is not None and seen["qrels"].is_empty():
            # no judgment joins the group: no query of it counts (judgments of a query
            # "none" that no run has, queries="both"), as for ranking metrics
            shared = [c for c in by if c in qrels.columns]
            nobody = "none" if qrels.schema["query"] == pl.String else 10**6
            seen["qrels"] = (
                qrels.drop(shared).head(1).with_columns(query=pl.lit(nobody, qrels.schema["query"]))
            )
            options["queries"] = "both"
        result = _quiet(
            pr.evaluate, rows.drop(by), seen.pop("qrels"), metrics, per_query=per_query,
            engine=engine, **seen, **options,
        )  # fmt: skip
        frames.append(
            result.select(*[pl.lit(values[c], run.schema[c]).alias(c) for c in by], pl.all())
        )
    return pl.concat(frames, how="vertical_relaxed")


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=grouped_recommender(), per_query=st.booleans(), by=st.sampled_from(
    [["system", "date"], ["date"], ["system"]]), ids=st.sampled_from([None, 0, -5]))  # fmt: skip
@pytest.mark.parametrize("engine", GENERATED)
def test_each_group_as_if_alone(data, engine, per_query, by, ids):
    """``ids``: integer user and item ids from ``ids`` on (0: packed as they are in the
    Polars engine; negative: through their ranks), or the text ids (None)."""
    run, qrels, inputs = data
    if ids is not None:
        run, qrels, inputs = _integer_ids(run, qrels, inputs, ids)
    for column in ("system", "date"):  # a column that is not grouped on: one value of it
        if column not in by:
            run = run.filter(pl.col(column) == run[column][0])
    if "date" not in by:  # the inputs' date column would be no group column: drop it
        inputs = {k: v.drop("date", strict=False) for k, v in inputs.items()}
        qrels = qrels.drop("date", strict=False)
    metrics = PER_USER + ["nDCG@3"] + ([] if per_query else CORPUS)
    got = _quiet(pr.evaluate, run, qrels, metrics, by=by, per_query=per_query,
                 engine=engine, **inputs)  # fmt: skip
    expected = one_by_one(run, qrels, inputs, by, metrics, per_query=per_query, engine=engine)
    assert_same(got, expected)


def _worked():
    """Two systems over users u1, u2 (see test_worked_example for the arithmetic)."""
    run = pl.DataFrame(
        {
            "sys": ["a", "a", "a", "b", "b", "b"],
            "query": ["u1", "u1", "u2", "u1", "u2", "u2"],
            "doc": ["x", "y", "x", "z", "y", "x"],
            "score": [2.0, 1.0, 1.0, 1.0, 2.0, 1.0],
        }
    )
    interactions = pl.DataFrame({"query": ["u1", "u2", "u3", "u3"], "doc": ["x", "x", "y", "z"]})
    return run, interactions


@pytest.mark.parametrize("engine", ENGINES)
def test_worked_example(engine):
    """Popularity (distinct users): x 2, y 1, z 1 over 4 interactions; catalog (the run's and
    the history's items) {x, y, z}.
    a: u1 gets x, y; u2 gets x. ARP = mean(3/2, 2) = 1.75; novelty (-log2 of pop/4):
    u1 (1 + 2)/2 = 1.5, u2 1 -> 1.25; coverage {x, y}/3 = 2/3; counts x 2, y 1, z 0:
    Gini = ((2·1-4)·0 + (2·2-4)·1 + (2·3-4)·2) / (3·3) = 4/9; entropy of (2/3, 1/3)
    = log2(3) - 2/3 = 0.9183.
    b: u1 gets z; u2 gets y, x. ARP = mean(1, 3/2) = 1.25; novelty mean(2, 1.5) = 1.75;
    coverage 3/3 = 1; counts 1, 1, 1: Gini 0, entropy log2(3)."""
    run, interactions = _worked()
    metrics = ["coverage@2", "Gini@2", "novelty@2", "ARP@2", "entropy@2"]
    got = pr.evaluate(run, None, metrics, by="sys", interactions=interactions, engine=engine)
    expected = [
        ("a", 2 / 3, 4 / 9, 1.25, 1.75, math.log2(3) - 2 / 3),
        ("b", 1.0, 0.0, 1.75, 1.25, math.log2(3)),
    ]
    assert got.columns == ["sys", *metrics]
    for row, want in zip(got.rows(), expected, strict=True):
        assert row[0] == want[0]
        pairs = zip(row[1:], want[1:], strict=True)
        assert all(math.isclose(x, y, abs_tol=1e-12) for x, y in pairs)


@pytest.mark.parametrize("engine", ENGINES)
def test_interactions_joined_on_the_group_column(engine):
    """a keeps the shared history (ARP 1.75, coverage 2/3 as in test_worked_example); b's
    history is its own: u3 saw z. b's ARP = mean(1 for u1's z, (0 + 0)/2 for u2's y and x,
    items without interactions counting 0) = 0.5; its default catalog (b's recommended items
    and b's history) is {x, y, z}, all recommended: coverage 1."""
    run, interactions = _worked()
    own = pl.concat(
        [
            interactions.with_columns(sys=pl.lit("a")),
            pl.DataFrame({"query": ["u3"], "doc": ["z"], "sys": ["b"]}),
        ]
    )
    got = pr.evaluate(run, None, ["ARP@2", "coverage@2"], by="sys", interactions=own,
                      engine=engine)  # fmt: skip
    assert got.rows() == [("a", 1.75, 2 / 3), ("b", 0.5, 1.0)]


def test_evaluate_runs_with_recommender_metrics_is_one_grouped_call(monkeypatch):
    """evaluate_runs stacks the runs for recommender metrics too (no per-run loop)."""
    from polars_rank.engines import keyed

    qrels = pl.DataFrame({"query": ["q"], "doc": ["y"], "relevance": [1]})
    runs = {
        "a": pl.DataFrame({"query": ["q", "q"], "doc": ["x", "y"], "score": [2.0, 1.0]}),
        "b": pl.DataFrame({"query": ["q"], "doc": ["y"], "score": [1.0]}),
    }
    calls = []
    original = keyed.evaluate_recommender_by

    def spy(engine, request):
        calls.append(request.by)
        return original(engine, request)

    monkeypatch.setattr(keyed, "evaluate_recommender_by", spy)
    got = pr.evaluate_runs(runs, qrels, ["RR", "coverage@1"])
    # catalog: each run's items; a shows x of {x, y} at rank 1, b shows y of {y}
    assert got.rows() == [("a", 0.5, 0.5), ("b", 1.0, 1.0)]
    assert calls == [["run"]]


def test_errors():
    run, interactions = _worked()
    with pytest.raises(pr.PolarsRankError, match="by column 'sys' .* interactions"):
        pr.evaluate(run, None, ["ARP@2"], by="sys",
                    interactions=interactions.with_columns(sys=pl.lit(1)))  # fmt: skip
    with pytest.raises(pr.PolarsRankError, match="by column 'sys' of the interactions"):
        nulls = interactions.with_columns(sys=pl.lit(None, pl.String))
        pr.evaluate(run, None, ["ARP@2"], by="sys", interactions=nulls)
    features = pl.DataFrame({"sys": ["a", "a"], "doc": ["x", "x"], "v": [[1.0], [2.0]]})
    with pytest.raises(pr.PolarsRankError, match="1 item.* more than one vector"):
        pr.evaluate(run, None, ["ILD@2"], by="sys", item_features=features)
    # one vector per item within each group: fine
    features = features.with_columns(sys=pl.Series(["a", "b"]))
    assert pr.evaluate(run, None, ["ILD@2"], by="sys", item_features=features).height == 2


@pytest.mark.parametrize("engine", ENGINES)
def test_outside_catalog_warning(engine):
    """One warning for all groups, counting (group, item) pairs: with the catalog {x, y},
    b's top 2 of u1 holds z (a's lists hold x and y only); with a catalog per system that
    gives b only {z}, b's y and x are outside too."""
    run, interactions = _worked()
    catalog = pl.DataFrame({"doc": ["x", "y"]})
    with pytest.warns(UserWarning, match="^1 recommended item is not in the catalog") as seen:
        got = pr.evaluate(run, None, ["coverage@2"], by="sys", catalog=catalog, engine=engine)
    assert len([w for w in seen if "catalog" in str(w.message)]) == 1
    assert got.rows() == [("a", 1.0), ("b", 1.0)]  # b shows x and y of {x, y}
    own = pl.DataFrame({"sys": ["a", "a", "b"], "doc": ["x", "y", "z"]})
    with pytest.warns(UserWarning, match="^2 recommended items are not in the catalog"):
        got = pr.evaluate(run, None, ["coverage@2"], by="sys", catalog=own, engine=engine)
    assert got.rows() == [("a", 1.0), ("b", 1.0)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("per_system", [False, True])
def test_outside_catalog_counts_evaluated_users_only(engine, per_system):
    """Items of a query left out of the evaluation (no judgments in its group) are not
    counted outside the catalog, as without ``by``. Catalog {a, b}; per system, each query's
    top 2: s1 q1 [a, x], s1 q2 [b, y], s2 q1 [a, z]. Shared judgments {q1/a}: q2 is left out,
    so the pairs outside are (s1, x) and (s2, z): 2. Judgments per system {s1: q1/a, s2:
    q1/a} give the same 2; coverage@2 is 1/2 for each system (a of {a, b})."""
    run = pl.DataFrame(
        {
            "sys": ["s1"] * 4 + ["s2"] * 2,
            "query": ["q1", "q1", "q2", "q2", "q1", "q1"],
            "doc": ["a", "x", "b", "y", "a", "z"],
            "score": [2.0, 1.0, 2.0, 1.0, 2.0, 1.0],
        }
    )
    qrels = pl.DataFrame({"query": ["q1"], "doc": ["a"], "relevance": [1]})
    if per_system:
        qrels = pl.concat([qrels.with_columns(sys=pl.lit(s)) for s in ("s1", "s2")])
    catalog = pl.DataFrame({"doc": ["a", "b"]})
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = pr.evaluate(run, qrels, ["coverage@2"], by="sys", catalog=catalog, engine=engine)
    messages = [str(w.message) for w in seen]
    assert "1 query in the run has no judgments and was not evaluated" in messages
    outside = [m for m in messages if "catalog" in m]
    assert outside == [
        "2 recommended items are not in the catalog and were not counted by coverage@2"
    ]
    assert got.rows() == [("s1", 0.5), ("s2", 0.5)]


def test_outside_catalog_counts_evaluated_users_only_on_spark(spark):
    """test_outside_catalog_counts_evaluated_users_only's data on engine="spark", with and
    without ``by``: s1 alone has q1 [a, x] and q2 [b, y] (q2 left out), so 1 item (x) is
    outside the catalog {a, b}; by system, (s1, x) and (s2, z): 2."""
    run = pl.DataFrame(
        {
            "sys": ["s1"] * 4 + ["s2"] * 2,
            "query": ["q1", "q1", "q2", "q2", "q1", "q1"],
            "doc": ["a", "x", "b", "y", "a", "z"],
            "score": [2.0, 1.0, 2.0, 1.0, 2.0, 1.0],
        }
    )
    qrels = pl.DataFrame({"query": ["q1"], "doc": ["a"], "relevance": [1]})
    catalog = pl.DataFrame({"doc": ["a", "b"]})
    s1 = run.filter(pl.col("sys") == "s1").drop("sys")
    cases = ((s1, None, "1 recommended item is"), (run, "sys", "2 recommended items are"))
    for table, by, want in cases:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            pr.evaluate(table, qrels, ["coverage@2"], by=by, catalog=catalog, engine="spark",
                        con=spark)  # fmt: skip
        outside = [str(w.message) for w in seen if "catalog" in str(w.message)]
        assert [m.startswith(want) for m in outside] == [True], outside


def test_spark_engine(spark):
    """engine="spark" from Polars inputs: the worked example's numbers (test_worked_example),
    with the interactions joined on the group column for b (as
    test_interactions_joined_on_the_group_column)."""
    run, interactions = _worked()
    metrics = ["coverage@2", "Gini@2", "novelty@2", "ARP@2", "entropy@2"]
    got = pr.evaluate(run, None, metrics, by="sys", interactions=interactions, engine="spark",
                      con=spark)  # fmt: skip
    expected = [
        ("a", 2 / 3, 4 / 9, 1.25, 1.75, math.log2(3) - 2 / 3),
        ("b", 1.0, 0.0, 1.75, 1.25, math.log2(3)),
    ]
    assert got.columns == ["sys", *metrics]
    for row, want in zip(got.rows(), expected, strict=True):
        assert row[0] == want[0]
        pairs = zip(row[1:], want[1:], strict=True)
        assert all(math.isclose(x, y, abs_tol=1e-12) for x, y in pairs)
    own = pl.concat(
        [
            interactions.with_columns(sys=pl.lit("a")),
            pl.DataFrame({"query": ["u3"], "doc": ["z"], "sys": ["b"]}),
        ]
    )
    history = spark.createDataFrame(own.to_pandas())  # a Spark DataFrame: one query
    got = pr.evaluate(run, None, ["ARP@2", "coverage@2"], by="sys", interactions=history,
                      engine="spark", con=spark)  # fmt: skip
    assert got.rows() == [("a", 1.75, 2 / 3), ("b", 0.5, 1.0)]
    # ILD and serendipity in the same query: the Polars engine's values, with item features
    # shared or per system (a Spark DataFrame)
    features = pl.DataFrame(
        {"doc": ["x", "y", "z"], "vector": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]}
    )
    own_features = pl.concat(
        [
            features.with_columns(sys=pl.lit("a")),
            features.with_columns(sys=pl.lit("b"), vector=pl.col("vector").list.reverse()),
        ]
    ).with_columns(vector=pl.when(pl.col("doc") == "z").then([0.5, 2.0]).otherwise("vector"))
    metrics = ["ILD@2", "serendipity(gain=none)@2", "ARP@2"]
    for table in (features, own_features):
        given = table if "sys" not in table.columns else spark.createDataFrame(table.to_pandas())
        got = pr.evaluate(run, None, metrics, by="sys", interactions=interactions,
                          item_features=given, engine="spark", con=spark)  # fmt: skip
        want = pr.evaluate(run, None, metrics, by="sys", interactions=interactions,
                           item_features=table)  # fmt: skip
        assert_same(got, want)
    # recommended items outside the catalog: (group, item) pairs, one warning
    catalog = pl.DataFrame({"doc": ["x", "y"]})
    with pytest.warns(UserWarning, match="^1 recommended item is not in the catalog"):
        pr.evaluate(run, None, ["coverage@2"], by="sys", catalog=catalog, engine="spark",
                    con=spark)  # fmt: skip


def test_duckdb_engine_reads_tables():
    """Table names on the connection (run and interactions) are read for the groups."""
    import duckdb

    run, interactions = _worked()
    con = duckdb.connect()
    con.register("run_view", run.to_arrow())
    con.register("history_view", interactions.to_arrow())
    got = pr.evaluate("run_view", None, ["ARP@2"], by="sys", interactions="history_view",
                      engine="duckdb", con=con)  # fmt: skip
    assert got.rows() == [("a", 1.75), ("b", 1.25)]


SQL_METRICS = ["novelty@3", "ARP@3", "APLT@3", "TailPercentage@3", "nDCG@3"]
SQL_CORPUS = ["coverage@3", "Gini@3", "entropy@3", "user_coverage@3", "coverage"]


def _sql_result(got: pl.DataFrame, metrics, by, expected) -> pl.DataFrame:
    from polars_rank.compiler import column_names

    got = got.rename({v: k for k, v in column_names(metrics, reserved=[*by, "query"]).items()})
    got = got.with_columns(
        pl.col(c).cast(expected.schema[c]) for c in got.columns if c in by or c == "query"
    )
    return got.sort([c for c in [*by, "query"] if c in got.columns])


def _sql_inputs(inputs):
    """The inputs without item features; ``interactions_by`` / ``catalog_by``: the ``by``
    columns each has."""
    tables = {k: v for k, v in inputs.items() if k != "item_features"}
    keys = {f"{k}_by": [c for c in ("date",) if c in v.columns] for k, v in tables.items()}
    return tables, keys


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=grouped_recommender(), per_query=st.booleans(), with_qrels=st.booleans())
def test_to_sql_by_on_duckdb(data, per_query, with_qrels):
    """The compiled SQL per group equals evaluate on each group alone."""
    import duckdb

    run, qrels, inputs = data
    by = ["system", "date"]
    tables, keys = _sql_inputs(inputs)
    metrics = SQL_METRICS + ([] if per_query else SQL_CORPUS)
    if not with_qrels:
        metrics = [m for m in metrics if m not in ("nDCG@3", "user_coverage@3")]
    con = duckdb.connect()
    for name, table in [("run_t", run), ("qrels_t", qrels)] + list(tables.items()):
        con.register(name, table.to_arrow())
    qrels_by = [c for c in ("date",) if c in qrels.columns]
    sql = pr.to_sql(metrics, "duckdb", "run_t", "qrels_t" if with_qrels else None, by=by,
                    per_query=per_query, qrels_by=qrels_by, **{k: k for k in tables},
                    **keys)  # fmt: skip
    expected = one_by_one(run, qrels if with_qrels else None, tables, by, metrics,
                          per_query=per_query, engine="polars")  # fmt: skip
    assert_same(expected, _sql_result(con.sql(sql).pl(), metrics, by, expected))


def test_to_sql_by_on_postgres(postgres):
    """The live server: interactions per system, a catalog shared by every group."""
    run, interactions = _worked()
    own = pl.concat(
        [
            interactions.with_columns(sys=pl.lit("a")),
            pl.DataFrame({"query": ["u3", "u1"], "doc": ["z", "y"], "sys": ["b", "b"]}),
        ]
    )
    catalog = pl.DataFrame({"doc": ["x", "y", "z", "w"]})
    qrels = pl.DataFrame({"query": ["u1", "u2"], "doc": ["x", "y"], "relevance": [1, 2]})
    for name, table in [("run_rb", run), ("own_rb", own), ("catalog_rb", catalog),
                        ("qrels_rb", qrels)]:  # fmt: skip
        postgres.load(name, table)
    metrics = ["novelty@2", "ARP@2", "APLT@2", "nDCG@2", *SQL_CORPUS]
    sql = pr.to_sql(metrics, "postgres", "run_rb", "qrels_rb", by="sys", qrels_by=[],
                    interactions="own_rb", interactions_by="sys", catalog="catalog_rb",
                    catalog_by=[])  # fmt: skip
    tables = {"interactions": own, "catalog": catalog}
    expected = one_by_one(run, qrels, tables, ["sys"], metrics, per_query=False, engine="polars")
    assert_same(expected, _sql_result(postgres.query(sql), metrics, ["sys"], expected))


def test_to_sql_by_input_columns_are_by_columns():
    with pytest.raises(pr.PolarsRankError, match="interactions_by column 'day'"):
        pr.to_sql(["ARP@5"], "duckdb", "run", None, by="system", interactions="h",
                  interactions_by="day")  # fmt: skip


def test_cli_sql_interactions_by(capsys):
    from polars_rank.cli import main

    argv = ["sql", "--dialect", "trino", "--run", "c.s.recs", "-m", "ARP@10,coverage@10"]
    extra = ["--interactions", "c.s.history", "--catalog", "c.s.items"]
    keys = ["--by", "model,day", "--interactions-by", "day", "--catalog-by", "day"]
    assert main([*argv, *extra, *keys]) == 0
    expected = pr.to_sql(["ARP@10", "coverage@10"], "trino", "c.s.recs", None,
                         interactions="c.s.history", catalog="c.s.items", by=["model", "day"],
                         interactions_by=["day"], catalog_by=["day"])  # fmt: skip
    assert capsys.readouterr().out == expected + "\n"
    assert "day" in expected


@pytest.mark.parametrize(
    "dialect", ["duckdb", "postgres", "spark", "bigquery", "snowflake", "trino"]
)
def test_to_sql_by_renders_in_every_dialect(dialect):
    """Every dialect renders the grouped recommender SQL, the caller's group columns in the
    interactions and catalog tables and in the output."""
    sql = pr.to_sql(["novelty(model=discovery)@10", "APLT@10", "Gini@10", "entropy@10"],
                    dialect, "p.d.recs", None, by=["model", "day"], interactions="p.d.history",
                    interactions_by="day", catalog="p.d.items", catalog_by=["day"])  # fmt: skip
    assert "pr_col_by" not in sql and "pr_input" not in sql
    assert sql.count("day") >= 4
    for kind in ("vectors", "categories", "similarities"):  # item features per day
        sql = pr.to_sql(["ILD@10", "serendipity@10"], dialect, "p.d.recs", "p.d.qrels",
                        by=["model", "day"], qrels_by=[], interactions="p.d.history",
                        interactions_by=[],
                        item_features="p.d.feats", item_features_by="day",
                        features=kind)  # fmt: skip
        assert "pr_col_" not in sql and "pr_input" not in sql and "feats" in sql


MORE = [
    "novelty(model=discovery)@3",
    "novelty@2",
    "APLT(tail_share=0.5)@3",
    "ARP(count=interactions)@2",
    "ILD@2",
    "serendipity(gain=binary)@3",
    "serendipity(gain=none)@2",
]


@st.composite
def other_features(draw, data):
    """``grouped_recommender``'s data with category features or a similarity table (shared,
    or per date) instead of the vectors."""
    run, qrels, inputs = data
    docs = st.sampled_from(DOCS)
    dates = sorted(set(run["date"].to_list())) + [9]
    if draw(st.booleans()):
        rows = draw(st.lists(st.tuples(st.sampled_from(dates), docs,
                                       st.sampled_from(["x", "y", "z"])),
                             unique_by=lambda r: r, max_size=20))  # fmt: skip
        features = pl.DataFrame(
            rows, schema={"date": pl.Int32, "doc": pl.String, "genre": pl.String}, orient="row"
        )
    else:
        rows = draw(st.lists(st.tuples(st.sampled_from(dates), docs, docs),
                             unique_by=lambda r: (r[0], min(r[1:]), max(r[1:])),
                             max_size=20))  # fmt: skip
        sims = [draw(st.sampled_from([0.0, 0.25, 1.0])) for _ in rows]
        features = pl.DataFrame(
            [(*r, s) for r, s in zip(rows, sims, strict=True)],
            schema={"date": pl.Int32, "doc_a": pl.String, "doc_b": pl.String,
                    "similarity": pl.Float64}, orient="row",
        )  # fmt: skip
    if draw(st.booleans()):  # shared by every group (one similarity per pair)
        features = features.drop("date")
        if "similarity" in features.columns:
            pair = [pl.min_horizontal("doc_a", "doc_b").alias("lo"),
                    pl.max_horizontal("doc_a", "doc_b").alias("hi")]  # fmt: skip
            features = features.filter(pl.struct(pair).is_first_distinct())
        else:
            features = features.unique(maintain_order=True)
    return run, qrels, dict(inputs, item_features=features)


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=grouped_recommender().flatmap(other_features), per_query=st.booleans())
@pytest.mark.parametrize("engine", GENERATED)
def test_each_group_as_if_alone_other_features(data, engine, per_query):
    """Category features and similarity tables (the frame-level paths), the discovery
    model, a tail share, serendipity's gains: per group as alone."""
    run, qrels, inputs = data
    by = ["system", "date"]
    metrics = MORE + ([] if per_query else ["Gini@2", "coverage@2"])
    got = _quiet(pr.evaluate, run, qrels, metrics, by=by, per_query=per_query,
                 engine=engine, **inputs)  # fmt: skip
    expected = one_by_one(run, qrels, inputs, by, metrics, per_query=per_query, engine=engine)
    assert_same(got, expected)


def test_plan_does_not_grow_with_the_number_of_groups():
    """The Polars plan of recommender metrics by 2 or 200 systems is the same text."""
    qrels = pl.DataFrame({"query": ["u1", "u2"], "doc": ["x", "y"], "relevance": [1, 1]})

    def systems(n: int) -> pl.LazyFrame:
        return pl.LazyFrame(
            {
                "system": [f"s{i}" for i in range(n) for _ in range(4)],
                "query": ["u1", "u1", "u2", "u2"] * n,
                "doc": ["x", "y", "x", "z"] * n,
                "score": [float(i % 3) for i in range(4 * n)],
            }
        )

    history = pl.DataFrame({"query": ["u1", "u3"], "doc": ["x", "z"]})
    features = pl.DataFrame(
        {"doc": ["x", "y", "z"], "vector": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]}
    )
    metrics = ["nDCG@2", "novelty@2", "ILD@2", "serendipity@2", "coverage@2", "Gini@2"]
    plans = [
        pr.evaluate(
            systems(n), qrels, metrics, by="system", interactions=history, item_features=features
        ).explain(optimized=False)  # fmt: skip
        for n in (2, 200)
    ]
    # the plan's cache nodes have their own ids
    plans = [re.sub(r"CACHE\[id: [0-9a-f-]+\]", "CACHE", p) for p in plans]
    assert plans[0] == plans[1]
    results = [
        pr.evaluate(
            systems(n), qrels, metrics, by="system", interactions=history, item_features=features
        ).collect()  # fmt: skip
        for n in (2, 200)
    ]
    assert [r.height for r in results] == [2, 200]
    assert results[1].row(0) == results[0].row(0)


FEATURE_METRICS = {
    "vectors": ["ILD@3", "serendipity@3", "serendipity(gain=none)@2", "ILD"],
    "categories": ["ILD@3", "ILD(similarity=jaccard)@3", "serendipity(gain=graded)@3"],
    "similarities": ["ILD@3", "serendipity@3", "serendipity(gain=none)@2"],
}


def _kind(features: pl.DataFrame) -> str:
    if "similarity" in features.columns:
        return "similarities"
    return "vectors" if "vector" in features.columns else "categories"


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    data=st.one_of(grouped_recommender(), grouped_recommender().flatmap(other_features)),
    per_query=st.booleans(),
)
def test_to_sql_by_item_features_on_duckdb(data, per_query):
    """ILD and serendipity per group in the compiled SQL (vectors, categories, similarity
    tables; shared or per date: ``item_features_by``) equal evaluate on each group alone."""
    import duckdb

    run, qrels, inputs = data
    by = ["system", "date"]
    features = inputs["item_features"]
    kind = _kind(features)
    metrics = FEATURE_METRICS[kind] + ["ARP@3"] + ([] if per_query else ["coverage@3"])
    con = duckdb.connect()
    for name, table in [("run_t", run), ("qrels_t", qrels), *inputs.items()]:
        con.register(name, table.to_arrow())
    keys = {f"{k}_by": [c for c in ("date",) if c in v.columns] for k, v in inputs.items()}
    qrels_by = [c for c in ("date",) if c in qrels.columns]
    column = {"vectors": {}, "categories": {"category": "genre"}, "similarities": {}}[kind]
    sql = pr.to_sql(metrics, "duckdb", "run_t", "qrels_t", by=by, per_query=per_query,
                    qrels_by=qrels_by, features=kind, **column, **{k: k for k in inputs},
                    **keys)  # fmt: skip
    expected = one_by_one(run, qrels, inputs, by, metrics, per_query=per_query, engine="polars")
    assert_same(expected, _sql_result(con.sql(sql).pl(), metrics, by, expected))


def test_check_sql_by_columns_of_the_inputs():
    """check_sql reports a null in a by column of the interactions, the catalog and the item
    features (those their *_by name), as the engines refuse them."""
    import duckdb

    con = duckdb.connect()
    run = pl.DataFrame({"sys": ["a", "b"], "query": ["q", "q"], "doc": ["x", "y"],
                        "score": [1.0, 2.0]})  # fmt: skip
    tables = {
        "run": run,
        "h": pl.DataFrame({"sys": ["a", None], "query": ["q", "q"], "doc": ["x", "y"]}),
        "c": pl.DataFrame(
            {"sys": [None, None], "doc": ["x", "y"]}, schema_overrides={"sys": pl.String}
        ),
        "f": pl.DataFrame({"sys": ["a"], "doc": ["x"], "vector": [[1.0]]}),
    }
    for name, table in tables.items():
        con.register(name, table.to_arrow())
    sql = pr.check_sql("duckdb", "run", None, interactions="h", catalog="c", item_features="f",
                       by="sys", interactions_by="sys", catalog_by="sys",
                       item_features_by="sys")  # fmt: skip
    assert con.sql(sql).fetchall() == [
        ("interactions", "null_group", 1, "q", "y"),
        ("catalog", "null_group", 2, None, None),
    ]
    with pytest.raises(pr.PolarsRankError, match="catalog_by column 'day'"):
        pr.check_sql("duckdb", "run", catalog="c", by="sys", catalog_by="day")
    with pytest.raises(pr.PolarsRankError, match="by column 'sys' of the catalog"):
        pr.evaluate(run, None, ["coverage@1"], by="sys", catalog=tables["c"])


def _outside_messages(run, qrels, catalog, k, con):
    """The outside-catalog warnings of ``evaluate(..., by="sys", engine="duckdb", con=con)``
    with ``coverage@k``, and the other warnings apart."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        pr.evaluate(run, qrels, [f"coverage@{k}"], by="sys", catalog=catalog, engine="duckdb",
                    con=con)  # fmt: skip
    messages = [str(w.message) for w in seen]
    return [m for m in messages if "catalog" in m], [m for m in messages if "catalog" not in m]


def _nocase() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("SET default_collation = 'nocase'")  # the count must not depend on it
    return con


def test_outside_catalog_breaks_ties_by_bytes_under_nocase():
    """trec_eval breaks a score tie by doc id descending as bytes, whatever the session's
    collation. s1's q1 ties "B" and "a" at score 1.0: as bytes "a" (0x61) > "B" (0x42), so
    q1's top 1 is [a]; under ``nocase`` "b" > "a" would put "B" first. Catalog {B}: a is
    outside, so 1 item (under the nocase order: B, inside, 0 items and no warning)."""
    run = pl.DataFrame({"sys": "s1", "query": "q1", "doc": ["B", "a"], "score": 1.0})
    qrels = pl.DataFrame({"query": ["q1"], "doc": ["a"], "relevance": [1]})
    catalog = pl.DataFrame({"doc": ["B"]})
    for con in (duckdb.connect(), _nocase()):
        outside, _ = _outside_messages(run, qrels, catalog, 1, con)
        assert outside == [
            "1 recommended item is not in the catalog and was not counted by coverage@1"
        ]


#: Cases of test_outside_catalog_keys_ids_by_bytes_under_nocase: s1's queries, their docs and
#: scores (one row each), the judged queries (each judging doc a), the catalog, and the count.
_KEY_CASES = {
    # the catalog join: q1's top 1 is [a]; "a" is not "A" as bytes: 1 (nocase: a = A, 0)
    "join": (["q1"], ["a"], [1.0], ["q1"], ["A"], 1),
    # the partition by query: q1's top 1 is [a] (2.0), Q1's [b] (3.0); catalog {b}: a is
    # outside, 1 (nocase: q1 = Q1 is one query whose top 1 is [b], 0)
    "partition": (["q1", "Q1"], ["a", "b"], [2.0, 3.0], ["q1", "Q1"], ["b"], 1),
    # distinct items: q1's top 1 is [a], q2's [A]; both outside the catalog {z}: 2 (nocase:
    # a = A is one item, 1)
    "distinct": (["q1", "q2"], ["a", "A"], [1.0, 1.0], ["q1", "q2"], ["z"], 2),
}


@pytest.mark.parametrize("case", list(_KEY_CASES))
def test_outside_catalog_keys_ids_by_bytes_under_nocase(case):
    """Queries, items and their join with the catalog compare as bytes, whatever the
    session's collation (each case's count is worked in its comment); the same count on a
    plain connection."""
    queries, docs, scores, judged, items, want = _KEY_CASES[case]
    run = pl.DataFrame({"sys": "s1", "query": queries, "doc": docs, "score": scores})
    qrels = pl.DataFrame({"query": judged, "doc": "a", "relevance": 1})
    catalog = pl.DataFrame({"doc": items})
    for con in (duckdb.connect(), _nocase()):
        outside, _ = _outside_messages(run, qrels, catalog, 1, con)
        assert outside == [outside_catalog_message(want, ["coverage@1"])]


def test_outside_catalog_counts_judged_queries_by_bytes_under_nocase():
    """Only the run's queries that the judgments hold are counted, matched as bytes: the
    judgments hold q1, not Q1. q1's top 1 is [x], in the catalog {x}; Q1 ([y]) is left out:
    0 items outside (no warning), and 1 query without judgments. (Under nocase, q1 = Q1
    would be one judged query tying x and y at 1.0, whose top 1, [y], is outside: 1.)"""
    run = pl.DataFrame({"sys": "s1", "query": ["q1", "Q1"], "doc": ["x", "y"], "score": 1.0})
    qrels = pl.DataFrame({"query": ["q1"], "doc": ["x"], "relevance": [1]})
    catalog = pl.DataFrame({"doc": ["x"]})
    for con in (duckdb.connect(), _nocase()):
        outside, others = _outside_messages(run, qrels, catalog, 1, con)
        assert outside == []
        assert others == ["1 query in the run has no judgments and was not evaluated"]
