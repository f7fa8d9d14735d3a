"""Frame-level classification results as Polars frames: curves, GAUC, confusion tables,
reports.

Every function takes and returns a LazyFrame; the public wrappers in
:mod:`polars_rank.classification` accept DataFrames too and pick the engine. Groups (``by``)
come out sorted by their keys (nulls first).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from polars_rank.classification.binary import check_zero_division, roc_auc
from polars_rank.core.errors import PolarsRankError, bad_choice

if TYPE_CHECKING:
    pass

_ALL = "__cls_all"  # constant group key when there is no ``by``


def _keys(by: list[str]) -> list[str]:
    return by or [_ALL]


def _with_keys(lf: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    return lf if by else lf.with_columns(pl.lit(0, dtype=pl.Int8).alias(_ALL))


def _drop_keys(lf: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    return lf if by else lf.drop(_ALL)


def validate_binary(
    lf: pl.LazyFrame, label: str, score: str | None = None, *, probability: bool = False
) -> None:
    """Raise :class:`PolarsRankError` naming the column when labels are not in {0, 1}, scores
    are NaN, or (``probability=True``) scores lie outside [0, 1]. Nulls are allowed (skipped by
    every metric)."""
    schema = lf.collect_schema()
    for name in (label, score):
        if name is not None and name not in schema:
            raise PolarsRankError(f"column {name!r} not found; columns are {schema.names()}")
    for name, what in ((label, "label"), (score, "score")):
        if name is None:
            continue
        dtype = schema[name]
        if not (dtype.is_numeric() or dtype in (pl.Boolean, pl.Null)):
            shown = lf.select(pl.col(name).drop_nulls().head(3)).collect().to_series().to_list()
            needs = "0/1 (or booleans)" if what == "label" else "numbers"
            raise PolarsRankError(
                f"{what} column {name!r} must hold {needs}, got {dtype} values, e.g. {shown}"
                + (" (map them to 0/1 first)" if what == "label" else "")
            )
    y = pl.col(label).cast(pl.Float64)
    checks = [(~y.is_in([0.0, 1.0])).sum().alias("bad_label")]
    if score is not None:
        s = pl.col(score).cast(pl.Float64)
        checks.append(s.is_nan().sum().alias("nan_score"))
        checks.append(((s < 0) | (s > 1)).sum().alias("out_of_range"))
    found = lf.select(checks).collect().row(0, named=True)
    if found["bad_label"]:
        bad = lf.select(pl.col(label)).filter(~y.is_in([0.0, 1.0])).head(3).collect()
        raise PolarsRankError(
            f"label column {label!r} must hold 0/1 (or booleans); "
            f"{found['bad_label']} rows do not, e.g. {bad.to_series().to_list()}"
        )
    if score is not None and found["nan_score"]:
        raise PolarsRankError(f"score column {score!r} has {found['nan_score']} NaN values")
    if score is not None and probability and found["out_of_range"]:
        raise PolarsRankError(
            f"probability column {score!r} has {found['out_of_range']} values outside [0, 1]"
        )


def check_probabilities(lf: pl.LazyFrame, score: str, metrics: list[str]) -> None:
    """Raise :class:`PolarsRankError` when a score lies outside [0, 1], naming the metrics
    that need probabilities."""
    s = pl.col(score).cast(pl.Float64)
    outside = lf.select(((s < 0) | (s > 1)).sum()).collect().item()
    if outside:
        raise PolarsRankError(
            f"{', '.join(metrics)} needs probabilities: score column {score!r} has {outside} "
            "values outside [0, 1]"
        )


def _points(lf: pl.LazyFrame, label: str, score: str, by: list[str]) -> pl.LazyFrame:
    """Distinct scores per group, highest first, with cumulative tps / fps at or above each,
    the position ``i`` (0 = highest) and the number of points ``k`` of the group."""
    keys = _keys(by)
    y = (pl.col(label).cast(pl.Float64) == 1).alias("__y")
    s = pl.col(score).cast(pl.Float64).alias("__s")
    return (
        _with_keys(lf, by)
        .select(*keys, y, s)
        .drop_nulls(["__y", "__s"])
        .group_by(*keys, "__s")
        .agg(
            pl.col("__y").sum().cast(pl.Int64).alias("__pos"), pl.len().cast(pl.Int64).alias("__n")
        )
        .sort(*keys, "__s", descending=[False] * len(keys) + [True], nulls_last=False)
        .with_columns(
            pl.col("__pos").cum_sum().over(keys).alias("__tps"),
            (pl.col("__n") - pl.col("__pos")).cum_sum().over(keys).alias("__fps"),
            pl.int_range(pl.len()).over(keys).alias("__i"),
            pl.len().over(keys).alias("__k"),
        )
    )


def _ends(extra: pl.Expr) -> pl.Expr:
    """Keep a point: first, last, any point of a group with <= 2 points, or ``extra``."""
    i, k = pl.col("__i"), pl.col("__k")
    return (k <= 2) | (i == 0) | (i == k - 1) | extra.fill_null(False)


def roc_curve(
    lf: pl.LazyFrame, label: str, score: str, by: list[str], drop_intermediate: bool
) -> pl.LazyFrame:
    """``by..., threshold, fpr, tpr`` as scikit-learn's ``roc_curve``."""
    keys = _keys(by)
    pts = _points(lf, label, score, by)
    if drop_intermediate:

        def second_diff(c: str) -> pl.Expr:
            return (pl.col(c).shift(1) - 2 * pl.col(c) + pl.col(c).shift(-1)).over(keys) != 0

        pts = pts.filter(_ends(second_diff("__fps") | second_diff("__tps")))
    pts = pts.select(
        *keys,
        (pl.col("__i") + 1).alias("__order"),
        pl.col("__s").alias("threshold"),
        "__fps",
        "__tps",
    )
    first = (
        pts.select(keys)
        .unique()
        .with_columns(
            pl.lit(0, dtype=pl.Int64).alias("__order"),
            pl.lit(float("inf"), dtype=pl.Float64).alias("threshold"),
            pl.lit(0, dtype=pl.Int64).alias("__fps"),
            pl.lit(0, dtype=pl.Int64).alias("__tps"),
        )
    )
    out = pl.concat([first, pts.with_columns(pl.col("__order").cast(pl.Int64))]).sort(
        *keys, "__order", nulls_last=False
    )

    def rate(c: str) -> pl.Expr:
        total = pl.col(c).max().over(keys)
        return pl.when(total > 0).then(pl.col(c).cast(pl.Float64) / total.cast(pl.Float64))

    out = out.select(*keys, "threshold", rate("__fps").alias("fpr"), rate("__tps").alias("tpr"))
    return _drop_keys(out, by)


def precision_recall_curve(
    lf: pl.LazyFrame, label: str, score: str, by: list[str], drop_intermediate: bool
) -> pl.LazyFrame:
    """``by..., threshold, precision, recall`` as scikit-learn's ``precision_recall_curve``,
    thresholds increasing, then the closing point (threshold null, precision 1, recall 0)."""
    keys = _keys(by)
    pts = _points(lf, label, score, by).with_columns(pl.col("__tps").max().over(keys).alias("__np"))
    if drop_intermediate:
        tps = pl.col("__tps")
        turn = ((tps != tps.shift(1)) | (tps != tps.shift(-1))).over(keys)
        pts = pts.filter(_ends(turn))
    pts = pts.select(
        *keys,
        (-pl.col("__i")).cast(pl.Int64).alias("__order"),
        pl.col("__s").alias("threshold"),
        (pl.col("__tps") / (pl.col("__tps") + pl.col("__fps"))).alias("precision"),
        pl.when(pl.col("__np") > 0)
        .then(pl.col("__tps") / pl.col("__np"))
        .cast(pl.Float64)
        .alias("recall"),
    )
    last = (
        pts.select(keys)
        .unique()
        .with_columns(
            pl.lit(1, dtype=pl.Int64).alias("__order"),
            pl.lit(None, dtype=pl.Float64).alias("threshold"),
            pl.lit(1.0, dtype=pl.Float64).alias("precision"),
            pl.lit(0.0, dtype=pl.Float64).alias("recall"),
        )
    )
    out = pl.concat([pts, last]).sort(*keys, "__order", nulls_last=False).drop("__order")
    return _drop_keys(out, by)


def group_auc(
    tbl: pl.LazyFrame,
    grp: str | Sequence[str],
    label: str,
    score: str,
    weight: str = "impressions",
    *,
    by: Sequence[str] = (),
) -> pl.LazyFrame:
    """``[by...,] group_auc, groups_used, groups_left_out, impressions_used``: one row (one
    per ``by`` segment, in no set order). GAUC = Σ_g n_g·AUC_g / Σ_g n_g over the groups
    ``grp`` with both classes (n_g: rows with label and score), or the plain mean of their AUC
    with ``weight="uniform"``; null when no group has both classes.

    >>> lf = pl.LazyFrame({"u": [1, 1, 2, 2, 2], "y": [0, 1, 1, 0, 1], "p": [.2, .7, .3, .3, .9]})
    >>> group_auc(lf, "u", "y", "p").collect().rows()  # (2 * 1.0 + 3 * 0.75) / 5
    [(0.85, 2, 0, 5)]
    """
    groups = [grp] if isinstance(grp, str) else list(grp)
    segments = list(by)
    both = pl.col(label).is_not_null() & pl.col(score).is_not_null()
    per_group = tbl.group_by(*dict.fromkeys([*segments, *groups])).agg(
        roc_auc(label, score).alias("__cls_auc"), both.sum().cast(pl.Int64).alias("__cls_n")
    )
    auc, n = pl.col("__cls_auc"), pl.col("__cls_n")
    used = auc.is_not_null()
    n_used = n.filter(used)
    if weight == "impressions":
        value = (auc * n).filter(used).sum() / n_used.sum().cast(pl.Float64)
    elif weight == "uniform":
        value = auc.mean()
    else:
        raise bad_choice("weight", weight, ("impressions", "uniform"))
    summary = [
        pl.when(used.any()).then(value).alias("group_auc"),
        used.sum().cast(pl.Int64).alias("groups_used"),
        (~used).sum().cast(pl.Int64).alias("groups_left_out"),
        n_used.sum().cast(pl.Int64).alias("impressions_used"),
    ]
    if segments:
        return per_group.group_by(segments).agg(summary)
    return per_group.select(summary)


def _pairs(lf: pl.LazyFrame, actual: str, predicted: str, by: list[str]) -> pl.LazyFrame:
    keys = _keys(by)
    return (
        _with_keys(lf, by)
        .select(*keys, pl.col(actual).alias("__a"), pl.col(predicted).alias("__p"))
        .drop_nulls(["__a", "__p"])
    )


def _class_counts(pairs: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Per (group, class ``__c``): ``__t`` correct, ``__na`` actual, ``__np`` predicted."""
    by_actual = pairs.group_by(*keys, pl.col("__a").alias("__c")).agg(
        (pl.col("__a") == pl.col("__p")).sum().cast(pl.Int64).alias("__t"),
        pl.len().cast(pl.Int64).alias("__na"),
    )
    by_pred = pairs.group_by(*keys, pl.col("__p").alias("__c")).agg(
        pl.len().cast(pl.Int64).alias("__np")
    )
    return by_actual.join(
        by_pred, on=[*keys, "__c"], how="full", coalesce=True, nulls_equal=True
    ).with_columns(pl.col("__t", "__na", "__np").fill_null(0))


def confusion_matrix(lf: pl.LazyFrame, actual: str, predicted: str, by: list[str]) -> pl.LazyFrame:
    """``by..., actual, predicted, count`` for every pair of the group's labels (zeros too)."""
    keys = _keys(by)
    pairs = _pairs(lf, actual, predicted, by)
    classes = _class_counts(pairs, keys).select(*keys, "__c")
    grid = classes.rename({"__c": "actual"}).join(
        classes.rename({"__c": "predicted"}), on=keys, nulls_equal=True
    )
    counts = pairs.group_by(*keys, "__a", "__p").agg(pl.len().cast(pl.Int64).alias("count"))
    out = (
        grid.join(
            counts.rename({"__a": "actual", "__p": "predicted"}),
            on=[*keys, "actual", "predicted"],
            how="left",
            nulls_equal=True,
        )
        .with_columns(pl.col("count").fill_null(0))
        .sort(*keys, "actual", "predicted", nulls_last=False)
    )
    return _drop_keys(out, by)


def classification_report(
    lf: pl.LazyFrame, actual: str, predicted: str, by: list[str], zero_division: float
) -> pl.LazyFrame:
    """``by..., class, precision, recall, f1, support`` per class of each group."""
    zd = check_zero_division(zero_division)
    keys = _keys(by)
    counts = _class_counts(_pairs(lf, actual, predicted, by), keys)

    def div(num: pl.Expr, den: pl.Expr) -> pl.Expr:
        return (
            pl.when(den > 0)
            .then(num.cast(pl.Float64) / den.cast(pl.Float64))
            .otherwise(pl.lit(zd, dtype=pl.Float64))
        )

    t, a, p = pl.col("__t"), pl.col("__na"), pl.col("__np")
    out = counts.select(
        *keys,
        pl.col("__c").alias("class"),
        div(t, p).alias("precision"),
        div(t, a).alias("recall"),
        div(2 * t, a + p).alias("f1"),
        a.alias("support"),
    ).sort(*keys, "class", nulls_last=False)
    return _drop_keys(out, by)


def check_weights(lf: pl.LazyFrame, weight: str) -> None:
    """Raise :class:`PolarsRankError` naming the column when sample weights are not numbers,
    or are negative, NaN or infinite (null weights are skipped rows)."""
    dtype = lf.collect_schema()[weight]
    if not dtype.is_numeric():
        raise PolarsRankError(f"weight column {weight!r} must hold numbers, got {dtype} values")
    w = pl.col(weight).cast(pl.Float64)
    bad = lf.select(((w < 0) | w.is_nan() | w.is_infinite()).sum()).collect().item()
    if bad:
        raise PolarsRankError(
            f"weight column {weight!r} has {bad} negative, NaN or infinite values"
        )
