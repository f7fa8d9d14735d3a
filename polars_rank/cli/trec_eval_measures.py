"""trec_eval 10.0's measures for ``polars-rank trec_eval``: its measure table and nicknames,
``-m name.params`` read as trec_eval reads it (meas_init.c), and the names it prints.

Every measure resolves through :func:`polars_rank.catalog.registry.trec_eval_names` (the
registry's ``TrecEval`` entries), never through the generic metric names: ``-m rbp`` is
trec_eval's rbp (registry metric ``trec_rbp``), not ir_measures' ``RBP``.

>>> [m.name for m in select_measures(["P.10,5", "map", "ndcg.1=3,2=9"])]
['map', 'P_5', 'P_10', 'ndcg_1=3,2=9']
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from polars_rank.catalog.model import Metric, TrecEval
from polars_rank.catalog.names import MetricSpec
from polars_rank.catalog.registry import trec_eval_names
from polars_rank.cli.trec_eval_input import TrecEvalError

#: trec_eval 10.0's measure table (measures.c), in its order: the order measures print in.
TREC_ORDER = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall "
    "P relstring recall infAP gm_bpref Rprec_mult utility 11pt_avg binG G dcg ideal_dcg ndcg "
    "ndcg_rel Rndcg ndcg_cut map_cut relative_P success set_P set_relative_P set_recall set_map "
    "set_F num_nonrel_judged_ret prefs_num_prefs_poss prefs_num_prefs_ful "
    "prefs_num_prefs_ful_ret prefs_simp prefs_pair prefs_avgjg prefs_avgjg_Rnonrel "
    "prefs_simp_ret prefs_pair_ret prefs_avgjg_ret prefs_avgjg_Rnonrel_ret prefs_simp_imp "
    "prefs_pair_imp prefs_avgjg_imp map_avgjg P_avgjg Rprec_mult_avgjg yaap rbp rbp_resid unj"
).split()

#: trec_eval's nicknames (measures.c).
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": tuple(
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
        "iprec_at_recall P".split()
    ),
    "set": tuple(
        "runid num_q num_ret num_rel num_rel_ret utility set_P set_recall set_relative_P "
        "set_map set_F".split()
    ),
    "all_trec": tuple(
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
        "iprec_at_recall P relstring recall unj rbp rbp_resid infAP gm_bpref utility 11pt_avg "
        "ndcg relative_P Rprec_mult success map_cut ndcg_cut ndcg_rel Rndcg binG G set_P "
        "set_recall set_relative_P set_map set_F num_nonrel_judged_ret".split()
    ),
    "all_prefs": tuple(
        "runid num_q prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret prefs_simp "
        "prefs_pair prefs_avgjg prefs_avgjg_Rnonrel prefs_simp_ret prefs_pair_ret prefs_avgjg_ret "
        "prefs_avgjg_Rnonrel_ret prefs_simp_imp prefs_pair_imp prefs_avgjg_imp".split()
    ),
    "prefs": tuple(
        "runid num_q prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret "
        "prefs_simp prefs_pair prefs_avgjg".split()
    ),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}

#: Measures whose value trec_eval resets for a query missing from the run under ``-c`` (it
#: evaluates a one-document ranking there, then clears what that ranking leaves behind).
RESET_WHEN_MISSING = ("num_ret", "utility", "relstring", "rbp_resid", "unj")

Kind = Literal["runid", "float", "long", "string"]


@dataclass(frozen=True)
class OutputMeasure:
    """One printed measure: the name trec_eval prints, its table entry, the metric computing it
    (``None`` for runid), how it prints, and where (``-q`` lines, the summary)."""

    name: str
    measure: str
    spec: MetricSpec | None
    kind: Kind
    per_query: bool = True
    summary: bool = True


def supported_measures() -> list[str]:
    """The measures of trec_eval's table this drop-in computes, in table order."""
    names = trec_eval_names()
    return [name for name in TREC_ORDER if name == "runid" or name in names]


def _unsupported(name: str) -> TrecEvalError:
    if name.startswith("prefs_"):
        need = "preference judgments (-R prefs or qrels_prefs)"
    elif name.endswith("_avgjg"):
        need = "judgment groups (-R qrels_jg)"
    else:
        need = "a definition this drop-in lacks"
    return TrecEvalError(
        f"trec_eval measure {name!r} needs {need}, which polars-rank trec_eval does not read; "
        f"it computes: {', '.join(supported_measures())}",
        exit_code=4,
    )


# --------------------------------------------------------------------------------------------
# C's number parsing and trec_eval's parameter lists (meas_init.c)


_ATOF = (
    r"[ \t\n\v\f\r]*"
    r"([+-]?(?:[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?))"
)


def atol(text: str) -> int:
    """C's ``atol``: the leading integer after white space, 0 when there is none.

    >>> atol(" 23.4"), atol("-7x"), atol("x")
    (23, -7, 0)
    """
    found = re.match(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", text)
    return int(found.group(1)) if found else 0


def atof(text: str) -> float:
    """C's ``atof``: the leading decimal number after white space, 0.0 when there is none.

    >>> atof(".25"), atof("1e-1x"), atof("abc")
    (0.25, 0.1, 0.0)
    """
    found = re.match(_ATOF, text)
    return float(found.group(1)) if found else 0.0


def _cutoff_name(name: str, value: float) -> str:
    """``name_%3.2f`` in a buffer of strlen(name) + 10 bytes, as trec_eval prints a double
    cutoff (longer text is cut)."""
    return f"{name}_{value:3.2f}"[: len(name) + 9]


def _long_cutoffs(name: str, text: str) -> list[int]:
    values = sorted(atol(part) for part in text.split(","))
    if values[0] <= 0:
        raise TrecEvalError(
            f"measure {name}.{text}: cutoffs must be positive (trec_eval: Negative cutoff detected)"
        )
    if len(set(values)) != len(values):
        raise TrecEvalError(f"measure {name}.{text}: duplicate cutoffs")
    return values


def _double_cutoffs(name: str, text: str) -> list[float]:
    values = sorted(atof(part) for part in text.split(","))
    if len(set(values)) != len(values):
        raise TrecEvalError(f"measure {name}.{text}: duplicate cutoffs")
    return values


def _pairs(name: str, text: str) -> list[tuple[str, float]]:
    """``name=value`` pairs (get_param_pairs): the text must end on a ``=`` segment, with no
    empty pair (``,,``) or ``==``."""
    last = ","
    for char in text:
        if char in ",=":
            if char == last:
                last = ","
                break
            last = char
    if last != "=":
        raise TrecEvalError(f"measure {name}.{text}: malformed name=value pair parameters")
    pairs = []
    for part in text.split(","):
        key, _, value = part.partition("=")
        pairs.append((key, atof(value)))
    return pairs


def _is_level(key: str) -> bool:
    """trec_eval's ``valid_int``: an optional sign and digits."""
    return re.fullmatch(r"[+-]?[0-9]+", key) is not None


# --------------------------------------------------------------------------------------------
# one table entry → its printed measures


def _spec(label: str, metric: Metric, **fields: Any) -> MetricSpec:
    params = fields.pop("params", {})
    return MetricSpec(
        label=label, metric=metric.name, params=tuple(sorted(params.items())), **fields
    )


def _kind(metric: Metric) -> Kind:
    if metric.result == "string":
        return "string"
    return "long" if metric.summary == "sum" else "float"


def _expand(
    metric: Metric, trec: TrecEval, text: str | None, extra: dict[str, Any]
) -> list[OutputMeasure]:
    """The measures one marked table entry prints, given its ``-m`` parameter text (``None``:
    the defaults) and parameters every instance takes (``collection_size`` from ``-N``)."""
    name = trec.name
    kind = _kind(metric)
    summary = metric.summary != "none"
    params = {k: v for k, v in extra.items() if k in metric.param}

    def out(label: str, **fields: Any) -> OutputMeasure:
        merged = {**params, **fields.pop("params", {})}
        spec = _spec(label, metric, params=merged, **fields)
        return OutputMeasure(label, name, spec, kind, trec.per_query, summary)

    if trec.cutoffs:  # one printed measure per cutoff, sorted
        if metric.cutoff in ("required", "optional"):
            cutoffs = _long_cutoffs(name, text) if text is not None else trec.cutoffs
            return [out(f"{name}_{int(k)}", k=int(k)) for k in cutoffs]
        values = _double_cutoffs(name, text) if text is not None else list(trec.cutoffs)
        if metric.cutoff == "recall":
            for value in values:
                if not 0.0 <= value <= 1.0:
                    raise TrecEvalError(
                        f"measure {name}.{text}: recall level {value} is outside [0, 1]"
                    )
            return [out(_cutoff_name(name, v), recall_level=v) for v in values]
        return [out(_cutoff_name(name, v), params={trec.parameter: v}) for v in values]
    if text is None or not trec.parameter:
        return [out(name)]
    label = f"{name}_{text}"
    if trec.parameter == "pairs":
        gains: dict[int, float] = {}
        named: dict[str, float] = {}
        for key, value in _pairs(name, text):
            if _is_level(key):
                level = atol(key)
                if level == -1:
                    raise TrecEvalError(
                        f"measure {name}.{text}: a gain for level -1 (documents missing from "
                        "the judgments) is not supported"
                    )
                if level in gains:
                    raise TrecEvalError(
                        f"measure {name}.{text}: level {level} is given twice (trec_eval's "
                        "result would depend on the order of its gain table)"
                    )
                gains[level] = value
            elif key in metric.param:
                named[key] = value  # the last one wins, as in m_rbp.c
        fields: dict[str, Any] = dict(named)
        if "gains" in metric.param:
            fields["gains"] = tuple(gains.items())
        return [out(label, params=fields)]
    values = [atof(part) for part in text.split(",")]
    param = metric.param[trec.parameter]
    if param.kind == "numbers":
        if trec.parameter == "coefficients" and len(values) != 4:
            raise TrecEvalError(
                f"measure {name}.{text}: utility needs exactly 4 coefficients (trec_eval: "
                "improper number of coefficients)",
                exit_code=4,
            )
        return [out(label, params={trec.parameter: tuple(values)})]
    return [out(label, params={trec.parameter: values[0]})]


def select_measures(requests: list[str] | None, *, collection_size: int = 0) -> list[OutputMeasure]:
    """The measures trec_eval prints for these ``-m`` arguments, in its table order.

    ``-m name.params`` splits at the first ``.``; the first ``-m`` giving parameters for a
    name wins; parameters of nicknames and of measures that take none are ignored; an unknown
    name, or empty parameters, exits with code 1 as trec_eval does. ``collection_size`` is
    ``-N`` (utility's collection size).
    """
    requests = list(requests) if requests else ["official"]
    texts: dict[str, str] = {}
    marked: set[str] = set()
    for item in requests:
        name, dot, text = item.partition(".")
        if dot:
            if not text:
                raise TrecEvalError(f"-m {item}: empty parameters after '.'", exit_code=1)
            texts.setdefault(name, text)
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in TREC_ORDER:
            marked.add(name)
        else:
            raise TrecEvalError(
                f"-m {item}: no trec_eval measure {name!r}; measures: "
                f"{', '.join(supported_measures())}; nicknames: {', '.join(NICKNAMES)}",
                exit_code=1,
            )
    names = trec_eval_names()
    selected: list[OutputMeasure] = []
    extra = {"collection_size": collection_size}
    for name in TREC_ORDER:
        if name not in marked:
            continue
        if name == "runid":
            selected.append(OutputMeasure("runid", "runid", None, "runid", per_query=False))
            continue
        if name not in names:
            raise _unsupported(name)
        metric, trec = names[name]
        selected.extend(_expand(metric, trec, texts.get(name), extra))
    return selected


def format_value(value: Any, kind: Kind) -> str:
    """A value as trec_eval prints it: ``%6.4f`` (NaN as glibc prints it, ``-nan`` when its
    sign bit is set), ``%ld`` of the truncated value for counts, ``'text'`` for relstring.

    >>> format_value(0.17854, "float"), format_value(1500.0, "long"), format_value("1-", "string")
    ('0.1785', '1500', "'1-'")
    """
    if kind == "string":
        return f"'{value}'"
    if kind == "runid":
        return str(value)
    if kind == "long":
        return str(math.trunc(value))
    if value is None:
        return "   nan"
    if math.isnan(value):
        return ("-nan" if math.copysign(1.0, value) < 0 else "nan").rjust(6)
    return f"{value:6.4f}"
