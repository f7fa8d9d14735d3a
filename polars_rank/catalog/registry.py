"""The metric registry: one entry per ranking metric, read by every other part of the package.

Each :class:`Metric` holds the canonical name (the Polars function's name), its names in other
tools (ir_measures, ranx, ...) and its trec_eval measures (:class:`TrecEval`: name, default
cutoffs, what ``-m name.params`` sets), its parameters with their kinds (a number, a list of
numbers, a gain table, a choice of spellings) and defaults, whether it takes a cutoff and uses
the relevance level, its summary rule over queries (mean, sum, geometric mean, or ``none`` for
relstring's per-query string), the type of its per-query value, its Polars builder, and its SQL
macro (name and parameters). The name parser, both engines, the trec_eval drop-in (which
resolves trec_eval's names through :func:`trec_eval_names` only), the parity tests and the
README's metric tables are built from it; tests check that each entry agrees with its Polars
function's signature and its macro's parameters.

Adding a metric = one entry here, a Polars function in :mod:`.metrics` (trec_eval's own
measures: :mod:`.trec_metrics`), and a macro in ``sql/ranking.sql`` (``sql/trec_eval.sql``).

>>> print(REGISTRY["average_precision"].sql_signature())
rank, relevance, k := NULL, denominator := 'R', relevance_level := 1
>>> [a.name for a in REGISTRY["reciprocal_rank"].aliases]
['RR', 'recip_rank', 'mrr', 'MRR', 'reciprocal_rank']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from polars_rank import recsys as rs
from polars_rank.core.expr import Ratio
from polars_rank.ranking import metrics as m
from polars_rank.ranking import trec_metrics as tm

Summary = Literal["mean", "sum", "gmean", "none"]
Cutoff = Literal["required", "optional", "none", "recall"]
Tool = Literal["ir_measures", "trec_eval", "ranx", "recommenders", "recbole", "other"]
Result = Literal["float", "string"]
ParamKind = Literal["number", "numbers", "gains", "choice"]
Scope = Literal["metric", "table"]
#: ``query``: one value per query (user), summarised over queries; ``corpus``: one value for
#: the whole run (coverage, entropy, ...), with no per-query value.
Level = Literal["query", "corpus"]
#: The table a metric reads: the judged table (run + qrels) or the recommendations (the run's
#: top k per user, with item data from the interactions and item features).
Table = Literal["judged", "recommendations"]
#: Inputs of :func:`polars_rank.evaluate` besides the run.
Input = Literal["qrels", "interactions", "item_features"]

#: trec_eval's floor for the geometric mean of a per-query value (``gm_map``).
GM_FLOOR = 1e-5

#: trec_eval's default cutoffs for ``P``, ``recall``, ``ndcg_cut``, ``map_cut``, ``relative_P``.
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

#: Marks a parameter without a default (given by position).
REQUIRED = object()


@dataclass(frozen=True)
class Param:
    """A parameter of a metric besides its cutoff, the relevance level and the columns.

    ``kind`` says what it takes: a ``"number"``; ``"numbers"``, a list written ``[0.25,0.5]``
    (a tuple in Python, a ``DOUBLE[]`` in SQL); ``"gains"``, a gain table written
    ``{1:3,2:9}`` (pairs in Python, a ``MAP(INTEGER, DOUBLE)`` in SQL); or ``"choice"``, one of
    ``spellings`` (lower case), each mapped to the value it stands for. ``examples`` are
    written values the tests evaluate (numbers default to 0.5 and 2).
    A number may be checked by ``valid`` (``valid_doc`` says what it accepts).
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

    def parse(self, text: str) -> Any:
        """The value of a written parameter: a spelling (``"exp"`` → ``"exponential"``), a
        number, a list of numbers (``"[0.25,0.5]"`` → ``(0.25, 0.5)``) or a gain table
        (``"{1:3,2:9}"`` → ``((1, 3.0), (2, 9.0))``); raises ``ValueError`` otherwise.

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
            values = tuple(float(x) for x in inner.split(",") if x.strip())
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
                    pairs.append((int(level), float(gain)))
            return tuple(pairs)
        value = float(raw)
        if self.valid is not None and not self.valid(value):
            raise ValueError(f"{self.name} must be {self.valid_doc}")
        return value

    def sql(self, value: Any) -> str:
        """A value of this parameter as an SQL literal."""
        from polars_rank.core.sqltext import literal
        from polars_rank.ranking.gains import gain_table, sql_gains

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
    polars: Callable[..., Any]
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
    def sql_builder(self) -> Callable[..., str]:
        """Its portable SQL (:func:`polars_rank.to_sql`): the builder registered for this name
        in ``polars_rank/ranking/sql/builders.py``."""
        from polars_rank.compiler.builders import BUILDERS

        return BUILDERS[self.name]

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


def _gain_param() -> Param:
    return Param(
        "gain",
        "linear",
        {
            "linear": "linear",
            "exp": "exponential",
            "exponential": "exponential",
            "burges": "exponential",
        },
        "`linear` (the grade, trec_eval) or `exponential` (2^grade − 1, Burges)",
        kind="choice",
    )


#: A gain table (trec_eval's ``level=gain`` parameters, ir_measures' ``gains``).
_GAINS = Param(
    "gains",
    None,
    doc="a gain per grade, `{1:3,2:9}` (trec_eval `.1=3,2=9`); -2 stands for negative grades",
    kind="gains",
    examples=("{1:3,2:9,4:4.5}", "{0:-1,-2:2}"),
)


def _a(name: str, *tools: Tool, **fixed: Any) -> Alias:
    return Alias(name, tools, tuple(sorted(fixed.items())))


_AP_DENOMINATOR = Param(
    "denominator",
    "R",
    {"r": "R", "min": "min(k,R)", "min(k,r)": "min(k,R)", "mink": "min(k,R)"},
    "`R` (trec_eval) or `min(k,R)` (Spark, recommender libraries)",
    kind="choice",
)

_P_PARAM = Param(
    "p",
    m.RBP_P,
    doc="persistence in (0, 1)",
    valid=lambda v: 0.0 < v < 1.0,
    valid_doc="in (0, 1)",
    examples=("0.5", "0.95"),
)

_COUNT_PARAM = Param(
    "count",
    "users",
    {"users": "users", "interactions": "interactions", "rows": "interactions"},
    "item popularity: distinct `users` or `interactions` (rows, RecBole)",
    scope="table",
)

_ENTRIES: tuple[Metric, ...] = (
    Metric(
        "precision",
        m.precision,
        "relevant in the top k / k (k even when fewer were retrieved); without k, relevant "
        "retrieved / retrieved (ranx)",
        cutoff="optional",
        macro='"precision"',
        aliases=(_a("P", "ir_measures", "trec_eval"), _a("precision", "ranx"), _a("prec")),
        trec_eval=(TrecEval("P", TREC_CUTOFFS),),
    ),
    Metric(
        "recall",
        m.recall,
        "relevant in the top k / R; 0 when R = 0",
        cutoff="optional",
        ratio=m._recall_ratio,
        aliases=(_a("R", "ir_measures"), _a("recall", "trec_eval", "ranx")),
        trec_eval=(TrecEval("recall", TREC_CUTOFFS),),
    ),
    Metric(
        "recall_cap",
        m.recall_cap,
        "relevant in the top k / min(k, R) (BEIR's R_cap)",
        cutoff="required",
        title="capped recall",
        ratio=m._recall_cap_ratio,
        aliases=(_a("relative_P", "trec_eval"), _a("Rcap"), _a("R_cap"), _a("recall_cap")),
        trec_eval=(TrecEval("relative_P", TREC_CUTOFFS),),
    ),
    Metric(
        "hit_rate",
        m.hit_rate,
        "1 if any relevant document is in the top k, else 0",
        cutoff="optional",
        title="success / hit rate",
        aliases=(
            _a("Success", "ir_measures"),
            _a("success", "trec_eval"),
            _a("hit_rate", "ranx"),
            _a("HR"),
            _a("hitrate"),
        ),
        trec_eval=(TrecEval("success", (1, 5, 10)),),
    ),
    Metric(
        "hits",
        m.hits,
        "number of relevant documents in the top k",
        cutoff="optional",
        aliases=(_a("hits", "ranx"),),
    ),
    Metric(
        "reciprocal_rank",
        m.reciprocal_rank,
        "1 / rank of the first relevant document within k, else 0; MRR is its mean",
        cutoff="optional",
        title="reciprocal rank",
        aliases=(
            _a("RR", "ir_measures"),
            _a("recip_rank", "trec_eval"),
            _a("mrr", "ranx"),
            _a("MRR"),
            _a("reciprocal_rank"),
        ),
        trec_eval=(TrecEval("recip_rank"),),
    ),
    Metric(
        "average_precision",
        m.average_precision,
        "Σ P@rank over the relevant documents in the top k / R (or / min(k, R))",
        cutoff="optional",
        params=(_AP_DENOMINATOR,),
        title="average precision",
        ratio=m._average_precision_ratio,
        aliases=(
            _a("AP", "ir_measures"),
            _a("map", "trec_eval", "ranx"),
            _a("map_cut", "trec_eval"),
            _a("MAP"),
            _a("average_precision"),
        ),
        trec_eval=(TrecEval("map"), TrecEval("map_cut", TREC_CUTOFFS)),
    ),
    Metric(
        "gm_map",
        m.average_precision,
        "AP per query; summary exp(mean(ln(max(AP, 1e-5)))) (trec_eval)",
        cutoff="optional",
        params=(_AP_DENOMINATOR,),
        summary="gmean",
        macro="average_precision",
        title="geometric MAP",
        ratio=m._average_precision_ratio,
        aliases=(_a("gm_map", "trec_eval"), _a("GMAP"), _a("gm_ap")),
        trec_eval=(TrecEval("gm_map", per_query=False),),
    ),
    Metric(
        "ndcg",
        m.ndcg,
        "DCG@k / IDCG@k; IDCG from **all** judged documents sorted by gain, cut at k; "
        "0 when IDCG = 0; ignores the relevance level",
        cutoff="optional",
        params=(_gain_param(), _GAINS),
        relevance_level=False,
        title="nDCG",
        ratio=m._ndcg_ratio,
        aliases=(
            _a("nDCG", "ir_measures"),
            _a("ndcg", "trec_eval", "ranx"),
            _a("ndcg_cut", "trec_eval"),
            _a("ndcg_burges", "ranx", gain="exponential"),
            _a("nDCG_burges", gain="exponential"),
        ),
        trec_eval=(TrecEval("ndcg", parameter="pairs"), TrecEval("ndcg_cut", TREC_CUTOFFS)),
    ),
    Metric(
        "dcg",
        m.dcg,
        "Σ over ranks i ≤ k of gain / log2(i + 1); gain = grade (negatives and unjudged 0)",
        cutoff="optional",
        params=(_gain_param(), _GAINS),
        relevance_level=False,
        title="DCG",
        aliases=(
            _a("DCG"),
            _a("dcg", "ranx", "trec_eval"),
            _a("dcg_burges", "ranx", gain="exponential"),
        ),
        trec_eval=(TrecEval("dcg", parameter="pairs"),),
    ),
    Metric(
        "ideal_dcg",
        m.ideal_dcg,
        "DCG of the ideal ranking: the positive gains of all judged documents, largest first, "
        "cut at k (nDCG's denominator)",
        cutoff="optional",
        params=(_gain_param(), _GAINS),
        relevance_level=False,
        columns=("relevance",),
        title="ideal DCG",
        aliases=(_a("ideal_dcg", "trec_eval"), _a("IDCG")),
        trec_eval=(TrecEval("ideal_dcg", parameter="pairs"),),
    ),
    Metric(
        "r_precision",
        m.r_precision,
        "relevant in the top R / R; 0 when R = 0",
        title="R-precision",
        ratio=m._r_precision_ratio,
        aliases=(
            _a("Rprec", "ir_measures", "trec_eval"),
            _a("r-precision", "ranx"),
            _a("r_precision"),
            _a("R-Prec"),
            _a("RPrec"),
        ),
        trec_eval=(TrecEval("Rprec"),),
    ),
    Metric(
        "bpref",
        m.bpref,
        "(1/R) Σ over retrieved relevant r of 1 − min(n_r, R)/min(N, R); n_r judged "
        "non-relevant above r, N judged non-relevant in all; unjudged and negative skipped",
        aliases=(_a("Bpref", "ir_measures"), _a("bpref", "trec_eval", "ranx")),
        trec_eval=(TrecEval("bpref"),),
    ),
    Metric(
        "f1",
        m.f1,
        "2·P@k·R@k / (P@k + R@k); without k, P divides by the number retrieved (ranx)",
        cutoff="optional",
        title="F1",
        aliases=(_a("f1", "ranx"), _a("F1")),
    ),
    Metric(
        "judged_fraction",
        m.judged_fraction,
        "judged documents in the top k / min(k, retrieved); negative judgments count",
        cutoff="optional",
        relevance_level=False,
        title="judged",
        aliases=(_a("Judged", "ir_measures"), _a("judged_fraction")),
    ),
    Metric(
        "unjudged",
        m.unjudged,
        "unjudged (or negative) documents in the top k / k (trec_eval)",
        cutoff="required",
        relevance_level=False,
        aliases=(_a("unj", "trec_eval"), _a("unjudged")),
        trec_eval=(TrecEval("unj", (5, 10, 20)),),
    ),
    Metric(
        "num_ret",
        m.num_ret,
        "documents retrieved (summed over queries); with `(rel=N)`, retrieved documents with "
        "grade ≥ N (ir_measures)",
        summary="sum",
        title="retrieved",
        explicit_level=True,
        aliases=(_a("NumRet", "ir_measures"), _a("num_ret", "trec_eval")),
        trec_eval=(TrecEval("num_ret"),),
    ),
    Metric(
        "num_rel",
        m.num_rel,
        "R, the judged documents with grade ≥ level (summed over queries)",
        summary="sum",
        columns=("relevance",),
        title="relevant",
        aliases=(_a("NumRel", "ir_measures"), _a("num_rel", "trec_eval")),
        trec_eval=(TrecEval("num_rel"),),
    ),
    Metric(
        "num_rel_ret",
        m.num_rel_ret,
        "relevant documents retrieved (summed over queries)",
        summary="sum",
        title="relevant retrieved",
        aliases=(_a("NumRelRet", "ir_measures"), _a("num_rel_ret", "trec_eval")),
        trec_eval=(TrecEval("num_rel_ret"),),
    ),
    Metric(
        "num_nonrel_judged_ret",
        m.num_nonrel_judged_ret,
        "retrieved documents judged non-relevant (summed over queries)",
        summary="sum",
        title="non-relevant retrieved",
        aliases=(_a("num_nonrel_judged_ret", "trec_eval"),),
        trec_eval=(TrecEval("num_nonrel_judged_ret"),),
    ),
    Metric(
        "num_q",
        m.num_q,
        "1 per query (summed: the number of queries)",
        relevance_level=False,
        summary="sum",
        columns=(),
        title="queries",
        aliases=(_a("NumQ", "ir_measures"), _a("num_q", "trec_eval")),
        trec_eval=(TrecEval("num_q", per_query=False),),
    ),
    Metric(
        "set_precision",
        m.set_precision,
        "relevant retrieved / retrieved",
        title="set precision",
        aliases=(_a("SetP", "ir_measures"), _a("set_P", "trec_eval"), _a("set_precision")),
        trec_eval=(TrecEval("set_P"),),
    ),
    Metric(
        "set_recall",
        m.set_recall,
        "relevant retrieved / R",
        title="set recall",
        aliases=(_a("SetR", "ir_measures"), _a("set_recall", "trec_eval")),
        trec_eval=(TrecEval("set_recall"),),
    ),
    Metric(
        "set_f",
        m.set_f,
        "(β + 1)·P·R / (β·P + R) over the retrieved set; β is not squared (trec_eval)",
        params=(Param("beta", 1.0, doc="weight of recall against precision"),),
        title="set F",
        aliases=(_a("SetF", "ir_measures"), _a("set_F", "trec_eval"), _a("set_f")),
        trec_eval=(TrecEval("set_F", parameter="beta"),),
    ),
    Metric(
        "iprec_at_recall",
        m.iprec_at_recall,
        "highest precision at or after the c-th relevant document, c = lround(level·R) "
        "(trec_eval 10.0; pytrec_eval's 9.x used ⌊level·R + 0.9⌋)",
        cutoff="recall",
        title="interpolated precision",
        aliases=(_a("IPrec", "ir_measures"), _a("iprec_at_recall", "trec_eval")),
        trec_eval=(TrecEval("iprec_at_recall", m.ELEVEN_POINTS),),
    ),
    Metric(
        "eleven_pt_avg",
        m.eleven_pt_avg,
        "mean of IPrec at the recall points (0.0, 0.1, …, 1.0), added from the last; points "
        "out of order as trec_eval takes them",
        params=(
            Param(
                "points",
                m.ELEVEN_POINTS,
                doc="recall points, `[0.25,0.5,0.75]`",
                kind="numbers",
                examples=("[0.25,0.5,0.75]", "[0.5,0.2,1]"),
            ),
        ),
        title="11-point average",
        aliases=(_a("11pt_avg", "trec_eval"), _a("eleven_pt_avg"), _a("11-pt_avg")),
        trec_eval=(TrecEval("11pt_avg", parameter="points"),),
    ),
    # trec_eval's other measures (polars_rank/ranking/trec_metrics.py)
    Metric(
        "relevance_string",
        tm.relevance_string,
        "one character per retrieved document up to the length: the grade 0–9, `>` above 9, "
        "`-` unjudged, `.` negative grade (a string; no summary)",
        params=(Param("length", 10, doc="documents shown"),),
        relevance_level=False,
        summary="none",
        result="string",
        title="relevance string",
        aliases=(_a("relstring", "trec_eval"), _a("relevance_string")),
        trec_eval=(TrecEval("relstring", parameter="length"),),
    ),
    Metric(
        "inferred_ap",
        tm.inferred_ap,
        "(1/R) Σ over retrieved relevant at rank j + 1 of 1/(j+1) + (j/(j+1))·((r+n+u)/j)·"
        "((r+ε)/(r+n+2ε)) (1 at rank 1); r, n, u relevant, non-relevant, negative above; "
        "ε = 1e-5",
        title="inferred AP",
        aliases=(_a("infAP", "ir_measures", "trec_eval"), _a("inferred_ap")),
        trec_eval=(TrecEval("infAP"),),
    ),
    Metric(
        "gm_bpref",
        m.bpref,
        "bpref per query; summary exp(mean(ln(max(bpref, 1e-5)))) (trec_eval)",
        summary="gmean",
        macro="bpref",
        title="geometric bpref",
        aliases=(_a("gm_bpref", "trec_eval"),),
        trec_eval=(TrecEval("gm_bpref", per_query=False),),
    ),
    Metric(
        "yaap",
        tm.yaap,
        "ln((1 + S) / (1 + R − S)), S = Σ P@rank over the retrieved relevant documents (AP·R)",
        title="YAAP",
        aliases=(_a("yaap", "trec_eval"),),
        trec_eval=(TrecEval("yaap"),),
    ),
    Metric(
        "r_precision_multiple",
        tm.r_precision_multiple,
        "precision at c = ⌊multiple·R + 0.9⌋ (positions; 0 when c = 0)",
        params=(Param("multiple", 1.0, doc="multiple of R"),),
        title="precision at a multiple of R",
        aliases=(_a("Rprec_mult", "trec_eval"), _a("r_precision_multiple")),
        trec_eval=(
            TrecEval(
                "Rprec_mult",
                (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
                parameter="multiple",
            ),
        ),
    ),
    Metric(
        "utility",
        tm.utility,
        "p1·a + p2·b + p3·c + p4·d: a relevant retrieved, b other retrieved, c relevant "
        "missed, d = collection_size + a − retrieved − R",
        params=(
            Param(
                "coefficients",
                tm.UTILITY_COEFFICIENTS,
                doc="p1, p2, p3, p4, `[1,-1,0,0]`",
                kind="numbers",
                examples=("[2,-1,0,0]", "[1,-1,-0.5,0.25]"),
            ),
            Param("collection_size", 0, doc="documents in the collection (trec_eval `-N`)"),
        ),
        aliases=(_a("utility", "trec_eval"),),
        trec_eval=(TrecEval("utility", parameter="coefficients"),),
    ),
    Metric(
        "binary_g",
        tm.binary_g,
        "(1/R) Σ over retrieved relevant of 1 / log2(2 + non-relevant or unjudged above)",
        title="binary G",
        aliases=(_a("binG", "trec_eval"), _a("binary_g")),
        trec_eval=(TrecEval("binG"),),
    ),
    Metric(
        "normalized_gain",
        tm.normalized_gain,
        "Σ over ranks i with gain g_i ≠ 0 of g_i / log2(2 + C_i − S_i) / Σ ideal gains; S_i "
        "gain so far, C_i ideal cost so far (max(ideal gain, 1) per position)",
        params=(_GAINS,),
        relevance_level=False,
        title="G (normalized gain)",
        aliases=(_a("G", "trec_eval"), _a("normalized_gain")),
        trec_eval=(TrecEval("G", parameter="pairs"),),
    ),
    Metric(
        "ndcg_rel",
        tm.ndcg_rel,
        "nDCG averaged over the documents with positive gain (a missed one scores the final "
        "DCG / IDCG)",
        params=(_GAINS,),
        relevance_level=False,
        title="nDCG over relevant",
        aliases=(_a("ndcg_rel", "trec_eval"),),
        trec_eval=(TrecEval("ndcg_rel", parameter="pairs"),),
    ),
    Metric(
        "r_ndcg",
        tm.r_ndcg,
        "nDCG averaged at the ends of the runs of equal ideal gains (and at the number "
        "retrieved); 0 when R = 0",
        params=(_GAINS,),
        title="nDCG at R levels",
        aliases=(_a("Rndcg", "trec_eval"), _a("r_ndcg")),
        trec_eval=(TrecEval("Rndcg", parameter="pairs"),),
    ),
    Metric(
        "set_relative_precision",
        tm.set_relative_precision,
        "relevant retrieved / min(retrieved, R)",
        title="relative set precision",
        aliases=(_a("set_relative_P", "trec_eval"), _a("set_relative_precision")),
        trec_eval=(TrecEval("set_relative_P"),),
    ),
    Metric(
        "set_average_precision",
        tm.set_average_precision,
        "relevant retrieved² / (retrieved · R)",
        title="set AP",
        aliases=(
            _a("SetAP", "ir_measures"),
            _a("set_map", "trec_eval"),
            _a("set_average_precision"),
        ),
        trec_eval=(TrecEval("set_map"),),
    ),
    Metric(
        "trec_rbp",
        tm.trec_rbp,
        "trec_eval's rbp: (1 − p) Σ gain · p^(rank − 1), gains rescaled to [0, 1] per query "
        "when any lies outside",
        params=(Param("p", 0.9, doc="persistence"), _GAINS),
        relevance_level=False,
        title="RBP (trec_eval)",
        aliases=(_a("trec_rbp"),),
        trec_eval=(TrecEval("rbp", parameter="pairs"),),
    ),
    Metric(
        "trec_rbp_residual",
        tm.trec_rbp_residual,
        "p^N + (1 − p) Σ over unjudged retrieved of p^(rank − 1); 0 when all are judged",
        params=(Param("p", 0.9, doc="persistence"),),
        relevance_level=False,
        title="RBP residual (trec_eval)",
        aliases=(_a("trec_rbp_resid"), _a("trec_rbp_residual")),
        trec_eval=(TrecEval("rbp_resid", parameter="pairs"),),
    ),
    # -- cascade and user-model metrics (ERR, RBP) ---------------------------------------------
    Metric(
        "err",
        m.err,
        "Σ_{r ≤ k} R(g_r) / r · Π_{i<r} (1 − R(g_i)), R(g) = (2^g − 1) / 2^max_grade "
        "(gdeval, Chapelle et al. 2009); a grade above max_grade is an error",
        cutoff="optional",
        params=(
            Param(
                "max_grade",
                m.ERR_MAX_GRADE,
                doc="largest grade (gdeval: 4)",
                valid=lambda v: 0 < v < float("inf"),
                valid_doc="a positive number",
                examples=("3", "5"),
            ),
        ),
        relevance_level=False,
        title="ERR",
        aliases=(_a("ERR", "ir_measures"), _a("err")),
        reference="ir_measures ERR@k (gdeval.pl), exact instead of 5 printed decimals",
    ),
    Metric(
        "rbp",
        m.rbp,
        "(1 − p) Σ_{r ≤ k} p^(r−1) gain_r; gain = the grade (graded, trectools) or, with "
        "rel=ℓ, 1 for grade ≥ ℓ (cwl_eval); unjudged 0",
        cutoff="optional",
        params=(_P_PARAM,),
        explicit_level=True,
        graded=True,
        title="RBP",
        aliases=(_a("RBP", "ir_measures"), _a("rbp")),
        reference="ir_measures RBP(p=…) (trectools) and RBP(p=…,rel=ℓ) (cwl_eval)",
    ),
    Metric(
        "rbp_residual",
        m.rbp_residual,
        "unjudged weight Σ_{unjudged r ≤ d} (1 − p) p^(r−1) + p^d, d = k or the number "
        "retrieved (Moffat & Zobel 2008)",
        cutoff="optional",
        params=(_P_PARAM,),
        relevance_level=False,
        title="RBP residual",
        aliases=(_a("RBP_residual"), _a("rbp_residual")),
        reference="trectools get_rbp (residual, with a cutoff)",
    ),
    # -- recommender metrics beyond accuracy (polars_rank.recsys, sql/recsys.sql) -------------
    Metric(
        "catalog_coverage",
        rs.catalog_coverage,
        "catalog items in any user's top k / catalog size (items outside the catalog are not "
        "counted: a warning says how many)",
        cutoff="optional",
        relevance_level=False,
        columns=(),
        tables=("top", "catalog"),
        level="corpus",
        table="recommendations",
        title="catalog coverage",
        aliases=(
            _a("coverage"),
            _a("catalog_coverage", "recommenders"),
            _a("ItemCoverage", "recbole"),
        ),
        reference="MS Recommenders catalog_coverage (catalog = train items), RecBole "
        "ItemCoverage (catalog = item ids with the padding id)",
    ),
    Metric(
        "shannon_entropy",
        rs.shannon_entropy,
        "−Σ_i p(i) log_base p(i), p(i) = count(i) / Σ count over the top-k lists; "
        "per_item divides by the number of recommended items",
        cutoff="optional",
        params=(
            Param(
                "base",
                2.0,
                doc="logarithm base (2: bits)",
                valid=lambda v: v > 0 and v != 1,
                valid_doc="positive and not 1",
                examples=("10", "2.718281828459045"),
            ),
            Param(
                "per_item",
                False,
                {"true": True, "false": False},
                "divide by the number of recommended items (RecBole)",
            ),
        ),
        relevance_level=False,
        columns=(),
        tables=("top",),
        level="corpus",
        table="recommendations",
        title="Shannon entropy",
        aliases=(
            _a("entropy"),
            _a("shannon_entropy"),
            _a("distributional_coverage", "recommenders"),
            _a("ShannonEntropy", "recbole", base=math.e, per_item=True),
        ),
        reference="MS Recommenders distributional_coverage; RecBole ShannonEntropy with "
        "base=e, per_item=true",
    ),
    Metric(
        "gini_index",
        rs.gini_index,
        "Σ_j (2j − n − 1) c_(j) / (n Σ c) over the n catalog items' top-k counts in ascending "
        "order (0: equal exposure)",
        cutoff="optional",
        relevance_level=False,
        columns=(),
        tables=("top", "catalog"),
        level="corpus",
        table="recommendations",
        title="Gini index",
        aliases=(_a("gini"), _a("gini_index"), _a("GiniIndex", "recbole")),
        reference="RecBole GiniIndex (n = its item count, padding id included)",
    ),
    Metric(
        "user_coverage",
        rs.user_coverage,
        "users with at least one item in the top k (with rel=ℓ: one item of grade ≥ ℓ) / users",
        cutoff="optional",
        explicit_level=True,
        columns=(),
        tables=("top", "users"),
        level="corpus",
        table="recommendations",
        needs_qrels=lambda a: a["relevance_level"] is not None,
        title="user coverage",
        aliases=(_a("user_coverage"),),
        reference="Ge, Delgado-Battenfeld & Jannach 2010 (neither MS Recommenders nor RecBole "
        "has it)",
    ),
    Metric(
        "novelty",
        rs.novelty,
        "mean over the top-k items of −log2 p(i), p(i) = pop(i) / Σ pop (choice) or pop(i) / "
        "users (discovery); items without interactions skipped (unknown=zero: 0)",
        cutoff="optional",
        params=(
            Param(
                "unknown",
                "skip",
                {"skip": "skip", "zero": "zero"},
                "an item without interactions is left out (`skip`) or counts 0 (`zero`, MS "
                "Recommenders)",
            ),
            _COUNT_PARAM,
            Param(
                "model",
                "choice",
                {"choice": "choice", "discovery": "discovery"},
                "`choice`: p = pop / Σ pop (MS Recommenders); `discovery`: p = pop / users",
                scope="table",
            ),
        ),
        relevance_level=False,
        columns=("rank", "self_information"),
        table="recommendations",
        inputs=("interactions",),
        aliases=(_a("novelty"),),
        reference="MS Recommenders historical_item_novelty (per item); its novelty averages "
        "over all recommendations with unknown=zero",
    ),
    Metric(
        "average_popularity",
        rs.average_popularity,
        "mean popularity of the top-k items (0 for an item without interactions)",
        cutoff="optional",
        params=(_COUNT_PARAM,),
        relevance_level=False,
        columns=("rank", "popularity"),
        table="recommendations",
        inputs=("interactions",),
        title="average recommendation popularity",
        aliases=(
            _a("arp"),
            _a("average_popularity"),
            _a("AveragePopularity", "recbole", count="interactions"),
        ),
        reference="RecBole AveragePopularity (count=interactions)",
    ),
    Metric(
        "long_tail_share",
        rs.long_tail_share,
        "share of the top-k items in the long tail: outside the ⌊head_share · n⌋ most popular "
        "of the n items with interactions (or tail_share / tail_popularity, RecBole)",
        cutoff="optional",
        params=(
            _COUNT_PARAM,
            Param(
                "head_share",
                0.2,
                doc="the head: this share of the items, most popular first",
                valid=lambda v: 0.0 <= v <= 1.0,
                valid_doc="in [0, 1]",
                scope="table",
                examples=("0.1", "0.5"),
            ),
            Param(
                "tail_share",
                None,
                doc="instead, the tail: max(⌊share · n⌋, 1) least popular items (RecBole)",
                valid=lambda v: 0.0 < v <= 1.0,
                valid_doc="in (0, 1]",
                scope="table",
                examples=("0.1", "0.3"),
            ),
            Param(
                "tail_popularity",
                None,
                doc="instead, the tail: items with popularity ≤ this (RecBole)",
                valid=lambda v: v >= 0,
                valid_doc="non-negative",
                scope="table",
                examples=("1", "3"),
            ),
            Param(
                "unknown",
                True,
                {"tail": True, "head": False},
                "an item without interactions is `tail` (default) or `head` (RecBole)",
                scope="table",
            ),
        ),
        relevance_level=False,
        columns=("rank", "in_tail"),
        table="recommendations",
        inputs=("interactions",),
        title="long-tail share (APLT)",
        aliases=(
            _a("aplt"),
            _a("long_tail_share"),
            _a(
                "TailPercentage",
                "recbole",
                tail_share=0.1,
                unknown=False,
                count="interactions",
            ),
        ),
        reference="RecBole TailPercentage (tail_share or tail_popularity, unknown=head, "
        "count=interactions)",
    ),
    Metric(
        "intra_list_diversity",
        rs.user_diversity,
        "1 − Σ_{i<j} sim(i, j) / C(n, 2) over the n top-k items (null for n < 2); sim: cosine "
        "of vectors or categories, Jaccard of categories, or a similarity table (missing 0)",
        cutoff="optional",
        params=(
            Param(
                "similarity",
                "cosine",
                {"cosine": "cosine", "jaccard": "jaccard"},
                "for category features: `cosine` of multi-hot vectors or `jaccard`",
                variants=("categories",),
            ),
        ),
        relevance_level=False,
        columns=(),
        tables=("top", "item_features"),
        variants=rs.features.KINDS,
        table="recommendations",
        inputs=("item_features",),
        title="intra-list diversity",
        aliases=(
            _a("ild"),
            _a("intra_list_diversity"),
            _a("diversity", "recommenders"),
        ),
        reference="MS Recommenders user_diversity / diversity",
    ),
    Metric(
        "serendipity",
        rs.user_serendipity,
        "mean over the top-k items of (1 − mean_{j ∈ history} sim(i, j)) · gain, gain from the "
        "qrels (binary, graded or none); null without history",
        cutoff="optional",
        params=(
            Param(
                "gain",
                "binary",
                {"binary": "binary", "graded": "graded", "none": "none"},
                "relevance factor: `binary` (grade ≥ level), `graded` (the grade) or `none` "
                "(1, MS Recommenders without relevance)",
            ),
        ),
        columns=(),
        tables=("top", "interactions", "item_features"),
        variants=rs.features.KINDS,
        table="recommendations",
        inputs=("interactions", "item_features"),
        needs_qrels=lambda a: a["gain"] != "none",
        aliases=(_a("serendipity", "recommenders"),),
        reference="MS Recommenders user_serendipity / serendipity",
    ),
)

#: Every ranking metric by canonical name, in the order of the README's tables.
REGISTRY: dict[str, Metric] = {entry.name: entry for entry in _ENTRIES}


def _alias_table() -> dict[str, tuple[Metric, dict[str, Any]]]:
    table: dict[str, tuple[Metric, dict[str, Any]]] = {}
    for entry in _ENTRIES:
        for alias in entry.aliases:
            key = alias.name.lower()
            if key in table and table[key] != (entry, dict(alias.fixed)):
                raise AssertionError(f"metric name {alias.name!r} is registered twice")
            table[key] = (entry, dict(alias.fixed))
    return table


#: Lower-case name → (metric, the parameters the name fixes).
ALIASES: dict[str, tuple[Metric, dict[str, Any]]] = _alias_table()


def metrics() -> Iterator[Metric]:
    """Every registered metric, in registry order."""
    return iter(_ENTRIES)


def names() -> list[str]:
    """Every accepted metric name (one spelling each), sorted case-insensitively."""
    spellings = {a.name.lower(): a.name for e in _ENTRIES for a in e.aliases}
    return sorted(spellings.values(), key=lambda n: (n.lower(), n))


def trec_eval_names() -> dict[str, tuple[Metric, TrecEval]]:
    """trec_eval measure name → (metric, how trec_eval prints it): the only way the trec_eval
    drop-in finds a metric (its ``rbp`` is ``trec_rbp``, whatever the generic ``rbp`` means).

    >>> trec_eval_names()["rbp"][0].name
    'trec_rbp'
    """
    table: dict[str, tuple[Metric, TrecEval]] = {}
    for entry in _ENTRIES:
        for trec in entry.trec_eval:
            if trec.name in table:
                raise AssertionError(f"trec_eval measure {trec.name!r} is registered twice")
            table[trec.name] = (entry, trec)
    return table


# ------------------------------------------------------------------------------------------
# summary rules


def summary_expr(rule: Summary, column: str, query: str = "query") -> pl.Expr:
    """How the per-query values in ``column`` become the summary value: their mean, their sum
    (counts), or trec_eval's geometric mean exp(mean(ln(max(x, 1e-5)))), over the non-null
    values (a recommender metric is null where it is undefined, e.g. ILD of one item).

    The values are added one after the other in query order, as trec_eval adds them, so the
    result does not depend on the order in which an engine produced the queries: repeatable to
    the last bit. (A running sum keeps the order: Polars may drop a sort before a plain sum.)
    """
    if rule == "none":
        raise ValueError(f"{column}: a metric without a summary has no summary expression")
    values = pl.col(column).sort_by(query).drop_nulls()  # undefined values: out of the mean
    if rule == "gmean":
        values = values.clip(lower_bound=GM_FLOOR).log()
    total = values.cum_sum().last()
    if rule == "sum":
        return total.fill_null(0.0).cast(pl.Float64).alias(column)
    mean = total / values.count()
    return (mean.exp() if rule == "gmean" else mean).alias(column)


def summary_sql(rule: Summary, column: str, where: str = "true", query: str = "query") -> str:
    """The SQL aggregate of :func:`summary_expr` over the rows where ``where`` holds, in query
    order (a sum over no row is 0, as Polars' sum)."""
    from polars_rank.core.sqltext import ident, literal

    quoted, order = ident(column), f"ORDER BY {ident(query)}"
    if rule == "none":
        raise ValueError(f"{column}: a metric without a summary has no summary aggregate")
    if rule == "sum":
        return f"CAST(coalesce(sum({quoted} {order}) FILTER (WHERE {where}), 0) AS DOUBLE)"
    if rule == "gmean":
        floor = literal(GM_FLOOR)
        return f"exp(avg(ln(greatest({quoted}, {floor})) {order}) FILTER (WHERE {where}))"
    return f"avg({quoted} {order}) FILTER (WHERE {where})"


# ------------------------------------------------------------------------------------------
# tables for the README (tests keep the README equal to these)


def _code(text: str) -> str:
    return f"`{text}`"


def alias_parameters(entry: Metric, alias: Alias) -> list[str]:
    """The parameters a name fixes, as a user writes them: ``gain=exponential``, ``base=e``."""

    def shown(name: str, value: Any) -> str:
        spellings = entry.param[name].spellings or {}
        spelled = [k for k, v in spellings.items() if v == value and type(v) is type(value)]
        if value in spelled:  # the value is its own spelling: gain=exponential
            return str(value)
        return spelled[0] if spelled else ("e" if value == math.e else str(value))

    return [f"{k}={shown(k, v)}" for k, v in alias.fixed]


def _spelled(entry: Metric, alias: Alias) -> str:
    """How a name is written with its cutoff: ``P@k``, ``RR``/``RR@k``, ``IPrec@x``."""
    fixed = ", ".join(alias_parameters(entry, alias))
    note = f" ({fixed})" if fixed else ""
    if entry.cutoff == "optional":
        return f"{_code(alias.name)}, {_code(alias.name + '@k')}{note}"
    suffix = {"required": "@k", "recall": "@x"}.get(entry.cutoff, "")
    return _code(alias.name + suffix) + note


def _trec_spelled(entry: Metric, trec: TrecEval) -> str:
    """A trec_eval measure as ``-m`` takes it: ``P.k`` (cutoffs), ``iprec_at_recall.x``."""
    if not trec.cutoffs:
        return _code(trec.name)
    return _code(trec.name + (".k" if entry.cutoff in ("required", "optional") else ".x"))


def _param_cells(e: Metric) -> list[str]:
    params = {"required": ["`k`"], "optional": ["`k` (optional)"], "recall": ["`x` in [0, 1]"]}
    shown = list(params.get(e.cutoff, []))
    for p in e.params:
        default = p.default
        if p.spellings is not None:  # the spelling of the default
            default = next((k for k, v in p.spellings.items() if v == default), default)
        note = f" (default {default})" if default is not None and e.table != "judged" else ""
        shown.append(f"`{p.name}`: {p.doc}{note}" if p.doc else f"`{p.name}`{note}")
    if e.relevance_level:
        shown.append("`rel` (only when given)" if e.explicit_level else "`rel`")
    return shown


def markdown_metric_table() -> str:
    """The README's metric table of the ranking metrics: function, parameters, definition
    and summary."""
    lines = [
        "| metric | function | parameters | definition | summary over queries |",
        "| --- | --- | --- | --- | --- |",
    ]
    for e in _ENTRIES:
        if e.table != "judged":
            continue
        summary = {"mean": "mean", "sum": "sum", "gmean": "geometric mean", "none": "none"}[
            e.summary
        ]
        lines.append(
            f"| {e.title or e.name} | `{e.python_signature()}` | "
            f"{'; '.join(_param_cells(e)) or '—'} | {e.formula} | {summary} |"
        )
    return "\n".join(lines) + "\n"


def markdown_recommender_table() -> str:
    """The README's table of the recommender metrics: names, inputs, level, parameters,
    definition and the reference each matches."""
    lines = [
        "| metric | names | needs | per query | parameters | definition | matches |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for e in _ENTRIES:
        if e.table != "recommendations":
            continue
        names = ", ".join(_spelled(e, a) for a in e.aliases)
        needs = ", ".join(f"`{i}`" for i in e.inputs) or "—"
        if e.needs_qrels is not None:
            needs += " (+ qrels for relevance)"
        per_query = "yes" if e.level == "query" else "no (one value)"
        lines.append(
            f"| {e.title or e.name} (`{e.python_signature()}`) | {names} | {needs} | "
            f"{per_query} | {'; '.join(_param_cells(e))} | {e.formula} | {e.reference} |"
        )
    return "\n".join(lines) + "\n"


def markdown_names_table() -> str:
    """The README's table of the names each tool uses for each ranking metric (all accepted
    here)."""
    lines = [
        "| polars_rank | trec_eval (`-m`) | ir_measures | ranx | also accepted |",
        "| --- | --- | --- | --- | --- |",
    ]
    for e in _ENTRIES:
        if e.table != "judged":
            continue
        cells = [", ".join(_trec_spelled(e, t) for t in e.trec_eval) or "—"]
        cells += [
            ", ".join(_spelled(e, a) for a in e.aliases if tool in a.tools) or "—"
            for tool in ("ir_measures", "ranx")
        ]
        cells.append(", ".join(_spelled(e, a) for a in e.aliases if not a.tools) or "—")
        lines.append(f"| `{e.python_signature()}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def markdown_macro_table(table: Table = "judged") -> str:
    """The README's table of the SQL macros of the ranking (``table="judged"``) or the
    recommender metrics (one line per variant)."""
    lines = ["| macro | parameters | value |", "| --- | --- | --- |"]
    seen: set[str] = set()
    for e in _ENTRIES:
        if e.table != table:
            continue
        for macro, variant in e.sql_macros():
            if macro in seen:
                continue
            seen.add(macro)
            signature = f"`{e.sql_signature(variant)}`" if e.parameters(variant) else "—"
            lines.append(f"| `{macro}` | {signature} | {e.formula} |")
    return "\n".join(lines) + "\n"
