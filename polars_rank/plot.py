"""Plots of evaluation results (needs matplotlib: ``pip install '.[plot]'`` in a clone of
polars_rank, or ``pip install 'matplotlib>=3.8'``).

Every function draws on its own figure with the non-interactive Agg canvas (the global
pyplot state and backend are left alone), writes ``path`` — SVG when it ends in ``.svg``,
PNG otherwise — and returns it as a :class:`pathlib.Path`. matplotlib is imported inside the
functions, so ``import polars_rank`` does not need it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Unpack, cast

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.core.extras import require
from polars_rank.core.frames import to_frame
from polars_rank.core.types import EvaluateOptions, FrameLike, TableInput
from polars_rank.ranking.metrics import ELEVEN_POINTS

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_DPI = 150
#: Colours of a better and a worse query; up to _MAX_BARS queries are drawn as separate bars.
_BETTER, _WORSE = "#2a9d4b", "#c8423b"
_MAX_BARS = 200


def _new_figure(width: float = 7.0, height: float = 4.5) -> tuple[Figure, Axes]:
    require("matplotlib", "plot")  # a PolarsRankError naming the extra when it is missing
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


def _require(frame: FrameLike, columns: Iterable[str], what: str) -> pl.DataFrame:
    """``frame`` as a Polars DataFrame, after checking it has ``columns``."""
    out = to_frame(frame, f"plot.{what}: the frame")
    missing = [c for c in columns if c not in out.columns]
    if missing:
        raise ValueError(f"plot.{what}: column(s) {missing} missing; got {out.columns}")
    return out


def _groups(frame: pl.DataFrame, column: str | None) -> list[tuple[str | None, pl.DataFrame]]:
    if column is None:
        return [(None, frame)]
    return [
        (str(key[0]), part)
        for key, part in frame.partition_by(column, as_dict=True, maintain_order=True).items()
    ]


def per_query_differences(
    per_query: FrameLike,
    metric: str,
    run_a: str,
    run_b: str,
    path: str | PathLike[str],
    *,
    run: str = "run",
    query: str = "query",
) -> Path:
    """Bar chart of ``metric(run_b) − metric(run_a)`` per query, sorted from largest gain to
    largest loss (green: ``run_b`` better, red: worse). Beyond 200 queries the bars are drawn
    as one filled step outline per sign, which stays solid at any width (single-pixel bars
    would alias into stripes).

    ``per_query`` is the long frame of :func:`polars_rank.comparison.compare_per_query`
    (``run, query, <metrics>``). Queries present in only one of the two runs are an error.

    >>> import tempfile
    >>> pq = pl.DataFrame({"run": ["bm25"] * 2 + ["dense"] * 2, "query": ["q1", "q2"] * 2,
    ...                    "AP": [0.2, 0.5, 0.4, 0.3]})
    >>> per_query_differences(pq, "AP", "bm25", "dense", Path(tempfile.mkdtemp(), "d.png")).name
    'd.png'
    """
    frame = _require(per_query, [run, query, metric], "per_query_differences")
    a = frame.filter(pl.col(run) == run_a).select(query, pl.col(metric).alias("_a"))
    b = frame.filter(pl.col(run) == run_b).select(query, pl.col(metric).alias("_b"))
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

    fig, ax = _new_figure(max(6.0, min(14.0, 0.18 * n + 3.0)), 4.5)
    if n <= _MAX_BARS:
        colors = [_BETTER if v > 0 else _WORSE if v < 0 else "#888888" for v in values]
        ax.bar(range(n), values, color=colors, width=0.85)
    else:  # bars thinner than a pixel alias into stripes: one filled outline per sign
        edges = [i - 0.5 for i in range(n + 1)]
        for color, heights in (
            (_BETTER, [max(v, 0.0) for v in values]),
            (_WORSE, [min(v, 0.0) for v in values]),
        ):
            ax.stairs(heights, edges, baseline=0.0, fill=True, color=color, linewidth=0)
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


def metric_at_k(curves: FrameLike, path: str | PathLike[str], *, metric_name: str) -> Path:
    """Line plot of a metric against the cutoff ``k``, one line per run, integer ticks on k.

    ``curves`` has columns ``run, k, value`` (e.g. from :func:`metric_at_k_frame`).

    >>> import tempfile
    >>> curves = pl.DataFrame({"run": ["a", "a"], "k": [1, 2], "value": [0.5, 0.6]})
    >>> metric_at_k(curves, Path(tempfile.mkdtemp(), "ndcg.png"), metric_name="nDCG").suffix
    '.png'
    """
    from matplotlib.ticker import MaxNLocator

    frame = _require(curves, ["run", "k", "value"], "metric_at_k")
    fig, ax = _new_figure()
    for name, part in _groups(frame, "run"):
        part = part.sort("k")
        ax.plot(part["k"].to_list(), part["value"].to_list(), label=name, linewidth=1.6)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))  # k: whole
    ax.set_xlabel("k (cutoff)")
    ax.set_ylabel(f"{metric_name}@k")
    ax.set_title(f"{metric_name}@k")
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(fig, path)


def _means_by_run(
    runs: Mapping[str, TableInput] | Iterable[tuple[str, TableInput]],
    qrels: TableInput | None,
    names: list[str],
    xs: Sequence[float],
    columns: dict[str, pl.DataType],
    **evaluate_options: Unpack[EvaluateOptions],
) -> pl.DataFrame:
    """``run, <x>, <value>``: the mean of metric ``names[i]`` of each run at ``xs[i]``, from one
    :func:`polars_rank.evaluate_runs` call."""
    from polars_rank.evaluation import evaluate_runs

    if evaluate_options.get("by"):
        raise PolarsRankError("the plot frames take no by= (one curve per run): filter a group")
    means = evaluate_runs(runs, qrels, names, **evaluate_options)
    rows = [
        (run, x, value)
        for run, *values in means.iter_rows()
        for x, value in zip(xs, values, strict=True)
    ]
    return pl.DataFrame(rows, schema={"run": pl.String, **columns}, orient="row")


def _without_cutoff(metric: str) -> tuple[str, int | None]:
    """``(name without its cutoff, the cutoff)`` of a metric with a cutoff (``"nDCG@20"`` →
    ``("nDCG", 20)``, ``"P(rel=2)@5"``, ``"ndcg_cut.10"``), ``(metric, None)`` without one;
    an error for a metric that takes no cutoff."""
    from polars_rank.catalog.names import parse_metric

    spec = parse_metric(metric)
    if spec.entry.cutoff not in ("required", "optional"):
        raise PolarsRankError(f"metric {metric!r} takes no cutoff k: it has no curve over k")
    if spec.k is None:
        return metric, None
    base = re.sub(r"(?:@|[._])\s*[0-9]+\s*$", "", metric.strip())
    again = parse_metric(f"{base}@{spec.k}")
    if (again.metric, again.params, again.relevance_level) != (
        spec.metric,
        spec.params,
        spec.relevance_level,
    ):
        raise PolarsRankError(f"metric {metric!r}: write its cutoff as @k, e.g. {base}@{spec.k}")
    return base, spec.k


def metric_at_k_frame(
    runs: Mapping[str, TableInput] | Iterable[tuple[str, TableInput]],
    qrels: TableInput | None,
    metric: str = "nDCG",
    ks: Iterable[int] | None = None,
    **evaluate_options: Unpack[EvaluateOptions],
) -> pl.DataFrame:
    """Frame ``run, k, value`` of the mean ``{metric}@{k}`` of each run for every ``k``
    (``runs`` maps names to frames).

    ``ks`` defaults to 1..100, or to 1..K for a metric given with its own cutoff K
    (``"nDCG@20"``: 1..20); a metric with a cutoff and ``ks`` together are an error.

    >>> qrels = pl.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]})
    >>> run = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    >>> metric_at_k_frame({"r": run}, qrels, "P", [1, 2]).rows()
    [('r', 1, 0.0), ('r', 2, 0.5)]
    >>> metric_at_k_frame({"r": run}, qrels, "P(rel=1)@3")["k"].to_list()
    [1, 2, 3]
    """
    base, cutoff = _without_cutoff(metric)
    if ks is None:
        ks = range(1, (cutoff or 100) + 1)
    elif cutoff is not None:
        raise PolarsRankError(
            f"metric {metric!r} has its own cutoff {cutoff}: pass ks or the metric without it "
            f"({base!r}), not both"
        )
    cutoffs = list(ks)
    names = [f"{base}@{k}" for k in cutoffs]
    columns: dict[str, pl.DataType] = {"k": pl.Int64(), "value": pl.Float64()}
    return _means_by_run(runs, qrels, names, cutoffs, columns, **evaluate_options)


def precision_recall_11pt_frame(
    runs: Mapping[str, TableInput] | Iterable[tuple[str, TableInput]],
    qrels: TableInput | None,
    **evaluate_options: Unpack[EvaluateOptions],
) -> pl.DataFrame:
    """Frame ``run, recall, precision`` of the 11-point interpolated precision of each run
    (the metrics ``IPrec@0.0``, ``IPrec@0.1``, …, ``IPrec@1.0``)."""
    names = [f"IPrec@{level:.1f}" for level in ELEVEN_POINTS]
    columns: dict[str, pl.DataType] = {"recall": pl.Float64(), "precision": pl.Float64()}
    return _means_by_run(
        runs,
        qrels,
        names,
        list(ELEVEN_POINTS),
        columns,
        **evaluate_options,
    )


def precision_recall_11pt(curves: FrameLike, path: str | PathLike[str]) -> Path:
    """11-point interpolated precision–recall curves, one per run (``run, recall, precision``).

    >>> import tempfile
    >>> curves = pl.DataFrame({"run": "a", "recall": [0.0, 0.5, 1.0], "precision": [1.0, 0.5, 0.2]})
    >>> precision_recall_11pt(curves, Path(tempfile.mkdtemp(), "pr.png")).name
    'pr.png'
    """
    frame = _require(curves, ["run", "recall", "precision"], "precision_recall_11pt")
    fig, ax = _new_figure(6.0, 4.8)
    for name, part in _groups(frame, "run"):
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


def _curve_keys(
    curve: pl.DataFrame, by: str | Sequence[str] | None, own: tuple[str, ...]
) -> list[str]:
    """The group key columns of a curve frame: ``by``, else every column that is not one of
    the curve's own (a frame computed ``by="user"`` has ``user``; ``run``/``group`` too)."""
    if by is None:
        return [c for c in curve.columns if c not in own]
    keys = [by] if isinstance(by, str) else list(by)
    missing = [k for k in keys if k not in curve.columns]
    if missing:
        raise ValueError(f"plot: group column(s) {missing} missing; got {curve.columns}")
    return keys


def _label(keys: list[str], values: tuple[object, ...]) -> str:
    """A group's legend label: the value of a ``run``/``group`` column as is, otherwise
    ``column value`` (``user 17``)."""
    if keys in (["run"], ["group"]):
        return str(values[0])
    return ", ".join(f"{k} {v}" for k, v in zip(keys, values, strict=True))


def _classification_curve(
    curve: pl.DataFrame,
    path: str | PathLike[str],
    *,
    kind: str,
    keys: list[str],
    max_lines: int,
) -> Path:
    """ROC (``kind="roc"``) or precision–recall curves: one line per group with its area in
    the legend, or, beyond ``max_lines`` groups, their mean with a 10th–90th percentile band."""
    from polars_rank.classification import curves as _curves

    roc = kind == "roc"
    x, y, area = ("fpr", "tpr", "AUC") if roc else ("recall", "precision", "AP")
    fig, ax = _new_figure(5.6, 5.0) if roc else _new_figure(5.8, 4.8)
    if roc:
        ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=0.8, label="chance")
    areas = (_curves.roc_areas if roc else _curves.pr_areas)(curve, keys)
    drawn = _curves.defined(curve, keys, x, y)
    groups = curve.select(keys).unique().height if keys else 1
    not_drawn = groups - (areas.height if keys else int(drawn.height > 0))
    note = f"{not_drawn} group(s) with one class only: no curve" if not_drawn and keys else ""
    if keys and areas.height > max_lines:
        mean = (_curves.mean_roc if roc else _curves.mean_pr)(curve, keys)
        values = areas[area.lower()]
        # the areas are floats (AUC, AP): their mean and median are floats
        mean_area, median_area = cast(float, values.mean()), cast(float, values.median())
        ax.fill_between(
            mean[x].to_list(),
            mean["low"].to_list(),
            mean["high"].to_list(),
            color="C0",
            alpha=0.25,
            linewidth=0,
            label="10th–90th percentile of groups",
        )
        ax.plot(
            mean[x].to_list(),
            mean["mean"].to_list(),
            color="C0",
            linewidth=1.8,
            label=f"mean of {areas.height} groups ({area} mean {mean_area:.3f}, "
            f"median {median_area:.3f})",
        )
    elif keys:
        order = [*keys, x, y] if roc else keys
        by_group = drawn.sort(order, maintain_order=True).partition_by(
            keys, as_dict=True, maintain_order=True
        )
        for key, value in zip(areas.select(keys).iter_rows(), areas[area.lower()], strict=True):
            part = by_group[key]
            ax.plot(
                part[x].to_list(),
                part[y].to_list(),
                linewidth=1.4,
                label=f"{_label(keys, key)} ({area} {value:.3f})",
            )
    elif drawn.height:
        part = drawn.sort(x, y, maintain_order=True) if roc else drawn
        ax.plot(
            part[x].to_list(), part[y].to_list(), linewidth=1.6, label=f"{area} {areas.item():.3f}"
        )
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    if roc:
        ax.set_aspect("equal")
    ax.set_xlabel("false positive rate" if roc else "recall")
    ax.set_ylabel("true positive rate" if roc else "precision")
    title = "ROC curve" if roc else "Precision–recall curve"
    ax.set_title(title + (f"\n{note}" if note else ""), fontsize=10 if note else None)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right" if roc else "lower left", fontsize="small")
    return _save(fig, path)


def roc_curve(
    curve: FrameLike,
    path: str | PathLike[str],
    *,
    by: str | Sequence[str] | None = None,
    max_lines: int = 20,
) -> Path:
    """ROC curves from a frame ``fpr, tpr`` (e.g. :func:`polars_rank.classification.roc_curve`)
    with the chance diagonal.

    Group columns (``by``; by default every column besides ``threshold, fpr, tpr``, so a frame
    computed ``by="user"`` or with a ``run`` column works as is) give one line per group, its
    AUC in the legend (the trapezoidal area under its points: the AUC). Beyond ``max_lines``
    groups, their mean curve and the band between the 10th and 90th percentile of the groups'
    true positive rates are drawn instead, with the mean and median AUC. A group with one
    class has no curve; the title says how many.

    >>> import tempfile
    >>> curve = pl.DataFrame({"fpr": [0, 0, 1], "tpr": [0, 1, 1]})
    >>> roc_curve(curve, Path(tempfile.mkdtemp(), "roc.svg")).read_text()[:5]
    '<?xml'
    """
    frame = _require(curve, ["fpr", "tpr"], "roc_curve")
    keys = _curve_keys(frame, by, ("threshold", "fpr", "tpr"))
    return _classification_curve(frame, path, kind="roc", keys=keys, max_lines=max_lines)


def precision_recall_curve(
    curve: FrameLike,
    path: str | PathLike[str],
    *,
    by: str | Sequence[str] | None = None,
    max_lines: int = 20,
) -> Path:
    """Precision–recall curves from a frame ``recall, precision`` (e.g.
    :func:`polars_rank.classification.precision_recall_curve`), drawn in the frame's row order.

    Groups as in :func:`roc_curve` (by default every column besides ``threshold, precision,
    recall``), each with its average precision in the legend (Σ (r_j − r_{j−1})·P(r_j), as
    scikit-learn). Beyond ``max_lines`` groups: the mean interpolated precision (the highest
    precision at a recall at least r) and its 10th–90th percentile band.

    >>> import tempfile
    >>> curve = pl.DataFrame({"recall": [0.0, 1.0], "precision": [1.0, 0.5]})
    >>> precision_recall_curve(curve, Path(tempfile.mkdtemp(), "pr.png")).stat().st_size > 0
    True
    """
    frame = _require(curve, ["recall", "precision"], "precision_recall_curve")
    keys = _curve_keys(frame, by, ("threshold", "precision", "recall"))
    return _classification_curve(frame, path, kind="pr", keys=keys, max_lines=max_lines)
