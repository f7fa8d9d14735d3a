"""``polars-rank trec_eval`` against trec_eval 10.0: its expected outputs byte for byte, with the
arguments of tests/data/trec_eval/README.md, and its reading rules, errors and exit codes."""

from __future__ import annotations

import io
import math
import shlex
from pathlib import Path

import pytest

from polars_rank.catalog.registry import trec_eval_names
from polars_rank.cli import main
from polars_rank.cli.trec_eval_measures import (
    NICKNAMES,
    TREC_ORDER,
    format_value,
    select_measures,
    supported_measures,
)


def _run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main(["trec_eval", *(str(a) for a in argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _readme_arguments(trec_dir: Path) -> dict[str, list[str]]:
    """expected file -> trec_eval's arguments, read from the README's table."""
    cases = {}
    for line in (trec_dir / "README.md").read_text().splitlines():
        cells = [c.strip().strip("`") for c in line.split("|")]
        if len(cells) == 4 and cells[1].startswith("out.test"):
            cases[cells[1]] = shlex.split(cells[2])
    return cases


EXPECTED = [
    "out.test",
    "out.test.a",
    "out.test.aq",
    "out.test.aqc",
    "out.test.aqcM",
    "out.test.aql",
    "out.test.meas_params",
]


@pytest.mark.parametrize("expected_name", EXPECTED)
def test_output_is_trec_eval_byte_for_byte(trec_dir, capsys, expected_name):
    arguments = _readme_arguments(trec_dir)[expected_name]
    argv = [str(trec_dir / a) if a.startswith(("qrels", "results")) else a for a in arguments]
    code, out, err = _run(capsys, *argv)
    assert (code, err) == (0, "")
    assert out == (trec_dir / expected_name).read_text()


def test_readme_lists_every_expected_file(trec_dir):
    assert sorted(_readme_arguments(trec_dir)) == sorted(EXPECTED)


def test_per_query_block_structure(trec_dir, capsys):
    code, out, _ = _run(capsys, "-q", trec_dir / "qrels.test", trec_dir / "results.test")
    assert code == 0
    queries = [line.split("\t")[1] for line in out.splitlines()]
    assert queries == ["301"] * 27 + ["302"] * 27 + ["303"] * 27 + ["all"] * 30
    per_query_names = {line.split("\t")[0].strip() for line in out.splitlines()[:81]}
    assert not per_query_names & {"runid", "num_q", "gm_map"}


def test_nosummary(trec_dir, capsys):
    code, out, _ = _run(
        capsys, "-q", "-n", "-m", "map", trec_dir / "qrels.test", trec_dir / "results.test"
    )
    assert code == 0
    assert [line.split("\t")[1] for line in out.splitlines()] == ["301", "302", "303"]


def test_run_from_stdin(trec_dir, capsys, monkeypatch):
    data = (trec_dir / "results.test").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, err = _run(capsys, trec_dir / "qrels.test", "-")
    assert code == 0, err
    assert out == (trec_dir / "out.test").read_text()


# --------------------------------------------------------------------------------------------
# measures: selection, names, the registry behind them


def test_measure_selection():
    official = [m.name for m in select_measures(None)]
    assert official[:10] == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
        "bpref", "recip_rank",
    ]  # fmt: skip
    assert official[-9:] == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert [m.name for m in select_measures(["official"])] == official
    assert [m.name for m in select_measures(["P.10,5", "map", "ndcg_cut.3"])] == [
        "map", "P_5", "P_10", "ndcg_cut_3",
    ]  # fmt: skip
    assert [m.name for m in select_measures(["iprec_at_recall..5"])] == ["iprec_at_recall_0.50"]
    assert [m.name for m in select_measures(["set_F.0.5"])] == ["set_F_0.5"]
    # the first -m with parameters wins; parameters of a measure without any are ignored
    assert [m.name for m in select_measures(["P.5", "P.10", "map.3"])] == ["map", "P_5"]
    # double cutoffs print with %3.2f in a buffer of strlen(name) + 10 bytes
    assert [m.name for m in select_measures(["Rprec_mult.123456.5"])] == ["Rprec_mult_123456.5"]


def test_every_trec_eval_measure_of_the_table_is_supported_or_named():
    """Every measure of trec_eval's table is computed, except those that need judgment formats
    other than qrels (prefs, qrels_jg); all_trec, official and set are complete."""
    missing = [name for name in TREC_ORDER if name not in supported_measures()]
    assert all(n.startswith("prefs_") or n.endswith("_avgjg") for n in missing), missing
    for nickname in ("official", "set", "all_trec"):
        assert set(NICKNAMES[nickname]) <= set(supported_measures())


def test_trec_eval_names_resolve_through_the_registry():
    """Each measure resolves through the registry's TrecEval entries; trec_eval's rbp is the
    registry's trec_rbp (not ir_measures' RBP)."""
    for name, (metric, _) in trec_eval_names().items():
        specs = {m.spec.metric for m in select_measures([name])}
        assert specs == {metric.name}, name
    assert select_measures(["rbp"])[0].spec.metric == "trec_rbp"
    assert select_measures(["rbp_resid"])[0].spec.metric == "trec_rbp_residual"


def test_rbp_is_trec_evals(trec_dir, capsys):
    code, out, _ = _run(capsys, "-m", "rbp", trec_dir / "qrels.test", trec_dir / "results.test")
    assert code == 0
    assert out == "rbp                   \tall\t0.3234\n"  # out.test.a's line


def test_measure_parameters_reach_the_metric():
    ndcg = select_measures(["ndcg.1=3,2=9,-2=0.5"])[0]
    assert ndcg.name == "ndcg_1=3,2=9,-2=0.5"
    assert dict(ndcg.spec.params)["gains"] == ((1, 3.0), (2, 9.0), (-2, 0.5))
    rbp = select_measures(["rbp.p=0.5,3=1,p=0.8"])[0]
    assert dict(rbp.spec.params) == {"p": 0.8, "gains": ((3, 1.0),)}
    utility = select_measures(["utility.2,-1,0,0.5"], collection_size=7)[0]
    assert dict(utility.spec.params) == {"coefficients": (2, -1, 0, 0.5), "collection_size": 7}
    assert dict(select_measures(["relstring.20.7"])[0].spec.params) == {"length": 20.7}
    points = select_measures(["11pt_avg..5,.25"])[0]
    assert dict(points.spec.params) == {"points": (0.5, 0.25)}  # kept in order, as trec_eval


def test_format_value_prints_nan_as_glibc():
    assert format_value(float("nan"), "float") == "   nan"
    assert format_value(-float("nan"), "float") == "  -nan"
    assert format_value(math.inf, "float") == "   inf"
    assert format_value(-412.66666, "float") == "-412.6667"


def test_rndcg_without_a_positive_ideal_gain_is_nan(trec_dir, capsys):
    """Rndcg records no value when no grade has a positive gain: 0/0, which trec_eval prints as
    -nan (x86's 0/0 has its sign bit set; so does Polars')."""
    code, out, _ = _run(
        capsys, "-m", "Rndcg.1=0", trec_dir / "qrels.test", trec_dir / "results.test"
    )
    assert code == 0
    assert out == "Rndcg_1=0             \tall\t  -nan\n"


# --------------------------------------------------------------------------------------------
# reading the files as trec_eval reads them


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 a 1\n"
RUN = "q1 Q0 a 1 3.0 sys\nq1 Q0 b 2 2.0 sys\nq1 Q0 x 3 1.0 sys\nq2 Q0 z 1 1.0 sys\n"


@pytest.mark.parametrize(
    "line, found",
    [("q1 0 d1 1 extra", 5), ("q1 0 d1", 3), ("", 0), ("q1 Q0 d1 1 2.5 run", 6)],
)
def test_a_qrels_line_without_exactly_4_fields_is_malformed(tmp_path, capsys, line, found):
    qrels = _write(tmp_path, "qrels", QRELS + line + "\nq2 0 b 1\n")
    code, out, err = _run(capsys, qrels, _write(tmp_path, "run", RUN))
    assert (code, out) == (2, "")
    assert f"{qrels}, line 5: malformed line" in err
    assert f"found {found}" in err


def test_a_run_given_as_judgments_is_an_error(trec_dir, capsys):
    """Today's trap: a run in the judgments' place printed map 0.5840 and exited 0."""
    run = trec_dir / "results.test"
    code, out, err = _run(capsys, run, run)
    assert (code, out) == (2, "")
    assert f"{run}, line 1: malformed line" in err and "a run line?" in err


def test_judgments_given_as_the_run_are_an_error(trec_dir, capsys):
    qrels = trec_dir / "qrels.test"
    code, out, err = _run(capsys, qrels, qrels)
    assert (code, out) == (2, "")
    assert "at least 6 fields" in err and "a judgment line?" in err


def test_grades_are_read_as_c_atol(tmp_path, capsys):
    """``1.5`` is grade 1, ``-0.5`` grade 0 (judged non-relevant, not negative), ``2abc`` 2."""
    run = _write(tmp_path, "run", RUN)
    as_atol = _write(tmp_path, "a", "q1 0 a 1.5\nq1 0 b -0.5\nq1 0 c 2abc\nq2 0 a 1.0\n")
    as_int = _write(tmp_path, "b", "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 a 1\n")
    outputs = []
    for qrels in (as_atol, as_int):
        code, out, err = _run(capsys, "-q", "-m", "all_trec", qrels, run)
        assert (code, err) == (0, "")
        outputs.append(out)
    assert outputs[0] == outputs[1]
    assert "relstring             \tq1\t'10-'" in outputs[0]


def test_the_run_rank_field_is_never_read(tmp_path, capsys):
    qrels = _write(tmp_path, "qrels", QRELS)
    plain = _write(tmp_path, "a", RUN)
    odd = _write(tmp_path, "b", RUN.replace(" 1 3.0", " 1.0 3.0").replace(" 2 2.0", " x 2.0"))
    outputs = [_run(capsys, "-q", "-m", "all_trec", qrels, run)[1] for run in (plain, odd)]
    assert outputs[0] == outputs[1] and "map" in outputs[0]


def test_comment_lines_are_read_as_trec_eval_reads_them(tmp_path, capsys):
    """A '#' line is skipped one at a time: the line after it is data, so of two comment lines
    the second is a judgment (of query '#' here) or a malformed line."""
    run = _write(tmp_path, "run", RUN)
    one = _write(tmp_path, "one", "# judged\n" + QRELS)
    assert _run(capsys, "-m", "num_q", one, run)[1] == "num_q                 \tall\t2\n"
    two = _write(tmp_path, "two", "# judged by\n# two people\n" + QRELS)
    code, _, err = _run(capsys, two, run)
    assert code == 2 and "line 2: malformed line" in err
    four_words = _write(tmp_path, "four", "# a\n# b c d\n" + QRELS)
    code, _, err = _run(capsys, four_words, run)
    assert code == 4 and "judged query '#'" in err  # a judgment of query '#', not in the run


def test_run_blank_and_comment_lines_are_skipped(tmp_path, capsys):
    qrels = _write(tmp_path, "qrels", QRELS)
    plain = _run(capsys, qrels, _write(tmp_path, "a", RUN))[1]
    spaced = _write(tmp_path, "b", "\n  # header\n\t\n" + RUN.replace("\n", "\r\n"))
    assert _run(capsys, qrels, spaced)[1] == plain


def test_runid_is_the_last_lines(tmp_path, capsys):
    qrels = _write(tmp_path, "qrels", QRELS)
    run = _write(tmp_path, "run", RUN.replace("q2 Q0 z 1 1.0 sys", "q2 Q0 z 1 1.0 other"))
    assert _run(capsys, "-m", "runid", qrels, run)[1] == "runid                 \tall\tother\n"


def test_scores_are_read_as_c_atof(tmp_path, capsys):
    qrels = _write(tmp_path, "qrels", QRELS)
    plain = _run(capsys, "-q", qrels, _write(tmp_path, "a", RUN))[1]
    odd = RUN.replace("3.0 sys", "3abc sys").replace("2.0 sys", "0x1p1 sys")
    assert _run(capsys, "-q", qrels, _write(tmp_path, "b", odd))[1] == plain
    code, _, err = _run(capsys, qrels, _write(tmp_path, "c", RUN.replace("3.0", "nan")))
    assert code == 2 and "line 1" in err and "NaN" in err


# --------------------------------------------------------------------------------------------
# what trec_eval refuses to evaluate, and exit codes


def test_a_judged_query_missing_from_the_run_stops_without_c(tmp_path, capsys):
    qrels = _write(tmp_path, "qrels", QRELS + "q0 0 a 1\n")
    run = _write(tmp_path, "run", RUN)
    code, out, err = _run(capsys, qrels, run)
    assert (code, out) == (4, "")
    assert "judged query 'q0' is not in the run" in err
    code, out, _ = _run(capsys, "-c", "-q", "-m", "num_q", "-m", "utility.2,-1,-1,0", qrels, run)
    assert code == 0
    # 2·0 − 0 − 1·1 + 0 = −1 on an empty ranking; trec_eval resets it to 0
    assert "utility_2,-1,-1,0     \tq0\t0.0000" in out
    assert "num_q                 \tall\t3\n" in out


def test_run_queries_without_judgments_are_ignored(tmp_path, capsys):
    qrels = _write(tmp_path, "qrels", QRELS)
    plain = _run(capsys, qrels, _write(tmp_path, "a", RUN))[1]
    extra = _write(tmp_path, "b", RUN + "q9 Q0 a 1 1.0 sys\nq9 Q0 a 2 0.5 sys\n")
    assert _run(capsys, qrels, extra) == (0, plain, "")


def test_duplicate_documents(tmp_path, capsys):
    qrels = _write(tmp_path, "qrels", QRELS)
    twice = RUN + "q1 Q0 x 4 0.5 sys\n"  # x again, ranked 4th
    code, out, err = _run(capsys, qrels, _write(tmp_path, "a", twice))
    assert (code, out) == (4, "")
    assert "query 'q1' of the run has document 'x' twice" in err
    # cut off by -M, the second x is never seen (trec_eval checks the first -M documents)
    code, out, err = _run(capsys, "-M", "3", qrels, _write(tmp_path, "b", twice))
    assert (code, err) == (0, "")
    assert out == _run(capsys, "-M", "3", qrels, _write(tmp_path, "c", RUN))[1]
    code, _, err = _run(capsys, _write(tmp_path, "d", QRELS + "q1 0 a 0\n"), qrels.parent / "c")
    assert code == 4 and "query 'q1' of the judgments has document 'a' twice" in err


@pytest.mark.parametrize(
    "measure, code, fragment",
    [
        ("nope", 1, "no trec_eval measure 'nope'"),
        ("P.", 1, "empty parameters"),
        ("P.0", 2, "cutoffs must be positive"),
        ("P.5,5", 2, "duplicate cutoffs"),
        ("ndcg.1", 2, "malformed name=value pair"),
        ("ndcg.-1=2", 2, "level -1"),
        ("ndcg.1=2,1=3", 2, "level 1 is given twice"),
        ("iprec_at_recall.1.5", 2, "outside [0, 1]"),
        ("utility.1,2,3", 4, "exactly 4 coefficients"),
        ("prefs_simp", 4, "preference judgments"),
        ("qrels_jg", 4, "judgment groups"),
    ],
)
def test_measure_errors(trec_dir, capsys, measure, code, fragment):
    got, out, err = _run(capsys, "-m", measure, trec_dir / "qrels.test", trec_dir / "results.test")
    assert (got, out) == (code, "")
    assert len(err.splitlines()) == 1 and fragment in err


def test_usage_errors_exit_1(trec_dir, capsys):
    files = [trec_dir / "qrels.test", trec_dir / "results.test"]
    assert _run(capsys, files[0])[0] == 1
    assert _run(capsys, "--no-such-option", *files)[0] == 1
    assert _run(capsys, *files, files[1])[0] == 1


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["-R", "prefs"], "only the qrels format"),
        (["-T", "tsv"], "only trec_results"),
        (["-M", "-3"], "0 or more"),
        (["-Z", "zscores"], "not supported"),
    ],
)
def test_unsupported_options(trec_dir, capsys, argv, fragment):
    code, out, err = _run(capsys, *argv, trec_dir / "qrels.test", trec_dir / "results.test")
    assert (code, out) == (2, "")
    assert fragment in err


def test_missing_files(trec_dir, capsys, tmp_path):
    code, _, err = _run(capsys, trec_dir / "qrels.test", tmp_path / "missing")
    assert code == 2
    assert err.strip().endswith("missing: no such file")
    code, _, err = _run(capsys, _write(tmp_path, "empty", ""), trec_dir / "results.test")
    assert code == 2 and "empty file" in err


def test_options_are_read_with_atol(trec_dir, capsys):
    """``-l2.7`` is level 2 and ``-M100.9`` depth 100, as trec_eval's atol reads them."""
    files = [trec_dir / "qrels.rel_level", trec_dir / "results.test"]
    assert _run(capsys, "-l2.7", "-M100.9", *files) == _run(capsys, "-l2", "-M100", *files)


def test_judged_only_drops_unjudged_documents_after_the_depth_cut(tmp_path, capsys):
    """-J: run x (unjudged), a (relevant), b (non-relevant), c (relevant): judged only, a is
    first: recip_rank 1 (2nd without -J); with -M 2 first, only x and a are kept, then a."""
    qrels = _write(tmp_path, "qrels", "q1 0 a 1\nq1 0 b 0\nq1 0 c 1\n")
    run = _write(tmp_path, "run", "q1 Q0 x 1 4 s\nq1 Q0 a 2 3 s\nq1 Q0 b 3 2 s\nq1 Q0 c 4 1 s\n")
    measures = ["-m", "recip_rank", "-m", "num_ret", "-m", "num_rel_ret"]
    plain = _run(capsys, *measures, qrels, run)[1].splitlines()
    judged = _run(capsys, "-J", *measures, qrels, run)[1].splitlines()
    cut = _run(capsys, "-J", "-M", "2", *measures, qrels, run)[1].splitlines()
    assert [line.split("\t")[2] for line in plain] == ["4", "2", "0.5000"]
    assert [line.split("\t")[2] for line in judged] == ["3", "2", "1.0000"]
    assert [line.split("\t")[2] for line in cut] == ["1", "1", "1.0000"]


def test_an_empty_ranking_prints_trec_evals_nan(trec_dir, capsys):
    """With -M0 every ranking is empty: iprec_at_recall at recall 0 and 11pt_avg start from
    0/0, which trec_eval prints as -nan; at recall 0.5 the cutoff is above 0 relevant found."""
    code, out, _ = _run(
        capsys,
        "-M0",
        "-m",
        "iprec_at_recall..0,.5",
        "-m",
        "11pt_avg",
        "-m",
        "num_ret",
        trec_dir / "qrels.test",
        trec_dir / "results.test",
    )
    assert code == 0
    assert out.splitlines() == [
        "num_ret               \tall\t0",
        "iprec_at_recall_0.00  \tall\t  -nan",
        "iprec_at_recall_0.50  \tall\t0.0000",
        "11pt_avg              \tall\t  -nan",
    ]


def test_c_with_no_judged_query_in_the_run_evaluates_every_judged_query(tmp_path, capsys):
    """trec_eval -c evaluates each judged query missing from the run as an empty ranking, even
    when the run holds none of them (evaluate refuses an empty run; the drop-in does not)."""
    qrels = _write(tmp_path, "qrels", QRELS)
    run = _write(tmp_path, "run", "q9 Q0 a 1 1.0 sys\n")
    code, out, err = _run(capsys, "-c", "-m", "num_q", "-m", "num_rel", "-m", "map", qrels, run)
    assert (code, err) == (0, "")
    # 2 judged queries, R = 2 + 1 relevant judgments in all, AP = 0 on each empty ranking
    assert out.splitlines() == [
        "num_q                 \tall\t2",
        "num_rel               \tall\t3",
        "map                   \tall\t0.0000",
    ]
    code, out, err = _run(capsys, qrels, run)  # without -c: the first judged query is missing
    assert (code, out) == (4, "")
    assert "judged query 'q1' is not in the run" in err
