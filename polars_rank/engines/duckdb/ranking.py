"""``evaluate(..., engine="duckdb")``: one SQL query over the polars_rank macros.

The query ranks the run (score descending, ties by doc id descending as bytes; or the run's
own ranks with ``order_by="rank"``), joins the judgments, and aggregates each query with the
macros of ``sql/ranking.sql`` (text in :mod:`.duckdb_sql`); the result matches the Polars
engine's column for column.

Inputs may be Polars frames (registered on the connection as Arrow streams, without a copy),
DuckDB relations, table or view names on ``con``, or Parquet paths (strings ending in
``.parquet``, read with ``read_parquet``). Parquet files and tables are read as they are
needed, never loaded whole: the query keeps one row per query, the judged documents and
hash tables of the judgments in memory (≈ 2.3 GiB for 100M run rows of 1M queries). The
package's own database keeps DuckDB's defaults (``memory_limit`` 80 % of RAM); to bound
memory, pass ``con`` with ``memory_limit`` and ``temp_directory`` set (DuckDB then spills
to disk, more slowly).

Example:
    >>> import polars as pl, polars_rank as pr
    >>> run = pl.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
    >>> pr.evaluate(run, qrels, ["RR", "P@1"], engine="duckdb").rows()
    [(0.5, 0.0)]
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import duckdb
import polars as pl

from polars_rank.catalog.names import MetricSpec
from polars_rank.core import messages
from polars_rank.core.arrow import register_frame, to_polars
from polars_rank.core.columns import LEFT_OUT, fresh
from polars_rank.core.errors import PolarsRankError
from polars_rank.core.frames import ACCEPTED, as_polars
from polars_rank.core.identifiers import table_reference
from polars_rank.core.judged import empty_qrels
from polars_rank.core.options import Options
from polars_rank.core.sqltext import ident, literal
from polars_rank.core.types import CatalogInput, TableInput
from polars_rank.core.validation import validate
from polars_rank.duckdb import follow, read_session_table, session
from polars_rank.engines.duckdb.checks import check_sql, qrels_look_wrong, run_looks_wrong
from polars_rank.engines.duckdb.query import (
    CHECKS,
    QUERY_OUT,
    ROW,
    id_sql,
    keyed_sql,
    query_sql,
)


@dataclass
class _Source:
    """One input as something DuckDB can read: ``sql`` goes after ``FROM``."""

    sql: str
    schema: pl.Schema
    frame: pl.DataFrame | None = None  # the Polars frame, when the input was one
    views: list[str] = field(default_factory=list)  # names registered on the connection
    row: str = ROW  # the row number's column (``row_index``): none of the input's columns


def _is_parquet(obj: object) -> bool:
    return isinstance(obj, str) and obj.lower().endswith(".parquet")


def _is_table_name(obj: object) -> bool:
    return isinstance(obj, str) and not _is_parquet(obj)


def _session_frame(
    con: duckdb.DuckDBPyConnection,
    user: duckdb.DuckDBPyConnection | None,
    sql: str,
    what: str,
    obj: str,
    error: duckdb.Error,
) -> pl.DataFrame:
    """A table name the engine's cursor cannot read, read on the user's connection itself
    (a frame registered on it, one of its temporary tables or views), or the error."""
    frame = None if user is None or _is_parquet(obj) else read_session_table(user, sql)
    if frame is None:
        raise PolarsRankError(f"{what} {obj!r} cannot be read by DuckDB: {error}") from None
    return frame


def _table(name: str, what: str) -> str:
    """A table or view name as ``to_sql(..., "duckdb")`` reads it: a table reference only
    (:func:`~polars_rank.core.identifiers.table_reference`), never other SQL."""
    return table_reference(name, what, "duckdb").sql("duckdb")


def _source(
    con: duckdb.DuckDBPyConnection,
    obj: TableInput,
    what: str,
    *,
    row_index: bool,
    user: duckdb.DuckDBPyConnection | None = None,
) -> _Source:
    """Make ``obj`` readable by ``con``; register Polars data under a unique name. ``user``:
    the connection ``con`` is a cursor of, for the names only its session reads. A name is a
    table reference only (never other SQL), read as ``to_sql(..., "duckdb")`` reads it."""
    if isinstance(obj, duckdb.DuckDBPyRelation):
        obj = to_polars(obj)
    if isinstance(obj, pl.LazyFrame):
        obj = obj.collect()
    if isinstance(obj, str):
        sql = f"read_parquet({literal(obj)})" if _is_parquet(obj) else _table(obj, what)
        try:
            schema = to_polars(con.sql(f"SELECT * FROM {sql} LIMIT 0")).schema
        except duckdb.Error as error:
            obj = _session_frame(con, user, sql, what, obj, error)
        else:
            row = fresh(ROW, schema.names())
            if row_index:
                sql = f"(SELECT *, row_number() OVER () - 1 AS {ident(row)} FROM {sql})"
            return _Source(sql, schema, row=row)
    if isinstance(obj, pl.DataFrame):
        name = f"__pr_{what}_{uuid.uuid4().hex}"
        row = fresh(ROW, obj.columns)
        register_frame(con, name, obj.with_row_index(row) if row_index else obj)
        return _Source(ident(name), obj.schema, frame=obj, views=[name], row=row)
    raise TypeError(
        f"{what} must be {ACCEPTED}, a DuckDB relation, a table name or a .parquet path, "
        f"got {type(obj).__name__}"
    )


class _Checking:
    """The input checks of frames (:func:`~polars_rank.core.validation.validate`, Polars
    work), run while DuckDB evaluates.

    Polars and DuckDB both release the GIL, and the evaluation leaves a core idle part of the
    time (its parallel passes alternate with steps DuckDB runs on one thread), so checking on
    a thread of its own hides the checks' time where a core is free (10M rows: ~0.4 CPU s of
    checks beside a query of ~2.1 CPU s, of which ~0.6 s on one thread). The
    outcome is what checking first gives: :meth:`settle` raises the checks' error, if any, in
    place of the evaluation's result or error, and a failed check interrupts the evaluation
    (on the engine's own cursor). ``background=False`` (recommender inputs: their own checks
    and notices must come after these) or ``checks=None`` (nothing to check): run now, or
    nothing."""

    def __init__(
        self,
        checks: Callable[[], None] | None,
        con: duckdb.DuckDBPyConnection,
        *,
        background: bool = True,
    ) -> None:
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if checks is None:
            return
        if not background:
            checks()
            return

        def run() -> None:
            try:
                checks()
            except BaseException as error:  # kept for settle(), raised in the caller's thread
                self._error = error
                con.interrupt()

        self._thread = threading.Thread(target=run, name="polars_rank-checks", daemon=True)
        self._thread.start()

    def join(self) -> None:
        """Wait for the checks (always before the engine's cursor closes)."""
        if self._thread is not None:
            self._thread.join()

    def early(self) -> None:
        """Raise the checks' error if they have failed already (called before the query
        starts: DuckDB forgets an interrupt that comes before its query)."""
        if self._thread is not None and not self._thread.is_alive():
            self.settle()

    def settle(self) -> None:
        """Wait for the checks; raise their error, if any."""
        self.join()
        if self._error is not None:
            error, self._error = self._error, None
            error.__suppress_context__ = True  # not "during handling of" the evaluation's error
            raise error


def _left_out_fallback(
    con: duckdb.DuckDBPyConnection, run: _Source, qrels: _Source, query: str
) -> int:
    """Run queries without judgments, counted apart (only needed when no row came back)."""
    q = id_sql(query, run.schema[query])
    rows = con.sql(
        f"SELECT count(DISTINCT {q}) FROM {run.sql} WHERE {q} NOT IN (SELECT {q} FROM {qrels.sql})"
    ).fetchall()
    return int(rows[0][0])


def _frame(
    con: duckdb.DuckDBPyConnection,
    obj: CatalogInput | None,
    what: str,
    user: duckdb.DuckDBPyConnection | None = None,
) -> pl.DataFrame | pl.Series | None:
    """A recommender input as a Polars DataFrame (tables and Parquet files are read once)."""
    obj = as_polars(obj)
    if obj is None or isinstance(obj, pl.DataFrame | pl.Series):
        return obj
    if isinstance(obj, pl.LazyFrame):
        return obj.collect()
    if isinstance(obj, duckdb.DuckDBPyRelation):
        return to_polars(obj)
    if isinstance(obj, str):
        sql = f"read_parquet({literal(obj)})" if _is_parquet(obj) else _table(obj, what)
        try:
            return to_polars(con.sql(f"SELECT * FROM {sql}"))
        except duckdb.Error as error:
            return _session_frame(con, user, sql, what, obj, error)
    raise TypeError(
        f"{what} must be {ACCEPTED}, a DuckDB relation, a table name or a .parquet path, "
        f"got {type(obj).__name__}"
    )


def _recommender_sql(
    con: duckdb.DuckDBPyConnection,
    specs: list[MetricSpec],
    run_src: _Source,
    qrels: TableInput | None,
    recommender: dict[str, CatalogInput | None],
    options: Options,
    *,
    per_query: bool,
    user: duckdb.DuckDBPyConnection | None = None,
) -> tuple[str, list[_Source]]:
    """The recommender CTEs and the sources registered for them (after the checks)."""
    from polars_rank.catalog.recommender_inputs import prepare, recommender_specs
    from polars_rank.engines.duckdb.recsys import input_ctes, recommender_ctes

    frames = {name: _frame(con, obj, name, user) for name, obj in recommender.items()}
    run_frame = run_src.frame if run_src.frame is not None else pl.DataFrame(schema=run_src.schema)
    inputs = prepare(specs, run_frame, qrels, frames, options, per_query=per_query)
    rec_specs = recommender_specs(specs)
    if not rec_specs:
        return "", []
    sources: list[_Source] = []
    texts: dict[str, str | None] = {}
    given = {
        "interactions": inputs.interactions,
        "item_features": inputs.item_features.frame if inputs.item_features else None,
        "catalog": inputs.catalog,
    }
    for name, frame in given.items():
        if frame is None:
            texts[name] = None
            continue
        source = _source(con, frame, name, row_index=False)
        sources.append(source)
        texts[name] = source.sql
    features = inputs.item_features
    cols = options.columns
    sql = input_ctes(
        texts,
        {},
        query=cols.query,
        doc=cols.doc,
        run_schema=run_src.schema,
        feature_kind=features.kind if features else None,
        feature_column=features.column if features else None,
    ) + recommender_ctes(
        rec_specs,
        options,
        sources=texts,
        feature_kind=features.kind if features else None,
        with_relevance=qrels is not None,
    )
    return sql, sources


def _keyed(
    con: duckdb.DuckDBPyConnection,
    run: _Source,
    qrels: _Source,
    by: list[str],
    groups: pl.DataFrame,
    options: Options,
) -> tuple[_Source, _Source]:
    """The run and the judgments keyed by (group, query) in the query column
    (:func:`.query.keyed_sql`); ``groups``: the run's distinct ``by`` values."""
    name = f"__pr_groups_{uuid.uuid4().hex}"
    register_frame(con, name, groups)
    query = options.columns.query
    shared = [c for c in by if c in qrels.schema]
    run_sql, qrels_sql = keyed_sql(run.sql, qrels.sql, by, shared, query, ident(name))
    keyed = []
    for sql in (run_sql, qrels_sql):
        schema = to_polars(con.sql(f"SELECT * FROM {sql} LIMIT 0")).schema
        keyed.append(_Source(sql, schema, views=[name] if sql is run_sql else []))
    return keyed[0], keyed[1]


def evaluate_duckdb(
    run: TableInput,
    qrels: TableInput | None,
    specs: list[MetricSpec],
    options: Options,
    *,
    per_query: bool,
    con: duckdb.DuckDBPyConnection | None = None,
    warn: Callable[[int], None] = messages.warn_left_out_here,
    recommender: dict[str, CatalogInput | None] | None = None,
    keys: tuple[list[str], pl.DataFrame] | None = None,
    on_problem: Callable[[], None] | None = None,
) -> pl.DataFrame | pl.LazyFrame:
    """Evaluate in DuckDB; the same result as the Polars engine (see :func:`evaluate`).

    Returns a DataFrame, or a LazyFrame over the computed result when ``run`` is a LazyFrame
    (as the Polars engine does). Gives ``warn`` the number of run queries without judgments,
    as the Polars engine does. The work happens on a cursor of ``con`` with the macros as its
    own temporary macros (:func:`polars_rank.duckdb.session`: ``con`` is left as it was);
    table names read what they read on ``con`` (its schema and search path are followed; its
    own registered frames and temporary tables are read on ``con`` itself; refused while
    ``con`` has an open transaction: :func:`polars_rank.duckdb.follow`). Without ``con``
    a cursor of the package's in-memory database is used (table names then cannot be
    resolved: pass ``con`` with them). ``recommender`` holds the interactions, item features
    and catalog (read into memory when given as tables or Parquet paths).

    ``keys`` (``by`` columns, the run's groups): the run and the judgments are keyed in the
    query by (group, query) (:func:`.query.keyed_sql`); the per-query values' query column
    then holds that struct (fields ``f0, f1, ...``). ``on_problem`` replaces the exact checks
    that name a problem a count found (it raises; see :mod:`.grouped`).
    """
    from polars_rank.catalog.recommender_inputs import recommender_specs, warn_outside_catalog
    from polars_rank.engines.duckdb.recsys import OUTSIDE

    lazy_out = isinstance(run, pl.LazyFrame)
    row_index = options.duplicates == "first"  # only needed to know which row came first
    has_qrels = qrels is not None
    user = con
    names = [run, qrels, *(recommender or {}).values()]
    with session(user) as con:
        sources: list[_Source] = []
        checking = _Checking(None, con)
        try:
            if user is not None and any(_is_table_name(obj) for obj in names):
                follow(con, user)
            run_src = _source(con, run, "run", row_index=row_index, user=user)
            sources.append(run_src)
            if not has_qrels:
                qrels = empty_qrels(run_src.schema, options).collect()
            qrels_src = _source(con, qrels, "qrels", row_index=row_index, user=user)
            sources.append(qrels_src)
            if keys is not None:
                run_src, qrels_src = _keyed(con, run_src, qrels_src, *keys, options)
                sources += [run_src, qrels_src]
            options = options.resolve(run_src.schema, qrels_src.schema)

            def check() -> None:  # the exact checks, naming the first problem
                if on_problem is not None:
                    on_problem()
                check_sql(
                    con,
                    run_src.sql,
                    run_src.schema,
                    qrels_src.sql,
                    qrels_src.schema,
                    options,
                    judgments_given=has_qrels,
                )

            # SQL inputs: the run's checks are counted by the evaluation's own pass over it
            # (see duckdb_sql.run_checks); the exact checks run only when a count shows a problem
            in_sql = options.validate and options.duplicates == "error"
            in_sql = in_sql and (run_src.frame is None or qrels_src.frame is None)
            if options.validate and not in_sql:
                if run_src.frame is not None and qrels_src.frame is not None:
                    checking = _Checking(
                        partial(
                            validate,
                            run_src.frame.lazy(),
                            qrels_src.frame.lazy(),
                            options,
                            in_memory=True,
                            judgments_given=has_qrels,
                        ),
                        con,
                        background=not recommender or all(v is None for v in recommender.values()),
                    )
                else:
                    check()
            elif in_sql and qrels_look_wrong(
                con, qrels_src.sql, qrels_src.schema, options, judgments_given=has_qrels
            ):
                check()
            recommender_sql, extra = _recommender_sql(
                con,
                specs,
                run_src,
                qrels if has_qrels else None,
                recommender or {"interactions": None, "item_features": None, "catalog": None},
                options,
                per_query=per_query,
                user=user,
            )
            sources += extra
            has_corpus = any(s.entry.level == "corpus" for s in specs)
            sql = query_sql(
                run_src.sql,
                qrels_src.sql,
                run_src.schema,
                specs,
                options,
                per_query=per_query,
                recommender=recommender_sql,
                has_qrels=has_qrels,
                outside=OUTSIDE if has_corpus else None,
                checks=in_sql,
                rows=(run_src.row, qrels_src.row),
            )
            checking.early()
            try:
                result = to_polars(con.sql(sql))
            except duckdb.Error:
                if in_sql:
                    check()  # bad input may be what failed: name it
                raise
            if in_sql:
                if not result.height or run_looks_wrong(result.row(0, named=True)):
                    check()
                result = result.drop(CHECKS)
            if result.height or not has_qrels:
                left_out = int(result[LEFT_OUT][0] or 0) if result.height else 0
            else:
                left_out = _left_out_fallback(con, run_src, qrels_src, options.columns.query)
        except Exception:
            checking.settle()  # the checks' error first, as if they had run first
            raise
        else:
            checking.settle()
        finally:
            checking.join()
            for source in sources:
                for view in source.views:
                    con.unregister(view)
    warn(left_out)
    result = result.drop(LEFT_OUT)
    if OUTSIDE in result.columns:
        labels = [s.label for s in recommender_specs(specs) if "catalog" in s.entry.tables]
        warn_outside_catalog(int(result[OUTSIDE][0] or 0), labels, stacklevel=3)
        result = result.drop(OUTSIDE)
    if per_query:
        query = options.columns.query
        result = result.rename({QUERY_OUT: query})
        result = result.with_columns(pl.col(query).cast(run_src.schema[query]))
    return result.lazy() if lazy_out else result
