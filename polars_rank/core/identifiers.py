"""SQL names per dialect: which column names stay unquoted, how the others are quoted, and the
strict parser of table references.

**Column names** (the caller's ``query``, ``doc``, ``score``, ... and the output columns): a
plain lower-case name — ``[a-z_][a-z0-9_]*`` (Trino: starting with a letter) — that is not on
the dialect's reserved list stays unquoted, so that PostgreSQL (which folds unquoted names to
lower case) and Snowflake (to upper case) resolve it as they resolve hand-written SQL; every
other name is quoted, exactly as given (mixed case, spaces, quotes, dots, unicode, reserved
words).

>>> identifier("query", "postgres"), identifier("user", "postgres"), identifier("Query Id", "spark")
('query', '"user"', '`Query Id`')

The reserved lists are data (``keywords/<list>.txt``), each with a header naming its source:
DuckDB's, PostgreSQL's and Spark's read from the engines themselves
(``tests/core/test_identifiers.py`` reads them again and compares), BigQuery's, Snowflake's
and Trino's from their documentation.

**Table references** (``to_sql``'s ``run``, ``qrels``, ``interactions``, ``catalog``,
``item_features``; a table name given to ``engine="duckdb"`` or ``engine="spark"``) are
``[catalog.][schema.]table`` and nothing else: each part a plain identifier
(``[A-Za-z_][A-Za-z0-9_]*``; BigQuery also takes dashes, as in ``my-project``) or a quoted one
(``"..."`` with ``""`` for a quote; backticks too on Spark, Databricks and BigQuery). A part
written without quotes is kept as written (the dialect folds its case as in your own SQL)
unless it is a reserved word, which is quoted; a quoted part is kept exactly. Anything else —
a function call, a subquery, a ``;`` — is refused:

>>> table_reference('db."My Runs"', "run", "postgres").sql("postgres")
'db."My Runs"'
>>> table_reference("read_text('/etc/passwd')", "run", "duckdb")
Traceback (most recent call last):
...
polars_rank.core.errors.PolarsRankError: run must be a table reference ([catalog.][schema.]table), \
got "read_text('/etc/passwd')": to evaluate a query, create a view
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from polars_rank.core.dialects import get_dialect
from polars_rank.core.errors import PolarsRankError

#: The directory of the reserved lists.
KEYWORDS = Path(__file__).resolve().parent / "keywords"


def read_list(path: Path) -> dict[str, str | None]:
    """A reserved-list file: each word with the note written after it (None without one).
    Lines starting with ``#`` are the header."""
    words: dict[str, str | None] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        word, _, note = line.partition("#")
        words[word.strip()] = note.strip() or None
    return words


def header(path: Path, key: str) -> list[str]:
    """The values of the header lines ``# key: value`` of a reserved-list file."""
    prefix = f"# {key}:"
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line[len(prefix) :].strip() for line in lines if line.startswith(prefix)]


@cache
def reserved(dialect: str) -> frozenset[str]:
    """The words (lower case) that ``dialect`` does not take as a bare column name."""
    return frozenset(read_list(KEYWORDS / f"{get_dialect(dialect).reserved_list}.txt"))


def is_plain(name: str, dialect: str) -> bool:
    """True when ``name`` may stay unquoted in ``dialect``: plain lower case, not reserved."""
    plain = get_dialect(dialect).plain_name.fullmatch(name) is not None
    return plain and name not in reserved(dialect)


def quote(name: str, dialect: str) -> str:
    """``name`` quoted for ``dialect``, exactly as given."""
    return get_dialect(dialect).quote(name)


def identifier(name: str, dialect: str) -> str:
    """A column name as ``dialect`` reads it: unquoted when plain (:func:`is_plain`), else
    quoted exactly as given."""
    return name if is_plain(name, dialect) else quote(name, dialect)


@dataclass(frozen=True)
class TablePart:
    """One part of a table reference: its name and whether it was written quoted."""

    name: str
    quoted: bool

    def needs_quotes(self, dialect: str) -> bool:
        """Whether the part is printed quoted: when it was, or when it is a reserved word."""
        if self.quoted:
            return True
        if self.name.startswith("_") and not get_dialect(dialect).names_may_start_with_underscore:
            return True
        return self.name.lower() in reserved(dialect)


@dataclass(frozen=True)
class TableRef:
    """A parsed ``[catalog.][schema.]table`` (:func:`table_reference`)."""

    parts: tuple[TablePart, ...]

    @property
    def table(self) -> TablePart:
        return self.parts[-1]

    def sql(self, dialect: str) -> str:
        """The reference as ``dialect`` writes it."""
        return ".".join(
            quote(p.name, dialect) if p.needs_quotes(dialect) else p.name for p in self.parts
        )


def _refused(value: str, what: str) -> PolarsRankError:
    shown = value if len(value) <= 80 else value[:77] + "..."
    return PolarsRankError(
        f"{what} must be a table reference ([catalog.][schema.]table), got {shown!r}: "
        "to evaluate a query, create a view"
    )


def _quoted_part(text: str, start: int, dialect: str) -> tuple[str, int] | None:
    """The quoted name starting at ``text[start]`` and the index after it (None: malformed)."""
    mark = text[start]
    backslash = mark == "`" and get_dialect(dialect).backslash_escapes
    chars: list[str] = []
    i = start + 1
    while i < len(text):
        c = text[i]
        if backslash and c == "\\":
            escapes = {"\\": "\\", "`": "`", "n": "\n", "r": "\r", "t": "\t"}
            if i + 1 >= len(text) or text[i + 1] not in escapes:
                return None
            chars.append(escapes[text[i + 1]])
            i += 2
            continue
        if c == mark:
            if i + 1 < len(text) and text[i + 1] == mark and not backslash:
                chars.append(mark)
                i += 2
                continue
            return ("".join(chars), i + 1) if chars else None
        chars.append(c)
        i += 1
    return None


def table_reference(value: object, what: str, dialect: str) -> TableRef:
    """``value`` parsed as ``[catalog.][schema.]table`` for ``dialect`` (see the module
    docstring); ``what`` names the argument in the error for anything else."""
    if not isinstance(value, str) or not value.strip():
        raise PolarsRankError(
            f"the {what} table name must be a non-empty string (e.g. 'db.{what}'), got {value!r}"
        )
    rules = get_dialect(dialect)
    text = value.strip()
    marks, unquoted = rules.table_quote_marks, rules.unquoted_table_part
    parts: list[TablePart] = []
    i = 0
    while True:
        if i < len(text) and text[i] in marks:
            found = _quoted_part(text, i, dialect)
            if found is None:
                raise _refused(value, what)
            name, i = found
            parts.append(TablePart(name, quoted=True))
        else:
            match = unquoted.match(text, i)
            if match is None:
                raise _refused(value, what)
            parts.append(TablePart(match.group(), quoted=False))
            i = match.end()
        if i == len(text):
            break
        if text[i] != "." or len(parts) == 3:
            raise _refused(value, what)
        i += 1
    return TableRef(tuple(parts))
