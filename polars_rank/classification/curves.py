"""Numbers read off ROC and precision–recall curve frames, per group, for the plots: the area
under each curve, and the mean curve with its spread when there are too many groups to draw.

Curve frames are those of :func:`polars_rank.classification.roc_curve` (``fpr, tpr``) and
:func:`polars_rank.classification.precision_recall_curve` (``recall, precision``), with any
group key columns. A group whose rates are null (one class only) has no curve and no area.

>>> roc = pl.DataFrame({"fpr": [0.0, 0.0, 0.5, 1.0], "tpr": [0.0, 0.5, 1.0, 1.0]})
>>> roc_areas(roc, []).item()  # 0.5 * (0.5 + 1.0) / 2 + 0.5 * 1.0
0.875
"""

from __future__ import annotations

import polars as pl

#: x positions where the mean curve of many groups is evaluated.
GRID = [i / 100 for i in range(101)]


def defined(curve: pl.DataFrame, keys: list[str], x: str, y: str) -> pl.DataFrame:
    """The groups whose curve is defined: no null rate (a group with one class has none)."""
    broken = (pl.col(x).is_null() | pl.col(y).is_null()).any()
    return curve.filter(~(broken.over(keys) if keys else broken))


def roc_areas(curve: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """``keys..., auc``: the trapezoidal area under each group's ROC points (in ``(fpr, tpr)``
    order), which is the AUC (a tied positive/negative pair counts ½, the diagonal step)."""
    points = defined(curve, keys, "fpr", "tpr").sort([*keys, "fpr", "tpr"], maintain_order=True)
    width = pl.col("fpr") - pl.col("fpr").shift(1)
    height = (pl.col("tpr") + pl.col("tpr").shift(1)) / 2
    if keys:
        width, height = width.over(keys), height.over(keys)
    area = (width * height).sum().alias("auc")
    return points.group_by(keys, maintain_order=True).agg(area) if keys else points.select(area)


def pr_areas(curve: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """``keys..., ap``: average precision from each group's precision–recall points,
    Σ (r_j − r_{j−1}) · P(r_j) over the distinct recalls r_j, where P(r_j) is the precision
    where recall first reaches r_j (the highest precision at that recall) — scikit-learn's
    ``average_precision_score``, step-wise, not interpolated."""
    points = (
        defined(curve, keys, "recall", "precision")
        .group_by([*keys, "recall"])
        .agg(pl.col("precision").max())
        .sort([*keys, "recall"])
    )
    step = pl.col("recall") - pl.col("recall").shift(1).fill_null(0.0)
    if keys:
        step = step.over(keys)
    area = (step * pl.col("precision")).sum().alias("ap")
    return points.group_by(keys, maintain_order=True).agg(area) if keys else points.select(area)


def _grid(curve: pl.DataFrame, keys: list[str], x: str) -> pl.DataFrame:
    groups = curve.select(keys).unique()
    return groups.join(pl.DataFrame({x: GRID}), how="cross").sort(x)


def mean_roc(curve: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """``fpr, mean, low, high, groups`` on :data:`GRID`: the mean true positive rate over the
    groups at each false positive rate, and its 10th and 90th percentiles. Each group's curve
    is read as drawn: straight segments between its points, the upper point of a vertical
    step."""
    points = (
        defined(curve, keys, "fpr", "tpr")
        .group_by([*keys, "fpr"])
        .agg(pl.col("tpr").min().alias("low_tpr"), pl.col("tpr").max().alias("high_tpr"))
        .sort("fpr")
    )
    grid = _grid(points, keys, "fpr").rename({"fpr": "x"})
    left = grid.join_asof(
        points.rename({"fpr": "left"}),
        left_on="x",
        right_on="left",
        by=keys,
        strategy="backward",
        check_sortedness=False,  # sorted by the key, hence within each group
    )
    both = left.join_asof(
        points.select(*keys, pl.col("fpr").alias("right"), pl.col("low_tpr").alias("right_tpr")),
        left_on="x",
        right_on="right",
        by=keys,
        strategy="forward",
        allow_exact_matches=False,
        check_sortedness=False,
    )
    share = (pl.col("x") - pl.col("left")) / (pl.col("right") - pl.col("left"))
    tpr = (
        pl.when(pl.col("right").is_null())
        .then(pl.col("high_tpr"))
        .otherwise(pl.col("high_tpr") + share * (pl.col("right_tpr") - pl.col("high_tpr")))
    )
    return _spread(both.with_columns(tpr.alias("y")), "fpr")


def mean_pr(curve: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """``recall, mean, low, high, groups`` on :data:`GRID`: the mean over the groups of the
    interpolated precision (the highest precision at a recall at least r) at each recall r,
    and its 10th and 90th percentiles."""
    points = (
        defined(curve, keys, "recall", "precision")
        .group_by([*keys, "recall"])
        .agg(pl.col("precision").max())
        .sort([*keys, "recall"], descending=True)
    )
    envelope = pl.col("precision").cum_max()
    points = points.with_columns(envelope.over(keys) if keys else envelope).sort("recall")
    grid = _grid(points, keys, "recall").rename({"recall": "x"})
    joined = grid.join_asof(
        points.rename({"recall": "at"}),
        left_on="x",
        right_on="at",
        by=keys,
        strategy="forward",
        check_sortedness=False,
    )
    return _spread(joined.with_columns(pl.col("precision").fill_null(0.0).alias("y")), "recall")


def _spread(values: pl.DataFrame, x: str) -> pl.DataFrame:
    return (
        values.group_by("x")
        .agg(
            pl.col("y").mean().alias("mean"),
            pl.col("y").quantile(0.1, "linear").alias("low"),
            pl.col("y").quantile(0.9, "linear").alias("high"),
            pl.len().alias("groups"),
        )
        .sort("x")
        .rename({"x": x})
    )
