"""polars_rank: ranking and recommender evaluation as Polars expressions and DuckDB SQL macros,
with trec_eval's exact numbers.

>>> import polars as pl, polars_rank as pr
>>> run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
>>> pr.evaluate(run, qrels, ["nDCG@10", "RR"]).select(pl.all().round(4)).rows()
[(0.6309, 0.5)]
"""

from polars_rank import (
    classification,
    comparison,
    diversity,
    duckdb,
    policy,
    ranking,
    ratings,
    recsys,
)
from polars_rank.catalog import metric_catalog
from polars_rank.catalog.names import MetricSpec, parse_metric, valid_names
from polars_rank.comparison import compare, compare_per_query
from polars_rank.compiler import check_sql, to_sql
from polars_rank.compiler.classification import curve_sql
from polars_rank.compiler.fusion import fusion_sql
from polars_rank.compiler.policy import policy_sql
from polars_rank.compiler.rating import rating_sql
from polars_rank.compiler.slate import slate_policy_sql
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.judged import judge
from polars_rank.evaluation import (
    evaluate,
    evaluate_classification,
    evaluate_diversity,
    evaluate_policy,
    evaluate_ratings,
    evaluate_runs,
    evaluate_slate_policy,
    fuse,
)
from polars_rank.io import read_trec_qrels, read_trec_run, write_trec_run
from polars_rank.ranking import *  # noqa: F403  (every ranking expression, see ranking/__init__)
from polars_rank.recsys.vectors import intra_list_diversity, serendipity

__version__ = "0.1.0"

__all__ = [
    "check_sql",
    "MetricSpec",
    "PolarsRankError",
    "classification",
    "compare",
    "compare_per_query",
    "curve_sql",
    "comparison",
    "diversity",
    "duckdb",
    "evaluate",
    "evaluate_classification",
    "evaluate_diversity",
    "evaluate_policy",
    "evaluate_ratings",
    "evaluate_runs",
    "evaluate_slate_policy",
    "fuse",
    "fusion_sql",
    "intra_list_diversity",
    "judge",
    "metric_catalog",
    "parse_metric",
    "policy",
    "policy_sql",
    "ranking",
    "ratings",
    "rating_sql",
    "slate_policy_sql",
    "read_trec_qrels",
    "read_trec_run",
    "recsys",
    "serendipity",
    "to_sql",
    "valid_names",
    "write_trec_run",
]
__all__ += ranking.__all__
