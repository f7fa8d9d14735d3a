"""ERR, RBP and the RBP residual: hand-worked cases, ir_measures' documented example, and
ir_measures' own providers on seeded random runs — gdeval for ERR@k (and gdeval.pl itself,
printing 17 digits instead of 5), cwl_eval for binary RBP(p, rel), trectools for graded
RBP(p) and RBP(p)@k and for the residual. Both engines each time."""

from __future__ import annotations

import importlib.resources
import subprocess
import tempfile
import warnings
from pathlib import Path

import duckdb
import ir_measures
import numpy as np
import polars as pl
import pytest

import polars_rank as pr

TOL = 1e-12
ENGINES = ("polars", "duckdb")


def _close(a: float, b: float, tol: float = TOL) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def _per_query(run, qrels, metric: str, engine: str) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # run queries without judgments
        out = pr.evaluate(run, qrels, [metric], per_query=True, engine=engine)
    return {str(q): v for q, v in out.iter_rows()}


# ------------------------------------------------------------------------------------------
# hand-worked


def test_err_hand_worked() -> None:
    """Ranks 1-4 graded 2, unjudged, 4, 1; max grade 4: R(g) = (2^g − 1)/16 → 3/16, 0, 15/16,
    1/16. ERR@4 = 3/16 + 0 + (13/16)(1)(15/16)/3 + (13/16)(1)(1/16)(1/16)/4
                = 0.1875 + 0.25390625 + 0.000793457... = 0.4424502849578857 (13/16·1/16 = 13/256,
    /16 = 13/4096, /4 = 13/16384). ERR@2 = 3/16. With max_grade 5, R(4) = 15/32:
    ERR@3 = 3/32 + (29/32)(15/32)/3."""
    run = pl.DataFrame({"query": ["q"] * 4, "doc": list("abcd"), "score": [4.0, 3, 2, 1]})
    qrels = pl.DataFrame({"query": ["q"] * 3, "doc": ["a", "c", "d"], "relevance": [2, 4, 1]})
    err4 = 3 / 16 + (13 / 16) * (15 / 16) / 3 + (13 / 16) * (1 / 16) * (1 / 16) / 4
    cases = {
        "ERR@4": err4,
        "ERR@2": 3 / 16,
        "ERR(max_grade=5)@3": 3 / 32 + (29 / 32) * (15 / 32) / 3,
    }
    for engine in ENGINES:
        got = pr.evaluate(run, qrels, list(cases), engine=engine).row(0, named=True)
        for name, expected in cases.items():
            assert _close(got[name], expected), (engine, name, got[name], expected)
    judged = pr.judge(run, qrels)
    assert _close(judged.group_by("query").agg(pr.err(4)).item(0, 1), err4)


def test_rbp_and_residual_hand_worked() -> None:
    """p = 0.5, ranks 1-4 graded 2, unjudged, 0, 3; weights (1 − p) p^(r−1) = 1/2, 1/4, 1/8,
    1/16. Graded RBP = 2/2 + 3/16 = 1.1875 (above 1: the grade is the gain). Binary at rel=2:
    1/2 + 1/16 = 0.5625; at rel=3: 1/16. RBP@2 = 1. Residual@3: unjudged rank 2 weighs 1/4,
    + p^3 = 1/8 → 0.375; without a cutoff d = n = 4: 1/4 + 1/16 = 0.3125."""
    run = pl.DataFrame({"query": ["q"] * 4, "doc": list("abcd"), "score": [4.0, 3, 2, 1]})
    qrels = pl.DataFrame({"query": ["q"] * 3, "doc": ["a", "c", "d"], "relevance": [2, 0, 3]})
    cases = {
        "RBP(p=0.5)": 1.1875,
        "RBP(p=0.5,rel=2)": 0.5625,
        "RBP(p=0.5,rel=3)": 1 / 16,
        "RBP(p=0.5)@2": 1.0,
        "RBP_residual(p=0.5)@3": 0.375,
        "RBP_residual(p=0.5)": 0.3125,
    }
    for engine in ENGINES:
        for level in (1, 3):  # the global relevance level never makes RBP binary
            got = pr.evaluate(run, qrels, list(cases), engine=engine, relevance_level=level)
            for name, expected in cases.items():
                assert _close(got[name][0], expected), (engine, level, name, got[name][0])


def test_rbp_default_persistence_is_ir_measures() -> None:
    """RBP without p is ir_measures' RBP: p = 0.8. One relevant document at rank 2:
    0.2 · 0.8 = 0.16."""
    run = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]})
    for engine in ENGINES:
        assert _close(pr.evaluate(run, qrels, ["RBP"], engine=engine)["RBP"][0], 0.16)


@pytest.mark.parametrize("engine", ENGINES)
def test_grade_above_max_grade_is_an_error(engine, tmp_path) -> None:
    """gdeval refuses grades above its maximum: evaluate raises, naming the largest grade and
    the parameter; the expression, which cannot raise, clips (documented)."""
    run = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "relevance": [6, 5]})
    expected = (
        "qrels column 'relevance' has 2 grade(s) above 4, the max_grade of metric 'ERR@10' "
        "(largest grade 6; first at row 0: query 'q', doc 'a'); give the metric max_grade=6 "
        "or more, e.g. 'ERR(max_grade=6)@10', or clip the grades"
    )
    with pytest.raises(pr.PolarsRankError) as caught:
        pr.evaluate(run, qrels, ["ERR@10", "ERR(max_grade=7)@3"], engine=engine)
    assert str(caught.value) == expected
    if engine == "duckdb":  # the SQL checks of tables and Parquet files say the same
        run.write_parquet(tmp_path / "run.parquet")
        qrels.write_parquet(tmp_path / "qrels.parquet")
        with pytest.raises(pr.PolarsRankError) as caught:
            pr.evaluate(
                str(tmp_path / "run.parquet"),
                str(tmp_path / "qrels.parquet"),
                ["ERR@10"],
                engine="duckdb",
            )
        assert str(caught.value) == expected
    ok = pr.evaluate(run, qrels, ["ERR(max_grade=6)@10"], engine=engine).item()
    assert _close(ok, 63 / 64 + (1 / 64) * (31 / 64) / 2)
    clipped = pr.judge(run, qrels).group_by("query").agg(pr.err(10)).item(0, 1)
    assert _close(clipped, 15 / 16 + (1 / 16) * (15 / 16) / 2)  # both grades clipped to 4


def test_bad_parameters_are_errors() -> None:
    for name in ("RBP(p=1)", "RBP(p=0)", "ERR(max_grade=0)@5", "RBP_residual(p=-0.5)"):
        with pytest.raises(pr.PolarsRankError, match="bad value"):
            pr.parse_metric(name)
    with pytest.raises(pr.PolarsRankError, match="p must be in"):
        pr.rbp(p=1.5)


# ------------------------------------------------------------------------------------------
# ir_measures' documented example (tests/test_gdeval.py::test_ERR, 5 printed decimals)

GDEVAL_QRELS = [
    ("0", "D0", 0), ("0", "D1", 1), ("0", "D2", 1), ("0", "D3", 2), ("0", "D4", 0),
    ("1", "D0", 1), ("1", "D3", 2), ("1", "D5", 2),
]  # fmt: skip
GDEVAL_RUN = [
    ("0", "D0", 0.8), ("0", "D2", 0.7), ("0", "D1", 0.3), ("0", "D3", 0.4), ("0", "D4", 0.1),
    ("1", "D1", 0.8), ("1", "D3", 0.7), ("1", "D4", 0.3), ("1", "D2", 0.4),
]  # fmt: skip


@pytest.mark.parametrize("engine", ENGINES)
def test_ir_measures_documented_err(engine) -> None:
    """q0 ranks D0(0) D2(1) D3(2) D1(1) D4(0); R(1) = 1/16, R(2) = 3/16:
    ERR@20 = (1/16)/2 + (3/16)(15/16)/3 + (1/16)(15/16)(13/16)/4 = 0.1017456…; ir_measures
    documents 0.10175 (q0), 0.09375 (q1) for ERR@20 and 0.03125, 0.09375 for ERR@2."""
    run = pl.DataFrame(GDEVAL_RUN, schema=["query", "doc", "score"], orient="row")
    qrels = pl.DataFrame(GDEVAL_QRELS, schema=["query", "doc", "relevance"], orient="row")
    at20 = _per_query(run, qrels, "ERR@20", engine)
    at2 = _per_query(run, qrels, "ERR@2", engine)
    assert (round(at20["0"], 5), round(at20["1"], 5)) == (0.10175, 0.09375)
    assert (round(at2["0"], 5), round(at2["1"], 5)) == (0.03125, 0.09375)
    hand = (1 / 16) / 2 + (3 / 16) * (15 / 16) / 3 + (1 / 16) * (15 / 16) * (13 / 16) / 4
    assert _close(at20["0"], hand)


# ------------------------------------------------------------------------------------------
# ir_measures' providers on random data


def _random_case(seed: int, *, distinct_scores: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """25 numeric query ids (gdeval needs them), 60 doc ids, lists of 0-30 documents, grades
    −1…4, some queries without judgments. With ``distinct_scores`` every score of the run is
    distinct (cwl_eval keeps input order for ties; trectools averages tied weights across
    queries); otherwise scores are on a 1/4 grid (ties broken by doc id, as gdeval does)."""
    rng = np.random.default_rng(seed)
    run_rows, qrels_rows = [], []
    for q in range(1, 26):
        docs = rng.choice(60, size=int(rng.integers(0, 31)), replace=False)
        scores = np.round(rng.random(len(docs)) * 4) / 4
        run_rows += [(q, f"d{d}", float(s)) for d, s in zip(docs, scores, strict=True)]
        judged = rng.choice(60, size=int(rng.integers(0, 12)), replace=False)
        qrels_rows += [(q, f"d{d}", int(rng.integers(-1, 5))) for d in judged]
    run = pl.DataFrame(run_rows, schema=["query", "doc", "score"], orient="row")
    if distinct_scores:
        run = run.with_columns(pl.Series("score", rng.permutation(run.height) / run.height + 0.1))
    qrels = pl.DataFrame(qrels_rows, schema=["query", "doc", "relevance"], orient="row")
    return run, qrels


def _ir_inputs(run: pl.DataFrame, qrels: pl.DataFrame):
    return (
        [ir_measures.Qrel(str(q), d, int(r)) for q, d, r in qrels.iter_rows()],
        [ir_measures.ScoredDoc(str(q), d, float(s)) for q, d, s in run.iter_rows()],
    )


@pytest.mark.parametrize("seed", range(8))
def test_err_equals_ir_measures_gdeval(seed) -> None:
    """ERR@k equals ir_measures' gdeval provider to its 5 printed decimals (queries gdeval
    skips, those without a positive grade, are 0 in ir_measures and here)."""
    run, qrels = _random_case(seed, distinct_scores=False)
    ir_qrels, ir_run = _ir_inputs(run, qrels)
    for k in (1, 3, 10, 20):
        theirs = {
            m.query_id: m.value
            for m in ir_measures.gdeval.iter_calc([ir_measures.ERR @ k], ir_qrels, ir_run)
        }
        for engine in ENGINES:
            ours = _per_query(run, qrels, f"ERR@{k}", engine)
            assert set(ours) == set(theirs)
            for q, v in ours.items():
                assert abs(v - theirs[q]) <= 5e-6 + 1e-12, (engine, k, q, v, theirs[q])


def _gdeval_17_digits(run: pl.DataFrame, qrels: pl.DataFrame, k: int) -> dict[str, float]:
    """gdeval.pl as ir_measures ships it, its printf widened from %.5f to %.17g."""
    script = (importlib.resources.files("ir_measures") / "bin" / "gdeval.pl").read_text()
    assert script.count("%.5f,%.5f") == 1
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        (tmp / "gdeval.pl").write_text(script.replace("%.5f,%.5f", "%.17g,%.17g"))
        (tmp / "qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.iter_rows()))
        (tmp / "run").write_text(
            "".join(f"{q} Q0 {d} 0 {s!r} run\n" for q, d, s in run.iter_rows())
        )
        out = subprocess.run(
            ["perl", str(tmp / "gdeval.pl"), str(tmp / "qrels"), str(tmp / "run"), str(k)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    rows = [line.split(",") for line in out.splitlines()[1:] if line]
    return {q: float(err) for _, q, _, err in rows if q != "amean"}


@pytest.mark.parametrize("seed", range(6))
def test_err_equals_gdeval_exactly(seed) -> None:
    run, qrels = _random_case(seed, distinct_scores=False)
    for k in (1, 5, 20):
        theirs = _gdeval_17_digits(run, qrels, k)
        for engine in ENGINES:
            for q, v in _per_query(run, qrels, f"ERR@{k}", engine).items():
                assert _close(v, theirs.get(q, 0.0)), (engine, k, q, v, theirs.get(q))


@pytest.mark.parametrize("seed", range(8))
def test_binary_rbp_equals_ir_measures_cwl_eval(seed) -> None:
    """RBP(p, rel) equals ir_measures' cwl_eval provider (its default for RBP(rel=..))."""
    run, qrels = _random_case(seed, distinct_scores=True)
    ir_qrels, ir_run = _ir_inputs(run, qrels)
    for p, rel in ((0.8, 1), (0.5, 2), (0.95, 1), (0.8, 3)):
        measure = ir_measures.RBP(p=p, rel=rel)
        theirs = {
            m.query_id: float(m.value)
            for m in ir_measures.cwl_eval.iter_calc([measure], ir_qrels, ir_run)
        }
        default = {
            m.query_id: float(m.value) for m in ir_measures.iter_calc([measure], ir_qrels, ir_run)
        }
        assert default == theirs
        for engine in ENGINES:
            ours = _per_query(run, qrels, f"RBP(p={p},rel={rel})", engine)
            assert set(ours) == set(theirs)
            for q, v in ours.items():
                assert _close(v, theirs[q]), (engine, p, rel, q, v, theirs[q])


@pytest.mark.parametrize("seed", range(8))
def test_graded_rbp_equals_ir_measures_trectools(seed) -> None:
    """Graded RBP(p) and RBP(p)@k equal ir_measures' trectools provider, one measure per call:
    the provider builds its functions in a loop whose closure binds late, so two RBP measures
    in one call would both get the last one's cutoff."""
    run, qrels = _random_case(seed, distinct_scores=True)
    ir_qrels, ir_run = _ir_inputs(run, qrels)
    for p, k in ((0.8, None), (0.8, 5), (0.5, 10), (0.95, 3), (0.95, None)):
        measure = ir_measures.RBP(p=p) if k is None else ir_measures.RBP(p=p) @ k
        theirs = {
            m.query_id: float(m.value)
            for m in ir_measures.trectools.iter_calc([measure], ir_qrels, ir_run)
        }
        name = f"RBP(p={p})" + ("" if k is None else f"@{k}")
        for engine in ENGINES:
            ours = _per_query(run, qrels, name, engine)
            assert set(ours) == set(theirs)
            for q, v in ours.items():
                assert _close(v, theirs[q]), (engine, name, q, v, theirs[q])


def test_trectools_late_binding_is_why_one_measure_per_call() -> None:
    """The reason for one measure per call above: asked for RBP and RBP@3 together, the
    trectools provider returns RBP@3's values for both."""
    run, qrels = _random_case(3, distinct_scores=True)
    ir_qrels, ir_run = _ir_inputs(run, qrels)
    full, cut = ir_measures.RBP(p=0.8), ir_measures.RBP(p=0.8) @ 3
    together = ir_measures.trectools.calc_aggregate([full, cut], ir_qrels, ir_run)
    alone = ir_measures.trectools.calc_aggregate([full], ir_qrels, ir_run)
    assert together[full] == together[cut] != alone[full]


@pytest.mark.parametrize("seed", range(8))
def test_rbp_residual_equals_trectools(seed) -> None:
    """The residual with a cutoff equals trectools' get_rbp (its second value; NaN there for
    queries without a relevant document, which are left out of the comparison)."""
    import trectools

    run, qrels = _random_case(seed, distinct_scores=True)
    frame = run.to_pandas().rename(columns={"doc": "docid"})
    frame["query"] = frame["query"].astype(str)
    frame = frame.sort_values(["query", "score"], ascending=[True, False])
    judged = qrels.to_pandas().rename(columns={"doc": "docid", "relevance": "rel"})
    judged["query"] = judged["query"].astype(str)
    trec_run, trec_qrels = trectools.TrecRun(), trectools.TrecQrel()
    trec_run.run_data, trec_qrels.qrels_data = frame, judged
    evaluation = trectools.TrecEval(trec_run, trec_qrels)
    checked = 0
    for p, k in ((0.8, 5), (0.5, 10), (0.95, 20)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, residual = evaluation.get_rbp(
                p=p, depth=k, per_query=True, binary_topical_relevance=True
            )
        residual = residual.iloc[:, 0].dropna()
        for engine in ENGINES:
            ours = _per_query(run, qrels, f"RBP_residual(p={p})@{k}", engine)
            for q, v in residual.items():
                assert _close(ours[q], float(v)), (engine, p, k, q, ours[q], v)
                checked += 1
    assert checked > 30


def test_ir_measures_default_pipeline_has_no_graded_rbp_or_plain_err() -> None:
    """Which names ir_measures' default pipeline answers (so "equal to ir_measures" means
    equal to the providers above): ERR@k (gdeval) and RBP(rel=..) (cwl_eval) yes; ERR without
    a cutoff and graded RBP(p=..) no."""
    qrels = [ir_measures.Qrel("1", "a", 2)]
    run = [ir_measures.ScoredDoc("1", "a", 1.0)]
    assert ir_measures.DefaultPipeline.calc_aggregate([ir_measures.ERR @ 20], qrels, run)
    assert ir_measures.DefaultPipeline.calc_aggregate([ir_measures.RBP(rel=1)], qrels, run)
    for name in ("RBP(p=0.8)", "RBP(p=0.8)@10", "ERR"):
        with pytest.raises(ValueError):
            ir_measures.DefaultPipeline.calc_aggregate(
                [ir_measures.parse_measure(name)], qrels, run
            )


def test_sql_macros_by_hand() -> None:
    """The macros on the hand cases above, straight in DuckDB."""
    con = pr.duckdb.register(duckdb.connect())
    row = con.sql(
        "SELECT err(r, g, 3), rbp(r, g, p := 0.5), rbp(r, g, p := 0.5, relevance_level := 2), "
        "rbp_residual(r, g, 3, p := 0.5) FROM (VALUES (1, 2), (2, NULL), (3, 4)) t(r, g)"
    ).fetchall()[0]
    # ERR@3: 3/16 + (13/16)(15/16)/3; RBP: (2/2 + 4/8); binary: 1/2 + 1/8;
    # residual: rank 2 unjudged (1/4) + p^3 (1/8)
    expected = (3 / 16 + (13 / 16) * (15 / 16) / 3, 1.5, 0.625, 0.375)
    assert all(_close(a, b) for a, b in zip(row, expected, strict=True))
