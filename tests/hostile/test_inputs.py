"""Hostile inputs: files with a byte order mark or old line ends, ids a TREC file cannot hold,
``--out`` paths that would destroy an input, and parameters that used to raise raw exceptions
or pass silently. Each is a clear :class:`~polars_rank.PolarsRankError` (or a correct read)."""

from __future__ import annotations

import gzip
from pathlib import Path

import polars as pl
import pytest

import polars_rank as pr
from polars_rank.cli import main
from polars_rank.io import read_trec_qrels, read_trec_run, write_trec_run

QRELS = "q1 0 d1 1\nq1 0 d2 1\nq2 0 d3 1\n"
RUN = "q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq2 Q0 d3 1 1 r\n"
BOM = b"\xef\xbb\xbf"


def _write(path: Path, data: str | bytes) -> Path:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def _run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def plain(tmp_path) -> dict[str, Path]:
    return {
        "qrels": _write(tmp_path / "qrels.txt", QRELS),
        "run": _write(tmp_path / "run.txt", RUN),
    }


def _numq_ap(run: pl.DataFrame, qrels: pl.DataFrame) -> tuple:
    return pr.evaluate(run, qrels, ["NumQ", "AP", "NumRet"]).row(0)


# ------------------------------------------------------------------------------------------
# 1. files: byte order marks, line ends, what write_trec_run writes


@pytest.mark.parametrize("gz", [False, True])
def test_bom_is_dropped_by_the_trec_readers(tmp_path, plain, gz):
    pack = gzip.compress if gz else (lambda b: b)
    qrels = _write(tmp_path / "qrels_bom", pack(BOM + QRELS.encode()))
    run = _write(tmp_path / "run_bom", pack(BOM + RUN.encode()))
    assert read_trec_qrels(qrels)["query"].to_list() == ["q1", "q1", "q2"]
    assert read_trec_run(run)["query"].to_list() == ["q1", "q1", "q2"]
    expected = _numq_ap(read_trec_run(plain["run"]), read_trec_qrels(plain["qrels"]))
    assert expected[0] == 2
    assert _numq_ap(read_trec_run(run), read_trec_qrels(qrels)) == expected


@pytest.mark.parametrize("end", ["\r", "\r\n"])
def test_cr_and_crlf_line_ends_are_line_ends(tmp_path, plain, end):
    qrels = _write(tmp_path / "qrels", QRELS.replace("\n", end))
    run = _write(tmp_path / "run", RUN.replace("\n", end))
    assert read_trec_run(run).height == 3
    assert read_trec_qrels(qrels).height == 3
    assert read_trec_run(run).equals(read_trec_run(plain["run"]))
    assert read_trec_qrels(qrels).equals(read_trec_qrels(plain["qrels"]))


def test_cr_line_numbers_in_errors(tmp_path):
    bad = _write(tmp_path / "run", "q1 Q0 d1 1 3 r\rq1 Q0 d2 x 2 r\r")
    with pytest.raises(pr.PolarsRankError, match="line 2: the rank"):
        read_trec_run(bad)


def test_cli_reads_bom_and_cr_files(tmp_path, plain, capsys):
    """evaluate: TREC text, CSV and NDJSON with a BOM or CR line ends count 2 queries."""
    expected = _run(capsys, "evaluate", "-m", "NumQ,AP", "-o", "csv", plain["qrels"], plain["run"])
    assert expected[0] == 0 and expected[1].splitlines()[1].endswith(",2,1.0")
    csv_run = "query,doc,score\nq1,d1,3\nq1,d2,2\nq2,d3,1\n"
    ndjson_qrels = "".join(
        f'{{"query": "{q}", "doc": "{d}", "relevance": 1}}\n'
        for q, d in [("q1", "d1"), ("q1", "d2"), ("q2", "d3")]
    )
    cr_gz = gzip.compress(csv_run.replace("\n", "\r").encode())
    cases = [
        (_write(tmp_path / "q_bom.txt", BOM + QRELS.encode()), plain["run"]),
        (_write(tmp_path / "q_cr.txt", QRELS.replace("\n", "\r")), plain["run"]),
        (plain["qrels"], _write(tmp_path / "r_cr.txt", RUN.replace("\n", "\r"))),
        (plain["qrels"], _write(tmp_path / "r_cr.csv", csv_run.replace("\n", "\r"))),
        (plain["qrels"], _write(tmp_path / "r_bom.tsv", BOM + csv_run.replace(",", "\t").encode())),
        (plain["qrels"], _write(tmp_path / "r.csv.gz", cr_gz)),
        (_write(tmp_path / "q_bom.ndjson", BOM + ndjson_qrels.encode()), plain["run"]),
        (_write(tmp_path / "q_cr.jsonl", ndjson_qrels.replace("\n", "\r")), plain["run"]),
    ]  # fmt: skip
    for qrels, run in cases:
        code, out, err = _run(capsys, "evaluate", "-m", "NumQ,AP", "-o", "csv", qrels, run)
        assert code == 0, (qrels, run, err)
        assert out.splitlines()[1].split(",")[1:] == ["2", "1.0"], (qrels, run, out)


def test_trec_eval_reads_bom_and_cr_files(tmp_path, plain, capsys):
    argv = ["trec_eval", "-m", "num_q", "-m", "num_ret", "-m", "map"]
    expected = _run(capsys, *argv, plain["qrels"], plain["run"])[1]
    assert "num_q                 \tall\t2\n" in expected
    qrels_bom = _write(tmp_path / "q_bom", BOM + QRELS.encode())
    qrels_cr = _write(tmp_path / "q_cr", QRELS.replace("\n", "\r"))
    run_bom = _write(tmp_path / "r_bom", BOM + RUN.encode())
    run_cr = _write(tmp_path / "r_cr", RUN.replace("\n", "\r"))
    for qrels, run in [(qrels_bom, plain["run"]), (qrels_cr, run_cr), (plain["qrels"], run_bom)]:
        code, out, err = _run(capsys, *argv, qrels, run)
        assert (code, out) == (0, expected), err


def test_trec_eval_keeps_a_trailing_cr_as_white_space(tmp_path, plain, capsys):
    """A '\\r' before the newline (or blanks and the newline) is white space, as in trec_eval."""
    argv = ["trec_eval", "-m", "num_q", "-m", "num_ret"]
    expected = _run(capsys, *argv, plain["qrels"], plain["run"])[1]
    qrels = _write(tmp_path / "q", QRELS.replace("\n", "\r \r\n"))
    assert _run(capsys, *argv, qrels, plain["run"])[1] == expected


def test_written_ids_with_white_space_are_refused(tmp_path):
    forged = "d2\nq9 Q0 evil 1 9 x"
    for doc, what in [("d 1", "white space"), (forged, "white space"), ("", "empty")]:
        run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["d0", doc], "score": [2.0, 1.0]})
        with pytest.raises(pr.PolarsRankError, match=f"the doc id of row 1 .query 'q1'.*{what}"):
            write_trec_run(run, tmp_path / "run.txt")
    assert not (tmp_path / "run.txt").exists()
    run = pl.DataFrame({"query": ["q 1"], "doc": ["d"], "score": [1.0]})
    with pytest.raises(pr.PolarsRankError, match="the query id of row 0 holds white space"):
        write_trec_run(run, tmp_path / "run.txt")
    run = pl.DataFrame({"query": ["q"], "doc": ["d"], "score": [1.0], "run_id": ["my run"]})
    with pytest.raises(pr.PolarsRankError, match="the run id of row 0"):
        write_trec_run(run, tmp_path / "run.txt")
    run = pl.DataFrame({"query": ["#q"], "doc": ["d"], "score": [1.0]})
    with pytest.raises(pr.PolarsRankError, match="starts with '#'"):
        write_trec_run(run, tmp_path / "run.txt")


@pytest.mark.parametrize("score", [None, float("nan")])
def test_written_null_or_nan_score_is_refused(tmp_path, score):
    run = pl.DataFrame({"query": ["q1", "q2"], "doc": ["a", "b"], "score": [1.0, score]})
    with pytest.raises(pr.PolarsRankError, match="the score of row 1 .query 'q2'. is (null|NaN)"):
        write_trec_run(run, tmp_path / "run.txt")


def test_written_run_reads_back(tmp_path):
    run = pl.DataFrame(
        {
            "query": ["q1", "q1", "q2"],
            "doc": ['d"1', "d,2", "d'3"],  # quote characters are written as they are
            "score": [2.0, 1.0, float("inf")],
            "rank": [1.0, 2.0, 1.0],
        }
    )
    write_trec_run(run, tmp_path / "run.txt")
    back = read_trec_run(tmp_path / "run.txt")
    assert back.select("query", "doc", "rank", "score").rows() == [
        ("q1", 'd"1', 1, 2.0),
        ("q1", "d,2", 2, 1.0),
        ("q2", "d'3", 1, float("inf")),
    ]
    with pytest.raises(pr.PolarsRankError, match="the rank of row 0 .query 'q1'. is not a whole"):
        write_trec_run(run.with_columns(rank=pl.lit(1.5)), tmp_path / "run.txt")


# ------------------------------------------------------------------------------------------
# 2. the command line's --out, --digits, --threshold


CLS = "label,score\n1,0.9\n0,0.1\n1,0.4\n0,0.6\n"


def _commands(files: dict[str, Path], out: Path | str, target: str) -> list[list[object]]:
    """Every command with ``--out``, writing to ``out``; ``target`` names the input file
    (qrels, run or data) whose path the test uses."""
    qrels, run, run2, data = files["qrels"], files["run"], files["run2"], files["data"]
    ranking = {
        "evaluate": ["evaluate", "-m", "AP", "--out", out, qrels, run],
        "compare": ["compare", "-m", "AP", "--permutations", "10", "--bootstrap", "10",
                    "--out", out, qrels, run, run2],
        "plot pr": ["plot", "pr", "--out", out, qrels, run],
        "plot differences": ["plot", "differences", "--out", out, qrels, run, run2],
        "plot at-k": ["plot", "at-k", "--max-k", "2", "--out", out, qrels, run],
    }  # fmt: skip
    tables = {
        "classify": ["classify", "--label", "label", "--score", "score", "--out", out, data],
        "plot roc": ["plot", "roc", "--label", "label", "--score", "score", "--out", out, data],
    }
    if target == "data":
        return list(tables.values())
    return list(ranking.values())


@pytest.fixture
def files(tmp_path, plain) -> dict[str, Path]:
    return {
        **plain,
        "run2": _write(tmp_path / "run2.txt", RUN.replace("3 r", "0 r")),
        "data": _write(tmp_path / "data.csv", CLS),
    }


@pytest.mark.parametrize("target", ["qrels", "run", "data"])
@pytest.mark.parametrize("how", ["same", "relative", "symlink", "hardlink"])
def test_out_never_overwrites_an_input(files, tmp_path, capsys, monkeypatch, target, how):
    """``--out`` naming an input (by another spelling, a symbolic or a hard link) is refused
    before anything is read, and the input is intact."""
    monkeypatch.chdir(tmp_path)
    given = files[target]
    out: Path | str = given
    if how == "relative":
        out = f"./sub/../{given.name}"
        (tmp_path / "sub").mkdir()
    elif how == "symlink":
        out = tmp_path / "link"
        out.symlink_to(given)
    elif how == "hardlink":
        out = tmp_path / "hard"
        out.hardlink_to(given)
    before = given.read_bytes()
    for argv in _commands(files, out, target):
        code, _, err = _run(capsys, *argv)
        assert code == 2, argv
        assert f"--out {out} is the input file {given}" in err, err
        assert "would overwrite it" in err
        assert given.read_bytes() == before


def test_sql_out_and_compare_plot(files, tmp_path, capsys):
    code, _, err = _run(capsys, "sql", "--dialect", "duckdb", "--run", "r", "--out", tmp_path)
    assert code == 2 and f"--out {tmp_path} is a directory" in err
    base = ["compare", "-m", "AP", files["qrels"], files["run"], files["run2"]]
    code, _, err = _run(capsys, *base, "--plot", files["run2"])
    assert code == 2 and f"--plot {files['run2']} is the input file" in err
    same = tmp_path / "same.txt"
    code, _, err = _run(capsys, *base, "--out", same, "--plot", same)
    assert code == 2 and "name the same file" in err


def test_out_in_a_missing_directory_or_unwritable(files, tmp_path, capsys):
    missing = tmp_path / "no" / "such" / "out.csv"
    under_a_file = files["run"] / "out.csv"
    commands = [
        ["evaluate", "-m", "AP", files["qrels"], files["run"]],
        ["evaluate", "-m", "AP", "-o", "parquet", files["qrels"], files["run"]],
        ["compare", "-m", "AP", files["qrels"], files["run"], files["run2"]],
        ["classify", "--label", "label", "--score", "score", files["data"]],
        ["plot", "pr", files["qrels"], files["run"]],
        ["sql", "--dialect", "duckdb", "--run", "r"],
    ]
    for argv in commands:
        code, _, err = _run(capsys, *argv, "--out", missing)
        assert code == 2, argv
        assert f"--out {missing}: the directory {missing.parent} does not exist" in err, err
        code, _, err = _run(capsys, *argv, "--out", under_a_file)
        assert code == 2 and f"{files['run']} is not a directory" in err, err
    if Path("/dev/full").exists():  # writes fail there (ENOSPC), even for root
        for argv in commands[:2]:
            code, _, err = _run(capsys, *argv, "--out", "/dev/full")
            assert code == 2 and "--out /dev/full: cannot write the output (" in err, err
            assert "Traceback" not in err


def test_out_into_a_read_only_directory(files, tmp_path, capsys, monkeypatch):
    """A folder the process may not write to (root writes anywhere, so the permission check
    is told the folder is read-only, as it is for any other user)."""
    import os

    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    real_access = os.access

    def access(path, mode, *args, **kwargs):
        if mode == os.W_OK and Path(path) == folder:
            return False
        return real_access(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)
    try:
        code, _, err = _run(
            capsys, "evaluate", "-m", "AP", "--out", folder / "x", files["qrels"], files["run"]
        )
    finally:
        folder.chmod(0o700)
    assert code == 2 and "cannot write there" in err and str(folder) in err
    assert not (folder / "x").exists()


@pytest.mark.parametrize("command", ["evaluate", "compare", "classify"])
def test_negative_digits_is_a_usage_error(files, capsys, command):
    inputs = {
        "evaluate": [files["qrels"], files["run"]],
        "compare": [files["qrels"], files["run"], files["run2"]],
        "classify": ["--label", "label", "--score", "score", files["data"]],
    }[command]
    code, _, err = _run(capsys, command, "--digits", "-1", *inputs)
    assert code == 2
    assert "argument --digits: must be a non-negative integer, got '-1'" in err
    assert "ValueError" not in err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_threshold_and_relevance_level_must_be_finite(files, capsys, value):
    for argv in (
        ["classify", "--label", "label", "--score", "score", f"--threshold={value}", files["data"]],
        ["classify", "-m", "F1", "--label", "label", "--score", "score", f"--threshold={value}",
         files["data"]],
        ["evaluate", f"--relevance-level={value}", files["qrels"], files["run"]],
        ["sql", "--dialect", "duckdb", "--run", "r", f"--relevance-level={value}"],
    ):  # fmt: skip
        code, out, err = _run(capsys, *argv)
        assert code == 2 and out == "", argv
        assert f"must be a finite number, got '{value}'" in err


# ------------------------------------------------------------------------------------------
# 3. raw exceptions and silent parameters: a PolarsRankError naming the argument


@pytest.fixture
def frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    run = pl.DataFrame(
        {"query": ["q1", "q1", "q2"], "doc": ["d1", "d2", "d3"], "score": [3.0, 2.0, 1.0]}
    )
    qrels = pl.DataFrame(
        {"query": ["q1", "q1", "q2"], "doc": ["d1", "d2", "d3"], "relevance": [1, 2, 1]}
    )
    return run, qrels


ENGINES = ["polars", "duckdb"]


@pytest.mark.parametrize("engine", ENGINES)
def test_err_max_grade_too_large(frames, engine):
    run, qrels = frames
    with pytest.raises(pr.PolarsRankError, match=r"max_grade must be a positive number up to 1023"):
        pr.evaluate(run, qrels, ["ERR(max_grade=2000)"], engine=engine)
    with pytest.raises(pr.PolarsRankError, match="max_grade"):
        pr.err(5, max_grade=2000)
    assert pr.evaluate(run, qrels, ["ERR(max_grade=1023)"], engine=engine).item() >= 0


@pytest.mark.parametrize("engine", ENGINES)
def test_max_rank_and_cutoffs_too_large(frames, engine):
    run, qrels = frames
    for value in (2**32, 2**70):
        with pytest.raises(
            pr.PolarsRankError, match=f"max_rank must be at most 2147483647, got {value}"
        ):
            pr.evaluate(run, qrels, ["AP"], max_rank=value, engine=engine)
        with pytest.raises(pr.PolarsRankError, match=f"cutoff {value} is above the largest"):
            pr.evaluate(run, qrels, [f"P@{value}"], engine=engine)
    largest = 2**31 - 1
    ok = pr.evaluate(run, qrels, ["AP", f"RR@{largest}"], max_rank=largest, engine=engine)
    assert ok.row(0) == (1.0, 1.0)


def test_max_rank_too_large_on_the_command_line(tmp_path, plain, capsys):
    code, _, err = _run(capsys, "evaluate", "--max-rank", 2**40, plain["qrels"], plain["run"])
    assert code == 2 and "--max-rank must be at most 2147483647" in err


@pytest.mark.parametrize("engine", ENGINES)
def test_numpy_numbers_are_numbers(frames, engine):
    import numpy as np

    run, qrels = frames
    expected = pr.evaluate(run, qrels, ["AP", "P@2"], relevance_level=2, max_rank=2, engine=engine)
    for level, depth in [(np.int64(2), np.int64(2)), (np.float64(2.0), np.int32(2))]:
        got = pr.evaluate(
            run, qrels, ["AP", "P@2"], relevance_level=level, max_rank=depth, engine=engine
        )
        assert got.equals(expected)
    assert "2" in pr.to_sql(["AP"], "duckdb", "r", "q", relevance_level=np.int64(2))
    with pytest.raises(pr.PolarsRankError, match="relevance_level must be a finite number"):
        pr.evaluate(run, qrels, ["AP"], relevance_level=np.float64("nan"), engine=engine)


@pytest.mark.parametrize("metrics", [None, 5])
def test_metrics_must_be_names(frames, metrics):
    run, qrels = frames
    with pytest.raises(pr.PolarsRankError, match="metrics must be a metric name or a list"):
        pr.evaluate(run, qrels, metrics)
    with pytest.raises(pr.PolarsRankError, match="metrics must be a metric name or a list"):
        pr.evaluate_runs({"a": run}, qrels, metrics)


def test_evaluate_runs_needs_names(frames):
    run, qrels = frames
    for runs, why in [
        ([run, run], "item 0 is a DataFrame, not a .name, run. pair"),
        (run, "got a DataFrame"),
        ([("a", run), (run, run)], "item 1 is a pair of tables"),
        ([("a", run, "x")], "item 0 is a tuple, not a .name, run. pair"),
        ("bm25", "got a str"),
    ]:
        with pytest.raises(pr.PolarsRankError, match="runs must map run names to runs.*" + why):
            pr.evaluate_runs(runs, qrels, ["AP"])
    pairs = pr.evaluate_runs([("a", run), ("b", run)], qrels, ["AP"])
    assert pairs["run"].to_list() == ["a", "b"]


def test_reading_a_directory(tmp_path):
    for read in (read_trec_run, read_trec_qrels):
        with pytest.raises(pr.PolarsRankError, match=f"{tmp_path}: is a directory, not a file"):
            read(tmp_path)


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_pandas_object_column_with_mixed_types(frames, which):
    import pandas  # noqa: F401  (a dev dependency)

    run, qrels = frames
    inputs = {"run": run.to_pandas(), "qrels": qrels.to_pandas()}
    mixed = inputs[which].astype({"doc": object})
    mixed.loc[1, "doc"] = 7
    inputs[which] = mixed
    with pytest.raises(
        pr.PolarsRankError,
        match=rf"{which}: the pandas column 'doc' \(dtype object\) mixes types \(int, str\)",
    ):
        pr.evaluate(inputs["run"], inputs["qrels"], ["AP"])


@pytest.mark.parametrize("engine", ENGINES)
def test_text_labels_in_classification(engine, tmp_path, capsys):
    data = pl.DataFrame({"label": ["yes", "no", "yes"], "score": [0.9, 0.1, 0.4]})
    label_error = r"label column 'label' must hold 0/1 \(or booleans\), got String values"
    with pytest.raises(pr.PolarsRankError, match=label_error):
        pr.evaluate_classification(data, ["AUC"], label="label", score="score", engine=engine)
    scores = data.with_columns(label=pl.Series([1, 0, 1]), score=pl.lit("high"))
    with pytest.raises(pr.PolarsRankError, match="score column 'score' must hold numbers"):
        pr.evaluate_classification(scores, ["AUC"], label="label", score="score", engine=engine)
    path = tmp_path / "data.csv"
    data.write_csv(path)
    for metrics in ([], ["-m", "AUC"]):
        code, _, err = _run(
            capsys, "classify", *metrics, "--label", "label", "--score", "score", path
        )
        assert code == 2 and "must hold 0/1 (or booleans)" in err
        assert "InvalidOperationError" not in err


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("P(rel=nan)@2", "parameter rel needs a finite number"),
        ("P(rel=inf)@2", "parameter rel needs a finite number"),
        ("SetF(beta=nan)", "nan is not a finite number"),
        ("SetF(beta=-inf)", "-inf is not a finite number"),
        ("RBP(p=nan)", "nan is not a finite number"),
        ("ERR(max_grade=inf)@5", "inf is not a finite number"),
        ("utility(coefficients=[1,nan,0,0])", "nan is not a finite number"),
        ("nDCG(gains={1:inf})@5", "inf is not a finite number"),
        ("P(k=5)@10", r"two cutoffs, @10 and k=5: give one"),
        ("P(cutoff=3,k=4)", "parameter 'k' is given twice"),
        ("P(rel=1,rel=2)@5", "parameter 'rel' is given twice"),
        ("IPrec(recall=0.3)@0.5", r"two cutoffs, @0.5 and recall=0.3"),
        ("11pt_avg(points=[5])", r"points must be recall levels in \[0, 1\]"),
        ("11pt_avg(points=[0.5,-0.1])", r"points must be recall levels in \[0, 1\]"),
    ],
)
def test_nan_inf_and_conflicting_parameters_are_refused(frames, name, why):
    run, qrels = frames
    with pytest.raises(pr.PolarsRankError, match=why):
        pr.parse_metric(name)
    with pytest.raises(pr.PolarsRankError, match=why):
        pr.evaluate(run, qrels, [name])


def test_equal_cutoffs_are_one(frames):
    run, qrels = frames
    assert pr.parse_metric("P(k=10)@10").k == 10
    assert pr.evaluate(run, qrels, ["P(k=2)"]).item() == pr.evaluate(run, qrels, ["P@2"]).item()


def test_trec_eval_keeps_any_eleven_points(plain, capsys):
    """The trec_eval drop-in takes 11pt_avg points outside [0, 1] as trec_eval does (a point
    above 1 counts 0); only metric names refuse them."""
    code, out, _ = _run(capsys, "trec_eval", "-m", "11pt_avg.0.5,5", plain["qrels"], plain["run"])
    assert code == 0 and out.startswith("11pt_avg_0.5,5")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("grade", [float("inf"), -float("inf")])
def test_infinite_grades_are_refused(frames, engine, grade):
    run, qrels = frames
    qrels = qrels.with_columns(
        pl.when(pl.col("doc") == "d2")
        .then(grade)
        .otherwise(pl.col("relevance").cast(pl.Float64))
        .alias("relevance")
    )
    with pytest.raises(
        pr.PolarsRankError,
        match=r"qrels column 'relevance' has 1 infinite grade\(s\); first at row 1 "
        r"\(query 'q1', doc 'd2'\)",
    ):
        pr.evaluate(run, qrels, ["nDCG"], engine=engine)


def test_infinite_grades_in_a_qrels_file(tmp_path, plain, capsys):
    qrels = _write(tmp_path / "qrels.txt", QRELS.replace("q1 0 d2 1", "q1 0 d2 inf"))
    code, _, err = _run(capsys, "evaluate", "-m", "nDCG", qrels, plain["run"])
    assert code == 2 and "has 1 infinite grade(s)" in err


def test_classification_threshold_nan():
    """(A guard: the library refused these already; the command line's --threshold is
    tested above.)"""
    data = pl.DataFrame({"label": [1, 0, 1], "score": [0.9, 0.1, 0.4]})
    for threshold in (float("nan"), float("inf")):
        with pytest.raises(pr.PolarsRankError, match="threshold must be a finite number"):
            pr.evaluate_classification(data, ["F1"], threshold=threshold)
    with pytest.raises(pr.PolarsRankError, match="bad value 'nan' for threshold"):
        pr.evaluate_classification(data, ["F1(threshold=nan)"])


def test_trec_eval_takes_any_depth(plain, capsys):
    """trec_eval's -M takes any depth: one beyond evaluate's largest keeps every document."""
    argv = ["trec_eval", "-m", "map", "-m", "num_ret", plain["qrels"], plain["run"]]
    code, out, err = _run(capsys, *argv[:1], "-M", "99999999999", *argv[1:])
    assert (code, out) == (0, _run(capsys, *argv)[1]), err
