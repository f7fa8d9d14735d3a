"""Portable SQL: every ranking metric as one self-contained ``SELECT`` for Spark / Databricks,
PostgreSQL, BigQuery, Snowflake, Trino or DuckDB, with trec_eval's numbers.

* :mod:`.compiler` — :func:`to_sql`, the public entry point (options checked by
  :class:`~polars_rank.core.options.Options`);
* :mod:`.builders` — one builder per registry metric (:data:`BUILDERS`, keyed by registry name);
* :mod:`.parts` — the building blocks the builders ask for (aggregates, windows, SQL helpers);
* :mod:`.plan` — the query plan (CTEs) around the parts;
* :mod:`.dialects` — rendering for each dialect with sqlglot (imported only when rendering);
* :mod:`.columns` — the output column of each metric (:func:`column_names`);
* :mod:`.checks` — :func:`check_sql`, the engines' input checks as one portable query;
* :mod:`.classification` — the classification metrics (``to_sql(..., predictions=)``) and
  curves (:func:`curve_sql`) over a predictions table.

``evaluate(..., engine="spark")`` (:mod:`polars_rank.engines.spark.ranking`) runs this SQL.
"""

from polars_rank.compiler.builders import BUILDERS
from polars_rank.compiler.checks import check_sql
from polars_rank.compiler.columns import column_names
from polars_rank.compiler.compile import compile_query, to_sql
from polars_rank.compiler.dialects import DIALECTS

__all__ = ["BUILDERS", "DIALECTS", "check_sql", "column_names", "compile_query", "to_sql"]
