"""The names of the diversity metrics: ndeval's spellings (``alpha-nDCG@20``, ``ERR-IA@20``,
``NRBP``, ...) and snake case (``alpha_ndcg@20``, ``err_ia@20``, ``nrbp``), case-insensitive.

>>> parse_diversity_metric("alpha-nDCG@20")
DiversityMetric(label='alpha-nDCG@20', name='alpha_ndcg', k=20)
"""

from __future__ import annotations

from dataclasses import dataclass

from polars_rank.core.errors import PolarsRankError

#: Metrics read at a cutoff ``@k`` (k ≥ 1).
AT_K = ("alpha_dcg", "alpha_ndcg", "err_ia", "nerr_ia", "p_ia", "subtopic_recall")
#: Metrics of the whole ranking (no cutoff).
WHOLE = ("nrbp", "nnrbp")
#: Metrics divided by the greedy ideal ranking's value.
NORMALISED = ("alpha_ndcg", "nerr_ia", "nnrbp")
#: Other spellings (lower case, ``-`` as ``_``) of a name.
_ALIASES = {"strec": "subtopic_recall", "s_recall": "subtopic_recall"}


@dataclass(frozen=True)
class DiversityMetric:
    """One requested metric: ``label`` as written (the output column), ``name`` the
    canonical name, ``k`` its cutoff (``None`` for NRBP and nNRBP)."""

    label: str
    name: str
    k: int | None


def parse_diversity_metric(label: object) -> DiversityMetric:
    """``label`` parsed, or a :class:`PolarsRankError` naming it and the valid names."""
    if not isinstance(label, str) or not label.strip():
        raise PolarsRankError(f"a diversity metric name must be a non-empty string, got {label!r}")
    head, at, tail = label.strip().partition("@")
    name = head.lower().replace("-", "_")
    name = _ALIASES.get(name, name)
    valid = f"valid names: {', '.join(n + '@k' for n in AT_K)}, {', '.join(WHOLE)}"
    if name in WHOLE:
        if at:
            raise PolarsRankError(f"diversity metric {label!r} takes no cutoff ({valid})")
        return DiversityMetric(label, name, None)
    if name not in AT_K:
        raise PolarsRankError(f"unknown diversity metric {label!r} ({valid})")
    if not at:
        raise PolarsRankError(f"diversity metric {label!r} needs a cutoff, e.g. '{head}@20'")
    if not tail.isdigit() or int(tail) < 1:
        raise PolarsRankError(f"diversity metric {label!r}: the cutoff must be an integer ≥ 1")
    return DiversityMetric(label, name, int(tail))


def parse_diversity_metrics(metrics: object) -> list[DiversityMetric]:
    """One metric name or a sequence of them, parsed; labels must differ."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)  # type: ignore[call-overload]
    if not names:
        raise PolarsRankError("metrics is empty: name at least one diversity metric")
    parsed = [parse_diversity_metric(n) for n in names]
    labels = [m.label for m in parsed]
    if len(set(labels)) < len(labels):
        raise PolarsRankError(f"the metrics {labels} name one metric twice")
    return parsed
