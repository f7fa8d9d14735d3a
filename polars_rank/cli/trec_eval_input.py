"""Reading judgments and runs exactly as trec_eval 10.0 reads them (get_qrels.c,
get_trec_results.c), for ``polars-rank trec_eval``; :func:`polars_rank.read_trec_qrels` and
:func:`polars_rank.read_trec_run` are the lenient readers of the rest of the package.

* Fields are separated by runs of the C locale's white space (space, tab, ``\\v``, ``\\f``,
  ``\\r``; so CRLF files read as LF ones). Nothing is decompressed. Unlike trec_eval, a
  UTF-8 byte order mark is dropped (trec_eval reads it into the first query id), and a
  ``\\r`` followed by more text on the line ends the line (a classic Mac file, where
  trec_eval would read the whole file as one line).
* Judgments: every line holds exactly 4 fields ``query iteration doc grade``; fewer or more,
  and a blank line, are a malformed line. The grade is read as C's ``atol`` reads it: the
  leading integer, the rest ignored (``1.5`` → 1, ``2e3`` → 2, ``abc`` → 0). A line starting
  with ``#`` in its first column is a comment, one at a time: the line after a comment is
  always read as data (trec_eval skips a comment by moving to the next line and parsing that
  one), so of consecutive comment lines the 2nd, 4th, ... are read as judgments. A comment on
  the last line is skipped (trec_eval's behaviour there is undefined).
* Runs: at least 6 fields ``query iteration doc rank score run_id``; fields after the sixth
  are ignored; blank lines and lines whose first non-blank character is ``#`` are skipped. The
  iteration and rank fields are never read (``1.0`` or ``x`` there is fine). The score is read
  as C's ``atof`` reads it (the leading number; ``12abc`` → 12, ``abc`` → 0); a score that
  reads as NaN is an error (trec_eval's order would be undefined). The run's name is the
  ``run_id`` of its last line.

Errors name the file and the physical line number (trec_eval counts data lines only) and exit
with trec_eval's code 2.

>>> import tempfile
>>> path = Path(tempfile.mkdtemp(), "qrels")
>>> _ = path.write_text("# judged by hand\\n301 0 d1 1.5\\n301 0 d2 0\\n")
>>> read_qrels(path).rows()
[('301', 'd1', 1), ('301', 'd2', 0)]
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from polars_rank.core.errors import PolarsRankError

#: C's ``isspace`` in the C locale, without the newline that ends a line.
_BLANK = "[ \\t\\x0b\\x0c\\r]"
_FIELD = "([^ \\t\\x0b\\x0c\\r]+)"
_QRELS_LINE = f"^{_BLANK}*" + f"{_BLANK}+".join([_FIELD] * 4) + f"{_BLANK}*$"
_RUN_LINE = f"^{_BLANK}*" + f"{_BLANK}+".join([_FIELD] * 6) + f"(?:{_BLANK}.*)?$"
#: A ``\\r`` that ends a line: one followed, after blanks, by more text on the same line
#: (a ``\\r`` before ``\\n`` or at the end of a line is trailing white space).
_CR_LINE_END = re.compile("\r(?=[ \t\x0b\x0c\r]*[^ \t\x0b\x0c\r\n])")
_ATOL = r"^[+-]?[0-9]+"
_ATOF = (
    r"(?i)^[+-]?(?:0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?"
    r"|[0-9]+\.?[0-9]*(?:e[+-]?[0-9]+)?|\.[0-9]+(?:e[+-]?[0-9]+)?|infinity|inf|nan)"
)


class TrecEvalError(PolarsRankError):
    """An error of the trec_eval drop-in, with trec_eval's exit code: 1 usage and unknown
    measures, 2 unreadable or malformed files and bad measure parameters, 4 a query or a
    document trec_eval cannot evaluate."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def _lines(path: str | Path) -> pl.DataFrame:
    """``line_number, line`` for every line of a text file (the last one may lack its newline)."""
    p = Path(path)
    if not p.exists():
        raise TrecEvalError(f"{p}: no such file")
    if p.is_dir():
        raise TrecEvalError(f"{p}: is a directory, not a file")
    raw = p.read_bytes()
    if not raw:
        raise TrecEvalError(f"{p}: empty file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise TrecEvalError(f"{p}: not UTF-8 text ({err})") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = _CR_LINE_END.sub("\n", text)
    if text.endswith("\n"):
        text = text[:-1]
    lines = pl.Series("line", [text]).str.split("\n").explode()
    return pl.DataFrame(lines).with_row_index("line_number", offset=1)


def _malformed(path: str | Path, frame: pl.DataFrame, bad: pl.Series, expected: str) -> None:
    if not bad.any():
        return
    first = frame.filter(bad).row(0, named=True)
    line = first["line"]
    found = len(re.findall(_FIELD, line))
    hint = ""
    if expected.startswith("exactly 4") and found >= 6:
        hint = " (a run line? trec_eval takes the judgments first, then the run)"
    elif expected.startswith("at least 6") and found == 4:
        hint = " (a judgment line? trec_eval takes the judgments first, then the run)"
    raise TrecEvalError(
        f"{path}, line {first['line_number']}: malformed line: trec_eval needs {expected}, "
        f"found {found}{hint}: {line!r}"
    )


def read_qrels(path: str | Path) -> pl.DataFrame:
    """Judgments as trec_eval reads them: ``query, doc, relevance`` (Int64; see the module)."""
    frame = _lines(path)
    line = pl.col("line")
    hashed = line.str.starts_with("#")
    run = (hashed != hashed.shift(1)).fill_null(True).cum_sum()
    position = pl.int_range(pl.len()).over(run)
    comment = hashed & (position % 2 == 0)  # of consecutive '#' lines, every other one is data
    frame = frame.filter(~comment)
    if frame.height == 0:
        raise TrecEvalError(f"{path}: no judgments, only comments")
    fields = frame["line"].str.extract_groups(_QRELS_LINE).struct.unnest()
    _malformed(path, frame, fields["1"].is_null(), "exactly 4 fields 'query iteration doc grade'")
    digits = fields["4"].str.extract(_ATOL, 0)
    grade = digits.cast(pl.Int64, strict=False)
    overflow = grade.is_null() & digits.is_not_null()
    if overflow.any():
        first = frame.filter(overflow).row(0, named=True)
        raise TrecEvalError(
            f"{path}, line {first['line_number']}: the grade does not fit in 64 bits: "
            f"{first['line']!r}"
        )
    return pl.DataFrame({"query": fields["1"], "doc": fields["3"], "relevance": grade.fill_null(0)})


def _atof(text: pl.Series) -> pl.Series:
    """C's ``atof`` of each text: its leading number (hexadecimal too), 0 when there is none."""
    number = text.str.extract(_ATOF, 0)
    hexadecimal = number.str.contains("(?i)0x").fill_null(False)
    value = number.cast(pl.Float64, strict=False)
    if hexadecimal.any():
        parsed = [
            float.fromhex(x) if h else v for x, h, v in zip(number, hexadecimal, value, strict=True)
        ]
        value = pl.Series(text.name, parsed, dtype=pl.Float64)
    return value.fill_null(0.0)


def read_run(path: str | Path) -> tuple[pl.DataFrame, str]:
    """A run as trec_eval reads it: ``query, doc, score`` and the run's name (the ``run_id``
    of its last line)."""
    frame = _lines(path)
    content = pl.col("line").str.replace(f"^{_BLANK}+", "")
    frame = frame.filter((content != "") & ~content.str.starts_with("#"))
    if frame.height == 0:
        raise TrecEvalError(f"{path}: no results, only blank or comment lines")
    fields = frame["line"].str.extract_groups(_RUN_LINE).struct.unnest()
    _malformed(
        path,
        frame,
        fields["1"].is_null(),
        "at least 6 fields 'query iteration doc rank score run_id'",
    )
    score = _atof(fields["5"])
    nan = score.is_nan()
    if nan.any():
        first = frame.filter(nan).row(0, named=True)
        raise TrecEvalError(
            f"{path}, line {first['line_number']}: the score is not a number (NaN), so "
            f"trec_eval's order is undefined: {first['line']!r}"
        )
    run = pl.DataFrame({"query": fields["1"], "doc": fields["3"], "score": score})
    return run, fields["6"][-1]
