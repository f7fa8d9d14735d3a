"""``polars-rank dbt generate / check`` and the generated macros, without dbt: the YAML rules,
staleness, and the macros rendered by Jinja (what dbt does) giving back ``to_sql``'s and
``check_sql``'s text exactly, hostile column names included. dbt itself runs in
``tests/dbt/test_live.py``."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import jinja2
import polars as pl
import pytest
import yaml

import polars_rank as pr
import polars_rank.dbt.config as dbt_config
from polars_rank import to_sql
from polars_rank.cli import main
from polars_rank.compiler.checks import check_sql
from polars_rank.core.errors import PolarsRankError
from polars_rank.dbt.config import parse_config
from polars_rank.dbt.generate import generate

HOSTILE = ["q{{id}}%s{#x", "a{% endraw %}b", "d'oc\"}}", "{%- raw -%}"]


def _render(text: str, macro: str, tables: dict[str, str]) -> str:
    """Call ``macro`` of the generated ``text`` with plain Jinja (dbt's engine)."""
    env = jinja2.Environment(extensions=["jinja2.ext.do"], undefined=jinja2.StrictUndefined)
    template = env.from_string(text + "{{ " + macro + "(tables) }}")
    return template.render(tables=tables)


def _write(tmp_path: Path, data: Any) -> tuple[Path, Path]:
    config = tmp_path / "polars_rank.yml"
    config.write_text(yaml.safe_dump(data))
    return config, tmp_path / "macros" / "polars_rank_generated.sql"


@pytest.mark.parametrize(
    "adapter",
    ["duckdb", "postgres", "spark", "bigquery", "trino", "clickhouse"],
    ids=lambda a: f"to-{a}",
)
def test_macro_renders_to_sql(adapter: str) -> None:
    dialect = dbt_config.ADAPTERS[adapter]
    options = {
        "per_query": True,
        "query": HOSTILE[0],
        "doc": HOSTILE[1],
        "score": HOSTILE[3],
        "left_out_column": "left_out",
    }
    if adapter == "bigquery":  # BigQuery names cannot hold a dot: none here
        options["relevance"] = HOSTILE[2]
    report = {"name": "r", "metrics": ["nDCG@10", "P@5"], **options}
    text = generate(parse_config({"adapters": [adapter], "reports": [report]}))
    tables = {"run": "db.run", "qrels": "db.qrels"}
    got = _render(text, f"polars_rank__r__{adapter}", tables).strip()
    want = to_sql(["nDCG@10", "P@5"], dialect, "db.run", "db.qrels", **options)  # type: ignore[arg-type]
    assert got == want


def test_check_macro_renders_check_sql() -> None:
    config = parse_config(
        {"adapters": ["postgres"], "checks": [{"input": "qrels", "doc": HOSTILE[1]}]}
    )
    text = generate(config)
    check = config.checks[-1]
    got = _render(text, f"polars_rank__check_{check.name}__postgres", {"run": "s.model"})
    body = check_sql("postgres", None, "pr_dbt_input", doc=HOSTILE[1])
    assert got.strip() == f"WITH pr_dbt_input AS (SELECT * FROM s.model)\n{body}"


def test_deterministic_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = {"adapters": ["duckdb"], "reports": [{"name": "a", "metrics": ["AP"]}]}
    config, out = _write(tmp_path, data)
    out.parent.mkdir()
    args = ["--config", str(config), "--out", str(out)]
    assert main(["dbt", "check", *args]) == 1  # missing
    assert "missing" in capsys.readouterr().err
    assert main(["dbt", "generate", *args]) == 0
    first = out.read_bytes()
    assert main(["dbt", "generate", *args]) == 0
    assert out.read_bytes() == first
    assert main(["dbt", "check", *args]) == 0
    out.write_bytes(first + b" ")  # one byte more
    assert main(["dbt", "check", *args]) == 1
    assert "stale" in capsys.readouterr().err
    out.write_bytes(first)
    data["reports"][0]["metrics"] = ["AP", "RR"]  # the YAML edited
    config.write_text(yaml.safe_dump(data))
    assert main(["dbt", "check", *args]) == 1


def test_out_defaults_beside_the_config(tmp_path: Path) -> None:
    config, out = _write(tmp_path, {"adapters": ["duckdb"]})
    assert main(["dbt", "generate", "--config", str(config)]) == 0
    assert out.exists() and main(["dbt", "check", "--config", str(config)]) == 0


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink"])
def test_out_never_the_config(tmp_path: Path, how: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``--out`` naming the config (as is, through a symbolic or a hard link) is refused
    before anything is written: the config survives byte for byte."""
    config, _ = _write(tmp_path, {"adapters": ["duckdb"]})
    before = config.read_bytes()
    out = tmp_path / "link.yml"
    if how == "same":
        out = config
    elif how == "symlink":
        out.symlink_to(config)
    else:
        out.hardlink_to(config)
    assert main(["dbt", "generate", "--config", str(config), "--out", str(out)]) == 2
    assert re.search("error: --out .* is the input file", capsys.readouterr().err)
    assert config.read_bytes() == before


def test_out_creates_no_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Like ``evaluate --out``: a missing folder is an error naming ``--out``, none is
    created; only the project's ``macros`` folder is, when ``--out`` is left out."""
    config, _ = _write(tmp_path, {"adapters": ["duckdb"]})
    out = tmp_path / "a" / "b" / "gen.sql"
    assert main(["dbt", "generate", "--config", str(config), "--out", str(out)]) == 2
    assert re.search("error: --out .*: the directory .* does not exist", capsys.readouterr().err)
    assert not (tmp_path / "a").exists()
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    moved = folder / "polars_rank.yml"
    config.rename(moved)
    (folder / "macros").write_text("a file, not a folder")
    assert main(["dbt", "generate", "--config", str(moved)]) == 2
    assert re.search("error: --out .*: .*macros is not a directory", capsys.readouterr().err)


def test_request_keys() -> None:
    """The key is the MD5 of the request's JSON with sorted keys (dbt's
    ``local_md5(tojson(request, sort_keys=true))``), options equal to the defaults left out
    and whole floats as integers."""
    config = parse_config(
        {"reports": [{"name": "a", "metrics": ["P@5"], "relevance_level": 2.0, "per_query": False}]}
    )
    report = config.reports[0]
    assert report.options == {"relevance_level": 2}
    text = (
        '{"kind": "report", "metrics": ["P@5"], "options": {"relevance_level": 2}, '
        '"tables": ["qrels", "run"]}'
    )
    assert report.key() == hashlib.md5(text.encode()).hexdigest()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"adapters": ["redshift"]}, "unknown adapter 'redshift'"),
        ({"reports": [{"name": "A b", "metrics": ["AP"]}]}, "needs a name"),
        ({"reports": [{"name": "a"}]}, "needs a list of metric names"),
        ({"reports": [{"name": "a", "metrics": ["AP"], "segment": 1}]}, "unknown option 'segment'"),
        ({"reports": [{"name": "a", "metrics": ["AP"], "interactions": "t"}]}, "tables go in"),
        ({"reports": [{"name": "a", "metrics": ["AP"], "tables": ["qrels"]}]}, "must list run"),
        (
            {"reports": [{"name": "a", "metrics": ["AUC"], "tables": ["run", "predictions"]}]},
            r"or be \[predictions\] alone",
        ),
        (
            {"reports": [{"name": "a", "metrics": ["AUC"], "predictions": "t"}]},
            "tables go in",
        ),
        (
            {"reports": [{"name": "a", "metrics": ["AP"]}, {"name": "a", "metrics": ["RR"]}]},
            "used twice",
        ),
        (
            {
                "reports": [
                    {"name": "a", "metrics": ["AP"]},
                    {"name": "b", "metrics": ["AP"], "per_query": False},
                ]
            },
            "the same request",
        ),
        ({"checks": [{"input": "interactions"}]}, "needs 'input: run'"),
        (
            {"reports": [{"name": "a", "metrics": ["AP"], "per_query": "no"}]},
            "report 'a': per_query must be true or false, got 'no'",
        ),
        (
            {"reports": [{"name": "a", "metrics": ["AP"], "per_query": 0}]},
            "report 'a': per_query must be true or false, got 0",
        ),
        ({"report": []}, "unknown key 'report'"),
    ],
)
def test_config_errors(data: Any, message: str) -> None:
    with pytest.raises(PolarsRankError, match=message):
        parse_config(data)


def test_config_not_utf8_names_the_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Latin-1 ``polars_rank.yml`` (``é`` is the byte 0xe9 on line 3) is an error naming
    the file and the line, not a raw UnicodeDecodeError."""
    config = tmp_path / "polars_rank.yml"
    config.write_bytes("adapters: [duckdb]\nreports: []\n# caf\u00e9\n".encode("latin-1"))
    with pytest.raises(PolarsRankError, match="polars_rank.yml: not UTF-8 text: line 3 has"):
        dbt_config.read_config(config)
    for command in ("generate", "check"):
        assert main(["dbt", command, "--config", str(config)]) == 2
        err = capsys.readouterr().err
        assert f"error: {config}: not UTF-8 text: line 3 has the byte 0xe9" in err


def test_compiler_errors_name_the_report() -> None:
    config = parse_config(
        {"adapters": ["duckdb"], "reports": [{"name": "bad", "metrics": ["relstring"]}]}
    )
    with pytest.raises(PolarsRankError, match="report 'bad' \\(duckdb\\): .*relstring"):
        generate(config)


@pytest.mark.parametrize("adapter", ["duckdb", "postgres", "spark"], ids=lambda a: f"by-{a}")
def test_by_passes_through(adapter: str) -> None:
    """Any ``to_sql`` option is accepted from the YAML and passed as written (read from its
    signature): a report with ``by`` / ``qrels_by`` (segments) renders ``to_sql``'s own text,
    and a ``qrels_by`` column outside ``by`` is ``to_sql``'s error at generation time."""
    options = {"by": ["model_version", "date"], "qrels_by": ["date"], "per_query": True}
    report = {"name": "r", "metrics": ["nDCG@10", "AP"], **options}
    config = parse_config({"adapters": [adapter], "reports": [report]})
    assert config.reports[0].options == options
    text = generate(config)
    assert '"by": ["model_version", "date"]' in text  # the catalogue entry requests match on
    got = _render(text, f"polars_rank__r__{adapter}", {"run": "db.run", "qrels": "db.qrels"})
    want = to_sql(["nDCG@10", "AP"], dbt_config.ADAPTERS[adapter], "db.run", "db.qrels", **options)  # type: ignore[arg-type]
    assert got.strip() == want and "model_version" in want
    bad = {"name": "r", "metrics": ["AP"], "by": ["date"], "qrels_by": ["market"]}
    with pytest.raises(PolarsRankError, match="qrels_by"):
        generate(parse_config({"adapters": [adapter], "reports": [bad]}))


@pytest.mark.parametrize("adapter", ["duckdb", "postgres", "spark"], ids=lambda a: f"cls-{a}")
def test_classification_report_renders_to_sql(adapter: str) -> None:
    """A report with ``tables: [predictions]`` renders ``to_sql(..., predictions=...)``'s text
    byte for byte (hostile label column included), keyed with the predictions table alone."""
    options = {
        "label": HOSTILE[0],
        "score": "p",
        "by": ["segment"],
        "group": "user_id",
        "threshold": 0.25,
    }
    metrics = ["AUC", "GAUC", "LogLoss", "AP", "Brier", "F1"]
    report = {"name": "clicks", "metrics": metrics, "tables": ["predictions"], **options}
    config = parse_config({"adapters": [adapter], "reports": [report]})
    assert config.reports[0].tables == ("predictions",)
    text = generate(config)
    got = _render(text, f"polars_rank__clicks__{adapter}", {"predictions": "db.preds"})
    dialect = dbt_config.ADAPTERS[adapter]
    want = to_sql(metrics, dialect, predictions="db.preds", **options)  # type: ignore[arg-type]
    assert got.strip() == want and "auc" in want
    request = {
        "metrics": metrics,
        "options": dict(sorted(options.items())),
        "tables": ["predictions"],
    }
    assert (
        config.reports[0].key()
        == hashlib.md5(
            json.dumps({"kind": "report", **request}, sort_keys=True).encode()
        ).hexdigest()
    )
    # a ranking option with predictions is to_sql's error at generation time
    bad = {**report, "per_query": True}
    with pytest.raises(PolarsRankError, match="report 'clicks'.*per_query"):
        generate(parse_config({"adapters": [adapter], "reports": [bad]}))


def test_placeholder_names_refused() -> None:
    config = parse_config(
        {
            "adapters": ["duckdb"],
            "reports": [{"name": "s", "metrics": ["AP"], "query": "pr_dbt_table_run"}],
        }
    )
    with pytest.raises(PolarsRankError, match="reserve"):
        generate(config)


def test_catalogue_is_json_for_jinja() -> None:
    """The catalogue macro's entries read back (Jinja literals) as the config holds them."""
    config = parse_config(
        {"adapters": ["duckdb"], "reports": [{"name": "s", "metrics": ["AP"], "max_rank": 100}]}
    )
    text = generate(config)
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    env.globals["return"] = lambda value: (_ for _ in ()).throw(_Returned(value))
    with pytest.raises(_Returned) as returned:
        env.from_string(text + "{{ polars_rank_generated() }}").render()
    catalogue = returned.value.value
    assert catalogue["adapters"] == ["duckdb"]
    (entry,) = catalogue["reports"].values()
    assert entry["options"] == {"max_rank": 100} and entry["macro"] == "polars_rank__s__"
    assert json.dumps(catalogue["report_defaults"]["max_rank"]) == "null"


class _Returned(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Column:
    def __init__(self, name: str) -> None:
        self.name = name


class _Relation:
    """A relation as dbt's macros see one: renders as its name; ``is_cte`` for an
    ephemeral model."""

    def __init__(self, name: str, is_cte: bool = False) -> None:
        self.name, self.is_cte = name, is_cte

    def __str__(self) -> str:
        return self.name


class _CompilerError(Exception):
    pass


def _pick(
    entry: dict[str, Any],
    tables: dict[str, Any],
    columns: dict[str, list[str]],
    *,
    execute: bool = True,
) -> Any:
    """The package's ``inferred_by_suffix`` macro rendered by plain Jinja with dbt's
    context stand-ins: the adapter lists ``columns[relation name]``."""
    macros = (Path(__file__).parents[2] / "dbt-package" / "macros" / "internal.sql").read_text()
    env = jinja2.Environment(extensions=["jinja2.ext.do"], undefined=jinja2.StrictUndefined)

    def raise_error(message: str) -> None:
        raise _CompilerError(message)

    env.globals.update(
        {
            "return": lambda value: (_ for _ in ()).throw(_Returned(value)),
            "execute": execute,
            "adapter": type(
                "Adapter",
                (),
                {
                    "get_columns_in_relation": staticmethod(
                        lambda r: [_Column(c) for c in columns.get(str(r), [])]
                    )
                },
            ),
            "tojson": lambda value, sort_keys=False: json.dumps(value, sort_keys=sort_keys),
            "local_md5": lambda text: hashlib.md5(text.encode()).hexdigest(),
            "exceptions": type("E", (), {"raise_compiler_error": staticmethod(raise_error)}),
        }
    )
    template = env.from_string(macros + "{{ inferred_by_suffix(entry, tables, 'the report') }}")
    with pytest.raises(_Returned) as returned:
        template.render(entry=entry, tables=tables)
    return returned.value.value


def _catalogue(text: str) -> dict[str, Any]:
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    env.globals["return"] = lambda value: (_ for _ in ()).throw(_Returned(value))
    with pytest.raises(_Returned) as returned:
        env.from_string(text + "{{ polars_rank_generated() }}").render()
    catalogue: dict[str, Any] = returned.value.value
    return catalogue


@pytest.mark.parametrize("adapter", ["duckdb", "postgres"], ids=lambda a: f"infer-{a}")
def test_by_without_qrels_by_reads_the_judgments_columns(adapter: str) -> None:
    """A report with ``by`` and no ``qrels_by`` is generated for every subset of ``by`` (the
    columns the judgments may have); the macros pick the one whose columns the adapter lists
    for the judgments: present → joined on (``qrels_by=[those]``), absent → shared. The
    pick, rendered, is ``to_sql`` with that ``qrels_by`` written out."""
    report = {"name": "r", "metrics": ["nDCG@10", "AP"], "by": ["system", "date"]}
    text = generate(parse_config({"adapters": [adapter], "reports": [report]}))
    (entry,) = _catalogue(text)["reports"].values()
    assert entry["infer"] == {"qrels_by": "qrels"} and len(entry["variants"]) == 4
    tables = {"run": _Relation("db.run"), "qrels": _Relation("db.qrels")}
    dialect = dbt_config.ADAPTERS[adapter]
    for qrels_columns, shared in (
        (["query", "doc", "relevance"], []),
        (["date", "query", "doc", "relevance"], ["date"]),
        (["query", "system", "doc", "relevance", "date"], ["system", "date"]),
        (["query", "doc", "relevance", "System"], []),  # names compared exactly
    ):
        suffix = _pick(entry, tables, {"db.qrels": qrels_columns})
        got = _render(
            text, f"polars_rank__r__{adapter}{suffix}", {"run": "db.run", "qrels": "db.qrels"}
        )
        want = to_sql(
            ["nDCG@10", "AP"],
            dialect,
            "db.run",
            "db.qrels",  # type: ignore[arg-type]
            by=["system", "date"],
            qrels_by=shared,
        )
        assert got.strip() == want, qrels_columns
    # no columns listed (a relation not built yet) or an ephemeral model: refused by name
    for qrels in (_Relation("db.qrels"), _Relation("__dbt__cte__q", is_cte=True)):
        with pytest.raises(_CompilerError, match=r"no qrels_by.*state qrels_by in polars_rank"):
            _pick(entry, {**tables, "qrels": qrels}, {})
    # when dbt only parses (no connection), any variant: the first
    assert _pick(entry, tables, {}, execute=False) == "__0"


def test_explicit_input_by_is_not_inferred() -> None:
    """An explicit ``qrels_by`` (``[]`` included) is compiled as written, one macro; a report
    reading several tables infers each missing ``*_by``, up to a limit of variants."""
    shared = {"name": "r", "metrics": ["AP"], "by": ["system"], "qrels_by": []}
    text = generate(parse_config({"adapters": ["duckdb"], "reports": [shared]}))
    (entry,) = _catalogue(text)["reports"].values()
    assert "infer" not in entry and "polars_rank__r__duckdb__0" not in text
    recsys = {
        "name": "s",
        "metrics": ["coverage@5", "AP"],
        "by": ["system"],
        "tables": ["run", "qrels", "interactions"],
        "interactions_by": [],
    }
    text = generate(parse_config({"adapters": ["duckdb"], "reports": [recsys]}))
    (entry,) = _catalogue(text)["reports"].values()
    assert entry["infer"] == {"qrels_by": "qrels"} and len(entry["variants"]) == 2
    wide = {
        "name": "w",
        "metrics": ["coverage@5", "AP"],
        "by": ["a", "b", "c", "d"],
        "tables": ["run", "qrels", "interactions"],
    }
    with pytest.raises(PolarsRankError, match="report 'w'.*256.*state qrels_by, interactions_by"):
        generate(parse_config({"adapters": ["duckdb"], "reports": [wide]}))


# --- rating and fusion reports ---------------------------------------------------------

#: Ratings with a ``by`` segment and a weight: u4's rating has no prediction (weighs 0) and
#: the prediction of u9 no rating (not read); ids are text, one segment has a single pair.
RATINGS = {
    "user_id": ["u1", "u1", "u2", "u2", "u3", "u3", "u4", "u5"],
    "item_id": ["a", "b", "a", "c", "b", "c", "a", "d"],
    "stars": [4.0, 3.0, 5.0, 2.0, 1.0, 4.5, 3.0, 2.5],
    "market": ["fr", "fr", "fr", "de", "de", "de", "de", "it"],
    "w": [1.0, 2.0, 0.5, 1.5, 1.0, 3.0, 1.0, 2.0],
}
PREDICTIONS = {
    "user_id": ["u1", "u1", "u2", "u2", "u3", "u3", "u5", "u9"],
    "item_id": ["a", "b", "a", "c", "b", "c", "d", "z"],
    "p": [3.5, 3.25, 4.0, 2.5, 2.0, 4.0, 2.0, 1.0],
}
RATING_METRICS = ["RMSE", "MSE", "MAE", "R2", "explained_variance", "MAPE"]


def _duckdb_rows(sql: str, tables: dict[str, Any]) -> list[tuple[Any, ...]]:
    """``sql`` run on an in-memory DuckDB holding ``tables`` (name → polars frame)."""
    import duckdb

    con = duckdb.connect()
    try:
        for name, frame in tables.items():
            con.register(name, frame)
        return con.sql(sql).fetchall()
    finally:
        con.close()


def _close_rows(got: list[tuple[Any, ...]], want: list[tuple[Any, ...]]) -> None:
    assert len(got) == len(want) > 0
    for got_row, want_row in zip(got, want, strict=True):
        assert len(got_row) == len(want_row)
        for g, w in zip(got_row, want_row, strict=True):
            if isinstance(w, float):
                assert g == pytest.approx(w, abs=1e-12, rel=0), (got_row, want_row)
            else:
                assert g == w, (got_row, want_row)


def test_rating_report_config() -> None:
    """``tables: [ratings, predictions]`` makes a rating report: its options are
    ``rating_sql``'s (read from its signature), its key names both tables."""
    report = {
        "name": "stars",
        "metrics": ["RMSE", "MAE"],
        "tables": ["predictions", "ratings"],  # any order
        "user": "user_id",
        "rating": "rating",  # the default: left out of the key
        "by": "market",
    }
    (parsed,) = parse_config({"reports": [report]}).reports
    assert parsed.kind == "rating" and parsed.tables == ("ratings", "predictions")
    assert parsed.options == {"by": "market", "user": "user_id"}
    assert set(dbt_config.rating_defaults()) == {
        "user",
        "item",
        "rating",
        "prediction",
        "by",
        "weight",
    }
    text = (
        '{"kind": "report", "metrics": ["RMSE", "MAE"], "options": {"by": "market", '
        '"user": "user_id"}, "tables": ["predictions", "ratings"]}'
    )
    assert parsed.key() == hashlib.md5(text.encode()).hexdigest()
    classification = {"name": "c", "metrics": ["RMSE"], "tables": ["predictions"]}
    with pytest.raises(PolarsRankError, match="report 'c': 'RMSE' is a rating metric"):
        parse_config({"reports": [classification]})


def test_fusion_report_config() -> None:
    """``fusion: <method>`` makes a fusion report: no metrics, ``tables: [runs]`` by default,
    ``fusion_sql``'s options (``runs`` there is the list of run names); the method is part
    of the key."""
    report = {"name": "hybrid", "fusion": "wsum", "weights": {"bm25": 0.3, "dense": 0.7}}
    (parsed,) = parse_config({"reports": [report]}).reports
    assert parsed.kind == "fusion" and parsed.tables == ("runs",) and parsed.metrics == ()
    assert parsed.options == {"weights": {"bm25": 0.3, "dense": 0.7}}
    assert "runs" in dbt_config.fusion_defaults() and "norm" in dbt_config.fusion_defaults()
    text = (
        '{"fusion": "wsum", "kind": "report", "metrics": [], "options": {"weights": '
        '{"bm25": 0.3, "dense": 0.7}}, "tables": ["runs"]}'
    )
    assert parsed.key() == hashlib.md5(text.encode()).hexdigest()
    other = {"name": "other", "fusion": "rrf", "tables": ["runs"], "k": 60.0, "norm": None}
    (parsed,) = parse_config({"reports": [other]}).reports
    assert parsed.options == {"norm": None}  # k: 60 is the default


@pytest.mark.parametrize(
    ("report", "message"),
    [
        ({"metrics": ["RMSE"]}, r"report 'a': 'RMSE' is a rating metric: declare tables: \["),
        (
            {"metrics": ["RMSE", "AP"], "tables": ["ratings", "predictions"]},
            r"report 'a': tables \[ratings, predictions\]: metric 'AP' is a ranking metric",
        ),
        (
            {"metrics": ["RMSE"], "tables": ["ratings"]},
            r"report 'a': tables must .*or \[ratings, predictions\] \(rating metrics\)",
        ),
        (
            {"metrics": ["RMSE"], "tables": ["ratings", "predictions", "run"]},
            "report 'a': tables must list run",
        ),
        (
            {"metrics": ["RMSE"], "tables": ["ratings", "predictions"], "label": "y"},
            "report 'a': unknown option 'label' \\(the options are rating_sql's: user, item",
        ),
        (
            {"metrics": ["MAE"], "tables": ["ratings", "predictions"], "ratings": "t"},
            "report 'a': unknown option 'ratings' .*tables go in 'tables'",
        ),
        ({"fusion": "rrff"}, "report 'a': fusion must be one of sum, mnz, .*, got 'rrff'"),
        ({"fusion": ["rrf"]}, "report 'a': fusion must be one of"),
        ({"fusion": "rrf", "metrics": ["AP"]}, "report 'a': a fusion report .* takes no metrics"),
        ({"fusion": "rrf", "tables": ["run"]}, r"report 'a': .* tables: \[runs\]"),
        (
            {"metrics": ["AP"], "tables": ["runs"]},
            "report 'a': tables must .*add fusion: <method>",
        ),
        ({"tables": ["runs"]}, r"report 'a' needs a list of metric names \(or fusion:"),
        (
            {"fusion": "rrf", "per_query": True},
            "report 'a': unknown option 'per_query' \\(the options are fusion_sql's: norm",
        ),
    ],
)
def test_rating_and_fusion_config_errors(report: dict[str, Any], message: str) -> None:
    with pytest.raises(PolarsRankError, match=f"polars_rank.yml: {message}"):
        parse_config({"reports": [{"name": "a", **report}]})


def test_rating_and_fusion_compiler_errors_name_the_report() -> None:
    """What only the compiler refuses is its error at generation time, naming the report."""
    weighted = {
        "name": "w",
        "metrics": ["max_error"],
        "tables": ["ratings", "predictions"],
        "weight": "w",
    }
    with pytest.raises(PolarsRankError, match="report 'w' \\(duckdb\\): .*max_error"):
        generate(parse_config({"adapters": ["duckdb"], "reports": [weighted]}))
    unweighted = {"name": "f", "fusion": "wsum"}
    with pytest.raises(PolarsRankError, match="report 'f' \\(duckdb\\): .*needs weights"):
        generate(parse_config({"adapters": ["duckdb"], "reports": [unweighted]}))


@pytest.mark.parametrize("adapter", ["duckdb", "postgres", "spark"], ids=lambda a: f"rt-{a}")
def test_rating_and_fusion_macros_render_their_sql(adapter: str) -> None:
    """The macros render ``rating_sql``'s and ``fusion_sql``'s own text, tables live; the
    catalogue holds the fusion method and the rating defaults."""
    options = {"user": "user_id", "item": "item_id", "rating": HOSTILE[0], "by": ["market"]}
    stars = {"name": "stars", "metrics": ["RMSE", "R2"], "tables": ["ratings", "predictions"]}
    hybrid = {"name": "hybrid", "fusion": "med", "norm": "zmuv", "runs": ["bm25", "dense"]}
    config = parse_config({"adapters": [adapter], "reports": [{**stars, **options}, hybrid]})
    text = generate(config)
    dialect = dbt_config.ADAPTERS[adapter]
    got = _render(text, f"polars_rank__stars__{adapter}", {"ratings": "s.r", "predictions": "s.p"})
    want = pr.rating_sql(["RMSE", "R2"], dialect, "s.r", "s.p", **options)  # type: ignore[arg-type]
    assert got.strip() == want
    got = _render(text, f"polars_rank__hybrid__{adapter}", {"runs": "s.stacked"})
    want = pr.fusion_sql("med", dialect, "s.stacked", norm="zmuv", runs=["bm25", "dense"])  # type: ignore[arg-type]
    assert got.strip() == want
    catalogue = _catalogue(text)
    entries = {e["name"]: e for e in catalogue["reports"].values()}
    assert entries["hybrid"]["fusion"] == "med" and entries["hybrid"]["tables"] == ["runs"]
    assert entries["stars"]["tables"] == ["ratings", "predictions"]
    assert "fusion" not in entries["stars"]
    assert catalogue["rating_defaults"] == dbt_config.rating_defaults()
    assert generate(config) == text  # deterministic


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"by": "market"},
        {"by": ["market"], "weight": "w"},
    ],
    ids=["plain", "by", "by-weight"],
)
def test_rating_macro_on_duckdb_equals_evaluate_ratings(options: dict[str, Any]) -> None:
    """The generated rating macro, tables substituted, run on DuckDB: the numbers of
    :func:`polars_rank.evaluate_ratings` (the Polars engine) on the same frames."""
    columns = {"user": "user_id", "item": "item_id", "rating": "stars", "prediction": "p"}
    report = {
        "name": "stars",
        "metrics": RATING_METRICS,
        "tables": ["ratings", "predictions"],
        **columns,
        **options,
    }
    text = generate(parse_config({"adapters": ["duckdb"], "reports": [report]}))
    sql = _render(text, "polars_rank__stars__duckdb", {"ratings": "r", "predictions": "p"})
    ratings, predictions = pl.DataFrame(RATINGS), pl.DataFrame(PREDICTIONS)
    got = _duckdb_rows(sql, {"r": ratings, "p": predictions})
    with pytest.warns(UserWarning, match="without a prediction"):
        want = pr.evaluate_ratings(ratings, predictions, RATING_METRICS, **columns, **options)
    if "by" in options:
        assert want.height == 3  # de, fr, it (one pair)
    _close_rows(got, want.rows())


@pytest.mark.parametrize(
    ("method", "options"),
    [
        ("rrf", {}),
        ("rrf", {"k": 10, "norm": None}),
        ("wsum", {"weights": {"bm25": 0.3, "dense": 0.7, "splade": 1.5}}),
        ("med", {"norm": "zmuv"}),
        ("max", {"norm": "sum", "runs": ["bm25", "dense", "splade"]}),
        ("mnz", {"norm": "borda"}),
        ("sum", {"norm": "rank"}),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(map(str, v)) or "default",
)
def test_fusion_macro_on_duckdb_equals_fuse(method: str, options: dict[str, Any]) -> None:
    """The generated fusion macro, the stacked runs substituted, run on DuckDB: the run of
    :func:`polars_rank.fuse` (the Polars engine) on the same frame — documents, order and
    scores (within 1e-12)."""
    stacked = pl.DataFrame(
        {
            "system": ["bm25"] * 5 + ["dense"] * 4 + ["splade"] * 3,
            "qid": ["q1", "q1", "q1", "q2", "q2", "q1", "q1", "q2", "q2", "q1", "q2", "q2"],
            "docno": ["a", "b", "c", "a", "d", "b", "d", "d", "e", "c", "a", "e"],
            "s": [3.0, 2.0, 1.0, 7.5, 7.0, 0.9, 0.4, 0.8, 0.7, 12.0, 4.0, 9.0],
        }
    )
    columns = {"run": "system", "query": "qid", "doc": "docno", "score": "s"}
    report = {"name": "hybrid", "fusion": method, **columns, **options}
    text = generate(parse_config({"adapters": ["duckdb"], "reports": [report]}))
    sql = _render(text, "polars_rank__hybrid__duckdb", {"runs": "stacked"})
    got = _duckdb_rows(sql, {"stacked": stacked})
    fuse_options = {k: v for k, v in options.items() if k != "runs"}  # fuse counts the rows'
    want = pr.fuse(stacked, method, **columns, **fuse_options)
    assert isinstance(want, pl.DataFrame) and want.columns == ["qid", "docno", "s"]
    _close_rows(got, want.rows())
