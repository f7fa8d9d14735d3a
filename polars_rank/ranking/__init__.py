"""Ranking evaluation: conventions, options, the judged table, metrics, their registry and
names, and the engines that evaluate them.

Data flows one way: inputs → :class:`~.options.Options` (checked once) → the judged table
(:mod:`.judged`, ordering and judging from :mod:`.conventions`) → metrics (:mod:`.metrics`,
listed in :mod:`.registry`, named by :mod:`.names`) → per-query values and their summary
(:mod:`.engines`). The same metrics compile to portable SQL for warehouses and Spark
(:mod:`.sql`).
"""

from polars_rank.ranking.evaluate import evaluate, evaluate_runs
from polars_rank.ranking.judged import judge
from polars_rank.ranking.names import MetricSpec, parse_metric, parse_metrics, valid_names
from polars_rank.ranking.options import Options
from polars_rank.ranking.registry import REGISTRY, Metric
from polars_rank.ranking.sql import to_sql

__all__ = [
    "REGISTRY",
    "Metric",
    "MetricSpec",
    "Options",
    "evaluate",
    "evaluate_runs",
    "judge",
    "parse_metric",
    "parse_metrics",
    "to_sql",
    "valid_names",
]
