"""Writes the OBP fixtures of tests/policy/test_obp_datasets.py: OBP's own synthetic data sets
and OBP's own estimates of them, computed by Open Bandit Pipeline's source.

Run from the repository root with a clone of OBP (st-tech/zr-obp; the ``obp`` wheel pulls in
torch, which neither the data sets nor the estimators call, so the modules are loaded from
the source with ``torch`` stubbed):

    git clone https://github.com/st-tech/zr-obp /tmp/zr-obp
    uv run python tests/data/obp/make_fixtures.py /tmp/zr-obp

It writes, next to itself: ``bandit_{log,policy,q_hat}.parquet`` (SyntheticBanditDataset,
2,000 rounds, 10 actions, with an evaluation policy and a reward model), ``slate_{log,
policy}.parquet`` (SyntheticSlateBanditDataset, 600 slates of 3 slots over 8 items) and
``expected.json``: OBP's ``estimate_policy_value`` of every estimator (bandit: λ = ∞ and 5)
and its ``estimate_interval`` (1,000 resamples, ``random_state`` 7), with the OBP commit.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent


def _load(source: Path) -> dict[str, types.ModuleType]:
    torch = types.ModuleType("torch")
    torch.tensor = torch.Tensor = object  # type: ignore[attr-defined]
    sys.modules.setdefault("torch", torch)
    for name in ("obp", "obp.ope", "obp.dataset"):
        package = types.ModuleType(name)
        package.__path__ = [str(source / Path(*name.split(".")))]
        sys.modules[name] = package
    loaded = {}
    for name in (
        "obp.types",
        "obp.utils",
        "obp.dataset.base",
        "obp.dataset.reward_type",
        "obp.dataset.synthetic",
        "obp.dataset.synthetic_slate",
        "obp.ope.helper",
        "obp.ope.estimators",
        "obp.ope.estimators_slate",
    ):
        path = source / Path(*name.split(".")).with_suffix(".py")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        loaded[name] = module
    return loaded


def _bandit(obp: dict[str, types.ModuleType]) -> dict[str, object]:
    synthetic = obp["obp.dataset.synthetic"]
    estimators = obp["obp.ope.estimators"]
    dataset = synthetic.SyntheticBanditDataset(
        n_actions=10, dim_context=5, reward_type="binary", random_state=12345
    )
    feedback = dataset.obtain_batch_bandit_feedback(n_rounds=2000)
    n, k = feedback["n_rounds"], feedback["n_actions"]
    # the evaluation policy: softmax of the true expected reward ×4; a noisy reward model
    logits = 4.0 * feedback["expected_reward"]
    action_dist = np.exp(logits - logits.max(axis=1, keepdims=True))
    action_dist /= action_dist.sum(axis=1, keepdims=True)
    action_dist = action_dist[:, :, np.newaxis]
    rng = np.random.default_rng(3)
    q_hat = np.clip(feedback["expected_reward"] + rng.normal(0, 0.05, (n, k)), 0, 1)
    q_hat = q_hat[:, :, np.newaxis]
    context = np.arange(n)
    log = pl.DataFrame(
        {
            "context": context,
            "action": feedback["action"],
            "reward": feedback["reward"].astype(float),
            "pscore": feedback["pscore"],
        }
    )
    policy = pl.DataFrame(
        {
            "context": np.repeat(context, k),
            "action": np.tile(np.arange(k), n),
            "probability": action_dist[:, :, 0].ravel(),
        }
    )
    model = policy.select("context", "action").with_columns(q_hat=pl.Series(q_hat[:, :, 0].ravel()))
    inputs = {
        "reward": feedback["reward"],
        "action": feedback["action"],
        "pscore": feedback["pscore"],
        "position": feedback["position"],
        "action_dist": action_dist,
        "estimated_rewards_by_reg_model": q_hat,
    }
    expected: dict[str, object] = {}
    for lambda_ in (np.inf, 5.0):
        classes = {
            "IPW": estimators.InverseProbabilityWeighting(lambda_=lambda_),
            "SNIPW": estimators.SelfNormalizedInverseProbabilityWeighting(),
            "DM": estimators.DirectMethod(),
            "DR": estimators.DoublyRobust(lambda_=lambda_),
            "SNDR": estimators.SelfNormalizedDoublyRobust(),
            "SwitchDR": estimators.SwitchDoublyRobust(lambda_=lambda_),
        }
        for name, estimator in classes.items():
            key = f"{name}|{'inf' if np.isinf(lambda_) else lambda_}"
            interval = estimator.estimate_interval(
                **inputs, alpha=0.05, n_bootstrap_samples=1000, random_state=7
            )
            expected[key] = {
                "estimate": float(estimator.estimate_policy_value(**inputs)),
                "interval": [float(v) for v in interval.values()],
            }
    log.write_parquet(HERE / "bandit_log.parquet")
    policy.write_parquet(HERE / "bandit_policy.parquet")
    model.write_parquet(HERE / "bandit_q_hat.parquet")
    return expected


def _slates(obp: dict[str, types.ModuleType]) -> dict[str, object]:
    synthetic = obp["obp.dataset.synthetic_slate"]
    estimators = obp["obp.ope.estimators_slate"]
    dataset = synthetic.SyntheticSlateBanditDataset(
        n_unique_action=8,
        len_list=3,
        dim_context=2,
        reward_type="binary",
        reward_structure="cascade_additive",
        click_model=None,
        random_state=12345,
        behavior_policy_function=synthetic.linear_behavior_policy_logit,
    )
    feedback = dataset.obtain_batch_bandit_feedback(n_rounds=600, return_pscore_item_position=True)
    rng = np.random.default_rng(4)
    logit = rng.normal(size=(600, 8))
    pscores = dataset.obtain_pscore_given_evaluation_policy_logit(
        action=feedback["action"],
        evaluation_policy_logit_=logit,
        return_pscore_item_position=True,
    )
    names = ("pscore", "pscore_item_position", "pscore_cascade")
    evaluation = dict(zip(names, pscores, strict=True))
    log = pl.DataFrame(
        {
            "slate_id": feedback["slate_id"],
            "position": feedback["position"],
            "reward": feedback["reward"].astype(float),
            "pscore": feedback["pscore"],
            "pscore_item_position": feedback["pscore_item_position"],
            "pscore_cascade": feedback["pscore_cascade"],
        }
    )
    policy = log.select("slate_id", "position").with_columns(
        **{name: pl.Series(values) for name, values in evaluation.items()}
    )
    common = {
        "slate_id": feedback["slate_id"],
        "reward": feedback["reward"],
        "position": feedback["position"],
    }
    expected: dict[str, object] = {}
    for prefix, cls_names in (
        ("", ("SlateStandardIPS", "SlateIndependentIPS", "SlateRewardInteractionIPS")),
        (
            "SN",
            (
                "SelfNormalizedSlateStandardIPS",
                "SelfNormalizedSlateIndependentIPS",
                "SelfNormalizedSlateRewardInteractionIPS",
            ),
        ),
    ):
        for short, kind, cls_name in zip(
            ("SIPS", "IIPS", "RIPS"),
            ("pscore", "pscore_item_position", "pscore_cascade"),
            cls_names,
            strict=True,
        ):
            estimator = getattr(estimators, cls_name)(len_list=3)
            arguments = {
                **common,
                kind: feedback[kind],
                f"evaluation_policy_{kind}": evaluation[kind],
            }
            interval = estimator.estimate_interval(
                **arguments, alpha=0.05, n_bootstrap_samples=1000, random_state=7
            )
            expected[f"{prefix}{short}"] = {
                "estimate": float(estimator.estimate_policy_value(**arguments)),
                "interval": [float(v) for v in interval.values()],
            }
    log.write_parquet(HERE / "slate_log.parquet")
    policy.write_parquet(HERE / "slate_policy.parquet")
    return expected


def main() -> None:
    source = Path(sys.argv[1]).resolve()
    obp = _load(source)
    commit = subprocess.run(
        ["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    expected = {
        "obp_commit": commit,
        "obp_version": (source / "obp" / "version.py").read_text().split('"')[1],
        "bandit": _bandit(obp),
        "slate": _slates(obp),
    }
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
