"""Classification and click-through metrics (:mod:`polars_rank.classification`): AUC, group
AUC, log loss, average precision, and the thresholded metrics with scikit-learn's conventions;
macros in ``sql/classification.sql``."""

from __future__ import annotations

from polars_rank.catalog.model import Metric, with_family

_ENTRIES: tuple[Metric, ...] = ()

ENTRIES = with_family("classification", _ENTRIES)
