"""The SQL text of the DuckDB engine: one query that ranks the run, joins the judgments, and
aggregates each query with the macros of ``sql/ranking.sql`` (calls built from the registry).

>>> from polars_rank.catalog.names import parse_metric
>>> metric_sql(parse_metric("nDCG@10"), 1)
"ndcg(rank, relevance, k := 10, gain := 'linear')"
>>> metric_sql(parse_metric("P(rel=2)@5"), 1)
'"precision"(rank, relevance, k := 5, relevance_level := 2)'
"""

from __future__ import annotations

import polars as pl

from polars_rank.catalog.model import REQUIRED
from polars_rank.catalog.names import MetricSpec
from polars_rank.core.columns import IN_RUN, JUDGED, LEFT_OUT
from polars_rank.core.options import Options
from polars_rank.core.sqltext import ident, literal
from polars_rank.core.summary import summary_sql

#: The row number column registered frames get when the first of duplicates must be found.
ROW = "__pr_row"

#: The run's check totals the evaluation returns with ``checks=True`` (see :func:`run_checks`).
RUN_ROWS = "__pr_run_rows"
NULL_IDS = "__pr_null_ids"
BAD_VALUES = "__pr_bad_values"
DISTINCT_DOCS = "__pr_distinct_docs"
DUPLICATE_QUERIES = "__pr_duplicate_queries"
CHECKS = (RUN_ROWS, NULL_IDS, BAD_VALUES, DUPLICATE_QUERIES)

#: The per-query result's query column, renamed to the caller's after the internal columns
#: (:data:`LEFT_OUT`, :data:`CHECKS`) are dropped: the caller's name may be one of theirs.
QUERY_OUT = "__pr_query"

#: Queries with at most this many retrieved judged documents rank them by counting the
#: documents above each (a join, linear in the query's length); longer lists of judged
#: documents are ranked by sorting the whole query (a window).
PAIRWISE_MAX_JUDGED = 32


def metric_sql(
    spec: MetricSpec,
    relevance_level: float,
    variant: str | None = None,
    leading: tuple[str, ...] | None = None,
) -> str:
    """The macro call computing ``spec`` for one query of the judged table: the columns, the
    required arguments by position, the optional ones by name (a NULL default is left out).
    ``leading`` replaces the columns (or tables) by these SQL texts; ``variant`` picks the
    variant's macro."""
    entry = spec.entry
    arguments = spec.arguments(relevance_level)
    given = tuple(entry.tables) + tuple(entry.columns)
    parts = list(given if leading is None else leading)
    params = entry.param
    macro = entry.sql_macro if variant is None else f"{entry.sql_macro}_{variant}"
    for name, default in entry.parameters(variant)[len(given) :]:
        value = arguments[name]
        text = params[name].sql(value) if name in params else literal(value)
        if default is REQUIRED:
            parts.append(text)
        elif value is not None:
            parts.append(f"{name} := {text}")
    return f"{macro}({', '.join(parts)})"


def id_sql(column: str, dtype: pl.DataType) -> str:
    """An id column as the engine reads it: text ids as bytes (``_pr_id_bytes``), so that
    joins and groups do not depend on the connection's collation; other ids as they are."""
    return f"_pr_id_bytes({ident(column)})" if dtype == pl.String else ident(column)


def _deduped(source: str, value: str, policy: str) -> str:
    """``query, doc, <value>`` with one row per (query, doc) under the duplicates policy."""
    if policy == "first":
        return (
            f"SELECT query, doc, arg_min_null({value}, {ROW}) AS {value} "
            f"FROM {source} GROUP BY query, doc"
        )
    if policy == "max":
        return f"SELECT query, doc, max({value}) AS {value} FROM {source} GROUP BY query, doc"
    return f"SELECT query, doc, {value} FROM {source}"


def run_checks(schema: pl.Schema, options: Options) -> dict[str, str]:
    """The run's input checks as aggregates over one query's rows of ``_run`` (its raw value
    ``by_value``, its ids as read), computed by the pass that counts each query's documents:
    null ids, null (or NaN) scores or ranks, and the number of distinct ``(query, doc)``
    hashes, less than the rows when a doc may repeat (a hash collision is told apart by the
    exact check that names the duplicate)."""
    by_value = "by_value IS NULL"
    if schema[options.order_column].is_float():
        # random(): a Parquet file's min/max statistics leave NaN out (see duckdb_checks)
        by_value += " OR isnan(coalesce(by_value, random()))"
    return {
        NULL_IDS: "count(*) FILTER (WHERE query IS NULL OR doc IS NULL)",
        BAD_VALUES: f"count(*) FILTER (WHERE {by_value})",
        # list_unique: the distinct count without building the distinct list (a hash is
        # never NULL, so this is len(list_distinct(...)), ~10 % less of the check's time)
        DISTINCT_DOCS: "list_unique(list(hash(doc)))",
    }


def judged_sql(
    run: str,
    qrels: str,
    schema: pl.Schema,
    options: Options,
    *,
    checks: bool = False,
    rows: tuple[str, str] = (ROW, ROW),
) -> str:
    """CTEs ending in ``_judged(query, rank, relevance)``: the compact judged table.

    ``run`` and ``qrels`` are ``FROM`` texts; ``schema`` is the run's; ``options`` must be
    resolved. The table holds every judged document (rank NULL when not retrieved, or ranked
    below ``max_rank``) and one unjudged row per run query whose rank is the number retrieved,
    the only rows the metrics read. A retrieved judged document's rank is 1 + the number of the
    query's documents ordered before it (the sort keys of ``sql/ranking.sql``), counted by a
    join of each judged document with the rows of its query that score at least as high.
    ``checks`` (with ``duplicates="error"`` only) adds the run's input checks to ``_size`` and
    defines ``_checks``, their totals in one row (see :func:`run_checks`). ``rows`` names the
    inputs' row-number columns (``duplicates="first"``), read as :data:`ROW`.
    """
    cols, order_column, duplicates = options.columns, options.order_column, options.duplicates
    run_row, qrels_row = ((f", {ident(r)} AS {ROW}" if duplicates == "first" else "") for r in rows)
    query_id = id_sql(cols.query, schema[cols.query])
    doc_id = id_sql(cols.doc, schema[cols.doc])
    run_in = (
        f"SELECT {query_id} AS query, {doc_id} AS doc, {ident(order_column)} AS by_value"
        f"{run_row} FROM {run}"
    )
    qrels_in = (
        f"SELECT {query_id} AS query, {doc_id} AS doc, {ident(cols.relevance)} AS relevance"
        f"{qrels_row} FROM {qrels}"
    )
    key = "_pr_score_key(by_value)" if options.order_by == "score" else "_pr_rank_key(by_value)"
    max_rank = options.max_rank
    cut = "" if max_rank is None else f" AND rank <= {int(max_rank)}"
    retrieved = "n" if max_rank is None else f"least(n, {int(max_rank)})"
    check_columns = checks_cte = ""
    if checks:
        if duplicates != "error":
            raise ValueError("the run's checks go with the evaluation for duplicates='error' only")
        check_columns = "".join(
            f", {sql} AS {name}" for name, sql in run_checks(schema, options).items()
        )
        checks_cte = f"""
_checks AS (
    SELECT coalesce(sum(n), 0) AS {RUN_ROWS}, coalesce(sum({NULL_IDS}), 0) AS {NULL_IDS},
           coalesce(sum({BAD_VALUES}), 0) AS {BAD_VALUES},
           count(*) FILTER (WHERE {DISTINCT_DOCS} < n) AS {DUPLICATE_QUERIES}
    FROM _size
),"""
    # the run is read several times: a plain scan is repeated where it is read (DuckDB keeps
    # a CTE read more than once, even NOT MATERIALIZED, as a copy of its rows in memory: the
    # run's ids and keys, ~3x the input), a deduplicated one is kept as the CTE ``_run`` (the
    # recommender CTEs read ``_run`` in either case); the doc id as text (doc_key, the
    # tie-break) is computed where a consumer reads it: the counting join computes it for
    # the judged documents and for tied rows only
    run_rows = (
        f"SELECT query, doc, {key} AS sort_key, _pr_id_bytes(doc) AS doc_key, by_value\n"
        f"    FROM ({_deduped(f'({run_in})', 'by_value', duplicates)})"
    )
    scan = f"({run_rows})" if duplicates == "error" else "_run"
    materialized = "NOT MATERIALIZED" if duplicates == "error" else "MATERIALIZED"
    return f"""
WITH _run AS {materialized} (
    {run_rows}
),
_qrels AS ({_deduped(f"({qrels_in})", "relevance", duplicates)}),
_hit AS (
    SELECT row_number() OVER () AS hit, r.query, r.doc, r.sort_key,
           _pr_id_bytes(r.doc) AS doc_key, q.relevance
    FROM {scan} AS r JOIN _qrels AS q ON r.query = q.query AND r.doc = q.doc
),
_size AS (SELECT query, count(*) AS n{check_columns} FROM {scan} GROUP BY query),{checks_cte}
_long AS (
    SELECT query FROM _hit GROUP BY query HAVING count(*) > {PAIRWISE_MAX_JUDGED}
),
_counted AS (
    SELECT h.query, h.doc, h.relevance, c.rank
    FROM (
        SELECT h.hit,
               1 + count(r.query) FILTER (WHERE CASE WHEN r.sort_key > h.sort_key THEN true
                   ELSE _pr_id_bytes(r.doc) > h.doc_key END)
                   AS rank
        FROM (SELECT hit, query, sort_key, doc_key FROM _hit
              WHERE query NOT IN (SELECT query FROM _long)) AS h
        LEFT JOIN {scan} AS r ON r.query = h.query AND r.sort_key >= h.sort_key
        GROUP BY h.hit
    ) AS c
    JOIN _hit AS h ON c.hit = h.hit
),
_sorted AS (
    SELECT h.query, h.doc, h.relevance, w.rank
    FROM (
        SELECT query, doc,
               row_number() OVER (PARTITION BY query
                                  ORDER BY sort_key DESC NULLS LAST, doc_key DESC NULLS LAST)
                   AS rank
        FROM {scan} AS r WHERE query IN (SELECT query FROM _long)
    ) AS w
    JOIN _hit AS h ON w.query = h.query AND w.doc = h.doc
),
_judged AS (
    SELECT query, CASE WHEN rank IS NOT NULL{cut} THEN rank END AS rank, relevance
    FROM (SELECT * FROM _counted UNION ALL SELECT * FROM _sorted)
    UNION ALL
    SELECT q.query, NULL, q.relevance
    FROM _qrels AS q ANTI JOIN _hit AS h ON q.query = h.query AND q.doc = h.doc
    UNION ALL
    SELECT query, {retrieved}, NULL FROM _size
),
"""


def query_sql(
    run: str,
    qrels: str,
    schema: pl.Schema,
    specs: list[MetricSpec],
    options: Options,
    *,
    per_query: bool,
    recommender: str = "",
    has_qrels: bool = True,
    outside: str | None = None,
    checks: bool = False,
    rows: tuple[str, str] = (ROW, ROW),
) -> str:
    """The whole evaluation as one SELECT: per-query values (sorted by query) or the summary
    row, plus the count of run queries without judgments in column :data:`LEFT_OUT`; the
    per-query values' query column is :data:`QUERY_OUT`.

    ``recommender`` holds the CTEs of the recommender metrics (they define ``_rec_user`` and
    ``_rec_corpus``, see :mod:`polars_rank.engines.duckdb.recsys`); ``outside`` names the column
    of ``_rec_corpus`` to return with the summary. Without qrels (``has_qrels=False``) every
    run query is evaluated. ``checks``: the run's check totals come back too, in the columns
    of :data:`CHECKS` (on every row; none when no query is evaluated). ``rows``: see
    :func:`judged_sql`."""
    judged = [s for s in specs if s.entry.table == "judged"]
    query_level = [s for s in specs if s.entry.level == "query"]
    metrics = [f"{metric_sql(s, options.relevance_level)} AS {ident(s.label)}" for s in judged]
    keep = JUDGED if options.queries == "qrels" else f"{JUDGED} AND {IN_RUN}"
    select = ",\n       ".join(
        [
            "query",
            f"bool_or(rank IS NOT NULL) AS {IN_RUN}",
            f"bool_or(relevance IS NOT NULL) AS {JUDGED}",
            *metrics,
        ]
    )
    users = (
        f"SELECT query FROM _per_query WHERE {keep}"
        if has_qrels
        else ("SELECT DISTINCT query FROM _run")
    )
    left_out = (
        f"SELECT count(*) FILTER (WHERE {IN_RUN} AND NOT {JUDGED}) AS n FROM _per_query"
        if has_qrels
        else "SELECT 0 AS n"
    )
    values = ["u.query"] + [f"p.{ident(s.label)}" for s in judged]
    values += [f"r.{ident(s.label)}" for s in query_level if s not in judged]
    rec_join = "LEFT JOIN _rec_user AS r ON u.query = r.query" if recommender else ""
    sql = (
        judged_sql(run, qrels, schema, options, checks=checks, rows=rows)
        + f"""_per_query AS (
    SELECT {select}
    FROM _judged
    GROUP BY query
),
_users AS ({users}),
_left AS ({left_out}),
{recommender}_values AS (
    SELECT {", ".join(values)}
    FROM _users AS u LEFT JOIN _per_query AS p ON u.query = p.query {rec_join}
)
"""
    )
    left = f"(SELECT n FROM _left) AS {ident(LEFT_OUT)}"
    if checks:
        left += "".join(f", (SELECT {c} FROM _checks) AS {ident(c)}" for c in CHECKS)
    if per_query:
        columns = ", ".join(
            [
                f"query AS {ident(QUERY_OUT)}",
                *(ident(s.label) for s in specs),
                left,
            ]
        )
        return sql + f"SELECT {columns} FROM _values ORDER BY query ASC NULLS LAST"
    aggregates = []
    for s in specs:
        if s.entry.level == "query":
            aggregates.append(f"{summary_sql(s.summary, s.label)} AS {ident(s.label)}")
        else:
            aggregates.append(f"(SELECT {ident(s.label)} FROM _rec_corpus) AS {ident(s.label)}")
    aggregates.append(left)
    if outside is not None:
        aggregates.append(f"(SELECT {outside} FROM _rec_corpus) AS {ident(outside)}")
    source = " FROM _values" if query_level else ""  # corpus values only: one row
    return sql + f"SELECT {', '.join(aggregates)}{source}"


def keyed_sql(
    run: str, qrels: str, by: list[str], shared: list[str], query: str, groups: str
) -> tuple[str, str]:
    """``FROM`` texts of the run and the judgments whose query column holds the (group,
    query) id of ``evaluate(..., by=...)``: a struct of the ``by`` columns and the query
    (fields ``f0, f1, ...``, the query last), NULL where the query is (so that the checks see
    it), compared field by field. The judgments join ``groups`` (the run's distinct ``by``
    values, a table reference) on the ``by`` columns they have (``shared``), or are crossed
    with it when they have none (shared by every group), as
    :func:`polars_rank.core.grouping.keyed_inputs` keys them.

    >>> print(keyed_sql("r", "j", ["d"], ["d"], "q", "g")[0])
    (SELECT * REPLACE (CASE WHEN "q" IS NOT NULL THEN {'f0': "d", 'f1': "q"} END AS "q") FROM r)
    """

    fields = ", ".join(f"'f{i}': {ident(c)}" for i, c in enumerate([*by, query]))
    run_keyed = (
        f"(SELECT * REPLACE (CASE WHEN {ident(query)} IS NOT NULL THEN {{{fields}}} END "
        f"AS {ident(query)}) FROM {run})"
    )
    sources = [("g." if c not in shared else "j.") + ident(c) for c in by]
    fields = ", ".join(f"'f{i}': {s}" for i, s in enumerate([*sources, f"j.{ident(query)}"]))
    on = " AND ".join(f"j.{ident(c)} = g.{ident(c)}" for c in shared)
    join = f"JOIN {groups} AS g ON {on}" if shared else f"CROSS JOIN {groups} AS g"
    qrels_keyed = (
        f"(SELECT j.* REPLACE (CASE WHEN j.{ident(query)} IS NOT NULL THEN {{{fields}}} END "
        f"AS {ident(query)}) FROM {qrels} AS j {join})"
    )
    return run_keyed, qrels_keyed
