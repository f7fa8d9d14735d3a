-- polars_rank: classification and click-through metrics as DuckDB SQL macros, with
-- scikit-learn's numbers.
--
-- Load:   DuckDB CLI  .read sql/classification.sql
--         Python      polars_rank.classification.register(con)   (or polars_rank.duckdb.register(con)
--                     for every macro file)
-- Needs DuckDB >= 1.3 (lambda syntax). Every macro is CREATE OR REPLACE: reloading is harmless.
-- Every name starts with cls_ so that it never clashes with the ranking macros.
--
-- Conventions (the same as the Python module polars_rank.classification):
-- * label: 1 (or true) is positive, anything else negative; use cls_check_binary to insist on
--   {0, 1}. score: any real number (a probability, a model score or a 0/1 predicted label).
-- * A row whose label or score is NULL is skipped.
-- * Thresholded metrics predict positive when CAST(score AS DOUBLE) >= threshold (default 0.5),
--   as scikit-learn's FixedThresholdClassifier and its roc_curve thresholds do.
-- * zero_division (default 0.0) is returned when a denominator is 0 (e.g. precision with no
--   predicted positive); pass 1.0 or 'NaN'::DOUBLE for scikit-learn's other choices.
-- * Undefined rank metrics are NULL: cls_roc_auc with only one class, cls_average_precision
--   with no positive, every metric of an empty group.
-- * Scalar metrics are aggregates:
--       SELECT user_id, cls_roc_auc(clicked, p), cls_log_loss(clicked, p)
--       FROM impressions GROUP BY user_id;
-- * Table macros take the table (or view) name and column names as strings, and the group
--   columns as a list: FROM cls_roc_curve('impressions', 'clicked', 'p', by_cols := ['user_id']).

-- ------------------------------------------------------------------------------------------
-- helpers (scalar)

-- label is the positive class (NULL when the label is NULL)
CREATE OR REPLACE MACRO _cls_pos(label) AS CAST(label AS DOUBLE) = 1;

-- both columns present
CREATE OR REPLACE MACRO _cls_ok(a, b) AS a IS NOT NULL AND b IS NOT NULL;

-- numerator / denominator as DOUBLE; zero_division when the denominator is 0
CREATE OR REPLACE MACRO _cls_div(numerator, denominator, zero_division) AS
    CASE WHEN denominator > 0 THEN CAST(numerator AS DOUBLE) / CAST(denominator AS DOUBLE)
         ELSE CAST(zero_division AS DOUBLE) END;

-- (label, score) pairs sorted by score descending, then a NULL-score sentinel that closes the
-- last block of tied scores in the list_reduce scans below
CREATE OR REPLACE MACRO _cls_desc(label, score) AS
    list_concat(
        list_sort(
            list({'s': CAST(score AS DOUBLE), 'y': CAST(_cls_pos(label) AS BIGINT)})
                FILTER (WHERE _cls_ok(label, score)),
            'DESC', 'NULLS LAST'),
        [{'s': CAST(NULL AS DOUBLE), 'y': CAST(0 AS BIGINT)}]);

-- ------------------------------------------------------------------------------------------
-- confusion counts at a threshold: predicted positive when score >= threshold

CREATE OR REPLACE MACRO cls_tp(label, score, threshold := 0.5) AS
    count(*) FILTER (WHERE _cls_pos(label)
                     AND CAST(score AS DOUBLE) >= CAST(threshold AS DOUBLE));

CREATE OR REPLACE MACRO cls_fp(label, score, threshold := 0.5) AS
    count(*) FILTER (WHERE NOT _cls_pos(label)
                     AND CAST(score AS DOUBLE) >= CAST(threshold AS DOUBLE));

CREATE OR REPLACE MACRO cls_tn(label, score, threshold := 0.5) AS
    count(*) FILTER (WHERE NOT _cls_pos(label)
                     AND CAST(score AS DOUBLE) < CAST(threshold AS DOUBLE));

CREATE OR REPLACE MACRO cls_fn(label, score, threshold := 0.5) AS
    count(*) FILTER (WHERE _cls_pos(label)
                     AND CAST(score AS DOUBLE) < CAST(threshold AS DOUBLE));

-- {tp, fp, tn, fn} as one struct
CREATE OR REPLACE MACRO cls_confusion(label, score, threshold := 0.5) AS
    {'tp': cls_tp(label, score, threshold), 'fp': cls_fp(label, score, threshold),
     'tn': cls_tn(label, score, threshold), 'fn': cls_fn(label, score, threshold)};

-- ------------------------------------------------------------------------------------------
-- binary metrics at a threshold

-- (tp + tn) / n; NULL for an empty group
CREATE OR REPLACE MACRO cls_accuracy(label, score, threshold := 0.5) AS
    CAST(cls_tp(label, score, threshold) + cls_tn(label, score, threshold) AS DOUBLE)
    / CAST(nullif(count(*) FILTER (WHERE _cls_ok(label, score)), 0) AS DOUBLE);

-- tp / (tp + fp)
CREATE OR REPLACE MACRO cls_precision(label, score, threshold := 0.5, zero_division := 0.0) AS
    _cls_div(cls_tp(label, score, threshold),
             cls_tp(label, score, threshold) + cls_fp(label, score, threshold), zero_division);

-- tp / (tp + fn)
CREATE OR REPLACE MACRO cls_recall(label, score, threshold := 0.5, zero_division := 0.0) AS
    _cls_div(cls_tp(label, score, threshold),
             cls_tp(label, score, threshold) + cls_fn(label, score, threshold), zero_division);

-- tn / (tn + fp), the recall of the negative class
CREATE OR REPLACE MACRO cls_specificity(label, score, threshold := 0.5, zero_division := 0.0) AS
    _cls_div(cls_tn(label, score, threshold),
             cls_tn(label, score, threshold) + cls_fp(label, score, threshold), zero_division);

-- (1 + beta^2) tp / (beta^2 (tp + fn) + (tp + fp))
CREATE OR REPLACE MACRO cls_fbeta(label, score, beta, threshold := 0.5, zero_division := 0.0) AS
    _cls_div((1 + CAST(beta AS DOUBLE) ^ 2) * CAST(cls_tp(label, score, threshold) AS DOUBLE),
             CAST(beta AS DOUBLE) ^ 2
                 * CAST(cls_tp(label, score, threshold) + cls_fn(label, score, threshold)
                        AS DOUBLE)
             + CAST(cls_tp(label, score, threshold) + cls_fp(label, score, threshold)
                    AS DOUBLE),
             zero_division);

-- 2 tp / (2 tp + fp + fn)
CREATE OR REPLACE MACRO cls_f1(label, score, threshold := 0.5, zero_division := 0.0) AS
    cls_fbeta(label, score, 1.0, threshold, zero_division);

-- ------------------------------------------------------------------------------------------
-- ranking quality of scores (no threshold)

-- ROC AUC = Mann-Whitney U / (P N), a tied (positive, negative) pair counting 1/2; one scan
-- of the pairs sorted by score: each negative earns the positives above its block of equal
-- scores plus half of those tied with it. NULL when a class is missing.
CREATE OR REPLACE MACRO cls_roc_auc(label, score) AS
    list_reduce(_cls_desc(label, score),
        lambda acc, x: CASE WHEN acc.ps IS DISTINCT FROM x.s
            THEN {'ps': x.s, 'cp': acc.cp + acc.bp, 'bp': x.y, 'bn': 1 - x.y,
                  'u': acc.u + CAST(acc.bn AS DOUBLE) * (CAST(acc.cp AS DOUBLE)
                                                         + CAST(acc.bp AS DOUBLE) * 0.5)}
            ELSE {'ps': x.s, 'cp': acc.cp, 'bp': acc.bp + x.y, 'bn': acc.bn + 1 - x.y,
                  'u': acc.u} END,
        {'ps': CAST(NULL AS DOUBLE), 'cp': CAST(0 AS BIGINT), 'bp': CAST(0 AS BIGINT),
         'bn': CAST(0 AS BIGINT), 'u': CAST(0 AS DOUBLE)}).u
    / CAST(nullif(count(*) FILTER (WHERE _cls_ok(label, score) AND _cls_pos(label))
                  * count(*) FILTER (WHERE _cls_ok(label, score) AND NOT _cls_pos(label)), 0)
           AS DOUBLE);

-- average precision (scikit-learn's step-wise sum): over the distinct scores s from the top,
-- sum (recall(s) - recall(previous s)) * precision(s), i.e. the mean over positives of
-- (positives with score >= s) / (rows with score >= s). NULL when there is no positive.
CREATE OR REPLACE MACRO cls_average_precision(label, score) AS
    list_reduce(_cls_desc(label, score),
        lambda acc, x: CASE WHEN acc.ps IS DISTINCT FROM x.s
            THEN {'ps': x.s, 'tp': acc.tp + acc.bp, 'n': acc.n + acc.bp + acc.bn,
                  'bp': x.y, 'bn': 1 - x.y,
                  'a': acc.a + CASE WHEN acc.bp > 0
                                    THEN CAST(acc.bp AS DOUBLE)
                                         * (CAST(acc.tp + acc.bp AS DOUBLE)
                                            / CAST(acc.n + acc.bp + acc.bn AS DOUBLE))
                                    ELSE CAST(0 AS DOUBLE) END}
            ELSE {'ps': x.s, 'tp': acc.tp, 'n': acc.n, 'bp': acc.bp + x.y,
                  'bn': acc.bn + 1 - x.y, 'a': acc.a} END,
        {'ps': CAST(NULL AS DOUBLE), 'tp': CAST(0 AS BIGINT), 'n': CAST(0 AS BIGINT),
         'bp': CAST(0 AS BIGINT), 'bn': CAST(0 AS BIGINT), 'a': CAST(0 AS DOUBLE)}).a
    / CAST(nullif(count(*) FILTER (WHERE _cls_ok(label, score) AND _cls_pos(label)), 0)
           AS DOUBLE);

-- log loss = mean of -ln(p) (positives) or -ln(1 - p) (negatives), each probability clipped
-- to [eps, 1 - eps], eps = 2^-52 (float64 machine epsilon), as scikit-learn 1.9 does
CREATE OR REPLACE MACRO cls_log_loss(label, probability) AS
    avg(-ln(greatest(least(
            CASE WHEN _cls_pos(label) THEN CAST(probability AS DOUBLE)
                 ELSE 1 - CAST(probability AS DOUBLE) END,
            1 - 2.220446049250313e-16), 2.220446049250313e-16)))
        FILTER (WHERE _cls_ok(label, probability));

-- the share of positives among the rows with label and probability
CREATE OR REPLACE MACRO _cls_rate(label, probability) AS
    avg(CASE WHEN _cls_pos(label) THEN 1.0 ELSE 0.0 END)
        FILTER (WHERE _cls_ok(label, probability));

-- Brier score: mean of (p - y)^2 (scikit-learn's brier_score_loss)
CREATE OR REPLACE MACRO cls_brier_score(label, probability) AS
    avg((CAST(probability AS DOUBLE) - CASE WHEN _cls_pos(label) THEN 1.0 ELSE 0.0 END) ^ 2)
        FILTER (WHERE _cls_ok(label, probability));

-- normalized entropy: log loss over the entropy of the base rate r; NULL with one class
CREATE OR REPLACE MACRO cls_normalized_entropy(label, probability) AS
    CASE WHEN count(*) FILTER (WHERE _cls_ok(label, probability) AND _cls_pos(label)) > 0
          AND count(*) FILTER (WHERE _cls_ok(label, probability) AND NOT _cls_pos(label)) > 0
         THEN cls_log_loss(label, probability)
              / -(_cls_rate(label, probability) * ln(_cls_rate(label, probability))
                  + (1 - _cls_rate(label, probability))
                    * ln(1 - _cls_rate(label, probability))) END;

-- calibration: predicted over observed rate, sum(p) / sum(y); NULL without positives
CREATE OR REPLACE MACRO cls_calibration(label, probability) AS
    sum(CAST(probability AS DOUBLE)) FILTER (WHERE _cls_ok(label, probability))
    / CAST(nullif(count(*) FILTER (WHERE _cls_ok(label, probability) AND _cls_pos(label)), 0)
           AS DOUBLE);

-- ------------------------------------------------------------------------------------------
-- validation: TRUE, or an error naming what is wrong (labels outside {0, 1}, NaN scores,
-- probabilities outside [0, 1] when probability := true)
CREATE OR REPLACE MACRO cls_check_binary(label, score, probability := false) AS
    CASE WHEN count(*) FILTER (WHERE label IS NOT NULL
                               AND CAST(label AS DOUBLE) NOT IN (0, 1)) > 0
             THEN error('cls_check_binary: label values must be 0 or 1')
         WHEN count(*) FILTER (WHERE isnan(CAST(score AS DOUBLE))) > 0
             THEN error('cls_check_binary: score has NaN values')
         WHEN probability AND count(*) FILTER (WHERE CAST(score AS DOUBLE) < 0
                                               OR CAST(score AS DOUBLE) > 1) > 0
             THEN error('cls_check_binary: probabilities must lie in [0, 1]')
         ELSE true END;

-- ------------------------------------------------------------------------------------------
-- multi-class from (actual, predicted) label columns of the same type
--
-- Per class c: T = rows with actual = predicted = c, A = rows with actual c (support),
-- P = rows predicted c; classes = the labels seen in either column of the group.
-- average := 'macro' (plain mean over classes), 'weighted' (mean weighted by A) or 'micro'
-- (from the summed counts: sum T / n for all three). With zero_division := 'NaN'::DOUBLE an
-- undefined class is left out of the average, as scikit-learn does.
-- Labels are told apart, compared and sorted by their byte key (_cls_ka, _cls_kp: the
-- create_sort_key of the label in the common type of the two columns, a BLOB): text as bytes
-- (no collation of the column or the session, e.g. NOCASE, merges 'A' and 'a'), numbers as
-- numbers.

-- byte keys of the actual and of the predicted label, in the two columns' common type
CREATE OR REPLACE MACRO _cls_ka(actual, predicted) AS
    create_sort_key([actual, predicted][1], 'ASC NULLS LAST');
CREATE OR REPLACE MACRO _cls_kp(actual, predicted) AS
    create_sort_key([actual, predicted][2], 'ASC NULLS LAST');

-- both labels present and the same (byte for byte)
CREATE OR REPLACE MACRO _cls_same(actual, predicted) AS
    _cls_ok(actual, predicted) AND _cls_ka(actual, predicted) = _cls_kp(actual, predicted);

-- per-class {c, t, a, p} for the group (c: the class's byte key)
CREATE OR REPLACE MACRO _cls_mc_counts(actual, predicted) AS
    list_transform(
        [{'ha': histogram(_cls_ka(actual, predicted)) FILTER (WHERE _cls_ok(actual, predicted)),
          'hp': histogram(_cls_kp(actual, predicted)) FILTER (WHERE _cls_ok(actual, predicted)),
          'ht': histogram(_cls_ka(actual, predicted))
                    FILTER (WHERE _cls_same(actual, predicted))}],
        lambda h: list_transform(
            list_distinct(list_concat(coalesce(map_keys(h.ha), []),
                                      coalesce(map_keys(h.hp), []))),
            lambda c: {'c': c,
                       't': CAST(coalesce(map_extract_value(h.ht, c), 0) AS DOUBLE),
                       'a': CAST(coalesce(map_extract_value(h.ha, c), 0) AS DOUBLE),
                       'p': CAST(coalesce(map_extract_value(h.hp, c), 0) AS DOUBLE)}))[1];

-- average of per-class values v (NaN = undefined, left out) with weights w
CREATE OR REPLACE MACRO _cls_mc_average(vw) AS
    list_transform([vw], lambda l: list_transform([list_filter(l, lambda x: NOT isnan(x.v))],
        lambda d: CASE WHEN len(l) = 0 THEN CAST(NULL AS DOUBLE)
                       WHEN len(d) = 0 THEN CAST('NaN' AS DOUBLE)
                       -- every weight 0: the plain mean (scikit-learn's _nanaverage)
                       WHEN list_sum(list_transform(d, lambda x: x.w)) = 0
                           THEN list_avg(list_transform(d, lambda x: x.v))
                       ELSE list_sum(list_transform(d, lambda x: x.v * x.w))
                            / list_sum(list_transform(d, lambda x: x.w)) END)[1])[1];

-- per-class score (1 + beta^2) T / (beta^2 A + P) with beta_a = beta^2 weight on A and
-- beta_p on P: precision = (0, 1), recall = (1, 0), F-beta = (beta^2, 1)
CREATE OR REPLACE MACRO _cls_mc_score(actual, predicted, wa, wp, average, zero_division) AS
    CASE WHEN average = 'micro' THEN
             CAST(count(*) FILTER (WHERE _cls_same(actual, predicted)) AS DOUBLE)
             / CAST(nullif(count(*) FILTER (WHERE _cls_ok(actual, predicted)), 0) AS DOUBLE)
         WHEN average IN ('macro', 'weighted') THEN
             _cls_mc_average(list_transform(_cls_mc_counts(actual, predicted), lambda k: {
                 'v': CASE WHEN wa * k.a + wp * k.p > 0
                           THEN (wa + wp) * k.t / (wa * k.a + wp * k.p)
                           ELSE CAST(zero_division AS DOUBLE) END,
                 'w': CASE WHEN average = 'weighted' THEN k.a ELSE CAST(1 AS DOUBLE) END}))
         ELSE error('average must be ''macro'', ''micro'' or ''weighted''') END;

-- share of rows with actual = predicted (byte for byte)
CREATE OR REPLACE MACRO cls_multiclass_accuracy(actual, predicted) AS
    CAST(count(*) FILTER (WHERE _cls_same(actual, predicted)) AS DOUBLE)
    / CAST(nullif(count(*) FILTER (WHERE _cls_ok(actual, predicted)), 0) AS DOUBLE);

CREATE OR REPLACE MACRO cls_multiclass_precision(actual, predicted, average := 'macro',
                                                 zero_division := 0.0) AS
    _cls_mc_score(actual, predicted, CAST(0 AS DOUBLE), CAST(1 AS DOUBLE), average,
                  zero_division);

CREATE OR REPLACE MACRO cls_multiclass_recall(actual, predicted, average := 'macro',
                                              zero_division := 0.0) AS
    _cls_mc_score(actual, predicted, CAST(1 AS DOUBLE), CAST(0 AS DOUBLE), average,
                  zero_division);

CREATE OR REPLACE MACRO cls_multiclass_fbeta(actual, predicted, beta, average := 'macro',
                                             zero_division := 0.0) AS
    _cls_mc_score(actual, predicted, CAST(beta AS DOUBLE) ^ 2, CAST(1 AS DOUBLE), average,
                  zero_division);

CREATE OR REPLACE MACRO cls_multiclass_f1(actual, predicted, average := 'macro',
                                          zero_division := 0.0) AS
    cls_multiclass_fbeta(actual, predicted, 1.0, average, zero_division);

-- ------------------------------------------------------------------------------------------
-- table macros: tbl is a table or view name; column names are strings; by_cols is a list of
-- group column names (kept under their own names in the output). Output names, and names
-- matched as strings (__cls_all), are written quoted: preserve_identifier_case folds the
-- unquoted ones.
-- Groups are told apart, and sorted, by their byte key __cls_b (_cls_keyed), a BLOB: text
-- compares as bytes (no collation of the column or the session, e.g. NOCASE, merges 'A' and
-- 'a'; a struct of text compares under it), numbers as numbers, and a NULL group value sorts
-- first, column by column, as the Python functions, the DuckDB engine and the compiled SQL
-- order their groups.

-- the rows of tbl as __cls_key (the struct of the by_cols values and the constant
-- "__cls_all"), __cls_b (its byte key) and the columns named first (__cls_1) and second
-- (__cls_2). __cls_b is the create_sort_key of the struct of each column's own
-- create_sort_key(value, 'ASC NULLS FIRST'): a struct of the values themselves would sort a
-- NULL field last whatever the order asked for, and compare text under the collation
CREATE OR REPLACE MACRO _cls_keyed(tbl, by_cols, first, second) AS TABLE
    SELECT __cls_key,
           create_sort_key(struct_pack(*COLUMNS(lambda c: list_contains(by_cols, c)
                                                          OR c = '__cls_all')),
                           'ASC NULLS LAST') AS __cls_b,
           __cls_1, __cls_2
    FROM (SELECT struct_pack(*COLUMNS(lambda c: list_contains(by_cols, c) OR c = '__cls_all'))
                     AS __cls_key,
                 create_sort_key(COLUMNS(lambda c: list_contains(by_cols, c) OR c = '__cls_all'),
                                 'ASC NULLS FIRST'),
                 __cls_1, __cls_2
          FROM (SELECT *, 0 AS "__cls_all", COLUMNS(lambda c: c = first) AS __cls_1,
                       COLUMNS(lambda c: c = second) AS __cls_2
                FROM query_table(tbl)));

-- distinct scores of each group, highest first, with the cumulative counts of positives
-- (tps) and negatives (fps) at or above each, the position i (1 = highest) and the number of
-- points k of the group
CREATE OR REPLACE MACRO _cls_points(tbl, label, score, by_cols) AS TABLE
    WITH _keyed AS (
        SELECT __cls_key, __cls_b, _cls_pos(__cls_1) AS __cls_y,
               CAST(__cls_2 AS DOUBLE) AS __cls_s
        FROM _cls_keyed(tbl, by_cols, label, score)
    ), _grouped AS (
        SELECT __cls_key, __cls_b,
               __cls_s, count(*) FILTER (WHERE __cls_y) AS __cls_pos, count(*) AS __cls_n
        FROM _keyed
        WHERE __cls_y IS NOT NULL AND __cls_s IS NOT NULL
        GROUP BY ALL
    )
    SELECT __cls_key, __cls_b, __cls_s,
           CAST(sum(__cls_pos) OVER w AS BIGINT) AS __cls_tps,
           CAST(sum(__cls_n - __cls_pos) OVER w AS BIGINT) AS __cls_fps,
           row_number() OVER w AS __cls_i,
           count(*) OVER (PARTITION BY __cls_b) AS __cls_k
    FROM _grouped
    WINDOW w AS (PARTITION BY __cls_b ORDER BY __cls_s DESC NULLS LAST ROWS UNBOUNDED PRECEDING);

-- ROC curve as scikit-learn's roc_curve: a first point (threshold = +inf, fpr = tpr = 0),
-- then one point per distinct score (score >= threshold is positive); with
-- drop_intermediate, points collinear with their neighbours are dropped (scikit-learn's
-- rule). fpr (tpr) is NULL for a group without negatives (positives).
CREATE OR REPLACE MACRO cls_roc_curve(tbl, label, score, by_cols := [], drop_intermediate := true)
AS TABLE
    WITH _p AS (
        SELECT *,
               lag(__cls_fps) OVER w - 2 * __cls_fps + lead(__cls_fps) OVER w AS __cls_dfp,
               lag(__cls_tps) OVER w - 2 * __cls_tps + lead(__cls_tps) OVER w AS __cls_dtp,
               max(__cls_fps) OVER (PARTITION BY __cls_b) AS __cls_nn,
               max(__cls_tps) OVER (PARTITION BY __cls_b) AS __cls_np
        FROM _cls_points(tbl, label, score, by_cols)
        WINDOW w AS (PARTITION BY __cls_b ORDER BY __cls_i ASC NULLS LAST)
    ), _kept AS (
        SELECT __cls_key, __cls_b, __cls_i AS __cls_order, __cls_s AS "threshold",
               __cls_fps, __cls_tps, __cls_nn, __cls_np
        FROM _p
        WHERE NOT drop_intermediate OR __cls_k <= 2 OR __cls_i = 1 OR __cls_i = __cls_k
              OR __cls_dfp <> 0 OR __cls_dtp <> 0
        UNION ALL
        SELECT DISTINCT __cls_key, __cls_b, 0, CAST('Infinity' AS DOUBLE), 0, 0, __cls_nn,
               __cls_np
        FROM _p
    ), _out AS (
        SELECT unnest(__cls_key), __cls_b, __cls_order, "threshold",
               CASE WHEN __cls_nn > 0 THEN CAST(__cls_fps AS DOUBLE) / __cls_nn END AS "fpr",
               CASE WHEN __cls_np > 0 THEN CAST(__cls_tps AS DOUBLE) / __cls_np END AS "tpr"
        FROM _kept
    )
    SELECT * EXCLUDE ("__cls_all", __cls_b, __cls_order) FROM _out
    ORDER BY __cls_b ASC NULLS LAST, __cls_order ASC NULLS LAST;

-- precision-recall curve as scikit-learn's precision_recall_curve: one point per distinct
-- score in increasing threshold order (precision = tps / (tps + fps), recall = tps / P),
-- then the closing point (threshold NULL, precision 1, recall 0). recall is NULL for a group
-- without positives. drop_intermediate keeps the first and last point of each run of
-- equal tps (scikit-learn's rule).
CREATE OR REPLACE MACRO cls_precision_recall_curve(tbl, label, score, by_cols := [],
                                                   drop_intermediate := false)
AS TABLE
    WITH _p AS (
        SELECT *,
               __cls_tps <> lag(__cls_tps) OVER w OR __cls_tps <> lead(__cls_tps) OVER w
                   AS __cls_turn,
               max(__cls_tps) OVER (PARTITION BY __cls_b) AS __cls_np
        FROM _cls_points(tbl, label, score, by_cols)
        WINDOW w AS (PARTITION BY __cls_b ORDER BY __cls_i ASC NULLS LAST)
    ), _kept AS (
        SELECT __cls_key, __cls_b, -__cls_i AS __cls_order, __cls_s AS "threshold",
               CAST(__cls_tps AS DOUBLE) / CAST(__cls_tps + __cls_fps AS DOUBLE) AS "precision",
               CASE WHEN __cls_np > 0 THEN CAST(__cls_tps AS DOUBLE) / __cls_np END AS "recall"
        FROM _p
        WHERE NOT drop_intermediate OR __cls_k <= 2 OR __cls_i = 1 OR __cls_i = __cls_k
              OR __cls_turn
        UNION ALL
        SELECT DISTINCT __cls_key, __cls_b, 1, CAST(NULL AS DOUBLE), CAST(1 AS DOUBLE),
               CAST(0 AS DOUBLE)
        FROM _p
    ), _out AS (
        SELECT unnest(__cls_key), __cls_b, __cls_order, "threshold", "precision", "recall"
        FROM _kept
    )
    SELECT * EXCLUDE ("__cls_all", __cls_b, __cls_order) FROM _out
    ORDER BY __cls_b ASC NULLS LAST, __cls_order ASC NULLS LAST;

-- GAUC: the mean of per-group ROC AUC weighted by the group's rows (impressions), over the
-- groups that have both classes; groups_left_out counts the others. grp is one column name
-- (several: pack them first, e.g. a view with struct_pack); groups are told apart by their byte
-- key (as by_cols above: 'A' and 'a' are two groups under any collation); weight :=
-- 'uniform' gives every group used the same weight.
CREATE OR REPLACE MACRO cls_group_auc(tbl, grp, label, score, weight := 'impressions') AS TABLE
    WITH _in AS (
        SELECT COLUMNS(lambda c: c = grp) AS __cls_key,
               COLUMNS(lambda c: c = label) AS __cls_y, COLUMNS(lambda c: c = score) AS __cls_s
        FROM query_table(tbl)
    ), _g AS (
        SELECT cls_roc_auc(__cls_y, __cls_s) AS a,
               count(*) FILTER (WHERE _cls_ok(__cls_y, __cls_s)) AS n
        FROM _in
        GROUP BY create_sort_key(__cls_key, 'ASC NULLS LAST')
    )
    SELECT CASE WHEN weight = 'impressions'
                    THEN sum(a * n) FILTER (WHERE a IS NOT NULL)
                         / CAST(sum(n) FILTER (WHERE a IS NOT NULL) AS DOUBLE)
                WHEN weight = 'uniform' THEN avg(a)
                ELSE error('weight must be ''impressions'' or ''uniform''') END AS "group_auc",
           count(a) AS "groups_used",
           count(*) - count(a) AS "groups_left_out",
           CAST(coalesce(sum(n) FILTER (WHERE a IS NOT NULL), 0) AS BIGINT) AS "impressions_used"
    FROM _g;

-- non-NULL (actual, predicted) pairs with their group key and the labels' byte keys
CREATE OR REPLACE MACRO _cls_pairs(tbl, actual, predicted, by_cols) AS TABLE
    SELECT __cls_key, __cls_b, __cls_1 AS __cls_a, __cls_2 AS __cls_p,
           _cls_ka(__cls_1, __cls_2) AS __cls_ak, _cls_kp(__cls_1, __cls_2) AS __cls_pk
    FROM _cls_keyed(tbl, by_cols, actual, predicted)
    WHERE __cls_1 IS NOT NULL AND __cls_2 IS NOT NULL;

-- per (group, class): t = rows with actual = predicted = class, a = rows with actual class,
-- p = rows predicted class; classes = labels seen in either column of the group; ck = the
-- class's byte key (groups and classes are grouped and joined by their byte keys only)
CREATE OR REPLACE MACRO _cls_class_counts(tbl, actual, predicted, by_cols) AS TABLE
    WITH _in AS (SELECT * FROM _cls_pairs(tbl, actual, predicted, by_cols)),
    _a AS (SELECT any_value(__cls_key) AS __cls_key, __cls_b, any_value(__cls_a) AS c,
                  __cls_ak AS ck, count(*) AS a, count(*) FILTER (WHERE __cls_ak = __cls_pk) AS t
           FROM _in GROUP BY __cls_b, __cls_ak),
    _p AS (SELECT any_value(__cls_key) AS __cls_key, __cls_b, any_value(__cls_p) AS c,
                  __cls_pk AS ck, count(*) AS p
           FROM _in GROUP BY __cls_b, __cls_pk)
    SELECT coalesce(_a.__cls_key, _p.__cls_key) AS __cls_key,
           coalesce(_a.__cls_b, _p.__cls_b) AS __cls_b, coalesce(_a.c, _p.c) AS c,
           coalesce(_a.ck, _p.ck) AS ck,
           coalesce(t, 0) AS t, coalesce(a, 0) AS a, coalesce(p, 0) AS p
    FROM _a FULL JOIN _p ON _a.__cls_b = _p.__cls_b AND _a.ck = _p.ck;

-- confusion matrix as a long table (by..., actual, predicted, count): every pair of the
-- labels seen in the group (in either column), zero counts included, sorted
CREATE OR REPLACE MACRO cls_confusion_matrix(tbl, actual, predicted, by_cols := []) AS TABLE
    WITH _in AS (SELECT * FROM _cls_pairs(tbl, actual, predicted, by_cols)),
    _counts AS (SELECT __cls_b, __cls_ak, __cls_pk, count(*) AS n
                FROM _in GROUP BY __cls_b, __cls_ak, __cls_pk),
    _classes AS (SELECT __cls_key, __cls_b, c, ck
                 FROM _cls_class_counts(tbl, actual, predicted, by_cols)),
    _out AS (
        SELECT unnest(x.__cls_key), x.__cls_b, x.c AS "actual", y.c AS "predicted",
               coalesce(k.n, 0) AS "count", x.ck AS __cls_ac, y.ck AS __cls_pc
        FROM _classes AS x
        JOIN _classes AS y ON x.__cls_b = y.__cls_b
        LEFT JOIN _counts AS k
            ON k.__cls_b = x.__cls_b AND k.__cls_ak = x.ck AND k.__cls_pk = y.ck
    )
    SELECT * EXCLUDE ("__cls_all", __cls_b, __cls_ac, __cls_pc) FROM _out
    ORDER BY __cls_b ASC NULLS LAST, __cls_ac ASC NULLS LAST, __cls_pc ASC NULLS LAST;

-- per-class report (by..., class, precision, recall, f1, support) like scikit-learn's
-- precision_recall_fscore_support(average=None); classes = labels seen in either column
CREATE OR REPLACE MACRO cls_classification_report(tbl, actual, predicted, by_cols := [],
                                                  zero_division := 0.0) AS TABLE
    WITH _out AS (
        SELECT unnest(__cls_key), __cls_b, ck AS __cls_ck, c AS "class",
               _cls_div(t, p, zero_division) AS "precision",
               _cls_div(t, a, zero_division) AS "recall",
               _cls_div(2 * t, a + p, zero_division) AS "f1",
               a AS "support"
        FROM _cls_class_counts(tbl, actual, predicted, by_cols)
    )
    SELECT * EXCLUDE ("__cls_all", __cls_b, __cls_ck) FROM _out
    ORDER BY __cls_b ASC NULLS LAST, __cls_ck ASC NULLS LAST;
