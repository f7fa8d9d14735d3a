"""Rank fusion: several runs of the same queries fused into one run, as ranx 0.3.21's ``fuse``
defines it: the input's checks and the Polars engine's lazy plan of :func:`polars_rank.fuse`
(:mod:`polars_rank.compiler.fusion` is the same as SQL).

Each run is first normalised per query (``norm``), then the runs' normalised scores of each
``(query, doc)`` are combined (``method``). With ``s`` a run's scores for one query, ``n`` their
number and ``C`` the documents any run returned for the query (ranx's floors kept):

* ``min-max``: ``(s - min) / max(max - min, 1e-9)``; ``min-max-inverted``:
  ``(max - s) / max(max - min, 1e-9)``; ``max``: ``s / max(max, 1e-9)``;
  ``sum``: ``(s - min) / max(sum - min * n, 1e-9)``; ``zmuv``: ``(s - mean) / max(std, 1e-9)``
  (population std); ``rank``: ``1 - i / n`` at 0-based position ``i``; ``borda``:
  ``1 - i / |C|`` and, for a document of ``C`` the run did not return,
  ``0.5 - (n - 1) / (2 |C|)`` (borda is the one norm that fills missing documents);
  ``None``: the scores as they are.
* ``sum`` (CombSUM): the sum over the runs that returned the document; ``mnz``: that sum times
  their number; ``anz``: the sum over their number; ``med``: their median; ``max`` / ``min``:
  their largest / smallest, taking ranx's ``-1e9`` / ``1e9`` for a run that did not return it;
  ``wsum``: ``Σ weight(run) · score``, 0 for a missing document; ``rrf``: ``Σ 1 / (k + rank)``
  with the 1-based rank of the normalised score in each run (ranx normalises before RRF too:
  ``norm="min-max"`` by default, which keeps every run's order).

Positions and ranks follow polars_rank's order everywhere (score descending, ties by document
id descending as text bytes, trec_eval's order); ranx orders ties by its own sort, so fused
scores agree with ranx exactly on runs without ties. ``rrf`` after ``borda`` ranks the borda
scores (ranx takes the order of a Python set there). ranx 0.3.21's borda gives a missing
document the value of a returned one whose id is a prefix of its own ("d10" takes "d1"'s);
here it takes the formula's. A run that lacks a query is read as one that returned no
document for it (ranx asks every run to hold the same queries).

>>> import polars as pl
>>> from polars_rank import fuse
>>> runs = {
...     "bm25": pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [2.0, 1.0]}),
...     "dense": pl.DataFrame({"query": ["q", "q"], "doc": ["b", "c"], "score": [0.9, 0.1]}),
... }
>>> fuse(runs, "sum").rows()
[('q', 'b', 1.0), ('q', 'a', 1.0), ('q', 'c', 0.0)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_rank.core.errors import PolarsRankError, bad_choice
from polars_rank.core.frames import like, to_lazy

__all__ = ["FUSION_METHODS", "FUSION_NORMS", "finish", "plan", "prepare"]

#: ranx's fusion methods that :func:`fuse` computes.
FUSION_METHODS = ("sum", "mnz", "max", "min", "med", "anz", "wsum", "rrf")
#: ranx's normalisations (``None``: none).
FUSION_NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", None)

#: ranx's floor on every normalisation's denominator.
_FLOOR = 1e-9
#: What ranx's CombMAX / CombMIN take for a run that did not return a document.
_ABSENT_MAX, _ABSENT_MIN = -1e9, 1e9

# the internal names: the input is narrowed to these four columns first, so nothing clashes
_RUN, _Q, _D, _S = "run", "query", "doc", "score"
_POS, _N = "__pr_position", "__pr_count"


def prepare(
    runs: object,
    method: str,
    norm: str | None,
    weights: Mapping[Any, float] | Sequence[float] | None,
    k: float,
    columns: tuple[str, str, str, str],
) -> tuple[pl.LazyFrame, object, list[Any], dict[Any, float] | None]:
    """:func:`polars_rank.fuse`'s input checked, once: the options, then one pass over the
    rows (null ids, null/NaN/infinite scores, duplicate ``(run, query, doc)`` rows, the
    number of runs). Returns the runs stacked (``run, query, doc, score``), the frame whose
    kind the result takes, every run's name and ``wsum``'s weights by name (else None);
    ``columns`` are the caller's ``(run, query, doc, score)`` names."""
    _check_options(method, norm, weights, k)
    stacked, template, names = _stacked(runs, *columns)
    found = _check_rows(stacked)
    if names is None:
        names = sorted(found, key=str)
    if len(names) < 2:
        raise PolarsRankError(
            f"fuse needs at least two runs, got {len(names)}"
            + (f" ({names[0]!r})" if names else "")
            + "; one run fused with itself is that run (normalised)"
        )
    return stacked, template, names, _weights(method, weights, names, isinstance(runs, Mapping))


def finish(
    fused: pl.DataFrame | pl.LazyFrame,
    stacked: pl.LazyFrame,
    template: object,
    columns: tuple[str, str, str, str],
) -> pl.DataFrame | pl.LazyFrame:
    """An engine's fused ``query, doc, score`` as :func:`polars_rank.fuse` returns it: the
    ids in the input's types, sorted by query and score descending (ties by doc id
    descending as text), the caller's column names, the kind of ``template``."""
    _, query, doc, score = columns
    schema = stacked.collect_schema()
    typed = fused.lazy().select(
        pl.col(_Q).cast(schema[_Q]), pl.col(_D).cast(schema[_D]), pl.col(_S).cast(pl.Float64)
    )
    out = typed.sort(
        [pl.col(_Q), pl.col(_S), pl.col(_D).cast(pl.String)],
        descending=[False, True, True],
        maintain_order=True,
    ).rename({_Q: query, _D: doc, _S: score})
    return like(out, template)


def plan(
    stacked: pl.LazyFrame,
    method: str,
    norm: str | None,
    runs: list[Any],
    weights: dict[Any, float] | None,
    k: float,
) -> pl.LazyFrame:
    """The Polars engine's fusion of checked stacked runs (``run, query, doc, score``; every
    run's name in ``runs``): the fused ``query, doc, score`` as one lazy plan, in no
    particular order."""
    return _combine(_normalise(stacked, norm, runs), method, len(runs), weights, k)


def _check_options(method: object, norm: object, weights: object, k: object) -> None:
    if method not in FUSION_METHODS:
        raise bad_choice("method", method, FUSION_METHODS)
    if norm not in FUSION_NORMS:
        raise bad_choice("norm", norm, FUSION_NORMS)
    if isinstance(k, bool) or not isinstance(k, int | float) or not k > 0 or k == float("inf"):
        raise PolarsRankError(f"k must be a positive number, got {k!r}")
    if method == "wsum" and weights is None:
        raise PolarsRankError("method='wsum' needs weights: {run name: weight} for every run")
    if method != "wsum" and weights is not None:
        raise PolarsRankError(f"weights are for method='wsum' only, got method={method!r}")


def _stacked(
    runs: object, run: str, query: str, doc: str, score: str
) -> tuple[pl.LazyFrame, object, list[Any] | None]:
    """The runs as one LazyFrame (run, query, doc, score: the internal names), the frame whose
    kind the result takes, and the run names when ``runs`` is a dict (None: read them)."""
    wanted = {query: _Q, doc: _D, score: _S}
    if isinstance(runs, Mapping):
        frames = []
        for name, frame in runs.items():
            lazy = to_lazy(frame, f"run {name!r}")
            _check_columns(lazy, list(wanted), f"run {name!r}")
            frames.append(
                lazy.select(
                    pl.lit(name).alias(_RUN), *(pl.col(c).alias(a) for c, a in wanted.items())
                )
            )
        if not frames:
            raise PolarsRankError("fuse needs at least two runs, got an empty dict")
        schemas = [f.collect_schema() for f in frames]
        for name, schema in zip(runs, schemas, strict=True):
            if schema[_Q] != schemas[0][_Q] or schema[_D] != schemas[0][_D]:
                first = next(iter(runs))
                raise PolarsRankError(
                    f"run {name!r} has query/doc types {schema[_Q]}/{schema[_D]}, run {first!r} "
                    f"{schemas[0][_Q]}/{schemas[0][_D]}; cast them to one type"
                )
        stacked = pl.concat(
            [f.with_columns(pl.col(_S).cast(pl.Float64)) for f in frames], how="vertical"
        )
        template = next(iter(runs.values()))
        return _numeric(stacked, schemas), template, list(runs)
    lazy = to_lazy(runs, "runs")
    _check_columns(lazy, [run, *wanted], "runs")
    selected = lazy.select(
        pl.col(run).alias(_RUN), *(pl.col(c).alias(a) for c, a in wanted.items())
    )
    stacked = _numeric(selected, [selected.collect_schema()])
    return stacked.with_columns(pl.col(_S).cast(pl.Float64)), runs, None


def _check_columns(frame: pl.LazyFrame, columns: list[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.collect_schema()]
    if missing:
        raise PolarsRankError(f"{what} has no column {missing[0]!r}")


def _numeric(frame: pl.LazyFrame, schemas: list[pl.Schema]) -> pl.LazyFrame:
    for schema in schemas:
        if not schema[_S].is_numeric():
            raise PolarsRankError(f"the score column must be numeric, got {schema[_S]}")
    return frame


def _check_rows(stacked: pl.LazyFrame) -> list[Any]:
    """One pass over the input: raise on null ids, bad scores or duplicate rows; return the
    run names found."""
    keys = [_RUN, _Q, _D]
    found = stacked.select(
        pl.any_horizontal(pl.col(c).is_null() for c in keys).sum().alias("null_ids"),
        (pl.col(_S).is_null() | pl.col(_S).is_nan() | pl.col(_S).is_infinite())
        .sum()
        .alias("bad_scores"),
        (pl.len() - pl.struct(keys).n_unique()).alias("duplicates"),
        pl.col(_RUN).unique().implode().alias("runs"),
    ).collect()
    row = found.row(0, named=True)
    if row["null_ids"]:
        raise PolarsRankError(f"{row['null_ids']} row(s) have a null run, query or doc id")
    if row["bad_scores"]:
        raise PolarsRankError(
            f"{row['bad_scores']} row(s) have a null, NaN or infinite score; fusion needs a "
            "finite score on every row"
        )
    if row["duplicates"]:
        raise PolarsRankError(
            f"{row['duplicates']} duplicate (run, query, doc) row(s); keep one row per "
            "document in each run's query"
        )
    return list(row["runs"])


def _weights(
    method: str, weights: object, names: list[Any], from_dict: bool
) -> dict[Any, float] | None:
    if method != "wsum":
        return None
    if isinstance(weights, Mapping):
        given = dict(weights)
    elif isinstance(weights, Sequence) and not isinstance(weights, str) and from_dict:
        if len(weights) != len(names):
            raise PolarsRankError(f"{len(weights)} weights for {len(names)} runs")
        given = dict(zip(names, weights, strict=True))
    else:
        raise PolarsRankError(
            "weights must be {run name: weight} (a sequence only with a dict of runs), "
            f"got {weights!r}"
        )
    if set(given) != set(names):
        missing = [n for n in names if n not in given]
        extra = [n for n in given if n not in names]
        raise PolarsRankError(
            f"weights must name every run and only those: missing {missing}, unknown {extra}"
        )
    for name, value in given.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise PolarsRankError(f"weight of run {name!r} must be a number, got {value!r}")
        if not abs(value) < float("inf"):
            raise PolarsRankError(f"weight of run {name!r} must be finite, got {value!r}")
    return {name: float(value) for name, value in given.items()}


def _position() -> pl.Expr:
    """0-based position in the run's query: score descending, ties by doc id descending."""
    keys = pl.struct(pl.col(_S).alias("s"), pl.col(_D).cast(pl.String).alias("d"))
    return (keys.rank("ordinal", descending=True).cast(pl.Float64) - 1).over(_RUN, _Q)


def _normalise(frame: pl.LazyFrame, norm: str | None, names: list[Any]) -> pl.LazyFrame:
    """Each run's scores normalised per query, as ranx's ``norm`` (``names``: every run)."""
    s, by = pl.col(_S), [_RUN, _Q]
    low, high = s.min().over(by), s.max().over(by)
    if norm is None:
        return frame
    if norm == "borda":
        return _borda(frame, names)
    if norm == "min-max":
        value = (s - low) / pl.max_horizontal(high - low, _FLOOR)
    elif norm == "min-max-inverted":
        value = (high - s) / pl.max_horizontal(high - low, _FLOOR)
    elif norm == "max":
        value = s / pl.max_horizontal(high, _FLOOR)
    elif norm == "sum":
        value = (s - low) / pl.max_horizontal(s.sum().over(by) - low * pl.len().over(by), _FLOOR)
    elif norm == "zmuv":
        value = (s - s.mean().over(by)) / pl.max_horizontal(s.std(ddof=0).over(by), _FLOOR)
    else:  # rank
        value = 1 - _position() / pl.len().over(by)
    return frame.with_columns(value.alias(_S))


def _borda(frame: pl.LazyFrame, names: list[Any]) -> pl.LazyFrame:
    """ranx's borda norm: ``1 - i / |C|`` for a returned document at 0-based position ``i``,
    ``0.5 - (n - 1) / (2 |C|)`` for a document of the query's candidates ``C`` (returned by
    any run) that the run did not return, ``n`` being the run's number of documents."""
    ranked = frame.with_columns(_position().alias(_POS), pl.len().over(_RUN, _Q).alias(_N))
    candidates = frame.select(_Q, _D).unique()
    sizes = candidates.group_by(_Q).agg(pl.len().alias("__pr_candidates"))
    every = (
        _run_table(frame, {_RUN: names})
        .join(candidates, how="cross")
        .join(sizes, on=_Q)
        .join(ranked, on=[_RUN, _Q, _D], how="left", nulls_equal=True)
        .join(
            ranked.select(_RUN, _Q, _N).unique().rename({_N: "__pr_run_size"}),
            on=[_RUN, _Q],
            how="left",
            nulls_equal=True,
        )
    )
    c = pl.col("__pr_candidates")
    returned = 1 - pl.col(_POS) / c
    missing = 0.5 - (pl.col("__pr_run_size").fill_null(0).cast(pl.Float64) - 1) / (2 * c)
    value = pl.when(pl.col(_POS).is_not_null()).then(returned).otherwise(missing)
    return every.select(_RUN, _Q, _D, value.alias(_S))


def _run_table(frame: pl.LazyFrame, data: dict[str, list[Any]]) -> pl.LazyFrame:
    """A small table keyed by run name, the name in the stacked runs' dtype."""
    return pl.LazyFrame(data, schema_overrides={_RUN: frame.collect_schema()[_RUN]})


def _combine(
    frame: pl.LazyFrame,
    method: str,
    n_runs: int,
    weights: dict[Any, float] | None,
    k: float,
) -> pl.LazyFrame:
    """One score per ``(query, doc)`` from the runs' normalised scores, as ranx's ``method``."""
    s = pl.col(_S)
    if method == "rrf":
        frame = frame.with_columns((1 / (k + _position() + 1)).alias(_S))
    if method == "wsum" and weights is not None:
        table = _run_table(frame, {_RUN: list(weights), "__pr_weight": list(weights.values())})
        frame = frame.join(table, on=_RUN).with_columns((pl.col("__pr_weight") * s).alias(_S))
    s = s.sort_by(_RUN)  # a sum in one order (by run), whatever order the rows come in
    missing = pl.len() < n_runs
    combined = {
        "sum": s.sum(),
        "rrf": s.sum(),
        "wsum": s.sum(),
        "mnz": s.sum() * pl.len(),
        "anz": s.sum() / pl.len(),
        "med": s.median(),
        "max": pl.when(missing).then(pl.max_horizontal(s.max(), _ABSENT_MAX)).otherwise(s.max()),
        "min": pl.when(missing).then(pl.min_horizontal(s.min(), _ABSENT_MIN)).otherwise(s.min()),
    }[method]
    return frame.group_by(_Q, _D).agg(combined.cast(pl.Float64).alias(_S))
