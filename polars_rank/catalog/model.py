"""The catalog's model: what an entry says about a metric.

A :class:`Metric` holds the canonical name (the Polars function's name), its family, its names
in other tools (:class:`Alias`: ir_measures, ranx, scikit-learn, RecBole, ...) and its trec_eval
measures (:class:`TrecEval`: name, default cutoffs, what ``-m name.params`` sets), its
parameters (:class:`Param`: a number, a list of numbers, a gain table, a choice of spellings)
and defaults, whether it takes a cutoff and uses the relevance level, its summary rule
(:mod:`polars_rank.core.summary`), the inputs it needs, what a report needs (higher is better,
the value range, a reference for its definition), and for every engine and dialect either the
implementation (the Polars expression, the DuckDB macro, the portable SQL builder the compiler
registers under the entry's name) or the reason there is none (:attr:`Metric.unsupported`).

The entries themselves are in :mod:`.ranking`, :mod:`.trec_eval`, :mod:`.recommender` and
:mod:`.classification`; :mod:`.registry` indexes them and :mod:`.names` parses metric names.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

import polars as pl

from polars_rank.core.dialects import dialect_names, get_dialect
from polars_rank.core.expr import Ratio
from polars_rank.core.sqltext import literal
from polars_rank.core.summary import Summary
from polars_rank.core.types import EngineName
from polars_rank.diversity.metrics import Formula
from polars_rank.ranking.gains import gain_table, sql_gains

#: A family of metrics. Each entry point parses only its own families' names
#: (:func:`polars_rank.evaluate`: ranking, trec_eval and recommender;
#: :func:`polars_rank.evaluate_classification`: classification;
#: :func:`polars_rank.evaluate_ratings`: rating; :func:`polars_rank.evaluate_diversity`:
#: diversity).
Family = Literal["ranking", "trec_eval", "recommender", "classification", "rating", "diversity"]
FAMILIES: tuple[Family, ...] = (
    "ranking",
    "trec_eval",
    "recommender",
    "classification",
    "rating",
    "diversity",
)

#: Where a metric can run: the in-process engines, Spark, and the portable SQL's dialects
#: (``sql:<dialect>``).
ENGINES: tuple[str, ...] = get_args(EngineName)  # the registry's names (a test checks)
DIALECTS: tuple[str, ...] = tuple(
    name for name in dialect_names() if get_dialect(name).catalog_target
)  # the dialect registry's, an alias of another dialect's SQL left out
TARGETS: tuple[str, ...] = (*ENGINES, *(f"sql:{d}" for d in DIALECTS))

Cutoff = Literal["required", "optional", "none", "recall"]
Tool = Literal[
    "ir_measures", "trec_eval", "ranx", "recommenders", "recbole", "sklearn", "ndeval", "other"
]
Result = Literal["float", "string"]
ParamKind = Literal["number", "numbers", "gains", "choice"]
Scope = Literal["metric", "table"]
#: ``query``: one value per query (user), summarised over queries; ``corpus``: one value for
#: the whole run (coverage, entropy, ...), with no per-query value.
Level = Literal["query", "corpus"]
#: The table a metric reads: the judged table (run + qrels) or the recommendations (the run's
#: top k per user, with item data from the interactions and item features).
#: ``diversity``: the ranked run and judgments with a subtopic column
#: (:class:`~polars_rank.diversity.metrics.Formula`).
Table = Literal["judged", "recommendations", "predictions", "ratings", "diversity"]
#: Inputs of :func:`polars_rank.evaluate` besides the run.
Input = Literal["qrels", "interactions", "item_features", "predictions", "ratings"]

#: Marks a parameter without a default (given by position).
REQUIRED = object()


def _finite(text: str) -> float:
    """A written number, refusing NaN and infinities (``ValueError``)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text.strip()} is not a finite number")
    return value


@dataclass(frozen=True)
class Param:
    """A parameter of a metric besides its cutoff, the relevance level and the columns.

    ``kind`` says what it takes: a ``"number"``; ``"numbers"``, a list written ``[0.25,0.5]``
    (a tuple in Python, a ``DOUBLE[]`` in SQL); ``"gains"``, a gain table written
    ``{1:3,2:9}`` (pairs in Python, a ``MAP(INTEGER, DOUBLE)`` in SQL); or ``"choice"``, one of
    ``spellings`` (lower case), each mapped to the value it stands for. ``examples`` are
    written values the tests evaluate (numbers default to 0.5 and 2).
    Numbers must be finite (``nan=True``: NaN too, written ``nan``); a number (each one of a
    list) may be checked by ``valid`` (``valid_doc`` says what it accepts).
    ``scope="table"`` marks a parameter that shapes the table the metric reads (e.g. how item
    popularity is counted) rather than the metric's own function or macro, which therefore do
    not take it. ``variants`` limits a parameter to some of the metric's input variants (e.g.
    Jaccard similarity only for category features).
    """

    name: str
    default: Any
    spellings: Mapping[str, Any] | None = None
    doc: str = ""
    kind: ParamKind = "number"
    valid: Callable[[float], bool] | None = None
    valid_doc: str = ""
    scope: Scope = "metric"
    variants: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    nan: bool = False

    def parse(self, text: str) -> Any:
        """The value of a written parameter: a spelling (``"exp"`` → ``"exponential"``), a
        number, a list of numbers (``"[0.25,0.5]"`` → ``(0.25, 0.5)``) or a gain table
        (``"{1:3,2:9}"`` → ``((1, 3.0), (2, 9.0))``); raises ``ValueError`` otherwise, and for
        NaN or an infinity.

        >>> Param("gains", None, kind="gains").parse("{1:3, -2:0.5}")
        ((1, 3.0), (-2, 0.5))
        """
        raw = text.strip().strip("'\"")
        if self.spellings is not None:
            if raw.lower() not in self.spellings:
                raise ValueError(f"choose from {sorted(self.spellings)}")
            return self.spellings[raw.lower()]
        if self.kind == "numbers":
            inner = raw[1:-1] if raw[:1] + raw[-1:] in ("[]", "()") else raw
            values = tuple(self._number(x) for x in inner.split(",") if x.strip())
            if not values:
                raise ValueError("give at least one number, e.g. [0.25,0.5]")
            return values
        if self.kind == "gains":
            if raw[:1] + raw[-1:] != "{}":
                raise ValueError("write a gain table as {grade:gain,...}, e.g. {1:3,2:9}")
            pairs = []
            for item in raw[1:-1].split(","):
                if item.strip():
                    level, sep, gain = item.replace("=", ":").partition(":")
                    if not sep:
                        raise ValueError(f"{item.strip()!r} is not grade:gain")
                    pairs.append((int(level), _finite(gain)))
            return tuple(pairs)
        return self._number(raw)

    def _number(self, text: str) -> float:
        """A written number: finite (NaN and infinities are refused; NaN accepted with
        ``nan``) and, with ``valid``, one it accepts."""
        value = math.nan if self.nan and text.strip().lower() == "nan" else _finite(text)
        if self.valid is not None and not self.valid(value):
            raise ValueError(f"{self.name} must be {self.valid_doc}")
        return value

    def sql(self, value: Any) -> str:
        """A value of this parameter as an SQL literal."""
        if self.kind == "gains":
            return sql_gains(gain_table(value, self.name))
        if self.kind == "numbers" and value is not None:
            return "[" + ", ".join(literal(float(x)) for x in value) + "]::DOUBLE[]"
        return literal(value)


@dataclass(frozen=True)
class Alias:
    """A name a metric is known by, the tools that use it, and parameters it fixes."""

    name: str
    tools: tuple[Tool, ...] = ()
    fixed: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class TrecEval:
    """How trec_eval names a metric: its measure name, default cutoffs (or recall levels),
    whether it is printed for each query (``-q``) or only in the summary, and what the text of
    ``-m name.params`` sets: the cutoffs (``parameter=""`` with cutoffs: ``k`` or the recall
    level), a parameter's values (a parameter name: a list of cutoffs when the measure has
    default cutoffs, else the parameter's value or list), or ``"pairs"`` (``name=value`` pairs:
    integer names make the ``gains`` table, other names set the parameter of that name)."""

    name: str
    cutoffs: tuple[float, ...] = ()
    per_query: bool = True
    parameter: str = ""


@dataclass(frozen=True)
class Metric:
    """One metric: definition, names, parameters, summary rule and implementations.

    Ranking metrics read the judged table (``table="judged"``) and are Polars expressions over
    its ``columns``. Recommender metrics read the recommendations (``table="recommendations"``):
    either expressions over the recommendation table's ``columns`` (item columns joined), or,
    with ``tables``, functions of whole frames (``top`` recommendations, ``catalog``, ...) whose
    macros are table macros. ``inputs`` lists what :func:`polars_rank.evaluate` must be given
    besides the run (``qrels`` only when ``needs_qrels`` says so for recommender metrics);
    ``level="corpus"`` metrics have one value per run and no per-query value. ``variants`` are
    the kinds of item features a metric accepts, one macro each (``{macro}_{variant}``).
    """

    name: str
    #: The Polars implementation: an expression over the table's ``columns``, or, for a
    #: metric of whole ``tables``, a function of LazyFrames returning a LazyFrame; for a
    #: diversity metric, its :class:`~polars_rank.diversity.metrics.Formula`.
    polars: Callable[..., pl.Expr | pl.LazyFrame | Formula]
    formula: str
    cutoff: Cutoff = "none"
    params: tuple[Param, ...] = ()
    relevance_level: bool = True
    summary: Summary = "mean"
    columns: tuple[str, ...] = ("rank", "relevance")
    macro: str = ""
    aliases: tuple[Alias, ...] = ()
    trec_eval: tuple[TrecEval, ...] = ()
    title: str = ""
    level: Level = "query"
    table: Table = "judged"
    inputs: tuple[Input, ...] = ()
    tables: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    #: The relevance level applies only when the name gives one, ``(rel=N)``; without it the
    #: metric counts every document (evaluate's ``relevance_level`` does not apply) and its
    #: ``relevance`` column may be left out in SQL — unless ``graded``: then, without a
    #: level, the metric reads the grades themselves (RBP) and needs the column.
    explicit_level: bool = False
    result: Result = "float"
    graded: bool = False
    needs_qrels: Callable[[Mapping[str, Any]], bool] | None = None
    reference: str = ""
    #: The metric as one aggregation over another (:class:`~polars_rank.core.expr.Ratio`), taking
    #: the arguments of ``polars``: the Polars engine aggregates the two parts apart and
    #: divides after the ``group_by`` (the same numbers, fewer group-by-group evaluations).
    ratio: Callable[..., Ratio] | None = None
    family: Family = "ranking"
    #: Whether a larger value is better (``None`` for counts, which are neither).
    higher_is_better: bool | None = True
    #: The values the metric can take, ``(low, high)`` (``None``: not a number).
    value_range: tuple[float, float] | None = (0.0, 1.0)
    #: Targets (:data:`TARGETS`, or ``"sql"`` for every dialect) the metric does not run on,
    #: each with the reason a user reads (an engine's reason reads after ``engine='<name>'``).
    unsupported: tuple[tuple[str, str], ...] = ()
    #: A popularity metric (a mean over the top k of a column of the item table built from the
    #: interactions, :func:`polars_rank.recsys.item_table`, which its ``scope="table"``
    #: parameters configure): that column, one of its ``columns`` (``"popularity"``,
    #: ``"self_information"`` or ``"in_tail"``). Empty for every other metric.
    item_value: str = ""
    #: With ``item_value``: the value an item without interactions (no row in the item table)
    #: takes in that column, from the metric's arguments (``MetricSpec.arguments()``, table
    #: parameters included); ``None`` (or no function) leaves it null, out of the mean.
    unknown_value: Callable[[Mapping[str, Any]], Any] | None = None
    #: Whether the metric compares recommended items by their features (vectors, categories
    #: or a similarity table): one similarity pass per cutoff, shared by such metrics.
    pairwise: bool = False
    #: Whether the metric reads each user's history (their distinct items in the
    #: interactions); with ``pairwise``, it compares each top-k item with that history
    #: (serendipity) rather than with the other top-k items (intra-list diversity).
    history: bool = False

    def reason(self, target: str) -> str | None:
        """Why the metric does not run on ``target`` (``"spark"``, ``"sql:postgres"``, ...), or
        ``None`` when it does."""
        for name, why in self.unsupported:
            if name == target or (name == "sql" and target.startswith("sql:")):
                return why
        return None

    def engines(self) -> list[str]:
        """The targets of :data:`TARGETS` the metric runs on."""
        return [t for t in TARGETS if self.reason(t) is None]

    @property
    def sql_macro(self) -> str:
        """The SQL macro computing this metric (quoted when it is an SQL keyword)."""
        return self.macro or self.name

    def sql_macros(self) -> list[tuple[str, str | None]]:
        """``(macro, variant)`` for each macro of the metric: one, or one per variant."""
        if not self.variants:
            return [(self.sql_macro, None)]
        return [(f"{self.sql_macro}_{v}", v) for v in self.variants]

    @property
    def param(self) -> dict[str, Param]:
        """Parameters by name."""
        return {p.name: p for p in self.params}

    def parameters(self, variant: str | None = None) -> list[tuple[str, Any]]:
        """``(name, default)`` of every parameter the implementations take, in SQL order:
        tables, columns, required arguments, then optional ones; ``REQUIRED`` marks no default.
        Parameters of ``scope="table"`` are left out (they shape the input, not the call);
        with ``variant``, so are parameters of other variants."""
        optional = ("relevance",) if self.explicit_level and not self.graded else ()
        out: list[tuple[str, Any]] = [(t, REQUIRED) for t in self.tables]
        out += [(c, None if c in optional else REQUIRED) for c in self.columns]
        if self.cutoff == "required":
            out.append(("k", REQUIRED))
        elif self.cutoff == "recall":
            out.append(("recall_level", REQUIRED))
        elif self.cutoff == "optional":
            out.append(("k", None))
        out += [
            (p.name, p.default)
            for p in self.params
            if p.scope == "metric" and (variant is None or not p.variants or variant in p.variants)
        ]
        if self.relevance_level:
            out.append(("relevance_level", None if self.explicit_level else 1))
        return out

    def uses_qrels(self, arguments: Mapping[str, Any]) -> bool:
        """Whether evaluating the metric with these arguments reads the qrels."""
        if self.table == "judged":
            return True
        return self.needs_qrels is not None and self.needs_qrels(arguments)

    def sql_signature(self, variant: str | None = None) -> str:
        """The macro's parameter list as written in the ``sql/*.sql`` files."""

        def shown(value: Any) -> str:
            if value is None:
                return "NULL"
            if isinstance(value, bool):
                return "true" if value else "false"
            if isinstance(value, tuple):
                return "[" + ", ".join(repr(x) for x in value) + "]"
            return f"'{value}'" if isinstance(value, str) else repr(value)

        return ", ".join(
            name if default is REQUIRED else f"{name} := {shown(default)}"
            for name, default in self.parameters(variant)
        )

    def python_signature(self) -> str:
        """The Polars function's call with its first argument, e.g. ``ndcg(k)``."""
        if self.tables:
            first = ", ".join(self.tables)
        elif self.cutoff in ("required", "optional"):
            first = "k"
        elif self.cutoff == "recall":
            first = "recall_level"
        else:
            first = self.params[0].name if self.params else ""
        return f"{self.polars.__name__}({first})"


def alias(name: str, *tools: Tool, **fixed: Any) -> Alias:
    """A name of a metric, the tools that use it, and the parameters it fixes."""
    return Alias(name, tools, tuple(sorted(fixed.items())))


def with_family(family: Family, entries: tuple[Metric, ...]) -> tuple[Metric, ...]:
    """The entries of one family's module, marked with the family."""
    return tuple(replace(e, family=family) for e in entries)


def alias_parameters(entry: Metric, alias: Alias) -> list[str]:
    """The parameters a name fixes, as a user writes them: ``gain=exponential``, ``base=e``."""

    def shown(name: str, value: Any) -> str:
        spellings = entry.param[name].spellings or {}
        spelled = [k for k, v in spellings.items() if v == value and type(v) is type(value)]
        if value in spelled:  # the value is its own spelling: gain=exponential
            return str(value)
        return spelled[0] if spelled else ("e" if value == math.e else str(value))

    return [f"{k}={shown(k, v)}" for k, v in alias.fixed]
