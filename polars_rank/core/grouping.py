"""``evaluate(..., by=[...])``: every combination of the ``by`` columns of a run (a system, a
date, a market) evaluated independently, in one pass.

An in-process engine evaluates a grouped run as one run whose query id is the pair (group,
query): the ``by`` columns and the query packed into one struct column under the query's
name (:func:`keyed_inputs`). Ranking, trec_eval's tie-break, the duplicate checks and the
queries that count are then per (group, query) with no change to the engine, and the plan
does not grow with the number of groups. The per-query values are unpacked again
(:func:`per_query_frame`) and summarised per group (:func:`group_summary`).

Judgments per group: a ``by`` column present in the judgments too joins on it; one absent
from them shares the judgments across groups (several systems against one qrels). The
``queries`` rule applies within each group. A group of the run none of whose queries counts
(``queries="qrels"``: no judgment joins it; ``"both"``: none of its queries is judged) gets
a summary row with the summary over no query: null means, 0 for counts (what ``evaluate``
gives on that group's rows alone with ``queries="both"``).

>>> run = pl.DataFrame({"sys": ["a", "a", "b", "b"], "query": ["q"] * 4,
...                     "doc": ["x", "y", "x", "y"], "score": [2.0, 1.0, 1.0, 2.0]})
>>> qrels = pl.DataFrame({"query": ["q"], "doc": ["y"], "relevance": [1]})
>>> import polars_rank as pr
>>> pr.evaluate(run, qrels, ["RR"], by="sys").rows()
[('a', 0.5), ('b', 1.0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import polars as pl

from polars_rank.core import messages
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.options import Options
from polars_rank.core.summary import Summary, summary_expr

#: The column :func:`group_summary` uses to tell the groups with counted queries.
_PRESENT = "__pr_group_present"


def by_list(by: str | Iterable[str] | None, argument: str = "by") -> list[str]:
    """``by`` (or ``argument``: ``qrels_by``, ``group``, ...) as a list of column names (a
    string is one column); an error naming ``argument`` for a repeated name, or one that is
    not a string, is empty or only spaces.

    >>> by_list("date"), by_list(["system", "date"]), by_list(None)
    (['date'], ['system', 'date'], [])
    """
    if by is None:
        return []
    columns = [by] if isinstance(by, str) else list(by)
    for column in columns:
        if not isinstance(column, str) or not column.strip():
            raise messages.bad_column_name(argument, column)
    repeated = [c for c in columns if columns.count(c) > 1]
    if repeated:
        raise PolarsRankError(f"{argument}: column {repeated[0]!r} is listed twice")
    return columns


def check_by_names(by: Sequence[str], roles: Mapping[str, str], outputs: Iterable[str]) -> None:
    """The rule for ``by`` column names, the same in every entry point (``evaluate``,
    ``evaluate_classification``, ``to_sql``, ``check_sql``, every engine): no ``by`` column
    is one of the input's ``roles`` (column name → its role: the id, score, rank and
    relevance columns), nor has the name of a metric's output column (``outputs``: the
    metrics' labels and their SQL column names), both compared case-insensitively, as SQL
    compares unquoted names: the output columns stay unambiguous."""
    lowered_roles = {name.lower(): role for name, role in roles.items()}
    lowered_outputs: dict[str, str] = {}
    for name in outputs:
        lowered_outputs.setdefault(name.lower(), name)
    for column in by:
        role = lowered_roles.get(column.lower())
        if role is not None:
            raise PolarsRankError(
                f"by column {column!r} is the {role} column: a group column must be "
                "another column of the run"
            )
        if column.lower() in lowered_outputs:
            raise PolarsRankError(
                f"by column {column!r} has the name of a metric "
                f"({lowered_outputs[column.lower()]!r}, case-insensitively): the output "
                "columns would clash; rename the column"
            )


def check_by(
    by: Sequence[str],
    run_schema: pl.Schema,
    qrels_schema: pl.Schema | None,
    options: Options,
    labels: Iterable[str],
) -> None:
    """The ``by`` columns are the run's, none is an id, score, rank or relevance column or a
    metric's name (:func:`check_by_names`; ``labels``: the metrics' output names), none
    holds nested or mixed (``Object``) values, and one the judgments share has the run's
    dtype there."""
    cols = options.columns
    roles = {
        cols.query: "query",
        cols.doc: "doc",
        cols.score: "score",
        cols.rank: "rank",
        cols.relevance: "relevance",
    }
    for column in by:
        if column not in run_schema:
            raise PolarsRankError(
                f"by column {column!r} is not a column of the run; its columns are "
                f"{list(run_schema.names())}"
            )
        check_by_names([column], roles, labels)
        dtype = run_schema[column]
        if dtype == pl.Object or dtype.is_nested():
            raise PolarsRankError(
                f"by column {column!r} is {dtype}: a group column holds one plain type "
                "(text, numbers, dates, booleans), not mixed or nested values"
            )
        if qrels_schema is not None and column in qrels_schema:
            other = qrels_schema[column]
            if other != dtype:
                raise PolarsRankError(
                    f"by column {column!r} is {dtype} in the run but {other} in the qrels; "
                    "a group column the judgments share must have the same dtype in both"
                )


def group_key(by: Sequence[str], query: str) -> pl.Expr:
    """The (group, query) id: a struct of the ``by`` columns and the query, named as the
    query column; null where the query is null (so that the null-id checks see it)."""
    return (
        pl.when(pl.col(query).is_not_null())
        .then(pl.struct(*by, query))
        .otherwise(None)
        .alias(query)
    )


def no_nulls(columns: Sequence[str], what: str) -> None:
    """An error naming the first of ``columns`` (``by`` columns found to hold nulls), if any."""
    if columns:
        column = columns[0]
        raise PolarsRankError(
            f"by column {column!r} of the {what} has null values: a group must be named "
            f"(fill them, e.g. pl.col({column!r}).fill_null(...), or filter those rows out)"
        )


def run_groups(run: pl.LazyFrame, by: Sequence[str]) -> pl.DataFrame:
    """The distinct combinations of the ``by`` columns in the run, sorted; an error naming
    the column if one holds nulls."""
    groups = run.select(by).unique().collect(engine="streaming")
    no_nulls([c for c in by if groups[c].null_count()], "run")
    return groups.sort(by)


def keyed_inputs(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame | None,
    by: Sequence[str],
    options: Options,
    groups: pl.DataFrame,
) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """The run and the judgments with the (group, query) id of :func:`group_key` in the query
    column and without the ``by`` columns. The judgments join ``groups`` on the ``by``
    columns they have (a cross join when they have none: shared by every group)."""
    query = options.columns.query
    run = run.with_columns(group_key(by, query)).drop(by)
    if qrels is None:
        return run, None
    schema = qrels.collect_schema()
    shared = [c for c in by if c in schema]
    if shared:
        nulls = qrels.select(pl.col(shared).null_count()).collect().row(0, named=True)
        no_nulls([c for c in shared if nulls[c]], "qrels")
        joined = qrels.join(groups.lazy(), on=shared, how="inner")
    else:
        joined = qrels.join(groups.lazy(), how="cross")
    return run, joined.with_columns(group_key(by, query)).drop(by)


def judges_no_group(qrels: pl.LazyFrame, keyed: pl.LazyFrame) -> bool:
    """Whether the judgments have rows but none joins a group of the run (the ``by``
    columns they share never match): then no query of any group counts."""
    return keyed.select(pl.len()).collect().item() == 0 and bool(
        qrels.select(pl.len()).collect().item()
    )


def no_values(
    run_schema: pl.Schema, by: Sequence[str], query: str, summaries: Sequence[tuple[str, Summary]]
) -> pl.LazyFrame:
    """The per-query values (``by..., query, <metrics>``) when no group of the run has a
    judgment (the qrels join none of them): no row, keyed as :func:`keyed_inputs` keys;
    ``summaries``: each metric's ``(label, summary rule)``."""
    schema: dict[str, pl.DataType] = {query: pl.Struct({c: run_schema[c] for c in [*by, query]})}
    for label, rule in summaries:
        schema[label] = pl.String() if rule == "none" else pl.Float64()
    return pl.LazyFrame(schema=schema)


#: The column of :func:`numbered_inputs`' (group, query) numbers.
_NUMBER = "__pr_group_query"


def numbered_inputs(
    run: pl.DataFrame, qrels: pl.DataFrame, options: Options
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, Options]:
    """The keyed inputs (:func:`keyed_inputs`, collected) checked here, under their struct
    ids (so that messages show the group), then with each (group, query) id replaced by a
    number, for an engine that should not compare structs (DuckDB compares their text
    fields under the connection's collation). Returns the two frames, the numbers
    (``__pr_group_query`` and the query column), and the options for them (``validate``
    off: done)."""
    from dataclasses import replace

    from polars_rank.core.validation import validate

    resolved = options.resolve(run.schema, qrels.schema)
    if resolved.validate:
        validate(run.lazy(), qrels.lazy(), resolved, in_memory=True)
    query = options.columns.query
    ids = (
        pl.concat([run.select(query), qrels.select(query)])
        .unique(maintain_order=True)
        .with_row_index(_NUMBER)
    )

    def numbered(frame: pl.DataFrame) -> pl.DataFrame:
        joined = frame.join(ids, on=query, how="left", maintain_order="left")
        return joined.with_columns(pl.col(_NUMBER).alias(query)).drop(_NUMBER)

    return numbered(run), numbered(qrels), ids, replace(resolved, validate=False)


def from_numbers(values: pl.LazyFrame, ids: pl.DataFrame, query: str) -> pl.LazyFrame:
    """Per-query values of :func:`numbered_inputs`' frames with the struct ids back."""
    numbers = ids.lazy().rename({query: f"{query}{_NUMBER}", _NUMBER: query})
    joined = values.join(numbers, on=query, how="left")
    return joined.with_columns(pl.col(f"{query}{_NUMBER}").alias(query)).drop(f"{query}{_NUMBER}")


def per_query_frame(values: pl.LazyFrame, by: Sequence[str], query: str) -> pl.LazyFrame:
    """Per-query values keyed by (group, query) as ``by..., query, <metrics>``, sorted."""
    return values.unnest(query).sort([*by, query])


def group_summary(
    values: pl.LazyFrame,
    summaries: Sequence[tuple[str, Summary]],
    by: Sequence[str],
    query: str,
    groups: pl.DataFrame,
) -> pl.LazyFrame:
    """One row per group of ``groups`` (sorted): the summary of each ``(label, rule)`` over the
    group's per-query values (``by..., query, <metrics>``, :func:`per_query_frame`). A group
    without a counted query gets the summary over no query (null means, 0 for counts)."""
    labels = [label for label, _ in summaries]
    summarised = values.group_by(by).agg(
        *[summary_expr(rule, label, query) for label, rule in summaries],
        pl.lit(True).alias(_PRESENT),
    )
    empty = (
        values.head(0).select(summary_expr(rule, label, query) for label, rule in summaries)
        if summaries
        else None
    )
    joined = groups.lazy().join(summarised, on=by, how="left", nulls_equal=True)
    if empty is not None:
        present = pl.col(_PRESENT).fill_null(False)
        joined = joined.join(empty.rename({c: f"{c}{_PRESENT}" for c in labels}), how="cross")
        joined = joined.with_columns(
            pl.when(present).then(pl.col(c)).otherwise(pl.col(f"{c}{_PRESENT}")).alias(c)
            for c in labels
        )
    return joined.select(*by, *labels).sort(by)


def check_shared(
    by: Sequence[str], run_schema: pl.Schema, schema: pl.Schema, what: str
) -> list[str]:
    """The ``by`` columns a recommender input (``what``: interactions, catalog, item
    features) shares with the run, checked to have the run's dtype there."""
    shared = [c for c in by if c in schema]
    for column in shared:
        if schema[column] != run_schema[column]:
            raise PolarsRankError(
                f"by column {column!r} is {run_schema[column]} in the run but {schema[column]} "
                f"in the {what}; a group column an input shares must have the same dtype in both"
            )
    return shared


def judging_nobody(
    empty: pl.DataFrame, qrels: pl.DataFrame, run: pl.DataFrame, query: str
) -> pl.DataFrame:
    """Judgments (of ``empty``'s columns) that count no query of ``run``: one row of the
    ``qrels`` under a query id the run does not have, for when no judgment joins any group
    (evaluated with ``queries="both"``: the summary over no query, as :func:`group_summary`
    gives it). Text and integer ids only (else an error).

    >>> run = pl.DataFrame({"query": [1, 5]})
    >>> qrels = pl.DataFrame({"query": [1], "doc": ["a"], "relevance": [1]})
    >>> judging_nobody(qrels.clear(), qrels, run, "query").rows()
    [(6, 'a', 1)]
    """
    dtype = run.schema[query]
    if dtype == pl.String:
        taken = set(run[query].to_list())
        nobody: object = next(
            f"\x00none{i}" for i in range(len(taken) + 1) if f"\x00none{i}" not in taken
        )
    elif dtype.is_integer():
        nobody = int(run[query].max() or 0) + 1  # type: ignore[arg-type]
    else:
        raise PolarsRankError(
            f"by: a group no judgment joins, with {dtype} query ids, has no query to count; "
            "give it judgments or leave it out"
        )
    row = qrels.select(empty.columns).head(1)
    return row.with_columns(pl.lit(nobody).cast(dtype).alias(query))
