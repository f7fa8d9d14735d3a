"""The DuckDB engine in a user's hands: it leaves the user's database as it found it, a process
that used it exits quietly, and the SQL macros refuse bad parameters instead of answering 0.

* The engine never changes the user's connection: ``duckdb_functions()``, ``duckdb_tables()``
  and ``duckdb_views()`` read the same before and after ``evaluate(..., engine="duckdb",
  con=con)`` and the classification and recommender DuckDB paths; the user's own macros named
  like polars_rank's (``recall``, ``judge``) still answer their own result; a file database
  reopened afterwards holds no polars_rank macro; a read-only connection works.
* A process that ran ``engine="duckdb"`` ends without nanobind's "leaked ..." report.
* Each macro parameter with a rule (a positive integer cutoff, a positive ``max_rank``, a
  positive finite ``max_grade``, a choice among its spellings) is checked by the macro itself,
  with DuckDB's ``error()`` naming the parameter.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import polars as pl

RUN = pl.DataFrame(
    {"query": ["q1", "q1", "q1", "q2"], "doc": ["a", "b", "c", "a"], "score": [0.5, 0.4, 0.3, 0.9]}
)
QRELS = pl.DataFrame({"query": ["q1", "q2"], "doc": ["a", "b"], "relevance": [1, 2]})


# ------------------------------------------------------------------------------------------
# a process that used the DuckDB engine exits quietly


def _stderr_of(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_no_leak_report_at_exit() -> None:
    """Polars remembers the class of every object given to ``pl.DataFrame`` (a
    ``functools.cache``); given DuckDB's relation, that kept DuckDB's modules alive past their
    teardown and nanobind reported ~40 lines of "leaked ..." at every exit."""
    stderr = _stderr_of(
        """
        import warnings
        import polars as pl, polars_rank as pr
        warnings.simplefilter("ignore")
        run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
        qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
        pr.evaluate(run, qrels, ["RR", "P@1", "nDCG@10"], engine="duckdb")
        pr.evaluate(run, qrels, ["coverage@10", "novelty@10"], engine="duckdb",
                    interactions=pl.DataFrame({"query": ["u"], "doc": ["a"]}))
        data = pl.DataFrame({"label": [0, 1, 1], "score": [0.2, 0.7, 0.4], "g": [1, 1, 2]})
        pr.evaluate_classification(data, ["AUC", "F1", "GAUC"], group="g", engine="duckdb")
        pr.classification.roc_curve(data, "label", "score", engine="duckdb")
        """
    )
    assert "leaked" not in stderr, stderr
