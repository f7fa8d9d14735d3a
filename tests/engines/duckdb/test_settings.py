"""No setting of the user's DuckDB session changes a number, and no call changes a setting.

Every sort the package writes states its direction and where NULLs go (``ASC NULLS LAST``,
``list_sort(l, 'DESC', 'NULLS LAST')``): a static scan of the macro files, of ``to_sql`` /
``check_sql`` / ``curve_sql`` in every dialect and of every query the DuckDB engine runs. Then
the compiled SQL (run on the user's connection), the macros (registered on the user's
connection, called with the queries the engine writes) and ``engine="duckdb"`` with ``con=``
give the Polars engine's numbers (within 1e-12) under each setting that can change a sort, a
comparison, a division or a NULL's place; the connection's settings are the same after the
call. The reference is the Polars engine, which shares no code with the SQL.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import duckdb
import polars as pl
import pytest
from sqlglot.dialects.dialect import Dialect as SqlglotDialect
from sqlglot.tokens import TokenType

import polars_rank as pr
import polars_rank.duckdb as prd
import polars_rank.engines.duckdb.ranking as duckdb_ranking
from polars_rank.catalog.names import parse_metric
from polars_rank.catalog.registry import metrics as catalog_metrics
from polars_rank.compiler.dialects import DIALECTS
from polars_rank.core.sqltext import ident, literal
from polars_rank.engines.duckdb.query import metric_sql
from tests.support.sql_cases import (
    METRICS,
    RECOMMENDER_METRICS,
    RECOMMENDER_TABLES,
    as_labels,
    assert_recommender_sql,
    compiled,
    recommender_random,
    reference,
    stacked_random,
)
from tests.support.strategies import (
    TOLERANCE,
    assert_same,
    fast_first,
    registry_metric_names,
    summary_metric_names,
)

ROOT = Path(__file__).resolve().parents[3]
SQL_FILES = sorted((ROOT / "sql").glob("*.sql"))

#: Session settings that could change an order, a comparison, a division, a NULL's place, a
#: lambda's index or a name, as the statements a user runs on their connection, in three
#: profiles that together make every such setting: a default NULL order can take only one
#: value at a time, and the two ``*_ON_ASC_*`` orders differ from the plain ones only under
#: the other default direction.
#: A profile breaks a number if any one of its settings does (each setting was also checked
#: alone when the profiles were made); the static scan above catches an unstated sort even
#: where the data would not show it. ``dialect_compatibility_mode`` (a lambda's index from 0)
#: and ``preserve_identifier_case`` (unquoted names folded) are made with ``SET GLOBAL``, so
#: that the engine's cursor has them too.
SETTINGS = {
    "order=DESC,nulls=FIRST,integer_division,no_ieee_ops,null_on_zero_division,threads=1,"
    "spark_mode": [
        "SET default_order = 'DESC'",
        "SET default_null_order = 'NULLS_FIRST'",
        "SET integer_division = true",
        "SET ieee_floating_point_ops = false",
        "SET error_on_division_by_zero = false",
        "SET legacy_disable_null_type = true",
        "SET threads = 1",
        "SET GLOBAL dialect_compatibility_mode = 'spark'",
    ],
    "order=DESC,nulls=LAST_ON_ASC_FIRST_ON_DESC,collation=nocase,no_insertion_order,"
    "identifiers=upper": [
        "SET default_order = 'DESC'",
        "SET default_null_order = 'NULLS_LAST_ON_ASC_FIRST_ON_DESC'",
        "SET default_collation = 'nocase'",
        "SET preserve_insertion_order = false",
        "SET GLOBAL preserve_identifier_case = 'uppercase'",
    ],
    "nulls=FIRST_ON_ASC_LAST_ON_DESC,optimizer_off,identifiers=lower": [
        "SET default_null_order = 'NULLS_FIRST_ON_ASC_LAST_ON_DESC'",
        "SET enable_optimizer = false",
        "SET GLOBAL preserve_identifier_case = 'lowercase'",
    ],
}

#: Every profile; the first in the fast loop, the others marked ``slow``. (Some settings hold
#: per connection, e.g. integer_division, and the engine's cursor does not see them; others,
#: e.g. default_order, hold for the whole database and the cursor does.)
ALL = fast_first(list(SETTINGS))


def connection(setting: str) -> duckdb.DuckDBPyConnection:
    """A user's fresh in-memory connection with ``setting`` made."""
    con = duckdb.connect()
    for statement in SETTINGS[setting]:
        con.execute(statement)
    return con


def session_settings(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    return con.sql("SELECT name, value FROM duckdb_settings() ORDER BY name ASC").fetchall()


# ------------------------------------------------------------------------------------------
# the static scan

#: Tokens that end an ORDER BY list (at its own parenthesis depth).
_ORDER_ENDS = {
    "ROWS", "RANGE", "GROUPS", "LIMIT", "OFFSET", "FETCH", "QUALIFY", "WINDOW", "UNION",
    "EXCEPT", "INTERSECT", "FROM", "WHERE", "HAVING", "SELECT", "SETTINGS",
}  # fmt: skip
_OPEN = (TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE)
_CLOSE = (TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE)


def _stated(term: list[str], nulls: bool) -> bool:
    """A sort term ends with ASC/DESC, then NULLS FIRST/LAST (unless ``nulls`` is False)."""
    if len(term) >= 4 and term[-2] == "NULLS" and term[-1] in ("FIRST", "LAST"):
        return term[-3] in ("ASC", "DESC")
    return not nulls and len(term) >= 2 and term[-1] in ("ASC", "DESC")


def unstated_sorts(sql: str, dialect: str = "duckdb", *, nulls: bool = True) -> list[str]:
    """The ORDER BY terms of ``sql`` without an explicit direction and NULL placement, and
    the list sorts (``list_sort``, ``list_reverse_sort``, ``array_sort``) without both stated
    as arguments."""
    tokens = SqlglotDialect.get_or_raise(dialect).tokenize(sql)
    words = [t.text.upper() for t in tokens]
    found, i = [], 0
    while i < len(tokens):
        if tokens[i].token_type == TokenType.ORDER_BY:
            i, depth, term = i + 1, 0, []
            while i < len(tokens):
                kind = tokens[i].token_type
                if kind in _OPEN:
                    depth += 1
                elif kind in _CLOSE:
                    if depth == 0:
                        break
                    depth -= 1
                elif depth == 0 and (
                    kind == TokenType.SEMICOLON
                    or (words[i] in _ORDER_ENDS and kind not in (TokenType.STRING, TokenType.VAR))
                ):
                    break
                if depth == 0 and kind == TokenType.COMMA:
                    found += [] if _stated(term, nulls) else [" ".join(term)]
                    term = []
                else:
                    term.append(words[i])
                i += 1
            found += [] if not term or _stated(term, nulls) else [" ".join(term)]
            continue
        if words[i] in ("LIST_SORT", "ARRAY_SORT", "LIST_REVERSE_SORT", "ARRAY_REVERSE_SORT"):
            depth, arguments, j = 0, 1, i + 2
            while j < len(tokens) and not (tokens[j].token_type in _CLOSE and depth == 0):
                kind = tokens[j].token_type
                depth += (kind in _OPEN) - (kind in _CLOSE)
                arguments += depth == 0 and kind == TokenType.COMMA
                j += 1
            if "REVERSE" in words[i] or arguments < 3:
                found.append(f"{words[i]}(...) with {arguments} argument(s)")
        i += 1
    return found


def test_the_scan_finds_unstated_sorts():
    """The scanner itself: each unstated form is found, each stated one passes."""
    bad = (
        "SELECT a FROM t ORDER BY a; SELECT row_number() OVER (PARTITION BY q ORDER BY s DESC) "
        "FROM t; SELECT sum(x ORDER BY r), list_sort(l), list_sort(l, 'ASC'), "
        "list_reverse_sort(l, 'NULLS LAST') FROM t ORDER BY a ASC NULLS LAST, b"
    )
    assert len(unstated_sorts(bad)) == 7
    good = (
        "SELECT sum(x ORDER BY r ASC NULLS LAST) OVER (ORDER BY s DESC NULLS FIRST ROWS "
        "UNBOUNDED PRECEDING), list_sort(list(x ORDER BY y DESC NULLS LAST), 'DESC', "
        "'NULLS LAST') FROM t ORDER BY a ASC NULLS LAST, f(b, c) DESC NULLS LAST LIMIT 3"
    )
    assert unstated_sorts(good) == []


@pytest.mark.parametrize("path", SQL_FILES, ids=lambda p: p.name)
def test_macro_files_state_every_sort(path: Path):
    assert unstated_sorts(path.read_text(encoding="utf-8")) == []


def indexed_lambdas(sql: str) -> list[str]:
    """The lambdas of ``sql`` that take an index parameter: two or more parameters in any
    function but a reduce (whose two are the accumulator and the element), three or more in
    a reduce. ``dialect_compatibility_mode = 'spark'`` counts that index from 0."""
    found = []
    for match in re.finditer(r"\blambda\s+([\w\s,]+?):", sql, flags=re.IGNORECASE):
        depth, i = 0, match.start() - 1
        while i >= 0 and not (sql[i] == "(" and depth == 0):
            depth += (sql[i] == ")") - (sql[i] == "(")
            i -= 1
        function = re.search(r"(\w+)\s*$", sql[:i]) if i >= 0 else None
        name = function.group(1).lower() if function else ""
        parameters = len(match.group(1).split(","))
        if parameters >= (3 if name.endswith("reduce") else 2):
            found.append(f"{name}(... {match.group(0)} ...)")
    return found


def test_the_scan_finds_indexed_lambdas():
    sql = (
        "SELECT list_transform(l, lambda x, i: i), list_filter(l, lambda x, i: i > 1), "
        "list_reduce(l, lambda a, x, i: a + i), [i for x, i in l], "
        "list_transform(l, lambda x: x), list_reduce(l, lambda acc, x: acc + x, 0), "
        "list_reduce(l, lambda a, b: list_transform(a, lambda x: x + b[1]))"
    )
    assert indexed_lambdas(sql) == [
        "list_transform(... lambda x, i: ...)",
        "list_filter(... lambda x, i: ...)",
        "list_reduce(... lambda a, x, i: ...)",
    ]


@pytest.mark.parametrize("path", SQL_FILES, ids=lambda p: p.name)
def test_macro_files_take_no_lambda_index(path: Path):
    """Positions come from ``range(1, len(l) + 1)`` and subscripts (1-based in every mode),
    never from a lambda's index parameter; no list comprehension either (``[... for x, i in
    l]`` has the same index)."""
    text = path.read_text(encoding="utf-8")
    code = "\n".join(line.split("--")[0] for line in text.splitlines())  # no comments
    assert indexed_lambdas(code) == []
    assert not re.search(r"\bfor\s+\w+\s*,\s*\w+\s+in\b", code, flags=re.IGNORECASE)


CLASSIFICATION = ["AUC", "AP", "LogLoss", "F1", "precision", "Brier", "GAUC"]


def compiled_texts(dialect: str) -> dict[str, str]:
    """``to_sql``, ``check_sql`` and ``curve_sql`` for a wide set of metrics and options."""
    recommender = RECOMMENDER_METRICS
    tables = {"interactions": "inter_t", "catalog": "cat_t", "item_features": "feat_t"}
    texts = {
        "ranking": pr.to_sql(METRICS, dialect, "run_t", "qrels_t"),
        "ranking per query long": pr.to_sql(
            METRICS[:20], dialect, "run_t", "qrels_t", per_query=True, layout="long"
        ),
        "ranking by": pr.to_sql(
            ["AP", "nDCG@10"], dialect, "run_t", "qrels_t", by="sys", qrels_by=[]
        ),
        "recommender": pr.to_sql(recommender, dialect, "run_t", "qrels_t", **tables),
        "recommender by": pr.to_sql(
            recommender,
            dialect,
            "run_t",
            "qrels_t",
            by="sys",
            **tables,
            **{f"{k}_by": [] for k in ("qrels", "interactions", "catalog", "item_features")},
        ),
        "classification": pr.to_sql(
            CLASSIFICATION, dialect, predictions="preds_t", by="seg", group="user"
        ),
        "check": pr.check_sql(dialect, "run_t", "qrels_t", interactions="inter_t"),
        "check predictions": pr.check_sql(dialect, predictions="preds_t"),
    }
    for curve in ("roc", "pr"):
        texts[f"{curve} curve"] = pr.curve_sql(curve, dialect, "preds_t", by="seg")
    return texts


@pytest.mark.parametrize("dialect", fast_first(["duckdb", *(d for d in DIALECTS if d != "duckdb")]))
def test_compiled_sql_states_every_sort(dialect: str):
    """BigQuery takes no NULLS FIRST/LAST in a window or an aggregate: there, the direction."""
    for name, text in compiled_texts(dialect).items():
        found = unstated_sorts(text, dialect, nulls=dialect != "bigquery")
        assert found == [], (name, found)
    assert "ORDER BY" in compiled_texts(dialect)["ranking"]


def _engine_queries(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [
        m
        for (m,) in con.sql(
            "SELECT message FROM duckdb_logs() WHERE type = 'QueryLog' ORDER BY timestamp ASC"
        ).fetchall()
        if "CREATE OR REPLACE TEMPORARY MACRO" not in m  # the macro files, scanned above
    ]


def test_engine_queries_state_every_sort():
    """Every query ``engine="duckdb"`` runs (DuckDB's query log): ranking with checks and
    ``duplicates="first"``, by groups, recommender inputs, classification."""
    run, qrels = stacked_random(2, int_ids=False)
    frames = recommender_random(10, int_ids=False)
    con = duckdb.connect()
    con.execute("CALL enable_logging('QueryLog')")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranking = summary_metric_names(table="judged")
        pr.evaluate(run, qrels, ranking, engine="duckdb", con=con, duplicates="first")
        pr.evaluate(run, qrels, METRICS, engine="duckdb", con=con, per_query=True)
        sys_run = pl.concat([run.with_columns(sys=pl.lit(s)) for s in ("a", "b")])
        pr.evaluate(sys_run, qrels, ["AP", "P@5"], engine="duckdb", con=con, by="sys")
        pr.evaluate(
            frames["run"],
            frames["qrels"],
            summary_metric_names(kind="vectors"),
            engine="duckdb",
            con=con,
            interactions=frames["interactions"],
            catalog=frames["catalog"],
            item_features=frames["item_features"],
        )
        pr.evaluate_classification(
            classification_frame(), CLASSIFICATION, engine="duckdb", con=con, group="user"
        )
    queries = _engine_queries(con)
    assert len(queries) > 5
    for sql in queries:
        assert unstated_sorts(sql) == [], sql


# ------------------------------------------------------------------------------------------
# the numbers under each setting


def classification_frame() -> pl.DataFrame:
    """Labels 0/1 with scores in tenths (many ties, both classes at one score), probabilities
    strictly inside (0, 1) for LogLoss, users of 1-4 rows for GAUC, and a NULL score."""
    import numpy as np

    rng = np.random.default_rng(3)
    n = 120
    return pl.DataFrame(
        {
            "user": rng.integers(0, 40, n),
            "seg": rng.integers(0, 3, n),
            "label": rng.integers(0, 2, n),
            "score": (rng.integers(1, 10, n) / 10).tolist()[:-1] + [None],
        }
    )


def _user_tables(con: duckdb.DuckDBPyConnection, **frames: pl.DataFrame | None) -> None:
    """The frames as tables of the user's database (not views of Python objects)."""
    for name, frame in frames.items():
        if frame is not None:
            con.register("__frame", frame)
            con.execute(f"CREATE TABLE {ident(name)} AS SELECT * FROM __frame")
            con.unregister("__frame")


@pytest.mark.parametrize("setting", ALL)
def test_compiled_ranking_sql(setting: str):
    """``to_sql(..., "duckdb")`` run on the user's connection: every portable ranking metric,
    per query and summarised, with score ties and grades -1..3 (integer and text ids)."""
    for int_ids in (False, True):
        run, qrels = stacked_random(6, int_ids=int_ids, seed=5)
        con = connection(setting)
        _user_tables(con, run_t=run, qrels_t=qrels)
        for per_query in (True, False):
            got = con.sql(compiled(METRICS, "duckdb", "run_t", "qrels_t", per_query=per_query))
            expected = reference(run, qrels, METRICS, per_query=per_query)
            assert_same(expected, as_labels(got.pl(), METRICS, expected))


@pytest.mark.parametrize("setting", ALL)
def test_compiled_classification_sql(setting: str):
    """AUC, AP, LogLoss and the others with tied scores, per segment and overall, and the
    curves, on the user's connection."""
    frame = classification_frame()
    con = connection(setting)
    _user_tables(con, preds_t=frame)
    for by in (None, "seg"):
        sql = pr.to_sql(CLASSIFICATION, "duckdb", predictions="preds_t", by=by, group="user")
        got = con.sql(sql).pl()
        expected = pr.evaluate_classification(frame, CLASSIFICATION, by=by, group="user")
        names = dict(zip(got.columns[-len(CLASSIFICATION) :], CLASSIFICATION, strict=True))
        assert_same(expected, got.rename(names).cast(expected.schema))
    for curve, function in (
        ("roc", pr.classification.roc_curve),
        ("pr", pr.classification.precision_recall_curve),
    ):
        got = con.sql(pr.curve_sql(curve, "duckdb", "preds_t", by="seg")).pl()
        expected = function(frame, "label", "score", by="seg")
        assert_same(expected, got.cast(expected.schema))


@pytest.mark.parametrize("setting", ALL)
def test_compiled_recommender_sql(setting: str):
    frames = recommender_random(30, int_ids=False, seed=2)
    con = connection(setting)
    _user_tables(con, **{name: frames[key] for key, name in RECOMMENDER_TABLES.items()})
    assert_recommender_sql(lambda sql: con.sql(sql).pl(), "duckdb", frames)


def _captured(monkeypatch, con, metrics: list[str], **options) -> tuple[str, dict]:
    """The one query ``engine="duckdb"`` writes for ``metrics`` over the tables ``run`` and
    ``qrels`` of ``con``, and the frames it registers (name -> frame)."""
    seen: list[str] = []
    frames: dict[str, pl.DataFrame] = {}
    original_sql, original_register = duckdb_ranking.query_sql, duckdb_ranking.register_frame

    def record(*args, **kwargs):
        seen.append(original_sql(*args, **kwargs))
        return seen[-1]

    def register(connection, name: str, frame: pl.DataFrame) -> None:
        frames[name] = frame
        original_register(connection, name, frame)

    monkeypatch.setattr(duckdb_ranking, "query_sql", record)
    monkeypatch.setattr(duckdb_ranking, "register_frame", register)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pr.evaluate("run", "qrels", metrics, engine="duckdb", con=con, **options)
    monkeypatch.undo()
    assert len(seen) == 1
    return seen[0], frames


@pytest.mark.parametrize("setting", ALL)
def test_macros_on_the_users_connection(setting: str, monkeypatch):
    """The macros registered on the user's connection (``polars_rank.duckdb.register``) and
    called there with the engine's query: every ranking and trec_eval metric, per query and
    summarised, and every recommender metric."""
    run, qrels = stacked_random(4, int_ids=False, seed=7)
    frames = recommender_random(20, int_ids=False, seed=3)
    inputs = {k: frames[k] for k in ("interactions", "catalog", "item_features")}
    plain = duckdb.connect()  # the engine's query is captured without the setting
    _user_tables(plain, run=run, qrels=qrels)
    con = connection(setting)
    prd.register(con)
    _user_tables(con, run=run, qrels=qrels)
    for per_query in (True, False):
        metrics = (registry_metric_names if per_query else summary_metric_names)(table="judged")
        sql, registered = _captured(monkeypatch, plain, metrics, per_query=per_query)
        assert not registered
        expected = reference(run, qrels, metrics, per_query=per_query)
        got = con.sql(sql).pl()
        got = got.drop([c for c in got.columns if c.startswith("__pr_") and c != "__pr_query"])
        got = got.rename({"__pr_query": "query"}, strict=False)
        assert_same(expected, got.select(expected.columns).cast(expected.schema))
    plain, con = duckdb.connect(), connection(setting)
    prd.register(con)
    for target in (plain, con):
        _user_tables(target, run=frames["run"], qrels=frames["qrels"], **inputs)
    metrics = [
        m for m in summary_metric_names(kind="vectors") if parse_metric(m).entry.table != "judged"
    ]
    tables = {name: name for name in inputs}
    sql, registered = _captured(monkeypatch, plain, metrics, **tables)
    for name, frame in registered.items():
        con.register(name, frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = pr.evaluate(frames["run"], frames["qrels"], metrics, **inputs)
    got = con.sql(sql).pl()
    assert_same(expected, got.select(expected.columns).cast(expected.schema))


@pytest.mark.parametrize("setting", ALL)
def test_classification_macros_on_the_users_connection(setting: str):
    """Every classification macro, called on the user's connection as the engine calls it."""
    frame = classification_frame().drop_nulls()
    metrics = [e.aliases[0].name for e in catalog_metrics("classification") if e.name != "fbeta"]
    con = connection(setting)
    prd.register(con)
    _user_tables(con, clicks=frame)
    leading = {"label": ident("label"), "score": ident("score"), "probability": ident("score")}
    selects = []
    for name in metrics:
        spec = parse_metric(name, "classification")
        if spec.entry.tables:  # a table macro (GAUC): table and columns by name
            args = {t: literal("clicks") for t in spec.entry.tables}
            args |= {"grp": literal("user"), "label": literal("label"), "score": literal("score")}
            columns = (*spec.entry.tables, *spec.entry.columns)
            call = metric_sql(spec, 1, leading=tuple(args[c] for c in columns))
            selects.append(f"(SELECT {ident(spec.entry.name)} FROM {call}) AS {ident(spec.label)}")
        else:
            call = metric_sql(spec, 1, leading=tuple(leading[c] for c in spec.entry.columns))
            selects.append(f"{call} AS {ident(spec.label)}")
    got = con.sql(f"SELECT {', '.join(selects)} FROM clicks").pl()
    expected = pr.evaluate_classification(frame, metrics, group="user")
    assert_same(expected, got.select(expected.columns).cast(expected.schema))
    for function in (pr.classification.roc_curve, pr.classification.precision_recall_curve):
        got = con.sql(
            f"SELECT * FROM cls_{function.__name__}('clicks', 'label', 'score', ['seg'])"
        ).pl()
        expected = function(frame, "label", "score", by="seg")
        assert_same(expected, got.select(expected.columns).cast(expected.schema))


def _case_connections() -> list[tuple[str, duckdb.DuckDBPyConnection]]:
    """Two users' connections with a table ``preds`` of text groups and segments that differ
    only by case: one under ``SET default_collation = 'nocase'``, one whose text columns are
    declared ``VARCHAR COLLATE NOCASE``."""
    rows = (
        "('A', 'X', 1, 0.9, 1), ('A', 'X', 0, 0.1, 0), ('a', 'x', 1, 0.2, 0), ('a', 'x', 0, 0.3, 0)"
    )
    session = duckdb.connect()
    session.execute("SET default_collation = 'nocase'")
    session.execute(
        f"CREATE TABLE preds AS SELECT * FROM (VALUES {rows}) t(grp, seg, label, score, pred)"
    )
    column = duckdb.connect()
    column.execute(
        "CREATE TABLE preds (grp VARCHAR COLLATE NOCASE, seg VARCHAR COLLATE NOCASE, "
        "label INTEGER, score DOUBLE, pred INTEGER)"
    )
    column.execute(f"INSERT INTO preds VALUES {rows}")
    return [("session", session), ("column", column)]


@pytest.mark.parametrize("where", ["session", "column"])
def test_text_groups_that_differ_by_case_stay_apart(where: str):
    """GAUC's groups and the curves' and reports' segments that differ only by case are two
    groups under a case-insensitive collation (of the session or of the column), in the
    ``cls_*`` macros, ``to_sql`` and ``engine="duckdb"``, as in the Polars engine.

    By hand: group ``A`` scores its positive 0.9 over its negative 0.1 (AUC 1), group ``a``
    its positive 0.2 under its negative 0.3 (AUC 0): GAUC = (2·1 + 2·0) / 4 = 0.5; merged, 3
    of the 4 (positive, negative) pairs are in order (0.9 > 0.1, 0.3; 0.2 > 0.1), 0.75.
    Segments ``X``/``x`` (the same rows) sort ``X`` first (byte 0x58 < 0x78): ROC of ``X``
    (+inf, 0, 0), (0.9, 0, 1), (0.1, 1, 1); of ``x`` (+inf, 0, 0), (0.3, 1, 0), (0.2, 1, 1).
    With the predicted class ``pred``, ``X`` has one row of each class right; ``x`` predicts
    0 twice: class 0 precision 1/2, recall 1, F1 2/3; class 1 0, 0, 0 (support 1 each)."""
    con = dict(_case_connections())[where]
    frame = con.sql("SELECT * FROM preds").pl()
    prd.register(con)
    gauc = con.sql(
        "SELECT group_auc, groups_used FROM cls_group_auc('preds', 'grp', 'label', 'score')"
    )
    assert gauc.fetchall() == [(pytest.approx(0.5, abs=1e-12), 2)]
    sql = pr.to_sql(["GAUC"], "duckdb", predictions="preds", group="grp")
    assert con.sql(sql).fetchall()[0][-1] == pytest.approx(0.5, abs=1e-12)
    got = pr.evaluate_classification("preds", ["GAUC"], group="grp", engine="duckdb", con=con)
    assert got["GAUC"].item() == pytest.approx(0.5, abs=1e-12)
    roc = con.sql("SELECT * FROM cls_roc_curve('preds', 'label', 'score', ['seg'])").fetchall()
    inf = float("inf")
    assert roc == [
        ("X", inf, 0.0, 0.0), ("X", 0.9, 0.0, 1.0), ("X", 0.1, 1.0, 1.0),
        ("x", inf, 0.0, 0.0), ("x", 0.3, 1.0, 0.0), ("x", 0.2, 1.0, 1.0),
    ]  # fmt: skip
    report = con.sql(
        "SELECT * FROM cls_classification_report('preds', 'label', 'pred', ['seg'])"
    ).fetchall()
    assert report == [
        ("X", 0, 1.0, 1.0, 1.0, 1), ("X", 1, 1.0, 1.0, 1.0, 1),
        ("x", 0, 0.5, 1.0, pytest.approx(2 / 3, abs=1e-12), 1), ("x", 1, 0.0, 0.0, 0.0, 1),
    ]  # fmt: skip
    for function, args in (
        (pr.classification.precision_recall_curve, ("label", "score")),
        (pr.classification.confusion_matrix, ("label", "pred")),
    ):
        name = function.__name__
        got = con.sql(f"SELECT * FROM cls_{name}('preds', '{args[0]}', '{args[1]}', ['seg'])")
        expected = function(frame, *args, by="seg")
        assert_same(expected, got.pl().select(expected.columns).cast(expected.schema))


@pytest.mark.parametrize("where", ["session", "column"])
def test_text_labels_that_differ_by_case_stay_apart(where: str):
    """Multi-class labels that differ only by case are two classes under a case-insensitive
    collation (of the session or of the columns): the ``cls_multiclass_*`` aggregates, the
    confusion matrix and the report (classes sorted by their bytes, ``A`` < ``B`` < ``a`` <
    ``b``) give scikit-learn's numbers on the same labels."""
    import sklearn.metrics as skm

    actual = ["A", "a", "B", "b", "A", "a", "b"]
    predicted = ["a", "a", "b", "B", "A", "A", "b"]
    rows = ", ".join(f"('{y}', '{p}')" for y, p in zip(actual, predicted, strict=True))
    con = duckdb.connect()
    if where == "session":
        con.execute("SET default_collation = 'nocase'")
        con.execute(f"CREATE TABLE preds AS SELECT * FROM (VALUES {rows}) t(y, p)")
    else:
        con.execute("CREATE TABLE preds (y VARCHAR COLLATE NOCASE, p VARCHAR COLLATE NOCASE)")
        con.execute(f"INSERT INTO preds VALUES {rows}")
    prd.register(con)
    got = con.sql(
        "SELECT cls_multiclass_accuracy(y, p), cls_multiclass_precision(y, p), "
        "cls_multiclass_recall(y, p, 'weighted'), cls_multiclass_f1(y, p, 'micro'), "
        "cls_multiclass_fbeta(y, p, 2.0, 'weighted') FROM preds"
    ).fetchall()[0]
    zd = {"zero_division": 0.0}
    expected = (
        skm.accuracy_score(actual, predicted),
        skm.precision_score(actual, predicted, average="macro", **zd),
        skm.recall_score(actual, predicted, average="weighted", **zd),
        skm.f1_score(actual, predicted, average="micro", **zd),
        skm.fbeta_score(actual, predicted, beta=2.0, average="weighted", **zd),
    )
    assert got == pytest.approx(expected, abs=1e-12)
    classes = sorted(set(actual) | set(predicted))  # bytes: A, B, a, b
    matrix = skm.confusion_matrix(actual, predicted, labels=classes)
    pairs = [(i, y, j, p) for i, y in enumerate(classes) for j, p in enumerate(classes)]
    cells = [(y, p, int(matrix[i, j])) for i, y, j, p in pairs]
    got = con.sql("SELECT * FROM cls_confusion_matrix('preds', 'y', 'p')").fetchall()
    assert got == cells
    report = skm.precision_recall_fscore_support(actual, predicted, labels=classes, **zd)
    got = con.sql("SELECT * FROM cls_classification_report('preds', 'y', 'p')").fetchall()
    assert [r[0] for r in got] == classes
    for column, values in enumerate(report, start=1):
        assert [r[column] for r in got] == pytest.approx(list(values), abs=1e-12)


@pytest.mark.parametrize("setting", ALL)
def test_engine_on_the_users_connection(setting: str):
    """``engine="duckdb", con=con``: ranking (frames and the user's table names, with
    ``duplicates="first"``), by groups, recommender and classification metrics equal the
    Polars engine's, and the connection's settings are the same after each call."""
    con = connection(setting)
    before = session_settings(con)
    run, qrels = stacked_random(6, int_ids=True, seed=11)
    doubled = pl.concat([run, run.with_columns(pl.col("score") + 1.0)])
    _user_tables(con, run=doubled, qrels=qrels)

    def both(run_in, qrels_in, metrics, frames=None, **options):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = pr.evaluate(run_in, qrels_in, metrics, engine="duckdb", con=con, **options)
            frames = frames or (run_in, qrels_in)
            expected = pr.evaluate(*frames, metrics, **options)
        assert_same(expected, got)
        assert session_settings(con) == before

    for per_query in (True, False):
        both(run, qrels, METRICS, per_query=per_query)
        both("run", "qrels", METRICS, (doubled, qrels), per_query=per_query, duplicates="first")
    by_run = pl.concat([run.with_columns(sys=pl.lit(s)) for s in ("A", "b")])
    both(by_run, qrels, ["AP", "nDCG@10", "P@5", "RR"], by="sys")
    frames = recommender_random(20, int_ids=False, seed=4)
    inputs = {k: frames[k] for k in ("interactions", "catalog", "item_features")}
    both(frames["run"], frames["qrels"], summary_metric_names(kind="vectors"), **inputs)
    preds = classification_frame()
    for by in (None, "seg"):
        got = pr.evaluate_classification(
            preds, CLASSIFICATION, engine="duckdb", con=con, by=by, group="user"
        )
        expected = pr.evaluate_classification(preds, CLASSIFICATION, by=by, group="user")
        assert_same(expected, got)
        assert session_settings(con) == before


def test_the_reported_numbers():
    """The issue's cases by hand. AUC of labels (1, 0, 1, 1, 0, 0) at scores (0.1, 0.2, 0.3,
    0.9, 0.05, 0.4): of the 9 (positive, negative) pairs the positive ranks higher in 6
    (0.1 > 0.05; 0.3 > 0.05, 0.2; 0.9 > all three), AUC = 6/9. AP of a run a..e (scores 5..1)
    with b, d relevant and x judged relevant but not retrieved: (1/2 + 2/4) / 3 = 1/3."""
    con = connection(next(iter(SETTINGS)))
    con.execute(
        "CREATE TABLE preds AS SELECT * FROM (VALUES (1, 0.1), (0, 0.2), (1, 0.3), (1, 0.9), "
        "(0, 0.05), (0, 0.4)) t(label, score)"
    )
    auc = con.sql(pr.to_sql(["AUC"], "duckdb", predictions="preds")).fetchall()[0][0]
    assert abs(auc - 6 / 9) < TOLERANCE
    run = pl.DataFrame({"query": ["q"] * 5, "doc": list("abcde"), "score": [5.0, 4, 3, 2, 1]})
    qrels = pl.DataFrame({"query": ["q"] * 3, "doc": ["b", "d", "x"], "relevance": [1, 1, 1]})
    ap = pr.evaluate(run, qrels, ["AP"], engine="duckdb", con=con)["AP"].item()
    assert abs(ap - (1 / 2 + 2 / 4) / 3) < TOLERANCE


#: Every public table macro of the macro files, called on small tables, with the output
#: columns its comment in the macro file names (the group column ``seg`` keeps the table's
#: name). Names that the macro writes must not depend on ``preserve_identifier_case``.
TABLE_MACRO_COLUMNS = {
    "judge('run', 'qrels')": ["query", "doc", "rank", "relevance"],
    "judge_by('run', 'qrels', ['system'])": ["group_key", "query", "doc", "rank", "relevance"],
    "standard_metrics('run', 'qrels')": [
        "query", "ndcg_10", "ndcg", "rr_10", "rr", "ap", "ap_100", "p_10", "r_100", "r_1000",
        "rprec", "bpref", "num_ret", "num_rel", "num_rel_ret",
    ],
    "top_k('run')": ["query", "doc", "rank"],
    "item_popularity('inter')": ["doc", "popularity"],
    "user_count('inter')": ["n_users"],
    "item_table('pop')": ["doc", "popularity", "self_information", "in_tail"],
    "enrich('top', 'items')": [
        "query", "doc", "rank", "relevance", "popularity", "self_information", "in_tail",
    ],
    "default_catalog('run', 'inter')": ["doc"],
    "recommendation_counts('top')": ["doc", "count"],
    "catalog_coverage('top', 'inter')": ["catalog_coverage"],
    "shannon_entropy('top')": ["shannon_entropy"],
    "gini_index('top', 'inter')": ["gini"],
    "user_coverage('top', 'inter')": ["user_coverage"],
    "unit_vectors('feats')": ["doc", "u", "sq"],
    "category_weights('cats')": ["doc", "category", "w", "size"],
    "canonical_pairs('sims')": ["a", "b", "sim"],
    "cooccurrence_similarity('inter')": ["doc_a", "doc_b", "similarity"],
    "intra_list_diversity_vectors('top', 'feats')": ["query", "intra_list_diversity"],
    "intra_list_diversity_categories('top', 'cats')": ["query", "intra_list_diversity"],
    "intra_list_diversity_similarities('top', 'sims')": ["query", "intra_list_diversity"],
    "unexpectedness_vectors('top', 'inter', 'feats')": ["query", "doc", "rank", "unexpectedness"],
    "unexpectedness_categories('top', 'inter', 'cats')": [
        "query", "doc", "rank", "unexpectedness",
    ],
    "unexpectedness_similarities('top', 'inter', 'sims')": [
        "query", "doc", "rank", "unexpectedness",
    ],
    "serendipity_vectors('top', 'inter', 'feats')": ["query", "serendipity"],
    "serendipity_categories('top', 'inter', 'cats')": ["query", "serendipity"],
    "serendipity_similarities('top', 'inter', 'sims')": ["query", "serendipity"],
    "cls_roc_curve('preds', 'label', 'score', ['seg'])": ["seg", "threshold", "fpr", "tpr"],
    "cls_precision_recall_curve('preds', 'label', 'score', ['seg'])": [
        "seg", "threshold", "precision", "recall",
    ],
    "cls_group_auc('preds', 'grp', 'label', 'score')": [
        "group_auc", "groups_used", "groups_left_out", "impressions_used",
    ],
    "cls_confusion_matrix('preds', 'label', 'pred', ['seg'])": [
        "seg", "actual", "predicted", "count",
    ],
    "cls_classification_report('preds', 'label', 'pred', ['seg'])": [
        "seg", "class", "precision", "recall", "f1", "support",
    ],
}  # fmt: skip


@pytest.mark.parametrize("case", [None, "uppercase", "lowercase"])
def test_table_macros_name_their_columns_under_identifier_folding(case: str | None):
    """Under ``preserve_identifier_case`` (either folding) every table macro's output columns
    keep the names its comment states (the tables' own columns are quoted lower case)."""
    con = duckdb.connect()
    if case is not None:
        con.execute(f"SET preserve_identifier_case = '{case}'")
    prd.register(con)
    tables = {
        "run": ("query, doc, score, system", "('q1', 'a', 1.0, 's'), ('q1', 'b', 2.0, 's')"),
        "qrels": ("query, doc, relevance", "('q1', 'a', 1)"),
        "top": ("query, doc, rank, relevance", "('u1', 'a', 1, 1), ('u1', 'b', 2, 0)"),
        "inter": ("query, doc", "('u1', 'a'), ('u2', 'a'), ('u2', 'b')"),
        "pop": ("doc, popularity", "('a', 2), ('b', 1)"),
        "items": (
            "doc, popularity, self_information, in_tail",
            "('a', 2, 0.5, false), ('b', 1, 1.5, true)",
        ),
        "feats": ("doc, vector", "('a', [1.0, 0.0]), ('b', [0.6, 0.8])"),
        "cats": ("doc, category", "('a', 'x'), ('b', 'x'), ('b', 'y')"),
        "sims": ("doc_a, doc_b, similarity", "('a', 'b', 0.5)"),
        "preds": ("label, score, pred, seg, grp", "(1, 0.9, 1, 'X', 'g'), (0, 0.1, 1, 'X', 'g')"),
    }
    for name, (columns, rows) in tables.items():
        quoted = ", ".join(ident(c) for c in columns.split(", "))
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM (VALUES {rows}) t({quoted})")
    public = con.sql(
        "SELECT DISTINCT function_name FROM duckdb_functions() "
        "WHERE function_type = 'table_macro' AND NOT internal AND function_name[1] <> '_'"
    ).fetchall()
    assert sorted(call.split("(")[0] for call in TABLE_MACRO_COLUMNS) == sorted(
        name.lower() for (name,) in public
    )
    for call, columns in TABLE_MACRO_COLUMNS.items():
        assert con.sql(f"SELECT * FROM {call}").columns == columns, call


def test_macros_find_their_own_columns_under_identifier_folding():
    """``preserve_identifier_case = 'uppercase'`` on the connection the macros are registered
    on: the macros that find a constant column by name (judge_by's ``_pr_one``, the curves'
    ``__cls_all``) still find it, and the curve's columns keep their names. By hand: system s1
    scores b (2.0) over a (1.0), so b is rank 1 and a rank 2; s2 retrieves a alone (rank 1); a
    is relevant (1), b unjudged (NULL). The ROC curve of labels (1, 0) at scores (0.9, 0.1):
    the first point (threshold +inf, 0, 0), then at 0.9 the positive only (fpr 0, tpr 1),
    then at 0.1 both (1, 1)."""
    con = duckdb.connect()  # alone: the profile's nocase collation would match '_PR_ONE'
    con.execute("SET preserve_identifier_case = 'uppercase'")
    prd.register(con)
    con.execute(
        "CREATE TABLE runs AS SELECT * FROM (VALUES ('q1', 'a', 1.0, 's1'), "
        "('q1', 'b', 2.0, 's1'), ('q1', 'a', 1.0, 's2')) "
        't("query", "doc", "score", "system")'
    )
    con.execute(
        "CREATE TABLE judged AS SELECT * FROM (VALUES ('q1', 'a', 1)) "
        't("query", "doc", "relevance")'
    )
    rows = con.sql(
        "SELECT group_key.system, query, doc, rank, relevance "
        "FROM judge_by('runs', 'judged', ['system']) "
        "ORDER BY group_key.system ASC NULLS LAST, doc ASC NULLS LAST"
    ).fetchall()
    assert rows == [("s1", "q1", "a", 2, 1), ("s1", "q1", "b", 1, None), ("s2", "q1", "a", 1, 1)]
    con.execute(
        'CREATE TABLE scored AS SELECT * FROM (VALUES (1, 0.9), (0, 0.1)) t("label", "score")'
    )
    curve = con.sql("SELECT * FROM cls_roc_curve('scored', 'label', 'score')")
    assert curve.columns == ["threshold", "fpr", "tpr"]
    assert curve.fetchall() == [(float("inf"), 0.0, 0.0), (0.9, 0.0, 1.0), (0.1, 1.0, 1.0)]
