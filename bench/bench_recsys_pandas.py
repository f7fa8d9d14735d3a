"""The beyond-accuracy formulas of bench_recsys.py in pandas/NumPy, written the way teams
compute them today: sort + ``groupby.head`` for the top k, merges and ``groupby`` means for
the popularity metrics, ``value_counts`` for coverage, entropy and Gini, pairwise cosines of
each user's list on a dense (users × k × d) tensor with ``einsum`` for intra-list diversity
(lists shorter than k padded with zero vectors, pairs counted from the real length), and
serendipity through each user's history sum (one ``groupby`` sum: already the cheap form of
"mean similarity to the history").

The conventions are polars_rank's defaults: popularity = distinct users, choice-model
novelty with unknown items skipped, head = the 20 % most popular items, catalog = the items
of the interactions and of the run, users = the users of the run, no relevance in
serendipity. The top k is taken by score alone: the benchmark's scores are random floats
without ties, so it is the same top k as polars_rank's (which breaks ties by item id).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: The keys of the summary, in the order of bench_recsys.metric_names.
SUMMARY_KEYS = (
    "catalog_coverage",
    "entropy",
    "gini",
    "user_coverage",
    "novelty",
    "arp",
    "aplt",
    "ild",
    "serendipity",
)


def top_k(run: pd.DataFrame, k: int) -> pd.DataFrame:
    top = run.sort_values(["query", "score"], ascending=[True, False]).groupby("query").head(k)
    top = top.assign(rank=top.groupby("query").cumcount() + 1)
    return top[["query", "doc", "rank"]].reset_index(drop=True)


def item_table(interactions: pd.DataFrame, head_share: float = 0.2) -> pd.DataFrame:
    pop = interactions.groupby("doc")["query"].nunique().rename("popularity").reset_index()
    pop["self_information"] = -np.log2(pop["popularity"] / pop["popularity"].sum())
    order = pop.sort_values(["popularity", "doc"]).index
    n = len(pop)
    position = pd.Series(np.arange(1, n + 1), index=order)
    pop["in_tail"] = position.reindex(pop.index).to_numpy() <= n - np.floor(n * head_share)
    return pop


def unit_vectors(vectors: pd.DataFrame) -> tuple[pd.Index, np.ndarray]:
    mat = np.stack(vectors["vector"].to_numpy()).astype(np.float64)
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        unit = np.where(norms > 0, mat / norms, 0.0)
    return pd.Index(vectors["doc"]), unit


def ild_pairwise(
    top: pd.DataFrame, index: pd.Index, unit: np.ndarray, k: int, chunk: int = 50_000
) -> pd.Series:
    """1 − mean pairwise cosine per user, from a dense (users × k × d) tensor."""
    top = top.sort_values(["query", "rank"])
    users, starts, counts = np.unique(
        top["query"].to_numpy(), return_index=True, return_counts=True
    )
    pos = index.get_indexer(top["doc"])
    vecs = np.where((pos >= 0)[:, None], unit[np.maximum(pos, 0)], 0.0)
    slot = top.groupby("query").cumcount().to_numpy()
    row = np.repeat(np.arange(len(users)), counts)
    dense = np.zeros((len(users), k, unit.shape[1]))
    dense[row, slot] = vecs
    triu = np.triu(np.ones((k, k), dtype=bool), 1)
    pair_sums = np.empty(len(users))
    for s in range(0, len(users), chunk):
        block = dense[s : s + chunk]
        sims = np.einsum("uid,ujd->uij", block, block)
        pair_sums[s : s + chunk] = sims[:, triu].sum(axis=1)
    n = counts.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        ild = np.where(n >= 2, 1.0 - pair_sums / (n * (n - 1) / 2), np.nan)
    return pd.Series(ild, index=users, name="ild")


def serendipity_centroid(
    top: pd.DataFrame, interactions: pd.DataFrame, index: pd.Index, unit: np.ndarray
) -> pd.Series:
    hist = interactions.drop_duplicates()
    comps = [f"u{j}" for j in range(unit.shape[1])]
    pos = index.get_indexer(hist["doc"])
    hv = pd.DataFrame(np.where((pos >= 0)[:, None], unit[np.maximum(pos, 0)], 0.0), columns=comps)
    hv["query"] = hist["query"].to_numpy()
    centroid = hv.groupby("query")[comps].sum()
    size = hist.groupby("query").size()
    rows = top.merge(centroid, left_on="query", right_index=True, how="inner")
    pos = index.get_indexer(rows["doc"])
    rv = np.where((pos >= 0)[:, None], unit[np.maximum(pos, 0)], 0.0)
    dots = (rv * rows[comps].to_numpy()).sum(axis=1)
    rows = rows[["query"]].assign(u=1.0 - dots / size.reindex(rows["query"]).to_numpy())
    return rows.groupby("query")["u"].mean().rename("serendipity")


def beyond_accuracy(
    run: pd.DataFrame, interactions: pd.DataFrame, vectors: pd.DataFrame, k: int
) -> tuple[dict, pd.DataFrame]:
    top = top_k(run, k)
    items = item_table(interactions)
    rows = top.merge(items, on="doc", how="left")
    rows["popularity"] = rows["popularity"].fillna(0)
    rows["in_tail"] = rows["in_tail"].fillna(True).astype(float)
    per_user = rows.groupby("query").agg(
        novelty=("self_information", "mean"), arp=("popularity", "mean"), aplt=("in_tail", "mean")
    )
    index, unit = unit_vectors(vectors)
    per_user = per_user.join(ild_pairwise(top, index, unit, k)).join(
        serendipity_centroid(top, interactions, index, unit)
    )
    catalog = pd.Index(pd.concat([run["doc"], interactions["doc"]]).unique())
    counts = top["doc"].value_counts()
    p = counts / counts.sum()
    n = len(catalog)
    c = np.sort(counts.reindex(catalog, fill_value=0).to_numpy().astype(np.float64))
    j = np.arange(1, n + 1)
    users = pd.Index(run["query"].unique())
    summary = {
        **per_user.mean().to_dict(),
        "catalog_coverage": top["doc"].nunique() / n,
        "entropy": float(-(p * np.log2(p)).sum()),
        "gini": float(((2 * j - n - 1) * c).sum() / (n * c.sum())),
        "user_coverage": top["query"].nunique() / len(users),
    }
    return summary, per_user
