"""SQL text for one metric: a call of its macro from ``sql/ranking.sql``, and its summary.

The judged table the calls read has the columns ``rank`` and ``relevance``.

>>> from polars_rank._names import parse_metric
>>> metric_sql(parse_metric("nDCG@10"), 1)
"ndcg(rank, relevance, k := 10, gain := 'linear')"
>>> metric_sql(parse_metric("P(rel=2)@5"), 1)
'"precision"(rank, relevance, 5, relevance_level := 2)'
>>> aggregate_sql(parse_metric("NumRet"))
'CAST(coalesce(sum("NumRet") FILTER (WHERE true), 0) AS DOUBLE)'
"""

from __future__ import annotations

import math
from typing import Any

from polars_rank._names import MetricSpec
from polars_rank.evaluate import GM_FLOOR

#: measure -> (macro, how it takes a cutoff: "required" positional, "optional" by name, None)
_MACROS: dict[str, tuple[str, str | None]] = {
    "precision": ('"precision"', "required"),
    "recall": ("recall", "optional"),
    "recall_cap": ("recall_cap", "required"),
    "hit_rate": ("hit_rate", "optional"),
    "hits": ("hits", "optional"),
    "reciprocal_rank": ("reciprocal_rank", "optional"),
    "average_precision": ("average_precision", "optional"),
    "gm_map": ("average_precision", "optional"),
    "ndcg": ("ndcg", "optional"),
    "dcg": ("dcg", "optional"),
    "r_precision": ("r_precision", None),
    "bpref": ("bpref", None),
    "f1": ("f1", "optional"),
    "judged": ("judged", "optional"),
    "unjudged": ("unjudged", "required"),
    "num_ret": ("num_ret", None),
    "num_rel": ("num_rel", None),
    "num_rel_ret": ("num_rel_ret", None),
    "num_nonrel_judged_ret": ("num_nonrel_judged_ret", None),
    "num_q": ("num_q", None),
    "set_precision": ("set_precision", None),
    "set_recall": ("set_recall", None),
    "set_f": ("set_f", None),
    "iprec_at_recall": ("iprec_at_recall", None),
    "eleven_pt_avg": ("eleven_pt_avg", None),
}

#: measures whose macro takes no relevance level (nDCG and DCG ignore it, as trec_eval does)
_NO_LEVEL = {"ndcg", "dcg", "judged", "unjudged", "num_ret", "num_q"}


def ident(name: str) -> str:
    """A quoted SQL identifier: ``ident('nDCG@10')`` is ``"nDCG@10"``."""
    return '"' + name.replace('"', '""') + '"'


def text(value: str) -> str:
    """A quoted SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def number(value: Any) -> str:
    """A SQL literal with the value of a Python number: integers as written, floats as
    DOUBLE (never DECIMAL, whose arithmetic would not be Polars' IEEE arithmetic)."""
    if isinstance(value, bool):
        raise TypeError(f"a number is needed, got {value!r}")
    if isinstance(value, int):
        return str(value)
    value = float(value)
    if math.isfinite(value) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return f"CAST({text(repr(value))} AS DOUBLE)"


def metric_sql(spec: MetricSpec, relevance_level: float) -> str:
    """The macro call computing ``spec`` for one query of the judged table."""
    macro, cutoff = _MACROS[spec.measure]
    params = dict(spec.params)
    if spec.measure == "num_q":
        return "num_q()"
    args = ["relevance"] if spec.measure == "num_rel" else ["rank"]
    if spec.measure not in ("num_ret", "num_rel"):
        args.append("relevance")
    if cutoff == "required":
        args.append(str(int(spec.k)))
    elif cutoff == "optional" and spec.k is not None:
        args.append(f"k := {int(spec.k)}")
    if spec.measure == "iprec_at_recall":
        args.append(number(float(spec.recall_level)))
    if spec.measure in ("ndcg", "dcg"):
        args.append(f"gain := {text(params.get('gain', 'linear'))}")
    if spec.measure == "average_precision":
        args.append(f"denominator := {text(params.get('denominator', 'R'))}")
    if spec.measure == "set_f":
        args.append(f"beta := {number(float(params.get('beta', 1.0)))}")
    if spec.measure not in _NO_LEVEL:
        level = spec.relevance_level if spec.relevance_level is not None else relevance_level
        args.append(f"relevance_level := {number(level)}")
    return f"{macro}({', '.join(args)})"


def aggregate_sql(spec: MetricSpec, where: str = "true") -> str:
    """How the per-query values (column ``spec.label``) of the rows where ``where`` holds become
    the summary value: the mean, a sum (counts; 0 over no query) or trec_eval's geometric
    mean exp(mean(ln(max(x, 1e-5))))."""
    column = ident(spec.label)
    if spec.aggregate == "sum":
        return f"CAST(coalesce(sum({column}) FILTER (WHERE {where}), 0) AS DOUBLE)"
    if spec.aggregate == "gmean":
        floor = number(GM_FLOOR)
        return f"exp(avg(ln(greatest({column}, {floor}))) FILTER (WHERE {where}))"
    return f"avg({column}) FILTER (WHERE {where})"
