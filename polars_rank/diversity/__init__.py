"""Diversity by intent: ndeval's metrics (alpha-nDCG, ERR-IA, NRBP, P-IA, subtopic recall)
over qrels with a subtopic column; :func:`polars_rank.evaluate_diversity` evaluates them.

>>> from polars_rank.diversity import parse_diversity_metric
>>> parse_diversity_metric("NRBP").name
'nrbp'
"""

from polars_rank.diversity.names import parse_diversity_metric

__all__ = ["parse_diversity_metric"]
