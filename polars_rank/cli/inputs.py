"""Reading the command line's input files: TREC text, Parquet, CSV/TSV and NDJSON runs and
judgments, with column names mapped to ``query, doc, score, rank, relevance``."""

from __future__ import annotations

import argparse
import gzip
import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import polars as pl

from polars_rank.cli.progress import Progress
from polars_rank.core.conventions import Columns
from polars_rank.core.errors import PolarsRankError

#: Input formats the command line reads.
FORMATS = ("trec", "parquet", "csv", "tsv", "ndjson")

_SUFFIXES = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".ndjson": "ndjson",
    ".jsonl": "ndjson",
}

#: Canonical column names; ``--NAME-col`` renames each.
CANONICAL = tuple(field.name for field in fields(Columns))


@dataclass(frozen=True)
class ColumnMap(Columns):
    """Column names of tabular inputs (CSV, Parquet, ...), mapped to the canonical names."""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ColumnMap:
        """The mapping given by ``--query-col``, ``--doc-col``, ... (defaults: canonical)."""
        return cls(**{name: getattr(args, f"{name}_col", None) or name for name in CANONICAL})

    def renames(self, columns: list[str]) -> dict[str, str]:
        """``{source: canonical}`` for the mapped columns present in ``columns``."""
        pairs = {getattr(self, name): name for name in CANONICAL}
        return {src: dst for src, dst in pairs.items() if src in columns and src != dst}


def strip_compression(path: Path) -> str:
    """The file name without a trailing ``.gz``, lower case."""
    name = path.name.lower()
    return name[:-3] if name.endswith(".gz") else name


def detect_format(path: str | Path, given: str | None = None) -> str:
    """The format of an input: ``given`` if set, else from the extension (TREC text otherwise).

    >>> detect_format("runs/bm25.parquet"), detect_format("run.tsv.gz"), detect_format("r.txt")
    ('parquet', 'tsv', 'trec')
    """
    if given:
        if given not in FORMATS:
            raise PolarsRankError(f"unknown format {given!r}; choose from {', '.join(FORMATS)}")
        return given
    return _SUFFIXES.get(Path(strip_compression(Path(path))).suffix, "trec")


def run_name(path: str | Path) -> str:
    """A run's display name: its file name without extensions such as ``.txt.gz``.

    >>> run_name("runs/bm25.run.gz"), run_name("dense.parquet")
    ('bm25', 'dense')
    """
    name = strip_compression(Path(path)) if str(path).lower().endswith(".gz") else Path(path).name
    stem = Path(name).stem
    while Path(stem).suffix.lower() in (".txt", ".run", ".trec", ".res", ".tsv", ".csv"):
        stem = Path(stem).stem
    return stem or str(path)


def unique_run_names(paths: list[str]) -> list[str]:
    """Display names for several runs: file stems; when two clash, file names; then paths.

    >>> unique_run_names(["a/results.test", "a/results.trunc"])
    ['results.test', 'results.trunc']
    """
    for naming in (run_name, lambda p: strip_compression(Path(p)), str):
        names = [naming(p) for p in paths]
        if len(set(names)) == len(names):
            return names
    return [str(p) for p in paths]


def _check_exists(path: Path) -> None:
    if not path.exists():
        raise PolarsRankError(f"{path}: no such file")
    if path.is_dir():
        raise PolarsRankError(f"{path}: is a directory, not a file")


#: How much of a text table :func:`_text_source` looks at for a byte order mark and line ends.
_HEAD = 1 << 16


def _text_source(path: Path) -> Path | io.BytesIO:
    """A CSV, TSV or NDJSON file as Polars should read it: the path itself, or, for a file
    that starts with a UTF-8 byte order mark or whose lines end in a lone ``\\r`` (the
    classic Mac line end, which Polars reads as no line end at all), its text (decompressed)
    without the mark and with ``\\n`` line ends."""
    try:
        with path.open("rb") as raw:
            head = raw.read(_HEAD)
        compressed = head[:2] == b"\x1f\x8b"
        if compressed:
            with gzip.open(path, "rb") as unpacked:
                head = unpacked.read(_HEAD)
    except (OSError, EOFError, zlib.error):
        return path  # Polars names the problem
    bom = head.startswith(b"\xef\xbb\xbf")
    cr_only = b"\r" in head and b"\n" not in head
    if not (bom or cr_only):
        return path
    data = path.read_bytes()
    if compressed:
        data = gzip.decompress(data)
    if bom:
        data = data[3:]
    if cr_only:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return io.BytesIO(data)


def read_table(path: str | Path, fmt: str, *, text_ids: tuple[str, ...] = ()) -> pl.DataFrame:
    """Read a tabular file (Parquet, CSV, TSV or NDJSON); ``text_ids`` columns of text formats
    are read as strings so that ids such as ``007`` keep their leading zeros. A byte order
    mark and lone ``\\r`` line ends of text formats are handled (:func:`_text_source`)."""
    p = Path(path)
    _check_exists(p)
    overrides = dict.fromkeys(text_ids, pl.String)
    try:
        if fmt == "parquet":
            return pl.read_parquet(p)
        if fmt in ("csv", "tsv"):
            return pl.read_csv(
                _text_source(p),
                separator="," if fmt == "csv" else "\t",
                schema_overrides=overrides,
            )
        if fmt == "ndjson":
            return pl.read_ndjson(_text_source(p))
    except (pl.exceptions.PolarsError, OSError, UnicodeDecodeError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise PolarsRankError(f"{p}: cannot be read as {fmt} ({first})") from None
    raise PolarsRankError(f"{p}: unknown table format {fmt!r}")


#: Fields of a TREC line: a run's (``query Q0 doc rank score run``), judgments'
#: (``query iteration doc grade``).
_TREC_FIELDS = {"run": 6, "qrels": 4}


def _first_line(path: Path) -> str | None:
    """The first line of a TREC file that is neither blank nor a ``#`` comment."""
    with path.open("rb") as raw:
        compressed = raw.read(2) == b"\x1f\x8b"
    opener = gzip.open if compressed else open
    try:
        with opener(path, "rt", encoding="utf-8-sig", errors="replace") as lines:
            for line in lines:
                if line.strip() and not line.lstrip().startswith("#"):
                    return line
    except OSError:
        return None  # the reader names the problem
    return None


def check_trec_kind(path: str | Path, what: str) -> None:
    """Raise when a TREC file looks like the other kind (a run given as judgments, or
    judgments given as a run): its first line has the other kind's number of fields, or a
    run's ``Q0``. Judgments come first on the command line."""
    line = _first_line(Path(path))
    if line is None:
        return
    fields = line.split()
    other = "run" if what == "qrels" else "qrels"
    looks_other = len(fields) == _TREC_FIELDS[other] or (
        what == "qrels" and len(fields) > 1 and fields[1] == "Q0"
    )
    if looks_other and len(fields) != _TREC_FIELDS[what]:
        shape = {"run": "'query Q0 doc rank score run'", "qrels": "'query 0 doc grade'"}[other]
        raise PolarsRankError(
            f"{path}: given as {'judgments' if what == 'qrels' else 'a run'} but its first line "
            f"looks like {'a run' if other == 'run' else 'judgments'} ({len(fields)} fields, "
            f"{shape}): are QRELS and RUN swapped? Judgments come first: QRELS RUN [RUN ...]"
        )


def _read(
    path: str | Path,
    fmt: str | None,
    columns: ColumnMap | None,
    what: str,
    ids_as_text: bool,
    checked: bool = False,
) -> pl.DataFrame:
    """A TREC file (judgments or run, ``what``), or a table with its columns renamed; ids as
    text with ``ids_as_text``. ``checked``: a TREC file that looks like the other kind, or an
    empty input, is an error naming the file."""
    fmt = detect_format(path, fmt)
    columns = columns or ColumnMap()
    if fmt == "trec":
        from polars_rank.io import read_trec_qrels, read_trec_run

        _check_exists(Path(path))
        if checked:
            check_trec_kind(path, what)
        frame = read_trec_qrels(path) if what == "qrels" else read_trec_run(path)
    else:
        frame = read_table(path, fmt, text_ids=(columns.query, columns.doc))
        frame = frame.rename(columns.renames(frame.columns))
    if checked and frame.height == 0:
        lines = "lines (besides blank lines and comments)" if fmt == "trec" else "rows"
        raise PolarsRankError(
            f"{path}: {'no judgments' if what == 'qrels' else 'the run is empty'}: the file has "
            f"no {lines}"
        )
    if ids_as_text:
        ids = [c for c in ("query", "doc") if c in frame.columns]
        frame = frame.with_columns(pl.col(ids).cast(pl.String))
    return frame


def read_run(
    path: str | Path,
    fmt: str | None = None,
    columns: ColumnMap | None = None,
    *,
    ids_as_text: bool = False,
    checked: bool = False,
) -> pl.DataFrame:
    """Read a run as ``query, doc, score`` (and ``rank``; ``run_id`` for TREC files);
    ``checked``: refuse an empty run and a TREC file that looks like judgments."""
    return _read(path, fmt, columns, "run", ids_as_text, checked)


def read_qrels(
    path: str | Path,
    fmt: str | None = None,
    columns: ColumnMap | None = None,
    *,
    ids_as_text: bool = False,
    checked: bool = False,
) -> pl.DataFrame:
    """Read judgments as ``query, doc, relevance``; ``checked``: refuse empty judgments and
    a TREC file that looks like a run."""
    return _read(path, fmt, columns, "qrels", ids_as_text, checked)


#: The recommender inputs of ``evaluate``: option, description, id columns read as text.
RECOMMENDER_INPUTS = {
    "interactions": ("training history: query, doc", ("query", "doc")),
    "item_features": (
        "item features: doc and a vector column (Parquet, NDJSON) or a category column, or "
        "doc_a, doc_b, similarity",
        ("doc", "doc_a", "doc_b"),
    ),
    "catalog": ("item universe: a doc column", ("doc",)),
}


def read_recommender_input(
    path: str | Path, what: str, columns: ColumnMap | None = None
) -> pl.DataFrame:
    """An interactions, item-features or catalog file: a table (Parquet, CSV, TSV, NDJSON, by
    extension) with its columns renamed like the run's (``--query-col``, ``--doc-col``)."""
    fmt = detect_format(path)
    if fmt == "trec":
        raise PolarsRankError(
            f"{path}: the {what.replace('_', ' ')} file must be a table "
            "(.parquet, .csv, .tsv or .jsonl)"
        )
    columns = columns or ColumnMap()
    text_ids = tuple(getattr(columns, c, c) for c in RECOMMENDER_INPUTS[what][1])
    frame = read_table(path, fmt, text_ids=text_ids)
    return frame.rename(columns.renames(frame.columns))


def add_recommender_options(parser: argparse.ArgumentParser) -> None:
    """``--interactions``, ``--item-features``, ``--catalog``: the recommender metrics' inputs."""
    group = parser.add_argument_group("recommender metrics (novelty, coverage, ild, ...)")
    for name, (what, _) in RECOMMENDER_INPUTS.items():
        group.add_argument(
            f"--{name.replace('_', '-')}", metavar="FILE", dest=name, help=f"{what} (a table)"
        )


def estimated_rows(path: str | Path, fmt: str) -> int:
    """A cheap estimate of a file's row count (exact for Parquet), for progress display."""
    p = Path(path)
    try:
        if fmt == "parquet":
            return int(pl.scan_parquet(p).select(pl.len()).collect().item())
        size = p.stat().st_size
    except (OSError, pl.exceptions.PolarsError):
        return 0
    if p.name.lower().endswith(".gz"):
        size *= 4
    return size // 45


def add_input_options(parser: argparse.ArgumentParser, *, qrels: bool = True) -> None:
    """The ``--format`` and column-mapping flags shared by the commands that read runs."""
    group = parser.add_argument_group("input")
    group.add_argument(
        "--format",
        choices=FORMATS,
        help="format of every input (default: from the extension; TREC text otherwise)",
    )
    group.add_argument("--run-format", choices=FORMATS, help="format of the run file(s)")
    if qrels:
        group.add_argument("--qrels-format", choices=FORMATS, help="format of the judgments")
    group.add_argument(
        "--ids-as-text",
        action="store_true",
        help="read query and document ids as text in every input (e.g. integer ids in a "
        "Parquet file against a TREC file's text ids)",
    )
    for name, what in (
        ("query", "query id"),
        ("doc", "document id"),
        ("score", "score"),
        ("rank", "rank"),
        ("relevance", "relevance grade"),
    ):
        group.add_argument(
            f"--{name}-col",
            metavar="NAME",
            help=f"column holding the {what} in tabular inputs (default: {name})",
        )


class Inputs:
    """The judgments and runs named on the command line, read lazily one run at a time."""

    def __init__(self, args: argparse.Namespace, qrels: str, runs: list[str]) -> None:
        self.columns = ColumnMap.from_args(args)
        self.run_format = getattr(args, "run_format", None) or args.format
        self.qrels_format = getattr(args, "qrels_format", None) or args.format
        self.ids_as_text = bool(getattr(args, "ids_as_text", False))
        self.qrels_path = qrels
        self.run_paths = list(runs)
        self.names = unique_run_names(self.run_paths)
        rows = sum(estimated_rows(p, detect_format(p, self.run_format)) for p in self.run_paths)
        self.progress = Progress.for_inputs(getattr(args, "progress", "auto"), rows)

    def qrels(self) -> pl.DataFrame:
        """The judgments (``query, doc, relevance``)."""
        with self.progress.stage(f"reading judgments {self.qrels_path}"):
            return read_qrels(
                self.qrels_path,
                self.qrels_format,
                self.columns,
                ids_as_text=self.ids_as_text,
                checked=True,
            )

    def runs(self) -> Iterator[tuple[str, pl.DataFrame]]:
        """``(name, run)`` for every run, read when needed; the time until the next one is
        asked for is shown as the stage "evaluating NAME"."""
        for name, path in zip(self.names, self.run_paths, strict=True):
            with self.progress.stage(f"reading run {name}"):
                frame = read_run(
                    path, self.run_format, self.columns, ids_as_text=self.ids_as_text, checked=True
                )
            with self.progress.stage(f"evaluating {name}"):
                yield name, frame
            del frame

    def recommender(self, args: argparse.Namespace) -> dict[str, pl.DataFrame]:
        """The recommender inputs given with ``--interactions`` etc., read."""
        found = {}
        for name in RECOMMENDER_INPUTS:
            path = getattr(args, name, None)
            if path:
                with self.progress.stage(f"reading {name.replace('_', ' ')} {path}"):
                    found[name] = read_recommender_input(path, name, self.columns)
        return found

    def evaluate(
        self, metrics: list[str], options: dict[str, Any], *, per_query: bool
    ) -> pl.DataFrame:
        """Every run evaluated against the judgments (:func:`polars_rank.evaluate_runs`)."""
        from polars_rank.evaluation import evaluate_runs

        qrels = self.qrels()
        return evaluate_runs(self.runs(), qrels, metrics, per_query=per_query, **options)


def read_frame(path: str, fmt: str | None, *, text_ids: tuple[str, ...] = ()) -> pl.DataFrame:
    """A table file (CSV, TSV, Parquet or NDJSON: not TREC text), read (``fmt`` or its
    extension says which); an empty one is an error naming it."""
    found = detect_format(path, fmt)
    if found == "trec":
        raise PolarsRankError(f"{path}: give a CSV, TSV, Parquet or NDJSON table (or --format)")
    table = read_table(path, found, text_ids=text_ids)
    if table.height == 0:
        raise PolarsRankError(f"{path}: the file has no rows")
    return table
