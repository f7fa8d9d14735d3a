"""Recommender metrics (and any ranking metrics asked with them) evaluated by the compiled SQL of
:func:`polars_rank.to_sql` in an engine that runs SQL (Spark, ClickHouse), with the recommender
inputs (``interactions``, ``catalog``, ``item_features``): written once for any
:class:`~polars_rank.engines.compiled.SqlEngine`.

The engine holds every input as a table (:class:`~polars_rank.engines.compiled.Table`). The
run and the judgments are checked by :func:`polars_rank.engines.sql_checks.check_tables`, the
recommender inputs by one count each (:func:`check_inputs`), with the other engines' messages
(without the first row: an engine's table has no row order of its own). The warnings are the
other engines': run queries without judgments, recommended items outside an explicit catalog
(counted by :func:`~polars_rank.compiler.engine_warnings.outside_catalog_sql`). Item features
are vectors, categories or a similarity table, read as the other engines read them
(:func:`polars_rank.recsys.features.item_features`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.catalog.recommender_inputs import (
    GivenTable,
    check_request,
    largest_cutoff,
    recommender_specs,
    same_dtype,
    warn_outside_catalog,
)
from polars_rank.compiler import compile_query
from polars_rank.compiler import engine_checks as queries
from polars_rank.compiler.columns import metric_outputs
from polars_rank.compiler.engine_warnings import outside_catalog_sql
from polars_rank.core import grouping
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.judged import empty_qrels
from polars_rank.core.options import Options
from polars_rank.engines import sql_checks
from polars_rank.engines.compiled import (
    LEFT_OUT,
    SqlEngine,
    Table,
    left_out_count,
    left_out_in,
    polars_result,
)

#: The recommender inputs, in the order they are read and checked.
INPUTS = ("interactions", "catalog", "item_features")


def given_inputs(recommender: Mapping[str, Any], doc: str) -> dict[str, Any]:
    """The recommender inputs given (not None), a catalog given as a Polars Series of ids as a
    one-column frame named ``doc``."""
    given = {name: obj for name, obj in recommender.items() if obj is not None}
    catalog = given.get("catalog")
    if isinstance(catalog, pl.Series):
        given["catalog"] = catalog.rename(doc).to_frame()
    return given


def _feature_kind(schema: pl.Schema, doc: str) -> tuple[str, str | None]:
    """The kind of item features (as :func:`polars_rank.recsys.features.item_features` reads
    a frame) and its vector or category column."""
    from polars_rank.recsys.features import item_features

    kind = item_features(pl.LazyFrame(schema=schema), doc=doc)
    return kind.kind, kind.column


def _count(engine: SqlEngine, table: str, condition: str) -> int:
    """The rows of ``table`` (a table reference) where ``condition`` holds."""
    sql = queries.count_where_sql(engine.dialect, sql_checks.source(engine, table), condition)
    return int(engine.rows(sql)[0]["n"] or 0)


def check_inputs(
    engine: SqlEngine,
    tables: Mapping[str, str],
    query: str,
    doc: str,
    vector: str | None,
    kind: str | None = None,
    features_by: Sequence[str] = (),
) -> None:
    """The recommender inputs' checks (:func:`~polars_rank.catalog.recommender_inputs.
    validate_inputs`) on the engine's ``tables`` (table references by input name), with the
    same messages (without the first row)."""
    d = engine.dialect
    if "interactions" in tables:
        n = _count(engine, tables["interactions"], queries.null_id(d, query, doc))
        if n:
            raise PolarsRankError(f"interactions has {n} row(s) with a null query or doc id")
    if "catalog" in tables:
        n = _count(engine, tables["catalog"], queries.null_value(d, doc))
        if n:
            raise PolarsRankError(f"catalog has {n} null doc id(s)")
    if "item_features" not in tables or vector is None:
        return
    table = tables["item_features"]
    if kind == "similarities":
        bad = " OR ".join(
            [queries.null_value(d, "doc_a"), queries.null_value(d, "doc_b"),
             queries.bad_number(d, "similarity")]
        )  # fmt: skip
        n = _count(engine, table, bad)
        if n:
            raise PolarsRankError(
                f"item_features has {n} row(s) with a null doc_a, doc_b or similarity, "
                "or a NaN similarity"
            )
        return
    n = _count(engine, table, queries.null_value(d, doc))
    if n:
        raise PolarsRankError(f"item_features has {n} null doc id(s)")
    if kind == "categories":
        n = _count(engine, table, queries.null_value(d, vector))
        if n:
            raise PolarsRankError(f"item_features column {vector!r} has {n} null categories")
        return
    source = sql_checks.source(engine, table)
    lengths = [row["n"] for row in engine.rows(queries.vector_lengths_sql(d, source, vector))]
    if len(lengths) > 1:
        raise PolarsRankError(
            f"item_features column {vector!r} holds vectors of different lengths {lengths}; "
            "every vector must have the same length"
        )
    n = _count(engine, table, queries.bad_component(d, vector))
    if n:
        raise PolarsRankError(
            f"item_features column {vector!r} has {n} vector(s) with a null or NaN component"
        )
    # one vector per (group's) item
    rows = engine.rows(queries.repeated_item_sql(d, source, doc, features_by))
    if rows:
        raise PolarsRankError(
            f"item_features has {rows[0]['n']} item(s) with more than one vector, e.g. doc "
            f"{rows[0]['doc']!r}"
        )


def evaluate_recommender_tables(
    engine: SqlEngine,
    run: Table,
    qrels: Table | None,
    given: Mapping[str, Table],
    specs: list[MetricSpec],
    options: Options,
    *,
    per_query: bool,
    warn: Callable[[int], None],
    by: Sequence[str] = (),
) -> pl.DataFrame:
    """Evaluate ranking and recommender ``specs`` over the engine's tables: the run, the
    judgments (None: metrics that read none) and the recommender inputs ``given`` (by name,
    :data:`INPUTS`); the other engines' result, warnings and errors (see
    :func:`polars_rank.evaluate`). ``options`` unordered, not yet resolved. With ``by`` (the
    SQL of ``to_sql(..., by=)``): the qrels, interactions, catalog and item features join the
    groups on the ``by`` columns they have; the warning about recommended items outside an
    explicit catalog counts the (group, item) pairs the group's catalog lacks."""
    qrels_schema = (
        qrels.schema if qrels is not None else empty_qrels(run.schema, options).collect_schema()
    )
    options = options.resolve(run.schema, qrels_schema)
    cols = options.columns
    by = list(by)
    input_by: dict[str, list[str]] = {}
    if by:
        judged = qrels_schema if qrels is not None else None
        grouping.check_by(by, run.schema, judged, options, metric_outputs(specs))
        input_by["qrels"] = [c for c in by if qrels is not None and c in qrels_schema]
    vector, kind = None, None
    for name, table in given.items():
        schema = table.schema
        if by:
            input_by[name] = grouping.check_shared(by, run.schema, schema, name.replace("_", " "))
        if name == "interactions":
            same_dtype(name, schema, cols.query, cols.query, run.schema[cols.query])
        if name == "item_features":
            own = pl.Schema({c: t for c, t in schema.items() if c not in input_by.get(name, [])})
            kind, vector = _feature_kind(own, cols.doc)
            if kind == "similarities":
                vector = "similarity"
                for column in ("doc_a", "doc_b"):
                    same_dtype(name, schema, cols.doc, column, run.schema[cols.doc])
                continue
        same_dtype(name, schema, cols.doc, cols.doc, run.schema[cols.doc])
    check_request(
        specs,
        per_query=per_query,
        has_qrels=qrels is not None,
        given=set(given),
        feature_kind=kind,
        shown=GivenTable(),
    )
    references = {name: table.reference for name, table in given.items()}
    left_out_column = LEFT_OUT if cols.query.lower() != LEFT_OUT else f"{LEFT_OUT}_n"
    shared = input_by.get("qrels", [])
    if options.validate:
        if qrels is not None:
            sql_checks.check_tables(
                engine, run.reference, qrels.reference, options, by=by, qrels_by=shared
            )
        check_inputs(engine, references, cols.query, cols.doc, vector, kind,
                     features_by=input_by.get("item_features", []))  # fmt: skip
    for name in ("run", *given) if by else ():
        reference = run.reference if name == "run" else references[name]
        for column in by if name == "run" else input_by.get(name, []):
            if _count(engine, reference, queries.null_value(engine.dialect, column)):
                raise PolarsRankError(
                    f"by column {column!r} of the {name} has null values: a group must be "
                    "named (fill them, or filter those rows out)"
                )
    sql = compile_query(
        specs,
        engine.dialect.name,
        options,
        run.reference,
        qrels.reference if qrels is not None else None,
        interactions=references.get("interactions"),
        catalog=references.get("catalog"),
        item_features=references.get("item_features"),
        vector=vector if kind == "vectors" and vector else "vector",
        features=kind or "vectors",
        category=vector if kind == "categories" and vector else "category",
        per_query=per_query,
        by=by or None,
        qrels_by=shared,
        interactions_by=input_by.get("interactions", []),
        catalog_by=input_by.get("catalog", []),
        item_features_by=input_by.get("item_features", []),
        left_out_column=left_out_column if qrels is not None else None,
    )
    result = engine.result(sql)
    outside = 0
    with_catalog = [s for s in recommender_specs(specs) if "catalog" in s.entry.tables]
    if "catalog" in references and with_catalog:
        counted = outside_catalog_sql(
            engine.dialect,
            sql_checks.source(engine, run.reference),
            sql_checks.source(engine, references["catalog"]),
            options,
            largest_cutoff(with_catalog),
            by,
            input_by.get("catalog", []),
            sql_checks.source(engine, qrels.reference) if qrels is not None else None,
            shared,
        )
        outside = int(next(iter(engine.rows(counted)[0].values())) or 0)
    if qrels is not None:
        if result.height:
            left_out = left_out_in(result, left_out_column, per_query=per_query)
        else:  # no query to evaluate: count the run's queries apart
            left_out = left_out_count(
                engine, run.reference, qrels.reference, [*by, cols.query], shared
            )
        warn(left_out)
    warn_outside_catalog(outside, [s.label for s in with_catalog], stacklevel=4)
    return polars_result(result, specs, run.schema, cols.query, by, per_query, left_out_column)
