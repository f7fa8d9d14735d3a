"""The recommender metrics of :func:`~polars_rank.to_sql`: CTEs in the base dialect that
:mod:`.plan` adds to the query, over the ranked run ``pr_ranked``, the evaluated users
``pr_users`` and the caller's ``interactions`` and ``catalog`` tables.

The numbers are the Polars engine's (:mod:`polars_rank.engines.polars.recsys`), built the same way:

* ``pr_top``: the evaluated users' rows of ``pr_ranked`` (the package's order) within the
  largest cutoff and ``max_rank``, with the qrels grade when a metric reads it;
* per item-table configuration (:class:`~polars_rank.recsys.options.ItemOptions`), the item
  table ``pr_items_<g>`` — popularity, self-information, tail flag, items ordered by
  (popularity, doc id) ascending as :func:`~polars_rank.recsys.item_table` orders them — and
  one ``GROUP BY`` per user computing novelty, ARP and APLT (``pr_popular_<g>``);
* corpus metrics as one-row CTEs (``pr_corpus_<n>``) over the recommendation counts per k
  (``pr_counts_<k>``) and the catalog (``pr_catalog``: the caller's, or the items of the run
  and the interactions);
* intra-list diversity and serendipity over feature vectors (the caller's ``doc`` and array
  column): the vectors exploded once with their positions (``UNNEST ... WITH ORDINALITY``,
  which sqlglot writes as Spark's ``POSEXPLODE``, BigQuery's ``WITH OFFSET`` and Snowflake's
  ``FLATTEN``), made unit vectors, then per user the closed forms of
  :mod:`polars_rank.recsys.vectors` from sums per component (``_vector_ctes``).

The doc id order inside the item table is the id's own (integers as numbers, text as bytes):
the placeholders :data:`ID_NUMBER` and :data:`ID_TEXT` are sort keys that
:func:`~polars_rank.compiler.dialects.render` writes per dialect, over ``pr_dv``, the
caller's own doc id (``docno`` is its byte key, rewrite 6 of
:func:`~polars_rank.compiler.dialects.render`).

>>> from polars_rank.catalog.names import parse_metrics
>>> plan = recommender_plan(parse_metrics(["coverage@10"]), ["pr_m1"], max_rank=None,
...                         has_catalog=False, has_interactions=False)
>>> [name for name, _ in plan.ctes]
['pr_top', 'pr_catalog', 'pr_counts_10', 'pr_corpus_1']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from polars_rank.catalog.names import MetricSpec
from polars_rank.catalog.recommender_inputs import item_options, largest_cutoff
from polars_rank.compiler.dialects import ID_NUMBER, ID_TEXT, RAW
from polars_rank.compiler.parts import ONE, ZERO, dbl, log2, num
from polars_rank.compiler.placeholders import DOC, QUERY, SOURCE, by_placeholder
from polars_rank.recsys.options import ItemOptions

#: Placeholders for the caller's recommender tables and the vector column, replaced in the
#: parsed tree.
INTERACTIONS, CATALOG, FEATURES = "pr_input_interactions", "pr_input_catalog", "pr_input_features"
VECTOR = "pr_col_vector"
#: Placeholders of the category column and of a similarity table's columns.
CATEGORY = "pr_col_category"
DOC_A, DOC_B, SIMILARITY = "pr_col_doc_a", "pr_col_doc_b", "pr_col_similarity"

#: The default kind of item features of the portable SQL (a ``doc`` and an array column);
#: ``categories`` (``doc`` and a category column, a row per item and category) and
#: ``similarities`` (``doc_a, doc_b, similarity``) are the others (:data:`FEATURE_KINDS`).
FEATURE_KIND = "vectors"
FEATURE_KINDS = ("vectors", "categories", "similarities")


@dataclass
class RecommenderPlan:
    """The CTEs of the recommender metrics, the per-user CTEs to LEFT JOIN on ``qid`` and
    the one-row corpus CTEs to CROSS JOIN; each names its value columns as the metric's
    output column."""

    ctes: list[tuple[str, str]] = field(default_factory=list)
    per_user: list[str] = field(default_factory=list)
    corpus: list[str] = field(default_factory=list)


def _within(k: int | None, column: str = "pos") -> str:
    return "1 = 1" if k is None else f"{column} <= {int(k)}"


def _top(specs: Sequence[MetricSpec], max_rank: int | None, with_grades: bool) -> str:
    """``pr_top``: ``qid, docno, pos`` (and ``grade``) of the evaluated users' top rows."""
    bounds = [b for b in (largest_cutoff(list(specs)), max_rank) if b is not None]
    where = f" WHERE r.pos <= {min(bounds)}" if bounds else ""
    if not with_grades:
        return (
            "SELECT r.qid, r.docno, r.pos FROM pr_ranked AS r "
            f"JOIN pr_users AS u ON r.qid = u.qid{where}"
        )
    return (
        "SELECT r.qid, r.docno, r.pos, j.grade FROM pr_ranked AS r "
        "JOIN pr_users AS u ON r.qid = u.qid "
        f"LEFT JOIN pr_qrels AS j ON r.qid = j.qid AND r.docno = j.docno{where}"
    )


def _item_table(option: ItemOptions, popularity: str) -> str:
    """The item table of one configuration: ``docno, popularity, self_information, in_tail``
    (:func:`polars_rank.recsys.item_table`); an item of popularity 0 (a catalog item without
    interactions) has a NULL self-information (novelty's ``unknown`` rule)."""
    pop = dbl("popularity")
    ordered = (
        f"SELECT docno, popularity, {pop} / SUM({pop}) OVER () AS choice, "
        f"{dbl(f'ROW_NUMBER() OVER (ORDER BY popularity, {ID_NUMBER}(pr_dv), {ID_TEXT}(pr_dv))')}"
        f" AS item_pos, {dbl('COUNT(*) OVER ()')} AS n_items FROM {popularity}"
    )
    if option.model == "choice":
        share, source = "o.choice", f"({ordered}) AS o"
    else:
        share, source = f"{pop} / u.n_users", f"({ordered}) AS o CROSS JOIN pr_user_count AS u"
    if option.tail_popularity is not None:
        tail = f"{pop} <= {num(option.tail_popularity)}"
    elif option.tail_share is not None:
        tail = f"item_pos <= GREATEST(FLOOR(n_items * {num(option.tail_share)}), {ONE})"
    else:
        tail = f"item_pos <= n_items - FLOOR(n_items * {num(option.head_share)})"
    return (
        f"SELECT docno, popularity, CASE WHEN popularity > 0 THEN -{log2(share)} END "
        "AS self_information, "
        f"CASE WHEN {tail} THEN 1 ELSE 0 END AS in_tail FROM {source}"
    )


def _popularity_value(spec: MetricSpec) -> str:
    """A row's value for a popularity metric: its item-table column
    (:attr:`~polars_rank.catalog.model.Metric.item_value`), with what an item without
    interactions counts (:attr:`~polars_rank.catalog.model.Metric.unknown_value`); NULL
    outside its cutoff: AVG skips it."""
    entry = spec.entry
    value = f"i.{entry.item_value}"
    unknown = None if entry.unknown_value is None else entry.unknown_value(spec.arguments())
    if unknown is not None:
        fill = float(unknown)
        value = f"COALESCE({value}, {int(fill) if fill.is_integer() else num(fill)})"
    return f"AVG(CASE WHEN {_within(spec.k, 't.pos')} THEN {dbl(value)} END)"


#: What a corpus metric's SQL is given: the spec and ``counts(k)``, the name of the CTE of the
#: recommendation counts at k (``docno, cnt``: users with the item in their top k), added to
#: the plan when first asked for.
CorpusSQL = Callable[[MetricSpec, Callable[[int | None], str]], str]

#: The portable SQL of each corpus metric, registered under its entry's name with
#: :func:`_corpus_sql`: the one-row query of its value ``pr_value``.
CORPUS_SQL: dict[str, CorpusSQL] = {}


def _corpus_sql(name: str) -> Callable[[CorpusSQL], CorpusSQL]:
    """Register the SQL of the corpus metric ``name`` (its catalog entry's name)."""

    def register(builder: CorpusSQL) -> CorpusSQL:
        CORPUS_SQL[name] = builder
        return builder

    return register


@_corpus_sql("catalog_coverage")
def _catalog_coverage(spec: MetricSpec, counts: Callable[[int | None], str]) -> str:
    return (
        "SELECT CASE WHEN s.n_catalog > 0 THEN h.n_shown / s.n_catalog END AS pr_value FROM "
        f"(SELECT {dbl('COUNT(*)')} AS n_shown FROM {counts(spec.k)} AS c "
        "JOIN pr_catalog AS cat ON c.docno = cat.docno) AS h CROSS JOIN "
        f"(SELECT {dbl('COUNT(*)')} AS n_catalog FROM pr_catalog) AS s"
    )


@_corpus_sql("shannon_entropy")
def _shannon_entropy(spec: MetricSpec, counts: Callable[[int | None], str]) -> str:
    args = spec.arguments()
    per_item = dbl("COUNT(*)") if args["per_item"] else ONE
    cnt = dbl("cnt")
    return (
        f"SELECT CASE WHEN COUNT(*) > 0 THEN -SUM(p * (LN(p) / {num(math.log(args['base']))}))"
        f" / {per_item} END AS pr_value FROM "
        f"(SELECT {cnt} / SUM({cnt}) OVER () AS p FROM {counts(spec.k)}) AS e"
    )


@_corpus_sql("gini_index")
def _gini_index(spec: MetricSpec, counts: Callable[[int | None], str]) -> str:
    # the m recommended catalog items take positions n − m + 1 … n (counts ascending; the
    # n − m others have count 0 and add nothing); ties in the count change nothing
    position = (
        f"s.n_catalog - {dbl('COUNT(*) OVER ()')} + {dbl('ROW_NUMBER() OVER (ORDER BY c.cnt)')}"
    )
    return (
        "SELECT CASE WHEN SUM(c) > 0 THEN "
        f"SUM((CAST(2 AS DOUBLE) * j - n - {ONE}) * c) / (MAX(n) * SUM(c)) END AS pr_value "
        f"FROM (SELECT {dbl('c.cnt')} AS c, s.n_catalog AS n, {position} AS j "
        f"FROM {counts(spec.k)} AS c JOIN pr_catalog AS cat ON c.docno = cat.docno CROSS JOIN "
        f"(SELECT {dbl('COUNT(*)')} AS n_catalog FROM pr_catalog) AS s) AS g"
    )


@_corpus_sql("user_coverage")
def _user_coverage(spec: MetricSpec, counts: Callable[[int | None], str]) -> str:
    # users with a row within k (of grade >= the level) / users
    where = _within(spec.k)
    level = spec.relevance_level
    if level is not None:
        where += f" AND grade >= {num(level)} AND grade >= 0"
    return (
        "SELECT CASE WHEN a.n_users > 0 THEN h.n_hit / a.n_users END AS pr_value FROM "
        f"(SELECT {dbl('COUNT(DISTINCT qid)')} AS n_hit FROM pr_top WHERE {where}) AS h "
        f"CROSS JOIN (SELECT {dbl('COUNT(*)')} AS n_users FROM pr_users) AS a"
    )


@dataclass(frozen=True)
class _Keys:
    """The keys of the vector CTEs: per user (``qid``), and per group with ``by``
    (``groups``: the plan's group columns, in ``pr_top`` and ``pr_history``); ``features``:
    the item features are per group too (their CTEs carry the group columns)."""

    groups: tuple[str, ...] = ()
    features: bool = False

    def key(self, alias: str = "") -> str:
        """The user key in a SELECT or GROUP BY: ``a.qid`` (with its group columns first)."""
        at = f"{alias}." if alias else ""
        return "".join(f"{at}{g}, " for g in self.groups) + f"{at}qid"

    def on(self, a: str, b: str) -> str:
        """``a.qid = b.qid`` (and the group columns equal)."""
        return f"{a}.qid = {b}.qid" + "".join(f" AND {a}.{g} = {b}.{g}" for g in self.groups)

    def out(self, alias: str) -> str:
        """A per-user CTE's key: its group columns as ``pr_u_<g>``, then ``qid``."""
        return "".join(f"{alias}.{g} AS pr_u_{g}, " for g in self.groups) + f"{alias}.qid"

    def fkey(self, alias: str = "") -> str:
        """The group columns of a features CTE (with a trailing comma), if it has them."""
        at = f"{alias}." if alias else ""
        return "".join(f"{at}{g}, " for g in self.groups) if self.features else ""

    def fon(self, a: str, b: str) -> str:
        """`` AND a.g = b.g`` for each group column, when the features are per group."""
        return "".join(f" AND {a}.{g} = {b}.{g}" for g in self.groups) if self.features else ""

    def source(self) -> str:
        """The features table: the caller's, or per group ``pr_features`` (``_features``)."""
        return "pr_features" if self.features else FEATURES


def _unit_vectors(keys: _Keys = _Keys()) -> list[tuple[str, str]]:
    """``pr_components`` (``docno, j, x``: each vector exploded with its positions),
    ``pr_norms`` and ``pr_units`` (``docno, j, u``: the components of the unit vectors; an
    item with a NULL, empty or zero vector has none, as :func:`~polars_rank.recsys.unit_vectors`
    gives it no unit vector)."""
    fk = keys.fkey()
    return [
        (
            "pr_components",
            f"SELECT {keys.fkey('f')}f.{DOC} AS docno, t.j AS j, {dbl('t.x')} AS x "
            f"FROM {keys.source()} AS f CROSS JOIN UNNEST(f.{VECTOR}) WITH ORDINALITY AS t(x, j)",
        ),
        (
            "pr_norms",
            f"SELECT {fk}docno, SQRT(SUM(x * x)) AS norm FROM pr_components GROUP BY {fk}docno",
        ),
        (
            "pr_units",
            f"SELECT {keys.fkey('c')}c.docno, c.j, c.x / n.norm AS u FROM pr_components AS c "
            f"JOIN pr_norms AS n ON c.docno = n.docno{keys.fon('c', 'n')} WHERE n.norm > 0",
        ),
    ]


def _category_units(keys: _Keys = _Keys()) -> list[tuple[str, str]]:
    """``pr_categories`` (``docno, j``: an item's distinct categories), ``pr_norms`` (1 for an
    item with a category) and ``pr_units`` (``docno, j, u``: the unit multi-hot vectors,
    1/√|C_i| per category, :func:`~polars_rank.recsys.features.category_weights`): category
    cosines take the vectors' closed forms."""
    fk = keys.fkey()
    return [
        (
            "pr_categories",
            f"SELECT DISTINCT {keys.fkey('f')}f.{DOC} AS docno, f.{CATEGORY} AS j "
            f"FROM {keys.source()} AS f WHERE NOT f.{CATEGORY} IS NULL",
        ),
        ("pr_norms", f"SELECT {fk}docno, {ONE} AS norm FROM pr_categories GROUP BY {fk}docno"),
        (
            "pr_units",
            f"SELECT {fk}docno, j, {ONE} / "
            f"SQRT({dbl(f'COUNT(*) OVER (PARTITION BY {fk}docno)')}) AS u FROM pr_categories",
        ),
    ]


def _similarity_pairs(keys: _Keys = _Keys()) -> tuple[str, str]:
    """``pr_similarities`` (``a, b, sim``): a similarity table keyed by (least, greatest) of
    its two ids, self pairs left out (:func:`~polars_rank.recsys.features.canonical_pairs`)."""
    return (
        "pr_similarities",
        f"SELECT DISTINCT {keys.fkey('f')}LEAST(f.{DOC_A}, f.{DOC_B}) AS a, "
        f"GREATEST(f.{DOC_A}, f.{DOC_B}) AS b, {dbl(f'f.{SIMILARITY}')} AS sim "
        f"FROM {keys.source()} AS f WHERE f.{DOC_A} <> f.{DOC_B}",
    )


def _gain(gain: str, level: float) -> str:
    """Serendipity's gain of a row of ``pr_top`` from its grade (NULL when unjudged): 1, grade
    >= level (and >= 0), or the grade when positive (:func:`~polars_rank.recsys.gain_expr`)."""
    if gain == "none":
        return ONE
    if gain == "binary":
        return f"CASE WHEN grade >= {num(level)} AND grade >= 0 THEN {ONE} ELSE {ZERO} END"
    return f"CASE WHEN grade > 0 THEN {dbl('grade')} ELSE {ZERO} END"


def _history_ctes(keys: _Keys, once: Callable[[str, str], str]) -> None:
    """``pr_history_pairs`` (the distinct (user, item) pairs of the history) and
    ``pr_history_size`` (|H| per user)."""
    once("pr_history_pairs", f"SELECT DISTINCT {keys.key()}, docno FROM pr_history")
    once(
        "pr_history_size",
        f"SELECT {keys.key()}, {dbl('COUNT(*)')} AS size FROM pr_history_pairs "
        f"GROUP BY {keys.key()}",
    )


def _vector_ctes(
    specs: Sequence[MetricSpec],
    named: dict[str, str],
    level: float,
    out: RecommenderPlan,
    feature_kind: str = FEATURE_KIND,
    keys: _Keys = _Keys(),
) -> None:
    """ILD and serendipity over unit vectors, in the closed forms of
    :mod:`polars_rank.recsys.vectors`: per user and k, n (items), m (items with a vector) and
    Σ u per component; ILD = 1 − ((‖Σ u‖² − m) / 2) / C(n, 2) (NULL for n < 2); serendipity =
    (G − D / |H|) / n, G = Σ g, D = Σ_components (Σ g u)·C, C = Σ u over the user's distinct
    history items H (NULL without history). Category features: their unit multi-hot vectors
    (cosine), or, for ILD with ``similarity=jaccard``, |C_i ∩ C_j| / |C_i ∪ C_j| summed over
    each user's pairs; similarity tables: a lookup per pair (a missing pair 0; in serendipity
    an item's similarity with itself 1). ``keys``: per group with ``by``."""
    if feature_kind == "vectors":
        out.ctes += _unit_vectors(keys)
    elif feature_kind == "categories":
        out.ctes += _category_units(keys)
    else:
        out.ctes.append(_similarity_pairs(keys))
    done: set[str] = set()

    def once(name: str, sql: str) -> str:
        if name not in done:
            done.add(name)
            out.ctes.append((name, sql))
        return name

    for n, spec in enumerate(specs, 1):
        k = spec.k
        tag = "all" if k is None else str(k)
        where = _within(k, "t.pos")
        column = named[spec.label]
        pairwise = feature_kind == "similarities" or (
            feature_kind == "categories" and spec.arguments().get("similarity") == "jaccard"
        )
        if not spec.entry.history and pairwise:  # ILD, one similarity per pair of items
            _pairwise_ild(spec, n, tag, where, column, feature_kind, once, out, keys)
            continue
        if spec.entry.history and feature_kind == "similarities":
            _lookup_serendipity(spec, n, where, column, level, once, out, keys)
            continue
        counts = once(
            f"pr_vcount_{tag}",
            f"SELECT {keys.key('t')}, {dbl('COUNT(*)')} AS n, "
            f"{dbl('SUM(CASE WHEN v.docno IS NULL THEN 0 ELSE 1 END)')} AS m FROM pr_top AS t "
            f"LEFT JOIN pr_norms AS v ON t.docno = v.docno{keys.fon('t', 'v')} AND v.norm > 0 "
            f"WHERE {where} GROUP BY {keys.key('t')}",
        )
        if not spec.entry.history:  # intra-list diversity: the top-k items with each other
            sums = once(
                f"pr_vsum_{tag}",
                f"SELECT {keys.key('t')}, u.j, SUM(u.u) AS s FROM pr_top AS t "
                f"JOIN pr_units AS u ON t.docno = u.docno{keys.fon('t', 'u')} WHERE {where} "
                f"GROUP BY {keys.key('t')}, u.j",
            )
            squares = once(
                f"pr_vsquare_{tag}",
                f"SELECT {keys.key()}, SUM(s * s) AS sq FROM {sums} GROUP BY {keys.key()}",
            )
            pairs = f"(c.n * (c.n - {ONE}) / {num(2)})"
            pair_sum = f"((COALESCE(q.sq, {ZERO}) - c.m) / {num(2)})"
            out.ctes.append(
                (
                    f"pr_ild_{n}",
                    f"SELECT {keys.out('c')}, CASE WHEN c.n >= 2 THEN {ONE} - {pair_sum} / "
                    f"{pairs} END AS {column} FROM {counts} AS c LEFT JOIN {squares} AS q "
                    f"ON {keys.on('c', 'q')}",
                )
            )
            out.per_user.append(f"pr_ild_{n}")
            continue
        args = spec.call_arguments(level, feature_kind)
        gain = _gain(args["gain"], args["relevance_level"])
        _history_ctes(keys, once)
        once(
            "pr_history_sum",
            f"SELECT {keys.key('h')}, u.j, SUM(u.u) AS c FROM pr_history_pairs AS h "
            f"JOIN pr_units AS u ON h.docno = u.docno{keys.fon('h', 'u')} "
            f"GROUP BY {keys.key('h')}, u.j",
        )
        out.ctes.append(
            (
                f"pr_gains_{n}",
                f"SELECT {keys.key('t')}, {dbl('COUNT(*)')} AS n, SUM({gain}) AS total "
                f"FROM pr_top AS t WHERE {where} GROUP BY {keys.key('t')}",
            )
        )
        out.ctes.append(
            (
                f"pr_weighted_{n}",
                f"SELECT {keys.key('t')}, u.j, SUM({gain} * u.u) AS w FROM pr_top AS t "
                f"JOIN pr_units AS u ON t.docno = u.docno{keys.fon('t', 'u')} WHERE {where} "
                f"GROUP BY {keys.key('t')}, u.j",
            )
        )
        out.ctes.append(
            (
                f"pr_dots_{n}",
                f"SELECT {keys.key('w')}, SUM(w.w * c.c) AS d FROM pr_weighted_{n} AS w "
                f"JOIN pr_history_sum AS c ON {keys.on('w', 'c')} AND w.j = c.j "
                f"GROUP BY {keys.key('w')}",
            )
        )
        value = f"(g.total - COALESCE(d.d, {ZERO}) / s.size) / g.n"
        out.ctes.append(
            (
                f"pr_serendipity_{n}",
                f"SELECT {keys.out('g')}, CASE WHEN s.size IS NOT NULL AND g.n > 0 THEN {value} "
                f"END AS {column} FROM pr_gains_{n} AS g "
                f"LEFT JOIN pr_history_size AS s ON {keys.on('g', 's')} "
                f"LEFT JOIN pr_dots_{n} AS d ON {keys.on('g', 'd')}",
            )
        )
        out.per_user.append(f"pr_serendipity_{n}")


def _pairwise_ild(
    spec: MetricSpec,
    n: int,
    tag: str,
    where: str,
    column: str,
    feature_kind: str,
    once: Callable[[str, str], str],
    out: RecommenderPlan,
    keys: _Keys = _Keys(),
) -> None:
    """ILD = 1 − Σ_{i<j} sim(i, j) / C(n, 2) with a similarity per pair: Jaccard of category
    sets, or a similarity table's value (missing 0); NULL for n < 2."""
    sizes = once(
        f"pr_listsize_{tag}",
        f"SELECT {keys.key('t')}, {dbl('COUNT(*)')} AS n FROM pr_top AS t WHERE {where} "
        f"GROUP BY {keys.key('t')}",
    )
    w1, w2 = where.replace("t.pos", "t1.pos"), where.replace("t.pos", "t2.pos")
    if feature_kind == "categories":
        fk = keys.fkey()
        once(
            "pr_category_sizes",
            f"SELECT {fk}docno, {dbl('COUNT(*)')} AS size FROM pr_categories GROUP BY {fk}docno",
        )
        shared = once(
            f"pr_shared_{tag}",
            f"SELECT {keys.key('t1')}, t1.docno AS da, t2.docno AS db, "
            f"{dbl('COUNT(*)')} AS shared FROM pr_top AS t1 JOIN pr_top AS t2 "
            f"ON {keys.on('t1', 't2')} AND t1.docno < t2.docno "
            f"JOIN pr_categories AS c1 ON c1.docno = t1.docno{keys.fon('t1', 'c1')} "
            f"JOIN pr_categories AS c2 ON c2.docno = t2.docno AND c2.j = c1.j"
            f"{keys.fon('t2', 'c2')} "
            f"WHERE {w1} AND {w2} GROUP BY {keys.key('t1')}, t1.docno, t2.docno",
        )
        pair_sums = once(
            f"pr_jaccard_{tag}",
            f"SELECT {keys.key('s')}, SUM(s.shared / (a.size + b.size - s.shared)) AS pairs "
            f"FROM {shared} AS s JOIN pr_category_sizes AS a ON s.da = a.docno"
            f"{keys.fon('s', 'a')} JOIN pr_category_sizes AS b ON s.db = b.docno"
            f"{keys.fon('s', 'b')} GROUP BY {keys.key('s')}",
        )
    else:
        pair_sums = once(
            f"pr_lookup_{tag}",
            f"SELECT {keys.key('t1')}, SUM(p.sim) AS pairs FROM pr_top AS t1 JOIN pr_top AS t2 "
            f"ON {keys.on('t1', 't2')} AND t1.docno < t2.docno "
            "JOIN pr_similarities AS p ON p.a = LEAST(t1.docno, t2.docno) "
            f"AND p.b = GREATEST(t1.docno, t2.docno){keys.fon('t1', 'p')} "
            f"WHERE {w1} AND {w2} GROUP BY {keys.key('t1')}",
        )
    pairs = f"(c.n * (c.n - {ONE}) / {num(2)})"
    out.ctes.append(
        (
            f"pr_ild_{n}",
            f"SELECT {keys.out('c')}, CASE WHEN c.n >= 2 THEN {ONE} - COALESCE(p.pairs, {ZERO}) "
            f"/ {pairs} END AS {column} FROM {sizes} AS c LEFT JOIN {pair_sums} AS p "
            f"ON {keys.on('c', 'p')}",
        )
    )
    out.per_user.append(f"pr_ild_{n}")


def _lookup_serendipity(
    spec: MetricSpec,
    n: int,
    where: str,
    column: str,
    level: float,
    once: Callable[[str, str], str],
    out: RecommenderPlan,
    keys: _Keys = _Keys(),
) -> None:
    """Serendipity with a similarity table: (Σ g − Σ_i g_i·S_i / |H|) / n, S_i = Σ_{h ∈ H}
    sim(i, h) (1 for h = i, a missing pair 0); NULL without history."""
    args = spec.call_arguments(level, "similarities")
    gain = _gain(args["gain"], args["relevance_level"])
    _history_ctes(keys, once)
    out.ctes.append(
        (
            f"pr_gains_{n}",
            f"SELECT {keys.key('t')}, {dbl('COUNT(*)')} AS n, SUM({gain}) AS total "
            f"FROM pr_top AS t WHERE {where} GROUP BY {keys.key('t')}",
        )
    )
    similarity = f"CASE WHEN t.docno = h.docno THEN {ONE} ELSE COALESCE(p.sim, {ZERO}) END"
    out.ctes.append(
        (
            f"pr_dots_{n}",
            f"SELECT {keys.key('t')}, SUM({gain} * {similarity}) AS d FROM pr_top AS t "
            f"JOIN pr_history_pairs AS h ON {keys.on('t', 'h')} "
            "LEFT JOIN pr_similarities AS p ON p.a = LEAST(t.docno, h.docno) "
            f"AND p.b = GREATEST(t.docno, h.docno){keys.fon('t', 'p')} WHERE {where} "
            f"GROUP BY {keys.key('t')}",
        )
    )
    value = f"(g.total - COALESCE(d.d, {ZERO}) / s.size) / g.n"
    out.ctes.append(
        (
            f"pr_serendipity_{n}",
            f"SELECT {keys.out('g')}, CASE WHEN s.size IS NOT NULL AND g.n > 0 THEN {value} END "
            f"AS {column} FROM pr_gains_{n} AS g "
            f"LEFT JOIN pr_history_size AS s ON {keys.on('g', 's')} "
            f"LEFT JOIN pr_dots_{n} AS d ON {keys.on('g', 'd')}",
        )
    )
    out.per_user.append(f"pr_serendipity_{n}")


def recommender_plan(
    specs: Sequence[MetricSpec],
    columns: Sequence[str],
    *,
    max_rank: int | None,
    relevance_level: float = 1,
    has_catalog: bool,
    has_interactions: bool,
    feature_kind: str = FEATURE_KIND,
) -> RecommenderPlan:
    """The CTEs computing the recommender ``specs`` (all portable:
    :func:`~polars_rank.compiler.compile.not_portable`) into
    ``columns``; they read ``pr_ranked``, ``pr_users`` (``qid``: the evaluated users),
    ``pr_run`` (the default catalog), ``pr_qrels`` (only when a metric reads grades) and the
    placeholder tables :data:`INTERACTIONS`, :data:`CATALOG` and :data:`FEATURES` (vectors)
    when given; ``relevance_level`` is evaluate's (serendipity's binary gain)."""

    out = RecommenderPlan()
    if not specs:
        return out
    with_grades = any(s.entry.uses_qrels(s.arguments()) for s in specs)
    out.ctes.append(("pr_top", _top(specs, max_rank, with_grades)))
    named = dict(zip((s.label for s in specs), columns, strict=True))
    popular = [s for s in specs if s.entry.item_value]
    if has_interactions:
        out.ctes.append(
            (
                "pr_history",
                f"SELECT {SOURCE}.{QUERY} AS qid, {SOURCE}.{DOC} AS docno, "
                f"{RAW}({SOURCE}.{DOC}) AS pr_dv FROM {INTERACTIONS} AS {SOURCE}",
            )
        )
    groups: dict[ItemOptions, list[MetricSpec]] = {}
    for spec in popular:
        groups.setdefault(item_options(spec), []).append(spec)
    counted: set[str] = set()
    for g, (option, group) in enumerate(groups.items()):
        popularity = f"pr_popularity_{option.count}"
        if option.count not in counted:
            counted.add(option.count)
            counter = "COUNT(DISTINCT qid)" if option.count == "users" else "COUNT(*)"
            counted_sql = (
                f"SELECT docno, pr_dv, {counter} AS popularity FROM pr_history "
                "GROUP BY docno, pr_dv"
            )
            if has_catalog:  # catalog items without interactions: popularity 0, in the tail
                counted_sql += (
                    f" UNION ALL SELECT c.docno, c.pr_dv, 0 AS popularity FROM (SELECT DISTINCT "
                    f"{SOURCE}.{DOC} AS docno, {RAW}({SOURCE}.{DOC}) AS pr_dv "
                    f"FROM {CATALOG} AS {SOURCE}) AS c "
                    "WHERE NOT c.docno IS NULL AND NOT EXISTS (SELECT 1 FROM pr_history AS h "
                    "WHERE h.docno = c.docno)"
                )
            out.ctes.append((popularity, counted_sql))
        if option.model == "discovery" and "pr_user_count" not in dict(out.ctes):
            out.ctes.append(
                ("pr_user_count", f"SELECT {dbl('COUNT(DISTINCT qid)')} AS n_users FROM pr_history")
            )
        out.ctes.append((f"pr_items_{g}", _item_table(option, popularity)))
        values = ", ".join(f"{_popularity_value(s)} AS {named[s.label]}" for s in group)
        out.ctes.append(
            (
                f"pr_popular_{g}",
                f"SELECT t.qid, {values} FROM pr_top AS t "
                f"LEFT JOIN pr_items_{g} AS i ON t.docno = i.docno GROUP BY t.qid",
            )
        )
        out.per_user.append(f"pr_popular_{g}")
    similar = [s for s in specs if s.entry.pairwise]
    if similar:
        _vector_ctes(similar, named, relevance_level, out, feature_kind)
    corpus = [s for s in specs if s.entry.level == "corpus"]
    if any("catalog" in s.entry.tables for s in corpus):
        if has_catalog:
            catalog = f"SELECT DISTINCT {SOURCE}.{DOC} AS docno FROM {CATALOG} AS {SOURCE}"
        else:
            catalog = "SELECT docno FROM pr_run"
            if has_interactions:
                catalog += " UNION SELECT docno FROM pr_history"
        out.ctes.append(("pr_catalog", catalog))
    counts: set[int | None] = set()

    def counts_at(k: int | None) -> str:
        name = f"pr_counts_{'all' if k is None else k}"
        if k not in counts:
            counts.add(k)
            out.ctes.append(
                (
                    name,
                    f"SELECT docno, COUNT(*) AS cnt FROM pr_top WHERE {_within(k)} GROUP BY docno",
                )
            )
        return name

    for n, spec in enumerate(corpus, 1):
        value = CORPUS_SQL[spec.entry.name](spec, counts_at)
        out.ctes.append(
            (f"pr_corpus_{n}", f"SELECT pr_value AS {named[spec.label]} FROM ({value}) AS v")
        )
        out.corpus.append(f"pr_corpus_{n}")
    return out


# --- per group (``to_sql(..., by=)``): the same CTEs keyed by the plan's group columns -----


def _grouped_input(
    name: str, table: str, groups: Sequence[str], shared: Sequence[int], distinct: bool
) -> str:
    """``groups..., qid, docno`` (``docno`` only for the catalog) of a recommender input per
    group of the run: joined to ``pr_groups`` on the ``by`` columns it has (``shared``:
    their indices), shared by every group otherwise."""
    own = "".join(f"{SOURCE}.{by_placeholder(i)} AS {groups[i]}, " for i in shared)
    ids = f"{SOURCE}.{DOC} AS docno, {RAW}({SOURCE}.{DOC}) AS pr_dv"
    if name != "catalog":
        ids = f"{SOURCE}.{QUERY} AS qid, {ids}"
    not_null = " AND ".join(f"{SOURCE}.{by_placeholder(i)} IS NOT NULL" for i in shared)
    where = f" WHERE {not_null}" if shared else ""
    inner = f"SELECT {own}{ids} FROM {table} AS {SOURCE}{where}"
    on = " AND ".join(f"x.{groups[i]} = g.{groups[i]}" for i in shared)
    join = f"INNER JOIN pr_groups AS g ON {on}" if shared else "CROSS JOIN pr_groups AS g"
    picked = ", ".join(f"g.{c}" for c in groups)
    cols = "x.docno, x.pr_dv" if name == "catalog" else "x.qid, x.docno, x.pr_dv"
    return f"SELECT {'DISTINCT ' if distinct else ''}{picked}, {cols} FROM ({inner}) AS x {join}"


def _on(left: str, right: str, groups: Sequence[str]) -> str:
    return " AND ".join(f"{left}.{g} = {right}.{g}" for g in groups)


def grouped_recommender_plan(
    specs: Sequence[MetricSpec],
    columns: Sequence[str],
    groups: Sequence[str],
    *,
    max_rank: int | None,
    has_catalog: bool,
    has_interactions: bool,
    interactions_shared: Sequence[int] = (),
    catalog_shared: Sequence[int] = (),
    relevance_level: float = 1,
    feature_kind: str = FEATURE_KIND,
    features_shared: Sequence[int] | None = None,
) -> RecommenderPlan:
    """:func:`recommender_plan` per group of the run (the plan's group columns ``groups``):
    ``pr_ranked``, ``pr_users``, ``pr_run`` and ``pr_qrels`` carry them, the interactions and
    the catalog join the groups on the ``by`` columns they have (indices
    ``interactions_shared``, ``catalog_shared``) and are shared otherwise. Every partition,
    grouping and join is by group too; the per-user CTEs name their group columns
    ``pr_u_<g>``, the corpus CTEs ``pr_c_<g>`` (one row per group with a value; a group
    without one is NULL, as the one-row query's CASE gives). The item features (intra-list
    diversity, serendipity) are shared by every group, or per group with
    ``features_shared`` (the indices of the ``by`` columns they have; the CTE
    ``pr_features`` joins them to the groups)."""
    out = RecommenderPlan()
    if not specs:
        return out
    gs = ", ".join(groups)
    with_grades = any(s.entry.uses_qrels(s.arguments()) for s in specs)
    bounds = [b for b in (largest_cutoff(list(specs)), max_rank) if b is not None]
    where = f" WHERE r.pos <= {min(bounds)}" if bounds else ""
    r_gs = ", ".join(f"r.{g}" for g in groups)
    top = (
        f"SELECT {r_gs}, r.qid, r.docno, r.pos{', j.grade' if with_grades else ''} "
        f"FROM pr_ranked AS r JOIN pr_users AS u ON r.qid = u.qid AND {_on('r', 'u', groups)}"
    )
    if with_grades:
        top += (
            " LEFT JOIN pr_qrels AS j ON r.qid = j.qid AND r.docno = j.docno AND "
            f"{_on('r', 'j', groups)}"
        )
    out.ctes.append(("pr_top", top + where))
    named = dict(zip((s.label for s in specs), columns, strict=True))
    if has_interactions:
        history = _grouped_input("interactions", INTERACTIONS, groups, interactions_shared, False)
        out.ctes.append(("pr_history", history))
    if has_catalog:
        given = _grouped_input("catalog", CATALOG, groups, catalog_shared, True)
        out.ctes.append(("pr_catalog_given", given))
    items: dict[ItemOptions, list[MetricSpec]] = {}
    for spec in (s for s in specs if s.entry.item_value):
        items.setdefault(item_options(spec), []).append(spec)
    counted: set[str] = set()
    for g, (option, group) in enumerate(items.items()):
        popularity = f"pr_popularity_{option.count}"
        if option.count not in counted:
            counted.add(option.count)
            counter = "COUNT(DISTINCT qid)" if option.count == "users" else "COUNT(*)"
            sql = (
                f"SELECT {gs}, docno, pr_dv, {counter} AS popularity FROM pr_history "
                f"GROUP BY {gs}, docno, pr_dv"
            )
            if has_catalog:
                c_gs = ", ".join(f"c.{x}" for x in groups)
                sql += (
                    f" UNION ALL SELECT {c_gs}, c.docno, c.pr_dv, 0 AS popularity "
                    "FROM pr_catalog_given AS c WHERE NOT c.docno IS NULL AND NOT EXISTS "
                    "(SELECT 1 FROM pr_history "
                    f"AS h WHERE h.docno = c.docno AND {_on('h', 'c', groups)})"
                )
            out.ctes.append((popularity, sql))
        if option.model == "discovery" and "pr_user_count" not in dict(out.ctes):
            out.ctes.append(
                (
                    "pr_user_count",
                    f"SELECT {gs}, {dbl('COUNT(DISTINCT qid)')} AS n_users FROM pr_history "
                    f"GROUP BY {gs}",
                )
            )
        out.ctes.append((f"pr_items_{g}", _grouped_item_table(option, popularity, groups)))
        values = ", ".join(f"{_popularity_value(s)} AS {named[s.label]}" for s in group)
        t_gs = ", ".join(f"t.{x} AS pr_u_{x}" for x in groups)
        out.ctes.append(
            (
                f"pr_popular_{g}",
                f"SELECT {t_gs}, t.qid, {values} FROM pr_top AS t "
                f"LEFT JOIN pr_items_{g} AS i ON t.docno = i.docno AND {_on('t', 'i', groups)} "
                f"GROUP BY {', '.join(f't.{x}' for x in groups)}, t.qid",
            )
        )
        out.per_user.append(f"pr_popular_{g}")
    similar = [s for s in specs if s.entry.pairwise]
    if similar:
        keys = _Keys(tuple(groups), features=bool(features_shared))
        if features_shared:
            on = " AND ".join(
                f"{SOURCE}.{by_placeholder(i)} = g.{groups[i]}" for i in features_shared
            )
            picked = ", ".join(f"g.{c}" for c in groups)
            out.ctes.append(
                (
                    "pr_features",
                    f"SELECT {picked}, {SOURCE}.* FROM {FEATURES} AS {SOURCE} "
                    f"INNER JOIN pr_groups AS g ON {on}",
                )
            )
        _vector_ctes(similar, named, relevance_level, out, feature_kind, keys)
    corpus = [s for s in specs if s.entry.level == "corpus"]
    if any("catalog" in s.entry.tables for s in corpus):
        if has_catalog:
            catalog = f"SELECT {gs}, docno FROM pr_catalog_given"
        else:
            catalog = f"SELECT {gs}, docno FROM pr_run"
            if has_interactions:
                catalog += f" UNION SELECT {gs}, docno FROM pr_history"
        out.ctes.append(("pr_catalog", catalog))
    counts: set[int | None] = set()

    def counts_at(k: int | None) -> str:
        name = f"pr_counts_{'all' if k is None else k}"
        if k not in counts:
            counts.add(k)
            out.ctes.append(
                (
                    name,
                    f"SELECT {gs}, docno, COUNT(*) AS cnt FROM pr_top WHERE {_within(k)} "
                    f"GROUP BY {gs}, docno",
                )
            )
        return name

    for n, spec in enumerate(corpus, 1):
        value = _grouped_corpus(spec, counts_at, groups)
        lead = ", ".join(f"v.{x} AS pr_c_{x}" for x in groups)
        out.ctes.append(
            (
                f"pr_corpus_{n}",
                f"SELECT {lead}, v.pr_value AS {named[spec.label]} FROM ({value}) AS v",
            )
        )
        out.corpus.append(f"pr_corpus_{n}")
    return out


def _grouped_item_table(option: ItemOptions, popularity: str, groups: Sequence[str]) -> str:
    """:func:`_item_table` per group: the shares, positions and item counts within it."""
    gs = ", ".join(groups)
    pop = dbl("popularity")
    part = f"PARTITION BY {gs}"
    row = f"ROW_NUMBER() OVER ({part} ORDER BY popularity, {ID_NUMBER}(pr_dv), {ID_TEXT}(pr_dv))"
    ordered = (
        f"SELECT {gs}, docno, popularity, {pop} / SUM({pop}) OVER ({part}) AS choice, "
        f"{dbl(row)} AS item_pos, {dbl(f'COUNT(*) OVER ({part})')} AS n_items FROM {popularity}"
    )
    o_gs = ", ".join(f"o.{x}" for x in groups)
    if option.model == "choice":
        share, source = "o.choice", f"({ordered}) AS o"
    else:
        share = f"{pop} / u.n_users"
        source = f"({ordered}) AS o LEFT JOIN pr_user_count AS u ON {_on('o', 'u', groups)}"
    if option.tail_popularity is not None:
        tail = f"{pop} <= {num(option.tail_popularity)}"
    elif option.tail_share is not None:
        tail = f"item_pos <= GREATEST(FLOOR(n_items * {num(option.tail_share)}), {ONE})"
    else:
        tail = f"item_pos <= n_items - FLOOR(n_items * {num(option.head_share)})"
    return (
        f"SELECT {o_gs}, docno, popularity, CASE WHEN popularity > 0 THEN -{log2(share)} END "
        "AS self_information, "
        f"CASE WHEN {tail} THEN 1 ELSE 0 END AS in_tail FROM {source}"
    )


#: What a corpus metric's SQL per group is given: the spec, ``counts(k)`` (as
#: :data:`CorpusSQL`) and the group columns; its query gives ``groups..., pr_value``.
GroupedCorpusSQL = Callable[[MetricSpec, Callable[[int | None], str], Sequence[str]], str]

#: The portable SQL of each corpus metric per group (``by``), registered under its entry's
#: name with :func:`_grouped_corpus_sql`: a row per group with a value (coverage and Gini over
#: the group's catalog, entropy over its counts, user coverage over its users).
GROUPED_CORPUS_SQL: dict[str, GroupedCorpusSQL] = {}


def _grouped_corpus_sql(name: str) -> Callable[[GroupedCorpusSQL], GroupedCorpusSQL]:
    """Register the per-group SQL of the corpus metric ``name`` (its catalog entry's name)."""

    def register(builder: GroupedCorpusSQL) -> GroupedCorpusSQL:
        GROUPED_CORPUS_SQL[name] = builder
        return builder

    return register


def _grouped_corpus(
    spec: MetricSpec, counts: Callable[[int | None], str], groups: Sequence[str]
) -> str:
    """The corpus metric per group: ``groups..., pr_value``."""
    return GROUPED_CORPUS_SQL[spec.entry.name](spec, counts, groups)


@_grouped_corpus_sql("catalog_coverage")
def _grouped_catalog_coverage(
    spec: MetricSpec, counts: Callable[[int | None], str], groups: Sequence[str]
) -> str:
    gs = ", ".join(groups)
    s_gs = ", ".join(f"s.{x}" for x in groups)
    c_gs = ", ".join(f"c.{x}" for x in groups)
    return (
        f"SELECT {s_gs}, CASE WHEN s.n_catalog > 0 THEN COALESCE(h.n_shown, 0) / s.n_catalog "
        f"END AS pr_value FROM (SELECT {gs}, {dbl('COUNT(*)')} AS n_catalog FROM pr_catalog "
        f"GROUP BY {gs}) AS s LEFT JOIN (SELECT {c_gs}, {dbl('COUNT(*)')} AS n_shown "
        f"FROM {counts(spec.k)} AS c JOIN pr_catalog AS cat ON c.docno = cat.docno AND "
        f"{_on('c', 'cat', groups)} GROUP BY {c_gs}) AS h ON {_on('s', 'h', groups)}"
    )


@_grouped_corpus_sql("shannon_entropy")
def _grouped_shannon_entropy(
    spec: MetricSpec, counts: Callable[[int | None], str], groups: Sequence[str]
) -> str:
    gs = ", ".join(groups)
    args = spec.arguments()
    per_item = dbl("COUNT(*)") if args["per_item"] else ONE
    cnt = dbl("cnt")
    return (
        f"SELECT {gs}, CASE WHEN COUNT(*) > 0 THEN -SUM(p * (LN(p) / "
        f"{num(math.log(args['base']))})) / {per_item} END AS pr_value FROM "
        f"(SELECT {gs}, {cnt} / SUM({cnt}) OVER (PARTITION BY {gs}) AS p "
        f"FROM {counts(spec.k)}) AS e GROUP BY {gs}"
    )


@_grouped_corpus_sql("gini_index")
def _grouped_gini_index(
    spec: MetricSpec, counts: Callable[[int | None], str], groups: Sequence[str]
) -> str:
    gs = ", ".join(groups)
    c_gs = ", ".join(f"c.{x}" for x in groups)
    position = (
        f"s.n_catalog - {dbl(f'COUNT(*) OVER (PARTITION BY {c_gs})')} + "
        f"{dbl(f'ROW_NUMBER() OVER (PARTITION BY {c_gs} ORDER BY c.cnt)')}"
    )
    return (
        f"SELECT {gs}, CASE WHEN SUM(c) > 0 THEN "
        f"SUM((CAST(2 AS DOUBLE) * j - n - {ONE}) * c) / (MAX(n) * SUM(c)) END AS pr_value "
        f"FROM (SELECT {c_gs}, {dbl('c.cnt')} AS c, s.n_catalog AS n, {position} AS j "
        f"FROM {counts(spec.k)} AS c JOIN pr_catalog AS cat ON c.docno = cat.docno AND "
        f"{_on('c', 'cat', groups)} JOIN (SELECT {gs}, {dbl('COUNT(*)')} AS n_catalog "
        f"FROM pr_catalog GROUP BY {gs}) AS s ON {_on('c', 's', groups)}) AS g GROUP BY {gs}"
    )


@_grouped_corpus_sql("user_coverage")
def _grouped_user_coverage(
    spec: MetricSpec, counts: Callable[[int | None], str], groups: Sequence[str]
) -> str:
    gs = ", ".join(groups)
    where = _within(spec.k)
    level = spec.relevance_level
    if level is not None:
        where += f" AND grade >= {num(level)} AND grade >= 0"
    a_gs = ", ".join(f"a.{x}" for x in groups)
    return (
        f"SELECT {a_gs}, CASE WHEN a.n_users > 0 THEN COALESCE(h.n_hit, 0) / a.n_users END "
        f"AS pr_value FROM (SELECT {gs}, {dbl('COUNT(*)')} AS n_users FROM pr_users "
        f"GROUP BY {gs}) AS a LEFT JOIN (SELECT {gs}, {dbl('COUNT(DISTINCT qid)')} AS n_hit "
        f"FROM pr_top WHERE {where} GROUP BY {gs}) AS h ON {_on('a', 'h', groups)}"
    )
