"""Each registry metric as portable SQL: one builder per metric, in :data:`BUILDERS`.

A builder takes a :class:`~.parts.Parts` and the metric's arguments by keyword — exactly the
names of its registry entry's parameters besides the columns (``k``, ``relevance_level``,
``gain``, ...; what :meth:`MetricSpec.arguments` gives) — and returns the metric's value for
one query as SQL arithmetic over the parts it asked for (base dialect, DOUBLE). It never writes
dialect-specific SQL: :mod:`.dialects` renders the whole query for each dialect.

**Adding a metric**: after its registry entry, Polars function and macro, write its builder
here with ``@builds("<registry name>")``. ``tests/test_sql_compiler.py`` fails, naming the
metric, while a registry entry has no builder or a builder's parameters differ from its entry's;
the parity tests then run it on DuckDB, PostgreSQL, Spark and the transpiled dialects against
the Polars engine. If a metric needs a per-row quantity that :class:`~.parts.Parts` lacks, add
it there as a window over ``pr_rows`` (see that module for the columns a row has).

>>> from polars_rank.ranking.sql.parts import Parts
>>> BUILDERS["precision"](Parts(), k=10, relevance_level=1)
'CAST(c1 AS DOUBLE) / CAST(10 AS DOUBLE)'
"""

from __future__ import annotations

from collections.abc import Callable

from polars_rank.ranking.gains import NEGATIVE_LEVEL, Gains, gain_table
from polars_rank.ranking.metrics import ELEVEN_POINTS
from polars_rank.ranking.sql.parts import ONE, ZERO, Parts, dbl, div, log2, num, within
from polars_rank.ranking.trec_metrics import INFAP_EPSILON

#: A builder: ``(parts, **arguments) -> SQL`` of the per-query value.
Builder = Callable[..., str]

#: Registry name -> builder of its portable SQL.
BUILDERS: dict[str, Builder] = {}


def builds(*names: str) -> Callable[[Builder], Builder]:
    """Register the decorated function as the builder of the registry metrics ``names``."""

    def register(builder: Builder) -> Builder:
        for name in names:
            if name in BUILDERS:
                raise AssertionError(f"metric {name!r} has two SQL builders")
            BUILDERS[name] = builder
        return builder

    return register


@builds("precision")
def precision(q: Parts, *, k: int | None, relevance_level: float) -> str:
    """Relevant within k / k; without k, relevant retrieved / retrieved (0 for none)."""
    if k is None:
        return div(q.hits(relevance_level, None), q.n_ret())
    return f"{dbl(q.hits(relevance_level, k))} / {num(k)}"


@builds("recall")
def recall(q: Parts, *, k: int | None, relevance_level: float) -> str:
    """Relevant within k / R."""
    return div(q.hits(relevance_level, k), q.num_rel(relevance_level))


@builds("recall_cap")
def recall_cap(q: Parts, *, k: int, relevance_level: float) -> str:
    """Relevant within k / min(k, R)."""
    return div(q.hits(relevance_level, k), f"LEAST({q.num_rel(relevance_level)}, {int(k)})")


@builds("hit_rate")
def hit_rate(q: Parts, *, k: int | None, relevance_level: float) -> str:
    """1 if a relevant document is within k."""
    return f"CASE WHEN {q.hits(relevance_level, k)} > 0 THEN {ONE} ELSE {ZERO} END"


@builds("hits")
def hits(q: Parts, *, k: int | None, relevance_level: float) -> str:
    """Relevant documents within k."""
    return dbl(q.hits(relevance_level, k))


@builds("reciprocal_rank")
def reciprocal_rank(q: Parts, *, k: int | None, relevance_level: float) -> str:
    """1 / rank of the first relevant document within k; 0 without one."""
    rel = q.relevant(relevance_level)
    first = q.aggregate(f"MIN(CASE WHEN {rel} = 1 AND {within(k)} THEN pos END)")
    return f"COALESCE({ONE} / {dbl(first)}, {ZERO})"


@builds("average_precision", "gm_map")
def average_precision(q: Parts, *, k: int | None, denominator: str, relevance_level: float) -> str:
    """Σ over relevant documents within k of (relevant at or above) / rank, over R (or over
    min(k, R) with ``denominator="min(k,R)"``)."""
    rel = q.relevant(relevance_level)
    precision_at_rank = f"{dbl(q.rel_above(relevance_level))} / {dbl('pos')}"
    total = q.aggregate(
        f"SUM(CASE WHEN {rel} = 1 AND {within(k)} THEN {precision_at_rank} ELSE {ZERO} END)"
    )
    big_r = q.num_rel(relevance_level)
    if denominator == "min(k,R)" and k is not None:
        big_r = f"LEAST({big_r}, {int(k)})"
    return div(total, big_r)


@builds("ndcg")
def ndcg(q: Parts, *, k: int | None, gain: str) -> str:
    """DCG@k / IDCG@k (IDCG from all judgments)."""
    return div(q.dcg(k, gain), q.ideal_dcg(k, gain))


@builds("dcg")
def dcg(q: Parts, *, k: int | None, gain: str) -> str:
    """Σ within k of gain / log2(rank + 1)."""
    return dbl(q.dcg(k, gain))


@builds("r_precision")
def r_precision(q: Parts, *, relevance_level: float) -> str:
    """Relevant within the top R / R."""
    rel = q.relevant(relevance_level)
    big_r = q.big_r(relevance_level)
    within_r = q.aggregate(f"SUM(CASE WHEN pos <= {big_r} THEN {rel} ELSE 0 END)")
    return div(within_r, q.num_rel(relevance_level))


@builds("bpref")
def bpref(q: Parts, *, relevance_level: float) -> str:
    """(1/R) Σ over retrieved relevant r of 1 − min(n_r, R) / min(N, R)."""
    rel = q.relevant(relevance_level)
    above = q.nonrel_above(relevance_level)
    big_r, big_n = q.big_r(relevance_level), q.big_n(relevance_level)
    penalty = f"{dbl(f'LEAST({above}, {big_r})')} / {dbl(f'LEAST({big_n}, {big_r})')}"
    term = f"CASE WHEN {above} > 0 THEN {ONE} - {penalty} ELSE {ONE} END"
    total = q.aggregate(f"SUM(CASE WHEN {rel} = 1 AND pos IS NOT NULL THEN {term} ELSE {ZERO} END)")
    return div(total, q.num_rel(relevance_level))


def _f_measure(p: str, r: str, beta: float) -> str:
    """(β + 1)·P·R / (β·P + R), 0 when the denominator is 0, in the Polars metrics' order."""
    return div(f"{num(beta + 1.0)} * {p} * {r}", f"{num(beta)} * {p} + {r}")


@builds("f1")
def f1(q: Parts, *, k: int | None, relevance_level: float) -> str:
    """2·P@k·R@k / (P@k + R@k); without k, P divides by the number retrieved."""
    h = q.hits(relevance_level, k)
    p = div(h, num(k) if k is not None else q.n_ret())
    return _f_measure(p, div(h, q.num_rel(relevance_level)), 1.0)


@builds("judged_fraction")
def judged_fraction(q: Parts, *, k: int | None) -> str:
    """Judged documents within k / min(k, retrieved)."""
    shown = q.n_ret() if k is None else f"LEAST({q.n_ret()}, {int(k)})"
    return div(q.judged_within(k), shown)


@builds("unjudged")
def unjudged(q: Parts, *, k: int) -> str:
    """(min(k, retrieved) − judged with a grade >= 0 within k) / k."""
    shown = f"LEAST({q.n_ret()}, {int(k)})"
    judged = q.judged_within(k, nonnegative=True)
    return f"({dbl(shown)} - {dbl(judged)}) / {num(k)}"


@builds("num_ret")
def num_ret(q: Parts, *, relevance_level: float | None) -> str:
    """Documents retrieved; with a level (only when the name gives one, ``NumRet(rel=N)``),
    retrieved documents with grade >= N."""
    if relevance_level is None:
        return dbl(q.n_ret())
    return dbl(q.hits(relevance_level, None))


@builds("num_rel")
def num_rel(q: Parts, *, relevance_level: float) -> str:
    """R."""
    return dbl(q.num_rel(relevance_level))


@builds("num_rel_ret")
def num_rel_ret(q: Parts, *, relevance_level: float) -> str:
    """Relevant documents retrieved."""
    return dbl(q.hits(relevance_level, None))


@builds("num_nonrel_judged_ret")
def num_nonrel_judged_ret(q: Parts, *, relevance_level: float) -> str:
    """Judged non-relevant documents retrieved."""
    nonrel = q.nonrelevant(relevance_level)
    return dbl(q.aggregate(f"SUM(CASE WHEN pos IS NOT NULL THEN {nonrel} ELSE 0 END)"))


@builds("num_q")
def num_q(q: Parts) -> str:
    """1 per query."""
    return ONE


@builds("set_precision")
def set_precision(q: Parts, *, relevance_level: float) -> str:
    """Relevant retrieved / retrieved."""
    return div(q.hits(relevance_level, None), q.n_ret())


@builds("set_recall")
def set_recall(q: Parts, *, relevance_level: float) -> str:
    """Relevant retrieved / R."""
    return div(q.hits(relevance_level, None), q.num_rel(relevance_level))


@builds("set_f")
def set_f(q: Parts, *, beta: float, relevance_level: float) -> str:
    """(β + 1)·P·R / (β·P + R) over the retrieved set."""
    p = set_precision(q, relevance_level=relevance_level)
    r = set_recall(q, relevance_level=relevance_level)
    return _f_measure(p, r, float(beta))


@builds("iprec_at_recall")
def iprec_at_recall(q: Parts, *, recall_level: float, relevance_level: float) -> str:
    """The highest precision at or after the c-th relevant retrieved document,
    c = max(1, floor(level·R + 0.5)) (trec_eval 10.0's lround); 0 without one."""
    rel, above, big_r = (
        q.relevant(relevance_level),
        q.rel_above(relevance_level),
        q.big_r(relevance_level),
    )
    needed = f"GREATEST(FLOOR({num(recall_level)} * {dbl(big_r)} + {num(0.5)}), {ONE})"
    best = q.aggregate(
        f"MAX(CASE WHEN {rel} = 1 AND pos IS NOT NULL AND {above} >= {needed} "
        f"THEN {dbl(above)} / {dbl('pos')} END)"
    )
    return f"COALESCE({best}, {ZERO})"


@builds("eleven_pt_avg")
def eleven_pt_avg(q: Parts, *, relevance_level: float) -> str:
    """Mean of IPrec at recall 0.0, 0.1, ..., 1.0."""
    total = " + ".join(
        iprec_at_recall(q, recall_level=p, relevance_level=relevance_level) for p in ELEVEN_POINTS
    )
    return f"({total}) / {num(len(ELEVEN_POINTS))}"


# group B: trec_eval's infAP, G, ndcg_rel, Rndcg, rbp and rbp_resid -----------------------------

_NAN = "CAST('NaN' AS DOUBLE)"
_INFINITY = "CAST('Infinity' AS DOUBLE)"


def _table_gain(gains: Gains | None) -> str:
    """A row's gain under a gain table (:func:`~polars_rank.ranking.gains.table_gain`): the
    entry of its level (its grade, -2 for any negative grade; a later entry wins where two
    match, as in the Polars chain), else its grade when >= 0, else 0 (also on the marker
    row)."""
    table = gain_table(gains) or {}
    cases = [
        f"WHEN {'grade < 0' if level == NEGATIVE_LEVEL else f'grade = {num(level)}'} "
        f"THEN {num(value)} "
        for level, value in reversed(table.items())
    ]
    return f"CASE {''.join(cases)}WHEN grade >= 0 THEN grade ELSE {ZERO} END"


@builds("inferred_ap")
def inferred_ap(q: Parts, *, relevance_level: float) -> str:
    """(1/R) Σ over retrieved relevant documents at rank j + 1 of 1 (j = 0), else
    1/(j+1) + (j/(j+1))·((r+n+u)/j)·((r+ε)/(r+n+2ε)); r, n, u the relevant, judged
    non-relevant and negative-graded documents above, ε = 1e-5."""
    rel = q.relevant(relevance_level)
    j = f"({dbl('pos')} - {ONE})"
    r = f"({dbl(q.rel_above(relevance_level))} - {ONE})"
    n, u = dbl(q.nonrel_above(relevance_level)), dbl(q.negative_above())
    eps = num(INFAP_EPSILON)
    later = (
        f"{ONE} / ({j} + {ONE}) + ({j} / ({j} + {ONE})) * (({r} + {n} + {u}) / {j}) "
        f"* (({r} + {eps}) / (({r} + {n}) + CAST(2 AS DOUBLE) * {eps}))"
    )
    term = f"CASE WHEN pos = 1 THEN {ONE} ELSE {later} END"
    total = q.aggregate(f"SUM(CASE WHEN {rel} = 1 AND pos IS NOT NULL THEN {term} ELSE {ZERO} END)")
    return div(total, q.num_rel(relevance_level))


def _rbp_range(table: dict[int, float], top: str) -> tuple[str, str]:
    """SQL of the smallest and largest gain of the query's trec_eval gain table (every entry,
    plus the default gain of each level 0 … ``top`` without one; see
    ``trec_metrics._table_range``); NULL when the table is empty and the query has no grade
    >= 0. Written with CASE, as LEAST/GREATEST treat NULL differently across dialects."""
    lowest_free = next(level for level in range(len(table) + 1) if level not in table)
    entries = list(table.values())
    levels = {level for level in table if level >= 0}

    def free_below(level: int) -> int:
        while level in levels:
            level -= 1
        return level

    high = "".join(f"WHEN {num(t)} THEN {num(free_below(t))} " for t in sorted(levels))
    high = f"(CASE {top} {high}ELSE {top} END)" if high else top
    if not entries:
        low_sql = f"CASE WHEN {top} >= {num(lowest_free)} THEN {num(lowest_free)} END"
        return low_sql, f"CASE WHEN {high} >= 0 THEN {high} END"
    low, entries_low = num(min(lowest_free, min(entries))), num(min(entries))
    low_sql = f"CASE WHEN {top} >= {num(lowest_free)} THEN {low} ELSE {entries_low} END"
    emax = num(max(entries))
    high_sql = f"CASE WHEN {high} >= 0 AND {high} > {emax} THEN {high} ELSE {emax} END"
    return low_sql, high_sql


@builds("trec_rbp")
def trec_rbp(q: Parts, *, p: float, gains: Gains | None) -> str:
    """(1 − p) Σ over retrieved documents of gain · p^(rank − 1), gains rescaled per query to
    (g − min) / (max − min) when the query's gain table has a gain < 0 or > 1."""
    table = gain_table(gains) or {}
    raw = _table_gain(gains)
    low, high = _rbp_range(table, q.top_grade())
    in_table = "grade >= 0" + (" OR grade < 0" if NEGATIVE_LEVEL in table else "")
    scaled = (
        f"CASE WHEN (({low}) < 0 OR ({high}) > 1) AND ({in_table}) THEN "
        f"CASE WHEN ({high}) > ({low}) THEN ({raw} - ({low})) / (({high}) - ({low})) "
        f"ELSE {_NAN} END ELSE {raw} END"
    )
    weight = f"POWER({num(p)}, {dbl('pos')} - {ONE})"
    total = q.aggregate(
        f"SUM(CASE WHEN pos IS NOT NULL THEN ({scaled}) * {weight} ELSE {ZERO} END)"
    )
    return f"({ONE} - {num(p)}) * {total}"


@builds("trec_rbp_residual")
def trec_rbp_residual(q: Parts, *, p: float) -> str:
    """1 − (1 − p) Σ over retrieved documents graded >= 0 of p^(rank − 1) when some retrieved
    document is unjudged or graded negative, else 0."""
    judged = "pos IS NOT NULL AND grade >= 0"
    seen = q.aggregate(
        f"SUM(CASE WHEN {judged} THEN POWER({num(p)}, {dbl('pos')} - {ONE}) ELSE {ZERO} END)"
    )
    count = q.judged_within(None, nonnegative=True)
    value = f"{ONE} - ({ONE} - {num(p)}) * {seen}"
    return f"CASE WHEN {count} < {q.n_ret()} THEN {value} ELSE {ZERO} END"


def _events(q: Parts, gains: Gains | None) -> tuple[int, str, str]:
    """(event set, retrieved-event condition, ideal-event condition) of a gain table."""
    eset = q.event_set(_table_gain(gains))
    return eset, f"eset = {eset} AND side = 0", f"eset = {eset} AND side = 1"


def _discounted(position: str) -> str:
    return f"g / {log2(dbl(position) + ' + ' + ONE)}"


@builds("normalized_gain")
def normalized_gain(q: Parts, *, gains: Gains | None) -> str:
    """Σ over retrieved documents at rank i with gain g_i ≠ 0 of g_i / log2(2 + C_i − S_i),
    over the sum of the ideal gains; S_i the gains through rank i, C_i = Σ over ideal
    positions <= i of max(ideal gain, 1) + max(i − P, 0), P positive ideal gains."""
    eset, retrieved, ideal = _events(q, gains)
    gained = q.event_running(eset, 0, "g", ideal_first=True)
    cost = q.event_running(eset, 1, f"CASE WHEN g >= {ONE} THEN g ELSE {ONE} END", ideal_first=True)
    big_p = q.event_window(f"ev_p_{eset}", "SUM(side) OVER (PARTITION BY qid, eset)")
    c = f"({cost} + {dbl(f'GREATEST(ekey - {big_p}, 0)')})"
    arg = f"((CAST(2 AS DOUBLE) + {c}) - {gained})"
    # IEEE as in the Polars engine, never a division error: log2(1) = 0 gives ±inf, log2(0)
    # = -inf gives 0, a negative argument NaN (only gains given to negative grades get there)
    term = (
        f"CASE WHEN {arg} > 0 AND {arg} <> 1 THEN g / {log2(arg)} "
        f"WHEN {arg} = 1 THEN CASE WHEN g > 0 THEN {_INFINITY} ELSE -{_INFINITY} END "
        f"WHEN {arg} = 0 THEN {ZERO} ELSE {_NAN} END"
    )
    total = q.event_aggregate(f"SUM(CASE WHEN {retrieved} AND g <> 0 THEN {term} ELSE {ZERO} END)")
    ideal_total = q.event_aggregate(f"SUM(CASE WHEN {ideal} THEN g ELSE {ZERO} END)")
    return div(total, ideal_total)


@builds("ndcg_rel")
def ndcg_rel(q: Parts, *, gains: Gains | None) -> str:
    """(Σ over retrieved documents with gain > 0 of D_i / I_min(i,P) + (P − their number) ·
    D_all / I_P) / P, 0 unless that sum is positive; D_i the DCG through rank i, I_k the
    ideal DCG through position k, P positive ideal gains."""
    eset, retrieved, ideal = _events(q, gains)
    dcg_through = q.event_running(eset, 0, _discounted("ekey"), ideal_first=True)
    ideal_through = q.event_running(eset, 1, _discounted("ekey"), ideal_first=True)
    terms = q.event_aggregate(
        f"SUM(CASE WHEN {retrieved} AND g > 0 THEN {div(dcg_through, ideal_through)} "
        f"ELSE {ZERO} END)"
    )
    found = q.event_aggregate(f"SUM(CASE WHEN {retrieved} AND g > 0 THEN 1 ELSE 0 END)")
    big_p = q.event_aggregate(f"SUM(CASE WHEN {ideal} THEN 1 ELSE 0 END)")
    dcg_all = q.event_aggregate(
        f"SUM(CASE WHEN {retrieved} THEN {_discounted('ekey')} ELSE {ZERO} END)"
    )
    ideal_all = q.event_aggregate(
        f"SUM(CASE WHEN {ideal} THEN {_discounted('ekey')} ELSE {ZERO} END)"
    )
    missed = dbl(f"{big_p} - {found}")
    total = f"({terms} + {div(f'{missed} * {dcg_all}', ideal_all)})"
    return f"CASE WHEN {big_p} > 0 AND {total} > 0 THEN {total} / {dbl(big_p)} ELSE {ZERO} END"


@builds("r_ndcg")
def r_ndcg(q: Parts, *, gains: Gains | None, relevance_level: float) -> str:
    """The mean of D_k / I_k over the ends k of the runs of equal positive ideal gains (D_k
    the DCG of the retrieved ranks <= k, I_k the ideal DCG through k), plus D_all / I_P when
    more than P + 1 documents were retrieved; 0 when R = 0; NaN when nothing is recorded."""
    eset, retrieved, ideal = _events(q, gains)
    dcg_through = q.event_running(eset, 0, _discounted("ekey"), ideal_first=False)
    ideal_through = q.event_running(eset, 1, _discounted("ekey"), ideal_first=False)
    following = q.event_window(
        f"ev_next_{eset}", "LEAD(g) OVER (PARTITION BY qid, eset, side ORDER BY ekey)"
    )
    run_end = f"{ideal} AND ({following} IS NULL OR {following} <> g)"
    recorded = q.event_aggregate(
        f"SUM(CASE WHEN {run_end} THEN {dcg_through} / {ideal_through} ELSE {ZERO} END)"
    )
    ends = q.event_aggregate(f"SUM(CASE WHEN {run_end} THEN 1 ELSE 0 END)")
    big_p = q.event_aggregate(f"SUM(CASE WHEN {ideal} THEN 1 ELSE 0 END)")
    dcg_all = q.event_aggregate(
        f"SUM(CASE WHEN {retrieved} THEN {_discounted('ekey')} ELSE {ZERO} END)"
    )
    ideal_all = q.event_aggregate(
        f"SUM(CASE WHEN {ideal} THEN {_discounted('ekey')} ELSE {ZERO} END)"
    )
    extra = f"{dbl(q.n_ret())} > {dbl(big_p)} + {ONE} AND {ideal_all} > 0"
    total = f"({recorded} + CASE WHEN {extra} THEN {dcg_all} / {ideal_all} ELSE {ZERO} END)"
    count = f"({ends} + CASE WHEN {extra} THEN 1 ELSE 0 END)"
    value = f"CASE WHEN {count} > 0 THEN {total} / {dbl(count)} ELSE {_NAN} END"
    return f"CASE WHEN {q.num_rel(relevance_level)} > 0 THEN {value} ELSE {ZERO} END"
