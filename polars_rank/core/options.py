"""The evaluation options, resolved and checked once for every engine.

:class:`Options` holds what decides *which* rows are evaluated and how: column names, the
query set, the relevance level, the ordering, the cut-off depth, the duplicates policy and
whether to check the input. Creating one checks every value (one error type,
:class:`~polars_rank.PolarsRankError`); :meth:`Options.resolve` then checks it against the
inputs' schemas and settles the ordering.

>>> Options(duplicates="last")
Traceback (most recent call last):
...
polars_rank.core.errors.PolarsRankError: duplicates must be 'error', 'first' or 'max', got 'last'
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import polars as pl

from polars_rank.core import messages
from polars_rank.core.conventions import LARGEST_RANK, Columns, OrderBy
from polars_rank.core.errors import PolarsRankError

Queries = Literal["qrels", "both"]
Duplicates = Literal["error", "first", "max"]


@dataclass(frozen=True)
class GradeLimit:
    """The largest grade the requested metrics accept (ERR's ``max_grade``) and the metric
    that sets it; the input checks refuse qrels with a larger grade."""

    value: float
    metric: str


@dataclass(frozen=True)
class Options:
    """How a run is judged and which queries count (see :func:`polars_rank.evaluate`).

    Attributes:
        columns: column names of the run and the qrels.
        queries: ``"qrels"`` (every judged query counts; one missing from the run scores 0) or
            ``"both"`` (only queries in both).
        relevance_level: grades ``>=`` this are relevant.
        order_by: ``"score"``, ``"rank"``, or None (score when the run has one); settled by
            :meth:`resolve`.
        max_rank: keep only the top ``max_rank`` documents per query.
        duplicates: ``"error"``, ``"first"`` or ``"max"`` for a repeated ``(query, doc)``.
        validate: check nulls, NaNs and duplicates in the inputs first.
        grade_limit: the largest grade the metrics accept (checked with the inputs), if any.
    """

    columns: Columns = field(default_factory=Columns)
    queries: Queries = "qrels"
    relevance_level: float = 1
    order_by: OrderBy | None = None
    max_rank: int | None = None
    duplicates: Duplicates = "error"
    validate: bool = True
    grade_limit: GradeLimit | None = None

    def __post_init__(self) -> None:
        for name in ("queries", "duplicates"):
            choices = get_args(Queries if name == "queries" else Duplicates)
            if getattr(self, name) not in choices:
                raise messages.bad_choice(name, getattr(self, name), choices)
        if self.order_by is not None and self.order_by not in get_args(OrderBy):
            raise messages.bad_choice("order_by", self.order_by, get_args(OrderBy))
        if self.order_by == "rank" and self.duplicates == "max":
            raise PolarsRankError(
                f"{messages.option('duplicates', 'max')} is not defined with "
                f"{messages.option('order_by', 'rank')}; use "
                f"{messages.option('duplicates', 'first')}"
            )
        if self.max_rank is not None:
            if (
                isinstance(self.max_rank, bool)
                or not isinstance(self.max_rank, numbers.Integral)
                or self.max_rank < 1
            ):
                raise messages.not_positive_integer("max_rank", self.max_rank)
            if self.max_rank > LARGEST_RANK:
                raise PolarsRankError(
                    f"max_rank must be at most {LARGEST_RANK}, got {self.max_rank!r} (leave it "
                    "out to keep every document)"
                )
            object.__setattr__(self, "max_rank", int(self.max_rank))  # numpy integers too
        level = self.relevance_level
        if (
            isinstance(level, bool)
            or not isinstance(level, numbers.Real)
            or not math.isfinite(level)
        ):
            raise PolarsRankError(f"relevance_level must be a finite number, got {level!r}")
        # numpy numbers as Python's (SQL literals, messages)
        level = int(level) if isinstance(level, numbers.Integral) else float(level)
        object.__setattr__(self, "relevance_level", level)
        if not isinstance(self.validate, bool):
            raise PolarsRankError(f"validate must be True or False, got {self.validate!r}")
        for name, value in dataclasses.asdict(self.columns).items():
            if not isinstance(value, str) or not value:
                raise PolarsRankError(f"the {name} column name must be a non-empty string")

    @classmethod
    def from_arguments(
        cls,
        *,
        query: str = "query",
        doc: str = "doc",
        score: str = "score",
        rank: str = "rank",
        relevance: str = "relevance",
        **options: object,
    ) -> Options:
        """Options from the keyword arguments of :func:`polars_rank.evaluate` and friends."""
        columns = Columns(query=query, doc=doc, score=score, rank=rank, relevance=relevance)
        checked: dict[str, Any] = dict(options)  # values checked by __post_init__
        return cls(columns=columns, **checked)

    def unordered(self, where: str) -> Options:
        """These options for inputs without a row order (``where``: SQL tables, Spark), which
        cannot keep the first of duplicates: ``duplicates="first"`` is refused."""
        if self.duplicates == "first":
            raise messages.no_row_order(where)
        return self

    @property
    def ordering(self) -> OrderBy:
        """``order_by`` as :meth:`resolve` settles it (never None after it)."""
        if self.order_by is None:
            raise AssertionError("Options.resolve() settles order_by first")
        return self.order_by

    @property
    def order_column(self) -> str:
        """The run column the ordering reads (after :meth:`resolve`)."""
        return self.columns.order_column(self.ordering)

    def looks_swapped(self, run_schema: pl.Schema, qrels_schema: pl.Schema) -> bool:
        """Whether the judgments look like a run or the run like judgments: judgments without
        a relevance column but with a score, rank, ``run_id`` or ``Q0`` column (a TREC run read
        as a table without header) or six columns (a TREC run's fields); a run without score
        and rank but with a relevance column."""
        cols = self.columns
        run_like = {cols.score, cols.rank, "run_id", "Q0", "q0"}
        qrels_names, run_names = set(qrels_schema.names()), set(run_schema.names())
        qrels_is_run = cols.relevance not in qrels_names and (
            bool(run_like & qrels_names) or len(qrels_names) == 6
        )
        run_is_qrels = cols.relevance in run_names and not ({cols.score, cols.rank} & run_names)
        return qrels_is_run or run_is_qrels

    def resolve(self, run_schema: pl.Schema, qrels_schema: pl.Schema) -> Options:
        """These options with ``order_by`` settled, after checking both inputs' columns.

        Raises :class:`~polars_rank.PolarsRankError` for a missing column, id columns whose
        dtypes differ between run and qrels, or a non-numeric score, rank or relevance.
        """
        cols = self.columns
        swapped = self.looks_swapped(run_schema, qrels_schema)
        order_by = self.order_by
        if order_by is None:
            if cols.score in run_schema:
                order_by = "score"
            elif cols.rank in run_schema:
                order_by = "rank"
            else:
                raise PolarsRankError(
                    f"run has neither a score column {cols.score!r} nor a rank column "
                    f"{cols.rank!r}; its columns are {list(run_schema.names())} (name one with "
                    f"{messages.option('score', 'sim')} or {messages.option('rank', 'pos')})"
                    + (messages.swapped_hint("run") if swapped else "")
                )
        resolved = dataclasses.replace(self, order_by=order_by)
        order_column = resolved.order_column
        for what, schema, roles in (
            ("run", run_schema, ["query", "doc", order_by]),
            ("qrels", qrels_schema, ["query", "doc", "relevance"]),
        ):
            for role in roles:
                name = getattr(cols, role)
                if name not in schema:
                    raise messages.missing_column(
                        what, name, list(schema.names()), role=role, swapped=swapped
                    )
        for name in (cols.query, cols.doc):
            a, b = run_schema[name], qrels_schema[name]
            if a != b:
                raise PolarsRankError(
                    f"run column {name!r} is {a} but qrels column {name!r} is {b}; "
                    f"ids must have the same dtype in both ({messages.wording().cast_ids})"
                )
        if not run_schema[order_column].is_numeric():
            raise PolarsRankError(
                f"run column {order_column!r} must be numeric, got {run_schema[order_column]}"
            )
        if not qrels_schema[cols.relevance].is_numeric():
            raise PolarsRankError(
                f"qrels column {cols.relevance!r} must be numeric, "
                f"got {qrels_schema[cols.relevance]}"
            )
        return resolved
