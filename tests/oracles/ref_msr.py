"""Test-only reference: MS Recommenders' beyond-accuracy formulas restated in pandas.

Why: ``recommenders`` 1.2.1 pins numpy<2 and pandas<3 (it cannot share an environment with
polars_rank's dev group) and fails under pandas 3 (``Series.agg(...)[0]`` and the chained
``fillna(inplace=True)`` in ``_get_intralist_similarity`` / ``user_item_serendipity`` no longer
act under copy-on-write). This module restates the definitions of
recommenders/evaluation/python_evaluation.py (version 1.2.1 = commit b02c95e2 of
recommenders-team/recommenders; line numbers of that file):

* ``catalog_coverage`` (l. 1645-1676): distinct reco items / distinct train items.
* ``distributional_coverage`` (l. 1679-1716): −Σ p log2 p, p = reco count / reco rows.
* ``historical_item_novelty`` (l. 1355-1401), ``novelty`` (l. 1404-1440): −log2(train count /
  train rows); novelty = Σ over reco rows of item novelty (inner join: unknown items add 0) /
  reco rows.
* ``_get_cooccurrence_similarity`` (l. 1109-1163): |U_a ∩ U_b| / (√|U_a| √|U_b|), pairs i1 <= i2.
* ``_get_item_feature_similarity`` (l. 1166-1199): f1·f2 / (‖f1‖ ‖f2‖) over all item pairs.
* ``_get_intralist_similarity`` / ``user_diversity`` (l. 1202-1304): pairs i1 < i2 of a user's
  items, missing similarity 0, mean per user; diversity = 1 − mean; users with one item have
  no pair and are absent.
* ``user_item_serendipity`` / ``user_serendipity`` (l. 1443-1594): mean over the user's train
  items of sim(i, j) (missing 0), (1 − mean) · relevance; mean per user; users without train
  items are absent (inner merge).

Column names: ``u`` (user), ``i`` (item), a relevance column when given; similarity tables
``i1 <= i2, sim``. Written from the definitions above (not a copy of the package's code), and
checked equal to recommenders 1.2.1 itself (run in an environment of its own, pandas 2.3) on
its documented fixture and 15 random cases when this restatement was written.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def catalog_coverage(train: pd.DataFrame, reco: pd.DataFrame) -> float:
    return reco["i"].nunique() / train["i"].nunique()


def distributional_coverage(reco: pd.DataFrame) -> float:
    p = reco.groupby("i").size() / len(reco)
    return float(-(p * np.log2(p)).sum())


def item_novelty(train: pd.DataFrame) -> pd.Series:
    return -np.log2(train.groupby("i").size() / len(train))


def novelty(train: pd.DataFrame, reco: pd.DataFrame) -> float:
    nov = item_novelty(train)
    counts = reco.groupby("i").size()
    known = counts.index.intersection(nov.index)
    return float((counts[known] * nov[known]).sum() / len(reco))


def cooccurrence_similarity(train: pd.DataFrame) -> pd.DataFrame:
    pairs = train.merge(train, on="u", suffixes=("1", "2"))
    pairs = pairs[pairs["i1"] <= pairs["i2"]]
    both = pairs.groupby(["i1", "i2"]).size().rename("both").reset_index()
    root = np.sqrt(train.groupby("i").size())
    both["sim"] = both["both"] / (root[both["i1"]].to_numpy() * root[both["i2"]].to_numpy())
    return both[["i1", "i2", "sim"]]


def feature_similarity(features: pd.DataFrame) -> pd.DataFrame:
    ids = features["i"].to_list()
    vecs = list(features["features"])
    rows = []
    for a, fa in zip(ids, vecs, strict=True):
        for b, fb in zip(ids, vecs, strict=True):
            if a <= b:
                with np.errstate(invalid="ignore", divide="ignore"):
                    s = float(fa.dot(fb)) / float(np.linalg.norm(fa, 2) * np.linalg.norm(fb, 2))
                rows.append((a, b, s))
    return pd.DataFrame(rows, columns=["i1", "i2", "sim"])


def user_diversity(reco: pd.DataFrame, sim: pd.DataFrame) -> pd.Series:
    pairs = reco[["u", "i"]].merge(reco[["u", "i"]], on="u", suffixes=("1", "2"))
    pairs = pairs[pairs["i1"] < pairs["i2"]]
    pairs = pairs.merge(sim, on=["i1", "i2"], how="left")
    pairs["sim"] = pairs["sim"].fillna(0.0)
    return 1.0 - pairs.groupby("u")["sim"].mean()


def user_serendipity(
    train: pd.DataFrame, reco: pd.DataFrame, sim: pd.DataFrame, relevance: str | None
) -> pd.Series:
    rows = reco[["u", "i"]].merge(train[["u", "i"]].rename(columns={"i": "h"}), on="u")
    rows["i1"] = rows[["i", "h"]].min(axis=1)
    rows["i2"] = rows[["i", "h"]].max(axis=1)
    rows = rows.merge(sim, on=["i1", "i2"], how="left")
    rows["sim"] = rows["sim"].fillna(0.0)
    per_item = rows.groupby(["u", "i"])["sim"].mean().rename("avg").reset_index()
    per_item = per_item.merge(reco, on=["u", "i"])
    rel = per_item[relevance].astype(np.float16).astype(float) if relevance else 1.0
    per_item["s"] = (1.0 - per_item["avg"]) * rel
    return per_item.groupby("u")["s"].mean()
