"""Plots of evaluation results (needs matplotlib: ``pip install polars-rank[plot]``).

Every function draws on its own figure with the non-interactive Agg canvas (the global
pyplot state and backend are left alone), writes ``path`` — SVG when it ends in ``.svg``,
PNG otherwise — and returns it as a :class:`pathlib.Path`. matplotlib is imported inside the
functions, so ``import polars_rank`` does not need it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._frames import to_frame
from polars_rank.ranking.metrics import ELEVEN_POINTS

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_DPI = 150


def _new_figure(width: float = 7.0, height: float = 4.5) -> tuple[Figure, Axes]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _save(fig: Figure, path: str | PathLike[str]) -> Path:
    out = Path(path)
    fmt = "svg" if out.suffix.lower() == ".svg" else "png"
    fig.savefig(out, format=fmt, dpi=_DPI)
    return out


def _require(frame: Any, columns: Iterable[str], what: str) -> pl.DataFrame:
    """``frame`` as a Polars DataFrame, after checking it has ``columns``."""
    frame = to_frame(frame, f"plot.{what}: the frame")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"plot.{what}: column(s) {missing} missing; got {frame.columns}")
    return frame


def _series_column(frame: pl.DataFrame) -> str | None:
    """Column naming the curves of a multi-line frame: ``run``, else ``group``, else none."""
    for name in ("run", "group"):
        if name in frame.columns:
            return name
    return None


def _groups(frame: pl.DataFrame, column: str | None) -> list[tuple[str | None, pl.DataFrame]]:
    if column is None:
        return [(None, frame)]
    return [
        (str(key[0]), part)
        for key, part in frame.partition_by(column, as_dict=True, maintain_order=True).items()
    ]


def per_query_differences(
    per_query: pl.DataFrame,
    metric: str,
    run_a: str,
    run_b: str,
    path: str | PathLike[str],
    *,
    run: str = "run",
    query: str = "query",
) -> Path:
    """Bar chart of ``metric(run_b) − metric(run_a)`` per query, sorted from largest gain to
    largest loss (green: ``run_b`` better, red: worse).

    ``per_query`` is the long frame of :func:`polars_rank.comparison.compare_per_query`
    (``run, query, <metrics>``). Queries present in only one of the two runs are an error.

    >>> import tempfile
    >>> pq = pl.DataFrame({"run": ["bm25"] * 2 + ["dense"] * 2, "query": ["q1", "q2"] * 2,
    ...                    "AP": [0.2, 0.5, 0.4, 0.3]})
    >>> per_query_differences(pq, "AP", "bm25", "dense", Path(tempfile.mkdtemp(), "d.png")).name
    'd.png'
    """
    per_query = _require(per_query, [run, query, metric], "per_query_differences")
    a = per_query.filter(pl.col(run) == run_a).select(query, pl.col(metric).alias("_a"))
    b = per_query.filter(pl.col(run) == run_b).select(query, pl.col(metric).alias("_b"))
    for name, part in ((run_a, a), (run_b, b)):
        if part.is_empty():
            raise ValueError(f"plot.per_query_differences: no rows for run {name!r}")
    joined = a.join(b, on=query, how="full", coalesce=True)
    if joined.select(pl.col("_a", "_b").is_null().any()).row(0) != (False, False):
        raise ValueError("plot.per_query_differences: the two runs do not have the same queries")
    diffs = joined.select(query, (pl.col("_b") - pl.col("_a")).alias("diff")).sort(
        ["diff", query], descending=[True, False]
    )
    values = diffs["diff"].to_list()
    n = len(values)
    colors = ["#2a9d4b" if v > 0 else "#c8423b" if v < 0 else "#888888" for v in values]

    fig, ax = _new_figure(max(6.0, min(14.0, 0.18 * n + 3.0)), 4.5)
    ax.bar(range(n), values, color=colors, width=0.85)
    ax.axhline(0.0, color="black", linewidth=0.8)
    wins, losses = sum(v > 0 for v in values), sum(v < 0 for v in values)
    ax.set_title(
        f"{metric}: {run_b} − {run_a} per query\n"
        f"mean {sum(values) / n:+.4f} · {wins} better, {n - wins - losses} equal, {losses} worse",
        fontsize=10,
    )
    ax.set_ylabel(f"Δ {metric}")
    if n <= 40:
        ax.set_xticks(range(n), [str(q) for q in diffs[query].to_list()], rotation=90, fontsize=7)
        ax.set_xlabel("query (sorted by difference)")
    else:
        ax.set_xticks([])
        ax.set_xlabel(f"{n} queries (sorted by difference)")
    ax.set_xlim(-0.6, n - 0.4)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)


def metric_at_k(curves: pl.DataFrame, path: str | PathLike[str], *, metric_name: str) -> Path:
    """Line plot of a metric against the cutoff ``k``, one line per run.

    ``curves`` has columns ``run, k, value`` (e.g. from :func:`metric_at_k_frame`).

    >>> import tempfile
    >>> curves = pl.DataFrame({"run": ["a", "a"], "k": [1, 2], "value": [0.5, 0.6]})
    >>> metric_at_k(curves, Path(tempfile.mkdtemp(), "ndcg.png"), metric_name="nDCG").suffix
    '.png'
    """
    curves = _require(curves, ["run", "k", "value"], "metric_at_k")
    fig, ax = _new_figure()
    for name, part in _groups(curves, "run"):
        part = part.sort("k")
        ax.plot(part["k"].to_list(), part["value"].to_list(), label=name, linewidth=1.6)
    ax.set_xlabel("k (cutoff)")
    ax.set_ylabel(f"{metric_name}@k")
    ax.set_title(f"{metric_name}@k")
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(fig, path)


def _means_by_run(
    runs: Mapping[str, Any] | Iterable[tuple[str, Any]],
    qrels: Any,
    names: list[str],
    xs: list[Any],
    columns: dict[str, pl.DataType],
    function: str,
    **evaluate_options: Any,
) -> pl.DataFrame:
    """``run, <x>, <value>``: the mean of metric ``names[i]`` of each run at ``xs[i]``, from one
    :func:`polars_rank.evaluate_runs` call."""
    from polars_rank.ranking.evaluate import evaluate_runs, runs_first

    runs, qrels = runs_first(runs, qrels, function)
    means = evaluate_runs(runs, qrels, names, **evaluate_options)
    rows = [
        (run, x, value)
        for run, *values in means.iter_rows()
        for x, value in zip(xs, values, strict=True)
    ]
    return pl.DataFrame(rows, schema={"run": pl.String, **columns}, orient="row")


def metric_at_k_frame(
    runs: Mapping[str, Any] | Iterable[tuple[str, Any]],
    qrels: Any,
    metric: str = "nDCG",
    ks: Iterable[int] = range(1, 101),
    **evaluate_options: Any,
) -> pl.DataFrame:
    """Frame ``run, k, value`` of the mean ``{metric}@{k}`` of each run for every ``k``
    (``runs`` maps names to frames).

    >>> qrels = pl.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]})
    >>> run = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    >>> metric_at_k_frame({"r": run}, qrels, "P", [1, 2]).rows()
    [('r', 1, 0.0), ('r', 2, 0.5)]
    """
    ks = list(ks)
    names = [f"{metric}@{k}" for k in ks]
    columns = {"k": pl.Int64, "value": pl.Float64}
    return _means_by_run(runs, qrels, names, ks, columns, "metric_at_k_frame", **evaluate_options)


def precision_recall_11pt_frame(
    runs: Mapping[str, Any] | Iterable[tuple[str, Any]], qrels: Any, **evaluate_options: Any
) -> pl.DataFrame:
    """Frame ``run, recall, precision`` of the 11-point interpolated precision of each run
    (the metrics ``IPrec@0.0``, ``IPrec@0.1``, …, ``IPrec@1.0``)."""
    names = [f"IPrec@{level:.1f}" for level in ELEVEN_POINTS]
    columns = {"recall": pl.Float64, "precision": pl.Float64}
    return _means_by_run(
        runs,
        qrels,
        names,
        list(ELEVEN_POINTS),
        columns,
        "precision_recall_11pt_frame",
        **evaluate_options,
    )


def precision_recall_11pt(curves: pl.DataFrame, path: str | PathLike[str]) -> Path:
    """11-point interpolated precision–recall curves, one per run (``run, recall, precision``).

    >>> import tempfile
    >>> curves = pl.DataFrame({"run": "a", "recall": [0.0, 0.5, 1.0], "precision": [1.0, 0.5, 0.2]})
    >>> precision_recall_11pt(curves, Path(tempfile.mkdtemp(), "pr.png")).name
    'pr.png'
    """
    curves = _require(curves, ["run", "recall", "precision"], "precision_recall_11pt")
    fig, ax = _new_figure(6.0, 4.8)
    for name, part in _groups(curves, "run"):
        part = part.sort("recall")
        ax.plot(
            part["recall"].to_list(),
            part["precision"].to_list(),
            marker="o",
            markersize=4,
            label=name,
        )
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xticks(ELEVEN_POINTS)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_title("11-point interpolated precision–recall")
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(fig, path)


def roc_curve(curve: pl.DataFrame, path: str | PathLike[str]) -> Path:
    """ROC curve(s) from a frame ``fpr, tpr`` (optional ``run`` or ``group`` column: one line
    each), with the chance diagonal. Points are drawn in increasing ``(fpr, tpr)`` order.

    >>> import tempfile
    >>> curve = pl.DataFrame({"fpr": [0, 0, 1], "tpr": [0, 1, 1]})
    >>> roc_curve(curve, Path(tempfile.mkdtemp(), "roc.svg")).read_text()[:5]
    '<?xml'
    """
    curve = _require(curve, ["fpr", "tpr"], "roc_curve")
    fig, ax = _new_figure(5.2, 5.0)
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=0.8, label="chance")
    for name, part in _groups(curve, _series_column(curve)):
        part = part.sort("fpr", "tpr", maintain_order=True)
        ax.plot(part["fpr"].to_list(), part["tpr"].to_list(), linewidth=1.6, label=name)
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.set_aspect("equal")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title("ROC curve")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    return _save(fig, path)


def precision_recall_curve(curve: pl.DataFrame, path: str | PathLike[str]) -> Path:
    """Precision–recall curve(s) from a frame ``recall, precision`` (optional ``run`` or
    ``group`` column: one line each). Points are drawn in the frame's row order.

    >>> import tempfile
    >>> curve = pl.DataFrame({"recall": [0.0, 1.0], "precision": [1.0, 0.5]})
    >>> precision_recall_curve(curve, Path(tempfile.mkdtemp(), "pr.png")).stat().st_size > 0
    True
    """
    curve = _require(curve, ["recall", "precision"], "precision_recall_curve")
    fig, ax = _new_figure(5.6, 4.8)
    for name, part in _groups(curve, _series_column(curve)):
        ax.plot(part["recall"].to_list(), part["precision"].to_list(), linewidth=1.6, label=name)
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_title("Precision–recall curve")
    ax.grid(alpha=0.3)
    if _series_column(curve) is not None:
        ax.legend()
    return _save(fig, path)
