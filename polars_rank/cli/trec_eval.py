"""``polars-rank trec_eval``: a drop-in for trec_eval 10.0 for the measures polars_rank has.

Measures are printed in trec_eval's own order (its measure table, not the order of ``-m``),
cutoffs sorted ascending, with trec_eval's names and number formats; ``-q`` prints every query's
measures (queries sorted, as trec_eval) before the ``all`` block.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from polars_rank._errors import PolarsRankError
from polars_rank.cli.output import trec_line
from polars_rank.ranking.registry import summary_expr, trec_eval_names

#: trec_eval 10.0's measure table, in its order (the order measures are printed in).
_TREC_ORDER = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall "
    "P relstring recall infAP gm_bpref Rprec_mult utility 11pt_avg binG G ndcg ndcg_rel Rndcg "
    "ndcg_cut map_cut relative_P success set_P set_relative_P set_recall set_map set_F "
    "num_nonrel_judged_ret rbp rbp_resid unj"
).split()

#: Measures whose parameters trec_eval accepts but this drop-in does not (custom gains of
#: ``ndcg``, custom recall points of ``11pt_avg``).
_PARAMS_NOT_SUPPORTED = {"ndcg", "11pt_avg"}


@dataclass(frozen=True)
class _Measure:
    """One entry of trec_eval's measure table."""

    name: str
    kind: str  # runid | count | float | long_cut | double_cut | param | no_params | unsupported
    defaults: tuple = ()
    per_query: bool = True  # printed for each query with -q
    param: str = ""  # the metric parameter a "param" measure's trec_eval parameter sets
    metric: str = ""  # the registry's metric


def _measure(name: str) -> _Measure:
    """A trec_eval measure as the registry describes it (``unsupported`` when it does not)."""
    if name == "runid":
        return _Measure(name, "runid", per_query=False)
    found = trec_eval_names().get(name)
    if found is None:
        return _Measure(name, "unsupported")
    metric, trec = found
    if metric.summary == "sum":
        kind = "count"
    elif trec.cutoffs:
        kind = "double_cut" if metric.cutoff == "recall" else "long_cut"
    elif metric.cutoff == "none" and metric.params:
        kind = "param"
    elif name in _PARAMS_NOT_SUPPORTED:
        kind = "no_params"
    else:
        kind = "float"
    param = metric.params[0].name if kind == "param" else ""
    return _Measure(name, kind, trec.cutoffs, trec.per_query, param, metric.name)


_TABLE: tuple[_Measure, ...] = tuple(_measure(name) for name in _TREC_ORDER)
_BY_NAME = {m.name: m for m in _TABLE}

_OFFICIAL = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P"
).split()
_NICKNAMES: dict[str, list[str]] = {
    "official": _OFFICIAL,
    "all_trec": [m.name for m in _TABLE],
    "set": "runid num_q num_ret num_rel num_rel_ret utility set_P set_recall set_relative_P "
    "set_map set_F".split(),
}


@dataclass(frozen=True)
class OutputMeasure:
    """One printed measure: trec_eval's name, polars_rank's metric name, how it prints."""

    name: str
    label: str
    integer: bool = False
    per_query: bool = True


def supported_measures() -> list[str]:
    """Names of the trec_eval measures this drop-in computes."""
    return [m.name for m in _TABLE if m.kind != "unsupported"]


def _long_cutoffs(measure: str, text: str) -> list[int]:
    values = []
    for part in text.split(","):
        found = re.match(r"\s*[+-]?\d+", part)  # like C's strtol: the leading integer
        values.append(int(found.group()) if found else 0)
    values.sort()
    if values[0] <= 0:
        raise PolarsRankError(f"measure {measure}: cutoffs must be positive, got {text!r}")
    if len(set(values)) != len(values):
        raise PolarsRankError(f"measure {measure}: duplicate cutoffs in {text!r}")
    return values


def _double_cutoffs(measure: str, text: str) -> list[float]:
    values = []
    for part in text.split(","):
        found = re.match(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", part)  # like C's atof
        values.append(float(found.group()) if found else 0.0)
    values.sort()
    if len(set(values)) != len(values):
        raise PolarsRankError(f"measure {measure}: duplicate cutoffs in {text!r}")
    return values


def _expand(measure: _Measure, params: str | None) -> list[OutputMeasure]:
    """The printed measures of one marked table entry, with ``-m name.params`` if given."""
    name, kind = measure.name, measure.kind
    if kind == "runid":
        return [OutputMeasure(name, "", per_query=False)]
    if kind in ("count", "float"):
        return [OutputMeasure(name, name, kind == "count", measure.per_query)]
    if kind == "no_params":
        if params is not None:
            raise PolarsRankError(
                f"trec_eval measure {name} with parameters ({name}.{params}) is not supported"
            )
        return [OutputMeasure(name, name)]
    if kind == "param":
        if params is None:
            return [OutputMeasure(name, name)]
        value = _double_cutoffs(name, params.split(",")[0])[0]
        return [OutputMeasure(f"{name}_{params}", f"{name}({measure.param}={value!r})")]
    if kind == "long_cut":
        cutoffs = _long_cutoffs(name, params) if params is not None else list(measure.defaults)
        return [OutputMeasure(f"{name}_{k}", f"{name}_{k}") for k in cutoffs]
    if kind == "double_cut":
        levels = _double_cutoffs(name, params) if params is not None else list(measure.defaults)
        return [OutputMeasure(f"{name}_{v:3.2f}", f"IPrec@{v:.12f}") for v in levels]
    raise PolarsRankError(
        f"trec_eval measure {name!r} is not implemented by polars_rank; supported: "
        + ", ".join(supported_measures())
    )


def select_measures(requests: list[str] | None) -> list[OutputMeasure]:
    """The measures trec_eval would print for these ``-m`` arguments, in its order.

    Nicknames (``official``, ``all_trec``, ``set``) keep only the supported measures; a measure
    named on its own that polars_rank lacks is an error.

    >>> [m.name for m in select_measures(["P.10,5", "map"])]
    ['map', 'P_5', 'P_10']
    """
    requests = list(requests) if requests else ["official"]
    params: dict[str, str] = {}
    marked: set[str] = set()
    explicit: set[str] = set()
    for item in requests:
        name, dot, param = item.partition(".")
        if dot:
            if not param:
                raise PolarsRankError(f"improper measure {item!r}: empty parameters")
            params.setdefault(name, param)  # trec_eval uses the first one given
        if name in _NICKNAMES:
            marked.update(_NICKNAMES[name])
        elif name in _BY_NAME:
            marked.add(name)
            explicit.add(name)
        else:
            raise PolarsRankError(
                f"unknown trec_eval measure {item!r}; supported: "
                + ", ".join(supported_measures())
                + " and the nicknames official, all_trec, set"
            )
    selected: list[OutputMeasure] = []
    for measure in _TABLE:
        if measure.name not in marked:
            continue
        if measure.kind == "unsupported" and measure.name not in explicit:
            continue
        selected.extend(_expand(measure, params.get(measure.name)))
    return selected


def build_parser(parser: argparse.ArgumentParser) -> None:
    """trec_eval's options (short and long spellings)."""
    parser.add_argument("qrels", metavar="QRELS", help="judgments, TREC qrels format")
    parser.add_argument("run", metavar="RUN", help="the run, TREC results format ('-': stdin)")
    parser.add_argument(
        "-q",
        "--query_eval_wanted",
        dest="q",
        action="store_true",
        help="also print the measures of each query",
    )
    parser.add_argument(
        "-m",
        "--measure",
        dest="m",
        action="append",
        metavar="measure[.params]",
        help="measure to print, with optional comma-separated cutoffs (e.g. P.5,10, "
        "ndcg_cut.10, map); nicknames: official (the default), all_trec, set. Repeatable",
    )
    parser.add_argument(
        "-c",
        "--complete_rel_info_wanted",
        dest="c",
        action="store_true",
        help="average over every query in the judgments (a query missing from the run scores "
        "0) instead of the queries in both",
    )
    parser.add_argument(
        "-l",
        "--level_for_rel",
        dest="l",
        type=float,
        default=1,
        metavar="N",
        help="minimum grade that counts as relevant (default 1)",
    )
    parser.add_argument(
        "-M",
        "--Max_retrieved_per_topic",
        dest="M",
        type=int,
        metavar="N",
        help="use only the first N documents of each query",
    )
    parser.add_argument(
        "-n", "--nosummary", dest="n", action="store_true", help="do not print the 'all' lines"
    )
    parser.add_argument(
        "-N",
        "--Number_docs_in_coll",
        dest="N",
        type=int,
        metavar="N",
        help="accepted for compatibility (no supported measure uses it)",
    )
    parser.add_argument(
        "-J",
        "--Judged_docs_only",
        dest="J",
        action="store_true",
        help="not supported (trec_eval's judged-documents-only mode)",
    )
    parser.add_argument(
        "-R",
        "--Rel_info_format",
        dest="R",
        default="qrels",
        metavar="FORMAT",
        help="only 'qrels' is supported",
    )
    parser.add_argument(
        "-T",
        "--Results_format",
        dest="T",
        default="trec_results",
        metavar="FORMAT",
        help="only 'trec_results' is supported",
    )


def trec_eval_lines(
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    measures: list[OutputMeasure],
    *,
    per_query: bool = False,
    complete: bool = False,
    relevance_level: float = 1,
    max_rank: int | None = None,
    summary: bool = True,
) -> list[str]:
    """trec_eval's output lines for a run (``query, doc, rank, score, run_id``)."""
    from polars_rank.ranking.evaluate import evaluate
    from polars_rank.ranking.names import parse_metrics

    labels = [m.label for m in measures if m.label]
    specs = {s.label: s for s in parse_metrics(labels)} if labels else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = evaluate(
            run,
            qrels,
            labels or ["num_q"],
            per_query=True,
            queries="qrels" if complete else "both",
            relevance_level=relevance_level,
            max_rank=max_rank,
        )
    if values.height == 0:
        raise PolarsRankError("no queries with both results and relevance info")
    lines: list[str] = []
    if per_query:
        shown = [m for m in measures if m.per_query and m.label]
        for row in values.iter_rows(named=True):
            query = str(row["query"])
            lines += [trec_line(m.name, query, row[m.label], integer=m.integer) for m in shown]
    if summary:
        means = values.select(summary_expr(specs[label].summary, label) for label in labels).row(
            0, named=True
        )
        run_id = str(run["run_id"][0]) if "run_id" in run.columns and run.height else ""
        for m in measures:
            value = run_id if not m.label else means[m.label]
            lines.append(trec_line(m.name, "all", value, integer=m.integer))
    return lines


def run_trec_eval(args: argparse.Namespace) -> str:
    """The text ``polars-rank trec_eval`` prints."""
    from polars_rank.cli.inputs import read_qrels, read_run

    if args.J:
        raise PolarsRankError("-J (judged documents only) is not supported")
    if args.R != "qrels" or args.T != "trec_results":
        raise PolarsRankError("only the qrels and trec_results formats are supported")
    measures = select_measures(args.m)
    qrels = read_qrels(args.qrels, "trec")
    if args.run == "-":  # as trec_eval: the run from standard input
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "stdin.run"
            path.write_bytes(sys.stdin.buffer.read())
            run = read_run(path, "trec")
    else:
        run = read_run(args.run, "trec")
    lines = trec_eval_lines(
        run,
        qrels,
        measures,
        per_query=args.q,
        complete=args.c,
        relevance_level=args.l,
        max_rank=args.M,
        summary=not args.n,
    )
    return "\n".join(lines) + "\n" if lines else ""
