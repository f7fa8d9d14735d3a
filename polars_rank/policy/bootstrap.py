"""The bootstrap interval of an off-policy estimate, drawn as OBP 0.5's
``estimate_confidence_interval_by_bootstrap`` (``obp/utils.py``) draws it: ``B`` times the
mean of ``RandomState(seed).choice(samples, size=n)``, then ``np.percentile`` at
``100·α/2`` and ``100·(1 − α/2)`` and the mean of the ``B`` means.

The samples are each estimator's round rewards, OBP's ``_estimate_round_rewards`` (the
self-normalised ones normalised once, over the whole segment, as OBP does before resampling):
one per logged decision, or one per slate (the sum over its slots, OBP's
``_estimate_slate_confidence_interval_by_bootstrap``). ``choice`` with replacement and no
``p`` draws ``randint(0, n, size)``, one stream: the ``B`` draws are made in chunks of whole
rows, which gives OBP's numbers exactly with memory bounded by :data:`_CHUNK`.

>>> import numpy as np
>>> mean, lower, upper = interval(np.array([0.0, 1.0, 1.0, 0.0]), Bootstrap(1000, 0.1, 7))
>>> 0.0 <= lower <= mean <= upper <= 1.0
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from polars_rank.core.errors import PolarsRankError

#: The most indices drawn at once (rows of the B × n draw are never split).
_CHUNK = 4_000_000
#: The output columns a bootstrap adds, after ``n``.
COLUMNS = ("bootstrap_mean", "ci_lower", "ci_upper")


@dataclass(frozen=True)
class Bootstrap:
    """OBP's ``estimate_interval`` arguments: ``n_bootstrap_samples``, ``alpha`` and
    ``random_state`` (None: numpy's unseeded state, as OBP's default)."""

    samples: int
    alpha: float
    seed: int | None


def bootstrap_options(samples: object, alpha: object, seed: object) -> Bootstrap | None:
    """The bootstrap options checked as OBP's ``check_confidence_interval_arguments``
    (``samples`` a positive integer, 0 < ``alpha`` < 1, ``seed`` an integer or None); None
    when ``samples`` is None (no interval)."""
    if samples is None:
        return None
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise PolarsRankError(f"bootstrap must be a positive number of samples, got {samples!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise PolarsRankError(f"alpha must be a number strictly between 0 and 1, got {alpha!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise PolarsRankError(f"seed must be a non-negative integer or None, got {seed!r}")
    return Bootstrap(samples, float(alpha), seed)


def interval(samples: np.ndarray, options: Bootstrap) -> tuple[float, float, float]:
    """``(mean, lower, upper)`` of the bootstrap means of ``samples`` (NaN for no sample or
    a non-finite one: OBP's NaN)."""
    n = samples.shape[0]
    if n == 0 or not np.all(np.isfinite(samples)):
        return math.nan, math.nan, math.nan
    state = np.random.RandomState(options.seed)
    rows = max(1, _CHUNK // n)
    means = []
    for start in range(0, options.samples, rows):
        size = min(rows, options.samples - start)
        means.append(samples[state.randint(0, n, size=(size, n))].mean(axis=1))
    boot = np.concatenate(means)
    lower = np.percentile(boot, 100 * (options.alpha / 2))
    upper = np.percentile(boot, 100 * (1.0 - options.alpha / 2))
    return float(np.mean(boot)), float(lower), float(upper)


def intervals(values: pl.DataFrame, by: list[str], options: Bootstrap) -> pl.DataFrame:
    """The interval of each ``(by..., estimator)`` group of ``values`` (``by`` columns,
    ``estimator``, ``value``: one row per round or slate): ``by..., estimator`` and
    :data:`COLUMNS`. Each group is drawn from ``RandomState(seed)`` afresh, as one OBP call
    per segment would be."""
    keys = [*by, "estimator"]
    rows = []
    for group in values.partition_by(keys, maintain_order=True):
        samples = group["value"].cast(pl.Float64).fill_null(math.nan).to_numpy()
        rows.append((*group.select(keys).row(0), *interval(samples, options)))
    schema: dict[str, pl.DataType] = {k: values.schema[k] for k in keys}
    schema.update({c: pl.Float64() for c in COLUMNS})
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    return frame.with_columns(pl.col(c).fill_nan(None) for c in COLUMNS)
