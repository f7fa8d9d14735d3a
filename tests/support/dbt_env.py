"""The dbt environment of the live dbt tests, and a dbt project copied to a temp folder.

dbt lives in the ``dbt`` dependency group, in an environment of its own (``.venv-dbt`` at
the repository root, or ``$POLARS_RANK_DBT_ENV``): dbt-core caps packages that the dev group
needs newer (pathspec for mypy), so the two groups conflict (``[tool.uv] conflicts``). The
environment is built from ``uv.lock`` with ``uv sync --locked --only-group dbt``, which
leaves polars_rank itself out: dbt runs the generated macros with no polars_rank installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from tests.support.engines import missing

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "dbt-package"
PROJECT = PACKAGE / "integration_tests"
DBT_TIMEOUT = 600


def dbt_environment() -> Path:
    """The folder of the dbt environment, synced with ``uv.lock`` (built when absent)."""
    venv = Path(os.environ.get("POLARS_RANK_DBT_ENV", ROOT / ".venv-dbt"))
    uv = shutil.which("uv")
    if uv is not None:
        env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(venv)}
        env.pop("VIRTUAL_ENV", None)
        result = subprocess.run(
            [uv, "sync", "--locked", "--only-group", "dbt", "--quiet"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=DBT_TIMEOUT,
        )
        if result.returncode != 0:
            raise RuntimeError(f"uv sync of the dbt group failed:\n{result.stderr}")
    if not (venv / "bin" / "dbt").exists():
        missing(f"no dbt in {venv} (uv sync --locked --only-group dbt with that environment)")
    return venv


@dataclass
class DbtProject:
    """A copy of the integration project in ``path`` with its own profiles, logs and target
    folders; :meth:`dbt` runs a dbt command in it."""

    path: Path
    venv: Path

    def dbt(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = {
            **os.environ,
            "DBT_PROFILES_DIR": str(self.path),
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            "DBT_LOG_PATH": str(self.path / "logs"),
            "DBT_TARGET_PATH": str(self.path / "target"),
            "DBT_USE_COLORS": "false",
            "SPARK_LOCAL_IP": os.environ.get("SPARK_LOCAL_IP", "127.0.0.1"),  # dbt-spark session
            "PATH": f"{self.venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        env.pop("VIRTUAL_ENV", None)
        result = subprocess.run(
            [str(self.venv / "bin" / "dbt"), *args],
            cwd=self.path,
            env=env,
            capture_output=True,
            text=True,
            timeout=DBT_TIMEOUT,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"dbt {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
        return result

    def results(self) -> dict[str, dict[str, Any]]:
        """The last command's ``run_results.json``: node name -> its result."""
        data = json.loads((self.path / "target" / "run_results.json").read_text())
        return {r["unique_id"]: r for r in data["results"]}


def copy_project(tmp: Path, venv: Path, profiles: dict[str, dict[str, Any]]) -> DbtProject:
    """The integration project copied to ``tmp`` with the package as a local path, the
    macros generated, ``profiles`` (target name -> outputs entry) written."""
    from polars_rank.cli import main

    path = tmp / "project"
    shutil.copytree(PROJECT, path, ignore=shutil.ignore_patterns("target", "logs", "dbt_packages"))
    (path / "packages.yml").write_text(f"packages:\n  - local: {json.dumps(str(PACKAGE))}\n")
    config, out = path / "polars_rank.yml", path / "macros" / "polars_rank_generated.sql"
    assert main(["dbt", "generate", "--config", str(config)]) == 0  # creates macros/
    assert main(["dbt", "check", "--config", str(config), "--out", str(out)]) == 0
    first = next(iter(profiles))
    profile = {"polars_rank_integration_tests": {"target": first, "outputs": profiles}}
    (path / "profiles.yml").write_text(json.dumps(profile, indent=2))  # JSON is YAML
    return DbtProject(path, venv)


def systems_run() -> pl.DataFrame:
    """The run seed as it loads: several systems, ``system, query, doc, score``."""
    return pl.read_csv(
        PROJECT / "seeds" / "run.csv",
        schema={"system": pl.String, "query": pl.String, "doc": pl.String, "score": pl.Float64},
    )


def seeds() -> tuple[pl.DataFrame, pl.DataFrame]:
    """The integration project's single run (the ``bm25`` system of the run seed, as the
    ``run_bm25`` model selects it) and judgments, as the seeds load them."""
    run = systems_run().filter(pl.col("system") == "bm25").drop("system")
    qrels = pl.read_csv(
        PROJECT / "seeds" / "qrels.csv",
        schema={"query": pl.String, "doc": pl.String, "relevance": pl.Int64},
    )
    return run, qrels


def rating_seeds() -> tuple[pl.DataFrame, pl.DataFrame]:
    """The seeds of the rating reports, ratings and rating predictions (the tests that need
    them write them): u4's rating has no prediction (left out), u9's prediction no rating
    (not read)."""
    ratings = pl.DataFrame(
        {
            "user_id": ["u1", "u1", "u2", "u2", "u3", "u3", "u4", "u5"],
            "item_id": ["a", "b", "a", "c", "b", "c", "a", "d"],
            "stars": [4.0, 3.0, 5.0, 2.0, 1.0, 4.5, 3.0, 2.5],
            "market": ["fr", "fr", "fr", "de", "de", "de", "de", "it"],
        }
    )
    predictions = pl.DataFrame(
        {
            "user_id": ["u1", "u1", "u2", "u2", "u3", "u3", "u5", "u9"],
            "item_id": ["a", "b", "a", "c", "b", "c", "d", "z"],
            "p": [3.5, 3.25, 4.0, 2.5, 2.0, 4.0, 2.0, 1.0],
        }
    )
    return ratings, predictions
