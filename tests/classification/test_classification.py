"""polars_rank.classification against scikit-learn, hand-worked cases, and Polars == DuckDB."""

from __future__ import annotations

import math
import re
import warnings

import duckdb
import numpy as np
import polars as pl
import pytest
import sklearn.metrics as skm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rank.classification as cls
import polars_rank.duckdb as prd
from polars_rank import PolarsRankError
from tests.support.strategies import examples

TOL = 1e-12
pytestmark = pytest.mark.filterwarnings("ignore")
FAST = settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute(prd.sql_path("classification.sql").read_text())
    return connection


def sql_scalar(con: duckdb.DuckDBPyConnection, df: pl.DataFrame, expr: str) -> object:
    con.register("t", df)
    try:
        return con.sql(f"SELECT {expr} FROM t").fetchall()[0][0]
    finally:
        con.unregister("t")


def same(a: float | None, b: float | None) -> bool:
    """Equal within TOL; None == None and NaN == NaN."""
    if a is None or b is None:
        return a is None and b is None
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL


def sk_log_loss(y: np.ndarray, p: np.ndarray) -> float:
    try:
        return skm.log_loss(y, y_proba=p, labels=[0, 1])
    except TypeError:  # scikit-learn before 1.9
        return skm.log_loss(y, p, labels=[0, 1])


# ------------------------------------------------------------------------------------------
# strategies: few distinct scores (many ties), imbalanced labels, probabilities 0 and 1

SCORES = [0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9, 1.0]


@st.composite
def binary_data(draw: st.DrawFn, min_size: int = 1) -> pl.DataFrame:
    n = draw(st.integers(min_size, 40))
    rate = draw(st.sampled_from([0.0, 0.05, 0.2, 0.5, 0.9, 1.0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = (rng.random(n) < rate).astype(np.int64)
    if draw(st.booleans()):
        p = rng.choice(SCORES, size=n)
    else:
        p = np.round(rng.random(n), draw(st.sampled_from([1, 2, 6])))
    return pl.DataFrame({"y": y, "p": p.astype(np.float64)})


@st.composite
def grouped_data(draw: st.DrawFn) -> pl.DataFrame:
    frames = []
    for g in range(draw(st.integers(1, 6))):
        part = draw(binary_data())
        frames.append(part.with_columns(pl.lit(g, dtype=pl.Int64).alias("g")))
    return pl.concat(frames)


@st.composite
def multiclass_data(draw: st.DrawFn) -> pl.DataFrame:
    n = draw(st.integers(1, 40))
    k = draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = rng.integers(0, k, n)
    if draw(st.booleans()):  # mostly right, with labels the truth never has
        p = np.where(rng.random(n) < 0.6, a, rng.integers(0, k + 2, n))
    else:
        p = rng.integers(0, k, n)
    return pl.DataFrame({"a": a.astype(np.int64), "p": p.astype(np.int64)})


# ------------------------------------------------------------------------------------------
# hand-worked cases


def test_fraud_all_negative_high_accuracy_zero_recall(con: duckdb.DuckDBPyConnection) -> None:
    # 1000 transactions, 10 frauds; the model says "not fraud" to all of them (score 0.0)
    # tp = 0, fn = 10, tn = 990, fp = 0
    df = pl.DataFrame({"y": [1] * 10 + [0] * 990, "p": [0.0] * 1000})
    got = df.select(
        cls.accuracy("y", "p"),
        cls.recall("y", "p"),
        cls.precision("y", "p"),
        cls.precision("y", "p", zero_division=1.0).alias("precision_zd1"),
        cls.f1("y", "p"),
        cls.specificity("y", "p"),
    ).row(0, named=True)
    assert got["accuracy"] == 990 / 1000  # 0.99: looks great
    assert got["recall"] == 0.0  # 0 / 10: catches no fraud
    assert got["precision"] == 0.0  # 0 / 0 -> zero_division = 0
    assert got["precision_zd1"] == 1.0  # 0 / 0 -> zero_division = 1
    assert got["f1"] == 0.0  # 2*0 / (0 + 0 + 10)
    assert got["specificity"] == 1.0  # 990 / 990
    assert sql_scalar(con, df, "cls_accuracy(y, p)") == 0.99
    assert sql_scalar(con, df, "cls_recall(y, p)") == 0.0
    assert sql_scalar(con, df, "cls_precision(y, p, zero_division := 1.0)") == 1.0


def test_precision_three_of_five_recommended(con: duckdb.DuckDBPyConnection) -> None:
    # 5 items recommended (predicted label 1), 3 of them relevant; 2 relevant items missed
    # precision = 3 / 5 = 0.6; recall = 3 / (3 + 2) = 0.6; tn = 1 (the one not recommended,
    # not relevant)
    df = pl.DataFrame({"rel": [1, 1, 1, 0, 0, 1, 1, 0], "rec": [1, 1, 1, 1, 1, 0, 0, 0]})
    assert df.select(cls.precision("rel", "rec")).item() == pytest.approx(0.6, abs=0)
    assert df.select(cls.recall("rel", "rec")).item() == pytest.approx(0.6, abs=0)
    assert df.select(cls.confusion("rel", "rec")).item() == {"tp": 3, "fp": 2, "tn": 1, "fn": 2}
    assert sql_scalar(con, df, "cls_precision(rel, rec)") == pytest.approx(0.6, abs=0)
    assert sql_scalar(con, df, "cls_confusion(rel, rec)") == {"tp": 3, "fp": 2, "tn": 1, "fn": 2}


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ([0.1, 0.2, 0.8, 0.9], 1.0),  # both positives above both negatives: 4 of 4 pairs
        ([0.9, 0.8, 0.2, 0.1], 0.0),  # reversed: 0 of 4 pairs
        ([0.5, 0.5, 0.5, 0.5], 0.5),  # constant: 4 ties, each 1/2 -> 2 / 4
        ([0.1, 0.5, 0.5, 0.9], 0.875),  # one tie: (1 + 1 + 1/2 + 1) / 4
    ],
)
def test_auc_hand(con: duckdb.DuckDBPyConnection, scores: list[float], expected: float) -> None:
    df = pl.DataFrame({"y": [0, 0, 1, 1], "p": scores})
    assert df.select(cls.roc_auc("y", "p")).item() == expected
    assert sql_scalar(con, df, "cls_roc_auc(y, p)") == expected


def test_average_precision_and_log_loss_hand(con: duckdb.DuckDBPyConnection) -> None:
    # ranking 1, 0, 1: precision at the two positives is 1/1 and 2/3 -> AP = (1 + 2/3) / 2
    df = pl.DataFrame({"y": [1, 0, 1], "p": [0.9, 0.8, 0.7]})
    assert df.select(cls.average_precision("y", "p")).item() == pytest.approx(5 / 6, abs=TOL)
    assert sql_scalar(con, df, "cls_average_precision(y, p)") == pytest.approx(5 / 6, abs=TOL)
    # tie: scores 0.9, 0.8, 0.8 with labels 1, 1, 0 -> thresholds 0.9 (P = 1/1, R = 1/2) and
    # 0.8 (P = 2/3, R = 2/2): AP = 1/2 * 1 + 1/2 * 2/3
    df = pl.DataFrame({"y": [1, 1, 0], "p": [0.9, 0.8, 0.8]})
    assert df.select(cls.average_precision("y", "p")).item() == pytest.approx(5 / 6, abs=TOL)
    # log loss: -(ln 0.8 + ln(1 - 0.4)) / 2; p = 0 for a positive is clipped to eps = 2**-52
    df = pl.DataFrame({"y": [1, 0], "p": [0.8, 0.4]})
    expected = -(math.log(0.8) + math.log(0.6)) / 2
    assert df.select(cls.log_loss("y", "p")).item() == pytest.approx(expected, abs=TOL)
    df = pl.DataFrame({"y": [1], "p": [0.0]})
    assert df.select(cls.log_loss("y", "p")).item() == pytest.approx(52 * math.log(2), abs=TOL)
    assert sql_scalar(con, df, "cls_log_loss(y, p)") == pytest.approx(52 * math.log(2), abs=TOL)


def test_single_class_group_gives_null_auc(con: duckdb.DuckDBPyConnection) -> None:
    df = pl.DataFrame({"u": [1, 1, 2, 2], "y": [1, 1, 0, 1], "p": [0.3, 0.6, 0.2, 0.9]})
    got = df.group_by("u").agg(cls.roc_auc("y", "p"), cls.average_precision("y", "p")).sort("u")
    assert got["roc_auc"].to_list() == [None, 1.0]  # user 1 has no negative
    assert got["average_precision"].to_list() == [1.0, 1.0]
    con.register("t", df)
    rows = con.sql("SELECT u, cls_roc_auc(y, p) FROM t GROUP BY u ORDER BY u").fetchall()
    con.unregister("t")
    assert rows == [(1, None), (2, 1.0)]
    no_pos = pl.DataFrame({"y": [0, 0], "p": [0.1, 0.2]})
    assert no_pos.select(cls.average_precision("y", "p")).item() is None
    assert sql_scalar(con, no_pos, "cls_average_precision(y, p)") is None


def test_nulls_are_skipped_in_both_engines(con: duckdb.DuckDBPyConnection) -> None:
    df = pl.DataFrame({"y": [1, 0, None, 1, 0], "p": [0.9, 0.2, 0.5, None, 0.7]})
    clean = df.drop_nulls()
    exprs = {
        "roc_auc": "cls_roc_auc(y, p)",
        "average_precision": "cls_average_precision(y, p)",
        "log_loss": "cls_log_loss(y, p)",
        "accuracy": "cls_accuracy(y, p)",
        "precision": "cls_precision(y, p)",
        "recall": "cls_recall(y, p)",
        "specificity": "cls_specificity(y, p)",
    }
    for name, sql in exprs.items():
        fn = getattr(cls, name)
        want = clean.select(fn("y", "p")).item()
        assert same(df.select(fn("y", "p")).item(), want), name
        assert same(sql_scalar(con, df, sql), want), name


# ------------------------------------------------------------------------------------------
# scalar metrics against scikit-learn, both engines


@FAST
@given(binary_data(), st.sampled_from([0.5, 0.25, 0.75, 0.1]), st.sampled_from([0.0, 1.0]))
def test_thresholded_vs_sklearn(df: pl.DataFrame, threshold: float, zd: float) -> None:
    con = duckdb.connect()
    con.execute(prd.sql_path("classification.sql").read_text())
    y, p = df["y"].to_numpy(), df["p"].to_numpy()
    pred = (p >= threshold).astype(np.int64)
    kw = {"labels": [0, 1], "zero_division": zd}
    want = {
        "accuracy": skm.accuracy_score(y, pred),
        "precision": skm.precision_score(y, pred, **kw),
        "recall": skm.recall_score(y, pred, **kw),
        "f1": skm.f1_score(y, pred, **kw),
        "fbeta": skm.fbeta_score(y, pred, beta=2.0, **kw),
        "specificity": skm.recall_score(y, pred, pos_label=0, **kw),
    }
    t = f"threshold := {threshold}, zero_division := {zd}"
    got = df.select(
        cls.accuracy("y", "p", threshold),
        cls.precision("y", "p", threshold, zd),
        cls.recall("y", "p", threshold, zd),
        cls.f1("y", "p", threshold, zd),
        cls.fbeta("y", "p", 2.0, threshold, zd),
        cls.specificity("y", "p", threshold, zd),
    ).row(0, named=True)
    sql = {
        "accuracy": f"cls_accuracy(y, p, threshold := {threshold})",
        "precision": f"cls_precision(y, p, {t})",
        "recall": f"cls_recall(y, p, {t})",
        "f1": f"cls_f1(y, p, {t})",
        "fbeta": f"cls_fbeta(y, p, 2.0, {t})",
        "specificity": f"cls_specificity(y, p, {t})",
    }
    for name, value in want.items():
        assert same(got[name], value), (name, got[name], value)
        assert same(sql_scalar(con, df, sql[name]), got[name]), name
    tn_, fp_, fn_, tp_ = skm.confusion_matrix(y, pred, labels=[0, 1]).ravel()
    counts = {"tp": tp_, "fp": fp_, "tn": tn_, "fn": fn_}
    assert df.select(cls.confusion("y", "p", threshold)).item() == counts
    assert sql_scalar(con, df, f"cls_confusion(y, p, {threshold})") == counts


@FAST
@given(binary_data())
def test_scores_vs_sklearn(df: pl.DataFrame) -> None:
    con = duckdb.connect()
    con.execute(prd.sql_path("classification.sql").read_text())
    y, p = df["y"].to_numpy(), df["p"].to_numpy()
    both = 0 < y.sum() < len(y)
    auc = df.select(cls.roc_auc("y", "p")).item()
    ap = df.select(cls.average_precision("y", "p")).item()
    ll = df.select(cls.log_loss("y", "p")).item()
    if both:
        assert same(auc, skm.roc_auc_score(y, p))
    else:
        assert auc is None
    if y.sum() > 0:
        assert same(ap, skm.average_precision_score(y, p))
    else:
        assert ap is None
    assert same(ll, sk_log_loss(y, p))
    assert same(sql_scalar(con, df, "cls_roc_auc(y, p)"), auc)
    assert same(sql_scalar(con, df, "cls_average_precision(y, p)"), ap)
    assert same(sql_scalar(con, df, "cls_log_loss(y, p)"), ll)


@FAST
@given(grouped_data())
def test_per_group_vs_sklearn_and_duckdb(df: pl.DataFrame) -> None:
    con = duckdb.connect()
    con.execute(prd.sql_path("classification.sql").read_text())
    got = (
        df.group_by("g")
        .agg(
            cls.roc_auc("y", "p"),
            cls.average_precision("y", "p"),
            cls.log_loss("y", "p"),
            cls.f1("y", "p"),
        )
        .sort("g")
    )
    con.register("t", df)
    sql = con.sql(
        "SELECT g, cls_roc_auc(y, p) AS roc_auc, cls_average_precision(y, p) AS "
        "average_precision, cls_log_loss(y, p) AS log_loss, cls_f1(y, p) AS f1 "
        "FROM t GROUP BY g ORDER BY g"
    ).pl()
    for row, sql_row in zip(got.iter_rows(named=True), sql.iter_rows(named=True), strict=True):
        part = df.filter(pl.col("g") == row["g"])
        y, p = part["y"].to_numpy(), part["p"].to_numpy()
        want_auc = skm.roc_auc_score(y, p) if 0 < y.sum() < len(y) else None
        assert same(row["roc_auc"], want_auc)
        assert same(row["log_loss"], sk_log_loss(y, p))
        assert same(row["f1"], skm.f1_score(y, (p >= 0.5).astype(int), zero_division=0.0))
        for key in ("roc_auc", "average_precision", "log_loss", "f1"):
            assert same(sql_row[key], row[key]), key
    result = cls.group_auc(df, "g", "y", "p")
    used = [r for r in got.iter_rows(named=True) if r["roc_auc"] is not None]
    sizes = dict(df.group_by("g").len().iter_rows())
    n_used = sum(sizes[r["g"]] for r in used)
    want = sum(r["roc_auc"] * sizes[r["g"]] for r in used) / n_used if used else None
    row = result.row(0, named=True)
    assert same(row["group_auc"], want)
    assert row["groups_used"] == len(used)
    assert row["groups_left_out"] == got.height - len(used)
    assert row["impressions_used"] == n_used
    duck = cls.group_auc(df, "g", "y", "p", engine="duckdb", con=con).row(0, named=True)
    assert same(duck["group_auc"], row["group_auc"])
    assert duck["groups_used"] == row["groups_used"]
    assert duck["groups_left_out"] == row["groups_left_out"]
    uniform = cls.group_auc(df, "g", "y", "p", weight="uniform").item(0, "group_auc")
    want_uniform = sum(r["roc_auc"] for r in used) / len(used) if used else None
    assert same(uniform, want_uniform)


# ------------------------------------------------------------------------------------------
# curves


def assert_column(got: pl.Series, want: np.ndarray) -> None:
    values = np.array([np.nan if v is None else v for v in got.to_list()], dtype=np.float64)
    assert values.shape == want.shape, (values, want)
    assert np.allclose(values, want, atol=TOL, rtol=0, equal_nan=True), (values, want)


@FAST
@given(binary_data(), st.booleans())
def test_roc_curve_vs_sklearn(df: pl.DataFrame, drop: bool) -> None:
    y, p = df["y"].to_numpy(), df["p"].to_numpy()
    fpr, tpr, thr = skm.roc_curve(y, p, drop_intermediate=drop)
    got = cls.roc_curve(df, "y", "p", drop_intermediate=drop)
    assert_column(got["threshold"], thr)
    assert_column(got["fpr"], fpr)  # null here where scikit-learn gives NaN
    assert_column(got["tpr"], tpr)
    duck = cls.roc_curve(df, "y", "p", drop_intermediate=drop, engine="duckdb")
    assert_frame_close(duck, got)


@FAST
@given(binary_data(), st.booleans())
def test_precision_recall_curve_vs_sklearn(df: pl.DataFrame, drop: bool) -> None:
    y, p = df["y"].to_numpy(), df["p"].to_numpy()
    prec, rec, thr = skm.precision_recall_curve(y, p, drop_intermediate=drop)
    got = cls.precision_recall_curve(df, "y", "p", drop_intermediate=drop)
    assert_column(got["threshold"], np.append(thr, np.nan))
    assert_column(got["precision"], prec)
    if y.sum() > 0:
        assert_column(got["recall"], rec)
    else:  # scikit-learn sets recall to 1 without positives; here it is null
        assert got["recall"][:-1].null_count() == got.height - 1
    duck = cls.precision_recall_curve(df, "y", "p", drop_intermediate=drop, engine="duckdb")
    assert_frame_close(duck, got)


def assert_frame_close(a: pl.DataFrame, b: pl.DataFrame) -> None:
    """Same columns, dtypes, nulls and order; floats within TOL."""
    assert a.columns == b.columns
    assert a.height == b.height
    for name in a.columns:
        x, y = a[name], b[name]
        assert x.is_null().to_list() == y.is_null().to_list(), name
        if x.dtype.is_float():
            xs, ys = x.drop_nulls().to_numpy(), y.drop_nulls().to_numpy()
            assert np.allclose(xs, ys, atol=TOL, rtol=0, equal_nan=True), name
        else:
            assert x.cast(y.dtype).to_list() == y.to_list(), name


@FAST
@given(grouped_data())
def test_curves_by_group(df: pl.DataFrame) -> None:
    roc = cls.roc_curve(df, "y", "p", by="g")
    pr = cls.precision_recall_curve(df, "y", "p", by="g")
    for g in df["g"].unique().sort():
        part = df.filter(pl.col("g") == g)
        assert_frame_close(roc.filter(pl.col("g") == g).drop("g"), cls.roc_curve(part, "y", "p"))
        assert_frame_close(
            pr.filter(pl.col("g") == g).drop("g"), cls.precision_recall_curve(part, "y", "p")
        )
    assert_frame_close(cls.roc_curve(df, "y", "p", by="g", engine="duckdb"), roc)
    assert_frame_close(cls.precision_recall_curve(df, "y", "p", by=["g"], engine="duckdb"), pr)


def test_lazy_in_lazy_out() -> None:
    lf = pl.LazyFrame({"g": [1, 1, 2], "y": [0, 1, 1], "p": [0.2, 0.9, 0.4]})
    for engine in ("polars", "duckdb"):
        assert isinstance(cls.roc_curve(lf, "y", "p", engine=engine), pl.LazyFrame)
        assert isinstance(cls.group_auc(lf, "g", "y", "p", engine=engine), pl.LazyFrame)
        assert isinstance(cls.confusion_matrix(lf, "y", "p", engine=engine), pl.LazyFrame)
    assert isinstance(cls.roc_curve(lf.collect(), "y", "p"), pl.DataFrame)


def test_frame_functions_read_a_table_on_con(tmp_path) -> None:
    """With engine="duckdb" the frame functions read what evaluate_classification reads: a
    table name on con (a view here, created in a schema named by con's search_path), a DuckDB
    relation and a .parquet path, each giving the DataFrame the Polars engine gives for the
    same rows; inside an open transaction of con a table name is refused (its reads would
    miss the transaction's rows), and engine="polars" refuses a name."""
    data = pl.DataFrame(
        {
            "g": ["u", "u", "u", "v", "v"],
            "y": [0, 1, 1, 0, 1],
            "p": [0.2, 0.7, 0.3, 0.6, 0.9],
            "guess": [0, 1, 0, 1, 1],
        }
    )
    con = duckdb.connect()
    con.execute("CREATE SCHEMA s")
    con.register("data_frame", data.to_arrow())
    con.execute("CREATE TABLE s.clicks AS SELECT * FROM data_frame")
    con.execute("SET search_path = 's'")
    path = str(tmp_path / "clicks.parquet")
    data.write_parquet(path)
    calls = {
        "roc_curve": lambda df, **kw: cls.roc_curve(df, "y", "p", by="g", **kw),
        "precision_recall_curve": lambda df, **kw: cls.precision_recall_curve(df, "y", "p", **kw),
        "group_auc": lambda df, **kw: cls.group_auc(df, "g", "y", "p", **kw),
        "confusion_matrix": lambda df, **kw: cls.confusion_matrix(
            df, "y", "p", threshold=0.5, **kw
        ),
        "classification_report": lambda df, **kw: cls.classification_report(df, "y", "guess", **kw),
    }
    for name, call in calls.items():
        want = call(data)
        for source in ("clicks", con.table("s.clicks"), path):
            got = call(source, engine="duckdb", con=con)
            assert isinstance(got, pl.DataFrame), name
            assert_frame_equal(got, want, check_dtypes=False)
    # group_auc by hand: u (labels 0 1 1, scores .2 .7 .3): both positives above the
    # negative, AUC 1; v (0 1, .6 .9): AUC 1; (3 * 1 + 2 * 1) / 5 = 1.0
    assert cls.group_auc("clicks", "g", "y", "p", engine="duckdb", con=con)["group_auc"][0] == 1
    con.execute("BEGIN TRANSACTION")
    con.execute("INSERT INTO s.clicks VALUES ('w', 1, 0.5, 1)")
    for call in calls.values():
        with pytest.raises(PolarsRankError, match="transaction"):
            call("clicks", engine="duckdb", con=con)
    con.execute("ROLLBACK")
    with pytest.raises(PolarsRankError, match=r"df 'clicks'.*engine='duckdb'"):
        cls.roc_curve("clicks", "y", "p")
    with pytest.raises(PolarsRankError, match="needs con"):
        cls.roc_curve("clicks", "y", "p", engine="duckdb")


# ------------------------------------------------------------------------------------------
# multi-class


@FAST
@given(
    multiclass_data(),
    st.sampled_from(["macro", "micro", "weighted"]),
    st.sampled_from([0.0, 1.0, float("nan")]),
)
def test_multiclass_vs_sklearn(df: pl.DataFrame, average: str, zd: float) -> None:
    con = duckdb.connect()
    con.execute(prd.sql_path("classification.sql").read_text())
    a, p = df["a"].to_numpy(), df["p"].to_numpy()
    kw = {"average": average, "zero_division": zd}
    want = {
        "precision": skm.precision_score(a, p, **kw),
        "recall": skm.recall_score(a, p, **kw),
        "f1": skm.f1_score(a, p, **kw),
        "fbeta": skm.fbeta_score(a, p, beta=0.5, **kw),
    }
    got = df.select(
        cls.multiclass_precision("a", "p", average, zd),
        cls.multiclass_recall("a", "p", average, zd),
        cls.multiclass_f1("a", "p", average, zd),
        cls.multiclass_fbeta("a", "p", 0.5, average, zd),
        cls.multiclass_accuracy("a", "p"),
    ).row(0, named=True)
    z = "'NaN'::DOUBLE" if math.isnan(zd) else str(zd)
    t = f"average := '{average}', zero_division := {z}"
    sql = {
        "precision": f"cls_multiclass_precision(a, p, {t})",
        "recall": f"cls_multiclass_recall(a, p, {t})",
        "f1": f"cls_multiclass_f1(a, p, {t})",
        "fbeta": f"cls_multiclass_fbeta(a, p, 0.5, {t})",
    }
    for name, value in want.items():
        assert same(got[name], value), (name, got[name], value)
        assert same(sql_scalar(con, df, sql[name]), got[name]), name
    assert same(got["accuracy"], skm.accuracy_score(a, p))
    assert same(sql_scalar(con, df, "cls_multiclass_accuracy(a, p)"), got["accuracy"])


@FAST
@given(multiclass_data(), st.sampled_from([0.0, 1.0]))
def test_confusion_matrix_and_report_vs_sklearn(df: pl.DataFrame, zd: float) -> None:
    a, p = df["a"].to_numpy(), df["p"].to_numpy()
    labels = np.union1d(a, p)
    matrix = skm.confusion_matrix(a, p, labels=labels)
    got = cls.confusion_matrix(df, "a", "p")
    assert got["actual"].to_list() == np.repeat(labels, len(labels)).tolist()
    assert got["predicted"].to_list() == np.tile(labels, len(labels)).tolist()
    assert got["count"].to_list() == matrix.ravel().tolist()
    assert_frame_close(cls.confusion_matrix(df, "a", "p", engine="duckdb"), got)
    prec, rec, f, support = skm.precision_recall_fscore_support(
        a, p, labels=labels, average=None, zero_division=zd
    )
    report = cls.classification_report(df, "a", "p", zero_division=zd)
    assert report["class"].to_list() == labels.tolist()
    assert_column(report["precision"], prec)
    assert_column(report["recall"], rec)
    assert_column(report["f1"], f)
    assert report["support"].to_list() == support.tolist()
    duck = cls.classification_report(df, "a", "p", zero_division=zd, engine="duckdb")
    assert_frame_close(duck, report)


def test_multiclass_hand_and_by_group() -> None:
    # cat, cat, dog, bird -> cat, dog, dog, dog: per class precision cat 1/1, dog 1/3,
    # bird 0/0 -> 0; macro = (1 + 1/3 + 0) / 3 = 4/9
    df = pl.DataFrame(
        {
            "u": [1, 1, 1, 1, 2, 2],
            "a": ["cat", "cat", "dog", "bird", "x", "y"],
            "p": ["cat", "dog", "dog", "dog", "x", "x"],
        }
    )
    first = df.filter(pl.col("u") == 1)
    assert first.select(cls.multiclass_precision("a", "p")).item() == pytest.approx(4 / 9)
    per_user = df.group_by("u").agg(cls.multiclass_recall("a", "p")).sort("u")
    # user 1: recall cat 1/2, dog 1/1, bird 0/1 -> 1/2; user 2: x 1/1, y 0/1 -> 1/2
    assert per_user["recall"].to_list() == [pytest.approx(0.5), pytest.approx(0.5)]
    table = cls.confusion_matrix(df, "a", "p", by="u")
    assert table.filter(pl.col("u") == 1).height == 9  # 3 labels seen -> 3 x 3 cells
    assert table.filter(pl.col("u") == 2).height == 4
    assert table["count"].sum() == df.height
    assert_frame_close(cls.confusion_matrix(df, "a", "p", by="u", engine="duckdb"), table)
    report = cls.classification_report(df, "a", "p", by="u")
    assert_frame_close(cls.classification_report(df, "a", "p", by="u", engine="duckdb"), report)


def test_binary_confusion_matrix_with_threshold() -> None:
    df = pl.DataFrame({"y": [1, 1, 0, 0, 0], "p": [0.9, 0.3, 0.6, 0.1, 0.5]})
    # predicted = p >= 0.5 -> 1, 0, 1, 0, 1: (0,0) 1, (0,1) 2, (1,0) 1, (1,1) 1
    got = cls.confusion_matrix(df, "y", "p", threshold=0.5)
    assert got.rows() == [(0, 0, 1), (0, 1, 2), (1, 0, 1), (1, 1, 1)]
    assert_frame_close(cls.confusion_matrix(df, "y", "p", threshold=0.5, engine="duckdb"), got)


# ------------------------------------------------------------------------------------------
# validation and the SQL file on its own


def test_validation_names_the_column(con: duckdb.DuckDBPyConnection) -> None:
    bad_label = pl.DataFrame({"clicked": [0, 1, 2], "p": [0.1, 0.2, 0.3]})
    with pytest.raises(PolarsRankError, match="'clicked'"):
        cls.validate_binary(bad_label, "clicked", "p")
    with pytest.raises(PolarsRankError, match="'clicked'"):
        cls.roc_curve(bad_label, "clicked", "p")
    bad_prob = pl.DataFrame({"y": [0, 1], "prob": [0.1, 1.5]})
    assert cls.validate_binary(bad_prob, "y", "prob") is bad_prob  # a score may exceed 1
    with pytest.raises(PolarsRankError, match="'prob'"):
        cls.validate_binary(bad_prob, "y", "prob", probability=True)
    with pytest.raises(PolarsRankError, match="NaN"):
        cls.validate_binary(pl.DataFrame({"y": [0, 1], "s": [0.1, float("nan")]}), "y", "s")
    with pytest.raises(PolarsRankError, match="'nope'"):
        cls.group_auc(bad_prob, "nope", "y", "prob")
    with pytest.raises(ValueError, match="zero_division"):
        cls.precision("y", "p", zero_division=0.5)
    with pytest.raises(duckdb.Error, match="label"):
        sql_scalar(con, bad_label, "cls_check_binary(clicked, p)")
    with pytest.raises(duckdb.Error, match="probabilities"):
        sql_scalar(con, bad_prob, "cls_check_binary(y, prob, probability := true)")
    assert sql_scalar(con, bad_prob, "cls_check_binary(y, prob)") is True


def test_sql_file_alone_in_fresh_connection() -> None:
    # plain con.execute of the file text; the hand-checked numbers need no Python package code
    con = duckdb.connect()
    con.execute(prd.sql_path("classification.sql").read_text())
    con.execute(
        "CREATE TABLE imp AS SELECT * FROM (VALUES "
        "('ann', 1, 0.9), ('ann', 0, 0.4), ('ann', 1, 0.4), "
        "('bob', 0, 0.8), ('bob', 1, 0.3)) v(usr, clicked, p)"
    )
    rows = con.sql(
        "SELECT usr, cls_roc_auc(clicked, p), cls_precision(clicked, p, threshold := 0.4), "
        "cls_tp(clicked, p) FROM imp GROUP BY usr ORDER BY usr"
    ).fetchall()
    # ann: positives 0.9, 0.4 vs negative 0.4 -> (1 + 1/2) / 2 = 0.75; at 0.4 all three are
    # predicted positive, 2 right -> 2/3; at 0.5 only 0.9 -> tp 1
    # bob: the positive is below the negative -> 0.0; at 0.4 only 0.8 (negative) -> 0/1
    assert rows == [("ann", 0.75, pytest.approx(2 / 3, abs=TOL), 1), ("bob", 0.0, 0.0, 0)]
    gauc = con.sql("FROM cls_group_auc('imp', 'usr', 'clicked', 'p')").fetchall()
    assert gauc == [(pytest.approx((3 * 0.75 + 2 * 0.0) / 5, abs=TOL), 2, 0, 5)]
    roc = con.sql("FROM cls_roc_curve('imp', 'clicked', 'p')").fetchall()
    # all 5: thresholds inf, 0.9 (tp 1), 0.8 (fp 1), 0.4 (tp 2, fp 2), 0.3 (tp 3, fp 2)
    assert [r[0] for r in roc] == [math.inf, 0.9, 0.8, 0.4, 0.3]
    assert [r[2] for r in roc] == pytest.approx([0, 1 / 3, 1 / 3, 2 / 3, 1], abs=TOL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert [r[1] for r in roc] == pytest.approx([0, 0, 0.5, 1, 1], abs=TOL)


def test_weighted_average_when_every_defined_class_has_no_support() -> None:
    """One row, actual 0, predicted 1, zero_division NaN: class 0 is never predicted, so its
    precision is undefined and left out; class 1 has precision 0/1 = 0 but support 0, so the
    weighted average has only zero weights and scikit-learn's _nanaverage falls back to the
    plain mean of the defined classes: 0.0 (not NaN)."""
    df = pl.DataFrame({"a": [0], "p": [1]})
    want = skm.precision_score([0], [1], average="weighted", zero_division=np.nan)
    assert want == 0.0
    got = df.select(cls.multiclass_precision("a", "p", "weighted", float("nan"))).item()
    assert got == 0.0
    con = duckdb.connect()
    con.execute(prd.sql_path("classification.sql").read_text())
    sql = "cls_multiclass_precision(a, p, average := 'weighted', zero_division := 'NaN'::DOUBLE)"
    assert sql_scalar(con, df, sql) == 0.0


def test_sql_comments_name_real_parameters() -> None:
    """Every ``name := value`` written in a comment of classification.sql is a parameter of one
    of its macros (comments must not teach a parameter that does not exist)."""
    text = prd.sql_path("classification.sql").read_text()
    comments = "\n".join(line for line in text.splitlines() if line.lstrip().startswith("--"))
    named = set(re.findall(r"(\w+) :=", comments))
    con = prd.register(duckdb.connect())
    parameters = {
        p
        for (params,) in con.sql(
            "SELECT parameters FROM duckdb_functions() WHERE function_name LIKE 'cls%'"
        ).fetchall()
        for p in params
    }
    assert named and named <= parameters, named - parameters


def test_duckdb_gauc_groups_differing_by_case_stay_apart_under_nocase():
    """Groups ``A`` and ``a`` are two groups on a connection with
    ``default_collation='nocase'``. By hand: ``A`` scores its positive 0.9 over its negative
    0.1 (AUC 1), ``a`` its positive 0.2 under its negative 0.8 (AUC 0): GAUC =
    (2·1 + 2·0) / 4 = 0.5 (merged, 3 of 4 pairs: 0.75)."""
    import polars_rank as pr

    df = pl.DataFrame({"y": [1, 0, 0, 1], "p": [0.9, 0.1, 0.8, 0.2], "g": ["A", "A", "a", "a"]})
    con = duckdb.connect()
    con.execute("SET default_collation = 'nocase'")
    got = pr.evaluate_classification(
        df, ["GAUC"], label="y", score="p", group="g", engine="duckdb", con=con
    )
    assert got.item() == pytest.approx(0.5, abs=1e-12)
    frame = cls.group_auc(df, "g", "y", "p", engine="duckdb", con=con).row(0, named=True)
    assert frame["group_auc"] == pytest.approx(0.5, abs=1e-12)


def test_null_segments_sort_first_everywhere():
    """A NULL ``by`` value is a segment of its own and sorts first, column by column, in the
    Polars functions, ``engine="duckdb"``, the ``cls_*`` table macros called by hand and the
    compiled SQL (``to_sql``, ``curve_sql``): the same row order everywhere. By hand, the
    segments (s, n) sorted with nulls first in s, then in n: (null, null), (null, 1),
    ('a', null), ('a', 2), ('b', 1)."""
    import polars_rank as pr

    df = pl.DataFrame(
        {
            "s": ["b", None, "a", "b", None, "a", None, "a", "a", None],
            "n": [1, 1, None, 1, None, None, 1, 2, 2, None],
            "y": [1, 0, 1, 0, 1, 0, 1, 1, 0, 0],
            "p": [0.9, 0.2, 0.3, 0.4, 0.8, 0.1, 0.7, 0.6, 0.5, 0.3],
            "q": [1, 0, 0, 0, 1, 1, 1, 1, 0, 1],
        }
    )
    segments = [(None, None), (None, 1), ("a", None), ("a", 2), ("b", 1)]
    by = ["s", "n"]
    con = duckdb.connect()
    prd.register(con)
    con.register("preds", df)

    def order(frame: pl.DataFrame) -> list[tuple]:
        return frame.select(by).unique(maintain_order=True).rows()

    for function, args in (
        (cls.roc_curve, ("y", "p")),
        (cls.precision_recall_curve, ("y", "p")),
        (cls.confusion_matrix, ("y", "q")),
        (cls.classification_report, ("y", "q")),
    ):
        expected = function(df, *args, by=by)
        assert order(expected) == segments, function.__name__
        assert_frame_close(function(df, *args, by=by, engine="duckdb", con=con), expected)
        got = con.sql(
            f"SELECT * FROM cls_{function.__name__}('preds', '{args[0]}', '{args[1]}', ['s', 'n'])"
        )
        assert_frame_close(got.pl().select(expected.columns), expected)
    for curve in ("roc", "pr"):
        got = con.sql(pr.curve_sql(curve, "duckdb", "preds", label="y", score="p", by=by)).pl()
        assert order(got) == segments
    metrics = ["AUC", "F1"]
    expected = pr.evaluate_classification(df, metrics, label="y", score="p", by=by)
    assert order(expected) == segments
    sql = pr.to_sql(metrics, "duckdb", predictions="preds", label="y", score="p", by=by)
    assert order(con.sql(sql).pl()) == segments
