"""The query plan: the whole evaluation as one ``SELECT`` in the base dialect, over placeholder
table and column names that :mod:`.dialects` replaces.

The CTEs, in order:

1. ``pr_run`` / ``pr_qrels``: the inputs under internal names; the sort key as DOUBLE (the
   score with -0.0 as 0.0, or the negated rank with ``order_by="rank"``), grades as DOUBLE
   (``duplicates="max"``: one row per pair, the highest). Rows with a null id, sort key or
   grade are left out (the same in every dialect; :func:`~polars_rank.check_sql` reports
   them).
2. ``pr_ranked``: the only pass over the whole run — ``ROW_NUMBER()`` per query by the sort key
   descending, then the doc id descending compared as bytes on its text (trec_eval's order;
   integer ids as decimal text), plus the query's length when a metric needs it (a window over
   the same partition: no second sort).
3. ``pr_joined``: one FULL JOIN of the ranked run with the qrels, keeping every judgment with
   its document's rank (NULL when not retrieved or ranked below ``max_rank``) and its 0/1
   relevance flags per relevance level in use, plus the rank-1 row of every run query (the
   marker: the query is in the run, and how long it is).
4. ``pr_rows``: windows over those few rows per query (not over the run): running counts in
   rank order, R, N, ideal positions — only those the metrics need.
5. ``pr_parts``: one ``GROUP BY`` per query with ``CASE`` sums, each distinct part once.
   With the measures that walk a ranking against its ideal ranking (:meth:`Parts.event_set`),
   ``pr_events`` (the judged rows as retrieved and as ideal events), ``pr_event_rows`` (windows
   over both rankings merged) and ``pr_event_parts`` (per-query aggregates, LEFT JOINed).
6. With recommender metrics, ``pr_users`` (the queries that count) and the CTEs of
   :mod:`.recsys` over ``pr_ranked``: per-user values LEFT JOINed to the parts, one-row corpus
   values CROSS JOINed to the summary. Without qrels (recommender metrics only), ``pr_parts``
   is every run query.
7. ``pr_values``: each metric as arithmetic over the parts, with whether the query has
   judgments and whether it is in the run.
8. The result: the queries that count, or the summary over them (mean; sum for counts; the
   geometric mean with trec_eval's floor for ``gm_map``) with ``CASE`` filters; wide (a column
   per metric) or long (``measure``, ``value``).

>>> from polars_rank.catalog.names import parse_metrics
>>> text = query_text(parse_metrics(["P@10"]), ["pr_m1"], Options(order_by="score"),
...                   per_query=False, layout="wide", left_out=False)
>>> text.split(" AS (")[0]
'WITH pr_run'
"""

from __future__ import annotations

from collections.abc import Sequence

from polars_rank.catalog.names import MetricSpec
from polars_rank.compiler.builders import BUILDERS
from polars_rank.compiler.dialects import RAW
from polars_rank.compiler.parts import ZERO, Parts, dbl, num
from polars_rank.compiler.placeholders import (
    DOC,
    DOC_KEY,
    DUPLICATES_OUT,
    LEFT_OUT_OUT,
    MEASURE_OUT,
    ORDER,
    QRELS,
    QUERY,
    QUERY_OUT,
    RELEVANCE,
    RUN,
    SOURCE,
    VALUE_OUT,
    by_placeholder,
)
from polars_rank.compiler.recsys import grouped_recommender_plan, recommender_plan
from polars_rank.core.options import Options
from polars_rank.core.summary import GM_FLOOR, Summary


def _group_columns(n: int) -> list[str]:
    """The plan's names of the ``by`` columns (``pr_g0``, ...)."""
    return [f"pr_g{i}" for i in range(n)]


def _values(groups: Sequence[str], query: bool) -> str:
    """The columns carrying the caller's own values of the query id (with ``query``: only a
    per-query result shows it) and of the ``by`` columns (``pr_qv``, ``<g>v``), where the
    plan's ``qid`` and group columns are their byte keys
    (:func:`~polars_rank.compiler.dialects.render`, rewrite 6): what the output shows."""
    return "".join(f", {c}" for c in [*(["pr_qv"] if query else []), *(f"{g}v" for g in groups)])


def _key(groups: Sequence[str]) -> str:
    """The columns of one ranking: the ``by`` columns, then ``qid``."""
    return ", ".join([*groups, "qid"])


def _inputs(
    options: Options,
    n_ret: bool,
    groups: Sequence[str] = (),
    shared: Sequence[int] = (),
    *,
    pair_count: bool = False,
    query_value: bool = True,
) -> list[tuple[str, str]]:
    """``pr_run``, ``pr_qrels`` and ``pr_ranked``; the caller's columns qualified by the
    table's alias :data:`SOURCE` (none of the caller's names can be taken for an alias).
    With ``groups`` (the ``by`` columns), ``pr_run`` carries them and ``pr_qrels`` gets them
    from ``pr_groups`` (the run's groups): joined on the ``shared`` ones (indices of the
    ``by`` columns the qrels have), every group for the others. With ``pair_count``,
    ``pr_ranked`` has ``pr_pair_n``: the rows of the run with the row's ``(query, doc)``
    (a window over the rows the ranking window has already brought together: a sort, no
    second shuffle in Spark). With ``query_value``, the caller's own query id ``pr_qv``
    rides along (:func:`_values`)."""
    g_run = "".join(
        f"{SOURCE}.{by_placeholder(i)} AS {g}, {RAW}({SOURCE}.{by_placeholder(i)}) AS {g}v, "
        for i, g in enumerate(groups)
    )
    g_qrels = "".join(f"{SOURCE}.{by_placeholder(i)} AS {groups[i]}, " for i in shared)
    raw_q = f"{RAW}({SOURCE}.{QUERY})"
    q_value = f"{raw_q} AS pr_qv, " if query_value else ""
    q_group = f", {raw_q}" if query_value else ""
    g_by = "".join(f", {SOURCE}.{by_placeholder(i)}" for i in range(len(groups)))
    g_qrels_by = "".join(f", {SOURCE}.{by_placeholder(i)}" for i in shared)
    q, d = f"{SOURCE}.{QUERY}", f"{SOURCE}.{DOC}"
    value = dbl(f"{SOURCE}.{ORDER}")
    if options.order_by == "score":  # -0.0 ties with 0.0, as in C
        key = f"CASE WHEN {value} = 0 THEN {ZERO} ELSE {value} END"
    else:  # the run's ranks, negated so that higher is better
        key = f"-{value}"
    grade = dbl(f"{SOURCE}.{RELEVANCE}")
    # rows with a null id, score (rank) or grade are left out, so that no dialect's NULL
    # ordering decides a rank (the engines refuse them; check_sql reports them)
    ids_ok = f"{q} IS NOT NULL AND {d} IS NOT NULL"
    run_ok = f"WHERE {ids_ok} AND {SOURCE}.{ORDER} IS NOT NULL" + "".join(
        f" AND {SOURCE}.{by_placeholder(i)} IS NOT NULL" for i in range(len(groups))
    )
    qrels_ok = f"WHERE {ids_ok} AND {SOURCE}.{RELEVANCE} IS NOT NULL" + "".join(
        f" AND {SOURCE}.{by_placeholder(i)} IS NOT NULL" for i in shared
    )
    if options.duplicates == "max":
        run = (
            f"SELECT {g_run}{q} AS qid, {q_value}{d} AS {DOC_KEY}, MAX({key}) AS "
            f"sort_key FROM {RUN} AS {SOURCE} {run_ok} GROUP BY {q}, {d}{g_by}{q_group}"
            + "".join(f", {RAW}({SOURCE}.{by_placeholder(i)})" for i in range(len(groups)))
        )
        qrels = (
            f"SELECT {g_qrels}{q} AS qid, {q_value}{d} AS {DOC_KEY}, MAX({grade}) AS "
            f"grade FROM {QRELS} AS {SOURCE} {qrels_ok} GROUP BY {q}, {d}{g_qrels_by}{q_group}"
        )
    else:
        run = (
            f"SELECT {g_run}{q} AS qid, {q_value}{d} AS {DOC_KEY}, {key} AS sort_key "
            f"FROM {RUN} AS {SOURCE} {run_ok}"
        )
        qrels = (
            f"SELECT {g_qrels}{q} AS qid, {q_value}{d} AS {DOC_KEY}, {grade} AS grade "
            f"FROM {QRELS} AS {SOURCE} {qrels_ok}"
        )
    ctes = [("pr_run", run)]
    if groups:  # the judgments of each group of the run
        g_all = ", ".join(f"{g}, {g}v" for g in groups)
        ctes.append(("pr_groups", f"SELECT DISTINCT {g_all} FROM pr_run"))
        ctes.append(("pr_qrels_in", qrels))
        on = " AND ".join(f"j.{groups[i]} = g.{groups[i]}" for i in shared)
        join = f"INNER JOIN pr_groups AS g ON {on}" if shared else "CROSS JOIN pr_groups AS g"
        picked = ", ".join(f"g.{c}, g.{c}v" for c in groups)
        qrels = (
            f"SELECT {picked}, j.qid{', j.pr_qv' if query_value else ''}, j.{DOC_KEY}, j.grade "
            f"FROM pr_qrels_in AS j {join}"
        )
    length = ""
    if n_ret:
        length = f"COUNT(*) OVER (PARTITION BY {_key(groups)})"
        if options.max_rank is not None:
            length = f"LEAST({length}, {int(options.max_rank)})"
        length = f", {length} AS n_ret"
    if pair_count:
        length += f", COUNT(*) OVER (PARTITION BY {_key(groups)}, {DOC_KEY}) AS pr_pair_n"
    key = _key(groups)
    ranked = (
        f"SELECT {key}, docno{_values(groups, query_value)}, ROW_NUMBER() OVER (PARTITION BY "
        f"{key} ORDER BY sort_key DESC, "
        f"CAST({DOC_KEY} AS TEXT) DESC) AS pos{length} FROM pr_run"
    )
    return [*ctes, ("pr_qrels", qrels), ("pr_ranked", ranked)]


def _joined(
    parts: Parts,
    options: Options,
    groups: Sequence[str] = (),
    *,
    pair_count: bool = False,
    query_value: bool = True,
) -> str:
    """``pr_joined``: every judgment with its rank and flags, plus one marker row per run
    query (no judgment, no rank; it carries the query's length). With ``pair_count``, also
    every row of a repeated run pair, flagged ``pr_dup`` (a clean run adds no row)."""
    within = "j.qid IS NOT NULL"
    if options.max_rank is not None:
        within += f" AND r.pos <= {int(options.max_rank)}"
    columns = [
        *(f"COALESCE(j.{g}, r.{g}) AS {g}" for g in groups),
        "COALESCE(j.qid, r.qid) AS qid",
        *(f"COALESCE(j.{v}, r.{v}) AS {v}" for v in _values(groups, query_value).split(", ")[1:]),
        "j.grade",
        f"CASE WHEN {within} THEN r.pos END AS pos",
        "CASE WHEN r.qid IS NULL THEN 0 ELSE 1 END AS in_run",
        "CASE WHEN j.qid IS NULL THEN 0 ELSE 1 END AS judged",
    ]
    if parts.needs_n_ret:
        columns.append("r.n_ret")
    keep = "j.qid IS NOT NULL OR r.pos = 1"
    if pair_count:
        columns.append("CASE WHEN r.pr_pair_n > 1 THEN 1 ELSE 0 END AS pr_dup")
        keep += " OR r.pr_pair_n > 1"
    for level in parts.levels:
        rel, nonrel, lv = parts.relevant(level), parts.nonrelevant(level), num(level)
        columns.append(f"CASE WHEN j.grade >= {lv} AND j.grade >= 0 THEN 1 ELSE 0 END AS {rel}")
        columns.append(f"CASE WHEN j.grade >= 0 AND j.grade < {lv} THEN 1 ELSE 0 END AS {nonrel}")
    return (
        f"SELECT {', '.join(columns)} FROM pr_ranked AS r "
        f"FULL OUTER JOIN pr_qrels AS j ON r.qid = j.qid AND r.{DOC_KEY} = j.{DOC_KEY}"
        + "".join(f" AND r.{g} = j.{g}" for g in groups)
        + f" WHERE {keep}"
    )


def _summary(rule: Summary, column: str, keep: str) -> str:
    """The summary of the per-query values of the rows where ``keep`` holds: the mean; the sum
    for counts (0 over no query); exp(mean(ln(max(x, 1e-5)))) for ``gmean``. ``CASE`` rather
    than ``FILTER (WHERE ...)``, which not every dialect has."""
    if rule == "sum":
        return f"COALESCE(SUM(CASE WHEN {keep} THEN {column} END), {ZERO})"
    if rule == "gmean":
        return f"EXP(AVG(CASE WHEN {keep} THEN LN(GREATEST({column}, {num(GM_FLOOR)})) END))"
    return f"AVG(CASE WHEN {keep} THEN {column} END)"


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def query_text(
    specs: Sequence[MetricSpec],
    columns: Sequence[str],
    options: Options,
    *,
    per_query: bool,
    layout: str,
    left_out: bool,
    duplicates_out: bool = False,
    has_qrels: bool = True,
    has_catalog: bool = False,
    has_interactions: bool = False,
    feature_kind: str = "vectors",
    by_count: int = 0,
    shared: Sequence[int] = (),
    interactions_shared: Sequence[int] = (),
    catalog_shared: Sequence[int] = (),
    features_shared: Sequence[int] = (),
) -> str:
    """The whole query; ``columns`` are the (placeholder) output columns of the metrics,
    ``options`` resolved (``order_by`` set). With ``left_out``, a column :data:`LEFT_OUT_OUT`
    counts the run queries without judgments (on every row); with ``duplicates_out`` (and
    ``has_qrels``), a column :data:`DUPLICATES_OUT` counts the run queries with a repeated
    ``(query, doc)`` pair (on every row; rows of the group with ``by``). Without ``has_qrels`` (only
    recommender metrics that read no judgments) every run query is evaluated. The recommender
    metrics (:mod:`.recsys`) read the catalog and interactions tables when given.

    With ``by_count`` group columns (placeholders :func:`by_placeholder`; ``shared``: the
    indices of those the qrels have too; ``interactions_shared``, ``catalog_shared``: those
    the interactions and the catalog have), every query is keyed by (group, query) and the
    summary is one row per group, the group columns first (recommender metrics: popularity
    and corpus ones, :func:`~.recsys.grouped_recommender_plan`)."""
    groups = _group_columns(by_count)
    g_sel = "".join(f"{g}, " for g in groups)
    named = dict(zip((s.label for s in specs), columns, strict=True))
    judged = [s for s in specs if s.entry.table == "judged"]
    recommender = [s for s in specs if s.entry.table != "judged"]
    q = Parts(groups=tuple(groups))
    formulas = [BUILDERS[s.entry.name](q, **s.arguments(options.relevance_level)) for s in judged]
    keep = "pr_judged = 1" + (" AND pr_in_run = 1" if options.queries == "both" else "")
    source_parts = "pr_parts"
    duplicates_out = duplicates_out and has_qrels
    dup_part = ", MAX(pr_dup) AS pr_dup" if duplicates_out else ""
    if has_qrels:
        ctes = _inputs(
            options,
            q.needs_n_ret,
            groups,
            shared,
            pair_count=duplicates_out,
            query_value=per_query,
        )
        joined = _joined(q, options, groups, pair_count=duplicates_out, query_value=per_query)
        ctes.append(("pr_joined", joined))
        windows = "".join(f", {sql} AS {name}" for name, sql in q.windows.items())
        ctes.append(("pr_rows", f"SELECT *{windows} FROM pr_joined"))
        aggregates = "".join(f", {sql} AS {name}" for sql, name in q.aggregates.items())
        ctes.append(
            (
                "pr_parts",
                f"SELECT {g_sel}qid AS pr_qid{_values(groups, per_query)}, "
                "MAX(in_run) AS pr_in_run, "
                f"MAX(judged) AS pr_judged{dup_part}{aggregates} FROM pr_rows "
                f"GROUP BY {g_sel}qid{_values(groups, per_query)}",
            )
        )
        if q.event_sets:  # rankings merged with ideal rankings (Parts.event_set)
            ctes.append(("pr_events", q.events_sql()))
            event_windows = "".join(f", {sql} AS {name}" for name, sql in q.event_windows.items())
            ctes.append(("pr_event_rows", f"SELECT *{event_windows} FROM pr_events"))
            event_aggregates = "".join(f", {sql} AS {n}" for sql, n in q.event_aggregates.items())
            ctes.append(
                (
                    "pr_event_parts",
                    f"SELECT {''.join(f'{g} AS pr_e{g}, ' for g in groups)}qid AS pr_eqid"
                    f"{event_aggregates} FROM pr_event_rows GROUP BY {g_sel}qid",
                )
            )
            source_parts = "pr_parts LEFT JOIN pr_event_parts ON pr_qid = pr_eqid" + "".join(
                f" AND {g} = pr_e{g}" for g in groups
            )
    else:  # every run query is evaluated
        inputs = _inputs(options, False, groups, query_value=per_query)
        ctes = [c for c in inputs if c[0] not in ("pr_qrels", "pr_qrels_in")]
        ctes.append(
            (
                "pr_parts",
                f"SELECT DISTINCT {g_sel}qid AS pr_qid{_values(groups, per_query)}, "
                "1 AS pr_in_run, 1 AS pr_judged FROM pr_run",
            )
        )
    if groups:
        rec = grouped_recommender_plan(
            recommender,
            [named[s.label] for s in recommender],
            groups,
            max_rank=options.max_rank,
            has_catalog=has_catalog,
            has_interactions=has_interactions,
            interactions_shared=interactions_shared,
            catalog_shared=catalog_shared,
            relevance_level=options.relevance_level,
            feature_kind=feature_kind,
            features_shared=features_shared,
        )
    else:
        rec = recommender_plan(
            recommender,
            [named[s.label] for s in recommender],
            max_rank=options.max_rank,
            relevance_level=options.relevance_level,
            has_catalog=has_catalog,
            has_interactions=has_interactions,
            feature_kind=feature_kind,
        )
    if recommender:
        ctes.append(("pr_users", f"SELECT {g_sel}pr_qid AS qid FROM pr_parts WHERE {keep}"))
        ctes += rec.ctes
    for name in rec.per_user:
        source_parts += f" LEFT JOIN {name} ON pr_qid = {name}.qid" + "".join(
            f" AND {g} = {name}.pr_u_{g}" for g in groups
        )
    query_level = [s for s in specs if s.entry.level == "query"]
    metrics = "".join(
        f", {f} AS {named[s.label]}" for f, s in zip(formulas, judged, strict=True)
    ) + "".join(f", {named[s.label]}" for s in recommender if s.entry.level == "query")
    values = f"SELECT {g_sel}pr_qid{_values(groups, per_query)}, pr_in_run, pr_judged" + (
        ", pr_dup" if duplicates_out else ""
    )
    g_lead = "".join(f"{g}v AS {by_placeholder(i)}, " for i, g in enumerate(groups))
    g_order = "".join(f"{g}v, {g}, " for g in groups)
    if per_query:
        count = ", SUM(1 - pr_judged) OVER () AS pr_left_out" if left_out else ""
        if duplicates_out:
            count += ", SUM(pr_dup) OVER () AS pr_duplicates"
        ctes.append(("pr_values", f"{values}{count}{metrics} FROM {source_parts}"))
        source, lead, order = (
            f"pr_values WHERE {keep}",
            f"{g_lead}pr_qv AS {QUERY_OUT}, ",
            f" ORDER BY {g_order}pr_qv, pr_qid",
        )
    else:
        ctes.append(("pr_values", f"{values}{metrics} FROM {source_parts}"))
        summary = [
            f"{_summary(s.summary, named[s.label], keep)} AS {named[s.label]}" for s in query_level
        ]
        if left_out:
            summary.append("COALESCE(SUM(1 - pr_judged), 0) AS pr_left_out")
        if duplicates_out:
            summary.append("COALESCE(SUM(pr_dup), 0) AS pr_duplicates")
        if not summary:  # only corpus metrics: a row to join them to
            summary.append("COUNT(*) AS pr_n")
        g_all = "".join(f"{g}, {g}v, " for g in groups)
        grouping = f" GROUP BY {g_all[:-2]}" if groups else ""
        ctes.append(("pr_summary", f"SELECT {g_all}{', '.join(summary)} FROM pr_values{grouping}"))
        source = " CROSS JOIN ".join(["pr_summary", *rec.corpus])
        if groups:
            source = "pr_summary" + "".join(
                f" LEFT JOIN {name} ON " + " AND ".join(f"{g} = {name}.pr_c_{g}" for g in groups)
                for name in rec.corpus
            )
        lead, order = g_lead, f" ORDER BY {g_order[:-2]}" if groups else ""
    # a BIGINT on every dialect (a SUM of integers is INT128 on DuckDB, NUMBER on Snowflake)
    extra = f", CAST(pr_left_out AS BIGINT) AS {LEFT_OUT_OUT}" if left_out else ""
    if duplicates_out:
        extra += f", CAST(pr_duplicates AS BIGINT) AS {DUPLICATES_OUT}"
    with_clause = "WITH " + ", ".join(f"{name} AS ({sql})" for name, sql in ctes)
    if layout == "wide":
        return f"{with_clause} SELECT {lead}{', '.join(columns)}{extra} FROM {source}{order}"
    measures = " UNION ALL ".join(
        f"SELECT {n} AS i, {_quoted(s.label)} AS measure" for n, s in enumerate(specs, 1)
    )
    value = " ".join(f"WHEN {n} THEN {c}" for n, c in enumerate(columns, 1))
    order = f" ORDER BY {g_order}pr_qv, pr_qid, m.i" if per_query else f" ORDER BY {g_order}m.i"
    return (
        f"{with_clause}, pr_measures AS ({measures}) "
        f"SELECT {lead}m.measure AS {MEASURE_OUT}, CASE m.i {value} END AS {VALUE_OUT}{extra} "
        f"FROM {source} CROSS JOIN pr_measures AS m{order}"
    )
