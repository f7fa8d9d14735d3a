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
import pytest
import yaml

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
