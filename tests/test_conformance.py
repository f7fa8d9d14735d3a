"""trec_eval's own expected outputs, reproduced value for value (4 decimals).

Each expected file in ../shared/conformance/trec_eval was printed by trec_eval 10.0 with the
arguments listed in that folder's README; here the same inputs go through
``polars_rank.evaluate`` with the equivalent options, through every engine (Polars, DuckDB and
Spark, the last running the portable SQL of ``to_sql``), and every line of every measure
polars_rank implements must print identically, per query and for ``all``.
"""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from conftest import read_trec_eval_output

import polars_rank as pr
from polars_rank.io import read_trec_qrels, read_trec_run
from polars_rank.ranking.names import parse_metric

#: trec_eval measures polars_rank does not implement (their lines are not compared).
NOT_IMPLEMENTED = {
    "runid",
    "relstring",
    "infAP",
    "gm_bpref",
    "utility",
    "binG",
    "G",
    "ndcg_rel",
    "Rndcg",
    "set_relative_P",
    "set_map",
    "rbp",
    "rbp_resid",
}


def _implemented(measure: str) -> bool:
    prefixes = ("Rprec_mult", "utility", "ndcg_1=", "relstring")  # ndcg with custom gains
    if measure in NOT_IMPLEMENTED or measure.startswith(prefixes):
        return False
    if measure.startswith("11pt_avg_"):  # 11pt_avg with custom recall points
        return False
    return True


# expected file -> (qrels, run, evaluate options)
CASES = {
    "out.test.aq": ("qrels.test", "results.test", {"queries": "both"}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"queries": "qrels"}),
    "out.test.aqcM": ("qrels.test", "results.trunc", {"queries": "qrels", "max_rank": 100}),
    "out.test.aql": ("qrels.rel_level", "results.test", {"queries": "both", "relevance_level": 2}),
    "out.test.meas_params": ("qrels.test", "results.test", {"queries": "both"}),
    "out.test": ("qrels.test", "results.test", {"queries": "both"}),
}


def _compare(trec_dir, expected_name: str, engine: str) -> int:
    qrels_name, run_name, options = CASES[expected_name]
    expected = read_trec_eval_output(trec_dir / expected_name)
    expected = expected.filter(pl.col("measure").map_elements(_implemented, pl.Boolean))
    measures = expected["measure"].unique(maintain_order=True).to_list()
    for name in measures:  # every implemented trec_eval name must parse
        parse_metric(name)
    qrels = read_trec_qrels(trec_dir / qrels_name)
    run = read_trec_run(trec_dir / run_name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # results.trunc has run queries without judgments
        per_query = pr.evaluate(run, qrels, measures, per_query=True, engine=engine, **options)
        summary = pr.evaluate(run, qrels, measures, engine=engine, **options)
    checked = 0
    mismatches = []
    for measure, query, value in expected.iter_rows():
        if query == "all":
            ours = summary[measure][0]
        else:
            row = per_query.filter(pl.col("query") == query)
            assert row.height == 1, f"query {query} missing from our per-query output"
            ours = row[measure][0]
        printed = f"{ours:.0f}" if "." not in value else f"{ours:.4f}"
        if printed != value:
            mismatches.append(f"{measure} {query}: trec_eval {value}, {engine} engine {printed}")
        checked += 1
    assert not mismatches, "\n".join(mismatches)
    return checked


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("expected_name", sorted(CASES))
def test_trec_eval_expected_output(trec_dir, expected_name, engine):
    checked = _compare(trec_dir, expected_name, engine)
    assert checked > 20  # the file really was compared


@pytest.mark.parametrize("expected_name", sorted(CASES))
def test_trec_eval_expected_output_on_spark(spark, trec_dir, expected_name):
    """The same through ``engine="spark"`` (the session of the ``spark`` fixture is active)."""
    assert _compare(trec_dir, expected_name, "spark") > 20


def test_measures_cover_the_default_set(trec_dir):
    """Every measure trec_eval prints by default (out.test) except runid is implemented."""
    names = read_trec_eval_output(trec_dir / "out.test")["measure"].to_list()
    assert [n for n in names if not _implemented(n)] == ["runid"]
