"""What an engine is asked: one request built once from the public arguments
(:func:`polars_rank.evaluate`'s, :func:`polars_rank.evaluate_classification`'s)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from polars_rank.core.errors import CallSite

if TYPE_CHECKING:
    from polars_rank.catalog.names import MetricSpec
    from polars_rank.core.options import Options
    from polars_rank.core.types import CatalogInput, Connection, TableInput
    from polars_rank.policy.bootstrap import Bootstrap
    from polars_rank.policy.estimators import Estimator
    from polars_rank.policy.slate import SlateEstimator


@dataclass
class Request:
    """One :func:`~polars_rank.evaluate` call: its inputs as given, the parsed metrics, the
    checked options, ``by`` (empty without), the recommender inputs (``interactions``,
    ``item_features``, ``catalog``; None when not given), the connection or session, the
    warning about queries left out (``warn``), and with :func:`~polars_rank.evaluate_runs`
    the runs' names (the first ``by`` column is each row's run) and the user's call site."""

    run: TableInput
    qrels: TableInput | None
    specs: list[MetricSpec]
    options: Options
    per_query: bool
    by: list[str] = field(default_factory=list)
    recommender: dict[str, CatalogInput | None] = field(default_factory=dict)
    con: Connection | None = None
    warn: Callable[[int], None] = field(default=lambda _: None)
    run_names: Sequence[str] | None = None
    site: CallSite | None = None

    @property
    def recommends(self) -> bool:
        """Whether a recommender input is given or a metric reads more than the judged
        ranking (the recommender path of ``by``)."""
        return any(v is not None for v in self.recommender.values()) or any(
            s.entry.table != "judged" for s in self.specs
        )


@dataclass
class ClassificationRequest:
    """One :func:`~polars_rank.evaluate_classification` call: the predictions as given, the
    parsed metrics and the arguments, ``by`` and ``group`` as lists."""

    data: TableInput
    specs: list[MetricSpec]
    label: str
    score: str
    by: list[str]
    group: list[str]
    threshold: float
    weight: str | None
    con: Any
    validate: bool


@dataclass
class RatingRequest:
    """One :func:`~polars_rank.evaluate_ratings` call: the two tables as given, the parsed
    metrics, the column names, ``by`` as a list, the weight column and the user's call site
    (where the warning about unmatched pairs points)."""

    ratings: TableInput
    predictions: TableInput
    specs: list[MetricSpec]
    user: str
    item: str
    rating: str
    prediction: str
    by: list[str]
    weight: str | None
    con: Any
    site: CallSite | None = None


@dataclass
class PolicyRequest:
    """One :func:`~polars_rank.evaluate_policy` call: the log, the evaluation policy and the
    reward model's estimates (None without) as given, the estimators (label as written,
    estimator), the column names, ``by`` as a list, ``lambda_`` (None: infinity) and the
    bootstrap interval's options (None: no interval)."""

    log: TableInput
    policy: TableInput
    q_hat: TableInput | None
    specs: list[tuple[str, Estimator]]
    context: str
    action: str
    reward: str
    pscore: str
    probability: str
    q_hat_column: str
    by: list[str]
    lambda_: float | None
    con: Any
    bootstrap: Bootstrap | None = None


@dataclass
class FusionRequest:
    """One :func:`~polars_rank.fuse` call, its options checked: the method, the
    normalisation, ``wsum``'s weights by run name (None otherwise), RRF's ``k``, every run's
    name and the connection or session."""

    method: str
    norm: str | None
    weights: dict[Any, float] | None
    k: float
    runs: list[Any]
    con: Any = None


@dataclass
class SlateRequest:
    """One :func:`~polars_rank.evaluate_slate_policy` call: the slate log and the evaluation
    policy's propensities as given, the estimators (label as written, estimator), the column
    names (``propensities``: each propensity OBP's estimators read → its column, in both
    tables), ``by`` as a list, the connection or session and the bootstrap interval's
    options (None: no interval)."""

    log: TableInput
    policy: TableInput
    specs: list[tuple[str, SlateEstimator]]
    slate: str
    position: str
    reward: str
    propensities: dict[str, str]
    by: list[str]
    con: Any = None
    bootstrap: Bootstrap | None = None

    @property
    def read(self) -> list[str]:
        """The propensity columns the estimators read, in :data:`~polars_rank.policy.slate.
        PROPENSITIES`' order."""
        used = {est.propensity for _, est in self.specs}
        return [self.propensities[p] for p in self.propensities if p in used]
