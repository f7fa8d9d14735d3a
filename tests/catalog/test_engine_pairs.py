"""Every (metric, engine) pair of the catalog is implemented or refused with a reason: for each
entry and each target of :data:`~polars_rank.catalog.model.TARGETS`, either the entry gives a
reason (and that target refuses the metric with it), or the target has the metric — the
Polars function, the DuckDB macro(s) registered, the portable SQL compiled for the dialect
(the Spark engine runs the ``spark`` dialect's SQL; so does the DuckDB engine for the rating
metrics, which have no macro). A pair that is neither fails here. The diversity metrics run
on the Polars engine only (the greedy ideal ranking): every other target refuses them."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

import polars_rank as pr
from polars_rank.catalog.model import REQUIRED, TARGETS, Metric
from polars_rank.catalog.registry import entries, scope_of
from polars_rank.core.errors import PolarsRankError

ENTRIES = entries()


def _name(entry: Metric) -> str:
    """A name that parses to ``entry``: its first alias, a cutoff when it needs one, its
    required parameters."""
    name = entry.aliases[0].name
    required = [p for p in entry.params if p.default is REQUIRED]
    if required:
        name += "(" + ",".join(f"{p.name}={(p.examples or ('1',))[-1]}" for p in required) + ")"
    return name + {"required": "@5", "recall": "@0.5"}.get(entry.cutoff, "")


def _compile(entry: Metric, dialect: str) -> str:
    if scope_of(entry) == "classification":
        return pr.to_sql([_name(entry)], dialect, predictions="p_t", group="user")
    if scope_of(entry) == "rating":
        return pr.rating_sql([_name(entry)], dialect, "r_t", "p_t", by="market")
    return pr.to_sql(
        [_name(entry)],
        dialect,
        "run_t",
        "qrels_t",
        interactions="i_t",
        catalog="c_t",
        item_features="f_t",
    )


@pytest.fixture(scope="module")
def macros() -> set[str]:
    con = pr.duckdb.register(duckdb.connect())
    rows = con.sql(
        "SELECT function_name FROM duckdb_functions() "
        "WHERE function_type IN ('macro', 'table_macro')"
    ).fetchall()
    return {row[0] for row in rows}


def test_reasons_name_known_targets_and_read_as_sentences() -> None:
    for entry in ENTRIES:
        for target, why in entry.unsupported:
            assert target in (*TARGETS, "sql"), (entry.name, target)
            assert len(why) > 30 and ("engine=" in why or "to_sql" in why), (entry.name, why)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e.family}:{e.name}")
def test_every_pair_is_implemented_or_refused(entry: Metric, target: str, macros) -> None:
    why = entry.reason(target)
    if target == "polars":
        assert why is None and callable(entry.polars)
    elif scope_of(entry) == "diversity":  # the Polars engine's plan only, no SQL
        assert why is not None, f"{entry.name}: {target} has no diversity query"
        if not target.startswith("sql:"):
            run = pl.DataFrame({"query": ["q"], "doc": ["d"], "score": [1.0]})
            qrels = pl.DataFrame(
                {"query": ["q"], "subtopic": ["s"], "doc": ["d"], "relevance": [1]}
            )
            with pytest.raises(PolarsRankError) as err:
                pr.evaluate_diversity(run, qrels, [_name(entry)], engine=target)  # type: ignore[arg-type]
            assert f"engine {target!r} does not implement evaluate_diversity: {why}" in str(
                err.value
            )
    elif target == "duckdb" and scope_of(entry) == "rating":  # the compiled SQL, no macro
        assert why is None and "SELECT" in _compile(entry, "duckdb").upper()
    elif target == "duckdb":
        assert why is None
        for macro, _ in entry.sql_macros():
            assert macro.strip('"') in macros, f"{entry.name}: no macro {macro}"
    elif target.startswith("sql:"):
        dialect = target.removeprefix("sql:")
        if why is None:
            assert "SELECT" in _compile(entry, dialect).upper()
        else:
            with pytest.raises(PolarsRankError) as err:
                _compile(entry, dialect)
            assert why in str(err.value)
    else:  # spark and clickhouse run their dialect's SQL
        if why is None:
            assert entry.reason(f"sql:{target}") is None, f"{entry.name}: {target} without SQL"
        elif scope_of(entry) == "evaluate":
            run = pl.DataFrame({"query": ["q"], "doc": ["d"], "score": [1.0]})
            qrels = pl.DataFrame({"query": ["q"], "doc": ["d"], "relevance": [1]})
            with pytest.raises(PolarsRankError) as err:  # refused before any session starts
                pr.evaluate(run, qrels, [_name(entry)], engine=target, per_query=True)
            head = why.partition(":")[0]
            assert head in str(err.value)
