"""Metric names: ir_measures' grammar ``Name(param=value)@k``, other tools' aliases and
trec_eval's ``name_k`` / ``name.k``, parsed into :class:`MetricSpec` objects (names and
parameters come from :mod:`.registry`).

>>> spec = parse_metric("P(rel=2)@5")
>>> spec.metric, spec.k, spec.relevance_level
('precision', 5, 2.0)
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import polars as pl

from polars_rank.catalog.model import Metric
from polars_rank.catalog.registry import (
    ALIASES,
    BY_ALIAS,
    BY_NAME,
    ENTRY_POINTS,
    SCOPES,
    Scope,
    metrics,
    names,
    scope_of,
)
from polars_rank.core.conventions import LARGEST_RANK
from polars_rank.core.errors import PolarsRankError, wording
from polars_rank.core.expr import Ratio
from polars_rank.core.summary import Summary

_GRAMMAR = re.compile(
    r"^(?P<name>[A-Za-z0-9_\-]+?)(?:\((?P<params>[^()]*)\))?(?:@(?P<cut>[^@()]*))?$"
)
_TREC_SUFFIX = re.compile(r"^(?P<name>[A-Za-z0-9_\-]+?)[_.](?P<cut>[0-9]*\.?[0-9]+)$")


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric name: the metric, its cutoff and parameters, and the output label."""

    label: str
    metric: str
    k: int | None = None
    recall_level: float | None = None
    relevance_level: float | None = None
    params: tuple[tuple[str, Any], ...] = ()
    #: The name space the name was parsed in (``"evaluate"`` or ``"classification"``).
    scope: Scope = "evaluate"

    @property
    def entry(self) -> Metric:
        """The catalog entry of the metric."""
        return BY_NAME[self.scope][self.metric]

    @property
    def summary(self) -> Summary:
        """How per-query values become one number: mean, sum (counts) or geometric mean."""
        return self.entry.summary

    def level(self, default: float) -> float:
        """The relevance level that applies: the metric's own ``rel=``, else ``default``."""
        return self.relevance_level if self.relevance_level is not None else default

    def arguments(self, relevance_level: float = 1) -> dict[str, Any]:
        """The metric's arguments besides its columns: cutoff or recall level, parameters
        (defaults filled in) and the relevance level, by the names the registry gives them."""
        entry = self.entry
        out: dict[str, Any] = {p.name: p.default for p in entry.params}
        out.update(self.params)
        if entry.cutoff in ("required", "optional"):
            out["k"] = self.k
        elif entry.cutoff == "recall":
            out["recall_level"] = self.recall_level
        if entry.explicit_level:
            out["relevance_level"] = self.relevance_level
        elif entry.relevance_level:
            out["relevance_level"] = self.level(relevance_level)
        return out

    def call_arguments(
        self, relevance_level: float = 1, variant: str | None = None
    ) -> dict[str, Any]:
        """The arguments the metric's function and macro take (those of
        :meth:`arguments` without the parameters that shape its input table)."""
        taken = {name for name, _ in self.entry.parameters(variant)}
        return {k: v for k, v in self.arguments(relevance_level).items() if k in taken}

    def expr(
        self, *, relevance_level: float = 1, rank: str = "rank", relevance: str = "relevance"
    ) -> pl.Expr:
        """The Polars aggregation for this metric, aliased to the label (metrics that read
        the judged table or the enriched recommendations)."""
        value = self.entry.polars(**self._kwargs(relevance_level, rank, relevance))
        assert isinstance(value, pl.Expr), f"{self.label} is computed from whole tables"
        return value.alias(self.label)

    def ratio(
        self, *, relevance_level: float = 1, rank: str = "rank", relevance: str = "relevance"
    ) -> Ratio | None:
        """The metric in two parts (see :attr:`Metric.ratio`), or None when it has none."""
        if self.entry.ratio is None:
            return None
        return self.entry.ratio(**self._kwargs(relevance_level, rank, relevance))

    def _kwargs(self, relevance_level: float, rank: str, relevance: str) -> dict[str, Any]:
        columns = {"rank": rank, "relevance": relevance}
        kwargs = {c: columns.get(c, c) for c in self.entry.columns}
        kwargs.update(self.call_arguments(relevance_level))
        return kwargs


#: Metric names: one, or a list (or tuple) of them; parsed :class:`MetricSpec` objects pass
#: through.
MetricNames: TypeAlias = "str | Sequence[str | MetricSpec]"


def valid_names() -> str:
    """The accepted metric names, comma-separated (``polars-rank metrics`` lists them with
    their definitions)."""
    return ", ".join(names())


def _every_name() -> str:
    """Where a user finds every name (said at the end of a name error)."""
    return f"every name: {wording().metric_names}"


def _spellings() -> dict[str, str]:
    """Lower-case name → the spelling shown in suggestions (the first the registry lists)."""
    out: dict[str, str] = {}
    for entry in metrics():
        for alias in entry.aliases:
            out.setdefault(alias.name.lower(), alias.name)
    return out


def _with_cutoff(spelled: str, cut: str | None) -> str:
    """A suggested name with the user's cutoff, when the suggested metric takes one."""
    entry = ALIASES[spelled.lower()][0]
    if cut is not None and entry.cutoff != "none":
        return f"{spelled}@{cut}"
    return spelled


def suggestions(name: str, cut: str | None = None, n: int = 3) -> list[str]:
    """The registered names closest to ``name`` (difflib's ratio, at least 0.6; best first,
    ties in name order), each with the cutoff ``cut`` when its metric takes one. Given a
    cutoff, a metric without one is suggested only when it is the closest (``ndgc@10``:
    ``nDCG@10``, not ``Rndcg``; ``Rprecc@10``: ``Rprec`` first).

    >>> suggestions("nDGC", "10"), suggestions("NumRett")
    (['nDCG@10'], ['NumRet', 'NumRel', 'NumRelRet'])
    """
    spelled = _spellings()
    scored = []
    for key in spelled:
        matcher = difflib.SequenceMatcher(None, name.lower(), key)
        if matcher.real_quick_ratio() >= 0.6 and matcher.quick_ratio() >= 0.6:
            ratio = matcher.ratio()
            if ratio >= 0.6:
                scored.append((-ratio, key))
    if cut is not None and scored:  # a metric without cutoffs only as the very closest
        top = min(scored)[0]
        scored = [(r, k) for r, k in scored if r == top or ALIASES[k][0].cutoff != "none"]
    # one name per metric (and fixed parameters)
    best: dict[tuple[str, tuple[tuple[str, Any], ...]], str] = {}
    for _, key in sorted(scored):
        entry, fixed = ALIASES[key]
        best.setdefault((entry.name, tuple(sorted(fixed.items()))), spelled[key])
    return [_with_cutoff(b, cut) for b in list(best.values())[:n]]


def _or(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def _unknown(
    label: str, why: str, *, suggest: list[str] | None = None, every: bool = False
) -> PolarsRankError:
    hint = f"; did you mean {_or(suggest)}?" if suggest else ""
    return PolarsRankError(
        f"metric {label!r}: {why}{hint}" + (f" ({_every_name()})" if every else "")
    )


def _unknown_name(label: str, name: str, cut: str | None) -> PolarsRankError:
    """An unknown name: a glued cutoff (``ndcg10``) or the closest registered names."""
    glued = re.fullmatch(r"(?P<name>.*?)[_\-.]?(?P<cut>[0-9]+)", name)
    if glued and cut is None and glued.group("name").lower() in ALIASES:
        entry = ALIASES[glued.group("name").lower()][0]
        if entry.cutoff in ("required", "optional"):
            spelled = _spellings()[glued.group("name").lower()]
            return _unknown(
                label,
                f"unknown name {name!r} (a cutoff follows '@')",
                suggest=[f"{spelled}@{glued.group('cut')}"],
            )
    return _unknown(label, f"unknown name {name!r}", suggest=suggestions(name, cut), every=True)


def _number(raw: str, key: str, label: str) -> float:
    try:
        value = float(raw.strip("'\""))
    except ValueError:
        raise _unknown(label, f"parameter {key} needs a number, got {raw!r}") from None
    if not math.isfinite(value):
        raise _unknown(label, f"parameter {key} needs a finite number, got {raw!r}")
    return value


def _one_cutoff(label: str, cut: str | None, key: str, raw: str) -> str:
    """The cutoff ``key=raw`` sets, refused when ``@`` set another (``P(k=5)@10``)."""
    if cut is not None and cut.strip() != raw.strip():
        raise _unknown(label, f"two cutoffs, @{cut.strip()} and {key}={raw.strip()}: give one")
    return raw


def _split(text: str) -> tuple[str, str | None, str | None]:
    """(name, parameter text, cutoff text) of a metric name in either grammar."""
    match = _GRAMMAR.match(text)
    if match and (match.group("name").lower() in ALIASES or match.group("cut") is not None):
        return match.group("name"), match.group("params"), match.group("cut")
    trec = _TREC_SUFFIX.match(text)  # trec_eval style: P_10, ndcg_cut.10, iprec_at_recall_0.10
    if trec and trec.group("name").lower() in ALIASES:
        return trec.group("name"), None, trec.group("cut")
    if match is None:
        raise _unknown(
            text,
            "cannot parse the name (expected Name, Name@k or Name(param=value)@k)",
            suggest=suggestions(re.split(r"[@(]", text, maxsplit=1)[0]),
            every=True,
        )
    return match.group("name"), match.group("params"), match.group("cut")


def _split_params(text: str) -> list[str]:
    """``key=value`` items separated by commas outside brackets and braces, so that lists and
    gain tables keep theirs: ``points=[0.25,0.5],rel=2`` → two items."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char in "[{") - (char in "]}")
        if char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    return [*items, text[start:]]


def _other_scope(label: str, name: str, scope: Scope) -> PolarsRankError | None:
    """The error for a name of another entry point's families, naming both."""
    for other in SCOPES:
        found = BY_ALIAS[other].get(name.lower()) if other != scope else None
        if found is not None:
            entry = found[0]
            return PolarsRankError(
                f"metric {label!r} is a {entry.family} metric ({entry.name}): "
                f"{ENTRY_POINTS[scope_of(entry)]} takes it, not {ENTRY_POINTS[scope]} "
                f"(which takes {' and '.join(SCOPES[scope])} metrics)"
            )
    return None


def parse_metric(label: str, scope: Scope = "evaluate") -> MetricSpec:
    """Parse one metric name.

    Accepted forms: ir_measures' ``nDCG@10``, ``P(rel=2)@5``, ``AP``, ``IPrec@0.1``,
    ``SetF(beta=0.5)``; aliases such as ``ndcg@10``, ``mrr@10``, ``map@100``, ``recall_cap@10``,
    ``ndcg_burges@10``, ``r_precision``, ``f1@10``; trec_eval names such as ``ndcg_cut.10``,
    ``P_10``, ``recip_rank``, ``map_cut_100``, ``iprec_at_recall_0.10``.

    >>> parse_metric("nDCG@10").k
    10
    >>> parse_metric("ndcg_burges@5").params
    (('gain', 'exponential'),)
    """
    if not isinstance(label, str) or not label.strip():
        raise PolarsRankError(f"a metric name must be a non-empty string, got {label!r}")
    name, params_text, cut = _split(label.strip())
    found = BY_ALIAS[scope].get(name.lower())
    if found is None:
        other = _other_scope(label, name, scope)
        if other is not None:
            raise other
        if scope != "evaluate":
            raise PolarsRankError(
                f"unknown metric {label!r}; the {' and '.join(SCOPES[scope])} metrics are: "
                + ", ".join(names(scope))
            )
        raise _unknown_name(label, name, cut)
    entry, fixed = found
    params: dict[str, Any] = dict(fixed)
    relevance_level: float | None = None
    given: set[str] = set()
    for item in _split_params(params_text or ""):
        if not item.strip():
            continue
        if "=" not in item:
            raise _unknown(label, f"parameter {item.strip()!r} is not key=value")
        key, raw = (s.strip() for s in item.split("=", 1))
        key = key.lower()
        same = "cutoff" if key in ("cutoff", "k", "recall") else key
        if same in given:
            raise _unknown(label, f"parameter {key!r} is given twice")
        given.add(same)
        try:
            if key == "rel" and entry.relevance_level:
                relevance_level = _number(raw, key, label)
            elif key in ("cutoff", "k") and entry.cutoff in ("required", "optional"):
                cut = _one_cutoff(label, cut, key, raw)
            elif key == "recall" and entry.cutoff == "recall":
                cut = _one_cutoff(label, cut, key, raw)
            elif key in entry.param:
                params[key] = entry.param[key].parse(raw)
            else:
                allowed = (["rel"] if entry.relevance_level else []) + list(entry.param)
                if entry.cutoff in ("required", "optional"):
                    allowed.append("cutoff")
                raise _unknown(label, f"parameter {key!r} is not one of {allowed} for {name}")
        except ValueError as err:
            if isinstance(err, PolarsRankError):
                raise
            raise _unknown(label, f"bad value {raw!r} for {key} ({err})") from None
    k: int | None = None
    recall_level: float | None = None
    if entry.cutoff == "recall":
        if cut is None:
            raise _unknown(label, f"{name} needs a recall level, e.g. {name}@0.5")
        try:
            recall_level = float(cut)
        except ValueError:
            raise _unknown(label, f"recall level {cut!r} is not a number") from None
        if not 0.0 <= recall_level <= 1.0:
            raise _unknown(label, f"recall level {cut} is outside [0, 1]")
    elif cut is not None:
        if entry.cutoff == "none":
            raise _unknown(label, f"{name} takes no cutoff")
        if not cut.strip():
            raise _unknown(label, f"no cutoff after '@' (e.g. {name}@10)")
        if not re.fullmatch(r"[0-9]+", str(cut).strip()) or int(cut) < 1:
            raise _unknown(
                label, f"cutoff {cut!r} is not a positive integer (k counts ranks from 1)"
            )
        k = int(cut)
        if k > LARGEST_RANK:
            raise _unknown(label, f"cutoff {cut.strip()} is above the largest, {LARGEST_RANK}")
    elif entry.cutoff == "required":
        raise _unknown(label, f"{name} needs a cutoff, e.g. {name}@10")
    return MetricSpec(
        label=label,
        metric=entry.name,
        k=k,
        recall_level=recall_level,
        relevance_level=relevance_level,
        params=tuple(sorted(params.items())),
        scope=scope,
    )


def parse_metrics(
    labels: MetricNames,
    scope: Scope = "evaluate",
) -> list[MetricSpec]:
    """Parse a list of metric names (parsed :class:`MetricSpec` objects pass through);
    duplicate labels are an error (output columns must be unique)."""
    if isinstance(labels, str | MetricSpec):
        labels = [labels]
    if not isinstance(labels, Iterable):
        raise PolarsRankError(
            "metrics must be a metric name or a list of names, e.g. ['nDCG@10', 'AP'], got "
            f"{labels!r}"
        )
    labels = list(labels)
    if not labels:
        raise PolarsRankError(f"no metrics given, e.g. ['nDCG@10', 'AP'] ({_every_name()})")
    seen: set[str] = set()
    specs = []
    for label in labels:
        spec = label if isinstance(label, MetricSpec) else parse_metric(label, scope)
        if spec.scope != scope:
            raise PolarsRankError(
                f"metric {spec.label!r} is a {spec.entry.family} metric: "
                f"{ENTRY_POINTS[spec.scope]} takes it, not {ENTRY_POINTS[scope]}"
            )
        if spec.label in seen:
            raise PolarsRankError(f"metric {spec.label!r} is listed twice")
        seen.add(spec.label)
        specs.append(spec)
    return specs
