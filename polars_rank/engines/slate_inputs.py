"""The checks of :func:`polars_rank.evaluate_slate_policy`, the same for every engine, in
Polars: columns present and numeric; no NULL slate or position, each (slate, position) once
in each table; rewards finite; the log's propensities in (0, 1], the policy's in [0, 1];
every logged slate in the policy; one ``by`` segment per slate; and :func:`joined`, the rows
the Polars engine's estimators read."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.core.frames import require_columns, to_lazy
from polars_rank.engines.policy_inputs import finite, none_missing, unique_keys, within
from polars_rank.policy import slate as slates

if TYPE_CHECKING:
    from polars_rank.core.dialects import DialectName
    from polars_rank.core.types import FrameLike
    from polars_rank.engines.request import SlateRequest


def checked_inputs(
    log: FrameLike, policy: FrameLike, request: SlateRequest
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The tables checked (raising :class:`PolarsRankError` naming the table and column),
    reduced to the columns the estimators read."""
    keys = [request.slate, request.position]
    propensities = request.read
    logged = to_lazy(log, "log")
    evaluated = to_lazy(policy, "policy")
    log_columns = list(dict.fromkeys([*keys, request.reward, *propensities, *request.by]))
    lschema = require_columns(logged, "log", log_columns)
    pschema = require_columns(evaluated, "policy", [*keys, *propensities])
    logged = logged.select(log_columns)
    evaluated = evaluated.select(*keys, *propensities)
    finite(logged, "log", lschema, request.reward)
    for column in propensities:
        finite(logged, "log", lschema, column)
        finite(evaluated, "policy", pschema, column)
        p = pl.col(column).cast(pl.Float64)
        within(logged, "log", column, request.slate, (p <= 0) | (p > 1), "(0, 1]")
        within(evaluated, "policy", column, request.slate, (p < 0) | (p > 1), "[0, 1]")
    unique_keys(logged, "log", keys)
    unique_keys(evaluated, "policy", keys)
    for column in keys:
        if pschema[column] != lschema[column]:
            raise PolarsRankError(
                f"the {column!r} columns differ in type: log {lschema[column]}, policy "
                f"{pschema[column]}"
            )
    none_missing(
        logged.join(evaluated, on=request.slate, how="anti").sort(request.slate),
        "logged slates are",
        [request.slate],
        "missing from the policy (give the evaluation policy's propensities of each logged "
        "slate; a slot left out has propensity 0)",
    )
    if request.by:
        split = (
            logged.group_by(request.slate)
            .agg(pl.struct(request.by).n_unique().alias("segments"))
            .filter(pl.col("segments") > 1)
            .sort(request.slate)
        )
        none_missing(
            split,
            "slates are",
            [request.slate],
            f"in more than one segment of by={request.by} (a slate is one unit: give all its "
            "slots the same by values)",
        )
    return logged, evaluated


def joined(log: pl.LazyFrame, policy: pl.LazyFrame, request: SlateRequest) -> pl.LazyFrame:
    """The checked log LEFT JOINed to the policy on (slate, position): the ``by`` columns,
    slate, position, reward and each read propensity's weight π_e / π_b (π_e 0 for a slot
    the policy does not list), named as :mod:`polars_rank.policy.slate` reads them."""
    keys = [request.slate, request.position]
    used = [p for p in request.propensities if request.propensities[p] in request.read]
    suffix = "__pr_policy"
    rows = log.join(policy, on=keys, how="left", suffix=suffix, nulls_equal=True)
    weights = [
        (
            pl.col(f"{request.propensities[p]}{suffix}").cast(pl.Float64).fill_null(0.0)
            / pl.col(request.propensities[p]).cast(pl.Float64)
        ).alias(slates.weight_column(p))
        for p in used
    ]
    return rows.select(
        *request.by,
        pl.col(request.slate).alias(slates.SLATE),
        pl.col(request.position).alias(slates.POSITION),
        pl.col(request.reward).cast(pl.Float64).alias(slates.REWARD),
        *weights,
    )


def request_sql(request: SlateRequest, dialect: DialectName, tables: dict[str, str]) -> str:
    """:func:`polars_rank.slate_policy_sql` of ``request`` in ``dialect`` over ``tables``
    (``log``, ``policy``): the one query every SQL engine runs."""
    from polars_rank.compiler.slate import slate_policy_sql

    return slate_policy_sql(
        [label for label, _ in request.specs],
        dialect,
        tables["log"],
        tables["policy"],
        slate=request.slate,
        position=request.position,
        reward=request.reward,
        by=request.by or None,
        pscore=request.propensities["pscore"],
        pscore_item_position=request.propensities["pscore_item_position"],
        pscore_cascade=request.propensities["pscore_cascade"],
    )
