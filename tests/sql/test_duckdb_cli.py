"""The macro files in the DuckDB command-line shell users install (``duckdb-cli`` from PyPI, a
DuckDB release older than the Python package): every ``sql/*.sql`` file is loaded with
``.read`` on the demo data, and the queries of ``evaluate(..., engine="duckdb")`` (captured from
the engine, with the user's tables as inputs) and of the classification macros are run by the
``duckdb`` binary; the numbers are compared with the Polars engine's (an implementation that
shares no code with the macros)."""

from __future__ import annotations

import os
import subprocess
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_rank as pr
import polars_rank.duckdb as prd
import polars_rank.engines.duckdb.ranking as duckdb_ranking
from polars_rank.catalog.names import parse_metric
from polars_rank.catalog.registry import metrics as catalog_metrics
from polars_rank.core.sqltext import ident, literal
from polars_rank.demo import demo_data
from polars_rank.engines.duckdb.query import metric_sql
from tests.support.strategies import assert_same, registry_metric_names, summary_metric_names

ROOT = Path(__file__).resolve().parents[2]
SQL_FILES = [ROOT / "sql" / p.name for p in prd.sql_paths()]


@pytest.fixture(scope="module")
def cli() -> Path:
    """The ``duckdb`` executable of the ``duckdb-cli`` wheel (a development dependency), or
    the one the environment variable ``DUCKDB_CLI`` names (to try another release)."""
    if os.environ.get("DUCKDB_CLI"):
        return Path(os.environ["DUCKDB_CLI"])
    import duckdb_cli

    binary = Path(duckdb_cli.__file__).parent / "duckdb"
    assert binary.is_file(), f"no duckdb binary in {binary.parent}"
    return binary


def cli_version(binary: Path) -> str:
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True)
    return out.stdout.split()[0].lstrip("v")


def run_cli(binary: Path, folder: Path, statements: list[str]) -> subprocess.CompletedProcess:
    """``duckdb`` in ``folder`` (an in-memory database) reading ``statements`` from stdin, one
    per line as a user types them (dot commands included); errors stop it (``-bail``)."""
    return subprocess.run(
        [binary, "-bail", "-batch"],
        input="\n".join(statements) + "\n",
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=600,
    )


def read_all() -> list[str]:
    return [f".read {literal(str(path))[1:-1]}" for path in SQL_FILES]


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, pl.DataFrame, pl.DataFrame]:
    """The demo's judgments and ``rerank`` run as Parquet files in a fresh folder."""
    folder = tmp_path_factory.mktemp("cli")
    qrels, runs = demo_data()
    run = runs["rerank"].drop("rank")
    qrels.write_parquet(folder / "qrels.parquet")
    run.write_parquet(folder / "run.parquet")
    return folder, run, qrels


def recommender_inputs(run: pl.DataFrame, qrels: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """Deterministic interactions (every third judged pair), item vectors (three components
    from the document number) and a catalog (the judged documents and two others)."""
    docs = sorted(set(qrels["doc"]) | set(run["doc"]))
    numbers = np.arange(len(docs), dtype=np.float64)
    vectors = np.stack([np.cos(numbers), np.sin(numbers / 3.0), (numbers % 5) - 2.0], axis=1)
    return {
        "interactions": qrels.select("query", "doc").gather_every(3),
        "item_features": pl.DataFrame(
            {"doc": docs, "vector": pl.Series(vectors.tolist(), dtype=pl.List(pl.Float64))}
        ),
        "catalog": pl.DataFrame({"doc": sorted(set(qrels["doc"])) + ["zz1", "zz2"]}),
    }


def captured_query(monkeypatch, con, folder: Path, metrics: list[str], **options):
    """The one SQL query ``evaluate(..., engine="duckdb")`` runs on the tables of ``con``, and
    the statements that give the CLI the frames the engine registers (tables it reads into
    memory, e.g. the recommender inputs), written as Parquet files into ``folder``."""
    seen: list[str] = []
    frames: list[str] = []
    original_sql = duckdb_ranking.query_sql
    original_register = duckdb_ranking.register_frame

    def record(*args, **kwargs):
        seen.append(original_sql(*args, **kwargs))
        return seen[-1]

    def register(connection, name: str, frame: pl.DataFrame) -> None:
        frame.write_parquet(folder / f"{name}.parquet")
        frames.append(f"CREATE TABLE {ident(name)} AS SELECT * FROM '{name}.parquet';")
        original_register(connection, name, frame)

    monkeypatch.setattr(duckdb_ranking, "query_sql", record)
    monkeypatch.setattr(duckdb_ranking, "register_frame", register)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pr.evaluate("run", "qrels", metrics, engine="duckdb", con=con, **options)
    monkeypatch.undo()
    assert len(seen) == 1
    return seen[0], frames


def cli_result(binary: Path, folder: Path, setup: list[str], sql: str) -> pl.DataFrame:
    out = folder / "out.parquet"
    out.unlink(missing_ok=True)
    statements = [*read_all(), *setup, f"COPY ({sql}) TO '{out.name}' (FORMAT parquet);"]
    done = run_cli(binary, folder, statements)
    assert done.returncode == 0 and out.is_file(), done.stderr[-3000:]
    return pl.read_parquet(out)


def test_every_file_reads(cli: Path, tmp_path: Path) -> None:
    """``.read`` of each file, in the documented order, defines every macro of the package."""
    done = run_cli(
        cli,
        tmp_path,
        [
            *read_all(),
            ".mode csv",
            "SELECT function_name FROM duckdb_functions() "
            "WHERE function_type IN ('macro', 'table_macro') AND NOT internal;",
        ],
    )
    assert done.returncode == 0, done.stderr
    defined = {line.strip().strip('"') for line in done.stdout.splitlines()[1:]}
    assert prd.macro_names() <= {name.lower() for name in defined}


def test_version_is_the_one_documented(cli: Path) -> None:
    """The DuckDB guide's table of supported versions has the CLI's release and the Python
    package's."""
    import duckdb

    text = (ROOT / "docs" / "guides" / "duckdb.md").read_text(encoding="utf-8")
    table = text.split("## Supported DuckDB versions", 1)[1].split("\n## ", 1)[0]
    for version in (cli_version(cli), duckdb.__version__):
        major_minor = ".".join(version.split(".")[:2])
        assert f"\n| {major_minor} (" in table, version


@pytest.mark.parametrize("per_query", [True, False])
def test_ranking_macros_match_polars(cli, demo, monkeypatch, per_query: bool) -> None:
    """Every ranking and trec_eval metric (each cutoff, relevance level and parameter value)."""
    import duckdb

    folder, run, qrels = demo
    metrics = (registry_metric_names if per_query else summary_metric_names)(table="judged")
    con = duckdb.connect()
    setup = [
        "CREATE VIEW run AS SELECT * FROM 'run.parquet';",
        "CREATE VIEW qrels AS SELECT * FROM 'qrels.parquet';",
    ]
    for statement in setup:
        con.execute(
            statement.replace("'run", f"'{folder}/run").replace("'qrels", f"'{folder}/qrels")
        )
    sql, frames = captured_query(monkeypatch, con, folder, metrics, per_query=per_query)
    assert not frames  # the engine reads the user's tables in SQL
    got = cli_result(cli, folder, setup, sql)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = pr.evaluate(run, qrels, metrics, per_query=per_query)
    internal = [c for c in got.columns if c.startswith("__pr_") and c != "__pr_query"]
    got = got.drop(internal).rename({"__pr_query": "query"}, strict=False)
    assert_same(expected, got.select(expected.columns).cast(expected.schema))


@pytest.mark.parametrize("per_query", [True, False])
def test_recommender_macros_match_polars(cli, demo, monkeypatch, tmp_path, per_query) -> None:
    """Every recommender metric with vector item features (corpus-level ones summarised)."""
    import duckdb

    folder, run, qrels = demo
    inputs = recommender_inputs(run, qrels)
    con = duckdb.connect()
    setup = [
        "CREATE VIEW run AS SELECT * FROM 'run.parquet';",
        "CREATE VIEW qrels AS SELECT * FROM 'qrels.parquet';",
    ]
    for name, frame in inputs.items():
        frame.write_parquet(folder / f"{name}.parquet")
        setup.append(f"CREATE VIEW {name} AS SELECT * FROM '{name}.parquet';")
    for statement in setup:
        con.execute(statement.replace(" FROM '", f" FROM '{folder}/"))
    level = "query" if per_query else None
    metrics = [
        m
        for m in (registry_metric_names if per_query else summary_metric_names)(
            level=level, kind="vectors"
        )
        if parse_metric(m).entry.table != "judged"
    ]
    assert len(metrics) >= 9
    tables = {name: name for name in inputs}
    sql, frames = captured_query(monkeypatch, con, folder, metrics, per_query=per_query, **tables)
    got = cli_result(cli, folder, setup + frames, sql)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = pr.evaluate(run, qrels, metrics, per_query=per_query, **inputs)
    got = got.rename({"__pr_query": "query"}, strict=False)
    assert_same(expected, got.select(expected.columns).cast(expected.schema))


def classification_frame() -> pl.DataFrame:
    """The demo's judged ``rerank`` rows as a click table: label grade >= 2, score the
    run's score squashed into (0, 1), the query as GAUC's group."""
    qrels, runs = demo_data()
    rows = runs["rerank"].join(qrels, on=["query", "doc"], how="inner")
    return rows.select(
        "query",
        (pl.col("relevance") >= 2).cast(pl.Int64).alias("label"),
        (1.0 / (1.0 + (-pl.col("score")).exp())).alias("score"),
    ).sort("query", "score", "label")


def test_classification_macros_match_polars(cli, tmp_path: Path) -> None:
    """Every classification metric, each parameter value spelled once."""
    frame = classification_frame()
    frame.write_parquet(tmp_path / "clicks.parquet")
    metrics = [e.aliases[0].name for e in catalog_metrics("classification") if e.name != "fbeta"]
    metrics += [
        "F1(threshold=0.3)",
        "precision(zero_division=1)",
        "Fbeta(beta=2)",
        "GAUC(weight=uniform)",
        "accuracy(threshold=0.7)",
    ]
    leading = {
        "label": ident("label"),
        "score": ident("score"),
        "probability": ident("score"),
    }
    selects = []
    for name in metrics:
        spec = parse_metric(name, "classification")
        if spec.entry.tables:  # a table macro (GAUC): table and columns by name
            args = {t: literal("clicks") for t in spec.entry.tables}
            args |= {"grp": literal("query"), "label": literal("label"), "score": literal("score")}
            call = metric_sql(
                spec, 1, leading=tuple(args[c] for c in (*spec.entry.tables, *spec.entry.columns))
            )
            selects.append(f"(SELECT {ident(spec.entry.name)} FROM {call}) AS {ident(spec.label)}")
        else:
            call = metric_sql(spec, 1, leading=tuple(leading[c] for c in spec.entry.columns))
            selects.append(f"{call} AS {ident(spec.label)}")
    sql = f"SELECT {', '.join(selects)} FROM clicks"
    got = cli_result(cli, tmp_path, ["CREATE TABLE clicks AS SELECT * FROM 'clicks.parquet';"], sql)
    expected = pr.evaluate_classification(frame, metrics, group="query")
    assert_same(expected, got.select(expected.columns).cast(expected.schema))
