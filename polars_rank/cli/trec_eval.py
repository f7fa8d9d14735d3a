"""``polars-rank trec_eval``: trec_eval 10.0 as a drop-in, line for line and byte for byte.

The files are read as trec_eval reads them (:mod:`.trec_eval_input`), the measures chosen and
named as it chooses and names them (:mod:`.trec_eval_measures`), and evaluated by
:func:`polars_rank.evaluate` with the matching options. What trec_eval does, this does:

* every query of the judgments is evaluated, in byte order of its id; run queries without
  judgments are ignored;
* a judged query missing from the run stops the evaluation (exit 4) unless ``-c``, which
  evaluates it as an empty ranking (trec_eval evaluates a one-document ranking and then resets
  num_ret, utility, relstring, unj and rbp_resid; the values are the same) and averages over
  every judged query;
* a document twice in a query's run (among its first ``-M``) or in its judgments stops the
  evaluation (exit 4);
* measures print in trec_eval's table order with its names and formats; ``-q`` prints each
  query's lines first; ``num_rel``'s summary under ``-c`` counts the judgments with a grade
  above 0, whatever ``-l`` is.

Exit codes are trec_eval's: 1 usage errors and unknown measures, 2 unreadable or malformed
files and bad measure parameters, 4 what cannot be evaluated.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

import polars as pl

from polars_rank.cli.trec_eval_input import TrecEvalError, read_qrels, read_run
from polars_rank.cli.trec_eval_measures import (
    RESET_WHEN_MISSING,
    OutputMeasure,
    atol,
    format_value,
    select_measures,
    supported_measures,
)
from polars_rank.core.conventions import LARGEST_RANK, Columns, OrderBy, rank_expr
from polars_rank.core.summary import summary_expr
from polars_rank.core.types import EngineName

__all__ = [
    "build_parser",
    "run_trec_eval",
    "select_measures",
    "supported_measures",
    "trec_eval_lines",
    "trec_eval_values",
]

#: The exit code of usage errors (bad options, wrong number of arguments), as trec_eval's.
USAGE_EXIT_CODE = 1

#: A working column of the per-query values (printed names never start with "__").
_R = "__num_rel"

#: 0/0 as C computes it on x86: a NaN with its sign bit set, which glibc prints as "-nan".
_C_NAN = -float("nan")


def _atol_option(text: str) -> int:
    """An option's number read as trec_eval reads it (C's ``atol``: ``-l1.5`` is 1)."""
    return atol(text)


def build_parser(parser: argparse.ArgumentParser) -> None:
    """trec_eval's options (short and long spellings). (The CLI's parser exits with
    :data:`USAGE_EXIT_CODE` on a usage error.)"""
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
        help="measure to print, with optional parameters (e.g. P.5,10, ndcg_cut.10, "
        "ndcg.1=3,2=9, utility.2,-1,0,0); nicknames: official (the default), all_trec, set. "
        "Repeatable",
    )
    parser.add_argument(
        "-c",
        "--complete_rel_info_wanted",
        dest="c",
        action="store_true",
        help="evaluate a judged query missing from the run as an empty ranking, instead of "
        "stopping",
    )
    parser.add_argument(
        "-l",
        "--level_for_rel",
        dest="l",
        type=_atol_option,
        default=1,
        metavar="N",
        help="minimum grade that counts as relevant (default 1)",
    )
    parser.add_argument(
        "-M",
        "--Max_retrieved_per_topic",
        dest="M",
        type=_atol_option,
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
        type=_atol_option,
        default=0,
        metavar="N",
        help="documents in the collection (used by utility; default 0)",
    )
    parser.add_argument(
        "-J",
        "--Judged_docs_only",
        dest="J",
        action="store_true",
        help="evaluate only the judged documents of each ranking (after -M)",
    )
    parser.add_argument(
        "-Z",
        "--Zscore",
        dest="Z",
        metavar="FILE",
        help="not supported (trec_eval's z-scores)",
    )
    parser.add_argument(
        "-R",
        "--Rel_info_format",
        dest="R",
        default="qrels",
        metavar="FORMAT",
        help="only 'qrels' is read",
    )
    parser.add_argument(
        "-T",
        "--Results_format",
        dest="T",
        default="trec_results",
        metavar="FORMAT",
        help="only 'trec_results' is read",
    )


# --------------------------------------------------------------------------------------------
# what trec_eval refuses to evaluate


def _ranked(run: pl.DataFrame, max_rank: int | None) -> pl.DataFrame:
    """The run with trec_eval's ranks (score descending, ties by doc id descending as bytes),
    cut at ``max_rank``."""
    ranked = run.with_columns(rank_expr(Columns(), "score", pl.String()))
    return ranked if max_rank is None else ranked.filter(pl.col("rank") <= max_rank)


def _has_duplicates(frame: pl.DataFrame) -> bool:
    return bool(frame.select(pl.struct("query", "doc").is_duplicated().any()).item())


def _first_duplicate(frame: pl.DataFrame) -> tuple[str, str] | None:
    twice = frame.filter(pl.struct("query", "doc").is_duplicated())
    return None if twice.is_empty() else twice.sort("query", "doc").select("query", "doc").row(0)


def _check(
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    missing: pl.Series,
    *,
    complete: bool,
    max_rank: int | None,
    run_duplicates: bool,
) -> None:
    """trec_eval stops (exit 4) at the first judged query, in its order, that it cannot
    evaluate: missing from the run (without ``-c``), or with a document twice among the first
    ``-M`` of its ranking, or twice in its judgments (checked in that order)."""
    problems: list[tuple[bytes, int, str]] = []
    if not complete and not missing.is_empty():
        query = str(missing.sort()[0])
        why = f"judged query {query!r} is not in the run; trec_eval stops here (-c evaluates it)"
        problems.append((query.encode(), 0, why))
    depth = "" if max_rank is None else f" among its first {max_rank} documents"
    if run_duplicates and (pair := _first_duplicate(_ranked(run, max_rank))) is not None:
        why = f"query {pair[0]!r} of the run has document {pair[1]!r} twice{depth}"
        problems.append((pair[0].encode(), 1, why))
    if (pair := _first_duplicate(qrels)) is not None:
        why = f"query {pair[0]!r} of the judgments has document {pair[1]!r} twice"
        problems.append((pair[0].encode(), 2, why))
    if problems:
        raise TrecEvalError(min(problems)[2], exit_code=4)


# --------------------------------------------------------------------------------------------
# evaluation and printing


def trec_eval_values(
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    measures: list[OutputMeasure],
    *,
    complete: bool = False,
    relevance_level: int = 1,
    max_rank: int | None = None,
    judged_only: bool = False,
    engine: EngineName = "polars",
) -> tuple[pl.DataFrame, dict[str, Any]]:
    """trec_eval's values for a run ``query, doc, score`` and judgments ``query, doc,
    relevance`` (as :mod:`.trec_eval_input` reads them): one row per judged query (byte order
    of its id) with a column per printed measure, and the summary value of each measure that
    has one. The measures are computed by :func:`polars_rank.evaluate` with ``engine``."""
    from polars_rank.evaluation import evaluate

    if max_rank is not None and max_rank < 0:
        raise TrecEvalError(f"-M {max_rank}: the depth must be 0 or more")
    judged_queries = qrels.select(pl.col("query").unique())
    run = run.join(judged_queries, on="query", how="semi")  # trec_eval ignores the others
    missing = judged_queries.join(run, on="query", how="anti")["query"]
    run_duplicates = _has_duplicates(run)
    _check(
        run,
        qrels,
        missing,
        complete=complete,
        max_rank=max_rank,
        run_duplicates=run_duplicates,
    )
    order_by: OrderBy = "score"
    empty = missing.clear()  # judged queries whose ranking ends up empty (see _empty_rankings)
    can_empty = judged_only or max_rank == 0  # a missing query's one-document ranking too
    if can_empty or run_duplicates:  # rank here (-M first, then -J); duplicates are past -M
        run = _ranked(run, max_rank)
        if judged_only:
            graded = qrels.filter(pl.col("relevance") >= 0).select("query", "doc")
            run = run.join(graded, on=["query", "doc"], how="semi")
        run, order_by, max_rank = run.select("query", "doc", "rank"), "rank", None
        if can_empty:
            empty = judged_queries.join(run, on="query", how="anti")["query"]
    if run.is_empty():  # (-c, -M 0, -J) a placeholder row no judged query can match: ids are
        # never empty, and evaluate refuses an empty run where trec_eval evaluates every
        # judged query as an empty ranking
        placeholder = {"query": [""], "doc": [""], order_by: [1]}
        run = pl.DataFrame(placeholder, schema=run.schema)
    specs = [m.spec for m in measures if m.spec is not None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = evaluate(
            run,
            qrels,
            specs or ["num_q"],
            per_query=True,
            queries="qrels",
            relevance_level=relevance_level,
            # trec_eval takes any depth; one beyond evaluate's largest keeps every document
            max_rank=max_rank if max_rank is None or max_rank <= LARGEST_RANK else None,
            order_by=order_by,
            engine=engine,
        )
    assert isinstance(values, pl.DataFrame)  # a DataFrame run gives a DataFrame
    if complete and missing.len():  # what trec_eval resets after its one-document ranking
        absent = pl.col("query").is_in(missing.implode())
        values = values.with_columns(
            pl.when(absent)
            .then(pl.lit("" if m.kind == "string" else 0.0))
            .otherwise(m.name)
            .alias(m.name)
            for m in measures
            if m.spec is not None and m.measure in RESET_WHEN_MISSING
        )
    if empty.len():
        values = _empty_rankings(values, empty, measures, qrels, relevance_level)
    summarised = [(m.name, m.spec) for m in measures if m.spec is not None and m.summary]
    totals = values.select(summary_expr(spec.summary, name) for name, spec in summarised)
    summary = {name: totals[name][0] for name, _ in summarised}
    if complete and "num_rel" in summary:  # m_num_rel.c: every grade > 0, whatever -l is
        summary["num_rel"] = float(qrels.filter(pl.col("relevance") > 0).height)
    return values, summary


def _empty_rankings(
    values: pl.DataFrame,
    empty: pl.Series,
    measures: list[OutputMeasure],
    qrels: pl.DataFrame,
    relevance_level: int,
) -> pl.DataFrame:
    """trec_eval's 0/0 on a query left with no document (``-M 0``, or ``-J`` with no judged
    document retrieved): iprec_at_recall and 11pt_avg start their walk from the precision of
    the whole ranking, 0/0 = NaN, and keep it for every cutoff of 0 relevant documents
    (lround(x·R) = 0); a NaN point makes the whole 11pt_avg NaN."""
    relevant = qrels.filter(pl.col("relevance") >= max(relevance_level, 0))
    counts = relevant.group_by("query").len(_R)
    big_r = (
        pl.DataFrame({"query": empty})
        .join(counts, on="query", how="left")
        .select("query", pl.col(_R).fill_null(0).cast(pl.Float64))
    )
    values = values.join(big_r, on="query", how="left", maintain_order="left")

    def cutoff(x: float) -> pl.Expr:
        return (pl.lit(x) * pl.col(_R)).round(0, mode="half_away_from_zero")

    changed: dict[str, pl.Expr] = {}
    for m in measures:
        if m.spec is not None and m.measure == "iprec_at_recall":
            assert m.spec.recall_level is not None  # iprec_at_recall's cutoff is a level
            zero = cutoff(m.spec.recall_level) <= 0
        elif m.spec is not None and m.measure == "11pt_avg":
            points = m.spec.arguments()["points"]
            zero = pl.any_horizontal([cutoff(x) <= 0 for x in points])
        else:
            continue
        is_empty = pl.col(_R).is_not_null() & zero
        changed[m.name] = pl.when(is_empty).then(pl.lit(_C_NAN)).otherwise(m.name)
    return values.with_columns(**changed).drop(_R)


def trec_eval_lines(
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    measures: list[OutputMeasure],
    *,
    run_id: str = "",
    per_query: bool = False,
    summary: bool = True,
    **options: Any,
) -> list[str]:
    """trec_eval's output lines: with ``per_query`` (-q) each query's lines first, then the
    summary lines unless ``summary`` is false (-n). ``options`` go to
    :func:`trec_eval_values`."""
    values, totals = trec_eval_values(run, qrels, measures, **options)
    lines: list[str] = []
    if per_query:
        shown = [m for m in measures if m.per_query and m.spec is not None]
        for row in values.iter_rows(named=True):
            query = row["query"]
            lines += [_line(m.name, query, format_value(row[m.name], m.kind)) for m in shown]
    if summary:
        for m in measures:
            if m.kind == "runid":
                lines.append(_line(m.name, "all", run_id))
            elif m.summary:
                lines.append(_line(m.name, "all", format_value(totals[m.name], m.kind)))
    return lines


def _line(name: str, query: str, text: str) -> str:
    """``%-22s\\t%s\\t<value>``: trec_eval's line."""
    return f"{name:<22}\t{query}\t{text}"


def run_trec_eval(args: argparse.Namespace) -> str:
    """The text ``polars-rank trec_eval`` prints."""
    import tempfile

    if args.R != "qrels":
        raise TrecEvalError(f"-R {args.R}: polars-rank trec_eval reads only the qrels format")
    if args.T != "trec_results":
        raise TrecEvalError(f"-T {args.T}: polars-rank trec_eval reads only trec_results runs")
    if args.Z is not None:
        raise TrecEvalError("-Z (z-scores of the measures) is not supported")
    measures = select_measures(args.m, collection_size=args.N)
    qrels = read_qrels(args.qrels)
    if args.run == "-":  # as trec_eval: the run from standard input
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "stdin"
            path.write_bytes(sys.stdin.buffer.read())
            run, run_id = read_run(path)
    else:
        run, run_id = read_run(args.run)
    lines = trec_eval_lines(
        run,
        qrels,
        measures,
        run_id=run_id,
        per_query=args.q,
        complete=args.c,
        relevance_level=args.l,
        max_rank=args.M,
        judged_only=args.J,
        summary=not args.n,
    )
    return "\n".join(lines) + "\n" if lines else ""
