"""The engines' warning counts: the SQL that ``engine="duckdb"`` and ``engine="spark"`` run to
count what a warning reports, written here only.

As :mod:`.engine_checks`, each query is written directly in the dialect, over ``FROM`` texts
the engine holds (a view or table name, quoted as the engine needs), and reads what differs
from the dialect's :class:`~polars_rank.core.dialects.Dialect` object: names quoted by
:meth:`~polars_rank.core.dialects.Dialect.quote`, text by
:attr:`~polars_rank.core.dialects.Dialect.text_type`, ids and groups compared by
:meth:`~polars_rank.core.dialects.Dialect.text_id_key` (as bytes, whatever collation the
connection has). What a table lacks is found by ``NOT EXISTS``, standard SQL that needs no
dialect's anti-join keyword.

>>> print(outside_catalog_sql("spark", "run", "catalog", Options(order_by="score"), 2))
SELECT COUNT(*) FROM (SELECT DISTINCT t.`doc` FROM (SELECT r.`doc` AS `doc`, ROW_NUMBER() OVER (PARTITION BY r.`query` ORDER BY CAST(r.`score` AS DOUBLE) DESC NULLS LAST, CAST(r.`doc` AS STRING) DESC NULLS LAST) AS `pr_pos` FROM run AS r) AS t WHERE t.`pr_pos` <= 2) AS s WHERE NOT EXISTS (SELECT 1 FROM catalog AS c WHERE c.`doc` = s.`doc`)
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Sequence

from polars_rank.core.columns import fresh
from polars_rank.core.dialects import Dialect, get_dialect
from polars_rank.core.options import Options


def _key(d: Dialect, column: str, table: str = "") -> str:
    """The caller's ``column`` (of ``table``) as it is compared: its byte key."""
    return d.text_id_key(f"{table}{d.quote(column)}")


def _tie_key(d: Dialect, column: str, table: str = "") -> str:
    """A doc id's text as bytes, the second sort key (an integer id as its decimal text)."""
    return d.text_id_key(f"CAST({table}{d.quote(column)} AS {d.text_type})")


def outside_catalog_sql(
    dialect: str | Dialect,
    run: str,
    catalog: str,
    options: Options,
    k: int | None,
    by: Sequence[str] = (),
    catalog_by: Sequence[str] = (),
    qrels: str | None = None,
    qrels_by: Sequence[str] = (),
) -> str:
    """One row: how many distinct items of the evaluated users' top ``k`` (all their items
    when None) the ``catalog`` does not hold; with ``by``, the distinct (group, item) pairs
    that the group's catalog lacks (the catalog joined on the ``by`` columns it has,
    ``catalog_by``).

    The top ``k`` is trec_eval's order (``options``, resolved): the score descending (or,
    with ``order_by="rank"``, the rank ascending), ties by the doc id descending as bytes
    (:func:`_tie_key`), within each (group, query). With judgments (``qrels``, joined on the
    ``by`` columns they have, ``qrels_by``) the evaluated users are the run's queries they
    hold, as the Polars engine counts them; without, every run query. Ids, groups and their
    joins compare as bytes (:func:`_key`), so that no collation merges two ids."""
    d = get_dialect(dialect)
    cols = options.columns
    q, doc = cols.query, cols.doc
    pos = d.quote(fresh("pr_pos", [c.lower() for c in (*by, doc)]))
    direction = "ASC" if options.ordering == "rank" else "DESC"
    order = f"CAST(r.{d.quote(options.order_column)} AS DOUBLE) {direction} NULLS LAST"
    keys = [f"{_key(d, c, 'r.')} AS {d.quote(c)}" for c in (*by, doc)]
    partition = ", ".join(_key(d, c, "r.") for c in (*by, q))
    judged = ""
    if qrels is not None:  # left-out queries (no judgment in the group) are not counted
        same = " AND ".join(f"{_key(d, c, 'j.')} = {_key(d, c, 'r.')}" for c in (q, *qrels_by))
        judged = f" WHERE EXISTS (SELECT 1 FROM {qrels} AS j WHERE {same})"
    within = "" if k is None else f" WHERE t.{pos} <= {int(k)}"
    pairs = ", ".join(f"t.{d.quote(c)}" for c in (*by, doc))
    held = " AND ".join(f"{_key(d, c, 'c.')} = {_key(d, c, 's.')}" for c in (doc, *catalog_by))
    return (
        f"SELECT COUNT(*) FROM (SELECT DISTINCT {pairs} FROM (SELECT {', '.join(keys)}, "
        f"ROW_NUMBER() OVER (PARTITION BY {partition} ORDER BY {order}, "
        f"{_tie_key(d, doc, 'r.')} DESC NULLS LAST) AS {pos} FROM {run} AS r{judged}) AS t"
        f"{within}) AS s WHERE NOT EXISTS (SELECT 1 FROM {catalog} AS c WHERE {held})"
    )
