"""What a SQL dialect is to the compiler: the facts and small behaviours that differ between
dialects, as one class whose subclasses (one module each) override only what differs — as
sqlglot's dialects and ibis' compilers do.

Each fact is named for what it is (``least_ignores_nulls``), never for which dialect has it;
code outside this package reads the facts of :func:`~polars_rank.core.dialects.get_dialect`'s
object and compares no dialect name. A subclass that sets :attr:`Dialect.name` registers itself
(:func:`register`; :mod:`polars_rank.core.dialects` lists the built-in ones).
"""

from __future__ import annotations

import re
from typing import ClassVar

from polars_rank.core.errors import bad_choice


class Dialect:
    """A SQL dialect of :func:`polars_rank.to_sql`. The defaults are standard SQL's (and
    PostgreSQL's) where one exists; a subclass overrides what its dialect does otherwise."""

    #: The name ``to_sql`` takes (``dialect="bigquery"``); setting it registers the subclass.
    name: ClassVar[str] = ""
    #: The dialect's name in messages (``BigQuery``).
    title: ClassVar[str] = ""

    @property
    def sqlglot_name(self) -> str:
        """The dialect's name in sqlglot, which parses and prints its SQL."""
        return self.name

    @property
    def reserved_list(self) -> str:
        """The reserved-word list, ``core/keywords/<list>.txt`` (the dialect's name)."""
        return self.name

    @property
    def dbt_adapters(self) -> tuple[str, ...]:
        """The dbt adapter types (``target.type``) whose models this dialect writes (the
        dialect's name)."""
        return (self.name,)

    #: Whether the catalog lists the dialect as a target of its own (``sql:<name>``); a
    #: dialect that prints another's SQL under a second name (Databricks: Spark SQL) is not.
    catalog_target: ClassVar[bool] = True

    # --- names ----------------------------------------------------------------------------

    #: The character that quotes a name (doubled inside it, unless :attr:`backslash_escapes`).
    quote_char: ClassVar[str] = '"'
    #: Whether a quoted name escapes with backslashes (``\\``, ``\```, ``\n``, ``\r``, ``\t``),
    #: as the dialect's string literals do, instead of doubling the quote character.
    backslash_escapes: ClassVar[bool] = False
    #: Whether an unquoted name may start with ``_`` (else it starts with a letter).
    names_may_start_with_underscore: ClassVar[bool] = True
    #: An unquoted part of a table reference (``catalog.schema.table``).
    unquoted_table_part: ClassVar[re.Pattern[str]] = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
    #: Whether a column name may hold a ``.`` (a quoted one; some dialects read it as a path).
    column_names_may_hold_dots: ClassVar[bool] = True

    @property
    def plain_name(self) -> re.Pattern[str]:
        """A name that may stay unquoted when lower case and not reserved."""
        if self.names_may_start_with_underscore:
            return re.compile(r"[a-z_][a-z0-9_]*")
        return re.compile(r"[a-z][a-z0-9_]*")

    @property
    def table_quote_marks(self) -> str:
        """The characters that may quote a part of a table reference: the double quote, and
        the dialect's own quote character."""
        return '"' if self.quote_char == '"' else '"' + self.quote_char

    def quote(self, name: str) -> str:
        """``name`` quoted, exactly as given."""
        q = self.quote_char
        return q + name.replace(q, q + q) + q

    # --- order and comparison -------------------------------------------------------------

    #: The collation that makes the text of a doc id compare as bytes where the default may
    #: not (None: text compares as bytes by default, and no collation clause is written).
    byte_collation: ClassVar[str | None] = None
    #: The byte key of a caller's key column: its text type, the collation that compares it
    #: as bytes ("": the dialect's empty specification; None: the type's default already
    #: does), and whether the collation is applied as the function ``COLLATE(x, 'c')``
    #: rather than as ``x COLLATE "c"``. None: the column itself (no collations).
    byte_key: ClassVar[tuple[str, str | None, bool] | None] = None
    #: Whether ``LEAST`` / ``GREATEST`` skip NULL arguments (else they return NULL).
    least_ignores_nulls: ClassVar[bool] = False
    #: An integer id ``x`` as a number, NULL for a text id (a SQL expression in the dialect),
    #: where text order may follow a locale or a column's collation; None: ids sort as
    #: themselves, then as their byte key.
    integer_id_number: ClassVar[str | None] = None
    #: Whether ``NULLS FIRST`` / ``NULLS LAST`` may follow a sort key in a window's or an
    #: aggregate's ORDER BY (else only in a query's ORDER BY).
    order_by_null_clause_in_windows: ClassVar[bool] = True
    #: Whether every column name and column alias is printed quoted (output names keep their
    #: case whatever the session folds unquoted names to).
    quotes_every_column: ClassVar[bool] = False
    #: Whether a selected column ``t.x`` without an alias may be named ``t.x`` (after a
    #: join) rather than ``x``: the query then names each such column ``x`` itself.
    qualified_output_names: ClassVar[bool] = False
    #: Whether an array is exploded with its positions by ``ARRAY JOIN`` (with
    #: ``arrayEnumerate``) rather than by ``CROSS JOIN UNNEST(...) WITH ORDINALITY``.
    array_join: ClassVar[bool] = False
    #: The session settings the query pins for itself (``SETTINGS name = value`` after the
    #: query), each one whose other values would change a meaning (an unmatched join's
    #: value, an aggregate over no rows, an exact distinct count); empty: none.
    query_settings: ClassVar[tuple[tuple[str, int | str], ...]] = ()

    def pinned(self, sql: str) -> str:
        """``sql`` (a query written directly in the dialect, without a ``SETTINGS`` clause)
        with :attr:`query_settings` after it."""
        if not self.query_settings:
            return sql
        values = (
            f"{k} = {v!r}" if isinstance(v, str) else f"{k} = {v}" for k, v in self.query_settings
        )
        return f"{sql} SETTINGS {', '.join(values)}"

    # --- numbers --------------------------------------------------------------------------

    #: Whether NaN compares above every number (and equal to itself), as in PostgreSQL.
    nan_above_every_number: ClassVar[bool] = False

    def is_nan(self, double: str) -> str:
        """SQL that is true when the DOUBLE expression ``double`` is NaN."""
        return f"ISNAN({double})"

    # --- the engines' check and warning queries (compiler.engine_checks, engine_warnings) -

    #: The type a value is cast to for its text (``CAST(x AS VARCHAR)``).
    text_type: ClassVar[str] = "VARCHAR"
    #: The window numbering a table's rows in the order they are read (1-based).
    scan_order_row_number: ClassVar[str] = "ROW_NUMBER() OVER ()"
    #: The name of the dialect's hash of one or more values (``hash(a, b)``), or None when
    #: none is assumed.
    hash_function: ClassVar[str | None] = None

    def is_nan_per_row(self, column: str) -> str:
        """SQL true when ``column`` is NaN, tested row by row (no statistics of the table
        may skip the test)."""
        return self.is_nan(f"CAST({column} AS DOUBLE)")

    def is_infinite(self, double: str) -> str:
        """SQL true when the DOUBLE expression ``double`` is +-infinity (not NULL)."""
        return f"{double} IN (CAST('Infinity' AS DOUBLE), CAST('-Infinity' AS DOUBLE))"

    def value_at_smallest(self, value: str, key: str) -> str:
        """The aggregate of ``value`` on the row of the smallest ``key`` (a NULL value kept)."""
        return f"MIN_BY({value}, {key})"

    #: Whether a NULL array is stored as an empty one (arrays are never NULL).
    null_array_is_empty: ClassVar[bool] = False

    def array_length(self, array: str) -> str:
        """The number of elements of the ``array`` expression (NULL for a NULL array)."""
        return f"CARDINALITY({array})"

    def any_element(self, array: str, element: str, condition: str) -> str:
        """SQL true when some element of the ``array`` expression satisfies ``condition``,
        which names the element ``element`` (standard SQL: a subquery over ``UNNEST``)."""
        return f"EXISTS (SELECT 1 FROM UNNEST({array}) AS pr_elements({element}) WHERE {condition})"

    def distinct_count(self, value: str) -> str:
        """The aggregate counting the distinct values of ``value`` in a group."""
        return f"COUNT(DISTINCT {value})"

    def text_id_key(self, column: str) -> str:
        """A text id column as the engines' check and warning queries group and compare it
        (:mod:`polars_rank.compiler.engine_checks`, :mod:`polars_rank.compiler.engine_warnings`):
        as bytes whatever collation the connection has (here: the column itself)."""
        return column

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__ and cls.name:
            register(cls)

    def __repr__(self) -> str:
        return f"<dialect {self.name}>"


#: The registered dialects by name (:mod:`polars_rank.core.dialects` reads it).
_REGISTRY: dict[str, Dialect] = {}


def register(cls: type[Dialect]) -> type[Dialect]:
    """Register the dialect class ``cls`` under its ``name`` (a subclass of :class:`Dialect`
    that sets ``name`` is registered when it is defined)."""
    _REGISTRY[cls.name] = cls()
    return cls


def unregister(name: str) -> None:
    """Remove the dialect ``name`` from the registry."""
    del _REGISTRY[name]


def dialect_names() -> tuple[str, ...]:
    """The registered dialects' names, in the order they were registered."""
    return tuple(_REGISTRY)


def get_dialect(name: str | Dialect) -> Dialect:
    """The registered dialect ``name`` (a :class:`Dialect` is returned as it is); any other
    value is a :class:`~polars_rank.core.errors.PolarsRankError` naming the choices."""
    if isinstance(name, Dialect):
        return name
    if isinstance(name, str) and name in _REGISTRY:
        return _REGISTRY[name]
    raise bad_choice("dialect", name, _REGISTRY)
