"""``evaluate(..., by=[...], engine="duckdb")`` with recommender metrics (ranking metrics
alone: :mod:`.grouped`): every group in one
DuckDB query, the portable SQL of ``to_sql(..., by=)`` (:mod:`polars_rank.compiler.recsys`:
popularity, item tables, counts and catalogs per group; ILD and serendipity per (group,
user)), run on a cursor of the connection.

The inputs arrive as Polars frames (the caller reads DuckDB tables, relations and Parquet
paths into Polars) and are checked here as the Polars engine checks them: the run and the
judgments keyed by (group, query) (duplicates per (group, query, doc)), the recommender
inputs per group (:func:`~polars_rank.engines.polars.ranking.checked_inputs`). The
warnings are the other engines': run queries without judgments (counted by the query),
recommended items outside an explicit catalog (the (group, item) pairs of the runs' top k
that the group's catalog lacks, counted by
:func:`~polars_rank.compiler.engine_warnings.outside_catalog_sql`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.catalog.recommender_inputs import (
    largest_cutoff,
    recommender_specs,
    warn_outside_catalog,
)
from polars_rank.compiler import column_names, compile_query
from polars_rank.compiler.engine_warnings import outside_catalog_sql
from polars_rank.core import grouping
from polars_rank.core.arrow import to_polars
from polars_rank.core.judged import empty_qrels
from polars_rank.core.options import Options
from polars_rank.core.validation import validate
from polars_rank.engines.polars.ranking import checked_inputs

if TYPE_CHECKING:
    import duckdb

#: The names the inputs are registered under on the cursor.
_VIEWS = {
    "run": "pr_by_run",
    "qrels": "pr_by_qrels",
    "interactions": "pr_by_interactions",
    "catalog": "pr_by_catalog",
    "item_features": "pr_by_item_features",
}
_LEFT_OUT = "pr_by_left_out"


def _first_rows(frame: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """The first row of each ``keys`` combination (``duplicates="first"``: the SQL has no
    row order)."""
    return frame.filter(pl.struct(keys).is_first_distinct())


def evaluate_duckdb_by(
    run: pl.DataFrame,
    qrels: pl.DataFrame | None,
    specs: list[MetricSpec],
    options: Options,
    by: list[str],
    groups: pl.DataFrame,
    given: dict[str, Any],
    *,
    per_query: bool,
    con: duckdb.DuckDBPyConnection | None,
    warn: Callable[[int], None],
) -> pl.DataFrame:
    """``evaluate(..., by=by, engine="duckdb")`` with recommender metrics (see the module
    docstring): one row per group of ``groups`` (the run's, sorted), or per (group, query)
    with ``per_query``."""
    from polars_rank.duckdb import session

    cols = options.columns
    query, doc = cols.query, cols.doc
    has_qrels = qrels is not None
    judged = qrels if qrels is not None else empty_qrels(run.schema, options).collect()
    resolved = options.resolve(run.schema, judged.schema)
    checked = checked_inputs(
        given, by, run.schema, resolved, specs, per_query=per_query, has_qrels=has_qrels
    )
    qrels_by = [c for c in by if c in judged.columns]
    if resolved.duplicates == "first":  # the first row of each (group, query, doc)
        run = _first_rows(run, [*by, query, doc])
        judged = _first_rows(judged, [*qrels_by, query, doc])
        resolved = replace(resolved, duplicates="error")
    if resolved.validate:  # keyed by (group, query): the checks are per group
        keyed_run, keyed_qrels = grouping.keyed_inputs(
            run.lazy(), judged.lazy(), by, resolved, groups
        )
        assert keyed_qrels is not None
        if has_qrels and grouping.judges_no_group(judged.lazy(), keyed_qrels):
            # no judgment joins a group: the judgments checked keyed by their own groups
            own = judged.lazy().with_columns(grouping.group_key(qrels_by, query))
            keyed_qrels = own.drop(qrels_by)
        validate(keyed_run, keyed_qrels, resolved, in_memory=True, judgments_given=has_qrels)
    features = checked.resolved.item_features
    kind = None if features is None else features.kind
    vector = None if features is None else features.column
    frames: dict[str, Any] = {"run": run, **({"qrels": judged} if has_qrels else {})}
    frames |= {name: table.collect() for name, table in checked.tables.items()}
    reserved = [*by, query, *([_LEFT_OUT] if has_qrels else [])]
    sql = compile_query(
        specs,
        "duckdb",
        resolved,
        _VIEWS["run"],
        _VIEWS["qrels"] if has_qrels else None,
        interactions=_VIEWS["interactions"] if "interactions" in frames else None,
        catalog=_VIEWS["catalog"] if "catalog" in frames else None,
        item_features=_VIEWS["item_features"] if "item_features" in frames else None,
        vector=vector if kind == "vectors" and vector else "vector",
        features=kind or "vectors",
        category=vector if kind == "categories" and vector else "category",
        per_query=per_query,
        by=by,
        qrels_by=qrels_by,  # read from the tables' schemas
        interactions_by=checked.shared.get("interactions", []),
        catalog_by=checked.shared.get("catalog", []),
        item_features_by=checked.shared.get("item_features", []),
        left_out_column=_LEFT_OUT if has_qrels else None,
    )
    with session(con) as cursor:
        for name, frame in frames.items():
            cursor.register(_VIEWS[name], frame.to_arrow())
        try:
            result = to_polars(cursor.sql(sql))
            with_catalog = [s for s in recommender_specs(specs) if "catalog" in s.entry.tables]
            outside = 0
            if "catalog" in frames and with_catalog:
                k = largest_cutoff(with_catalog)
                shared = checked.shared.get("catalog", [])
                count = outside_catalog_sql(
                    "duckdb", _VIEWS["run"], _VIEWS["catalog"], resolved, k, by, shared,
                    _VIEWS["qrels"] if has_qrels else None, qrels_by,
                )  # fmt: skip
                outside = int(cursor.sql(count).fetchall()[0][0] or 0)
        finally:
            for name in frames:
                cursor.unregister(_VIEWS[name])
    if has_qrels:
        counts = result[_LEFT_OUT] if result.height else pl.Series([0])
        warn(int((counts.sum() if not per_query else counts[0]) or 0))
    warn_outside_catalog(outside, [s.label for s in with_catalog], stacklevel=4)
    names = column_names(specs, reserved=reserved)
    result = result.drop(_LEFT_OUT, strict=False).rename({v: k for k, v in names.items()})
    labels = [s.label for s in specs]
    result = result.with_columns(pl.col(labels).cast(pl.Float64))
    result = result.with_columns(pl.col(c).cast(run.schema[c]) for c in by)
    if per_query:
        result = result.with_columns(pl.col(query).cast(run.schema[query]))
        return result.select(*by, query, *labels).sort([*by, query])
    return result.select(*by, *labels).sort(by)
