"""Input checks run by an engine that evaluates with SQL (Spark, ClickHouse) on its own
tables, raising exactly the Polars engine's errors: written once, for any :class:`SqlTables`.

The checks are those of :func:`polars_rank.core.validation.validate`: empty inputs, null
ids, null or NaN scores (or ranks) and grades, infinite grades, null ``by`` groups, and
duplicate ``(query, doc)`` pairs when ``duplicates="error"``. One query counts the problems
with the conditions of :func:`polars_rank.check_sql`, reading each table once
(:func:`~polars_rank.compiler.checks.check_counts_sql`); with ``run_duplicates=False`` the
run's repeated pairs are left to the caller. The pairs of keys the engine can hash
(:meth:`SqlTables.hashable`) are pre-tested by one 64-bit doc hash per row, per query
(:attr:`SqlTables.pair_hash`); only a repeated hash costs the exact grouping of the pairs,
which decides. Only when a check fails is the message built: the first bad row (0-based, in
the engine's scan order) and its ids, or an example of a repeated pair. The queries are
:mod:`polars_rank.compiler.engine_checks`' in the engine's dialect; the messages are
:mod:`polars_rank.core.messages`'.

Tables are given as table references of the engine's dialect (``pr_run_1f2e...``,
``db.run``), as :func:`~polars_rank.compiler.checks.check_counts_sql` takes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from polars_rank.compiler import engine_checks as queries
from polars_rank.core import messages
from polars_rank.core.columns import fresh
from polars_rank.core.dialects import Dialect
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.identifiers import table_reference
from polars_rank.core.options import Options


class SqlTables(Protocol):
    """What the checks need of an engine that runs SQL on its tables."""

    @property
    def dialect(self) -> Dialect:
        """The dialect of the engine's SQL."""
        ...

    @property
    def pair_hash(self) -> str:
        """The SQL hash of a row's ``{doc}`` that pre-tests the repeated pairs
        (:func:`~polars_rank.compiler.engine_checks.pair_hash`)."""
        ...

    def rows(self, sql: str) -> list[dict[str, Any]]:
        """The rows of a query, as dicts by column name."""
        ...

    def columns(self, table: str) -> list[str]:
        """The column names of ``table`` (a table reference)."""
        ...

    def hashable(self, table: str, columns: Sequence[str]) -> bool:
        """Whether the pairs of ``table`` over ``columns`` may be pre-tested by a hash: each
        column of a type whose ``GROUP BY`` equality is the equality of the value hashed."""
        ...


def source(engine: SqlTables, table: str) -> str:
    """``table`` (a table reference) as a ``FROM`` text of the engine's dialect."""
    name = engine.dialect.name
    return table_reference(table, "input", name).sql(name)


def _first_bad(engine: SqlTables, table: str, bad: str, query: str, doc: str) -> dict[str, Any]:
    """count, first row (0-based, scan order) and its query and doc as text."""
    # the row number under a name none of the table's columns has (whatever the case rule)
    n = fresh("pr_row", [c.lower() for c in engine.columns(table)])
    sql = queries.first_bad_sql(engine.dialect, source(engine, table), bad, query, doc, n)
    return engine.rows(sql)[0]


def _repeated_pairs(engine: SqlTables, table: str, keys: Sequence[str]) -> int:
    """The exact number of ``keys`` tuples of ``table`` that occur more than once."""
    quoted = [engine.dialect.quote(k) for k in keys]
    sql = queries.repeated_pairs_sql(engine.dialect, source(engine, table), quoted)
    return int(engine.rows(sql)[0]["n"])


def find_problems(
    engine: SqlTables,
    run: str,
    qrels: str,
    options: Options,
    *,
    by: Sequence[str] = (),
    qrels_by: Sequence[str] = (),
    run_duplicates: bool = True,
) -> set[tuple[str, str]]:
    """The ``(input, problem)`` pairs of the failed checks of :func:`check_tables`, from one
    query: :func:`polars_rank.compiler.checks.check_counts_sql`'s row of counts (each table
    read once; the duplicate pairs of the qrels, and of the run unless ``run_duplicates`` is
    False, grouped apart). ``options`` must be resolved.

    A table whose key columns are hashable has its pairs pre-tested by one 64-bit hash of the
    doc per row, counted per query: no hash repeated within a query proves that no pair
    repeats. When one repeats, the exact grouping of the pairs decides."""
    from polars_rank.compiler.checks import check_counts_sql

    cols, order_column = options.columns, options.order_column
    by_rank = options.order_by == "rank"
    tables = {"run": (run, list(by)), "qrels": (qrels, list(qrels_by))}
    distinct = queries.distinct_count(engine.dialect, engine.pair_hash)
    pair_hash = {
        what: distinct
        for what, (table, groups) in tables.items()
        if engine.hashable(table, [*groups, cols.query, cols.doc])
    }
    sql, keys = check_counts_sql(
        engine.dialect.name,  # type: ignore[arg-type]
        run,
        qrels,
        query=cols.query,
        doc=cols.doc,
        score=cols.score if by_rank else order_column,
        rank=order_column if by_rank else cols.rank,
        relevance=cols.relevance,
        order_by="rank" if by_rank else "score",
        duplicates="error" if options.duplicates == "error" else "max",
        run_duplicates=run_duplicates,
        by=list(by),
        qrels_by=list(qrels_by),
        pair_hash=pair_hash,
        pretty=False,
    )
    counts = list(engine.rows(sql)[0].values())
    failed = {key for key, count in zip(keys, counts, strict=True) if count}
    for what, (table, groups) in tables.items():
        if (what, "duplicate_pair_hash") in failed:  # a repeated hash: the exact count decides
            failed.discard((what, "duplicate_pair_hash"))
            if _repeated_pairs(engine, table, [*groups, cols.query, cols.doc]):
                failed.add((what, "duplicate_pair"))
    return failed


def raise_problem(
    engine: SqlTables,
    failed: set[tuple[str, str]],
    run: str,
    qrels: str,
    options: Options,
    *,
    by: Sequence[str] = (),
    qrels_by: Sequence[str] = (),
) -> None:
    """Raise the Polars engine's error for the first of the ``failed`` checks (in
    :func:`polars_rank.core.validation.validate`'s order); nothing when ``failed`` is empty.
    The queries that name the first offending row (or a repeated pair) run here."""
    if not failed:
        return
    d = engine.dialect
    cols, order_column = options.columns, options.order_column
    by_rank = options.order_by == "rank"
    for what in ("run", "qrels"):
        if (what, "empty") in failed:
            raise messages.empty_input(what)
    for what, table, columns in (("run", run, by), ("qrels", qrels, qrels_by)):
        if (what, "null_group") in failed:
            for column in columns:
                sql = queries.count_where_sql(
                    d, source(engine, table), queries.null_value(d, column)
                )
                if engine.rows(sql)[0]["n"]:
                    raise PolarsRankError(
                        f"by column {column!r} of the {what} has null values: a group must "
                        "be named (fill them or filter those rows out)"
                    )
    null_id = queries.null_id(d, cols.query, cols.doc)
    checks = [
        ("run_null_id", ("run", "null_id"), run, null_id),
        ("qrels_null_id", ("qrels", "null_id"), qrels, null_id),
        (
            "run_bad_order_value",
            ("run", "bad_rank" if by_rank else "bad_score"),
            run,
            queries.bad_number(d, order_column),
        ),
        ("qrels_bad_rel", ("qrels", "bad_grade"), qrels, queries.bad_number(d, cols.relevance)),
        (
            "qrels_infinite_rel",
            ("qrels", "infinite_grade"),
            qrels,
            queries.infinite(d, cols.relevance),
        ),
    ]
    for check, key, table, bad in checks:
        if key in failed:
            problem = _first_bad(engine, table, bad, cols.query, cols.doc)
            raise messages.input_problem(
                check, order_column=order_column, rel=cols.relevance, **problem
            )
    for what, table in (("run", run), ("qrels", qrels)):
        if (what, "duplicate_pair") not in failed:
            continue
        keys = [d.quote(cols.query), d.quote(cols.doc)]
        groups = by if what == "run" else qrels_by
        sql = queries.duplicate_example_sql(d, source(engine, table), keys, groups)
        raise messages.input_problem(
            f"{what}_duplicate",
            order_column=order_column,
            rel=cols.relevance,
            row=None,
            **engine.rows(sql)[0],
        )


def check_tables(
    engine: SqlTables,
    run: str,
    qrels: str,
    options: Options,
    *,
    by: Sequence[str] = (),
    qrels_by: Sequence[str] = (),
) -> None:
    """The checks of :func:`polars_rank.core.validation.validate` on two tables of the engine,
    with the same messages, raised in the same order. ``options`` must be resolved. With
    ``by`` (``qrels_by``: those the qrels have), a null group is an error naming its column
    and duplicates are pairs repeated within a group.

    One query counts the problems (:func:`find_problems`); only when it reports one do the
    queries that name the first offending row (or a repeated pair) run."""
    failed = find_problems(engine, run, qrels, options, by=by, qrels_by=qrels_by)
    raise_problem(engine, failed, run, qrels, options, by=by, qrels_by=qrels_by)
