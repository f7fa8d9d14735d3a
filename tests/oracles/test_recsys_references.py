"""The recommender metrics against the references they match:

* MS Recommenders' own documented examples (the ``diversity_data`` fixture of
  tests/unit/recommenders/evaluation/conftest.py and the expected values of
  test_python_evaluation.py, recommenders 1.2.1, tolerance 1e-4 as there);
* MS Recommenders' formulas (``ref_msr``, a pandas restatement citing its source lines) on
  seeded random data, at 1e-12;
* RecBole's documented examples (tests/metrics/test_topk_metrics.py, RecBole 1.2.1).

Each through ``evaluate`` in both engines, and the frame-level functions and expressions.
"""

from __future__ import annotations

import math
import warnings

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pytest

import polars_rank as pr
from polars_rank import recsys
from tests.oracles import ref_msr

TOL = 1e-12
ENGINES = ("polars", "duckdb")


def _close(a: float, b: float, tol: float = TOL) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


# ------------------------------------------------------------------------------------------
# MS Recommenders' documented examples

MS_TRAIN = {"u": [1, 1, 1, 2, 2, 3, 3, 3], "i": [1, 2, 4, 3, 4, 3, 4, 5]}
MS_RECO = {"u": [1, 1, 2, 2, 3, 3], "i": [3, 5, 2, 5, 1, 2], "rel": [1, 0, 1, 1, 1, 0]}
MS_FEATURES = [[0, 1, 1, 0, 0], [0, 1, 0, 1, 0], [0, 0, 1, 1, 0], [0, 0, 1, 0, 1], [0, 0, 0, 1, 1]]


def _ms_frames(train, reco, features):
    """run (scores descending in MS' row order), qrels (its relevance column), interactions,
    vectors and MS' co-occurrence similarity table, in polars_rank's column names."""
    run = reco.select(
        pl.col("u").alias("query"),
        pl.col("i").alias("doc"),
        (-pl.int_range(pl.len()).over("u")).cast(pl.Float64).alias("score"),
    )
    qrels = reco.select(
        pl.col("u").alias("query"), pl.col("i").alias("doc"), pl.col("rel").alias("relevance")
    )
    inter = train.select(pl.col("u").alias("query"), pl.col("i").alias("doc"))
    vectors = features.select(pl.col("i").alias("doc"), "vector")
    return run, qrels, inter, vectors, recsys.cooccurrence_similarity(inter).collect()


def _ms_fixture():
    train = pl.DataFrame(MS_TRAIN)
    reco = pl.DataFrame(MS_RECO)
    features = pl.DataFrame(
        {"i": [1, 2, 3, 4, 5], "vector": [[float(x) for x in f] for f in MS_FEATURES]}
    )
    return train, reco, features


def _evaluate(run, qrels, metrics, engine, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pr.evaluate(run, qrels, metrics, engine=engine, **kwargs)


@pytest.mark.parametrize("engine", ENGINES)
def test_ms_recommenders_documented_values(engine) -> None:
    """MS Recommenders' expected values; its conventions: catalog = the train items, popularity
    = train rows, an unknown item's novelty 0, relevance as given (0/1: binary)."""
    run, qrels, inter, vectors, cooccurrence = _ms_frames(*_ms_fixture())
    catalog = inter.select("doc")
    corpus = _evaluate(
        run,
        qrels,
        ["coverage", "entropy", "novelty(count=interactions,unknown=zero)"],
        engine,
        interactions=inter,
        catalog=catalog,
    ).row(0)
    # coverage: items 3, 5, 2, 1 of the 5 train items; entropy: counts 1, 2, 2, 1 of 6
    assert corpus[0] == 0.8
    assert math.isclose(corpus[1], 1.9183, abs_tol=1e-4)
    # novelty: every user has 2 items, so the mean over users is MS' mean over rows
    assert math.isclose(corpus[2], 2.83333, abs_tol=1e-4)
    for features, diversity, per_user_div, serendipity, per_user_ser in (
        (cooccurrence, 0.43096, [0.29289, 1.0, 0.0], 0.43408, [0.363915, 0.53455, 0.403775]),
        (vectors, 0.5, [0.5, 0.5, 0.5], 0.4028, [0.25, 0.625, 0.3333]),
    ):
        names = ["diversity", "serendipity(gain=graded)"]
        summary = _evaluate(
            run, qrels, names, engine, interactions=inter, item_features=features
        ).row(0)
        assert math.isclose(summary[0], diversity, abs_tol=1e-4)
        assert math.isclose(summary[1], serendipity, abs_tol=1e-4)
        per_user = _evaluate(
            run, qrels, names, engine, interactions=inter, item_features=features, per_query=True
        )
        for got, expected in zip(per_user[names[0]], per_user_div, strict=True):
            assert math.isclose(got, expected, abs_tol=1e-4)
        for got, expected in zip(per_user[names[1]], per_user_ser, strict=True):
            assert math.isclose(got, expected, abs_tol=1e-4)


def test_ms_recommenders_documented_item_values() -> None:
    """historical_item_novelty = [3, 3, 2, 1.41504, 3] (train counts 1, 1, 2, 3, 1 of 8) and
    user_item_serendipity, co-occurrence: [0.72783, 0, 0.71132, 0.35777, 0.80755, 0];
    vectors: [0.5, 0, 0.75, 0.5, 0.6667, 0] — unexpectedness times the relevance column."""
    run, qrels, inter, vectors, cooccurrence = _ms_frames(*_ms_fixture())
    popularity = recsys.item_popularity(inter.lazy(), count="interactions")
    items = recsys.item_table(popularity).sort("doc").collect()
    assert np.allclose(items["self_information"], [3, 3, 2, 1.41504, 3], atol=1e-4)
    top = recsys.top_k(run.lazy())
    for features, expected in (
        (cooccurrence, [0.72783, 0.0, 0.71132, 0.35777, 0.80755, 0.0]),
        (vectors, [0.5, 0.0, 0.75, 0.5, 0.6667, 0.0]),
    ):
        unexpected = recsys.unexpectedness(top, inter.lazy(), features).join(
            qrels.lazy(), on=["query", "doc"]
        )
        values = unexpected.select(
            "query", "doc", pl.col("unexpectedness") * pl.col("relevance")
        ).collect()
        ordered = run.join(values, on=["query", "doc"], maintain_order="left")
        assert np.allclose(ordered["unexpectedness"], expected, atol=1e-4)


# ------------------------------------------------------------------------------------------
# MS Recommenders' formulas on random data


def _ms_random_case(seed: int):
    """Random train/reco/features meeting MS Recommenders' preconditions: no repeated train
    row, no recommended pair already in the train data, every recommended item in the train
    data (else MS counts it in coverage and we do not), no zero feature vector (MS divides by
    its norm)."""
    rng = np.random.default_rng(seed)
    n_users, n_items = 20, 25
    weights = 1.0 / np.arange(1, n_items + 1) ** 1.1
    weights /= weights.sum()
    train, reco = [], []
    for u in range(1, n_users + 1):
        if rng.random() < 0.85:
            for i in rng.choice(n_items, size=int(rng.integers(1, 8)), replace=False, p=weights):
                train.append((u, int(i) + 1))
    train_df = pd.DataFrame(train, columns=["u", "i"])
    known = set(train_df["i"])
    seen = set(map(tuple, train_df[["u", "i"]].to_numpy()))
    for u in range(1, n_users + 1):
        candidates = [i for i in known if (u, i) not in seen]
        size = min(len(candidates), int(rng.integers(1, 7)))
        for i in rng.choice(candidates, size=size, replace=False):
            reco.append((u, int(i), int(rng.integers(0, 2))))
    reco_df = pd.DataFrame(reco, columns=["u", "i", "rel"])
    features = pd.DataFrame(
        {
            "i": list(range(1, n_items + 1)),
            "features": [np.abs(rng.normal(size=4)) + 0.01 for _ in range(n_items)],
        }
    )
    return train_df, reco_df, features


def _to_polars(train: pd.DataFrame, reco: pd.DataFrame, features: pd.DataFrame):
    return (
        pl.from_pandas(train),
        pl.from_pandas(reco),
        pl.DataFrame(
            {"i": features["i"].to_list(), "vector": [list(v) for v in features["features"]]}
        ),
    )


@pytest.mark.parametrize("seed", range(10))
def test_ms_recommenders_formulas_on_random_data(seed) -> None:
    train, reco, features = _ms_random_case(seed)
    run, qrels, inter, vectors, cooccurrence = _ms_frames(*_to_polars(train, reco, features))
    catalog = inter.select("doc").unique()
    for engine in ENGINES:
        summary = _evaluate(
            run, qrels, ["coverage", "entropy"], engine, interactions=inter, catalog=catalog
        ).row(0)
        assert _close(summary[0], ref_msr.catalog_coverage(train, reco))
        assert _close(summary[1], ref_msr.distributional_coverage(reco))
        # MS' novelty is a mean over all recommendation rows, unknown items 0: the mean of
        # our per-user values (unknown=zero) weighted by each user's number of items
        per_user = _evaluate(
            run,
            qrels,
            ["novelty(count=interactions,unknown=zero)"],
            engine,
            interactions=inter,
            per_query=True,
        )
        sizes = run.group_by("query").len().rename({"len": "n"})
        value = pl.col("novelty(count=interactions,unknown=zero)")
        weighted = per_user.join(sizes, on="query").select(
            (pl.col("n") * value).sum() / pl.col("n").sum()
        )
        assert _close(weighted.item(), ref_msr.novelty(train, reco))
        for similarity, features_table in (
            (ref_msr.cooccurrence_similarity(train), cooccurrence),
            (ref_msr.feature_similarity(features), vectors),
        ):
            names = ["ild", "serendipity(gain=graded)", "serendipity(gain=none)"]
            values = _evaluate(
                run,
                qrels,
                names,
                engine,
                interactions=inter,
                item_features=features_table,
                per_query=True,
            )
            got = {row["query"]: row for row in values.iter_rows(named=True)}
            references = (
                ref_msr.user_diversity(reco, similarity),
                ref_msr.user_serendipity(train, reco, similarity, "rel"),
                ref_msr.user_serendipity(train, reco, similarity, None),
            )
            for name, reference in zip(names, references, strict=True):
                # MS leaves out the users we give null (one item; no history)
                ours = {u: row[name] for u, row in got.items() if row[name] is not None}
                assert set(ours) == set(reference.index), (engine, name)
                for user, value in reference.items():
                    assert _close(ours[user], value), (engine, name, user, ours[user], value)


# ------------------------------------------------------------------------------------------
# RecBole's documented examples

RB_ITEM_MATRIX = [[5, 7, 3], [4, 5, 2], [2, 3, 5], [1, 4, 6], [5, 3, 7]]
RB_NUM_ITEMS = 8  # RecBole's item count: ids 0 (padding) .. 7
RB_ITEM_COUNT = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5}


def _recbole_run() -> pl.DataFrame:
    rows = [
        (u, i, float(len(r) - j)) for u, r in enumerate(RB_ITEM_MATRIX) for j, i in enumerate(r)
    ]
    return pl.DataFrame(rows, schema=["query", "doc", "score"], orient="row")


def _recbole_interactions() -> pl.DataFrame:
    """Interactions whose row counts are RecBole's item_count (item 1, count 0, has none)."""
    rows = [(100 + n, i) for i, c in RB_ITEM_COUNT.items() for n in range(c)]
    return pl.DataFrame(rows, schema=["query", "doc"], orient="row")


@pytest.mark.parametrize("engine", ENGINES)
def test_recbole_documented_values(engine) -> None:
    """ItemCoverage@3 = 7/8 (items 1-7 of the ids 0-7); GiniIndex@3: counts of the 8 items
    sorted 0, 1, 1, 2, 2, 2, 3, 4 (Σ 15) → ((−7)·0 + (−5)·1 + (−3)·1 + (−1)·2 + 1·2 + 3·2 +
    5·3 + 7·4) / (8 · 15) = 41/120; ShannonEntropy@3 = −mean over the 7 items of p ln p, counts
    [1, 2, 3, 2, 4, 1, 2] / 15; AveragePopularity@1..3 per user: [4, 3, 1, 0, 4],
    [2, 3.5, 1.5, 1.5, 3], [2, 8/3, 7/3, 8/3, 2]."""
    run = _recbole_run()
    catalog = pl.Series("doc", list(range(RB_NUM_ITEMS)))
    inter = _recbole_interactions()
    summary = _evaluate(
        run,
        None,
        ["ItemCoverage@3", "GiniIndex@3", "ShannonEntropy@3"],
        engine,
        catalog=catalog,
    ).row(0)
    assert summary[0] == 7 / 8
    gini = ((-7) * 0 + (-5) * 1 + (-3) * 1 + (-1) * 2 + 1 * 2 + 3 * 2 + 5 * 3 + 7 * 4) / (8 * 15)
    assert _close(summary[1], gini)
    counts = [1, 2, 3, 2, 4, 1, 2]
    assert _close(summary[2], -np.mean([c / 15 * np.log(c / 15) for c in counts]))
    per_user = _evaluate(
        run,
        None,
        ["AveragePopularity@1", "AveragePopularity@2", "AveragePopularity@3"],
        engine,
        interactions=inter,
        per_query=True,
    )
    assert per_user["AveragePopularity@1"].to_list() == [4, 3, 1, 0, 4]
    assert per_user["AveragePopularity@2"].to_list() == [2, 3.5, 1.5, 1.5, 3]
    assert np.allclose(per_user["AveragePopularity@3"], [2, 8 / 3, 7 / 3, 8 / 3, 2], atol=1e-15)


def test_recbole_documented_tail_percentage() -> None:
    """TailPercentage with tail_ratio 0.1 over RecBole's counter of 6 items (item 1 counted
    0): the tail is the max(⌊0.6⌋, 1) = 1 least popular item, item 1, which user 3 has at
    rank 1: [1, 1/2, 1/3] at k = 1, 2, 3; every other user 0. Items missing from the counter
    (7) are never tail. RecBole's counter has an item with count 0, which no interaction table
    can express: the frame-level functions take the counter as a popularity table, in Polars
    and in SQL."""
    popularity = pl.DataFrame(
        {"doc": list(RB_ITEM_COUNT), "popularity": list(RB_ITEM_COUNT.values())}
    )
    items = recsys.item_table(popularity.lazy(), tail_share=0.1)
    top = recsys.top_k(_recbole_run().lazy())
    table = recsys.enrich(top, items, unknown_in_tail=False)
    got = (
        table.group_by("query")
        .agg(recsys.long_tail_share(k).alias(f"k{k}") for k in (1, 2, 3))
        .sort("query")
        .collect()
    )
    assert got.rows() == [
        (0, 0, 0, 0),
        (1, 0, 0, 0),
        (2, 0, 0, 0),
        (3, 1, 0.5, 1 / 3),
        (4, 0, 0, 0),
    ]
    con = pr.duckdb.register(duckdb.connect())
    con.register("run", _recbole_run())
    con.register("pop", popularity)
    sql = con.sql(
        "WITH t AS (FROM top_k('run')), i AS (FROM item_table('pop', tail_share := 0.1)) "
        "SELECT query, long_tail_share(rank, in_tail, k := 1), "
        "long_tail_share(rank, in_tail, k := 2), long_tail_share(rank, in_tail, k := 3) "
        "FROM enrich('t', 'i', unknown_in_tail := false) GROUP BY query ORDER BY query"
    ).fetchall()
    assert sql == got.rows()


# ------------------------------------------------------------------------------------------
# the per-user vector expressions against the frame functions and MS Recommenders' formulas


def _expression_rows(run, qrels, inter, vectors) -> pl.LazyFrame:
    """The recommendations with what the expressions read: rank, grade, unit vector, history."""
    top = recsys.top_k(run.lazy()).join(qrels.lazy(), on=["query", "doc"], how="left")
    return top.join(recsys.unit_vectors(vectors), on="doc", how="left").join(
        recsys.history_vectors(inter, vectors), on="query", how="left"
    )


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("k", [None, 2])
def test_vector_expressions_match_frame_functions_and_ms_formulas(seed, k) -> None:
    train, reco, features = _ms_random_case(seed)
    run, qrels, inter, vectors, _ = _ms_frames(*_to_polars(train, reco, features))
    rows = _expression_rows(run, qrels, inter, vectors)
    got = (
        rows.group_by("query")
        .agg(
            pr.intra_list_diversity(k),
            pr.serendipity(k, gain="graded").alias("graded"),
            pr.serendipity(k, gain="none").alias("none"),
        )
        .collect()
    )
    # MS' lists are in row order (the run's scores descend with it): its top k are the first k
    cut = reco if k is None else reco.groupby("u").head(k)
    similarity = ref_msr.feature_similarity(features)
    references = {
        "intra_list_diversity": ref_msr.user_diversity(cut, similarity),
        "graded": ref_msr.user_serendipity(train, cut, similarity, "rel"),
        "none": ref_msr.user_serendipity(train, cut, similarity, None),
    }
    for name, reference in references.items():
        ours = {q: v for q, v in zip(got["query"], got[name], strict=True) if v is not None}
        assert set(ours) == set(reference.index), name
        for user, value in reference.items():
            assert _close(ours[user], value), (name, user, ours[user], value)
    # the frame functions give the same values (they aggregate with the same expressions)
    top = recsys.top_k(run.lazy()).join(qrels.lazy(), on=["query", "doc"], how="left")
    frames = {
        "intra_list_diversity": recsys.user_diversity(top, vectors, k),
        "graded": recsys.user_serendipity(top, inter.lazy(), vectors, k, gain="graded"),
        "none": recsys.user_serendipity(top, inter.lazy(), vectors, k, gain="none"),
    }
    expected = dict(zip(got["query"], got.iter_rows(named=True), strict=True))
    for name, frame in frames.items():
        for user, value in frame.collect().iter_rows():
            assert value == expected[user][name] or _close(value, expected[user][name]), name


@pytest.mark.parametrize("engine", ["polars", "duckdb", "sql"])
def test_recbole_tail_percentage_with_a_catalog_item_never_interacted(engine) -> None:
    """RecBole's documented TailPercentage case through ``evaluate``: its counter's item 1
    (count 0) is a catalog item that no interaction has, so it has popularity 0 and is the
    one tail item (max(⌊0.1 · 6⌋, 1) = 1 of the 6 catalog items): user 3 has it at rank 1,
    [1, 1/2, 1/3] at k = 1, 2, 3 (RecBole's expected values); every other user 0. Novelty
    skips it (−log₂ 0 is infinite: the ``unknown`` rule), unknown=zero counts it 0."""
    run, inter = _recbole_run(), _recbole_interactions()
    catalog = pl.DataFrame({"doc": list(RB_ITEM_COUNT)})
    qrels = run.select("query", "doc", pl.lit(1).alias("relevance"))
    names = ["TailPercentage@1", "TailPercentage@2", "TailPercentage@3", "novelty@3",
             "novelty(unknown=zero)@3"]  # fmt: skip
    options = {"interactions": inter, "catalog": catalog, "per_query": True}
    if engine == "sql":
        con = duckdb.connect()
        for name, frame in (("r", run), ("q", qrels), ("i", inter), ("c", catalog)):
            con.register(name, frame)
        sql = pr.to_sql(names, "duckdb", "r", "q", interactions="i", catalog="c", per_query=True)
        columns = pr.compiler.column_names(names)
        got = con.sql(sql).pl().rename({v: k for k, v in columns.items()}).sort("query")
    else:
        got = pr.evaluate(run, qrels, names, engine=engine, **options).sort("query")
    tail = got.select(names[:3]).rows()
    assert tail == [(0, 0, 0), (0, 0, 0), (0, 0, 0), (1, 0.5, 1 / 3), (0, 0, 0)]
    # user 3's top 3: items 1 (popularity 0), then two others; novelty by hand
    total = sum(RB_ITEM_COUNT.values())
    top3 = [int(i) for i in RB_ITEM_MATRIX[3][:3]]
    known = [-np.log2(RB_ITEM_COUNT[i] / total) for i in top3 if RB_ITEM_COUNT[i] > 0]
    row = got.row(3, named=True)
    assert abs(row[names[3]] - np.mean(known)) < 1e-12
    assert abs(row[names[4]] - np.sum(known) / 3) < 1e-12
