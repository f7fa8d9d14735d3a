-- polars_rank: ranking metrics as DuckDB SQL macros, with trec_eval 10.0's numbers.
--
-- Load:   DuckDB CLI  .read sql/ranking.sql
--         Python      polars_rank.duckdb.register(con)
-- Needs DuckDB >= 1.3 (lambda syntax). Every macro is CREATE OR REPLACE: reloading is harmless.
--
-- Conventions (the same as the Python package):
-- * The judged table has one row per (query, doc): `rank` (1 = best; NULL when the document was
--   judged but not retrieved) and `relevance` (the grade; NULL when retrieved but unjudged).
--   `judge('run', 'qrels')` builds it from a run `query, doc, score` and qrels
--   `query, doc, relevance`.
-- * relevance >= relevance_level is relevant; 0 <= relevance < relevance_level is judged
--   non-relevant; a negative grade is judged but never relevant and never gives gain.
-- * R is the number of relevant judged documents of the query (retrieved or not); the number
--   retrieved is max(rank); k counts positions (P@10 of 3 retrieved documents divides by 10).
-- * Every metric is an aggregate returning DOUBLE for one query:
--       SELECT query, ndcg(rank, relevance, 10) FROM judge('run', 'qrels') GROUP BY query;
--   Optional parameters go by name: k := NULL (no cutoff), relevance_level := 1,
--   gain := 'linear' | 'exponential', gains := MAP {1: 3.0, 2: 9.0} (a gain table),
--   denominator := 'R' | 'min(k,R)'.
-- * Parameters are checked: k (and judge's max_rank) must be NULL or a positive integer,
--   err's max_grade a positive finite number, a choice one of its spellings; anything else
--   raises an error naming the parameter (k := 0 is an error, not 0).
-- * trec_eval's other measures (relstring, infAP, utility, G, rbp, ...) are in trec_eval.sql,
--   which uses this file's macros: load it after this one.

-- ------------------------------------------------------------------------------------------
-- conventions: ordering and identity (the SQL side of polars_rank/ranking/conventions.py)

-- An id as text compared byte by byte, whatever the connection's default_collation: the key
-- trec_eval breaks score ties with (descending; integer ids compare as their decimal text), and
-- the key ids are matched and grouped by.
CREATE OR REPLACE MACRO _pr_id_bytes(id) AS CAST(id AS VARCHAR) COLLATE "binary";

-- The first sort key, higher is better: the score as DOUBLE (+ 0.0 makes -0.0 tie with 0.0,
-- as in C), or the negated rank when a run is ordered by its own ranks.
CREATE OR REPLACE MACRO _pr_score_key(score) AS CAST(score AS DOUBLE) + 0.0;
CREATE OR REPLACE MACRO _pr_rank_key(rank) AS -CAST(rank AS DOUBLE);

-- ------------------------------------------------------------------------------------------
-- parameter checks: each is true, or raises an error naming the parameter. A constant
-- parameter's check is a constant: DuckDB evaluates it once per batch of rows.

-- a cutoff (k, max_rank): NULL (no cutoff) or a positive integer (10 and 10.0 alike)
CREATE OR REPLACE MACRO _pr_cutoff_ok(cutoff, name) AS
    CASE WHEN cutoff IS NULL
              OR (cutoff >= 1 AND cutoff = floor(cutoff) AND isfinite(CAST(cutoff AS DOUBLE)))
             THEN true
         ELSE error(name || ' must be a positive integer, got ' || CAST(cutoff AS VARCHAR)) END;

-- a cutoff that must be given
CREATE OR REPLACE MACRO _pr_given_cutoff_ok(cutoff, name) AS
    CASE WHEN cutoff IS NULL THEN error(name || ' must be a positive integer, got NULL')
         ELSE _pr_cutoff_ok(cutoff, name) END;

-- a positive finite number (max_grade)
CREATE OR REPLACE MACRO _pr_positive_ok(value, name) AS
    CASE WHEN value > 0 AND isfinite(CAST(value AS DOUBLE)) THEN true
         ELSE error(name || ' must be a positive number, got '
                    || coalesce(CAST(value AS VARCHAR), 'NULL')) END;

-- a choice: one of its spellings; message says which ("gain must be 'linear' or ...")
CREATE OR REPLACE MACRO _pr_choice_ok(value, choices, message) AS
    CASE WHEN coalesce(list_contains(choices, value), false) THEN true
         ELSE error(message || ', got '
                    || coalesce('''' || CAST(value AS VARCHAR) || '''', 'NULL')) END;

-- a table macro's table argument once its parameters are checked (ok): query_table reads
-- its argument when the query is bound, so a bad parameter fails whatever the rows
CREATE OR REPLACE MACRO _pr_checked(table_name, ok) AS CASE WHEN ok THEN table_name END;

-- ------------------------------------------------------------------------------------------
-- helpers (scalar)

-- relevant: grade >= level and never negative; NULL (unjudged) is not relevant
CREATE OR REPLACE MACRO _pr_rel(relevance, relevance_level) AS
    coalesce(relevance >= relevance_level AND relevance >= 0, false);

-- judged non-relevant: 0 <= grade < level
CREATE OR REPLACE MACRO _pr_nonrel(relevance, relevance_level) AS
    coalesce(relevance >= 0 AND relevance < relevance_level, false);

-- retrieved at a rank <= k (any rank when k is NULL); k is checked
CREATE OR REPLACE MACRO _pr_within(rank, k) AS
    CASE WHEN k IS NULL THEN rank IS NOT NULL
         WHEN _pr_cutoff_ok(k, 'k') THEN coalesce(rank <= k, false) END;

-- numerator / denominator as DOUBLE, 0 when the denominator is not positive
CREATE OR REPLACE MACRO _pr_div(numerator, denominator) AS
    CASE WHEN denominator > 0 THEN CAST(numerator AS DOUBLE) / CAST(denominator AS DOUBLE)
         ELSE CAST(0 AS DOUBLE) END;

-- gain of a grade from a gain table (MAP(INTEGER, DOUBLE) level -> gain, or NULL for none):
-- the table's entry for the grade's level (-2 for any negative grade), else the grade when
-- >= 0, else 0; 0 for an unjudged document (NULL). Level -1 (documents missing from the
-- judgments) cannot take a gain.
CREATE OR REPLACE MACRO _pr_table_gain(relevance, gains) AS
    CASE WHEN coalesce(list_contains(map_keys(gains), -1), false)
             THEN error('gains: level -1 (documents missing from the judgments) cannot take a gain')
         WHEN relevance IS NULL THEN CAST(0 AS DOUBLE)
         ELSE coalesce(
             CAST(gains[CASE WHEN relevance < 0 THEN -2
                             WHEN relevance = floor(relevance) AND relevance < 2147483648
                                 THEN CAST(relevance AS INTEGER) END] AS DOUBLE),
             CASE WHEN relevance >= 0 THEN CAST(relevance AS DOUBLE)
                  ELSE CAST(0 AS DOUBLE) END) END;

-- gain of a grade: the grade (linear, trec_eval) or 2^grade - 1 (exponential); 0 if not > 0;
-- or, with a gain table, _pr_table_gain (linear only)
CREATE OR REPLACE MACRO _pr_gain(relevance, gain, gains := NULL) AS
    CASE WHEN NOT _pr_choice_ok(gain, ['linear', 'exponential'],
                                'gain must be ''linear'' or ''exponential''') THEN NULL
         WHEN gains IS NOT NULL THEN
             CASE WHEN gain = 'linear' THEN _pr_table_gain(relevance, gains)
                  ELSE error('gains (a gain table) cannot be combined with gain=''exponential''')
             END
         WHEN gain = 'linear' THEN
             CASE WHEN relevance > 0 THEN CAST(relevance AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
         ELSE -- exponential
             CASE WHEN relevance > 0 THEN pow(CAST(2 AS DOUBLE), CAST(relevance AS DOUBLE)) - 1
                  ELSE CAST(0 AS DOUBLE) END END;

-- Positions in a list are 1-based and come from range(1, len + 1) read with subscripts
-- (l[i] is 1-based in every mode), never from a lambda's index parameter (lambda x, i: ...),
-- which dialect_compatibility_mode = 'spark' counts from 0. A list used twice is bound once,
-- as the parameter of a lambda over a one-element list.

-- the precision at each of the sorted ranks of the relevant retrieved documents: the i-th of
-- them at rank x has precision i / x
CREATE OR REPLACE MACRO _pr_precisions(rel_ranks) AS
    list_transform([rel_ranks], lambda _pr_r: list_transform(range(1, len(_pr_r) + 1),
        lambda _pr_i: CAST(_pr_i AS DOUBLE) / CAST(_pr_r[_pr_i] AS DOUBLE)))[1];

-- interpolated precision from the sorted ranks of the relevant retrieved documents:
-- the highest precision at or after the c-th of them, c = max(1, floor(level * R + 0.5))
CREATE OR REPLACE MACRO _pr_iprec(rel_ranks, big_r, recall_level) AS
    coalesce(
        list_max(list_slice(
            _pr_precisions(rel_ranks),
            CAST(greatest(floor(CAST(recall_level AS DOUBLE) * CAST(big_r AS DOUBLE) + 0.5), 1)
                 AS BIGINT),
            len(rel_ranks))),
        CAST(0 AS DOUBLE));

-- ------------------------------------------------------------------------------------------
-- counts

-- NumRet: documents retrieved, max(rank); 0 for a query missing from the run. With a
-- relevance_level (ir_measures' NumRet(rel=N)): retrieved documents with relevance >= level.
CREATE OR REPLACE MACRO num_ret(rank, relevance := NULL, relevance_level := NULL) AS
    CASE WHEN relevance_level IS NULL THEN CAST(coalesce(max(rank), 0) AS DOUBLE)
         ELSE CAST(count(*) FILTER (WHERE _pr_rel(relevance, relevance_level)
                                    AND rank IS NOT NULL) AS DOUBLE) END;

-- NumRel: R, judged documents with relevance >= relevance_level
CREATE OR REPLACE MACRO num_rel(relevance, relevance_level := 1) AS
    CAST(count(*) FILTER (WHERE _pr_rel(relevance, relevance_level)) AS DOUBLE);

-- Hits@k: relevant documents in the top k (all retrieved when k is NULL)
CREATE OR REPLACE MACRO hits(rank, relevance, k := NULL, relevance_level := 1) AS
    CAST(count(*) FILTER (WHERE _pr_rel(relevance, relevance_level) AND _pr_within(rank, k))
         AS DOUBLE);

-- NumRelRet: relevant documents retrieved
CREATE OR REPLACE MACRO num_rel_ret(rank, relevance, relevance_level := 1) AS
    hits(rank, relevance, k := NULL, relevance_level := relevance_level);

-- retrieved documents judged non-relevant (0 <= relevance < relevance_level)
CREATE OR REPLACE MACRO num_nonrel_judged_ret(rank, relevance, relevance_level := 1) AS
    CAST(count(*) FILTER (WHERE _pr_nonrel(relevance, relevance_level) AND rank IS NOT NULL)
         AS DOUBLE);

-- NumQ: 1 per query (sum it over queries)
CREATE OR REPLACE MACRO num_q() AS CAST(1 AS DOUBLE);

-- ------------------------------------------------------------------------------------------
-- cutoff metrics

-- P@k = hits@k / k (trec_eval P_k); without k, relevant retrieved / retrieved (ranx).
-- PRECISION is an SQL keyword: call it quoted, "precision"(rank, relevance, 10), or by its
-- other name precision_at_k(rank, relevance, 10).
CREATE OR REPLACE MACRO "precision"(rank, relevance, k := NULL, relevance_level := 1) AS
    _pr_div(hits(rank, relevance, k := k, relevance_level := relevance_level),
            coalesce(CAST(k AS DOUBLE), num_ret(rank)));

CREATE OR REPLACE MACRO precision_at_k(rank, relevance, k := NULL, relevance_level := 1) AS
    "precision"(rank, relevance, k := k, relevance_level := relevance_level);

-- R@k = hits@k / R, 0 when R = 0 (trec_eval recall_k)
CREATE OR REPLACE MACRO recall(rank, relevance, k := NULL, relevance_level := 1) AS
    _pr_div(hits(rank, relevance, k := k, relevance_level := relevance_level),
            num_rel(relevance, relevance_level := relevance_level));

-- R_cap@k = hits@k / min(k, R) (BEIR; trec_eval relative_P_k)
CREATE OR REPLACE MACRO recall_cap(rank, relevance, k, relevance_level := 1) AS
    _pr_div(hits(rank, relevance, k := k, relevance_level := relevance_level),
            CASE WHEN _pr_given_cutoff_ok(k, 'k')
                 THEN least(num_rel(relevance, relevance_level := relevance_level),
                            CAST(k AS DOUBLE)) END);

-- Success@k / HR@k: 1 if a relevant document is in the top k, else 0
CREATE OR REPLACE MACRO hit_rate(rank, relevance, k := NULL, relevance_level := 1) AS
    CAST(hits(rank, relevance, k := k, relevance_level := relevance_level) > 0 AS DOUBLE);

-- F1@k = 2 P R / (P + R); without k, P divides by the number retrieved (ranx)
CREATE OR REPLACE MACRO f1(rank, relevance, k := NULL, relevance_level := 1) AS
    _pr_div(
        2.0 * _pr_div(hits(rank, relevance, k := k, relevance_level := relevance_level),
                      coalesce(CAST(k AS DOUBLE), num_ret(rank)))
            * _pr_div(hits(rank, relevance, k := k, relevance_level := relevance_level),
                      num_rel(relevance, relevance_level := relevance_level)),
        _pr_div(hits(rank, relevance, k := k, relevance_level := relevance_level),
                coalesce(CAST(k AS DOUBLE), num_ret(rank)))
            + _pr_div(hits(rank, relevance, k := k, relevance_level := relevance_level),
                      num_rel(relevance, relevance_level := relevance_level)));

-- RR@k = 1 / rank of the first relevant document within k, else 0 (MRR is its mean)
CREATE OR REPLACE MACRO reciprocal_rank(rank, relevance, k := NULL, relevance_level := 1) AS
    coalesce(1.0 / CAST(min(rank) FILTER (WHERE _pr_rel(relevance, relevance_level)
                                          AND _pr_within(rank, k)) AS DOUBLE),
             CAST(0 AS DOUBLE));

-- AP@k = (sum over relevant documents at rank i <= k of P@i) / R (trec_eval map, map_cut_k),
-- or / min(k, R) with denominator := 'min(k,R)'; 0 when the denominator is 0.
-- Example: R = 3, relevant at ranks 1, 4, 6: (1/1 + 2/4 + 3/6) / 3 = 0.6667
CREATE OR REPLACE MACRO average_precision(rank, relevance, k := NULL, denominator := 'R',
                                          relevance_level := 1) AS
    _pr_div(
        coalesce(list_sum(_pr_precisions(
            list_sort(list(rank) FILTER (WHERE _pr_rel(relevance, relevance_level)
                                         AND _pr_within(rank, k)), 'ASC', 'NULLS LAST'))), 0),
        CASE WHEN NOT _pr_choice_ok(denominator, ['R', 'min(k,R)', 'min'],
                                    'denominator must be ''R'' or ''min(k,R)''') THEN NULL
             WHEN denominator = 'R' OR k IS NULL
                 THEN num_rel(relevance, relevance_level := relevance_level)
             ELSE least(num_rel(relevance, relevance_level := relevance_level),
                        CAST(k AS DOUBLE)) END);

-- Rprec = relevant documents in the top R / R, 0 when R = 0
CREATE OR REPLACE MACRO r_precision(rank, relevance, relevance_level := 1) AS
    _pr_div(
        coalesce(len(list_filter(
            list(rank) FILTER (WHERE _pr_rel(relevance, relevance_level) AND rank IS NOT NULL),
            lambda x: CAST(x AS DOUBLE) <= num_rel(relevance, relevance_level := relevance_level)
        )), 0),
        num_rel(relevance, relevance_level := relevance_level));

-- Judged@k = judged documents in the top k / min(k, number retrieved) (ir_measures);
-- any judgment counts, negative ones too
CREATE OR REPLACE MACRO judged_fraction(rank, relevance, k := NULL) AS
    _pr_div(count(*) FILTER (WHERE _pr_within(rank, k) AND relevance IS NOT NULL),
            least(num_ret(rank), coalesce(CAST(k AS DOUBLE), num_ret(rank))));

-- the former name of judged_fraction
CREATE OR REPLACE MACRO judged(rank, relevance, k := NULL) AS judged_fraction(rank, relevance, k := k);

-- Fall-out@k = judged non-relevant (0 <= grade < level) documents in the top k / the query's
-- judged non-relevant documents, retrieved or not; 0 when the query has none
CREATE OR REPLACE MACRO fallout(rank, relevance, k := NULL, relevance_level := 1) AS
    _pr_div(CAST(count(*) FILTER (WHERE _pr_nonrel(relevance, relevance_level)
                                  AND _pr_within(rank, k)) AS DOUBLE),
            CAST(count(*) FILTER (WHERE _pr_nonrel(relevance, relevance_level)) AS DOUBLE));

-- query_auc@k: the ROC AUC of the top k, P relevant at ranks r_j and M other retrieved documents
-- (unjudged included): (P M - (sum r_j - P (P + 1) / 2)) / (P M), 0 when P M = 0
CREATE OR REPLACE MACRO query_auc(rank, relevance, k := NULL, relevance_level := 1) AS
    _pr_div(
        hits(rank, relevance, k := k, relevance_level := relevance_level)
            * (least(num_ret(rank), coalesce(CAST(k AS DOUBLE), num_ret(rank)))
               - hits(rank, relevance, k := k, relevance_level := relevance_level))
        - (CAST(coalesce(sum(rank) FILTER (WHERE _pr_rel(relevance, relevance_level)
                                           AND _pr_within(rank, k)), 0) AS DOUBLE)
           - hits(rank, relevance, k := k, relevance_level := relevance_level)
             * (hits(rank, relevance, k := k, relevance_level := relevance_level) + 1) / 2),
        hits(rank, relevance, k := k, relevance_level := relevance_level)
            * (least(num_ret(rank), coalesce(CAST(k AS DOUBLE), num_ret(rank)))
               - hits(rank, relevance, k := k, relevance_level := relevance_level)));

-- unj_k (trec_eval): documents in the top k unjudged or judged negative / k
CREATE OR REPLACE MACRO unjudged(rank, relevance, k) AS
    CASE WHEN _pr_given_cutoff_ok(k, 'k') THEN
        (least(num_ret(rank), CAST(k AS DOUBLE))
         - CAST(count(*) FILTER (WHERE _pr_within(rank, k) AND coalesce(relevance >= 0, false))
                AS DOUBLE))
        / CAST(k AS DOUBLE) END;

-- ------------------------------------------------------------------------------------------
-- graded

-- DCG@k = sum over retrieved documents at rank i <= k of gain / log2(i + 1), added in rank
-- order (repeatable to the last bit, whatever order the rows arrive in); gains := MAP {1: 3.0,
-- 2: 9.0} is a gain table (trec_eval -m dcg.1=3,2=9; negative gains count)
CREATE OR REPLACE MACRO dcg(rank, relevance, k := NULL, gain := 'linear', gains := NULL) AS
    coalesce(sum(_pr_gain(relevance, gain, gains) / log2(CAST(rank AS DOUBLE) + 1)
                     ORDER BY rank ASC NULLS LAST)
                 FILTER (WHERE _pr_within(rank, k)),
             CAST(0 AS DOUBLE));

-- IDCG@k: DCG of all judged documents of the query sorted by gain, cut at k (positive gains
-- of grades >= 0 only)
CREATE OR REPLACE MACRO ideal_dcg(relevance, k := NULL, gain := 'linear', gains := NULL) AS
    coalesce(list_sum(list_transform([
        list_slice(
            list_sort(list(_pr_gain(relevance, gain, gains))
                      FILTER (WHERE relevance >= 0
                              AND _pr_gain(relevance, gain, gains) > 0), 'DESC', 'NULLS LAST'),
            1, CASE WHEN _pr_cutoff_ok(k, 'k') THEN coalesce(k, 9223372036854775807) END)],
        lambda _pr_g: list_transform(range(1, len(_pr_g) + 1),
            lambda _pr_i: _pr_g[_pr_i] / log2(CAST(_pr_i AS DOUBLE) + 1)))[1]),
        CAST(0 AS DOUBLE));

-- nDCG@k = DCG@k / IDCG@k, 0 when IDCG = 0 (trec_eval ndcg, ndcg_cut_k; no relevance level).
-- Example: judged a=3 b=2 c=1 d=0 e=2, run c d a: DCG@3 = 1 + 0 + 3/2 = 2.5,
-- IDCG@3 = 3 + 2/log2(3) + 2/2 = 5.2619, nDCG@3 = 0.4751
CREATE OR REPLACE MACRO ndcg(rank, relevance, k := NULL, gain := 'linear', gains := NULL) AS
    _pr_div(dcg(rank, relevance, k := k, gain := gain, gains := gains),
            ideal_dcg(relevance, k := k, gain := gain, gains := gains));

-- ------------------------------------------------------------------------------------------
-- judgment-based and set metrics

-- bpref (trec_eval) = (1/R) sum over retrieved relevant r of 1 - min(n_r, R) / min(N, R),
-- n_r = judged non-relevant ranked above r (1 when n_r = 0), N = judged non-relevant of the
-- query. The list holds 2 rank + 1 for each retrieved relevant document and 2 rank for each
-- retrieved judged non-relevant one, sorted: the j-th relevant one, at list position p, has
-- p - j non-relevant documents above it.
CREATE OR REPLACE MACRO bpref(rank, relevance, relevance_level := 1) AS
    _pr_div(
        coalesce(list_sum(list_transform([
            list_transform([
                list_sort(list(2 * rank + CAST(_pr_rel(relevance, relevance_level) AS INTEGER))
                    FILTER (WHERE rank IS NOT NULL
                            AND (_pr_rel(relevance, relevance_level)
                                 OR _pr_nonrel(relevance, relevance_level))),
                    'ASC', 'NULLS LAST')],
                lambda _pr_s: list_filter(range(1, len(_pr_s) + 1),
                                          lambda _pr_p: _pr_s[_pr_p] % 2 = 1))[1]],
            lambda _pr_ps: list_transform(range(1, len(_pr_ps) + 1), lambda _pr_j:
                CASE WHEN _pr_ps[_pr_j] - _pr_j > 0 THEN
                1.0 - least(CAST(_pr_ps[_pr_j] - _pr_j AS DOUBLE),
                            num_rel(relevance, relevance_level := relevance_level))
                    / least(CAST(count(*) FILTER (WHERE _pr_nonrel(relevance, relevance_level))
                                 AS DOUBLE),
                            num_rel(relevance, relevance_level := relevance_level))
                ELSE 1.0 END))[1]), 0),
        num_rel(relevance, relevance_level := relevance_level));

-- SetP = relevant retrieved / retrieved (trec_eval set_P)
CREATE OR REPLACE MACRO set_precision(rank, relevance, relevance_level := 1) AS
    _pr_div(num_rel_ret(rank, relevance, relevance_level := relevance_level), num_ret(rank));

-- SetR = relevant retrieved / R (trec_eval set_recall)
CREATE OR REPLACE MACRO set_recall(rank, relevance, relevance_level := 1) AS
    _pr_div(num_rel_ret(rank, relevance, relevance_level := relevance_level),
            num_rel(relevance, relevance_level := relevance_level));

-- SetF = (beta + 1) P R / (beta P + R) over the retrieved set (trec_eval set_F; beta is not
-- squared); 0 when nothing relevant was retrieved
CREATE OR REPLACE MACRO set_f(rank, relevance, beta := 1.0, relevance_level := 1) AS
    _pr_div(
        (CAST(beta AS DOUBLE) + 1.0)
            * set_precision(rank, relevance, relevance_level := relevance_level)
            * set_recall(rank, relevance, relevance_level := relevance_level),
        CAST(beta AS DOUBLE) * set_precision(rank, relevance, relevance_level := relevance_level)
            + set_recall(rank, relevance, relevance_level := relevance_level));

-- interpolated precision at a recall level (trec_eval 10.0 iprec_at_recall): the highest
-- precision at or after the rank of the c-th relevant document, c = lround(level * R)
-- (the first when c = 0); 0 when fewer than c relevant documents were retrieved
CREATE OR REPLACE MACRO iprec_at_recall(rank, relevance, recall_level, relevance_level := 1) AS
    _pr_iprec(
        list_sort(list(rank) FILTER (WHERE _pr_rel(relevance, relevance_level)
                                     AND rank IS NOT NULL), 'ASC', 'NULLS LAST'),
        num_rel(relevance, relevance_level := relevance_level),
        recall_level);

-- 11pt_avg (trec_eval): mean of interpolated precision at the recall points (0.0, 0.1, ...,
-- 1.0 by default), cutoffs c = round(point * R), added from the last point. trec_eval takes
-- the points in the order given and matches them from the last one back: trailing points with
-- c above the relevant retrieved count 0; then each is matched while 1 <= c <= the previous
-- match; the first one that is not, and every point before it, count the highest precision.
-- (The state is carried as {a: state, c: cutoff}, each cutoff wrapped the same way: DuckDB
-- before 2.0, the CLI 1.5, wants list_reduce's initial value to have the elements' type.)
CREATE OR REPLACE MACRO _pr_11pt_init(nrr) AS
    {'skip': true, 'stuck': false, 'bound': CAST(nrr AS DOUBLE), 'total': CAST(0 AS DOUBLE)};

CREATE OR REPLACE MACRO _pr_11pt(precs, nrr, big_r, points) AS
    list_reduce(
        list_transform(list_reverse(points),
                       lambda x: {'a': _pr_11pt_init(nrr), 'c': round(CAST(x AS DOUBLE) * big_r)}),
        lambda acc, e: {'a': CASE
            WHEN acc.a.skip AND e.c > nrr THEN acc.a
            WHEN acc.a.stuck OR e.c > acc.a.bound OR e.c = 0
                THEN {'skip': false, 'stuck': true, 'bound': acc.a.bound,
                      'total': acc.a.total + coalesce(list_max(precs), CAST(0 AS DOUBLE))}
            ELSE {'skip': false, 'stuck': false, 'bound': e.c,
                  'total': acc.a.total
                      + coalesce(list_max(list_slice(precs, CAST(greatest(e.c, 1) AS BIGINT),
                                                     len(precs))), CAST(0 AS DOUBLE))} END,
            'c': e.c},
        {'a': _pr_11pt_init(nrr), 'c': CAST(NULL AS DOUBLE)}).a.total
    / CAST(len(points) AS DOUBLE);

CREATE OR REPLACE MACRO eleven_pt_avg(rank, relevance,
                                      points := [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8,
                                                 0.9, 1.0],
                                      relevance_level := 1) AS
    CASE WHEN coalesce(len(points), 0) = 0 THEN error('eleven_pt_avg: points must not be empty')
    ELSE list_transform([{
        'precs': _pr_precisions(
            coalesce(list_sort(list(rank) FILTER (WHERE _pr_rel(relevance, relevance_level)
                                                  AND rank IS NOT NULL), 'ASC', 'NULLS LAST'), [])),
        'nrr': num_rel_ret(rank, relevance, relevance_level := relevance_level),
        'r': num_rel(relevance, relevance_level := relevance_level)}],
        lambda v: _pr_11pt(v.precs, v.nrr, v.r, points))[1] END;

-- ------------------------------------------------------------------------------------------
-- table macros (column names query, doc, score and query, doc, relevance; alias other names
-- in a view first)

-- The judged table: every retrieved document with its 1-based rank (score descending, ties by
-- doc id descending compared as text bytes, trec_eval's order) and its grade (NULL if
-- unjudged), plus every judged document that was not retrieved (rank NULL). max_rank keeps
-- the top max_rank documents of each query (trec_eval -M). Ids are matched as bytes, whatever
-- the connection's collation. Assumes one row per (query, doc).
CREATE OR REPLACE MACRO judge(run_table, qrels_table, max_rank := NULL) AS TABLE
    WITH _ranked AS (
        SELECT query, doc,
               row_number() OVER (
                   PARTITION BY _pr_id_bytes(query)
                   ORDER BY _pr_score_key(score) DESC NULLS LAST,
                            _pr_id_bytes(doc) DESC NULLS LAST) AS rank
        FROM query_table(_pr_checked(run_table, _pr_cutoff_ok(max_rank, 'max_rank')))
        QUALIFY max_rank IS NULL OR rank <= max_rank
    )
    SELECT coalesce(r.query, q.query) AS "query", coalesce(r.doc, q.doc) AS "doc",
           r.rank AS "rank", q.relevance AS "relevance"
    FROM _ranked AS r
    FULL OUTER JOIN (SELECT query, doc, relevance FROM query_table(qrels_table)) AS q
        ON _pr_id_bytes(r.query) = _pr_id_bytes(q.query)
       AND _pr_id_bytes(r.doc) = _pr_id_bytes(q.doc);

-- judge() per group: group_by lists run columns (e.g. ['system', 'date']; at least one);
-- every combination of their values in the run is judged apart, as the struct column
-- group_key (its fields in the run's column order), ranks and ties within (group, query).
-- A group_by column the qrels have too joins the judgments on it; one they lack shares them
-- across groups (several systems against one qrels). Groups are told apart as bytes, as ids
-- are, whatever the connection's collation. Metrics per group and query:
--     SELECT group_key, query, ndcg(rank, relevance, k := 10) AS ndcg_10
--     FROM judge_by('run', 'qrels', ['system']) GROUP BY group_key, query
--     HAVING count(relevance) > 0;
-- then avg(...) GROUP BY group_key (unnest(group_key) gives the columns back). With a
-- case-insensitive default collation, group by _pr_id_bytes(group_key) instead.
CREATE OR REPLACE MACRO judge_by(run_table, qrels_table, group_by, max_rank := NULL) AS TABLE
    WITH _run AS (
        SELECT struct_pack(*COLUMNS(lambda c: list_contains(group_by, c))) AS group_key,
               query, doc, score
        FROM query_table(_pr_checked(run_table, _pr_cutoff_ok(max_rank, 'max_rank')))
    ),
    -- the groups with their columns as bytes, joined to the qrels on those they share
    -- (and a constant column, so that a natural join always has a column to join on)
    _groups AS (
        SELECT DISTINCT
               struct_pack(*COLUMNS(lambda c: list_contains(group_by, c))) AS group_key,
               _pr_id_bytes(COLUMNS(lambda c: list_contains(group_by, c) OR c = '_pr_one'))
        FROM (SELECT 1 AS "_pr_one", * FROM query_table(run_table))
    ),
    _qrels AS (
        SELECT g.group_key, q.query, q.doc, q.relevance
        FROM _groups AS g
        NATURAL JOIN (SELECT query, doc, relevance,
                             _pr_id_bytes(COLUMNS(lambda c: list_contains(group_by, c)
                                                            OR c = '_pr_one'))
                      FROM (SELECT 1 AS "_pr_one", * FROM query_table(qrels_table))) AS q
    ),
    _ranked AS (
        SELECT group_key, query, doc,
               row_number() OVER (
                   PARTITION BY _pr_id_bytes(group_key), _pr_id_bytes(query)
                   ORDER BY _pr_score_key(score) DESC NULLS LAST,
                            _pr_id_bytes(doc) DESC NULLS LAST) AS rank
        FROM _run
        QUALIFY max_rank IS NULL OR rank <= max_rank
    )
    SELECT coalesce(r.group_key, q.group_key) AS "group_key",
           coalesce(r.query, q.query) AS "query", coalesce(r.doc, q.doc) AS "doc",
           r.rank AS "rank", q.relevance AS "relevance"
    FROM _ranked AS r
    FULL OUTER JOIN _qrels AS q
        ON _pr_id_bytes(r.group_key) = _pr_id_bytes(q.group_key)
       AND _pr_id_bytes(r.query) = _pr_id_bytes(q.query)
       AND _pr_id_bytes(r.doc) = _pr_id_bytes(q.doc);

-- Per-query values of a standard metric set for every judged query (a query missing from the
-- run scores 0; run queries without judgments are left out):
--     SELECT avg(ndcg_10) FROM standard_metrics('run', 'qrels');
CREATE OR REPLACE MACRO standard_metrics(run_table, qrels_table, relevance_level := 1) AS TABLE
    SELECT any_value(query) AS "query",
           ndcg(rank, relevance, k := 10) AS "ndcg_10",
           ndcg(rank, relevance) AS "ndcg",
           reciprocal_rank(rank, relevance, k := 10, relevance_level := relevance_level) AS "rr_10",
           reciprocal_rank(rank, relevance, relevance_level := relevance_level) AS "rr",
           average_precision(rank, relevance, relevance_level := relevance_level) AS "ap",
           average_precision(rank, relevance, k := 100, relevance_level := relevance_level)
               AS "ap_100",
           "precision"(rank, relevance, 10, relevance_level := relevance_level) AS "p_10",
           recall(rank, relevance, k := 100, relevance_level := relevance_level) AS "r_100",
           recall(rank, relevance, k := 1000, relevance_level := relevance_level) AS "r_1000",
           r_precision(rank, relevance, relevance_level := relevance_level) AS "rprec",
           bpref(rank, relevance, relevance_level := relevance_level) AS "bpref",
           num_ret(rank) AS "num_ret",
           num_rel(relevance, relevance_level := relevance_level) AS "num_rel",
           num_rel_ret(rank, relevance, relevance_level := relevance_level) AS "num_rel_ret"
    FROM judge(run_table, qrels_table)
    GROUP BY _pr_id_bytes(query)
    HAVING count(relevance) > 0
    ORDER BY query ASC NULLS LAST;

-- ------------------------------------------------------------------------------------------
-- cascade and user-model metrics: ERR, RBP

-- ERR's stopping probability of a grade: (2^g - 1) / 2^max_grade, g clipped to [0, max_grade]
-- (unjudged 0); evaluate() refuses grades above max_grade before it gets here. max_grade is
-- checked
CREATE OR REPLACE MACRO _pr_err_stop(relevance, max_grade) AS
    (pow(CAST(2 AS DOUBLE),
         least(greatest(coalesce(CAST(relevance AS DOUBLE), CAST(0 AS DOUBLE)), 0.0),
               CAST(max_grade AS DOUBLE))) - 1.0)
    / CASE WHEN _pr_positive_ok(max_grade, 'max_grade')
           THEN pow(CAST(2 AS DOUBLE), CAST(max_grade AS DOUBLE)) END;

-- ERR@k (Chapelle et al. 2009; gdeval.pl, ir_measures ERR@k), one pass in rank order:
-- sum over ranks r <= k of R_r / r * prod_{i < r} (1 - R_i). gdeval: max_grade = 4.
-- Example: ranks 1-3 graded 2, 0, 4: 3/16 + (15/16) (13/16) / 3 = 0.44140625
-- (each row carries the state's fields too: DuckDB before 2.0 wants list_reduce's initial
-- value to have the elements' type)
CREATE OR REPLACE MACRO err(rank, relevance, k := NULL, max_grade := 4) AS
    coalesce(list_reduce(
        list_sort(list({'r': CAST(rank AS DOUBLE), 'p': _pr_err_stop(relevance, max_grade),
                        'err': CAST(0 AS DOUBLE), 'reach': CAST(1 AS DOUBLE)})
                  FILTER (WHERE _pr_within(rank, k)), 'ASC', 'NULLS LAST'),
        lambda acc, x: {'r': x.r, 'p': x.p, 'err': acc.err + x.p * acc.reach / x.r,
                        'reach': acc.reach * (1.0 - x.p)},
        {'r': CAST(NULL AS DOUBLE), 'p': CAST(NULL AS DOUBLE), 'err': CAST(0 AS DOUBLE),
         'reach': CAST(1 AS DOUBLE)}).err,
        CAST(0 AS DOUBLE));

-- (1 - p) p^(rank - 1): the weight RBP gives a rank
CREATE OR REPLACE MACRO _pr_rbp_weight(rank, p) AS
    (1.0 - CAST(p AS DOUBLE)) * pow(CAST(p AS DOUBLE), CAST(rank AS DOUBLE) - 1.0);

-- RBP(p)@k = (1 - p) sum_{r <= k} p^(r-1) gain_r (Moffat & Zobel 2008). relevance_level NULL:
-- graded, gain = the grade when positive (ir_measures RBP(p=..), trectools; may exceed 1);
-- otherwise binary, gain 1 when grade >= relevance_level (RBP(p=..,rel=..), cwl_eval).
-- Example: ranks 1 and 3 graded 1 and 2, p = 0.5: 0.5 (1 + 0.25 * 2) = 0.75
CREATE OR REPLACE MACRO rbp(rank, relevance, k := NULL, p := 0.8, relevance_level := NULL) AS
    coalesce(sum(
        CASE WHEN relevance_level IS NULL
             THEN CASE WHEN relevance > 0 THEN CAST(relevance AS DOUBLE)
                       ELSE CAST(0 AS DOUBLE) END
             ELSE CAST(_pr_rel(relevance, relevance_level) AS DOUBLE) END
        * _pr_rbp_weight(rank, p) ORDER BY rank ASC NULLS LAST) FILTER (WHERE _pr_within(rank, k)),
        CAST(0 AS DOUBLE));

-- RBP residual (Moffat & Zobel 2008): the weight of unjudged ranks <= d plus p^d, d = k or the
-- number retrieved; from the judged rows: (1 - p^min(n, d)) - judged weight + p^d
CREATE OR REPLACE MACRO rbp_residual(rank, relevance, k := NULL, p := 0.8) AS
    (1.0 - pow(CAST(p AS DOUBLE), least(num_ret(rank), coalesce(CAST(k AS DOUBLE), num_ret(rank)))))
    - coalesce(sum(_pr_rbp_weight(rank, p) ORDER BY rank ASC NULLS LAST)
                   FILTER (WHERE relevance IS NOT NULL AND _pr_within(rank, k)),
               CAST(0 AS DOUBLE))
    + pow(CAST(p AS DOUBLE), coalesce(CAST(k AS DOUBLE), num_ret(rank)));
