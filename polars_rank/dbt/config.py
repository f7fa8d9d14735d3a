"""The dbt project's ``polars_rank.yml``: the reports and input checks to generate.

::

    adapters: [duckdb, postgres]        # default: every adapter in ADAPTERS
    reports:
      - name: daily_summary             # a macro name part: [a-z_][a-z0-9_]*
        metrics: [nDCG@10, P@5, AP]     # as polars_rank.evaluate takes them
      - name: daily_per_query
        metrics: [nDCG@10]
        per_query: true                 # any to_sql keyword option, passed as written
        left_out_column: left_out
      - name: recsys
        metrics: [coverage, novelty@10]
        tables: [run, interactions]     # default: [run, qrels]
      - name: clicks
        metrics: [AUC, LogLoss, GAUC]   # classification: to_sql(..., predictions=...)
        tables: [predictions]           # alone: label, score, by, group, threshold, weight
        label: clicked
        group: user
      - name: stars
        metrics: [RMSE, MAE, R2]        # rating metrics: rating_sql(...)
        tables: [ratings, predictions]  # options: user, item, rating, prediction, by, weight
        rating: stars
      - name: hybrid                    # no metrics: fusion_sql(method, ...), a fused run
        fusion: rrf                     # the method, as polars_rank.fuse takes it
        tables: [runs]                  # the default with fusion: the stacked runs
        norm: null                      # options: norm, weights, k, runs, run, query, ...
    checks:                             # the checks with default columns are always there
      - input: qrels
        relevance: grade

A report's ``tables`` tell its kind, and so the compiler and the options it takes:
``run`` with any of ``qrels, interactions, catalog, item_features`` (ranking and
recommender metrics, :func:`~polars_rank.compiler.to_sql`), ``[predictions]`` alone
(classification metrics, ``to_sql(predictions=...)``), ``[ratings, predictions]`` (rating
metrics, :func:`~polars_rank.compiler.rating.rating_sql`) or ``[runs]`` with ``fusion:``
instead of ``metrics:`` (:func:`~polars_rank.compiler.fusion.fusion_sql`). Each table is one
argument of the ``polars_rank.report`` macro, so a kind is never guessed from the metrics.

A request in a model matches a report when its metric list (same names, same order), its
tables and its options (those different from the compiler's defaults) are the same
(:func:`request_key`).

>>> config = parse_config({"reports": [{"name": "s", "metrics": ["P@5"], "per_query": True}]})
>>> config.reports[0].options, config.adapters[:2]
({'per_query': True}, ('duckdb', 'postgres'))
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polars_rank.catalog.names import parse_metric
from polars_rank.compiler.checks import check_sql
from polars_rank.compiler.compile import to_sql
from polars_rank.compiler.fusion import fusion_sql
from polars_rank.compiler.rating import rating_sql
from polars_rank.core import messages
from polars_rank.core.dialects import dialect_names, get_dialect
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.extras import require
from polars_rank.ranking.fusion import FUSION_METHODS

#: dbt adapter type (``target.type``) -> the compiler's dialect, from the dialect registry
#: (each dialect's :attr:`~polars_rank.core.dialects.Dialect.dbt_adapters`, in its order).
ADAPTERS: dict[str, str] = {
    adapter: name for name in dialect_names() for adapter in get_dialect(name).dbt_adapters
}

#: The tables of a ranking or recommender report: ``run`` and any of the others.
RANKING_TABLES: tuple[str, ...] = ("run", "qrels", "interactions", "catalog", "item_features")

#: The table arguments of a report, in the order the macros take them: the ranking ones,
#: then ``ratings`` (with ``predictions``: rating metrics), ``predictions`` (alone:
#: classification metrics) and ``runs`` (alone: a fusion report).
TABLES: tuple[str, ...] = (*RANKING_TABLES, "ratings", "predictions", "runs")
DEFAULT_TABLES: tuple[str, ...] = ("run", "qrels")
RATING_TABLES: tuple[str, ...] = ("ratings", "predictions")
FUSION_TABLES: tuple[str, ...] = ("runs",)

#: The inputs a check reads (``input:`` of a ``checks:`` entry).
CHECK_INPUTS: tuple[str, ...] = ("run", "qrels")

_NAME = re.compile(r"[a-z_][a-z0-9_]*\Z")


def _keyword_defaults(function: Callable[..., object], left_out: set[str]) -> dict[str, Any]:
    """The keyword-only parameters of ``function`` and their defaults (``left_out`` excepted):
    read from its signature, so a new option of the compiler is accepted here at once."""
    return {
        name: _normal(p.default)
        for name, p in inspect.signature(function).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and name not in left_out
    }


def report_defaults() -> dict[str, Any]:
    """The options a report may set (``to_sql``'s keyword options but tables and ``pretty``)
    with their defaults."""
    return _keyword_defaults(to_sql, {*TABLES, "pretty"})


def rating_defaults() -> dict[str, Any]:
    """The options a rating report may set (``rating_sql``'s keyword options but ``pretty``)
    with their defaults."""
    return _keyword_defaults(rating_sql, {"pretty"})


def fusion_defaults() -> dict[str, Any]:
    """The options a fusion report may set (``fusion_sql``'s keyword options but ``pretty``)
    with their defaults. Its ``runs`` option lists the run names; the table of stacked runs
    is the macro's ``runs=`` argument."""
    return _keyword_defaults(fusion_sql, {"pretty"})


def check_defaults() -> dict[str, Any]:
    """The options a check may set (``check_sql``'s keyword options but tables and
    ``pretty``) with their defaults."""
    return _keyword_defaults(check_sql, {*TABLES, "pretty"})


def _normal(value: Any) -> Any:
    """A value as a request key holds it: a whole float as an int (``1.0`` and ``1`` are one
    request), a tuple as a list."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def _options(given: Mapping[str, Any], defaults: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The options that differ from their defaults, normalised (:func:`_normal`). A switch
    (an option whose default is ``true`` or ``false``: ``per_query``) takes a YAML boolean
    only: a quoted ``"no"`` would be a true value."""
    out = {}
    for key, value in given.items():
        if isinstance(defaults[key], bool) and not isinstance(value, bool):
            raise PolarsRankError(_where(f"{where}: {key} must be true or false, got {value!r}"))
        value = _normal(value)
        is_bool, default_bool = isinstance(value, bool), isinstance(defaults[key], bool)
        if value != defaults[key] or is_bool != default_bool:
            out[key] = value
    return dict(sorted(out.items()))


def request_key(kind: str, request: Mapping[str, Any]) -> str:
    """The key a request is looked up by: the MD5 of its JSON with sorted keys, as dbt's
    ``local_md5(tojson(request, sort_keys=true))`` computes it in the package's macros.

    >>> text = '{"kind": "report", "metrics": ["P@5"], "options": {}, "tables": ["run"]}'
    >>> key = request_key("report", {"tables": ["run"], "options": {}, "metrics": ["P@5"]})
    >>> key == hashlib.md5(text.encode()).hexdigest()
    True
    """
    text = json.dumps({"kind": kind, **request}, sort_keys=True)
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def present_key(present: Mapping[str, list[str]]) -> str:
    """The key of one value of a report's inferred ``*_by`` arguments (argument → the ``by``
    columns its table has), as the package's macros compute it from the tables' columns:
    ``local_md5(tojson(present, sort_keys=true))``.

    >>> present_key({"qrels_by": ["system"]}) == hashlib.md5(
    ...     b'{"qrels_by": ["system"]}').hexdigest()
    True
    """
    text = json.dumps(dict(present), sort_keys=True)
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class Report:
    """A declared report: ``name``, ``metrics``, the ``tables`` it reads and the options that
    differ from its compiler's defaults; a fusion report has no metrics but its ``fusion``
    method.

    >>> Report("r", ("RMSE",), RATING_TABLES).kind, Report("f", (), ("runs",), fusion="rrf").kind
    ('rating', 'fusion')
    """

    name: str
    metrics: tuple[str, ...]
    tables: tuple[str, ...] = DEFAULT_TABLES
    options: dict[str, Any] = field(default_factory=dict)
    fusion: str | None = None

    @property
    def kind(self) -> str:
        """``ranking`` (a run, with to_sql), ``classification`` (predictions alone, with
        to_sql), ``rating`` (ratings and predictions, with rating_sql) or ``fusion``
        (stacked runs, with fusion_sql)."""
        if self.fusion is not None:
            return "fusion"
        if "ratings" in self.tables:
            return "rating"
        return "ranking" if "run" in self.tables else "classification"

    def key(self) -> str:
        request: dict[str, Any] = {
            "metrics": list(self.metrics),
            "options": self.options,
            "tables": sorted(self.tables),
        }
        if self.fusion is not None:  # absent otherwise: the keys of other reports unchanged
            request["fusion"] = self.fusion
        return request_key("report", request)


@dataclass(frozen=True)
class Check:
    """A declared input check: the ``input`` (run or qrels) and the options that differ from
    ``check_sql``'s defaults."""

    input: str
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The macro name part: the input and a short hash of the options."""
        return f"{self.input}_{self.key()[:10]}"

    def key(self) -> str:
        return request_key("check", {"input": self.input, "options": self.options})


@dataclass(frozen=True)
class DbtConfig:
    """A parsed ``polars_rank.yml``."""

    adapters: tuple[str, ...]
    reports: tuple[Report, ...]
    checks: tuple[Check, ...]


def _where(what: str) -> str:
    return f"polars_rank.yml: {what}"


def _report_tables(name: str, tables: Any, fusion: Any) -> tuple[str, ...]:
    """The tables of report ``name`` checked (one of the four kinds), in :data:`TABLES`'
    order."""
    if fusion is not None:
        if tables != list(FUSION_TABLES):
            raise PolarsRankError(
                _where(f"report {name!r}: a fusion report reads one table, tables: [runs]")
            )
        return FUSION_TABLES
    if (
        not isinstance(tables, list)
        or not all(isinstance(t, str) for t in tables)
        or not set(tables) <= set(TABLES)
        or len(set(tables)) < len(tables)
        or not (
            ("run" in tables and set(tables) <= set(RANKING_TABLES))
            or tables == ["predictions"]
            or sorted(tables) == sorted(RATING_TABLES)
        )
    ):
        hint = (
            " (add fusion: <method> to fuse the stacked runs)"
            if isinstance(tables, list) and "runs" in tables
            else ""
        )
        raise PolarsRankError(
            _where(
                f"report {name!r}: tables must list run and any of {list(RANKING_TABLES[1:])}, "
                "or be [predictions] alone (classification metrics), or [ratings, predictions] "
                f"(rating metrics), or [runs] with fusion: (a fusion report); got {tables!r}" + hint
            )
        )
    return tuple(t for t in TABLES if t in tables)


def _report(entry: Any, n: int) -> Report:
    if not isinstance(entry, dict):
        raise PolarsRankError(_where(f"reports[{n}] must be a mapping, got {entry!r}"))
    entry = dict(entry)
    name = entry.pop("name", None)
    if not isinstance(name, str) or not _NAME.match(name):
        raise PolarsRankError(
            _where(f"reports[{n}] needs a name of lower-case letters, digits and _, got {name!r}")
        )
    fusion = entry.pop("fusion", None)
    metrics = entry.pop("metrics", None)
    if fusion is not None:
        if not isinstance(fusion, str) or fusion not in FUSION_METHODS:
            raise PolarsRankError(
                _where(
                    f"report {name!r}: fusion must be one of {', '.join(FUSION_METHODS)}, "
                    f"got {fusion!r}"
                )
            )
        if metrics is not None:
            raise PolarsRankError(
                _where(
                    f"report {name!r}: a fusion report (fusion: {fusion}) outputs a run and "
                    "takes no metrics: evaluate its model in another report"
                )
            )
        metrics = []
    else:
        if isinstance(metrics, str):
            metrics = [metrics]
        if (
            not isinstance(metrics, list)
            or not metrics
            or not all(isinstance(m, str) for m in metrics)
        ):
            raise PolarsRankError(
                _where(f"report {name!r} needs a list of metric names (or fusion: <method>)")
            )
    default_tables = list(FUSION_TABLES if fusion is not None else DEFAULT_TABLES)
    tables = _report_tables(name, entry.pop("tables", default_tables), fusion)
    report = Report(name, tuple(metrics), tables, {}, fusion)
    _rating_metrics(report)
    defaults, compiler = {
        "fusion": (fusion_defaults(), "fusion_sql"),
        "rating": (rating_defaults(), "rating_sql"),
    }.get(report.kind, (report_defaults(), "to_sql"))
    unknown = [key for key in entry if key not in defaults]
    if unknown:
        raise PolarsRankError(
            _where(
                f"report {name!r}: unknown option {unknown[0]!r} (the options are {compiler}'s: "
                f"{', '.join(defaults)}; tables go in 'tables')"
            )
        )
    options = _options(entry, defaults, f"report {name!r}")
    return Report(name, tuple(metrics), tables, options, fusion)


def _rating_metrics(report: Report) -> None:
    """Rating metrics go with ``tables: [ratings, predictions]`` and only there: either way
    round, an error naming the report and the tables to declare."""
    if report.kind == "rating":
        for metric in report.metrics:
            try:
                parse_metric(metric, scope="rating")
            except PolarsRankError as err:
                raise PolarsRankError(
                    _where(f"report {report.name!r}: tables [ratings, predictions]: {err}")
                ) from None
        return
    for metric in report.metrics:
        try:
            parse_metric(metric, scope="rating")
        except PolarsRankError:
            continue
        raise PolarsRankError(
            _where(
                f"report {report.name!r}: {metric!r} is a rating metric: declare "
                "tables: [ratings, predictions] (rating_sql, called as "
                f"polars_rank.report('{report.name}', ratings=..., predictions=...))"
            )
        )


def _check(entry: Any, n: int, defaults: dict[str, Any]) -> Check:
    if not isinstance(entry, dict) or entry.get("input") not in CHECK_INPUTS:
        raise PolarsRankError(_where(f"checks[{n}] needs 'input: run' or 'input: qrels'"))
    entry = dict(entry)
    what = entry.pop("input")
    unknown = [key for key in entry if key not in defaults]
    if unknown:
        raise PolarsRankError(
            _where(
                f"checks[{n}]: unknown option {unknown[0]!r} (the options are check_sql's: "
                f"{', '.join(defaults)})"
            )
        )
    return Check(what, _options(entry, defaults, f"checks[{n}]"))


def parse_config(data: Any) -> DbtConfig:
    """A ``polars_rank.yml`` already read (a mapping) checked and parsed."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise PolarsRankError(_where("the file must hold a mapping (adapters, reports, checks)"))
    unknown = [key for key in data if key not in ("adapters", "reports", "checks")]
    if unknown:
        raise PolarsRankError(
            _where(f"unknown key {unknown[0]!r} (the keys: adapters, reports, checks)")
        )
    adapters = data.get("adapters", list(ADAPTERS))
    if isinstance(adapters, str):
        adapters = [adapters]
    if not isinstance(adapters, list) or not adapters:
        raise PolarsRankError(_where("adapters must be a list of dbt adapter types"))
    for adapter in adapters:
        if adapter not in ADAPTERS:
            raise PolarsRankError(
                _where(f"unknown adapter {adapter!r} (known: {', '.join(ADAPTERS)})")
            )
    reports = tuple(_report(e, n) for n, e in enumerate(data.get("reports") or []))
    names = [r.name for r in reports]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise PolarsRankError(_where(f"report name {repeated[0]!r} is used twice"))
    keys: dict[str, str] = {}
    for report in reports:
        if report.key() in keys:
            raise PolarsRankError(
                _where(f"reports {keys[report.key()]!r} and {report.name!r} are the same request")
            )
        keys[report.key()] = report.name
    cdefaults = check_defaults()
    checks = [Check(what) for what in CHECK_INPUTS]
    for n, entry in enumerate(data.get("checks") or []):
        check = _check(entry, n, cdefaults)
        if check.key() not in {c.key() for c in checks}:
            checks.append(check)
    ordered = tuple(a for a in ADAPTERS if a in adapters)
    return DbtConfig(ordered, reports, tuple(checks))


def read_config(path: str | Path) -> DbtConfig:
    """Read and parse the ``polars_rank.yml`` at ``path`` (needs PyYAML: the ``dbt``
    extra): UTF-8 text, else an error naming the file and the line."""
    yaml = require("yaml", "dbt")
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise messages.not_utf8(path, err) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise PolarsRankError(f"{path}: not valid YAML: {' '.join(str(err).split())}") from err
    return parse_config(data)
