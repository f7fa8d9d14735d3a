""":func:`check_sql`: the engines' input checks as one portable ``SELECT``.

The compiled evaluation (:func:`~polars_rank.compiler.compile.to_sql`) assumes what the
engines check before they evaluate: non-null ids, scores (or ranks) and grades that are
numbers, and one row per ``(query, doc)`` in each table. In a warehouse nothing checks that
for you, so :func:`check_sql` compiles the checks themselves: one query, one row per failed
check, no row when the tables are clean. Run it before the evaluation (a dbt test, a
scheduled assertion, ``engine="spark"`` runs it first).

>>> sql = check_sql("postgres", run="db.run", qrels="db.qrels")
>>> sql.splitlines()[0]
'SELECT'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from polars_rank.catalog.names import MetricSpec
from polars_rank.compiler import placeholders as ph
from polars_rank.compiler.columns import metric_outputs
from polars_rank.compiler.compile import _parsed, require_input_by, roles_of
from polars_rank.compiler.dialects import render
from polars_rank.compiler.recsys import CATALOG, FEATURES, INTERACTIONS
from polars_rank.core.conventions import OrderBy
from polars_rank.core.dialects import DialectName, get_dialect
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.grouping import by_list, check_by_names
from polars_rank.core.identifiers import TableRef, table_reference
from polars_rank.core.options import Duplicates, Options

#: The columns of :func:`check_sql`'s result.
CHECK_COLUMNS = ("input", "problem", "rows_affected", "example_query", "example_doc")

#: Placeholders of the result's columns (renamed to :data:`CHECK_COLUMNS` when rendering).
_OUT = {f"pr_out_{name}": name for name in CHECK_COLUMNS}
_INPUT, _PROBLEM, _ROWS, _QUERY, _DOC = _OUT

#: The largest finite DOUBLE: a grade beyond it is infinite (no dialect-specific literal).
_DOUBLE_MAX = "1.7976931348623157E308"


def _double(column: str) -> str:
    return f"CAST({column} AS DOUBLE)"


def _is_nan(column: str, dialect: str) -> str:
    """True for NaN, tested row by row (:meth:`~polars_rank.core.dialects.Dialect.is_nan_per_row`:
    ``ISNAN``, or where there is none NaN compares equal to itself; DuckDB's test is one no
    statistics of a Parquet file can skip)."""
    return get_dialect(dialect).is_nan_per_row(column)


def _bad_number(column: str, dialect: str) -> str:
    return f"({column} IS NULL OR {_is_nan(column, dialect)})"


def _infinite(column: str, dialect: str) -> str:
    value = _double(column)
    finite_nan = f"NOT {_is_nan(column, dialect)}"  # PostgreSQL sorts NaN above every number
    return f"({column} IS NOT NULL AND {finite_nan} AND ABS({value}) > {_DOUBLE_MAX})"


def _text(column: str) -> str:
    return f"CAST({column} AS VARCHAR)"


def _rows_where(table: str, label: str, problem: str, bad: str, doc: str | None) -> str:
    """The rows of ``table`` where ``bad`` holds: how many, and the smallest example."""
    example_doc = f"MIN({_text(doc)})" if doc else "CAST(NULL AS VARCHAR)"
    return (
        f"SELECT '{label}' AS {_INPUT}, '{problem}' AS {_PROBLEM}, "
        f"CAST(COUNT(*) AS BIGINT) AS {_ROWS}, "
        f"MIN({_text(ph.QUERY)}) AS {_QUERY}, {example_doc} AS {_DOC} "
        f"FROM {table} WHERE {bad} HAVING COUNT(*) > 0"
    )


def _empty(table: str, label: str) -> str:
    return (
        f"SELECT '{label}' AS {_INPUT}, 'empty' AS {_PROBLEM}, CAST(0 AS BIGINT) AS {_ROWS}, "
        f"CAST(NULL AS VARCHAR) AS {_QUERY}, CAST(NULL AS VARCHAR) AS {_DOC} "
        f"FROM {table} HAVING COUNT(*) = 0"
    )


def _duplicates(table: str, label: str, keys: tuple[str, str], groups: Sequence[str] = ()) -> str:
    """The ``(query, doc)`` pairs that occur more than once (within a group of the ``groups``
    columns): how many rows they have, and the smallest pair."""
    query, doc = keys
    grouped = "".join(f", {g}" for g in groups)
    return (
        f"SELECT '{label}' AS {_INPUT}, 'duplicate_pair' AS {_PROBLEM}, "
        f"CAST(SUM(n) AS BIGINT) AS {_ROWS}, MIN(q) AS {_QUERY}, MIN(d) AS {_DOC} "
        f"FROM (SELECT MIN({_text(query)}) AS q, MIN({_text(doc)}) AS d, COUNT(*) AS n "
        f"FROM {table} "
        f"GROUP BY {query}, {doc}{grouped} HAVING COUNT(*) > 1) AS pr_repeated "
        "HAVING COUNT(*) > 0"
    )


class _Check(NamedTuple):
    """One check of a ranking input: the rows of ``table`` where ``bad`` holds (``bad`` is
    None for ``empty`` and ``duplicate_pair``; ``groups``: the duplicates' group columns)."""

    table: str
    label: str
    problem: str
    bad: str | None = None
    groups: tuple[str, ...] = ()


def _ranking_checks(
    dialect: str,
    *,
    run: bool,
    qrels: bool,
    order_by: OrderBy,
    duplicates: bool,
    groups: Sequence[str] = (),
    qrels_groups: Sequence[str] = (),
    limit: float | None = None,
) -> list[_Check]:
    """The checks of the run and the qrels, in :func:`check_sql`'s order (over the
    placeholders of :mod:`.placeholders` and the ``groups`` columns)."""
    checks: list[_Check] = []
    order_problem = "bad_score" if order_by == "score" else "bad_rank"
    null_id = f"({ph.QUERY} IS NULL OR {ph.DOC} IS NULL)"
    if run:
        checks += [
            _Check(ph.RUN, "run", "empty"),
            _Check(ph.RUN, "run", "null_id", null_id),
            _Check(ph.RUN, "run", order_problem, _bad_number(ph.ORDER, dialect)),
        ]
        if groups:
            null_group = "(" + " OR ".join(f"{g} IS NULL" for g in groups) + ")"
            checks.append(_Check(ph.RUN, "run", "null_group", null_group))
        if duplicates:
            checks.append(_Check(ph.RUN, "run", "duplicate_pair", groups=tuple(groups)))
    if qrels:
        grade = ph.RELEVANCE
        checks += [
            _Check(ph.QRELS, "qrels", "empty"),
            _Check(ph.QRELS, "qrels", "null_id", null_id),
            _Check(ph.QRELS, "qrels", "bad_grade", _bad_number(grade, dialect)),
            _Check(ph.QRELS, "qrels", "infinite_grade", _infinite(grade, dialect)),
        ]
        if limit is not None:
            above = (
                f"({grade} IS NOT NULL AND {_double(grade)} > {limit!r} "
                f"AND {_double(grade)} <= {_DOUBLE_MAX})"  # infinite grades: their own check
            )
            if get_dialect(dialect).nan_above_every_number:
                above = f"({above} AND NOT {_is_nan(grade, dialect)})"
            checks.append(_Check(ph.QRELS, "qrels", "grade_above_max", above))
        if qrels_groups:
            null_group = "(" + " OR ".join(f"{g} IS NULL" for g in qrels_groups) + ")"
            checks.append(_Check(ph.QRELS, "qrels", "null_group", null_group))
        if duplicates:
            checks.append(_Check(ph.QRELS, "qrels", "duplicate_pair", groups=tuple(qrels_groups)))
    return checks


def _render_check(check: _Check) -> str:
    """``check`` as one part of :func:`check_sql`'s ``UNION ALL``."""
    if check.problem == "empty":
        return _empty(check.table, check.label)
    if check.bad is None:
        return _duplicates(check.table, check.label, (ph.QUERY, ph.DOC), check.groups)
    return _rows_where(check.table, check.label, check.problem, check.bad, ph.DOC)


def check_counts_sql(
    dialect: DialectName,
    run: str,
    qrels: str,
    *,
    query: str = "query",
    doc: str = "doc",
    score: str = "score",
    rank: str = "rank",
    relevance: str = "relevance",
    order_by: OrderBy = "score",
    duplicates: Duplicates = "error",
    run_duplicates: bool = True,
    by: str | Sequence[str] | None = None,
    qrels_by: str | Sequence[str] | None = None,
    pair_hash: Mapping[str, str] | None = None,
    pretty: bool = True,
) -> tuple[str, list[tuple[str, str]]]:
    """The checks of :func:`check_sql` on a run and qrels as one row of counts, each table
    read once (one aggregate of all its row checks; the duplicate pairs grouped apart):
    the query, and the ``(input, problem)`` of each of its columns in order. A count above
    0 is a failed check (``empty``: 1 when the table has no row). The conditions are
    :func:`check_sql`'s (same arguments). ``run_duplicates=False`` leaves out the run's
    duplicate pairs (``engine="spark"`` counts them in the evaluation:
    ``to_sql(..., duplicates_column=...)``).

    ``pair_hash`` maps ``"run"`` and/or ``"qrels"`` to an aggregate in the dialect counting
    the distinct hashes of ``{doc}`` in a group (e.g. ``COUNT(DISTINCT HASH({doc}))``): that
    table's pairs are then pre-tested per query (per group and query), under the problem
    ``duplicate_pair_hash``: the sum over the queries of their rows less their distinct doc
    hashes (the table's other checks summed over the same per-query rows: one read).
    Grouped by query alone, rows next to each other in a table clustered by query are
    combined before any shuffle (Spark: ``SIZE(ARRAY_DISTINCT(COLLECT_LIST(...)))``),
    where grouping the pairs shuffles and hashes every pair. Equal docs hash equal, so 0
    proves that no pair repeats; above 0 the hashes collide or a pair repeats, which the
    caller decides with the exact grouping (``engine="spark"`` does).

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> _ = con.sql("CREATE TABLE run AS SELECT * FROM (VALUES ('q1', 'a', 1.0), "
    ...             "('q1', 'a', 2.0), ('q2', NULL, 0.5)) t(query, doc, score)")
    >>> _ = con.sql("CREATE TABLE qrels AS SELECT 'q1' AS query, 'a' AS doc, 1 AS relevance")
    >>> sql, keys = check_counts_sql("duckdb", "run", "qrels")
    >>> [key for key, n in zip(keys, con.sql(sql).fetchall()[0]) if n]
    [('run', 'null_id'), ('run', 'duplicate_pair')]
    """
    get_dialect(dialect)  # a registered dialect, else an error naming them
    options = Options.from_arguments(
        query=query,
        doc=doc,
        score=score,
        rank=rank,
        relevance=relevance,
        order_by=order_by,
        duplicates=duplicates,
    )
    if options.duplicates == "first":
        raise PolarsRankError(
            "duplicates='first' is refused: a table has no row order (use 'error' or 'max')"
        )
    by_columns, shared = by_list(by), by_list(qrels_by)
    groups = [f"pr_col_by{i}" for i in range(len(by_columns))]
    qrels_groups = [groups[by_columns.index(c)] for c in shared]
    checks = _ranking_checks(
        dialect,
        run=True,
        qrels=True,
        order_by=order_by,
        duplicates=options.duplicates == "error",
        groups=groups,
        qrels_groups=qrels_groups,
    )
    if not run_duplicates:
        checks = [c for c in checks if (c.label, c.problem) != ("run", "duplicate_pair")]
    hashed = dict(pair_hash or {})
    # the tables pre-tested by hash: all their checks in one aggregate of per-query rows
    per_query = {
        c.table: c.groups
        for c in checks
        if c.bad is None and c.problem == "duplicate_pair" and c.label in hashed
    }
    rows: dict[str, list[str]] = {}  # per table, the counts of its row checks
    inner: dict[str, list[str]] = {t: [] for t in per_query}  # their per-query sums
    pairs: list[str] = []  # the duplicate pairs, one subquery each
    keys: list[tuple[str, str]] = []
    for n, check in enumerate(checks):
        column = f"pr_k{n}"
        keys.append((check.label, check.problem))
        grouped_first = check.table in per_query
        if check.problem == "empty":
            total = "COALESCE(SUM(pr_n), 0)" if grouped_first else "COUNT(*)"
            count = f"CASE WHEN {total} = 0 THEN 1 ELSE 0 END AS {column}"
        elif check.bad is not None:
            flagged = f"SUM(CASE WHEN {check.bad} THEN 1 ELSE 0 END)"
            if grouped_first:
                inner[check.table].append(f"{flagged} AS pr_s{n}")
                flagged = f"SUM(pr_s{n})"
            count = f"COALESCE({flagged}, 0) AS {column}"
        elif grouped_first:  # per query: its rows less its distinct doc hashes
            keys[-1] = (check.label, "duplicate_pair_hash")
            count = f"COALESCE(SUM(pr_n - pr_distinct), 0) AS {column}"
            distinct = hashed[check.label].format(doc=ph.DOC)
            inner[check.table].append(f"{distinct} AS pr_distinct")
        else:
            grouped = "".join(f", {g}" for g in check.groups)
            pairs.append(
                f"SELECT COUNT(*) AS {column} FROM (SELECT {ph.QUERY} FROM {check.table} "
                f"GROUP BY {ph.QUERY}, {ph.DOC}{grouped} HAVING COUNT(*) > 1) AS pr_repeated"
            )
            continue
        rows.setdefault(check.table, []).append(count)
    parts = []
    for table, counts in rows.items():
        source = table
        if table in per_query:
            grouped = "".join(f"{g}, " for g in per_query[table])
            source = (
                f"(SELECT COUNT(*) AS pr_n, {', '.join(inner[table])} FROM {table} "
                f"GROUP BY {grouped}{ph.QUERY}) AS pr_per_query"
            )
        parts.append(f"SELECT {', '.join(counts)} FROM {source}")
    parts += pairs
    text = "SELECT " + ", ".join(f"pr_c{n}.*" for n in range(len(parts))) + " FROM "
    text += " CROSS JOIN ".join(f"({part}) AS pr_c{n}" for n, part in enumerate(parts))
    tables = {
        ph.RUN: ("run", table_reference(run, "run", dialect)),
        ph.QRELS: ("qrels", table_reference(qrels, "qrels", dialect)),
    }
    cols = options.columns
    names = {
        ph.QUERY: cols.query,
        ph.DOC: cols.doc,
        ph.ORDER: options.order_column,
        ph.RELEVANCE: cols.relevance,
        **dict(zip(groups, by_columns, strict=True)),
    }
    order = {f"pr_k{n}": n for n in range(len(checks))}
    ordered = sorted(order, key=lambda c: order[c])
    text = f"SELECT {', '.join(ordered)} FROM ({text}) AS pr_counts"
    return render(text, dialect, tables, names, doc_key="", pretty=pretty), keys


def check_sql(
    dialect: DialectName,
    run: str | None = None,
    qrels: str | None = None,
    *,
    predictions: str | None = None,
    label: str = "label",
    weight: str | None = None,
    metrics: Sequence[str | MetricSpec] | str | None = None,
    interactions: str | None = None,
    catalog: str | None = None,
    item_features: str | None = None,
    query: str = "query",
    doc: str = "doc",
    score: str = "score",
    rank: str = "rank",
    relevance: str = "relevance",
    order_by: OrderBy = "score",
    duplicates: Duplicates = "error",
    by: str | Sequence[str] | None = None,
    qrels_by: str | Sequence[str] | None = None,
    interactions_by: str | Sequence[str] | None = None,
    catalog_by: str | Sequence[str] | None = None,
    item_features_by: str | Sequence[str] | None = None,
    pretty: bool = True,
) -> str:
    """One ``SELECT`` in ``dialect`` returning one row per failed input check, and no row
    when the inputs are clean: the checks the engines run before evaluating.

    Columns: ``input`` (``run``, ``qrels``, ``interactions``, ``catalog``,
    ``item_features``), ``problem``, ``rows_affected``, ``example_query`` and
    ``example_doc`` (the smallest offending ids as text). The problems:

    * ``empty``: the table has no row;
    * ``null_id``: a null query or doc id (the catalog and item features: a null doc);
    * ``bad_score`` / ``bad_rank``: a null or NaN score (``order_by="rank"``: rank);
    * ``bad_grade``: a null or NaN grade; ``infinite_grade``: a grade of ±infinity;
    * ``grade_above_max``: a grade above what a metric takes (ERR's ``max_grade``), with
      ``metrics``;
    * ``duplicate_pair``: ``(query, doc)`` pairs that occur more than once (rows affected:
      the rows of those pairs), with ``duplicates="error"`` (``"max"`` keeps the highest);
      with ``by``, pairs repeated within a group (the qrels: within its ``qrels_by`` values);
    * ``null_group``: a null value in a ``by`` column (``qrels_by`` in the qrels,
      ``interactions_by``, ``catalog_by``, ``item_features_by`` in those tables), with ``by``
      (the evaluation leaves those rows out; the engines refuse them).

    Arguments as :func:`~polars_rank.compiler.compile.to_sql`'s, by its rules (``by``
    columns named as there; with ``by``, each table given needs its ``*_by`` argument,
    ``[]`` for shared); table arguments are table references, quoted per dialect as there.
    ``run`` may be None to check the judgments alone (``qrels`` given).

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> _ = con.sql("CREATE TABLE run AS SELECT * FROM (VALUES ('q1', 'a', 1.0), "
    ...             "('q1', 'a', 2.0), ('q2', NULL, 0.5)) t(query, doc, score)")
    >>> con.sql(check_sql("duckdb", "run")).fetchall()
    [('run', 'null_id', 1, 'q2', None), ('run', 'duplicate_pair', 2, 'q1', 'a')]

    With ``predictions`` (a classification table; ``label``, ``score`` and ``weight`` its
    columns, ``metrics`` classification names) the checks of
    :func:`~polars_rank.compiler.classification.predictions_check_sql` instead: NULL labels,
    scores or weights, labels outside {0, 1}, NaN scores, scores outside [0, 1] (for the
    metrics of probabilities), bad weights. These are checks of rows, the same in every
    segment, so ``by`` (and every ranking option) is refused with ``predictions``.
    """
    if predictions is not None:
        from polars_rank.compiler.classification import predictions_check_sql

        if run is not None or qrels is not None:
            raise PolarsRankError(
                "check_sql checks either a run (and qrels ...) or predictions=, one family per call"
            )
        ranking_only = {
            "by": by,
            "qrels_by": qrels_by,
            "interactions_by": interactions_by,
            "catalog_by": catalog_by,
            "item_features_by": item_features_by,
            "interactions": interactions,
            "catalog": catalog,
            "item_features": item_features,
        }
        given = [name for name, value in ranking_only.items() if value is not None]
        changed = given + [
            name
            for name, value, default in (
                ("query", query, "query"),
                ("doc", doc, "doc"),
                ("rank", rank, "rank"),
                ("relevance", relevance, "relevance"),
                ("order_by", order_by, "score"),
                ("duplicates", duplicates, "error"),
            )
            if value != default
        ]
        if changed:
            why = (
                ": every check of a predictions table is a check of its rows, the same in "
                "every segment (a NULL by value is a segment of its own, not a problem)"
                if changed[0] == "by"
                else " (an option of the ranking and recommender checks)"
            )
            raise PolarsRankError(f"check_sql with predictions= does not take {changed[0]}={why}")
        return predictions_check_sql(
            dialect,
            predictions,
            metrics=metrics,
            label=label,
            score=score,
            weight=weight,
            pretty=pretty,
        )
    get_dialect(dialect)  # a registered dialect, else an error naming them
    options = Options.from_arguments(
        query=query,
        doc=doc,
        score=score,
        rank=rank,
        relevance=relevance,
        order_by=order_by,
        duplicates=duplicates,
    )
    if options.duplicates == "first":
        raise PolarsRankError(
            "duplicates='first' is refused: a table has no row order (use 'error' or 'max')"
        )
    if run is None and qrels is None:
        raise PolarsRankError(
            "check_sql needs a run table, a qrels table or both (or predictions=)"
        )
    specs = _parsed(metrics) if metrics is not None else []
    by_columns, shared = by_list(by), by_list(qrels_by, "qrels_by")
    check_by_names(by_columns, roles_of(query, doc, score, rank, relevance), metric_outputs(specs))
    require_input_by(
        by_columns,
        {
            "qrels_by": (qrels, qrels_by),
            "interactions_by": (interactions, interactions_by),
            "catalog_by": (catalog, catalog_by),
            "item_features_by": (item_features, item_features_by),
        },
    )
    input_by = {
        "qrels": shared,
        "interactions": by_list(interactions_by, "interactions_by"),
        "catalog": by_list(catalog_by, "catalog_by"),
        "item_features": by_list(item_features_by, "item_features_by"),
    }
    for name, listed in input_by.items():
        outside = [c for c in listed if c not in by_columns]
        if outside:
            raise PolarsRankError(
                f"{name}_by column {outside[0]!r} is not one of the by columns {by_columns}"
            )
    groups = [f"pr_col_by{i}" for i in range(len(by_columns))]
    qrels_groups = [groups[by_columns.index(c)] for c in shared]

    def input_null_group(placeholder: str, label: str, doc: str | None) -> None:
        """The rows of an input with a null in one of the ``by`` columns it has."""
        columns = [groups[by_columns.index(c)] for c in input_by[label]]
        if columns:
            bad = "(" + " OR ".join(f"{g} IS NULL" for g in columns) + ")"
            parts.append(_rows_where(placeholder, label, "null_group", bad, doc))

    tables: dict[str, tuple[str, TableRef]] = {}
    if run is not None:
        tables[ph.RUN] = ("run", table_reference(run, "run", dialect))
    if qrels is not None:
        tables[ph.QRELS] = ("qrels", table_reference(qrels, "qrels", dialect))
    parts = [
        _render_check(check)
        for check in _ranking_checks(
            dialect,
            run=run is not None,
            qrels=qrels is not None,
            order_by=order_by,
            duplicates=options.duplicates == "error",
            groups=groups,
            qrels_groups=qrels_groups,
            limit=_grade_limit(specs),
        )
    ]
    null_id = f"({ph.QUERY} IS NULL OR {ph.DOC} IS NULL)"
    if interactions is not None:
        tables[INTERACTIONS] = (
            "interactions",
            table_reference(interactions, "interactions", dialect),
        )
        parts.append(_rows_where(INTERACTIONS, "interactions", "null_id", null_id, ph.DOC))
        input_null_group(INTERACTIONS, "interactions", ph.DOC)
    for table, placeholder, label in (
        (catalog, CATALOG, "catalog"),
        (item_features, FEATURES, "item_features"),
    ):
        if table is not None:
            tables[placeholder] = (label, table_reference(table, label, dialect))
            bad = f"{ph.DOC} IS NULL"
            parts.append(
                f"SELECT '{label}' AS {_INPUT}, 'null_id' AS {_PROBLEM}, "
                f"CAST(COUNT(*) AS BIGINT) AS {_ROWS}, "
                f"CAST(NULL AS VARCHAR) AS {_QUERY}, CAST(NULL AS VARCHAR) AS {_DOC} "
                f"FROM {placeholder} WHERE {bad} HAVING COUNT(*) > 0"
            )
            if input_by[label]:
                columns = [groups[by_columns.index(c)] for c in input_by[label]]
                bad = "(" + " OR ".join(f"{g} IS NULL" for g in columns) + ")"
                parts.append(
                    f"SELECT '{label}' AS {_INPUT}, 'null_group' AS {_PROBLEM}, "
                    "CAST(COUNT(*) AS BIGINT) AS "
                    f"{_ROWS}, CAST(NULL AS VARCHAR) AS {_QUERY}, CAST(NULL AS VARCHAR) AS "
                    f"{_DOC} FROM {placeholder} WHERE {bad} HAVING COUNT(*) > 0"
                )
    numbered = [f"SELECT {n} AS pr_order, c.* FROM ({part}) AS c" for n, part in enumerate(parts)]
    text = (
        f"SELECT {', '.join(_OUT)} FROM ({' UNION ALL '.join(numbered)}) AS pr_checks "
        "ORDER BY pr_order"
    )
    cols = options.columns
    names = {
        ph.QUERY: cols.query,
        ph.DOC: cols.doc,
        ph.ORDER: options.order_column,
        ph.RELEVANCE: cols.relevance,
        **_OUT,
        **dict(zip(groups, by_columns, strict=True)),
    }
    return render(text, dialect, tables, names, doc_key="", pretty=pretty)


def _grade_limit(specs: list[MetricSpec]) -> float | None:
    """The largest grade the requested metrics take (ERR: its ``max_grade``), or None."""
    limits = [
        float(value)
        for spec in specs
        for key, value in spec.arguments().items()
        if key == "max_grade" and value is not None
    ]
    return min(limits) if limits else None
