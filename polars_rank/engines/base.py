"""The engine interface: one request, built once from the public arguments, and the
:class:`Engine` every engine implements.

:func:`polars_rank.evaluate`, :func:`~polars_rank.evaluate_runs` and
:func:`~polars_rank.evaluate_classification` check their arguments, build a
:class:`Request` (or a :class:`ClassificationRequest`), look the engine up by name in
:mod:`polars_rank.engines.registry` and return what it gives. An engine is a subclass of
:class:`Engine` in ``engines/<name>/engine.py`` that registers itself; what differs between
engines is what each overrides:

* :meth:`Engine.read`: how an input that is not a frame (a table name, a relation, a path)
  becomes one (the Polars engine takes frames only);
* :meth:`Engine.evaluate`: ranking, trec_eval and recommender metrics without ``by``;
* :meth:`Engine.evaluate_by`: ranking and trec_eval metrics with ``by``; by default the run
  is keyed by (group, query) in Polars (:mod:`polars_rank.engines.keyed`) and the engine
  evaluates the keyed run (:meth:`Engine.evaluate_keyed`), or first tries its own way
  (:meth:`Engine.evaluate_by_in_engine`);
* :meth:`Engine.evaluate_recommender_by`: recommender metrics or inputs with ``by``; by
  default the groups are read in Polars and :meth:`Engine.evaluate_recommender_groups`
  evaluates them;
* :meth:`Engine.evaluate_classification`: by default the predictions are read and checked in
  Polars and :meth:`Engine.classify` evaluates them;
* :meth:`Engine.evaluate_ratings`: by default the ratings and predictions are read and
  checked in Polars (:mod:`polars_rank.engines.rating_inputs`) and :meth:`Engine.rate`
  evaluates them (by default :func:`polars_rank.rating_sql`'s query, see :meth:`Engine.run_sql`);
* :meth:`Engine.evaluate_policy`: by default the log, the policy and the reward model's
  estimates are read and checked in Polars (:mod:`polars_rank.engines.policy_inputs`) and
  :meth:`Engine.estimate` evaluates them (by default :func:`polars_rank.policy_sql`'s query);
* :meth:`Engine.evaluate_slate_policy`: by default the slate log and the policy are read and
  checked in Polars (:mod:`polars_rank.engines.slate_inputs`) and
  :meth:`Engine.estimate_slates` evaluates them (by default :func:`polars_rank.slate_policy_sql`'s
  query);
* :meth:`Engine.fuse`: by default the compiled query of :func:`polars_rank.fusion_sql` on the
  checked stacked runs (:func:`polars_rank.fuse` reads and checks them in Polars first);
* :meth:`Engine.run_sql`: one compiled query over Polars frames, each a table of the engine's
  session for that query only; the default :meth:`Engine.rate`, :meth:`Engine.estimate`,
  :meth:`Engine.estimate_slates` and :meth:`Engine.fuse` run their compiled query with it,
  so an engine that runs SQL implements this one method for the four (the Polars engine
  overrides them with its plans);
* :meth:`Engine.diversity_plan`: the Polars engine's plan of the diversity metrics; the
  others refuse.

A step an engine does not implement is refused by name (:meth:`Engine.refuse`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, cast

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.engines import keyed
from polars_rank.engines.request import (
    ClassificationRequest,
    FusionRequest,
    PolicyRequest,
    RatingRequest,
    Request,
    SlateRequest,
)

if TYPE_CHECKING:
    from polars_rank.catalog.names import MetricSpec
    from polars_rank.core.dialects import DialectName
    from polars_rank.core.options import Options
    from polars_rank.core.types import Connection, FrameLike, TableInput


class Engine:
    """An engine: what it reads and how it evaluates (see the module docstring). Subclasses
    set :attr:`name` and register themselves (:func:`polars_rank.engines.registry.register`)."""

    #: The name users pass as ``engine=``.
    name: ClassVar[str]
    #: Whether the command line offers it (``--engine``).
    command_line: ClassVar[bool] = True

    def refuse(self, what: str) -> PolarsRankError:
        """The error for a step this engine does not implement."""
        return PolarsRankError(f"engine {self.name!r} does not implement {what}")

    def read(self, obj: TableInput, what: str, con: Connection | None) -> TableInput:
        """``obj`` (the input named ``what``) as a table Polars reads; the Polars engine takes
        frames as they are."""
        return obj

    def evaluate(self, request: Request) -> pl.DataFrame | pl.LazyFrame:
        """Ranking, trec_eval and recommender metrics without ``by``."""
        raise self.refuse("evaluate")

    def evaluate_by(self, request: Request) -> pl.DataFrame | pl.LazyFrame:
        """Ranking and trec_eval metrics with ``by``: :func:`polars_rank.engines.keyed.
        evaluate_by` (the run keyed by (group, query) in Polars, evaluated by this engine)."""
        return keyed.evaluate_by(self, request)

    def evaluate_by_in_engine(self, request: Request) -> tuple[pl.LazyFrame, pl.DataFrame] | None:
        """The per-query values of ``request`` with ``by`` (``by..., query, <metrics>``) and
        the run's groups, when this engine evaluates the groups its own way; None otherwise."""
        return None

    def evaluate_keyed(
        self,
        run: pl.LazyFrame,
        qrels: pl.LazyFrame,
        specs: list[MetricSpec],
        options: Options,
        warn: Callable[[int], None],
        con: Connection | None,
    ) -> pl.LazyFrame:
        """The per-query values of a run whose query column is keyed by (group, query)
        (:mod:`polars_rank.core.grouping`)."""
        raise self.refuse("evaluate with by")

    def evaluate_recommender_by(self, request: Request) -> pl.DataFrame | pl.LazyFrame:
        """Recommender metrics or inputs with ``by``: :func:`polars_rank.engines.keyed.
        evaluate_recommender_by` (the groups read in Polars, evaluated by this engine)."""
        return keyed.evaluate_recommender_by(self, request)

    def evaluate_recommender_groups(
        self,
        run: pl.LazyFrame,
        qrels: pl.LazyFrame | None,
        request: Request,
        groups: pl.DataFrame,
        given: dict[str, Any],
    ) -> pl.DataFrame | pl.LazyFrame:
        """One row per group of ``groups`` (per (group, query) with ``per_query``) of the
        recommender request, its inputs read (``given``)."""
        raise self.refuse("recommender metrics with by")

    def evaluate_classification(self, request: ClassificationRequest) -> pl.DataFrame:
        """:func:`~polars_rank.evaluate_classification`: the predictions read (:meth:`read`)
        and checked in Polars, the threshold and the metrics' own needs checked, then
        :meth:`classify`."""
        from polars_rank.catalog.classification import PROBABILITY
        from polars_rank.classification import frames
        from polars_rank.compiler.columns import metric_outputs
        from polars_rank.core import grouping
        from polars_rank.core.frames import to_lazy

        label, score, weight = request.label, request.score, request.weight
        segments, groups = request.by, request.group
        data = self.read(request.data, "data", request.con)
        lf = to_lazy(cast("FrameLike", data), "data")
        schema = lf.collect_schema()
        weights = [weight] if weight is not None else []
        for column in dict.fromkeys([label, score, *segments, *groups, *weights]):
            if column not in schema:
                raise PolarsRankError(f"column {column!r} not found; columns are {schema.names()}")
        grouping.check_by_names(segments, {}, metric_outputs(request.specs))
        try:
            cut = float(request.threshold)
        except (TypeError, ValueError):
            cut = math.nan
        if not math.isfinite(cut):
            raise PolarsRankError(f"threshold must be a finite number, got {request.threshold!r}")
        specs = [classification_spec(s, cut, groups) for s in request.specs]
        if request.validate:
            frames.validate_binary(lf, label, score)
            probabilities = [s.label for s in specs if PROBABILITY in s.entry.columns]
            if probabilities:
                frames.check_probabilities(lf, score, probabilities)
            if weight is not None:
                frames.check_weights(lf, weight)
        return self.classify(lf, specs, request)

    def classify(
        self, lf: pl.LazyFrame, specs: list[MetricSpec], request: ClassificationRequest
    ) -> pl.DataFrame:
        """The classification metrics of checked predictions (``lf``), ``specs`` with their
        thresholds set."""
        raise self.refuse("evaluate_classification")

    def evaluate_ratings(self, request: RatingRequest) -> pl.DataFrame:
        """:func:`~polars_rank.evaluate_ratings`: both tables read (:meth:`read`) and checked
        in Polars (:func:`polars_rank.engines.rating_inputs.checked_inputs`, which warns about
        pairs on one side only), then :meth:`rate`."""
        from polars_rank.compiler.columns import metric_outputs
        from polars_rank.core import grouping
        from polars_rank.engines.rating_inputs import checked_inputs

        grouping.check_by_names(request.by, {}, metric_outputs(request.specs))
        ratings = self.read(request.ratings, "ratings", request.con)
        predictions = self.read(request.predictions, "predictions", request.con)
        rated, predicted = checked_inputs(
            cast("FrameLike", ratings), cast("FrameLike", predictions), request
        )
        return self.rate(rated, predicted, request)

    def rate(
        self, ratings: pl.LazyFrame, predictions: pl.LazyFrame, request: RatingRequest
    ) -> pl.DataFrame:
        """The rating metrics of checked ratings and predictions: ``[by...,] <label>...``,
        one row per ``by`` segment of the ratings (sorted, nulls first); by default the
        compiled query of :func:`~polars_rank.rating_sql`, run by :meth:`run_sql`."""
        from polars_rank.engines.rating_inputs import compiled_result, request_sql

        rated = ratings.collect()

        def query(dialect: DialectName, tables: Mapping[str, str]) -> str:
            return request_sql(request, dialect, tables["ratings"], tables["predictions"])

        frames = {"ratings": rated, "predictions": predictions.collect()}
        values = self.run_sql(frames, query, request.con)
        return compiled_result(values, rated.schema, request)

    def diversity_plan(self) -> Callable[..., pl.DataFrame]:
        """The per-query plan of :func:`~polars_rank.evaluate_diversity`
        (:func:`polars_rank.diversity.plan.per_query`'s signature); engines without one
        refuse, with the reason."""
        from polars_rank.catalog.diversity import WHY

        raise PolarsRankError(f"engine {self.name!r} does not implement evaluate_diversity: {WHY}")

    def evaluate_policy(self, request: PolicyRequest) -> pl.DataFrame:
        """:func:`~polars_rank.evaluate_policy`: the tables read (:meth:`read`) and checked in
        Polars (:func:`polars_rank.engines.policy_inputs.checked_inputs`), then
        :meth:`estimate` (which checks that the reward model has every estimate it reads,
        :func:`~polars_rank.engines.policy_inputs.q_hat_present`)."""
        from polars_rank.engines.policy_inputs import checked_inputs

        log = self.read(request.log, "log", request.con)
        policy = self.read(request.policy, "policy", request.con)
        q_hat = (
            self.read(request.q_hat, "q_hat", request.con) if request.q_hat is not None else None
        )
        checked = checked_inputs(
            cast("FrameLike", log),
            cast("FrameLike", policy),
            cast("FrameLike | None", q_hat),
            request,
        )
        return self.estimate(*checked, request)

    def estimate(
        self,
        log: pl.LazyFrame,
        policy: pl.LazyFrame,
        q_hat: pl.LazyFrame | None,
        request: PolicyRequest,
    ) -> pl.DataFrame:
        """The estimators of a checked log, policy and reward model: ``[by...,] estimator,
        estimate, standard_error, ess, max_weight, n``, one row per estimator per ``by``
        segment of the log (sorted, nulls first); by default the compiled query of
        :func:`~polars_rank.policy_sql`, run by :meth:`run_sql`."""
        from polars_rank.engines.policy_inputs import compiled_result, q_hat_present, request_sql

        self._no_bootstrap(request.bootstrap)
        q_hat_present(log, policy, q_hat, request)
        logged = log.collect()
        frames = {"log": logged, "policy": policy.collect()}
        if q_hat is not None:
            frames["q_hat"] = q_hat.collect()

        def query(dialect: DialectName, tables: Mapping[str, str]) -> str:
            return request_sql(request, dialect, dict(tables))

        values = self.run_sql(frames, query, request.con)
        return compiled_result(values, logged.schema, request)

    def evaluate_slate_policy(self, request: SlateRequest) -> pl.DataFrame:
        """:func:`~polars_rank.evaluate_slate_policy`: both tables read (:meth:`read`) and
        checked in Polars (:func:`polars_rank.engines.slate_inputs.checked_inputs`), then
        :meth:`estimate_slates`."""
        from polars_rank.engines.slate_inputs import checked_inputs

        log = self.read(request.log, "log", request.con)
        policy = self.read(request.policy, "policy", request.con)
        checked = checked_inputs(cast("FrameLike", log), cast("FrameLike", policy), request)
        return self.estimate_slates(*checked, request)

    def estimate_slates(
        self, log: pl.LazyFrame, policy: pl.LazyFrame, request: SlateRequest
    ) -> pl.DataFrame:
        """The slate estimators of a checked log and policy: ``[by...,] estimator, estimate,
        standard_error, ess, max_weight, n``, one row per estimator per ``by`` segment of the
        log (sorted, nulls first); by default the compiled query of
        :func:`~polars_rank.slate_policy_sql`, run by :meth:`run_sql`."""
        from polars_rank.engines.policy_inputs import compiled_result
        from polars_rank.engines.slate_inputs import request_sql

        self._no_bootstrap(request.bootstrap)
        logged = log.collect()

        def query(dialect: DialectName, tables: Mapping[str, str]) -> str:
            return request_sql(request, dialect, dict(tables))

        values = self.run_sql({"log": logged, "policy": policy.collect()}, query, request.con)
        return compiled_result(values, logged.schema, request)

    def fuse(self, runs: pl.LazyFrame, request: FusionRequest) -> pl.DataFrame | pl.LazyFrame:
        """The fused run ``query, doc, score`` of checked stacked runs (``run, query, doc,
        score``), in any order; by default the compiled query of
        :func:`~polars_rank.fusion_sql`, run by :meth:`run_sql`."""
        from polars_rank.compiler.fusion import fusion_sql

        def query(dialect: DialectName, tables: Mapping[str, str]) -> str:
            return fusion_sql(
                request.method,
                dialect,
                tables["runs"],
                norm=request.norm,
                weights=request.weights,
                k=request.k,
                runs=request.runs,
            )

        return self.run_sql({"runs": runs.collect()}, query, request.con)

    def _no_bootstrap(self, bootstrap: object) -> None:
        """The compiled queries give no bootstrap interval: OBP's resamples the rounds with
        numpy's ``RandomState``, which the Polars engine does over its own plan's values."""
        if bootstrap is not None:
            raise PolarsRankError(
                f"engine {self.name!r} does not implement the bootstrap interval: it "
                "resamples every round with numpy's RandomState, as OBP's estimate_interval "
                "does; use engine='polars' (or leave bootstrap out)"
            )

    def run_sql(
        self,
        frames: Mapping[str, pl.DataFrame],
        sql: Callable[[DialectName, Mapping[str, str]], str],
        con: Connection | None,
    ) -> pl.DataFrame:
        """One compiled query over ``frames``: each frame a table of the engine's session
        for this query only (dropped afterwards; nothing of the caller's is written),
        ``sql(dialect, {key: table reference})`` the query, its result as Polars. Engines
        that run SQL implement it; the rating, off-policy and fusion steps use it."""
        raise self.refuse("compiled SQL queries")


def classification_spec(spec: MetricSpec, threshold: float, groups: list[str]) -> MetricSpec:
    """``spec`` checked for what its entry needs (required parameters, GAUC's groups), with
    evaluate_classification's ``threshold`` when the entry takes one and the name sets none."""
    from dataclasses import replace

    from polars_rank.catalog.classification import GROUP
    from polars_rank.catalog.model import REQUIRED

    entry, given = spec.entry, dict(spec.params)
    for param in entry.params:
        if param.default is REQUIRED and param.name not in given:
            raise PolarsRankError(
                f"metric {spec.label!r} needs {param.name} ({param.doc}), e.g. "
                f"{entry.aliases[0].name}({param.name}={(param.examples or ('1',))[-1]})"
            )
    if GROUP in entry.columns and not groups:
        raise PolarsRankError(
            f"metric {spec.label!r} ({entry.title or entry.name}) averages AUC over groups: "
            "give the group column(s), e.g. group='user'"
        )
    if "threshold" in entry.param and "threshold" not in given:
        return replace(spec, params=tuple(sorted({**given, "threshold": threshold}.items())))
    return spec
