"""Classification in the portable SQL (``to_sql(..., predictions=)``, ``curve_sql``,
``check_sql(predictions=)``), with sample weights, and on the engines: every metric per
segment against scikit-learn (with ``sample_weight``) within 1e-12 — on DuckDB for every
dialect (transpiled back by sqlglot), on a live PostgreSQL server and in Spark — on data with
tied scores, tiny GAUC groups, single-class and all-null segments."""

from __future__ import annotations

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
    precision_recall_curve,
    precision_score,
    recall_score,
    roc_auc_score,
    roc_curve,
)

import polars_rank as pr
from polars_rank.compiler import DIALECTS
from polars_rank.compiler.columns import column_names
from polars_rank.core.errors import PolarsRankError
from tests.support.sql_cases import to_duckdb
from tests.support.strategies import fast_first

TOLERANCE = 1e-12
METRICS = [
    "AUC",
    "AP",
    "LogLoss",
    "Brier",
    "NE",
    "calibration",
    "accuracy",
    "precision(threshold=0.3)",
    "recall",
    "F1(zero_division=1)",
    "Fbeta(beta=2,threshold=0.7)",
    "specificity",
    "TP",
    "FP",
    "TN",
    "FN",
    "GAUC",
    "GAUC(weight=uniform)",
]


def predictions(n: int = 240, seed: int = 0) -> pl.DataFrame:
    """Segments 0-3 with tied scores (tenths), users with 1-4 rows (tiny GAUC groups), weights
    0.5-2; segment 3 has only negatives, segment 4 only positives, segment 5 only null
    labels; a few null labels and scores elsewhere."""
    rng = np.random.default_rng(seed)
    seg = rng.integers(0, 4, n)
    label = rng.integers(0, 2, n).astype(float)
    label[seg == 3] = 0.0
    score = rng.integers(0, 11, n) / 10
    frame = pl.DataFrame(
        {
            "seg": seg,
            "user": rng.integers(0, n // 3, n),
            "label": label,
            "score": score,
            "w": rng.integers(1, 5, n) / 2,
        }
    )
    extra = pl.DataFrame(
        {
            "seg": [4, 4, 4, 5, 5, 0, 1],
            "user": [1, 1, 2, 3, 3, 4, 5],
            "label": [1.0, 1.0, 1.0, None, None, None, 1.0],
            "score": [0.2, 0.9, 0.9, 0.5, 0.1, 0.3, None],
            "w": [1.0, 2.0, 0.5, 1.0, 1.0, 1.0, 1.0],
        }
    )
    return pl.concat([frame, extra]).with_columns(pl.col("label").cast(pl.Int64))


def _gauc(y, p, w, user, uniform: bool) -> float | None:
    values, sizes = [], []
    for u in np.unique(user):
        mask = user == u
        if len(np.unique(y[mask])) == 2:
            values.append(roc_auc_score(y[mask], p[mask], sample_weight=w[mask]))
            sizes.append(w[mask].sum())
    if not values:
        return None
    if uniform:
        return float(np.mean(values))
    return float(np.dot(values, sizes) / np.sum(sizes))


def reference(frame: pl.DataFrame, weighted: bool) -> dict[tuple[int, str], float | None]:
    """scikit-learn's value of every metric of :data:`METRICS` per segment (None where the
    Polars engine's convention is null: one class for AUC/NE, no positive for AP and
    calibration, no row)."""
    out: dict[tuple[int, str], float | None] = {}
    for (seg,), part in frame.group_by("seg"):
        kept = part.drop_nulls(["label", "score"])
        y = kept["label"].to_numpy()
        p = kept["score"].to_numpy()
        w = kept["w"].to_numpy() if weighted else np.ones(len(y))
        user = kept["user"].to_numpy()
        classes = len(np.unique(y))
        has_pos = bool((y == 1).any())

        def at(t: float, p: np.ndarray = p) -> np.ndarray:
            return (p >= t).astype(int)

        values: dict[str, float | None] = {}
        if len(y) == 0:
            values = {m: None for m in METRICS}
            for count in ("TP", "FP", "TN", "FN"):
                values[count] = 0.0
            for m in ("precision(threshold=0.3)", "recall", "specificity"):
                values[m] = 0.0
            values["F1(zero_division=1)"] = 1.0
            values["Fbeta(beta=2,threshold=0.7)"] = 0.0
        else:
            rate = float(np.dot(w, y) / w.sum())
            tn, fp, fn, tp = confusion_matrix(y, at(0.5), labels=[0, 1], sample_weight=w).ravel()
            values = {
                "AUC": roc_auc_score(y, p, sample_weight=w) if classes == 2 else None,
                "AP": average_precision_score(y, p, sample_weight=w) if has_pos else None,
                "LogLoss": log_loss(y, p, sample_weight=w, labels=[0, 1]),
                "Brier": brier_score_loss(y, p, sample_weight=w, pos_label=1),
                "NE": log_loss(y, p, sample_weight=w)
                / log_loss(y, np.full(len(y), rate), sample_weight=w)
                if classes == 2
                else None,
                "calibration": float(np.dot(w, p) / np.dot(w, y)) if has_pos else None,
                "accuracy": accuracy_score(y, at(0.5), sample_weight=w),
                "precision(threshold=0.3)": precision_score(
                    y, at(0.3), sample_weight=w, zero_division=0
                ),
                "recall": recall_score(y, at(0.5), sample_weight=w, zero_division=0),
                "F1(zero_division=1)": f1_score(y, at(0.5), sample_weight=w, zero_division=1),
                "Fbeta(beta=2,threshold=0.7)": fbeta_score(
                    y, at(0.7), beta=2, sample_weight=w, zero_division=0
                ),
                "specificity": recall_score(
                    y, at(0.5), pos_label=0, sample_weight=w, zero_division=0
                ),
                "TP": tp,
                "FP": fp,
                "TN": tn,
                "FN": fn,
                "GAUC": _gauc(y, p, w, user, uniform=False),
                "GAUC(weight=uniform)": _gauc(y, p, w, user, uniform=True),
            }
        for metric, value in values.items():
            out[(int(seg), metric)] = None if value is None else float(value)
    return out


def assert_matches(result: pl.DataFrame, expected: dict, labels: dict[str, str]) -> None:
    """``result`` (a ``seg`` column and a column per metric, named ``labels[metric]``) equals
    the reference per segment within 1e-12, nulls where it has None."""
    assert sorted(result["seg"].to_list()) == sorted({s for s, _ in expected})
    for row in result.iter_rows(named=True):
        for metric, column in labels.items():
            want, got = expected[(int(row["seg"]), metric)], row[column]
            if want is None:
                assert got is None, (row["seg"], metric, got)
            else:
                assert got is not None and abs(got - want) <= TOLERANCE * max(1, abs(want)), (
                    row["seg"],
                    metric,
                    got,
                    want,
                )


def _duckdb_run(sql: str, dialect: str, frame: pl.DataFrame) -> pl.DataFrame:
    con = duckdb.connect()
    con.register("preds_t", frame)
    if dialect != "duckdb":
        sql = to_duckdb(sql, dialect)
    result = con.sql(sql).pl()
    return result.rename(str.lower) if dialect == "snowflake" else result


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("dialect", fast_first(list(DIALECTS)))
def test_every_dialect_through_duckdb_equals_sklearn(dialect, weighted):
    frame = predictions()
    sql = pr.to_sql(
        METRICS,
        dialect,
        predictions="preds_t",
        by="seg",
        group="user",
        weight="w" if weighted else None,
    )
    result = _duckdb_run(sql, dialect, frame)
    assert result.columns[0] == "seg"
    assert result["seg"].to_list() == sorted(result["seg"].to_list())  # sorted segments
    assert_matches(result, reference(frame, weighted), column_names(METRICS, reserved=["seg"]))


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_engines_equal_sklearn(engine, weighted):
    frame = predictions(seed=1)
    result = pr.evaluate_classification(
        frame, METRICS, by="seg", group="user", weight="w" if weighted else None, engine=engine
    )
    assert_matches(result, reference(frame, weighted), {m: m for m in METRICS})


def test_null_segment_key_and_no_by():
    """A NULL segment key is a segment of its own, first; without ``by`` one row."""
    frame = predictions(seed=2).with_columns(
        pl.when(pl.col("seg") == 2).then(None).otherwise(pl.col("seg")).alias("seg")
    )
    sql = pr.to_sql(["AUC", "TP"], "duckdb", predictions="preds_t", by="seg")
    result = _duckdb_run(sql, "duckdb", frame)
    expected = pr.evaluate_classification(frame, ["AUC", "TP"], by="seg")
    assert result["seg"].to_list() == expected["seg"].to_list() and result["seg"][0] is None
    got, want = result["auc"].to_numpy(), expected["AUC"].to_numpy()
    assert np.allclose(got, want, rtol=1e-12, equal_nan=True)
    whole = _duckdb_run(pr.to_sql(["AUC"], "duckdb", predictions="preds_t"), "duckdb", frame)
    kept = frame.drop_nulls(["label", "score"])
    assert whole.shape == (1, 1)
    assert abs(whole.item() - roc_auc_score(kept["label"], kept["score"])) < TOLERANCE


def test_empty_table_gives_the_polars_engine_values():
    frame = predictions().head(0)
    metrics = ["AUC", "TP", "accuracy", "precision"]
    result = _duckdb_run(pr.to_sql(metrics, "duckdb", predictions="preds_t"), "duckdb", frame)
    assert result.row(0) == (None, 0.0, None, 0.0)
    assert pr.evaluate_classification(frame, metrics).row(0) == (None, 0, None, 0.0)
    for engine in ("polars", "duckdb"):  # weighted: counts are sums of weights
        weighted = pr.evaluate_classification(frame, metrics, weight="w", engine=engine)
        assert weighted.row(0) == (None, 0.0, None, 0.0)


def _sklearn_curve(kind: str, y, p, w, drop: bool) -> list[tuple]:
    if kind == "roc":
        fpr, tpr, thresholds = roc_curve(y, p, sample_weight=w, drop_intermediate=drop)
        return list(zip(thresholds, fpr, tpr, strict=True))
    precision, recall, thresholds = precision_recall_curve(
        y, p, sample_weight=w, drop_intermediate=drop
    )
    return list(zip([*thresholds, None], precision, recall, strict=True))


def _same_points(got: list[tuple], want: list[tuple]) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        for x, y in zip(a, b, strict=True):
            if y is None or x is None:
                assert x is None and y is None
            elif np.isinf(y):
                assert np.isinf(x) and x > 0
            else:
                assert abs(x - y) <= TOLERANCE, (a, b)


@pytest.mark.parametrize("drop", [False, True], ids=["all points", "drop_intermediate"])
@pytest.mark.parametrize("kind", ["roc", "pr"])
@pytest.mark.parametrize("dialect", fast_first(list(DIALECTS)))
def test_curves_equal_sklearn(dialect, kind, drop):
    frame = predictions(seed=3).filter(pl.col("seg") < 3)  # both classes in every segment
    sql = pr.curve_sql(kind, dialect, "preds_t", by="seg", weight="w", drop_intermediate=drop)
    result = _duckdb_run(sql, dialect, frame)
    columns = ["threshold", "fpr", "tpr"] if kind == "roc" else ["threshold", "precision", "recall"]
    assert result.columns == ["seg", *columns]
    for (seg,), part in frame.drop_nulls(["label", "score"]).group_by("seg"):
        got = result.filter(pl.col("seg") == seg).select(columns).rows()
        want = _sklearn_curve(
            kind, part["label"].to_numpy(), part["score"].to_numpy(), part["w"].to_numpy(), drop
        )
        _same_points(got, want)


def test_curves_equal_the_polars_curves_unweighted():
    frame = predictions(seed=4)
    for kind, function in (("roc", pr.classification.roc_curve),
                           ("pr", pr.classification.precision_recall_curve)):  # fmt: skip
        sql = pr.curve_sql(kind, "duckdb", "preds_t", by="seg")
        got = _duckdb_run(sql, "duckdb", frame)
        want = function(frame, "label", "score", by="seg")
        assert got.columns == want.columns and got.height == want.height
        for a, b in zip(got.rows(), want.rows(), strict=True):
            for x, y in zip(a, b, strict=True):
                assert (x is None and y is None) or x == y or abs(x - y) <= TOLERANCE


def test_check_sql_predictions_on_duckdb():
    frame = pl.DataFrame(
        {
            "label": [1, 0, 2, None, 1],
            "score": [0.5, float("nan"), 1.5, 0.2, None],
            "w": [1.0, -1.0, None, 2.0, 1.0],
        }
    )
    con = duckdb.connect()
    con.register("preds_t", frame)
    rows = con.sql(pr.check_sql("duckdb", predictions="preds_t", weight="w")).fetchall()
    found = {row[1]: (row[2], row[3]) for row in rows}
    assert found == {
        "null_label": (1, None),
        "null_score": (1, None),
        "bad_label": (1, "2"),
        "bad_score": (1, "nan"),
        "score_outside_0_1": (1, "1.5"),
        "null_weight": (1, None),
        "bad_weight": (1, "-1.0"),
    }
    auc_only = con.sql(pr.check_sql("duckdb", predictions="preds_t", metrics=["AUC"])).fetchall()
    assert "score_outside_0_1" not in {row[1] for row in auc_only}
    con.register("clean", frame.drop_nulls().filter(pl.col("label") < 2, pl.col("w") > 0))
    assert con.sql(pr.check_sql("duckdb", predictions="clean", weight="w")).fetchall() == []


def test_errors():
    def error(**kwargs) -> str:
        with pytest.raises(PolarsRankError) as err:
            pr.to_sql(**kwargs)
        return str(err.value)

    base = {"dialect": "duckdb", "predictions": "t"}
    assert "one family per call" in error(metrics=["AUC"], run="r", qrels="q", **base)
    assert "one family per call" in error(metrics=["AUC", "nDCG@10"], **base)
    assert "curve_sql" in error(metrics=["AUC", "roc_curve"], **base)
    assert "group='user'" in error(metrics=["GAUC"], **base)
    assert "needs beta" in error(metrics=["Fbeta"], **base)
    assert "finite" in error(metrics=["F1"], threshold=float("inf"), **base)
    assert "predictions=" in error(metrics=["AUC"], dialect="duckdb")
    assert "predictions=" in error(metrics=["nDCG@10"], dialect="duckdb", run="r", group="x")
    assert "predictions=" in error(metrics=["nDCG@10"], dialect="duckdb", run="r", weight="w")
    assert "predictions=" in error(metrics=["nDCG@10"], dialect="duckdb", run="r", label="y")
    assert "predictions=" in error(metrics=["P@5"], dialect="duckdb", run="r", threshold=0.3)
    # ranking options are refused with predictions=, never silently ignored
    assert "per_query=" in error(metrics=["AUC"], per_query=True, **base)
    assert "layout=" in error(metrics=["AUC"], layout="long", **base)
    assert "max_rank=" in error(metrics=["AUC"], max_rank=10, **base)
    with pytest.raises(PolarsRankError, match="curve"):
        pr.curve_sql("lift", "duckdb", "t")
    with pytest.raises(PolarsRankError, match="curve column"):
        pr.curve_sql("roc", "duckdb", "t", by="fpr")
    with pytest.raises(PolarsRankError, match="negative, NaN or infinite"):
        bad = predictions().with_columns(pl.col("w") - 1.0)
        pr.evaluate_classification(bad, ["AUC"], weight="w")


def test_postgres_equals_sklearn(postgres):
    frame = predictions(seed=5)
    postgres.load("preds_t", frame)
    labels = column_names(METRICS, reserved=["seg"])
    for weighted in (False, True):
        sql = pr.to_sql(
            METRICS,
            "postgres",
            predictions="preds_t",
            by="seg",
            group="user",
            weight="w" if weighted else None,
        )
        result = postgres.query(sql)
        counts = {labels[m] for m in ("TP", "FP", "TN", "FN")}
        integer = {c: pl.Int64 if c in counts and not weighted else pl.Float64 for c in counts}
        assert all(result.schema[c] == integer.get(c, pl.Float64) for c in labels.values())
        assert_matches(result, reference(frame, weighted), labels)
    for kind in ("roc", "pr"):
        sql = pr.curve_sql(kind, "postgres", "preds_t", by="seg", weight="w")
        got = postgres.query(sql)
        want = _duckdb_run(pr.curve_sql(kind, "duckdb", "preds_t", by="seg", weight="w"),
                           "duckdb", frame)  # fmt: skip
        _same_points(got.rows(), want.rows())
    bad = pl.DataFrame({"label": [1, 3], "score": [0.5, 2.0]})
    postgres.load("bad_t", bad)
    problems = postgres.query(pr.check_sql("postgres", predictions="bad_t"))["problem"]
    assert problems.to_list() == ["bad_label", "score_outside_0_1"]


def test_spark_equals_sklearn(spark):
    frame = predictions(seed=6)
    expected = reference(frame, True)
    data = spark.createDataFrame(frame.to_arrow())
    result = pr.evaluate_classification(
        data, METRICS, by="seg", group="user", weight="w", engine="spark"
    )
    assert result.columns == ["seg", *METRICS]
    assert result["seg"].to_list() == sorted(result["seg"].to_list())
    assert_matches(result, expected, {m: m for m in METRICS})
    data.createOrReplaceTempView("preds_view")
    by_name = pr.evaluate_classification(
        "preds_view", ["AUC", "TP"], by="seg", engine="spark", con=spark
    )
    assert_matches(by_name, reference(frame, False), {"AUC": "AUC", "TP": "TP"})
    bad = spark.createDataFrame(frame.with_columns(pl.col("label") * 2).to_arrow())
    with pytest.raises(PolarsRankError, match="labels other than 0 and 1"):
        pr.evaluate_classification(bad, ["AUC"], engine="spark")
    logits = spark.createDataFrame(frame.with_columns(pl.col("score") * 4 - 2).to_arrow())
    with pytest.raises(PolarsRankError, match="outside"):
        pr.evaluate_classification(logits, ["LogLoss"], engine="spark")


@pytest.mark.parametrize("dialect", fast_first(list(DIALECTS)))
def test_any_column_names(dialect):
    """Reserved words, spaces, mixed case and the query's own prefixes as column names."""
    frame = predictions(seed=7).rename(
        {"seg": "Order", "user": "group", "label": "user", "score": "score value", "w": "pr_w"}
    )
    sql = pr.to_sql(
        ["AUC", "GAUC", "F1"],
        dialect,
        predictions="preds_t",
        label="user",
        score="score value",
        by="Order",
        group="group",
        weight="pr_w",
    )
    got = _duckdb_run(sql, dialect, frame)
    want = pr.evaluate_classification(
        frame, ["AUC", "GAUC", "F1"], label="user", score="score value", by="Order",
        group="group", weight="pr_w",
    )  # fmt: skip
    if dialect == "snowflake":
        got = got.rename({"order": "Order"})
    assert got.columns == ["Order", "auc", "gauc", "f1"]
    _same_points(got.rows(), want.rows())


#: Labels of one table in several types (the same 0/1 values): booleans, text spellings,
#: DOUBLE and DECIMAL; scores with a tie across the classes.
LABELS_Y = [1, 0, 1, 0, 1, 0]
LABELS_P = [0.9, 0.2, 0.3, 0.8, 0.6, 0.6]


def _typed_labels(con: duckdb.DuckDBPyConnection) -> None:
    con.register("typed_src", pl.DataFrame({"y": LABELS_Y, "score": LABELS_P}))
    con.execute(
        "CREATE TABLE typed AS SELECT score, y = 1 AS b, "
        "CASE WHEN y = 1 THEN 'TRUE' ELSE 'false' END AS t, CAST(y AS VARCHAR) AS t01, "
        "CAST(y AS DOUBLE) AS d, CAST(y AS DECIMAL(6, 3)) AS dec FROM typed_src"
    )


def _label_reference() -> dict[str, float]:
    y, p = np.array(LABELS_Y), np.array(LABELS_P)
    return {
        "auc": roc_auc_score(y, p),
        "tp": float(((p >= 0.5) & (y == 1)).sum()),
        "f1": f1_score(y, (p >= 0.5).astype(int)),
    }


@pytest.mark.parametrize("dialect", fast_first(list(DIALECTS)))
def test_boolean_and_text_labels_in_every_dialect(dialect):
    """A label is read through its text: booleans, text '0'/'1'/'true'/'false' (any case),
    DOUBLE and DECIMAL labels give scikit-learn's values on the 0/1 labels, and the checks
    pass; text that is no label is bad_label, never a cast error."""
    con = duckdb.connect()
    _typed_labels(con)
    want = _label_reference()
    for label in ("b", "t", "t01", "d", "dec"):
        sql = pr.to_sql(["AUC", "TP", "F1"], dialect, predictions="typed", label=label)
        if dialect != "duckdb":
            sql = to_duckdb(sql, dialect)
        got = con.sql(sql).pl().rename(str.lower).row(0, named=True)
        assert got == pytest.approx(want, rel=1e-12), label
        check = pr.check_sql(dialect, predictions="typed", label=label)
        if dialect != "duckdb":
            check = to_duckdb(check, dialect)
        assert con.sql(check).fetchall() == [], label
    con.execute(
        "CREATE TABLE junk AS SELECT * FROM (VALUES ('yes', 0.5), ('2', 0.5), ('1.5', 0.5), "
        "('10', 0.5), ('1', 0.5), ('0.0', 0.5)) t(label, score)"
    )
    check = pr.check_sql(dialect, predictions="junk")
    if dialect != "duckdb":
        check = to_duckdb(check, dialect)
    # 'yes', '2', '1.5', '10' are no label; '1' and '0.0' are; the smallest text shown
    assert con.sql(check).fetchall() == [("predictions", "bad_label", 4, "1.5", None)]


def _nan_zero_division_reference() -> dict[str, float]:
    """All negatives, nothing predicted positive: precision, recall and F1 are 0/0 ->
    zero_division (scikit-learn's np.nan), specificity TN / (TN + FP) = 3 / 3 = 1."""
    y, predicted = np.zeros(3, dtype=int), np.zeros(3, dtype=int)
    return {
        "precision": precision_score(y, predicted, zero_division=np.nan),
        "recall": recall_score(y, predicted, zero_division=np.nan),
        "f1": f1_score(y, predicted, zero_division=np.nan),
        "specificity": recall_score(y, predicted, pos_label=0, zero_division=np.nan),
    }


NAN_ZD = pl.DataFrame({"label": [0, 0, 0], "score": [0.1, 0.2, 0.3]})
NAN_ZD_NAMES = [
    "precision(zero_division=nan)",
    "recall(zero_division=NaN)",
    "F1(zero_division=nan)",
    "specificity(zero_division=nan)",
]


def _same_with_nan(got: dict, want: dict) -> None:
    assert list(got) == list(want)
    for key in want:
        assert (np.isnan(want[key]) and np.isnan(got[key])) or got[key] == want[key], key


def test_zero_division_nan_in_every_engine_and_dialect():
    """zero_division=nan, scikit-learn's choice since 1.3, is accepted by name as by the
    expressions, and gives NaN in every engine and dialect."""
    want = _nan_zero_division_reference()
    assert np.isnan(want["precision"]) and want["specificity"] == 1.0  # the reference
    for engine in ("polars", "duckdb"):
        got = pr.evaluate_classification(NAN_ZD, NAN_ZD_NAMES, engine=engine).row(0)
        _same_with_nan(dict(zip(want, got, strict=True)), want)
    for dialect in DIALECTS:
        sql = pr.to_sql(NAN_ZD_NAMES, dialect, predictions="preds_t")
        got = _duckdb_run(sql, dialect, NAN_ZD).row(0)
        _same_with_nan(dict(zip(want, got, strict=True)), want)
    expr = pr.classification.precision("label", "score", zero_division=float("nan"))
    assert np.isnan(NAN_ZD.select(expr).item())  # the expressions, as before


def test_labels_and_zero_division_nan_on_postgres(postgres):
    """PostgreSQL cannot cast a boolean to a number: boolean labels work through their text;
    text that is no label is bad_label (no cast error); zero_division=nan is NaN."""
    postgres.load("typed_src", pl.DataFrame({"y": LABELS_Y, "score": LABELS_P}))
    with postgres.connect() as con, con.cursor() as cur:
        cur.execute(
            "DROP TABLE IF EXISTS typed; CREATE TABLE typed AS SELECT score, y = 1 AS b, "
            "CASE WHEN y = 1 THEN 'TRUE' ELSE 'false' END AS t, CAST(y AS NUMERIC(6, 3)) AS "
            "dec FROM typed_src; DROP TABLE IF EXISTS junk; CREATE TABLE junk AS SELECT * "
            "FROM (VALUES ('yes', 0.5), ('2', 0.5), (NULL, 0.5), ('1', 0.5)) t(label, score)"
        )
    want = _label_reference()
    for label in ("b", "t", "dec"):
        got = postgres.query(pr.to_sql(["AUC", "TP", "F1"], "postgres", predictions="typed",
                                       label=label)).row(0, named=True)  # fmt: skip
        assert got == pytest.approx(want, rel=1e-12), label
        assert postgres.query(pr.check_sql("postgres", predictions="typed", label=label)).is_empty()
    problems = postgres.query(pr.check_sql("postgres", predictions="junk"))
    assert problems.select("problem", "rows_affected", "example_query").rows() == [
        ("null_label", 1, None),
        ("bad_label", 2, "2"),
    ]
    postgres.load("nan_zd", NAN_ZD)
    got = postgres.query(pr.to_sql(NAN_ZD_NAMES, "postgres", predictions="nan_zd")).row(0)
    want_nan = _nan_zero_division_reference()
    _same_with_nan(dict(zip(want_nan, got, strict=True)), want_nan)


def test_labels_and_zero_division_nan_on_spark(spark):
    """Spark (ANSI mode as the session has it): boolean labels and zero_division=nan."""
    frame = pl.DataFrame({"b": [y == 1 for y in LABELS_Y], "score": LABELS_P})
    got = pr.evaluate_classification(
        spark.createDataFrame(frame.to_arrow()), ["AUC", "TP", "F1"], label="b", engine="spark"
    ).row(0)
    assert dict(zip(["auc", "tp", "f1"], got, strict=True)) == pytest.approx(
        _label_reference(), rel=1e-12
    )
    data = spark.createDataFrame(NAN_ZD.to_arrow())
    got = pr.evaluate_classification(data, NAN_ZD_NAMES, engine="spark").row(0)
    want = _nan_zero_division_reference()
    _same_with_nan(dict(zip(want, got, strict=True)), want)


def test_one_rule_for_by_names_with_predictions():
    """A by column named like a metric (its label or its SQL column, case-insensitively) is
    refused by evaluate_classification and to_sql alike (to_sql renamed the metric auc_2);
    a group column may be the by column in both, with the same numbers: each segment's
    groups are the segment itself. By hand, segment 1: labels 1 0 1 at 0.9 0.2 0.5, both
    positives above the negative: AUC 1 (GAUC: one group, weight 3: 1); segment 2: labels
    0 1 0 at 0.4 0.3 0.8, the positive below both negatives: 0."""
    frame = pl.DataFrame(
        {"u": [1, 1, 1, 2, 2, 2], "label": [1, 0, 1, 0, 1, 0],
         "score": [0.9, 0.2, 0.5, 0.4, 0.3, 0.8]}
    )  # fmt: skip
    for by in ("AUC", "auc"):
        named = frame.with_columns(pl.col("u").alias(by))
        with pytest.raises(PolarsRankError, match=rf"by column '{by}' has the name of a metric"):
            pr.to_sql(["AUC"], "duckdb", predictions="p", by=by)
        for engine in ("polars", "duckdb"):
            with pytest.raises(PolarsRankError, match="has the name of a metric"):
                pr.evaluate_classification(named, ["AUC"], by=by, engine=engine)
    sql = pr.to_sql(["GAUC", "AUC"], "duckdb", predictions="preds_t", by="u", group="u")
    assert _duckdb_run(sql, "duckdb", frame).rows() == [(1, 1.0, 1.0), (2, 0.0, 0.0)]
    for engine in ("polars", "duckdb"):
        got = pr.evaluate_classification(frame, ["GAUC", "AUC"], by="u", group="u", engine=engine)
        assert got.rows() == [(1, 1.0, 1.0), (2, 0.0, 0.0)]


def test_check_sql_predictions_refuses_by():
    """The predictions checks are checks of rows, the same in every segment: by (and every
    ranking option) is refused, never silently ignored."""
    with pytest.raises(PolarsRankError, match=r"does not take by=: every check of a predictions"):
        pr.check_sql("duckdb", predictions="p", by="seg")
    with pytest.raises(PolarsRankError, match=r"does not take order_by="):
        pr.check_sql("duckdb", predictions="p", order_by="rank")


#: Counts and the ratios of them: integer counts unweighted (as the Polars engine's Int64).
COUNTS = ["TP", "FP", "TN", "FN"]
COUNT_RATIOS = ["precision", "recall", "accuracy", "F1", "specificity"]
#: Two segments with tied scores at the 0.5 threshold, a NULL label and a NULL score
#: (skipped rows), weights 0.5-3.
COUNT_DATA = pl.DataFrame(
    {
        "seg": [1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2],
        "label": [1, 0, 1, 1, 0, 0, None, 0, 1, 0, 1, 1],
        "score": [0.9, 0.5, 0.5, 0.2, 0.1, 0.7, 0.8, 0.6, 0.4, 0.3, 0.9, None],
        "w": [1.0, 2.0, 0.5, 3.0, 1.0, 1.5, 1.0, 2.5, 1.0, 0.5, 2.0, 1.0],
    }
)


def _count_reference(weighted: bool) -> dict[int, dict[str, float]]:
    """Per segment, scikit-learn's confusion_matrix at score >= 0.5 (rows with a NULL label or
    score left out) and the ratios of its cells, divided as the SQL divides them (DOUBLEs:
    exact integers, one correctly rounded division)."""
    out = {}
    for (seg,), part in COUNT_DATA.drop_nulls(["label", "score"]).group_by("seg"):
        y, p = part["label"].to_numpy(), part["score"].to_numpy()
        w = part["w"].to_numpy() if weighted else None
        cells = confusion_matrix(y, (p >= 0.5).astype(int), labels=[0, 1], sample_weight=w)
        tn, fp, fn, tp = (float(c) for c in cells.ravel())
        out[int(seg)] = {
            "TP": tp,
            "FP": fp,
            "TN": tn,
            "FN": fn,
            "precision": tp / (tp + fp),
            "recall": tp / (tp + fn),
            "accuracy": (tp + tn) / (tp + tn + fp + fn),
            "F1": (1.0 + 1.0) * tp / (1.0 * (tp + fn) + tp + fp),
            "specificity": tn / (tn + fp),
        }
    return out


def _assert_counts(result: pl.DataFrame, weighted: bool, lower: bool = True) -> None:
    """Counts Int64 unweighted (Float64 weighted), ratios Float64, every value exactly the
    reference's (the ratios too: no integer division, no rounding of the counts)."""
    want = _count_reference(weighted)
    name = (lambda m: m.lower()) if lower else (lambda m: m)
    for metric in COUNTS:
        assert result.schema[name(metric)] == (pl.Float64 if weighted else pl.Int64), metric
    for metric in COUNT_RATIOS:
        assert result.schema[name(metric)] == pl.Float64, metric
    assert result["seg"].to_list() == [1, 2]
    for row in result.iter_rows(named=True):
        assert {m: row[name(m)] for m in want[row["seg"]]} == want[row["seg"]], row["seg"]


def test_counts_are_integers_in_to_sql_on_duckdb():
    """By hand, segment 1 at threshold 0.5 (the NULL-label row skipped): (1, .9) TP, (0, .5)
    FP, (1, .5) TP, (1, .2) FN, (0, .1) TN, (0, .7) FP -> TP 2, FP 2, TN 1, FN 1 (weighted:
    TP 1 + .5, FP 2 + 1.5, TN 1, FN 3); segment 2 (the NULL-score row skipped): (0, .6) FP,
    (1, .4) FN, (0, .3) TN, (1, .9) TP -> 1 each. The counts are BIGINT in every dialect
    (transpiled to DuckDB), the ratios DOUBLE, even under the user's integer_division."""
    hand = _count_reference(False)
    assert hand[1] == {"TP": 2, "FP": 2, "TN": 1, "FN": 1, "precision": 2 / 4, "recall": 2 / 3,
                       "accuracy": 3 / 6, "F1": 4 / 7, "specificity": 1 / 3}  # fmt: skip
    assert hand[2] == {"TP": 1, "FP": 1, "TN": 1, "FN": 1, "precision": 1 / 2, "recall": 1 / 2,
                       "accuracy": 2 / 4, "F1": 2 / 4, "specificity": 1 / 2}  # fmt: skip
    assert [_count_reference(True)[1][m] for m in COUNTS] == [1.5, 3.5, 1.0, 3.0]
    metrics = COUNTS + COUNT_RATIOS
    for weighted in (False, True):
        for dialect in DIALECTS:
            sql = pr.to_sql(metrics, dialect, predictions="preds_t", by="seg",
                            weight="w" if weighted else None)  # fmt: skip
            _assert_counts(_duckdb_run(sql, dialect, COUNT_DATA), weighted)
        con = duckdb.connect()
        con.execute("SET integer_division = true")
        con.register("preds_t", COUNT_DATA)
        sql = pr.to_sql(metrics, "duckdb", predictions="preds_t", by="seg",
                        weight="w" if weighted else None)  # fmt: skip
        _assert_counts(con.sql(sql).pl(), weighted)


def test_counts_are_integers_in_to_sql_on_postgres(postgres):
    """As on DuckDB: BIGINT counts and DOUBLE PRECISION ratios of them on a live server
    (PostgreSQL's SUM of a BIGINT is a NUMERIC and its / of integers truncates: neither
    shows)."""
    postgres.load("count_t", COUNT_DATA)
    metrics = COUNTS + COUNT_RATIOS
    for weighted in (False, True):
        sql = pr.to_sql(metrics, "postgres", predictions="count_t", by="seg",
                        weight="w" if weighted else None)  # fmt: skip
        _assert_counts(postgres.query(sql), weighted)


def test_spark_result_schema_equals_the_polars_engine(spark):
    """The Spark engine's frame is the Polars engine's: the same dtypes (the counts Int64
    without a weight, Float64 with one) and the same values, the counts scikit-learn's."""
    metrics = [*COUNTS, *COUNT_RATIOS, "AUC"]
    data = spark.createDataFrame(COUNT_DATA.to_arrow())
    for weight in (None, "w"):
        got = pr.evaluate_classification(data, metrics, by="seg", weight=weight, engine="spark")
        want = pr.evaluate_classification(COUNT_DATA, metrics, by="seg", weight=weight)
        assert got.schema == want.schema, weight
        assert got.drop("AUC").equals(want.drop("AUC")), weight
        _assert_counts(got.drop("AUC"), weight is not None, lower=False)


def test_clickhouse_equals_sklearn(clickhouse):
    """The classification query, its curves and its checks in ClickHouse (chDB)."""
    frame = predictions(seed=5)
    clickhouse.load("preds_t", frame)
    labels = column_names(METRICS, reserved=["seg"])
    for weighted in (False, True):
        sql = pr.to_sql(
            METRICS,
            "clickhouse",
            predictions="preds_t",
            by="seg",
            group="user",
            weight="w" if weighted else None,
        )
        result = clickhouse.query(sql)
        assert_matches(result, reference(frame, weighted), labels)
    for kind in ("roc", "pr"):
        got = clickhouse.query(pr.curve_sql(kind, "clickhouse", "preds_t", by="seg", weight="w"))
        want = _duckdb_run(pr.curve_sql(kind, "duckdb", "preds_t", by="seg", weight="w"),
                           "duckdb", frame)  # fmt: skip
        _same_points(got.rows(), want.rows())
    bad = pl.DataFrame({"label": [1, 3], "score": [0.5, 2.0]})
    clickhouse.load("bad_t", bad)
    problems = clickhouse.query(pr.check_sql("clickhouse", predictions="bad_t"))["problem"]
    assert problems.to_list() == ["bad_label", "score_outside_0_1"]


def test_labels_and_zero_division_nan_on_clickhouse(clickhouse):
    """Boolean and text labels; text that is no label is bad_label; zero_division=nan."""
    clickhouse.load("typed_src", pl.DataFrame({"y": LABELS_Y, "score": LABELS_P}))
    clickhouse.run("DROP TABLE IF EXISTS typed")
    clickhouse.run(
        "CREATE TABLE typed ENGINE = Memory AS SELECT score, y = 1 AS b, "
        "CASE WHEN y = 1 THEN 'TRUE' ELSE 'false' END AS t, CAST(y AS Decimal(6, 3)) AS dec "
        "FROM typed_src"
    )
    clickhouse.load(
        "junk",
        pl.DataFrame({"label": ["yes", "2", None, "1"], "score": [0.5] * 4}),
    )
    want = _label_reference()
    for label in ("b", "t", "dec"):
        got = clickhouse.query(pr.to_sql(["AUC", "TP", "F1"], "clickhouse", predictions="typed",
                                         label=label)).row(0, named=True)  # fmt: skip
        assert got == pytest.approx(want, rel=1e-12), label
        check = pr.check_sql("clickhouse", predictions="typed", label=label)
        assert clickhouse.query(check).is_empty()
    problems = clickhouse.query(pr.check_sql("clickhouse", predictions="junk"))
    assert problems.select("problem", "rows_affected", "example_query").rows() == [
        ("null_label", 1, None),
        ("bad_label", 2, "2"),
    ]
    clickhouse.load("nan_zd", NAN_ZD)
    got = clickhouse.query(pr.to_sql(NAN_ZD_NAMES, "clickhouse", predictions="nan_zd")).row(0)
    want_nan = _nan_zero_division_reference()
    _same_with_nan(dict(zip(want_nan, got, strict=True)), want_nan)


def test_counts_are_integers_in_to_sql_on_clickhouse(clickhouse):
    """As on DuckDB: integer counts and Float64 ratios of them."""
    clickhouse.load("count_t", COUNT_DATA)
    metrics = COUNTS + COUNT_RATIOS
    for weighted in (False, True):
        sql = pr.to_sql(metrics, "clickhouse", predictions="count_t", by="seg",
                        weight="w" if weighted else None)  # fmt: skip
        _assert_counts(clickhouse.query(sql), weighted)
