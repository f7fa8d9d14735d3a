"""Benchmark: off-policy evaluation, DR and SNIPW per day, one ``pr.evaluate_policy(...,
by="day")`` call against Open Bandit Pipeline's estimators in a per-day loop (issue 39).

Usage (from the repository root; OBP's source from its repository, since the ``obp`` wheel
pulls in torch, which its estimators never call):

    git clone https://github.com/st-tech/zr-obp /tmp/zr-obp
    uv run python bench/bench_policy.py --rows 10M --obp-source /tmp/zr-obp
    uv run python bench/bench_policy.py --rows 1M --obp-source /tmp/zr-obp --engines polars,duckdb

Data: ``rows`` logged decisions over ``actions`` actions and ``days`` days: a logging policy
with random propensities (the logged action's ``pscore``), binary rewards, a deterministic
evaluation policy (one row per context: the long table is ``rows`` rows), a reward model's
estimates for the logged and the evaluated action of each context (at most two rows per
context). OBP reads dense arrays: ``action_dist`` and ``estimated_rewards_by_reg_model`` of
shape (n, actions, 1), built from the same tables (timed apart: "build"). Its estimators are
``obp/ope/estimators.py`` of the source given (imported with ``obp/utils.py`` and
``obp/ope/helper.py`` only; ``torch`` is a stub there, which those files import but the
estimators never call). Prints one JSON line per variant: seconds (median of ``--repeat``)
and, for ours, the largest difference from OBP's per-day values.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

import polars_rank as pr


def parse_count(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1], 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def load_obp(source: Path) -> types.ModuleType:
    """``obp.ope.estimators`` from the repository at ``source``, without the package's
    ``__init__`` (which imports its torch models)."""
    torch = types.ModuleType("torch")
    torch.tensor = torch.Tensor = object  # type: ignore[attr-defined]
    sys.modules.setdefault("torch", torch)
    for name, path in (("obp", source / "obp"), ("obp.ope", source / "obp" / "ope")):
        package = types.ModuleType(name)
        package.__path__ = [str(path)]
        sys.modules[name] = package
    module = None
    for name, path in (
        ("obp.utils", source / "obp" / "utils.py"),
        ("obp.ope.helper", source / "obp" / "ope" / "helper.py"),
        ("obp.ope.estimators", source / "obp" / "ope" / "estimators.py"),
    ):
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    assert module is not None
    return module


def make_tables(rows: int, actions: int, days: int, seed: int = 0) -> dict[str, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    action = rng.integers(0, actions, rows, dtype=np.int32)
    pscore = rng.uniform(0.02, 0.2, rows)
    best = rng.integers(0, actions, rows, dtype=np.int32)
    reward = (rng.random(rows) < 0.2 + 0.3 * (action == best)).astype(np.float64)
    context = np.arange(rows, dtype=np.int64)
    log = pl.DataFrame(
        {
            "context": context,
            "action": action,
            "reward": reward,
            "pscore": pscore,
            "day": (context % days).astype(np.int32),
        }
    )
    policy = pl.DataFrame({"context": context, "action": best, "probability": 1.0})
    # the reward model: 0.5 for the evaluated action, 0.2 for the logged one (when it differs)
    q_hat = pl.concat(
        [
            policy.select("context", "action", q_hat=pl.lit(0.5)),
            log.select("context", "action", q_hat=pl.lit(0.2)).filter(pl.Series(action != best)),
        ]
    )
    return {"log": log, "policy": policy, "q_hat": q_hat}


def obp_arrays(tables: dict[str, pl.DataFrame], actions: int) -> dict[str, np.ndarray]:
    """OBP's inputs, dense, from the same tables (the log sorted by context)."""
    log = tables["log"].sort("context")
    n = log.height
    index = {name: log[name].to_numpy() for name in ("context", "action", "reward", "pscore")}
    action_dist = np.zeros((n, actions, 1))
    policy = tables["policy"].sort("context")
    action_dist[policy["context"].to_numpy(), policy["action"].to_numpy(), 0] = policy[
        "probability"
    ].to_numpy()
    q = np.zeros((n, actions, 1))
    model = tables["q_hat"]
    q[model["context"].to_numpy(), model["action"].to_numpy(), 0] = model["q_hat"].to_numpy()
    return {
        "reward": index["reward"],
        "action": index["action"].astype(np.int64),
        "pscore": index["pscore"],
        "position": np.zeros(n, dtype=np.int64),
        "action_dist": action_dist,
        "estimated_rewards_by_reg_model": q,
        "day": log["day"].to_numpy(),
    }


def obp_per_day(estimators: types.ModuleType, arrays: dict[str, np.ndarray]) -> dict:
    """OBP's DR and SNIPW, one call each per day (OBP has no segments)."""
    out = {}
    dr, snipw = estimators.DoublyRobust(), estimators.SelfNormalizedInverseProbabilityWeighting()
    for day in np.unique(arrays["day"]):
        mask = arrays["day"] == day
        part = {k: v[mask] for k, v in arrays.items() if k != "day"}
        out[(int(day), "DR")] = dr.estimate_policy_value(**part)
        del part["estimated_rewards_by_reg_model"]
        out[(int(day), "SNIPW")] = snipw.estimate_policy_value(**part)
    return out


def timed(function: Callable[[], object], repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="10M")
    parser.add_argument("--actions", type=int, default=20)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--engines", default="polars,duckdb")
    parser.add_argument("--obp-source", type=Path, required=True)
    args = parser.parse_args()
    rows = parse_count(args.rows)
    tables = make_tables(rows, args.actions, args.days)
    estimators = load_obp(args.obp_source)
    build, arrays = timed(lambda: obp_arrays(tables, args.actions), 1)
    assert isinstance(arrays, dict)
    dense: dict[str, np.ndarray] = arrays
    seconds, want = timed(lambda: obp_per_day(estimators, dense), args.repeat)
    assert isinstance(want, dict)
    common = {"rows": rows, "actions": args.actions, "days": args.days}
    line = {"variant": "obp_per_day_loop", **common, "build_s": build, "seconds": seconds}
    print(json.dumps(line), flush=True)
    arrays = dense = {}
    for engine in args.engines.split(","):

        def ours(engine: str = engine) -> pl.DataFrame:
            return pr.evaluate_policy(
                tables["log"],
                tables["policy"],
                ["DR", "SNIPW"],
                q_hat=tables["q_hat"],
                by="day",
                engine=engine,  # type: ignore[arg-type]
            )

        seconds, got = timed(ours, args.repeat)
        assert isinstance(got, pl.DataFrame)
        diff = max(
            abs(row["estimate"] - want[(row["day"], row["estimator"])])
            for row in got.iter_rows(named=True)
        )
        print(
            json.dumps(
                {
                    "variant": f"polars_rank_{engine}",
                    **common,
                    "seconds": seconds,
                    "max_abs_diff_vs_obp": diff,
                }
            )
        )


if __name__ == "__main__":
    main()
