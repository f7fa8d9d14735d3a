"""``by`` through Polars: the run and the judgments keyed by (group, query)
(:mod:`polars_rank.core.grouping`), evaluated by any engine; the default of
:meth:`Engine.evaluate_by <polars_rank.engines.base.Engine.evaluate_by>` and
:meth:`Engine.evaluate_recommender_by <polars_rank.engines.base.Engine.evaluate_recommender_by>`.

Each group's numbers are those of :func:`~polars_rank.evaluate` on its rows alone: a table
having a ``by`` column joins the group on it, one without it is shared by every group. With
:func:`~polars_rank.evaluate_runs` (``request.run_names``: the first ``by`` column is the
run's position, an Enum of the names), an empty run is an error naming it, and the run
queries left out are warned about per run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import polars as pl

from polars_rank.core import grouping, messages
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.frames import to_lazy

if TYPE_CHECKING:
    from polars_rank.catalog.names import MetricSpec
    from polars_rank.core.errors import CallSite
    from polars_rank.core.options import Options
    from polars_rank.core.types import Connection, TableInput
    from polars_rank.engines.request import Request


class KeyedEngine(Protocol):
    """What the Polars-keyed ``by`` needs of an engine (:class:`~polars_rank.engines.base.
    Engine`'s methods of these names)."""

    def read(self, obj: TableInput, what: str, con: Connection | None) -> TableInput: ...

    def evaluate_by_in_engine(
        self, request: Request
    ) -> tuple[pl.LazyFrame, pl.DataFrame] | None: ...

    def evaluate_keyed(
        self,
        run: pl.LazyFrame,
        qrels: pl.LazyFrame,
        specs: list[MetricSpec],
        options: Options,
        warn: Callable[[int], None],
        con: Connection | None,
    ) -> pl.LazyFrame: ...

    def evaluate_recommender_groups(
        self,
        run: pl.LazyFrame,
        qrels: pl.LazyFrame | None,
        request: Request,
        groups: pl.DataFrame,
        given: dict[str, Any],
    ) -> pl.DataFrame | pl.LazyFrame: ...


def _check_runs(groups: pl.DataFrame, by: list[str], run_names: Sequence[str]) -> None:
    """An empty run of :func:`~polars_rank.evaluate_runs` is an error naming it."""
    present = set(groups[by[0]].to_physical().to_list())
    for position, name in enumerate(run_names):
        if position not in present:
            raise PolarsRankError(f"evaluating run {name!r}: {messages.empty_input('run')}")


def _warn_per_run(
    left_out: pl.LazyFrame, by: list[str], query: str, run_names: Sequence[str], site: CallSite
) -> Callable[[int], None]:
    """The warning about run queries left out, counted per run."""

    def warn(_: int) -> None:
        counts = dict(
            left_out.select(pl.col(query).struct.field(by[0]).to_physical().alias("position"))
            .group_by("position")
            .len()
            .collect()
            .rows()
        )
        for position, name in enumerate(run_names):
            messages.warn_left_out(counts.get(position, 0), site, run=name)

    return warn


def evaluate_by(engine: KeyedEngine, request: Request) -> pl.DataFrame | pl.LazyFrame:
    """Ranking and trec_eval metrics with ``by``: the engine's own way when it has one
    (:meth:`~polars_rank.engines.base.Engine.evaluate_by_in_engine`), otherwise the inputs
    read (:meth:`~polars_rank.engines.base.Engine.read`) and keyed by (group, query) in
    Polars, evaluated per query by the engine
    (:meth:`~polars_rank.engines.base.Engine.evaluate_keyed`), the groups summarised here."""
    from polars_rank.compiler.columns import metric_outputs

    specs, options, by, con, warn = (
        request.specs,
        request.options,
        request.by,
        request.con,
        request.warn,
    )
    summaries = [(s.label, s.summary) for s in specs]
    if request.qrels is None:
        raise PolarsRankError("by: evaluating groups needs qrels")
    found = engine.evaluate_by_in_engine(request)
    if found is not None:
        values, groups = found
        if not request.per_query:
            values = grouping.group_summary(values, summaries, by, options.columns.query, groups)
        return values.collect()
    lazy_out = isinstance(request.run, pl.LazyFrame)
    run = engine.read(request.run, "run", con)
    qrels = engine.read(request.qrels, "qrels", con)
    run_lf, qrels_lf = to_lazy(run, "run"), to_lazy(qrels, "qrels")
    run_schema, qrels_schema = run_lf.collect_schema(), qrels_lf.collect_schema()
    options.resolve(run_schema, qrels_schema)  # the inputs' own names in the messages
    grouping.check_by(by, run_schema, qrels_schema, options, metric_outputs(specs))
    groups = grouping.run_groups(run_lf, by)
    keyed_run, keyed_qrels = grouping.keyed_inputs(run_lf, qrels_lf, by, options, groups)
    query = options.columns.query
    assert keyed_qrels is not None
    if request.run_names is not None and request.site is not None:
        _check_runs(groups, by, request.run_names)
        judged = keyed_qrels.filter(pl.col(options.columns.relevance).is_not_null())
        left_out = keyed_run.select(query).unique().join(judged.select(query), on=query, how="anti")
        warn = _warn_per_run(left_out, by, query, request.run_names, request.site)
    if grouping.judges_no_group(qrels_lf, keyed_qrels):
        if options.validate:  # the inputs' checks, each table keyed by its own groups
            from polars_rank.core.validation import validate

            resolved = options.resolve(run_schema, qrels_schema)
            shared = [c for c in by if c in qrels_schema]
            judged = qrels_lf.with_columns(grouping.group_key(shared, query)).drop(shared)
            validate(keyed_run, judged, resolved, in_memory=isinstance(run, pl.DataFrame))
        warn(keyed_run.select(pl.col(query).n_unique()).collect().item())
        values = grouping.no_values(run_schema, by, query, summaries)
    else:
        values = engine.evaluate_keyed(keyed_run, keyed_qrels, specs, options, warn, con)
    values = grouping.per_query_frame(values, by, query)
    if not request.per_query:
        values = grouping.group_summary(values, summaries, by, query, groups)
    return values if lazy_out else values.collect()


def evaluate_recommender_by(engine: KeyedEngine, request: Request) -> pl.DataFrame | pl.LazyFrame:
    """Recommender metrics or inputs with ``by``: the inputs read in Polars (a Series
    catalog as it is), the ``by`` columns and the runs checked, the groups evaluated by the
    engine (:meth:`~polars_rank.engines.base.Engine.evaluate_recommender_groups`)."""
    from polars_rank.compiler.columns import metric_outputs

    lazy_out = isinstance(request.run, pl.LazyFrame)
    by, options = request.by, request.options

    def read(obj: Any, what: str) -> Any:
        if isinstance(obj, pl.Series):
            return obj
        return to_lazy(engine.read(obj, what, request.con), what)

    run_lf = read(request.run, "run")
    qrels_lf = None if request.qrels is None else read(request.qrels, "qrels")
    run_schema = run_lf.collect_schema()
    qrels_schema = None if qrels_lf is None else qrels_lf.collect_schema()
    if qrels_schema is not None:
        options.resolve(run_schema, qrels_schema)  # the inputs' own names in messages
    grouping.check_by(by, run_schema, qrels_schema, options, metric_outputs(request.specs))
    groups = grouping.run_groups(run_lf, by)
    if request.run_names is not None:
        _check_runs(groups, by, request.run_names)
    given = {
        name: read(value, name) for name, value in request.recommender.items() if value is not None
    }
    values = engine.evaluate_recommender_groups(run_lf, qrels_lf, request, groups, given)
    if lazy_out:
        return values.lazy()
    return values.collect() if isinstance(values, pl.LazyFrame) else values
