"""Each registry metric as portable SQL: one builder per metric, in :data:`BUILDERS`.

A builder takes a :class:`~.parts.Parts` and the metric's arguments by keyword — exactly the
names of its registry entry's parameters besides the columns (``k``, ``relevance_level``,
``gain``, ...; what :meth:`MetricSpec.arguments` gives) — and returns the metric's value for
one query as SQL arithmetic over the parts it asked for (base dialect, DOUBLE). It never writes
dialect-specific SQL: :mod:`.dialects` renders the whole query for each dialect.

**Adding a metric**: after its registry entry, Polars function and macro, write its builder
here with ``@builds("<registry name>")``. ``tests/compiler/test_compiler.py`` fails, naming the
metric, while a registry entry has no builder or a builder's parameters differ from its entry's;
the parity tests then run it on DuckDB, PostgreSQL, Spark and the transpiled dialects against
the Polars engine. If a metric needs a per-row quantity that :class:`~.parts.Parts` lacks, add
it there as a window over ``pr_rows`` (see that module for the columns a row has).

>>> from polars_rank.compiler.parts import Parts
>>> BUILDERS["precision"](Parts(), k=10, relevance_level=1)
'CAST(c1 AS DOUBLE) / CAST(10 AS DOUBLE)'
"""

from __future__ import annotations

from collections.abc import Callable

from polars_rank.compiler.parts import (
    ONE,
    ZERO,
    Parts,
    dbl,
    div,
    log2,
    num,
    round_half_away,
    table_gain,
    within,
)
from polars_rank.core.errors import PolarsRankError
from polars_rank.ranking import trec_metrics
from polars_rank.ranking.gains import NEGATIVE_LEVEL, Gains, gain_table
from polars_rank.ranking.metrics import _check_points, check_max_grade, check_persistence
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
def ndcg(q: Parts, *, k: int | None, gain: str, gains: Gains | None) -> str:
    """DCG@k / IDCG@k (IDCG from all judgments)."""
    return div(_dcg_part(q, k, gain, gains), _ideal_dcg_part(q, k, gain, gains))


@builds("dcg")
def dcg(q: Parts, *, k: int | None, gain: str, gains: Gains | None) -> str:
    """Σ within k of gain / log2(rank + 1)."""
    return dbl(_dcg_part(q, k, gain, gains))


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


@builds("fallout")
def fallout(q: Parts, *, k: int | None, relevance_level: float) -> str:
    """Judged non-relevant documents within k / the query's judged non-relevant (0 if none)."""
    nonrel = q.nonrelevant(relevance_level)
    found = q.aggregate(f"SUM(CASE WHEN {within(k)} THEN {nonrel} ELSE 0 END)")
    return div(found, q.aggregate(f"SUM({nonrel})"))


@builds("query_auc")
def query_auc(q: Parts, *, k: int | None, relevance_level: float) -> str:
    """(P·M − (Σ r_j − P(P+1)/2)) / (P·M) over the top k: P relevant at ranks r_j, M others;
    0 when P·M is 0. Whole numbers until the one division."""
    rel = q.relevant(relevance_level)
    p = dbl(q.hits(relevance_level, k))
    shown = q.n_ret() if k is None else f"LEAST({q.n_ret()}, {int(k)})"
    m = f"({dbl(shown)} - {p})"
    ranks = dbl(q.aggregate(f"SUM(CASE WHEN {within(k)} AND {rel} = 1 THEN pos ELSE 0 END)"))
    pairs = f"{p} * {m}"
    return div(f"{pairs} - ({ranks} - {p} * ({p} + {ONE}) / {num(2)})", pairs)


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


# group A: gain tables, IDCG, 11pt_avg points, ERR, RBP, and trec_eval's other measures -------


def _gain_sql(gain: str, gains: Gains | None) -> str | None:
    """The SQL gain of a row under the gain table ``gains`` (None without one)."""
    table = gain_table(gains, "gains")
    if table is None:
        return None
    if gain != "linear":
        raise PolarsRankError("gains (a gain table) cannot be combined with gain='exponential'")
    return table_gain(table)


def _dcg_part(q: Parts, k: int | None, gain: str, gains: Gains | None) -> str:
    g = _gain_sql(gain, gains)
    return q.dcg(k, gain) if g is None else q.dcg_of(g, k)


def _ideal_dcg_part(q: Parts, k: int | None, gain: str, gains: Gains | None) -> str:
    g = _gain_sql(gain, gains)
    if g is None:
        return q.ideal_dcg(k, gain)
    # only the positive gains of grades >= 0 enter the ideal ranking
    return q.ideal_dcg_of(f"CASE WHEN grade >= 0 AND {g} > 0 THEN {g} ELSE {ZERO} END", k)


@builds("ideal_dcg")
def ideal_dcg(q: Parts, *, k: int | None, gain: str, gains: Gains | None) -> str:
    """DCG of all judgments sorted by gain (positive gains of grades >= 0), cut at k."""
    return dbl(_ideal_dcg_part(q, k, gain, gains))


@builds("eleven_pt_avg")
def eleven_pt_avg(q: Parts, *, points: tuple[float, ...], relevance_level: float) -> str:
    """Mean of the interpolated precisions at the points, added from the last; each point x
    needs c = round(x·R) (halves away from zero) relevant documents. Points out of order follow
    trec_eval's backward walk (see :func:`polars_rank.ranking.metrics.eleven_pt_avg`): trailing
    points with c above the relevant retrieved count 0; walking back from the last other point,
    a point is matched while 1 <= c <= the next point's c; the first that is not, and all before
    it, count the highest precision."""
    xs = _check_points(points)
    rel, above = q.relevant(relevance_level), q.rel_above(relevance_level)
    big_r = q.big_r(relevance_level)
    precision = f"{dbl(above)} / {dbl('pos')}"
    retrieved_rel = f"{rel} = 1 AND pos IS NOT NULL"
    row_cuts = [round_half_away(f"{num(x)} * {dbl(big_r)}") for x in xs]
    iprec = [
        f"COALESCE({q.aggregate(f'MAX(CASE WHEN {retrieved_rel} AND {above} >= {c} THEN {precision} END)')}, {ZERO})"  # noqa: E501
        for c in row_cuts
    ]
    if all(a <= b for a, b in zip(xs, xs[1:], strict=False)):
        values = iprec
    else:
        n = len(xs)
        cuts = [q.aggregate(f"MAX({c})") for c in row_cuts]  # c of each point, per query
        found = q.hits(relevance_level, None)
        top = q.aggregate(f"MAX(CASE WHEN {retrieved_rel} THEN {precision} END)")
        top = f"COALESCE({top}, {ZERO})"
        # skipped[j]: every point from j on needs more relevant documents than were retrieved
        skipped = [" AND ".join(f"{cuts[i]} > {found}" for i in range(j, n)) for j in range(n)]
        skipped.append("1 = 1")
        # matched[j] (when point j is not skipped): j and the points after it up to the last
        # one not skipped are matched in the backward walk
        matched = [f"{cuts[n - 1]} >= 1"]
        for j in range(n - 2, -1, -1):
            matched.insert(
                0,
                f"{cuts[j]} >= 1 AND (({skipped[j + 1]}) OR "
                f"({cuts[j]} <= {cuts[j + 1]} AND {matched[0]}))",
            )
        values = [
            f"CASE WHEN {skipped[j]} THEN {ZERO} WHEN {matched[j]} THEN {iprec[j]} ELSE {top} END"
            for j in range(n)
        ]
    return f"({' + '.join(reversed(values))}) / {num(len(xs))}"


@builds("err")
def err(q: Parts, *, k: int | None, max_grade: int) -> str:
    """Σ within k of R(g_r) / r · Π_{i<r} (1 − R(g_i)), R(g) = (2^g − 1) / 2^max_grade with g
    clipped to [0, max_grade]. The product over the ranks above is exact 0 when one of its
    factors is 0 (counted), else exp(Σ ln(1 − R)) over the others."""
    check_max_grade(max_grade)
    grade = f"LEAST(GREATEST(COALESCE(grade, {ZERO}), {ZERO}), {num(max_grade)})"
    stop = f"(POWER(CAST(2 AS DOUBLE), {grade}) - {ONE}) / {num(2.0 ** float(max_grade))}"
    stays = f"({ONE} - {stop})"
    certain = q.sum_above("err_stops", f"CASE WHEN {stays} <= 0 THEN {ONE} ELSE {ZERO} END")
    log_reach = q.sum_above("err_reach", f"CASE WHEN {stays} > 0 THEN LN({stays}) ELSE {ZERO} END")
    reach = f"CASE WHEN {certain} > 0 THEN {ZERO} ELSE EXP({log_reach}) END"
    term = f"{stop} * {reach} / {dbl('pos')}"
    return q.aggregate(f"SUM(CASE WHEN {within(k)} THEN {term} ELSE {ZERO} END)")


def _rbp_weight(p: float) -> str:
    """(1 − p) · p^(rank − 1)."""
    return f"({num(1.0 - float(p))} * POWER({num(p)}, {dbl('pos')} - {ONE}))"


@builds("rbp")
def rbp(q: Parts, *, k: int | None, p: float, relevance_level: float | None) -> str:
    """(1 − p) Σ within k of p^(r − 1) · gain: the grade when positive, or with the metric's
    own ``rel=`` 1 for a relevant document."""
    check_persistence(p)
    if relevance_level is None:
        gain_sql = f"CASE WHEN grade > 0 THEN grade ELSE {ZERO} END"
    else:
        gain_sql = dbl(q.relevant(relevance_level))
    term = f"{gain_sql} * {_rbp_weight(p)}"
    return q.aggregate(f"SUM(CASE WHEN {within(k)} THEN {term} ELSE {ZERO} END)")


@builds("rbp_residual")
def rbp_residual(q: Parts, *, k: int | None, p: float) -> str:
    """(1 − p^min(n, d)) − Σ over judged rows within d of (1 − p)·p^(r − 1) + p^d, d = k or
    the number retrieved n."""
    check_persistence(p, "rbp_residual")
    n = dbl(q.n_ret())
    depth = n if k is None else num(k)
    judged = q.aggregate(f"SUM(CASE WHEN {within(k)} THEN {_rbp_weight(p)} ELSE {ZERO} END)")
    seen = f"({ONE} - POWER({num(p)}, LEAST({n}, {depth})))"
    return f"{seen} - {judged} + POWER({num(p)}, {depth})"


@builds("gm_bpref")
def gm_bpref(q: Parts, *, relevance_level: float) -> str:
    """bpref per query (the geometric summary is the plan's)."""
    return bpref(q, relevance_level=relevance_level)


@builds("set_relative_precision")
def set_relative_precision(q: Parts, *, relevance_level: float) -> str:
    """Relevant retrieved / min(retrieved, R)."""
    size = f"LEAST({q.n_ret()}, {q.num_rel(relevance_level)})"
    return div(q.hits(relevance_level, None), size)


@builds("set_average_precision")
def set_average_precision(q: Parts, *, relevance_level: float) -> str:
    """Relevant retrieved² / (retrieved · R)."""
    h = dbl(q.hits(relevance_level, None))
    return div(f"{h} * {h}", f"{dbl(q.n_ret())} * {dbl(q.num_rel(relevance_level))}")


@builds("yaap")
def yaap(q: Parts, *, relevance_level: float) -> str:
    """ln((1 + S) / (1 + R − S)), S = Σ of the precision at each retrieved relevant rank."""
    rel = q.relevant(relevance_level)
    precision_at_rank = f"{dbl(q.rel_above(relevance_level))} / {dbl('pos')}"
    total = q.aggregate(
        f"SUM(CASE WHEN {rel} = 1 AND {within(None)} THEN {precision_at_rank} ELSE {ZERO} END)"
    )
    big_r = dbl(q.num_rel(relevance_level))
    return f"LN(({ONE} + {total}) / ({ONE} + {big_r} - {total}))"


@builds("r_precision_multiple")
def r_precision_multiple(q: Parts, *, multiple: float, relevance_level: float) -> str:
    """Relevant within c / c, c = ⌊multiple·R + 0.9⌋; 0 when c <= 0 (FLOOR and C's
    truncation differ only below 0, where both give 0)."""
    rel = q.relevant(relevance_level)
    cut = f"FLOOR({num(multiple)} * {dbl(q.big_r(relevance_level))} + {num(0.9)})"
    within_cut = q.aggregate(f"SUM(CASE WHEN pos <= {cut} THEN {rel} ELSE 0 END)")
    cut_per_query = q.aggregate(f"MAX({cut})")
    return div(within_cut, cut_per_query)


@builds("utility")
def utility(
    q: Parts, *, coefficients: tuple[float, ...], collection_size: int, relevance_level: float
) -> str:
    """p1·a + p2·b + p3·c + p4·d: a relevant retrieved, b = retrieved − a, c = R − a,
    d = collection_size + a − retrieved − R."""
    trec_metrics.utility(coefficients, collection_size=collection_size)  # checks the arguments
    p1, p2, p3, p4 = (num(x) for x in coefficients)
    a, n = dbl(q.hits(relevance_level, None)), dbl(q.n_ret())
    big_r = dbl(q.num_rel(relevance_level))
    d = f"({num(collection_size)} + {a} - {n} - {big_r})"
    return f"{p1} * {a} + {p2} * ({n} - {a}) + {p3} * ({big_r} - {a}) + {p4} * {d}"


@builds("binary_g")
def binary_g(q: Parts, *, relevance_level: float) -> str:
    """(1/R) Σ over retrieved relevant r of 1 / log2(2 + m), m = rank − relevant at or above
    (the documents above that are not relevant, unjudged included)."""
    rel = q.relevant(relevance_level)
    others_above = f"({dbl('pos')} - {dbl(q.rel_above(relevance_level))})"
    term = f"{ONE} / {log2(f'{num(2)} + {others_above}')}"
    total = q.aggregate(f"SUM(CASE WHEN {rel} = 1 AND pos IS NOT NULL THEN {term} ELSE {ZERO} END)")
    return div(total, q.num_rel(relevance_level))


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
    big_p = q.event_window(f"ev_p_{eset}", f"SUM(side) OVER (PARTITION BY {q.key}, eset)")
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
        f"ev_next_{eset}", f"LEAD(g) OVER (PARTITION BY {q.key}, eset, side ORDER BY ekey)"
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
