-- polars_rank: recommender beyond-accuracy metrics as DuckDB SQL macros (the same definitions
-- as polars_rank.recsys; the docs' guide docs/guides/recommender.md has the references).
--
-- Load after ranking.sql (it uses _pr_id_bytes, _pr_score_key, _pr_rel, _pr_within and the
-- parameter checks _pr_cutoff_ok, _pr_choice_ok, _pr_checked):
--         DuckDB CLI  .read sql/ranking.sql
--                     .read sql/recsys.sql
--         Python      polars_rank.duckdb.register(con)
--
-- Tables (fixed column names; alias others in a view first):
--   run            query, doc, score        users, items, scores
--   top            query, doc, rank         the recommendations ranked: top_k('run');
--                  (+ relevance)            the qrels grade, NULL when unjudged (serendipity,
--                                           user_coverage with a relevance level)
--   interactions   query, doc               the training history
--   catalog        doc                      the item universe
--   users          query                    the users user_coverage counts
--   item features  doc, vector (DOUBLE[])  or  doc, category  or  doc_a, doc_b, similarity
--
-- Per-user aggregates (GROUP BY query) read the recommendations enriched with the item table
-- (enrich); table macros compute corpus-level metrics and the per-user metrics that need item
-- similarities. A macro's k keeps the rows with rank <= k (all rows when NULL); k must be NULL
-- or a positive integer and a choice one of its spellings, or the macro raises an error
-- naming the parameter.

-- ------------------------------------------------------------------------------------------
-- the recommendation table and the item table

-- query, doc, rank: each user's items ranked as the ranking metrics rank documents (score
-- descending, ties by item id descending as text bytes), cut at rank <= k
CREATE OR REPLACE MACRO top_k(run, k := NULL) AS TABLE
    SELECT query, doc, rank FROM (
        SELECT query, doc,
               row_number() OVER (PARTITION BY _pr_id_bytes(query)
                                  ORDER BY _pr_score_key(score) DESC NULLS LAST,
                                           _pr_id_bytes(doc) DESC NULLS LAST)
                   AS "rank"
        FROM query_table(_pr_checked(run, _pr_cutoff_ok(k, 'k'))))
    WHERE _pr_within(rank, k);

-- doc, popularity: distinct users per item (count := 'users') or rows ('interactions')
CREATE OR REPLACE MACRO item_popularity(interactions, count := 'users') AS TABLE
    SELECT doc,
           CAST(CASE WHEN count = 'users' THEN count(DISTINCT query) ELSE count(*) END AS BIGINT)
               AS "popularity"
    FROM query_table(_pr_checked(interactions,
                                 _pr_choice_ok(count, ['users', 'interactions'],
                                               'count must be ''users'' or ''interactions''')))
    GROUP BY doc;

-- n_users: the distinct users of the interactions (the discovery model's |U|)
CREATE OR REPLACE MACRO user_count(interactions) AS TABLE
    SELECT CAST(count(DISTINCT query) AS DOUBLE) AS "n_users" FROM query_table(interactions);

-- doc, popularity, self_information, in_tail for every item of a popularity table
-- (doc, popularity: item_popularity, or counts of your own, items with count 0 included).
-- model 'choice': -log2(pop / sum pop) (MS Recommenders); 'discovery': -log2(pop / n_users);
-- NULL for an item with popularity 0 (novelty's unknown rule applies to it).
-- Tail, items ordered by (popularity, doc) ascending: tail_popularity t: pop <= t; else
-- tail_share r: the max(floor(r n), 1) least popular (RecBole); else the items outside the
-- floor(head_share n) most popular.
CREATE OR REPLACE MACRO item_table(popularity_table, n_users := NULL, model := 'choice',
                                   head_share := 0.2, tail_share := NULL,
                                   tail_popularity := NULL) AS TABLE
    WITH ordered AS (
        SELECT doc, popularity,
               CAST(popularity AS DOUBLE) / sum(CAST(popularity AS DOUBLE)) OVER () AS choice,
               CAST(row_number() OVER (ORDER BY popularity ASC NULLS LAST,
                                                 doc ASC NULLS LAST) AS DOUBLE) AS pos,
               CAST(count(*) OVER () AS DOUBLE) AS n
        FROM query_table(_pr_checked(popularity_table,
                                     _pr_choice_ok(model, ['choice', 'discovery'],
                                                   'model must be ''choice'' or ''discovery'''))))
    SELECT doc, popularity,
           CASE WHEN popularity > 0
                    THEN -log2(CASE WHEN model = 'choice' THEN choice
                                    ELSE CAST(popularity AS DOUBLE) / CAST(n_users AS DOUBLE) END)
               END AS "self_information",
           CASE WHEN tail_popularity IS NOT NULL
                    THEN CAST(popularity AS DOUBLE) <= CAST(tail_popularity AS DOUBLE)
                WHEN tail_share IS NOT NULL
                    THEN pos <= greatest(floor(n * CAST(tail_share AS DOUBLE)), 1.0)
                ELSE pos <= n - floor(n * CAST(head_share AS DOUBLE)) END AS "in_tail"
    FROM ordered;

-- the recommendations with the item columns; an item without interactions has popularity 0,
-- a NULL self-information and is tail unless unknown_in_tail := false (RecBole)
CREATE OR REPLACE MACRO enrich(top, items, unknown_in_tail := true) AS TABLE
    SELECT t.*, coalesce(i.popularity, 0) AS "popularity", i.self_information,
           coalesce(i.in_tail, unknown_in_tail) AS "in_tail"
    FROM query_table(top) AS t LEFT JOIN query_table(items) AS i ON t.doc = i.doc;

-- the default catalog: the items of the interactions and every item of the run
CREATE OR REPLACE MACRO default_catalog(run, interactions) AS TABLE
    SELECT doc FROM query_table(run)
    UNION
    SELECT doc FROM query_table(interactions);

-- ------------------------------------------------------------------------------------------
-- per-user aggregates over the enriched recommendations (GROUP BY query)

-- novelty@k: mean self-information of the top-k items; unknown := 'zero' counts an item
-- without interactions as 0 (MS Recommenders), 'skip' leaves it out
CREATE OR REPLACE MACRO novelty(rank, self_information, k := NULL, unknown := 'skip') AS
    avg(CASE WHEN unknown = 'zero' THEN coalesce(CAST(self_information AS DOUBLE), 0.0)
             ELSE CAST(self_information AS DOUBLE) END)
        FILTER (WHERE _pr_within(rank, k)
                      AND _pr_choice_ok(unknown, ['skip', 'zero'],
                                        'unknown must be ''skip'' or ''zero'''));

-- ARP@k: mean popularity of the top-k items (RecBole AveragePopularity)
CREATE OR REPLACE MACRO average_popularity(rank, popularity, k := NULL) AS
    avg(CAST(popularity AS DOUBLE)) FILTER (WHERE _pr_within(rank, k));

-- APLT@k: share of the top-k items in the long tail (RecBole TailPercentage)
CREATE OR REPLACE MACRO long_tail_share(rank, in_tail, k := NULL) AS
    avg(CAST(in_tail AS DOUBLE)) FILTER (WHERE _pr_within(rank, k));

-- ------------------------------------------------------------------------------------------
-- corpus-level metrics (one row)

-- doc, count: how many users have the item in their top k
CREATE OR REPLACE MACRO recommendation_counts(top, k := NULL) AS TABLE
    SELECT doc, count(*) AS "count" FROM query_table(_pr_checked(top, _pr_cutoff_ok(k, 'k')))
    WHERE _pr_within(rank, k) GROUP BY doc;

-- catalog coverage: distinct catalog items in any top k / catalog size (items outside the
-- catalog are not counted)
CREATE OR REPLACE MACRO catalog_coverage(top, catalog, k := NULL) AS TABLE
    WITH items AS (SELECT DISTINCT doc FROM query_table(catalog)),
    shown AS (SELECT count(*) AS n FROM recommendation_counts(top, k := k) AS c
              SEMI JOIN items AS i ON c.doc = i.doc)
    SELECT CASE WHEN (SELECT count(*) FROM items) > 0
                THEN CAST((SELECT n FROM shown) AS DOUBLE)
                     / CAST((SELECT count(*) FROM items) AS DOUBLE) END AS "catalog_coverage";

-- Shannon entropy of the recommendation counts: -sum p log_base p, p = count / sum count
-- (MS Recommenders distributional_coverage: base 2); per_item divides by the number of
-- recommended items (RecBole ShannonEntropy: base e, per_item true). The terms are added
-- smallest first, one after the other: the same bits whatever order the counts come in
CREATE OR REPLACE MACRO shannon_entropy(top, k := NULL, base := 2.0, per_item := false) AS TABLE
    WITH probs AS (
        SELECT CAST(count AS DOUBLE) / sum(CAST(count AS DOUBLE)) OVER () AS p
        FROM recommendation_counts(top, k := k))
    SELECT CASE WHEN count(*) > 0 THEN
               -list_sum(list(p * (ln(p) / ln(CAST(base AS DOUBLE))) ORDER BY
                              p * (ln(p) / ln(CAST(base AS DOUBLE))) ASC NULLS LAST))
               / CASE WHEN per_item THEN CAST(count(*) AS DOUBLE) ELSE 1.0 END
           END AS "shannon_entropy"
    FROM probs;

-- Gini index of the recommendation counts over the n catalog items (RecBole GiniIndex):
-- sum_j (2j - n - 1) c_(j) / (n sum c), counts ascending, never-shown items first with 0
CREATE OR REPLACE MACRO gini_index(top, catalog, k := NULL) AS TABLE
    WITH items AS (SELECT DISTINCT doc FROM query_table(catalog)),
    size AS (SELECT CAST(count(*) AS DOUBLE) AS n FROM items),
    counts AS (SELECT CAST(c.count AS DOUBLE) AS c
               FROM recommendation_counts(top, k := k) AS c SEMI JOIN items AS i ON c.doc = i.doc),
    positioned AS (
        SELECT c, size.n AS n,
               size.n - CAST(count(*) OVER () AS DOUBLE)
                   + CAST(row_number() OVER (ORDER BY c ASC NULLS LAST) AS DOUBLE) AS j
        FROM counts, size)
    SELECT CASE WHEN sum(c) > 0 THEN sum((2.0 * j - n - 1.0) * c) / (first(n) * sum(c)) END
               AS "gini"
    FROM positioned;

-- user coverage: share of the users with an item in their top k; with relevance_level, with
-- an item whose relevance (a column of top) is >= the level
CREATE OR REPLACE MACRO user_coverage(top, users, k := NULL, relevance_level := NULL) AS TABLE
    WITH everyone AS (SELECT DISTINCT query FROM query_table(users)),
    hit AS (SELECT DISTINCT t.query FROM query_table(_pr_checked(top, _pr_cutoff_ok(k, 'k'))) AS t
            SEMI JOIN everyone AS u ON t.query = u.query
            WHERE _pr_within(t.rank, k)
              AND (relevance_level IS NULL OR _pr_rel(t.relevance, relevance_level)))
    SELECT CASE WHEN (SELECT count(*) FROM everyone) > 0
                THEN CAST((SELECT count(*) FROM hit) AS DOUBLE)
                     / CAST((SELECT count(*) FROM everyone) AS DOUBLE) END AS "user_coverage";

-- ------------------------------------------------------------------------------------------
-- item similarity inputs

-- the elementwise sum of a list of equal-length vectors (NULL for an empty list)
CREATE OR REPLACE MACRO _pr_vector_sum(vectors) AS
    list_reduce(vectors, lambda a, b: list_transform(range(1, len(a) + 1), lambda i: a[i] + b[i]));

-- doc, u, sq: unit feature vectors u = x / |x| and sum u_j^2 (items with a zero or NULL
-- vector are left out: similarity 0 with every item)
CREATE OR REPLACE MACRO unit_vectors(item_features) AS TABLE
    WITH v AS (
        SELECT doc, list_transform(vector, lambda x: CAST(x AS DOUBLE)) AS x
        FROM query_table(item_features)),
    normed AS (SELECT doc, x, sqrt(list_sum(list_transform(x, lambda e: e * e))) AS norm FROM v)
    SELECT doc, u, list_sum(list_transform(u, lambda e: e * e)) AS "sq"
    FROM (SELECT doc, list_transform(x, lambda e: e / norm) AS "u" FROM normed WHERE norm > 0);

-- doc, category, w, size: the unit multi-hot category vector of each item (w = 1/sqrt|C|)
-- and its number of categories; repeated (doc, category) rows count once
CREATE OR REPLACE MACRO category_weights(item_features) AS TABLE
    WITH c AS (SELECT DISTINCT doc, category FROM query_table(item_features))
    SELECT doc, category,
           1.0 / sqrt(CAST(count(*) OVER (PARTITION BY doc) AS DOUBLE)) AS "w",
           CAST(count(*) OVER (PARTITION BY doc) AS DOUBLE) AS "size"
    FROM c;

-- a similarity table keyed by (least(doc_a, doc_b), greatest(doc_a, doc_b)), self pairs out
CREATE OR REPLACE MACRO canonical_pairs(item_features) AS TABLE
    SELECT least(doc_a, doc_b) AS "a", greatest(doc_a, doc_b) AS "b",
           first(CAST(similarity AS DOUBLE)) AS "sim"
    FROM query_table(item_features)
    WHERE doc_a <> doc_b
    GROUP BY ALL;

-- MS Recommenders' co-occurrence cosine: |U_a & U_b| / (sqrt|U_a| sqrt|U_b|), doc_a < doc_b
CREATE OR REPLACE MACRO cooccurrence_similarity(interactions) AS TABLE
    WITH h AS (SELECT DISTINCT query, doc FROM query_table(interactions)),
    roots AS (SELECT doc, sqrt(CAST(count(*) AS DOUBLE)) AS root FROM h GROUP BY doc),
    pairs AS (SELECT a.doc AS "doc_a", b.doc AS "doc_b", CAST(count(*) AS DOUBLE) AS shared
              FROM h AS a JOIN h AS b ON a.query = b.query AND a.doc < b.doc
              GROUP BY a.doc, b.doc)
    SELECT p.doc_a, p.doc_b, p.shared / (ra.root * rb.root) AS "similarity"
    FROM pairs AS p JOIN roots AS ra ON ra.doc = p.doc_a JOIN roots AS rb ON rb.doc = p.doc_b
    ORDER BY p.doc_a ASC NULLS LAST, p.doc_b ASC NULLS LAST;

-- ------------------------------------------------------------------------------------------
-- intra-list diversity: query, intra_list_diversity = 1 - sum_{i<j} sim(i, j) / C(n, 2) over
-- each user's top-k items (NULL for fewer than 2 items; an item without features counts 0)

CREATE OR REPLACE MACRO _pr_ild(pair_sum, n) AS
    CASE WHEN n >= 2 THEN 1.0 - coalesce(pair_sum, 0.0)
                               / (CAST(n AS DOUBLE) * (CAST(n AS DOUBLE) - 1.0) / 2.0) END;

-- cosine of feature vectors: sum_{i<j} u_i.u_j = (|sum_i u_i|^2 - sum_i |u_i|^2) / 2
CREATE OR REPLACE MACRO intra_list_diversity_vectors(top, item_features, k := NULL) AS TABLE
    WITH sums AS (
        SELECT t.query, count(*) AS n, sum(u.sq) AS sq,
               _pr_vector_sum(list(u.u ORDER BY t.rank ASC NULLS LAST)
                              FILTER (WHERE u.u IS NOT NULL)) AS s
        FROM query_table(_pr_checked(top, _pr_cutoff_ok(k, 'k'))) AS t
        LEFT JOIN unit_vectors(item_features) AS u ON t.doc = u.doc
        WHERE _pr_within(t.rank, k)
        GROUP BY t.query)
    SELECT query,
           _pr_ild((coalesce(list_sum(list_transform(s, lambda e: e * e)), 0.0)
                    - coalesce(sq, 0.0)) / 2.0, n) AS "intra_list_diversity"
    FROM sums;

-- categories: cosine of multi-hot vectors (similarity := 'cosine') or Jaccard ('jaccard')
CREATE OR REPLACE MACRO intra_list_diversity_categories(top, item_features, k := NULL,
                                                        similarity := 'cosine') AS TABLE
    WITH rows_ AS (
        SELECT query, doc, rank
        FROM query_table(_pr_checked(
            top, _pr_cutoff_ok(k, 'k')
                 AND _pr_choice_ok(similarity, ['cosine', 'jaccard'],
                                   'similarity must be ''cosine'' or ''jaccard''')))
        WHERE _pr_within(rank, k)),
    sizes AS (SELECT query, count(*) AS n FROM rows_ GROUP BY query),
    weighted AS (SELECT r.query, r.rank, w.category, w.w, w.size
                 FROM rows_ AS r JOIN category_weights(item_features) AS w ON r.doc = w.doc),
    cosine AS (
        SELECT query, (sum(s * s) - sum(q)) / 2.0 AS pair_sum
        FROM (SELECT query, category, sum(w) AS s, sum(w * w) AS q
              FROM weighted GROUP BY query, category)
        WHERE similarity = 'cosine'
        GROUP BY query),
    jaccard AS (
        SELECT query, sum(shared / (size_a + size_b - shared)) AS pair_sum
        FROM (SELECT a.query, a.rank, b.rank, CAST(count(*) AS DOUBLE) AS shared,
                     first(a.size) AS size_a, first(b.size) AS size_b
              FROM weighted AS a JOIN weighted AS b
                  ON a.query = b.query AND a.category = b.category AND a.rank < b.rank
              WHERE similarity = 'jaccard'
              GROUP BY a.query, a.rank, b.rank)
        GROUP BY query),
    pair_sums AS (SELECT * FROM cosine UNION ALL SELECT * FROM jaccard)
    SELECT s.query,
           _pr_ild(p.pair_sum, s.n) AS "intra_list_diversity"
    FROM sizes AS s LEFT JOIN pair_sums AS p ON s.query = p.query;

-- a similarity table (either orientation; a missing pair counts 0)
CREATE OR REPLACE MACRO intra_list_diversity_similarities(top, item_features, k := NULL) AS TABLE
    WITH rows_ AS (SELECT query, doc, rank FROM query_table(_pr_checked(top, _pr_cutoff_ok(k, 'k')))
                   WHERE _pr_within(rank, k)),
    sizes AS (SELECT query, count(*) AS n FROM rows_ GROUP BY query),
    pairs AS (SELECT a.query, least(a.doc, b.doc) AS a, greatest(a.doc, b.doc) AS b
              FROM rows_ AS a JOIN rows_ AS b ON a.query = b.query AND a.rank < b.rank),
    pair_sums AS (
        SELECT p.query, sum(s.sim) AS pair_sum
        FROM pairs AS p JOIN canonical_pairs(item_features) AS s ON p.a = s.a AND p.b = s.b
        GROUP BY p.query)
    SELECT s.query, _pr_ild(p.pair_sum, s.n) AS "intra_list_diversity"
    FROM sizes AS s LEFT JOIN pair_sums AS p ON s.query = p.query;

-- ------------------------------------------------------------------------------------------
-- unexpectedness: query, doc, rank, unexpectedness = 1 - (1/|H_u|) sum_{j in H_u} sim(doc, j)
-- for the top-k items of users with a history (H_u: the distinct items of the interactions)

CREATE OR REPLACE MACRO _pr_history(interactions) AS TABLE
    SELECT DISTINCT query, doc FROM query_table(interactions);

CREATE OR REPLACE MACRO unexpectedness_vectors(top, interactions, item_features,
                                               k := NULL) AS TABLE
    WITH units AS (FROM unit_vectors(item_features)),
    h AS (FROM _pr_history(interactions)),
    centroid AS (
        SELECT h.query, count(*) AS size,
               _pr_vector_sum(list(u.u) FILTER (WHERE u.u IS NOT NULL)) AS c
        FROM h LEFT JOIN units AS u ON h.doc = u.doc GROUP BY h.query)
    SELECT t.query, t.doc, t.rank,
           1.0 - coalesce(list_dot_product(u.u, c.c), 0.0) / CAST(c.size AS DOUBLE)
               AS "unexpectedness"
    FROM query_table(_pr_checked(top, _pr_cutoff_ok(k, 'k'))) AS t
    JOIN centroid AS c ON t.query = c.query
    LEFT JOIN units AS u ON t.doc = u.doc
    WHERE _pr_within(t.rank, k);

CREATE OR REPLACE MACRO unexpectedness_categories(top, interactions, item_features,
                                                  k := NULL) AS TABLE
    WITH weights AS (FROM category_weights(item_features)),
    h AS (FROM _pr_history(interactions)),
    sizes AS (SELECT query, CAST(count(*) AS DOUBLE) AS size FROM h GROUP BY query),
    profile AS (SELECT h.query, w.category, sum(w.w) AS p
                FROM h JOIN weights AS w ON h.doc = w.doc GROUP BY h.query, w.category),
    rows_ AS (SELECT query, doc, rank FROM query_table(_pr_checked(top, _pr_cutoff_ok(k, 'k')))
               WHERE _pr_within(rank, k)),
    dots AS (SELECT r.query, r.doc, sum(w.w * p.p) AS simsum
             FROM rows_ AS r JOIN weights AS w ON r.doc = w.doc
             JOIN profile AS p ON p.query = r.query AND p.category = w.category
             GROUP BY r.query, r.doc)
    SELECT r.query, r.doc, r.rank, 1.0 - coalesce(d.simsum, 0.0) / s.size AS "unexpectedness"
    FROM rows_ AS r JOIN sizes AS s ON r.query = s.query
    LEFT JOIN dots AS d ON d.query = r.query AND d.doc = r.doc;

CREATE OR REPLACE MACRO unexpectedness_similarities(top, interactions, item_features,
                                                    k := NULL) AS TABLE
    WITH h AS (FROM _pr_history(interactions)),
    sizes AS (SELECT query, CAST(count(*) AS DOUBLE) AS size FROM h GROUP BY query),
    rows_ AS (SELECT query, doc, rank FROM query_table(_pr_checked(top, _pr_cutoff_ok(k, 'k')))
               WHERE _pr_within(rank, k)),
    pairs AS (SELECT r.query, r.doc, least(r.doc, h.doc) AS a, greatest(r.doc, h.doc) AS b
              FROM rows_ AS r JOIN h ON r.query = h.query),
    sums AS (SELECT p.query, p.doc,
                    sum(CASE WHEN p.a = p.b THEN 1.0 ELSE coalesce(s.sim, 0.0) END) AS simsum
             FROM pairs AS p LEFT JOIN canonical_pairs(item_features) AS s
                 ON s.a = p.a AND s.b = p.b
             GROUP BY p.query, p.doc)
    SELECT r.query, r.doc, r.rank, 1.0 - coalesce(d.simsum, 0.0) / s.size AS "unexpectedness"
    FROM rows_ AS r JOIN sizes AS s ON r.query = s.query
    LEFT JOIN sums AS d ON d.query = r.query AND d.doc = r.doc;

-- ------------------------------------------------------------------------------------------
-- serendipity (MS Recommenders user_serendipity): query, serendipity = mean over the user's
-- top-k items of unexpectedness * gain; gain from top's relevance column: 'binary' (grade >=
-- relevance_level), 'graded' (the grade when positive) or 'none' (1). NULL without history.

CREATE OR REPLACE MACRO _pr_serendipity_gain_ok(gain) AS
    _pr_choice_ok(gain, ['binary', 'graded', 'none'],
                  'gain must be ''binary'', ''graded'' or ''none''');

CREATE OR REPLACE MACRO _pr_serendipity_gain(relevance, gain, relevance_level) AS
    CASE WHEN NOT _pr_serendipity_gain_ok(gain) THEN NULL
         WHEN gain = 'none' THEN CAST(1 AS DOUBLE)
         WHEN gain = 'binary' THEN CAST(_pr_rel(relevance, relevance_level) AS DOUBLE)
         ELSE CASE WHEN relevance > 0 THEN CAST(relevance AS DOUBLE)  -- graded
                   ELSE CAST(0 AS DOUBLE) END END;

-- vectors, per user in closed form: (G - (sum_i g_i u_i) . C / |H|) / n
CREATE OR REPLACE MACRO serendipity_vectors(top, interactions, item_features, k := NULL,
                                            gain := 'binary', relevance_level := 1) AS TABLE
    WITH units AS (FROM unit_vectors(item_features)),
    h AS (FROM _pr_history(interactions)),
    centroid AS (
        SELECT h.query, count(*) AS size,
               _pr_vector_sum(list(u.u) FILTER (WHERE u.u IS NOT NULL)) AS c
        FROM h LEFT JOIN units AS u ON h.doc = u.doc GROUP BY h.query),
    rows_ AS (
        SELECT t.query, _pr_serendipity_gain(t.relevance, gain, relevance_level) AS g, u.u
        FROM query_table(_pr_checked(top, _pr_cutoff_ok(k, 'k')
                                          AND _pr_serendipity_gain_ok(gain))) AS t
        LEFT JOIN units AS u ON t.doc = u.doc
        WHERE _pr_within(t.rank, k)),
    sums AS (
        SELECT query, count(*) AS n, sum(g) AS total,
               _pr_vector_sum(list(list_transform(u, lambda e: e * g))
                              FILTER (WHERE u IS NOT NULL)) AS t
        FROM rows_ GROUP BY query)
    SELECT s.query,
           CASE WHEN c.size IS NOT NULL THEN
               (s.total - coalesce(list_dot_product(s.t, c.c), 0.0) / CAST(c.size AS DOUBLE))
               / CAST(s.n AS DOUBLE) END AS "serendipity"
    FROM sums AS s LEFT JOIN centroid AS c ON s.query = c.query;

CREATE OR REPLACE MACRO serendipity_categories(top, interactions, item_features, k := NULL,
                                               gain := 'binary', relevance_level := 1) AS TABLE
    SELECT t.query,
           avg(x.unexpectedness * _pr_serendipity_gain(t.relevance, gain, relevance_level))
               AS "serendipity"
    FROM query_table(_pr_checked(top, _pr_cutoff_ok(k, 'k')
                                      AND _pr_serendipity_gain_ok(gain))) AS t
    LEFT JOIN unexpectedness_categories(top, interactions, item_features, k := k) AS x
        ON t.query = x.query AND t.doc = x.doc
    WHERE _pr_within(t.rank, k)
    GROUP BY t.query;

CREATE OR REPLACE MACRO serendipity_similarities(top, interactions, item_features, k := NULL,
                                                 gain := 'binary', relevance_level := 1) AS TABLE
    SELECT t.query,
           avg(x.unexpectedness * _pr_serendipity_gain(t.relevance, gain, relevance_level))
               AS "serendipity"
    FROM query_table(_pr_checked(top, _pr_cutoff_ok(k, 'k')
                                      AND _pr_serendipity_gain_ok(gain))) AS t
    LEFT JOIN unexpectedness_similarities(top, interactions, item_features, k := k) AS x
        ON t.query = x.query AND t.doc = x.doc
    WHERE _pr_within(t.rank, k)
    GROUP BY t.query;
