"""``pr.fuse`` against ranx 0.3.21's ``fuse`` (tie-free seeded runs, every method × norm), a
case worked by hand, the tie order, and hostile inputs."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import polars_rank as pr
from polars_rank.ranking.fusion import FUSION_METHODS, FUSION_NORMS

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from ranx import Run
    from ranx import fuse as ranx_fuse

TOL = 1e-12
WEIGHTS = [0.5, 1.0, 2.0]


def _random_runs(seed: int) -> dict[str, pl.DataFrame]:
    """Three runs over the same three queries, overlapping docs, distinct scores (no ties).
    The doc ids have one length: ranx 0.3.21's borda norm gives a missing "d10" the value of a
    returned "d1" (see test_borda_ids_that_prefix_one_another)."""
    rng = np.random.default_rng(seed)
    runs = {}
    for name in ("bm25", "dense", "splade"):
        rows = []
        for q in ("q1", "q2", "q3"):
            docs = rng.choice(12, size=int(rng.integers(2, 9)), replace=False)
            rows += [(q, f"d{d:02d}", float(rng.normal())) for d in docs]
        runs[name] = pl.DataFrame(rows, schema=["query", "doc", "score"], orient="row")
    return runs


def _as_dict(frame: pl.DataFrame) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for q, d, s in frame.iter_rows():
        out.setdefault(q, {})[d] = s
    return out


def _ranx(runs: dict[str, pl.DataFrame], method: str, norm: str | None) -> dict:
    params = {"weights": WEIGHTS} if method == "wsum" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx_runs = [Run(_as_dict(f)) for f in runs.values()]
        return ranx_fuse(ranx_runs, norm=norm, method=method, params=params).to_dict()


CASES = [
    (m, n)
    for m in FUSION_METHODS
    for n in FUSION_NORMS
    if not (m == "rrf" and n == "borda")  # ranx ranks borda's scores in a Python set's order
]


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])  # 2nd: -m slow
@pytest.mark.parametrize(("method", "norm"), CASES)
def test_matches_ranx(method: str, norm: str | None, seed: int) -> None:
    runs = _random_runs(seed)
    expected = _ranx(runs, method, norm)
    got = pr.fuse(runs, method, norm=norm, weights=WEIGHTS if method == "wsum" else None)
    assert got.columns == ["query", "doc", "score"]
    fused = _as_dict(got)
    assert fused.keys() == expected.keys()
    for q, scores in expected.items():
        assert fused[q].keys() == scores.keys()
        for d, value in scores.items():
            assert abs(fused[q][d] - value) <= TOL, (q, d, fused[q][d], value)
        # the same ranking: ranx's run sorted by score, ours as returned
        ours = [d for d, _ in sorted(fused[q].items(), key=lambda kv: -kv[1])]
        theirs = [d for d, _ in sorted(scores.items(), key=lambda kv: -kv[1])]
        if len(set(scores.values())) == len(scores):  # a fused tie has no ranx order
            assert ours == theirs
            assert got.filter(pl.col("query") == q)["doc"].to_list() == theirs


def test_stacked_lazy_and_weights_by_name_agree_with_the_dict_form() -> None:
    runs = _random_runs(2)
    stacked = pl.concat([f.with_columns(pl.lit(n).alias("system")) for n, f in runs.items()])
    named = dict(zip(runs, WEIGHTS, strict=True))
    lazy = pr.fuse(stacked.lazy(), "wsum", weights=named, run="system")
    assert isinstance(lazy, pl.LazyFrame)
    from_dict = pr.fuse(runs, "wsum", weights=WEIGHTS)
    collected = lazy.collect()
    assert collected.select("query", "doc").equals(from_dict.select("query", "doc"))
    assert (collected["score"] - from_dict["score"]).abs().max() <= TOL
    expected = _ranx(runs, "wsum", "min-max")
    for q, d, s in from_dict.iter_rows():
        assert abs(s - expected[q][d]) <= TOL


def _hand_runs() -> dict[str, pl.DataFrame]:
    # x: a=3, b=1, c=2 (min 1, max 3: min-max a=1, b=0, c=0.5)
    # y: a=4, b=5, d=0 (min 0, max 5: min-max a=0.8, b=1, d=0)
    return {
        "x": pl.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "score": [3.0, 1.0, 2.0]}),
        "y": pl.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "d"], "score": [4.0, 5.0, 0.0]}),
    }


@pytest.mark.parametrize(
    ("method", "norm", "expected"),
    [
        ("sum", "min-max", {"a": 1 + 0.8, "b": 0 + 1, "c": 0.5, "d": 0.0}),
        ("mnz", "min-max", {"a": (1 + 0.8) * 2, "b": (0 + 1) * 2, "c": 0.5 * 1, "d": 0.0}),
        ("anz", "min-max", {"a": (1 + 0.8) / 2, "b": (0 + 1) / 2, "c": 0.5, "d": 0.0}),
        ("med", "min-max", {"a": (1 + 0.8) / 2, "b": 0.5, "c": 0.5, "d": 0.0}),
        # a document one run lacks takes -1e9 (max) / 1e9 (min) there, as in ranx
        ("max", "min-max", {"a": 1.0, "b": 1.0, "c": max(0.5, -1e9), "d": max(0.0, -1e9)}),
        ("min", "min-max", {"a": 0.8, "b": 0.0, "c": min(0.5, 1e9), "d": min(0.0, 1e9)}),
        # x ranks a, c, b; y ranks b, a, d
        ("rrf", "min-max", {"a": 1 / 61 + 1 / 62, "b": 1 / 63 + 1 / 61, "c": 1 / 62, "d": 1 / 63}),
        # C = {a, b, c, d}: a returned doc at position i gets 1 - i/4; a missing one
        # 0.5 - (3 - 1)/(2*4) = 0.25 (each run returned 3)
        ("sum", "borda", {"a": 1 + 0.75, "b": 0.5 + 1, "c": 0.75 + 0.25, "d": 0.25 + 0.5}),
        # max: a=3/3, b=1/3, c=2/3; y: a=4/5, b=5/5, d=0/5
        ("sum", "max", {"a": 1 + 4 / 5, "b": 1 / 3 + 1, "c": 2 / 3, "d": 0.0}),
        # rank: 1 - i/3 at positions 0, 1, 2
        ("sum", "rank", {"a": 1 + 2 / 3, "b": 1 / 3 + 1, "c": 2 / 3, "d": 1 / 3}),
        # sum: x (s - 1)/(6 - 1*3) = a 2/3, b 0, c 1/3; y (s - 0)/9: a 4/9, b 5/9, d 0
        ("sum", "sum", {"a": 2 / 3 + 4 / 9, "b": 5 / 9, "c": 1 / 3, "d": 0.0}),
        # min-max-inverted: x (3 - s)/2: a 0, b 1, c 0.5; y (5 - s)/5: a 0.2, b 0, d 1
        ("sum", "min-max-inverted", {"a": 0.2, "b": 1.0, "c": 0.5, "d": 1.0}),
    ],
)
def test_hand_worked(method: str, norm: str, expected: dict[str, float]) -> None:
    fused = dict(pr.fuse(_hand_runs(), method, norm=norm).select("doc", "score").iter_rows())
    assert fused.keys() == expected.keys()
    for d, value in expected.items():
        assert abs(fused[d] - value) <= TOL, (d, fused[d], value)


def test_borda_ids_that_prefix_one_another() -> None:
    # x returns d1, d2; y returns d10, d2; C = {d1, d2, d10}, |C| = 3, each run returned 2.
    # x: d1 = 1 - 0/3 = 1, d2 = 1 - 1/3, and the missing d10 0.5 - (2 - 1)/(2*3) = 1/3
    # (ranx 0.3.21 gives x's d10 the value of its "d1", 1.0)
    runs = {
        "x": pl.DataFrame({"query": ["q", "q"], "doc": ["d1", "d2"], "score": [3.0, 2.0]}),
        "y": pl.DataFrame({"query": ["q", "q"], "doc": ["d10", "d2"], "score": [1.0, 0.5]}),
    }
    fused = dict(pr.fuse(runs, "sum", norm="borda").select("doc", "score").iter_rows())
    # y: d10 = 1, d2 = 2/3, the missing d1 1/3
    expected = {"d1": 1 + 1 / 3, "d2": 2 / 3 + 2 / 3, "d10": 1 / 3 + 1}
    for d, value in expected.items():
        assert abs(fused[d] - value) <= TOL


def test_zmuv_by_hand() -> None:
    # x: mean 2, population std sqrt(((1)^2 + (-1)^2 + 0^2)/3) = sqrt(2/3)
    # y: mean 3, population std sqrt((1 + 4 + 9)/3) = sqrt(14/3)
    fused = dict(pr.fuse(_hand_runs(), "sum", norm="zmuv").select("doc", "score").iter_rows())
    sx, sy = (2 / 3) ** 0.5, (14 / 3) ** 0.5
    expected = {"a": 1 / sx + 1 / sy, "b": -1 / sx + 2 / sy, "c": 0.0, "d": -3 / sy}
    for d, value in expected.items():
        assert abs(fused[d] - value) <= TOL


def test_floors_on_constant_scores() -> None:
    # one run scores every doc 7: max - min = 0 → denominator 1e-9, (7 - 7)/1e-9 = 0
    runs = {
        "x": pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [7.0, 7.0]}),
        "y": pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [-2.0, -3.0]}),
    }
    fused = dict(pr.fuse(runs, "sum").select("doc", "score").iter_rows())
    assert fused == {"a": 1.0, "b": 0.0}
    # max norm: y's max -2 is below the floor, so y's scores are divided by 1e-9
    fused = dict(pr.fuse(runs, "sum", norm="max").select("doc", "score").iter_rows())
    assert abs(fused["a"] - (1.0 + -2.0 / 1e-9)) <= 1e-6


def test_ties_follow_the_package_order() -> None:
    # every score ties: positions go by doc id descending as text, "9" before "10" (bytes
    # "9" > "1"), also for integer ids; rrf gives "9" 1/61 twice and "10" 1/62 twice
    for dtype in (pl.String, pl.Int64):
        docs = pl.Series(["9", "10"]).cast(dtype)
        run = pl.DataFrame({"query": ["q", "q"], "doc": docs, "score": [1.0, 1.0]})
        fused = pr.fuse({"x": run, "y": run}, "rrf")
        assert fused["doc"].cast(pl.String).to_list() == ["9", "10"]
        assert abs(fused["score"][0] - 2 / 61) <= TOL
        assert abs(fused["score"][1] - 2 / 62) <= TOL


def test_a_run_without_a_query_returned_nothing_for_it() -> None:
    runs = _hand_runs()
    runs["z"] = pl.DataFrame({"query": ["other"], "doc": ["a"], "score": [1.0]})
    fused = pr.fuse(runs, "sum", norm="borda")
    # q: C = {a, b, c, d}; z has no doc for q, so every doc gets 0.5 - (0 - 1)/8 = 0.625
    q = dict(fused.filter(pl.col("query") == "q").select("doc", "score").iter_rows())
    assert abs(q["a"] - (1 + 0.75 + 0.625)) <= TOL
    # other: C = {a}; z gives 1, x and y 0.5 - (0 - 1)/2 = 1
    other = fused.filter(pl.col("query") == "other")
    assert other.rows() == [("other", "a", 3.0)]


def test_output_is_a_run_evaluate_takes() -> None:
    fused = pr.fuse(_hand_runs(), "rrf")
    qrels = pl.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]})
    # rrf order: a (1/61 + 1/62), b (1/61 + 1/63), c, d → b at rank 2, RR = 1/2
    assert pr.evaluate(fused, qrels, ["RR"])["RR"][0] == 0.5


def _one(score: float | None = 1.0, doc: str | None = "a") -> pl.DataFrame:
    return pl.DataFrame(
        {"query": ["q"], "doc": [doc], "score": [score]},
        schema={"query": pl.String, "doc": pl.String, "score": pl.Float64},
    )


@pytest.mark.parametrize(
    ("kwargs", "runs", "message"),
    [
        ({"method": "bayesfuse"}, None, "method must be"),
        ({"norm": "l2"}, None, "norm must be"),
        ({"method": "wsum"}, None, "needs weights"),
        ({"method": "rrf", "weights": [1, 1]}, None, "for method='wsum' only"),
        ({"method": "wsum", "weights": [1.0]}, None, "1 weights for 2 runs"),
        ({"method": "wsum", "weights": {"x": 1.0, "w": 2.0}}, None, "missing \\['y'\\]"),
        ({"method": "wsum", "weights": {"x": 1.0, "y": "2"}}, None, "must be a number"),
        ({"k": 0}, None, "k must be a positive number"),
        ({"k": -1.5}, None, "k must be a positive number"),
        ({"k": True}, None, "k must be a positive number"),
        ({}, {"x": _one()}, "at least two runs, got 1"),
        ({}, {}, "at least two runs"),
        ({}, {"x": _one(), "y": pl.concat([_one(), _one(2.0)])}, "1 duplicate"),
        ({}, {"x": _one(), "y": _one(float("nan"))}, "NaN"),
        ({}, {"x": _one(), "y": _one(None)}, "null, NaN or infinite score"),
        ({}, {"x": _one(), "y": _one(float("inf"))}, "infinite"),
        ({}, {"x": _one(), "y": _one(doc=None)}, "null run, query or doc"),
        ({}, {"x": _one(), "y": _one().drop("score")}, "no column 'score'"),
        ({}, {"x": _one(), "y": _one().with_columns(pl.lit("s").alias("score"))}, "numeric"),
        ({}, {"x": _one(), "y": _one().with_columns(pl.col("doc").cast(pl.Categorical))}, "types"),
    ],
)
def test_hostile(kwargs: dict, runs: dict | None, message: str) -> None:
    runs = {"x": _one(), "y": _one(2.0)} if runs is None else runs
    with pytest.raises(pr.PolarsRankError, match=message):
        pr.fuse(runs, **kwargs)


def test_stacked_hostile() -> None:
    one = _one().with_columns(pl.lit("x").alias("run"))
    with pytest.raises(pr.PolarsRankError, match="at least two runs, got 1 \\('x'\\)"):
        pr.fuse(one)
    with pytest.raises(pr.PolarsRankError, match="a sequence only with a dict"):
        pr.fuse(pl.concat([one, one.with_columns(run=pl.lit("y"))]), "wsum", weights=[1, 2])
    with pytest.raises(pr.PolarsRankError, match="no column 'run'"):
        pr.fuse(_one())
