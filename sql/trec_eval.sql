-- polars_rank: trec_eval 10.0's other measures as DuckDB aggregate macros over the judged
-- table's `rank, relevance` (one query per group): relstring, infAP, yaap, Rprec_mult,
-- utility, binG, G, ndcg_rel, Rndcg, set_relative_P, set_map, rbp, rbp_resid.
--
-- Load AFTER ranking.sql (it uses _pr_rel, _pr_div, _pr_table_gain, num_ret, num_rel,
-- num_rel_ret):   .read sql/ranking.sql   then   .read sql/trec_eval.sql
-- (polars_rank.duckdb.register(con) loads both, in that order). Same definitions as
-- polars_rank/ranking/trec_metrics.py; each macro names the trec_eval file that defines it.
--
-- trec_eval's view of a retrieved row: relevance >= 0 the grade; relevance < 0 "in the pool but
-- unjudged" (level -2); relevance NULL "not in the pool" (level -1).
-- Gain tables (gains := ...) are a MAP(INTEGER, DOUBLE) level -> gain, e.g.
-- MAP {1: 3.0::DOUBLE, 2: 9.0, 4: 4.5} for trec_eval's -m ndcg.1=3,2=9,4=4.5; NULL: none.
--
-- The walks over a query's judged retrieved documents are list_reduce calls in rank order.
-- Their accumulator is carried as {a: state, x: row} with each row wrapped the same way
-- ({a: initial state, x: row}): DuckDB before 2.0 (the CLI 1.5) wants list_reduce's initial
-- value to have the type of the list's elements.
-- A value used several times is bound once as a lambda parameter,
--     list_transform([value], lambda v: ... v ... v ...)[1],
-- which keeps DuckDB from expanding (and planning) its expression at every use.

-- ------------------------------------------------------------------------------------------
-- helpers

-- IEEE 754's log2 and division (x / 0.0 = +-Infinity or NaN, log2(0) = -Infinity, log2 of a
-- negative number NaN), whatever the session's ieee_floating_point_ops, integer_division and
-- error_on_division_by_zero (which make them errors): trec_eval's G and ndcg_rel reach them
-- with gain tables that give negative grades a gain
CREATE OR REPLACE MACRO _te_log2(x) AS
    CASE WHEN x > 0 THEN log2(x)
         WHEN x = 0 THEN CAST('-Infinity' AS DOUBLE)
         ELSE CAST('NaN' AS DOUBLE) END;

CREATE OR REPLACE MACRO _te_div(numerator, denominator) AS
    CASE WHEN denominator <> 0 THEN numerator / denominator
         WHEN numerator > 0 THEN CAST('Infinity' AS DOUBLE)
         WHEN numerator < 0 THEN CAST('-Infinity' AS DOUBLE)
         ELSE CAST('NaN' AS DOUBLE) END;

-- relstring character of a judged row: the grade 0-9, '>' above 9, '.' negative grade
CREATE OR REPLACE MACRO _te_relchar(relevance) AS
    CASE WHEN relevance > 9 THEN '>'
         WHEN relevance >= 0 THEN CAST(CAST(floor(relevance) AS BIGINT) AS VARCHAR)
         ELSE '.' END;

-- running sums of a DOUBLE list, after a leading 0: [0, v1, v1 + v2, ...]. (Each value is
-- wrapped in a one-element list: DuckDB before 2.0 wants list_reduce's accumulator to have
-- the type of the list's elements.)
CREATE OR REPLACE MACRO _te_running(xs) AS
    list_reduce(list_transform(xs, lambda v: [CAST(v AS DOUBLE)]),
                lambda acc, v: list_append(acc, acc[-1] + v[1]), [CAST(0 AS DOUBLE)]);

-- one infAP term: j documents above, r relevant, n judged non-relevant, u negative-graded
CREATE OR REPLACE MACRO _te_infap_term(j, r, n, u) AS
    1.0 / (j + 1.0)
    + (j / (j + 1.0)) * (CAST(r + n + u AS DOUBLE) / j)
      * ((CAST(r AS DOUBLE) + 1e-5) / (CAST(r + n AS DOUBLE) + 2.0 * 1e-5));

-- judged retrieved rows in rank order as {r: rank, g: gain, k: kind}; kind 1 relevant,
-- 0 judged non-relevant, -1 negative grade
CREATE OR REPLACE MACRO _te_rows(rank, relevance, gains, relevance_level) AS
    coalesce(
        list({'r': CAST(rank AS DOUBLE), 'g': _pr_table_gain(relevance, gains),
              'k': CASE WHEN relevance < 0 THEN -1
                        WHEN _pr_rel(relevance, relevance_level) THEN 1 ELSE 0 END}
             ORDER BY rank ASC NULLS LAST)
            FILTER (WHERE rank IS NOT NULL AND relevance IS NOT NULL),
        []);

-- the positive ideal gains, largest first (judged rows with grade >= 0)
CREATE OR REPLACE MACRO _te_ideal(relevance, gains) AS
    coalesce(list_sort(list(_pr_table_gain(relevance, gains))
                       FILTER (WHERE relevance >= 0
                               AND _pr_table_gain(relevance, gains) > 0), 'DESC', 'NULLS LAST'),
             []::DOUBLE[]);

-- running ideal DCG [0, I_1, ..., I_P] of the ideal gains
CREATE OR REPLACE MACRO _te_idcg(ideal) AS
    _te_running(list_transform([ideal], lambda _te_g: list_transform(range(1, len(_te_g) + 1),
        lambda _te_k: _te_g[_te_k] / log2(CAST(_te_k AS DOUBLE) + 1)))[1]);

-- the sorted ranks of the retrieved relevant documents
CREATE OR REPLACE MACRO _te_rel_ranks(rank, relevance, relevance_level) AS
    coalesce(list_sort(list(rank) FILTER (WHERE _pr_rel(relevance, relevance_level)
                                          AND rank IS NOT NULL), 'ASC', 'NULLS LAST'), []);

-- ------------------------------------------------------------------------------------------
-- relstring (m_relstring.c): one character per rank 1 .. min(trunc(length), num_ret): the
-- grade 0-9, '>' above 9, '-' not in the judgments, '.' negative grade. A VARCHAR; trec_eval
-- prints it per query only.
CREATE OR REPLACE MACRO relevance_string(rank, relevance, length := 10) AS
    list_transform([{
        'n': CAST(least(num_ret(rank), greatest(trunc(CAST(length AS DOUBLE)), 0)) AS BIGINT),
        'rows': coalesce(list({'r': rank, 'c': _te_relchar(relevance)})
                             FILTER (WHERE rank IS NOT NULL AND relevance IS NOT NULL
                                     AND rank <= length), [])}],
        lambda v: coalesce(array_to_string(list_transform(range(1, v.n + 1),
            lambda p: coalesce(list_filter(v.rows, lambda x: x.r = p)[1].c, '-')), ''),
            ''))[1];  -- (DuckDB 1.4 joins an empty list into NULL)

-- infAP (m_infap.c): (1/R) sum over retrieved relevant at rank j + 1 of
-- 1 (j = 0) or 1/(j+1) + (j/(j+1)) ((r+n+u)/j) ((r+eps)/(r+n+2eps)), eps = 1e-5;
-- r, n, u: relevant, judged non-relevant, negative-graded documents above
CREATE OR REPLACE MACRO _te_infap_init() AS
    {'r': 0, 'n': 0, 'u': 0, 't': CAST(0 AS DOUBLE)};

CREATE OR REPLACE MACRO inferred_ap(rank, relevance, relevance_level := 1) AS
    _pr_div(list_transform([_te_rows(rank, relevance, NULL, relevance_level)], lambda rows:
        list_reduce(list_transform(rows, lambda x: {'a': _te_infap_init(), 'x': x}),
            lambda acc, e: {'a': {
                'r': acc.a.r + CASE WHEN e.x.k = 1 THEN 1 ELSE 0 END,
                'n': acc.a.n + CASE WHEN e.x.k = 0 THEN 1 ELSE 0 END,
                'u': acc.a.u + CASE WHEN e.x.k = -1 THEN 1 ELSE 0 END,
                't': acc.a.t + CASE WHEN e.x.k <> 1 THEN CAST(0 AS DOUBLE)
                                    WHEN e.x.r = 1 THEN CAST(1 AS DOUBLE)
                                    ELSE _te_infap_term(e.x.r - 1, acc.a.r, acc.a.n, acc.a.u)
                               END}, 'x': e.x},
            {'a': _te_infap_init(), 'x': rows[1]}).a.t)[1],
        num_rel(relevance, relevance_level := relevance_level));

-- yaap (m_yaap.c): ln((1 + S) / (1 + R - S)), S = sum of the precisions at the retrieved
-- relevant documents (AP * R)
CREATE OR REPLACE MACRO yaap(rank, relevance, relevance_level := 1) AS
    list_transform([{
        's': coalesce(list_sum(_pr_precisions(_te_rel_ranks(rank, relevance, relevance_level))),
                      0.0),
        'r': num_rel(relevance, relevance_level := relevance_level)}],
        lambda v: ln((1.0 + v.s) / (1.0 + v.r - v.s)))[1];

-- Rprec_mult (m_Rprec_mult.c): P@c, c = trunc(multiple * R + 0.9); 0 when c <= 0
CREATE OR REPLACE MACRO r_precision_multiple(rank, relevance, multiple := 1.0,
                                             relevance_level := 1) AS
    list_transform([{
        'ranks': _te_rel_ranks(rank, relevance, relevance_level),
        'cut': trunc(CAST(multiple AS DOUBLE)
                     * num_rel(relevance, relevance_level := relevance_level) + 0.9)}],
        lambda v: _pr_div(len(list_filter(v.ranks, lambda x: x <= v.cut)), v.cut))[1];

-- utility (m_utility.c): p1 a + p2 b + p3 c + p4 d; a relevant retrieved, b other retrieved,
-- c relevant not retrieved, d = collection_size + a - num_ret - R (trec_eval -N, default 0)
CREATE OR REPLACE MACRO utility(rank, relevance, coefficients := [1.0, -1.0, 0.0, 0.0],
                                collection_size := 0, relevance_level := 1) AS
    CASE WHEN len(coefficients) <> 4
         THEN error('utility needs exactly 4 coefficients, got ' || len(coefficients))
    ELSE list_transform([{
        'a': num_rel_ret(rank, relevance, relevance_level := relevance_level),
        'n': num_ret(rank),
        'r': num_rel(relevance, relevance_level := relevance_level),
        'p': list_transform(coefficients, lambda x: CAST(x AS DOUBLE))}],
        lambda v: v.p[1] * v.a + v.p[2] * (v.n - v.a) + v.p[3] * (v.r - v.a)
                  + v.p[4] * (CAST(collection_size AS DOUBLE) + v.a - v.n - v.r))[1] END;

-- binG (m_binG.c): (1/R) sum over retrieved relevant docs of 1/log2(2 + docs above it that
-- are not relevant)
CREATE OR REPLACE MACRO binary_g(rank, relevance, relevance_level := 1) AS
    _pr_div(coalesce(list_sum(list_transform([_te_rel_ranks(rank, relevance, relevance_level)],
                lambda _te_r: list_transform(range(1, len(_te_r) + 1),
                    lambda _te_i: 1.0 / log2(CAST(2 + _te_r[_te_i] - _te_i AS DOUBLE))))[1]),
                     0.0),
            num_rel(relevance, relevance_level := relevance_level));

-- G (m_G.c): sum over retrieved docs with gain g_i <> 0 of g_i / log2(2 + C_i - S_i), divided
-- by the sum of the positive ideal gains; S_i gain of the ranking through rank i, C_i = sum
-- over ideal positions <= i of max(ideal gain, 1), positions past the ideal gains costing 1
-- (costs: the running costs [0, C_1, ..., C_P])
CREATE OR REPLACE MACRO _te_g(rows, costs, total) AS
    _pr_div(list_reduce(
        list_transform(rows, lambda x: {'a': {'s': CAST(0 AS DOUBLE), 't': CAST(0 AS DOUBLE)},
                                        'x': x}),
        lambda acc, e: {'a': {
            's': acc.a.s + e.x.g,
            't': acc.a.t + CASE WHEN e.x.g <> 0
                THEN _te_div(e.x.g,
                             _te_log2((2 + (costs[CAST(least(e.x.r, len(costs) - 1) AS BIGINT) + 1]
                                            + greatest(e.x.r - (len(costs) - 1), 0)))
                                      - (acc.a.s + e.x.g)))
                ELSE CAST(0 AS DOUBLE) END}, 'x': e.x},
        {'a': {'s': CAST(0 AS DOUBLE), 't': CAST(0 AS DOUBLE)}, 'x': rows[1]}).a.t,
        total);

CREATE OR REPLACE MACRO normalized_gain(rank, relevance, gains := NULL) AS
    list_transform([{'rows': _te_rows(rank, relevance, gains, 1),
                     'ideal': _te_ideal(relevance, gains)}],
        lambda v: list_transform(
            [_te_running(list_transform(v.ideal, lambda g: greatest(g, 1.0)))],
            -- the costs bound once: a macro's argument is its text, which the walk's
            -- lambda would otherwise compute again at every step
            lambda costs: _te_g(v.rows, costs, coalesce(list_sum(v.ideal), 0.0)))[1])[1];

-- ndcg_rel (m_ndcg_rel.c): (sum over retrieved docs with gain > 0 of D_i / I_min(i,P)
-- + (P - their number) D_all / I_P) / P; 0 unless that sum is > 0 (P positive ideal gains).
-- idcg: running ideal DCG [0, I_1, ..., I_P]; the walk gives d = D_all, n = their number,
-- s = the sum
CREATE OR REPLACE MACRO _te_ndcg_rel(rows, idcg) AS
    list_transform([list_reduce(
        list_transform(rows, lambda x: {'a': {'d': CAST(0 AS DOUBLE), 'n': 0,
                                              's': CAST(0 AS DOUBLE)}, 'x': x}),
        lambda acc, e: {'a': {
            'd': acc.a.d + e.x.g / log2(e.x.r + 1),
            'n': acc.a.n + CASE WHEN e.x.g > 0 THEN 1 ELSE 0 END,
            's': acc.a.s + CASE WHEN e.x.g > 0
                THEN _te_div(acc.a.d + e.x.g / log2(e.x.r + 1),
                             idcg[CAST(least(e.x.r, len(idcg) - 1) AS BIGINT) + 1])
                ELSE CAST(0 AS DOUBLE) END}, 'x': e.x},
        {'a': {'d': CAST(0 AS DOUBLE), 'n': 0, 's': CAST(0 AS DOUBLE)}, 'x': rows[1]}).a],
        lambda w: CASE WHEN len(idcg) > 1
            THEN greatest(w.s + CAST(len(idcg) - 1 - w.n AS DOUBLE) * w.d / idcg[-1],
                          CAST(0 AS DOUBLE))
                 / CAST(len(idcg) - 1 AS DOUBLE)
            ELSE CAST(0 AS DOUBLE) END)[1];

CREATE OR REPLACE MACRO ndcg_rel(rank, relevance, gains := NULL) AS
    list_transform([{'rows': _te_rows(rank, relevance, gains, 1),
                     'idcg': _te_idcg(_te_ideal(relevance, gains))}],
        lambda v: _te_ndcg_rel(v.rows, v.idcg))[1];

-- Rndcg (m_Rndcg.c): mean of D_min(k,num_ret) / I_k over the ends k of the runs of equal gains
-- of the positive ideal gains, plus D_all / I_P when num_ret > P + 1; 0 when R = 0; NaN when
-- nothing was recorded. dcg: {r: rank, d: DCG through it} of the judged retrieved rows after
-- {r: 0, d: 0}; idcg: running ideal DCG [0, I_1, ..., I_P]
CREATE OR REPLACE MACRO _te_dcg_running(rows) AS
    list_reduce(list_transform(rows, lambda x: [{'r': x.r, 'd': x.g / log2(x.r + 1)}]),
        lambda acc, x: list_append(acc, {'r': x[1].r, 'd': acc[-1].d + x[1].d}),
        [{'r': CAST(0 AS DOUBLE), 'd': CAST(0 AS DOUBLE)}]);

CREATE OR REPLACE MACRO _te_rndcg(dcg, ideal, idcg, n_ret) AS
    list_transform([{
        'values': list_transform(
            list_filter(range(1, len(ideal) + 1),
                        lambda k: k = len(ideal) OR ideal[k] <> ideal[k + 1]),
            lambda k: list_last(list_filter(dcg, lambda y: y.r <= k)).d / idcg[k + 1]),
        'extra': CASE WHEN n_ret > len(ideal) + 1 AND idcg[-1] > 0
                      THEN dcg[-1].d / idcg[-1] END}],
        lambda v: (coalesce(list_sum(v.values), 0.0) + coalesce(v.extra, 0.0))
                  / CAST(len(v.values) + CASE WHEN v.extra IS NULL THEN 0 ELSE 1 END
                         AS DOUBLE))[1];

CREATE OR REPLACE MACRO r_ndcg(rank, relevance, gains := NULL, relevance_level := 1) AS
    CASE WHEN num_rel(relevance, relevance_level := relevance_level) = 0 THEN CAST(0 AS DOUBLE)
    ELSE list_transform([{'dcg': _te_dcg_running(_te_rows(rank, relevance, gains,
                                                           relevance_level)),
                          'ideal': _te_ideal(relevance, gains),
                          'n': num_ret(rank)}],
        lambda v: _te_rndcg(v.dcg, v.ideal, _te_idcg(v.ideal), v.n))[1] END;

-- set_relative_P (m_set_rel_P.c): num_rel_ret / min(num_ret, R), 0 if either is 0
CREATE OR REPLACE MACRO set_relative_precision(rank, relevance, relevance_level := 1) AS
    _pr_div(num_rel_ret(rank, relevance, relevance_level := relevance_level),
            least(num_ret(rank), num_rel(relevance, relevance_level := relevance_level)));

-- set_map (m_set_map.c): num_rel_ret^2 / (num_ret * R), 0 if either is 0
CREATE OR REPLACE MACRO set_average_precision(rank, relevance, relevance_level := 1) AS
    _pr_div(num_rel_ret(rank, relevance, relevance_level := relevance_level)
                * num_rel_ret(rank, relevance, relevance_level := relevance_level),
            num_ret(rank) * num_rel(relevance, relevance_level := relevance_level));

-- rbp (m_rbp.c): (1 - p) sum over retrieved docs of gain p^(rank-1); gains rescaled to
-- (g - min) / (max - min) when the query's gain table (the table's entries + levels 0 .. top
-- grade without an entry) has a gain < 0 or > 1
CREATE OR REPLACE MACRO _te_gain_table(gains, top) AS
    list_concat(
        coalesce(list_transform(map_values(gains), lambda g: CAST(g AS DOUBLE)), []),
        list_transform(
            list_filter(range(0, coalesce(CAST(floor(top) AS BIGINT), -1) + 1),
                        lambda l: NOT coalesce(list_contains(map_keys(gains),
                                                             CAST(l AS INTEGER)), false)),
            lambda l: CAST(l AS DOUBLE)));

CREATE OR REPLACE MACRO _te_rbp(rows, low, high, p, gains) AS
    (1.0 - CAST(p AS DOUBLE)) * coalesce(list_sum(list_transform(rows, lambda x:
        CASE WHEN (low < 0 OR high > 1)
                  AND (x.k >= 0 OR coalesce(list_contains(map_keys(gains), -2), false))
             THEN (x.g - low) / (high - low)
             ELSE x.g END
        * pow(CAST(p AS DOUBLE), x.r - 1))), 0.0);

CREATE OR REPLACE MACRO trec_rbp(rank, relevance, p := 0.9, gains := NULL) AS
    list_transform([{'rows': _te_rows(rank, relevance, gains, 0),
                     'table': _te_gain_table(gains, max(relevance) FILTER (WHERE relevance >= 0))}],
        lambda v: _te_rbp(v.rows, list_min(v.table), list_max(v.table), p, gains))[1];

-- rbp_resid (m_rbp_resid.c): 1 - (1-p) sum over retrieved docs judged >= 0 of p^(rank-1)
-- (= p^N + (1-p) sum over the others) when some retrieved doc is unjudged or graded
-- negative, else 0
CREATE OR REPLACE MACRO trec_rbp_residual(rank, relevance, p := 0.9) AS
    CASE WHEN count(*) FILTER (WHERE rank IS NOT NULL AND relevance >= 0) < num_ret(rank)
         THEN 1.0 - (1.0 - CAST(p AS DOUBLE))
                    * coalesce(sum(pow(CAST(p AS DOUBLE), CAST(rank AS DOUBLE) - 1))
                                   FILTER (WHERE rank IS NOT NULL AND relevance >= 0), 0.0)
         ELSE CAST(0 AS DOUBLE) END;
