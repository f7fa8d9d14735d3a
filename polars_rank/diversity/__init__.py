"""Diversity by intent: ndeval's metrics (alpha-nDCG, ERR-IA, NRBP, P-IA, subtopic recall)
over qrels with a subtopic column. :mod:`.metrics` holds their formulas (the catalog's
diversity entries point at them), :mod:`.ideal` the greedy ideal ranking, :mod:`.plan` the
Polars plan; :func:`polars_rank.evaluate_diversity` evaluates them.

>>> from polars_rank.diversity.metrics import p_ia
>>> p_ia(5, alpha=0.5, beta=0.5).reads
'hits'
"""
