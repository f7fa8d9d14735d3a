"""The engine interface: engines register themselves, the public functions dispatch through
the registry, and no code outside the registry chooses by comparing an engine's name."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import get_args

import polars as pl
import pytest

import polars_rank as pr
import polars_rank.classification as cls
from polars_rank.catalog import model
from polars_rank.classification import Engine as FrameEngine
from polars_rank.classification import implementations
from polars_rank.core.dialects import DialectName, dialect_names
from polars_rank.core.types import EngineName
from polars_rank.engines import registry
from polars_rank.engines.base import Engine
from polars_rank.engines.polars.engine import PolarsEngine
from polars_rank.engines.request import Request

PACKAGE = Path(__file__).resolve().parents[2] / "polars_rank"
ENGINE_NAMES = {"polars", "duckdb", "spark"}


def _strings(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [s for element in node.elts for s in _strings(element)]
    return []


def _name_comparisons(source: str, names: set[str]) -> list[int]:
    """Lines comparing a value with one of ``names`` (``==``, ``!=``, ``in``, ``not in``,
    a ``match`` case)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(s in names for operand in operands for s in _strings(operand)):
                lines.append(node.lineno)
        elif isinstance(node, ast.match_case):
            for pattern in ast.walk(node.pattern):
                if isinstance(pattern, ast.MatchValue) and any(
                    s in names for s in _strings(pattern.value)
                ):
                    lines.append(pattern.lineno)
    return lines


def test_the_scan_finds_every_kind_of_comparison() -> None:
    source = (
        "a == 'duckdb'\n"
        "'spark' != b\n"
        "c in ('polars', 'x')\n"
        "match d:\n    case 'duckdb':\n        pass\n"
        "e == 'polars_rank'\n"
    )
    assert _name_comparisons(source, ENGINE_NAMES) == [1, 2, 3, 5]


def test_no_engine_or_dialect_name_comparison_outside_the_registries() -> None:
    """Dispatch is by the registries: the engines' (engines/registry.py, each engine a class
    in its own folder) and the dialects' (core/dialects/, each dialect a class in its own
    module, whose facts the code reads)."""
    names = ENGINE_NAMES | set(dialect_names())
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent.name == "dialects" and path.parent.parent.name == "core":
            continue
        for line in _name_comparisons(path.read_text(encoding="utf-8"), names):
            found.append(f"{path.relative_to(PACKAGE.parent)}:{line}")
    assert not found, found


def test_the_names_come_from_the_registry() -> None:
    """The static type, the catalog's engines and the command line's choices are the
    registered engines (the default first); the frame functions' engines are among them."""
    assert registry.names() == get_args(EngineName) == model.ENGINES
    assert registry.names()[0] == registry.DEFAULT == "polars"
    assert set(implementations.IMPLEMENTATIONS) == set(get_args(FrameEngine))
    assert set(implementations.IMPLEMENTATIONS) <= set(registry.names())
    assert "spark" not in registry.command_line_names()  # it needs a session


def test_the_dialect_lists_come_from_the_dialect_registry() -> None:
    """The catalog's ``sql:`` targets, the dbt adapters and ``polars-rank sql --dialect``'s
    choices are the registered dialects in their order: Databricks (Spark SQL under a second
    name) is no catalog target of its own, and dbt's ``databricks`` adapter is written by the
    Spark dialect."""
    import argparse

    from polars_rank.cli.sql import build_sql_parser
    from polars_rank.dbt.config import ADAPTERS

    names = dialect_names()
    assert names == get_args(DialectName)
    assert model.DIALECTS == tuple(n for n in names if n != "databricks")
    assert model.TARGETS == (*model.ENGINES, *(f"sql:{d}" for d in model.DIALECTS))
    assert ADAPTERS == {
        "duckdb": "duckdb",
        "postgres": "postgres",
        "spark": "spark",
        "databricks": "spark",
        "bigquery": "bigquery",
        "snowflake": "snowflake",
        "trino": "trino",
        "clickhouse": "clickhouse",
    }
    parser = argparse.ArgumentParser()
    build_sql_parser(parser)
    (dialect,) = [a for a in parser._actions if a.dest == "dialect"]
    assert tuple(dialect.choices or ()) == names


def test_a_dialect_registered_later_is_a_command_line_choice() -> None:
    """The command line reads the registry when its parser is built, not at import."""
    import argparse

    from polars_rank.cli.sql import build_sql_parser
    from polars_rank.core.dialects import Dialect, unregister

    class Extra(Dialect):
        name = "pr_test_extra"
        title = "Extra"

    try:
        parser = argparse.ArgumentParser()
        build_sql_parser(parser)
        (dialect,) = [a for a in parser._actions if a.dest == "dialect"]
        assert "pr_test_extra" in (dialect.choices or ())
    finally:
        unregister("pr_test_extra")
    assert "pr_test_extra" not in dialect_names()


def test_an_unknown_engine_is_an_error_listing_the_registered_ones() -> None:
    run = pl.DataFrame({"query": ["q"], "doc": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["q"], "doc": ["a"], "relevance": [1]})
    listed = "'polars', 'clickhouse', 'duckdb' or 'spark'"
    with pytest.raises(pr.PolarsRankError, match=f"engine must be {listed}"):
        pr.evaluate(run, qrels, ["P@1"], engine="sqlite")  # type: ignore[arg-type]
    data = pl.DataFrame({"label": [0, 1], "score": [0.2, 0.8]})
    with pytest.raises(pr.PolarsRankError, match=f"runs on {listed}"):
        pr.evaluate_classification(data, ["AUC"], engine="postgres")  # type: ignore[arg-type]
    with pytest.raises(pr.PolarsRankError, match="engine must be 'polars' or 'duckdb'"):
        cls.roc_curve(data, "label", "score", engine="spark")  # type: ignore[arg-type]


@pytest.fixture
def recording_engine():
    """A new engine, registered by its class alone: the Polars engine's evaluation, each
    call recorded."""
    calls: list[tuple[str, list[str]]] = []

    class Recording(PolarsEngine):
        name = "recording"  # type: ignore[assignment]

        def evaluate(self, request: Request) -> pl.DataFrame | pl.LazyFrame:
            calls.append(("evaluate", request.by))
            return super().evaluate(request)

        def evaluate_keyed(self, run, qrels, specs, options, warn, con):  # type: ignore[no-untyped-def]
            calls.append(("evaluate_keyed", []))
            return super().evaluate_keyed(run, qrels, specs, options, warn, con)

    registry.names()  # the package's engines first
    registry.register(Recording)
    yield calls
    del registry._ENGINES["recording"]


def test_a_registered_engine_is_dispatched_to(recording_engine) -> None:
    """Registering a class is all a new engine needs: evaluate finds it by name, with and
    without by, and the result is its own (here the Polars engine's)."""
    assert "recording" in registry.names()
    assert isinstance(registry.engine("recording"), Engine)
    run = pl.DataFrame(
        {"sys": ["a", "a", "b"], "query": ["q", "q", "q"], "doc": ["x", "y", "x"]}
    ).with_columns(score=pl.Series([2.0, 1.0, 1.0]))
    qrels = pl.DataFrame({"query": ["q"], "doc": ["y"], "relevance": [1]})
    # RR of a: y at rank 2 -> 1/2; of b: no relevant document -> 0
    a = run.filter(pl.col("sys") == "a")
    got = pr.evaluate(a, qrels, ["RR"], engine="recording")  # type: ignore[arg-type]
    assert got.rows() == [(0.5,)]
    by = pr.evaluate(run, qrels, ["RR"], by="sys", engine="recording")  # type: ignore[arg-type]
    assert by.rows() == [("a", 0.5), ("b", 0.0)]
    assert recording_engine == [("evaluate", []), ("evaluate_keyed", [])]


def test_an_engine_refuses_what_it_does_not_implement() -> None:
    class Bare(Engine):
        name = "bare"  # type: ignore[assignment]

    registry.names()
    registry.register(Bare)
    try:
        run = pl.DataFrame({"query": ["q"], "doc": ["a"], "score": [1.0]})
        qrels = pl.DataFrame({"query": ["q"], "doc": ["a"], "relevance": [1]})
        with pytest.raises(pr.PolarsRankError, match="engine 'bare' does not implement evaluate"):
            pr.evaluate(run, qrels, ["P@1"], engine="bare")  # type: ignore[arg-type]
        data = pl.DataFrame({"label": [0, 1], "score": [0.2, 0.8]})
        with pytest.raises(pr.PolarsRankError, match="does not implement evaluate_classification"):
            pr.evaluate_classification(data, ["AUC"], engine="bare")  # type: ignore[arg-type]
    finally:
        del registry._ENGINES["bare"]


def _catalog_names() -> set[str]:
    catalog = pr.metric_catalog()
    aliases = {a for names in catalog["aliases"].to_list() for a in names}
    return set(catalog["name"].to_list()) | aliases


_NAME_WORDS = ("name", "measure", "metric")


def _metric_name_comparisons(source: str, names: set[str]) -> list[int]:
    """Lines comparing a metric's name (an operand that is a variable or attribute called
    ``name``, ``measure`` or ``metric``) with a catalog name or alias."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        literal = any(s in names for operand in operands for s in _strings(operand))
        named = any(
            (isinstance(operand, ast.Name) and operand.id in _NAME_WORDS)
            or (isinstance(operand, ast.Attribute) and operand.attr in _NAME_WORDS)
            for operand in operands
        )
        if literal and named:
            lines.append(node.lineno)
    return lines


def test_the_metric_scan_finds_a_name_comparison() -> None:
    source = (
        "spec.entry.name == 'roc_auc'\nname in ('f1', 'fbeta')\nmetric.cutoff == 'recall'\n"
        "m.measure != 'recall'\n"
    )
    assert _metric_name_comparisons(source, {"roc_auc", "f1", "recall"}) == [1, 2, 4]


#: trec_eval's own rules under ``-c`` name three of its measures (m_num_rel.c counts every
#: grade > 0; iprec_at_recall and 11pt_avg on a ranking left empty): the drop-in's.
_TREC_EVAL_RULES = {"polars_rank/cli/trec_eval.py"}


def test_no_metric_name_comparison_outside_the_catalog() -> None:
    """Code outside catalog/ dispatches through the entry (or a table keyed by its name, as
    ``@builds``), never by comparing a metric's name."""
    names = _catalog_names()
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = str(path.relative_to(PACKAGE.parent))
        if "catalog" in path.relative_to(PACKAGE).parts or where in _TREC_EVAL_RULES:
            continue
        found += [f"{where}:{n}" for n in _metric_name_comparisons(path.read_text("utf-8"), names)]
    assert not found, found


#: SQL in a string: a clause keyword (upper case, as the package writes SQL) or a call of a
#: function the checks use (any case).
_SQL_TEXT = re.compile(
    r"\b(?:SELECT|FROM|WHERE|GROUP BY|HAVING|IS NULL|CAST|OVER)\b"
    r"|(?i:\b(?:count|isnan|isinf|hash|xxhash64|min_by|first|row_number|_pr_id_bytes)\s*\()"
)


def _sql_strings(source: str) -> list[int]:
    """Lines of string literals (f-strings' text included; docstrings and assertions'
    messages, prose, left out) holding SQL."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    } | {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assert) and node.msg is not None
        for part in ast.walk(node.msg)
    }
    return sorted(
        {
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and _SQL_TEXT.search(node.value)
        }
    )


def test_the_sql_scan_finds_sql_text() -> None:
    source = (
        '"""A docstring naming SELECT and FROM."""\n'
        'a = f"SELECT count(*) FROM {t}"\n'
        'b = "x IS NULL OR isnan(x)"\n'
        'c = f"{x} is not sql"\n'
        'd = "hash (a, b)"\n'
        "e = 'column {name!r} has null values: fill them'\n"
        "assert f, 'an aggregate without GROUP BY returns one row'\n"
    )
    assert _sql_strings(source) == [2, 3, 5]


def test_check_sql_is_written_in_the_compiler_only() -> None:
    """The engines' input checks run queries of ``compiler/engine_checks.py`` (and
    ``compiler/checks.py``): no engine's ``checks.py`` writes SQL of its own."""
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted((PACKAGE / "engines").glob("*/checks.py"))
        for line in _sql_strings(path.read_text(encoding="utf-8"))
    ]
    assert not found, found


def test_grouped_recommender_sql_is_written_in_the_compiler_only() -> None:
    """DuckDB's ``by`` path with recommender metrics runs the compiler's queries
    (``compile_query``, ``compiler/engine_warnings.py``'s outside-catalog count) and writes
    no SQL of its own."""
    path = PACKAGE / "engines" / "duckdb" / "grouped_recsys.py"
    assert _sql_strings(path.read_text(encoding="utf-8")) == []
