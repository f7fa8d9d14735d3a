"""The checks of :func:`polars_rank.evaluate_policy`, the same for every engine, in Polars:
columns present and numeric; no NULL context or action, each context logged once; rewards
finite; propensity scores in (0, 1]; evaluation probabilities in [0, 1], one per (context,
action), summing to 1 per context (within :data:`TOLERANCE`, the contexts that do not
reported) and listing every logged context; reward model estimates, one per (context,
action), wherever an estimator reads one; and :func:`compiled_result`, the compiled query's
rows as the Polars engine gives them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.core.frames import require_columns, to_lazy

if TYPE_CHECKING:
    from polars_rank.core.dialects import DialectName
    from polars_rank.core.types import FrameLike
    from polars_rank.engines.request import PolicyRequest, SlateRequest

#: How far from 1 a context's evaluation probabilities may sum.
TOLERANCE = 1e-6
#: How many offending contexts an error lists.
_SHOWN = 5


def finite(lf: pl.LazyFrame, what: str, schema: pl.Schema, column: str) -> None:
    """``column`` holds numbers, none NULL, NaN or infinite."""
    dtype = schema[column]
    if not dtype.is_numeric():
        raise PolarsRankError(f"{what} column {column!r} must hold numbers, got {dtype} values")
    value = pl.col(column).cast(pl.Float64)
    nulls, bad = (
        lf.select(
            value.is_null().sum().alias("nulls"),
            (value.is_nan() | value.is_infinite()).sum().alias("bad"),
        )
        .collect()
        .row(0)
    )
    if nulls:
        raise PolarsRankError(f"{what} column {column!r} has {nulls} NULL values")
    if bad:
        raise PolarsRankError(f"{what} column {column!r} has {bad} NaN or infinite values")


def within(lf: pl.LazyFrame, what: str, column: str, key: str, bad: pl.Expr, interval: str) -> None:
    """No value of ``column`` is ``bad`` (outside ``interval``); the error shows the first
    one and its row's ``key``."""
    rows = lf.filter(bad).select(key, column).collect()
    if rows.height:
        k, v = rows.row(0)
        raise PolarsRankError(
            f"{what} column {column!r} has {rows.height} values outside {interval}, e.g. {v!r} "
            f"({key} {k!r})"
        )


def unique_keys(lf: pl.LazyFrame, what: str, keys: list[str]) -> None:
    """No NULL key; no key (tuple) twice."""
    for column in keys:
        nulls = lf.select(pl.col(column).is_null().sum()).collect().item()
        if nulls:
            raise PolarsRankError(f"{what} column {column!r} has {nulls} NULL values")
    twice = lf.group_by(keys).len().filter(pl.col("len") > 1).sort(keys).collect()
    if twice.height:
        example = twice.select(keys).row(0)
        shown = repr(example[0]) if len(keys) == 1 else repr(example)
        raise PolarsRankError(
            f"the {what} has {twice.height} ({', '.join(keys)}) keys more than once, e.g. "
            f"{shown}: one row per key"
        )


def _per_context(policy: pl.LazyFrame, context: str, action: str, probability: str) -> pl.DataFrame:
    """The policy's contexts that break a rule: an action listed twice (``len`` above the
    distinct actions) or probabilities not summing to 1 (``sum``); one grouping for both
    checks, the exact messages built only when a row is found (:func:`unique_keys`,
    :func:`_sums`)."""
    return (
        policy.group_by(context)
        .agg(
            pl.len().alias("len"),
            pl.col(action).n_unique().alias("actions"),
            pl.col(probability).cast(pl.Float64).sum().alias("sum"),
        )
        .filter((pl.col("len") > pl.col("actions")) | ((pl.col("sum") - 1.0).abs() > TOLERANCE))
        .collect()
    )


def _sums(sums: pl.DataFrame, context: str) -> None:
    sums = sums.filter((pl.col("sum") - 1.0).abs() > TOLERANCE).select(context, "sum")
    sums = sums.sort(context)
    if sums.height:
        shown = ", ".join(f"{c!r}: {s!r}" for c, s in sums.head(_SHOWN).rows())
        more = f" and {sums.height - _SHOWN} more" if sums.height > _SHOWN else ""
        raise PolarsRankError(
            f"the policy's probabilities must sum to 1 per context (within {TOLERANCE:g}); "
            f"{sums.height} contexts do not: {shown}{more}"
        )


def none_missing(lf: pl.LazyFrame, what: str, keys: list[str], message: str) -> None:
    rows = lf.select(keys).collect()
    if rows.height:
        example = rows.row(0)
        shown = repr(example[0]) if len(keys) == 1 else repr(example)
        raise PolarsRankError(f"{rows.height} {what} {message}, e.g. {shown}")


def checked_inputs(
    log: FrameLike, policy: FrameLike, q_hat: FrameLike | None, request: PolicyRequest
) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.LazyFrame | None]:
    """The tables checked (raising :class:`PolarsRankError` naming the table and column),
    reduced to the columns the estimators read."""
    ctx, act = request.context, request.action
    logged = to_lazy(log, "log")
    evaluated = to_lazy(policy, "policy")
    lschema = require_columns(
        logged, "log", [ctx, act, request.reward, request.pscore, *request.by]
    )
    pschema = require_columns(evaluated, "policy", [ctx, act, request.probability])
    logged = logged.select(
        list(dict.fromkeys([ctx, act, request.reward, request.pscore, *request.by]))
    )
    evaluated = evaluated.select(ctx, act, request.probability)
    finite(logged, "log", lschema, request.reward)
    finite(logged, "log", lschema, request.pscore)
    finite(evaluated, "policy", pschema, request.probability)
    score = pl.col(request.pscore).cast(pl.Float64)
    within(logged, "log", request.pscore, ctx, (score <= 0) | (score > 1), "(0, 1]")
    p = pl.col(request.probability).cast(pl.Float64)
    within(evaluated, "policy", request.probability, ctx, (p < 0) | (p > 1), "[0, 1]")
    unique_keys(logged, "log", [ctx])
    for column in (act,):
        nulls = logged.select(pl.col(column).is_null().sum()).collect().item()
        if nulls:
            raise PolarsRankError(f"log column {column!r} has {nulls} NULL values")
    broken = _per_context(evaluated, ctx, act, request.probability)
    if broken.height:  # NULL keys are counted apart: unique_keys finds them
        unique_keys(evaluated, "policy", [ctx, act])
    else:
        for column in (ctx, act):
            nulls = evaluated.select(pl.col(column).is_null().sum()).collect().item()
            if nulls:
                raise PolarsRankError(f"policy column {column!r} has {nulls} NULL values")
    tables = [("policy", pschema)]
    model: pl.LazyFrame | None = None
    if q_hat is not None:
        model = to_lazy(q_hat, "q_hat")
        qschema = require_columns(model, "q_hat", [ctx, act, request.q_hat_column])
        model = model.select(ctx, act, request.q_hat_column)
        finite(model, "q_hat", qschema, request.q_hat_column)
        unique_keys(model, "q_hat", [ctx, act])
        tables.append(("q_hat", qschema))
    for what, schema in tables:
        if schema[ctx] != lschema[ctx] or schema[act] != lschema[act]:
            raise PolarsRankError(
                f"the context and action columns differ in type: log ({lschema[ctx]}, "
                f"{lschema[act]}), {what} ({schema[ctx]}, {schema[act]})"
            )
    _sums(broken, ctx)
    none_missing(
        logged.join(evaluated, on=ctx, how="anti").sort(ctx),
        "logged contexts are",
        [ctx],
        "missing from the policy (list each context's actions; an action left out has "
        "probability 0)",
    )
    return logged, evaluated, model


def q_hat_present(
    logged: pl.LazyFrame,
    evaluated: pl.LazyFrame,
    model: pl.LazyFrame | None,
    request: PolicyRequest,
) -> None:
    """The reward model has an estimate wherever a model-based estimator reads one: every
    logged (context, action) and every action the policy gives a positive probability in a
    logged context; else the error names how many pairs lack one. The compiled engines
    run it before their query; the Polars engine counts the missing estimates in its own
    joins and runs it only when one is missing."""
    ctx, act = request.context, request.action
    if model is not None and any(est.model for _, est in request.specs):
        keys = [ctx, act]
        contexts = logged.select(ctx)
        evaluated_pairs = (
            evaluated.filter(pl.col(request.probability) > 0)
            .select(keys)
            .join(contexts, on=ctx, how="semi")
        )
        # each side's pairs without a q_hat, then the few of them made unique (an anti-join
        # per side costs far less than the union of every pair made unique)
        lacking = pl.concat(
            [
                logged.select(keys).join(model, on=keys, how="anti"),
                evaluated_pairs.join(model, on=keys, how="anti"),
            ]
        ).unique()
        none_missing(
            lacking.sort(ctx, act),
            "(context, action) pairs lack a q_hat",
            [ctx, act],
            "(the model-based estimators read q_hat for every logged action and every "
            "action the policy gives a positive probability)",
        )


def compiled_result(
    values: pl.DataFrame, schema: pl.Schema, request: PolicyRequest | SlateRequest
) -> pl.DataFrame:
    """The compiled query's rows as the Polars engine gives them: the ``by`` columns in the
    log's types, ``estimator`` (String), four Float64 numbers and ``n`` (Int64), sorted by
    segment (nulls first) and then in the estimators' order."""
    from polars_rank.compiler.policy import COLUMNS

    by = request.by
    order = {label: k for k, (label, _) in enumerate(request.specs)}
    out = values.select(
        *(pl.col(c).cast(schema[c]) for c in by),
        pl.col("estimator").cast(pl.String),
        *(pl.col(c).cast(pl.Float64) for c in COLUMNS[1:-1]),
        pl.col("n").cast(pl.Int64),
    )
    ordinal = pl.col("estimator").replace_strict(order, return_dtype=pl.Int64)
    return out.sort([*by, ordinal], nulls_last=False)


def request_sql(request: PolicyRequest, dialect: DialectName, tables: dict[str, str]) -> str:
    """:func:`polars_rank.policy_sql` of ``request`` in ``dialect``, over ``tables`` (``log``,
    ``policy`` and, when given, ``q_hat``: table references the engine has made): the one
    query every SQL engine runs."""
    from polars_rank.compiler.policy import policy_sql

    return policy_sql(
        [label for label, _ in request.specs],
        dialect,
        tables["log"],
        tables["policy"],
        q_hat=tables.get("q_hat"),
        context=request.context,
        action=request.action,
        reward=request.reward,
        pscore=request.pscore,
        probability=request.probability,
        q_hat_column=request.q_hat_column,
        by=request.by or None,
        lambda_=request.lambda_ if request.lambda_ is not None else float("inf"),
    )
