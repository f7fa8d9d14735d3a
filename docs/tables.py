"""The documentation's generated tables and its metric reference, rendered from the catalog.

Each table sits between ``<!-- registry:NAME -->`` and ``<!-- /registry:NAME -->`` in a page of
``docs/`` (or README.md). ``python docs/tables.py`` rewrites them; ``python docs/tables.py
--check`` exits 1 when one is stale (``tests/catalog/test_registry.py`` runs the check). The metric
reference (:func:`metric_reference`) is not kept in a file: ``docs/hooks.py`` renders it into
the site at every build.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from polars_rank.catalog.model import DIALECTS, Alias, Metric, Table, TrecEval, alias_parameters
from polars_rank.catalog.registry import SCOPES, metrics

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def pages() -> list[Path]:
    """The files that may hold generated tables: README.md and every page of ``docs/``."""
    return [README, *sorted((ROOT / "docs").rglob("*.md"))]


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
    """``text`` with every generated table it holds replaced by its current rendering."""
    for name, table in TABLES.items():
        pattern = _block(name)
        text = pattern.sub(lambda m, t=table: m.group(1) + t() + m.group(3), text)
    return text


def _placed() -> dict[str, list[Path]]:
    """Each table's name -> the files holding it."""
    found: dict[str, list[Path]] = {name: [] for name in TABLES}
    for path in pages():
        text = path.read_text(encoding="utf-8")
        for name in TABLES:
            if _block(name).search(text):
                found[name].append(path)
    return found


# ------------------------------------------------------------------------------------------
# the metric reference: one section per metric of every family

FAMILY_TITLES = {
    "ranking": "Ranking",
    "trec_eval": "trec_eval's other measures",
    "recommender": "Recommender (beyond accuracy)",
    "classification": "Classification and click-through",
    "rating": "Rating prediction",
    "diversity": "Diversity by intent",
}
#: Where each family's conventions are written (pages relative to the reference's page).
CONVENTIONS = {
    "ranking": "conventions.md#ordering-judgments-and-numbers",
    "trec_eval": "conventions.md#ordering-judgments-and-numbers",
    "recommender": "guides/recommender.md#conventions",
    "classification": "guides/classification.md#conventions",
    "rating": "guides/ratings.md#conventions",
    "diversity": "guides/diversity.md#conventions",
}
#: The Python module holding each family's functions.
MODULES = {
    "ranking": "polars_rank",
    "trec_eval": "polars_rank",
    "recommender": "polars_rank.recsys",
    "classification": "polars_rank.classification",
    "rating": "polars_rank.ratings",
    "diversity": "polars_rank.diversity.metrics",
}
TOOLS = {
    "ir_measures": "ir_measures",
    "ranx": "ranx",
    "sklearn": "scikit-learn",
    "recbole": "RecBole",
    "recommenders": "Microsoft Recommenders",
    "ndeval": "ndeval",
}
TARGET_TITLES = {
    "polars": "Polars engine",
    "duckdb": "DuckDB engine and macros",
    "spark": "Spark engine",
}


def formulas() -> ModuleType:
    """``docs/formulas.py``: each card's LaTeX formula, purpose and worked example."""
    spec = importlib.util.spec_from_file_location("docs_formulas", ROOT / "docs" / "formulas.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("docs_formulas", module)  # dataclasses resolve the module by name
    spec.loader.exec_module(module)
    return module


def key(e: Metric) -> str:
    """The entry's key in ``docs/formulas.py``: ``ranking.ndcg``."""
    return f"{e.family}.{e.name}"


def mathml(latex: str, display: bool = True) -> str:
    """The LaTeX formula as MathML (rendered by the browser: no script, works offline)."""
    from latex2mathml.converter import convert

    return convert(latex, display="block" if display else "inline")


def _inline_math(text: str) -> str:
    """``text`` with every ``$...$`` replaced by inline MathML."""
    return re.sub(r"\$(.+?)\$", lambda m: mathml(m.group(1), display=False), text)


def anchor(e: Metric) -> str:
    """The metric's anchor on the reference page: ``ranking-ndcg``."""
    return f"{e.family}-{e.name}".replace("_", "-").lower()


def _macro_files() -> dict[str, str]:
    """macro name -> the ``sql/`` file defining it."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "sql").glob("*.sql")):
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r'CREATE OR REPLACE MACRO "?(\w+)"?\(', text):
            found.setdefault(match.group(1).lower(), f"sql/{path.name}")
    return found


def _names(e: Metric) -> list[tuple[str, str]]:
    """(tool, its names of the metric) for every tool that has one, then the other names."""
    rows = []
    if e.trec_eval:
        rows.append(("trec_eval (`-m`)", ", ".join(_trec_spelled(e, t) for t in e.trec_eval)))
    for tool, title in TOOLS.items():
        named = [_spelled(e, a) for a in e.aliases if tool in a.tools]
        if named:
            rows.append((title, ", ".join(named)))
    other = [_spelled(e, a) for a in e.aliases if not a.tools or "other" in a.tools]
    if other:
        rows.append(("also accepted", ", ".join(other)))
    return rows


def _runs_on(e: Metric) -> list[str]:
    cells = []
    targets = e.engines()
    engines = [TARGET_TITLES[t] for t in targets if t in TARGET_TITLES]
    dialects = [t.removeprefix("sql:") for t in targets if t.startswith("sql:")]
    if engines:
        cells.append(", ".join(engines))
    if dialects:
        cells.append("portable SQL (`to_sql`) for " + ", ".join(dialects))
    seen: set[str] = set()
    for target, why in e.unsupported:
        if why not in seen:
            seen.add(why)
            where = "portable SQL" if target == "sql" else target
            cells.append(f"not on {where}: {why}")
    return cells


def _everywhere(e: Metric) -> bool:
    """The metric runs on every engine and dialect (the reference says so once)."""
    from polars_rank.catalog.model import TARGETS

    return list(e.engines()) == list(TARGETS) and not e.unsupported


def _written(e: Metric) -> list[str]:
    """Names with parameters as ``evaluate`` parses them: ``AP(denominator=min)@10`` (a choice
    by its first spelling without parentheses, other values by the catalog's first example),
    ``P(rel=2)@10``."""
    base = e.aliases[0].name if e.aliases else e.name
    cut = {"required": "@10", "optional": "@10", "recall": "@0.5"}.get(e.cutoff, "")
    written = []
    for param in e.params:
        if param.spellings is not None:
            values = [v for v in dict.fromkeys(param.spellings.values()) if v != param.default]
            spellings = [
                next(s for s in param.spellings if param.spellings[s] == v and "(" not in s)
                for v in values
            ]
            written += [f"{param.name}={s}" for s in spellings]
        elif param.examples:
            written.append(f"{param.name}={param.examples[0]}")
    if e.relevance_level:
        written.append("rel=2")
    return [f"{base}({w}){cut}" for w in written]


def _number(x: float) -> str:
    return {float("inf"): "∞", float("-inf"): "−∞"}.get(x, f"{x:g}")


def _range(e: Metric) -> str:
    if e.value_range is None:
        return "a string" if e.result == "string" else "—"
    low, high = e.value_range
    better = {True: "higher is better", False: "lower is better", None: "a count"}
    return f"[{_number(low)}, {_number(high)}], {better[e.higher_is_better]}"


def _summary(e: Metric) -> tuple[str, str]:
    if e.family == "classification":
        return "value", "one per table (or per `by` segment)"
    if e.family == "rating":
        return "value", "one per pair of tables (or per `by` segment of the ratings)"
    if e.level == "corpus":
        return "summary over queries", "one value per run (no per-query value)"
    rules = {"mean": "mean", "sum": "sum", "gmean": "geometric mean", "none": "none"}
    return "summary over queries", rules[e.summary]


def _section(e: Metric, macros: dict[str, str], text: ModuleType) -> list[str]:
    facts = [
        ("definition", e.formula),
        ("names", ", ".join(_spelled(e, a) for a in e.aliases)),
        ("parameters", "; ".join(_param_cells(e)) or "—"),
        ("written", ", ".join(_code(w) for w in _written(e)) or "—"),
        ("Python", f"`{MODULES[e.family]}.{e.python_signature()}`"),
    ]
    keys = [m.strip('"').lower() for m, _ in e.sql_macros()]
    files = sorted({macros[k] for k in keys if k in macros})
    if files:
        calls = "; ".join(f"`{m}({e.sql_signature(v)})`" for m, v in e.sql_macros())
        facts.append(("SQL macro", f"{calls} in " + ", ".join(f"`{f}`" for f in files)))
    if e.inputs and e.inputs != ("qrels",):
        facts.append(("reads", ", ".join(f"`{i}`" for i in e.inputs)))
    facts += [
        _summary(e),
        ("range", _range(e)),
        ("conventions", f"[{FAMILY_TITLES[e.family]}]({CONVENTIONS[e.family]})"),
    ]
    facts += [
        ("other names accepted" if tool == "also accepted" else f"name in {tool}", names)
        for tool, names in _names(e)
    ]
    if not _everywhere(e):
        facts.append(("runs on", "; ".join(_runs_on(e))))
    if e.reference:
        facts.append(("reference", e.reference))
    example = text.EXAMPLES.get(key(e))
    if example is not None:
        data = {
            "classification": "classification",
            "recommender": "recommender",
            "rating": "rating",
            "diversity": "diversity",
        }.get(e.family, "ranking")
        why = f": {example.why}" if example.why else ""
        given = f" (`{example.options}`)" if example.options else ""
        facts.append(
            (
                f"worked example ([{data}](#worked-examples))",
                f"`{example.metric}`{given} = `{example.arithmetic}` = **{example.value}**{why}",
            )
        )
    lines = [
        f"### {e.title or e.name} {{#{anchor(e)}}}",
        "",
        f"**For**: {text.PURPOSES[key(e)]}",
        "",
        mathml(text.FORMULAS[key(e)]),
        "",
        facts[0][1],
        "",
    ]
    lines += [f"- **{key}**: {value}" for key, value in facts[1:]]
    return [*lines, ""]


def _frame(name: str, columns: dict[str, list[object]]) -> list[str]:
    """Python code building a small frame, one column a line."""
    lines = [f"{name} = pl.DataFrame({{"]
    lines += [
        f"    {column!r}: {values!r},".replace("'", '"') for column, values in columns.items()
    ]
    return [*lines, "})"]


def worked_examples(text: ModuleType) -> list[str]:
    """The reference's section of the examples the cards work by hand: the code building
    them and what they hold."""
    docs = [d for d, _ in text.EXAMPLE_RUN]
    judged = dict(text.EXAMPLE_QRELS)
    rows = [
        f"| {i} | {d} | {score:g} | {judged.get(d, 'unjudged')} |"
        for i, (d, score) in enumerate(text.EXAMPLE_RUN, 1)
    ]
    missed = [f"| — | {d} | not retrieved | {g} |" for d, g in text.EXAMPLE_QRELS if d not in docs]
    return [
        "## Worked examples {#worked-examples}",
        "",
        "A card's **worked example** computes the metric by hand on one of five tiny examples,",
        "with the value `pr.evaluate` (or `pr.evaluate_classification`, `pr.evaluate_ratings`,",
        "`pr.evaluate_diversity`)",
        "prints for it (the",
        "docs tests check that the arithmetic and `pr.evaluate` agree). **Ranking**: one query,",
        "five documents retrieved, one judged document missed; the relevance level is 1, so",
        "the relevant documents are d2, d4 and d6 (R = 3), d1 and d5 are judged non-relevant",
        "and d3 is unjudged.",
        "",
        "| rank | doc | score | grade |",
        "| --- | --- | --- | --- |",
        *rows,
        *missed,
        "",
        "```python",
        "import polars as pl",
        "import polars_rank as pr",
        "",
        *_frame(
            "run",
            {
                "query": ["q1"] * len(text.EXAMPLE_RUN),
                "doc": docs,
                "score": [s for _, s in text.EXAMPLE_RUN],
            },
        ),
        *_frame(
            "qrels",
            {
                "query": ["q1"] * len(text.EXAMPLE_QRELS),
                "doc": [d for d, _ in text.EXAMPLE_QRELS],
                "relevance": [g for _, g in text.EXAMPLE_QRELS],
            },
        ),
        'pr.evaluate(run, qrels, ["P@5", "AP", "nDCG@5"])',
        "```",
        "",
        "**Recommender**: two users' top-2 lists, a training history (popularity: the",
        "users of an item), a catalog of four items, item vectors and the test judgments",
        "(u1 liked b, u2 liked d).",
        "",
        "```python",
        *_frame(
            "recs",
            {
                "query": [u for u, _, _ in text.EXAMPLE_RECOMMENDATIONS],
                "doc": [i for _, i, _ in text.EXAMPLE_RECOMMENDATIONS],
                "score": [x for _, _, x in text.EXAMPLE_RECOMMENDATIONS],
            },
        ),
        *_frame(
            "history",
            {
                "query": [u for u, _ in text.EXAMPLE_HISTORY],
                "doc": [i for _, i in text.EXAMPLE_HISTORY],
            },
        ),
        *_frame("items", {"doc": list(text.EXAMPLE_ITEMS)}),
        *_frame(
            "vectors",
            {
                "doc": [i for i, _ in text.EXAMPLE_VECTORS],
                "vector": [v for _, v in text.EXAMPLE_VECTORS],
            },
        ),
        *_frame(
            "liked",
            {
                "query": [u for u, _ in text.EXAMPLE_TEST],
                "doc": [i for _, i in text.EXAMPLE_TEST],
                "relevance": [1] * len(text.EXAMPLE_TEST),
            },
        ),
        "pr.evaluate(",
        '    recs, liked, ["coverage@2", "novelty@2", "ild@2"],',
        "    interactions=history, catalog=items, item_features=vectors,",
        ")",
        "```",
        "",
        "**Classification**: four rows of two users, two positives, the threshold 0.5.",
        "",
        "```python",
        *_frame(
            "predictions",
            {
                "user": [u for u, _, _ in text.EXAMPLE_PREDICTIONS],
                "label": [y for _, y, _ in text.EXAMPLE_PREDICTIONS],
                "score": [p for _, _, p in text.EXAMPLE_PREDICTIONS],
            },
        ),
        'pr.evaluate_classification(predictions, ["AUC", "LogLoss", "F1"])',
        "```",
        "",
        "**Rating**: three (user, item) pairs, their ratings and predictions.",
        "",
        "```python",
        *_frame(
            "ratings",
            {
                "user": [u for u, _, _, _ in text.EXAMPLE_RATINGS],
                "item": [i for _, i, _, _ in text.EXAMPLE_RATINGS],
                "rating": [y for _, _, y, _ in text.EXAMPLE_RATINGS],
            },
        ),
        *_frame(
            "rated",
            {
                "user": [u for u, _, _, _ in text.EXAMPLE_RATINGS],
                "item": [i for _, i, _, _ in text.EXAMPLE_RATINGS],
                "prediction": [p for _, _, _, p in text.EXAMPLE_RATINGS],
            },
        ),
        'pr.evaluate_ratings(ratings, rated, ["RMSE", "MAE", "R2"])',
        "```",
        "",
        "**Diversity**: the ranking example's run, judged per subtopic: d2 is relevant to",
        "subtopics s1 and s2, d4 to s1, d6 (not retrieved) to s3, so N = 3; α = β = 0.5.",
        "",
        "```python",
        *_frame(
            "intents",
            {
                "query": ["q1"] * len(text.EXAMPLE_SUBTOPICS),
                "subtopic": [t for _, t in text.EXAMPLE_SUBTOPICS],
                "doc": [d for d, _ in text.EXAMPLE_SUBTOPICS],
                "relevance": [1] * len(text.EXAMPLE_SUBTOPICS),
            },
        ),
        'pr.evaluate_diversity(run, intents, ["alpha-nDCG@5", "strec@5"])',
        "```",
        "",
    ]


def reference_entries() -> list[Metric]:
    """Every metric of the catalog, in the reference's order (family, then catalog order)."""
    from polars_rank.catalog.model import FAMILIES

    entries = [scoped for scope in SCOPES for scoped in metrics(scope)]
    return [e for family in FAMILIES for e in entries if e.family == family]


def metric_reference() -> str:
    """The metric reference page: an index of every metric, then one section each with its
    definition, names (every tool's), parameters, Python function, SQL macro, summary rule,
    range, conventions, the engines and dialects that run it, and its reference."""
    entries = reference_entries()
    macros = _macro_files()
    text = formulas()
    out = [
        "# Metric reference",
        "",
        "Every metric of the catalog (`polars_rank/catalog/`), generated from it at each build",
        "of this site: its definition, the names `evaluate` (or `evaluate_classification`,",
        "`evaluate_ratings`)",
        "accepts and which tool uses each, its parameters, the Python function and the SQL",
        "macro, how it is summarised over queries, the conventions it follows and where it",
        "runs. The same facts as a table: `pr.metric_catalog()`, or `polars-rank metrics` on",
        "the command line.",
        "",
        "## Writing a name",
        "",
        "A metric is written `Name`, `Name@k` (a cutoff: the top `k` documents of each query)",
        "or `Name(param=value,...)@k`, as `evaluate`, `to_sql` and the command line take it:",
        "`P@10`, `AP(denominator=min)@10`, `nDCG(gain=exp)@10`, `nDCG(gains={1:3,2:9})@10`,",
        "`P(rel=2)@5`. A parameter's value is one of the spellings its card lists under",
        "**written** (`denominator=min`: a value holds no parentheses, so `min(k,R)` names what",
        "it stands for, not how to write it), a number, a list `[0.25,0.5]` or a gain table",
        "`{grade:gain,...}`. Names are case-insensitive; the parameters go before the cutoff.",
        "",
        "**`rel`** is the relevance level: a judged document counts as relevant when its grade",
        "is at least `rel`. Without it in the name, `evaluate`'s `relevance_level=` applies",
        "(default 1, trec_eval's `-l`): `P(rel=2)@5` is the share of the top 5 documents graded",
        '2 or more. A metric whose card says "`rel` (only when given)" uses a level only when',
        "its name has one; without it, it reads the grades themselves (nDCG's gains, RBP) or",
        "counts every document.",
        "",
        "**Where it runs.** Every metric runs on the Polars, DuckDB and Spark engines, as DuckDB",
        "macros and in the portable SQL (`to_sql`) for "
        + ", ".join(d for d in DIALECTS)
        + ", unless the",
        "table below says otherwise; a card repeats it only then.",
        "",
        "**Notation.** " + _inline_math(text.NOTATION),
        "",
        "| family | metric | names | runs on |",
        "| --- | --- | --- | --- |",
    ]
    for e in entries:
        names = ", ".join(f"`{a.name}`" for a in e.aliases[:4])
        where = (
            "everywhere"
            if _everywhere(e)
            else ", ".join(
                TARGET_TITLES[t].split(" ")[0] for t in e.engines() if t in TARGET_TITLES
            )
            + " only"
        )
        out.append(f"| {e.family} | [{e.title or e.name}](#{anchor(e)}) | {names} | {where} |")
    out.append("")
    out += worked_examples(text)
    family = None
    for e in entries:
        if e.family != family:
            family = e.family
            out += [f"## {FAMILY_TITLES[family]}", ""]
        out += _section(e, macros, text)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a table is stale")
    args = parser.parse_args(argv)
    missing = [name for name, files in _placed().items() if not files]
    if missing:
        print(f"no page holds the generated table(s) {', '.join(missing)}")
        return 1
    stale = []
    for path in pages():
        text = path.read_text(encoding="utf-8")
        updated = render(text)
        if updated != text:
            stale.append(path)
            if not args.check:
                path.write_text(updated, encoding="utf-8")
    if args.check and stale:
        names = ", ".join(str(p.relative_to(ROOT)) for p in stale)
        print(f"{names}: a generated table is stale; run python docs/tables.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
