"""The engines' check queries: the SQL that ``engine="duckdb"`` and ``engine="spark"`` run
to check their inputs and to name the first problem, written here only.

:func:`~polars_rank.compiler.checks.check_sql` (and
:func:`~polars_rank.compiler.checks.check_counts_sql`) are the portable checks, written once
and printed per dialect by sqlglot. The queries here run on every evaluation, over a
``FROM`` text the engine holds (a quoted view or table, ``read_parquet(...)``), so they are
written directly in the dialect, without a parse: each function takes the dialect and reads
what differs from its :class:`~polars_rank.core.dialects.Dialect` object
(:attr:`~polars_rank.core.dialects.Dialect.text_type`,
:attr:`~polars_rank.core.dialects.Dialect.scan_order_row_number`,
:attr:`~polars_rank.core.dialects.Dialect.hash_function`,
:meth:`~polars_rank.core.dialects.Dialect.is_nan_per_row`,
:meth:`~polars_rank.core.dialects.Dialect.is_infinite`,
:meth:`~polars_rank.core.dialects.Dialect.value_at_smallest`,
:meth:`~polars_rank.core.dialects.Dialect.distinct_count`,
:meth:`~polars_rank.core.dialects.Dialect.text_id_key`).

Column names are quoted by the dialect (:meth:`~polars_rank.core.dialects.Dialect.quote`);
``source`` arguments are ``FROM`` texts, used as given; ``keys`` are SQL expressions
(:func:`id_key`). Row numbers are 0-based, in the order the rows are read.

>>> print(first_bad_sql("duckdb", "run", null_id("duckdb", "query", "doc"), "query", "doc", "n"))
SELECT count(*) AS "count", min("n") AS "row", first(CAST("query" AS VARCHAR) ORDER BY "n" ASC NULLS LAST) AS "query", first(CAST("doc" AS VARCHAR) ORDER BY "n" ASC NULLS LAST) AS "doc" FROM (SELECT *, ROW_NUMBER() OVER () - 1 AS "n" FROM run) WHERE "query" IS NULL OR "doc" IS NULL
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Sequence

from polars_rank.core.dialects import Dialect, get_dialect
from polars_rank.core.sqltext import literal


def _text(dialect: Dialect, value: str) -> str:
    return f"CAST({value} AS {dialect.text_type})"


def id_key(dialect: str | Dialect, column: str, *, text: bool) -> str:
    """The id ``column`` as the checks group it: a ``text`` id by
    :meth:`~polars_rank.core.dialects.Dialect.text_id_key` (as bytes), else as it is."""
    d = get_dialect(dialect)
    return d.text_id_key(d.quote(column)) if text else d.quote(column)


def null_id(dialect: str | Dialect, query: str, doc: str) -> str:
    """True for a row with a null query or doc id."""
    d = get_dialect(dialect)
    return f"{d.quote(query)} IS NULL OR {d.quote(doc)} IS NULL"


def null_value(dialect: str | Dialect, column: str) -> str:
    """True for a row whose ``column`` is null."""
    return f"{get_dialect(dialect).quote(column)} IS NULL"


def bad_number(dialect: str | Dialect, column: str, *, floating: bool = True) -> str:
    """True for a null or (a ``floating`` column) NaN value, tested row by row."""
    d = get_dialect(dialect)
    bad = f"{d.quote(column)} IS NULL"
    return bad + f" OR {d.is_nan_per_row(d.quote(column))}" if floating else bad


def infinite(dialect: str | Dialect, column: str, *, floating: bool = True) -> str:
    """True for a value of +-infinity (never for a column that is not ``floating``)."""
    d = get_dialect(dialect)
    return d.is_infinite(f"CAST({d.quote(column)} AS DOUBLE)") if floating else "false"


def above(dialect: str | Dialect, column: str, limit: float | None) -> str:
    """True for a value above ``limit`` (None: never), NaN excluded."""
    d = get_dialect(dialect)
    value = f"CAST({d.quote(column)} AS DOUBLE)"
    over = "false" if limit is None else f"coalesce({value} > {literal(limit)}, false)"
    return f"{over} AND NOT coalesce({d.is_nan(value)}, false)"


def counts_sql(dialect: str | Dialect, source: str, conditions: Sequence[str]) -> str:
    """One row: the rows where each of ``conditions`` holds, then all rows (one read;
    ``count(*) FILTER (WHERE ...)``, which the engines' dialects take)."""
    counts = [f"count(*) FILTER (WHERE {c}), " for c in conditions]
    return f"SELECT {''.join(counts)}count(*) FROM {source}"


def count_where_sql(dialect: str | Dialect, source: str, condition: str) -> str:
    """One row, ``n``: the rows where ``condition`` holds."""
    d = get_dialect(dialect)
    return f"SELECT COUNT(*) AS {d.quote('n')} FROM {source} WHERE {condition}"


def largest_sql(dialect: str | Dialect, source: str, column: str) -> str:
    """One row: the largest value of ``column`` as a DOUBLE."""
    return f"SELECT max(CAST({get_dialect(dialect).quote(column)} AS DOUBLE)) FROM {source}"


def columns_sql(dialect: str | Dialect, source: str) -> str:
    """No row: the columns of ``source``."""
    return f"SELECT * FROM {source} LIMIT 0"


def first_bad_sql(
    dialect: str | Dialect, source: str, bad: str, query: str, doc: str, row: str
) -> str:
    """One row: ``count`` (the rows where ``bad`` holds), ``row`` (the first one's number,
    0-based, in the order the rows are read: the dialect's
    :attr:`~polars_rank.core.dialects.Dialect.scan_order_row_number`), and its ``query``
    and ``doc`` as text. ``row`` is a column name none of ``source``'s columns has."""
    d = get_dialect(dialect)
    n = d.quote(row)
    first_query = d.value_at_smallest(_text(d, d.quote(query)), n)
    first_doc = d.value_at_smallest(_text(d, d.quote(doc)), n)
    return (
        f"SELECT count(*) AS {d.quote('count')}, min({n}) AS {d.quote('row')}, "
        f"{first_query} AS {d.quote('query')}, {first_doc} AS {d.quote('doc')} "
        f"FROM (SELECT *, {d.scan_order_row_number} - 1 AS {n} FROM {source}) WHERE {bad}"
    )


def repeated_hashes_sql(dialect: str | Dialect, source: str, keys: Sequence[str]) -> str:
    """One row: how many hashes of the ``keys`` (the dialect's
    :attr:`~polars_rank.core.dialects.Dialect.hash_function`) occur more than once; 0 proves
    that no ``keys`` tuple repeats (:func:`repeated_pairs_sql` decides otherwise). The hashes
    are grouped in a table of their own: ``GROUP BY h`` over the source would take a column
    ``h`` of the caller's for the alias."""
    d = get_dialect(dialect)
    if d.hash_function is None:
        return repeated_pairs_sql(d, source, keys)
    h = f"{d.hash_function}({', '.join(keys)})"
    return (
        f"SELECT count(*) FROM (SELECT h FROM (SELECT {h} AS h FROM {source}) "
        "GROUP BY h HAVING count(*) > 1)"
    )


def repeated_pairs_sql(dialect: str | Dialect, source: str, keys: Sequence[str]) -> str:
    """One row, ``n``: the exact number of ``keys`` tuples that occur more than once."""
    d = get_dialect(dialect)
    return (
        f"SELECT COUNT(*) AS {d.quote('n')} FROM (SELECT 1 FROM {source} "
        f"GROUP BY {', '.join(keys)} HAVING COUNT(*) > 1)"
    )


def pair_hash(dialect: str | Dialect, doc: str = "{doc}") -> str:
    """The hash of a row's ``doc`` pre-testing its query's repeated pairs (an expression of
    ``doc``; by default the ``{doc}`` template of ``check_counts_sql``'s ``pair_hash``)."""
    d = get_dialect(dialect)
    assert d.hash_function is not None, f"{d.title} has no hash function"
    return f"{d.hash_function}({doc})"


def distinct_count(dialect: str | Dialect, value: str) -> str:
    """The aggregate counting a group's distinct ``value`` (:func:`pair_hash`'s, per query)."""
    return get_dialect(dialect).distinct_count(value)


def duplicate_example_sql(
    dialect: str | Dialect, source: str, keys: Sequence[str], groups: Sequence[str] = ()
) -> str:
    """At most one row: ``count`` (the number of ``keys`` pairs, within the ``groups``
    columns, that occur more than once), and one such pair's ``query`` and ``doc`` as text."""
    d = get_dialect(dialect)
    query, doc = keys
    grouped = "".join(f", {d.quote(g)}" for g in groups)
    return (
        f"SELECT count(*) OVER () AS {d.quote('count')}, {_text(d, query)} AS "
        f"{d.quote('query')}, {_text(d, doc)} AS {d.quote('doc')} FROM {source} "
        f"GROUP BY {query}, {doc}{grouped} HAVING count(*) > 1 LIMIT 1"
    )


def bad_component(dialect: str | Dialect, column: str) -> str:
    """True for a vector (an array ``column``) with a null or NaN component."""
    d = get_dialect(dialect)
    x = "pr_x"
    return d.any_element(d.quote(column), x, f"{x} IS NULL OR {d.is_nan(f'CAST({x} AS DOUBLE)')}")


def vector_lengths_sql(dialect: str | Dialect, source: str, column: str) -> str:
    """The distinct lengths ``n`` of the vectors (an array ``column``) that are not NULL,
    ascending (where a NULL array is stored as an empty one, empty ones are left out)."""
    d = get_dialect(dialect)
    n = d.quote("n")
    length = d.array_length(d.quote(column))
    empty = f" AND {length} > 0" if d.null_array_is_empty else ""
    return (
        f"SELECT DISTINCT {length} AS {n} FROM {source} WHERE {d.quote(column)} IS NOT NULL"
        f"{empty} ORDER BY {n} ASC NULLS LAST"
    )


def repeated_item_sql(
    dialect: str | Dialect, source: str, doc: str, groups: Sequence[str] = ()
) -> str:
    """At most one row: ``n`` (the number of items, within the ``groups`` columns, that have
    more than one row) and one such item's ``doc`` as text."""
    d = get_dialect(dialect)
    keys = ", ".join([*(d.quote(g) for g in groups), d.quote(doc)])
    return (
        f"SELECT count(*) OVER () AS {d.quote('n')}, {_text(d, d.quote(doc))} AS "
        f"{d.quote('doc')} FROM {source} GROUP BY {keys} HAVING count(*) > 1 LIMIT 1"
    )
