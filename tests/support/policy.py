"""Shared by the off-policy tests: random logs in long format and the oracle, OBP's
``estimate_policy_value`` re-implemented step for step with numpy.

The oracle follows obp/ope/estimators.py of the Open Bandit Pipeline (st-tech/zr-obp,
commit 8cbd5fa4558b7ad2ba4781546d6604e4cc3e07c4, ``__version__`` 0.5.5; the estimators'
code is that of the 0.5.x releases), with ``position`` all 0 (``len_list`` 1):

* IPW ``_estimate_round_rewards``, lines 334-338: ``iw = action_dist[np.arange(n), action,
  position] / pscore``; ``iw = np.minimum(iw, self.lambda_)``; ``return reward * iw``;
  ``estimate_policy_value`` returns its ``.mean()`` (line 407);
* SNIPW, lines 655-656: ``return reward * iw / iw.mean()`` (no clipping);
* DM, lines 737-741: ``np.average(q_hat_at_position, weights=pi_e_at_position, axis=1)``,
  ``.mean()`` (line 788);
* DR, lines 981-994: ``iw`` clipped as IPW's, then ``np.average(...)`` ``+= iw * (reward -
  q_hat_factual)``, ``.mean()`` (line 1075);
* SNDR, lines 1344-1353: ``+= iw * (reward - q_hat_factual) / iw.mean()`` (no clipping);
* SwitchDR, lines 1464-1474: ``switch_indicator = np.array(iw <= self.lambda_, dtype=int)``,
  ``+= switch_indicator * iw * (reward - q_hat_factual)``.

OBP gives no standard error (only a bootstrap interval), nor an effective sample size: the
oracle's are the definitions of :func:`polars_rank.evaluate_policy` written independently —
``np.std(round_rewards, ddof=1) / √n``; for SNIPW and SNDR the delta method's
√(gᵀ Σ g / n), Σ the sample covariance (``np.cov``, ddof 1) of (q̂(x, π_e), w·e, w) and g
the gradient of mean + ȳ/x̄; Kish's (Σω)² / Σω².
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

ALL = ["IPW", "SNIPW", "DM", "DR", "SNDR", "SwitchDR"]


def random_log(seed: int, n: int = 400, actions: int = 5) -> dict[str, object]:
    """A logged bandit feedback of ``n`` decisions over ``actions`` actions: a random
    behaviour policy, a random evaluation policy (a fifth of the contexts deterministic),
    rewards in [0, 1], a reward model; arrays in OBP's shapes and the long tables."""
    rng = np.random.default_rng(seed)
    behaviour = rng.dirichlet(np.ones(actions), size=n)
    action = np.array([rng.choice(actions, p=p) for p in behaviour])
    pscore = behaviour[np.arange(n), action]
    evaluation = rng.dirichlet(np.ones(actions) * 0.7, size=n)
    deterministic = rng.random(n) < 0.2
    best = evaluation.argmax(axis=1)
    evaluation[deterministic] = 0.0
    evaluation[deterministic, best[deterministic]] = 1.0
    reward = rng.binomial(1, 0.3 + 0.4 * (action % 2), n).astype(float)
    q_hat = rng.uniform(0, 1, size=(n, actions))
    context = np.array([f"x{i:04d}" for i in range(n)])
    names = np.array([f"a{k}" for k in range(actions)])
    log = pl.DataFrame(
        {
            "context": context,
            "action": names[action],
            "reward": reward,
            "pscore": pscore,
            "day": rng.choice(["mon", "tue", "wed"], n),
        }
    )
    rows = [(i, k) for i in range(n) for k in range(actions) if evaluation[i, k] > 0]
    policy = pl.DataFrame(
        {
            "context": [context[i] for i, _ in rows],
            "action": [names[k] for _, k in rows],
            "probability": [evaluation[i, k] for i, k in rows],
        }
    )
    model = pl.DataFrame(
        {
            "context": np.repeat(context, actions),
            "action": np.tile(names, n),
            "q_hat": q_hat.reshape(-1),
        }
    )
    return {
        "reward": reward,
        "action": action,
        "pscore": pscore,
        "action_dist": evaluation[:, :, np.newaxis],
        "estimated_rewards_by_reg_model": q_hat[:, :, np.newaxis],
        "day": log["day"].to_numpy(),
        "log": log,
        "policy": policy,
        "q_hat": model,
    }


def round_rewards(name: str, data: dict[str, np.ndarray], lambda_: float) -> np.ndarray:
    """OBP's ``_estimate_round_rewards`` of the estimator ``name`` (position 0)."""
    reward, action, pscore = data["reward"], data["action"], data["pscore"]
    action_dist = data["action_dist"]
    n = action.shape[0]
    position = np.zeros(n, dtype=int)
    iw = action_dist[np.arange(n), action, position] / pscore
    if name == "IPW":
        return reward * np.minimum(iw, lambda_)
    if name == "SNIPW":
        return reward * iw / iw.mean()
    q = data["estimated_rewards_by_reg_model"]
    q_hat_at_position = q[np.arange(n), :, position]
    q_hat_factual = q[np.arange(n), action, position]
    pi_e_at_position = action_dist[np.arange(n), :, position]
    estimated_rewards = np.average(q_hat_at_position, weights=pi_e_at_position, axis=1)
    if name == "DM":
        return estimated_rewards
    if name == "DR":
        estimated_rewards += np.minimum(iw, lambda_) * (reward - q_hat_factual)
    elif name == "SNDR":
        estimated_rewards += iw * (reward - q_hat_factual) / iw.mean()
    else:
        switch_indicator = np.array(iw <= lambda_, dtype=int)
        estimated_rewards += switch_indicator * iw * (reward - q_hat_factual)
    return estimated_rewards


def oracle(name: str, data: dict[str, np.ndarray], lambda_: float = np.inf) -> dict[str, float]:
    """estimate (OBP's ``estimate_policy_value``), standard_error, ess, max_weight, n."""
    rounds = round_rewards(name, data, lambda_)
    n = rounds.shape[0]
    action_dist = data["action_dist"]
    iw = action_dist[np.arange(n), data["action"], 0] / data["pscore"]
    out: dict[str, float] = {"estimate": float(rounds.mean()), "n": n}
    if name in ("SNIPW", "SNDR"):
        q = data["estimated_rewards_by_reg_model"]
        if name == "SNDR":
            dm = np.average(q[:, :, 0], weights=action_dist[:, :, 0], axis=1)
            residual = data["reward"] - q[np.arange(n), data["action"], 0]
        else:
            dm, residual = np.zeros(n), data["reward"]
        y, x = iw * residual, iw
        ratio = y.mean() / x.mean()
        gradient = np.array([1.0, 1.0 / x.mean(), -ratio / x.mean()])
        sigma = np.cov(np.vstack([dm, y, x]), ddof=1)
        out["standard_error"] = math.sqrt(gradient @ sigma @ gradient / n)
    else:
        out["standard_error"] = float(np.std(rounds, ddof=1) / math.sqrt(n))
    if name == "DM":
        out["ess"] = out["max_weight"] = math.nan
        return out
    omega = {
        "IPW": np.minimum(iw, lambda_),
        "DR": np.minimum(iw, lambda_),
        "SwitchDR": iw * (iw <= lambda_),
    }.get(name, iw)
    out["ess"] = float(omega.sum() ** 2 / (omega**2).sum())
    out["max_weight"] = float(omega.max())
    return out


def subset(data: dict[str, object], mask: np.ndarray) -> dict[str, np.ndarray]:
    """The OBP arrays of the decisions in ``mask``."""
    keys = ("reward", "action", "pscore", "action_dist", "estimated_rewards_by_reg_model")
    return {k: np.asarray(data[k])[mask] for k in keys}


def obp_bootstrap(
    samples: np.ndarray, alpha: float, n_bootstrap_samples: int, random_state: int | None
) -> tuple[float, float, float]:
    """OBP's ``estimate_confidence_interval_by_bootstrap`` (obp/utils.py, lines 77-87), as
    written: ``(mean, lower, upper)``."""
    boot_samples = []
    random_ = np.random.RandomState(random_state)  # check_random_state(int)
    for _ in np.arange(n_bootstrap_samples):
        boot_samples.append(np.mean(random_.choice(samples, size=samples.shape[0])))
    lower_bound = np.percentile(boot_samples, 100 * (alpha / 2))
    upper_bound = np.percentile(boot_samples, 100 * (1.0 - alpha / 2))
    return float(np.mean(boot_samples)), float(lower_bound), float(upper_bound)
