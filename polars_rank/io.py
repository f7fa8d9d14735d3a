"""Reading TREC run and qrels files.

Parquet and CSV need nothing from here: ``pl.read_parquet`` / ``pl.scan_parquet`` and
``pl.read_csv`` / ``pl.scan_csv`` give frames that :func:`polars_rank.evaluate` takes directly
(rename columns or pass ``query=``, ``doc=``, ``score=``, ``relevance=``).

TREC text formats (whitespace separated: any mix of spaces and tabs; ``.gz`` files are
decompressed; a UTF-8 byte order mark is dropped; lines end in ``\n``, ``\r\n`` or ``\r``;
blank lines and lines starting with ``#`` are skipped):

* run: ``query Q0 doc rank score run_id`` — fields after the sixth are ignored, as trec_eval
  does;
* qrels: ``query iteration doc relevance``.

A malformed line is an error naming the file and the line number.

:func:`write_trec_run` refuses what the format cannot hold (ids with white space, a null
score), naming the row, so that a file it writes reads back as the same run.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import polars as pl

from polars_rank.core import messages
from polars_rank.core.errors import PolarsRankError, check_boolean
from polars_rank.core.frames import to_frame
from polars_rank.core.types import FrameLike

_FIELD = r"(\S+)"
_SEP = r"\s+"
_RUN_PATTERN = r"^\s*" + _SEP.join([_FIELD] * 6) + r"(?:\s.*)?$"
_QRELS_PATTERN = r"^\s*" + _SEP.join([_FIELD] * 4) + r"(?:\s.*)?$"


def text_lines(text: str) -> str:
    """``text`` without a leading byte order mark, its lines ending in ``\\n`` (``\\r\\n``
    and a lone ``\\r``, the classic Mac line end, become ``\\n``).

    >>> text_lines("\\ufeffa\\r\\nb\\rc\\n")
    'a\\nb\\nc\\n'
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _read_lines(path: str | Path) -> pl.DataFrame:
    """Every line of a text file (gzip too) with its 1-based line number."""
    p = Path(path)
    if not p.exists():
        raise PolarsRankError(f"{p}: no such file")
    if p.is_dir():
        raise PolarsRankError(f"{p}: is a directory, not a file")
    try:
        raw = p.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as err:
        why = getattr(err, "strerror", None) or str(err) or type(err).__name__
        raise PolarsRankError(f"{p}: cannot be read ({why})") from None
    try:
        text = text_lines(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise messages.not_utf8(p, err) from None
    lines = pl.Series("line", [text]).str.split("\n").explode()
    frame = pl.DataFrame(lines).with_row_index("line_number", offset=1)
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


def read_trec_qrels(path: str | Path, *, subtopics: bool = False) -> pl.DataFrame:
    """Read a TREC qrels file into ``query, doc, relevance`` (ids as text; integer grades, or
    floats when any grade has a fraction).

    With ``subtopics=True`` the file holds TREC diversity qrels, ``topic subtopic doc
    judgment``, read into ``query, subtopic, doc, relevance`` (the second field is kept as
    the subtopic, not dropped as trec_eval's iteration): the input of
    :func:`polars_rank.evaluate_diversity`. Both formats have four fields, so this is never
    guessed.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp(), "qrels.txt")
    >>> _ = path.write_text("301 0 CR93E-10279 0\\n301 0 FR940202-2-00150 2\\n")
    >>> read_trec_qrels(path).rows()
    [('301', 'CR93E-10279', 0), ('301', 'FR940202-2-00150', 2)]
    >>> read_trec_qrels(path, subtopics=True).columns
    ['query', 'subtopic', 'doc', 'relevance']
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
    if check_boolean("subtopics", subtopics):
        return pl.DataFrame(
            {"query": frame["1"], "subtopic": frame["2"], "doc": frame["3"], "relevance": relevance}
        )
    return pl.DataFrame({"query": frame["1"], "doc": frame["3"], "relevance": relevance})


def write_trec_run(run: FrameLike, path: str | Path, *, run_id: str = "polars_rank") -> None:
    """Write ``query, doc, score`` (and ``rank`` if present) as a TREC run file (``run`` may
    also be a LazyFrame, a pandas DataFrame or a pyarrow Table).

    What a TREC line cannot hold is an error naming the first such row (0-based): a null or
    empty id or run id, one with white space (it would split the line's fields, or start
    another line), a query id starting with ``#`` (read back as a comment), a null or NaN
    score, a null or fractional rank.

    >>> write_trec_run(pl.DataFrame({"query": ["q"], "doc": ["a b"], "score": [1.0]}), "r.txt")
    Traceback (most recent call last):
    ...
    polars_rank.core.errors.PolarsRankError: write_trec_run: the doc id of row 0 (query 'q') holds white space, which separates the fields of a TREC run: 'a b'
    """  # noqa: E501
    frame = to_frame(run, "run")
    for column in ("query", "doc", "score"):
        if column not in frame.columns:
            raise PolarsRankError(
                f"write_trec_run: the run has no column {column!r}; its columns are {frame.columns}"
            )
    if not frame.schema["score"].is_numeric():
        raise PolarsRankError(
            f"write_trec_run: the score column must be numeric, got {frame.schema['score']}"
        )
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
        pl.col("score").cast(pl.Float64),
        pl.col("run_id").cast(pl.String),
    )
    out = out.with_columns(_checked_rank(out))
    _check_writable_run(out)
    out.write_csv(path, separator=" ", include_header=False, quote_style="never")


def _checked_rank(out: pl.DataFrame) -> pl.Series:
    """The rank column as integers (a float rank must hold whole numbers)."""
    rank = out["rank"]
    if rank.dtype.is_integer():
        return rank
    if not rank.dtype.is_numeric():
        raise PolarsRankError(f"write_trec_run: the rank column must be integers, got {rank.dtype}")
    whole = rank.cast(pl.Int64, strict=False)
    bad = whole.is_null() | (whole.cast(pl.Float64) != rank.cast(pl.Float64)).fill_null(True)
    _refuse_rows(
        out,
        bad & rank.is_not_null(),
        "the rank of {where} is not a whole number: {value!r}",
        "rank",
    )
    return whole


def _refuse_rows(out: pl.DataFrame, bad: pl.Series, why: str, column: str) -> None:
    """Raise naming the first row where ``bad`` holds (``why`` formats ``value``)."""
    if not bad.any():
        return
    row = int(bad.arg_true()[0])
    first = out.row(row, named=True)
    count = int(bad.sum())
    where = f"row {row}" + (f" (query {first['query']!r})" if column != "query" else "")
    raise PolarsRankError(
        f"write_trec_run: {why.format(value=first[column], where=where)}"
        + (f" ({count} such rows)" if count > 1 else "")
    )


def _check_writable_run(out: pl.DataFrame) -> None:
    """Refuse the rows a TREC run cannot hold (see :func:`write_trec_run`)."""
    names = {"query": "query id", "doc": "doc id", "run_id": "run id"}
    for column, name in names.items():
        values = out[column]
        _refuse_rows(out, values.is_null(), f"the {name} of {{where}} is null", column)
        _refuse_rows(out, values == "", f"the {name} of {{where}} is empty", column)
        _refuse_rows(
            out,
            values.str.contains(r"\s"),
            f"the {name} of {{where}} holds white space, which separates the fields of a "
            "TREC run: {value!r}",
            column,
        )
    _refuse_rows(
        out,
        out["query"].str.starts_with("#"),
        "the query id of {where} starts with '#', which marks a comment line in a TREC run: "
        "{value!r}",
        "query",
    )
    score = out["score"]
    _refuse_rows(out, score.is_null(), "the score of {where} is null", "score")
    _refuse_rows(out, score.is_nan(), "the score of {where} is NaN", "score")
    _refuse_rows(out, out["rank"].is_null(), "the rank of {where} is null", "rank")
