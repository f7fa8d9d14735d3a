"""``polars-rank metrics``: every metric of the catalog (ranking, trec_eval, recommender,
classification) with the names it is known by and where it runs."""

from __future__ import annotations

import argparse

import polars as pl

from polars_rank.catalog.model import FAMILIES, Family, TrecEval, alias_parameters
from polars_rank.catalog.registry import entries
from polars_rank.cli.output import render, write_output

#: Output formats of ``polars-rank metrics``.
METRICS_FORMATS = ("table", "markdown", "csv", "json")


def _spelled(name: str, cutoff: str) -> str:
    """A name with its cutoff: ``Rcap@k`` (required), ``nDCG[@k]`` (optional), ``IPrec@x``
    (a recall level)."""
    return name + {"required": "@k", "optional": "[@k]", "recall": "@x"}.get(cutoff, "")


def _trec_spelled(trec: TrecEval, cutoff: str) -> str:
    """A trec_eval measure as ``polars-rank trec_eval -m`` takes it: ``P.k``, ``map``,
    ``iprec_at_recall.x``."""
    if not trec.cutoffs:
        return trec.name
    return trec.name + (".x" if cutoff == "recall" else ".k")


def metrics_frame(family: Family | None = None) -> pl.DataFrame:
    """One row per catalog entry (of ``family``): ``family``, ``metric`` (the Python function),
    ``names`` (every name
    the parser accepts, case-insensitive; ``[@k]`` an optional cutoff), ``trec_eval`` (the
    measures ``polars-rank trec_eval -m`` computes with it, "" for none), ``parameters``
    (written ``Name(param=value)``), ``needs`` (the inputs besides run and judgments:
    ``interactions``, ``item_features``), ``summary`` (over queries; ``one per run`` for
    corpus-level recommender metrics), ``engines`` (where it runs; ``sql:<dialect>`` for
    ``polars-rank sql``) and ``definition``.

    >>> metrics_frame().filter(pl.col("metric") == "r_precision")["names"].item()
    'Rprec, r-precision, r_precision, R-Prec, RPrec'
    >>> metrics_frame().filter(pl.col("metric") == "trec_rbp")["trec_eval"].item()
    'rbp'
    """
    rows = []
    for entry in entries(family):
        names = []
        for alias in entry.aliases:
            fixed = ",".join(alias_parameters(entry, alias))  # ", " separates the names
            names.append(_spelled(alias.name, entry.cutoff) + (f" ({fixed})" if fixed else ""))
        parameters = [p.name for p in entry.params]
        if entry.relevance_level:
            parameters.append("rel")
        rows.append(
            {
                "family": entry.family,
                "metric": entry.name,
                "names": ", ".join(names),
                "trec_eval": ", ".join(_trec_spelled(t, entry.cutoff) for t in entry.trec_eval),
                "parameters": ", ".join(parameters),
                "needs": ", ".join(entry.inputs),
                "summary": "one per run" if entry.level == "corpus" else entry.summary,
                "engines": ", ".join(entry.engines()),
                "definition": entry.formula.replace("**", "").replace("`", ""),
            }
        )
    return pl.DataFrame(rows)


def run_metrics(args: argparse.Namespace) -> int:
    """``polars-rank metrics``."""
    frame = metrics_frame(args.family)
    if not args.definitions:
        frame = frame.drop("definition")
    write_output(render(frame, args.output_format), None)
    return 0


def build_metrics_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``polars-rank metrics``."""
    parser.add_argument(
        "-o",
        "--output-format",
        choices=METRICS_FORMATS,
        default="table",
        help="table (default), markdown, csv or json",
    )
    parser.add_argument(
        "--family",
        choices=FAMILIES,
        default=None,
        help="only this family's metrics (default: every family)",
    )
    parser.add_argument(
        "--definitions", action="store_true", help="also print each metric's definition"
    )
