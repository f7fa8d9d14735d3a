"""Classification and click-through metrics: Polars expressions and equal DuckDB SQL macros.

>>> import polars as pl
>>> import polars_rank.classification as cls
>>> df = pl.DataFrame({"user": [1, 1, 2, 2], "clicked": [0, 1, 1, 0], "p": [0.2, 0.7, 0.4, 0.6]})
>>> df.group_by("user", maintain_order=True).agg(cls.roc_auc("clicked", "p")).rows()
[(1, 1.0), (2, 0.0)]

Scalar metrics are functions returning a ``pl.Expr`` (truth first, as in scikit-learn), usable
in ``select`` and inside ``group_by(...).agg(...)``. Curves, GAUC, confusion tables and the
per-class report are frame-level functions: DataFrame or LazyFrame in, the same kind out,
computed by Polars (``engine="polars"``) or by the macros of ``sql/classification.sql``
(``engine="duckdb"``, on ``con`` or a fresh in-memory connection). With ``engine="duckdb"``
they also take what :func:`polars_rank.evaluate_classification` takes there: a table or view
name on ``con`` (a table reference only, read as ``con`` reads it; refused inside an open
transaction of ``con``), a DuckDB relation or a ``.parquet`` path, and return a DataFrame.

Conventions:

* label: 1 (or ``True``) is positive, any other value negative. Expressions do not check
  their input; the frame-level functions check it, and :func:`validate_binary` raises a
  :class:`~polars_rank.PolarsRankError` naming the column for labels outside {0, 1}, NaN scores
  or probabilities outside [0, 1].
* A row whose label or score is null is skipped.
* Thresholded metrics predict positive when ``score >= threshold`` (default 0.5) — scikit-learn's
  convention for thresholds (``roc_curve``, ``FixedThresholdClassifier``). A 0/1 predicted-label
  column works as the score.
* ``zero_division`` (0.0, 1.0 or NaN, as scikit-learn) is the value of a 0/0 ratio.
* Undefined ranking metrics are null, never NaN and never an error: ``roc_auc`` of a group with
  one class, ``average_precision`` of a group without positives (scikit-learn returns 0.0
  there), any metric of a group with no rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeVar, overload

import duckdb
import polars as pl

from polars_rank.classification import frames as _frames
from polars_rank.classification.binary import (
    EPS,
    accuracy,
    average_precision,
    confusion,
    f1,
    fbeta,
    fn,
    fp,
    log_loss,
    precision,
    recall,
    roc_auc,
    specificity,
    tn,
    tp,
)
from polars_rank.classification.implementations import implementation
from polars_rank.classification.multiclass import (
    multiclass_accuracy,
    multiclass_f1,
    multiclass_fbeta,
    multiclass_precision,
    multiclass_recall,
)
from polars_rank.core.errors import PolarsRankError, bad_choice
from polars_rank.core.frames import like as _like
from polars_rank.core.frames import to_lazy
from polars_rank.duckdb import define

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)
Engine = Literal["polars", "duckdb"]
#: What the frame-level functions take: a frame, or with ``engine="duckdb"`` a table or view
#: name on ``con``, a DuckDB relation or a ``.parquet`` path.
Input = pl.DataFrame | pl.LazyFrame | str | duckdb.DuckDBPyRelation

__all__ = [
    "EPS",
    "accuracy",
    "average_precision",
    "classification_report",
    "confusion",
    "confusion_matrix",
    "f1",
    "fbeta",
    "fn",
    "fp",
    "group_auc",
    "log_loss",
    "multiclass_accuracy",
    "multiclass_f1",
    "multiclass_fbeta",
    "multiclass_precision",
    "multiclass_recall",
    "precision",
    "precision_recall_curve",
    "recall",
    "register",
    "roc_auc",
    "roc_curve",
    "specificity",
    "tn",
    "tp",
    "validate_binary",
]


def register(
    con: duckdb.DuckDBPyConnection, *, schema: str | None = None, prefix: str = ""
) -> duckdb.DuckDBPyConnection:
    """Create (or replace) every ``cls_*`` macro of ``sql/classification.sql`` on ``con``.

    ``schema="pr"`` creates them in that schema (created if missing): ``pr.cls_roc_auc(...)``;
    ``prefix="x_"`` names them ``x_cls_roc_auc``, ...; each macro calls the others by the same
    rule (see :func:`polars_rank.duckdb.register`). The frame functions' ``engine="duckdb"``
    does not need this: it leaves ``con`` as it was.
    """
    return define(con, ["classification.sql"], schema=schema, prefix=prefix)


def _lazy(frame: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    return to_lazy(frame, "the input")


def _by(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def _check_columns(lf: pl.LazyFrame, names: list[str]) -> None:
    schema = lf.collect_schema()
    for name in names:
        if name not in schema:
            raise PolarsRankError(f"column {name!r} not found; columns are {schema.names()}")


def validate_binary(
    df: Frame, label: str, score: str | None = None, *, probability: bool = False
) -> Frame:
    """Check a binary-classification frame and return it unchanged.

    Raises :class:`~polars_rank.PolarsRankError` naming the column when ``label`` holds values
    other than 0/1 (booleans are fine), ``score`` holds NaN, or — with ``probability=True`` —
    ``score`` lies outside [0, 1]. Nulls pass (every metric skips them). A LazyFrame is
    checked by running one small aggregation. SQL: ``SELECT cls_check_binary(label, score,
    probability := true) FROM t``.

    >>> validate_binary(pl.DataFrame({"y": [0, 2], "p": [0.1, 0.3]}), "y", "p")
    Traceback (most recent call last):
    ...
    polars_rank.core.errors.PolarsRankError: label column 'y' must hold 0/1 (or booleans); 1 rows do not, e.g. [2]
    """  # noqa: E501
    _frames.validate_binary(_lazy(df), label, score, probability=probability)
    return df


def _curve(
    df: Input,
    label: str,
    score: str,
    by: str | Sequence[str] | None,
    drop_intermediate: bool,
    engine: Engine,
    con: duckdb.DuckDBPyConnection | None,
    kind: str,
) -> pl.DataFrame | pl.LazyFrame:
    """A curve (``kind``: ``roc_curve`` or ``precision_recall_curve``) from the engine's
    implementation (:mod:`polars_rank.classification.implementations`), after the input
    checks."""
    impl = implementation(engine)
    lf, template = impl.read(df, con)
    groups: list[str] = _by(by)  # annotated: mypy#21693 (*x in a constrained generic)
    _check_columns(lf, [label, score, *groups])
    _frames.validate_binary(lf, label, score)
    return _like(impl.curve(lf, kind, label, score, groups, drop_intermediate, con), template)


@overload
def roc_curve(
    df: Frame,
    label: str,
    score: str,
    *,
    by: str | Sequence[str] | None = ...,
    drop_intermediate: bool = ...,
    engine: Engine = ...,
    con: duckdb.DuckDBPyConnection | None = ...,
) -> Frame: ...
@overload
def roc_curve(
    df: str | duckdb.DuckDBPyRelation,
    label: str,
    score: str,
    *,
    by: str | Sequence[str] | None = ...,
    drop_intermediate: bool = ...,
    engine: Engine = ...,
    con: duckdb.DuckDBPyConnection | None = ...,
) -> pl.DataFrame: ...
def roc_curve(
    df: Input,
    label: str,
    score: str,
    *,
    by: str | Sequence[str] | None = None,
    drop_intermediate: bool = True,
    engine: Engine = "polars",
    con: duckdb.DuckDBPyConnection | None = None,
) -> pl.DataFrame | pl.LazyFrame:
    """ROC curve points ``[by...,] threshold, fpr, tpr`` — scikit-learn's ``roc_curve``.

    The first point of each group is (threshold = +inf, fpr = 0, tpr = 0); then one point per
    distinct score, highest first (positive when ``score >= threshold``); with
    ``drop_intermediate`` (scikit-learn's default) points collinear with both neighbours go.
    fpr (tpr) is null in a group without negatives (positives) — scikit-learn gives NaN.

    >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "p": [0.1, 0.4, 0.35, 0.8]})
    >>> roc_curve(df, "y", "p")["tpr"].to_list()
    [0.0, 0.5, 0.5, 1.0, 1.0]
    """
    return _curve(df, label, score, by, drop_intermediate, engine, con, "roc_curve")


@overload
def precision_recall_curve(
    df: Frame,
    label: str,
    score: str,
    *,
    by: str | Sequence[str] | None = ...,
    drop_intermediate: bool = ...,
    engine: Engine = ...,
    con: duckdb.DuckDBPyConnection | None = ...,
) -> Frame: ...
@overload
def precision_recall_curve(
    df: str | duckdb.DuckDBPyRelation,
    label: str,
    score: str,
    *,
    by: str | Sequence[str] | None = ...,
    drop_intermediate: bool = ...,
    engine: Engine = ...,
    con: duckdb.DuckDBPyConnection | None = ...,
) -> pl.DataFrame: ...
def precision_recall_curve(
    df: Input,
    label: str,
    score: str,
    *,
    by: str | Sequence[str] | None = None,
    drop_intermediate: bool = False,
    engine: Engine = "polars",
    con: duckdb.DuckDBPyConnection | None = None,
) -> pl.DataFrame | pl.LazyFrame:
    """Precision-recall points ``[by...,] threshold, precision, recall`` — scikit-learn's
    ``precision_recall_curve``.

    One point per distinct score in increasing threshold order (precision = tps / (tps + fps),
    recall = tps / P), then the closing point (threshold null, precision 1, recall 0) that
    scikit-learn appends without a threshold. recall is null in a group without positives
    (scikit-learn sets it to 1). ``drop_intermediate`` as scikit-learn (default off).

    >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "p": [0.1, 0.4, 0.35, 0.8]})
    >>> precision_recall_curve(df, "y", "p")["recall"].to_list()
    [1.0, 1.0, 0.5, 0.5, 0.0]
    """
    return _curve(
        df,
        label,
        score,
        by,
        drop_intermediate,
        engine,
        con,
        "precision_recall_curve",
    )


@overload
def group_auc(
    df: Frame,
    group: str | Sequence[str],
    label: str,
    score: str,
    *,
    weight: Literal["impressions", "uniform"] = ...,
    engine: Engine = ...,
    con: duckdb.DuckDBPyConnection | None = ...,
) -> Frame: ...
@overload
def group_auc(
    df: str | duckdb.DuckDBPyRelation,
    group: str | Sequence[str],
    label: str,
    score: str,
    *,
    weight: Literal["impressions", "uniform"] = ...,
    engine: Engine = ...,
    con: duckdb.DuckDBPyConnection | None = ...,
) -> pl.DataFrame: ...
def group_auc(
    df: Input,
    group: str | Sequence[str],
    label: str,
    score: str,
    *,
    weight: Literal["impressions", "uniform"] = "impressions",
    engine: Engine = "polars",
    con: duckdb.DuckDBPyConnection | None = None,
) -> pl.DataFrame | pl.LazyFrame:
    """GAUC: per-group ROC AUC averaged with each group's row count (impressions) as weight.

    GAUC = Σ_g n_g·AUC_g / Σ_g n_g over the groups g that have both classes. Returns one row
    ``group_auc, groups_used, groups_left_out, impressions_used``; ``group_auc`` is null when
    no group has both classes. ``weight="uniform"`` gives the plain mean of the groups' AUC.

    >>> df = pl.DataFrame({"u": [1, 1, 2, 2, 2], "y": [0, 1, 1, 0, 1], "p": [.2, .7, .3, .3, .9]})
    >>> group_auc(df, "u", "y", "p").rows()  # (2 * 1.0 + 3 * 0.75) / 5
    [(0.85, 2, 0, 5)]
    """
    impl = implementation(engine)
    if weight not in ("impressions", "uniform"):
        raise bad_choice("weight", weight, ("impressions", "uniform"))
    groups: list[str] = _by(group)  # annotated: mypy#21693 (*x in a constrained generic)
    lf, template = impl.read(df, con)
    _check_columns(lf, [label, score, *groups])
    _frames.validate_binary(lf, label, score)
    return _like(impl.group_auc(lf, groups, label, score, weight, con), template)


def _labels(
    lf: pl.LazyFrame, actual: str, predicted: str, threshold: float | None
) -> tuple[pl.LazyFrame, str, str]:
    """With a threshold: binary actual / predicted 0-1 columns from a label and a score."""
    if threshold is None:
        return lf, actual, predicted
    _frames.validate_binary(lf, actual, predicted)
    y = (pl.col(actual).cast(pl.Float64) == 1).cast(pl.Int64)
    pred = (pl.col(predicted).cast(pl.Float64) >= float(threshold)).cast(pl.Int64)
    return (
        lf.with_columns(y.alias("__cls_actual"), pred.alias("__cls_pred")),
        "__cls_actual",
        ("__cls_pred"),
    )


@overload
def confusion_matrix(
    df: Frame,
    actual: str,
    predicted: str,
    *,
    threshold: float | None = ...,
    by: str | Sequence[str] | None = ...,
    engine: Engine = ...,
    con: duckdb.DuckDBPyConnection | None = ...,
) -> Frame: ...
@overload
def confusion_matrix(
    df: str | duckdb.DuckDBPyRelation,
    actual: str,
    predicted: str,
    *,
    threshold: float | None = ...,
    by: str | Sequence[str] | None = ...,
    engine: Engine = ...,
    con: duckdb.DuckDBPyConnection | None = ...,
) -> pl.DataFrame: ...
def confusion_matrix(
    df: Input,
    actual: str,
    predicted: str,
    *,
    threshold: float | None = None,
    by: str | Sequence[str] | None = None,
    engine: Engine = "polars",
    con: duckdb.DuckDBPyConnection | None = None,
) -> pl.DataFrame | pl.LazyFrame:
    """Confusion matrix as a long table ``[by...,] actual, predicted, count``.

    One row per (actual, predicted) pair of the labels seen in the group (either column),
    zero counts included, sorted — scikit-learn's ``confusion_matrix`` read row by row. With
    ``threshold``, ``actual`` is a 0/1 label and ``predicted`` a score, binarised as
    ``score >= threshold``.

    >>> df = pl.DataFrame({"a": ["cat", "cat", "dog"], "p": ["cat", "dog", "dog"]})
    >>> confusion_matrix(df, "a", "p")["count"].to_list()
    [1, 1, 0, 1]
    """
    groups: list[str] = _by(by)  # annotated: mypy#21693 (*x in a constrained generic)
    impl = implementation(engine)
    lf, template = impl.read(df, con)
    _check_columns(lf, [actual, predicted, *groups])
    lf, a, p = _labels(lf, actual, predicted, threshold)
    return _like(impl.confusion_matrix(lf, a, p, groups, con), template)


@overload
def classification_report(
    df: Frame,
    actual: str,
    predicted: str,
    *,
    zero_division: float = ...,
    by: str | Sequence[str] | None = ...,
    engine: Engine = ...,
    con: duckdb.DuckDBPyConnection | None = ...,
) -> Frame: ...
@overload
def classification_report(
    df: str | duckdb.DuckDBPyRelation,
    actual: str,
    predicted: str,
    *,
    zero_division: float = ...,
    by: str | Sequence[str] | None = ...,
    engine: Engine = ...,
    con: duckdb.DuckDBPyConnection | None = ...,
) -> pl.DataFrame: ...
def classification_report(
    df: Input,
    actual: str,
    predicted: str,
    *,
    zero_division: float = 0.0,
    by: str | Sequence[str] | None = None,
    engine: Engine = "polars",
    con: duckdb.DuckDBPyConnection | None = None,
) -> pl.DataFrame | pl.LazyFrame:
    """Per-class ``[by...,] class, precision, recall, f1, support``.

    scikit-learn's ``precision_recall_fscore_support(actual, predicted, average=None)``: for
    each label seen in the group, precision T/P, recall T/A, F1 2T/(A + P), support A
    (``zero_division`` for 0/0).

    >>> df = pl.DataFrame({"a": ["cat", "cat", "dog"], "p": ["cat", "dog", "dog"]})
    >>> classification_report(df, "a", "p")["precision"].to_list()
    [1.0, 0.5]
    """
    groups: list[str] = _by(by)  # annotated: mypy#21693 (*x in a constrained generic)
    impl = implementation(engine)
    lf, template = impl.read(df, con)
    _check_columns(lf, [actual, predicted, *groups])
    report = impl.classification_report(lf, actual, predicted, groups, zero_division, con)
    return _like(report, template)
