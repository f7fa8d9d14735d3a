"""Rating prediction metrics (:mod:`polars_rank.ratings`): the error between the ratings of
(user, item) pairs and their predictions, scikit-learn's regression metrics as MS
Recommenders and RecBole use them.

:func:`polars_rank.evaluate_ratings` and :func:`polars_rank.rating_sql` take these names
(``RMSE``, ``MSE``, ``MAE``, ``R2``, ``explained_variance``, ``max_error``, ``MAPE``, and
scikit-learn's and MS Recommenders' spellings); :func:`polars_rank.evaluate` refuses them,
naming the entry point that takes them.

>>> from polars_rank.catalog.names import parse_metric
>>> parse_metric("rsquared", scope="rating").metric
'r2'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from polars_rank.catalog.model import Alias, Metric, alias, with_family
from polars_rank.ratings import metrics as r

#: Every rating metric runs on every engine and in every dialect: the Polars expressions and
#: the portable SQL of :mod:`polars_rank.compiler.rating` (which DuckDB and Spark run).
_UNSUPPORTED: tuple[tuple[str, str], ...] = ()

#: What each column an entry names is bound to by :func:`polars_rank.evaluate_ratings`.
RATING, PREDICTION = "rating", "prediction"

#: Metrics scikit-learn defines without sample weights: ``weight=`` is refused for them.
UNWEIGHTED = ("max_error",)


def _entry(
    name: str,
    polars: Callable[..., Any],
    formula: str,
    aliases: tuple[Alias, ...],
    title: str,
    reference: str,
    *,
    higher_is_better: bool = False,
    value_range: tuple[float, float] = (0.0, math.inf),
) -> Metric:
    return Metric(
        name,
        polars,
        formula,
        relevance_level=False,
        columns=(RATING, PREDICTION),
        aliases=aliases,
        title=title,
        table="ratings",
        inputs=("ratings", "predictions"),
        reference=reference,
        higher_is_better=higher_is_better,
        value_range=value_range,
        unsupported=_UNSUPPORTED,
    )


_PAIRS = "over the (user, item) pairs with both a rating y and a prediction ŷ, e = y − ŷ"

_ENTRIES: tuple[Metric, ...] = (
    _entry(
        "rmse",
        r.rmse,
        f"√(Σ w·e² / Σ w) {_PAIRS}, w the weight (1 without); null without a pair",
        (
            alias("RMSE", "recbole"),
            alias("rmse", "recommenders"),
            alias("root_mean_squared_error", "sklearn"),
        ),
        "root mean squared error",
        "scikit-learn root_mean_squared_error; MS Recommenders rmse; RecBole RMSE",
    ),
    _entry(
        "mse",
        r.mse,
        f"Σ w·e² / Σ w {_PAIRS}; null without a pair",
        (alias("MSE"), alias("mean_squared_error", "sklearn")),
        "mean squared error",
        "scikit-learn mean_squared_error",
    ),
    _entry(
        "mae",
        r.mae,
        f"Σ w·|e| / Σ w {_PAIRS}; null without a pair",
        (
            alias("MAE", "recbole"),
            alias("mae", "recommenders"),
            alias("mean_absolute_error", "sklearn"),
        ),
        "mean absolute error",
        "scikit-learn mean_absolute_error; MS Recommenders mae; RecBole MAE",
    ),
    _entry(
        "r2",
        r.r2,
        f"1 − Σ w·e² / Σ w·(y − ȳ)², ȳ = Σ w·y / Σ w, {_PAIRS}; 1 when Σ w·e² = 0, else 0 "
        "when Σ w·(y − ȳ)² = 0 (scikit-learn's force_finite); null for fewer than two pairs",
        (
            alias("R2"),
            alias("rsquared", "recommenders"),
            alias("r2_score", "sklearn"),
            alias("R_squared"),
        ),
        "coefficient of determination",
        "scikit-learn r2_score; MS Recommenders rsquared",
        higher_is_better=True,
        value_range=(-math.inf, 1.0),
    ),
    _entry(
        "explained_variance",
        r.explained_variance,
        f"1 − Var_w(e) / Var_w(y), Var_w(x) = Σ w·(x − x̄)² / Σ w with x̄ = Σ w·x / Σ w, "
        f"{_PAIRS}; 1 when Var_w(e) = 0, else 0 when Var_w(y) = 0 (scikit-learn's "
        "force_finite); null without a pair",
        (
            alias("explained_variance"),
            alias("exp_var", "recommenders"),
            alias("explained_variance_score", "sklearn"),
        ),
        "explained variance",
        "scikit-learn explained_variance_score; MS Recommenders exp_var",
        higher_is_better=True,
        value_range=(-math.inf, 1.0),
    ),
    _entry(
        "max_error",
        r.max_error,
        f"max |e| {_PAIRS}; takes no weight (scikit-learn's has none); null without a pair",
        (alias("max_error", "sklearn"), alias("MaxError")),
        "maximum error",
        "scikit-learn max_error",
    ),
    _entry(
        "mape",
        r.mape,
        f"Σ w·|e| / max(|y|, ε) / Σ w, ε = 2⁻⁵², {_PAIRS} (a fraction, not a percentage); "
        "null without a pair",
        (alias("MAPE"), alias("mean_absolute_percentage_error", "sklearn")),
        "mean absolute percentage error",
        "scikit-learn mean_absolute_percentage_error",
    ),
)

ENTRIES = with_family("rating", _ENTRIES)
