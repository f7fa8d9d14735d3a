"""Classification metrics by name (:func:`polars_rank.evaluate_classification`): every entry of
the catalog's classification family against scikit-learn, per ``by`` segment, on both engines;
GAUC by hand; undefined values null; names of the other entry point refused; the entries
against their Polars functions and the macros of ``sql/classification.sql``."""

from __future__ import annotations

import inspect
import math
import re
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from sklearn.metrics import (
    accuracy_score,
    average_precision_score,
    brier_score_loss,
    confusion_matrix,
    f1_score,
    fbeta_score,
    log_loss,
    precision_score,
    recall_score,
    roc_auc_score,
)

import polars_rank as pr
from polars_rank.catalog.model import REQUIRED, TARGETS
from polars_rank.catalog.names import parse_metric
from polars_rank.catalog.registry import entries
from polars_rank.core.errors import PolarsRankError

ENGINES = ["polars", "duckdb"]
CLASSIFICATION = entries("classification")
SQL = Path(__file__).resolve().parents[2] / "sql" / "classification.sql"


def _counts(y: np.ndarray, p: np.ndarray, threshold: float) -> np.ndarray:
    """scikit-learn's ``confusion_matrix(...).ravel()``: tn, fp, fn, tp."""
    return confusion_matrix(y, (p >= threshold).astype(int), labels=[0, 1]).ravel()


def _predicted(p: np.ndarray, threshold: float) -> np.ndarray:
    return (p >= threshold).astype(int)


#: Canonical name → scikit-learn's value from (labels, scores, threshold, zero_division, beta).
SKLEARN = {
    "roc_auc": lambda y, p, t, z, b: roc_auc_score(y, p),
    "log_loss": lambda y, p, t, z, b: log_loss(y, p, labels=[0, 1]),
    "average_precision": lambda y, p, t, z, b: average_precision_score(y, p),
    "accuracy": lambda y, p, t, z, b: accuracy_score(y, _predicted(p, t)),
    "precision": lambda y, p, t, z, b: precision_score(y, _predicted(p, t), zero_division=z),
    "recall": lambda y, p, t, z, b: recall_score(y, _predicted(p, t), zero_division=z),
    "f1": lambda y, p, t, z, b: f1_score(y, _predicted(p, t), zero_division=z),
    "fbeta": lambda y, p, t, z, b: fbeta_score(y, _predicted(p, t), beta=b, zero_division=z),
    "specificity": lambda y, p, t, z, b: recall_score(
        y, _predicted(p, t), pos_label=0, zero_division=z
    ),
    "tn": lambda y, p, t, z, b: _counts(y, p, t)[0],
    "fp": lambda y, p, t, z, b: _counts(y, p, t)[1],
    "fn": lambda y, p, t, z, b: _counts(y, p, t)[2],
    "tp": lambda y, p, t, z, b: _counts(y, p, t)[3],
    "brier_score": lambda y, p, t, z, b: brier_score_loss(y, p, pos_label=1),
    # log loss over the log loss of always predicting the base rate (its entropy)
    "normalized_entropy": lambda y, p, t, z, b: (
        log_loss(y, p) / log_loss(y, np.full(len(y), y.mean()))
    ),
    # predicted over observed rate, by hand: sum of scores / number of positives
    "calibration": lambda y, p, t, z, b: float(np.sum(p)) / float(np.sum(y)),
}

#: The names evaluated: every entry's first name, and parameters set by name.
NAMES = [
    "AUC",
    "roc_auc",
    "LogLoss",
    "AP",
    "accuracy",
    "accuracy(threshold=0.3)",
    "precision",
    "precision(zero_division=1)",
    "recall",
    "F1",
    "F1(threshold=0.3,zero_division=1)",
    "Fbeta(beta=2)",
    "Fbeta(beta=0.5,threshold=0.7)",
    "F2",
    "specificity",
    "TP",
    "FP",
    "TN",
    "FN(threshold=0.7)",
    "Brier",
    "NE",
    "calibration",
]


@pytest.fixture(scope="module")
def predictions() -> pl.DataFrame:
    """Scores on a 1/10 grid (many ties) with three segments, a null segment, and a segment
    ``only_neg`` without positives, where nothing is predicted positive either (AUC and AP
    undefined, precision 0/0)."""
    rng = np.random.default_rng(11)
    n = 900
    segment = rng.choice(["a", "b", "c", None], n, p=[0.35, 0.3, 0.25, 0.1])
    label = (rng.random(n) < 0.35).astype(int)
    score = np.round(np.clip(0.3 * label + rng.normal(0.35, 0.25, n), 0, 1), 1)
    user = rng.integers(0, 40, n)
    frame = pl.DataFrame({"segment": segment, "user": user, "label": label, "score": score})
    only_neg = pl.DataFrame(
        {"segment": ["only_neg"] * 5, "user": [1, 1, 2, 2, 3], "label": [0] * 5,
         "score": [0.1, 0.2, 0.2, 0.3, 0.4]}
    )  # fmt: skip
    return pl.concat([frame, only_neg.cast(frame.schema)])


def _expected(name: str, part: pl.DataFrame, threshold: float = 0.5) -> float | None:
    """scikit-learn's value of a metric name on one segment (None where polars_rank's is null:
    AUC of one class, AP without positives)."""
    spec = parse_metric(name, scope="classification")
    args = spec.arguments()
    y, p = part["label"].to_numpy(), part["score"].to_numpy()
    one_class = y.min() == y.max()
    if spec.metric in ("roc_auc", "average_precision", "normalized_entropy") and one_class:
        return None  # scikit-learn: NaN (AUC) or 0.0 (AP) with a warning; NE: entropy 0
    if spec.metric == "calibration" and y.max() == 0:
        return None  # no positive: observed rate 0
    t = args.get("threshold", threshold) if "threshold" in dict(spec.params) else threshold
    value = SKLEARN[spec.metric](y, p, t, args.get("zero_division"), args.get("beta"))
    return float(value)


def _close(got: float | None, expected: float | None) -> bool:
    if expected is None:
        return got is None
    return got is not None and math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-12)


def test_every_entry_has_a_scikit_learn_reference() -> None:
    assert {e.name for e in CLASSIFICATION} == {*SKLEARN, "group_auc"}
    names = {parse_metric(n, scope="classification").metric for n in NAMES}
    assert names == set(SKLEARN)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_entry_matches_scikit_learn(predictions, engine) -> None:
    got = pr.evaluate_classification(predictions, NAMES, engine=engine)
    assert got.columns == NAMES and got.height == 1
    row = got.row(0, named=True)
    for name in NAMES:
        assert _close(row[name], _expected(name, predictions)), (name, row[name])


@pytest.mark.parametrize("engine", ENGINES)
def test_every_entry_matches_scikit_learn_per_segment(predictions, engine) -> None:
    got = pr.evaluate_classification(predictions, NAMES, by="segment", engine=engine)
    assert got.columns == ["segment", *NAMES]
    assert got["segment"].to_list() == [None, "a", "b", "c", "only_neg"]  # sorted, nulls first
    for row in got.iter_rows(named=True):
        part = predictions.filter(pl.col("segment").eq_missing(row["segment"]))
        for name in NAMES:
            assert _close(row[name], _expected(name, part)), (row["segment"], name, row[name])
    only_neg = got.row(4, named=True)
    assert only_neg["AUC"] is None and only_neg["AP"] is None  # null, never NaN
    assert only_neg["precision"] == 0.0 and only_neg["precision(zero_division=1)"] == 1.0


@pytest.mark.parametrize("threshold", [0.3, 0.65])
def test_the_threshold_applies_unless_the_name_sets_one(predictions, threshold) -> None:
    names = ["F1", "TP", "accuracy(threshold=0.3)", "AUC"]
    for engine in ENGINES:
        row = pr.evaluate_classification(
            predictions, names, threshold=threshold, engine=engine
        ).row(0, named=True)
        assert _close(row["F1"], _expected("F1", predictions, threshold))
        assert row["TP"] == _expected("TP", predictions, threshold)
        assert _close(
            row["accuracy(threshold=0.3)"], _expected("accuracy(threshold=0.3)", predictions)
        )
        assert _close(row["AUC"], _expected("AUC", predictions))


def test_the_engines_give_the_same_frame(predictions) -> None:
    names = [*NAMES, "GAUC", "GAUC(weight=uniform)"]
    for by in (None, "segment", ["segment", "user"]):
        frames = [
            pr.evaluate_classification(predictions, names, by=by, group="user", engine=engine)
            for engine in ENGINES
        ]
        assert frames[0].schema == frames[1].schema
        assert (
            frames[0]
            .select(pl.exclude(pl.Float64))
            .equals(frames[1].select(pl.exclude(pl.Float64)))
        )
        for name in frames[0].select(pl.col(pl.Float64)).columns:
            for a, b in zip(frames[0][name], frames[1][name], strict=True):
                assert _close(a, b), (by, name)


#: GAUC by hand: users 1 and 2 have both classes, user 3 only negatives.
GAUC_DATA = pl.DataFrame(
    {
        "day": ["mon"] * 5 + ["tue"] * 6,
        "user": [1, 1, 1, 3, 3, 1, 1, 2, 2, 2, 2],
        "label": [1, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0],
        "score": [0.8, 0.8, 0.3, 0.5, 0.9, 0.2, 0.6, 0.9, 0.4, 0.4, 0.1],
    }
)


@pytest.mark.parametrize("engine", ENGINES)
def test_gauc_by_hand(engine) -> None:
    # Whole table, groups = users:
    #   user 1: rows (1, .8) (0, .8) (0, .3) (1, .2) (0, .6) -> positives .8 and .2 against
    #     negatives .8 .3 .6: .8 vs (.8 tie 1/2, .3 win, .6 win) = 2.5; .2 vs all three = 0
    #     AUC_1 = 2.5 / 6 = 5/12, n_1 = 5
    #   user 2: positives .9 .4 against negatives .4 .1: .9 wins 2; .4 ties .4 (1/2), beats .1
    #     AUC_2 = 3.5 / 4 = 7/8, n_2 = 4
    #   user 3: negatives only: left out
    #   GAUC = (5 * 5/12 + 4 * 7/8) / (5 + 4) = (25/12 + 42/12) / 9 = 67/108
    #   uniform: (5/12 + 7/8) / 2 = (10/24 + 21/24) / 2 = 31/48
    names = ["GAUC", "GAUC(weight=uniform)"]
    (row,) = pr.evaluate_classification(GAUC_DATA, names, group="user", engine=engine).rows()
    assert _close(row[0], 67 / 108) and _close(row[1], 31 / 48)
    reference = pr.classification.group_auc(GAUC_DATA, "user", "label", "score")
    assert _close(row[0], reference["group_auc"].item())
    # Per day:
    #   mon: user 1 rows (1, .8) (0, .8) (0, .3): .8 vs (.8 tie, .3 win) = 1.5 / 2 = 3/4, n = 3;
    #        user 3 one class -> GAUC(mon) = 3/4
    #   tue: user 1 rows (1, .2) (0, .6): 0 / 1 = 0, n = 2; user 2: 7/8, n = 4
    #        GAUC(tue) = (2 * 0 + 4 * 7/8) / 6 = 3.5 / 6 = 7/12
    got = pr.evaluate_classification(GAUC_DATA, ["GAUC"], by="day", group="user", engine=engine)
    assert got["day"].to_list() == ["mon", "tue"]
    assert _close(got["GAUC"][0], 3 / 4) and _close(got["GAUC"][1], 7 / 12)
    # Groups of two columns (day, user): the same five groups with both classes as per day:
    #   (mon, 1) 3/4 n 3; (tue, 1) 0 n 2; (tue, 2) 7/8 n 4 -> (9/4 + 0 + 7/2) / 9 = 23/36
    both = pr.evaluate_classification(GAUC_DATA, ["GAUC"], group=["day", "user"], engine=engine)
    assert _close(both["GAUC"].item(), 23 / 36)


@pytest.mark.parametrize("engine", ENGINES)
def test_single_class_groups_give_null(engine) -> None:
    one_class = GAUC_DATA.filter(pl.col("user") == 3)  # negatives only
    got = pr.evaluate_classification(
        one_class, ["AUC", "AP", "GAUC", "TP", "LogLoss"], group="user", engine=engine
    ).row(0, named=True)
    assert got["AUC"] is None and got["AP"] is None and got["GAUC"] is None
    assert got["TP"] == 0 and got["LogLoss"] is not None
    per_user = pr.evaluate_classification(
        GAUC_DATA, ["AUC", "GAUC"], by="user", group="user", engine=engine
    )
    assert per_user.filter(pl.col("user") == 3).row(0) == (3, None, None)
    assert per_user.select(pl.col("AUC", "GAUC").is_nan().any()).row(0) == (False, False)


def test_no_rows(predictions) -> None:
    """No rows: one row of nulls (counts 0) without ``by``, no rows with ``by``."""
    empty = predictions.clear()
    names = ["AUC", "AP", "LogLoss", "accuracy", "precision", "TP", "GAUC"]
    for engine in ENGINES:
        got = pr.evaluate_classification(empty, names, group="user", engine=engine)
        assert got.row(0) == (None, None, None, None, 0.0, 0, None)
        assert got.schema["TP"] == pl.Int64
        got = pr.evaluate_classification(empty, names, by="segment", group="user", engine=engine)
        assert got.height == 0 and got.columns == ["segment", *names]


@pytest.mark.parametrize("engine", ENGINES)
def test_inputs_of_every_kind(predictions, engine) -> None:
    names = ["AUC", "F1", "TP"]
    expected = pr.evaluate_classification(predictions, names, by="segment", engine=engine)
    for data in (predictions.lazy(), predictions.to_pandas(), predictions.to_arrow()):
        got = pr.evaluate_classification(data, names, by="segment", engine=engine)
        assert isinstance(got, pl.DataFrame)
        assert got.drop("segment").equals(expected.drop("segment"))
    booleans = predictions.with_columns(pl.col("label").cast(pl.Boolean))
    assert pr.evaluate_classification(booleans, names, engine=engine).equals(
        pr.evaluate_classification(predictions, names, engine=engine)
    )
    renamed = predictions.rename({"label": "clicked", "score": "p"})
    got = pr.evaluate_classification(renamed, names, label="clicked", score="p", engine=engine)
    assert got.equals(pr.evaluate_classification(predictions, names, engine=engine))


def test_duckdb_reads_table_names_on_con(predictions, tmp_path) -> None:
    """``engine="duckdb"`` reads a table or view name on ``con`` as :func:`evaluate` does (a
    table reference only, in the schema ``con`` uses), a relation and a Parquet path: the
    numbers are scikit-learn's, per segment, as on the frame."""
    names = ["AUC", "F1", "LogLoss", "TP", "GAUC"]
    con = duckdb.connect()
    con.register("frame", predictions)
    con.execute("CREATE SCHEMA s; CREATE TABLE s.preds AS FROM frame; USE s")
    con.execute("CREATE TABLE main.preds AS FROM frame LIMIT 0")  # a decoy outside the USE
    con.unregister("frame")
    predictions.write_parquet(tmp_path / "preds.parquet")
    expected = pr.evaluate_classification(predictions, names, by="segment", group="user")
    for part in expected.iter_rows(named=True):
        rows = predictions.filter(pl.col("segment").eq_missing(part["segment"]))
        for name in ("AUC", "F1", "LogLoss", "TP"):
            assert _close(part[name], _expected(name, rows)), (part["segment"], name)
    sources = [
        "preds",
        "s.preds",
        '"s"."preds"',
        con.table("s.preds"),
        str(tmp_path / "preds.parquet"),
    ]
    for data in sources:
        for weight in (None, "user"):  # the macros, and the compiled SQL of sample weights
            kwargs = {"by": "segment", "group": "user", "weight": weight}
            got = pr.evaluate_classification(data, names, engine="duckdb", con=con, **kwargs)
            want = pr.evaluate_classification(predictions, names, **kwargs)
            assert got.columns == want.columns and got["segment"].equals(want["segment"])
            for name in names:
                for a, b in zip(got[name], want[name], strict=True):
                    assert _close(a, b), (data, weight, name)
    with pytest.raises(PolarsRankError, match="data 'nowhere' cannot be read by DuckDB"):
        pr.evaluate_classification("nowhere", names, engine="duckdb", con=con)
    with pytest.raises(PolarsRankError, match="data"):  # a table reference, never other SQL
        pr.evaluate_classification("preds; DROP TABLE s.preds", ["AUC"], engine="duckdb", con=con)
    assert con.sql("SELECT count(*) FROM s.preds").fetchall() == [(predictions.height,)]
    with pytest.raises(PolarsRankError, match="needs con"):
        pr.evaluate_classification("preds", ["AUC"], engine="duckdb")


def test_names_of_the_other_entry_point_are_refused(predictions) -> None:
    with pytest.raises(PolarsRankError) as err:
        pr.evaluate_classification(predictions, ["nDCG@10"])
    message = str(err.value)
    assert "ranking" in message and "evaluate / to_sql" in message
    assert "evaluate_classification" in message
    run = pl.DataFrame({"query": ["q1"], "doc": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["q1"], "doc": ["a"], "relevance": [1]})
    with pytest.raises(PolarsRankError) as err:
        pr.evaluate(run, qrels, ["AUC"])
    message = str(err.value)
    assert "classification" in message and "evaluate_classification" in message
    # the names both families use mean each family's metric at its own entry point
    assert parse_metric("AP").entry.family == "ranking"
    assert parse_metric("AP", scope="classification").entry.family == "classification"


@pytest.mark.parametrize("engine", ["sql:postgres", "pandas"])
def test_other_engines_are_refused(predictions, engine) -> None:
    """Every classification entry runs on every engine and dialect; an engine name that is
    none of them is refused, naming the engines and the SQL entry point."""
    assert all(e.engines() == list(TARGETS) for e in CLASSIFICATION)
    with pytest.raises(PolarsRankError) as err:
        pr.evaluate_classification(predictions, ["AUC"], engine=engine)
    message = str(err.value)
    assert repr(engine) in message and "'spark'" in message and "predictions=" in message


def test_input_errors(predictions) -> None:
    def error(data, names, **kwargs) -> str:
        with pytest.raises(PolarsRankError) as err:
            pr.evaluate_classification(data, names, **kwargs)
        return str(err.value)

    assert "column 'clicked' not found" in error(predictions, ["AUC"], label="clicked")
    assert "column 'day' not found" in error(predictions, ["AUC"], by="day")
    assert "column 'uid' not found" in error(predictions, ["GAUC"], group="uid")
    assert "group='user'" in error(predictions, ["GAUC"])
    assert "needs beta" in error(predictions, ["Fbeta"])
    bad = predictions.with_columns(pl.col("label") * 2)
    assert "label column 'label' must hold 0/1" in error(bad, ["AUC"])
    nan = predictions.with_columns(pl.when(pl.col("user") == 1).then(float("nan"))
                                   .otherwise(pl.col("score")).alias("score"))  # fmt: skip
    assert "NaN" in error(nan, ["AUC"])
    logits = predictions.with_columns(pl.col("score") * 4 - 2)
    message = error(logits, ["AUC", "LogLoss"])
    assert "LogLoss needs probabilities" in message and "'score'" in message
    assert pr.evaluate_classification(logits, ["AUC"]).item() is not None  # AUC takes any score
    assert "finite" in error(predictions, ["F1(threshold=inf)"])
    assert "zero_division must be 0, 1 or nan" in error(predictions, ["F1(zero_division=0.5)"])
    assert "finite" in error(predictions, ["F1(zero_division=inf)"])  # nan is scikit-learn's
    assert "finite" in error(predictions, ["F1"], threshold=float("nan"))
    assert "listed twice" in error(predictions, ["AUC", "AUC"])
    assert "takes no cutoff" in error(predictions, ["AUC@10"])
    clash = predictions.with_columns(pl.col("segment").alias("F1"))
    assert "by column 'F1' has the name of a metric ('F1'" in error(clash, ["AUC", "F1"], by="F1")


def test_aliases_parse_to_their_entries() -> None:
    for entry in CLASSIFICATION:
        for alias in entry.aliases:
            spec = parse_metric(alias.name, scope="classification")
            assert spec.entry is entry
            assert set(alias.fixed) <= set(spec.params)
    assert parse_metric("F2", scope="classification").arguments()["beta"] == 2.0
    assert parse_metric("roc_auc", scope="classification").metric == "roc_auc"


def _macro_headers() -> dict[str, str]:
    text = SQL.read_text(encoding="utf-8")
    found = re.findall(r"CREATE OR REPLACE MACRO (\"?\w+\"?)\((.*?)\)\s*AS", text, re.S)
    return {name.strip('"'): " ".join(params.split()) for name, params in found}


@pytest.mark.parametrize("entry", CLASSIFICATION, ids=lambda e: e.name)
def test_entries_describe_their_function_and_macro(entry) -> None:
    """The Polars function takes the entry's columns and parameters with its defaults (a
    frame-level function also its keyword-only ``by``); the macro's header in
    sql/classification.sql and DuckDB's list of its parameters are the entry's."""
    signature = inspect.signature(entry.polars)
    got = {
        name: (REQUIRED if p.default is inspect.Parameter.empty else p.default)
        for name, p in signature.parameters.items()
        if p.kind is not inspect.Parameter.KEYWORD_ONLY
    }
    assert got == dict(entry.parameters())
    assert _macro_headers()[entry.macro] == entry.sql_signature()
    con = pr.duckdb.register(duckdb.connect())
    rows = con.sql(
        "SELECT parameters FROM duckdb_functions() WHERE function_name = "
        f"'{entry.macro}' AND function_type IN ('macro', 'table_macro')"
    ).fetchall()
    assert rows[0][0] == [name for name, _ in entry.parameters()]
    assert entry.engines() == list(TARGETS)
    assert entry.table == "predictions" and entry.family == "classification"
    assert entry.reference and entry.formula


def test_counts_and_log_loss_describe_their_values() -> None:
    by_name = {e.name: e for e in CLASSIFICATION}
    for name in ("tp", "fp", "tn", "fn"):
        assert by_name[name].summary == "sum" and by_name[name].higher_is_better is None
        assert by_name[name].value_range == (0.0, math.inf)
    assert by_name["log_loss"].higher_is_better is False
    assert len({e.name for e in CLASSIFICATION}) == len(CLASSIFICATION)
