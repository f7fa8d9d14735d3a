"""The portable SQL compiler without an engine: every registry metric has a builder whose
parameters are its entry's, the options are checked as everywhere else, the SQL of every
dialect uses only portable constructs, and output columns follow ``column_names``'s rule."""

from __future__ import annotations

import inspect
import re

import pytest

import polars_rank as pr
from polars_rank.catalog import registry
from polars_rank.catalog.model import Metric
from polars_rank.catalog.names import parse_metrics
from polars_rank.compiler import BUILDERS, DIALECTS, column_names
from polars_rank.compiler.compile import not_portable
from polars_rank.compiler.recsys import CORPUS_SQL
from polars_rank.core.errors import PolarsRankError
from tests.support.sql_cases import METRICS

ENTRIES = list(registry.metrics())


def _wanted_parameters(entry: Metric) -> list[str]:
    """What a builder takes after the parts: the entry's parameters besides its columns (the
    keywords ``MetricSpec.arguments`` passes), in the registry's order."""
    return [name for name, _ in entry.parameters() if name not in entry.columns]


def _stub(entry: Metric) -> str:
    """The builder to write for ``entry``: its decorator and signature, ready to fill in."""
    parameters = dict(entry.parameters())
    types = {"k": "int | None", "recall_level": "float", "relevance_level": "float"}
    arguments = []
    for name in _wanted_parameters(entry):
        kind = types.get(name, type(parameters[name]).__name__)
        if parameters[name] is None and "None" not in kind:
            kind += " | None"
        arguments.append(f"{name}: {kind}")
    listed = ", ".join(["q: Parts", "*", *arguments]) if arguments else "q: Parts"
    return (
        f'    @builds("{entry.name}")\n'
        f"    def {entry.name}({listed}) -> str:\n"
        f'        """{entry.formula}"""\n'
        "        ...  # SQL over q's parts (see polars_rank/compiler/parts.py)"
    )


def builder_problems() -> list[str]:
    """Every registry metric without a builder or whose builder's parameters differ from its
    entry's, each with what to write; every builder that is not a registry metric. A
    recommender metric's SQL is in polars_rank/compiler/recsys.py: from its entry's facts
    (popularity and pairwise metrics) or registered under its name (corpus metrics)."""
    problems = []
    for entry in ENTRIES:
        if not_portable(entry) is not None:
            continue
        if entry.table != "judged":
            by_facts = bool(entry.item_value) or entry.pairwise
            covered = entry.name in CORPUS_SQL if entry.level == "corpus" else by_facts
            if not covered:
                problems.append(
                    f"recommender metric {entry.name!r} has no portable SQL: add it to "
                    "polars_rank/compiler/recsys.py, or give its entry "
                    'unsupported=(("sql", <why>),)'
                )
            continue
        try:
            builder = BUILDERS[entry.name]  # what to_sql calls
        except KeyError:
            problems.append(
                f"registry metric {entry.name!r} has no portable SQL builder; add to "
                f"polars_rank/compiler/builders.py:\n{_stub(entry)}"
            )
            continue
        first, *rest = inspect.signature(builder).parameters.values()
        positional = first.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        keywords = all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in rest)
        if not (positional and keywords) or [p.name for p in rest] != _wanted_parameters(entry):
            problems.append(
                f"the SQL builder of {entry.name!r} ({builder.__name__}) takes "
                f"{[p.name for p in rest]}, its registry entry has "
                f"{_wanted_parameters(entry)}; its signature must be:\n{_stub(entry)}"
            )
    problems += [
        f"SQL builder {name!r} is not a registry metric (renamed or removed?)"
        for name in sorted(set(BUILDERS) - set(registry.REGISTRY))
    ]
    problems += [
        f"corpus SQL {name!r} is not a registry metric (renamed or removed?)"
        for name in sorted(set(CORPUS_SQL) - set(registry.REGISTRY))
    ]
    return problems


def test_every_registry_metric_has_a_builder_with_its_parameters():
    """A metric added to the registry needs its portable SQL: a builder registered with
    ``@builds(<its name>)`` taking the parts, then exactly the entry's parameters besides its
    columns, by keyword. The failure lists every metric to do and the signature to write."""
    problems = builder_problems()
    assert not problems, "\n\n" + "\n\n".join(problems)


def test_metrics_without_portable_sql_are_named_and_refused():
    """Only trec_eval's string-valued relstring has no portable SQL, and to_sql refuses it by
    name with the reason; every recommender metric has it (ILD and serendipity with feature
    vectors)."""
    excluded = {e.name for e in ENTRIES if not_portable(e) is not None}
    assert excluded == {"relevance_string"}
    recommender = {e.name for e in ENTRIES if e.table != "judged"}
    portable = {e.name for e in ENTRIES if e.table != "judged" and not_portable(e) is None}
    assert recommender == portable
    with pytest.raises(PolarsRankError, match=r"'relstring' has no portable SQL.*string"):
        pr.to_sql(["relstring"], "spark", "r", "q")


def test_the_coverage_check_names_what_to_add(monkeypatch):
    """The check above fails for a missing builder with the stub to write, and for a builder
    whose parameters are not its entry's."""
    entry = registry.REGISTRY["average_precision"]
    monkeypatch.delitem(BUILDERS, "average_precision")
    monkeypatch.setitem(BUILDERS, "ndcg", lambda q, *, k: "1")
    problems = builder_problems()
    assert problems[0].startswith("registry metric 'average_precision' has no portable SQL")
    assert '@builds("average_precision")' in problems[0]
    assert (
        "def average_precision(q: Parts, *, k: int | None, denominator: str, "
        "relevance_level: float) -> str:" in problems[0]
    )
    assert entry.formula in problems[0]
    assert "takes ['k'], its registry entry has ['k', 'gain', 'gains']" in problems[1]


BANNED = [
    "FILTER (",  # not in every dialect: CASE inside the aggregate instead
    "LOG(",  # argument order differs; LN(x) / LN(2) instead
    "LOG2(",
    "LOG10(",
    "ARRAY",
    "LIST(",
    "->",  # lambdas
    "QUALIFY",
    "UNNEST",
    "IGNORE NULLS",
    "NULLS FIRST",  # every sort says NULLS LAST (tests/engines/duckdb/test_settings.py)
    "DECIMAL",  # every number is a DOUBLE
    "NUMERIC",
    "MACRO",
    "FUNCTION",
]


def without_settings(sql: str) -> str:
    """The query without the session settings it pins (ClickHouse's ``SETTINGS ...``, the
    names of settings, not constructs of the query)."""
    return re.sub(r"\sSETTINGS\s[^()]*$", "", sql)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_only_portable_constructs(dialect):
    for per_query in (True, False):
        sql = pr.to_sql(METRICS, dialect, "run_t", "qrels_t", per_query=per_query, pretty=False)
        sql = without_settings(sql).upper()
        for banned in BANNED:
            assert banned not in sql, banned
        collations = re.findall(r"COLLATE\s+\S+", sql)
        expected = {"postgres": ['COLLATE "C"'], "duckdb": ['COLLATE "BINARY"']}
        # the doc id's sort text and every read of an id (rewrite 6 of render): one collation
        assert set(collations) == set(expected.get(dialect, []))
        # one pass over the run: a single window ranks it (DuckDB's names are quoted)
        unquoted = sql.replace('"', "")
        assert unquoted.count("ROW_NUMBER() OVER (PARTITION BY QID ORDER BY SORT_KEY DESC") == 1


def test_only_the_windows_and_parts_the_metrics_need():
    """P@10 needs no window beyond the ranking and no query length; AP a running count."""
    p10 = pr.to_sql(["P@10"], "spark", "run", "qrels", pretty=False)
    assert p10.count(" OVER (") == 1 and "n_ret" not in p10
    ap = pr.to_sql(["AP", "AP@10", "P@10"], "spark", "run", "qrels", pretty=False)
    assert ap.count(" OVER (") == 2
    assert "COUNT(*) OVER" in pr.to_sql(["NumRet"], "spark", "run", "qrels", pretty=False)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"dialect": "mysql"},
            "dialect must be 'duckdb', 'postgres', .* or 'clickhouse', got 'mysql'",
        ),
        ({"layout": "tall"}, "layout must be 'wide' or 'long', got 'tall'"),
        ({"duplicates": "first"}, "duplicates='first' needs the inputs' row order, which SQL"),
        ({"duplicates": "last"}, "duplicates must be 'error', 'first' or 'max', got 'last'"),
        ({"queries": "all"}, "queries must be 'qrels' or 'both', got 'all'"),
        ({"order_by": "date"}, "order_by must be 'score' or 'rank', got 'date'"),
        ({"order_by": "rank", "duplicates": "max"}, "duplicates='max' is not defined"),
        ({"max_rank": 0}, "max_rank must be a positive integer, got 0"),
        ({"relevance_level": float("nan")}, "relevance_level must be a finite number"),
        ({"run": ""}, "the run table name must be a non-empty string"),
        ({"query": ""}, "the query column name must be a non-empty string"),
        ({"metrics": ["P@10", "P@10"]}, "metric 'P@10' is listed twice"),
        ({"metrics": ["nope"]}, "unknown name 'nope'"),
        ({"metrics": []}, "no metrics given"),
        ({"left_out_column": "Query"}, "the output columns .* must differ"),
        ({"query": "measure", "layout": "long"}, "the output columns .* must differ"),
    ],
)
def test_bad_options(arguments, message):
    call = {"metrics": ["AP"], "dialect": "spark", "run": "run", "qrels": "qrels"}
    call.update(arguments)
    with pytest.raises(PolarsRankError, match=message):
        pr.to_sql(
            call.pop("metrics"), call.pop("dialect"), call.pop("run"), call.pop("qrels"), **call
        )


def test_parsed_metrics_are_accepted():
    specs = parse_metrics(["nDCG@10", "AP"])
    assert pr.to_sql(specs, "trino", "r", "q") == pr.to_sql(["nDCG@10", "AP"], "trino", "r", "q")


def test_output_columns_follow_column_names():
    """The rule, and a name taken by the query column (here ``map``) gets a suffix."""
    labels = ["nDCG@10", "P(rel=2)@5", "IPrec@0.3", "11pt_avg", "P_10", "P@10", "map"]
    sql = pr.to_sql(labels, "postgres", "run", "qrels", per_query=True, query="map", pretty=False)
    final = sql.rsplit(" FROM pr_values", 1)[0].rsplit("SELECT ", 1)[1]
    names = column_names(labels, reserved=["map"])
    assert [c.strip() for c in final.split(",")] == [
        "pr_qv AS map",  # not reserved in PostgreSQL: unquoted; the caller's own id
        *names.values(),
    ]
    assert names == {
        "nDCG@10": "ndcg_at_10",
        "P(rel=2)@5": "p_rel_2_at_5",
        "IPrec@0.3": "iprec_at_0_3",
        "11pt_avg": "m_11pt_avg",
        "P_10": "p_10",
        "P@10": "p_at_10",
        "map": "map_2",
    }


def test_column_name_edge_cases():
    assert column_names(["pr_x", "Ünïcode@5"], reserved=["QUERY"]) == {
        "pr_x": "m_pr_x",
        "Ünïcode@5": "n_code_at_5",
    }
    long_label = "nDCG(gain=exponential)@" + "1" * 70
    (name,) = column_names([long_label]).values()
    assert len(name) == 60


def test_caller_names_are_quoted_only_when_needed():
    sql = pr.to_sql(["AP"], "postgres", "s.run", "s.qrels", query="Query Id", doc="select")
    assert '"Query Id" AS TEXT) COLLATE "C" AS qid' in sql  # ids read as bytes
    assert '"select" AS TEXT) COLLATE "C" AS docno' in sql
    assert "FROM s.run" in sql
    snowflake = pr.to_sql(["AP"], "snowflake", "db.s.run", "db.s.qrels", query="qid")
    assert "qid AS VARCHAR), 'utf8') AS qid" in snowflake  # unquoted: as Snowflake folds names


def test_duplicates_max_groups_the_inputs():
    sql = pr.to_sql(["AP"], "spark", "run", "qrels", duplicates="max", pretty=False)
    assert "GROUP BY CAST(pr_src.query AS STRING), CAST(pr_src.doc AS STRING)" in sql
    assert "MAX(" in sql


@pytest.mark.parametrize(
    ("metrics", "arguments", "message"),
    [
        (
            ["novelty@10"],
            {},
            r"metric 'novelty@10' needs interactions=… \(the training history: query, doc\)",
        ),
        (["arp", "coverage"], {"qrels": None}, r"metric 'arp' needs interactions=…"),
        (["AP", "coverage"], {"qrels": None}, r"metric 'AP' needs qrels \(the judgments"),
        (["user_coverage(rel=1)@5"], {"qrels": None}, "needs qrels"),
        (
            ["gini@10"],
            {"per_query": True},
            "gini@10 has one value for the whole run, not one per query",
        ),
        (["aplt(tail_share=0.2,tail_popularity=2)"], {"interactions": "i"}, "at most one of"),
        (["coverage"], {"catalog": " "}, "the catalog table name must be a non-empty string"),
        (["arp"], {"interactions": 3}, "the interactions table name must be a non-empty"),
        (
            ["ild@10"],
            {},
            r"metric 'ild@10' needs item_features=… \(feature vectors: doc and an array column; "
            "or categories or a similarity table, with features=\\)",
        ),
        (["serendipity"], {"item_features": "f"}, "metric 'serendipity' needs interactions=…"),
        (
            ["ild(similarity=jaccard)@5"],
            {"item_features": "f"},
            "similarity=jaccard needs categories features, got vectors",
        ),
        (["ild"], {"item_features": "f", "vector": ""}, "the vector column name must be a non"),
        (["ild"], {"item_features": "f", "features": "tags"}, "features must be .vectors."),
        (
            ["ild"],
            {"item_features": "f", "features": "categories", "category": ""},
            "the category column name must be a non",
        ),
    ],
)
def test_recommender_inputs_are_checked_up_front(metrics, arguments, message):
    call = {"qrels": "qrels"} | arguments
    with pytest.raises(PolarsRankError, match=message):
        pr.to_sql(metrics, "spark", "run", call.pop("qrels"), **call)


RECOMMENDER = [
    "coverage@10",
    "gini",
    "entropy(base=10,per_item=true)@5",
    "user_coverage(rel=2)@5",
    "novelty(model=discovery,unknown=zero)@10",
    "arp(count=interactions)@5",
    "aplt(tail_share=0.1)@10",
]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_recommender_sql_uses_only_portable_constructs(dialect):
    """The same constructs as the ranking metrics, one ranking of the run; the items' tie
    order (the long tail) is the id's own: plain on the dialects that compare text as bytes,
    on PostgreSQL and DuckDB an integer id's number then the text in byte order."""
    sql = pr.to_sql(
        [*RECOMMENDER, "nDCG@10"], dialect, "run_t", "qrels_t", interactions="i", pretty=False
    )
    upper = without_settings(sql).upper()
    for banned in [b for b in BANNED if b != "DECIMAL"] + ["DECIMAL("]:
        assert banned not in upper, banned
    unquoted = upper.replace('"', "")  # DuckDB's output quotes its column names
    assert unquoted.count("ROW_NUMBER() OVER (PARTITION BY QID ORDER BY SORT_KEY DESC") == 1
    collations = re.findall(r"COLLATE\s+\"\w+\"", upper)
    # one item table per configuration: (discovery, users), (choice, interactions), tail_share
    window = (
        r"ROW_NUMBER\(\) OVER \(ORDER BY POPULARITY ASC(?: NULLS LAST)?, (.*?)\) "
        r"AS (?:DOUBLE|FLOAT64|NULLABLE\(FLOAT64\))"
    )
    orders = re.findall(window, unquoted)
    assert len(orders) == 3
    if dialect in ("postgres", "duckdb"):
        collation = 'COLLATE "C"' if dialect == "postgres" else 'COLLATE "BINARY"'
        assert set(collations) == {collation}  # the ranking, each item table, each id read
        typeof = "PG_TYPEOF(PR_DV)" if dialect == "postgres" else "TYPEOF(PR_DV)"
        assert all(o.startswith("CASE WHEN ") and typeof in o for o in orders)
    elif dialect in ("spark", "databricks"):  # a UTF8_LCASE column would order text by it
        assert collations == []
        assert all(o.startswith("CASE WHEN TYPEOF(PR_DV)") for o in orders)
    else:
        assert collations == []
        # the caller's id (an integer's number), then its byte key (rewrite 6 of render),
        # each with its direction stated (rewrite 3; no NULLS clause in a BigQuery window)
        key = "PR_DV ASC" if dialect == "bigquery" else "PR_DV ASC NULLS LAST"
        assert all(o.startswith(f"{key}, ") for o in orders)


def test_recommender_tables_and_catalog():
    """The caller's tables replace the placeholders; without a catalog, the run's and the
    interactions' items make it; without qrels no judgments table is read."""
    sql = pr.to_sql(
        ["coverage@10", "novelty"], "bigquery", "p.d.run", "p.d.qrels", interactions="p.d.hist"
    )
    assert "FROM p.d.hist" in sql and "pr_input" not in sql
    assert re.search(r"FROM pr_run\s+UNION DISTINCT\s+SELECT\s+docno\s+FROM pr_history", sql)
    explicit = pr.to_sql(["coverage@10"], "trino", "run", None, catalog="items")
    assert "FROM items" in explicit and "pr_qrels" not in explicit and "qrels" not in explicit


@pytest.mark.parametrize(
    ("dialect", "explode"),
    [
        ("spark", "FROM f AS f LATERAL VIEW POSEXPLODE(f.emb) t AS j, x"),
        ("databricks", "FROM f AS f LATERAL VIEW POSEXPLODE(f.emb) t AS j, x"),
        ("postgres", "FROM f AS f CROSS JOIN UNNEST(f.emb) WITH ORDINALITY AS t(x, j)"),
        # DuckDB's output quotes the column names it reads and writes (rewrite 7 of render:
        # preserve_identifier_case cannot fold them)
        ("duckdb", 'FROM f AS f CROSS JOIN UNNEST(f."emb") WITH ORDINALITY AS t("x", j)'),
        ("trino", "FROM f AS f CROSS JOIN UNNEST(f.emb) WITH ORDINALITY AS t(x, j)"),
        ("bigquery", "FROM f AS f CROSS JOIN UNNEST(f.emb) AS x WITH OFFSET AS j"),
        (
            "snowflake",
            "FROM f AS f CROSS JOIN TABLE(FLATTEN(INPUT => f.emb)) AS t(seq, key, path, j, x, "
            "this)",
        ),
    ],
)
def test_feature_vectors_are_exploded_with_their_positions(dialect, explode):
    """The one construct written per dialect by sqlglot beyond the ranking's: each vector's
    components with their positions, once, for ILD and serendipity together."""
    sql = pr.to_sql(
        ["ild@5", "serendipity@5", "ild"],
        dialect,
        "run",
        "qrels",
        interactions="hist",
        item_features="f",
        vector="emb",
        pretty=False,
    )
    assert sql.count(explode) == 1


@pytest.mark.parametrize("dialect", ["spark", "postgres", "duckdb"])
def test_the_engines_entry_point_takes_the_options_as_one_object(dialect):
    """``compile_query`` (what the engines call) reads the options from one ``Options``:
    the same SQL as ``to_sql``'s keywords that build it, for a resolved ``Options`` too
    (``validate`` and ``grade_limit`` do not change the SQL; ``order_by`` None is score)."""
    import dataclasses

    from polars_rank.compiler import compile_query
    from polars_rank.core.conventions import Columns
    from polars_rank.core.options import GradeLimit, Options

    metrics = ["nDCG@10", "P(rel=2)@5", "novelty@10"]
    keywords = dict(
        query="user",
        doc="item",
        score="s",
        relevance="grade",
        queries="both",
        relevance_level=2,
        max_rank=50,
        duplicates="max",
    )
    tables = dict(interactions="db.history", by=["system"], qrels_by=[], interactions_by=[])
    want = pr.to_sql(metrics, dialect, "db.run", "db.qrels", **tables, **keywords)
    columns = Columns(query="user", doc="item", score="s", relevance="grade")
    options = Options(columns, "both", 2, None, 50, "max")
    got = compile_query(metrics, dialect, options, "db.run", "db.qrels", **tables)
    assert got == want
    engine_options = dataclasses.replace(
        options, order_by="score", validate=False, grade_limit=GradeLimit(3, "ERR")
    )
    got = compile_query(metrics, dialect, engine_options, "db.run", "db.qrels", **tables)
    assert got == want
    with pytest.raises(PolarsRankError, match="row order"):
        first = dataclasses.replace(options, duplicates="first")
        compile_query(metrics, dialect, first, "db.run", "db.qrels", **tables)
