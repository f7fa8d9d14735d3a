"""Slate off-policy estimators: the value of an evaluation policy that shows ranked lists
(slates), estimated from slates logged by another policy, as OBP 0.5's
``obp/ope/estimators_slate.py`` defines them (``estimate_policy_value``).

Each row is one slot of one logged slate i at position k, joined to the evaluation
policy's propensity of the same slot: ``r`` the slot's reward and ``w`` the importance
weight π_e / π_b of the propensity the estimator reads (OBP's ``iw``):

* ``SIPS`` (``SlateStandardIPS``): the joint propensity of the whole slate (``pscore``);
* ``IIPS`` (``SlateIndependentIPS``): the marginal propensity of the item at its position
  (``pscore_item_position``);
* ``RIPS`` (``SlateRewardInteractionIPS``): the propensity of the slate's top k items
  (``pscore_cascade``).

With n the number of slates, the estimate is ``Σ_rows w·r / n`` (OBP sums its round rewards
and divides by ``np.unique(slate_id).shape[0]``). The self-normalised ones (``SNSIPS``,
``SNIIPS``, ``SNRIPS``: OBP's ``SelfNormalizedSlate...``) divide each row's weight by the
mean weight of its position, ``w / mean_k(w)``, as OBP's
``BaseSlateSelfNormalizedInverseProbabilityWeighting`` does.

Standard errors are over slates, the unit OBP resamples: the sample standard deviation
(ddof 1) of each slate's sum ``Y_i = Σ_k w_ik·r_ik`` over √n; for the self-normalised ones
of the delta method's influence values ``ψ_i = Σ_k n_k·(r_ik − V_k)·w_ik / S_k`` (``S_k``,
``n_k``: the weights' sum and the rows' count at position k, ``V_k = Σ w·r / S_k``), which
for one position is SNIPW's. ``ess`` is Kish's (Σw)² / Σw² and ``max_weight`` the largest w,
over the rows' raw weights; ``n`` the number of slates. A self-normalised estimate whose
weights at some position are all 0 is null (OBP: NaN).

>>> slate_estimator("SlateIndependentIPS").name, slate_estimator("SNRIPS").propensity
('iips', 'pscore_cascade')
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from polars_rank.core.errors import PolarsRankError, bad_choice
from polars_rank.policy.bootstrap import Bootstrap, intervals

#: The propensity columns OBP's slate estimators read, in order.
PROPENSITIES = ("pscore", "pscore_item_position", "pscore_cascade")


@dataclass(frozen=True)
class SlateEstimator:
    """One slate estimator: its canonical name, OBP's class, the propensity it reads,
    whether it is self-normalised and its other names."""

    name: str
    obp: str
    propensity: str
    normalised: bool
    aliases: tuple[str, ...]


SLATE_ESTIMATORS: tuple[SlateEstimator, ...] = tuple(
    SlateEstimator(
        f"{'sn' * normalised}{short}",
        f"{'SelfNormalized' * normalised}{cls}",
        propensity,
        normalised,
        (f"{'SN' * normalised}{short.upper()}", f"{'SelfNormalized' * normalised}{cls}"),
    )
    for normalised in (False, True)
    for short, cls, propensity in (
        ("sips", "SlateStandardIPS", "pscore"),
        ("iips", "SlateIndependentIPS", "pscore_item_position"),
        ("rips", "SlateRewardInteractionIPS", "pscore_cascade"),
    )
)
_BY_NAME = {alias.lower(): est for est in SLATE_ESTIMATORS for alias in (est.name, *est.aliases)}


def slate_estimator(name: object) -> SlateEstimator:
    """The slate estimator named ``name`` (any case; OBP's class names too)."""
    found = _BY_NAME.get(name.lower()) if isinstance(name, str) else None
    if found is None:
        raise bad_choice("estimator", name, [e.aliases[0] for e in SLATE_ESTIMATORS])
    return found


def slate_specs(estimators: object) -> list[tuple[str, SlateEstimator]]:
    """``(label, estimator)`` per name as written, each estimator once."""
    names = [estimators] if isinstance(estimators, str) else list(estimators)  # type: ignore[call-overload]
    if not names:
        raise PolarsRankError("estimators: name at least one estimator, e.g. ['SIPS', 'IIPS']")
    specs = [(name, slate_estimator(name)) for name in names]
    if len({est.name for _, est in specs}) < len(specs):
        raise PolarsRankError(f"estimators {names} name one estimator twice")
    return specs


#: The columns of the joined rows :func:`estimate` reads: slate, position, reward and one
#: weight per propensity (``w_<propensity>``).
SLATE, POSITION, REWARD = "__pr_slate", "__pr_position", "__pr_reward"


def weight_column(propensity: str) -> str:
    return f"__pr_w_{propensity}"


def estimate(
    rows: pl.LazyFrame,
    specs: list[tuple[str, SlateEstimator]],
    by: list[str],
    bootstrap: Bootstrap | None = None,
) -> pl.DataFrame:
    """The Polars engine's estimates over joined rows (``by`` columns, :data:`SLATE`,
    :data:`POSITION`, :data:`REWARD` and the weights the estimators read): ``[by...,]
    estimator, estimate, standard_error, ess, max_weight, n``, one row per estimator per
    segment (segments sorted, nulls first; estimators in the order given); with
    ``bootstrap``, OBP's interval over the slates' sums of round rewards
    (:mod:`polars_rank.policy.bootstrap`) in three more columns."""
    r = pl.col(REWARD)
    sums = []
    at_position = [*by, POSITION]
    parts = []
    for order, (label, est) in enumerate(specs):
        w = pl.col(weight_column(est.propensity))
        if est.normalised:
            total = w.sum().over(at_position)
            count = pl.len().over(at_position).cast(pl.Float64)
            value = r * w * count / total
            influence = count * (r - (r * w).sum().over(at_position) / total) * w / total
            empty = total == 0
        else:
            value = influence = r * w
            empty = pl.lit(False)
        valued = rows.select(
            *by,
            SLATE,
            value.alias("v"),
            influence.alias("p"),
            w.alias("w"),
            empty.alias("e"),
        )
        slates = valued.group_by([*by, SLATE]).agg(
            pl.col("v").sum().alias("y"),
            pl.col("p").sum().alias("psi"),
            pl.col("w").sum().alias("sw"),
            (pl.col("w") * pl.col("w")).sum().alias("sww"),
            pl.col("w").max().alias("mw"),
            pl.col("e").any().alias("empty"),
        )
        if bootstrap is not None:
            # OBP resamples the slates in np.unique(slate_id)'s order: ids ascending
            ordered = slates.sort([*by, SLATE], nulls_last=False)
            sums.append(ordered.select(*by, estimator=pl.lit(label), value="y"))
        n = pl.len()
        spread = pl.col("psi") - pl.col("psi").mean()
        empty_segment = pl.col("empty").any()
        aggregates = [
            pl.when(empty_segment).then(None).otherwise(pl.col("y").sum() / n).alias("estimate"),
            pl.when(empty_segment | (n < 2))
            .then(None)
            .otherwise((spread * spread).sum() / (n - 1) / n)
            .sqrt()
            .alias("standard_error"),
            pl.when(pl.col("sww").sum() > 0)
            .then(pl.col("sw").sum() ** 2 / pl.col("sww").sum())
            .alias("ess"),
            pl.col("mw").max().alias("max_weight"),
            n.cast(pl.Int64).alias("n"),
        ]
        per_segment = slates.group_by(by).agg(aggregates) if by else slates.select(aggregates)
        parts.append(
            per_segment.with_columns(
                pl.lit(label).alias("estimator"), pl.lit(order).alias("__pr_order")
            )
        )
    out = pl.concat(parts).sort([*by, "__pr_order"], nulls_last=False).collect()
    columns = ["estimate", "standard_error", "ess", "max_weight"]
    out = out.select(*by, "estimator", *(pl.col(c).cast(pl.Float64) for c in columns), "n")
    if bootstrap is None:
        return out
    values = pl.concat(sums).collect()
    found = intervals(values, by, bootstrap)
    return out.join(found, on=[*by, "estimator"], how="left", nulls_equal=True)
