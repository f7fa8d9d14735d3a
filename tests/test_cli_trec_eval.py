"""``polars-rank trec_eval`` against trec_eval 10.0's own expected outputs: ``out.test`` line
for line, and the lines of every supported measure of the ``-q`` outputs, in order."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from polars_rank.cli import main
from polars_rank.cli.trec_eval import select_measures, supported_measures


def _run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main(["trec_eval", *(str(a) for a in argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _supported_lines(expected: Path, produced: str) -> tuple[list[str], list[str]]:
    """The expected lines whose measure we print, and our lines (both in file order)."""
    ours = produced.splitlines()
    names = {line.split("\t")[0].strip() for line in ours}
    wanted = [
        line
        for line in expected.read_text().splitlines()
        if line.strip() and line.split("\t")[0].strip() in names
    ]
    return wanted, ours


def test_default_output_equals_out_test(trec_dir, capsys):
    code, out, err = _run(capsys, trec_dir / "qrels.test", trec_dir / "results.test")
    assert code == 0, err
    assert out == (trec_dir / "out.test").read_text()
    assert out.splitlines()[0] == "runid                 \tall\tSTANDARD"


# expected file -> trec_eval arguments (as in the conformance folder's README)
CASES = {
    "out.test.a": ["-m", "all_trec", "qrels.test", "results.test"],
    "out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    "out.test.aqc": ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"],
    "out.test.aqcM": ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"],
    "out.test.aql": ["-m", "all_trec", "-q", "-l2", "qrels.rel_level", "results.test"],
    "out.test.meas_params": [
        "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
        "-m", "11pt_avg", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20",
        "qrels.test", "results.test",
    ],
}  # fmt: skip


@pytest.mark.parametrize("expected_name", sorted(CASES))
def test_supported_lines_match_in_order(trec_dir, capsys, expected_name):
    argv = [
        a if not a.startswith(("qrels", "results")) else trec_dir / a for a in CASES[expected_name]
    ]
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    wanted, ours = _supported_lines(trec_dir / expected_name, out)
    if expected_name == "out.test.meas_params":
        # 11pt_avg is asked for with its default points here, trec_eval's file used custom ones
        ours = [line for line in ours if not line.startswith("11pt_avg")]
    assert ours == wanted
    assert len(ours) > 60


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
    everything = {m.name.split("_")[0] for m in select_measures(["all_trec"])}
    assert "infAP" not in everything and "relstring" not in everything
    assert "unj" in supported_measures()


@pytest.mark.parametrize(
    "measure, fragment",
    [("infAP", "not implemented"), ("nope", "unknown"), ("P.5,5", "duplicate"), ("P.", "empty")],
)
def test_measure_errors(trec_dir, capsys, measure, fragment):
    code, out, err = _run(capsys, "-m", measure, trec_dir / "qrels.test", trec_dir / "results.test")
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and fragment in err


def test_missing_run_file(trec_dir, capsys, tmp_path):
    code, _, err = _run(capsys, trec_dir / "qrels.test", tmp_path / "missing")
    assert code == 2
    assert err.strip().endswith("missing: no such file")


def test_run_from_stdin(trec_dir, capsys, monkeypatch):
    data = (trec_dir / "results.test").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, err = _run(capsys, trec_dir / "qrels.test", "-")
    assert code == 0, err
    assert out == (trec_dir / "out.test").read_text()
