"""Hypothesis strategies and assertions the tests share: generated runs and judgments, metric
names read from the registry, and frame comparison within a tolerance."""

from __future__ import annotations

import math

import polars as pl
from hypothesis import settings
from hypothesis import strategies as st

from polars_rank.catalog.registry import metrics

TOLERANCE = 1e-12


def fast_first(values: list) -> list:
    """Parametrize values with the first in the fast loop and the others marked ``slow``."""
    import pytest

    return [v if i == 0 else pytest.param(v, marks=pytest.mark.slow) for i, v in enumerate(values)]


def examples(count: int, *, fast: int | None = None) -> int:
    """A test's example count under the loaded hypothesis profile: ``count`` with the ``ci``
    profile (100 examples by default), a tenth of it (at least 2) with ``dev`` (10); ``fast``,
    when given, caps the reduced count (for tests whose every example costs seconds: the
    ``ci`` profile still runs ``count``)."""
    scaled = max(2, math.ceil(count * settings().max_examples / 100))
    return min(scaled, fast) if fast is not None and scaled < count else scaled


QUERIES = ["q1", "q2", "q3", "q4", "q10"]
DOCS = ["a", "b", "c", "d", "e", "f", "g", "9", "10", "é"]
#: ids that a case- or accent-insensitive collation would take for equal, or sort otherwise
CASED_QUERIES = ["q1", "Q1", "q2", "Ö", "o"]
CASED_DOCS = ["a", "A", "B", "b", "e", "é", "E", "É", "ß", "ss", "10", "9"]


@st.composite
def runs_and_qrels(
    draw,
    duplicates: bool = False,
    queries: list[str] = QUERIES,
    docs: list[str] = DOCS,
    recommender: bool = False,
):
    """(run, qrels) frames, each with at least one row (an empty input is an error, tested
    apart); ``duplicates=True`` repeats some (query, doc) pairs; ``recommender=True`` adds a
    third item, the recommender inputs of :func:`recommender_inputs` over the same ids."""
    integer_ids = draw(st.booleans())
    pair = st.tuples(st.sampled_from(queries), st.sampled_from(docs))
    run_pairs = draw(st.lists(pair, min_size=1, max_size=30, unique=not duplicates))
    qrels_pairs = draw(st.lists(pair, min_size=1, max_size=20, unique=not duplicates))
    scores = draw(
        st.lists(
            st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0, 0.25]),
            min_size=len(run_pairs),
            max_size=len(run_pairs),
        )
    )
    ranks = draw(st.lists(st.integers(1, 6), min_size=len(run_pairs), max_size=len(run_pairs)))
    grades = draw(
        st.lists(
            st.sampled_from([-1, 0, 0, 1, 1, 2, 3]),
            min_size=len(qrels_pairs),
            max_size=len(qrels_pairs),
        )
    )

    def ids(values: list[str], table: list[str]) -> pl.Series:
        if integer_ids:
            return pl.Series([table.index(v) * 7 + 3 for v in values], dtype=pl.Int64)
        return pl.Series(values, dtype=pl.String)

    run = pl.DataFrame(
        {
            "query": ids([q for q, _ in run_pairs], queries),
            "doc": ids([d for _, d in run_pairs], docs),
            "score": pl.Series(scores, dtype=pl.Float64),
            "rank": pl.Series(ranks, dtype=pl.Int64),
        }
    )
    qrels = pl.DataFrame(
        {
            "query": ids([q for q, _ in qrels_pairs], queries),
            "doc": ids([d for _, d in qrels_pairs], docs),
            "relevance": pl.Series(grades, dtype=pl.Int64),
        }
    )
    if not recommender:
        return run, qrels
    return run, qrels, draw(recommender_inputs(queries, docs, lambda v, t: ids(v, t)))


#: The kinds of item features the recommender metrics take.
FEATURE_KINDS = ("vectors", "categories", "similarities")


@st.composite
def recommender_inputs(draw, queries: list[str], docs: list[str], ids) -> dict:
    """``interactions`` (repeated rows included, users with and without history),
    ``item_features`` of a drawn kind (vectors with zero and missing ones, List or Array;
    categories with repeated rows; a similarity table in either orientation) and a
    ``catalog`` (None, or ids that miss some recommended items and add others)."""
    extra = docs + ["x", "y"]
    pair = st.tuples(st.sampled_from(queries + ["u9"]), st.sampled_from(extra))
    history = draw(st.lists(pair, max_size=25))
    interactions = pl.DataFrame(
        {
            "query": ids([q for q, _ in history], queries + ["u9"]),
            "doc": ids([d for _, d in history], extra),
        }
    )
    kind = draw(st.sampled_from(FEATURE_KINDS))
    items = draw(st.lists(st.sampled_from(extra), unique=True, max_size=len(extra)))
    if kind == "vectors":
        component = st.sampled_from([0.0, 1.0, -1.0, 0.5, 2.0])
        vectors = [draw(st.lists(component, min_size=3, max_size=3)) for _ in items]
        features = pl.DataFrame(
            {"doc": ids(items, extra), "vector": pl.Series(vectors, dtype=pl.List(pl.Float64))}
        )
        if draw(st.booleans()):
            features = features.with_columns(pl.col("vector").list.to_array(3))
    elif kind == "categories":
        rows = draw(st.lists(st.tuples(st.sampled_from(extra), st.sampled_from("ABC"))))
        features = pl.DataFrame(
            {"doc": ids([d for d, _ in rows], extra), "genre": [c for _, c in rows]},
            schema_overrides={"genre": pl.String},
        )
    else:
        unordered = draw(
            st.lists(
                st.tuples(st.sampled_from(extra), st.sampled_from(extra)).filter(
                    lambda p: p[0] < p[1]
                ),
                unique=True,
                max_size=20,
            )
        )
        flips = draw(st.lists(st.booleans(), min_size=len(unordered), max_size=len(unordered)))
        values = draw(
            st.lists(
                st.sampled_from([0.0, 0.25, 0.5, 1.0, -0.5]),
                min_size=len(unordered),
                max_size=len(unordered),
            )
        )
        oriented = [(b, a) if f else (a, b) for (a, b), f in zip(unordered, flips, strict=True)]
        features = pl.DataFrame(
            {
                "doc_a": ids([a for a, _ in oriented], extra),
                "doc_b": ids([b for _, b in oriented], extra),
                "similarity": pl.Series(values, dtype=pl.Float64),
            }
        )
    catalog = None
    if draw(st.booleans()):
        chosen = draw(st.lists(st.sampled_from(extra), unique=True, min_size=1))
        catalog = pl.DataFrame({"doc": ids(chosen, extra)})
    return {
        "interactions": interactions,
        "item_features": features,
        "catalog": catalog,
        "kind": kind,
    }


def registry_metric_names(
    level: str | None = None, table: str | None = None, kind: str | None = None
) -> list[str]:
    """Names that exercise every registered metric: each without and with cutoffs, with
    ``rel=2`` where the relevance level applies, with every value of each parameter, and each
    trec_eval name with its first default cutoff. ``level`` (``query``/``corpus``) and
    ``table`` (``judged``/``recommendations``) keep those metrics; ``kind`` (of item features)
    leaves out parameter values for other kinds."""
    names: list[str] = []
    for entry in metrics():
        if (level and entry.level != level) or (table and entry.table != table):
            continue
        base = entry.aliases[0].name
        cuts = {"none": [""], "optional": ["", "@3"], "required": ["@1", "@5"]}.get(
            entry.cutoff, ["@0", "@0.25", "@1"]
        )
        names += [base + cut for cut in cuts]
        if entry.relevance_level:
            names.append(f"{base}(rel=2){cuts[-1]}")
        for param in entry.params:
            if kind is not None and param.variants and kind not in param.variants:
                continue
            if param.spellings:  # one plain spelling of each value
                spelled = {v: k for k, v in sorted(param.spellings.items(), reverse=True)}
                values = sorted(k for k in spelled.values() if k.isidentifier())
            else:
                values = list(param.examples) or ["0.5", "2"]
            names += [f"{base}({param.name}={value}){cuts[-1]}" for value in values]
        for trec in entry.trec_eval:
            if trec.cutoffs and entry.cutoff in ("required", "optional"):
                names.append(f"{trec.name}.{int(trec.cutoffs[0])}")
    return list(dict.fromkeys(names))


#: How many interleaved shares :func:`share` cuts a metric list into.
SHARES = 3
#: The share an example evaluates: an example costs time in proportion to its metrics, so a
#: property test over every registered metric draws one share per example (each share still
#: holds metrics of every kind and family); with the ``ci`` profile's derandomized examples
#: every share is drawn many times.
SHARE = st.integers(0, SHARES - 1)


def share(names: list[str], part: int) -> list[str]:
    """The ``part``-th of :data:`SHARES` interleaved shares of ``names`` (every name is in
    exactly one share); every name in the fast loop, whose profile runs a few examples only."""
    return names[part::SHARES] if settings().max_examples >= 50 else names


def summary_metric_names(
    level: str | None = None, table: str | None = None, kind: str | None = None
) -> list[str]:
    """:func:`registry_metric_names` without the metrics that have no summary over queries
    (``relstring``: a string per query), for summary rows."""
    from polars_rank.catalog.names import parse_metric

    names = registry_metric_names(level=level, table=table, kind=kind)
    return [name for name in names if parse_metric(name).summary != "none"]


def assert_same(left: pl.DataFrame, right: pl.DataFrame) -> None:
    """Same columns, dtypes and rows; floats equal within 1e-12 (relative above 1), NaN where
    the other has NaN."""
    assert left.columns == right.columns
    assert left.schema == right.schema
    assert left.height == right.height
    for name in left.columns:
        a, b = left[name].to_list(), right[name].to_list()
        if left.schema[name] == pl.Float64:
            for x, y in zip(a, b, strict=True):
                if x is None or y is None:
                    assert x is None and y is None, (name, a, b)
                elif math.isnan(x) or math.isnan(y):  # trec_eval's -nan, e.g. G, Rndcg
                    assert math.isnan(x) and math.isnan(y), (name, x, y)
                else:
                    assert math.isclose(x, y, rel_tol=TOLERANCE, abs_tol=TOLERANCE), (name, x, y)
        else:
            assert a == b, name
