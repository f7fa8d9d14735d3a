"""Reading TREC run and qrels files.

Parquet and CSV need nothing from here: ``pl.read_parquet`` / ``pl.scan_parquet`` and
``pl.read_csv`` / ``pl.scan_csv`` give frames that :func:`polars_rank.evaluate` takes directly
(rename columns or pass ``query=``, ``doc=``, ``score=``, ``relevance=``).

TREC text formats (whitespace separated: any mix of spaces and tabs; ``.gz`` files are
decompressed; blank lines and lines starting with ``#`` are skipped):

* run: ``query Q0 doc rank score run_id`` — fields after the sixth are ignored, as trec_eval
  does;
* qrels: ``query iteration doc relevance``.

A malformed line is an error naming the file and the line number.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import polars as pl

from polars_rank.core.errors import PolarsRankError
from polars_rank.core.frames import to_frame
from polars_rank.core.types import FrameLike

_FIELD = r"(\S+)"
_SEP = r"\s+"
_RUN_PATTERN = r"^\s*" + _SEP.join([_FIELD] * 6) + r"(?:\s.*)?$"
_QRELS_PATTERN = r"^\s*" + _SEP.join([_FIELD] * 4) + r"(?:\s.*)?$"


def _read_lines(path: str | Path) -> pl.DataFrame:
    """Every line of a text file (gzip too) with its 1-based line number."""
    p = Path(path)
    if not p.exists():
        raise PolarsRankError(f"{p}: no such file")
    raw = p.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise PolarsRankError(f"{p}: not UTF-8 text ({err})") from None
    lines = pl.Series("line", [text]).str.split("\n").explode()
    frame = pl.DataFrame(lines).with_row_index("line_number", offset=1)
    frame = frame.with_columns(pl.col("line").str.strip_chars_end("\r"))
    content = pl.col("line").str.strip_chars()
    return frame.filter((content != "") & ~content.str.starts_with("#"))


def _bad_line(path: str | Path, frame: pl.DataFrame, bad: pl.Series, what: str) -> None:
    if bad.any():
        first = frame.filter(bad).row(0, named=True)
        count = int(bad.sum())
        raise PolarsRankError(
            f"{path}, line {first['line_number']}: {what}: {first['line']!r}"
            + (f" ({count} such lines)" if count > 1 else "")
        )


def _parse_number(
    path: str | Path, frame: pl.DataFrame, column: str, dtype: pl.DataType, what: str
) -> pl.Series:
    parsed = frame[column].cast(dtype, strict=False)
    bad = parsed.is_null()
    if dtype.is_float():
        bad = bad | parsed.is_nan()
    _bad_line(path, frame, bad, what)
    return parsed


def read_trec_run(path: str | Path) -> pl.DataFrame:
    """Read a TREC run file into ``query, doc, rank, score, run_id`` (ids as text).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp(), "run.txt")
    >>> _ = path.write_text("301 Q0 FR940202-2-00150 1 2.129133 STANDARD\\n")
    >>> read_trec_run(path).row(0)
    ('301', 'FR940202-2-00150', 1, 2.129133, 'STANDARD')
    """
    frame = _read_lines(path)
    fields = frame["line"].str.extract_groups(_RUN_PATTERN)
    frame = frame.with_columns(fields.struct.unnest())
    _bad_line(path, frame, frame["1"].is_null(), "expected 6 fields 'query Q0 doc rank score run'")
    rank = _parse_number(path, frame, "4", pl.Int64(), "the rank (4th field) is not an integer")
    score = _parse_number(path, frame, "5", pl.Float64(), "the score (5th field) is not a number")
    return pl.DataFrame(
        {
            "query": frame["1"],
            "doc": frame["3"],
            "rank": rank,
            "score": score,
            "run_id": frame["6"],
        }
    )


def read_trec_qrels(path: str | Path) -> pl.DataFrame:
    """Read a TREC qrels file into ``query, doc, relevance`` (ids as text; integer grades, or
    floats when any grade has a fraction).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp(), "qrels.txt")
    >>> _ = path.write_text("301 0 CR93E-10279 0\\n301 0 FR940202-2-00150 2\\n")
    >>> read_trec_qrels(path).rows()
    [('301', 'CR93E-10279', 0), ('301', 'FR940202-2-00150', 2)]
    """
    frame = _read_lines(path)
    fields = frame["line"].str.extract_groups(_QRELS_PATTERN)
    frame = frame.with_columns(fields.struct.unnest())
    _bad_line(path, frame, frame["1"].is_null(), "expected 4 fields 'query iteration doc grade'")
    as_int = frame["4"].cast(pl.Int64, strict=False)
    if as_int.is_null().any():
        relevance = _parse_number(
            path, frame, "4", pl.Float64(), "the relevance (4th field) is not a number"
        )
    else:
        relevance = as_int
    return pl.DataFrame({"query": frame["1"], "doc": frame["3"], "relevance": relevance})


def write_trec_run(run: FrameLike, path: str | Path, *, run_id: str = "polars_rank") -> None:
    """Write ``query, doc, score`` (and ``rank`` if present) as a TREC run file (``run`` may
    also be a LazyFrame, a pandas DataFrame or a pyarrow Table)."""
    frame = to_frame(run, "run")
    if "rank" not in frame.columns:
        frame = frame.with_columns(
            pl.col("score").rank("ordinal", descending=True).over("query").alias("rank")
        )
    if "run_id" not in frame.columns:
        frame = frame.with_columns(pl.lit(run_id).alias("run_id"))
    out = frame.select(
        pl.col("query").cast(pl.String),
        pl.lit("Q0"),
        pl.col("doc").cast(pl.String),
        pl.col("rank"),
        pl.col("score"),
        pl.col("run_id"),
    )
    out.write_csv(path, separator=" ", include_header=False)
