"""The building blocks a metric's portable SQL is made of: SQL text helpers and :class:`Parts`.

Everything here is SQL text in the base dialect (PostgreSQL's; see :mod:`.dialects`), written
so that every dialect computes the same IEEE doubles: every number is cast to DOUBLE before it
is divided (Spark would make ``1.0 / 3`` a DECIMAL, PostgreSQL ``1 / 2`` an integer), a
division by zero gives 0 rather than an error, and ``log2(x)`` is ``LN(x) / LN(2)`` (the
dialects disagree on LOG's argument order; PostgreSQL's two-argument LOG takes no DOUBLE).

A metric's builder (:mod:`.builders`) asks a :class:`Parts` for what it needs — per-query
aggregates such as "relevant documents within k", and per-row windows such as "relevant
documents at or above this rank" — and returns its per-query value as arithmetic over them.
:mod:`.plan` then emits each distinct part once. The rows the parts read (CTE ``pr_rows``) are
the judged documents of each query plus one marker row per run query, with the columns

* ``qid``: the query id;
* ``pos``: the document's 1-based rank (trec_eval's order), NULL when it was not retrieved or
  ranked below ``max_rank`` (and on the marker row);
* ``grade``: the judgment as DOUBLE (NULL on the marker row);
* ``rel_<i>`` / ``nonrel_<i>``: 0/1, the grade counts as relevant / judged non-relevant at the
  i-th relevance level in use (:meth:`Parts.relevant`, :meth:`Parts.nonrelevant`);
* ``n_ret``: the number of documents the query retrieved (only when :meth:`Parts.n_ret` is
  used; capped at ``max_rank``).

Unjudged retrieved documents are not rows: they add nothing to any metric except through the
number retrieved, which :meth:`Parts.n_ret` gives.

>>> q = Parts()
>>> q.hits(1, 10)
'c1'
>>> q.aggregates
{'SUM(CASE WHEN pos <= 10 THEN rel_0 ELSE 0 END)': 'c1'}
>>> div("c1", "c2")
'CASE WHEN CAST(c2 AS DOUBLE) > 0 THEN CAST(c1 AS DOUBLE) / CAST(c2 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END'
"""  # noqa: E501

from __future__ import annotations

from dataclasses import dataclass, field

#: DOUBLE constants 0 and 1.
ZERO = "CAST(0 AS DOUBLE)"
ONE = "CAST(1 AS DOUBLE)"


def dbl(sql: str) -> str:
    """``sql`` cast to DOUBLE."""
    return f"CAST({sql} AS DOUBLE)"


def num(value: float) -> str:
    """A DOUBLE constant, never a DECIMAL literal: an integral value as ``CAST(10 AS
    DOUBLE)``, any other from its shortest repr, ``CAST('0.3' AS DOUBLE)``.

    >>> num(10), num(0.3)
    ('CAST(10 AS DOUBLE)', "CAST('0.3' AS DOUBLE)")
    """
    value = float(value)
    if value.is_integer() and abs(value) < 2**53:
        return f"CAST({int(value)} AS DOUBLE)"
    return f"CAST('{value!r}' AS DOUBLE)"


def div(numerator: str, denominator: str) -> str:
    """``numerator / denominator`` as DOUBLE; 0 when the denominator is not positive (every
    denominator is a count or a sum of non-negative terms), as the Polars metrics divide."""
    d = dbl(denominator)
    return f"CASE WHEN {d} > 0 THEN {dbl(numerator)} / {d} ELSE {ZERO} END"


def within(k: int | None) -> str:
    """The row's document was retrieved at a rank ``<= k`` (at any rank when k is None)."""
    return "pos IS NOT NULL" if k is None else f"pos <= {int(k)}"


def log2(sql: str) -> str:
    """log2 as ``(LN(x) / LN(2))``, parenthesised so that ``a / log2(x)`` divides by it."""
    return f"(LN({sql}) / LN(CAST(2 AS DOUBLE)))"


def gain(kind: str) -> str:
    """A row's gain: its grade (``"linear"``) or 2^grade − 1 (``"exponential"``); 0 for a
    grade <= 0 and on the marker row."""
    if kind == "linear":
        return f"CASE WHEN grade > 0 THEN grade ELSE {ZERO} END"
    if kind == "exponential":
        return f"CASE WHEN grade > 0 THEN POWER(CAST(2 AS DOUBLE), grade) - 1 ELSE {ZERO} END"
    raise AssertionError(f"the registry has no gain {kind!r}")


@dataclass
class Parts:
    """The per-query aggregates, per-row windows and relevance levels the metrics of one query
    need; each is added once, however many metrics use it.

    The methods return SQL: aggregate methods a column of ``pr_parts`` (one row per query),
    window methods a column of ``pr_rows`` (usable inside an aggregate's ``CASE``).
    """

    #: The plan's ``by`` columns (``pr_g0``, ...; none without ``by``): a query's rows are
    #: those of one (group, query), every window partitioned by :attr:`key`.
    groups: tuple[str, ...] = ()
    levels: list[float] = field(default_factory=list)
    aggregates: dict[str, str] = field(default_factory=dict)  # aggregate SQL -> column
    windows: dict[str, str] = field(default_factory=dict)  # column -> window SQL
    needs_n_ret: bool = False

    @property
    def key(self) -> str:
        """The columns of one ranking: the ``by`` columns, then ``qid``."""
        return ", ".join([*self.groups, "qid"])

    # building blocks -------------------------------------------------------------------------

    def aggregate(self, sql: str) -> str:
        """The ``pr_parts`` column holding the per-query aggregate ``sql`` over ``pr_rows``."""
        if sql not in self.aggregates:
            self.aggregates[sql] = f"c{len(self.aggregates) + 1}"
        return self.aggregates[sql]

    def window(self, name: str, sql: str) -> str:
        """The ``pr_rows`` column ``name`` computed by the window function ``sql``."""
        self.windows.setdefault(name, sql)
        return name

    def _level(self, relevance_level: float) -> int:
        level = float(relevance_level)
        if level not in self.levels:
            self.levels.append(level)
        return self.levels.index(level)

    def relevant(self, relevance_level: float) -> str:
        """The row's 0/1 flag: grade >= level and >= 0."""
        return f"rel_{self._level(relevance_level)}"

    def nonrelevant(self, relevance_level: float) -> str:
        """The row's 0/1 flag: 0 <= grade < level (judged non-relevant)."""
        return f"nonrel_{self._level(relevance_level)}"

    # per-row windows over the judged rows of one query ---------------------------------------

    def big_r(self, relevance_level: float) -> str:
        """R, the query's relevant judgments (retrieved or not), on every row."""
        rel = self.relevant(relevance_level)
        return self.window(f"big_r_{rel}", f"SUM({rel}) OVER (PARTITION BY {self.key})")

    def big_n(self, relevance_level: float) -> str:
        """N, the query's judged non-relevant documents (retrieved or not), on every row."""
        nonrel = self.nonrelevant(relevance_level)
        return self.window(f"big_n_{nonrel}", f"SUM({nonrel}) OVER (PARTITION BY {self.key})")

    def running(self, name: str, flag: str) -> str:
        """The sum of ``flag`` over the retrieved rows ranked at or above this row's rank.

        Rows not retrieved sort first (key 0) and add 0; retrieved ranks are distinct, so ROWS
        and RANGE frames agree, and the key is never NULL, so NULL ordering cannot matter."""
        return self.window(
            name,
            f"SUM(CASE WHEN pos IS NOT NULL THEN {flag} ELSE 0 END) OVER (PARTITION BY {self.key} "
            "ORDER BY COALESCE(pos, 0) ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
        )

    def rel_above(self, relevance_level: float) -> str:
        """Relevant retrieved documents at ranks up to and including this row's."""
        rel = self.relevant(relevance_level)
        return self.running(f"above_{rel}", rel)

    def nonrel_above(self, relevance_level: float) -> str:
        """Judged non-relevant retrieved documents at ranks up to this row's."""
        nonrel = self.nonrelevant(relevance_level)
        return self.running(f"above_{nonrel}", nonrel)

    def ideal_pos(self) -> str:
        """The row's position when the query's judged rows are sorted by grade, highest first
        (the ideal ranking of IDCG; tied rows have the same gain, so their order is free).
        Linear and exponential gain sort alike."""
        return self.window(
            "ideal_pos",
            f"ROW_NUMBER() OVER (PARTITION BY {self.key} ORDER BY {gain('linear')} DESC)",
        )

    # per-query aggregates ---------------------------------------------------------------------

    def n_ret(self) -> str:
        """Documents retrieved (capped at ``max_rank``; 0 for a query missing from the run)."""
        self.needs_n_ret = True
        return f"COALESCE({self.aggregate('MAX(n_ret)')}, 0)"

    def num_rel(self, relevance_level: float) -> str:
        """R, the number of relevant judgments."""
        return self.aggregate(f"SUM({self.relevant(relevance_level)})")

    def hits(self, relevance_level: float, k: int | None) -> str:
        """Relevant documents retrieved within k."""
        rel = self.relevant(relevance_level)
        return self.aggregate(f"SUM(CASE WHEN {within(k)} THEN {rel} ELSE 0 END)")

    def judged_within(self, k: int | None, *, nonnegative: bool = False) -> str:
        """Judged documents retrieved within k (only grades >= 0 with ``nonnegative``)."""
        condition = within(k) + (" AND grade >= 0" if nonnegative else "")
        return self.aggregate(f"SUM(CASE WHEN {condition} THEN 1 ELSE 0 END)")

    def dcg(self, k: int | None, kind: str) -> str:
        """Σ over retrieved rows within k of gain / log2(rank + 1)."""
        term = f"{gain(kind)} / {log2(dbl('pos') + ' + 1')}"
        return self.aggregate(f"SUM(CASE WHEN {within(k)} THEN {term} ELSE {ZERO} END)")

    def ideal_dcg(self, k: int | None, kind: str) -> str:
        """DCG of the ideal ranking of all judgments, cut at k."""
        ideal = self.ideal_pos()
        term = f"{gain(kind)} / {log2(dbl(ideal) + ' + 1')}"
        if k is None:
            return self.aggregate(f"SUM({term})")
        return self.aggregate(f"SUM(CASE WHEN {ideal} <= {int(k)} THEN {term} ELSE {ZERO} END)")

    # group A: gain tables, running products (ERR), rounding ---------------------------------

    def _numbered_window(self, prefix: str, sql: str) -> str:
        """The ``pr_rows`` column computed by the window ``sql``, named ``prefix_<n>``; the same
        SQL asked twice gives the same column (for windows that depend on a parameter)."""
        for name, existing in self.windows.items():
            if existing == sql and name.startswith(prefix + "_"):
                return name
        return self.window(f"{prefix}_{len(self.windows) + 1}", sql)

    def ideal_position(self, gain_sql: str) -> str:
        """The row's position in the ideal ranking by the gain ``gain_sql`` (a per-row SQL
        expression, never NULL), highest first; rows of equal gain in any order."""
        return self._numbered_window(
            "ideal_at", f"ROW_NUMBER() OVER (PARTITION BY {self.key} ORDER BY {gain_sql} DESC)"
        )

    def dcg_of(self, gain_sql: str, k: int | None) -> str:
        """Σ over retrieved rows within k of ``gain_sql`` / log2(rank + 1)."""
        term = f"{gain_sql} / {log2(dbl('pos') + ' + 1')}"
        return self.aggregate(f"SUM(CASE WHEN {within(k)} THEN {term} ELSE {ZERO} END)")

    def ideal_dcg_of(self, gain_sql: str, k: int | None) -> str:
        """Σ over the ideal positions i <= k of the ideal gain ``gain_sql`` / log2(i + 1);
        ``gain_sql`` must be 0 for the rows the ideal ranking leaves out."""
        ideal = self.ideal_position(gain_sql)
        term = f"{gain_sql} / {log2(dbl(ideal) + ' + 1')}"
        if k is None:
            return self.aggregate(f"SUM({term})")
        return self.aggregate(f"SUM(CASE WHEN {ideal} <= {int(k)} THEN {term} ELSE {ZERO} END)")

    def sum_above(self, prefix: str, term: str) -> str:
        """The sum of ``term`` over the retrieved rows ranked strictly above this row (0 at rank
        1); as :meth:`running`, but the frame ends one row before the current one."""
        window = self._numbered_window(
            prefix,
            f"SUM(CASE WHEN pos IS NOT NULL THEN {term} ELSE {ZERO} END) OVER "
            f"(PARTITION BY {self.key} ORDER BY COALESCE(pos, 0) "
            "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)",
        )
        return f"COALESCE({window}, {ZERO})"

    # group B (trec_eval's infAP, G, ndcg_rel, Rndcg, rbp, rbp_resid) -------------------------

    #: Gain SQL of each event set (see :meth:`event_set`).
    event_sets: list[str] = field(default_factory=list)
    event_windows: dict[str, str] = field(default_factory=dict)  # column -> window SQL
    event_aggregates: dict[str, str] = field(default_factory=dict)  # aggregate SQL -> column

    def event_set(self, gain_sql: str) -> int:
        """The index of the event set of a gain (SQL over a ``pr_rows`` row).

        Rank-by-rank measures against the ideal ranking (trec_eval's G, ndcg_rel, Rndcg) need,
        at a retrieved rank i, sums over the ideal positions <= i, and at an ideal position k,
        sums over the retrieved ranks <= k: one row would need two places in one order. The
        events (CTE ``pr_events``) give each judged row of a query up to two: a retrieved
        event (``side`` 0, ``ekey`` its rank) and, when its grade is >= 0 and its gain
        positive, an ideal event (``side`` 1, ``ekey`` its position in the ideal ranking,
        gains largest first); both carry the gain ``g``; ``eset`` tells the gain tables in
        use apart. Windows over the events (:meth:`event_running`) then merge both rankings,
        and per-query aggregates over them (:meth:`event_aggregate`) join ``pr_parts``."""
        if gain_sql not in self.event_sets:
            self.event_sets.append(gain_sql)
        return self.event_sets.index(gain_sql)

    def event_window(self, name: str, sql: str) -> str:
        """The events' column ``name`` computed by the window function ``sql``."""
        self.event_windows.setdefault(name, sql)
        return name

    def event_running(self, eset: int, side: int, term: str, *, ideal_first: bool) -> str:
        """The sum of ``term`` over the events of one ``side`` at or before this event in the
        merged order: by ``ekey``, and at an equal key the ideal event first
        (``ideal_first``: "ideal positions <= this rank") or the retrieved one ("retrieved
        ranks <= this position"). Keys are distinct within a side, so the order is total."""
        order = "DESC" if ideal_first else "ASC"
        name = f"ev_{len(self.event_windows) + 1}"
        sql = (
            f"SUM(CASE WHEN side = {side} THEN {term} ELSE 0 END) OVER "
            f"(PARTITION BY {self.key}, eset ORDER BY ekey, side {order} "
            "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
        )
        for existing, text in self.event_windows.items():
            if text == sql:
                return existing
        return self.event_window(name, sql)

    def event_aggregate(self, sql: str) -> str:
        """A per-query aggregate ``sql`` over the events, 0 for a query without events."""
        if sql not in self.event_aggregates:
            self.event_aggregates[sql] = f"e{len(self.event_aggregates) + 1}"
        return f"COALESCE({self.event_aggregates[sql]}, 0)"

    def events_sql(self) -> str:
        """The ``pr_events`` CTE's SELECT over ``pr_rows``."""
        branches = []
        for i, gain_sql in enumerate(self.event_sets):
            branches.append(
                f"SELECT {self.key}, {i} AS eset, 0 AS side, pos AS ekey, {gain_sql} AS g "
                "FROM pr_rows WHERE pos IS NOT NULL"
            )
            branches.append(
                f"SELECT {self.key}, {i} AS eset, 1 AS side, ROW_NUMBER() OVER "
                f"(PARTITION BY {self.key} ORDER BY {gain_sql} DESC) AS ekey, {gain_sql} AS g "
                "FROM pr_rows "
                f"WHERE grade >= 0 AND {gain_sql} > 0"
            )
        return " UNION ALL ".join(branches)

    def negative_above(self) -> str:
        """Negative-graded (trec_eval's level -2) retrieved documents at ranks up to this
        row's."""
        return self.running("above_negative", "CASE WHEN grade < 0 THEN 1 ELSE 0 END")

    def top_grade(self) -> str:
        """The query's highest grade >= 0, floored, on every row (NULL when it has none)."""
        return self.window(
            "top_grade",
            f"FLOOR(MAX(CASE WHEN grade >= 0 THEN grade END) OVER (PARTITION BY {self.key}))",
        )


def table_gain(table: dict[int, float]) -> str:
    """A row's gain under a gain table (:mod:`polars_rank.ranking.gains`): the entry of its
    level (its grade, -2 for any negative grade), else its grade when >= 0, else 0 (and 0 on
    the marker row). A later entry wins where two match, as in the Polars expression.

    >>> print(table_gain({1: 3, -2: 0}))
    CASE WHEN grade < 0 THEN CAST(0 AS DOUBLE) WHEN grade = CAST(1 AS DOUBLE) THEN CAST(3 AS DOUBLE) WHEN grade >= 0 THEN grade ELSE CAST(0 AS DOUBLE) END
    """  # noqa: E501
    cases = []
    for level, value in reversed(list(table.items())):
        matches = "grade < 0" if level == -2 else f"grade = {num(level)}"
        cases.append(f"WHEN {matches} THEN {num(value)}")
    return f"CASE {' '.join(cases)} WHEN grade >= 0 THEN grade ELSE {ZERO} END"


def round_half_away(sql: str) -> str:
    """``sql`` rounded to an integer, halves away from zero (Polars' ``half_away_from_zero``),
    as DOUBLE. Exact: ``x − FLOOR(x)`` is exact in IEEE arithmetic; the dialects' ROUND is
    not used (PostgreSQL rounds DOUBLE halves to even)."""
    a = f"ABS({sql})"
    floor = dbl(f"FLOOR({a})")
    magnitude = f"({floor} + CASE WHEN {a} - {floor} >= {num(0.5)} THEN {ONE} ELSE {ZERO} END)"
    return f"CASE WHEN {sql} < 0 THEN -{magnitude} ELSE {magnitude} END"
