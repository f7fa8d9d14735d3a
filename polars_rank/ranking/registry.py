"""The metric registry: one entry per ranking metric, read by every other part of the package.

Each :class:`Metric` holds the canonical name (the Polars function's name), its names in other
tools (ir_measures, trec_eval, ranx, ...), its parameters with their choices and defaults,
whether it takes a cutoff and uses the relevance level, its summary rule over queries, its
Polars builder, and its SQL macro (name and parameters). The name parser, both engines, the
trec_eval drop-in, the parity tests and the README's metric tables are built from it; tests
check that each entry agrees with its Polars function's signature and its macro's parameters.

Adding a metric = one entry here, a Polars function in :mod:`.metrics`, and a macro in
``sql/ranking.sql``.

>>> print(REGISTRY["average_precision"].sql_signature())
rank, relevance, k := NULL, denominator := 'R', relevance_level := 1
>>> [a.name for a in REGISTRY["reciprocal_rank"].aliases]
['RR', 'recip_rank', 'mrr', 'MRR', 'reciprocal_rank']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from polars_rank.ranking import metrics as m

Summary = Literal["mean", "sum", "gmean"]
Cutoff = Literal["required", "optional", "none", "recall"]
Tool = Literal["ir_measures", "trec_eval", "ranx", "other"]

#: trec_eval's floor for the geometric mean of a per-query value (``gm_map``).
GM_FLOOR = 1e-5

#: trec_eval's default cutoffs for ``P``, ``recall``, ``ndcg_cut``, ``map_cut``, ``relative_P``.
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

#: Marks a parameter without a default (given by position).
REQUIRED = object()


@dataclass(frozen=True)
class Param:
    """A parameter of a metric besides its cutoff, the relevance level and the columns.

    ``spellings`` maps each accepted spelling (lower case) to the value it stands for; a
    parameter without spellings takes a number.
    """

    name: str
    default: Any
    spellings: Mapping[str, Any] | None = None
    doc: str = ""

    def parse(self, text: str) -> Any:
        """The value of a spelling (``"exp"`` → ``"exponential"``) or a number; raises
        ``ValueError`` (with the accepted spellings) for anything else."""
        raw = text.strip().strip("'\"")
        if self.spellings is not None:
            if raw.lower() not in self.spellings:
                raise ValueError(f"choose from {sorted(self.spellings)}")
            return self.spellings[raw.lower()]
        return float(raw)


@dataclass(frozen=True)
class Alias:
    """A name a metric is known by, the tools that use it, and parameters it fixes."""

    name: str
    tools: tuple[Tool, ...] = ()
    fixed: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class TrecEval:
    """How trec_eval names a metric: its measure name, default cutoffs (or recall levels),
    and whether it is printed for each query (``-q``) or only in the summary."""

    name: str
    cutoffs: tuple[float, ...] = ()
    per_query: bool = True


@dataclass(frozen=True)
class Metric:
    """One ranking metric: definition, names, parameters, summary rule and implementations."""

    name: str
    polars: Callable[..., pl.Expr]
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
    #: The relevance level applies only when the name gives one, ``(rel=N)``; without it the
    #: metric counts every document (evaluate's ``relevance_level`` does not apply) and its
    #: ``relevance`` column may be left out in SQL.
    explicit_level: bool = False

    @property
    def sql_macro(self) -> str:
        """The SQL macro computing this metric (quoted when it is an SQL keyword)."""
        return self.macro or self.name

    @property
    def sql_builder(self) -> Callable[..., str]:
        """Its portable SQL (:func:`polars_rank.to_sql`): the builder registered for this name
        in ``polars_rank/ranking/sql/builders.py``."""
        from polars_rank.ranking.sql.builders import BUILDERS

        return BUILDERS[self.name]

    @property
    def param(self) -> dict[str, Param]:
        """Parameters by name."""
        return {p.name: p for p in self.params}

    def parameters(self) -> list[tuple[str, Any]]:
        """``(name, default)`` of every parameter the implementations take, in SQL order:
        columns, required arguments, then optional ones; ``REQUIRED`` marks no default."""
        optional = ("relevance",) if self.explicit_level else ()
        out: list[tuple[str, Any]] = [
            (c, None if c in optional else REQUIRED) for c in self.columns
        ]
        if self.cutoff == "required":
            out.append(("k", REQUIRED))
        elif self.cutoff == "recall":
            out.append(("recall_level", REQUIRED))
        elif self.cutoff == "optional":
            out.append(("k", None))
        out += [(p.name, p.default) for p in self.params]
        if self.relevance_level:
            out.append(("relevance_level", None if self.explicit_level else 1))
        return out

    def sql_signature(self) -> str:
        """The macro's parameter list as written in ``sql/ranking.sql``."""

        def shown(value: Any) -> str:
            if value is None:
                return "NULL"
            return f"'{value}'" if isinstance(value, str) else repr(value)

        return ", ".join(
            name if default is REQUIRED else f"{name} := {shown(default)}"
            for name, default in self.parameters()
        )

    def python_signature(self) -> str:
        """The Polars function's call with its first argument, e.g. ``ndcg(k)``."""
        if self.cutoff in ("required", "optional"):
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
    )


def _a(name: str, *tools: Tool, **fixed: Any) -> Alias:
    return Alias(name, tools, tuple(sorted(fixed.items())))


_AP_DENOMINATOR = Param(
    "denominator",
    "R",
    {"r": "R", "min": "min(k,R)", "min(k,r)": "min(k,R)", "mink": "min(k,R)"},
    "`R` (trec_eval) or `min(k,R)` (Spark, recommender libraries)",
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
        aliases=(_a("R", "ir_measures"), _a("recall", "trec_eval", "ranx")),
        trec_eval=(TrecEval("recall", TREC_CUTOFFS),),
    ),
    Metric(
        "recall_cap",
        m.recall_cap,
        "relevant in the top k / min(k, R) (BEIR's R_cap)",
        cutoff="required",
        title="capped recall",
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
        aliases=(_a("gm_map", "trec_eval"), _a("GMAP"), _a("gm_ap")),
        trec_eval=(TrecEval("gm_map", per_query=False),),
    ),
    Metric(
        "ndcg",
        m.ndcg,
        "DCG@k / IDCG@k; IDCG from **all** judged documents sorted by gain, cut at k; "
        "0 when IDCG = 0; ignores the relevance level",
        cutoff="optional",
        params=(_gain_param(),),
        relevance_level=False,
        title="nDCG",
        aliases=(
            _a("nDCG", "ir_measures"),
            _a("ndcg", "trec_eval", "ranx"),
            _a("ndcg_cut", "trec_eval"),
            _a("ndcg_burges", "ranx", gain="exponential"),
            _a("nDCG_burges", gain="exponential"),
        ),
        trec_eval=(TrecEval("ndcg"), TrecEval("ndcg_cut", TREC_CUTOFFS)),
    ),
    Metric(
        "dcg",
        m.dcg,
        "Σ over ranks i ≤ k of gain / log2(i + 1); gain = grade (negatives and unjudged 0)",
        cutoff="optional",
        params=(_gain_param(),),
        relevance_level=False,
        title="DCG",
        aliases=(
            _a("DCG"),
            _a("dcg", "ranx"),
            _a("dcg_burges", "ranx", gain="exponential"),
        ),
    ),
    Metric(
        "r_precision",
        m.r_precision,
        "relevant in the top R / R; 0 when R = 0",
        title="R-precision",
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
        trec_eval=(TrecEval("set_F"),),
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
        "mean of IPrec at recall 0.0, 0.1, …, 1.0",
        title="11-point average",
        aliases=(_a("11pt_avg", "trec_eval"), _a("eleven_pt_avg"), _a("11-pt_avg")),
        trec_eval=(TrecEval("11pt_avg"),),
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
    """trec_eval measure name → (metric, how trec_eval prints it)."""
    return {t.name: (e, t) for e in _ENTRIES for t in e.trec_eval}


# ------------------------------------------------------------------------------------------
# summary rules


def summary_expr(rule: Summary, column: str, query: str = "query") -> pl.Expr:
    """How the per-query values in ``column`` become the summary value: their mean, their sum
    (counts), or trec_eval's geometric mean exp(mean(ln(max(x, 1e-5)))).

    The values are added one after the other in query order, as trec_eval adds them, so the
    result does not depend on the order in which an engine produced the queries: repeatable to
    the last bit. (A running sum keeps the order: Polars may drop a sort before a plain sum.)
    """
    values = pl.col(column).sort_by(query)
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
    from polars_rank._sql import ident, literal

    quoted, order = ident(column), f"ORDER BY {ident(query)}"
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


def _spelled(entry: Metric, alias: Alias, tool: str) -> str:
    """How a name is written with its cutoff: ``P@k``, ``RR``/``RR@k``, ``IPrec@x``; in
    trec_eval's column ``P.k`` (a measure with cutoffs) or ``map``."""
    fixed = ", ".join(f"{k}={v}" for k, v in alias.fixed)
    note = f" ({fixed})" if fixed else ""
    if tool == "trec_eval":
        trec = {t.name: t for t in entry.trec_eval}.get(alias.name)
        if trec is not None and trec.cutoffs:
            return _code(alias.name + (".x" if entry.cutoff == "recall" else ".k")) + note
        return _code(alias.name) + note
    if entry.cutoff == "optional":
        return f"{_code(alias.name)}, {_code(alias.name + '@k')}{note}"
    suffix = {"required": "@k", "recall": "@x"}.get(entry.cutoff, "")
    return _code(alias.name + suffix) + note


def markdown_metric_table() -> str:
    """The README's metric table: function, parameters, definition and summary of each metric."""
    lines = [
        "| metric | function | parameters | definition | summary over queries |",
        "| --- | --- | --- | --- | --- |",
    ]
    for e in _ENTRIES:
        params = {"required": ["`k`"], "optional": ["`k` (optional)"], "recall": ["`x` in [0, 1]"]}
        shown = list(params.get(e.cutoff, []))
        shown += [f"`{p.name}`: {p.doc}" if p.doc else f"`{p.name}`" for p in e.params]
        if e.relevance_level:
            shown.append("`rel` (only when given)" if e.explicit_level else "`rel`")
        summary = {"mean": "mean", "sum": "sum", "gmean": "geometric mean"}[e.summary]
        lines.append(
            f"| {e.title or e.name} | `{e.python_signature()}` | {'; '.join(shown) or '—'} | "
            f"{e.formula} | {summary} |"
        )
    return "\n".join(lines) + "\n"


def markdown_names_table() -> str:
    """The README's table of the names each tool uses for each metric (all accepted here)."""
    lines = [
        "| polars_rank | trec_eval (`-m`) | ir_measures | ranx | also accepted |",
        "| --- | --- | --- | --- | --- |",
    ]
    for e in _ENTRIES:
        cells = [
            ", ".join(_spelled(e, a, tool) for a in e.aliases if tool in a.tools) or "—"
            for tool in ("trec_eval", "ir_measures", "ranx")
        ]
        cells.append(", ".join(_spelled(e, a, "other") for a in e.aliases if not a.tools) or "—")
        lines.append(f"| `{e.python_signature()}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def markdown_macro_table() -> str:
    """The README's table of the SQL aggregate macros."""
    lines = ["| macro | parameters | value |", "| --- | --- | --- |"]
    seen: set[str] = set()
    for e in _ENTRIES:
        if e.sql_macro in seen:
            continue
        seen.add(e.sql_macro)
        signature = f"`{e.sql_signature()}`" if e.parameters() else "—"
        lines.append(f"| `{e.sql_macro}` | {signature} | {e.formula} |")
    return "\n".join(lines) + "\n"
