"""Ranking metrics as Polars expressions over the judged table (``rank``, ``relevance``):
:mod:`.metrics` (the common ones), :mod:`.trec_metrics` (trec_eval's other measures) and
:mod:`.gains` (gain tables). Their names, parameters and engines are entries of
:mod:`polars_rank.catalog`; :func:`polars_rank.evaluate` runs them.
"""

from polars_rank.ranking import gains as gains
from polars_rank.ranking import metrics, trec_metrics
from polars_rank.ranking.metrics import *  # noqa: F403
from polars_rank.ranking.trec_metrics import *  # noqa: F403

__all__ = [*metrics.__all__, *trec_metrics.__all__]
