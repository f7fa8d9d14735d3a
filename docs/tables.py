"""The README's generated tables, rendered from the metric catalog.

Each table sits between ``<!-- registry:NAME -->`` and ``<!-- /registry:NAME -->`` in
README.md. ``python docs/tables.py`` rewrites them; ``python docs/tables.py --check`` exits 1
when one is stale (``tests/test_catalog.py`` runs the check).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

from polars_rank.catalog.model import Alias, Metric, Table, TrecEval, alias_parameters
from polars_rank.catalog.registry import metrics

README = Path(__file__).resolve().parents[1] / "README.md"


def _code(text: str) -> str:
    return f"`{text}`"


def _spelled(entry: Metric, alias: Alias) -> str:
    """How a name is written with its cutoff: ``P@k``, ``RR``/``RR@k``, ``IPrec@x``."""
    fixed = ", ".join(alias_parameters(entry, alias))
    note = f" ({fixed})" if fixed else ""
    if entry.cutoff == "optional":
        return f"{_code(alias.name)}, {_code(alias.name + '@k')}{note}"
    suffix = {"required": "@k", "recall": "@x"}.get(entry.cutoff, "")
    return _code(alias.name + suffix) + note


def _trec_spelled(entry: Metric, trec: TrecEval) -> str:
    """A trec_eval measure as ``-m`` takes it: ``P.k`` (cutoffs), ``iprec_at_recall.x``."""
    if not trec.cutoffs:
        return _code(trec.name)
    return _code(trec.name + (".k" if entry.cutoff in ("required", "optional") else ".x"))


def _param_cells(e: Metric) -> list[str]:
    params = {"required": ["`k`"], "optional": ["`k` (optional)"], "recall": ["`x` in [0, 1]"]}
    shown = list(params.get(e.cutoff, []))
    for p in e.params:
        default = p.default
        if p.spellings is not None:  # the spelling of the default
            default = next((k for k, v in p.spellings.items() if v == default), default)
        note = f" (default {default})" if default is not None and e.table != "judged" else ""
        shown.append(f"`{p.name}`: {p.doc}{note}" if p.doc else f"`{p.name}`{note}")
    if e.relevance_level:
        shown.append("`rel` (only when given)" if e.explicit_level else "`rel`")
    return shown


def markdown_metric_table() -> str:
    """The README's metric table of the ranking metrics: function, parameters, definition
    and summary."""
    lines = [
        "| metric | function | parameters | definition | summary over queries |",
        "| --- | --- | --- | --- | --- |",
    ]
    for e in metrics():
        if e.table != "judged":
            continue
        summary = {"mean": "mean", "sum": "sum", "gmean": "geometric mean", "none": "none"}[
            e.summary
        ]
        lines.append(
            f"| {e.title or e.name} | `{e.python_signature()}` | "
            f"{'; '.join(_param_cells(e)) or '—'} | {e.formula} | {summary} |"
        )
    return "\n".join(lines) + "\n"


def markdown_recommender_table() -> str:
    """The README's table of the recommender metrics: names, inputs, level, parameters,
    definition and the reference each matches."""
    lines = [
        "| metric | names | needs | per query | parameters | definition | matches |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for e in metrics():
        if e.table != "recommendations":
            continue
        names = ", ".join(_spelled(e, a) for a in e.aliases)
        needs = ", ".join(f"`{i}`" for i in e.inputs) or "—"
        if e.needs_qrels is not None:
            needs += " (+ qrels for relevance)"
        per_query = "yes" if e.level == "query" else "no (one value)"
        lines.append(
            f"| {e.title or e.name} (`{e.python_signature()}`) | {names} | {needs} | "
            f"{per_query} | {'; '.join(_param_cells(e))} | {e.formula} | {e.reference} |"
        )
    return "\n".join(lines) + "\n"


def markdown_names_table() -> str:
    """The README's table of the names each tool uses for each ranking metric (all accepted
    here)."""
    lines = [
        "| polars_rank | trec_eval (`-m`) | ir_measures | ranx | also accepted |",
        "| --- | --- | --- | --- | --- |",
    ]
    for e in metrics():
        if e.table != "judged":
            continue
        cells = [", ".join(_trec_spelled(e, t) for t in e.trec_eval) or "—"]
        cells += [
            ", ".join(_spelled(e, a) for a in e.aliases if tool in a.tools) or "—"
            for tool in ("ir_measures", "ranx")
        ]
        cells.append(", ".join(_spelled(e, a) for a in e.aliases if not a.tools) or "—")
        lines.append(f"| `{e.python_signature()}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def markdown_macro_table(table: Table = "judged") -> str:
    """The README's table of the SQL macros of the ranking (``table="judged"``) or the
    recommender metrics (one line per variant)."""
    lines = ["| macro | parameters | value |", "| --- | --- | --- |"]
    seen: set[str] = set()
    for e in metrics():
        if e.table != table:
            continue
        for macro, variant in e.sql_macros():
            if macro in seen:
                continue
            seen.add(macro)
            signature = f"`{e.sql_signature(variant)}`" if e.parameters(variant) else "—"
            lines.append(f"| `{macro}` | {signature} | {e.formula} |")
    return "\n".join(lines) + "\n"


def markdown_engine_table() -> str:
    """Where each family runs: per engine (Polars, DuckDB, Spark) and the portable SQL's
    dialects, how many of the family's metrics run there, then every refused pair with the
    catalog's reason (:attr:`Metric.unsupported`)."""
    from polars_rank.catalog.model import DIALECTS, ENGINES, FAMILIES
    from polars_rank.catalog.registry import entries

    targets = [*ENGINES, *(f"sql:{d}" for d in DIALECTS)]
    lines = [
        "| family | metrics | " + " | ".join(f"`{t}`" for t in targets) + " |",
        "| --- | --- |" + " --- |" * len(targets),
    ]
    refused: dict[str, tuple[dict[str, None], dict[str, None]]] = {}
    for family in FAMILIES:
        members = entries(family)
        cells = []
        for target in targets:
            running = [e for e in members if e.reason(target) is None]
            cells.append("all" if len(running) == len(members) else f"{len(running)}")
            for e in members:
                why = e.reason(target)
                if why is not None:
                    names, where = refused.setdefault(why, ({}, {}))
                    names[f"`{e.name}`"] = None
                    where[f"`{target}`"] = None
        lines.append(f"| {family} | {len(members)} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Refused, with the reason a user reads:")
    lines.append("")
    for why, (names, where) in refused.items():
        lines.append(f"- {', '.join(names)} on {', '.join(where)}: {why}")
    return "\n".join(lines) + "\n"


TABLES: dict[str, Callable[[], str]] = {
    "metrics": markdown_metric_table,
    "names": markdown_names_table,
    "macros": markdown_macro_table,
    "recommender": markdown_recommender_table,
    "recommender-macros": lambda: markdown_macro_table("recommendations"),
    "engines": markdown_engine_table,
}


def _block(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- registry:{name} -->\n)(.*?)(<!-- /registry:{name} -->)", re.S)


def render(text: str) -> str:
    """``text`` with every generated table replaced by its current rendering."""
    for name, table in TABLES.items():
        pattern = _block(name)
        if not pattern.search(text):
            raise SystemExit(f"README has no <!-- registry:{name} --> block")
        text = pattern.sub(lambda m, t=table: m.group(1) + t() + m.group(3), text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a table is stale")
    args = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    updated = render(text)
    if args.check:
        if updated != text:
            print("README.md: a generated table is stale; run python docs/tables.py")
            return 1
        return 0
    README.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
