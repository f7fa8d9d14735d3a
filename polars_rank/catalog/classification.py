"""Classification and click-through metrics (:mod:`polars_rank.classification`): AUC, group
AUC, log loss, average precision, and the thresholded metrics with scikit-learn's conventions;
macros in ``sql/classification.sql``.

:func:`polars_rank.evaluate_classification` takes these names (``AUC``, ``GAUC``, ``LogLoss``,
``AP``, ``F1(threshold=0.3)``, ``Fbeta(beta=2)``, ``TP``, ...); :func:`polars_rank.evaluate`
refuses them, naming the entry point that takes them.

>>> from polars_rank.catalog.names import parse_metric
>>> spec = parse_metric("Fbeta(beta=2,threshold=0.3)", scope="classification")
>>> spec.metric, spec.arguments()
('fbeta', {'beta': 2.0, 'threshold': 0.3, 'zero_division': 0.0})
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from polars_rank.catalog.model import REQUIRED, Alias, Metric, Param, alias, with_family
from polars_rank.classification import binary as b
from polars_rank.classification.frames import group_auc

#: Every classification metric runs on every engine and in every dialect: the Polars
#: expressions, the DuckDB macros (with sample weights, the compiled SQL), and the portable
#: SQL of :mod:`polars_rank.compiler.classification`, which the Spark engine runs.
_UNSUPPORTED: tuple[tuple[str, str], ...] = ()


def _finite(value: float) -> bool:
    return math.isfinite(value)


THRESHOLD = Param(
    "threshold",
    0.5,
    doc="predict positive when `score >= threshold`",
    valid=_finite,
    valid_doc="a finite number",
    examples=("0.5", "0.35"),
)
ZERO_DIVISION = Param(
    "zero_division",
    0.0,
    doc="the value of 0/0 (scikit-learn's `zero_division`)",
    valid=lambda v: math.isnan(v) or v in (0.0, 1.0),
    valid_doc="0, 1 or nan (scikit-learn's choices)",
    examples=("0", "1", "nan"),
    nan=True,
)
BETA = Param(
    "beta",
    REQUIRED,
    doc="weight of recall against precision",
    valid=lambda v: math.isfinite(v) and v >= 0,
    valid_doc="a finite number >= 0",
    examples=("0.5", "2"),
)
WEIGHT = Param(
    "weight",
    "impressions",
    {"impressions": "impressions", "uniform": "uniform"},
    "`impressions` (each group weighted by its rows, as DIN's GAUC) or `uniform`",
    kind="choice",
)

_THRESHOLD_RULE = "predicted positive when score >= threshold (default 0.5)"


def _thresholded(
    name: str,
    polars: Callable[..., Any],
    formula: str,
    macro: str,
    title: str,
    aliases: tuple[Alias, ...],
    reference: str,
    *,
    params: tuple[Param, ...] = (THRESHOLD, ZERO_DIVISION),
    count: bool = False,
) -> Metric:
    """An entry of a metric of the confusion counts at a threshold."""
    return Metric(
        name,
        polars,
        f"{formula}; {_THRESHOLD_RULE}",
        params=params,
        relevance_level=False,
        summary="sum" if count else "mean",
        columns=("label", "score"),
        macro=macro,
        aliases=aliases,
        title=title,
        table="predictions",
        inputs=("predictions",),
        reference=reference,
        higher_is_better=None if count else True,
        value_range=(0.0, math.inf) if count else (0.0, 1.0),
        unsupported=_UNSUPPORTED,
    )


def _count(name: str, polars: Callable[..., Any], formula: str, title: str, spelled: str) -> Metric:
    return _thresholded(
        name,
        polars,
        formula,
        f"cls_{name}",
        title,
        (alias(spelled), alias(title.replace(" ", "_"))),
        f"scikit-learn confusion_matrix(y, score >= threshold).ravel() = (tn, fp, fn, tp): "
        f"its {name}",
        params=(THRESHOLD,),
        count=True,
    )


def _probability(
    name: str,
    polars: Callable[..., Any],
    formula: str,
    aliases: tuple[Alias, ...],
    title: str,
    reference: str,
    *,
    higher_is_better: bool | None,
    value_range: tuple[float, float] = (0.0, 1.0),
) -> Metric:
    """An entry of a metric of probabilities (no threshold)."""
    return Metric(
        name,
        polars,
        formula,
        relevance_level=False,
        columns=("label", "probability"),
        macro=f"cls_{name}",
        aliases=aliases,
        title=title,
        table="predictions",
        inputs=("predictions",),
        reference=reference,
        higher_is_better=higher_is_better,
        value_range=value_range,
        unsupported=_UNSUPPORTED,
    )


#: What each column an entry names (:attr:`~polars_rank.catalog.model.Metric.columns`) is
#: bound to by :func:`polars_rank.evaluate_classification`.
LABEL, SCORE, PROBABILITY, GROUP = "label", "score", "probability", "grp"


def bindings(label: str, score: str, group: list[str]) -> dict[str, str | list[str]]:
    """The input column of each column name the catalog's entries use."""
    return {LABEL: label, SCORE: score, PROBABILITY: score, GROUP: group}


_ENTRIES: tuple[Metric, ...] = (
    Metric(
        "roc_auc",
        b.roc_auc,
        "Mann–Whitney U / (P·N): the share of (positive, negative) pairs whose positive "
        "scores higher, a tied pair counting 1/2 (average ranks), scikit-learn's value; null "
        "when a class is missing (scikit-learn: NaN and a warning)",
        relevance_level=False,
        columns=("label", "score"),
        macro="cls_roc_auc",
        aliases=(alias("AUC"), alias("roc_auc", "sklearn"), alias("AUROC")),
        title="ROC AUC",
        table="predictions",
        inputs=("predictions",),
        reference="scikit-learn roc_auc_score; Mann & Whitney 1947 (U statistic)",
        unsupported=_UNSUPPORTED,
    ),
    Metric(
        "group_auc",
        group_auc,
        "Σ_g n_g·AUC_g / Σ_g n_g over the groups g (e.g. users) with both classes, n_g the "
        "group's rows with label and score; groups with one class are left out; null when no "
        "group has both. weight=uniform: the plain mean of the groups' AUC",
        params=(WEIGHT,),
        relevance_level=False,
        columns=("grp", "label", "score"),
        tables=("tbl",),
        macro="cls_group_auc",
        aliases=(alias("GAUC"), alias("group_auc")),
        title="group AUC",
        table="predictions",
        inputs=("predictions",),
        reference="Zhou et al. 2018, Deep Interest Network (KDD): user-weighted GAUC; "
        "polars_rank.classification.group_auc",
        unsupported=_UNSUPPORTED,
    ),
    Metric(
        "log_loss",
        b.log_loss,
        "mean of −ln(p) over positives and −ln(1 − p) over negatives (natural log), p and "
        "1 − p clipped to [ε, 1 − ε], ε = 2⁻⁵² (scikit-learn 1.9); scores must be "
        "probabilities in [0, 1]",
        relevance_level=False,
        columns=("label", "probability"),
        macro="cls_log_loss",
        aliases=(alias("LogLoss"), alias("log_loss", "sklearn"), alias("cross_entropy")),
        title="log loss",
        table="predictions",
        inputs=("predictions",),
        reference="scikit-learn log_loss",
        higher_is_better=False,
        value_range=(0.0, math.inf),
        unsupported=_UNSUPPORTED,
    ),
    _probability(
        "brier_score",
        b.brier_score,
        "mean of (p − y)² over the rows (y = 1 for a positive, 0 otherwise); scores must be "
        "probabilities in [0, 1]",
        (alias("Brier"), alias("brier_score_loss", "sklearn"), alias("brier_score")),
        "Brier score",
        "scikit-learn brier_score_loss; Brier 1950",
        higher_is_better=False,
    ),
    _probability(
        "normalized_entropy",
        b.normalized_entropy,
        "log loss / H(r), H(r) = −(r·ln r + (1 − r)·ln(1 − r)) the entropy of the base rate r "
        "(share of positives): below 1 when the model beats predicting r for every row; null "
        "when a class is missing",
        (alias("NE"), alias("normalized_entropy"), alias("normalized_cross_entropy")),
        "normalized entropy",
        "He et al. 2014, Practical Lessons from Predicting Clicks on Ads at Facebook (ADKDD); "
        "= scikit-learn log_loss(y, p) / log_loss(y, [r] * n)",
        higher_is_better=False,
        value_range=(0.0, math.inf),
    ),
    _probability(
        "calibration",
        b.calibration,
        "predicted over observed rate, Σ p / Σ y (mean score / share of positives): 1 when "
        "calibrated on average; null without positives",
        (alias("calibration"), alias("calibration_ratio"), alias("pred_over_obs")),
        "calibration",
        "He et al. 2014 (calibration: average estimated CTR / empirical CTR)",
        higher_is_better=None,
        value_range=(0.0, math.inf),
    ),
    Metric(
        "average_precision",
        b.average_precision,
        "scikit-learn's step rule Σ (R_k − R_{k−1})·P_k over the distinct scores from the top "
        "(tied scores are one threshold, no interpolation) = the mean over positives of "
        "(positives with score ≥ s) / (rows with score ≥ s); null without positives "
        "(scikit-learn: 0)",
        relevance_level=False,
        columns=("label", "score"),
        macro="cls_average_precision",
        aliases=(alias("AP"), alias("average_precision", "sklearn")),
        title="average precision",
        table="predictions",
        inputs=("predictions",),
        reference="scikit-learn average_precision_score",
        unsupported=_UNSUPPORTED,
    ),
    _thresholded(
        "accuracy",
        b.accuracy,
        "(TP + TN) / n; null for no rows",
        "cls_accuracy",
        "accuracy",
        (alias("accuracy", "sklearn"), alias("acc")),
        "scikit-learn accuracy_score(y, score >= threshold)",
        params=(THRESHOLD,),
    ),
    _thresholded(
        "precision",
        b.precision,
        "TP / (TP + FP); zero_division when nothing is predicted positive",
        "cls_precision",
        "precision",
        (alias("precision", "sklearn"), alias("PPV")),
        "scikit-learn precision_score(y, score >= threshold)",
    ),
    _thresholded(
        "recall",
        b.recall,
        "TP / (TP + FN); zero_division without positives",
        "cls_recall",
        "recall",
        (alias("recall", "sklearn"), alias("TPR"), alias("sensitivity")),
        "scikit-learn recall_score(y, score >= threshold)",
    ),
    _thresholded(
        "f1",
        b.f1,
        "2·TP / (2·TP + FP + FN); zero_division when TP + FP + FN = 0",
        "cls_f1",
        "F1",
        (alias("F1", "sklearn"), alias("f1_score")),
        "scikit-learn f1_score(y, score >= threshold)",
    ),
    _thresholded(
        "fbeta",
        b.fbeta,
        "(1 + β²)·TP / (β²·(TP + FN) + TP + FP); zero_division when the denominator is 0",
        "cls_fbeta",
        "F-beta",
        (alias("Fbeta"), alias("fbeta_score", "sklearn"), alias("F2", beta=2.0)),
        "scikit-learn fbeta_score(y, score >= threshold, beta=beta)",
        params=(BETA, THRESHOLD, ZERO_DIVISION),
    ),
    _thresholded(
        "specificity",
        b.specificity,
        "TN / (TN + FP), the recall of the negatives; zero_division without negatives",
        "cls_specificity",
        "specificity",
        (alias("specificity"), alias("TNR"), alias("selectivity")),
        "scikit-learn recall_score(y, score >= threshold, pos_label=0)",
    ),
    _count("tp", b.tp, "rows with label 1 and score >= threshold", "true positives", "TP"),
    _count("fp", b.fp, "rows with label 0 and score >= threshold", "false positives", "FP"),
    _count("tn", b.tn, "rows with label 0 and score < threshold", "true negatives", "TN"),
    _count("fn", b.fn, "rows with label 1 and score < threshold", "false negatives", "FN"),
)

ENTRIES = with_family("classification", _ENTRIES)
