"""The catalog as a Polars frame: :func:`metric_catalog`."""

from __future__ import annotations

import polars as pl

from polars_rank.catalog.model import FAMILIES, Family, Metric
from polars_rank.catalog.registry import entries
from polars_rank.core.errors import bad_choice


def _parameters(entry: Metric) -> list[str]:
    """The parameters a name can set, as written in ``Name(param=value)@k``."""
    shown = {"required": ["k"], "optional": ["k"], "recall": ["recall"]}.get(entry.cutoff, [])
    shown += [p.name for p in entry.params]
    if entry.relevance_level:
        shown.append("rel")
    return shown


def metric_catalog(family: Family | None = None) -> pl.DataFrame:
    """Every metric of the catalog (of one ``family``), one row per (family, name).

    Columns: ``family`` (ranking, trec_eval, recommender, classification), ``name`` (the
    canonical name), ``aliases`` (every name the family's entry point parses), ``parameters``,
    ``inputs`` (the tables it reads besides the run), ``engines`` (where it runs: ``polars``,
    ``clickhouse``, ``duckdb``, ``spark`` and ``sql:<dialect>`` for :func:`polars_rank.to_sql`),
    ``higher_is_better`` (null for counts), ``min`` and ``max`` (its range), ``summary``,
    ``reference`` and ``definition``.

    >>> import polars_rank as pr
    >>> row = pr.metric_catalog("ranking").filter(pl.col("name") == "ndcg").row(0, named=True)
    >>> row["aliases"][:2], row["parameters"], row["engines"][:3]
    (['nDCG', 'ndcg'], ['k', 'gain', 'gains'], ['polars', 'clickhouse', 'duckdb'])
    """
    if family is not None and family not in FAMILIES:
        raise bad_choice("family", family, FAMILIES)
    rows = [
        {
            "family": e.family,
            "name": e.name,
            "aliases": [a.name for a in e.aliases],
            "parameters": _parameters(e),
            "inputs": list(e.inputs),
            "engines": e.engines(),
            "higher_is_better": e.higher_is_better,
            "min": None if e.value_range is None else float(e.value_range[0]),
            "max": None if e.value_range is None else float(e.value_range[1]),
            "summary": "one per run" if e.level == "corpus" else e.summary,
            "reference": e.reference,
            "definition": e.formula.replace("**", "").replace("`", ""),
        }
        for e in entries(family)
    ]
    schema: dict[str, pl.DataType] = {
        "family": pl.String(),
        "name": pl.String(),
        "aliases": pl.List(pl.String()),
        "parameters": pl.List(pl.String()),
        "inputs": pl.List(pl.String()),
        "engines": pl.List(pl.String()),
        "higher_is_better": pl.Boolean(),
        "min": pl.Float64(),
        "max": pl.Float64(),
        "summary": pl.String(),
        "reference": pl.String(),
        "definition": pl.String(),
    }
    return pl.DataFrame(rows, schema=schema)
