"""``evaluate_policy`` and ``policy_sql``: OBP's off-policy estimators on a log in long
format, equal to OBP's ``estimate_policy_value`` (re-implemented with numpy in
:mod:`tests.support.policy`) within 1e-12, on every engine and in every dialect."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
import sqlglot

import polars_rank as pr
from polars_rank.core.dialects import DIALECTS
from tests.support.policy import ALL, oracle, random_log, subset

COLUMNS = ["estimator", "estimate", "standard_error", "ess", "max_weight", "n"]


def _close(got: dict[str, object], want: dict[str, float], what: object) -> None:
    for column in ("estimate", "standard_error", "ess", "max_weight"):
        a, b = got[column], want[column]
        if math.isnan(b):
            assert a is None, (what, column)
        else:
            assert a == pytest.approx(b, rel=1e-12, abs=1e-12), (what, column)
    assert got["n"] == want["n"], what


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("lambda_", [math.inf, 2.0, 0.5])
def test_equals_obp(engine: str, lambda_: float) -> None:
    data = random_log(1)
    got = pr.evaluate_policy(
        data["log"], data["policy"], ALL, q_hat=data["q_hat"], lambda_=lambda_, engine=engine
    )
    assert got.columns == COLUMNS and got["estimator"].to_list() == ALL
    for row in got.iter_rows(named=True):
        _close(row, oracle(row["estimator"], data, lambda_), row["estimator"])  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_by_equals_obp_per_segment(engine: str) -> None:
    data = random_log(2)
    got = pr.evaluate_policy(
        data["log"],
        data["policy"],
        ALL,
        q_hat=data["q_hat"],
        by="day",
        lambda_=3.0,
        engine=engine,
    )
    assert got["day"].to_list() == [d for d in ("mon", "tue", "wed") for _ in ALL]
    day = np.asarray(data["day"])
    for row in got.iter_rows(named=True):
        want = oracle(row["estimator"], subset(data, day == row["day"]), 3.0)
        _close(row, want, (row["day"], row["estimator"]))


def test_aliases_give_the_same_values() -> None:
    data = random_log(3, n=120)
    names = ["IPS", "snips", "switch-dr", "Switch_DR"]
    got = pr.evaluate_policy(data["log"], data["policy"], names, q_hat=data["q_hat"])
    want = pr.evaluate_policy(
        data["log"], data["policy"], ["IPW", "SNIPW", "SwitchDR"], q_hat=data["q_hat"]
    )
    assert got["estimator"].to_list() == names
    same = pytest.approx(want["estimate"].to_list(), rel=1e-15)
    assert got["estimate"].to_list()[:3] == same
    assert got["estimate"][3] == pytest.approx(want["estimate"][2], rel=1e-15)


def _tiny() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    log = pl.DataFrame(
        {
            "context": ["c1", "c2", "c3"],
            "action": [0, 1, 0],
            "reward": [1.0, 0.0, 1.0],
            "pscore": [0.5, 0.25, 0.8],
        }
    )
    policy = pl.DataFrame(
        {
            "context": ["c1", "c1", "c2", "c3"],
            "action": [0, 1, 1, 1],
            "probability": [0.5, 0.5, 1.0, 1.0],
        }
    )
    q_hat = pl.DataFrame(
        {
            "context": ["c1", "c1", "c2", "c3", "c3"],
            "action": [0, 1, 1, 0, 1],
            "q_hat": [0.6, 0.2, 0.4, 0.5, 0.3],
        }
    )
    return log, policy, q_hat


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_tiny_example_by_hand(engine: str) -> None:
    # w = 0.5/0.5, 1/0.25, 0/0.8 = 1, 4, 0 (c3's logged action 0 is not in the policy)
    # IPW = (1·1 + 4·0 + 0·1)/3 = 1/3; SNIPW = 1/(1+4+0) = 0.2
    # q̂(x, π_e) = 0.5·0.6 + 0.5·0.2 = 0.4, 0.4, 0.3 → DM = 1.1/3
    # DR = DM + (1·(1 − 0.6) + 4·(0 − 0.4) + 0)/3 = (1.1 + 0.4 − 1.6)/3 = −0.1/3
    # with λ = 2: IPW weights 1, 2, 0 → IPW 1/3, DR = (1.1 + 0.4 − 0.8)/3 = 0.7/3;
    # SwitchDR drops w = 4 → (1.1 + 0.4)/3 = 0.5; ESS of 1, 2, 0 = 9/5, of 1, 0, 0 = 1
    log, policy, q_hat = _tiny()
    got = pr.evaluate_policy(log, policy, ["IPW", "SNIPW", "DM", "DR"], q_hat=q_hat, engine=engine)
    assert got["estimate"].to_list() == pytest.approx([1 / 3, 0.2, 1.1 / 3, -0.1 / 3], rel=1e-12)
    assert got["max_weight"].to_list() == [4.0, 4.0, None, 4.0]
    assert got["ess"][0] == pytest.approx(25 / 17, rel=1e-12)
    clipped = pr.evaluate_policy(
        log, policy, ["IPW", "DR", "SwitchDR"], q_hat=q_hat, lambda_=2, engine=engine
    )
    assert clipped["estimate"].to_list() == pytest.approx([1 / 3, 0.7 / 3, 0.5], rel=1e-12)
    assert clipped["ess"].to_list() == pytest.approx([9 / 5, 9 / 5, 1.0], rel=1e-12)
    assert clipped["max_weight"].to_list() == [2.0, 2.0, 1.0]
    # IPW's per-decision values 1, 0, 0: sd (ddof 1) = √(1/3), over √3: 1/3
    assert got["standard_error"][0] == pytest.approx(1 / 3, rel=1e-12)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"log": lambda t: t.with_columns(pscore=pl.Series([0.5, 0.0, 0.8]))},
            r"pscore' has 1 values outside \(0, 1\], e.g. 0.0 \(context 'c2'\)",
        ),
        ({"log": lambda t: t.with_columns(pscore=pl.Series([0.5, 1.2, 0.8]))}, r"outside \(0, 1\]"),
        (
            {"log": lambda t: t.with_columns(reward=pl.Series([1.0, None, 1.0]))},
            "'reward' has 1 NULL",
        ),
        (
            {"log": lambda t: t.with_columns(context=pl.Series(["c1", "c1", "c3"]))},
            "the log has 1 .* more than once, e.g. 'c1'",
        ),
        (
            {"policy": lambda t: t.with_columns(probability=pl.Series([0.5, 0.4, 1.0, 0.9]))},
            r"sum to 1 per context \(within 1e-06\); 2 contexts do not: 'c1': 0.9, 'c3': 0.9",
        ),
        (
            {"policy": lambda t: t.filter(pl.col("context") != "c2")},
            "1 logged contexts are missing from the policy .* e.g. 'c2'",
        ),
        (
            {"policy": lambda t: t.with_columns(probability=pl.Series([1.5, -0.5, 1.0, 1.0]))},
            r"outside \[0, 1\]",
        ),
        (
            {"q_hat": lambda t: t.filter(pl.col("context") != "c2")},
            r"1 \(context, action\) pairs lack a q_hat .* e.g. \('c2', 1\)",
        ),
        (
            {"q_hat": lambda t: t.with_columns(q_hat=pl.Series([0.1, None, 0.1, 0.1, 0.1]))},
            "q_hat column 'q_hat' has 1 NULL",
        ),
        (  # only the policy's other action of c1 (probability 0.5, never logged) lacks one
            {"q_hat": lambda t: t.filter(~((pl.col("context") == "c1") & (pl.col("action") == 1)))},
            r"1 \(context, action\) pairs lack a q_hat .* e.g. \('c1', 1\)",
        ),
        (  # only c3's logged action 0 (probability 0 under the policy) lacks one
            {"q_hat": lambda t: t.filter(~((pl.col("context") == "c3") & (pl.col("action") == 0)))},
            r"1 \(context, action\) pairs lack a q_hat .* e.g. \('c3', 0\)",
        ),
        (  # c1's action 0 listed twice, its probabilities still summing to 1
            {"policy": lambda t: t.with_columns(action=pl.Series([0, 0, 1, 1]))},
            r"the policy has 1 \(context, action\) keys more than once, e.g. \('c1', 0\)",
        ),
        (
            {"policy": lambda t: t.with_columns(action=pl.Series([0, None, 1, 1]))},
            "policy column 'action' has 1 NULL values",
        ),
        (  # a NULL context whose probabilities sum to 1: the NULL is named first
            {"policy": lambda t: t.with_columns(context=pl.Series(["c1", "c1", "c2", None]))},
            "policy column 'context' has 1 NULL values",
        ),
        (
            {"policy": lambda t: t.with_columns(action=pl.col("action").cast(pl.String))},
            "differ in type",
        ),
    ],
)
def test_bad_inputs_are_refused_by_name(engine: str, change: dict, message: str) -> None:
    tables = dict(zip(("log", "policy", "q_hat"), _tiny(), strict=True))
    tables = {k: change.get(k, lambda t: t)(v) for k, v in tables.items()}
    with pytest.raises(pr.PolarsRankError, match=message):
        pr.evaluate_policy(
            tables["log"], tables["policy"], ["IPW", "DR"], q_hat=tables["q_hat"], engine=engine
        )


def test_arguments_are_checked() -> None:
    log, policy, _ = _tiny()
    with pytest.raises(pr.PolarsRankError, match="'DR' reads a reward model: pass q_hat"):
        pr.evaluate_policy(log, policy, ["IPW", "DR"])
    with pytest.raises(pr.PolarsRankError, match="unknown estimator 'MIPS'"):
        pr.evaluate_policy(log, policy, ["MIPS"])
    with pytest.raises(pr.PolarsRankError, match="name one estimator twice"):
        pr.evaluate_policy(log, policy, ["IPS", "ips"])
    for bad in (-1.0, math.nan, "2"):
        with pytest.raises(pr.PolarsRankError, match="lambda_ must be a number"):
            pr.evaluate_policy(log, policy, ["IPW"], lambda_=bad)  # type: ignore[arg-type]
    with pytest.raises(pr.PolarsRankError, match="output column"):
        pr.policy_sql("IPW", "duckdb", "log", "pi", by="estimate")
    with pytest.raises(pr.PolarsRankError, match="'Action' is the log's action column"):
        pr.evaluate_policy(log, policy, ["IPW"], by="Action")
    with pytest.raises(pr.PolarsRankError, match="must differ"):
        pr.policy_sql("IPW", "duckdb", "log", "pi", by=["day", "DAY"])


@pytest.mark.parametrize("dialect", DIALECTS)
def test_policy_sql_prints_every_dialect(dialect: str) -> None:
    sql = pr.policy_sql(ALL, dialect, "db.log", "db.policy", q_hat="db.q", by="day", lambda_=5)
    assert sqlglot.parse_one(sql, read=dialect) is not None
    assert sql.upper().count("UNION ALL") == len(ALL) - 1 and "'SwitchDR'" in sql


@pytest.mark.parametrize("collation", ["nocase", "noaccent"])
def test_ids_join_as_bytes_under_any_default_collation(collation: str) -> None:
    """Contexts ``c`` and ``C``, actions ``é`` and ``e`` are different ids: a case- or
    accent-blind join would give context c the probability of C's row too (and find each
    logged action twice). By hand: c logs é with pscore 0.5, π_e(é|c) = 0.25 → w 0.5; C
    logs e with pscore 0.5, π_e(e|C) = 1 → w 2; rewards 1, 1: IPW = (0.5 + 2)/2 = 1.25."""
    import duckdb

    log = pl.DataFrame(
        {"context": ["c", "C"], "action": ["é", "e"], "reward": [1.0, 1.0], "pscore": [0.5, 0.5]}
    )
    policy = pl.DataFrame(
        {"context": ["c", "c", "C"], "action": ["é", "e", "e"], "probability": [0.25, 0.75, 1.0]}
    )
    con = duckdb.connect()
    con.execute(f"SET default_collation = '{collation}'")
    got = pr.evaluate_policy(log, policy, ["IPW"], engine="duckdb", con=con)
    assert got["estimate"].item() == 1.25
    assert got.rows() == pr.evaluate_policy(log, policy, ["IPW"]).rows()


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_null_segments_and_integer_ids(engine: str) -> None:
    """Integer contexts and actions (joined as their decimal text in SQL) and a NULL ``by``
    value, its segment first. By hand, IPW: segment NULL holds context 1 (w = 1/0.5 = 2,
    r = 1): 2; segment 7 holds contexts 2 and 10 (w = 0.5/0.5 = 1 and 0/0.25 = 0, r = 1, 1):
    0.5."""
    log = pl.DataFrame(
        {
            "context": [1, 2, 10],
            "action": [3, 3, 4],
            "reward": [1.0, 1.0, 1.0],
            "pscore": [0.5, 0.5, 0.25],
            "week": [None, 7, 7],
        }
    )
    policy = pl.DataFrame(
        {"context": [1, 2, 2, 10], "action": [3, 3, 4, 3], "probability": [1.0, 0.5, 0.5, 1.0]}
    )
    got = pr.evaluate_policy(log, policy, ["IPW", "SNIPW"], by="week", engine=engine)
    assert got.select("week", "estimator", "estimate", "n").rows() == [
        (None, "IPW", 2.0, 1),
        (None, "SNIPW", 1.0, 1),
        (7, "IPW", 0.5, 2),
        (7, "SNIPW", 1.0, 2),
    ]
    assert got["standard_error"][0] is None  # one decision: no sample deviation
    assert got.schema["week"] == pl.Int64


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_segment_without_weight(engine: str) -> None:
    """Segment ``b`` logs only actions the policy never takes: every w is 0, so IPW is 0
    (OBP's mean of zeros) and SNIPW, a ratio over Σw = 0, is null (OBP: NaN); ESS is null
    (Σω² = 0) and the largest weight 0."""
    log = pl.DataFrame(
        {
            "context": ["x", "y", "z"],
            "action": ["a", "b", "b"],
            "reward": [1.0, 1.0, 0.0],
            "pscore": [0.5, 0.5, 0.5],
            "seg": ["a", "b", "b"],
        }
    )
    policy = pl.DataFrame(
        {"context": ["x", "y", "z"], "action": ["a", "a", "a"], "probability": [1.0] * 3}
    )
    got = pr.evaluate_policy(log, policy, ["IPW", "SNIPW"], by="seg", engine=engine)
    rows = (
        got.filter(pl.col("seg") == "b")
        .select("estimate", "standard_error", "ess", "max_weight")
        .rows()
    )
    assert rows == [(0.0, 0.0, None, 0.0), (None, None, None, 0.0)]
