"""``polars-rank classify``: scores of a binary classifier (or click model) against 0/1 labels:
ROC AUC, group AUC, log loss, average precision, and precision, recall and F1 at a threshold,
in the output formats of ``evaluate``; with ``-m``, the classification metrics named
(``-m AUC,LogLoss -m 'Fbeta(beta=2)'``), computed by :func:`polars_rank.evaluate_classification`."""

from __future__ import annotations

import argparse
import warnings

import polars as pl

from polars_rank.catalog.names import MetricSpec, parse_metrics
from polars_rank.cli.options import (
    add_by_option,
    add_digits_option,
    by_columns,
    finite_float,
    reported_warnings,
    split_metrics,
)
from polars_rank.cli.output import OUTPUT_FORMATS, check_out, render, trec_line, write_output
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.types import EngineName
from polars_rank.engines import registry

#: Columns of the result that are counts (printed as integers).
COUNTS = ("rows", "positives", "groups_used", "groups_left_out")


def _metrics(label: str, score: str, threshold: float, probabilities: bool) -> list[pl.Expr]:
    """The per-table (or per-group) aggregations, named as printed."""
    import polars_rank.classification as cls

    used = pl.col(label).is_not_null() & pl.col(score).is_not_null()
    log_loss = cls.log_loss(label, score) if probabilities else pl.lit(None, pl.Float64)
    return [
        used.sum().cast(pl.Int64).alias("rows"),
        (used & (pl.col(label).cast(pl.Float64) == 1)).sum().cast(pl.Int64).alias("positives"),
        cls.roc_auc(label, score).alias("roc_auc"),
        log_loss.alias("log_loss"),
        cls.average_precision(label, score).alias("average_precision"),
        cls.precision(label, score, threshold=threshold).alias(f"precision@{threshold:g}"),
        cls.recall(label, score, threshold=threshold).alias(f"recall@{threshold:g}"),
        cls.f1(label, score, threshold=threshold).alias(f"f1@{threshold:g}"),
    ]


def _are_probabilities(data: pl.DataFrame, score: str) -> bool:
    """Whether every score lies in [0, 1]; warns (naming an example) when not: log loss needs
    probabilities and is then left empty."""
    outside = data.filter(~pl.col(score).cast(pl.Float64).is_between(0.0, 1.0))[score]
    if outside.len() == 0:
        return True
    warnings.warn(
        f"log loss needs probabilities: column {score!r} has {outside.len()} value(s) outside "
        f"[0, 1] (e.g. {outside[0]}); log_loss is left empty",
        UserWarning,
        stacklevel=2,
    )
    return False


def classify(
    data: pl.DataFrame,
    label: str,
    score: str,
    *,
    group: str | None = None,
    threshold: float = 0.5,
    per_group: bool = False,
) -> pl.DataFrame:
    """The classification report of ``data``: one row (or one row per group with
    ``per_group``). With ``group``, the summary row also has the group AUC
    (impression-weighted) and how many groups it used and left out.

    >>> data = pl.DataFrame({"y": [1, 0, 1, 0], "p": [0.9, 0.6, 0.4, 0.1]})
    >>> classify(data, "y", "p").select("rows", "roc_auc", "f1@0.5").row(0)
    (4, 0.75, 0.5)
    """
    import polars_rank.classification as cls

    columns = [label, score] + ([group] if group else [])
    for column in columns:
        if column not in data.columns:
            raise PolarsRankError(f"no column {column!r}; the columns are {data.columns}")
    if per_group and group is None:
        raise PolarsRankError("--per-group needs --group COLUMN")
    cls.validate_binary(data, label, score)
    _warn_skipped(data, label, score)
    metrics = _metrics(label, score, threshold, _are_probabilities(data, score))
    if per_group:
        assert group is not None
        return data.group_by(group).agg(metrics).sort(group, nulls_last=False)
    result = data.select(metrics)
    if group is None:
        return result
    gauc = cls.group_auc(data, group, label, score).select(
        "group_auc", pl.col("groups_used", "groups_left_out").cast(pl.Int64)
    )
    order = result.columns[:3] + gauc.columns + result.columns[3:]
    return pl.concat([result, gauc], how="horizontal").select(order)


def _warn_skipped(data: pl.DataFrame, label: str, score: str) -> None:
    """Warn how many rows have a null label or score (every metric skips them)."""
    present = pl.col(label).is_not_null() & pl.col(score).is_not_null()
    skipped = data.height - data.filter(present).height
    if skipped:
        warnings.warn(
            f"{skipped} row(s) with a null {label!r} or {score!r} were skipped", stacklevel=3
        )


def classify_metrics(
    data: pl.DataFrame,
    specs: list[MetricSpec],
    label: str,
    score: str,
    *,
    group: str | None = None,
    threshold: float = 0.5,
    per_group: bool = False,
    engine: EngineName = "polars",
    weight: str | None = None,
    by: list[str] | None = None,
) -> pl.DataFrame:
    """The metrics of ``specs`` (``-m``) by :func:`polars_rank.evaluate_classification`: one
    row, or one row per group with ``per_group``; ``group`` is also GAUC's group; ``weight``
    a sample-weight column; ``by`` the API's ``by`` (one row per value of these columns, before
    the group with ``per_group``).

    >>> data = pl.DataFrame({"y": [1, 0, 1, 0], "p": [0.9, 0.6, 0.4, 0.1]})
    >>> specs = parse_metrics(["AUC", "F1", "TP"], scope="classification")
    >>> classify_metrics(data, specs, "y", "p").row(0)
    (0.75, 0.5, 1)
    """
    from polars_rank.catalog.classification import GROUP
    from polars_rank.evaluation import evaluate_classification

    if per_group and group is None:
        raise PolarsRankError("--per-group needs --group COLUMN")
    grouped = [s.label for s in specs if GROUP in s.entry.columns]
    if grouped and group is None:
        raise PolarsRankError(f"{grouped[0]} averages AUC over groups: it needs --group COLUMN")
    for column in [label, score] + ([group] if group else []) + ([weight] if weight else []):
        if column not in data.columns:
            raise PolarsRankError(f"no column {column!r}; the columns are {data.columns}")
    segments = [*(by or []), *([group] if per_group and group else [])]
    result = evaluate_classification(
        data,
        specs,
        label=label,
        score=score,
        by=segments or None,
        group=group,
        threshold=threshold,
        weight=weight,
        engine=engine,
    )
    _warn_skipped(data, label, score)
    return result


def _trec_text(result: pl.DataFrame, group: str | None, counts: list[str]) -> str:
    """``measure<TAB>group<TAB>value`` lines (``all`` for the whole table)."""
    lines = []
    for row in result.iter_rows(named=True):
        where = str(row.pop(group)) if group is not None and group in row else "all"
        lines += [
            trec_line(name, where, value, integer=name in counts) for name, value in row.items()
        ]
    return "\n".join(lines) + "\n"


def run_classify(args: argparse.Namespace) -> int:
    """``polars-rank classify``."""
    from polars_rank.cli.inputs import detect_format, read_table

    names = split_metrics(args.metrics)
    # unknown names fail before the file is read
    specs = parse_metrics(names, scope="classification") if names else []
    if args.weight is not None and not specs:
        raise PolarsRankError(
            "--weight goes with -m METRIC (the default report is unweighted), e.g. "
            "-m AUC,LogLoss,F1 --weight w"
        )
    by = by_columns(args)
    if by and not specs:
        raise PolarsRankError(
            "--by goes with -m METRIC (pr.evaluate_classification's by=; the default report "
            "has no segments), e.g. -m AUC,LogLoss,F1 --by campaign"
        )
    if by and args.output_format == "trec":
        raise PolarsRankError(
            "--by: -o trec prints one value per line; use -o table, csv, json, markdown or "
            "parquet for one row per segment"
        )
    if args.output_format == "parquet" and not args.out:
        raise PolarsRankError("-o parquet needs --out FILE")
    check_out(args.out, [args.data])
    fmt = detect_format(args.data, args.format)
    if fmt == "trec":
        raise PolarsRankError(
            f"{args.data}: give a CSV, TSV, Parquet or NDJSON table (or --format)"
        )
    data = read_table(args.data, fmt)
    if data.height == 0:
        raise PolarsRankError(f"{args.data}: the file has no rows")
    with reported_warnings():
        if specs:
            result = classify_metrics(
                data,
                specs,
                args.label,
                args.score,
                group=args.group,
                threshold=args.threshold,
                per_group=args.per_group,
                engine=args.engine,
                weight=args.weight,
                by=by,
            )
        else:
            result = classify(
                data,
                args.label,
                args.score,
                group=args.group,
                threshold=args.threshold,
                per_group=args.per_group,
            )
    if specs:
        integers = [s.label for s in specs if s.summary == "sum"]
    else:
        integers = [c for c in COUNTS if c in result.columns]
    if args.output_format == "trec":
        group = args.group if args.per_group else None
        text: str | None = _trec_text(result, group, integers)
    else:
        text = render(result, args.output_format, integers=integers, digits=args.digits)
    write_output(text, args.out, result)
    return 0


def build_classify_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``polars-rank classify``."""
    from polars_rank.cli.inputs import FORMATS

    parser.add_argument("data", metavar="DATA", help="a table with a label and a score column")
    parser.add_argument(
        "-m",
        "--metric",
        dest="metrics",
        action="append",
        metavar="METRIC",
        help="classification metric name, repeatable or comma-separated (e.g. -m AUC,LogLoss "
        "-m 'Fbeta(beta=2)'; GAUC needs --group; `polars-rank metrics --family "
        "classification` lists them). Default: the report rows, positives, roc_auc, "
        "group_auc, log_loss, average_precision, precision, recall and f1",
    )
    parser.add_argument("--label", required=True, help="column of true labels (0/1 or bool)")
    parser.add_argument("--score", required=True, help="column of scores (probabilities)")
    parser.add_argument("--group", help="column naming groups (e.g. user): adds the group AUC")
    parser.add_argument(
        "--weight",
        metavar="COL",
        help="column of sample weights for the -m metrics (as scikit-learn's sample_weight)",
    )
    parser.add_argument(
        "--per-group", action="store_true", help="one row per group (needs --group)"
    )
    add_by_option(
        parser,
        "one row per value (combination) of these columns, for the -m metrics "
        "(pr.evaluate_classification's by=; e.g. --by campaign,date)",
    )
    parser.add_argument(
        "--threshold",
        type=finite_float,
        default=0.5,
        help="precision, recall and F1 (every thresholded metric of -m unless its name sets "
        "one) predict positive when score >= threshold (default 0.5)",
    )
    parser.add_argument(
        "--engine",
        choices=registry.command_line_names(),
        default=registry.DEFAULT,
        help="engine of the -m metrics: polars (default) or duckdb (the cls_* SQL macros)",
    )
    parser.add_argument(
        "-o",
        "--output-format",
        choices=OUTPUT_FORMATS,
        default="table",
        help="table (default), csv, json, markdown, parquet (needs --out) or trec",
    )
    parser.add_argument("--out", metavar="FILE", help="write the output to FILE")
    add_digits_option(parser)
    parser.add_argument("--format", choices=[f for f in FORMATS if f != "trec"])
