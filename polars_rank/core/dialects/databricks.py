"""Databricks: Spark SQL (its reserved list too), printed by sqlglot's Databricks dialect.
The catalog's ``sql:spark`` covers it, and dbt's ``databricks`` adapter is written by the
Spark dialect."""

from __future__ import annotations

from polars_rank.core.dialects.spark import Spark


class Databricks(Spark):
    name = "databricks"
    title = "Databricks"

    catalog_target = False

    @property
    def reserved_list(self) -> str:
        return "spark"

    @property
    def dbt_adapters(self) -> tuple[str, ...]:
        return ()
