"""A comparison result as a table of means with significance marks: Markdown and LaTeX."""

from __future__ import annotations

import polars as pl

from polars_rank.core.errors import PolarsRankError


def _marked_table(
    result: pl.DataFrame, digits: int, alpha: float, pvalue: str, better: str, worse: str
) -> tuple[list[str], list[str], list[list[str]]]:
    """Run names, metric names and cell texts (mean + mark), baseline row first."""
    if result.is_empty():
        raise PolarsRankError("compare: empty comparison result")
    if pvalue not in result.columns:
        raise PolarsRankError(f"compare: no p-value column {pvalue!r} in the result")
    baselines = result["baseline"].unique().to_list()
    if len(baselines) != 1:
        raise PolarsRankError(f"compare: result mixes several baselines {baselines}")
    metrics = result["metric"].unique(maintain_order=True).to_list()
    runs = [baselines[0], *result["run"].unique(maintain_order=True).to_list()]
    base_means = dict(result.group_by("metric").agg(pl.col("baseline_mean").first()).iter_rows())
    cells = {(runs[0], m): f"{base_means[m]:.{digits}f}" for m in metrics}
    for row in result.iter_rows(named=True):
        text = f"{row['mean']:.{digits}f}"
        p = row[pvalue]
        if p is not None and p < alpha and row["diff"] != 0:
            text += better if row["diff"] > 0 else worse
        cells[(row["run"], row["metric"])] = text
    return runs, metrics, [[cells.get((r, m), "") for m in metrics] for r in runs]


def _footnote(baseline: str, pvalue: str, n: int) -> str:
    """Footnote text up to the threshold, e.g. ``... (paired t-test, Holm–Bonferroni ...,``."""
    test = "paired t-test" if pvalue.startswith("t_") else "paired randomization test"
    adjusted = ""
    if pvalue.endswith("_holm"):
        adjusted = f", Holm–Bonferroni adjusted over {n} comparison{'s' if n != 1 else ''}"
    return f"significantly different from the baseline {baseline} ({test}{adjusted},"


def to_markdown(
    result: pl.DataFrame,
    *,
    digits: int = 4,
    alpha: float = 0.05,
    pvalue: str = "t_pvalue_holm",
) -> str:
    """Markdown table of a :func:`compare_per_query` result: one row per run (baseline first),
    one column per metric holding the mean.

    A mean is marked ``†▲`` (better) or ``†▼`` (worse) when the ``pvalue`` column (default the
    Holm-adjusted t-test) is below ``alpha``; a footnote line explains the marks.

    >>> result = pl.DataFrame({"run": ["dense"], "baseline": ["bm25"], "metric": ["nDCG@10"],
    ...     "mean": [0.4935], "baseline_mean": [0.421], "diff": [0.0725], "t_pvalue_holm": [0.01]})
    >>> print(to_markdown(result), end="")
    | Run | nDCG@10 |
    |:---|---:|
    | bm25 | 0.4210 |
    | dense | 0.4935†▲ |
    <BLANKLINE>
    † significantly different from the baseline bm25 (paired t-test, Holm–Bonferroni adjusted over 1 comparison, p < 0.05); ▲ better, ▼ worse than the baseline.
    """  # noqa: E501
    runs, metrics, cells = _marked_table(result, digits, alpha, pvalue, "†▲", "†▼")

    def esc(text: object) -> str:
        return str(text).replace("|", "\\|")

    lines = [
        "| Run | " + " | ".join(esc(m) for m in metrics) + " |",
        "|:---|" + "---:|" * len(metrics),
    ]
    for name, row in zip(runs, cells, strict=True):
        lines.append(f"| {esc(name)} | " + " | ".join(row) + " |")
    lines.append("")
    note = _footnote(runs[0], pvalue, result.height)
    lines.append(f"† {note} p < {alpha:g}); ▲ better, ▼ worse than the baseline.")
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex_escape(text: object) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def to_latex(
    result: pl.DataFrame,
    *,
    digits: int = 4,
    alpha: float = 0.05,
    pvalue: str = "t_pvalue_holm",
) -> str:
    """LaTeX ``tabular`` of a :func:`compare_per_query` result (same layout and marks as
    :func:`to_markdown`). Needs the ``booktabs`` and ``amssymb`` packages.

    Marks: ``$^{\\dagger\\blacktriangle}$`` significantly better,
    ``$^{\\dagger\\blacktriangledown}$`` significantly worse; the footnote is the last row.
    """
    better, worse = r"$^{\dagger\blacktriangle}$", r"$^{\dagger\blacktriangledown}$"
    runs, metrics, cells = _marked_table(result, digits, alpha, pvalue, better, worse)
    ncol = len(metrics) + 1
    note = _latex_escape(_footnote(runs[0], pvalue, result.height)).replace("–", "--")
    note += rf" $p < {alpha:g}$); $\blacktriangle$ better, $\blacktriangledown$ worse"
    note += " than the baseline."
    lines = [
        r"\begin{tabular}{l" + "r" * len(metrics) + "}",
        r"\toprule",
        "Run & " + " & ".join(_latex_escape(m) for m in metrics) + r" \\",
        r"\midrule",
    ]
    for name, row in zip(runs, cells, strict=True):
        lines.append(_latex_escape(name) + " & " + " & ".join(row) + r" \\")
    lines += [
        r"\bottomrule",
        rf"\multicolumn{{{ncol}}}{{l}}{{\footnotesize $^{{\dagger}}$ {note}}} \\",
        r"\end{tabular}",
    ]
    return "\n".join(lines) + "\n"
