"""The metric catalog: one entry per metric of every family, read by every engine.

* :mod:`.model` — what an entry says (:class:`~.model.Metric`, :class:`~.model.Param`, ...);
* :mod:`.ranking`, :mod:`.trec_eval`, :mod:`.recommender`, :mod:`.classification` — the entries,
  one module per family; :mod:`.params` — parameters several entries share;
* :mod:`.registry` — the indexes (by name, by alias, per name space; trec_eval's names);
* :mod:`.names` — the name grammar (``nDCG(gain=exp)@10``, ``P_10``, ``Fbeta(beta=2)``);
* :mod:`.table` — :func:`metric_catalog`, the catalog as a frame.
"""

from polars_rank.catalog.table import metric_catalog

__all__ = ["metric_catalog"]
