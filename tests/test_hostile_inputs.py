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
