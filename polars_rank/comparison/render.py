"""A comparison result as a table of means with significance marks: Markdown and LaTeX.

Two kinds of marks: against one baseline, ``†▲`` / ``†▼`` (significantly better / worse);
for a result of every pair of runs (``pairs="all"``), ranx's letters: each run gets a letter
(``a``, ``b``, ...) and its mean carries the letters of the runs it is significantly better
than.
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from polars_rank.core.errors import PolarsRankError

#: ``marks=`` of :func:`to_markdown` and :func:`to_latex`.
Marks = Literal["auto", "baseline", "letters"]
#: The letters of the runs, and their superscript forms in Markdown (ranx's, whose ``q`` is
#: a look-alike: Unicode has no superscript q).
LETTERS = "abcdefghijklmnopqrstuvwxyz"
SUPERSCRIPTS = "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ۹ʳˢᵗᵘᵛʷˣʸᶻ"
_TESTS = {"t": "paired t-test", "perm": "paired randomization test", "tukey": "Tukey's HSD"}


def _checked(result: pl.DataFrame, pvalue: str) -> None:
    if result.is_empty():
        raise PolarsRankError("compare: empty comparison result")
    if pvalue not in result.columns:
        raise PolarsRankError(f"compare: no p-value column {pvalue!r} in the result")
    if result.select(pl.struct("run", "baseline", "metric").is_duplicated().any()).item():
        raise PolarsRankError(
            "compare: the result holds a pair of runs twice (a result with by= has one block "
            "per segment): render one segment at a time, filtered by its by columns"
        )


def _marks(result: pl.DataFrame, marks: Marks) -> Literal["baseline", "letters"]:
    if marks not in ("auto", "baseline", "letters"):
        raise PolarsRankError(
            f"compare: marks must be 'auto', 'baseline' or 'letters', got {marks!r}"
        )
    several = result["baseline"].n_unique() > 1
    if marks == "baseline" and several:
        baselines = result["baseline"].unique(maintain_order=True).to_list()
        raise PolarsRankError(
            f"compare: result mixes several baselines {baselines}: marks='letters'"
        )
    if marks == "auto":
        return "letters" if several else "baseline"
    return marks


def _lettered_table(
    result: pl.DataFrame, digits: int, alpha: float, pvalue: str, letters: str
) -> tuple[list[str], list[str], list[list[str]]]:
    """Run names (each with its letter), metric names and cell texts (mean + the letters of
    the runs this one is significantly better than), runs in order of appearance."""
    runs: list[str] = []
    for pair in result.select("baseline", "run").iter_rows():
        runs += [name for name in pair if name not in runs]
    if len(runs) > len(LETTERS):
        raise PolarsRankError(f"compare: letters mark at most {len(LETTERS)} runs, got {len(runs)}")
    metrics = result["metric"].unique(maintain_order=True).to_list()
    means: dict[tuple[str, str], float] = {}
    beats: dict[tuple[str, str], set[int]] = {}
    for row in result.iter_rows(named=True):
        run, base, metric = row["run"], row["baseline"], row["metric"]
        means[(run, metric)], means[(base, metric)] = row["mean"], row["baseline_mean"]
        p = row[pvalue]
        if p is not None and p < alpha and row["mean"] != row["baseline_mean"]:
            winner, loser = (run, base) if row["mean"] > row["baseline_mean"] else (base, run)
            beats.setdefault((winner, metric), set()).add(runs.index(loser))
    cells = [
        [
            f"{means[(r, m)]:.{digits}f}"
            + "".join(letters[j] for j in sorted(beats.get((r, m), ())))
            if (r, m) in means
            else ""
            for m in metrics
        ]
        for r in runs
    ]
    return [f"{LETTERS[i]} {name}" for i, name in enumerate(runs)], metrics, cells


def _marked_table(
    result: pl.DataFrame, digits: int, alpha: float, pvalue: str, better: str, worse: str
) -> tuple[list[str], list[str], list[list[str]]]:
    """Run names, metric names and cell texts (mean + mark), baseline row first."""
    baselines = result["baseline"].unique().to_list()
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


def _test(pvalue: str, n: int) -> str:
    """The test's words, e.g. ``paired t-test, Holm–Bonferroni adjusted over 4 comparisons``."""
    test = _TESTS.get(pvalue.split("_")[0], pvalue)
    if pvalue.endswith("_holm"):
        test += f", Holm–Bonferroni adjusted over {n} comparison{'s' if n != 1 else ''}"
    return test


def _footnote(baseline: str, pvalue: str, n: int) -> str:
    """Footnote text up to the threshold, e.g. ``... (paired t-test, Holm–Bonferroni ...,``."""
    return f"significantly different from the baseline {baseline} ({_test(pvalue, n)},"


def _letters_note(pvalue: str, n: int, alpha: float) -> str:
    """The footnote of a lettered table."""
    return (
        "Superscript letters: the runs a mean is significantly better than "
        f"({_test(pvalue, n)}, p < {alpha:g})."
    )


def to_markdown(
    result: pl.DataFrame,
    *,
    digits: int = 4,
    alpha: float = 0.05,
    pvalue: str = "t_pvalue_holm",
    marks: Marks = "auto",
) -> str:
    """Markdown table of a :func:`compare_per_query` result: one row per run (baseline first),
    one column per metric holding the mean.

    A mean is marked ``†▲`` (better) or ``†▼`` (worse) when the ``pvalue`` column (default the
    Holm-adjusted t-test; ``tukey_pvalue`` for Tukey's HSD) is below ``alpha``; a footnote line
    explains the marks. ``marks="letters"`` (the default, ``"auto"``, for a result of several
    baselines, as ``pairs="all"`` gives) marks as ranx does: each run gets a letter, shown
    before its name, and a mean carries the superscript letters of the runs it is
    significantly better than. A result with ``by=`` is rendered one segment at a time.

    >>> result = pl.DataFrame({"run": ["dense"], "baseline": ["bm25"], "metric": ["nDCG@10"],
    ...     "mean": [0.4935], "baseline_mean": [0.421], "diff": [0.0725], "t_pvalue_holm": [0.01]})
    >>> print(to_markdown(result), end="")
    | Run | nDCG@10 |
    |:---|---:|
    | bm25 | 0.4210 |
    | dense | 0.4935†▲ |
    <BLANKLINE>
    † significantly different from the baseline bm25 (paired t-test, Holm–Bonferroni adjusted over 1 comparison, p < 0.05); ▲ better, ▼ worse than the baseline.
    >>> pairs = pl.DataFrame({"run": ["dense", "hybrid", "hybrid"],
    ...     "baseline": ["bm25", "bm25", "dense"], "metric": ["AP"] * 3,
    ...     "mean": [0.31, 0.36, 0.36], "baseline_mean": [0.25, 0.25, 0.31],
    ...     "t_pvalue_holm": [0.01, 0.001, 0.2]})
    >>> print(to_markdown(pairs, digits=2), end="")
    | Run | AP |
    |:---|---:|
    | a bm25 | 0.25 |
    | b dense | 0.31ᵃ |
    | c hybrid | 0.36ᵃ |
    <BLANKLINE>
    Superscript letters: the runs a mean is significantly better than (paired t-test, Holm–Bonferroni adjusted over 3 comparisons, p < 0.05).
    """  # noqa: E501
    _checked(result, pvalue)

    def esc(text: object) -> str:
        return str(text).replace("|", "\\|")

    if _marks(result, marks) == "letters":
        runs, metrics, cells = _lettered_table(result, digits, alpha, pvalue, SUPERSCRIPTS)
        note = _letters_note(pvalue, result.height, alpha)
    else:
        runs, metrics, cells = _marked_table(result, digits, alpha, pvalue, "†▲", "†▼")
        note = f"† {_footnote(runs[0], pvalue, result.height)} p < {alpha:g}); ▲ better, ▼ worse "
        note += "than the baseline."

    lines = [
        "| Run | " + " | ".join(esc(m) for m in metrics) + " |",
        "|:---|" + "---:|" * len(metrics),
    ]
    for name, row in zip(runs, cells, strict=True):
        lines.append(f"| {esc(name)} | " + " | ".join(row) + " |")
    lines.append("")
    lines.append(note)
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
    marks: Marks = "auto",
) -> str:
    """LaTeX ``tabular`` of a :func:`compare_per_query` result (same layout and marks as
    :func:`to_markdown`). Needs the ``booktabs`` and ``amssymb`` packages.

    Marks: ``$^{\\dagger\\blacktriangle}$`` significantly better,
    ``$^{\\dagger\\blacktriangledown}$`` significantly worse; with letters, ``$^{ab}$``
    after a mean; the footnote is the last row.
    """
    _checked(result, pvalue)
    if _marks(result, marks) == "letters":
        runs, metrics, cells = _lettered_table(result, digits, alpha, pvalue, "".join(LETTERS))
        cells = [[_latex_letters(cell) for cell in row] for row in cells]
        note = _latex_escape(_letters_note(pvalue, result.height, alpha)).replace("–", "--")
        note = note.replace(f"p < {alpha:g}", f"$p < {alpha:g}$")
        mark = ""
    else:
        better, worse = r"$^{\dagger\blacktriangle}$", r"$^{\dagger\blacktriangledown}$"
        runs, metrics, cells = _marked_table(result, digits, alpha, pvalue, better, worse)
        note = _latex_escape(_footnote(runs[0], pvalue, result.height)).replace("–", "--")
        note += rf" $p < {alpha:g}$); $\blacktriangle$ better, $\blacktriangledown$ worse"
        note += " than the baseline."
        mark = "$^{\\dagger}$ "
    ncol = len(metrics) + 1
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
        rf"\multicolumn{{{ncol}}}{{l}}{{\footnotesize {mark}{note}}} \\",
        r"\end{tabular}",
    ]
    return "\n".join(lines) + "\n"


def _latex_letters(cell: str) -> str:
    """A lettered cell's trailing letters as one LaTeX superscript: ``0.31ab`` → ``0.31$^{ab}$``."""
    mean = cell.rstrip(LETTERS)
    marks = cell[len(mean) :]
    return f"{mean}$^{{{marks}}}$" if marks else mean
