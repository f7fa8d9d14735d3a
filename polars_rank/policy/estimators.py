"""Off-policy estimators as Polars aggregations: the value of an evaluation policy π_e
estimated from a log collected by another policy π_b, defined as OBP 0.5's
``obp/ope/estimators.py`` defines them (Open Bandit Pipeline, ``estimate_policy_value``).

Each row of the frame an estimator aggregates is one logged decision i, already joined
(:func:`polars_rank.evaluate_policy` joins it): ``w`` the importance weight
π_e(a_i|x_i) / π_b(a_i|x_i), ``r`` the reward and, for the model-based estimators, ``q`` the
reward model's estimate q̂(x_i, a_i) of the logged action and ``dm`` its expectation under
the evaluation policy, q̂(x_i, π_e) = Σ_a π_e(a|x_i)·q̂(x_i, a) / Σ_a π_e(a|x_i) (OBP's
``np.average`` over the actions).

Each estimator gives four aggregate expressions: the ``estimate``, its ``standard_error``
(the sample standard deviation, ddof 1, of the per-decision values over √n; for the
self-normalised estimators of their delta-method influence values), ``ess`` (Kish's
effective sample size (Σω)² / Σω² of the weights ω the estimator applies; null for DM,
which applies none) and ``max_weight`` (the largest ω).

>>> import polars as pl
>>> df = pl.DataFrame({"w": [2.0, 0.0, 1.0], "r": [1.0, 1.0, 0.0]})
>>> df.select(**estimator_exprs("ipw", weight="w", reward="r")).row(0)
(0.6666666666666666, 0.6666666666666667, 1.8, 2.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import polars as pl

from polars_rank.core.errors import PolarsRankError

#: The output columns of every estimator, in order.
OUTPUTS = ("estimate", "standard_error", "ess", "max_weight")


@dataclass(frozen=True)
class Estimator:
    """One estimator: its canonical name, OBP's class and ``estimator_name``, whether it
    reads a reward model (``q_hat``), whether it is self-normalised, how ``lambda_`` acts on
    its weights (``"clip"``: min(w, λ); ``"switch"``: w·1{w ≤ λ}; None: not read), its
    formula and its other names."""

    name: str
    obp: str
    model: bool
    normalised: bool
    lambda_: str | None
    formula: str
    aliases: tuple[str, ...]


ESTIMATORS: tuple[Estimator, ...] = (
    Estimator(
        "ipw",
        "InverseProbabilityWeighting ('ipw')",
        model=False,
        normalised=False,
        lambda_="clip",
        formula="mean_i(min(w_i, λ)·r_i)",
        aliases=("IPW", "IPS", "ipw", "ips"),
    ),
    Estimator(
        "snipw",
        "SelfNormalizedInverseProbabilityWeighting ('snipw')",
        model=False,
        normalised=True,
        lambda_=None,
        formula="Σ_i w_i·r_i / Σ_i w_i",
        aliases=("SNIPW", "SNIPS", "snipw", "snips"),
    ),
    Estimator(
        "dm",
        "DirectMethod ('dm')",
        model=True,
        normalised=False,
        lambda_=None,
        formula="mean_i(q̂(x_i, π_e))",
        aliases=("DM", "dm"),
    ),
    Estimator(
        "dr",
        "DoublyRobust ('dr')",
        model=True,
        normalised=False,
        lambda_="clip",
        formula="mean_i(q̂(x_i, π_e) + min(w_i, λ)·(r_i − q̂(x_i, a_i)))",
        aliases=("DR", "dr"),
    ),
    Estimator(
        "sndr",
        "SelfNormalizedDoublyRobust ('sndr')",
        model=True,
        normalised=True,
        lambda_=None,
        formula="mean_i(q̂(x_i, π_e)) + Σ_i w_i·(r_i − q̂(x_i, a_i)) / Σ_i w_i",
        aliases=("SNDR", "sndr"),
    ),
    Estimator(
        "switch_dr",
        "SwitchDoublyRobust ('switch-dr')",
        model=True,
        normalised=False,
        lambda_="switch",
        formula="mean_i(q̂(x_i, π_e) + 1{w_i ≤ λ}·w_i·(r_i − q̂(x_i, a_i)))",
        aliases=("SwitchDR", "Switch-DR", "switch-dr", "switch_dr"),
    ),
)

_BY_NAME = {a.lower(): e for e in ESTIMATORS for a in (e.name, *e.aliases)}


def estimator(name: object) -> Estimator:
    """The estimator called ``name`` (any of its names, case-insensitively).

    >>> estimator("IPS").name, estimator("switch-dr").name
    ('ipw', 'switch_dr')
    """
    found = _BY_NAME.get(name.lower()) if isinstance(name, str) else None
    if found is None:
        known = ", ".join(e.aliases[0] for e in ESTIMATORS)
        raise PolarsRankError(f"unknown estimator {name!r}; the estimators are {known}")
    return found


def applied_weight(w: pl.Expr, rule: str | None, lambda_: float | None) -> pl.Expr:
    """The weight an estimator applies: ``w`` clipped at λ (``"clip"``, OBP's
    ``np.minimum(iw, lambda_)``) or zeroed above it (``"switch"``, OBP's
    ``iw <= lambda_`` indicator); ``w`` itself without λ or rule."""
    if lambda_ is None or math.isinf(lambda_) or rule is None:
        return w
    if rule == "clip":
        return pl.when(w > lambda_).then(pl.lit(lambda_)).otherwise(w)
    return pl.when(w <= lambda_).then(w).otherwise(pl.lit(0.0))


def _se(values: pl.Expr) -> pl.Expr:
    """std(values, ddof=1) / √n; null for fewer than two decisions."""
    return values.std(ddof=1) / pl.len().cast(pl.Float64).sqrt()


def _ess(omega: pl.Expr) -> pl.Expr:
    squares = (omega * omega).sum()
    return pl.when(squares > 0).then(omega.sum() ** 2 / squares)


def estimator_exprs(
    name: str,
    *,
    weight: str,
    reward: str,
    q: str | None = None,
    dm: str | None = None,
    lambda_: float | None = None,
) -> dict[str, pl.Expr]:
    """The four aggregate expressions (:data:`OUTPUTS`) of the estimator ``name`` over one
    row per logged decision: ``weight`` the raw importance weight w, ``reward`` r, ``q``
    q̂(x_i, a_i) and ``dm`` q̂(x_i, π_e) (both needed by the model-based estimators)."""
    est = estimator(name)
    w = pl.col(weight).cast(pl.Float64)
    r = pl.col(reward).cast(pl.Float64)
    if est.model:
        if q is None or dm is None:
            raise PolarsRankError(f"estimator {est.aliases[0]} needs q_hat")
        base = pl.col(dm).cast(pl.Float64)
        residual = r - pl.col(q).cast(pl.Float64)
    else:
        base, residual = pl.lit(0.0), r
    if est.name == "dm":
        return {
            "estimate": base.mean(),
            "standard_error": _se(base),
            "ess": pl.lit(None, pl.Float64),
            "max_weight": pl.lit(None, pl.Float64),
        }
    if est.normalised:
        total = w.sum()
        bias = (w * residual).sum() / total
        influence = base + w * (residual - bias) / (total / pl.len())
        return {
            "estimate": pl.when(total > 0).then(base.mean() + bias),
            "standard_error": pl.when(total > 0).then(_se(influence)),
            "ess": _ess(w),
            "max_weight": w.max(),
        }
    omega = applied_weight(w, est.lambda_, lambda_)
    values = base + omega * residual
    return {
        "estimate": values.mean(),
        "standard_error": _se(values),
        "ess": _ess(omega),
        "max_weight": omega.max(),
    }
