"""The dbt blocks of the documentation run as written, in the dbt environment
(``tests/support/dbt_env.py``), on dbt-duckdb.

A page's dbt blocks make up a dbt project: a block whose first line names a file
(``-- models/ranking_summary.sql``, ``# models/schema.yml``, ``# ~/.dbt/profiles.yml``) is
written there (the profile into the project, which is ``DBT_PROFILES_DIR``), the
``packages.yml`` block of the dbt guide's Install step as it is (the clone sits beside the
project as ``../polars_rank``, as the block says), and the page's ``polars_rank.yml`` blocks
as the project's one file. The ```` ```sh ```` blocks run in ``bash -e`` in the project,
with ``polars-rank`` and ``dbt`` on the ``PATH`` (each from its own environment). The
seeds are the package's integration project's. Every table dbt builds equals
``polars_rank.evaluate`` (or ``evaluate_classification``) on the seeds within 1e-12, and
the error the guide shows for an undeclared request is what dbt prints. (The guide's other
two ways in, the ``git:`` entry and copying the example project, are
``tests/dbt/test_live.py``'s ``test_dbt_git_install`` and ``test_dbt_duckdb``.)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
import yaml

import polars_rank as pr
from polars_rank.compiler import column_names
from tests.support.dbt_env import PROJECT, DbtProject, dbt_environment, rating_seeds
from tests.support.docs import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.dbt]

GUIDE = ROOT / "docs" / "guides" / "dbt.md"
TASKS = ROOT / "docs" / "common-tasks.md"
TOLERANCE = 1e-12
_BLOCK = re.compile(
    r"^(?P<indent> *)```(?P<lang>\w*)\n(?P<code>.*?)^(?P=indent)```[ \t]*$", re.S | re.M
)
_NAMED = re.compile(r"^(?:--|#) (?:~/\.dbt/)?(?P<path>(?:models/)?[\w.]+\.(?:sql|yml)):?$")


def _blocks(path: Path, section: str = "") -> list[tuple[str, str]]:
    """``(lang, code)`` of every fenced block of the page (of its ``section``: a heading's
    text, up to the next heading of that level), list indentation removed."""
    text = path.read_text(encoding="utf-8")
    if section:
        level = section.split(" ", 1)[0]
        text = text.split(f"\n{section}\n", 1)[1].split(f"\n{level} ", 1)[0]
    found = []
    for m in _BLOCK.finditer(text):
        indent = m["indent"]
        code = "\n".join(line.removeprefix(indent) for line in m["code"].splitlines())
        found.append((m["lang"], code + "\n"))
    return found


def _named(code: str) -> str | None:
    """The file a block's first line names, or None."""
    m = _NAMED.match(code.splitlines()[0])
    return m["path"] if m else None


def _config(blocks: list[tuple[str, str]]) -> dict[str, Any]:
    """The page's ``polars_rank.yml`` blocks (unnamed YAML with ``reports:``), as one."""
    config: dict[str, Any] = {"reports": []}
    for lang, code in blocks:
        if lang == "yaml" and _named(code) is None and "reports:" in code:
            data = yaml.safe_load(code)
            config["reports"] += data.pop("reports")
            config.update(data)
    return config


def _project(tmp_path: Path, venv: Path, blocks: list[tuple[str, str]]) -> DbtProject:
    """The page's project in ``tmp_path/my_reports``, the clone beside it, the integration
    project's ``dbt_project.yml`` and seeds (``run.csv`` as given), the guide's Install
    ``packages.yml`` and profile."""
    (tmp_path / "polars_rank").symlink_to(ROOT)
    path = tmp_path / "my_reports"
    (path / "models").mkdir(parents=True)
    shutil.copy(PROJECT / "dbt_project.yml", path)
    shutil.copytree(PROJECT / "seeds", path / "seeds")
    guide = _blocks(GUIDE)
    (packages,) = [c for lang, c in guide if lang == "yaml" and c.startswith("packages:")]
    (path / "packages.yml").write_text(packages)
    (profile,) = [c for lang, c in guide if lang == "yaml" and _named(c) == "profiles.yml"]
    (path / "profiles.yml").write_text(profile)
    for lang, code in blocks:
        name = _named(code)
        if lang in ("sql", "yaml") and name is not None and name != "profiles.yml":
            (path / name).write_text(code)
    config = _config(blocks)
    (path / "polars_rank.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    return DbtProject(path, venv)


def _sh(project: DbtProject, code: str) -> None:
    """Run a page's ``sh`` block in the project: ``polars-rank`` from this environment,
    ``dbt`` from the dbt one (neither holds the other)."""
    here = Path(sys.executable).parent
    assert (here / "polars-rank").exists()
    env = {
        **os.environ,
        "PATH": f"{project.venv / 'bin'}{os.pathsep}{here}{os.pathsep}{os.environ['PATH']}",
        "DBT_PROFILES_DIR": str(project.path),
    }
    result = subprocess.run(
        ["bash", "-e", "-c", code], cwd=project.path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _read(database: Path, table: str) -> pl.DataFrame:
    with duckdb.connect(str(database), read_only=True) as con:
        return con.sql(f"SELECT * FROM main.{table}").pl()


def _close(built: pl.DataFrame, expected: pl.DataFrame, keys: list[str]) -> None:
    """Equal key columns (as text) and values within ``TOLERANCE``, row for row."""
    assert built.columns == expected.columns
    assert built.height == expected.height > 0
    built = built.with_columns(pl.col(keys).cast(pl.String)).sort(keys)
    expected = expected.with_columns(pl.col(keys).cast(pl.String)).sort(keys)
    assert built.select(keys).equals(expected.select(keys))
    for name in built.columns:
        if name not in keys:
            diff = (built[name].cast(pl.Float64) - expected[name].cast(pl.Float64)).abs()
            assert diff.max() <= TOLERANCE, name


def _renamed(frame: pl.DataFrame, metrics: list[str]) -> pl.DataFrame:
    return frame.rename(column_names(metrics))


def _seed(name: str, **types: Any) -> pl.DataFrame:
    return pl.read_csv(PROJECT / "seeds" / f"{name}.csv", schema_overrides=types)


@pytest.fixture(scope="module")
def dbt_venv() -> Path:
    return dbt_environment()


def test_the_dbt_guide_builds_as_written(tmp_path: Path, dbt_venv: Path) -> None:
    guide = _blocks(GUIDE)
    project = _project(tmp_path, dbt_venv, guide)
    # the guide's ranking models read one system's run (`query, doc, score`): the bm25
    # system of the seed, without q10 (no judgments), so the schema's left_out test holds
    strings = {"query": pl.String, "doc": pl.String}
    systems = _seed("run", system=pl.String, score=pl.Float64, **strings)
    run = systems.filter(pl.col("system") == "bm25", pl.col("query") != "q10")
    run.write_csv(project.path / "seeds" / "run.csv")
    qrels = _seed("qrels", relevance=pl.Int64, **strings)
    interactions = _seed("interactions", **strings)
    predictions = _seed("predictions", user_id=pl.String, segment=pl.String, p=pl.Float64)
    # the rating and fusion reports' inputs: ratings, their predictions, the stacked runs
    ratings, rating_predictions = rating_seeds()
    ratings.write_csv(project.path / "seeds" / "ratings.csv")
    rating_predictions.write_csv(project.path / "seeds" / "rating_predictions.csv")
    systems.write_csv(project.path / "seeds" / "stacked_runs.csv")

    (generate,) = [c for lang, c in guide if lang == "sh" and "dbt check" in c and "cp " not in c]
    _sh(project, generate)  # generate, then check: exit 0
    assert (project.path / "macros" / "polars_rank_generated.sql").exists()
    project.dbt("deps")
    project.dbt("build")  # seeds, models and the schema's tests; fails on any failure
    results = project.results()
    tests = [uid for uid in results if uid.startswith("test.")]
    assert len(tests) == 4 and all(results[uid]["status"] == "pass" for uid in tests)
    database = project.path / "warehouse.duckdb"

    metrics = ["nDCG@10", "P@5", "AP", "RR", "R@10", "bpref", "Rprec", "num_ret"]
    summary = _read(database, "ranking_summary")
    assert summary["left_out"].to_list() == [0]
    expected = _renamed(pr.evaluate(run.drop("system"), qrels, metrics), metrics)
    _close(summary.drop("left_out"), expected, [])

    long = _read(database, "ranking_long")
    per_query = pr.evaluate(run.drop("system"), qrels, ["nDCG@10", "P@5", "AP"], per_query=True)
    melted = per_query.unpivot(index="query", variable_name="measure")
    _close(long, melted.select(long.columns), ["query", "measure"])

    recsys = ["coverage@5", "gini@5", "novelty@5", "arp@5"]
    expected = pr.evaluate(run.drop("system"), None, recsys, interactions=interactions)
    _close(_read(database, "recsys_summary"), _renamed(expected, recsys), [])

    clicks = ["AUC", "GAUC", "LogLoss", "AP", "Brier", "NE", "F1", "TP"]
    by_segment = pr.evaluate_classification(
        predictions, clicks, label="clicked", score="p", by=["segment"], group="user_id"
    )
    built = _read(database, "classification_by_segment")
    _close(built, _renamed(by_segment, clicks), ["segment"])

    stars = ["RMSE", "MAE", "R2"]
    with pytest.warns(UserWarning, match="without a prediction"):  # u4's rating
        expected = pr.evaluate_ratings(
            ratings,
            rating_predictions,
            stars,
            user="user_id",
            item="item_id",
            rating="stars",
            prediction="p",
            by=["market"],
        )
    built = _read(database, "stars_by_market")
    _close(built, expected.rename(str.lower), ["market"])
    fused = pr.fuse(systems, "rrf", k=10, run="system")
    assert isinstance(fused, pl.DataFrame)
    _close(_read(database, "hybrid"), fused, ["query", "doc"])
    with pytest.warns(UserWarning, match="no judgments"):  # q10
        expected = pr.evaluate(fused, qrels, ["nDCG@10", "AP"])
    _close(_read(database, "hybrid_quality"), _renamed(expected, ["nDCG@10", "AP"]), [])

    # the day's rows are replaced when the day runs again, appended for a new day
    daily = pr.evaluate(run, qrels, ["nDCG@10", "AP"], by="system")
    for day in ("2026-01-02", "2026-01-02", "2026-01-03"):
        project.dbt("run", "--select", "daily_ranking", "--vars", f"{{run_date: {day}}}")
    built = _read(database, "daily_ranking").sort("run_date")
    assert [str(d) for d in built["run_date"]] == ["2026-01-01", "2026-01-02", "2026-01-03"]
    assert built["left_out"].to_list() == [0, 0, 0]
    for day in built.partition_by("run_date"):
        expected = _renamed(daily, ["nDCG@10", "AP"])
        _close(day.drop("run_date", "left_out"), expected, ["system"])

    # the error the guide shows for a request polars_rank.yml does not declare
    (shown,) = [c for lang, c in guide if lang == "" and "not declared" in c]
    (project.path / "models" / "ndcg20.sql").write_text(
        "{{ polars_rank.evaluate(ref('run'), ref('qrels'), metrics=['nDCG@20', 'P@5'], "
        "per_query=true) }}\n"
    )
    result = project.dbt("parse", check=False)
    assert result.returncode != 0
    printed = [line.rstrip() for line in result.stdout.splitlines()]
    at = printed.index(shown.splitlines()[0]) if shown.splitlines()[0] in printed else -1
    assert at >= 0, result.stdout
    assert printed[at : at + len(shown.splitlines())] == shown.splitlines(), result.stdout


def test_the_common_tasks_dbt_report_builds_as_written(tmp_path: Path, dbt_venv: Path) -> None:
    """The page's report: one row per system and date, the judgments joined on the date.
    The seeds: the integration run (two systems) with a date per query (odd query numbers
    2026-01-01, even 2026-01-02) and the judgments with the same dates."""
    blocks = _blocks(TASKS, "## A report in dbt")
    assert [lang for lang, _ in blocks] == ["yaml", "sh", "sql"]
    project = _project(tmp_path, dbt_venv, blocks)
    strings = {"query": pl.String, "doc": pl.String}
    day = (
        pl.when(pl.col("query").str.slice(1).cast(pl.Int64) % 2 == 1)
        .then(pl.lit("2026-01-01"))
        .otherwise(pl.lit("2026-01-02"))
        .alias("date")
    )
    run = _seed("run", system=pl.String, score=pl.Float64, **strings).with_columns(day)
    qrels = _seed("qrels", relevance=pl.Int64, **strings).with_columns(day)
    run.write_csv(project.path / "seeds" / "run.csv")
    qrels.write_csv(project.path / "seeds" / "qrels.csv")

    (generate,) = [c for lang, c in blocks if lang == "sh"]
    _sh(project, generate)
    project.dbt("deps")
    project.dbt("seed")
    project.dbt("run", "--select", "daily")  # as the page says
    built = _read(project.path / "warehouse.duckdb", "daily")
    metrics = ["nDCG@10", "AP"]
    with pytest.warns(UserWarning, match="1 query in the run has no judgments"):  # q10
        expected = pr.evaluate(run, qrels, metrics, by=["system", "date"])
    assert expected.height == 4
    _close(built, _renamed(expected, metrics), ["system", "date"])
