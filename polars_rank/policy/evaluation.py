""":func:`evaluate_policy`, the entry point of off-policy evaluation: the arguments checked,
one :class:`~polars_rank.engines.request.PolicyRequest` built and the engine asked."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.core.types import EngineName, TableInput
from polars_rank.engines import registry


def evaluate_policy(
    log: TableInput,
    policy: TableInput,
    estimators: Sequence[str] | str = ("IPW", "SNIPW", "DR"),
    *,
    q_hat: TableInput | None = None,
    context: str = "context",
    action: str = "action",
    reward: str = "reward",
    pscore: str = "pscore",
    probability: str = "probability",
    q_hat_column: str = "q_hat",
    by: str | Iterable[str] | None = None,
    lambda_: float = math.inf,
    engine: EngineName = "polars",
    con: Any = None,
) -> pl.DataFrame:
    """Estimate the value of an evaluation policy from a log collected by another policy
    (off-policy evaluation), with the estimators of the Open Bandit Pipeline (OBP 0.5,
    ``obp.ope``), on every engine.

    With w_i = π_e(a_i|x_i) / π_b(a_i|x_i) the importance weight of logged decision i
    (π_b(a_i|x_i) its ``pscore``), q̂(x, a) the reward model and
    q̂(x, π_e) = Σ_a π_e(a|x)·q̂(x, a) / Σ_a π_e(a|x):

    * ``IPW`` (``IPS``): mean(min(w, λ)·r);
    * ``SNIPW`` (``SNIPS``): Σ w·r / Σ w;
    * ``DM``: mean(q̂(x, π_e));
    * ``DR``: mean(q̂(x, π_e) + min(w, λ)·(r − q̂(x, a)));
    * ``SNDR``: mean(q̂(x, π_e)) + Σ w·(r − q̂(x, a)) / Σ w;
    * ``SwitchDR``: mean(q̂(x, π_e) + 1{w ≤ λ}·w·(r − q̂(x, a))).

    Args:
        log: ``context, action, reward, pscore`` (and the ``by`` columns), one row per
            logged decision (``context`` its id): a Polars DataFrame or LazyFrame, a pandas
            DataFrame or a pyarrow Table (with ``engine="duckdb"`` also a table name or a
            relation).
        policy: ``context, action, probability``: the evaluation policy π_e. An action it
            does not list for a context has probability 0 (a deterministic policy lists one
            action per context); every logged context must be listed.
        estimators: estimator names (any case): ``IPW``/``IPS``, ``SNIPW``/``SNIPS``,
            ``DM``, ``DR``, ``SNDR``, ``SwitchDR`` (``switch-dr``); each row's
            ``estimator`` is the name as written.
        q_hat: ``context, action, q_hat``: the reward model's estimates, read by DM, DR,
            SNDR and SwitchDR for every logged action and every action the policy gives a
            positive probability.
        context, action, reward, pscore, probability, q_hat_column: the column names.
        by: column(s) of the log whose values split it (e.g. a day): one row per estimator
            per segment, sorted (nulls first).
        lambda_: OBP's ``lambda_``: IPW and DR clip each weight at λ, SwitchDR uses DM
            alone where w > λ (default infinity: neither); SNIPW and SNDR do not read it.
        engine: ``"polars"`` (one lazy plan), ``"duckdb"`` or ``"spark"`` (``con`` the
            SparkSession): both run the one query of :func:`polars_rank.policy_sql`, which
            prints it for every dialect.

    Checks, on every engine, each a :class:`PolarsRankError` naming the table and column: a
    pscore outside (0, 1]; a probability outside [0, 1]; a context whose probabilities do
    not sum to 1 within 1e-6 (the error lists them with their sums); a logged context
    missing from the policy; a context logged twice; a (context, action) twice in the
    policy or q_hat; a missing q_hat where one is read; NULL, NaN or infinite numbers.

    Returns:
        A DataFrame: the ``by`` columns, ``estimator``, ``estimate``, ``standard_error``
        (the sample standard deviation, ddof 1, of the per-decision values over √n; for
        SNIPW and SNDR the delta method's), ``ess`` (Kish's effective sample size
        (Σω)² / Σω² of the weights ω the estimator applies; null for DM), ``max_weight``
        (the largest ω; null for DM) and ``n`` (the logged decisions).

    Example:
        >>> import polars as pl, polars_rank as pr
        >>> log = pl.DataFrame({"context": [1, 2, 3, 4], "action": ["a", "b", "a", "b"],
        ...                     "reward": [1.0, 0.0, 0.0, 1.0],
        ...                     "pscore": [0.5, 0.5, 0.5, 0.5]})
        >>> policy = pl.DataFrame({"context": [1, 2, 3, 4], "action": ["a", "a", "a", "a"],
        ...                        "probability": [1.0, 1.0, 1.0, 1.0]})
        >>> pr.evaluate_policy(log, policy, ["IPS", "SNIPS"]).select(
        ...     "estimator", "estimate", "ess", "max_weight").rows()
        [('IPS', 0.5, 2.0, 2.0), ('SNIPS', 0.5, 2.0, 2.0)]
    """
    from polars_rank.compiler.policy import check_lambda, policy_specs
    from polars_rank.engines.request import PolicyRequest

    for what, value in (
        ("context", context),
        ("action", action),
        ("reward", reward),
        ("pscore", pscore),
        ("probability", probability),
        ("q_hat_column", q_hat_column),
    ):
        if not isinstance(value, str) or not value:
            raise PolarsRankError(f"{what} must be a column name, got {value!r}")
    segments = [] if by is None else [by] if isinstance(by, str) else list(by)
    for column in segments:
        if not isinstance(column, str) or not column.strip():
            raise PolarsRankError(f"by: column names are non-empty strings, got {column!r}")
    if len({c.lower() for c in segments}) < len(segments):
        raise PolarsRankError(f"the by columns {segments} must differ (case-insensitively)")
    request = PolicyRequest(
        log,
        policy,
        q_hat,
        policy_specs(estimators, q_hat is not None),
        context=context,
        action=action,
        reward=reward,
        pscore=pscore,
        probability=probability,
        q_hat_column=q_hat_column,
        by=segments,
        lambda_=check_lambda(lambda_),
        con=con,
    )
    return registry.engine(engine).evaluate_policy(request)
