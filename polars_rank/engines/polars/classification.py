"""The Polars engine of :func:`polars_rank.evaluate_classification`: every metric by its
catalog entry in one lazy plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank.catalog.classification import bindings

if TYPE_CHECKING:
    from polars_rank.catalog.names import MetricSpec


def evaluate_classification(
    lf: pl.LazyFrame,
    specs: list[MetricSpec],
    *,
    label: str,
    score: str,
    by: list[str],
    group: list[str],
    weight: str | None = None,
) -> pl.DataFrame:
    """``[by...,] <label>...``: each metric of ``specs`` by its catalog entry, one row (one per
    ``by`` segment, sorted, nulls first) in one lazy plan: the entries' expressions in one
    ``group_by(by).agg``, the frame-level entries (``tables``, e.g. GAUC) computed per segment
    by their own function and joined on ``by``. With ``weight`` (a sample-weight column),
    :mod:`polars_rank.classification.weighted`'s expressions instead."""
    from polars_rank.classification import weighted

    columns = bindings(label, score, group)
    exprs = [pl.len().alias("__cls_rows")]  # a row (per segment) even with frame-level only
    frames: list[pl.LazyFrame] = []
    for spec in specs:
        entry = spec.entry
        if weight is not None:
            arguments = spec.arguments()
            if entry.tables:
                mode = str(arguments.get("weight", "impressions"))
                gauc = weighted.group_auc(lf, group, label, score, weight, mode, by)
                frames.append(gauc.select(*by, pl.col(entry.name).alias(spec.label)))
            else:
                value = weighted.expression(entry.name, arguments, label, score, weight)
                exprs.append(value.alias(spec.label))
            continue
        kwargs = {c: columns[c] for c in entry.columns} | spec.call_arguments()
        if entry.tables:
            kwargs |= {t: lf for t in entry.tables}
            frame = entry.polars(**kwargs, by=by)
            assert isinstance(frame, pl.LazyFrame)  # a metric of whole tables gives a frame
            frames.append(frame.select(*by, pl.col(entry.name).alias(spec.label)))
        else:
            expr = entry.polars(**kwargs)
            assert isinstance(expr, pl.Expr)  # a metric of columns gives an expression
            exprs.append(expr.alias(spec.label))
    out = lf.group_by(by).agg(exprs) if by else lf.select(exprs)
    for frame in frames:
        if by:
            out = out.join(frame, on=by, how="left", nulls_equal=True)
        else:
            out = out.join(frame, how="cross")
    out = out.select(*by, *(s.label for s in specs))
    if by:
        out = out.sort(by, nulls_last=False, maintain_order=True)
    return out.collect()
