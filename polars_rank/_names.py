"""Metric names: ir_measures' grammar ``Name(param=value)@k``, lower-case aliases and trec_eval
names, parsed into :class:`MetricSpec` objects that build the Polars expression."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

from polars_rank import metrics as m
from polars_rank._errors import PolarsRankError

Aggregate = Literal["mean", "sum", "gmean"]
CutoffKind = Literal["required", "optional", "none", "recall"]


@dataclass(frozen=True)
class Measure:
    """One metric family: how to build it and which parameters it takes."""

    name: str  # canonical, the Python function name
    build: Callable[..., pl.Expr]
    cutoff: CutoffKind
    params: tuple[str, ...] = ()  # extra keyword parameters besides k and rel
    binary: bool = True  # takes a relevance level
    aggregate: Aggregate = "mean"
    defaults: dict[str, Any] = field(default_factory=dict)


def _ap(k=None, **kw):
    return m.average_precision(k, **kw)


MEASURES: dict[str, Measure] = {
    ms.name: ms
    for ms in [
        Measure("precision", m.precision, "required"),
        Measure("recall", m.recall, "optional"),
        Measure("recall_cap", m.recall_cap, "required"),
        Measure("hit_rate", m.hit_rate, "optional"),
        Measure("hits", m.hits, "optional"),
        Measure("reciprocal_rank", m.reciprocal_rank, "optional"),
        Measure("average_precision", _ap, "optional", ("denominator",)),
        Measure("gm_map", _ap, "optional", aggregate="gmean"),
        Measure("ndcg", m.ndcg, "optional", ("gain",), binary=False),
        Measure("dcg", m.dcg, "optional", ("gain",), binary=False),
        Measure("r_precision", lambda **kw: m.r_precision(**kw), "none"),
        Measure("bpref", lambda **kw: m.bpref(**kw), "none"),
        Measure("f1", m.f1, "optional"),
        Measure("judged", m.judged, "optional", binary=False),
        Measure("unjudged", m.unjudged, "required", binary=False),
        Measure(
            "num_ret",
            lambda rank="rank", relevance=None: m.num_ret(rank=rank),
            "none",
            binary=False,
            aggregate="sum",
        ),
        Measure("num_rel", lambda rank="rank", **kw: m.num_rel(**kw), "none", aggregate="sum"),
        Measure("num_rel_ret", lambda **kw: m.num_rel_ret(**kw), "none", aggregate="sum"),
        Measure(
            "num_nonrel_judged_ret",
            lambda **kw: m.num_nonrel_judged_ret(**kw),
            "none",
            aggregate="sum",
        ),
        Measure("num_q", lambda **kw: m.num_q(), "none", binary=False, aggregate="sum"),
        Measure("set_precision", lambda **kw: m.set_precision(**kw), "none"),
        Measure("set_recall", lambda **kw: m.set_recall(**kw), "none"),
        Measure("set_f", lambda beta=1.0, **kw: m.set_f(beta, **kw), "none", ("beta",)),
        Measure("iprec_at_recall", m.iprec_at_recall, "recall"),
        Measure("eleven_pt_avg", lambda **kw: m.eleven_pt_avg(**kw), "none"),
    ]
}

# name (lower case) -> (canonical measure, fixed parameters)
_ALIASES: dict[str, tuple[str, dict[str, Any]]] = {}
_DISPLAY: list[str] = []


def _alias(canonical: str, *names: str, **fixed: Any) -> None:
    for n in names:
        _ALIASES[n.lower()] = (canonical, fixed)
        _DISPLAY.append(n)


_alias("precision", "P", "precision", "prec")
_alias("recall", "R", "recall")
_alias("recall_cap", "recall_cap", "Rcap", "R_cap", "relative_P")
_alias("hit_rate", "Success", "hit_rate", "hitrate", "HR")
_alias("hits", "hits", "Hits")
_alias("reciprocal_rank", "RR", "MRR", "recip_rank", "reciprocal_rank")
_alias("average_precision", "AP", "MAP", "average_precision", "map_cut")
_alias("gm_map", "gm_map", "GMAP", "gm_ap")
_alias("ndcg", "nDCG", "ndcg_cut")
_alias("ndcg", "ndcg_burges", "nDCG_burges", gain="exponential")
_alias("dcg", "DCG")
_alias("dcg", "dcg_burges", gain="exponential")
_alias("r_precision", "Rprec", "r_precision", "R-Prec", "RPrec", "r-precision")
_alias("bpref", "Bpref")
_alias("f1", "F1")
_alias("judged", "Judged")
_alias("unjudged", "unj", "unjudged")
_alias("num_ret", "NumRet", "num_ret")
_alias("num_rel", "NumRel", "num_rel")
_alias("num_rel_ret", "NumRelRet", "num_rel_ret")
_alias("num_nonrel_judged_ret", "num_nonrel_judged_ret")
_alias("num_q", "NumQ", "num_q")
_alias("set_precision", "SetP", "set_P", "set_precision")
_alias("set_recall", "SetR", "set_recall")
_alias("set_f", "SetF", "set_F", "set_f")
_alias("iprec_at_recall", "IPrec", "iprec_at_recall")
_alias("eleven_pt_avg", "11pt_avg", "eleven_pt_avg", "11-pt_avg")

_PARAM_VALUES = {
    "gain": {
        "linear": "linear",
        "exp": "exponential",
        "exponential": "exponential",
        "burges": "exponential",
    },
    "denominator": {"r": "R", "min": "min(k,R)", "min(k,r)": "min(k,R)", "mink": "min(k,R)"},
}

_GRAMMAR = re.compile(
    r"^(?P<name>[A-Za-z0-9_\-]+?)(?:\((?P<params>[^()]*)\))?(?:@(?P<cut>[0-9]*\.?[0-9]+))?$"
)
_TREC_SUFFIX = re.compile(r"^(?P<name>[A-Za-z0-9_\-]+?)[_.](?P<cut>[0-9]*\.?[0-9]+)$")


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric name: the measure, its cutoff and parameters, and the output label."""

    label: str
    measure: str
    k: int | None = None
    recall_level: float | None = None
    relevance_level: float | None = None
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def aggregate(self) -> Aggregate:
        """How per-query values become one number: mean, sum (counts) or geometric mean."""
        return MEASURES[self.measure].aggregate

    def expr(
        self, *, relevance_level: float = 1, rank: str = "rank", relevance: str = "relevance"
    ) -> pl.Expr:
        """The Polars aggregation for this metric, aliased to the label."""
        measure = MEASURES[self.measure]
        kwargs: dict[str, Any] = dict(self.params, rank=rank, relevance=relevance)
        if measure.binary:
            level = self.relevance_level if self.relevance_level is not None else relevance_level
            kwargs["relevance_level"] = level
        if measure.cutoff == "recall":
            return measure.build(self.recall_level, **kwargs).alias(self.label)
        if measure.cutoff != "none":
            return measure.build(self.k, **kwargs).alias(self.label)
        return measure.build(**kwargs).alias(self.label)


def valid_names() -> str:
    """A short list of the accepted metric names, for error messages and ``--help``."""
    return ", ".join(sorted(set(_DISPLAY), key=str.lower))


def _unknown(label: str, why: str) -> PolarsRankError:
    return PolarsRankError(
        f"{why} in metric {label!r}. Valid names (case-insensitive; add @k for a cutoff, "
        f"(rel=2) for a relevance level, (gain=exp) for exponential gain): {valid_names()}"
    )


def _parse_value(measure: str, key: str, raw: str, label: str) -> Any:
    raw = raw.strip().strip("'\"")
    if key in _PARAM_VALUES:
        value = _PARAM_VALUES[key].get(raw.lower())
        if value is None:
            choices = sorted(set(_PARAM_VALUES[key]))
            raise _unknown(label, f"bad value {raw!r} for {key} (choose from {choices})")
        return value
    try:
        number = float(raw)
    except ValueError:
        raise _unknown(label, f"parameter {key} needs a number, got {raw!r}") from None
    return number


def parse_metric(label: str) -> MetricSpec:
    """Parse one metric name.

    Accepted forms: ir_measures' ``nDCG@10``, ``P(rel=2)@5``, ``AP``, ``IPrec@0.1``,
    ``SetF(beta=0.5)``; aliases such as ``ndcg@10``, ``mrr@10``, ``map@100``, ``recall_cap@10``,
    ``ndcg_burges@10``, ``r_precision``, ``f1@10``; trec_eval names such as ``ndcg_cut.10``,
    ``P_10``, ``recip_rank``, ``map_cut_100``, ``iprec_at_recall_0.10``.

    >>> parse_metric("nDCG@10").k
    10
    """
    if not isinstance(label, str) or not label.strip():
        raise PolarsRankError(f"a metric name must be a non-empty string, got {label!r}")
    text = label.strip()
    match = _GRAMMAR.match(text)
    name = match.group("name") if match else None
    if match is None or (name.lower() not in _ALIASES and match.group("cut") is None):
        # trec_eval style: P_10, ndcg_cut.10, iprec_at_recall_0.10
        trec = _TREC_SUFFIX.match(text)
        if trec and trec.group("name").lower() in _ALIASES:
            name, params_text, cut = trec.group("name"), None, trec.group("cut")
        elif match is None:
            raise _unknown(label, "cannot parse")
        else:
            name, params_text, cut = name, match.group("params"), match.group("cut")
    else:
        params_text, cut = match.group("params"), match.group("cut")
    entry = _ALIASES.get(name.lower())
    if entry is None:
        raise _unknown(label, f"unknown name {name!r}")
    canonical, fixed = entry
    measure = MEASURES[canonical]
    params: dict[str, Any] = dict(fixed)
    relevance_level: float | None = None
    if params_text:
        for item in params_text.split(","):
            if not item.strip():
                continue
            if "=" not in item:
                raise _unknown(label, f"parameter {item.strip()!r} is not key=value")
            key, raw = (s.strip() for s in item.split("=", 1))
            key = key.lower()
            if key == "rel" and measure.binary:
                relevance_level = _parse_value(canonical, key, raw, label)
            elif key in ("cutoff", "k") and measure.cutoff in ("required", "optional"):
                cut = raw
            elif key == "recall" and measure.cutoff == "recall":
                cut = raw
            elif key in measure.params:
                params[key] = _parse_value(canonical, key, raw, label)
            else:
                allowed = (["rel"] if measure.binary else []) + list(measure.params)
                if measure.cutoff in ("required", "optional"):
                    allowed.append("cutoff")
                raise _unknown(label, f"parameter {key!r} is not one of {allowed} for {name}")
    k: int | None = None
    recall_level: float | None = None
    if measure.cutoff == "recall":
        if cut is None:
            raise _unknown(label, f"{name} needs a recall level, e.g. {name}@0.5")
        recall_level = float(cut)
        if not 0.0 <= recall_level <= 1.0:
            raise _unknown(label, f"recall level {cut} is outside [0, 1]")
    elif cut is not None:
        if measure.cutoff == "none":
            raise _unknown(label, f"{name} takes no cutoff")
        if not re.fullmatch(r"[0-9]+", str(cut).strip()) or int(cut) < 1:
            raise _unknown(label, f"cutoff {cut!r} is not a positive integer")
        k = int(cut)
    elif measure.cutoff == "required":
        raise _unknown(label, f"{name} needs a cutoff, e.g. {name}@10")
    return MetricSpec(
        label=label,
        measure=canonical,
        k=k,
        recall_level=recall_level,
        relevance_level=relevance_level,
        params=tuple(sorted(params.items())),
    )


def parse_metrics(labels: list[str] | tuple[str, ...] | str) -> list[MetricSpec]:
    """Parse a list of metric names; duplicates are an error (output columns must be unique)."""
    if isinstance(labels, str):
        labels = [labels]
    labels = list(labels)
    if not labels:
        raise PolarsRankError(f"no metrics given; choose from: {valid_names()}")
    seen: set[str] = set()
    specs = []
    for label in labels:
        if label in seen:
            raise PolarsRankError(f"metric {label!r} is listed twice")
        seen.add(label)
        specs.append(parse_metric(label))
    return specs
