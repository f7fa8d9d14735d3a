"""Rank fusion as portable SQL: :func:`fusion_sql`, what :func:`polars_rank.fuse` runs on the
engines that run SQL, printed for every dialect.

One stacked table in (``run, query, doc, score``), one ``SELECT`` out (``query, doc, score``),
with :func:`polars_rank.fuse`'s formulas (ranx 0.3.21's; see :mod:`polars_rank.ranking.fusion`):

* each run's scores are normalised per query with window functions (``MIN``, ``MAX``,
  ``SUM``, ``AVG``, ``STDDEV_POP``, ``COUNT`` over ``(run, query)``), every denominator
  floored at 1e-9 as ranx does;
* positions are ``ROW_NUMBER()`` per ``(run, query)`` by score descending, ties by doc id
  descending as text bytes (trec_eval's order; the byte-order collation where the dialect's
  default may not compare bytes);
* ``borda`` fills a run's missing candidates from a cross join of the runs with the query's
  candidates (every document any run returned for it);
* the median (``med``) is exact in every dialect: the average of the middle one or two
  values by ``ROW_NUMBER()`` and ``COUNT(*)`` per ``(query, doc)`` (never an approximate
  percentile, so Trino gives the same number);
* ``max`` / ``min`` take ranx's -1e9 / 1e9 for a run that did not return the document, so the
  number of runs is part of the query: the runs given (``runs=`` or the ``wsum`` weights'
  names, so that a run with no row counts) or the table's distinct runs.

Ids are compared as bytes whatever collation the session or the columns have (the compiler's
byte-key rule); the output query and doc are the table's own values.

>>> sql = fusion_sql("rrf", "bigquery", "project.ds.runs", k=60)
>>> "ROW_NUMBER() OVER" in sql, "`project`.`ds`.`runs`" in sql or "project.ds.runs" in sql
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from polars_rank.compiler.columns import check_dotless, given_column
from polars_rank.compiler.dialects import ID_NUMBER, ID_TEXT, RAW, render
from polars_rank.core.dialects import DialectName, get_dialect
from polars_rank.core.errors import PolarsRankError, bad_choice
from polars_rank.core.identifiers import table_reference
from polars_rank.core.sqltext import literal
from polars_rank.ranking.fusion import FUSION_METHODS, FUSION_NORMS

__all__ = ["fusion_sql"]

#: The placeholders of the stacked runs and of their columns.
RUNS = "pr_input_runs"
RUN, QUERY, DOC, SCORE = "pr_col_run", "pr_col_query", "pr_col_doc", "pr_col_score"
_OUT = {"query": "pr_col_qout", "doc": "pr_col_dout", "score": "pr_col_sout"}
_DOUBLE = "DOUBLE PRECISION"
#: ranx's floor on every normalisation's denominator; its CombMAX / CombMIN fill values.
_FLOOR, _ABSENT_MAX, _ABSENT_MIN = 1e-9, -1e9, 1e9


def _num(value: float) -> str:
    return f"CAST({float(value)!r} AS {_DOUBLE})"


def _floor(expression: str) -> str:
    return f"GREATEST({expression}, {_num(_FLOOR)})"


def _position(score: str) -> str:
    """0-based position in the run's query, as a DOUBLE: score descending, ties by doc id
    descending as text bytes."""
    return (
        f"CAST(ROW_NUMBER() OVER (PARTITION BY pr_run, pr_q ORDER BY {score} DESC, "
        f"CAST(pr_d AS TEXT) DESC) - 1 AS {_DOUBLE})"
    )


def _normalised(norm: str | None) -> str:
    """``pr_norm``'s select over ``pr_rows``: run, query, doc and the normalised score."""
    window = "OVER (PARTITION BY pr_run, pr_q)"
    low, high = f"MIN(pr_s) {window}", f"MAX(pr_s) {window}"
    count = f"CAST(COUNT(*) {window} AS {_DOUBLE})"
    value = {
        None: "pr_s",
        "min-max": f"(pr_s - {low}) / {_floor(f'{high} - {low}')}",
        "min-max-inverted": f"({high} - pr_s) / {_floor(f'{high} - {low}')}",
        "max": f"pr_s / {_floor(high)}",
        "sum": f"(pr_s - {low}) / {_floor(f'SUM(pr_s) {window} - {low} * {count}')}",
        "zmuv": f"(pr_s - AVG(pr_s) {window}) / {_floor(f'STDDEV_POP(pr_s) {window}')}",
        "rank": f"1 - {_position('pr_s')} / {count}",
    }[norm]
    return f"SELECT pr_run, pr_q, pr_qv, pr_d, pr_dv, {value} AS pr_s FROM pr_rows"


def _borda() -> str:
    """``pr_norm`` for ``borda``: ``1 - i / |C|`` for a returned document at position ``i``,
    ``0.5 - (n - 1) / (2 |C|)`` for a candidate the run did not return (``n`` its size)."""
    ranked = (
        f"pr_ranked AS (SELECT pr_run, pr_q, pr_d, {_position('pr_s')} AS pr_pos, "
        f"CAST(COUNT(*) OVER (PARTITION BY pr_run, pr_q) AS {_DOUBLE}) AS pr_len "
        "FROM pr_rows)"
    )
    candidates = (
        "pr_candidates AS (SELECT pr_q, pr_qv, pr_d, pr_dv, "
        f"CAST(COUNT(*) OVER (PARTITION BY pr_q) AS {_DOUBLE}) AS pr_c "
        "FROM (SELECT DISTINCT pr_q, pr_qv, pr_d, pr_dv FROM pr_rows) AS pr_distinct)"
    )
    sizes = "pr_sizes AS (SELECT DISTINCT pr_run, pr_q, pr_len FROM pr_ranked)"
    value = (
        "CASE WHEN pr_k.pr_pos IS NOT NULL THEN 1 - pr_k.pr_pos / pr_c.pr_c "
        f"ELSE {_num(0.5)} - (COALESCE(pr_z.pr_len, {_num(0.0)}) - 1) / (2 * pr_c.pr_c) END"
    )
    norm = (
        "pr_norm AS (SELECT pr_r.pr_run, pr_c.pr_q, pr_c.pr_qv, pr_c.pr_d, pr_c.pr_dv, "
        f"{value} AS pr_s FROM pr_runs AS pr_r CROSS JOIN pr_candidates AS pr_c "
        "LEFT JOIN pr_ranked AS pr_k ON pr_k.pr_run = pr_r.pr_run AND pr_k.pr_q = pr_c.pr_q "
        "AND pr_k.pr_d = pr_c.pr_d "
        "LEFT JOIN pr_sizes AS pr_z ON pr_z.pr_run = pr_r.pr_run AND pr_z.pr_q = pr_c.pr_q)"
    )
    return f"{ranked}, {candidates}, {sizes}, {norm}"


def _combined(method: str, k: float) -> str:
    """The CTEs from ``pr_norm`` to ``pr_fused`` (query, doc, fused score)."""
    keys = "pr_q, pr_qv, pr_d, pr_dv"
    source = "pr_norm"
    steps = []
    if method == "rrf":
        steps.append(
            "pr_rrf AS (SELECT pr_run, pr_q, pr_qv, pr_d, pr_dv, "
            f"1 / ({_num(k)} + {_position('pr_s')} + 1) AS pr_s FROM pr_norm)"
        )
        source = "pr_rrf"
    if method == "wsum":
        steps.append(
            "pr_weighted AS (SELECT pr_n.pr_run, pr_q, pr_qv, pr_d, pr_dv, pr_w * pr_s AS pr_s "
            "FROM pr_norm AS pr_n JOIN pr_runs AS pr_r ON pr_r.pr_run = pr_n.pr_run)"
        )
        source = "pr_weighted"
    count = f"CAST(COUNT(*) AS {_DOUBLE})"
    missing = "COUNT(*) < (SELECT COUNT(*) FROM pr_runs)"
    if method == "med":
        steps.append(
            f"pr_ordered AS (SELECT {keys}, pr_s, "
            f"ROW_NUMBER() OVER (PARTITION BY pr_q, pr_d ORDER BY pr_s) AS pr_i, "
            f"COUNT(*) OVER (PARTITION BY pr_q, pr_d) AS pr_m FROM {source})"
        )
        source = "pr_ordered"
    value = {
        "sum": "SUM(pr_s)",
        "rrf": "SUM(pr_s)",
        "wsum": "SUM(pr_s)",
        "mnz": f"SUM(pr_s) * {count}",
        "anz": f"SUM(pr_s) / {count}",
        "med": "AVG(CASE WHEN 2 * pr_i BETWEEN pr_m AND pr_m + 2 THEN pr_s END)",
        "max": f"CASE WHEN {missing} THEN GREATEST(MAX(pr_s), {_num(_ABSENT_MAX)}) "
        "ELSE MAX(pr_s) END",
        "min": f"CASE WHEN {missing} THEN LEAST(MIN(pr_s), {_num(_ABSENT_MIN)}) ELSE MIN(pr_s) END",
    }[method]
    steps.append(
        f"pr_fused AS (SELECT {keys}, CAST({value} AS {_DOUBLE}) AS pr_s "
        f"FROM {source} GROUP BY {keys})"
    )
    return ", ".join(steps)


def _name(name: object) -> str:
    """A run's name as a literal of the run column's kind (text or integer)."""
    if isinstance(name, bool) or not isinstance(name, str | int):
        raise PolarsRankError(
            f"run names in SQL must be text or integers, got {type(name).__name__} {name!r}"
        )
    return literal(name)


def fusion_sql(
    method: str,
    dialect: DialectName,
    runs_table: str,
    *,
    norm: str | None = "min-max",
    weights: Mapping[Any, float] | None = None,
    k: float = 60,
    runs: Sequence[str | int] | None = None,
    run: str = "run",
    query: str = "query",
    doc: str = "doc",
    score: str = "score",
    pretty: bool = True,
) -> str:
    """One ``SELECT`` fusing the runs stacked in ``runs_table`` (``run, query, doc, score``)
    into one run ``query, doc, score`` in ``dialect``, sorted by query and score descending
    (ties by doc id descending) — :func:`polars_rank.fuse`'s scores within 1e-12 (sums may
    add in another order).

    Args:
        method, norm, k: as :func:`polars_rank.fuse`.
        dialect: as :func:`~polars_rank.to_sql`.
        runs_table: the stacked runs, a table reference (``[catalog.][schema.]table``).
        weights: ``wsum`` only (and required there): ``{run name: weight}`` for every run;
            run names are text or integers.
        runs: every run's name, when a run may have no row at all (it still counts for
            ``max``, ``min`` and ``borda``); by default the weights' names, else the
            table's distinct runs.
        run, query, doc, score: the table's column names.

    The query does not check its input (a duplicate ``(run, query, doc)`` row would count
    twice, a NULL score is read as missing): :func:`polars_rank.fuse` checks it on every engine.

    >>> print(fusion_sql("sum", "duckdb", "runs", norm=None).splitlines()[-1])
      CAST("pr_d" AS TEXT) COLLATE "binary" DESC NULLS LAST
    """
    get_dialect(dialect)
    if method not in FUSION_METHODS:
        raise bad_choice("method", method, FUSION_METHODS)
    if norm not in FUSION_NORMS:
        raise bad_choice("norm", norm, FUSION_NORMS)
    if isinstance(k, bool) or not isinstance(k, int | float) or not 0 < k < float("inf"):
        raise PolarsRankError(f"k must be a positive number, got {k!r}")
    if (method == "wsum") != (weights is not None):
        raise PolarsRankError(
            "method='wsum' needs weights: {run name: weight} for every run"
            if weights is None
            else f"weights are for method='wsum' only, got method={method!r}"
        )
    if weights is not None:
        if not isinstance(weights, Mapping) or not weights:
            raise PolarsRankError(f"weights must be {{run name: weight}}, got {weights!r}")
        for name, value in weights.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise PolarsRankError(f"weight of run {name!r} must be a number, got {value!r}")
            if not abs(value) < float("inf"):
                raise PolarsRankError(f"weight of run {name!r} must be finite, got {value!r}")
    names = {
        RUN: given_column("run", run),
        QUERY: given_column("query", query),
        DOC: given_column("doc", doc),
        SCORE: given_column("score", score),
    }
    outputs = [query, doc, score]
    if len({c.lower() for c in outputs}) < 3 or run.lower() in {c.lower() for c in outputs}:
        raise PolarsRankError(
            f"the run, query, doc and score columns {[run, *outputs]} must differ "
            "(case-insensitively)"
        )
    check_dotless(names.values(), dialect)
    names.update({_OUT["query"]: query, _OUT["doc"]: doc, _OUT["score"]: score})
    listed = list(runs) if runs is not None else list(weights) if weights is not None else None
    if listed is not None:
        if not listed:
            raise PolarsRankError("runs must name at least one run")
        if weights is not None and set(weights) != set(listed):
            raise PolarsRankError(f"weights {list(weights)} must name every run of {listed}")
        if len(set(listed)) < len(listed):
            raise PolarsRankError(f"runs {listed} name a run twice")
        weight = (lambda n: f", {_num(weights[n])} AS pr_w") if weights else (lambda n: "")
        listing = " UNION ALL ".join(f"SELECT {_name(n)} AS {RUN}{weight(n)}" for n in listed)
        # read as the caller's run column is (its byte key), so that names compare as ids do
        run_table = f"SELECT {RUN} AS pr_run{', pr_w' * bool(weights)} FROM ({listing}) AS pr_l"
    else:
        run_table = "SELECT DISTINCT pr_run FROM pr_rows"
    rows = (
        f"pr_rows AS (SELECT {RUN} AS pr_run, {QUERY} AS pr_q, {RAW}({QUERY}) AS pr_qv, "
        f"{DOC} AS pr_d, {RAW}({DOC}) AS pr_dv, CAST({SCORE} AS {_DOUBLE}) AS pr_s "
        f"FROM {RUNS})"
    )
    steps = [rows, f"pr_runs AS ({run_table})"]
    steps.append(_borda() if norm == "borda" else f"pr_norm AS ({_normalised(norm)})")
    steps.append(_combined(method, k))
    text = (
        f"WITH {', '.join(steps)} SELECT pr_qv AS {_OUT['query']}, pr_dv AS {_OUT['doc']}, "
        f"pr_s AS {_OUT['score']} FROM pr_fused ORDER BY {ID_NUMBER}(pr_qv), {ID_TEXT}(pr_qv), "
        "pr_s DESC, CAST(pr_d AS TEXT) DESC"
    )
    tables = {RUNS: ("runs", table_reference(runs_table, "runs_table", dialect))}
    return render(text, dialect, tables, names, doc_key="pr_d", pretty=pretty)
