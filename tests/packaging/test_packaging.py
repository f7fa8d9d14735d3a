"""Packaging facts checked without building anything: the extras of ``pyproject.toml`` and the
messages that name them, one version source, ``python -m polars_rank``. (Building and
installing the wheel and the sdist: tests/packaging/test_install.py, marked ``install``.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars_rank as pr

ROOT = Path(__file__).resolve().parents[2]


def test_the_extras_are_declared():
    """``[plot]``, ``[spark]`` and ``[all]`` (every other extra) in pyproject.toml, each with
    the packages polars_rank/core/extras.py names in its message; one version source."""
    import tomllib

    from polars_rank.core.extras import EXTRAS

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    for name, extra in EXTRAS.items():
        assert extras[name] == list(extra.packages), name
    others = sorted(n for n in extras if n != "all")
    assert extras["all"] == [f"polars-rank[{','.join(others)}]"]
    assert "version" not in project and project["dynamic"] == ["version"]


def test_python_dash_m_runs_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "polars_rank", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["polars-rank", pr.__version__]


def test_the_changelog_keeps_a_changelog_layout() -> None:
    """Keep a Changelog: a title, an Unreleased section first, then versions newest first, each
    with Added/Changed/Deprecated/Removed/Fixed/Security subsections only; the current
    version has its section."""
    import re

    lines = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# Changelog"
    versions = [line[3:] for line in lines if line.startswith("## ")]
    assert versions[0] == "[Unreleased]"
    assert all(re.fullmatch(r"\[\d+\.\d+\.\d+\]( - \d{4}-\d{2}-\d{2})?", v) for v in versions[1:])
    assert f"[{pr.__version__}]" in [v.split(" - ")[0] for v in versions]
    # Keep a Changelog's kinds, and "Breaking changes" first where a release breaks the API
    kinds = {"Breaking changes", "Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    assert {line[4:] for line in lines if line.startswith("### ")} <= kinds
