"""Databricks: Spark SQL (its reserved list too), printed by sqlglot's Databricks dialect."""

from __future__ import annotations

from polars_rank.core.dialects.spark import Spark


class Databricks(Spark):
    name = "databricks"
    title = "Databricks"

    @property
    def reserved_list(self) -> str:
        return "spark"
