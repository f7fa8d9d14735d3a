"""``evaluate(..., engine="spark", interactions=, catalog=, item_features=)``: the recommender
metrics (and any ranking metrics asked with them) as the portable SQL of
:func:`polars_rank.to_sql`, run in Spark; only the result rows come back.

Every input may be a PySpark DataFrame, a table or view name, or a Polars frame (sent through
Arrow); the catalog also a Polars Series of ids. The inputs are registered as temporary
views (dropped afterwards) and checked in Spark as the other engines check them: the run and
qrels by :func:`~polars_rank.engines.spark.checks.check_spark`, the recommender inputs for
null ids (and null or NaN vector components) by one aggregation each. The warnings are the
other engines': run queries without judgments, recommended items outside an explicit
catalog (counted by :func:`~polars_rank.compiler.engine_warnings.outside_catalog_sql`).
Item features are vectors, categories or a similarity table, read as the other engines read
them (:func:`polars_rank.recsys.features.item_features`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.catalog.recommender_inputs import (
    GivenTable,
    check_request,
    largest_cutoff,
    recommender_specs,
    warn_outside_catalog,
)
from polars_rank.compiler import column_names, compile_query
from polars_rank.compiler.columns import metric_outputs
from polars_rank.compiler.engine_warnings import outside_catalog_sql
from polars_rank.core import grouping, messages
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.frames import from_arrow
from polars_rank.core.judged import empty_qrels
from polars_rank.core.options import Options
from polars_rank.engines.compiled import LEFT_OUT
from polars_rank.engines.spark.checks import check_spark, quoted
from polars_rank.engines.spark.ranking import _session, _spark_frame, _temp_views

if TYPE_CHECKING:
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql import SparkSession


def _same_dtype(what: str, schema: pl.Schema, column: str, run_dtype: pl.DataType) -> None:
    if column not in schema:
        raise messages.missing_column(what, column, list(schema.names()))
    if schema[column] != run_dtype:
        raise PolarsRankError(
            f"run's doc or query column is {run_dtype} but {what} column {column!r} is "
            f"{schema[column]}; ids must have the same dtype in both (cast one of them)"
        )


def _feature_kind(schema: pl.Schema, doc: str) -> tuple[str, str | None]:
    """The kind of item features (as :func:`polars_rank.recsys.features.item_features` reads
    a frame) and its vector or category column."""
    from polars_rank.recsys.features import item_features

    kind = item_features(pl.LazyFrame(schema=schema), doc=doc)
    return kind.kind, kind.column


def _count(spark: SparkSession, sql: str) -> int:
    return int(spark.sql(sql).collect()[0][0] or 0)


def _check_inputs(
    spark: SparkSession,
    views: Mapping[str, str],
    query: str,
    doc: str,
    vector: str | None,
    kind: str | None = None,
    features_by: Sequence[str] = (),
) -> None:
    """The recommender inputs' checks (:func:`~polars_rank.catalog.recommender_inputs.
    validate_inputs`), with the same messages (without the first row: a Spark table has no
    row order)."""
    q, d = quoted(query), quoted(doc)
    if "interactions" in views:
        n = _count(
            spark,
            f"SELECT COUNT(*) FROM {quoted(views['interactions'])} WHERE {q} IS NULL "
            f"OR {d} IS NULL",
        )
        if n:
            raise PolarsRankError(f"interactions has {n} row(s) with a null query or doc id")
    if "catalog" in views:
        n = _count(spark, f"SELECT COUNT(*) FROM {quoted(views['catalog'])} WHERE {d} IS NULL")
        if n:
            raise PolarsRankError(f"catalog has {n} null doc id(s)")
    if "item_features" in views and vector is not None:
        table = quoted(views["item_features"])
        if kind == "similarities":
            n = _count(
                spark,
                f"SELECT COUNT(*) FROM {table} WHERE doc_a IS NULL OR doc_b IS NULL OR "
                "similarity IS NULL OR isnan(CAST(similarity AS DOUBLE))",
            )
            if n:
                raise PolarsRankError(
                    f"item_features has {n} row(s) with a null doc_a, doc_b or similarity, "
                    "or a NaN similarity"
                )
            return
        n = _count(spark, f"SELECT COUNT(*) FROM {table} WHERE {d} IS NULL")
        if n:
            raise PolarsRankError(f"item_features has {n} null doc id(s)")
        v = quoted(vector)
        if kind == "categories":
            n = _count(spark, f"SELECT COUNT(*) FROM {table} WHERE {v} IS NULL")
            if n:
                raise PolarsRankError(f"item_features column {vector!r} has {n} null categories")
            return
        n = _count(
            spark,
            f"SELECT COUNT(*) FROM {table} WHERE EXISTS({v}, x -> x IS NULL "
            "OR isnan(CAST(x AS DOUBLE)))",
        )
        if n:
            raise PolarsRankError(
                f"item_features column {vector!r} has {n} vector(s) with a null or NaN component"
            )
        keys = "".join(f"{quoted(c)}, " for c in features_by)  # one vector per group's item
        row = spark.sql(
            f"SELECT COUNT(*) OVER () AS n, CAST({d} AS STRING) AS doc FROM {table} "
            f"GROUP BY {keys}{d} HAVING COUNT(*) > 1 LIMIT 1"
        ).collect()
        if row:
            raise PolarsRankError(
                f"item_features has {row[0]['n']} item(s) with more than one vector, e.g. doc "
                f"{row[0]['doc']!r}"
            )


def evaluate_spark_recommender(
    run: Any,
    qrels: Any,
    specs: list[MetricSpec],
    options: Options,
    *,
    per_query: bool,
    recommender: Mapping[str, Any],
    con: SparkSession | None = None,
    warn: Callable[[int], None] = messages.warn_left_out_here,
    by: Sequence[str] = (),
) -> pl.DataFrame | pl.LazyFrame:
    """Evaluate ranking and recommender ``specs`` in Spark with the recommender inputs
    (``interactions``, ``catalog``, ``item_features``): the other engines' result, warnings
    and errors (see :func:`polars_rank.evaluate`). With ``by`` (the SQL of
    ``to_sql(..., by=)``): the qrels, interactions, catalog and item features join the
    groups on the ``by`` columns they have; the warning about recommended items outside an
    explicit catalog counts the (group, item) pairs the group's catalog lacks."""
    refused: dict[str, list[str]] = {}
    for spec in specs:
        why = spec.entry.reason("spark")
        if why is not None:
            refused.setdefault(why, []).append(spec.label)
    for why, labels in refused.items():
        head, _, tail = why.partition(":")
        raise PolarsRankError(f"engine='spark' {head} ({', '.join(labels)}):{tail}")
    options = options.unordered("engine='spark'")
    lazy_out = isinstance(run, pl.LazyFrame)
    given = {name: obj for name, obj in recommender.items() if obj is not None}
    if isinstance(given.get("catalog"), pl.Series):
        given["catalog"] = cast("pl.Series", given["catalog"]).rename(options.columns.doc)
        given["catalog"] = given["catalog"].to_frame()
    spark = _session(con, run, qrels, *given.values())
    run_df, run_schema, _ = _spark_frame(spark, run, "run")
    frames: dict[str, SparkDataFrame] = {"run": run_df}
    if qrels is not None:
        qrels_df, qrels_schema, _ = _spark_frame(spark, qrels, "qrels")
        frames["qrels"] = qrels_df
    else:
        qrels_schema = empty_qrels(run_schema, options).collect_schema()
    options = options.resolve(run_schema, qrels_schema)
    cols = options.columns
    by = list(by)
    input_by: dict[str, list[str]] = {}
    if by:
        judged = qrels_schema if qrels is not None else None
        grouping.check_by(by, run_schema, judged, options, metric_outputs(specs))
        input_by["qrels"] = [c for c in by if qrels is not None and c in qrels_schema]
    vector, kind = None, None
    for name, obj in given.items():
        frame, schema, _ = _spark_frame(spark, obj, name)
        frames[name] = frame
        if by:
            what = name.replace("_", " ")
            input_by[name] = grouping.check_shared(by, run_schema, schema, what)
        if name == "interactions":
            _same_dtype(name, schema, cols.query, run_schema[cols.query])
        if name == "item_features":
            own = pl.Schema({c: t for c, t in schema.items() if c not in input_by.get(name, [])})
            kind, vector = _feature_kind(own, cols.doc)
            if kind == "similarities":
                vector = "similarity"
                for column in ("doc_a", "doc_b"):
                    _same_dtype(name, schema, column, run_schema[cols.doc])
                continue
        _same_dtype(name, schema, cols.doc, run_schema[cols.doc])
    check_request(
        specs,
        per_query=per_query,
        has_qrels=qrels is not None,
        given=set(given),
        feature_kind=kind,
        shown=GivenTable(),
    )
    left_out_column = LEFT_OUT if cols.query.lower() != LEFT_OUT else f"{LEFT_OUT}_n"
    with _temp_views(spark, **frames) as views:
        if options.validate:
            if qrels is not None:
                check_spark(spark, views["run"], views["qrels"], options, by=by,
                            qrels_by=input_by.get("qrels", []))  # fmt: skip
            _check_inputs(spark, views, cols.query, cols.doc, vector, kind,
                          features_by=input_by.get("item_features", []))  # fmt: skip
        for name in ("run", "interactions", "catalog", "item_features") if by else ():
            for column in [*by] if name == "run" else input_by.get(name, []):
                nulls = _count(
                    spark, f"SELECT COUNT(*) FROM {quoted(views[name])} WHERE "
                    f"{quoted(column)} IS NULL",
                )  # fmt: skip
                if nulls:
                    raise PolarsRankError(
                        f"by column {column!r} of the {name} has null values: a group must be "
                        "named (fill them, or filter those rows out)"
                    )
        sql = compile_query(
            specs,
            "spark",
            options,
            quoted(views["run"]),
            quoted(views["qrels"]) if qrels is not None else None,
            interactions=quoted(views["interactions"]) if "interactions" in views else None,
            catalog=quoted(views["catalog"]) if "catalog" in views else None,
            item_features=quoted(views["item_features"]) if "item_features" in views else None,
            vector=vector if kind == "vectors" and vector else "vector",
            features=kind or "vectors",
            category=vector if kind == "categories" and vector else "category",
            per_query=per_query,
            by=by or None,
            qrels_by=input_by.get("qrels", []),  # read from the tables' schemas
            interactions_by=input_by.get("interactions", []),
            catalog_by=input_by.get("catalog", []),
            item_features_by=input_by.get("item_features", []),
            left_out_column=left_out_column if qrels is not None else None,
        )
        result = from_arrow(spark.sql(sql).toArrow())
        outside = 0
        with_catalog = [s for s in recommender_specs(specs) if "catalog" in s.entry.tables]
        if "catalog" in views and with_catalog:
            k = largest_cutoff(with_catalog)
            outside = _count(
                spark,
                outside_catalog_sql(
                    "spark",
                    quoted(views["run"]),
                    quoted(views["catalog"]),
                    options,
                    k,
                    by,
                    input_by.get("catalog", []),
                    quoted(views["qrels"]) if qrels is not None else None,
                    input_by.get("qrels", []),
                ),
            )
        left_out = 0
        if qrels is not None:
            if result.height and left_out_column in result.columns:
                counts = result[left_out_column]  # per group without per_query
                left_out = int((counts.sum() if by and not per_query else counts[0]) or 0)
            else:
                q = quoted(cols.query)
                left_out = _count(
                    spark,
                    f"SELECT COUNT(DISTINCT r.{q}) FROM {quoted(views['run'])} AS r "
                    f"LEFT ANTI JOIN {quoted(views['qrels'])} AS j ON r.{q} = j.{q}",
                )
    if qrels is not None:
        warn(left_out)
    warn_outside_catalog(outside, [s.label for s in with_catalog], stacklevel=3)
    reserved = [*by, cols.query] + ([left_out_column] if qrels is not None else [])
    names = column_names(specs, reserved=reserved)
    if left_out_column in result.columns:
        result = result.drop(left_out_column)
    result = result.rename({v: k for k, v in names.items()})
    labels = [s.label for s in specs]
    result = result.with_columns(pl.col(labels).cast(pl.Float64))
    result = result.with_columns(pl.col(c).cast(run_schema[c]) for c in by)
    if per_query:
        result = result.with_columns(pl.col(cols.query).cast(run_schema[cols.query]))
        result = result.sort([*by, cols.query])
    elif by:
        result = result.sort(by)
    return result.lazy() if lazy_out else result
