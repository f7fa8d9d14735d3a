"""trec_eval's measures against two independent references, on generated runs and judgments.

* ``trec_eval_reference`` (oracles/trec_eval_reference.py): trec_eval 10.0's C loops written out
  in Python, for every measure with every parameter (unsorted 11pt_avg points, gain tables with
  negative, fractional and negative-grade gains, equal-gain levels, grades above 9, -M, -J,
  -l 0 … 3, -N, judged queries missing from the run under -c). The whole drop-in is compared
  (trec_eval's reading aside): :func:`polars_rank.cli.trec_eval.trec_eval_values`, each query's
  values and the summary, through both engines.
* pytrec_eval-terrier (trec_eval 9.0.8 compiled into Python) for the measures it has, with
  their default parameters. 9.0.8 differs from 10.0 in 11pt_avg (its recall cutoffs round as
  ⌊x·R + 0.9⌋, 10.0's as lround(x·R)), so 11pt_avg is left to the first reference.
"""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank.cli.trec_eval import trec_eval_values
from polars_rank.cli.trec_eval_measures import select_measures
from tests.oracles import trec_eval_reference as ref
from tests.support.strategies import examples

GRADES = [-1, 0, 0, 0, 1, 1, 2, 3, 4, 12]
POINTS = [0.0, 0.1, 0.25, 0.3, 0.5, 0.75, 0.9, 1.0]
FRACTIONS = [0.0, 0.2, 0.35, 0.5, 1.0, 1.3, 2.0, 5.0]
GAINS = [-3.0, -1.5, 0.0, 2.5, 3.0, 4.5, 9.0, 20.0]


def _table_is_ordered(gains: dict[int, float], top: int) -> bool:
    """Every two gains of the query's table are equal or at least 1 apart: trec_eval sorts the
    table by an int-truncated difference, so closer gains come out in qsort's order."""
    values = list(gains.values()) + [float(g) for g in range(top + 1) if g not in gains]
    return all(a == b or abs(a - b) >= 1 for a in values for b in values)


@st.composite
def cases(draw):
    """Judgments, a run (some judged queries missing from it, unjudged documents, score ties),
    trec_eval's options and measure parameters."""
    qrels, run = [], []
    for q in range(draw(st.integers(1, 4))):
        query = f"q{q}"
        docs = [f"d{i}" for i in range(draw(st.integers(1, 25)))]
        judged = draw(st.lists(st.sampled_from(docs), min_size=1, unique=True))
        grades = draw(st.lists(st.sampled_from(GRADES), min_size=len(judged), max_size=len(judged)))
        if max(grades) < 0:
            grades[0] = 0  # trec_eval's judged-grade counts are undefined without a grade >= 0
        qrels += [(query, d, g) for d, g in zip(judged, grades, strict=True)]
        if draw(st.integers(0, 9)) == 0:
            continue  # judged but missing from the run
        retrieved = draw(st.lists(st.sampled_from(docs + ["u1", "u2", "u3"]), unique=True))
        scores = draw(st.lists(st.integers(0, 6), min_size=len(retrieved), max_size=len(retrieved)))
        run += [(query, d, float(s)) for d, s in zip(retrieved, scores, strict=True)]
    if not run:
        run.append(("q0", "u1", 1.0))
    top = max(g for _, _, g in qrels)
    gains = draw(
        st.dictionaries(
            st.sampled_from([-2, 0, 1, 2, 3, 5]), st.sampled_from(GAINS), max_size=3
        ).filter(lambda g: _table_is_ordered(g, top))
    )
    points = draw(st.lists(st.sampled_from(POINTS), min_size=1, max_size=5))
    return {
        "qrels": qrels,
        "run": run,
        "level": draw(st.integers(0, 3)),
        "max_rank": draw(st.sampled_from([None, None, 2, 5, 20])),
        "judged_only": draw(st.booleans()),
        "collection_size": draw(st.sampled_from([0, 50])),
        "points": sorted(points) if draw(st.booleans()) else points,
        "fractions": sorted(
            set(draw(st.lists(st.sampled_from(FRACTIONS), min_size=1, max_size=3)))
        ),
        "coefficients": draw(
            st.lists(st.sampled_from([2.0, 1.0, -1.0, 0.5, 0.0]), min_size=4, max_size=4)
        ),
        "gains": gains,
        "p": draw(st.sampled_from([0.5, 0.8, 0.9, 0.95])),
        "length": draw(st.sampled_from([3, 10, 20.7])),
    }


def _text(values) -> str:
    return ",".join(repr(float(v)) for v in values)


def _requests(case) -> tuple[list[str], dict]:
    """The -m arguments, and for each printed name how the reference computes it."""
    pairs = ",".join(f"{k}={v!r}" for k, v in case["gains"].items())
    gains = dict(case["gains"])
    with_pairs = (lambda name: f"{name}.{pairs}") if pairs else (lambda name: name)
    printed = (lambda name: f"{name}_{pairs}") if pairs else (lambda name: name)
    p = case["p"]
    reference = {
        "num_ret": ref.num_ret,
        "num_rel": ref.num_rel,
        "map": ref.average_precision,
        "bpref": ref.bpref,
        f"relstring_{case['length']!r}": lambda rr: ref.relstring(rr, case["length"]),
        "infAP": ref.infap,
        "gm_bpref": ref.bpref,
        f"utility_{_text(case['coefficients'])}": lambda rr: ref.utility(
            rr, case["coefficients"], case["collection_size"]
        ),
        f"11pt_avg_{_text(case['points'])}": lambda rr: ref.eleven_pt_avg(rr, case["points"]),
        "binG": ref.bin_g,
        printed("G"): lambda rr: ref.g_measure(rr, gains),
        printed("dcg"): lambda rr: ref.dcg_parts(rr, gains)[0],
        printed("ideal_dcg"): lambda rr: ref.dcg_parts(rr, gains)[1],
        printed("ndcg"): lambda rr: ref.ndcg(rr, gains),
        printed("ndcg_rel"): lambda rr: ref.ndcg_rel(rr, gains),
        printed("Rndcg"): lambda rr: ref.rndcg(rr, gains),
        "set_relative_P": ref.set_relative_p,
        "set_map": ref.set_map,
        "yaap": ref.yaap,
        f"rbp_p={p!r}" + (f",{pairs}" if pairs else ""): lambda rr: ref.rbp(rr, p, gains),
        f"rbp_resid_p={p!r}": lambda rr: ref.rbp_resid(rr, p),
        "unj_5": lambda rr: ref.unjudged(rr, 5),
    }
    for f in case["fractions"]:
        reference[f"Rprec_mult_{f:3.2f}"] = lambda rr, f=f: ref.rprec_mult(rr, f)
    levels = sorted(set(case["points"]))
    for i, x in enumerate(levels):
        reference[f"iprec_at_recall_{x:3.2f}"] = lambda rr, i=i: ref.iprec_at_recall(rr, levels)[i]
    requests = [
        "num_ret",
        "num_rel",
        "map",
        "bpref",
        f"relstring.{case['length']!r}",
        "infAP",
        "gm_bpref",
        "yaap",
        f"utility.{_text(case['coefficients'])}",
        f"11pt_avg.{_text(case['points'])}",
        f"Rprec_mult.{_text(case['fractions'])}",
        f"iprec_at_recall.{_text(sorted(set(case['points'])))}",
        "binG",
        with_pairs("G"),
        with_pairs("dcg"),
        with_pairs("ideal_dcg"),
        with_pairs("ndcg"),
        with_pairs("ndcg_rel"),
        with_pairs("Rndcg"),
        "set_relative_P",
        "set_map",
        f"rbp.p={p!r}" + (f",{pairs}" if pairs else ""),
        f"rbp_resid.p={p!r}",
        "unj.5",
    ]
    return requests, reference


def _reference_values(case, reference) -> tuple[dict, dict]:
    """Each judged query's values as trec_eval 10.0 computes them with -c (a missing query:
    the one-document ranking, then its resets), and the summary values."""
    judgments: dict[str, dict[str, int]] = {}
    for query, doc, grade in case["qrels"]:
        judgments.setdefault(query, {})[doc] = grade
    results: dict[str, list] = {}
    for query, doc, score in case["run"]:
        results.setdefault(query, []).append((doc, score))
    values = {}
    for query in sorted(judgments, key=str.encode):
        missing = query not in results
        ranking = [(ref.BOGUS_DOC, 1.0)] if missing else results[query]
        rr = ref.res_rels(
            ranking, judgments[query], case["level"], case["max_rank"], case["judged_only"]
        )
        row = {name: fn(rr) for name, fn in reference.items()}
        if missing:  # trec_eval.c resets these after evaluating the one-document ranking
            for name in row:
                if name.startswith(("num_ret", "utility", "rbp_resid", "unj")):
                    row[name] = 0.0
                elif name.startswith("relstring"):
                    row[name] = ""
        values[query] = row
    n = len(values)
    summary = {}
    for name in reference:
        column = [values[q][name] for q in values]
        if name.startswith("relstring"):
            continue
        if name == "gm_bpref":
            summary[name] = math.exp(sum(math.log(max(x, ref.MIN_GEO_MEAN)) for x in column) / n)
        elif name.startswith("num_"):
            summary[name] = sum(column)
        else:
            summary[name] = sum(column) / n
    summary["num_rel"] = float(sum(1 for _, _, g in case["qrels"] if g > 0))  # m_num_rel.c, -c
    return values, summary


def _same(ours, theirs) -> bool:
    if isinstance(theirs, str) or isinstance(ours, str):
        return ours == theirs
    if math.isnan(theirs) or math.isnan(ours):
        return math.isnan(theirs) and math.isnan(ours)
    return math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_measures_equal_trec_evals_loops(engine, case):
    requests, reference = _requests(case)
    measures = select_measures(requests, collection_size=case["collection_size"])
    assert sorted(m.name for m in measures) == sorted(reference)
    run = pl.DataFrame(case["run"], schema=["query", "doc", "score"], orient="row")
    qrels = pl.DataFrame(case["qrels"], schema=["query", "doc", "relevance"], orient="row")
    values, summary = trec_eval_values(
        run,
        qrels,
        measures,
        complete=True,
        relevance_level=case["level"],
        max_rank=case["max_rank"],
        judged_only=case["judged_only"],
        engine=engine,
    )
    want, want_summary = _reference_values(case, reference)
    assert values["query"].to_list() == list(want)
    bad = [
        (row["query"], name, row[name], want[row["query"]][name])
        for row in values.iter_rows(named=True)
        for name in reference
        if not _same(row[name], want[row["query"]][name])
    ]
    bad += [
        ("all", name, summary[name], want_summary[name])
        for name in want_summary
        if not _same(summary[name], want_summary[name])
    ]
    assert not bad, bad[:10]


# --------------------------------------------------------------------------------------------
# pytrec_eval (trec_eval 9.0.8)

#: pytrec_eval's names of the measures compared, and ours (per-query names as it returns them)
PYTREC = {
    "infAP": "infAP",
    "Rprec_mult": None,  # Rprec_mult_0.20 … _2.00
    "utility": "utility",
    "binG": "binG",
    "G": "G",
    "ndcg_rel": "ndcg_rel",
    "Rndcg": "Rndcg",
    "set_relative_P": "set_relative_P",
    "set_map": "set_map",
    "gm_bpref": "gm_bpref",
}


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), engine=st.sampled_from(["polars", "duckdb"]))
def test_measures_equal_pytrec_eval(case, engine):
    """Per query, for the queries in both run and judgments (pytrec_eval's set). pytrec_eval
    returns gm_bpref per query as ln(max(bpref, 1e-5))."""
    run = pl.DataFrame(case["run"], schema=["query", "doc", "score"], orient="row")
    qrels = pl.DataFrame(case["qrels"], schema=["query", "doc", "relevance"], orient="row")
    level = max(case["level"], 1)
    theirs = pytrec_eval.RelevanceEvaluator(
        {q: dict(g.select("doc", "relevance").iter_rows()) for (q,), g in qrels.group_by("query")},
        set(PYTREC),
        relevance_level=level,
    ).evaluate({q: dict(g.select("doc", "score").iter_rows()) for (q,), g in run.group_by("query")})
    names = ["infAP", "utility", "binG", "G", "ndcg_rel", "Rndcg", "set_relative_P", "set_map"]
    names += ["gm_bpref", "Bpref", *[f"Rprec_mult(multiple={f / 10})" for f in range(2, 21, 2)]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = pr.evaluate(
            run, qrels, names, per_query=True, queries="both", relevance_level=level, engine=engine
        )
    assert sorted(ours["query"].to_list()) == sorted(theirs)
    for row in ours.iter_rows(named=True):
        expected = theirs[row["query"]]
        for name in names[:8]:
            assert row[name] == pytest.approx(expected[name], rel=1e-9, abs=1e-9), name
        assert math.log(max(row["Bpref"], 1e-5)) == pytest.approx(expected["gm_bpref"], abs=1e-12)
        for f in range(2, 21, 2):
            got = row[f"Rprec_mult(multiple={f / 10})"]
            assert got == pytest.approx(expected[f"Rprec_mult_{f / 10:.2f}"], abs=1e-12)


# --------------------------------------------------------------------------------------------
# the Python API: names with lists and gain tables, and their errors

RUN = pl.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
QRELS = pl.DataFrame({"query": ["q"] * 3, "doc": ["a", "c", "d"], "relevance": [2, 1, 1]})


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_lists_and_gain_tables_in_metric_names(engine):
    """Ranking a (grade 2), b (unjudged), c (grade 1); d (grade 1) not retrieved, R = 3."""
    got = pr.evaluate(
        RUN,
        QRELS,
        ["nDCG(gains={1:3,2:9})", "utility(coefficients=[2,-1,-1,0])", "relstring(length=2)"],
        per_query=True,
        engine=engine,
    ).row(0)
    idcg = 9 + 3 / math.log2(3) + 3 / 2
    assert got[1] == pytest.approx((9 + 3 / 2) / idcg, rel=1e-12)  # c at rank 3 gains 3
    assert got[2] == 2 * 2 - 1 - 1  # 2 relevant retrieved, 1 other, 1 relevant missed
    assert got[3] == "2-"


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(
    "metric, fragment",
    [
        ("relstring", "no summary over queries"),
        ("utility(coefficients=[1,2])", "exactly 4 coefficients"),
        ("nDCG(gains={-1:2})", "level -1"),
        ("nDCG(gains={1:2,1:3})", "given twice"),
        ("nDCG(gain=exp,gains={1:2})", "cannot be combined"),
        ("nDCG(gains=[1,2])", "gain table"),
        ("11pt_avg(points=[])", "at least one number"),
    ],
)
def test_bad_parameters_are_errors(engine, metric, fragment):
    with pytest.raises(pr.PolarsRankError, match=fragment):
        pr.evaluate(RUN, QRELS, [metric], engine=engine)
