"""Shared by the slate off-policy tests: random slate logs in long format and the oracle,
OBP's slate ``estimate_policy_value`` re-implemented step for step with numpy.

The oracle follows obp/ope/estimators_slate.py of the Open Bandit Pipeline (st-tech/zr-obp,
``__version__`` 0.5.5; the slate estimators' code is that of the 0.5.x releases):

* ``BaseSlateInverseProbabilityWeighting._estimate_round_rewards``, lines 85-87:
  ``iw = evaluation_policy_pscore / behavior_policy_pscore``; ``return reward * iw``;
* ``SlateStandardIPS.estimate_policy_value`` (lines 203-211) and its IIPS and RIPS siblings:
  the round rewards' ``.sum() / np.unique(slate_id).shape[0]``, with ``pscore``,
  ``pscore_item_position`` or ``pscore_cascade`` as the behaviour propensity and the
  evaluation policy's of the same kind;
* ``BaseSlateSelfNormalizedInverseProbabilityWeighting._estimate_round_rewards``, lines
  951-957: ``for pos_ in range(self.len_list): idx = position == pos_``;
  ``iw[idx] = evaluation_policy_pscore[idx] / behavior_policy_pscore[idx]``;
  ``estimated_rewards[idx] = reward[idx] * iw[idx] / iw[idx].mean()``.

OBP gives no standard error nor effective sample size for slates: the oracle's are the
definitions of :func:`polars_rank.evaluate_slate_policy` written independently, over slates:
``np.std(Y, ddof=1) / √n`` of each slate's sum of round rewards; for the self-normalised ones
the delta method's √(gᵀ Σ g / n) over the per-position means of (w·r, w) of each slate, Σ
their sample covariance (``np.cov``, ddof 1); Kish's (Σw)² / Σw² over the rows.
"""

from __future__ import annotations

import numpy as np
import polars as pl

KINDS = {
    "SIPS": "pscore",
    "IIPS": "pscore_item_position",
    "RIPS": "pscore_cascade",
}
ALL = [*KINDS, *(f"SN{name}" for name in KINDS)]


def random_slates(seed: int, n: int = 300, len_list: int = 3) -> dict[str, object]:
    """``n`` logged slates of ``len_list`` slots over three days: binary rewards, the logging
    policy's three propensities in (0, 1], the evaluation policy's in [0, 1] (a tenth of
    them 0) with a twentieth of its slots left out of its table (propensity 0)."""
    rng = np.random.default_rng(seed)
    rows = n * len_list
    slate_id = np.repeat(np.arange(n), len_list)
    position = np.tile(np.arange(len_list), n)
    data: dict[str, object] = {
        "slate_id": slate_id,
        "position": position,
        "reward": rng.integers(0, 2, rows).astype(float),
        "day": np.repeat(rng.choice(["mon", "tue", "wed"], n), len_list),
        "len_list": len_list,
    }
    log = {"slate_id": slate_id, "position": position, "reward": data["reward"]}
    policy: dict[str, object] = {"slate_id": slate_id, "position": position}
    for kind in KINDS.values():
        behaviour = rng.uniform(0.05, 1.0, rows)
        evaluation = rng.uniform(0.0, 1.0, rows)
        evaluation[rng.random(rows) < 0.1] = 0.0
        data[kind] = behaviour
        data[f"e_{kind}"] = evaluation
        log[kind] = behaviour
        policy[kind] = evaluation
    kept = rng.random(rows) >= 0.05
    for kind in KINDS.values():
        data[f"e_{kind}"] = np.where(kept, data[f"e_{kind}"], 0.0)  # left out: propensity 0
    data["log"] = pl.DataFrame({**log, "day": data["day"]})
    data["policy"] = pl.DataFrame(policy).filter(pl.Series(kept))
    return data


def subset(data: dict[str, object], keep: np.ndarray) -> dict[str, object]:
    """The arrays of ``data`` at the rows ``keep``."""
    out = dict(data)
    for key, value in data.items():
        if isinstance(value, np.ndarray):
            out[key] = value[keep]
    return out


def round_rewards(name: str, data: dict[str, object]) -> tuple[np.ndarray, np.ndarray]:
    """OBP's ``_estimate_round_rewards`` of estimator ``name`` and its raw weights ``iw``
    (the lines of the module docstring, as written)."""
    normalised = name.startswith("SN")
    kind = KINDS[name.removeprefix("SN")]
    reward = np.asarray(data["reward"], dtype=float)
    position = np.asarray(data["position"])
    behaviour = np.asarray(data[kind], dtype=float)
    evaluation = np.asarray(data[f"e_{kind}"], dtype=float)
    if not normalised:
        iw = evaluation / behaviour
        return reward * iw, iw
    estimated_rewards = np.zeros_like(behaviour)
    iw = np.zeros_like(behaviour)
    for pos_ in range(int(data["len_list"])):  # type: ignore[call-overload]
        idx = position == pos_
        iw[idx] = evaluation[idx] / behaviour[idx]
        estimated_rewards[idx] = reward[idx] * iw[idx] / iw[idx].mean()
    return estimated_rewards, iw


def oracle(name: str, data: dict[str, object]) -> dict[str, float]:
    """OBP's estimate (see the module docstring) and the independent standard error, ESS,
    largest weight and number of slates of estimator ``name``."""
    normalised = name.startswith("SN")
    slate_id = np.asarray(data["slate_id"])
    reward = np.asarray(data["reward"], dtype=float)
    position = np.asarray(data["position"])
    slates = np.unique(slate_id)
    n = slates.shape[0]
    estimated_rewards, iw = round_rewards(name, data)
    estimate = estimated_rewards.sum() / n
    if not normalised:
        per_slate = np.array([estimated_rewards[slate_id == s].sum() for s in slates])
        standard_error = np.std(per_slate, ddof=1) / np.sqrt(n)
    else:
        # V = Σ_k n_k/n · mean_i(w·r at k) / mean_i(w at k): the delta method over the
        # slates' 2·len_list means (a slot a slate lacks counts 0)
        positions = np.unique(position)
        columns = []
        for pos_ in positions:
            idx = position == pos_
            wr = np.zeros(n)
            ww = np.zeros(n)
            where = np.searchsorted(slates, slate_id[idx])
            wr[where] = (iw * reward)[idx]
            ww[where] = iw[idx]
            columns += [wr, ww]
        means = np.array([c.mean() for c in columns])
        gradient = []
        for j, pos_ in enumerate(positions):
            share = (position == pos_).sum() / n
            a, b = means[2 * j], means[2 * j + 1]
            gradient += [share / b, -share * a / (b * b)]
        g = np.array(gradient)
        sigma = np.cov(np.vstack(columns), ddof=1)
        standard_error = np.sqrt(g @ sigma @ g / n)
    return {
        "estimate": float(estimate),
        "standard_error": float(standard_error),
        "ess": float(iw.sum() ** 2 / (iw * iw).sum()),
        "max_weight": float(iw.max()),
        "n": n,
    }


def slate_sums(name: str, data: dict[str, object]) -> np.ndarray:
    """OBP's ``_estimate_slate_confidence_interval_by_bootstrap`` samples (lines 122-127):
    ``for slate in np.unique(slate_id): estimated_rewards[slate_id == slate].sum()``."""
    slate_id = np.asarray(data["slate_id"])
    estimated_rewards, _ = round_rewards(name, data)
    return np.array([estimated_rewards[slate_id == s].sum() for s in np.unique(slate_id)])
