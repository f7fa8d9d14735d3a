"""The judged table: a run ranked in trec_eval's order with its judgments attached.

``query, doc, rank, relevance`` holds every retrieved document with its 1-based rank and its
judgment (null if unjudged), plus every judged document that was not retrieved, with a null
rank. Every metric reads this table (ordering and judging: :mod:`.conventions`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

import polars as pl

from polars_rank.core import messages
from polars_rank.core.columns import fresh, is_internal_looking
from polars_rank.core.conventions import Columns, OrderBy, doc_key, order_key, rank_expr
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.frames import as_polars, like, to_lazy
from polars_rank.core.options import Duplicates, Options
from polars_rank.core.types import FrameLike
from polars_rank.core.validation import (
    check_counts,
    duplicate_suspects,
    pair_hash,
    problem_counts,
    repeated_pair_count,
    row_problem_count,
    validate,
)

if TYPE_CHECKING:
    from polars._typing import PolarsDataType


def _dedupe(frame: pl.LazyFrame, cols: Columns, value: str, policy: Duplicates) -> pl.LazyFrame:
    keys = [cols.query, cols.doc]
    if policy == "first":
        return frame.unique(subset=keys, keep="first", maintain_order=True)
    if policy == "max":
        return frame.group_by(keys).agg(pl.col(value).max())
    return frame


def with_rank_name(options: Options) -> Options:
    """``options`` (resolved) with a judged-table rank column that is none of the inputs'
    columns: with ``order_by="score"`` the rank is the engine's own column, named ``rank`` by
    default, which a relevance (or query, doc, score) column may already be called."""
    cols = options.columns
    taken = [cols.query, cols.doc, cols.score, cols.relevance]
    if options.order_by != "score" or cols.rank not in taken:
        return options
    rank = fresh("__pr_rank", taken)
    return dataclasses.replace(options, columns=dataclasses.replace(cols, rank=rank))


def needs_canonical(options: Options) -> bool:
    """Whether the caller's column names (``options`` resolved, see :func:`with_rank_name`)
    may meet the engine's own (:func:`~polars_rank.core.columns.is_internal_looking`), or
    the judged table's columns would share a name: then the engine works on
    :func:`canonical_inputs`."""
    cols = options.columns
    names = [cols.query, cols.doc, options.order_column, cols.rank, cols.relevance]
    judged = [cols.query, cols.doc, cols.rank, cols.relevance]
    return any(is_internal_looking(n) for n in names) or len(set(judged)) < len(judged)


#: The columns the engine works on when the caller's names may clash with its own.
CANONICAL = Columns()


def canonical_inputs(
    run: pl.LazyFrame, qrels: pl.LazyFrame, options: Options
) -> tuple[pl.LazyFrame, pl.LazyFrame, Options]:
    """The run (``query, doc`` and the score or rank) and the qrels (``query, doc,
    relevance``) under the :data:`CANONICAL` names, and the options for them (``validate``
    off: the caller checks the inputs under their own names first, so that every message
    names the caller's columns). ``options`` must be resolved."""
    cols, order_by = options.columns, options.order_by
    assert order_by is not None
    run = run.select(
        pl.col(cols.query).alias(CANONICAL.query),
        pl.col(cols.doc).alias(CANONICAL.doc),
        pl.col(options.order_column).alias(CANONICAL.order_column(order_by)),
    )
    qrels = qrels.select(
        pl.col(cols.query).alias(CANONICAL.query),
        pl.col(cols.doc).alias(CANONICAL.doc),
        pl.col(cols.relevance).alias(CANONICAL.relevance),
    )
    return run, qrels, dataclasses.replace(options, columns=CANONICAL, validate=False)


def judgments(qrels: pl.LazyFrame, options: Options) -> pl.LazyFrame:
    """``query, doc, relevance`` with one row per ``(query, doc)`` (the duplicates policy)."""
    cols = options.columns
    return _dedupe(
        qrels.select(cols.query, cols.doc, cols.relevance), cols, cols.relevance, options.duplicates
    )


def empty_qrels(run_schema: pl.Schema, options: Options) -> pl.LazyFrame:
    """Judgments without a row, with the run's id dtypes (for an evaluation without qrels)."""
    cols = options.columns
    schema = {c: run_schema[c] for c in (cols.query, cols.doc) if c in run_schema}
    return pl.LazyFrame(schema={**schema, cols.relevance: pl.Int64})


def deduplicated_run(run: pl.LazyFrame, options: Options) -> pl.LazyFrame:
    """``query, doc, <score or rank>`` with one row per ``(query, doc)`` (the duplicates
    policy). ``options`` must be resolved."""
    cols, order_column = options.columns, options.order_column
    return _dedupe(
        run.select(cols.query, cols.doc, order_column), cols, order_column, options.duplicates
    )


def ranked_run(run: pl.LazyFrame, options: Options, doc_dtype: pl.DataType) -> pl.LazyFrame:
    """``query, doc, rank``: the run with one row per ``(query, doc)`` (the duplicates policy),
    ranked in trec_eval's order, cut at ``max_rank``. ``options`` must be resolved."""
    cols = options.columns
    run = deduplicated_run(run, options)
    ranked = run.with_columns(rank_expr(cols, options.ordering, doc_dtype))
    if options.max_rank is not None:
        ranked = ranked.filter(pl.col(cols.rank) <= options.max_rank)
    return ranked.select(cols.query, cols.doc, cols.rank)


#: Queries with at most this many retrieved judged documents rank them by counting the
#: documents ordered before each (a join: linear in the query's length, streams, sorts
#: nothing); queries with more sort their whole list. Both give the same ranks; the DuckDB
#: engine makes the same choice (``engines/duckdb_sql.py``).
PAIRWISE_MAX_JUDGED = 32

#: The Polars engine of the passes over the whole run (lazy or not): it streams, and it is
#: the faster one for these joins and grouped counts.
PASS_ENGINE: Final = "streaming"

#: Judged pairs per bucket: with more judgments than this, the judged documents are found
#: and ranked in ``ceil(judgments / BUCKET_JUDGMENTS)`` buckets of queries (by a hash of the
#: query), each bucket's passes over the run holding only its own judged documents
#: (:func:`compact_table`). 1B rows with 50M judgments: 11.0 GiB peak RSS in one bucket.
BUCKET_JUDGMENTS = 20_000_000
_BUCKET_SEED = 11
#: Run rows per bucket of the duplicate count of a lazy run (a sort of the pair hashes:
#: 16 bytes a row while it sorts; 1B rows in one bucket peaked at 10.3 GiB).
DUPLICATE_BUCKET_ROWS = 200_000_000

_KEY, _JKEY, _JDOC, _JID = "__pr_key", "__pr_jkey", "__pr_jdoc", "__pr_jid"
#: Columns of :func:`run_sizes`' per-query counts.
SIZE, DISTINCT, PROBLEMS = "__pr_size", "__pr_distinct", "__pr_problems"
_PAIR = "__pr_pair"


def _keyed(run: pl.LazyFrame, options: Options) -> pl.LazyFrame:
    """``query, doc, <sort key>``: the run, one row per (query, doc), higher key first."""
    cols = options.columns
    return deduplicated_run(run, options).select(
        cols.query, cols.doc, order_key(options.order_column, options.ordering).alias(_KEY)
    )


def judged_pair_hashes(run: pl.LazyFrame, qrels: pl.LazyFrame, options: Options) -> pl.LazyFrame:
    """``__pr_pair``: the 64-bit hash of each judged ``(query, doc)`` pair, which
    :func:`judged_hits` tests every run row against. Empty (no test: the join alone decides)
    unless both inputs hold their ids as text or integers of the same dtype (or structs of
    such values), whose equal values hash alike (a categorical's hash may depend on its
    categories).
    ``options`` must be resolved."""
    cols = options.columns
    ids = [cols.query, cols.doc]
    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()
    judged = judgments(qrels, options)
    if not all(run_schema[c] == qrels_schema[c] and _hashes_alike(run_schema[c]) for c in ids):
        judged = judged.head(0)
    return judged.select(pair_hash(cols).alias(_PAIR))


def _hashes_alike(dtype: PolarsDataType) -> bool:
    """Whether equal values of ``dtype`` hash alike: text, integers, dates, booleans, and
    structs of them (the (group, query) ids of ``by``, :mod:`polars_rank.core.grouping`)."""
    if isinstance(dtype, pl.Struct):
        return all(_hashes_alike(field.dtype) for field in dtype.fields)
    return dtype in (pl.String, pl.Date, pl.Boolean) or dtype.is_integer()


def judged_hits(
    run: pl.LazyFrame, qrels: pl.LazyFrame, options: Options, pairs: pl.Series
) -> pl.LazyFrame:
    """The retrieved judged documents: ``query, doc, <sort key>, relevance`` and a row number,
    from the run's rows whose pair hash is one of ``pairs`` (:func:`judged_pair_hashes`,
    collected; a collision only lets a row through) joined with the judgments. Testing one
    64-bit hash per run row costs 60 % of joining every run row on two strings (10M rows:
    157 ms against 259). ``options`` must be resolved."""
    cols = options.columns
    keyed = _keyed(run, options)
    if pairs.len():
        keyed = keyed.filter(pair_hash(cols).is_in(pairs.implode()))
    hits = keyed.join(judgments(qrels, options), on=[cols.query, cols.doc], how="inner")
    return hits.with_row_index(_JID)


def run_sizes(
    run: pl.LazyFrame, options: Options, *, distinct: bool = False, problems: bool = False
) -> pl.LazyFrame:
    """Each query's number of retrieved documents (``query, __pr_size``). ``distinct=True``
    adds ``__pr_distinct``, the number of distinct doc-id hashes in each query: ``size −
    distinct`` summed over the queries counts the duplicate pairs (a hash count, for
    :func:`~polars_rank.core.validation.check_counts`, with the sets held per query).
    ``problems=True`` adds ``__pr_problems``, each query's rows with a null id or a null or
    NaN score or rank (:func:`~polars_rank.core.validation.row_problem_count`; a null query
    is a group of its own): the run's share of the input checks' counting pass, in the same
    pass (with ``duplicates="error"``, where no row is dropped before it).
    ``options`` must be resolved."""
    cols, order_column = options.columns, options.order_column
    counts = [pl.len().alias(SIZE)]
    if distinct:
        counts.append(pl.col(cols.doc).hash(seed=2).n_unique().alias(DISTINCT))
    if problems:
        dtype = run.collect_schema()[order_column]
        counts.append(row_problem_count(cols, order_column, dtype).alias(PROBLEMS))
    return deduplicated_run(run, options).group_by(cols.query).agg(counts)


def _tie_hash(query: str) -> pl.Expr:
    """A 64-bit hash of ``(query, sort key)``: equal pairs give equal hashes (the key is
    Float64 with -0.0 made 0.0)."""
    return pl.col(query).hash(seed=1) ^ pl.col(_KEY).hash(seed=3)


def _counted_ranks(
    keyed: pl.LazyFrame, few: pl.DataFrame, cols: Columns, doc_dtype: pl.DataType
) -> pl.LazyFrame:
    """``query, doc, rank, relevance`` of the judged documents ``few`` (rows of
    :func:`judged_hits`): 1 + the rows of the query with a higher sort key + the rows
    with the same key and a greater doc id as text.

    One join on the query, carrying only numbers, counts for each judged document the rows
    with a key at least as high and those with the same key. Only the judged documents that
    share their key with another row (ties) are then joined with those rows on ``(query,
    key)`` (the run rows whose hash of the pair is one of theirs) to compare doc ids; a run
    without tied judged documents skips that pass."""
    query, doc, rank, relevance = cols.query, cols.doc, cols.rank, cols.relevance
    key, jkey = pl.col(_KEY), pl.col(_JKEY)
    counts = (
        keyed.select(query, _KEY)
        .join(few.lazy().select(query, _JID, key.alias(_JKEY)), on=query)
        .filter(key >= jkey)
        .group_by(_JID)
        .agg(pl.len().alias("__pr_at_least"), (key == jkey).sum().alias("__pr_same"))
        .collect(engine=PASS_ENGINE)
    )
    # a judged document meets itself among the rows with its key
    tied_ids = counts.filter(pl.col("__pr_same") > 1).select(_JID)
    tied = pl.DataFrame(schema={_JID: counts.schema[_JID], "__pr_tied": pl.UInt32})
    if tied_ids.height:
        tied_few = few.join(tied_ids, on=_JID, how="semi")
        # the rows whose (query, key) hash is a tied judged document's, then the exact join
        wanted = tied_few.select(_tie_hash(query)).to_series().implode()
        tied = (
            keyed.filter(_tie_hash(query).is_in(wanted))
            .join(
                tied_few.lazy().select(
                    query, _KEY, _JID, key.alias(_JKEY), doc_key(doc, doc_dtype).alias(_JDOC)
                ),
                on=[query, _KEY],
            )
            # the key compared again: the join may pair NaN keys (validate=False), ``==`` not
            .filter((key == jkey) & (doc_key(doc, doc_dtype) > pl.col(_JDOC)))
            .group_by(_JID)
            .len("__pr_tied")
            .collect(engine=PASS_ENGINE)
        )
    above = pl.col("__pr_at_least") - pl.col("__pr_same")
    before = above.fill_null(0) + pl.col("__pr_tied").fill_null(0)
    return (
        few.lazy()
        .join(counts.lazy(), on=_JID, how="left")
        .join(tied.lazy(), on=_JID, how="left")
        .select(query, doc, (before + 1).cast(pl.UInt32).alias(rank), relevance)
    )


def compact_judged_table(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    hits: pl.DataFrame,
    sizes: pl.DataFrame,
    options: Options,
    doc_dtype: pl.DataType,
) -> pl.DataFrame:
    """The compact judged table (see :func:`judged_table`) from :func:`judged_hits` and
    :func:`run_sizes`, collected with :data:`PASS_ENGINE`.

    A retrieved judged document's rank is 1 + the number of its query's documents ordered
    before it (a higher sort key, or the same key and a greater doc id as text). For queries
    with at most :data:`PAIRWISE_MAX_JUDGED` judged retrieved documents it is counted
    (:func:`_counted_ranks`: every run row against its query's judged documents, a join on the
    query, a filter, a count per judged document; tied rows apart); other queries are sorted.
    Nothing holds the whole run. The table comes sorted by query and rank, in memory (so that
    Polars knows it is sorted by query).
    """
    cols = options.columns
    query, doc, rank, relevance = cols.query, cols.doc, cols.rank, cols.relevance
    keyed = _keyed(run, options)
    many = pl.len().over(query) > PAIRWISE_MAX_JUDGED
    few, lots = hits.filter(~many), hits.filter(many)
    found = []
    if few.height:
        found.append(_counted_ranks(keyed, few, cols, doc_dtype))
    if lots.height:
        order = pl.struct(pl.col(_KEY), doc_key(doc, doc_dtype).alias("_doc"))
        found.append(
            keyed.join(lots.lazy().select(query).unique(), on=query, how="semi")
            .select(
                query,
                doc,
                order.rank("ordinal", descending=True).over(query).cast(pl.UInt32).alias(rank),
            )
            .join(lots.lazy().select(query, doc, relevance), on=[query, doc], how="inner")
        )
    schema: dict[str, pl.DataType] = {query: hits.schema[query], doc: doc_dtype, rank: pl.UInt32()}
    ranked = (
        pl.concat(found, how="vertical")
        if found
        else pl.LazyFrame(schema={**schema, relevance: hits.schema[relevance]})
    )
    retrieved = pl.col(SIZE)
    if options.max_rank is not None:
        ranked = ranked.filter(pl.col(rank) <= options.max_rank)
        retrieved = retrieved.clip(upper_bound=options.max_rank)
    last = sizes.lazy().select(
        query,
        pl.lit(None, doc_dtype).alias(doc),
        retrieved.cast(pl.UInt32).alias(rank),
        pl.lit(None, hits.schema[relevance]).alias(relevance),
    )
    missed = (
        judgments(qrels, options)
        .join(ranked.select(query, doc), on=[query, doc], how="anti")
        .select(query, doc, pl.lit(None, pl.UInt32).alias(rank), relevance)
    )
    table = pl.concat([ranked, last, missed], how="vertical").collect(engine=PASS_ENGINE)
    # rank order within each query makes every sum run in rank order (repeatable results);
    # sorted in memory, the table keeps Polars' sorted flag on the query column, so that the
    # metrics' group_by takes each query's rows as one slice (half the time at 100k queries)
    return table.sort(query, rank, nulls_last=True)


def _repeated_pairs(run: pl.LazyFrame, cols: Columns, rows: int) -> int:
    """The run's rows minus its distinct pair hashes (:func:`~polars_rank.core.validation.
    repeated_pair_count`), the hashes sorted in buckets of at most :data:`DUPLICATE_BUCKET_ROWS`
    rows (queries split by a hash of the query: a pair repeats within its query, so within
    its bucket), one pass over the run each: the sort holds one bucket's hashes."""
    buckets = max(1, -(-rows // DUPLICATE_BUCKET_ROWS))
    if buckets == 1:
        return int(repeated_pair_count(run, cols).collect(engine=PASS_ENGINE).item())
    total = 0
    for bucket in range(buckets):
        part = pl.col(cols.query).hash(seed=_BUCKET_SEED) % buckets == bucket
        total += int(repeated_pair_count(run.filter(part), cols).collect(engine=PASS_ENGINE).item())
    return total


def pass_flags(*, in_memory: bool) -> pl.QueryOptFlags:
    """The optimisations of a pass that collects several plans over the same input at once.

    For an input that is not in memory (a LazyFrame: Parquet, CSV, a computed column such as
    ``by``'s (group, query) id) the plans' common part is not cached: Polars' common-subplan
    cache holds the whole input, computed columns and all, which put the first pass at 100M
    rows from Parquet at 4.3-4.8 GiB peak RSS against 1.3 GiB without it (about 10 % more CPU
    time: each plan reads the input; bench/README.md, issue 27)."""
    return pl.QueryOptFlags() if in_memory else pl.QueryOptFlags(comm_subplan_elim=False)


def compact_table(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    options: Options,
    *,
    judgments_given: bool = True,
    in_memory: bool = False,
) -> pl.DataFrame:
    """The compact judged table of :func:`compact_tables`, its buckets in one frame sorted by
    query and rank. ``options`` must be resolved."""
    tables = list(
        compact_tables(run, qrels, options, judgments_given=judgments_given, in_memory=in_memory)
    )
    if len(tables) == 1:
        return tables[0]
    cols = options.columns
    return pl.concat(tables).sort(cols.query, cols.rank, nulls_last=True)


def compact_tables(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    options: Options,
    *,
    judgments_given: bool = True,
    in_memory: bool = False,
) -> Iterator[pl.DataFrame]:
    """The compact judged table (see :func:`judged_table`), computed now: passes over the run,
    streamed — the per-query counts with the input checks (``options.validate``), collected
    with the judged pairs' hashes (:func:`judged_pair_hashes`); the judged documents
    (:func:`judged_hits`); their ranks (:func:`compact_judged_table`: the rows above, then the
    tied rows of judged documents with a tie). ``options`` must be resolved.

    The run's duplicate pairs are counted per query (each query's set of doc hashes) when
    ``in_memory`` (a run in memory: the faster count there), else by sorting the run's pair
    hashes (:func:`~polars_rank.core.validation.repeated_pair_count`: for runs read from
    files, half the time or less of distinct counts in hash partitions, half the memory of
    per-query sets).

    With more than :data:`BUCKET_JUDGMENTS` judged pairs, the judged documents are found and
    ranked bucket by bucket (queries split by a hash of the query; each bucket's passes read
    the whole run and keep its queries' rows): the memory those passes hold is a bucket's,
    for one more read of the run per bucket. Each bucket's table is yielded as it is made
    (sorted by query and rank; a query is in one bucket), so that a caller can reduce it
    before the next one is made; the input checks run before the first."""
    counted = options.validate and options.duplicates == "error"
    checks = problem_counts(run, qrels, options, run_pairs=False) if options.validate else []
    if counted:  # the run's counts come with its sizes: one pass over the run fewer
        checks = checks[1:]
    size_plan = run_sizes(run, options, distinct=counted and in_memory, problems=counted)
    sorted_hashes = counted and not in_memory
    wanted_plan = judged_pair_hashes(run, qrels, options)
    *found, sizes, wanted = pl.collect_all(
        [*checks, size_plan, wanted_plan],
        engine=PASS_ENGINE,
        optimizations=pass_flags(in_memory=in_memory),
    )
    if counted:
        rows, problems = int(sizes[SIZE].sum()), int(sizes[PROBLEMS].sum())
        found = [pl.DataFrame({"problems": [problems], "rows": [rows]}), *found]
    if options.validate:
        suspects = None
        if sorted_hashes:
            duplicates = _repeated_pairs(run, options.columns, int(sizes[SIZE].sum()))
            if duplicates:
                suspects = duplicate_suspects(run, options.columns)
        elif counted:
            duplicates = int(sizes[SIZE].sum()) - int(sizes[DISTINCT].sum())  # integer counts
        else:
            duplicates = 0
        check_counts(
            found,
            run,
            qrels,
            options,
            judgments_given=judgments_given,
            run_duplicates=duplicates,
            run_suspects=suspects,
        )
    doc_dtype = run.collect_schema()[options.columns.doc]
    buckets = max(1, -(-wanted.height // BUCKET_JUDGMENTS))
    for bucket in range(buckets):
        part_run, part_qrels, part_sizes = run, qrels, sizes
        if buckets > 1:  # the queries whose hash falls in this bucket, in every input
            part = pl.col(options.columns.query).hash(seed=_BUCKET_SEED) % buckets == bucket
            part_run, part_qrels, part_sizes = (
                run.filter(part),
                qrels.filter(part),
                sizes.filter(part),
            )
        # apart: collected together, the join's and the counts' memory would add up (4.4
        # against 1.6 GiB at 100M rows from Parquet, for 5 % less time)
        hits = judged_hits(part_run, part_qrels, options, wanted[_PAIR]).collect(engine=PASS_ENGINE)
        yield compact_judged_table(part_run, part_qrels, hits, part_sizes, options, doc_dtype)


def judged_table(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    options: Options,
    *,
    compact: bool = False,
    in_memory: bool = False,
) -> pl.LazyFrame:
    """The judged table as a LazyFrame (see :func:`judge`), after the input checks.

    With ``compact=True`` only the rows every metric needs are kept: judged rows, and one
    unjudged row per query at rank = number retrieved (so that ``rank.max()`` still counts the
    retrieved documents; its doc is null). Every metric of :mod:`polars_rank.ranking.metrics`
    gives the same value on the compact and the full table. ``in_memory=True`` says the inputs
    are DataFrames, so the input checks may use the in-memory engine.
    """
    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()
    options = options.resolve(run_schema, qrels_schema)
    cols = options.columns
    doc_dtype = run_schema[cols.doc]
    named = {"query": cols.query, "doc": cols.doc, "rank": cols.rank, "relevance": cols.relevance}
    for role, name in named.items():
        other = next((r for r, n in named.items() if n == name and r != role), None)
        if other is not None:
            raise PolarsRankError(
                f"the judged table's {role} and {other} columns would both be called {name!r}: "
                f"name the judged table's rank column with {messages.option('rank', 'pos')}"
                if "rank" in (role, other)
                else f"the {role} and {other} columns are both {name!r}"
            )
    if compact:
        return compact_table(run, qrels, options, in_memory=in_memory).lazy()
    if options.validate:
        validate(run, qrels, options, in_memory=in_memory)
    ranked = ranked_run(run, options, doc_dtype)
    table = ranked.join(
        judgments(qrels, options),
        on=[cols.query, cols.doc],
        how="full",
        coalesce=True,
        maintain_order="none",
    )
    return table.select(cols.query, cols.doc, cols.rank, cols.relevance)


def judge(
    run: FrameLike,
    qrels: FrameLike,
    *,
    query: str = "query",
    doc: str = "doc",
    score: str = "score",
    rank: str = "rank",
    relevance: str = "relevance",
    order_by: OrderBy | None = None,
    max_rank: int | None = None,
    duplicates: Duplicates = "error",
    validate: bool = True,
) -> pl.DataFrame | pl.LazyFrame:
    """Rank a run as trec_eval does and attach the judgments: the table every metric reads.

    Returns ``query, doc, rank, relevance``: every retrieved document with its 1-based rank
    (score descending, ties by doc id descending as text) and its judgment (null if unjudged),
    plus every judged document that was not retrieved, with a null rank. DataFrame in,
    DataFrame out; LazyFrame in, LazyFrame out (validation then reads the inputs once).

    Args:
        run: ``query, doc`` and ``score`` (higher is better) and/or ``rank`` (1 is best).
        qrels: ``query, doc, relevance`` (grade; 0 judged non-relevant; negative judged, never
            relevant).
        order_by: ``"score"`` (trec_eval; the default when the run has scores) or ``"rank"``
            (the run's own rank column, ascending; ties by doc id descending).
        max_rank: keep only the top ``max_rank`` documents per query (trec_eval ``-M``).
        duplicates: a repeated ``(query, doc)`` is an error (default), or keep the ``"first"``
            row, or the ``"max"`` one (highest score, best given rank, highest grade).
        validate: check nulls, NaNs and duplicates first (one pass over each input).

    Example:
        >>> import polars as pl, polars_rank as pr
        >>> run = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [1.0, 1.0]})
        >>> qrels = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "c"], "relevance": [1, 2]})
        >>> pr.judge(run, qrels).rows()
        [('q', 'b', 1, None), ('q', 'a', 2, 1), ('q', 'c', None, 2)]
    """
    options = Options.from_arguments(
        query=query,
        doc=doc,
        score=score,
        rank=rank,
        relevance=relevance,
        order_by=order_by,
        max_rank=max_rank,
        duplicates=duplicates,
        validate=validate,
    )
    run, qrels = as_polars(run, "run"), as_polars(qrels, "qrels")
    table = judged_table(
        to_lazy(run, "run"),
        to_lazy(qrels, "qrels"),
        options,
        in_memory=isinstance(run, pl.DataFrame) and isinstance(qrels, pl.DataFrame),
    )
    return like(table.sort(query, rank, nulls_last=True, maintain_order=True), run)
