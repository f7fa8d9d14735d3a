"""The metric registry against what it describes: each entry's Polars function signature
(``inspect.signature``), its SQL macro's parameters (``duckdb_functions()`` and the macro's
header in ``sql/ranking.sql``), the name parser, and the README's generated tables."""

from __future__ import annotations

import functools
import importlib.util
import inspect
import re
from pathlib import Path

import duckdb
import pytest

import polars_rank as pr
from polars_rank.catalog import registry
from polars_rank.catalog.model import REQUIRED
from polars_rank.catalog.names import parse_metric
from polars_rank.catalog.registry import REGISTRY
from polars_rank.core.sqltext import literal

ROOT = Path(__file__).resolve().parents[2]
SQL_TEXT = "\n".join(path.read_text(encoding="utf-8") for path in pr.duckdb.sql_paths())
ENTRIES = list(registry.metrics())

#: Keyword arguments of the frame-level recommender functions that name columns.
COLUMN_KEYWORDS = {"query", "doc", "rank", "relevance"}


def _macro_headers() -> dict[str, str]:
    """Macro name → the parameter list written in its CREATE MACRO header."""
    found = re.findall(r"CREATE OR REPLACE MACRO (\"?\w+\"?)\((.*?)\) AS", SQL_TEXT, re.S)
    return {name.strip('"'): " ".join(params.split()) for name, params in found}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_polars_signature_matches_the_registry(entry) -> None:
    """Parameter names and defaults of the Polars function are the registry's (columns take
    their own name as default; frame-level functions also take column names, which the
    registry does not list)."""
    signature = inspect.signature(entry.polars)
    got = {
        name: (REQUIRED if p.default is inspect.Parameter.empty else p.default)
        for name, p in signature.parameters.items()
        if not (entry.tables and name in COLUMN_KEYWORDS)
    }
    expected = {
        name: (name if name in entry.columns else default) for name, default in entry.parameters()
    }
    assert got == expected


@functools.cache
def _registered() -> duckdb.DuckDBPyConnection:
    """A connection with every macro registered (once per process; read only)."""
    return pr.duckdb.register(duckdb.connect())


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_sql_macro_parameters_match_the_registry(entry) -> None:
    """Each macro (one per variant of item features), as DuckDB registers it, takes the
    registry's parameters in its order, and its header in sql/*.sql gives the registry's
    defaults."""
    con = _registered()
    for macro, variant in entry.sql_macros():
        name = macro.strip('"')
        rows = con.sql(
            "SELECT parameters FROM duckdb_functions() WHERE function_name = "
            f"{literal(name)} AND function_type IN ('macro', 'table_macro')"
        ).fetchall()
        assert rows, f"no macro {name}"
        assert rows[0][0] == [n for n, _ in entry.parameters(variant)]
        assert _macro_headers()[name] == entry.sql_signature(variant)


def test_every_alias_parses_to_its_metric() -> None:
    for entry in ENTRIES:
        for alias in entry.aliases:
            cut = {"required": "@5", "recall": "@0.5"}.get(entry.cutoff, "")
            spec = parse_metric(alias.name + cut)
            assert spec.metric == entry.name
            assert set(alias.fixed) <= set(spec.params)


def test_explicit_relevance_level_ignores_the_global_one() -> None:
    """RBP is graded unless its own rel= is given: evaluate's relevance_level does not make
    it binary (ir_measures' RBP(p=..) vs RBP(p=..,rel=..)); P takes the global level."""
    assert parse_metric("RBP(p=0.5)").arguments(2)["relevance_level"] is None
    assert parse_metric("RBP(p=0.5,rel=3)").arguments(2)["relevance_level"] == 3
    assert parse_metric("P@5").arguments(2)["relevance_level"] == 2
    assert REGISTRY["rbp"].sql_signature().endswith("relevance_level := NULL")


def test_table_parameters_are_not_passed_to_the_function() -> None:
    """novelty's model and count shape its item table; its expression takes neither."""
    spec = parse_metric("novelty(model=discovery,count=interactions,unknown=zero)@10")
    assert spec.arguments()["model"] == "discovery"
    assert spec.call_arguments() == {"k": 10, "unknown": "zero"}


#: trec_eval measure names whose generic spelling means another metric: ``rbp`` is ir_measures'
#: RBP (raw grades, p = 0.8) for evaluate(), trec_eval's rbp (registry ``trec_rbp``) in the
#: trec_eval drop-in.
TREC_NAMES_WITH_OTHER_MEANINGS = {"rbp"}


def test_trec_eval_names_resolve_through_their_entries() -> None:
    """The trec_eval drop-in resolves each measure through the registry's TrecEval entries,
    with its default cutoffs; where the name is also a generic alias it means the same metric,
    except the documented differences."""
    from polars_rank.cli.trec_eval_measures import select_measures

    for name, (entry, trec) in registry.trec_eval_names().items():
        printed = select_measures([name])
        assert {m.spec.metric for m in printed} == {entry.name}, name
        assert len(printed) == max(1, len(trec.cutoffs))
        alias = registry.ALIASES.get(name.lower())
        if alias is not None and name not in TREC_NAMES_WITH_OTHER_MEANINGS:
            assert alias[0] is entry, name
        if trec.cutoffs and entry.cutoff in ("required", "optional"):
            assert parse_metric(f"{name}_{int(trec.cutoffs[0])}").metric == entry.name


def test_public_functions_are_registered() -> None:
    """Every ranking metric exported at the top level has a registry entry (or is a helper
    listed here), so no metric is left out of the parser and the SQL."""
    helpers = {"judged"}  # the former name of judged_fraction
    registered = {e.polars.__name__ for e in ENTRIES}
    from polars_rank.ranking import trec_metrics

    for name in [*pr.ranking.metrics.__all__, *trec_metrics.__all__]:
        if name.isupper() or name in helpers:
            continue
        assert name in registered, name
        assert getattr(pr, name) is getattr(pr.ranking.metrics, name, None) or getattr(
            pr, name
        ) is getattr(trec_metrics, name)
    assert REGISTRY["gm_map"].polars is pr.average_precision


def test_doc_tables_are_the_catalog() -> None:
    """The metric tables of the docs (and README) are generated from the catalog by
    ``docs/tables.py`` (``uv run python docs/tables.py`` refreshes them); each table is on a
    page; the metric reference has a section for every metric of every family."""
    spec = importlib.util.spec_from_file_location("docs_tables", ROOT / "docs" / "tables.py")
    assert spec is not None and spec.loader is not None
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    for path in tables.pages():
        text = path.read_text(encoding="utf-8")
        assert tables.render(text) == text, f"{path} is stale: uv run python docs/tables.py"
    assert tables.main(["--check"]) == 0
    reference = tables.metric_reference()
    entries = [
        *registry.metrics(),
        *registry.metrics("classification"),
        *registry.metrics("rating"),
        *registry.metrics("diversity"),
    ]
    for entry in entries:
        assert f"{{#{tables.anchor(entry)}}}" in reference, entry.name
        assert f"](#{tables.anchor(entry)})" in reference, entry.name  # in the index
    assert reference.count("\n### ") == len(entries)


def test_metric_reference_shows_names_that_parse() -> None:
    """The reference writes parameters as the parser takes them: every name of a card's
    **written** line and of "Writing a name" parses (``AP(denominator=min)@10``, not the
    ``min(k,R)`` it stands for, which does not), ``rel`` is explained, and "runs on" is stated
    once in the index, on a card only where the metric does not run everywhere."""
    spec = importlib.util.spec_from_file_location("docs_tables", ROOT / "docs" / "tables.py")
    assert spec is not None and spec.loader is not None
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    reference = tables.metric_reference()
    sections = reference.split("\n### ")
    intro = sections[0].split("## Writing a name", 1)[1].split("| family |")[0]
    assert "**`rel`** is the relevance level" in intro
    with pytest.raises(pr.PolarsRankError):
        parse_metric("AP(denominator=min(k,R))@10")
    written = [(n, "evaluate") for n in re.findall(r"`(\w+\([^`]*=[^`]*\)@?[\d.]*)`", intro)]
    for section in sections[1:]:
        heading = section.splitlines()[0]  # "title {#family-name}"
        scope = "classification" if "{#classification-" in heading else "evaluate"
        line = next(x for x in section.splitlines() if x.startswith("- **written**"))
        written += [(n, scope) for n in re.findall(r"`([^`]+)`", line)]
    assert ("AP(denominator=min)@10", "evaluate") in written
    for name, scope in written:
        parse_metric(name, scope)  # raises for a name the parser does not take
    assert parse_metric("AP(denominator=min)@10").params == (("denominator", "min(k,R)"),)
    everywhere = reference.count(" | everywhere |")
    assert everywhere >= 60
    assert reference.count("- **runs on**") == len(sections) - 1 - everywhere
