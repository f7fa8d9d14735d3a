"""Recommender metrics: hand-worked cases with the arithmetic in the docstrings, through
``evaluate`` in both engines and through the frame-level functions and expressions; the
conventions' options; and every input error.

The example (string ids):

* run: user 1 ranks a, b, c, d; user 2 a, e; user 3 b.
* interactions: user 1 a, x; user 2 a, b (a twice); user 3 a, c; user 4 b.
  Popularity (distinct users): a 3, b 2, c 1, x 1 (Σ 7); d and e have no interaction.
  Self-information −log2(pop / 7): a log2(7/3), b log2(7/2), c and x log2 7.
* vectors: a (1, 0), b (0, 1), c (1, 1), d (0, 0); e has none. Cosines: a·b 0, a·c and b·c
  1/√2; d and e 0 with everything.
* categories: a {A}, b {B}, c {A, B}, e {C}: multi-hot cosines a·b 0, a·c = b·c = 1/√2 (the
  same as the vectors); Jaccard a·c = b·c = 1/2.
* similarity table: (a, b) 0.5, (c, a) 0.25 (reversed orientation); (b, c) missing: 0.
"""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest

import polars_rank as pr
from polars_rank import recsys

TOL = 1e-12
ENGINES = ("polars", "duckdb")
R2 = math.sqrt(2.0)

RUN = pl.DataFrame(
    {
        "query": ["u1", "u1", "u1", "u1", "u2", "u2", "u3"],
        "doc": ["a", "b", "c", "d", "a", "e", "b"],
        "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 1.0],
    }
)
INTERACTIONS = pl.DataFrame(
    {
        "query": ["u1", "u1", "u2", "u2", "u2", "u3", "u3", "u4"],
        "doc": ["a", "x", "a", "b", "a", "a", "c", "b"],
    }
)
VECTORS = pl.DataFrame(
    {"doc": ["a", "b", "c", "d"], "vector": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]}
)
CATEGORIES = pl.DataFrame({"doc": ["a", "b", "c", "c", "e"], "genre": ["A", "B", "A", "B", "C"]})
SIMILARITIES = pl.DataFrame({"doc_a": ["a", "c"], "doc_b": ["b", "a"], "similarity": [0.5, 0.25]})
QRELS = pl.DataFrame(
    {"query": ["u1", "u1", "u2", "u5"], "doc": ["b", "c", "e", "a"], "relevance": [2, 1, 1, 1]}
)


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= TOL * max(1.0, abs(a), abs(b))


def _evaluate(metrics, *, qrels=None, engine="polars", **kwargs) -> pl.DataFrame:
    kwargs.setdefault("interactions", INTERACTIONS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pr.evaluate(RUN, qrels, metrics, engine=engine, **kwargs)


def _check(expected: dict[str, float | None], *, per_query: bool = False, **kwargs) -> None:
    """Both engines give ``expected`` (a summary row, or one user's values per metric with
    ``per_query``: then ``expected`` maps metric → {user: value})."""
    for engine in ENGINES:
        result = _evaluate(list(expected), engine=engine, per_query=per_query, **kwargs)
        if per_query:
            rows = {r["query"]: r for r in result.iter_rows(named=True)}
            for name, by_user in expected.items():
                for user, value in by_user.items():  # type: ignore[union-attr]
                    got = rows[user][name]
                    assert _close(got, value), (engine, name, user, got, value)
        else:
            row = result.row(0, named=True)
            for name, value in expected.items():
                assert _close(row[name], value), (engine, name, row[name], value)


# ------------------------------------------------------------------------------------------
# popularity: novelty, ARP, long tail


def test_novelty() -> None:
    """novelty@3: user 1 (a, b, c): (log2(7/3) + log2(7/2) + log2 7) / 3; user 2 (a, e; e has
    no interaction, skipped): log2(7/3); user 3 (b): log2(7/2). With unknown=zero user 2 is
    log2(7/3) / 2. Discovery model (−log2(pop / 4 users)): user 3 log2(4/2) = 1."""
    u1 = (math.log2(7 / 3) + math.log2(7 / 2) + math.log2(7)) / 3
    per_user = {
        "novelty@3": {"u1": u1, "u2": math.log2(7 / 3), "u3": math.log2(7 / 2)},
        "novelty(unknown=zero)@3": {"u2": math.log2(7 / 3) / 2},
        "novelty(model=discovery)@3": {"u3": 1.0, "u2": math.log2(4 / 3)},
        "novelty(count=interactions)@3": {"u2": math.log2(8 / 4)},  # a: 4 rows of 8
    }
    _check(per_user, per_query=True)
    _check({"novelty@3": (u1 + math.log2(7 / 3) + math.log2(7 / 2)) / 3})


def test_novelty_expression_and_item_table() -> None:
    """The same per-user values from the frame-level pieces: item_table, enrich, novelty."""
    inter = INTERACTIONS.lazy()
    items = recsys.item_table(recsys.item_popularity(inter))
    table = recsys.enrich(recsys.top_k(RUN.lazy()), items)
    got = dict(table.group_by("query").agg(recsys.novelty(3)).collect().iter_rows())
    assert _close(got["u2"], math.log2(7 / 3)) and _close(got["u3"], math.log2(7 / 2))


def test_average_popularity_and_long_tail() -> None:
    """ARP@3: user 1 (3 + 2 + 1) / 3 = 2, user 2 (3 + 0) / 2 = 1.5 (e unknown: 0), user 3 2:
    mean 11/6. Long tail with head_share=0.5: the 4 known items ascending by (popularity, id)
    are c, x, b, a; the head is the ⌊0.5 · 4⌋ = 2 most popular (a, b), the tail c, x and the
    unknown d, e: user 1 1/3, user 2 1/2, user 3 0: mean 5/18. The default head_share=0.2
    gives a head of ⌊0.8⌋ = 0 items: everything is tail (1.0). unknown=head: user 2 0."""
    _check(
        {
            "arp@3": 11 / 6,
            "aplt(head_share=0.5)@3": 5 / 18,
            "aplt@3": 1.0,
            "aplt(head_share=0.5,unknown=head)@3": (1 / 3 + 0 + 0) / 3,
            "aplt(tail_share=0.5)@3": 5 / 18,  # tail: the 2 least popular (c, x) and d, e
            "aplt(tail_popularity=2)@3": (2 / 3 + 1 / 2 + 1) / 3,  # tail = b, c, x + d, e
        }
    )


# ------------------------------------------------------------------------------------------
# corpus level


def test_coverage_entropy_gini_user_coverage() -> None:
    """The default catalog: interactions a, b, c, x ∪ run a, b, c, d, e = 6 items. Top 2:
    user 1 a, b; user 2 a, e; user 3 b → shown a, b, e: coverage 3/6. Counts a 2, b 2, e 1
    (Σ 5): entropy −(2 · 0.4 log2 0.4 + 0.2 log2 0.2); Gini over 6 items, sorted counts
    0, 0, 0, 1, 2, 2 at j = 1 … 6, weights 2j − 7 = −5 … 5: (1·1 + 3·2 + 5·2) / (6 · 5).
    Every user has an item: user coverage 1. Entropy in RecBole's convention (natural log,
    divided by the 3 recommended items): ShannonEntropy."""
    entropy = -(2 * 0.4 * math.log2(0.4) + 0.2 * math.log2(0.2))
    recbole = -(2 * 0.4 * math.log(0.4) + 0.2 * math.log(0.2)) / 3
    _check(
        {
            "coverage@2": 0.5,
            "entropy@2": entropy,
            "gini@2": 17 / 30,
            "user_coverage@2": 1.0,
            "ShannonEntropy@2": recbole,
            "entropy(base=10)@2": entropy / math.log2(10),
        }
    )


def test_frame_level_corpus_functions() -> None:
    top = recsys.top_k(RUN.lazy())
    catalog = recsys.default_catalog(RUN.lazy(), INTERACTIONS.lazy())
    assert recsys.catalog_coverage(top, catalog, 2).collect().item() == 0.5
    assert _close(recsys.gini_index(top, catalog, 2).collect().item(), 17 / 30)
    users = pl.LazyFrame({"query": ["u1", "u2", "u3", "u9"]})
    assert recsys.user_coverage(top, users, 2).collect().item() == 0.75


def test_explicit_catalog_warns_about_items_outside() -> None:
    """Catalog a, b, c: shown at k = 2 are a, b, e; e is outside, not counted and warned
    about: coverage 2/3; Gini over a, b, c with counts 2, 2, 0: (−2·0 + 0·2 + 2·2) / (3 · 4)."""
    catalog = pl.DataFrame({"doc": ["a", "b", "c"]})
    for engine in ENGINES:
        with pytest.warns(UserWarning) as caught:
            result = pr.evaluate(
                RUN, None, ["coverage@2", "gini@2"], catalog=catalog, engine=engine
            )
        assert result.rows() == [(2 / 3, 4 / 12)]
        messages = [str(w.message) for w in caught]
        assert messages == [
            "1 recommended item is not in the catalog and was not counted by coverage@2, gini@2"
        ]


def test_users_follow_the_qrels() -> None:
    """With qrels the recommender metrics see the ranking metrics' users: the judged users 1,
    2 and 5 (user 3 has no judgment: left out, with the usual warning). User 5 has no
    recommendation: null novelty, uncovered. user_coverage@1 = 2/3; with rel=1 at k = 1 no
    top item is relevant (a, a): 0; at k = 2 user 1 has b (2), user 2 e (1): 2/3."""
    for engine in ENGINES:
        with pytest.warns(UserWarning, match="1 query in the run has no judgments"):
            result = pr.evaluate(
                RUN,
                QRELS,
                ["novelty@3", "P@1"],
                interactions=INTERACTIONS,
                per_query=True,
                engine=engine,
            )
        assert result["query"].to_list() == ["u1", "u2", "u5"]
        assert result["novelty@3"][2] is None and result["P@1"][2] == 0.0
    _check(
        {
            "user_coverage@1": 2 / 3,
            "user_coverage(rel=1)@1": 0.0,
            "user_coverage(rel=1)@2": 2 / 3,
            "user_coverage(rel=2)@2": 1 / 3,
        },
        qrels=QRELS,
    )
    _check({"user_coverage@1": 1.0}, qrels=QRELS, queries="both")  # users 1 and 2 only


# ------------------------------------------------------------------------------------------
# intra-list diversity


def test_intra_list_diversity() -> None:
    """User 1 at k = 3 (a, b, c): 1 − (0 + 1/√2 + 1/√2) / 3 for vectors and category cosines;
    Jaccard 1 − (0 + 1/2 + 1/2) / 3 = 2/3; the table 1 − (0.5 + 0.25 + 0) / 3 = 0.75. At k = 4
    d joins with similarity 0: 1 − √2 / 6 (vectors). User 2 (a, e; e without features): 1.
    User 3 (one item): null."""
    cosine = 1 - R2 / 3
    for features, name, u1 in (
        (VECTORS, "ild@3", cosine),
        (CATEGORIES, "ild@3", cosine),
        (CATEGORIES, "ild(similarity=jaccard)@3", 2 / 3),
        (SIMILARITIES, "ild@3", 0.75),
    ):
        _check({name: {"u1": u1, "u2": 1.0, "u3": None}}, per_query=True, item_features=features)
        _check({name: (u1 + 1.0) / 2}, item_features=features)
    _check({"diversity@4": {"u1": 1 - R2 / 6}}, per_query=True, item_features=VECTORS)


def test_intra_list_diversity_frame_function() -> None:
    top = recsys.top_k(RUN.lazy())
    got = dict(recsys.user_diversity(top, VECTORS, 3).collect().iter_rows())
    assert _close(got["u1"], 1 - R2 / 3) and got["u3"] is None
    table = recsys.cooccurrence_similarity(INTERACTIONS).collect()
    # a: users 1, 2, 3; b: 2, 4; c: 3; x: 1 → a·b 1/√6, a·c 1/√3, a·x 1/√3
    assert dict(((a, b), v) for a, b, v in table.iter_rows()) == pytest.approx(
        {("a", "b"): 1 / math.sqrt(6), ("a", "c"): 1 / math.sqrt(3), ("a", "x"): 1 / math.sqrt(3)}
    )


# ------------------------------------------------------------------------------------------
# serendipity


def test_serendipity_without_relevance() -> None:
    """Histories: user 1 {a, x} (x without a vector), user 2 {a, b}, user 3 {a, c}.
    Unexpectedness 1 − mean similarity with the history: user 1 a 1 − (1 + 0)/2 = 1/2 (a is
    in its own history: similarity 1), b 1 − 0 = 1, c 1 − (1/√2)/2; user 2 a 1 − (1 + 0)/2,
    e 1 (no vector); user 3 b 1 − (0 + 1/√2)/2."""
    u1 = (0.5 + 1.0 + (1 - 1 / (2 * R2))) / 3
    u2 = (0.5 + 1.0) / 2
    u3 = 1 - 1 / (2 * R2)
    _check(
        {"serendipity(gain=none)@3": {"u1": u1, "u2": u2, "u3": u3}},
        per_query=True,
        item_features=VECTORS,
    )
    _check(
        {"serendipity(gain=none)@3": {"u1": u1, "u2": u2, "u3": u3}},
        per_query=True,
        item_features=CATEGORIES,  # the same cosines; e has a category of its own: 1
    )


def test_history_with_and_without_repeated_pairs() -> None:
    """The history is de-duplicated only when a pair may repeat: INTERACTIONS repeats (u2, a),
    the same rows without the repeat do not. Both give the values of
    test_serendipity_without_relevance and the novelty of test_novelty (popularity counts
    distinct users: a 3 either way), and the count that decides says so."""
    from polars_rank.engines.polars.recsys import distinct_pairs

    once = INTERACTIONS.unique(maintain_order=True)
    assert once.height == INTERACTIONS.height - 1
    for interactions in (INTERACTIONS, once):
        pairs = distinct_pairs(interactions.lazy(), "query", "doc").collect()
        assert pairs.sort(pl.all()).equals(once.sort(pl.all()))
    u1 = (0.5 + 1.0 + (1 - 1 / (2 * R2))) / 3
    novelty_u1 = (math.log2(7 / 3) + math.log2(7 / 2) + math.log2(7)) / 3
    expected = {
        "serendipity(gain=none)@3": {"u1": u1, "u2": 0.75, "u3": 1 - 1 / (2 * R2)},
        "novelty@3": {"u1": novelty_u1, "u2": math.log2(7 / 3)},
    }
    for interactions in (INTERACTIONS, once):
        _check(expected, per_query=True, item_features=VECTORS, interactions=interactions)


def test_serendipity_with_relevance_from_the_qrels() -> None:
    """Gains from the qrels: user 1 b (2), c (1); user 2 e (1). Binary: user 1
    (0 · 1/2 + 1 · 1 + 1 · (1 − 1/(2√2))) / 3; user 2 (0 + 1 · 1) / 2; graded: user 1
    (0 + 2 · 1 + 1 · (1 − 1/(2√2))) / 3. User 5 has neither recommendations nor history:
    null; the mean is over users 1 and 2."""
    c = 1 - 1 / (2 * R2)
    binary = {"u1": (1 + c) / 3, "u2": 0.5, "u5": None}
    graded = {"u1": (2 + c) / 3, "u2": 0.5, "u5": None}
    for features in (VECTORS, CATEGORIES):
        _check(
            {"serendipity@3": binary, "serendipity(gain=graded)@3": graded},
            per_query=True,
            qrels=QRELS,
            item_features=features,
        )
        _check({"serendipity@3": ((1 + c) / 3 + 0.5) / 2}, qrels=QRELS, item_features=features)


def test_serendipity_with_a_similarity_table() -> None:
    """User 1 (history a, x): a 1 − (1 + 0)/2, b 1 − (0.5 + 0)/2, c 1 − (0.25 + 0)/2."""
    u1 = ((1 - 0.5) + (1 - 0.25) + (1 - 0.125)) / 3
    _check({"serendipity(gain=none)@3": {"u1": u1}}, per_query=True, item_features=SIMILARITIES)


def test_expressions_over_category_vectors() -> None:
    """``unit_vectors`` of categories: a {A} → (1, 0, 0), b {B} → (0, 1, 0), c {A, B} →
    (1, 1, 0)/√2, e {C} → (0, 0, 1); d has none (null: similar to nothing). The expressions
    then give the category cosine values worked out above: ILD@3 user 1 (a, b, c)
    1 − (0 + 1/√2 + 1/√2) / 3, user 2 (a, e) 1, user 3 null; serendipity without relevance
    user 1 (1/2 + 1 + 1 − 1/(2√2)) / 3, user 2 (1/2 + 1) / 2 (e shares no category with
    a, b), user 3 1 − 1/(2√2) — and the frame-level functions agree."""
    unit = dict(recsys.unit_vectors(CATEGORIES).collect().iter_rows())
    assert set(unit) == {"a", "b", "c", "e"}
    assert unit["a"] == {"u0": 1.0, "u1": 0.0, "u2": 0.0}
    assert unit["e"] == {"u0": 0.0, "u1": 0.0, "u2": 1.0}
    assert _close(unit["c"]["u0"], 1 / R2) and _close(unit["c"]["u1"], 1 / R2)
    rows = (
        recsys.top_k(RUN.lazy(), 3)
        .join(recsys.unit_vectors(CATEGORIES), on="doc", how="left")
        .join(recsys.history_vectors(INTERACTIONS, CATEGORIES), on="query", how="left")
    )
    got = {
        user: (ild, ser)
        for user, ild, ser in rows.group_by("query")
        .agg(pr.intra_list_diversity(), pr.serendipity(gain="none"))
        .collect()
        .iter_rows()
    }
    expected = {
        "u1": (1 - R2 / 3, (0.5 + 1.0 + 1 - 1 / (2 * R2)) / 3),
        "u2": (1.0, 0.75),
        "u3": (None, 1 - 1 / (2 * R2)),
    }
    for user, (ild, ser) in expected.items():
        assert _close(got[user][0], ild) and _close(got[user][1], ser), (user, got[user])
    top = recsys.top_k(RUN.lazy())
    frame = dict(recsys.user_diversity(top, CATEGORIES, 3).collect().iter_rows())
    assert all(_close(frame[u], expected[u][0]) for u in expected)
    with pytest.raises(pr.PolarsRankError, match="null categories"):
        recsys.unit_vectors(
            pl.DataFrame({"doc": ["a"], "genre": [None]}, schema_overrides={"genre": pl.String})
        )
    with pytest.raises(pr.PolarsRankError, match="similarity table"):
        recsys.unit_vectors(SIMILARITIES)


def test_unexpectedness_rows() -> None:
    top = recsys.top_k(RUN.lazy())
    rows = recsys.unexpectedness(top, INTERACTIONS.lazy(), VECTORS, 3).collect()
    got = {(q, d): v for q, d, _, v in rows.iter_rows()}
    assert _close(got[("u1", "a")], 0.5) and _close(got[("u1", "b")], 1.0)


# ------------------------------------------------------------------------------------------
# cutoffs, ranking, engines


def test_several_cutoffs_in_one_call() -> None:
    """k = 1, 2 and all from one ranked table: ARP user 1 3, (3 + 2)/2, (3 + 2 + 1 + 0)/4."""
    _check({"arp@1": {"u1": 3.0}, "arp@2": {"u1": 2.5}, "arp": {"u1": 1.5}}, per_query=True)


def test_ties_are_broken_like_the_ranking_metrics() -> None:
    """Tied scores: item ids descending as text, as P@k ranks them: '9' > '2' > '10'.
    Popularity 9: 2, 10: 1, 2: 0 → ARP@1 = 2, ARP@2 = (2 + 0) / 2 = 1."""
    run = pl.DataFrame({"query": [1, 1, 1], "doc": [10, 9, 2], "score": [0.5, 0.5, 0.5]})
    inter = pl.DataFrame({"query": [7, 7, 8], "doc": [10, 9, 9]})
    for engine in ENGINES:
        result = pr.evaluate(run, None, ["arp@1", "arp@2"], interactions=inter, engine=engine)
        assert result.rows() == [(2.0, 1.0)]


def test_corpus_metrics_have_no_per_query_value() -> None:
    for engine in ENGINES:
        with pytest.raises(pr.PolarsRankError, match="coverage@10, gini have one value"):
            pr.evaluate(
                RUN,
                None,
                ["novelty@10", "coverage@10", "gini"],
                per_query=True,
                engine=engine,
                interactions=INTERACTIONS,
            )


@pytest.mark.parametrize(
    ("metrics", "kwargs", "message"),
    [
        (["novelty@10"], {}, "metric 'novelty@10' needs interactions=… (the training history"),
        (["ild@10"], {"interactions": INTERACTIONS}, "metric 'ild@10' needs item_features="),
        (
            ["serendipity@10"],
            {"interactions": INTERACTIONS, "item_features": VECTORS},
            "metric 'serendipity@10' needs qrels",
        ),
        (["user_coverage(rel=1)@5"], {}, "needs qrels"),
        (["nDCG@10"], {}, "metric 'nDCG@10' needs qrels"),
        (
            ["ild(similarity=jaccard)@5"],
            {"item_features": VECTORS},
            "similarity=jaccard needs categories features, got vectors",
        ),
        (
            ["aplt(tail_share=0.1,tail_popularity=3)"],
            {"interactions": INTERACTIONS},
            "give at most one of tail_share and tail_popularity",
        ),
        (
            ["novelty"],
            {"interactions": INTERACTIONS.with_columns(pl.col("doc").cast(pl.Categorical))},
            "run column 'doc' is String but interactions column 'doc' is Categorical",
        ),
        (
            ["ild"],
            {"item_features": VECTORS.with_columns(pl.lit(1).alias("extra"))},
            "item_features must have the columns 'doc' and one feature column",
        ),
        (
            ["ild"],
            {"item_features": pl.DataFrame({"doc": ["a", "b"], "v": [[1.0], [1.0, 2.0]]})},
            "vectors of different lengths [1, 2]",
        ),
        (
            ["ild"],
            {"item_features": pl.DataFrame({"doc": ["a", "b"], "v": [[1.0], [float("nan")]]})},
            "1 vector(s) with a null or NaN component; first at row 1 (doc 'b')",
        ),
        (
            ["ild"],
            {"item_features": pl.DataFrame({"doc": ["a", "a"], "v": [[1.0], [2.0]]})},
            "1 item(s) with more than one vector, e.g. doc 'a'",
        ),
        (
            ["ild"],
            {
                "item_features": pl.DataFrame(
                    {"doc_a": ["a", "b"], "doc_b": ["b", "a"], "similarity": [0.5, 0.6]}
                )
            },
            "1 pair(s) two different similarities",
        ),
        (
            ["novelty"],
            {"interactions": pl.DataFrame({"query": ["u1", None], "doc": ["a", "b"]})},
            "interactions has 1 row(s) with a null query or doc id; first at row 1",
        ),
        (
            ["coverage"],
            {"catalog": pl.DataFrame({"doc": ["a", None]})},
            "catalog has 1 null doc id(s)",
        ),
    ],
)
def test_input_errors(metrics, kwargs, message) -> None:
    for engine in ENGINES:
        with pytest.raises(pr.PolarsRankError) as caught:
            pr.evaluate(RUN, None, metrics, engine=engine, **kwargs)
        assert message in str(caught.value), (engine, str(caught.value))


def test_bad_recommender_parameters() -> None:
    for name in ("aplt(head_share=2)", "entropy(base=1)", "novelty(unknown=drop)", "ild(x=1)"):
        with pytest.raises(pr.PolarsRankError):
            pr.parse_metric(name)
    with pytest.raises(pr.PolarsRankError, match="unknown must be 'skip' or 'zero'"):
        recsys.novelty(unknown="drop")
    with pytest.raises(pr.PolarsRankError, match="head_share must be a number in"):
        recsys.item_table(pl.LazyFrame({"doc": [1], "popularity": [1]}), head_share=-1)


def test_readme_sql_example() -> None:
    """The README's SQL example runs as written and gives evaluate's numbers."""
    import duckdb

    con = pr.duckdb.register(duckdb.connect())
    con.register("run", RUN)
    con.register("train", INTERACTIONS)
    con.register("catalog", pl.DataFrame({"doc": ["a", "b", "c", "d", "e", "x"]}))
    con.register("vectors", VECTORS)
    con.execute("CREATE TABLE top AS FROM top_k('run', k := 10)")
    con.execute("CREATE TABLE pop AS FROM item_popularity('train')")
    con.execute("CREATE TABLE items AS FROM item_table('pop')")
    novelty = con.sql(
        "SELECT query, novelty(rank, self_information), average_popularity(rank, popularity) "
        "FROM enrich('top', 'items') GROUP BY query ORDER BY query"
    ).fetchall()
    coverage = con.sql("FROM catalog_coverage('top', 'catalog')").fetchall()[0][0]
    ild = dict(con.sql("FROM intra_list_diversity_vectors('top', 'vectors')").fetchall())
    expected = _evaluate(
        ["novelty@10", "arp@10", "ild@10"], item_features=VECTORS, per_query=True
    ).rows()
    for (q, n, a, d), (sq, sn, sa) in zip(expected, novelty, strict=True):
        assert q == sq and _close(n, sn) and _close(a, sa) and _close(d, ild[q])
    assert coverage == 5 / 6  # a, b, c, d, e of the six items


def test_vector_expressions_hand_worked() -> None:
    """Items a = (1, 0), b = (3, 4) → unit (0.6, 0.8), c = (0, 2) → (0, 1), z without a vector.
    User 1 recommends a, b, c, z (ranks 1-4); its history is c and b (b twice: counted once),
    so C = (0, 1) + (0.6, 0.8) = (0.6, 1.8), |H| = 2; grades a 2, b none, c 1, z 1.

    ILD@3 (a, b, c): Σ u = (1.6, 1.8), ‖Σ u‖² = 2.56 + 3.24 = 5.8, m = 3, pair sum
    (5.8 − 3) / 2 = 1.4 (= a·b 0.6 + a·c 0 + b·c 0.8), ILD = 1 − 1.4 / 3.
    ILD (all four): the same Σ u and m, n = 4: 1 − 1.4 / 6.
    Unexpectedness: a 1 − 0.6/2 = 0.7, b 1 − (0.36 + 1.44)/2 = 0.1, c 1 − 1.8/2 = 0.1,
    z 1 (no vector). serendipity(gain=none)@3 = (0.7 + 0.1 + 0.1) / 3 = 0.3;
    binary (level 1) gains 1, 0, 1, 1: (0.7 + 0 + 0.1 + 1) / 4 = 0.45;
    graded: (2 · 0.7 + 0 + 0.1 + 1) / 4 = 0.625. User 2 (one item, no history): nulls."""
    vectors = pl.DataFrame({"doc": ["a", "b", "c"], "v": [[1, 0], [3, 4], [0, 2]]})
    past = pl.DataFrame({"query": [1, 1, 1], "doc": ["c", "b", "b"]})
    top = pl.LazyFrame(
        {
            "query": [1, 1, 1, 1, 2],
            "doc": ["a", "b", "c", "z", "a"],
            "rank": [1, 2, 3, 4, 1],
            "relevance": [2, None, 1, 1, None],
        }
    )
    rows = top.join(recsys.unit_vectors(vectors), on="doc", how="left").join(
        recsys.history_vectors(past, vectors), on="query", how="left"
    )
    got = (
        rows.group_by("query")
        .agg(
            pr.intra_list_diversity(3).alias("ild3"),
            pr.intra_list_diversity().alias("ild"),
            pr.serendipity(3, gain="none").alias("none3"),
            pr.serendipity().alias("binary"),
            pr.serendipity(gain="graded").alias("graded"),
        )
        .sort("query")
        .collect()
    )
    expected = [1 - 1.4 / 3, 1 - 1.4 / 6, 0.3, 0.45, 0.625]
    assert list(got.row(0)[1:]) == pytest.approx(expected, abs=1e-15)
    assert got.row(1) == (2, None, None, None, None, None)
    # the unexpectedness of each item, from the frame function
    unexpected = recsys.unexpectedness(top, past.lazy(), vectors).sort("rank").collect()
    values = unexpected.filter(pl.col("query") == 1)["unexpectedness"].to_list()
    assert values == pytest.approx([0.7, 0.1, 0.1, 1.0], abs=1e-15)


def test_vector_expression_inputs() -> None:
    with pytest.raises(pr.PolarsRankError, match="k must be a positive integer"):
        pr.intra_list_diversity(0)
    with pytest.raises(pr.PolarsRankError, match="gain"):
        pr.serendipity(gain="maybe")
    categories = pl.DataFrame({"doc": ["a"], "genre": ["x"]})  # one category: (1)
    assert recsys.unit_vectors(categories).collect().rows() == [("a", {"u0": 1.0})]


@pytest.mark.parametrize("engine", ENGINES)
def test_counted_metrics_repeat_to_the_last_bit(engine) -> None:
    """Coverage, entropy, Gini, user coverage, ARP and APLT rest on integer counts, and entropy
    adds its terms smallest first: the same rows in another order, or the same call again,
    give the same bits (the README's "Rounding" convention). 300 users × 25 items over 400
    items with unequal popularity, so that the entropy has hundreds of distinct terms."""
    import random

    rng = random.Random(5)
    weights = [1.0 / (i + 1) for i in range(400)]
    rows, history = [], []
    for user in range(300):
        for doc in set(rng.choices(range(400), weights=weights, k=25)):
            rows.append((user, doc, rng.random()))
        for doc in rng.choices(range(400), weights=weights, k=10):
            history.append((user, doc))
    run = pl.DataFrame(rows, schema=["query", "doc", "score"], orient="row")
    interactions = pl.DataFrame(history, schema=["query", "doc"], orient="row")
    metrics = ["coverage@10", "entropy@10", "gini@10", "user_coverage@10", "arp@10", "aplt@10"]
    expected = pr.evaluate(run, None, metrics, interactions=interactions, engine=engine)
    for seed in range(6):
        shuffled = pr.evaluate(
            run.sample(fraction=1.0, shuffle=True, seed=seed),
            None,
            metrics,
            interactions=interactions.sample(fraction=1.0, shuffle=True, seed=seed),
            engine=engine,
        )
        assert shuffled.equals(expected), (shuffled.row(0), expected.row(0))
