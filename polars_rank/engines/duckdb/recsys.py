"""The recommender metrics of ``evaluate(..., engine="duckdb")``: CTEs over the macros of
``sql/recsys.sql`` (calls built from the registry), added to the ranking engine's query.

The CTEs read ``_run`` (the ranking engine's ranked-run input: ``query, doc, sort_key,
doc_key``), ``_qrels`` and ``_users`` (the evaluated users), and define ``_rec_user`` (``query``
and the per-user metrics) and ``_rec_corpus`` (one row: the corpus metrics and the number of
recommended items outside an explicit catalog, :data:`OUTSIDE`).

>>> from polars_rank.catalog.names import parse_metric
>>> from polars_rank.core.options import Options
>>> sql = recommender_ctes([parse_metric("coverage@10")], Options(order_by="score"),
...                        sources={"catalog": None}, feature_kind=None)
>>> "catalog_coverage('_top', '_catalog', k := 10)" in sql
True
"""

from __future__ import annotations

import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.catalog.recommender_inputs import item_options, largest_cutoff
from polars_rank.core.options import Options
from polars_rank.core.sqltext import ident, literal
from polars_rank.engines.duckdb.query import id_sql, metric_sql
from polars_rank.recsys.options import ItemOptions

#: The column of ``_rec_corpus`` counting recommended items outside an explicit catalog.
OUTSIDE = "__outside_catalog"

#: The table arguments of the recommender macros, as the engine's CTE names.
_TABLES = {
    "top": "'_top'",
    "catalog": "'_catalog'",
    "users": "'_users'",
    "interactions": "'_interactions'",
    "item_features": "'_features'",
}


def input_ctes(
    sources: dict[str, str | None],
    schemas: dict[str, pl.Schema],
    *,
    query: str,
    doc: str,
    run_schema: pl.Schema,
    feature_kind: str | None,
    feature_column: str | None,
) -> str:
    """``_interactions``, ``_features``, ``_catalog`` (explicit ones; the default catalog is
    built in :func:`recommender_ctes`) with the ids as the engine reads them."""
    q = id_sql(query, run_schema[query])
    d = id_sql(doc, run_schema[doc])
    parts = []
    if sources.get("interactions"):
        parts.append(
            f"_interactions AS (SELECT {q} AS query, {d} AS doc FROM {sources['interactions']})"
        )
    if sources.get("item_features"):
        src = sources["item_features"]
        if feature_kind == "similarities":
            a = id_sql("doc_a", run_schema[doc])
            b = id_sql("doc_b", run_schema[doc])
            body = f"SELECT {a} AS doc_a, {b} AS doc_b, similarity FROM {src}"
        elif feature_kind == "vectors":
            body = (
                f"SELECT {d} AS doc, CAST({ident(feature_column or '')} AS DOUBLE[]) AS vector "
                f"FROM {src}"
            )
        else:
            body = f"SELECT {d} AS doc, {ident(feature_column or '')} AS category FROM {src}"
        parts.append(f"_features AS ({body})")
    if sources.get("catalog"):
        parts.append(f"_catalog AS (SELECT {d} AS doc FROM {sources['catalog']})")
    return "".join(f"{p},\n" for p in parts)


def _cut_sql(k: int | None) -> str:
    return "true" if k is None else f"rank <= {int(k)}"


def _popularity_ctes(
    specs: list[MetricSpec], options: Options, *, has_catalog: bool = False
) -> tuple[list[str], dict[str, str]]:
    """CTEs (``query`` + labels, one per item-table configuration) and the CTE of each
    label. With an explicit catalog, its items without interactions are in the item table
    with popularity 0 (in the tail) and a NULL self-information (novelty's ``unknown``
    rule)."""
    groups: dict[ItemOptions, list[MetricSpec]] = {}
    for spec in specs:
        groups.setdefault(item_options(spec), []).append(spec)
    ctes: list[str] = []
    names: dict[str, str] = {}
    counts: set[str] = set()
    for n, (option, group) in enumerate(groups.items()):
        pop = f"_pop_{option.count}"
        if option.count not in counts:
            counts.add(option.count)
            unseen = (
                " UNION ALL SELECT c.doc, CAST(0 AS BIGINT) AS popularity FROM "
                "(SELECT DISTINCT doc FROM _catalog WHERE doc IS NOT NULL) AS c "
                "ANTI JOIN _interactions AS h ON c.doc = h.doc"
                if has_catalog
                else ""
            )
            ctes.append(
                f"{pop} AS (SELECT doc, popularity FROM item_popularity('_interactions', "
                f"count := {literal(option.count)}){unseen})"
            )
        n_users = "(SELECT n_users FROM user_count('_interactions'))"
        ctes.append(
            f"_items_{n} AS (SELECT doc, popularity, CASE WHEN popularity > 0 THEN "
            "self_information END AS self_information, in_tail "
            f"FROM item_table('{pop}', n_users := {n_users}, "
            f"model := {literal(option.model)}, head_share := {literal(option.head_share)}, "
            f"tail_share := {literal(option.tail_share)}, "
            f"tail_popularity := {literal(option.tail_popularity)}))"
        )
        values = ", ".join(
            f"{metric_sql(s, options.relevance_level)} AS {ident(s.label)}" for s in group
        )
        ctes.append(
            f"_popular_{n} AS (SELECT query, {values} FROM enrich('_top', '_items_{n}', "
            f"unknown_in_tail := {literal(option.unknown_in_tail)}) GROUP BY query)"
        )
        names |= {s.label: f"_popular_{n}" for s in group}
    return ctes, names


def recommender_ctes(
    specs: list[MetricSpec],
    options: Options,
    *,
    sources: dict[str, str | None],
    feature_kind: str | None,
    with_relevance: bool = True,
) -> str:
    """The CTEs (each followed by a comma) defining ``_top``, the per-user values
    ``_rec_user`` and the corpus row ``_rec_corpus`` for the recommender ``specs``.
    ``options`` must be resolved; ``sources`` says which inputs were given."""
    level = options.relevance_level
    cut = _cut_sql(largest_cutoff(specs))
    max_rank = "" if options.max_rank is None else f" QUALIFY rank <= {int(options.max_rank)}"
    relevance = "q.relevance" if with_relevance else "CAST(NULL AS DOUBLE)"
    ctes = [
        "_ranked AS (SELECT query, doc, row_number() OVER (PARTITION BY query "
        f"ORDER BY sort_key DESC NULLS LAST, doc_key DESC NULLS LAST) AS rank FROM _run{max_rank})",
        "_top AS (SELECT t.query, t.doc, t.rank, "
        f"{relevance} AS relevance FROM (SELECT * FROM _ranked WHERE {cut} "
        "AND query IN (SELECT query FROM _users)) AS t "
        "LEFT JOIN _qrels AS q ON t.query = q.query AND t.doc = q.doc)",
    ]
    query_level = [s for s in specs if s.entry.level == "query"]
    popular, labels = _popularity_ctes(
        [s for s in query_level if s.entry.item_value],
        options,
        has_catalog=bool(sources.get("catalog")),
    )
    ctes += popular
    joins = list(labels.values())
    for n, spec in enumerate(s for s in query_level if not s.entry.item_value):
        # a table macro (intra-list diversity, serendipity): ``query`` and a value column
        # named after the metric
        leading = tuple(_TABLES[t] for t in spec.entry.tables)
        call = metric_sql(spec, level, variant=feature_kind, leading=leading)
        value = ident(spec.entry.name)
        ctes.append(f"_similar_{n} AS (SELECT query, {value} AS {ident(spec.label)} FROM {call})")
        joins.append(f"_similar_{n}")
        labels[spec.label] = f"_similar_{n}"
    columns = ", ".join(["u.query"] + [f"{labels[s.label]}.{ident(s.label)}" for s in query_level])
    joined = " ".join(f"LEFT JOIN {j} ON u.query = {j}.query" for j in dict.fromkeys(joins))
    ctes.append(f"_rec_user AS (SELECT {columns} FROM _users AS u {joined})")
    corpus = [s for s in specs if s.entry.level == "corpus"]
    if not sources.get("catalog"):
        parts = ["SELECT doc FROM _run"]
        if sources.get("interactions"):
            parts.append("SELECT doc FROM _interactions")
        ctes.append(f"_catalog AS ({' UNION '.join(parts)})")
    values = [
        f"(SELECT * FROM {metric_sql(s, level, leading=tuple(_TABLES[t] for t in s.entry.tables))})"
        f" AS {ident(s.label)}"
        for s in corpus
    ]
    with_catalog = [s for s in corpus if "catalog" in s.entry.tables]
    outside = "0"
    if sources.get("catalog") and with_catalog:
        shown = _cut_sql(largest_cutoff(with_catalog))
        outside = (
            f"(SELECT count(*) FROM (SELECT DISTINCT doc FROM _top WHERE {shown}) AS s "
            "ANTI JOIN _catalog AS c ON s.doc = c.doc)"
        )
    values.append(f"{outside} AS {OUTSIDE}")
    ctes.append(f"_rec_corpus AS (SELECT {', '.join(values)})")
    return "".join(f"{c},\n" for c in ctes)
