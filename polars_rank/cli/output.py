"""Rendering result frames for the command line: aligned terminal table, CSV, JSON, Markdown,
Parquet and trec_eval's ``measure<TAB>query<TAB>value`` lines."""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import polars as pl

from polars_rank.core.errors import PolarsRankError

#: Output formats of ``polars-rank evaluate``.
OUTPUT_FORMATS = ("table", "csv", "json", "markdown", "parquet", "trec")


def format_value(value: Any, *, integer: bool = False, digits: int = 4) -> str:
    """A cell's text: integers for counts, ``digits`` decimals for other numbers.

    >>> format_value(0.12345), format_value(12.0, integer=True), format_value(None)
    ('0.1235', '12', '')
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        if isinstance(value, float) and math.isnan(value):
            return "nan"
        if integer or isinstance(value, int):
            return str(int(value))
        return f"{value:.{digits}f}"
    return str(value)


def _cells(frame: pl.DataFrame, integers: Iterable[str], digits: int) -> list[list[str]]:
    integer_columns = set(integers)
    return [
        [
            format_value(v, integer=name in integer_columns, digits=digits)
            for name, v in zip(frame.columns, row, strict=True)
        ]
        for row in frame.iter_rows()
    ]


def _is_numeric(frame: pl.DataFrame, name: str) -> bool:
    return frame.schema[name].is_numeric()


def terminal_table(
    frame: pl.DataFrame,
    *,
    integers: Iterable[str] = (),
    digits: int = 4,
    right: Iterable[str] = (),
) -> str:
    """An aligned plain-text table: text columns left-aligned, numbers (and the ``right``
    columns) right-aligned.

    >>> print(terminal_table(pl.DataFrame({"run": ["a"], "AP": [0.5]})), end="")
    run      AP
    ---  ------
    a    0.5000
    """
    header = list(frame.columns)
    rows = _cells(frame, integers, digits)
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    right_columns = set(right)
    aligned = [_is_numeric(frame, name) or name in right_columns for name in header]

    def line(cells: list[str]) -> str:
        parts = [
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, aligned, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line(header), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out) + "\n"


def markdown_table(frame: pl.DataFrame, *, integers: Iterable[str] = (), digits: int = 4) -> str:
    """A GitHub-flavoured Markdown table (numbers right-aligned)."""

    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    header = "| " + " | ".join(esc(c) for c in frame.columns) + " |"
    rule = "|" + "".join("---:|" if _is_numeric(frame, c) else ":---|" for c in frame.columns)
    body = [
        "| " + " | ".join(esc(c) for c in row) + " |" for row in _cells(frame, integers, digits)
    ]
    return "\n".join([header, rule, *body]) + "\n"


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def json_text(frame: pl.DataFrame) -> str:
    """A JSON list with one object per row (full precision; NaN becomes null)."""
    rows = [{k: _json_safe(v) for k, v in row.items()} for row in frame.iter_rows(named=True)]
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"


def csv_text(frame: pl.DataFrame) -> str:
    """CSV with a header line, numbers at full precision."""
    return frame.write_csv()


def trec_line(measure: str, query: str, value: Any, *, integer: bool = False) -> str:
    """One line as trec_eval prints it: the measure left-justified to 22 characters, a tab, the
    query, a tab and the value (``%6.4f``, or an integer for counts; text as is).

    >>> trec_line("map", "all", 0.17854)
    'map                   \\tall\\t0.1785'
    """
    if isinstance(value, str):
        text = value
    elif value is None:
        text = "nan"
    elif integer:
        text = str(int(value))
    else:
        text = f"{value:6.4f}"
    return f"{measure:<22s}\t{query}\t{text}"


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name the same file: equal once resolved (symbolic links followed), or
    the same file by device and inode (a hard link, another mount of it)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def check_out(
    out: str | os.PathLike[str] | None,
    inputs: Iterable[str | os.PathLike[str] | None],
    option: str = "--out",
) -> None:
    """Refuse an output file before anything is read or computed: one that is an input
    (``inputs``; also through a symbolic or hard link), a directory, or one in a directory
    that does not exist or cannot be written."""
    if out is None:
        return
    path = Path(out)
    for given in inputs:
        if given is None or str(given) == "-":
            continue
        if same_file(path, Path(given)):
            raise PolarsRankError(
                f"{option} {out} is the input file {given}: writing the output there would "
                "overwrite it; choose another file"
            )
    if path.is_dir():
        raise PolarsRankError(f"{option} {out} is a directory; give a file name")
    folder = path.parent
    if not folder.exists():
        raise PolarsRankError(f"{option} {out}: the directory {folder} does not exist")
    if not folder.is_dir():
        raise PolarsRankError(f"{option} {out}: {folder} is not a directory")
    if not os.access(path if path.exists() else folder, os.W_OK):
        where = f"the file {out}" if path.exists() else f"the directory {folder}"
        raise PolarsRankError(f"{option} {out}: cannot write there ({where} is not writable)")


def write_output(
    text: str | None, out: str | None, frame: pl.DataFrame | None = None, option: str = "--out"
) -> None:
    """Write ``text`` to ``out`` (a file) or stdout; a ``frame`` with no text is Parquet. A
    file that cannot be written is an error naming it (``option``: the flag that named it)."""
    if text is None:
        if out is None or frame is None:
            raise PolarsRankError("the parquet output format needs --out FILE")
    elif out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        if text is None:
            assert frame is not None
            frame.write_parquet(out)
        else:
            Path(out).write_text(text, encoding="utf-8")
    except (OSError, pl.exceptions.PolarsError) as err:
        why = getattr(err, "strerror", None) or " ".join(str(err).split()) or type(err).__name__
        raise PolarsRankError(f"{option} {out}: cannot write the output ({why})") from None


def render(
    frame: pl.DataFrame, fmt: str, *, integers: Iterable[str] = (), digits: int = 4
) -> str | None:
    """The text of ``frame`` in one of the tabular formats (``None`` for Parquet)."""
    if fmt == "table":
        return terminal_table(frame, integers=integers, digits=digits)
    if fmt == "markdown":
        return markdown_table(frame, integers=integers, digits=digits)
    if fmt == "csv":
        return csv_text(frame)
    if fmt == "json":
        return json_text(frame)
    if fmt == "parquet":
        return None
    raise PolarsRankError(f"unknown output format {fmt!r}")


#: The output formats of the commands whose result is one table (``diversity``, ``ratings``,
#: ``policy``): ``classify``'s but ``trec``.
TABLE_FORMATS = ("table", "csv", "json", "markdown", "parquet")


def add_table_output(parser: Any) -> None:
    """``-o/--output-format`` (:data:`TABLE_FORMATS`), ``--out FILE`` and ``--digits``."""
    from polars_rank.cli.options import add_digits_option

    parser.add_argument(
        "-o",
        "--output-format",
        choices=TABLE_FORMATS,
        default="table",
        help="table (default), csv, json, markdown or parquet (needs --out)",
    )
    parser.add_argument("--out", metavar="FILE", help="write the output to FILE")
    add_digits_option(parser)


def check_table_output(args: Any, inputs: list[str]) -> None:
    """The output options of :func:`add_table_output` checked before anything is read:
    Parquet needs ``--out``; ``--out`` as :func:`check_out` (never one of ``inputs``)."""
    if args.output_format == "parquet" and not args.out:
        raise PolarsRankError("-o parquet needs --out FILE")
    check_out(args.out, inputs)


def write_table(frame: pl.DataFrame, args: Any, integers: Iterable[str] = ()) -> None:
    """``frame`` written as :func:`add_table_output`'s options say."""
    text = render(frame, args.output_format, integers=integers, digits=args.digits)
    write_output(text, args.out, frame)
