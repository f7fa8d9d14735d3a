"""trec_eval's own expected outputs through ``evaluate(engine="duckdb")``.

Each expected file in ../shared/conformance/trec_eval was printed by trec_eval 10.0 with the
arguments in that folder's README; the same inputs go through the DuckDB engine with the
equivalent options, and every line of every measure polars_rank implements must print the
same (4 decimals, integers for counts), per query and for ``all``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import polars as pl
import pytest

import polars_rank as pr

TREC_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "trec_eval"

#: trec_eval measures with no polars_rank equivalent (their lines are not compared)
_NOT_IMPLEMENTED = {
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
_NOT_IMPLEMENTED_PREFIXES = ("Rprec_mult", "relstring")

# expected output -> (qrels file, run file, evaluate options)
CASES = {
    "out.test.aq": ("qrels.test", "results.test", {"queries": "both"}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"queries": "qrels"}),
    "out.test.aqcM": ("qrels.test", "results.trunc", {"queries": "qrels", "max_rank": 100}),
    "out.test.aql": ("qrels.rel_level", "results.test", {"queries": "both", "relevance_level": 2}),
}


def _trec_dir() -> Path:
    if not (TREC_DIR / "out.test.aq").is_file():
        pytest.skip(f"trec_eval conformance files not found at {TREC_DIR}")
    return TREC_DIR


def read_run(path: Path) -> pl.DataFrame:
    """``query Q0 doc rank score run_name [anything]`` lines; the rank is not used."""
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    return pl.DataFrame(
        {
            "query": [r[0] for r in rows],
            "doc": [r[2] for r in rows],
            "score": [float(r[4]) for r in rows],
        }
    )


def read_qrels(path: Path) -> pl.DataFrame:
    """``query 0 doc relevance`` lines."""
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    return pl.DataFrame(
        {
            "query": [r[0] for r in rows],
            "doc": [r[2] for r in rows],
            "relevance": [int(r[3]) for r in rows],
        }
    )


def read_expected(path: Path) -> list[tuple[str, str, str]]:
    """``measure<TAB>query<TAB>value`` lines of the measures polars_rank implements."""
    lines = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        measure, query, value = (part.strip() for part in line.split("\t"))
        if measure in _NOT_IMPLEMENTED or measure.startswith(_NOT_IMPLEMENTED_PREFIXES):
            continue
        lines.append((measure, query, value))
    return lines


@pytest.mark.parametrize("expected_name", sorted(CASES))
def test_trec_eval_outputs(expected_name: str) -> None:
    trec_dir = _trec_dir()
    qrels_name, run_name, options = CASES[expected_name]
    expected = read_expected(trec_dir / expected_name)
    measures = list(dict.fromkeys(measure for measure, _, _ in expected))
    run, qrels = read_run(trec_dir / run_name), read_qrels(trec_dir / qrels_name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per_query = pr.evaluate(run, qrels, measures, per_query=True, engine="duckdb", **options)
        summary = pr.evaluate(run, qrels, measures, engine="duckdb", **options)
    values = {
        q: row for q, row in zip(per_query["query"], per_query.iter_rows(named=True), strict=True)
    }
    mismatches = []
    for measure, query, value in expected:
        if query == "all":
            ours = summary[measure][0]
        else:
            assert query in values, f"query {query} missing from the per-query output"
            ours = values[query][measure]
        printed = f"{ours:.4f}" if "." in value else f"{ours:.0f}"
        if printed != value:
            mismatches.append(f"{measure} {query}: trec_eval {value}, duckdb engine {printed}")
    assert not mismatches, f"{len(mismatches)} of {len(expected)} lines differ:\n" + "\n".join(
        mismatches[:40]
    )
    assert len(expected) > 300
