"""trec_eval 10.0's measures written out in plain Python, loop by loop as its C source computes
them: a reference for the property tests, independent of the package (which computes them as
Polars expressions and DuckDB macros over the compact judged table).

Each function names the trec_eval file it follows (github.com/usnistgov/trec_eval, version
10.0). The input of every measure is trec_eval's per-query ``RES_RELS`` (form_res_rels.c): the
retrieved documents' relevance values in rank order (the grade when >= 0, -2 for a negative
grade, -1 for a document missing from the judgments) and the count of judged documents at each
grade >= 0.

Not reproduced: the ``qsort`` of a gain table by ``(int)(g1 - g2)`` (gain_init.c), which leaves
gains less than 1 apart in the C library's order; tests keep such gains out. And trec_eval's
``rbp`` reads its gain table's minimum and maximum uninitialised (m_rbp.c); here they are the
table's, the evident intent, which trec_eval's own expected outputs show.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

NONPOOL = -1  # RELVALUE_NONPOOL: not in the judgments
UNJUDGED = -2  # RELVALUE_UNJUDGED: judged with a negative grade
INFAP_EPSILON = 1e-5  # trec_eval.h
MIN_GEO_MEAN = 1e-5  # trec_eval.h
BOGUS_DOC = "ceci_nest_pas_un_docno"  # trec_eval.c: a missing query's ranking under -c


@dataclass
class ResRels:
    """One query as trec_eval's measures see it (form_res_rels.c)."""

    rel_list: list[int]
    rel_levels: list[int] = field(default_factory=list)  # index: grade >= 0
    level: int = 1

    @property
    def num_ret(self) -> int:
        return len(self.rel_list)

    @property
    def num_rel(self) -> int:
        return sum(n for grade, n in enumerate(self.rel_levels) if grade >= self.level)

    @property
    def num_rel_ret(self) -> int:
        return sum(1 for r in self.rel_list if r >= self.level and r >= 0)

    @property
    def num_rel_levels(self) -> int:
        nonzero = [grade for grade, n in enumerate(self.rel_levels) if n]
        return nonzero[-1] + 1 if nonzero else 0

    def is_rel(self, value: int) -> bool:
        return value >= self.level and value >= 0


def res_rels(
    results: list[tuple[str, float]],
    judgments: dict[str, int],
    level: int,
    max_rank: int | None = None,
    judged_only: bool = False,
) -> ResRels:
    """form_res_rels.c: sort by score descending, ties by doc id descending (``strcmp``), keep
    the first ``max_rank`` (-M), look each document up in the judgments; with ``judged_only``
    (-J) drop the documents without a grade >= 0."""
    ranked = sorted(results, key=lambda x: x[0].encode(), reverse=True)
    ranked = sorted(ranked, key=lambda x: -x[1])  # stable: score ties keep doc order
    if max_rank is not None:
        ranked = ranked[:max_rank]
    rel_list = []
    for doc, _ in ranked:
        grade = judgments.get(doc)
        rel_list.append(NONPOOL if grade is None else UNJUDGED if grade < 0 else grade)
    if judged_only:
        rel_list = [r for r in rel_list if r >= 0]
    top = max([g for g in judgments.values() if g >= 0], default=-1)
    levels = [0] * (top + 1)
    for grade in judgments.values():
        if grade >= 0:
            levels[grade] += 1
    return ResRels(rel_list, levels, level)


def _div(a: float, b: float) -> float:
    """C's double division: x/0 is ±inf, 0/0 NaN (x86 prints it -nan)."""
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a)
    return a / b


def _log2(x: float) -> float:
    """C's log2: -inf at 0, NaN below."""
    if x == 0:
        return -math.inf
    return math.nan if x < 0 or math.isnan(x) else math.log2(x)


def lround(x: float) -> int:
    """C's lround: half away from zero."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


# --------------------------------------------------------------------------------------------
# the measures


def num_ret(rr: ResRels) -> float:  # m_num_ret.c
    return float(rr.num_ret)


def num_rel(rr: ResRels) -> float:  # m_num_rel.c
    return float(rr.num_rel)


def num_rel_ret(rr: ResRels) -> float:  # m_num_rel_ret.c
    return float(rr.num_rel_ret)


def average_precision(rr: ResRels) -> float:  # m_map.c
    found, total = 0, 0.0
    for i, r in enumerate(rr.rel_list):
        if rr.is_rel(r):
            found += 1
            total += found / (i + 1)
    return total / rr.num_rel if rr.num_rel else 0.0


def bpref(rr: ResRels) -> float:  # m_bpref.c (gm_bpref: m_gm_bpref.c, the same per query)
    nonrel_total = sum(rr.rel_levels[g] for g in range(min(rr.level, len(rr.rel_levels))))
    nonrel, total = 0, 0.0
    for r in rr.rel_list:
        if r < 0:
            continue
        if r < rr.level:
            nonrel += 1
        elif nonrel > 0:
            total += 1.0 - min(nonrel, rr.num_rel) / min(nonrel_total, rr.num_rel)
        else:
            total += 1.0
    return total / rr.num_rel if rr.num_rel else total


def unjudged(rr: ResRels, k: int) -> float:  # m_unjudged.c
    return sum(1 for r in rr.rel_list[:k] if r < 0) / k


def relstring(rr: ResRels, length: float = 10) -> str:  # m_relstring.c
    out = []
    for r in rr.rel_list[: max(min(int(length), rr.num_ret), 0)]:
        out.append(">" if r > 9 else str(r) if r >= 0 else "-" if r == NONPOOL else ".")
    return "".join(out)


def infap(rr: ResRels) -> float:  # m_infap.c
    rel = nonrel = unj = 0
    total = 0.0
    for j, r in enumerate(rr.rel_list):
        if r == NONPOOL:
            continue
        if r == UNJUDGED:
            unj += 1
        elif r < rr.level:
            nonrel += 1
        else:
            if j == 0:
                total += 1.0
            else:
                above = rel + nonrel + unj
                total += 1.0 / (j + 1.0) + (j / (j + 1.0)) * (above / j) * (
                    (rel + INFAP_EPSILON) / (rel + nonrel + 2.0 * INFAP_EPSILON)
                )
            rel += 1
    return total / rr.num_rel if rr.num_rel else total


def yaap(rr: ResRels) -> float:  # m_yaap.c
    found, total = 0, 0.0
    for i, r in enumerate(rr.rel_list):
        if rr.is_rel(r):
            found += 1
            total += found / (i + 1)
    return math.log((1.0 + total) / (1.0 + rr.num_rel - total))


def rprec_mult(rr: ResRels, fraction: float) -> float:  # m_Rprec_mult.c
    cut = int(fraction * rr.num_rel + 0.9)  # C's (long) cast truncates
    if cut <= 0:
        return 0.0
    return sum(1 for r in rr.rel_list[:cut] if rr.is_rel(r)) / cut


def utility(rr: ResRels, coefficients: list[float], collection_size: int = 0) -> float:
    # m_utility.c
    a, n, r = rr.num_rel_ret, rr.num_ret, rr.num_rel
    p1, p2, p3, p4 = coefficients
    return p1 * a + p2 * (n - a) + p3 * (r - a) + p4 * (collection_size + a - n - r)


def iprec_at_recall(rr: ResRels, levels: list[float]) -> list[float]:
    """m_iprec_at_recall.c: the same walk as 11pt_avg, one value per (sorted) recall level."""
    cutoffs = [lround(x * rr.num_rel) for x in levels]
    values = [0.0] * len(levels)
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > rr.num_rel_ret:
        current -= 1
    interpolated = _div(rr.num_rel_ret, rr.num_ret)
    found = rr.num_rel_ret
    i = rr.num_ret
    while i > 0 and found > 0:
        interpolated = max(interpolated, found / i)
        if rr.is_rel(rr.rel_list[i - 1]):
            while current >= 0 and found == cutoffs[current]:
                values[current] = interpolated
                current -= 1
            found -= 1
        i -= 1
    while current >= 0:
        values[current] = interpolated
        current -= 1
    return values


def eleven_pt_avg(rr: ResRels, points: list[float]) -> float:  # m_11pt_avg.c
    cutoffs = [lround(x * rr.num_rel) for x in points]
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > rr.num_rel_ret:
        current -= 1
    interpolated = _div(rr.num_rel_ret, rr.num_ret)
    found = rr.num_rel_ret
    total = 0.0
    i = rr.num_ret
    while i > 0 and found > 0:
        interpolated = max(interpolated, found / i)
        if rr.is_rel(rr.rel_list[i - 1]):
            while current >= 0 and found == cutoffs[current]:
                total += interpolated
                current -= 1
            found -= 1
        i -= 1
    while current >= 0:
        total += interpolated
        current -= 1
    return total / len(points)


def bin_g(rr: ResRels) -> float:  # m_binG.c
    found, total = 0, 0.0
    for i, r in enumerate(rr.rel_list):
        if rr.is_rel(r):
            found += 1
            total += 1.0 / math.log2(2 + i + 1 - found)
    return total / rr.num_rel if found else 0.0


def set_relative_p(rr: ResRels) -> float:  # m_set_rel_P.c
    if rr.num_ret and rr.num_rel:
        return rr.num_rel_ret / min(rr.num_ret, rr.num_rel)
    return 0.0


def set_map(rr: ResRels) -> float:  # m_set_map.c
    if rr.num_ret and rr.num_rel:
        return (rr.num_rel_ret * rr.num_rel_ret) / (rr.num_ret * rr.num_rel)
    return 0.0


# --------------------------------------------------------------------------------------------
# gain tables (gain_init.c) and the measures that use them


@dataclass
class Gain:
    level: int
    gain: float
    count: int = 0


def setup_gains(rr: ResRels, pairs: dict[int, float]) -> list[Gain]:
    """gain_init.c: an entry per pair, then one per grade 0 … top without a pair (gain = the
    grade), each with the number of judged documents at its grade; sorted by gain."""
    table = [Gain(level, gain) for level, gain in pairs.items()]
    for grade in range(rr.num_rel_levels):
        entry = next((g for g in table if g.level == grade), None)
        if entry is None:
            table.append(Gain(grade, float(grade), rr.rel_levels[grade]))
        else:
            entry.count = rr.rel_levels[grade]
    return sorted(table, key=lambda g: g.gain)


def get_gain(value: int, table: list[Gain]) -> float:  # gain_init.c
    return next((g.gain for g in table if g.level == value), 0.0)


class _Ideal:
    """The ideal ranking's gains, walked from the table's highest gain down (m_ndcg.c)."""

    def __init__(self, table: list[Gain]) -> None:
        self.table, self.index, self.seen = table, len(table) - 1, 0
        self.gain = table[-1].gain if table else 0.0

    def next(self) -> float:
        self.seen += 1
        while self.index >= 0 and self.seen > self.table[self.index].count:
            self.seen = 1
            self.index -= 1
            self.gain = self.table[self.index].gain if self.index >= 0 else 0.0
        return self.gain


def dcg_parts(rr: ResRels, pairs: dict[int, float]) -> tuple[float, float]:
    """(DCG, ideal DCG) as m_ndcg.c adds them (the ideal stops at the first gain <= 0)."""
    table = setup_gains(rr, pairs)
    ideal = _Ideal(table)
    dcg = idcg = 0.0
    i = 0
    while i < rr.num_ret or ideal.gain > 0.0:
        if i < rr.num_ret:
            gain = get_gain(rr.rel_list[i], table)
            if gain != 0:
                dcg += gain / math.log2(i + 2)
        if ideal.gain > 0.0:
            g = ideal.next()
            if g > 0.0:
                idcg += g / math.log2(i + 2)
        i += 1
    return dcg, idcg


def ndcg(rr: ResRels, pairs: dict[int, float]) -> float:  # m_ndcg.c
    dcg, idcg = dcg_parts(rr, pairs)
    return dcg / idcg if idcg > 0.0 else 0.0


def g_measure(rr: ResRels, pairs: dict[int, float]) -> float:  # m_G.c
    table = setup_gains(rr, pairs)
    ideal = _Ideal(table)
    result = sum_results = sum_ideal = sum_cost = 0.0
    i = 0
    while i < rr.num_ret or ideal.gain > 0.0:
        if i < rr.num_ret and ideal.gain > 0.0:
            gain = get_gain(rr.rel_list[i], table)
            sum_results += gain
            g = ideal.next()
            if g > 0.0:
                sum_ideal += g
            sum_cost += g if g >= 1.0 else 1.0
            if gain != 0:
                result += gain / _log2(2 + sum_cost - sum_results)
        elif i < rr.num_ret:
            gain = get_gain(rr.rel_list[i], table)
            sum_results += gain
            sum_cost += 1.0
            if gain != 0:
                result += gain / _log2(2 + sum_cost - sum_results)
        else:
            g = ideal.next()
            if g > 0.0:
                sum_ideal += g
        i += 1
    return result / sum_ideal if sum_ideal > 0.0 else 0.0


def ndcg_rel(rr: ResRels, pairs: dict[int, float]) -> float:  # m_ndcg_rel.c
    table = setup_gains(rr, pairs)
    ideal = _Ideal(table)
    dcg = idcg = total = 0.0
    found = relevant = 0
    i = 0
    while i < rr.num_ret or ideal.gain > 0.0:
        gain = get_gain(rr.rel_list[i], table) if i < rr.num_ret else 0.0
        if gain != 0:
            dcg += gain / math.log2(i + 2)
        if ideal.gain > 0.0:
            g = ideal.next()
            if g > 0.0:
                relevant += 1
                idcg += g / math.log2(i + 2)
        if i < rr.num_ret and gain > 0:
            total += _div(dcg, idcg)
            found += 1
        i += 1
    total += _div((relevant - found) * dcg, idcg)
    return total / relevant if total > 0.0 else 0.0


def rndcg(rr: ResRels, pairs: dict[int, float]) -> float:  # m_Rndcg.c
    table = setup_gains(rr, pairs)
    if rr.num_rel == 0:
        return 0.0
    ideal = _Ideal(table)
    dcg = idcg = total = 0.0
    previous, recorded = ideal.gain, 0
    i = 0
    while i < rr.num_ret and ideal.gain > 0.0:
        gain = get_gain(rr.rel_list[i], table)
        g = ideal.next()
        if previous != g:
            if idcg > 0.0:
                total += dcg / idcg
                recorded += 1
            previous = g
        if gain != 0:
            dcg += gain / math.log2(i + 2)
        if g > 0.0:
            idcg += g / math.log2(i + 2)
        i += 1
    if i < rr.num_ret:
        while i < rr.num_ret:
            gain = get_gain(rr.rel_list[i], table)
            if gain != 0:
                dcg += gain / math.log2(i + 2)
            i += 1
        if idcg > 0.0:
            total += dcg / idcg
            recorded += 1
    while ideal.gain > 0.0:
        g = ideal.next()
        if previous != g:
            if idcg > 0.0:
                total += dcg / idcg
                recorded += 1
            previous = g
        if g > 0.0:
            idcg += g / math.log2(i + 2)
        i += 1
    return _div(total, recorded)


def rbp(rr: ResRels, p: float, pairs: dict[int, float]) -> float:  # m_rbp.c
    table = setup_gains(rr, pairs)
    low = min(g.gain for g in table) if table else 0.0
    high = max(g.gain for g in table) if table else 0.0
    if low < 0 or high > 1:
        for g in table:
            g.gain = _div(g.gain - low, high - low)
    total, weight = 0.0, 1.0
    for r in rr.rel_list:
        gain = get_gain(r, table)
        if gain != 0:
            total += gain * weight
        weight *= p
    return (1.0 - p) * total


def rbp_resid(rr: ResRels, p: float) -> float:  # m_rbp_resid.c
    unjudged_seen, total, weight = 0, 0.0, 1.0
    for r in rr.rel_list:
        if r < 0:
            unjudged_seen += 1
            total += weight
        weight *= p
    return weight + (1.0 - p) * total if unjudged_seen else 0.0
