"""Rendering the base-dialect query for each dialect, with sqlglot.

The query is written once, in PostgreSQL's dialect (its reading keeps ``a / b`` as written;
every division in the text is between DOUBLEs). :func:`render` parses it and rewrites the tree:

1. the placeholder tables and columns become the caller's: tables as parsed by
   :func:`~polars_rank.core.identifiers.table_reference` (e.g. ``my-project.ds.run``), columns
   by :func:`~polars_rank.core.identifiers.is_plain`'s rule — unquoted when a plain lower-case
   name that is not on the dialect's reserved list, so that case-folding dialects resolve it as
   hand-written SQL would, quoted exactly as given otherwise;
2. the doc id's text gets the byte-order collation where the default may not compare bytes:
   ``COLLATE "C"`` on PostgreSQL, ``COLLATE "binary"`` on DuckDB (Spark, BigQuery, Snowflake
   and Trino compare strings as bytes by default, and sqlglot would print a clause they reject);
3. every sort key states its direction and where NULLs go, ``ASC NULLS LAST`` or
   ``DESC NULLS LAST`` (the base text writes neither NULLS clause), so that no setting of the
   session (DuckDB's ``default_order`` and ``default_null_order``, ...) changes an order;
   BigQuery takes ``NULLS FIRST/LAST`` only in a query's ORDER BY, not in a window or an
   aggregate: there the clause is left out, and no such sort key is ever NULL;
4. ``LEAST`` / ``GREATEST`` print plain (no argument is ever NULL);
5. the sort keys of an id's own order (``pr_id_number(x)``, ``pr_id_text(x)``: integers as
   numbers, text as bytes, :mod:`.recsys`) become the id itself then its byte key (rewrite
   6) where the dialect compares text as bytes by default; on PostgreSQL, DuckDB and Spark,
   whose text order may follow a locale or a column's collation, the number of an integer id
   (``pg_typeof`` / ``typeof``; NULL for text) then its text with the byte-order collation
   (its byte key on Spark);
6. every read of a caller's key column (query and doc ids, ``by`` and ``group`` columns, item
   ids and categories: :data:`KEY_COLUMN`) becomes its byte key (:func:`byte_key`): its text
   (integers as decimal text) with the dialect's byte-comparing collation, so that every
   join, ``GROUP BY``, ``DISTINCT``, ``UNION``, ``EXISTS`` and ``PARTITION BY`` downstream
   compares ids as bytes whatever collation the column or the session has (the key is read
   once, where the query first reads the caller's table; the CTE columns carry it). The plan
   carries the caller's own value where it is output (query ids, ``by`` values) or sorted as
   a number (integer item ids), wrapped in the placeholder :data:`RAW`, which is left as read.

7. on DuckDB, every column name and column alias is quoted (DuckDB still resolves it
   case-insensitively), so that ``preserve_identifier_case`` folds none of the output names;
8. where a selected ``t.x`` may be named ``t.x`` (ClickHouse, after a join), each is
   written ``t.x AS x`` (:attr:`Dialect.qualified_output_names`); where a dialect has no
   ``UNNEST ... WITH ORDINALITY`` (ClickHouse), the exploded array
   and its positions come from ``ARRAY JOIN a AS t_x, arrayEnumerate(a) AS t_j``, read as
   ``t_x`` and ``t_j`` (:attr:`Dialect.array_join`);
9. where session settings change meanings (ClickHouse's ``join_use_nulls``, ...), the query
   pins its own values (``SETTINGS ...`` after it: :attr:`Dialect.query_settings`).

Each rewrite reads the dialect's facts from its :class:`~polars_rank.core.dialects.Dialect`
object (``byte_collation``, ``byte_key``, ``integer_id_number``, ``least_ignores_nulls``,
``order_by_null_clause_in_windows``, ``quotes_every_column``, ``qualified_output_names``,
``array_join``, ``query_settings``); no code here names a dialect.
Then sqlglot prints the dialect. Apart from the integer-id keys of rewrite 5 (for
PostgreSQL, DuckDB and Spark), no SQL string is written per dialect.

sqlglot is imported only when a query is rendered.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sqlglot import exp

from polars_rank.core.dialects import DIALECTS, Dialect, DialectName, get_dialect
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.identifiers import TableRef, is_plain

__all__ = ["DIALECTS", "DialectName", "render"]

#: The dialect the query text is written in (its sqlglot name).
BASE = "postgres"

#: The caller's key columns (placeholders of :mod:`.placeholders`, :mod:`.recsys`,
#: :mod:`.classification`, :mod:`.rating`): ids, ``by`` and ``group`` columns, categories, the
#: rating tables' user and item (joined as bytes).
KEY_COLUMN = re.compile(
    r"pr_col_(?:run|query|doc|doc_a|doc_b|category|user|item|context|action|by\d+|b\d+|g\d+)"
)

#: The placeholder function around a caller's key column that is read as it is (rewrite 6).
RAW = "pr_raw"

#: The sort-key placeholders of an id's own order (see :mod:`.recsys`).
ID_NUMBER, ID_TEXT = "pr_id_number", "pr_id_text"


def byte_key(column: exp.Expression, dialect: str | Dialect) -> exp.Expression:
    """``column`` as its byte key in ``dialect`` (:attr:`Dialect.byte_key`; rewrite 6)."""
    from sqlglot import exp

    key = get_dialect(dialect).byte_key
    if key is None:
        return column
    kind, collation, function = key
    text = exp.cast(column, exp.DataType.build(kind))
    if collation is None:
        return text
    if function:
        return exp.Anonymous(this="COLLATE", expressions=[text, exp.Literal.string(collation)])
    return exp.Collate(this=text, expression=exp.to_identifier(collation, quoted=True))


def _byte_keys(tree: Any, dialect: Dialect) -> None:
    """Rewrite 6 in place: every read of a caller's key column becomes its byte key, but
    inside :data:`RAW`, which is then dropped."""
    from sqlglot import exp

    def raw(node: exp.Expression) -> bool:
        return isinstance(node, exp.Anonymous) and node.name.lower() == RAW

    for column in list(tree.find_all(exp.Column)):
        if KEY_COLUMN.fullmatch(column.name) and not any(raw(p) for p in _parents(column)):
            column.replace(byte_key(column.copy(), dialect))
    for node in list(tree.find_all(exp.Anonymous)):
        if raw(node):
            node.replace(node.expressions[0])


def _parents(node: Any) -> Iterator[Any]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _id_key(function: str, argument: exp.Expression, dialect: Dialect) -> exp.Expression:
    """The dialect's sort key for placeholder ``function`` of an id column (rewrite 5): where
    text compares as bytes by default, the id itself, then (a tie under a column's
    collation) its byte key."""
    import sqlglot
    from sqlglot import exp

    collation = dialect.byte_collation
    if function == ID_NUMBER and dialect.integer_id_number is None:
        return argument.copy()
    if collation is None and function == ID_TEXT:
        return byte_key(argument.copy(), dialect)
    if function == ID_NUMBER:
        assert dialect.integer_id_number is not None
        key = sqlglot.parse_one(dialect.integer_id_number, read=dialect.sqlglot_name)
        return key.transform(
            lambda n: argument.copy() if isinstance(n, exp.Column) and n.name == "x" else n
        )
    text = exp.cast(argument.copy(), exp.DataType.build("text"))
    return exp.Collate(this=text, expression=exp.to_identifier(collation, quoted=True))


def _identifier(name: str, dialect: Dialect) -> exp.Identifier:
    """A caller's column name: unquoted when plain in ``dialect``, else quoted as given."""
    from sqlglot import exp

    return exp.to_identifier(name, quoted=not is_plain(name, dialect.name))


def _table(ref: TableRef, dialect: Dialect) -> exp.Table:
    """A parsed table reference as a sqlglot table, each part quoted as it needs."""
    from sqlglot import exp

    parts = [exp.to_identifier(p.name, quoted=p.needs_quotes(dialect.name)) for p in ref.parts]
    keys = ("catalog", "db", "this")[-len(parts) :]
    return exp.Table(**dict(zip(keys, parts, strict=True)))


def _check_cte_names(tree, tables: dict[str, tuple[str, TableRef]]) -> None:
    """A table given by a bare name that one of the query's own CTEs has would read the CTE."""
    from sqlglot import exp

    ctes = {cte.alias.lower() for cte in tree.find_all(exp.CTE)}
    for what, ref in tables.values():
        name = ref.table.name
        if len(ref.parts) == 1 and name.lower() in ctes:
            raise PolarsRankError(
                f"the {what} table {name!r} has the name of one of the query's own CTEs: "
                f"give it with its schema (e.g. 'public.{name}')"
            )


def _quote_columns(tree: exp.Expression) -> None:
    """Rewrite 7: every column name and column alias quoted (tables and CTEs as they are).
    DuckDB resolves a quoted name case-insensitively, as an unquoted one, but names an output
    column as written only when quoted: ``preserve_identifier_case`` folds unquoted names."""
    from sqlglot import exp

    for node in tree.find_all(exp.Identifier):
        parent, key = node.parent, node.arg_key
        if (
            (isinstance(parent, exp.Column) and key == "this")
            or (isinstance(parent, exp.Alias) and key == "alias")
            or (isinstance(parent, exp.TableAlias) and key == "columns")
        ):
            node.set("quoted", True)


def _name_qualified_columns(tree: exp.Expression) -> None:
    """Rewrite 8, first part: every selected ``t.x`` without an alias becomes ``t.x AS x``."""
    from sqlglot import exp

    for select in list(tree.find_all(exp.Select)):
        for item in list(select.expressions):
            if isinstance(item, exp.Column) and item.table and not item.is_star:
                item.replace(exp.alias_(item.copy(), item.args["this"].copy()))


def _array_joins(tree: exp.Expression) -> None:
    """Rewrite 8 in place: each ``CROSS JOIN UNNEST(a) WITH ORDINALITY AS t(x, j)`` becomes
    ``ARRAY JOIN a AS t_x, arrayEnumerate(a) AS t_j`` (positions from 1, as ORDINALITY's; an
    empty array gives no row, as UNNEST's), and every ``t.x`` / ``t.j`` their names."""
    from sqlglot import exp

    renamed: dict[tuple[str, str], str] = {}
    for join in list(tree.find_all(exp.Join)):
        unnest = join.this
        if not isinstance(unnest, exp.Unnest) or unnest.args.get("offset") is None:
            continue
        alias = unnest.args["alias"]
        table, (value,) = alias.name, alias.columns
        position = unnest.args["offset"]
        (array,) = unnest.expressions
        names = {value.name: f"{table}_{value.name}", position.name: f"{table}_{position.name}"}
        renamed.update({(table, old): new for old, new in names.items()})
        join.replace(
            exp.Join(
                this=exp.alias_(array.copy(), names[value.name]),
                expressions=[
                    exp.alias_(
                        exp.Anonymous(this="arrayEnumerate", expressions=[array.copy()]),
                        names[position.name],
                    )
                ],
                kind="ARRAY",
            )
        )
    for column in list(tree.find_all(exp.Column)):
        new = renamed.get((column.table, column.name))
        if new is not None:
            column.replace(exp.column(new))


def _pin_settings(tree: exp.Expression, dialect: Dialect) -> None:
    """Rewrite 9: the dialect's :attr:`~Dialect.query_settings` after the query."""
    from sqlglot import exp

    tree.set(
        "settings",
        [
            exp.EQ(this=exp.column(name), expression=exp.convert(value))
            for name, value in dialect.query_settings
        ],
    )


def _ordered_sql(generator, expression: exp.Ordered) -> str:
    """A sort key with its direction and NULL placement always printed (rewrite 3)."""
    from sqlglot import exp

    text = f"{generator.sql(expression, 'this')} {'DESC' if expression.args.get('desc') else 'ASC'}"
    if not generator.POLARS_RANK_DIALECT.order_by_null_clause_in_windows:
        scope = expression.find_ancestor(exp.Window, exp.AggFunc, exp.Select)
        if not isinstance(scope, exp.Select):
            return text
    return f"{text} NULLS {'FIRST' if expression.args.get('nulls_first') else 'LAST'}"


@functools.cache
def _generator_class(dialect: Dialect) -> type:
    """The dialect's sqlglot generator, printing every sort key as :func:`_ordered_sql`."""
    from sqlglot import exp
    from sqlglot.dialects.dialect import Dialect as SqlglotDialect

    base = SqlglotDialect.get_or_raise(dialect.sqlglot_name).generator_class
    return type(
        f"Explicit{base.__name__}",
        (base,),
        {
            "TRANSFORMS": {**base.TRANSFORMS, exp.Ordered: _ordered_sql},
            "POLARS_RANK_DIALECT": dialect,
        },
    )


def render(
    text: str,
    dialect: str | Dialect,
    tables: dict[str, tuple[str, TableRef]],
    names: dict[str, str],
    *,
    doc_key: str,
    pretty: bool = True,
    byte_keys: bool = True,
) -> str:
    """``text`` (base dialect) printed in ``dialect``: placeholder tables → ``tables``
    (placeholder → the argument's name and its parsed reference), placeholder columns →
    ``names``, and the rewrites of the module docstring; ``doc_key`` is the column whose text
    gets the byte-order collation; ``byte_keys``: rewrite 6."""
    import sqlglot
    from sqlglot import exp

    dialect = get_dialect(dialect)
    tree = sqlglot.parse_one(text, read=BASE)
    _check_cte_names(tree, tables)
    if byte_keys:
        _byte_keys(tree, dialect)
    replaced = {key: _table(ref, dialect) for key, (_, ref) in tables.items()}
    collation = dialect.byte_collation

    def rewrite(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Anonymous) and node.name.lower() in (ID_NUMBER, ID_TEXT):
            return _id_key(node.name.lower(), node.expressions[0], dialect)
        if isinstance(node, exp.Table) and node.name in replaced and not node.args.get("db"):
            table = replaced[node.name].copy()
            table.set("alias", node.args.get("alias"))
            return table
        if isinstance(node, exp.Identifier) and node.this in names:
            return _identifier(names[node.this], dialect)
        if isinstance(node, exp.Ordered):
            node.set("desc", bool(node.args.get("desc")))
            node.set("nulls_first", False)
        if isinstance(node, exp.Least | exp.Greatest):
            node.set("ignore_nulls", dialect.least_ignores_nulls or None)
        if (
            collation
            and isinstance(node, exp.Cast)
            and isinstance(node.this, exp.Column)
            and node.this.name == doc_key
        ):
            return exp.Collate(
                this=node.copy(), expression=exp.to_identifier(collation, quoted=True)
            )
        return node

    tree = tree.transform(rewrite, copy=False)
    if dialect.quotes_every_column:
        _quote_columns(tree)
    if dialect.qualified_output_names:
        _name_qualified_columns(tree)
    if dialect.array_join:
        _array_joins(tree)
    if dialect.query_settings:
        _pin_settings(tree, dialect)
    generator = _generator_class(dialect)(dialect=dialect.sqlglot_name, pretty=pretty)
    return generator.generate(tree, copy=False)
