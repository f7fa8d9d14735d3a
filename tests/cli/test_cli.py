"""The ``polars-rank`` command line: evaluate (every input and output format), compare, plot
and errors. Everything runs in-process through ``main([...])`` on the built-in demo data."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import polars as pl
import pytest

import polars_rank as pr
from polars_rank.cli import main
from polars_rank.cli.evaluate import DEFAULT_METRICS
from polars_rank.cli.options import split_metrics
from polars_rank.cli.trec_eval import supported_measures
from polars_rank.demo import demo_data
from polars_rank.io import write_trec_run

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
METRICS = ["nDCG@10", "RR@10", "AP", "P@10", "NumRet", "NumRelRet"]
RUNS = ("bm25", "dense", "rerank")


@pytest.fixture(scope="module")
def data():
    """The demo judgments and runs as frames."""
    return demo_data()


@pytest.fixture(scope="module")
def files(data, tmp_path_factory) -> dict[str, Path]:
    """The demo data written as TREC text, Parquet and CSV files."""
    qrels, runs = data
    d = tmp_path_factory.mktemp("cli")
    paths = {"dir": d}
    paths["qrels"] = d / "qrels.txt"
    paths["qrels"].write_text(
        "".join(f"{q} 0 {doc} {rel}\n" for q, doc, rel in qrels.iter_rows()), encoding="utf-8"
    )
    paths["qrels.parquet"] = d / "qrels.parquet"
    qrels.write_parquet(paths["qrels.parquet"])
    for name, run in runs.items():
        paths[name] = d / f"{name}.run"
        write_trec_run(run, paths[name], run_id=name)
        paths[f"{name}.parquet"] = d / f"{name}.parquet"
        run.write_parquet(paths[f"{name}.parquet"])
    return paths


def _run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _expected(data, metrics=METRICS, **kwargs) -> pl.DataFrame:
    qrels, runs = data
    return pl.concat(
        pr.evaluate(run, qrels, metrics, **kwargs).select(pl.lit(name).alias("run"), pl.all())
        for name, run in runs.items()
    )


def _assert_same_numbers(got: pl.DataFrame, expected: pl.DataFrame) -> None:
    assert got.columns == expected.columns
    assert got.height == expected.height
    for column in expected.columns:
        for a, b in zip(got[column].to_list(), expected[column].to_list(), strict=True):
            if isinstance(b, float):
                assert math.isclose(float(a), b, rel_tol=1e-12, abs_tol=1e-15), column
            else:
                assert str(a) == str(b), column


# ---------------------------------------------------------------- evaluate


def test_default_metrics_table(files, capsys):
    code, out, err = _run(capsys, "evaluate", files["qrels"], files["bm25"])
    assert code == 0, err
    header = out.splitlines()[0].split()
    assert header == ["run", *DEFAULT_METRICS]
    assert out.splitlines()[2].split()[0] == "bm25"


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_output_formats_parse_back(files, data, capsys, tmp_path, fmt):
    runs = [files[name] for name in RUNS]
    out_file = tmp_path / f"result.{fmt}"
    metric_args = ["-m", ",".join(METRICS[:3]), "-m", METRICS[3], "-m", ",".join(METRICS[4:])]
    code, out, err = _run(
        capsys, "evaluate", files["qrels"], *runs, *metric_args, "-o", fmt, "--out", out_file
    )
    assert code == 0, err
    if fmt == "csv":
        got = pl.read_csv(out_file)
    elif fmt == "json":
        got = pl.DataFrame(json.loads(out_file.read_text()))
    else:
        got = pl.read_parquet(out_file)
    _assert_same_numbers(got, _expected(data))


def test_csv_to_stdout_per_query(files, data, capsys):
    code, out, _ = _run(
        capsys, "evaluate", files["qrels"], files["dense"], "-m", "AP,nDCG@10", "--per-query",
        "-o", "csv",
    )  # fmt: skip
    assert code == 0
    got = pl.read_csv(out.encode(), schema_overrides={"query": pl.String})
    qrels, runs = data
    expected = pr.evaluate(runs["dense"], qrels, ["AP", "nDCG@10"], per_query=True)
    _assert_same_numbers(got, expected.select(pl.lit("dense").alias("run"), pl.all()))


def test_markdown_and_table_show_counts_as_integers(files, capsys):
    code, out, _ = _run(
        capsys, "evaluate", files["qrels"], files["bm25"], "-m", "AP,NumRet", "-o", "markdown"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "| run | AP | NumRet |"
    assert lines[1] == "|:---|---:|---:|"
    assert lines[2].endswith("| 5000 |")
    assert "." in lines[2].split("|")[2]


@pytest.mark.parametrize("per_query", [False, True])
def test_counts_stay_integers_in_csv_json_and_parquet(files, capsys, tmp_path, per_query):
    """The registry's summary rule "sum" marks counts: whole numbers in every format."""
    counts = ["NumRet", "NumRel", "NumRelRet", "num_nonrel_judged_ret", "NumRet(rel=2)"]
    args = ["evaluate", files["qrels"], files["bm25"], "-m", ",".join(["AP", *counts])]
    args += ["--per-query"] if per_query else []
    code, out, err = _run(capsys, *args, "-o", "csv")
    assert code == 0, err
    header, first = out.splitlines()[:2]
    cells = dict(zip(header.split(","), first.split(","), strict=True))
    for name in counts:
        assert cells[name].isdigit(), (name, cells[name])
    assert "." in cells["AP"]
    code, out, _ = _run(capsys, *args, "-o", "json")
    row = json.loads(out)[0]
    assert all(type(row[name]) is int for name in counts) and type(row["AP"]) is float
    _run(capsys, *args, "-o", "parquet", "--out", tmp_path / "out.parquet")
    schema = pl.read_parquet_schema(tmp_path / "out.parquet")
    assert all(schema[name] == pl.Int64 for name in counts) and schema["AP"] == pl.Float64


def test_trec_output(files, data, capsys):
    code, out, _ = _run(
        capsys, "evaluate", files["qrels"], files["bm25"], files["rerank"], "-m", "AP,NumRet",
        "-o", "trec",
    )  # fmt: skip
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"{'runid':<22}\tall\tbm25"
    expected = _expected(data, ["AP", "NumRet"]).filter(pl.col("run") == "bm25").row(0)
    assert lines[1] == f"{'AP':<22}\tall\t{expected[1]:.4f}"
    assert lines[2] == f"{'NumRet':<22}\tall\t{int(expected[2])}"
    assert lines[3] == f"{'runid':<22}\tall\trerank"
    assert len(lines) == 6


def test_trec_output_per_query(files, data, capsys):
    code, out, _ = _run(
        capsys, "evaluate", files["qrels"], files["bm25"], "-m", "AP", "-o", "trec", "--per-query"
    )
    assert code == 0
    lines = [line.split("\t") for line in out.splitlines()]
    assert [q for _, q, _ in lines[1:-1]] == [f"q{i:02d}" for i in range(1, 51)]
    assert lines[-1][1] == "all"
    assert lines[-1][2] == f"{_expected(data, ['AP'])['AP'][0]:.4f}"


def test_mixed_input_formats_and_options(files, data, capsys):
    options = {"queries": "both", "relevance_level": 2, "max_rank": 20}
    code, out, _ = _run(
        capsys, "evaluate", files["qrels.parquet"], files["bm25"], files["dense.parquet"],
        "-m", "AP,P@10", "--queries", "both", "--relevance-level", "2", "--max-rank", "20",
        "-o", "json",
    )  # fmt: skip
    assert code == 0
    got = pl.DataFrame(json.loads(out))
    expected = _expected(data, ["AP", "P@10"], **options).filter(pl.col("run") != "rerank")
    _assert_same_numbers(got, expected)


def test_column_mapping_and_csv_ids_as_text(data, tmp_path, capsys):
    qrels, runs = data
    run = runs["rerank"].rename({"query": "qid", "doc": "docno", "score": "sim"}).drop("rank")
    run.write_csv(tmp_path / "rerank.csv")
    qrels.rename({"query": "qid", "doc": "docno", "relevance": "grade"}).write_csv(
        tmp_path / "judgments.tsv", separator="\t"
    )
    code, out, err = _run(
        capsys, "evaluate", tmp_path / "judgments.tsv", tmp_path / "rerank.csv", "-m", "nDCG@10",
        "--query-col", "qid", "--doc-col", "docno", "--score-col", "sim",
        "--relevance-col", "grade", "-o", "csv",
    )  # fmt: skip
    assert code == 0, err
    expected = pr.evaluate(runs["rerank"], qrels, ["nDCG@10"])["nDCG@10"][0]
    assert math.isclose(pl.read_csv(out.encode())["nDCG@10"][0], expected, rel_tol=1e-12)


def test_duplicate_stems_use_file_names(files, tmp_path, capsys):
    other = tmp_path / "bm25.parquet"
    other.write_bytes(files["bm25.parquet"].read_bytes())
    code, out, _ = _run(
        capsys, "evaluate", files["qrels"], files["bm25"], other, "-m", "AP", "-o", "csv"
    )
    assert code == 0
    assert pl.read_csv(out.encode())["run"].to_list() == ["bm25.run", "bm25.parquet"]


def test_split_metrics_keeps_parameters():
    assert split_metrics(["P(rel=2)@5,AP", " nDCG@10 "]) == ["P(rel=2)@5", "AP", "nDCG@10"]


def test_unjudged_queries_warn_on_one_line(files, data, tmp_path, capsys):
    qrels, runs = data
    extra = pl.DataFrame({"query": ["zz"], "doc": ["x"], "rank": [1], "score": [1.0]})
    run = pl.concat([runs["bm25"], extra], how="vertical_relaxed")
    run.write_parquet(tmp_path / "extra.parquet")
    code, _, err = _run(capsys, "evaluate", files["qrels"], tmp_path / "extra.parquet", "-m", "AP")
    assert code == 0
    assert err.splitlines() == [
        "polars-rank: warning: run 'extra': 1 query in the run has no judgments and was not "
        "evaluated"
    ]


def test_progress_stages(files, capsys):
    code, _, err = _run(
        capsys, "evaluate", files["qrels"], files["bm25"], "-m", "AP", "--progress", "always"
    )
    assert code == 0
    stages = err.splitlines()
    assert [s.split("…")[0] for s in stages] == [
        f"reading judgments {files['qrels']}",
        "reading run bm25",
        "evaluating bm25",
    ]
    assert all(s.endswith(" s") for s in stages)


def test_progress_is_silent_when_not_a_terminal(files, capsys):
    code, _, err = _run(capsys, "evaluate", files["qrels"], files["bm25"], "-m", "AP")
    assert code == 0
    assert err == ""


# ---------------------------------------------------------------- errors


def _assert_one_line_error(code: int, err: str, *fragments: str) -> None:
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("polars-rank: error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0]


def test_error_missing_file(files, capsys):
    code, out, err = _run(capsys, "evaluate", files["qrels"], files["dir"] / "nope.run")
    _assert_one_line_error(code, err, "nope.run", "no such file")
    assert out == ""


def test_error_unknown_metric(files, capsys):
    code, _, err = _run(capsys, "evaluate", files["qrels"], files["bm25"], "-m", "nDCG@10,foo")
    _assert_one_line_error(code, err, "foo")


def test_error_unreadable_parquet(files, tmp_path, capsys):
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet")
    code, _, err = _run(capsys, "evaluate", files["qrels"], bad)
    _assert_one_line_error(code, err, "bad.parquet", "parquet")


@pytest.mark.parametrize("what", ["qrels", "run"])
def test_error_trec_file_not_utf8_names_file_and_line(files, tmp_path, capsys, what):
    """A Latin-1 TREC file (``\xe9`` on line 2) names the file, the line and the byte."""
    bad = tmp_path / f"bad.{what}"
    lines = (
        ["q1 0 d1 1", "q\xe9 0 d2 0"]
        if what == "qrels"
        else ["q1 Q0 d1 1 2.0 r", "q\xe9 Q0 d2 2 1.0 r"]
    )
    bad.write_bytes("\n".join(lines).encode("latin-1") + b"\n")
    argv = [bad, files["bm25"]] if what == "qrels" else [files["qrels"], bad]
    code, _, err = _run(capsys, "evaluate", *argv)
    _assert_one_line_error(code, err, f"{bad}: not UTF-8 text: line 2 has the byte 0xe9")


def test_error_malformed_trec_file(files, tmp_path, capsys):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 0.5 r\nthis line is short\n")
    code, _, err = _run(capsys, "evaluate", files["qrels"], bad)
    _assert_one_line_error(code, err, "line 2")


def test_error_bad_format_flag(files, capsys):
    code, _, err = _run(capsys, "evaluate", files["qrels"], files["bm25"], "--format", "xml")
    _assert_one_line_error(code, err, "xml")


def test_error_mismatched_id_types(files, data, tmp_path, capsys):
    _, runs = data
    numeric = runs["bm25"].with_columns(pl.col("query").str.slice(1).cast(pl.Int64))
    numeric.write_parquet(tmp_path / "numeric.parquet")
    code, _, err = _run(capsys, "evaluate", files["qrels"], tmp_path / "numeric.parquet")
    _assert_one_line_error(code, err, "query")


def test_error_parquet_needs_out(files, capsys):
    code, _, err = _run(capsys, "evaluate", files["qrels"], files["bm25"], "-o", "parquet")
    _assert_one_line_error(code, err, "--out")


def test_debug_shows_the_exception(files):
    with pytest.raises(pr.PolarsRankError):
        main(["evaluate", str(files["qrels"]), str(files["dir"] / "nope.run"), "--debug"])


def test_no_command_prints_help(capsys):
    code, _, err = _run(capsys)
    assert code == 2
    assert "evaluate" in err and "trec_eval" in err


# ---------------------------------------------------------------- compare


def test_compare_table_lists_every_run_and_metric(files, capsys, tmp_path):
    plot_file = tmp_path / "diff.png"
    code, out, err = _run(
        capsys, "compare", files["qrels"], files["bm25"], files["dense"], files["rerank"],
        "-m", "nDCG@10,AP", "-m", "RR@10", "--permutations", "500", "--bootstrap", "500",
        "--plot", plot_file,
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith("baseline: bm25")
    rows = [line.split() for line in out.splitlines()[3:]]
    assert [(r[0], r[1]) for r in rows] == [
        (run, metric) for run in ("dense", "rerank") for metric in ("nDCG@10", "AP", "RR@10")
    ]
    data = plot_file.read_bytes()
    assert data[:8] == PNG_SIGNATURE and len(data) > 5_000
    header = out.splitlines()[1].split()
    assert header[-1] == "sig"  # the significance column has a header
    assert "sig: * when p (t, Holm) < 0.05" in out.splitlines()[0]
    assert all(line.endswith("*") for line in out.splitlines()[3:] if "rerank" in line)


def test_compare_significance_follows_the_confidence(files, capsys):
    code, out, _ = _run(
        capsys, "compare", files["qrels"], files["bm25"], files["dense"], "-m", "AP",
        "--permutations", "200", "--bootstrap", "200", "--confidence", "0.9",
    )  # fmt: skip
    assert code == 0
    assert out.splitlines()[0].endswith("sig: * when p (t, Holm) < 0.1")


@pytest.mark.parametrize("fmt", ["markdown", "latex", "csv", "json"])
def test_compare_formats(files, data, capsys, fmt):
    code, out, err = _run(
        capsys, "compare", files["qrels"], files["bm25"], files["dense"], files["rerank"],
        "-m", "nDCG@10,AP", "--permutations", "300", "--bootstrap", "300", "--seed", "3",
        "-o", fmt,
    )  # fmt: skip
    assert code == 0, err
    for name in RUNS:
        assert name in out
    for metric in ("nDCG@10", "AP"):
        assert metric in out
    if fmt in ("csv", "json"):
        got = pl.read_csv(out.encode()) if fmt == "csv" else pl.DataFrame(json.loads(out))
        qrels, runs = data
        expected = pr.compare(
            runs, qrels, ["nDCG@10", "AP"], permutations=300, bootstrap=300, seed=3
        )
        _assert_same_numbers(got, expected)


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown"])
def test_compare_all_pairs(files, data, capsys, fmt):
    """``--all-pairs``: every pair of the three runs, as ``pr.compare(pairs="all")``; the
    table names each pair's baseline (``vs``), markdown marks means with letters."""
    code, out, err = _run(
        capsys, "compare", files["qrels"], files["bm25"], files["dense"], files["rerank"],
        "-m", "AP", "--permutations", "200", "--bootstrap", "200", "--all-pairs", "-o", fmt,
    )  # fmt: skip
    assert code == 0, err
    qrels, runs = data
    expected = pr.compare(runs, qrels, ["AP"], pairs="all", permutations=200, bootstrap=200)
    pairs = [("bm25", "dense"), ("bm25", "rerank"), ("dense", "rerank")]
    assert expected.select("baseline", "run").rows() == pairs
    if fmt == "csv":
        _assert_same_numbers(pl.read_csv(out.encode()), expected)
    elif fmt == "table":
        assert out.startswith("vs: the baseline of each pair")
        rows = [line.split()[:3] for line in out.splitlines()[3:]]
        assert rows == [[base, run, "AP"] for base, run in pairs]
    else:
        assert pr.comparison.to_markdown(expected) == out


def test_compare_needs_two_runs(files, capsys):
    code, _, err = _run(capsys, "compare", files["qrels"], files["bm25"])
    _assert_one_line_error(code, err)


# ---------------------------------------------------------------- plot


def _assert_image(path: Path) -> None:
    data = path.read_bytes()
    if path.suffix == ".svg":
        assert b"<svg" in data[:2_000]
    else:
        assert data[:8] == PNG_SIGNATURE
    assert len(data) > 5_000


def test_plot_ranking_kinds(files, capsys, tmp_path):
    runs = [files["bm25"], files["rerank"]]
    cases = [
        ["differences", files["qrels"], *runs, "-m", "AP", "--out", tmp_path / "diff.png"],
        ["at-k", files["qrels"], *runs, "-m", "nDCG", "--max-k", "30", "--out", tmp_path / "k.svg"],
        ["pr", files["qrels"], *runs, "--out", tmp_path / "pr.png"],
    ]
    for argv in cases:
        code, _, err = _run(capsys, "plot", *argv)
        assert code == 0, err
        _assert_image(Path(argv[-1]))
        assert err.strip() == f"polars-rank: wrote {argv[-1]}"


def test_plot_classification_curves(capsys, tmp_path):
    import numpy as np

    rng = np.random.default_rng(1)
    clicked = rng.random(400) < 0.3
    frame = pl.DataFrame(
        {
            "clicked": clicked.astype(int),
            "p": np.clip(0.3 * clicked + rng.normal(0.4, 0.2, 400), 0, 1),
            "segment": np.where(rng.random(400) < 0.5, "mobile", "desktop"),
        }
    )
    frame.write_csv(tmp_path / "clicks.csv")
    for kind, extra in (("roc", ["--group", "segment"]), ("pr-curve", [])):
        out = tmp_path / f"{kind}.png"
        code, _, err = _run(
            capsys, "plot", kind, tmp_path / "clicks.csv", "--label", "clicked", "--score", "p",
            *extra, "--out", out,
        )  # fmt: skip
        assert code == 0, err
        _assert_image(out)


def test_plot_classification_unknown_column(capsys, tmp_path):
    pl.DataFrame({"y": [0, 1], "s": [0.1, 0.9]}).write_csv(tmp_path / "d.csv")
    code, _, err = _run(
        capsys, "plot", "roc", tmp_path / "d.csv", "--label", "clicked", "--score", "s"
    )
    _assert_one_line_error(code, err, "clicked")


# ---------------------------------------------------------------- metrics


def test_metrics_command_lists_every_name(capsys):
    from polars_rank.catalog.registry import metrics

    code, out, err = _run(capsys, "metrics", "-o", "json")
    assert code == 0, err
    listed = json.loads(out)
    assert {row["family"] for row in listed} >= {"ranking", "trec_eval", "recommender"}
    rows = {row["metric"]: row for row in listed if row["family"] != "classification"}
    for entry in metrics():
        names = rows[entry.name]["names"].split(", ")
        spelled = [name.split("[@")[0].split("@")[0].split(" (")[0] for name in names]
        assert spelled == [alias.name for alias in entry.aliases]
        for name in names:  # each listed name parses to its metric
            plain = name.replace("[@k]", "").replace("@k", "@5").replace("@x", "@0.5")
            assert pr.parse_metric(plain.split(" (")[0]).metric == entry.name
        trec = [name for name in rows[entry.name]["trec_eval"].split(", ") if name]
        assert [name.split(".")[0] for name in trec] == [t.name for t in entry.trec_eval]
    # every measure the trec_eval command computes is listed with its metric (rbp: trec_rbp)
    listed = {name.split(".")[0] for row in rows.values() for name in row["trec_eval"].split(", ")}
    assert listed - {""} == set(supported_measures()) - {"runid"}
    assert rows["trec_rbp"]["trec_eval"] == "rbp" and rows["precision"]["trec_eval"] == "P.k"
    assert rows["serendipity"]["needs"] == "interactions, item_features"
    assert rows["catalog_coverage"]["summary"] == "one per run"
    assert rows["ndcg"]["needs"] == "" and rows["ndcg"]["summary"] == "mean"
    code, out, _ = _run(capsys, "metrics", "--definitions")
    assert code == 0 and "definition" in out.splitlines()[0]
    assert "relevant retrieved / retrieved (ranx)" in out
    code, out, _ = _run(capsys, "metrics", "--family", "trec_eval", "-o", "json")
    rows = json.loads(out)
    assert code == 0 and {row["family"] for row in rows} == {"trec_eval"}
    assert [r["metric"] for r in rows] == [e.name for e in metrics() if e.family == "trec_eval"]
    relstring = next(r for r in rows if r["metric"] == "relevance_string")
    assert relstring["engines"] == "polars, duckdb"  # no portable SQL for a string value


def test_missing_matplotlib_names_a_command_that_works(capsys, monkeypatch, files, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    code, _, err = _run(
        capsys, "plot", "pr", files["qrels"], files["bm25"], "--out", tmp_path / "pr.png"
    )
    assert code == 2
    assert "plots need matplotlib, which is not installed: pip install 'matplotlib>=3.8'" in err
    assert "a clone of polars_rank: pip install '.[plot]'" in err
    assert "pip install 'polars-rank[plot]'" not in err  # not published: that fails


# ---------------------------------------------------------------- sql and classify: classification


def _predictions() -> pl.DataFrame:
    """Labels, scores on a 1/10 grid (ties), weights, users (GAUC's groups) and two segments."""
    import numpy as np

    rng = np.random.default_rng(11)
    n = 400
    label = (rng.random(n) < 0.3).astype(int)
    score = np.round(np.clip(0.3 * label + rng.normal(0.4, 0.2, n), 0, 1), 1)
    return pl.DataFrame(
        {
            "segment": rng.choice(["a", "b"], n),
            "user": rng.integers(0, 20, n),
            "clicked": label,
            "p": score,
            "w": rng.integers(1, 4, n).astype(float),
        }
    )


def test_sql_predictions_every_flag_reaches_to_sql(capsys):
    code, out, _ = _run(
        capsys, "sql", "--dialect", "snowflake", "--predictions", "db.preds",
        "-m", "AUC,GAUC,LogLoss,F1,TP", "--label", "clicked", "--score", "p", "--weight", "w",
        "--group", "user", "--by", "segment", "--threshold", "0.3", "--compact",
    )  # fmt: skip
    assert code == 0
    expected = pr.to_sql(
        ["AUC", "GAUC", "LogLoss", "F1", "TP"], "snowflake", predictions="db.preds",
        label="clicked", score="p", weight="w", group=["user"], by=["segment"],
        threshold=0.3, pretty=False,
    )  # fmt: skip
    assert out == expected + "\n"


def test_sql_predictions_query_runs_and_matches_evaluate_classification(capsys, tmp_path):
    data = _predictions()
    metrics = ["AUC", "GAUC", "LogLoss", "AP", "F1", "precision", "TP", "FN"]
    out = tmp_path / "query.sql"
    code, _, _ = _run(
        capsys, "sql", "--dialect", "duckdb", "--predictions", "preds", "-m", ",".join(metrics),
        "--label", "clicked", "--score-col", "p", "--weight", "w", "--group", "user",
        "--by", "segment", "--threshold", "0.4", "--out", out,
    )  # fmt: skip
    assert code == 0
    import duckdb

    con = duckdb.connect()
    con.register("preds", data)
    got = con.sql(out.read_text()).pl().sort("segment")
    want = pr.evaluate_classification(
        data, metrics, label="clicked", score="p", weight="w", group="user", by="segment",
        threshold=0.4,
    ).sort("segment")  # fmt: skip
    assert got.height == want.height == 2
    assert got["segment"].to_list() == want["segment"].to_list()
    for got_column, name in zip(got.columns[1:], want.columns[1:], strict=True):
        for a, b in zip(got[got_column].to_list(), want[name].to_list(), strict=True):
            assert math.isclose(float(a), float(b), rel_tol=0, abs_tol=1e-12), name


def test_sql_curve_matches_curve_sql_and_sklearn(capsys):
    from sklearn.metrics import roc_curve

    data = _predictions()
    code, out, _ = _run(
        capsys, "sql", "--dialect", "duckdb", "--predictions", "preds", "--curve", "roc",
        "--label", "clicked", "--score", "p",
    )  # fmt: skip
    assert code == 0
    assert out == pr.curve_sql("roc", "duckdb", "preds", label="clicked", score="p") + "\n"
    import duckdb

    con = duckdb.connect()
    con.register("preds", data)
    got = con.sql(out).pl()
    fpr, tpr, thresholds = roc_curve(data["clicked"].to_numpy(), data["p"].to_numpy())
    assert got.height == len(thresholds)
    for column, values in (("threshold", thresholds), ("fpr", fpr), ("tpr", tpr)):
        for a, b in zip(got[column].to_list(), values.tolist(), strict=True):
            assert a == b or math.isclose(a, b, rel_tol=0, abs_tol=1e-12), column


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--run", "r", "--predictions", "p", "-m", "AUC"], "one of them"),
        (["-m", "AUC"], "one of them"),
        (["--predictions", "p"], "--predictions needs -m METRIC"),
        (["--predictions", "p", "-m", "AUC", "--per-query"], "--per-query goes with --run"),
        (["--predictions", "p", "-m", "AUC", "--qrels", "q"], "--qrels goes with --run"),
        (["--run", "r", "--qrels", "q", "--weight", "w"], "--weight goes with --predictions"),
        (["--run", "r", "--qrels", "q", "--curve", "pr"], "--curve goes with --predictions"),
        (["--predictions", "p", "--curve", "pr", "-m", "AUC"], "--curve gives the curve alone"),
        (["--predictions", "p", "-m", "nDCG@10"], "nDCG@10"),
    ],
)
def test_sql_family_errors(capsys, argv, message):
    code, _, err = _run(capsys, "sql", "--dialect", "duckdb", *argv)
    _assert_one_line_error(code, err, message)


def test_classify_weight_matches_evaluate_classification_and_sklearn(capsys, tmp_path):
    from sklearn.metrics import log_loss, roc_auc_score

    data = _predictions()
    path = tmp_path / "preds.parquet"
    data.write_parquet(path)
    code, out, _ = _run(
        capsys, "classify", path, "--label", "clicked", "--score", "p", "--weight", "w",
        "-m", "AUC,LogLoss,F1", "-o", "json", "--digits", "17",
    )  # fmt: skip
    assert code == 0
    got = json.loads(out)
    got = got[0] if isinstance(got, list) else got
    want = pr.evaluate_classification(
        data, ["AUC", "LogLoss", "F1"], label="clicked", score="p", weight="w"
    ).row(0, named=True)
    y, p, w = (data[c].to_numpy() for c in ("clicked", "p", "w"))
    assert math.isclose(want["AUC"], roc_auc_score(y, p, sample_weight=w), abs_tol=1e-12)
    assert math.isclose(want["LogLoss"], log_loss(y, p, sample_weight=w), abs_tol=1e-12)
    for name, value in want.items():
        assert math.isclose(float(got[name]), value, rel_tol=0, abs_tol=1e-12), name
    unweighted = pr.evaluate_classification(data, ["AUC"], label="clicked", score="p")
    assert not math.isclose(unweighted["AUC"][0], want["AUC"], abs_tol=1e-9)  # w matters


def test_classify_weight_needs_metrics(capsys, tmp_path):
    path = tmp_path / "preds.parquet"
    _predictions().write_parquet(path)
    code, _, err = _run(
        capsys, "classify", path, "--label", "clicked", "--score", "p", "--weight", "w"
    )
    _assert_one_line_error(code, err, "--weight goes with -m")
