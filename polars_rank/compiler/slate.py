"""Slate off-policy estimators as portable SQL: :func:`slate_policy_sql`, what
:func:`polars_rank.evaluate_slate_policy` runs on the engines that run SQL, printed for every
dialect (the definitions: :mod:`polars_rank.policy.slate`).

Two tables in (the slate log, the evaluation policy's propensities), one ``SELECT`` out, one
row per estimator (per ``by`` segment), the Polars engine's numbers within 1e-12:

* the log is LEFT JOINed to the policy on (slate, position): a slot the policy does not
  list has propensity 0, so w = COALESCE(π_e, 0) / π_b for each propensity read;
* one window pass per position (per segment) gives the self-normalised estimators' ``S_k``,
  ``n_k`` and ``Σ w·r``; the rows are summed per slate (``Y_i``, ``ψ_i``), then one window
  pass over the slates gives each segment's mean, so that the standard errors sum squared
  deviations from it; one aggregation per segment; every division is of DOUBLEs.

>>> sql = slate_policy_sql(["SIPS", "SNIIPS"], "bigquery", "db.slates", "db.new_ranker")
>>> "FROM db.slates" in sql, "'SNIIPS'" in sql
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from polars_rank.compiler.columns import check_dotless, given_column
from polars_rank.compiler.dialects import RAW, render
from polars_rank.compiler.policy import COLUMNS, policy_by
from polars_rank.core.dialects import DialectName, get_dialect
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.identifiers import table_reference
from polars_rank.policy.slate import PROPENSITIES, SlateEstimator, slate_specs

#: The placeholders of the tables and of their columns (the key columns are read as bytes).
LOG, POLICY = "pr_input_log", "pr_input_policy"
SLATE, POSITION, REWARD = "pr_col_context", "pr_col_action", "pr_col_reward"
_DOUBLE = "DOUBLE PRECISION"
_ZERO = f"CAST(0.0 AS {_DOUBLE})"
_NONE = f"CAST(NULL AS {_DOUBLE})"


def _d(sql: str) -> str:
    return f"CAST({sql} AS {_DOUBLE})"


def _placeholder(propensity: str) -> str:
    return f"pr_col_{propensity}"


def _query(specs: list[tuple[str, SlateEstimator]], segments: int) -> str:
    keys = [k for i in range(segments) for k in (f"pr_b{i}v", f"pr_b{i}")]
    lead = "".join(f"{k}, " for k in keys)
    by_segment = f"PARTITION BY {', '.join(keys)}" if keys else ""
    at_position = f"PARTITION BY {', '.join([*keys, 'pr_pos'])}"
    grouped = f" GROUP BY {', '.join(keys)}" if keys else ""
    used = [p for p in PROPENSITIES if any(est.propensity == p for _, est in specs)]
    segment_keys = "".join(
        f"{RAW}(pr_l.pr_col_b{i}) AS pr_b{i}v, pr_l.pr_col_b{i} AS pr_b{i}, "
        for i in range(segments)
    )
    weights = ", ".join(
        f"COALESCE({_d(f'pr_p.{_placeholder(p)}')}, {_ZERO}) / {_d(f'pr_l.{_placeholder(p)}')} "
        f"AS pr_w_{p}"
        for p in used
    )
    rows = (
        f"pr_rows AS (SELECT {segment_keys}pr_l.{SLATE} AS pr_slate, pr_l.{POSITION} AS pr_pos, "
        f"{_d(f'pr_l.{REWARD}')} AS pr_r, {weights} FROM {LOG} AS pr_l LEFT JOIN {POLICY} AS "
        f"pr_p ON pr_l.{SLATE} = pr_p.{SLATE} AND pr_l.{POSITION} = pr_p.{POSITION})"
    )
    normalised = [p for p in used if any(e.normalised and e.propensity == p for _, e in specs)]
    windows = "".join(
        f", SUM(pr_w_{p}) OVER ({at_position}) AS pr_s_{p}, "
        f"SUM(pr_w_{p} * pr_r) OVER ({at_position}) AS pr_t_{p}"
        for p in normalised
    )
    positions = (
        f"pr_positions AS (SELECT pr_rows.*, {_d(f'COUNT(*) OVER ({at_position})')} AS pr_nk"
        f"{windows} FROM pr_rows)"
    )
    per_slate = []
    for k, (_, est) in enumerate(specs):
        w, p = f"pr_w_{est.propensity}", est.propensity
        if est.normalised:
            value = f"CASE WHEN pr_s_{p} > 0 THEN pr_r * {w} * pr_nk / pr_s_{p} END"
            influence = (
                f"CASE WHEN pr_s_{p} > 0 THEN pr_nk * (pr_r - pr_t_{p} / pr_s_{p}) * {w} "
                f"/ pr_s_{p} END"
            )
            empty = f"MAX(CASE WHEN pr_s_{p} > 0 THEN 0 ELSE 1 END)"
        else:
            value = influence = f"pr_r * {w}"
            empty = "0"
        per_slate += [
            f"SUM({value}) AS pr_y{k}",
            f"SUM({influence}) AS pr_i{k}",
            f"{empty} AS pr_e{k}",
            f"SUM({w}) AS pr_sw{k}",
            f"SUM({w} * {w}) AS pr_sww{k}",
            f"MAX({w}) AS pr_mw{k}",
        ]
    slates = (
        f"pr_slates AS (SELECT {lead}{', '.join(per_slate)} FROM pr_positions "
        f"GROUP BY {', '.join([*keys, 'pr_slate'])})"
    )
    means = "".join(f", SUM(pr_i{k}) OVER ({by_segment}) AS pr_si{k}" for k in range(len(specs)))
    spread = (
        f"pr_spread AS (SELECT pr_slates.*, COUNT(*) OVER ({by_segment}) AS pr_n{means} "
        "FROM pr_slates)"
    )
    aggregates = []
    for k in range(len(specs)):
        deviation = f"(pr_i{k} - pr_si{k} / {_d('pr_n')})"
        aggregates += [
            f"MAX(pr_e{k}) AS pr_e{k}",
            f"SUM(pr_y{k}) / {_d('COUNT(*)')} AS pr_v{k}",
            f"SUM({deviation} * {deviation}) AS pr_ss{k}",
            f"SUM(pr_sw{k}) AS pr_sw{k}, SUM(pr_sww{k}) AS pr_sww{k}, MAX(pr_mw{k}) AS pr_mw{k}",
        ]
    sums = (
        f"pr_sums AS (SELECT {lead}COUNT(*) AS pr_count, {', '.join(aggregates)} "
        f"FROM pr_spread{grouped})"
    )
    order_keys = [f"pr_b{i}v" for i in range(segments)]
    selects = []
    for k, (label, _) in enumerate(specs):
        standard_error = (
            f"CASE WHEN pr_count >= 2 AND pr_e{k} = 0 THEN SQRT(pr_ss{k} / "
            f"{_d('(pr_count - 1)')}) / SQRT({_d('pr_count')}) END"
        )
        columns = [
            *order_keys,
            f"'{label}' AS pr_out_estimator",
            f"{_d(f'CASE WHEN pr_e{k} = 0 THEN pr_v{k} END')} AS pr_out_estimate",
            f"{_d(standard_error)} AS pr_out_standard_error",
            f"{_d(f'CASE WHEN pr_sww{k} > 0 THEN pr_sw{k} * pr_sw{k} / pr_sww{k} END')} "
            "AS pr_out_ess",
            f"{_d(f'pr_mw{k}')} AS pr_out_max_weight",
            "pr_count AS pr_out_n",
            f"{k} AS pr_ord",
        ]
        selects.append(f"SELECT {', '.join(columns)} FROM pr_sums")
    outputs = [f"pr_b{i}v AS pr_col_bout{i}" for i in range(segments)]
    final = [*outputs, *(f"pr_out_{c}" for c in COLUMNS)]
    terms = [t for k in order_keys for t in (f"CASE WHEN {k} IS NULL THEN 0 ELSE 1 END", k)]
    order = f" ORDER BY {', '.join([*terms, 'pr_ord'])}"
    union = " UNION ALL ".join(selects)
    ctes = ", ".join([rows, positions, slates, spread, sums])
    return f"WITH {ctes} SELECT {', '.join(final)} FROM ({union}) AS pr_all{order}"


def slate_policy_sql(
    estimators: Sequence[str] | str,
    dialect: DialectName,
    log: str,
    policy: str,
    *,
    slate: str = "slate_id",
    position: str = "position",
    reward: str = "reward",
    pscore: str = "pscore",
    pscore_item_position: str = "pscore_item_position",
    pscore_cascade: str = "pscore_cascade",
    by: str | Iterable[str] | None = None,
    pretty: bool = True,
) -> str:
    """One ``SELECT`` estimating the value of the evaluation ``policy`` from the slate
    ``log`` in ``dialect`` with OBP's slate ``estimators`` (``SIPS``, ``IIPS``, ``RIPS`` and
    the self-normalised ``SNSIPS``, ``SNIIPS``, ``SNRIPS``): the ``by`` columns, then
    ``estimator, estimate, standard_error, ess, max_weight, n``, one row per estimator per
    ``by`` segment — :func:`polars_rank.evaluate_slate_policy`'s numbers within 1e-12.

    Args:
        estimators: estimator names (:data:`polars_rank.policy.slate.SLATE_ESTIMATORS`).
        dialect: as :func:`~polars_rank.to_sql`.
        log: the table of ``slate_id, position, reward`` and the logging policy's
            propensities (and the ``by`` columns), one row per slot of a logged slate, a
            table reference (``[catalog.][schema.]table``).
        policy: the table of ``slate_id, position`` and the evaluation policy's propensities
            of the same slots (the propensity columns have the log's names).
        slate, position, reward: the column names.
        pscore, pscore_item_position, pscore_cascade: the propensity columns (SIPS reads
            the first, IIPS the second, RIPS the third).
        by: column(s) of the log whose values split it (constant within a slate).

    The query does not check its input (a propensity of 0 divides by zero, a slot logged
    twice counts twice): :func:`polars_rank.evaluate_slate_policy` checks it, on every engine.

    >>> print(slate_policy_sql("RIPS", "duckdb", "log", "pi").splitlines()[0])
    WITH pr_rows AS (
    """
    get_dialect(dialect)
    specs = slate_specs(estimators)
    given = dict(zip(PROPENSITIES, (pscore, pscore_item_position, pscore_cascade), strict=True))
    names = {
        SLATE: given_column("slate", slate),
        POSITION: given_column("position", position),
        REWARD: given_column("reward", reward),
    }
    used = {est.propensity for _, est in specs}
    names.update({_placeholder(p): given_column(p, c) for p, c in given.items() if p in used})
    roles = {slate: "slate", position: "position", reward: "reward"}
    roles.update({c: p for p, c in given.items() if p in used})
    segments = policy_by(by, roles)
    for i, column in enumerate(segments):
        names[f"pr_col_b{i}"] = names[f"pr_col_bout{i}"] = column
    if len({c.lower() for c in names.values()}) < len(names) - 2 * len(segments):
        raise PolarsRankError(
            f"the slate, position, reward and propensity columns {list(names.values())} "
            "must differ (case-insensitively)"
        )
    check_dotless(names.values(), dialect)
    names.update({f"pr_out_{c}": c for c in COLUMNS})
    tables = {
        LOG: ("log", table_reference(log, "log", dialect)),
        POLICY: ("policy", table_reference(policy, "policy", dialect)),
    }
    text = _query(specs, len(segments))
    return render(text, dialect, tables, names, doc_key="pr_no_doc_key", pretty=pretty)
