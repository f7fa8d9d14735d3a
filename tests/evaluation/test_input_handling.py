"""The edges a new user hits, each with its documented outcome (the README's "Input handling"
table): the warning about run queries without judgments, empty inputs, run and judgments
swapped, errors worded for the command line, ids read as text, pandas and pyarrow inputs."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import polars_rank as pr
import polars_rank.classification as cls
from polars_rank import PolarsRankError
from polars_rank.cli import main
from polars_rank.io import write_trec_run
from tests.support.strategies import assert_same

RUN = pl.DataFrame(
    {
        "query": ["q1", "q1", "q1", "q2", "q2", "q9"],
        "doc": ["a", "b", "c", "a", "d", "x"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0, 5.0],
    }
)
QRELS = pl.DataFrame(
    {"query": ["q1", "q1", "q2", "q3"], "doc": ["b", "c", "d", "e"], "relevance": [1, 2, 1, 1]}
)
METRICS = ["nDCG@10", "AP", "P@2", "NumRet"]
HERE = str(Path(__file__).resolve())


def _cli(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _write_trec(tmp_path: Path, run: pl.DataFrame, qrels: pl.DataFrame) -> tuple[Path, Path]:
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.iter_rows()))
    write_trec_run(run, run_path, run_id="r")
    return qrels_path, run_path


# ------------------------------------------------------------------------------------------
# the warning about run queries without judgments


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_left_out_warning_every_time_at_the_callers_line(engine):
    """q9 has no judgments. The warning points at the line that called evaluate (not inside
    Polars), and repeats for a repeated call from the same line under the default filter."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(3):
            pr.evaluate(RUN, QRELS, ["AP"], engine=engine)  # the line the warnings point at
    line = _line_of('pr.evaluate(RUN, QRELS, ["AP"], engine=engine)  # the line')
    assert [(w.filename, w.lineno) for w in caught] == [(HERE, line)] * 3
    assert [str(w.message) for w in caught] == [
        "1 query in the run has no judgments and was not evaluated"
    ] * 3


def test_left_out_warning_of_a_lazy_evaluation_points_at_evaluate():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        lazy = pr.evaluate(RUN.lazy(), QRELS.lazy(), ["AP"])  # the plan is built here
        lazy.collect()
    line = _line_of("lazy = pr.evaluate(RUN.lazy(), QRELS.lazy()")
    assert [(w.filename, w.lineno) for w in caught] == [(HERE, line)]


def test_left_out_warning_names_the_run_and_the_count():
    two_left_out = pl.concat([RUN, RUN.filter(query="q9").with_columns(query=pl.lit("q8"))])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        pr.evaluate_runs({"bm25": RUN, "dense": two_left_out}, QRELS, ["AP"])
    assert [str(w.message) for w in caught] == [
        "run 'bm25': 1 query in the run has no judgments and was not evaluated",
        "run 'dense': 2 queries in the run have no judgments and were not evaluated",
    ]
    assert {(w.filename, w.lineno) for w in caught} == {
        (HERE, _line_of('pr.evaluate_runs({"bm25": RUN, "dense": two_left_out}'))
    }


def test_left_out_warning_from_code_executed_from_a_string_never_raises():
    """Code executed from a string in a module whose loader gives another (shorter) source:
    Python's warn_explicit indexes that source at the string's line number and raises
    IndexError; the warning is given without its source line instead."""
    import importlib.machinery
    import types

    host = types.ModuleType("host")
    host.__loader__ = importlib.machinery.SourceFileLoader("host", HERE)
    host.__dict__.update(pr=pr, RUN=RUN, QRELS=QRELS)
    code = "\n" * 5000 + "pr.evaluate(RUN, QRELS, ['AP'])\n"  # line 5001, past this file
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        exec(compile(code, "<string>", "exec"), host.__dict__)
    assert [(w.filename, w.lineno, str(w.message)) for w in caught] == [
        ("<string>", 5001, "1 query in the run has no judgments and was not evaluated")
    ]
    with warnings.catch_warnings():  # a filter that makes it an error still raises it
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="has no judgments"):
            exec(compile(code, "<string>", "exec"), host.__dict__)


def _line_of(text: str) -> int:
    lines = Path(HERE).read_text().splitlines()
    return 1 + next(i for i, line in enumerate(lines) if text in line and "_line_of" not in line)


# ------------------------------------------------------------------------------------------
# empty inputs


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_empty_run_or_judgments_is_an_error(engine):
    with pytest.raises(PolarsRankError, match=r"^run is empty \(no rows\): nothing to evaluate"):
        pr.evaluate(RUN.clear(), QRELS, ["AP"], engine=engine)
    with pytest.raises(PolarsRankError, match=r"^qrels is empty \(no rows\)"):
        pr.evaluate(RUN, QRELS.clear(), ["AP"], engine=engine)
    with pytest.raises(PolarsRankError, match=r"^qrels is empty"):
        pr.evaluate(RUN.lazy(), QRELS.clear().lazy(), ["AP"], engine=engine)


def test_empty_files_on_the_command_line(tmp_path, capsys):
    qrels_path, run_path = _write_trec(tmp_path, RUN, QRELS)
    empty = tmp_path / "empty.run"
    empty.write_text("# nothing but a comment\n\n")
    code, out, err = _cli(capsys, "evaluate", qrels_path, empty, "-m", "AP")
    assert (code, out) == (2, "")
    assert err == (
        f"polars-rank: error: {empty}: the run is empty: the file has no lines (besides blank "
        "lines and comments)\n"
    )
    RUN.clear().write_parquet(tmp_path / "empty.parquet")
    code, _, err = _cli(capsys, "evaluate", qrels_path, tmp_path / "empty.parquet")
    assert code == 2 and "empty.parquet: the run is empty: the file has no rows" in err
    empty_qrels = tmp_path / "empty.qrels"
    empty_qrels.write_text("")
    code, _, err = _cli(capsys, "evaluate", empty_qrels, run_path)
    assert code == 2 and "empty.qrels: no judgments: the file has no lines" in err


# ------------------------------------------------------------------------------------------
# run and judgments swapped


def test_swapped_frames_get_a_hint():
    with pytest.raises(PolarsRankError, match=r"run and qrels swapped\?") as info:
        pr.evaluate(QRELS, RUN, ["AP"])
    assert str(info.value).startswith("run has neither a score column 'score' nor a rank column")
    # a run read as a table without a header: the "Q0" field becomes a column name
    headless = pl.DataFrame({"q1": ["q1"], "Q0": ["Q0"], "d1": ["d1"], "1": [1], "2.5": [2.5]})
    with pytest.raises(PolarsRankError, match=r"qrels looks like a run: are run and qrels swap"):
        pr.evaluate(RUN, headless, ["AP"])
    six = pl.DataFrame({f"column_{i}": ["x"] for i in range(1, 7)})  # a run's six fields
    with pytest.raises(PolarsRankError, match=r"qrels looks like a run"):
        pr.evaluate(RUN, six.rename({"column_1": "query", "column_3": "doc"}), ["AP"])
    # nothing swapped (a run whose score column has another name): no hint
    with pytest.raises(PolarsRankError) as info:
        pr.evaluate(RUN.rename({"score": "sim"}).with_columns(run_id=pl.lit("r")), QRELS, ["AP"])
    assert "swapped" not in str(info.value)


@pytest.mark.parametrize("swap", ["run as qrels", "qrels as run"])
def test_swapped_trec_files_get_a_hint(tmp_path, capsys, swap):
    qrels_path, run_path = _write_trec(tmp_path, RUN, QRELS)
    code, out, err = _cli(capsys, "evaluate", run_path, qrels_path)
    assert (code, out) == (2, "")
    wrong = run_path if swap == "run as qrels" else qrels_path
    if swap == "qrels as run":  # the judgments are right: the run given is judgments
        code, _, err = _cli(capsys, "evaluate", qrels_path, qrels_path)
    assert f"{wrong}: given as " in err
    assert "are QRELS and RUN swapped? Judgments come first: QRELS RUN [RUN ...]" in err


def test_swapped_parquet_files_get_a_hint(tmp_path, capsys):
    RUN.write_parquet(tmp_path / "run.parquet")
    QRELS.write_parquet(tmp_path / "qrels.parquet")
    code, _, err = _cli(capsys, "evaluate", tmp_path / "run.parquet", tmp_path / "qrels.parquet")
    assert code == 2
    assert "are run and qrels swapped?" in err


# ------------------------------------------------------------------------------------------
# the command line names its own options


def test_cli_errors_name_cli_options(tmp_path, capsys):
    qrels_path, _ = _write_trec(tmp_path, RUN, QRELS)
    pl.concat([RUN, RUN.head(1)]).write_parquet(tmp_path / "dup.parquet")
    code, _, err = _cli(capsys, "evaluate", qrels_path, tmp_path / "dup.parquet", "-m", "AP")
    assert code == 2
    assert "pass --duplicates first or --duplicates max to keep one row per pair" in err
    assert "duplicates=" not in err

    RUN.rename({"query": "qid"}).write_parquet(tmp_path / "qid.parquet")
    code, _, err = _cli(capsys, "evaluate", qrels_path, tmp_path / "qid.parquet", "-m", "AP")
    assert code == 2
    assert "run has no column 'query'" in err
    assert "(name the query column with --query-col qid)" in err

    code, _, err = _cli(capsys, "evaluate", qrels_path, tmp_path / "qid.parquet", "-m", "ndgc@10")
    assert err.endswith("did you mean nDCG@10? (every name: `polars-rank metrics`)\n")

    # in Python, the same errors name keyword arguments
    with pytest.raises(PolarsRankError, match=r"pass duplicates='first' or duplicates='max'"):
        pr.evaluate(pl.concat([RUN, RUN.head(1)]), QRELS, ["AP"])
    with pytest.raises(PolarsRankError, match=r"name the query column with query='qid'"):
        pr.evaluate(RUN.rename({"query": "qid"}), QRELS, ["AP"])


def test_ids_as_text(tmp_path, capsys):
    """Integer ids in a Parquet run against a TREC file's text ids: an error that names
    --ids-as-text, which reads every input's ids as text."""
    docs = {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "x": 9}
    numeric = RUN.with_columns(
        pl.col("query").str.slice(1).cast(pl.Int64), pl.col("doc").replace_strict(docs)
    )
    qrels = QRELS.with_columns(
        pl.col("query").str.slice(1), pl.col("doc").replace_strict(docs).cast(pl.String)
    )
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.iter_rows()))
    numeric.write_parquet(tmp_path / "run.parquet")
    args = ["evaluate", qrels_path, tmp_path / "run.parquet", "-m", "AP,NumRet", "-o", "csv"]
    code, _, err = _cli(capsys, *args)
    assert code == 2
    assert "run column 'query' is Int64 but qrels column 'query' is String" in err
    assert "(--ids-as-text reads the ids of every input as text)" in err
    code, out, err = _cli(capsys, *args, "--ids-as-text")
    assert code == 0, err
    expected = pr.evaluate(
        numeric.with_columns(pl.col("query", "doc").cast(pl.String)), qrels, ["AP", "NumRet"]
    )
    assert out.splitlines()[1].split(",")[1:] == [str(expected["AP"][0]), "5"]


# ------------------------------------------------------------------------------------------
# pandas DataFrames and pyarrow Tables


@pytest.mark.parametrize("convert", [lambda f: f.to_pandas(), lambda f: f.to_arrow()])
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_pandas_and_pyarrow_inputs(convert, engine):
    expected = pr.evaluate(RUN, QRELS, METRICS, per_query=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pr.evaluate(convert(RUN), convert(QRELS), METRICS, per_query=True, engine=engine)
        runs = pr.evaluate_runs({"a": convert(RUN)}, convert(QRELS), METRICS)
        judged = pr.judge(convert(RUN), convert(QRELS))
    assert isinstance(got, pl.DataFrame)
    assert_same(got, expected)
    assert_same(runs.drop("run"), pr.evaluate(RUN, QRELS, METRICS))
    assert judged.equals(pr.judge(RUN, QRELS))


@pytest.mark.parametrize("convert", [lambda f: f.to_pandas(), lambda f: f.to_arrow()])
def test_pandas_and_pyarrow_everywhere_else(convert, tmp_path):
    clicks = pl.DataFrame(
        {"user": [1, 1, 1, 2, 2], "clicked": [1, 0, 1, 0, 1], "p": [0.9, 0.4, 0.35, 0.8, 0.3]}
    )
    for engine in ("polars", "duckdb"):
        curve = cls.roc_curve(convert(clicks), "clicked", "p", by="user", engine=engine)
        assert curve.equals(cls.roc_curve(clicks, "clicked", "p", by="user"))
        gauc = cls.group_auc(convert(clicks), "user", "clicked", "p", engine=engine)
        assert gauc.equals(cls.group_auc(clicks, "user", "clicked", "p"))
    per_query = pl.DataFrame(
        {"run": ["a", "a", "b", "b"], "query": ["q1", "q2"] * 2, "AP": [0.1, 0.5, 0.3, 0.6]}
    )
    compared = pr.compare_per_query(convert(per_query), baseline="a", permutations=20)
    assert compared.equals(pr.compare_per_query(per_query, baseline="a", permutations=20))
    write_trec_run(convert(RUN), tmp_path / "run.txt")
    assert pr.read_trec_run(tmp_path / "run.txt").select("query", "doc", "score").equals(RUN)


def test_conversion_shares_the_buffers():
    """pl.from_arrow and pl.from_pandas keep a float column's buffer: no copy."""
    table = RUN.to_arrow()
    frame = pd.DataFrame({"score": [0.5, 1.5, 2.5]})

    def address(array) -> int:
        return array.__array_interface__["data"][0]

    from polars_rank.core.frames import as_polars

    assert (
        address(as_polars(table)["score"].to_numpy())
        == table["score"].chunks[0].buffers()[1].address
    )
    assert address(as_polars(frame)["score"].to_numpy()) == address(frame["score"].to_numpy())
    assert isinstance(as_polars(pa.record_batch(table.to_batches()[0])), pl.DataFrame)


# ------------------------------------------------------------------------------------------
# the order of the input rows


ORDER_METRICS = [
    "nDCG", "nDCG@5", "nDCG(gain=exponential)@10", "ndcg_rel", "Rndcg", "AP", "AP@10", "RR",
    "P@5", "R@10", "bpref", "Rprec", "infAP", "ERR@10", "RBP(p=0.8)", "11pt_avg", "gm_map",
]  # fmt: skip


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_row_order_does_not_change_a_bit(engine):
    """The same rows in another order give the same numbers to the last bit, per query and in
    the summary, and so does the streaming engine on a lazy input: every sum runs in an order
    fixed by the data (rank order; the ideal ranking's order for IDCG), never in row order.
    40 queries with up to 30 judged documents each, many of them not retrieved (their order
    is the one the sum would otherwise follow), scores with ties, grades -1..4."""
    import random

    rng = random.Random(1)
    rows, judgments = [], []
    for q in range(40):
        for d in rng.sample(range(60), rng.randint(1, 30)):
            rows.append((q, d, rng.choice([-0.5, 0.0, 0.5, 1.0, 1.5, 2.0])))
        for d in rng.sample(range(60), rng.randint(1, 30)):
            judgments.append((q, d, rng.choice([-1, 0, 1, 2, 3, 4])))
    run = pl.DataFrame(rows, schema=["query", "doc", "score"], orient="row")
    qrels = pl.DataFrame(judgments, schema=["query", "doc", "relevance"], orient="row")
    expected = pr.evaluate(run, qrels, ORDER_METRICS, per_query=True, engine=engine)
    summary = pr.evaluate(run, qrels, ORDER_METRICS, engine=engine)
    for seed in range(4):
        shuffled_run = run.sample(fraction=1.0, shuffle=True, seed=seed)
        shuffled_qrels = qrels.sample(fraction=1.0, shuffle=True, seed=seed + 10)
        got = pr.evaluate(
            shuffled_run, shuffled_qrels, ORDER_METRICS, per_query=True, engine=engine
        )
        assert got.equals(expected), [c for c in got.columns if not got[c].equals(expected[c])]
        assert pr.evaluate(shuffled_run, shuffled_qrels, ORDER_METRICS, engine=engine).equals(
            summary
        )
    if engine == "polars":
        lazy = pr.evaluate(run.lazy(), qrels.lazy(), ORDER_METRICS, per_query=True)
        assert lazy.collect(engine="streaming").equals(expected)
