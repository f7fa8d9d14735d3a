"""polars_rank: ranking and recommender evaluation as Polars expressions and DuckDB SQL macros,
with trec_eval's exact numbers.

>>> import polars as pl, polars_rank as pr
>>> run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
>>> pr.evaluate(run, qrels, ["nDCG@10", "RR"]).select(pl.all().round(4)).rows()
[(0.6309, 0.5)]
"""

from polars_rank import classification, comparison, duckdb, ranking, recsys
from polars_rank.catalog import metric_catalog
from polars_rank.catalog.names import MetricSpec, parse_metric, valid_names
from polars_rank.comparison import compare, compare_per_query
from polars_rank.compiler import to_sql
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.judged import judge
from polars_rank.evaluation import evaluate, evaluate_classification, evaluate_runs
from polars_rank.io import read_trec_qrels, read_trec_run, write_trec_run
from polars_rank.ranking.metrics import (
    average_precision,
    bpref,
    dcg,
    eleven_pt_avg,
    err,
    f1,
    hit_rate,
    hits,
    ideal_dcg,
    iprec_at_recall,
    judged,
    judged_fraction,
    ndcg,
    num_nonrel_judged_ret,
    num_q,
    num_rel,
    num_rel_ret,
    num_ret,
    precision,
    r_precision,
    rbp,
    rbp_residual,
    recall,
    recall_cap,
    reciprocal_rank,
    set_f,
    set_precision,
    set_recall,
    unjudged,
)
from polars_rank.ranking.trec_metrics import (
    binary_g,
    inferred_ap,
    ndcg_rel,
    normalized_gain,
    r_ndcg,
    r_precision_multiple,
    relevance_string,
    set_average_precision,
    set_relative_precision,
    trec_rbp,
    trec_rbp_residual,
    utility,
    yaap,
)
from polars_rank.recsys.vectors import intra_list_diversity, serendipity

__version__ = "0.1.0"

__all__ = [
    "MetricSpec",
    "PolarsRankError",
    "average_precision",
    "binary_g",
    "bpref",
    "classification",
    "compare",
    "compare_per_query",
    "comparison",
    "dcg",
    "duckdb",
    "eleven_pt_avg",
    "err",
    "evaluate",
    "evaluate_classification",
    "evaluate_runs",
    "f1",
    "hit_rate",
    "hits",
    "ideal_dcg",
    "inferred_ap",
    "intra_list_diversity",
    "iprec_at_recall",
    "judge",
    "judged",
    "judged_fraction",
    "metric_catalog",
    "ndcg",
    "ndcg_rel",
    "normalized_gain",
    "num_nonrel_judged_ret",
    "num_q",
    "num_rel",
    "num_rel_ret",
    "num_ret",
    "parse_metric",
    "precision",
    "r_ndcg",
    "r_precision",
    "r_precision_multiple",
    "ranking",
    "rbp",
    "rbp_residual",
    "read_trec_qrels",
    "read_trec_run",
    "recall",
    "recall_cap",
    "recsys",
    "reciprocal_rank",
    "relevance_string",
    "serendipity",
    "set_average_precision",
    "set_f",
    "set_precision",
    "set_recall",
    "set_relative_precision",
    "trec_rbp",
    "trec_rbp_residual",
    "to_sql",
    "unjudged",
    "utility",
    "valid_names",
    "write_trec_run",
    "yaap",
]
