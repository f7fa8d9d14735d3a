"""polars_rank: ranking and recommender evaluation as Polars expressions and DuckDB SQL macros,
with trec_eval's exact numbers.

>>> import polars as pl, polars_rank as pr
>>> run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
>>> pr.evaluate(run, qrels, ["nDCG@10", "RR"]).select(pl.all().round(4)).rows()
[(0.6309, 0.5)]
"""

from polars_rank import classification, comparison, duckdb, ranking
from polars_rank._errors import PolarsRankError
from polars_rank.comparison import compare, compare_per_query
from polars_rank.io import read_trec_qrels, read_trec_run, write_trec_run
from polars_rank.ranking import (
    MetricSpec,
    evaluate,
    evaluate_runs,
    judge,
    parse_metric,
    to_sql,
    valid_names,
)
from polars_rank.ranking.metrics import (
    average_precision,
    bpref,
    dcg,
    eleven_pt_avg,
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
    recall,
    recall_cap,
    reciprocal_rank,
    set_f,
    set_precision,
    set_recall,
    unjudged,
)

__version__ = "0.1.0"

__all__ = [
    "MetricSpec",
    "PolarsRankError",
    "average_precision",
    "bpref",
    "classification",
    "compare",
    "compare_per_query",
    "comparison",
    "dcg",
    "duckdb",
    "eleven_pt_avg",
    "evaluate",
    "evaluate_runs",
    "f1",
    "hit_rate",
    "hits",
    "ideal_dcg",
    "iprec_at_recall",
    "judge",
    "judged",
    "judged_fraction",
    "ndcg",
    "num_nonrel_judged_ret",
    "num_q",
    "num_rel",
    "num_rel_ret",
    "num_ret",
    "parse_metric",
    "precision",
    "r_precision",
    "ranking",
    "read_trec_qrels",
    "read_trec_run",
    "recall",
    "recall_cap",
    "reciprocal_rank",
    "set_f",
    "set_precision",
    "set_recall",
    "to_sql",
    "unjudged",
    "valid_names",
    "write_trec_run",
]
