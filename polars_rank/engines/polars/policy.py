"""The Polars engine of :func:`polars_rank.evaluate_policy`: the log joined to the policy
(and the reward model), each estimator by its expressions
(:func:`polars_rank.policy.estimator_exprs`) in one lazy plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank.policy.estimators import OUTPUTS, estimator_exprs

if TYPE_CHECKING:
    from polars_rank.engines.request import PolicyRequest

_W, _R, _Q, _DM, _P = "__pr_w", "__pr_r", "__pr_q", "__pr_dm", "__pr_p"


def _rows(
    log: pl.LazyFrame, policy: pl.LazyFrame, q_hat: pl.LazyFrame | None, request: PolicyRequest
) -> pl.LazyFrame:
    """One row per logged decision: the ``by`` columns, w, r and (with ``q_hat``) q̂(x, a)
    and q̂(x, π_e)."""
    ctx, act = request.context, request.action
    keys = [ctx, act]
    probability = policy.select(*keys, pl.col(request.probability).cast(pl.Float64).alias(_P))
    rows = log.select(
        *keys, *request.by, request.pscore, pl.col(request.reward).cast(pl.Float64).alias(_R)
    ).join(probability, on=keys, how="left")
    rows = rows.with_columns(
        (pl.col(_P).fill_null(0.0) / pl.col(request.pscore).cast(pl.Float64)).alias(_W)
    )
    if q_hat is not None:
        q = q_hat.select(*keys, pl.col(request.q_hat_column).cast(pl.Float64).alias(_Q))
        # OBP's np.average(q_hat, weights=action_dist): Σ π·q̂ / Σ π over the actions
        dm = (
            probability.join(q, on=keys, how="left")
            .group_by(ctx)
            .agg(((pl.col(_P) * pl.col(_Q).fill_null(0.0)).sum() / pl.col(_P).sum()).alias(_DM))
        )
        rows = rows.join(q, on=keys, how="left").join(dm, on=ctx, how="left")
    return rows


def evaluate_policy(
    log: pl.LazyFrame, policy: pl.LazyFrame, q_hat: pl.LazyFrame | None, request: PolicyRequest
) -> pl.DataFrame:
    """``[by...,] estimator, estimate, standard_error, ess, max_weight, n``: one row per
    estimator per ``by`` segment of the log (sorted, nulls first; the estimators in the
    order given)."""
    by = request.by
    rows = _rows(log, policy, q_hat, request)
    model = q_hat is not None
    frames = []
    for k, (label, est) in enumerate(request.specs):
        exprs = estimator_exprs(
            est.name,
            weight=_W,
            reward=_R,
            q=_Q if model else None,
            dm=_DM if model else None,
            lambda_=request.lambda_,
        )
        aggs = [
            pl.lit(label).alias("estimator"),
            *(exprs[c].cast(pl.Float64).alias(c) for c in OUTPUTS),
            pl.len().cast(pl.Int64).alias("n"),
            pl.lit(k, pl.Int64).alias("__pr_ord"),
        ]
        frames.append(rows.group_by(by).agg(aggs) if by else rows.select(aggs))
    out = pl.concat(frames).sort([*by, "__pr_ord"], nulls_last=False).drop("__pr_ord")
    return out.collect()
