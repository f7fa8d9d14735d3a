"""The macros ``polars-rank dbt generate`` writes into a dbt project: the compiled SQL of
every declared report and input check for every adapter, with only the table references
left live, and ``polars_rank_generated()``, the catalogue the package's public macros
(``polars_rank.evaluate``, ``polars_rank.report``, the generic tests) look requests up in.
dbt then runs them with no Python.

A report with ``by`` that leaves ``qrels_by`` (or another ``*_by`` of a table it reads) out
is compiled for every subset of ``by`` that table may have; the macros read the table's
columns through the adapter when dbt runs and pick the variant (the engines' rule: a ``by``
column the table has joins it on that column, one it lacks shares the table's rows).

The SQL sits in ``{% raw %}`` blocks (a column named ``q{{x}}`` stays text); the tables are
``{{ tables['run'] }}``. The output is deterministic: :func:`generate` twice gives the same
bytes, which is what ``polars-rank dbt check`` compares.

>>> from polars_rank.dbt.config import parse_config
>>> text = generate(parse_config({"adapters": ["duckdb"],
...                               "reports": [{"name": "s", "metrics": ["P@5"]}]}))
>>> "{% macro polars_rank__s__duckdb(tables) %}" in text
True
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

from polars_rank.compiler.checks import check_sql
from polars_rank.compiler.compile import to_sql
from polars_rank.compiler.fusion import fusion_sql
from polars_rank.compiler.rating import rating_sql
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.grouping import by_list
from polars_rank.dbt.config import (
    ADAPTERS,
    TABLES,
    Check,
    DbtConfig,
    Report,
    check_defaults,
    present_key,
    rating_defaults,
    report_defaults,
)

#: The stand-in table names compiled into the SQL and replaced by ``{{ tables[...] }}``.
_PREFIX = "pr_dbt_table_"
_PLACEHOLDER = re.compile(r"\bpr_dbt_table_(" + "|".join(TABLES) + r")\b")

#: The input of a generic test: a CTE over ``{{ model }}``, which dbt renders as a subquery
#: when the test has a ``where:`` config.
_TEST_INPUT = "pr_dbt_input"

#: The root-project macro holding the catalogue.
CATALOG_MACRO = "polars_rank_generated"

#: The root-project macro that calls a generated macro by its name. The calls are written
#: out (an ``if`` per macro): dbt gives a generic test only the macros its templates call
#: by name, and a computed name crashes its parser.
RENDER_MACRO = "polars_rank_generated_sql"


#: The ``*_by`` argument of each table a report with ``by`` may read besides the run.
INPUT_BY: dict[str, str] = {
    "qrels": "qrels_by",
    "interactions": "interactions_by",
    "catalog": "catalog_by",
    "item_features": "item_features_by",
}

#: The most variants (compiled SQL texts per adapter) a report whose ``*_by`` arguments are
#: read from the tables may need: one per subset of ``by`` per such table.
MAX_VARIANTS = 64


def _version() -> str:
    from polars_rank import __version__

    return __version__


def _jinja(sql: str) -> str:
    """``sql`` as Jinja that renders to itself, with the placeholder tables live."""
    out: list[str] = []
    position = 0
    for match in _PLACEHOLDER.finditer(sql):
        out.append(_raw(sql[position : match.start()]))
        out.append(f"{{{{ tables['{match.group(1)}'] }}}}")
        position = match.end()
    out.append(_raw(sql[position:]))
    return "".join(out)


def _raw(text: str) -> str:
    """``text`` in raw blocks; a ``{%`` (which could start an ``endraw``) as an expression."""
    if not text:
        return ""
    pieces = text.split("{%")
    return "{{ '{%' }}".join(f"{{% raw %}}{p}{{% endraw %}}" if p else "" for p in pieces)


def _refuse_placeholder(where: str, options: dict[str, Any]) -> None:
    for key, value in options.items():
        if _PREFIX in json.dumps(value):
            raise PolarsRankError(
                f"polars_rank.yml: {where}: option {key!r} holds {_PREFIX!r}, a name the "
                "generated macros reserve"
            )


def inferred_by(report: Report) -> dict[str, str]:
    """The ``*_by`` arguments ``report`` leaves to the tables (argument → table): with
    ``by``, those of the tables it reads (besides the run) that polars_rank.yml does not
    state. An explicit list, ``[]`` included, is never inferred.

    >>> inferred_by(Report("r", ("AP",), options={"by": ["system"]}))
    {'qrels_by': 'qrels'}
    >>> inferred_by(Report("r", ("AP",), options={"by": ["system"], "qrels_by": []}))
    {}
    """
    try:
        if not by_list(report.options.get("by")):
            return {}
    except PolarsRankError:
        return {}  # a bad by is to_sql's error, named with the report
    return {
        INPUT_BY[t]: t for t in report.tables if t in INPUT_BY and INPUT_BY[t] not in report.options
    }


def _variants(report: Report) -> Iterator[dict[str, list[str]]]:
    """Every value the inferred ``*_by`` arguments can take (each a subset of ``by``, in
    ``by``'s order): the macros read the tables' columns when dbt runs and pick one.
    A report without inferred arguments has one variant, ``{}``."""
    inferred = inferred_by(report)
    if not inferred:
        yield {}
        return
    by = by_list(report.options.get("by"))
    subsets = [list(c) for n in range(len(by) + 1) for c in itertools.combinations(by, n)]
    count = len(subsets) ** len(inferred)
    if count > MAX_VARIANTS:
        raise PolarsRankError(
            f"polars_rank.yml: report {report.name!r}: by has {len(by)} columns, so reading "
            f"{', '.join(inferred)} from the tables needs {count} compiled variants (at most "
            f"{MAX_VARIANTS}); state {', '.join(inferred)} (the by columns each table has "
            "too; [] shares the table across the groups)"
        )
    for combination in itertools.product(subsets, repeat=len(inferred)):
        yield dict(zip(inferred, combination, strict=True))


def _report_sql(report: Report, dialect: str, present: dict[str, list[str]]) -> str:
    """The SQL of ``report`` with the inferred ``*_by`` arguments set to ``present``, from
    the compiler of its kind (:attr:`~polars_rank.dbt.config.Report.kind`)."""
    tables = {t: (f"{_PREFIX}{t}" if t in report.tables else None) for t in TABLES}
    _refuse_placeholder(f"report {report.name!r}", report.options)
    try:
        if report.kind == "rating":
            return rating_sql(
                list(report.metrics),
                dialect,  # type: ignore[arg-type]
                f"{_PREFIX}ratings",
                f"{_PREFIX}predictions",
                **report.options,
            )
        if report.kind == "fusion":
            assert report.fusion is not None
            return fusion_sql(
                report.fusion,
                dialect,  # type: ignore[arg-type]
                f"{_PREFIX}runs",
                **report.options,
            )
        return to_sql(
            list(report.metrics),
            dialect,  # type: ignore[arg-type]
            tables["run"],
            tables["qrels"],
            interactions=tables["interactions"],
            catalog=tables["catalog"],
            item_features=tables["item_features"],
            predictions=tables["predictions"],
            **{**report.options, **present},
        )
    except PolarsRankError as err:
        raise PolarsRankError(
            f"polars_rank.yml: report {report.name!r} ({dialect}): {err}"
        ) from err


def _check_sql(check: Check, dialect: str) -> str:
    _refuse_placeholder(f"check of {check.input}", check.options)
    table = _TEST_INPUT
    run, qrels = (table, None) if check.input == "run" else (None, table)
    try:
        body = check_sql(dialect, run, qrels, **check.options)  # type: ignore[arg-type]
    except PolarsRankError as err:
        raise PolarsRankError(f"polars_rank.yml: check of {check.input}: {err}") from err
    return f"WITH {_TEST_INPUT} AS (SELECT * FROM {_PREFIX}run)\n{body}"


def _macro(name: str, body: str) -> str:
    return f"{{% macro {name}(tables) %}}\n{body}\n{{% endmacro %}}\n"


def _literal(value: Any) -> str:
    """A JSON value as a Jinja literal: strings and numbers as JSON writes them, ``none``,
    ``true`` and ``false`` as Jinja spells them.

    >>> _literal({"a": [None, True, 1.5, "x"]})
    '{"a": [none, true, 1.5, "x"]}'
    """
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(str(k))}: {_literal(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def generate(config: DbtConfig) -> str:
    """The text of the generated macros file for ``config``."""
    parts = [
        "{# Generated by `polars-rank dbt generate` from polars_rank.yml (polars_rank "
        f"{_version()}). Do not edit: change polars_rank.yml and generate again; "
        "`polars-rank dbt check` fails when this file is stale. #}\n"
    ]
    reports, checks, macros = [], [], []
    for report in config.reports:
        variants: dict[str, str] = {}
        for n, present in enumerate(_variants(report)):
            # a variant's macro ends in __<n> (a report's own name cannot give that ending)
            suffix = f"__{n}" if present else ""
            variants[present_key(present)] = suffix
            for adapter in config.adapters:
                sql = _report_sql(report, ADAPTERS[adapter], present)
                macros.append(f"polars_rank__{report.name}__{adapter}{suffix}")
                parts.append(_macro(macros[-1], _jinja(sql)))
        entry: dict[str, Any] = {
            "name": report.name,
            **({"fusion": report.fusion} if report.fusion is not None else {}),
            "metrics": list(report.metrics),
            "tables": list(report.tables),
            "options": report.options,
            "macro": f"polars_rank__{report.name}__",
        }
        if inferred_by(report):
            entry["by"] = by_list(report.options.get("by"))
            entry["infer"] = inferred_by(report)
            entry["variants"] = variants
        reports.append(f"    {_literal(report.key())}: {_literal(entry)}")
    for check in config.checks:
        for adapter in config.adapters:
            sql = _check_sql(check, ADAPTERS[adapter])
            macros.append(f"polars_rank__check_{check.name}__{adapter}")
            parts.append(_macro(macros[-1], _jinja(sql)))
        entry = {"input": check.input, "macro": f"polars_rank__check_{check.name}__"}
        checks.append(f"    {_literal(check.key())}: {_literal(entry)}")
    catalog = (
        f"{{% macro {CATALOG_MACRO}() %}}\n{{% do return({{\n"
        f"  'version': {_literal(_version())},\n"
        f"  'adapters': {_literal(list(config.adapters))},\n"
        f"  'report_defaults': {_literal(report_defaults())},\n"
        f"  'rating_defaults': {_literal(rating_defaults())},\n"
        f"  'check_defaults': {_literal(check_defaults())},\n"
        "  'reports': {\n" + ",\n".join(reports) + "\n  },\n"
        "  'checks': {\n" + ",\n".join(checks) + "\n  }\n"
        "}) %}\n{% endmacro %}\n"
    )
    calls = "".join(
        f"  {{%- {'if' if n == 0 else 'elif'} name == {_literal(m)} -%}}"
        f"{{{{ return({m}(tables)) }}}}\n"
        for n, m in enumerate(macros)
    )
    render = (
        f"{{% macro {RENDER_MACRO}(name, tables) %}}\n{calls}"
        + ("  {%- endif -%}\n" if macros else "")
        + "  {{ exceptions.raise_compiler_error('polars_rank: no generated macro ' ~ name) }}\n"
        "{% endmacro %}\n"
    )
    return "\n".join([*parts, catalog, render])
