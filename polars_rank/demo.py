"""Built-in, deterministic example data: 50 queries with graded judgments (0–3) and three
retrieval systems of increasing quality, ``bm25`` < ``dense`` < ``rerank``.

Everything is generated from a fixed seed with numpy, so the frames are the same on every
machine and every call; no files or downloads are needed.

>>> qrels, runs = demo_data()
>>> sorted(runs), qrels.columns
(['bm25', 'dense', 'rerank'], ['query', 'doc', 'relevance'])
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl

#: The seed every demo frame is generated from.
SEED = 20_240_607
#: Number of queries, candidate documents per query, documents each system returns per query.
N_QUERIES = 50
N_CANDIDATES = 300
DEPTH = 100
#: How strongly each system's score follows the true grade (higher is better), in order.
SYSTEMS: dict[str, float] = {"bm25": 0.6, "dense": 0.8, "rerank": 1.05}
#: Metrics the demo reports.
DEMO_METRICS = ["nDCG@10", "RR@10", "AP", "P@10", "R@100", "Bpref", "NumRelRet"]


def _grades(rng: np.random.Generator) -> np.ndarray:
    """True grades 0–3 of every candidate document, a query × candidate matrix."""
    # Each query has its own share of relevant documents (some queries are "hard").
    share = rng.uniform(0.02, 0.15, size=(N_QUERIES, 1))
    u = rng.random((N_QUERIES, N_CANDIDATES))
    grades = np.zeros((N_QUERIES, N_CANDIDATES), dtype=np.int64)
    grades[u < share] = 1
    grades[u < share * 0.45] = 2
    grades[u < share * 0.15] = 3
    return grades


def demo_data() -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """The demo judgments and runs: ``(qrels, {"bm25": run, "dense": run, "rerank": run})``.

    The data the documentation's examples load; the same frames on every machine and call.

    * ``qrels``: ``query, doc, relevance`` (str, str, i64): grades 0–3; every relevant
      document and about half of the non-relevant candidates are judged.
    * ``runs["bm25"]``, ``runs["dense"]``, ``runs["rerank"]``: ``query, doc, rank, score``
      (str, str, i64, f64): the top 100 (``DEPTH``) documents of every query, rank 1 the
      highest score; the systems are of increasing quality, ``bm25`` < ``dense`` <
      ``rerank``.

    Query ids are ``q01`` … ``q50``, document ids ``q01-d000`` … (each query has its own 300
    candidates). ``polars-rank demo --write-data DIR`` writes the same frames as files
    (:func:`write_data`).

    >>> qrels, runs = demo_data()
    >>> qrels.columns, runs["bm25"].columns
    (['query', 'doc', 'relevance'], ['query', 'doc', 'rank', 'score'])
    >>> qrels.height, runs["bm25"].height
    (8184, 5000)
    """
    rng = np.random.default_rng(SEED)
    grades = _grades(rng)
    queries = [f"q{i + 1:02d}" for i in range(N_QUERIES)]
    docs = np.array([f"d{j:03d}" for j in range(N_CANDIDATES)])

    judged = (grades > 0) | (rng.random(grades.shape) < 0.5)
    qi, dj = np.nonzero(judged)
    qrels = pl.DataFrame(
        {
            "query": [queries[i] for i in qi],
            "doc": [f"{queries[i]}-{docs[j]}" for i, j in zip(qi, dj, strict=True)],
            "relevance": grades[qi, dj],
        }
    )

    # Query difficulty hurts every system alike; each system also does better on some
    # queries than on others, and has its own noise.
    difficulty = rng.normal(0.0, 0.3, size=(N_QUERIES, 1))
    runs: dict[str, pl.DataFrame] = {}
    for name, quality in SYSTEMS.items():
        per_query = rng.normal(0.0, 0.35, size=(N_QUERIES, 1))
        noise = rng.normal(0.0, 1.0, size=grades.shape)
        strength = np.clip(quality + difficulty + per_query, 0.0, None)
        scores = np.round(strength * grades + noise + 5.0, 4)
        order = np.argsort(-scores, axis=1, kind="stable")[:, :DEPTH]
        rows_q = np.repeat(np.arange(N_QUERIES), DEPTH)
        rows_d = order.reshape(-1)
        runs[name] = pl.DataFrame(
            {
                "query": [queries[i] for i in rows_q],
                "doc": [f"{queries[i]}-{docs[j]}" for i, j in zip(rows_q, rows_d, strict=True)],
                "rank": np.tile(np.arange(1, DEPTH + 1), N_QUERIES),
                "score": scores[rows_q, rows_d],
            }
        )
    return qrels, runs


def polars_snippet(metrics: list[str] | None = None, data_dir: str | None = None) -> str:
    """The Python code that computes the demo's evaluation table for ``rerank``: it reads the
    files ``polars-rank demo --write-data DIR`` writes (from ``data_dir`` when given, so that
    the code runs as printed)."""
    names = ", ".join(f'"{m}"' for m in (metrics or DEMO_METRICS))
    folder = "DIR" if data_dir is None else data_dir
    run, qrels = (json.dumps(str(Path(folder, f"{n}.parquet"))) for n in ("rerank", "qrels"))
    return (
        "import polars as pl\n"
        "import polars_rank as pr\n"
        "\n"
        f"# the files of: polars-rank demo --write-data {folder}\n"
        f"run = pl.read_parquet({run})    # query, doc, score\n"
        f"qrels = pl.read_parquet({qrels})   # query, doc, relevance\n"
        f"metrics = [{names}]\n"
        "pr.evaluate(run, qrels, metrics)                  # one row: the means\n"
        "pr.evaluate(run, qrels, metrics, per_query=True)  # one row per query\n"
    )


def write_data(directory: str | Path) -> list[Path]:
    """Write the demo data into ``directory``: ``qrels.parquet`` and one Parquet file per run
    (``bm25.parquet``, ...), and the same as TREC text (``qrels.txt``, ``bm25.run``, ...).
    Returns the paths written.

    >>> import tempfile
    >>> [p.name for p in write_data(tempfile.mkdtemp())][:3]
    ['qrels.parquet', 'qrels.txt', 'bm25.parquet']
    """
    from polars_rank.io import write_trec_run

    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    qrels, runs = demo_data()
    written = [folder / "qrels.parquet", folder / "qrels.txt"]
    qrels.write_parquet(written[0])
    qrels.select("query", pl.lit(0).alias("iteration"), "doc", "relevance").write_csv(
        written[1], separator=" ", include_header=False
    )
    for name, run in runs.items():
        parquet, trec = folder / f"{name}.parquet", folder / f"{name}.run"
        run.write_parquet(parquet)
        write_trec_run(run, trec, run_id=name)
        written += [parquet, trec]
    return written


SQL_SNIPPET = """\
-- DuckDB, after polars_rank's macros are loaded (sql/ranking.sql)
SELECT query,
       ndcg(rank, relevance, 10)                   AS "nDCG@10",
       reciprocal_rank(rank, relevance, 10)        AS "RR@10",
       average_precision(rank, relevance)          AS "AP",
       "precision"(rank, relevance, 10)            AS "P@10"
FROM judge('run', 'qrels')
GROUP BY query
ORDER BY query;
"""
