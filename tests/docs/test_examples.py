"""The code examples of the documentation (``docs/**/*.md`` and README.md) run as written.

Every ```` ```python ```` block of a page runs, in page order, in one namespace per page, in a
folder that holds the files the examples read. The names an example uses without defining
them are the reader's own data, given here from the demo (``polars_rank.demo``):
``run``/``run2`` and ``qrels`` (frames), ``bm25``, ``dense``, ``hybrid`` (runs), ``clicks``
(a click table), ``train``, ``vectors``, ``items``, ``features`` (recommender inputs) and
``con`` (a DuckDB connection holding the tables ``my_run`` and ``my_qrels``); the files
``run.txt``, ``qrels.txt``, ``run.parquet``, ``qrels.parquet`` and the demo's ``data/``.
A block preceded by ``<!-- needs: spark -->`` runs in the Spark test with ``spark`` (the
session), ``run_df`` and ``qrels_df`` and the views ``run`` and ``qrels``. Every SQL text that
``to_sql`` gives an example is parsed back by sqlglot in its dialect.

The pages of ``SELF_CONTAINED`` use none of those names: their examples define or load every
input (from ``polars_rank.demo``) and run in a bare namespace, and a ```` ```text ```` block
right after a ``python`` block (only blank lines between) is what that block prints, compared
line by line (trailing spaces dropped); a block that prints shows its output. A ```` ```sql ````
block in that place is checked the same way: warehouse SQL a page shows is what ``to_sql``
prints for it, never pasted. The DuckDB guide's SQL blocks that start with ``.read`` run as
written in the ``duckdb`` command-line shell (``duckdb-cli``) in a folder holding the
repository's ``sql/`` and the Parquet files.
"""

from __future__ import annotations

import io
import re
import subprocess
import warnings
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import sqlglot

import polars_rank as pr
from polars_rank.demo import demo_data
from tests.support.docs import FENCE, PAGES, ROOT, blocks, run_page

# pages whose examples define or load their inputs and show what they print
SELF_CONTAINED = [
    ROOT / "docs" / page
    for page in (
        "index.md",
        "getting-started.md",
        "common-tasks.md",
        "guides/by.md",
        "guides/comparing-runs.md",
        "guides/polars.md",
        "guides/recommender.md",
        "guides/classification.md",
        "guides/duckdb.md",
        "guides/warehouses.md",
        "guides/classification-sql.md",
        "guides/ratings.md",
        "guides/diversity.md",
        "guides/off-policy.md",
        "guides/cli.md",
    )
]
_SHOWN = re.compile(r"\s*(?:<!-- wide -->\n)?```(?:text|sql)\n(?P<out>.*?)\n```", re.S)


def examples(path: Path) -> list[tuple[str | None, str, str | None]]:
    """``(needs, code, shown)`` of every ``python`` block of the page; ``shown`` is the text
    of the ```` ```text ```` or ```` ```sql ```` block right after it (only blank lines
    between), or None."""
    text = path.read_text(encoding="utf-8")
    found: list[tuple[str | None, str, str | None]] = []
    for m in FENCE.finditer(text):
        if m["lang"] == "python":
            shown = _SHOWN.match(text, m.end())
            found.append((m["needs"], m["code"], shown["out"] if shown else None))
    return found


def _compiled(monkeypatch) -> list[tuple[str, str]]:
    """Record every ``(dialect, sql)`` that ``pr.to_sql`` returns."""
    seen: list[tuple[str, str]] = []
    original = pr.to_sql

    def recording(metrics, dialect, *args, **kwargs):
        sql = original(metrics, dialect, *args, **kwargs)
        seen.append((dialect, sql))
        return sql

    monkeypatch.setattr(pr, "to_sql", recording)
    return seen


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_python_examples_run(path: Path, reader, monkeypatch) -> None:
    compiled = _compiled(monkeypatch)
    namespace = {"__name__": "__docs__", **reader}
    run_page(path, namespace, None)
    for dialect, sql in compiled:
        parsed = sqlglot.parse(sql, read=dialect)
        assert parsed and all(tree is not None for tree in parsed), (dialect, sql[:200])


@pytest.mark.parametrize("path", SELF_CONTAINED, ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_define_their_inputs_and_show_their_output(path: Path, reader) -> None:
    """The page's blocks run with nothing predefined (in the folder of the reader's files,
    which ``getting-started.md`` reads as ``polars-rank demo --write-data data/`` writes them),
    and each shown output is what its block prints."""
    namespace: dict[str, object] = {"__name__": "__docs__"}
    shown_blocks = 0
    for number, (needs, code, shown) in enumerate(examples(path), 1):
        if needs is not None:
            continue
        printed = io.StringIO()
        with warnings.catch_warnings(), redirect_stdout(printed):
            warnings.simplefilter("ignore")
            exec(compile(code, f"{path.name}:python", "exec"), namespace)  # noqa: S102
        lines = [line.rstrip() for line in printed.getvalue().rstrip("\n").splitlines()]
        if shown is None:
            assert not lines, f"{path.name}, block {number} prints but shows no output"
            continue
        assert lines == [line.rstrip() for line in shown.splitlines()], (path.name, number)
        shown_blocks += 1
    assert shown_blocks >= 1


def test_every_guide_has_a_runnable_example() -> None:
    """Each guide shows code that runs (not only prose and tables)."""
    for path in sorted((ROOT / "docs" / "guides").glob("*.md")):
        assert blocks(path, "python") or blocks(path, "sql") or blocks(path, "console"), path


def test_spark_examples_run(spark, reader, monkeypatch) -> None:
    """The blocks marked ``<!-- needs: spark -->``, on the test session."""
    run_df = spark.createDataFrame(reader["run"].to_arrow())
    qrels_df = spark.createDataFrame(reader["qrels"].to_arrow())
    run_df.createOrReplaceTempView("run")
    qrels_df.createOrReplaceTempView("qrels")
    ran = 0
    for path in PAGES:
        namespace = {"__name__": "__docs__", **reader}
        namespace |= {"spark": spark, "run_df": run_df, "qrels_df": qrels_df}
        ran += run_page(path, namespace, "spark")
    assert ran >= 1


def test_duckdb_cli_examples_run_as_written(tmp_path: Path) -> None:
    """The CLI sessions of the DuckDB guide and the README, typed into ``duckdb`` in a folder
    with ``sql/`` and the demo's Parquet files: each prints the mean nDCG@10."""
    import duckdb_cli

    binary = Path(duckdb_cli.__file__).parent / "duckdb"
    (tmp_path / "sql").symlink_to(ROOT / "sql")
    qrels, runs = demo_data()
    runs["rerank"].write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    sessions = [
        code for page in (ROOT / "docs" / "guides" / "duckdb.md", ROOT / "README.md")
        for _, code in blocks(page, "sql") if code.startswith(".read")
    ]  # fmt: skip
    assert len(sessions) >= 2
    expected = pr.evaluate(runs["rerank"], qrels, ["nDCG@10"])["nDCG@10"][0]
    for code in sessions:
        done = subprocess.run(
            [binary, "-bail", "-csv"], input=code + "\n", capture_output=True, text=True,
            cwd=tmp_path, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        printed = [float(x) for x in re.findall(r"\d+\.\d+", done.stdout)]
        assert any(abs(x - expected) < 1e-9 for x in printed), done.stdout  # mean nDCG@10


def test_readme_is_short_and_points_at_the_docs() -> None:
    """The README fits on a screen or two (at most 300 lines), keeps the two quick-start
    commands, and every docs page it links to exists."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "uv run polars-rank demo" in quick and "uv run pytest" in quick
    links = re.findall(r"\]\(((?:docs/)[^)#]+)", text)
    assert len(links) >= 10
    for link in links:
        assert (ROOT / link).exists(), link


def test_the_home_page_leads_to_every_guide() -> None:
    """index.md's "Where to go" table links every guide of the site's navigation (mkdocs.yml's
    "Guides", and the pages under docs/guides/ the build adds to it)."""
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = next(item["Guides"] for item in config["nav"] if "Guides" in item)
    guides = {next(iter(entry.values())) for entry in listed}
    guides |= {f"guides/{p.name}" for p in (ROOT / "docs" / "guides").glob("*.md")}
    table = (ROOT / "docs" / "index.md").read_text(encoding="utf-8").split("## Where to go")[1]
    assert guides <= set(re.findall(r"\]\(([^)#]+)", table)), guides


#: The widest code line the site's text column shows without a scroll bar, in characters.
CODE_WIDTH = 80
_ANY_FENCE = re.compile(
    r"^(?P<wide><!-- wide -->\n)?(?P<indent> *)(?P<fence>```+|~~~+)[^\n]*\n(?P<code>.*?)"
    r"^(?P=indent)(?P=fence)[ \t]*$",
    re.S | re.M,
)


def code_width(indent: int) -> int:
    """The widest line of a code block indented by ``indent`` spaces (see below)."""
    levels = -(-indent // 4)  # a list item's body: 1-4 spaces one level, 5-8 two, ...
    return int((688 - 32 - 30 * levels) / 8.16)


def test_code_width_inside_lists() -> None:
    """The widths worked out in the docstring below: 80 at the top level, 76 in a list
    item, 73 in a nested one; and a 77-character line in a numbered step is too wide."""
    assert [code_width(i) for i in (0, 3, 4, 8)] == [CODE_WIDTH, 76, 76, 73]
    step = "1.  A step:\n\n    ```yaml\n    " + "x" * 77 + "\n    ```\n"
    block = _ANY_FENCE.search(step)
    assert block is not None
    assert len(block["code"].strip()) > code_width(len(block["indent"]))


def test_code_lines_fit_the_text_column() -> None:
    """No line of a fenced code block of docs/**/*.md is wider than ``CODE_WIDTH``.

    The width, measured from Material for MkDocs' stylesheet (mkdocs-material 9.8) at a
    1280 px wide window: the root font is 20 px (125 %; 137.5 % only from 1600 px), the
    layout grid at most 61 rem = 1220 px, less both sidebars (12.1 rem = 242 px each, shown
    from 1220 px) and the content's margins (1.2 rem = 24 px each): a 688 px column. A code
    block's text is 0.85 × 0.8 rem = 13.6 px Roboto Mono (advance 0.6 em = 8.16 px a
    character) inside 1.18 em (16 px) of padding a side: (688 − 32) / 8.16 = 80.4, so 80
    characters show and the 81st scrolls. Inside a list each level takes 1.875 em of the
    16 px text (the list's 0.625 em margin and the item's 1.25 em): 30 px, so a block
    indented as a list item's body (1 to 4 spaces: one level; 5 to 8: two) has
    (656 − 30) / 8.16 = 76.7, 76 characters, and (656 − 60) / 8.16 = 73.0, 73, one level
    deeper. A block preceded by ``<!-- wide -->`` is exempt: output a program prints on one
    line (a shown output must equal it)."""
    wide: list[str] = []
    for path in sorted((ROOT / "docs").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        for block in _ANY_FENCE.finditer(text):
            if block["wide"]:
                continue
            first = text.count("\n", 0, block.start("code")) + 1
            width = code_width(len(block["indent"]))
            for number, line in enumerate(block["code"].splitlines(), first):
                line = line.removeprefix(block["indent"])
                if len(line) > width:
                    wide.append(
                        f"{path.relative_to(ROOT)}:{number}: {len(line)} characters (of {width})"
                    )
    assert not wide, "\n".join(wide)


def test_the_dbt_install_steps_are_one_numbered_list() -> None:
    """Python-Markdown numbers a list from 1 whatever its source says: a step whose body is
    not indented by 4 spaces (a fenced block at 3) ends the list, and the next step renders
    as a new list's "1."."""
    import markdown

    text = (ROOT / "docs" / "guides" / "dbt.md").read_text(encoding="utf-8")
    install = text.split("## Install", 1)[1].split("\n## ", 1)[0]
    html = markdown.markdown(install, extensions=["pymdownx.superfences", "md_in_html"])
    assert re.findall(r"<(/?ol|li)\b", html) == ["ol", "li", "li", "/ol"]


def test_the_dialect_table_of_the_warehouse_guide_is_what_to_sql_writes() -> None:
    """warehouses.md's table "How the dialects differ" quotes, per dialect, the table read,
    the line that ranks the run and the floating type: each is in what ``to_sql`` writes for
    that dialect and table (whitespace and the spaces inside parentheses ignored)."""
    text = (ROOT / "docs" / "guides" / "warehouses.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| `([^`]+)` \| `([^`]+)`[^|]*\| `([^`]+)` \|$", text, re.M)
    assert {row[0] for row in rows} == {
        "spark",
        "postgres",
        "bigquery",
        "snowflake",
        "trino",
        "duckdb",
    }

    def flat(sql: str) -> str:
        return re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", " ".join(sql.split())))

    for dialect, table, ranking, double in rows:
        sql = flat(pr.to_sql(["nDCG@10", "AP"], dialect, table, "qrels"))
        assert f"FROM {table} AS pr_src" in sql, dialect
        assert flat(ranking.removeprefix("... ")) in sql, (dialect, ranking)
        assert f"AS {double})" in sql, (dialect, double)


class _Parsed(Exception):
    """Raised in place of running a benchmark once its arguments are parsed."""


def test_the_benchmark_commands_parse(monkeypatch) -> None:
    """Every ``uv run python bench/...`` line of docs/benchmarks.md's commands (each takes
    minutes to hours, so the docs tests do not run them) is one its script's argument parser
    accepts: the script runs with ``parse_args`` stopping it right after a successful parse.
    A flag a script no longer has fails here (argparse exits with status 2)."""
    import argparse
    import runpy
    import shlex
    import sys

    (commands,) = blocks(ROOT / "docs" / "benchmarks.md", "bash")
    lines = [line for line in commands[1].replace("\\\n", " ").splitlines() if line.strip()]
    assert len(lines) == 7, lines  # the page's seven commands
    original = argparse.ArgumentParser.parse_args

    def parse_then_stop(self, args=None, namespace=None):
        original(self, args, namespace)
        raise _Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
    for line in lines:
        words = shlex.split(line)
        assert words[:3] == ["uv", "run", "python"], line
        script = ROOT / words[3]
        monkeypatch.setattr(sys, "argv", [str(script), *words[4:]])
        monkeypatch.syspath_prepend(str(script.parent))
        with pytest.raises(_Parsed):
            runpy.run_path(str(script), run_name="__main__")
