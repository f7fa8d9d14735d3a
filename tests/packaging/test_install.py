"""The package as a user installs it: the wheel built from this checkout, installed into a
fresh virtual environment with its runtime dependencies only (no dev group, no pyarrow), run
from outside the repository: the demo, ``evaluate`` with both engines (command line and
Python), the classification DuckDB engine and ``polars_rank.duckdb.register``; the sdist
(built from the checkout, then a wheel built from it) installs the same package with the
macro files; ``python -m polars_rank`` runs; the features of the extras that are not installed
say which extra to install.

Needs ``uv`` (the README's test command runs under it) and the package registry or uv's cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.install

ROOT = Path(__file__).resolve().parents[2]

CHECK = textwrap.dedent(
    """
    import importlib.util, sys
    import duckdb, polars as pl
    import polars_rank as pr
    import polars_rank.classification as cls
    import polars_rank.duckdb

    assert importlib.util.find_spec("pyarrow") is None, "pyarrow is installed"
    assert "site-packages" in pr.__file__, pr.__file__

    qrels = pr.read_trec_qrels(sys.argv[1])
    run = pr.read_trec_run(sys.argv[2])
    metrics = ["nDCG@10", "AP", "NumRet"]
    by_polars = pr.evaluate(run, qrels, metrics)
    by_duckdb = pr.evaluate(run, qrels, metrics, engine="duckdb")
    lazy = pr.evaluate(run.lazy(), qrels.lazy(), metrics, engine="duckdb").collect()
    for a, b in zip(by_polars.row(0), by_duckdb.row(0), strict=True):
        assert abs(a - b) < 1e-12, (by_polars, by_duckdb)
    assert lazy.equals(by_duckdb)
    relation = duckdb.sql("SELECT * FROM read_parquet('" + sys.argv[3] + "')")
    assert pr.evaluate(relation, qrels, metrics, engine="duckdb").equals(by_duckdb)

    con = polars_rank.duckdb.register(duckdb.connect())
    rr = con.sql("SELECT reciprocal_rank(r, g) FROM (VALUES (1, 0), (2, 1)) t(r, g)")
    assert rr.fetchall() == [(0.5,)]
    assert polars_rank.duckdb.sql_path().is_file()

    clicks = pl.DataFrame({"y": [1, 0, 1, 0], "p": [0.9, 0.2, 0.4, 0.5]})
    curve = cls.roc_curve(clicks, "y", "p", engine="duckdb")
    assert curve.equals(cls.roc_curve(clicks, "y", "p")), curve
    print("ok", round(by_duckdb["nDCG@10"][0], 4))
    """
)


def _uv() -> list[str]:
    found = os.environ.get("UV") or shutil.which("uv")
    if found:
        return [found]
    return [sys.executable, "-m", "uv"]  # .ci/run installs uv this way when it is missing


def _clean_env() -> dict[str, str]:
    """The environment without this checkout's virtual environment or import path."""
    drop = ("VIRTUAL_ENV", "PYTHONPATH", "UV_PROJECT_ENVIRONMENT", "PYTHONHOME")
    return {k: v for k, v in os.environ.items() if k not in drop}


def _run(argv: list[object], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"{argv}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done


def _macros(python: Path, cwd: Path) -> dict[str, str]:
    """The macro files the installed package ships: name -> text."""
    code = (
        "import json, polars_rank.duckdb as d; "
        "print(json.dumps({p.name: p.read_text(encoding='utf-8') for p in d.sql_paths()}))"
    )
    import json

    return json.loads(_run([python, "-c", code], cwd=cwd).stdout)


REPO_MACROS = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "sql").glob("*.sql"))}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtual environment holding the wheel built from this checkout."""
    base = tmp_path_factory.mktemp("install")
    dist = base / "dist"
    _run([*_uv(), "build", "--wheel", "--out-dir", dist, ROOT], cwd=base)
    wheels = list(dist.glob("polars_rank-*.whl"))
    assert len(wheels) == 1, wheels
    venv = base / "venv"
    _run([*_uv(), "venv", "--python", sys.executable, venv], cwd=base)
    python = venv / "bin" / "python"
    _run([*_uv(), "pip", "install", "--python", python, wheels[0]], cwd=base)
    return venv


def test_demo_runs_from_the_wheel(installed, tmp_path):
    """The demo, its SQL check on DuckDB, and the Python code it prints, run on the files
    ``--write-data`` wrote, with the environment's Python."""
    done = _run(
        [installed / "bin" / "polars-rank", "demo", "--permutations", "200", "--write-data",
         tmp_path / "data"],
        cwd=tmp_path,
    )  # fmt: skip
    assert "DuckDB's mean nDCG@10 for rerank" in done.stdout
    assert done.stderr == ""
    block = done.stdout.split("The same in Python (Polars):\n", 1)[1].split("The same in SQL")[0]
    snippet = textwrap.dedent(block) + "print(pr.evaluate(run, qrels, metrics)['AP'][0])\n"
    (tmp_path / "snippet.py").write_text(snippet, encoding="utf-8")
    printed = _run([installed / "bin" / "python", tmp_path / "snippet.py"], cwd=tmp_path)
    from polars_rank.demo import demo_data

    qrels, runs = demo_data()
    import polars_rank as pr

    assert float(printed.stdout) == pr.evaluate(runs["rerank"], qrels, ["AP"])["AP"][0]


def test_the_plot_extra_installs_from_a_clone(tmp_path):
    """The README's command for plots before the package is published, ``pip install
    '.[plot]'`` in a clone (run here with uv's pip), gives a working ``polars-rank plot``."""
    venv = tmp_path / "venv"
    _run([*_uv(), "venv", "--python", sys.executable, venv], cwd=tmp_path)
    _run([*_uv(), "pip", "install", "--python", venv / "bin" / "python", ".[plot]"], cwd=ROOT)
    _run([venv / "bin" / "polars-rank", "demo", "--permutations", "100", "--plot-dir",
          tmp_path / "plots"], cwd=tmp_path)  # fmt: skip
    pngs = sorted(p.name for p in (tmp_path / "plots").glob("*.png"))
    assert pngs == ["differences.png", "ndcg_at_k.png", "precision_recall.png"]


def test_evaluate_with_both_engines_from_the_wheel(installed, tmp_path):
    from polars_rank.demo import demo_data
    from polars_rank.io import write_trec_run

    qrels, runs = demo_data()
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "bm25.run"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.iter_rows()), encoding="utf-8"
    )
    write_trec_run(runs["bm25"], run_path, run_id="bm25")
    parquet = tmp_path / "bm25.parquet"
    runs["bm25"].write_parquet(parquet)

    command = installed / "bin" / "polars-rank"
    outputs = {
        engine: _run(
            [command, "evaluate", qrels_path, run_path, "-m", "nDCG@10,AP", "--engine", engine],
            cwd=tmp_path,
        ).stdout
        for engine in ("polars", "duckdb")
    }
    assert outputs["polars"] == outputs["duckdb"]
    assert "nDCG@10" in outputs["duckdb"]

    script = tmp_path / "check.py"
    script.write_text(CHECK, encoding="utf-8")
    done = _run([installed / "bin" / "python", script, qrels_path, run_path, parquet], tmp_path)
    assert done.stdout.startswith("ok ")
    assert done.stdout.split()[1] in outputs["duckdb"]


def test_the_wheel_ships_the_macro_files_and_runs_as_a_module(installed, tmp_path):
    python = installed / "bin" / "python"
    assert _macros(python, tmp_path) == REPO_MACROS
    import polars_rank as pr

    done = _run([python, "-m", "polars_rank", "--version"], cwd=tmp_path)
    assert done.stdout.split() == ["polars-rank", pr.__version__]
    done = _run([python, "-m", "polars_rank", "metrics", "--family", "classification"], tmp_path)
    assert "LogLoss" in done.stdout


def test_missing_extras_name_the_extra(installed, tmp_path):
    """matplotlib and pyspark are not installed with the package: their features raise a
    PolarsRankError naming the extra."""
    code = textwrap.dedent(
        """
        import importlib.util
        import polars as pl
        import polars_rank as pr
        from polars_rank import plot

        assert importlib.util.find_spec("matplotlib") is None
        assert importlib.util.find_spec("pyspark") is None
        run = pl.DataFrame({"query": ["a"], "doc": ["x"], "score": [1.0]})
        qrels = pl.DataFrame({"query": ["a"], "doc": ["x"], "relevance": [1]})
        frame = pr.evaluate_runs({"a": run, "b": run}, qrels, ["AP"], per_query=True)
        for call in (
            lambda: pr.evaluate(run, qrels, ["AP"], engine="spark"),
            lambda: plot.per_query_differences(frame, "AP", "a", "b", "out.png"),
        ):
            try:
                call()
            except pr.PolarsRankError as err:
                print(err)
        """
    )
    done = _run([installed / "bin" / "python", "-c", code], cwd=tmp_path)
    lines = done.stdout.splitlines()
    assert len(lines) == 2, done.stdout
    assert lines[0].startswith("engine='spark' needs pyspark, which is not installed")
    assert "pip install '.[spark]'" in lines[0] and "Java 17" in lines[0]
    assert lines[1].startswith("plots need matplotlib, which is not installed")
    assert "pip install '.[plot]'" in lines[1]


def test_the_sdist_builds_and_installs(tmp_path):
    """The sdist holds the sources, the macro files, docs and tests (and no virtual
    environment or cache); a wheel built from it installs the same package."""
    import tarfile

    dist = tmp_path / "dist"
    _run([*_uv(), "build", "--sdist", "--out-dir", dist, ROOT], cwd=tmp_path)
    (sdist,) = dist.glob("polars_rank-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
    for expected in ("pyproject.toml", "README.md", "CHANGELOG.md", "polars_rank/__init__.py",
                     "sql/trec_eval.sql", "docs/tables.py", "tests/conftest.py",
                     "tests/support/engines.py", "tests/data/trec_eval/README.md"):  # fmt: skip
        assert expected in names, expected
    assert not [n for n in names if n.startswith(".venv") or "__pycache__" in n]
    venv = tmp_path / "venv"
    _run([*_uv(), "venv", "--python", sys.executable, venv], cwd=tmp_path)
    _run([*_uv(), "pip", "install", "--python", venv / "bin" / "python", sdist], cwd=tmp_path)
    assert _macros(venv / "bin" / "python", tmp_path) == REPO_MACROS
