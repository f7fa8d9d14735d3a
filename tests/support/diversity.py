"""Random diversity qrels and tie-free runs, and pyndeval's (ndeval.c's) per-query values
of them: the oracle of tests/diversity."""

from __future__ import annotations

import random

import polars as pl

#: ndeval's names and ours.
NDEVAL = {
    "alpha-nDCG@5": "alpha_ndcg@5",
    "alpha-nDCG@20": "alpha_ndcg@20",
    "alpha-DCG@10": "alpha_dcg@10",
    "ERR-IA@5": "err_ia@5",
    "ERR-IA@20": "err_ia@20",
    "nERR-IA@10": "nerr_ia@10",
    "nERR-IA@20": "nerr_ia@20",
    "NRBP": "nrbp",
    "nNRBP": "nnrbp",
    "P-IA@5": "p_ia@5",
    "P-IA@20": "p_ia@20",
    "strec@5": "subtopic_recall@5",
    "strec@20": "subtopic_recall@20",
}


def random_tables(seed: int, queries: int = 40) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``(run, qrels)``: per query up to 6 subtopics judging docs of a pool of 30 with grades
    0–2 (some subtopics with no relevant doc, some queries with none), a run of up to 35
    docs with distinct scores (tie-free)."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(queries):
        qid = f"q{q:02d}"
        pool = [f"d{rng.randrange(100):03d}" for _ in range(30)]
        for s in range(rng.randint(1, 6)):
            for d in set(rng.sample(pool, rng.randint(1, 12))):
                grade = rng.choice([0, 0, 1, 1, 2]) if q % 10 else 0
                qrels.append((qid, str(s), d, grade))
        docs = sorted(set(rng.sample(pool + [f"x{i}" for i in range(10)], rng.randint(1, 35))))
        scores = rng.sample(range(1000), len(docs))
        run += [(qid, d, float(v) / 7.0) for d, v in zip(docs, scores, strict=True)]
    run += [("only_run", "d000", 1.0)]
    qrels += [("only_qrels", "0", "d000", 1)]
    q, s, d, r = zip(*qrels, strict=True)
    rq, rd, rs = zip(*run, strict=True)
    return (
        pl.DataFrame({"query": rq, "doc": rd, "score": rs}),
        pl.DataFrame({"query": q, "subtopic": s, "doc": d, "relevance": r}),
    )


def ndeval_values(
    run: pl.DataFrame, qrels: pl.DataFrame, alpha: float = 0.5, beta: float = 0.5
) -> dict[str, dict[str, float]]:
    """pyndeval's per-query values, keyed by query then our metric name."""
    import pyndeval

    rows = sorted(run.rows(), key=lambda r: r[0])  # pyndeval reads a run query by query
    got = pyndeval.ndeval(qrels.rows(), rows, list(NDEVAL), alpha=alpha, beta=beta)
    return {q: {NDEVAL[m]: v for m, v in values.items()} for q, values in got.items()}
