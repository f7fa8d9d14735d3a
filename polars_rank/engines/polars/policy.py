"""The Polars engine of :func:`polars_rank.evaluate_policy`: the log joined to the policy
(and the reward model), each estimator by its expressions
(:func:`polars_rank.policy.estimator_exprs`) in one lazy plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank.policy.bootstrap import intervals
from polars_rank.policy.estimators import OUTPUTS, Estimator, applied_weight, estimator_exprs

if TYPE_CHECKING:
    from polars_rank.engines.request import PolicyRequest

_W, _R, _Q, _DM, _P, _ROW = "__pr_w", "__pr_r", "__pr_q", "__pr_dm", "__pr_p", "__pr_row"
#: Per logged decision, the reward model's missing estimates it would read: q̂(x, a) of the
#: logged pair, and q̂(x, a') of each action a' the policy gives a positive probability.
_LACKING = "__pr_lacking"


def _rows(
    log: pl.LazyFrame, policy: pl.LazyFrame, q_hat: pl.LazyFrame | None, request: PolicyRequest
) -> pl.LazyFrame:
    """One row per logged decision: the ``by`` columns, w, r and (with ``q_hat``) q̂(x, a)
    and q̂(x, π_e)."""
    ctx, act = request.context, request.action
    keys = [ctx, act]
    probability = policy.select(*keys, pl.col(request.probability).cast(pl.Float64).alias(_P))
    rows = (
        log.with_row_index(_ROW)
        .select(
            _ROW,
            *keys,
            *request.by,
            request.pscore,
            pl.col(request.reward).cast(pl.Float64).alias(_R),
        )
        .join(probability, on=keys, how="left")
    )
    rows = rows.with_columns(
        (pl.col(_P).fill_null(0.0) / pl.col(request.pscore).cast(pl.Float64)).alias(_W)
    )
    if q_hat is not None:
        q = q_hat.select(*keys, pl.col(request.q_hat_column).cast(pl.Float64).alias(_Q))
        # OBP's np.average(q_hat, weights=action_dist): Σ π·q̂ / Σ π over the actions
        dm = (
            probability.join(q, on=keys, how="left")
            .group_by(ctx)
            .agg(
                ((pl.col(_P) * pl.col(_Q).fill_null(0.0)).sum() / pl.col(_P).sum()).alias(_DM),
                ((pl.col(_P) > 0) & pl.col(_Q).is_null()).sum().alias(_LACKING),
            )
        )
        rows = rows.join(q, on=keys, how="left").join(dm, on=ctx, how="left")
        rows = rows.with_columns(
            (pl.col(_LACKING).fill_null(0) + pl.col(_Q).is_null().cast(pl.UInt32)).alias(_LACKING)
        )
    return rows


def evaluate_policy(
    log: pl.LazyFrame, policy: pl.LazyFrame, q_hat: pl.LazyFrame | None, request: PolicyRequest
) -> pl.DataFrame:
    """``[by...,] estimator, estimate, standard_error, ess, max_weight, n``: one row per
    estimator per ``by`` segment of the log (sorted, nulls first; the estimators in the
    order given). The reward model's missing estimates are counted in the plan's own joins
    (no pass of their own); only when one is missing does
    :func:`~polars_rank.engines.policy_inputs.q_hat_present` build the error."""
    from polars_rank.engines.policy_inputs import q_hat_present

    by = request.by
    rows = _rows(log, policy, q_hat, request)
    model = q_hat is not None
    reads_model = model and any(est.model for _, est in request.specs)
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
            (pl.col(_LACKING).sum() if reads_model else pl.lit(0)).cast(pl.Int64).alias(_LACKING),
        ]
        frames.append(rows.group_by(by).agg(aggs) if by else rows.select(aggs))
    out = pl.concat(frames).sort([*by, "__pr_ord"], nulls_last=False).drop("__pr_ord").collect()
    if out[_LACKING].sum():
        q_hat_present(log, policy, q_hat, request)
        raise AssertionError("the plan counted missing reward estimates the check did not find")
    out = out.drop(_LACKING)
    if request.bootstrap is None:
        return out
    # OBP resamples the rounds in the log's order
    ordered = rows.sort(_ROW)
    values = pl.concat(
        ordered.select(
            *by,
            pl.lit(label).alias("estimator"),
            round_rewards(est, request.lambda_, by).alias("value"),
        )
        for label, est in request.specs
    ).collect()
    found = intervals(values, by, request.bootstrap)
    return out.join(found, on=[*by, "estimator"], how="left", nulls_equal=True)


def round_rewards(est: Estimator, lambda_: float | None, by: list[str]) -> pl.Expr:
    """OBP's ``_estimate_round_rewards`` of ``est``, one per logged decision: the values its
    bootstrap resamples (the self-normalised ones divided by the segment's mean weight)."""
    w, r = pl.col(_W), pl.col(_R)
    base, residual = (pl.col(_DM), r - pl.col(_Q)) if est.model else (pl.lit(0.0), r)
    if est.name == "dm":
        return base
    if est.normalised:
        mean = w.mean().over(by) if by else w.mean()
        return base + w * residual / mean
    return base + applied_weight(w, est.lambda_, lambda_) * residual
