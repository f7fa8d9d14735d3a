"""Input checks for the Spark engine on Spark data, raising exactly the Polars engine's errors.

The checks are those of :func:`polars_rank.core.validation.validate`: empty inputs, null
ids, null or NaN scores (or ranks) and grades, and duplicate ``(query, doc)`` pairs when
``duplicates="error"``. One Spark job counts rows, nulls and NaNs in both tables; with
``duplicates="error"`` a second groups the rows by a 64-bit hash of the pair (a shuffle of
8-byte keys, cheaper than grouping by the two ids). Only when one of them finds something is
the message built: the first bad row (0-based, in the DataFrame's partition order) and its
ids, or an example of a repeated pair.
"""

from __future__ import annotations

from typing import Any

from polars_rank.core import messages
from polars_rank.core.columns import fresh
from polars_rank.core.options import Options


def quoted(name: str) -> str:
    """A Spark SQL identifier in backticks."""
    return "`" + name.replace("`", "``") + "`"


def _bad_value(name: str) -> str:
    return f"{quoted(name)} IS NULL OR isnan(CAST({quoted(name)} AS DOUBLE))"


def _first_bad(spark: Any, view: str, bad: str, query: str, doc: str) -> dict:
    """count, first row (0-based, partition order) and its query and doc as text."""
    q, d = quoted(query), quoted(doc)
    # the row number under a name none of the view's columns has (Spark ignores case)
    n = quoted(fresh("pr_row", [c.lower() for c in spark.table(quoted(view)).columns]))
    row = spark.sql(
        f"""SELECT COUNT(*) AS count, MIN({n}) AS row,
                   MIN_BY(CAST({q} AS STRING), {n}) AS query,
                   MIN_BY(CAST({d} AS STRING), {n}) AS doc
            FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY monotonically_increasing_id()) - 1
                            AS {n}
                  FROM {quoted(view)})
            WHERE {bad}"""
    ).collect()[0]
    return row.asDict()


def check_spark(spark: Any, run_view: str, qrels_view: str, options: Options) -> None:
    """The checks of :func:`polars_rank.core.validation.validate` on two temporary views,
    with the same messages, raised in the same order. ``options`` must be resolved."""
    cols, order_column = options.columns, options.order_column
    q, d = quoted(cols.query), quoted(cols.doc)
    null_id = f"{q} IS NULL OR {d} IS NULL"
    tables = (("run", run_view, order_column), ("qrels", qrels_view, cols.relevance))
    counts = " UNION ALL ".join(
        f"SELECT {n} AS i, SUM(CASE WHEN {null_id} THEN 1 ELSE 0 END) AS null_ids, "
        f"SUM(CASE WHEN {_bad_value(value)} THEN 1 ELSE 0 END) AS bad_values, "
        f"COUNT(*) AS row_count FROM {quoted(view)}"
        for n, (_, view, value) in enumerate(tables)
    )
    found = {row["i"]: row for row in spark.sql(counts).collect()}
    run_counts, qrels_counts = found[0], found[1]
    for what, row in (("run", run_counts), ("qrels", qrels_counts)):
        if row["row_count"] == 0:
            raise messages.empty_input(what)
    checks = [
        ("run_null_id", run_counts["null_ids"], run_view, null_id),
        ("qrels_null_id", qrels_counts["null_ids"], qrels_view, null_id),
        ("run_bad_order_value", run_counts["bad_values"], run_view, _bad_value(order_column)),
        ("qrels_bad_rel", qrels_counts["bad_values"], qrels_view, _bad_value(cols.relevance)),
    ]
    for check, count, view, bad in checks:
        if count:
            problem = _first_bad(spark, view, bad, cols.query, cols.doc)
            raise messages.input_problem(
                check, order_column=order_column, rel=cols.relevance, **problem
            )
    if options.duplicates != "error":
        return
    repeated = " UNION ALL ".join(
        f"SELECT {n} AS i, COUNT(*) AS n FROM (SELECT h FROM (SELECT xxhash64({q}, {d}) AS h "
        f"FROM {quoted(view)}) GROUP BY h HAVING COUNT(*) > 1)"
        for n, (_, view, _) in enumerate(tables)
    )
    hashes = {row["i"]: row["n"] for row in spark.sql(repeated).collect()}
    for n, (what, view, _) in enumerate(tables):
        if not hashes[n]:
            continue
        example = spark.sql(
            f"SELECT COUNT(*) OVER () AS count, CAST({q} AS STRING) AS query, "
            f"CAST({d} AS STRING) AS doc FROM {quoted(view)} GROUP BY {q}, {d} "
            "HAVING COUNT(*) > 1 LIMIT 1"
        ).collect()
        if example:  # else a hash collision, not a duplicate
            raise messages.input_problem(
                f"{what}_duplicate",
                order_column=order_column,
                rel=cols.relevance,
                row=None,
                **example[0].asDict(),
            )
