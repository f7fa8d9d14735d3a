"""The catalog's indexes: every entry of every family, looked up by name.

Two name spaces, one per entry point: :func:`polars_rank.evaluate` (and :func:`polars_rank.to_sql`)
parse the ranking, trec_eval and recommender names; :func:`polars_rank.evaluate_classification`
parses the classification names. A name is unique within its name space; the same name may mean
a ranking metric and a classification metric (``AP``, ``precision``, ``F1``), and each entry
point refuses the other's names, naming both.

>>> print(REGISTRY["average_precision"].sql_signature())
rank, relevance, k := NULL, denominator := 'R', relevance_level := 1
>>> [a.name for a in REGISTRY["reciprocal_rank"].aliases]
['RR', 'recip_rank', 'mrr', 'MRR', 'reciprocal_rank']
>>> sorted({e.family for e in entries()})
['classification', 'diversity', 'ranking', 'rating', 'recommender', 'trec_eval']
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from polars_rank.catalog import (
    classification,
    diversity,
    ranking,
    rating,
    recommender,
    trec_eval,
)
from polars_rank.catalog.model import Family, Metric, TrecEval

#: The name spaces: which families each entry point parses.
Scope = Literal["evaluate", "classification", "rating", "diversity"]
SCOPES: dict[Scope, tuple[Family, ...]] = {
    "evaluate": ("ranking", "trec_eval", "recommender"),
    "classification": ("classification",),
    "rating": ("rating",),
    "diversity": ("diversity",),
}
#: The entry point of each name space, as an error names it.
ENTRY_POINTS: dict[Scope, str] = {
    "evaluate": "evaluate / to_sql",
    "classification": "evaluate_classification / to_sql(predictions=...)",
    "rating": "evaluate_ratings / rating_sql",
    "diversity": "evaluate_diversity",
}

#: Every entry, family by family, in the order of the docs' tables.
_ENTRIES: tuple[Metric, ...] = (
    ranking.ENTRIES
    + trec_eval.ENTRIES
    + recommender.ENTRIES
    + classification.ENTRIES
    + rating.ENTRIES
    + diversity.ENTRIES
)


def entries(family: Family | None = None) -> list[Metric]:
    """Every entry of ``family`` (of every family without), in catalog order."""
    return [e for e in _ENTRIES if family is None or e.family == family]


def scope_of(entry: Metric) -> Scope:
    """The name space an entry's names belong to."""
    return next(s for s, families in SCOPES.items() if entry.family in families)


def _index(scope: Scope) -> dict[str, Metric]:
    table: dict[str, Metric] = {}
    for entry in _ENTRIES:
        if entry.family in SCOPES[scope]:
            if entry.name in table:
                raise AssertionError(f"metric {entry.name!r} is in the catalog twice")
            table[entry.name] = entry
    return table


def _alias_table(scope: Scope) -> dict[str, tuple[Metric, dict[str, Any]]]:
    table: dict[str, tuple[Metric, dict[str, Any]]] = {}
    for entry in _ENTRIES:
        if entry.family not in SCOPES[scope]:
            continue
        for alias in entry.aliases:
            key = alias.name.lower()
            if key in table and table[key] != (entry, dict(alias.fixed)):
                raise AssertionError(f"metric name {alias.name!r} is registered twice")
            table[key] = (entry, dict(alias.fixed))
    return table


#: Canonical name → entry, per name space.
BY_NAME: dict[Scope, dict[str, Metric]] = {s: _index(s) for s in SCOPES}
#: Lower-case name → (entry, the parameters the name fixes), per name space.
BY_ALIAS: dict[Scope, dict[str, tuple[Metric, dict[str, Any]]]] = {
    s: _alias_table(s) for s in SCOPES
}

#: The entries :func:`polars_rank.evaluate` takes, by canonical name.
REGISTRY: dict[str, Metric] = BY_NAME["evaluate"]
#: Their names, lower case → (entry, the parameters the name fixes).
ALIASES: dict[str, tuple[Metric, dict[str, Any]]] = BY_ALIAS["evaluate"]


def metrics(scope: Scope = "evaluate") -> Iterator[Metric]:
    """Every entry of a name space, in catalog order."""
    return iter(BY_NAME[scope].values())


def names(scope: Scope = "evaluate") -> list[str]:
    """Every accepted name of a name space (one spelling each), sorted case-insensitively."""
    spellings = {a.name.lower(): a.name for e in metrics(scope) for a in e.aliases}
    return sorted(spellings.values(), key=lambda n: (n.lower(), n))


def trec_eval_names() -> dict[str, tuple[Metric, TrecEval]]:
    """trec_eval measure name → (metric, how trec_eval prints it): the only way the trec_eval
    drop-in finds a metric (its ``rbp`` is ``trec_rbp``, whatever the generic ``rbp`` means).

    >>> trec_eval_names()["rbp"][0].name
    'trec_rbp'
    """
    table: dict[str, tuple[Metric, TrecEval]] = {}
    for entry in _ENTRIES:
        for trec in entry.trec_eval:
            if trec.name in table:
                raise AssertionError(f"trec_eval measure {trec.name!r} is registered twice")
            table[trec.name] = (entry, trec)
    return table
