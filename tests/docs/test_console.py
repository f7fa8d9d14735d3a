"""The command-line sessions of the documentation (```` ```console ```` blocks) run as written.

Every ``$ polars-rank ...`` line of every page (``\\`` continuations joined, a trailing
``# comment`` dropped, ``> FILE`` written as the shell would) runs, in page order (the
page's first command through the installed ``polars-rank`` entry point, the others through
its function ``polars_rank.cli.main`` in this process, to save starting Python each time),
in a folder holding the files the examples name: the reader's data of
tests/docs/test_examples.py (the demo's ``data/``, ``run.txt``, ``qrels.txt``, ...), the
demo's runs as TREC text and Parquet (``bm25.run``, ``dense.run``, ``rerank.run``,
``dense.parquet``, ...) and trec_eval's own test files (``qrels.test``, ``results.test``,
``results.trunc``, from tests/data/trec_eval). The page's ``python`` blocks run first (the
CLI guide's writes ``clicks.parquet``). The demo and the plots (about 30 s) run in the test
marked ``slow`` (every command through the entry point); the others in the fast loop.

Each command exits with 0 and prints something or writes the files it names (``--out``,
``--plot``, ``--plot-dir``, ``--write-data``, ``> FILE``). Checked against outside references
where the docs claim one: the output lines shown under a command in the docs are what it
prints; a ``polars-rank trec_eval`` line with the arguments of one of trec_eval's expected
outputs (tests/data/trec_eval/README.md) prints that file byte for byte. ``polars-rank sql``
only writes SQL for a warehouse (BigQuery, Snowflake, Spark, ... are not reachable here): its
SQL is parsed back by sqlglot in the ``--dialect`` it names, not run.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import sqlglot

from tests.support.docs import PAGES, ROOT, blocks, run_page

TREC_EVAL = ROOT / "tests" / "data" / "trec_eval"
COMMAND = Path(sys.executable).parent / "polars-rank"
# the options naming a file or folder the command writes
_WRITES = ("--out", "--plot", "--plot-dir", "--write-data")
_SHELL = re.compile(r"[|;&<`]|\$\(")  # shell syntax this test does not run


@dataclass
class Session:
    """One ``$ polars-rank ...`` line of a page: its arguments, the file its stdout is
    redirected to, and the output lines the docs show under it."""

    line: str
    args: list[str]
    redirect: str | None = None
    shown: list[str] = field(default_factory=list)


def sessions(code: str) -> list[Session]:
    """The commands of one console block, with the output lines shown after each."""
    found: list[Session] = []
    lines = code.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.startswith("$ "):
            assert found, f"output before any command: {line!r}"
            found[-1].shown.append(line.rstrip())
            continue
        text = line[2:]
        while text.endswith("\\"):
            text = text[:-1] + " " + lines[i].strip()
            i += 1
        words = shlex.split(text, comments=True)
        assert not any(_SHELL.search(w) for w in words), f"shell syntax not run here: {text}"
        redirect = None
        if ">" in words:
            at = words.index(">")
            assert at == len(words) - 2, f"'> FILE' must end the line: {text}"
            redirect = words[-1]
            words = words[:at]
        assert words[0] == "polars-rank", f"not a polars-rank command: {text}"
        found.append(Session(text, words[1:], redirect))
    return found


def _trec_eval_outputs() -> dict[tuple[str, ...], Path]:
    """trec_eval's expected outputs by their arguments (its README's table), normalized."""
    table = (TREC_EVAL / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (out\.[\w.]+) \| `([^`]+)` \|$", table, re.M)
    assert len(rows) >= 5, rows
    return {_normalized(shlex.split(args)): TREC_EVAL / name for name, args in rows}


def _normalized(args: list[str]) -> tuple[str, ...]:
    """trec_eval's arguments as a key: ``-M 100`` is ``-M100``, options in any order."""
    options, files, i = [], [], 0
    while i < len(args):
        word = args[i]
        if word in ("-m", "-M", "-l", "-N") and i + 1 < len(args):
            word, i = word + args[i + 1], i + 1
        (options if word.startswith("-") else files).append(word)
        i += 1
    return (*sorted(options), "|", *files)


@pytest.fixture()
def folder(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, dict[str, object]]:
    """The reader's folder (the working folder) plus the demo's files at the top and
    trec_eval's test files; and the reader's names for the pages' python blocks."""
    names = request.getfixturevalue("reader")
    for name in ("bm25", "dense", "rerank"):
        shutil.copy(tmp_path / "data" / f"{name}.run", tmp_path / f"{name}.run")
        shutil.copy(tmp_path / "data" / f"{name}.parquet", tmp_path / f"{name}.parquet")
    for name in ("qrels.test", "results.test", "results.trunc"):
        shutil.copy(TREC_EVAL / name, tmp_path / name)
    return tmp_path, names


def _files(where: Path) -> dict[Path, tuple[int, int]]:
    return {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in where.rglob("*") if p.is_file()}


def _written(session: Session) -> list[str]:
    named = [session.redirect] if session.redirect else []
    args = session.args
    named += [args[i + 1] for i, word in enumerate(args[:-1]) if word in _WRITES]
    return named


def _in_process(args: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """``polars-rank ARGS`` run by the entry point's function (``polars_rank.cli.main``) in
    this process, in ``folder``, its stdout and stderr captured: the exit code and output of
    the installed command without starting Python again (about 2 s a command)."""
    from polars_rank.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def _check(
    session: Session,
    folder: Path,
    trec_eval: dict[tuple[str, ...], Path],
    *,
    subprocess_run: bool = True,
) -> None:
    """Run one command (through the installed entry point, or in this process when
    ``subprocess_run`` is false) and check what it printed and wrote."""
    before = _files(folder)
    if subprocess_run:
        done = subprocess.run(
            [COMMAND, *session.args], capture_output=True, text=True, cwd=folder, timeout=300
        )
    else:
        done = _in_process(session.args, folder)
    where = f"$ {session.line}\n{done.stderr}"
    assert done.returncode == 0, where
    if session.redirect:
        (folder / session.redirect).write_text(done.stdout, encoding="utf-8")
    changed = {p for p, stamp in _files(folder).items() if before.get(p) != stamp}
    assert done.stdout.strip() or any(p.stat().st_size for p in changed), where
    for name in _written(session):
        path = folder / name
        assert path.exists(), where
        content = list(path.iterdir()) if path.is_dir() else path.stat().st_size
        assert content, where
    if session.shown:
        assert done.stdout.rstrip("\n").splitlines() == session.shown, done.stdout
    if session.args[0] == "trec_eval" and (key := _normalized(session.args[1:])) in trec_eval:
        assert done.stdout == trec_eval[key].read_text(encoding="utf-8"), where
    if session.args[0] == "sql":
        dialect = session.args[session.args.index("--dialect") + 1]
        sql = done.stdout
        if not session.redirect and "--out" in session.args:
            sql = (folder / session.args[session.args.index("--out") + 1]).read_text()
        parsed = sqlglot.parse(sql, read=dialect)
        assert parsed and all(tree is not None for tree in parsed), where


CONSOLE_PAGES = [page for page in PAGES if blocks(page, "console")]


def test_the_console_pages() -> None:
    """The pages this test covers include the README and the CLI and warehouse guides."""
    names = {str(page.relative_to(ROOT)) for page in CONSOLE_PAGES}
    assert {
        "README.md",
        "docs/getting-started.md",
        "docs/guides/cli.md",
        "docs/guides/warehouses.md",
    } <= names, names
    assert COMMAND.exists(), COMMAND


def _heavy(session: Session) -> bool:
    """The demo and the plots (matplotlib) take seconds each: the slow test runs them."""
    return session.args[0] in ("demo", "plot") or "--plot" in session.args


def _run_pages(pages: list[Path], folder: tuple[Path, dict[str, object]], heavy: bool) -> int:
    where, names = folder
    trec_eval = _trec_eval_outputs()
    ran = 0
    for page in pages:
        run_page(page, {"__name__": "__docs__", **names}, None)
        for _, code in blocks(page, "console"):
            for session in sessions(code):
                if _heavy(session) == heavy:
                    # the page's first command through the installed entry point, the others
                    # in this process (the slow test runs every one through the entry point)
                    _check(session, where, trec_eval, subprocess_run=heavy or ran == 0)
                    ran += 1
    return ran


@pytest.mark.parametrize("page", CONSOLE_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_console_examples_run(page: Path, folder) -> None:
    """Every command of the page but the demo and the plots."""
    assert _run_pages([page], folder, heavy=False) >= 1


@pytest.mark.slow
def test_demo_and_plot_examples_run(folder) -> None:
    """``polars-rank demo`` and the plots of every page (about 30 s)."""
    assert _run_pages(CONSOLE_PAGES, folder, heavy=True) >= 8


def test_missing_extra_error_is_what_the_cli_prints(tmp_path: Path, monkeypatch, capsys) -> None:
    """getting-started.md shows what ``polars-rank plot`` prints without matplotlib: the line
    the command writes to stderr, word for word (``import matplotlib`` made to fail)."""
    from polars_rank.cli import main
    from polars_rank.demo import write_data

    page = ROOT / "docs" / "getting-started.md"
    shown = [code for _, code in blocks(page, "text") if "plots need matplotlib" in code]
    assert len(shown) == 1
    write_data(tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises
    args = "differences data/qrels.txt data/bm25.run data/rerank.run -m nDCG@10 --out diff.png"
    assert main(["plot", *args.split()]) != 0
    assert capsys.readouterr().err.strip() == shown[0].strip()
    assert f"`polars-rank plot {args[:40]}" in page.read_text(encoding="utf-8")  # the command
