"""Off-policy estimators as portable SQL: :func:`policy_sql`, what
:func:`polars_rank.evaluate_policy` runs on DuckDB and Spark, printed for every dialect.

Two or three tables in (the log, the evaluation policy, the reward model's estimates), one
``SELECT`` out, one row per estimator (per ``by`` segment), the Polars engine's numbers
(OBP's, within 1e-12):

* the log is LEFT JOINed to the policy on (context, action): a logged action the policy
  does not list has probability 0 (a deterministic policy lists one action per context),
  so w = COALESCE(π_e, 0) / pscore;
* the model-based estimators read q̂(x_i, a_i) (a LEFT JOIN of the q̂ table) and
  q̂(x_i, π_e) = Σ_a π_e(a|x_i)·q̂(x_i, a) / Σ_a π_e(a|x_i), one aggregation of the policy
  joined to q̂ per context;
* one window pass gives each segment's n, Σw, Σw·e and Σ of each estimator's per-decision
  values, so that the standard errors sum squared deviations from the mean (never
  Σx² − (Σx)²/n, which loses digits); one aggregation per segment; every division is of
  DOUBLEs and guarded.

>>> sql = policy_sql(["IPS", "SNIPS"], "bigquery", "db.log", "db.policy")
>>> "FROM db.log" in sql, "'SNIPS'" in sql
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from polars_rank.compiler.columns import check_dotless, given_column
from polars_rank.compiler.dialects import RAW, render
from polars_rank.core.dialects import DialectName, get_dialect
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.identifiers import table_reference
from polars_rank.policy.estimators import OUTPUTS, Estimator, estimator

#: The placeholders of the tables and of their columns.
LOG, POLICY, QHAT = "pr_input_log", "pr_input_policy", "pr_input_qhat"
CONTEXT, ACTION, REWARD, PSCORE, PROBABILITY, Q = (
    "pr_col_context",
    "pr_col_action",
    "pr_col_reward",
    "pr_col_pscore",
    "pr_col_probability",
    "pr_col_qhat",
)
#: The output columns: the estimator's name as written, its four numbers and n.
COLUMNS = ("estimator", *OUTPUTS, "n")
_DOUBLE = "DOUBLE PRECISION"
_ZERO = f"CAST(0.0 AS {_DOUBLE})"


def _d(sql: str) -> str:
    return f"CAST({sql} AS {_DOUBLE})"


def policy_specs(estimators: Sequence[str] | str, has_q_hat: bool) -> list[tuple[str, Estimator]]:
    """``(label, estimator)`` per name as written: known names, each once, and ``q_hat``
    given when a model-based estimator (DM, DR, SNDR, SwitchDR) is asked for."""
    names = [estimators] if isinstance(estimators, str) else list(estimators)
    if not names:
        raise PolarsRankError("estimators: name at least one estimator, e.g. ['IPW', 'DR']")
    specs = [(name, estimator(name)) for name in names]
    labels = [label.lower() for label, _ in specs]
    if len(set(labels)) < len(labels):
        raise PolarsRankError(f"estimators {names} name one estimator twice")
    for label, est in specs:
        if est.model and not has_q_hat:
            raise PolarsRankError(
                f"estimator {label!r} reads a reward model: pass q_hat (a table of context, "
                "action, q_hat)"
            )
    return specs


def check_lambda(lambda_: object) -> float | None:
    """``lambda_`` checked (a number ≥ 0, not NaN, as OBP's ``check_scalar``); None for
    infinity (no clipping, OBP's default)."""
    if isinstance(lambda_, bool) or not isinstance(lambda_, int | float):
        raise PolarsRankError(f"lambda_ must be a number >= 0, got {lambda_!r}")
    if math.isnan(lambda_) or lambda_ < 0:
        raise PolarsRankError(f"lambda_ must be a number >= 0 (not NaN), got {lambda_!r}")
    return None if math.isinf(lambda_) else float(lambda_)


def _omega(rule: str | None, lambda_: float | None) -> str:
    if lambda_ is None or rule is None:
        return "pr_w"
    if rule == "clip":
        return f"CASE WHEN pr_w > {_d(repr(lambda_))} THEN {_d(repr(lambda_))} ELSE pr_w END"
    return f"CASE WHEN pr_w <= {_d(repr(lambda_))} THEN pr_w ELSE {_ZERO} END"


def _query(
    specs: list[tuple[str, Estimator]], segments: int, model: bool, lambda_: float | None
) -> str:
    keys = [k for i in range(segments) for k in (f"pr_b{i}v", f"pr_b{i}")]
    lead = "".join(f"{k}, " for k in keys)
    window = f"PARTITION BY {', '.join(keys)}" if keys else ""
    grouped = f" GROUP BY {', '.join(keys)}" if keys else ""
    segment_keys = "".join(
        f"{RAW}(pr_l.pr_col_b{i}) AS pr_b{i}v, pr_l.pr_col_b{i} AS pr_b{i}, "
        for i in range(segments)
    )
    on = "pr_l.{c} = {t}.{c} AND pr_l.{a} = {t}.{a}".replace("{c}", CONTEXT).replace("{a}", ACTION)
    ctes = []
    model_columns, model_joins = "", ""
    if model:
        ctes.append(
            f"pr_dm AS (SELECT pr_p.{CONTEXT} AS pr_ctx, "
            f"CASE WHEN SUM({_d(f'pr_p.{PROBABILITY}')}) > 0 THEN "
            f"SUM({_d(f'pr_p.{PROBABILITY}')} * COALESCE({_d(f'pr_q.{Q}')}, {_ZERO})) "
            f"/ SUM({_d(f'pr_p.{PROBABILITY}')}) END AS pr_v "
            f"FROM {POLICY} AS pr_p LEFT JOIN {QHAT} AS pr_q "
            f"ON pr_p.{CONTEXT} = pr_q.{CONTEXT} AND pr_p.{ACTION} = pr_q.{ACTION} "
            f"GROUP BY pr_p.{CONTEXT})"
        )
        model_columns = f", {_d(f'pr_q.{Q}')} AS pr_q, pr_d.pr_v AS pr_dm"
        model_joins = (
            f" LEFT JOIN {QHAT} AS pr_q ON {on.replace('{t}', 'pr_q')}"
            f" LEFT JOIN pr_dm AS pr_d ON pr_l.{CONTEXT} = pr_d.pr_ctx"
        )
    ctes.append(
        f"pr_rows AS (SELECT {segment_keys}"
        f"COALESCE({_d(f'pr_p.{PROBABILITY}')}, {_ZERO}) / {_d(f'pr_l.{PSCORE}')} AS pr_w, "
        f"{_d(f'pr_l.{REWARD}')} AS pr_r{model_columns} "
        f"FROM {LOG} AS pr_l LEFT JOIN {POLICY} AS pr_p ON {on.replace('{t}', 'pr_p')}"
        f"{model_joins})"
    )
    values, sums, aggregates = [], [], []
    for k, (_, est) in enumerate(specs):
        base = "pr_dm" if est.model else _ZERO
        residual = "(pr_r - pr_q)" if est.model else "pr_r"
        if est.normalised:
            # the delta method: the deviation of the influence value
            # base_i + w_i·(e_i − B)/w̄ from its mean, B = Σw·e / Σw, w̄ = Σw / n
            sums.append(f"SUM(pr_w * {residual}) OVER ({window}) AS pr_t{k}")
            centred = f"(pr_dm - pr_sdm / {_d('pr_n')})" if est.model else _ZERO
            bias = f"(CASE WHEN pr_tw > 0 THEN pr_t{k} / pr_tw END)"
            deviation = (
                f"CASE WHEN pr_tw > 0 THEN {centred} "
                f"+ pr_w * ({residual} - {bias}) / (pr_tw / {_d('pr_n')}) END"
            )
            aggregates += [
                f"CASE WHEN MAX(pr_tw) > 0 THEN SUM({base}) / {_d('COUNT(*)')} "
                f"+ MAX({bias}) END AS pr_e{k}",
                f"SUM(({deviation}) * ({deviation})) AS pr_ss{k}",
                f"SUM(pr_w) AS pr_sw{k}, SUM(pr_w * pr_w) AS pr_sww{k}, MAX(pr_w) AS pr_mw{k}",
            ]
            continue
        omega = _omega(est.lambda_, lambda_) if est.name != "dm" else _ZERO
        value = base if est.name == "dm" else f"{base} + ({omega}) * {residual}"
        values.append(f"{omega} AS pr_o{k}")
        values.append(f"{value} AS pr_v{k}")
        sums.append(f"SUM(pr_v{k}) OVER ({window}) AS pr_s{k}")
        deviation = f"(pr_v{k} - pr_s{k} / {_d('pr_n')})"
        weights = (
            f"SUM(pr_o{k}) AS pr_sw{k}, SUM(pr_o{k} * pr_o{k}) AS pr_sww{k}, "
            f"MAX(pr_o{k}) AS pr_mw{k}"
        )
        if est.name == "dm":
            weights = f"{_ZERO} AS pr_sw{k}, {_ZERO} AS pr_sww{k}, {_ZERO} AS pr_mw{k}"
        aggregates += [
            f"SUM(pr_v{k}) / {_d('COUNT(*)')} AS pr_e{k}",
            f"SUM({deviation} * {deviation}) AS pr_ss{k}",
            weights,
        ]
    dm_sum = f"SUM(pr_dm) OVER ({window})" if model else _ZERO
    extra = "".join(f"{v}, " for v in values)
    ctes.append(f"pr_values AS (SELECT pr_rows.*, {extra}{_ZERO} AS pr_none FROM pr_rows)")
    ctes.append(
        f"pr_windows AS (SELECT pr_values.*, COUNT(*) OVER ({window}) AS pr_n, "
        f"SUM(pr_w) OVER ({window}) AS pr_tw, {dm_sum} AS pr_sdm"
        f"{''.join(f', {s}' for s in sums)} FROM pr_values)"
    )
    ctes.append(
        f"pr_sums AS (SELECT {lead}COUNT(*) AS pr_count, {', '.join(aggregates)} "
        f"FROM pr_windows{grouped})"
    )
    outputs = [f"pr_b{i}v AS pr_col_bout{i}" for i in range(segments)]
    order_keys = [f"pr_b{i}v" for i in range(segments)]
    selects = []
    for k, (label, est) in enumerate(specs):
        none = f"CAST(NULL AS {_DOUBLE})"
        standard_error = (
            f"CASE WHEN pr_count >= 2 THEN SQRT(pr_ss{k} / {_d('(pr_count - 1)')}) "
            f"/ SQRT({_d('pr_count')}) END"
        )
        ess = f"CASE WHEN pr_sww{k} > 0 THEN pr_sw{k} * pr_sw{k} / pr_sww{k} END"
        columns = [
            *(f"{key}" for key in order_keys),
            f"'{label}' AS pr_out_estimator",
            f"{_d(f'pr_e{k}')} AS pr_out_estimate",
            f"{_d(standard_error)} AS pr_out_standard_error",
            f"{none if est.name == 'dm' else _d(ess)} AS pr_out_ess",
            f"{none if est.name == 'dm' else _d(f'pr_mw{k}')} AS pr_out_max_weight",
            "pr_count AS pr_out_n",
            f"{k} AS pr_ord",
        ]
        selects.append(f"SELECT {', '.join(columns)} FROM pr_sums")
    union = " UNION ALL ".join(selects)
    final = [*outputs, *(f"pr_out_{c}" for c in COLUMNS)]
    terms = [t for k in order_keys for t in (f"CASE WHEN {k} IS NULL THEN 0 ELSE 1 END", k)]
    order = f" ORDER BY {', '.join([*terms, 'pr_ord'])}"
    return f"WITH {', '.join(ctes)} SELECT {', '.join(final)} FROM ({union}) AS pr_all{order}"


def policy_by(by: str | Iterable[str] | None, roles: dict[str, str]) -> list[str]:
    """``by`` as a list of column names of the log, checked: non-empty names, distinct
    (case-insensitively), none an output column nor one of the log's ``roles`` (column
    name → its role: context, action, reward, pscore)."""
    segments = [by] if isinstance(by, str) else list(by or [])
    for column in segments:
        given_column("by", column)
        if column.lower() in COLUMNS:
            raise PolarsRankError(
                f"by column {column!r} has the name of an output column ({', '.join(COLUMNS)})"
            )
        role = {k.lower(): v for k, v in roles.items()}.get(column.lower())
        if role is not None:
            raise PolarsRankError(
                f"by column {column!r} is the log's {role} column: a segment column must be "
                "another column"
            )
    lowered = [c.lower() for c in segments]
    if len(set(lowered)) < len(lowered):
        raise PolarsRankError(f"the by columns {segments} must differ (case-insensitively)")
    return segments


def policy_sql(
    estimators: Sequence[str] | str,
    dialect: DialectName,
    log: str,
    policy: str,
    *,
    q_hat: str | None = None,
    context: str = "context",
    action: str = "action",
    reward: str = "reward",
    pscore: str = "pscore",
    probability: str = "probability",
    q_hat_column: str = "q_hat",
    by: str | Iterable[str] | None = None,
    lambda_: float = math.inf,
    pretty: bool = True,
) -> str:
    """One ``SELECT`` estimating the value of the evaluation ``policy`` from the ``log`` in
    ``dialect`` with OBP's ``estimators`` (``IPW``/``IPS``, ``SNIPW``/``SNIPS``, ``DM``,
    ``DR``, ``SNDR``, ``SwitchDR``): the ``by`` columns, then ``estimator, estimate,
    standard_error, ess, max_weight, n``, one row per estimator per ``by`` segment —
    :func:`polars_rank.evaluate_policy`'s numbers within 1e-12.

    Args:
        estimators: estimator names (:data:`polars_rank.policy.ESTIMATORS`).
        dialect: as :func:`~polars_rank.to_sql`.
        log: the table of ``context, action, reward, pscore`` (and the ``by`` columns), one
            row per logged decision, a table reference (``[catalog.][schema.]table``).
        policy: the table of ``context, action, probability``: the evaluation policy.
        q_hat: the table of ``context, action, q_hat``, the reward model's estimates (for
            DM, DR, SNDR, SwitchDR).
        context, action, reward, pscore, probability, q_hat_column: the column names.
        by: column(s) of the log whose values split it.
        lambda_: OBP's ``lambda_``: IPW and DR clip the weights at it, SwitchDR uses
            DM where a weight exceeds it (default infinity: neither).

    The query does not check its input (a pscore of 0 divides by zero, a context logged
    twice counts twice): :func:`polars_rank.evaluate_policy` checks it, on every engine.

    >>> print(policy_sql("IPW", "duckdb", "log", "pi").splitlines()[0])
    WITH pr_rows AS (
    """
    get_dialect(dialect)
    bound = check_lambda(lambda_)
    names = {
        CONTEXT: given_column("context", context),
        ACTION: given_column("action", action),
        REWARD: given_column("reward", reward),
        PSCORE: given_column("pscore", pscore),
        PROBABILITY: given_column("probability", probability),
    }
    if q_hat is not None:
        names[Q] = given_column("q_hat_column", q_hat_column)
    segments = policy_by(
        by, {context: "context", action: "action", reward: "reward", pscore: "pscore"}
    )
    for i, column in enumerate(segments):
        names[f"pr_col_b{i}"] = names[f"pr_col_bout{i}"] = column
    specs = policy_specs(estimators, q_hat is not None)
    check_dotless(names.values(), dialect)
    names.update({f"pr_out_{c}": c for c in COLUMNS})
    tables = {
        LOG: ("log", table_reference(log, "log", dialect)),
        POLICY: ("policy", table_reference(policy, "policy", dialect)),
    }
    if q_hat is not None:
        tables[QHAT] = ("q_hat", table_reference(q_hat, "q_hat", dialect))
    text = _query(specs, len(segments), q_hat is not None, bound)
    return render(text, dialect, tables, names, doc_key="pr_no_doc_key", pretty=pretty)
