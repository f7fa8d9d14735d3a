"""trec_eval 10.0's own expected outputs, reproduced line for line by both engines.

tests/data/trec_eval holds trec_eval's test inputs and the outputs trec_eval 10.0 printed for
them, with the arguments listed in that folder's README (copied here). Each expected file is
reproduced by the trec_eval drop-in's evaluation (:func:`polars_rank.cli.trec_eval.trec_eval_lines`,
which reads the files as trec_eval does and computes every measure with
:func:`polars_rank.evaluate`) through the Polars and the DuckDB engine: every line of every
file, per query and ``all``, relstring, gm_bpref, utility with custom coefficients, nDCG with
a gain table and 11pt_avg with custom points included.
The Spark engine (the portable SQL of :func:`polars_rank.to_sql`) prints the same lines for
every measure that has portable SQL.
"""

from __future__ import annotations

import pytest

from polars_rank.cli.trec_eval import trec_eval_lines
from polars_rank.cli.trec_eval_input import read_qrels, read_run
from polars_rank.cli.trec_eval_measures import select_measures
from tests.support.strategies import fast_first

MEAS_PARAMS = [
    "iprec_at_recall..10,.20,.25,.75,.50",
    "P.5,7,3",
    "recall.20,2000",
    "Rprec_mult.5.0,0.2,0.35",
    "utility.2,-1,0,0",
    "11pt_avg..25,.5,.75",
    "ndcg.1=3,2=9,4=4.5",
    "ndcg_cut.10,20,23.4",
    "success.2,5,20",
]

# expected file -> (qrels, run, -m arguments, options), as the folder's README lists them
CASES = {
    "out.test": ("qrels.test", "results.test", None, {}),
    "out.test.a": ("qrels.test", "results.test", ["all_trec"], {}),
    "out.test.aq": ("qrels.test", "results.test", ["all_trec"], {"per_query": True}),
    "out.test.aqc": (
        "qrels.test",
        "results.trunc",
        ["all_trec"],
        {"per_query": True, "complete": True},
    ),
    "out.test.aqcM": (
        "qrels.test",
        "results.trunc",
        ["all_trec"],
        {"per_query": True, "complete": True, "max_rank": 100},
    ),
    "out.test.aql": (
        "qrels.rel_level",
        "results.test",
        ["all_trec", "relstring.20"],
        {"per_query": True, "relevance_level": 2},
    ),
    "out.test.meas_params": ("qrels.test", "results.test", MEAS_PARAMS, {"per_query": True}),
}


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("expected_name", sorted(CASES))
def test_every_line_of_trec_eval_output(trec_dir, expected_name, engine):
    qrels_name, run_name, requests, options = CASES[expected_name]
    run, run_id = read_run(trec_dir / run_name)
    lines = trec_eval_lines(
        run,
        read_qrels(trec_dir / qrels_name),
        select_measures(requests),
        run_id=run_id,
        engine=engine,
        **options,
    )
    expected = (trec_dir / expected_name).read_text().splitlines()
    assert len(lines) == len(expected)
    mismatches = [
        (ours, theirs) for ours, theirs in zip(lines, expected, strict=True) if ours != theirs
    ]
    assert not mismatches, "\n".join(f"ours   {a!r}\ntrec   {b!r}" for a, b in mismatches[:20])


def test_the_expected_files_cover_every_all_trec_measure(trec_dir):
    """Each measure of -m all_trec prints in out.test.a, and none is missing from our output."""
    names = [
        line.split("\t")[0].strip() for line in (trec_dir / "out.test.a").read_text().splitlines()
    ]
    ours = [m.name for m in select_measures(["all_trec"]) if m.summary]
    assert ours == names
    assert len(names) == 99


def _portable(measure) -> bool:
    from polars_rank.compiler.builders import BUILDERS

    return measure.spec is None or measure.spec.entry.name in BUILDERS


@pytest.mark.parametrize("expected_name", fast_first(sorted(CASES)))
def test_every_portable_line_on_spark(spark, trec_dir, expected_name):
    """The same lines through ``engine="spark"`` (the ``spark`` fixture's session is active),
    for the measures with portable SQL; the others are listed in the SQL compiler's tests."""
    qrels_name, run_name, requests, options = CASES[expected_name]
    run, run_id = read_run(trec_dir / run_name)
    measures = [m for m in select_measures(requests) if _portable(m)]
    lines = trec_eval_lines(
        run, read_qrels(trec_dir / qrels_name), measures, run_id=run_id, engine="spark", **options
    )
    names = {m.name for m in measures}
    expected = [
        line
        for line in (trec_dir / expected_name).read_text().splitlines()
        if line.split("\t")[0].strip() in names
    ]
    assert len(expected) > 20 and len(lines) == len(expected)
    mismatches = [
        (ours, theirs) for ours, theirs in zip(lines, expected, strict=True) if ours != theirs
    ]
    assert not mismatches, "\n".join(f"ours   {a!r}\ntrec   {b!r}" for a, b in mismatches[:20])
