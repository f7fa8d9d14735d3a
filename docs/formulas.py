"""The metric reference's teaching text: per catalog entry, its formula in LaTeX (rendered as
MathML at build time by ``latex2mathml``: no JavaScript, no CDN, so it shows in the site opened
from disk), what the metric is for, and for some a worked example.

Kept beside ``docs/tables.py`` rather than in the catalog: it is presentation only, and the
package does not depend on it. Keyed ``"<family>.<name>"`` (the catalog's family and name);
``tests/docs/test_metric_cards.py`` fails when an entry of the catalog has no formula or no
purpose here, and recomputes every worked example with ``pr.evaluate``.

Notation shared by the ranking formulas (stated once at the top of the reference):
``d_i`` the document at rank ``i``, ``g_i`` its grade (unjudged: none), ``ℓ`` the relevance
level, ``rel_i = [g_i ≥ ℓ]``, ``R`` the judged documents with grade ≥ ℓ, ``n`` the number
retrieved, ``k`` the cutoff.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Example:
    """A metric worked by hand on an example: ``metric`` as ``evaluate`` takes it, the
    ``arithmetic`` as a Python expression (``math`` is in scope; the test evaluates it and
    compares it with ``pr.evaluate``), ``value`` as ``pr.evaluate`` prints it, ``why`` what
    the terms are; ``options`` the keyword arguments it needs (``group="user"``)."""

    metric: str
    arithmetic: str
    value: str
    why: str
    #: keyword arguments of ``evaluate`` the example needs, as Python text (shown on the card)
    options: str = ""


# ------------------------------------------------------------------------------------------
# the shared ranking example: one query, five retrieved documents, one judged document missed

#: ``(doc, score)`` of the run, one query ``q1``, best first
EXAMPLE_RUN = [("d1", 5.0), ("d2", 4.0), ("d3", 3.0), ("d4", 2.0), ("d5", 1.0)]
#: ``(doc, relevance)`` of the judgments of ``q1``: d3 is unjudged, d6 was not retrieved
EXAMPLE_QRELS = [("d1", 0), ("d2", 2), ("d4", 1), ("d5", 0), ("d6", 1)]

NOTATION = (
    "In the formulas: $d_i$ is the document at rank $i$, $g_i$ its grade, $\\ell$ the"
    " relevance level, $\\mathrm{rel}_i = [g_i \\ge \\ell]$ (1 when $d_i$ is judged with a"
    " grade of at least $\\ell$, else 0: unjudged counts 0), $R$ the number of judged"
    " documents with grade $\\ge \\ell$ (retrieved or not), $n$ the number retrieved, $k$ the"
    " cutoff, $P@i$ precision at rank $i$."
)

#: LaTeX of each entry's formula
FORMULAS: dict[str, str] = {
    # ranking
    "ranking.precision": r"P@k = \frac{1}{k}\sum_{i=1}^{\min(k,n)} \mathrm{rel}_i"
    r"\qquad \text{without } k:\ \frac{1}{n}\sum_{i=1}^{n} \mathrm{rel}_i",
    "ranking.recall": r"R@k = \frac{1}{R}\sum_{i=1}^{\min(k,n)} \mathrm{rel}_i"
    r"\qquad (0 \text{ when } R = 0)",
    "ranking.recall_cap": r"R_{\mathrm{cap}}@k = \frac{1}{\min(k,R)}"
    r"\sum_{i=1}^{\min(k,n)} \mathrm{rel}_i",
    "ranking.hit_rate": r"\mathrm{Success}@k = \max_{i \le \min(k,n)} \mathrm{rel}_i",
    "ranking.hits": r"\mathrm{hits}@k = \sum_{i=1}^{\min(k,n)} \mathrm{rel}_i",
    "ranking.reciprocal_rank": r"\mathrm{RR}@k = \frac{1}{\min\{i \le k : \mathrm{rel}_i = 1\}}"
    r"\qquad (0 \text{ when no relevant document is in the top } k)",
    "ranking.average_precision": r"\mathrm{AP}@k = \frac{1}{D}\sum_{i=1}^{\min(k,n)}"
    r" \mathrm{rel}_i \, P@i, \qquad D = R \ (\text{trec_eval}) \text{ or } \min(k, R)",
    "ranking.gm_map": r"\mathrm{GMAP} = \exp\Big(\frac{1}{|Q|}\sum_{q \in Q}"
    r" \ln \max(\mathrm{AP}_q, 10^{-5})\Big)",
    "ranking.ndcg": r"\mathrm{nDCG}@k = \frac{\mathrm{DCG}@k}{\mathrm{IDCG}@k}, \qquad"
    r" \mathrm{DCG}@k = \sum_{i=1}^{\min(k,n)} \frac{\mathrm{gain}(g_i)}{\log_2(i+1)}"
    r"\qquad (0 \text{ when } \mathrm{IDCG}@k = 0)",
    "ranking.dcg": r"\mathrm{DCG}@k = \sum_{i=1}^{\min(k,n)}"
    r" \frac{\mathrm{gain}(g_i)}{\log_2(i+1)},"
    r" \qquad \mathrm{gain}(g) = \max(g, 0) \text{ or } 2^{g} - 1",
    "ranking.ideal_dcg": r"\mathrm{IDCG}@k = \sum_{i=1}^{k} \frac{g^{*}_i}{\log_2(i+1)},"
    r" \qquad g^{*}_1 \ge g^{*}_2 \ge \dots \text{ the positive gains of all judged documents}",
    "ranking.r_precision": r"\mathrm{Rprec} = \frac{1}{R}\sum_{i=1}^{\min(R,n)} \mathrm{rel}_i"
    r"\qquad (0 \text{ when } R = 0)",
    "ranking.bpref": r"\mathrm{bpref} = \frac{1}{R}\sum_{r \text{ relevant, retrieved}}"
    r" \Big(1 - \frac{\min(n_r, R)}{\min(N, R)}\Big)",
    "ranking.f1": r"F_1@k = \frac{2 \cdot P@k \cdot R@k}{P@k + R@k}",
    "ranking.judged_fraction": r"\mathrm{Judged}@k = \frac{|\{i \le \min(k,n) : d_i"
    r" \text{ judged}\}|}{\min(k, n)}",
    "ranking.fallout": r"\mathrm{FallOut}@k = \frac{|\{i \le \min(k,n) : 0 \le g_i < \ell\}|}{N},"
    r" \qquad N = |\{d : 0 \le g_d < \ell\}| \text{ (retrieved or not); 0 when } N = 0",
    "ranking.query_auc": r"\mathrm{AUC}@k = \frac{P M - \big(\sum_{j=1}^{P} r_j - \tfrac{P(P+1)}{2}"
    r"\big)}{P M}, \qquad P = |\{i \le \min(k,n) : \mathrm{rel}_i\}|,\ M = \min(k,n) - P,"
    r" \ r_j \text{ their ranks; 0 when } P M = 0",
    "ranking.unjudged": r"\mathrm{unj}@k = \frac{|\{i \le \min(k,n) : d_i \text{ unjudged or }"
    r" g_i < 0\}|}{k}",
    "ranking.num_ret": r"\mathrm{NumRet} = \sum_{q} n_q \qquad (\text{with rel}=\ell:"
    r" \sum_q |\{i \le n_q : g_i \ge \ell\}|)",
    "ranking.num_rel": r"\mathrm{NumRel} = \sum_{q} R_q",
    "ranking.num_rel_ret": r"\mathrm{NumRelRet} = \sum_{q} \sum_{i=1}^{n_q} \mathrm{rel}_i",
    "ranking.num_nonrel_judged_ret": r"\sum_{q} |\{i \le n_q : d_i \text{ judged},"
    r" \mathrm{rel}_i = 0\}|",
    "ranking.num_q": r"\mathrm{NumQ} = |Q|",
    "ranking.set_precision": r"\mathrm{SetP} = \frac{1}{n}\sum_{i=1}^{n} \mathrm{rel}_i",
    "ranking.set_recall": r"\mathrm{SetR} = \frac{1}{R}\sum_{i=1}^{n} \mathrm{rel}_i",
    "ranking.set_f": r"\mathrm{SetF} = \frac{(\beta + 1)\, \mathrm{SetP} \cdot \mathrm{SetR}}"
    r"{\beta \cdot \mathrm{SetP} + \mathrm{SetR}} \qquad (\beta \text{ not squared})",
    "ranking.iprec_at_recall": r"\mathrm{IPrec}@x = \max_{i_c \le i \le n} P@i, \qquad"
    r" i_c = \text{rank of the } c\text{-th relevant}, \ c = \mathrm{lround}(x R)",
    "ranking.eleven_pt_avg": r"\frac{1}{11}\sum_{x \in \{0, 0.1, \dots, 1\}} \mathrm{IPrec}@x",
    "ranking.err": r"\mathrm{ERR}@k = \sum_{r=1}^{\min(k,n)} \frac{\mathcal{R}(g_r)}{r}"
    r" \prod_{i<r} \big(1 - \mathcal{R}(g_i)\big), \qquad \mathcal{R}(g) ="
    r" \frac{2^{g} - 1}{2^{g_{\max}}}",
    "ranking.rbp": r"\mathrm{RBP}@k = (1 - p)\sum_{r=1}^{\min(k,n)} p^{\,r-1}\, \mathrm{gain}_r,"
    r" \qquad \mathrm{gain}_r = g_r \text{ or, with rel}=\ell, \ [g_r \ge \ell]",
    "ranking.rbp_residual": r"\sum_{r \le d,\ d_r \text{ unjudged}} (1 - p)\, p^{\,r-1} + p^{\,d},"
    r" \qquad d = k \text{ or } n",
    # trec_eval
    "trec_eval.relevance_string": r"c_1 c_2 \cdots c_L, \qquad c_i = g_i \ (0\text{--}9),"
    r" \ \texttt{>} \ (g_i > 9), \ \texttt{-} \ (\text{unjudged}), \ \texttt{.} \ (g_i < 0)",
    "trec_eval.inferred_ap": r"\mathrm{infAP} = \frac{1}{R}\sum_{\text{relevant at rank } j+1}"
    r" \Big(\frac{1}{j+1} + \frac{j}{j+1} \cdot \frac{r+n+u}{j} \cdot"
    r" \frac{r + \varepsilon}{r + n + 2\varepsilon}\Big), \qquad \varepsilon = 10^{-5}",
    "trec_eval.gm_bpref": r"\exp\Big(\frac{1}{|Q|}\sum_{q \in Q}"
    r" \ln \max(\mathrm{bpref}_q, 10^{-5})\Big)",
    "trec_eval.yaap": r"\mathrm{yaap} = \ln \frac{1 + S}{1 + R - S}, \qquad"
    r" S = \sum_{i=1}^{n} \mathrm{rel}_i \, P@i",
    "trec_eval.r_precision_multiple": r"P@c, \qquad c = \lfloor m R + 0.9 \rfloor"
    r" \qquad (0 \text{ when } c = 0)",
    "trec_eval.utility": r"p_1 a + p_2 b + p_3 c + p_4 d, \qquad d = \text{collection_size}"
    r" + a - n - R",
    "trec_eval.binary_g": r"\mathrm{binG} = \frac{1}{R}\sum_{i \le n,\ \mathrm{rel}_i = 1}"
    r" \frac{1}{\log_2(2 + m_i)}, \qquad m_i = |\{j < i : \mathrm{rel}_j = 0\}|",
    "trec_eval.normalized_gain": r"G = \frac{1}{\sum_j g^{*}_j}\sum_{i:\ g_i \ne 0}"
    r" \frac{g_i}{\log_2(2 + C_i - S_i)}",
    "trec_eval.ndcg_rel": r"\frac{1}{|G^{+}|}\sum_{d \in G^{+}}"
    r" \frac{\mathrm{DCG}@\mathrm{rank}(d)}{\mathrm{IDCG}@\mathrm{rank}(d)},"
    r" \qquad G^{+} = \{d : \mathrm{gain}(g_d) > 0\}",
    "trec_eval.r_ndcg": r"\mathrm{Rndcg} = \frac{1}{|E|}\sum_{e \in E} \mathrm{nDCG}@e"
    r" \qquad (0 \text{ when } R = 0)",
    "trec_eval.set_relative_precision": r"\frac{\sum_{i=1}^{n} \mathrm{rel}_i}{\min(n, R)}",
    "trec_eval.set_average_precision": r"\mathrm{SetAP} ="
    r" \frac{\big(\sum_{i=1}^{n} \mathrm{rel}_i\big)^2}{n \cdot R}",
    "trec_eval.trec_rbp": r"(1 - p)\sum_{i=1}^{n} \mathrm{gain}_i \, p^{\,i-1}",
    "trec_eval.trec_rbp_residual": r"p^{\,n} + (1 - p)\sum_{i \le n,\ d_i \text{ unjudged}}"
    r" p^{\,i-1} \qquad (0 \text{ when all are judged})",
    # recommender: L_u the top-k list of user u, U the users, C the catalog
    "recommender.catalog_coverage": r"\frac{\big|\bigcup_{u \in U} L_u \cap C\big|}{|C|}",
    "recommender.shannon_entropy": r"H = -\sum_{i} p(i) \log_{b} p(i), \qquad"
    r" p(i) = \frac{c_i}{\sum_j c_j}, \ c_i = |\{u : i \in L_u\}|",
    "recommender.gini_index": r"\frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}"
    r"{n \sum_{j} c_{j}}, \qquad c_{(1)} \le \dots \le c_{(n)}",
    "recommender.user_coverage": r"\frac{|\{u \in U : |L_u| \ge 1\}|}{|U|}",
    "recommender.novelty": r"\frac{1}{|L_u|}\sum_{i \in L_u} -\log_2 p(i), \qquad"
    r" p(i) = \frac{\mathrm{pop}(i)}{\sum_j \mathrm{pop}(j)} \text{ or }"
    r" \frac{\mathrm{pop}(i)}{|U|}",
    "recommender.average_popularity": r"\frac{1}{|L_u|}\sum_{i \in L_u} \mathrm{pop}(i)",
    "recommender.long_tail_share": r"\frac{|\{i \in L_u : i \in T\}|}{|L_u|}, \qquad"
    r" T = \text{items outside the } \lfloor h \cdot n \rfloor \text{ most popular}",
    "recommender.intra_list_diversity": r"1 - \frac{\sum_{i<j \in L_u} \mathrm{sim}(i,j)}"
    r"{\binom{n}{2}}, \qquad n = |L_u| \ge 2",
    "recommender.serendipity": r"\frac{1}{|L_u|}\sum_{i \in L_u} \Big(1 - \frac{1}{|H_u|}"
    r" \sum_{j \in H_u} \mathrm{sim}(i, j)\Big) \mathrm{gain}_i",
    # classification: y_i the label, s_i (p_i) the score, t the threshold
    "classification.roc_auc": r"\mathrm{AUC} = \frac{1}{P N}\sum_{i:\,y_i=1}\sum_{j:\,y_j=0}"
    r" \Big([s_i > s_j] + \tfrac{1}{2}[s_i = s_j]\Big)",
    "classification.group_auc": r"\mathrm{GAUC} = \frac{\sum_g n_g \, \mathrm{AUC}_g}"
    r"{\sum_g n_g}",
    "classification.log_loss": r"-\frac{1}{n}\sum_{i=1}^{n} \big(y_i \ln p_i"
    r" + (1 - y_i) \ln(1 - p_i)\big), \qquad p_i \in [\varepsilon, 1 - \varepsilon],"
    r" \ \varepsilon = 2^{-52}",
    "classification.brier_score": r"\frac{1}{n}\sum_{i=1}^{n} (p_i - y_i)^2",
    "classification.normalized_entropy": r"\mathrm{NE} = \frac{\mathrm{LogLoss}}"
    r"{-\big(r \ln r + (1 - r) \ln(1 - r)\big)}, \qquad r = \frac{1}{n}\sum_i y_i",
    "classification.calibration": r"\frac{\sum_i p_i}{\sum_i y_i}",
    "classification.average_precision": r"\mathrm{AP} = \sum_{k} (R_k - R_{k-1})\, P_k",
    "classification.accuracy": r"\frac{TP + TN}{n}",
    "classification.precision": r"\frac{TP}{TP + FP}",
    "classification.recall": r"\frac{TP}{TP + FN}",
    "classification.f1": r"F_1 = \frac{2\,TP}{2\,TP + FP + FN}",
    "classification.fbeta": r"F_\beta = \frac{(1 + \beta^2)\, TP}"
    r"{\beta^2 (TP + FN) + TP + FP}",
    "classification.specificity": r"\frac{TN}{TN + FP}",
    "classification.tp": r"TP = |\{i : y_i = 1,\ s_i \ge t\}|",
    "classification.fp": r"FP = |\{i : y_i = 0,\ s_i \ge t\}|",
    "classification.tn": r"TN = |\{i : y_i = 0,\ s_i < t\}|",
    "classification.fn": r"FN = |\{i : y_i = 1,\ s_i < t\}|",
    # rating: over the n pairs with a rating y_i and a prediction ŷ_i, weights w_i (1 without)
    "rating.rmse": r"\sqrt{\frac{\sum_i w_i (y_i - \hat y_i)^2}{\sum_i w_i}}",
    "rating.mse": r"\frac{\sum_i w_i (y_i - \hat y_i)^2}{\sum_i w_i}",
    "rating.mae": r"\frac{\sum_i w_i \lvert y_i - \hat y_i \rvert}{\sum_i w_i}",
    "rating.r2": r"R^2 = 1 - \frac{\sum_i w_i (y_i - \hat y_i)^2}{\sum_i w_i (y_i - \bar y)^2},"
    r" \qquad \bar y = \frac{\sum_i w_i y_i}{\sum_i w_i}",
    "rating.explained_variance": r"1 - \frac{\mathrm{Var}_w(y - \hat y)}{\mathrm{Var}_w(y)},"
    r" \qquad \mathrm{Var}_w(x) = \frac{\sum_i w_i (x_i - \bar x)^2}{\sum_i w_i}",
    "rating.max_error": r"\max_i \lvert y_i - \hat y_i \rvert",
    "rating.mape": r"\frac{1}{\sum_i w_i}\sum_i w_i \frac{\lvert y_i - \hat y_i \rvert}"
    r"{\max(\lvert y_i \rvert, \varepsilon)}, \qquad \varepsilon = 2^{-52}",
    # diversity: g(i) = Σ_s J(d_i, s)(1 − α)^{c_s(i)}, N the subtopics with a relevant document,
    # the primed sums over ndeval's greedy ideal ranking
    "diversity.alpha_ndcg": r"\frac{\sum_{i \le k} g(i) / \log_2(i+1)}"
    r"{\sum_{i \le k} g'(i) / \log_2(i+1)}",
    "diversity.alpha_dcg": r"\frac{\sum_{i \le k} g(i) / \log_2(i+1)}"
    r"{N \sum_{i \le k} (1-\alpha)^{i-1} / \log_2(i+1)}",
    "diversity.err_ia": r"\frac{\sum_{i \le k} g(i) / i}{N \sum_{i \le k} (1-\alpha)^{i-1} / i}",
    "diversity.nerr_ia": r"\frac{\sum_{i \le k} g(i) / i}{\sum_{i \le k} g'(i) / i}",
    "diversity.nrbp": r"\frac{1 - (1-\alpha)\beta}{N} \sum_i \beta^{i-1} g(i)",
    "diversity.nnrbp": r"\frac{\sum_i \beta^{i-1} g(i)}{\sum_i \beta^{i-1} g'(i)}",
    "diversity.p_ia": r"\frac{1}{N k} \sum_s \lvert \{i \le k : J(d_i, s) = 1\} \rvert",
    "diversity.subtopic_recall": r"\frac{\lvert \{s : \exists\, i \le k,\ J(d_i, s) = 1\}"
    r" \rvert}{N}",
}

#: When a user would pick each metric: one sentence, shown first on its card
PURPOSES: dict[str, str] = {
    # ranking
    "ranking.precision": "How much of what the user sees first is relevant: pick it when only"
    " the top k matter, as on a results page of fixed size.",
    "ranking.recall": "How much of everything relevant the top k found: pick it for a first"
    " stage (candidate retrieval) that a reranker reads after.",
    "ranking.recall_cap": "Recall that can reach 1 when a query has more relevant documents"
    " than k: pick it to compare queries with many relevant documents (BEIR).",
    "ranking.hit_rate": "Whether the top k holds anything relevant at all: pick it for"
    " question answering or recommendation where one good answer is enough.",
    "ranking.hits": "The count of relevant documents in the top k: a raw number to sum or to"
    " build other ratios from.",
    "ranking.reciprocal_rank": "How far the user scrolls to the first relevant document: pick"
    " it (its mean is MRR) for known-item search or one-answer tasks.",
    "ranking.average_precision": "Precision at every relevant document, so both finding them"
    " all and ranking them early count: the standard single number of TREC (MAP).",
    "ranking.gm_map": "MAP that stresses the hard queries (a geometric mean): pick it to see"
    " whether a system improves the queries that fail, as in TREC's Robust track.",
    "ranking.ndcg": "Graded relevance with a discount by rank, normalised per query: pick it"
    " when judgments have grades (web search, MS MARCO, BEIR).",
    "ranking.dcg": "nDCG's numerator, not normalised: pick it when the scale of the gains"
    " matters across queries, or to check nDCG by hand.",
    "ranking.ideal_dcg": "The best DCG any ranking could reach for the query: nDCG's"
    " denominator, to see how much there was to find.",
    "ranking.r_precision": "Precision at the query's own depth R: pick it to compare queries"
    " with very different numbers of relevant documents without choosing a k.",
    "ranking.bpref": "A measure that skips unjudged documents: pick it when the judgments are"
    " incomplete and new systems retrieve many unjudged documents.",
    "ranking.f1": "The harmonic mean of P@k and R@k: pick it when the top k should be both"
    " clean and complete.",
    "ranking.judged_fraction": "How much of the top k was judged: read it beside any other"
    " metric to know how far unjudged documents may have pulled it down.",
    "ranking.fallout": "The share of the judged non-relevant documents that reach the top k:"
    " the false-positive rate of a cut-off list, lower is better.",
    "ranking.query_auc": "How well the top k orders relevant documents above the others,"
    " whatever their positions: a per-query ROC AUC, as torchmetrics' RetrievalAUROC.",
    "ranking.unjudged": "The share of the top k without a usable judgment (trec_eval's unj):"
    " the complement of Judged, with trec_eval's denominator k.",
    "ranking.num_ret": "How many documents the run retrieved: a sanity check of a run file"
    " (truncated runs, missing queries).",
    "ranking.num_rel": "How many relevant documents the judgments hold: a sanity check of the"
    " qrels and of the relevance level.",
    "ranking.num_rel_ret": "How many relevant documents the run found, over all queries:"
    " the numerator of recall over the whole set.",
    "ranking.num_nonrel_judged_ret": "How many retrieved documents were judged not relevant:"
    " with NumRelRet, how much of the retrieved set the judgments cover.",
    "ranking.num_q": "How many queries were evaluated: check it against the number you"
    " expected before reading any mean.",
    "ranking.set_precision": "Precision of the whole retrieved set, without a cutoff: pick it"
    " for a filter or a boolean search that returns a set.",
    "ranking.set_recall": "Recall of the whole retrieved set: pick it for a set-returning"
    " system, or a candidate stage with a fixed budget.",
    "ranking.set_f": "Precision and recall of the retrieved set in one number, trec_eval's"
    " way (β not squared): pick it for set retrieval.",
    "ranking.iprec_at_recall": "The best precision once a given share of the relevant"
    " documents is found: one point of the interpolated precision-recall curve.",
    "ranking.eleven_pt_avg": "The interpolated precision-recall curve in one number (eleven"
    " recall points): for comparisons with older TREC results.",
    "ranking.err": "A user who stops at the first satisfying document: pick it for graded"
    " web search where one highly relevant result ends the search.",
    "ranking.rbp": "A user who goes on to the next document with probability p: pick it"
    " when the depth a user reads is better modelled than a cutoff.",
    "ranking.rbp_residual": "How much RBP could still rise if the unjudged documents were"
    " relevant: report it beside RBP when judgments are incomplete.",
    # trec_eval
    "trec_eval.relevance_string": "The grades of the top documents as one string: to see at"
    " a glance what a query's ranking looks like while debugging.",
    "trec_eval.inferred_ap": "AP estimated from sampled judgments: pick it when the qrels"
    " judge a random sample of the pool (TREC's infAP tracks).",
    "trec_eval.gm_bpref": "bpref with a geometric mean over queries: stresses the queries"
    " that fail, under incomplete judgments.",
    "trec_eval.yaap": "Yet another AP, on a log-odds scale that spreads out low and high"
    " values: for comparisons with trec_eval's yaap.",
    "trec_eval.r_precision_multiple": "Precision at a multiple of R: R-precision at a"
    " deeper or shallower depth that still adapts to each query.",
    "trec_eval.utility": "A payoff per relevant and non-relevant document, retrieved or"
    " missed: pick it for filtering tasks with known costs (TREC Filtering).",
    "trec_eval.binary_g": "A gain measure for binary judgments whose discount counts the"
    " non-relevant documents read so far: for comparisons with trec_eval's binG.",
    "trec_eval.normalized_gain": "A cumulated gain whose discount grows with the cost of"
    " what was read: for comparisons with trec_eval's G.",
    "trec_eval.ndcg_rel": "nDCG averaged at each relevant document's rank: how good the"
    " ranking is at the points where relevant documents appear.",
    "trec_eval.r_ndcg": "nDCG averaged at the depths where the ideal gain changes: a"
    " cutoff-free nDCG that adapts to each query's judgments.",
    "trec_eval.set_relative_precision": "Precision of the retrieved set relative to the best"
    " a set of its size could reach: fair to queries with few relevant documents.",
    "trec_eval.set_average_precision": "Set precision times set recall: one number for a"
    " retrieved set, with trec_eval's definition.",
    "trec_eval.trec_rbp": "Rank-biased precision as trec_eval computes it (gains rescaled"
    " per query): for numbers comparable with trec_eval's rbp.",
    "trec_eval.trec_rbp_residual": "trec_eval's RBP residual: the weight left to unjudged"
    " and unretrieved documents, beside trec_rbp.",
    # recommender
    "recommender.catalog_coverage": "How much of the catalog any user gets recommended: pick"
    " it to see whether a recommender shows only a small part of its items.",
    "recommender.shannon_entropy": "How evenly recommendations spread over items: higher"
    " when many items are shown about equally often.",
    "recommender.gini_index": "How unequal the exposure of items is (0 equal, 1 one item"
    " takes all): pick it to track popularity bias.",
    "recommender.user_coverage": "The share of users who get anything (relevant) in their"
    " top k: pick it to find the users a recommender fails entirely.",
    "recommender.novelty": "How unpopular, so how new to the user, recommended items are:"
    " higher when the list avoids what everyone already sees.",
    "recommender.average_popularity": "The mean popularity of the recommended items: lower"
    " is less popularity bias; compare it with the training data's.",
    "recommender.long_tail_share": "The share of recommendations from the long tail: pick it"
    " to check that less popular items get shown at all.",
    "recommender.intra_list_diversity": "How different the items of one list are from each"
    " other: pick it when a list of near-duplicates is a failure.",
    "recommender.serendipity": "Relevant items unlike the user's history: pick it to reward"
    " recommendations that are both good and unexpected.",
    # classification
    "classification.roc_auc": "How well scores rank positives above negatives, at no"
    " threshold: the usual number for click or conversion models.",
    "classification.group_auc": "AUC within each user (or other group), averaged: pick it"
    " when only the ranking within a user's impressions matters (DIN's GAUC).",
    "classification.log_loss": "How good the predicted probabilities are, not only their"
    " order: pick it when the scores are used as probabilities (bidding, pricing).",
    "classification.brier_score": "The mean squared error of the probabilities: a bounded"
    " alternative to log loss, less harsh on confident mistakes.",
    "classification.normalized_entropy": "Log loss relative to always predicting the base"
    " rate: comparable across data sets with different click rates (Facebook's NE).",
    "classification.calibration": "Predicted over observed positives: 1 when the model's"
    " probabilities are right on average; check it before using them as rates.",
    "classification.average_precision": "The area under the precision-recall curve:"
    " pick it over AUC when positives are rare.",
    "classification.accuracy": "The share of rows classified right at a threshold: for"
    " balanced classes only.",
    "classification.precision": "Of the rows predicted positive, the share that are:"
    " pick it when a false alarm is costly.",
    "classification.recall": "Of the positive rows, the share predicted positive: pick it"
    " when a miss is costly.",
    "classification.f1": "Precision and recall at a threshold in one number: for a"
    " decision with rare positives.",
    "classification.fbeta": "F1 with recall weighted β times as much as precision: F2 when"
    " misses cost more than false alarms.",
    "classification.specificity": "Of the negative rows, the share predicted negative: the"
    " recall of the negatives.",
    "classification.tp": "The count of true positives at a threshold: to build any other"
    " rate, or to check a confusion matrix.",
    "classification.fp": "The count of false positives at a threshold: the false alarms.",
    "classification.tn": "The count of true negatives at a threshold.",
    "classification.fn": "The count of false negatives at a threshold: the misses.",
    # rating
    "rating.rmse": "The typical size of a rating error, large errors weighing more: the"
    " usual number for explicit-feedback recommenders.",
    "rating.mse": "The squared error itself: pick it when the loss a model was trained on is"
    " the number to report.",
    "rating.mae": "The average size of a rating error in rating units: less swayed by a few"
    " large misses than RMSE.",
    "rating.r2": "The share of the ratings' variance the predictions explain: 1 is perfect,"
    " 0 is no better than predicting the mean rating.",
    "rating.explained_variance": "R² that forgives a constant offset: pick it to judge how"
    " well predictions follow the ratings up to a shift.",
    "rating.max_error": "The worst single miss: pick it when one badly wrong rating matters.",
    "rating.mape": "The error relative to the rating: pick it when ratings differ in scale"
    " (a fraction, not a percentage).",
    # diversity
    "diversity.alpha_ndcg": "How well the top k covers a query's intents, each new one"
    " counting more than a repeat: the TREC Web track's main diversity number.",
    "diversity.alpha_dcg": "alpha-nDCG's sum on ndeval's fixed scale rather than over the"
    " ideal ranking: comparable across runs without the greedy ideal.",
    "diversity.err_ia": "The chance a user of a random intent finds what they want, early:"
    " ERR averaged over intents.",
    "diversity.nerr_ia": "ERR-IA over the ideal ranking's: 1 when the run orders intents as"
    " well as the greedy ideal.",
    "diversity.nrbp": "Intent coverage of the whole ranking, with a patient user (β) and"
    " a redundancy penalty (α).",
    "diversity.nnrbp": "NRBP over the ideal ranking's: the whole ranking's coverage on a"
    " 0-to-1 scale.",
    "diversity.p_ia": "Precision averaged over the intents: how much of the top k is relevant"
    " to each intent.",
    "diversity.subtopic_recall": "How many of the query's intents the top k reaches at least once.",
}

# ------------------------------------------------------------------------------------------
# worked examples

#: ``(user, label, score)`` of the classification example, one row each
EXAMPLE_PREDICTIONS = [("u1", 1, 0.9), ("u1", 0, 0.6), ("u1", 1, 0.4), ("u2", 0, 0.2)]

#: the recommender example: ``(user, item, score)`` of the top-2 lists, the training
#: history ``(user, item)``, the catalog, the item vectors and the test judgments
EXAMPLE_RECOMMENDATIONS = [("u1", "a", 2.0), ("u1", "b", 1.0), ("u2", "a", 2.0), ("u2", "c", 1.0)]
EXAMPLE_HISTORY = [("u1", "a"), ("u2", "a"), ("u2", "b"), ("u3", "c"), ("u4", "c"), ("u5", "c")]
EXAMPLE_ITEMS = ["a", "b", "c", "d"]
EXAMPLE_VECTORS = [("a", [1.0, 0.0]), ("b", [0.0, 1.0]), ("c", [1.0, 1.0]), ("d", [0.0, 1.0])]
EXAMPLE_TEST = [("u1", "b"), ("u2", "d")]

#: ``(user, item, rating, prediction)`` of the rating example, one pair each
EXAMPLE_RATINGS = [("u1", "a", 4.0, 3.0), ("u1", "b", 2.0, 2.5), ("u2", "a", 5.0, 3.0)]

#: ``(doc, subtopic)`` of the diversity example's relevant judgments (the ranking example's
#: run, d6 not retrieved)
EXAMPLE_SUBTOPICS = [("d2", "s1"), ("d2", "s2"), ("d4", "s1"), ("d6", "s3")]

#: A metric worked by hand: on the ranking example (ranking and trec_eval entries) or the
#: classification example (classification entries)
EXAMPLES: dict[str, Example] = {
    "ranking.precision": Example(
        "P@5", "2/5", "0.4", "the relevant documents in the top 5 are d2 and d4"
    ),
    "ranking.recall": Example(
        "R@5", "2/3", "0.6666666666666666", "2 of the R = 3 relevant (d2, d4, d6) in the top 5"
    ),
    "ranking.recall_cap": Example(
        "Rcap@5", "2/min(5, 3)", "0.6666666666666666", "2 relevant in the top 5, R = 3"
    ),
    "ranking.hit_rate": Example(
        "Success@1", "0", "0.0", "d1 at rank 1 is judged, grade 0: not relevant"
    ),
    "ranking.hits": Example("hits@5", "2", "2.0", "d2 and d4"),
    "ranking.reciprocal_rank": Example(
        "RR", "1/2", "0.5", "the first relevant document, d2, is at rank 2"
    ),
    "ranking.average_precision": Example(
        "AP",
        "(1/2 + 2/4) / 3",
        "0.3333333333333333",
        "P@2 = 1/2 at d2, P@4 = 2/4 at d4; d6, never retrieved, counts in R = 3",
    ),
    "ranking.gm_map": Example(
        "gm_map",
        "math.exp(math.log(max((1/2 + 2/4) / 3, 1e-5)))",
        "0.3333333333333333",
        "one query: the geometric mean of its AP is its AP",
    ),
    "ranking.ndcg": Example(
        "nDCG@5",
        "(2/math.log2(3) + 1/math.log2(5)) / (2/math.log2(2) + 1/math.log2(3) + 1/math.log2(4))",
        "0.5405857679450102",
        "DCG: gain 2 (d2) at rank 2, gain 1 (d4) at rank 4; IDCG: the judged grades"
        " 2, 1, 1 (d2, d4, d6; d6 unretrieved counts) at ranks 1 to 3",
    ),
    "ranking.dcg": Example(
        "DCG@5",
        "2/math.log2(3) + 1/math.log2(5)",
        "1.692536065216308",
        "gain 2 (d2) at rank 2, gain 1 (d4) at rank 4; grade 0 and unjudged gain 0",
    ),
    "ranking.ideal_dcg": Example(
        "IDCG",
        "2/math.log2(2) + 1/math.log2(3) + 1/math.log2(4)",
        "3.1309297535714573",
        "the judged grades 2, 1, 1 (d2, d4, d6) best first",
    ),
    "ranking.r_precision": Example(
        "Rprec", "1/3", "0.3333333333333333", "the top R = 3 are d1, d2, d3: only d2 relevant"
    ),
    "ranking.bpref": Example(
        "bpref",
        "((1 - 1/2) + (1 - 1/2)) / 3",
        "0.3333333333333333",
        "N = 2 judged non-relevant (d1, d5); above d2 and above d4 one of them (d1),"
        " min(1, 3)/min(2, 3) = 1/2; the unjudged d3 is skipped",
    ),
    "ranking.f1": Example("F1@5", "2 * (2/5) * (2/3) / (2/5 + 2/3)", "0.5", "P@5 = 2/5, R@5 = 2/3"),
    "ranking.judged_fraction": Example(
        "Judged@5", "4/5", "0.8", "d3 is the one unjudged document of the top 5"
    ),
    "ranking.fallout": Example(
        "fallout@3", "1/2", "0.5", "d1 is in the top 3; d5, the other grade 0, is at rank 5"
    ),
    "ranking.query_auc": Example(
        "query_auc@5",
        "(2 * 3 - (2 + 4 - 2 * 3 / 2)) / (2 * 3)",
        "0.5",
        "P = 2 relevant (d2, d4 at ranks 2 and 4), M = 3 others (d1, d3, d5): of the 6 pairs,"
        " d2 wins 2 (d3, d5) and d4 wins 1 (d5)",
    ),
    "ranking.unjudged": Example("unj@5", "1/5", "0.2", "d3 is unjudged"),
    "ranking.num_ret": Example("NumRet", "5", "5.0", "d1 to d5"),
    "ranking.num_rel": Example("NumRel", "3", "3.0", "d2, d4, d6 (grade ≥ 1)"),
    "ranking.num_rel_ret": Example("NumRelRet", "2", "2.0", "d2, d4"),
    "ranking.num_nonrel_judged_ret": Example(
        "num_nonrel_judged_ret", "2", "2.0", "d1, d5 (grade 0); d3 is unjudged"
    ),
    "ranking.num_q": Example("NumQ", "1", "1.0", "q1"),
    "ranking.set_precision": Example("SetP", "2/5", "0.4", "2 relevant of 5 retrieved"),
    "ranking.set_recall": Example("SetR", "2/3", "0.6666666666666666", "2 of R = 3 retrieved"),
    "ranking.set_f": Example("SetF", "(1 + 1) * (2/5) * (2/3) / (1 * (2/5) + 2/3)", "0.5", "β = 1"),
    "ranking.iprec_at_recall": Example(
        "IPrec@0.5",
        "max(2/4, 2/5)",
        "0.5",
        "c = lround(0.5 · 3) = 2: the 2nd relevant is d4 at rank 4; P@4 = 2/4, P@5 = 2/5",
    ),
    "ranking.eleven_pt_avg": Example(
        "11pt_avg",
        "(9 * (1/2) + 2 * 0) / 11",
        "0.4090909090909091",
        "c = lround(x · 3) is 0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3 at x = 0, 0.1, …, 1: IPrec is"
        " 1/2 while c ≤ 2 (P@2 = P@4 = 1/2), 0 at c = 3 (d6 is never retrieved)",
    ),
    "ranking.err": Example(
        "ERR",
        "(3/16) / 2 + (1/16) / 4 * (1 - 3/16)",
        "0.1064453125",
        "max_grade 4: R(2) = 3/16 (d2, rank 2), R(1) = 1/16 (d4, rank 4, after d2 did not"
        " satisfy); grade 0 and unjudged give 0",
    ),
    "ranking.rbp": Example(
        "RBP",
        "(1 - 0.8) * (2 * 0.8**1 + 1 * 0.8**3)",
        "0.42239999999999994",
        "p = 0.8, gain the grade: 2 at rank 2, 1 at rank 4",
    ),
    "ranking.rbp_residual": Example(
        "RBP_residual",
        "(1 - 0.8) * 0.8**2 + 0.8**5",
        "0.45568000000000003",
        "the unjudged d3 at rank 3, then everything below rank d = 5",
    ),
    "trec_eval.relevance_string": Example(
        "relstring",
        '"0" + "2" + "-" + "1" + "0"',
        "02-10",
        "the grades of d1 to d5 in rank order, d3 unjudged; d6, not retrieved, is not in it",
        "per_query=True",
    ),
    "trec_eval.normalized_gain": Example(
        "G",
        "(2 / math.log2(2 + 3 - 2) + 1 / math.log2(2 + (4 + 1) - 3)) / (2 + 1 + 1)",
        "0.4404648767857287",
        "the ideal gains 2, 1, 1 cost C = 2, 3, 4 through position 3, then 1 a rank; d2 at"
        " rank 2: C = 3, S = 2; d4 at rank 4: C = 4 + 1, S = 2 + 1",
    ),
    "trec_eval.inferred_ap": Example(
        "infAP",
        "(1/2 + (1/2) * (1/1) * (1e-5 / (1 + 2e-5))"
        " + 1/4 + (3/4) * (2/3) * ((1 + 1e-5) / (2 + 2e-5))) / 3",
        "0.3333349999666673",
        "d2 at rank 2 (j = 1; above: n = 1), d4 at rank 4 (j = 3; above: r = 1, n = 1; the"
        " unjudged d3 is not counted)",
    ),
    "trec_eval.gm_bpref": Example(
        "gm_bpref", "((1 - 1/2) + (1 - 1/2)) / 3", "0.3333333333333333", "one query: its bpref"
    ),
    "trec_eval.yaap": Example(
        "yaap",
        "math.log((1 + (1/2 + 2/4)) / (1 + 3 - (1/2 + 2/4)))",
        "-0.40546510810816444",
        "S = P@2 + P@4 = 1/2 + 2/4, R = 3",
    ),
    "trec_eval.r_precision_multiple": Example(
        "Rprec_mult", "1/3", "0.3333333333333333", "c = ⌊1 · 3 + 0.9⌋ = 3: d2 in the top 3"
    ),
    "trec_eval.utility": Example(
        "utility",
        "1 * 2 + (-1) * 3 + 0 * 1 + 0 * (0 + 2 - 5 - 3)",
        "-1.0",
        "a = 2 relevant retrieved, b = 3 others retrieved, c = 1 relevant missed (d6)",
    ),
    "trec_eval.binary_g": Example(
        "binG",
        "(1/math.log2(2 + 1) + 1/math.log2(2 + 2)) / 3",
        "0.3769765845238191",
        "above d2: d1; above d4: d1 and the unjudged d3",
    ),
    "trec_eval.ndcg_rel": Example(
        "ndcg_rel",
        "(2/math.log2(3) / (2 + 1/math.log2(3))"
        " + (2/math.log2(3) + 1/math.log2(5)) / (2 + 1/math.log2(3) + 1/math.log2(4))"
        " + (2/math.log2(3) + 1/math.log2(5)) / (2 + 1/math.log2(3) + 1/math.log2(4))) / 3",
        "0.5202654896754279",
        "nDCG at d2's rank 2 and d4's rank 4; d6, missed, scores the final DCG / IDCG",
    ),
    "trec_eval.r_ndcg": Example(
        "Rndcg",
        "(0 / 2 + (2/math.log2(3)) / (2 + 1/math.log2(3) + 1/math.log2(4))"
        " + (2/math.log2(3) + 1/math.log2(5)) / (2 + 1/math.log2(3) + 1/math.log2(4))) / 3",
        "0.3145386839153384",
        "the ideal gains 2, 1, 1 end their runs at ranks 1 and 3; then rank n = 5",
    ),
    "trec_eval.set_relative_precision": Example(
        "set_relative_P", "2/min(5, 3)", "0.6666666666666666", "2 relevant retrieved"
    ),
    "trec_eval.set_average_precision": Example(
        "SetAP", "2**2 / (5 * 3)", "0.26666666666666666", "2 relevant of 5 retrieved, R = 3"
    ),
    "trec_eval.trec_rbp": Example(
        "trec_rbp",
        "(1 - 0.9) * (2/2 * 0.9**1 + 1/2 * 0.9**3)",
        "0.12644999999999998",
        "p = 0.9; a grade lies above 1, so the gains are rescaled to [0, 1]: grade / 2",
    ),
    "trec_eval.trec_rbp_residual": Example(
        "trec_rbp_resid",
        "0.9**5 + (1 - 0.9) * 0.9**2",
        "0.6714900000000001",
        "p^5 past the 5 retrieved, and the unjudged d3 at rank 3",
    ),
    # the recommender example: u1 gets a, b; u2 gets a, c; popularity a 2, b 1, c 3, d 0
    "recommender.catalog_coverage": Example(
        "coverage@2", "3/4", "0.75", "a, b, c of the 4 catalog items"
    ),
    "recommender.shannon_entropy": Example(
        "entropy@2",
        "-(2/4 * math.log2(2/4) + 1/4 * math.log2(1/4) + 1/4 * math.log2(1/4))",
        "1.5",
        "a twice, b and c once, in the 4 recommendations",
    ),
    "recommender.gini_index": Example(
        "gini@2",
        "((2*1 - 4 - 1) * 0 + (2*2 - 4 - 1) * 1 + (2*3 - 4 - 1) * 1 + (2*4 - 4 - 1) * 2) / (4 * 4)",
        "0.375",
        "the counts in ascending order: d 0, b 1, c 1, a 2",
    ),
    "recommender.user_coverage": Example("user_coverage@2", "2/2", "1.0", "both users get a list"),
    "recommender.novelty": Example(
        "novelty@2",
        "((-math.log2(2/6) - math.log2(1/6)) / 2 + (-math.log2(2/6) - math.log2(3/6)) / 2) / 2",
        "1.688721875540867",
        "p = popularity / 6 (users: a 2, b 1, c 3); the mean over u1 (a, b) and u2 (a, c)",
    ),
    "recommender.average_popularity": Example(
        "arp@2", "((2 + 1) / 2 + (2 + 3) / 2) / 2", "2.0", "a 2, b 1, c 3 users"
    ),
    "recommender.long_tail_share": Example(
        "aplt@2",
        "(2/2 + 2/2) / 2",
        "1.0",
        "3 items have interactions, the head is the ⌊0.2 · 3⌋ = 0 most popular: all tail",
    ),
    "recommender.intra_list_diversity": Example(
        "ild@2",
        "((1 - 0) + (1 - 1/math.sqrt(2))) / 2",
        "0.6464466094067263",
        "cos(a, b) = 0 for u1, cos(a, c) = 1/√2 for u2",
    ),
    "recommender.serendipity": Example(
        "serendipity@2",
        "(((1 - 1) * 0 + (1 - 0) * 1) / 2 + ((1 - 1) * 0 + (1 - 1/math.sqrt(2)) * 0) / 2) / 2",
        "0.25",
        "u1's history a: b (relevant) has cos(b, a) = 0; u2's history a, b: nothing relevant"
        " recommended",
    ),
    # the classification example: labels 1, 0, 1, 0 with scores 0.9, 0.6, 0.4, 0.2 (users
    # u1, u1, u1, u2)
    "classification.roc_auc": Example(
        "AUC",
        "(1 + 1 + 0 + 1) / (2 * 2)",
        "0.75",
        "pairs (positive, negative): 0.9 > 0.6, 0.9 > 0.2, 0.4 < 0.6, 0.4 > 0.2",
    ),
    "classification.group_auc": Example(
        "GAUC",
        "(3 * (1 + 0) / (2 * 1)) / 3",
        "0.5",
        "u1's AUC: 0.9 > 0.6, 0.4 < 0.6, weighted by its 3 rows; u2 has no positive, so it"
        " is left out",
        'group="user"',
    ),
    "classification.log_loss": Example(
        "LogLoss",
        "-(math.log(0.9) + math.log(1 - 0.6) + math.log(0.4) + math.log(1 - 0.2)) / 4",
        "0.5402713826800865",
        "−ln p for the positives, −ln(1 − p) for the negatives",
    ),
    "classification.brier_score": Example(
        "Brier", "((0.9 - 1)**2 + 0.6**2 + (0.4 - 1)**2 + 0.2**2) / 4", "0.1925", ""
    ),
    "classification.normalized_entropy": Example(
        "NE",
        "-(math.log(0.9) + math.log(0.4) + math.log(0.4) + math.log(0.8)) / 4"
        " / -(0.5 * math.log(0.5) + 0.5 * math.log(0.5))",
        "0.7794468445267841",
        "the log loss over the entropy of the base rate r = 2/4",
    ),
    "classification.calibration": Example(
        "calibration", "(0.9 + 0.6 + 0.4 + 0.2) / 2", "1.05", "Σ p over the 2 positives"
    ),
    "classification.average_precision": Example(
        "AP",
        "(1/1 + 2/3) / 2",
        "0.8333333333333333",
        "the positives at 0.9 (1 of 1 rows with score ≥ 0.9) and 0.4 (2 of 3)",
    ),
    "classification.accuracy": Example(
        "accuracy", "(1 + 1) / 4", "0.5", "threshold 0.5: predicted 1, 1, 0, 0"
    ),
    "classification.precision": Example("precision", "1 / (1 + 1)", "0.5", "TP 0.9, FP 0.6"),
    "classification.recall": Example("recall", "1 / (1 + 1)", "0.5", "TP 0.9, FN 0.4"),
    "classification.f1": Example("F1", "2 * 1 / (2 * 1 + 1 + 1)", "0.5", "TP = FP = FN = 1"),
    "classification.fbeta": Example(
        "Fbeta(beta=2)", "(1 + 2**2) * 1 / (2**2 * (1 + 1) + 1 + 1)", "0.5", "β = 2"
    ),
    "classification.specificity": Example("specificity", "1 / (1 + 1)", "0.5", "TN 0.2, FP 0.6"),
    "classification.tp": Example("TP", "1", "1", "label 1, score 0.9 ≥ 0.5"),
    "classification.fp": Example("FP", "1", "1", "label 0, score 0.6 ≥ 0.5"),
    "classification.tn": Example("TN", "1", "1", "label 0, score 0.2 < 0.5"),
    "classification.fn": Example("FN", "1", "1", "label 1, score 0.4 < 0.5"),
    # the rating example: ratings 4, 2, 5 predicted 3, 2.5, 3: errors 1, −0.5, 2
    "rating.rmse": Example(
        "RMSE", "math.sqrt((1**2 + 0.5**2 + 2**2) / 3)", "1.3228756555322954", "errors 1, −0.5, 2"
    ),
    "rating.mse": Example("MSE", "(1**2 + 0.5**2 + 2**2) / 3", "1.75", "errors 1, −0.5, 2"),
    "rating.mae": Example("MAE", "(1 + 0.5 + 2) / 3", "1.1666666666666667", "errors 1, −0.5, 2"),
    "rating.r2": Example(
        "R2",
        "1 - (1**2 + 0.5**2 + 2**2) / ((4 - 11/3)**2 + (2 - 11/3)**2 + (5 - 11/3)**2)",
        "-0.12500000000000022",
        "the mean rating is 11/3: the errors are larger than the ratings' spread (= −1/8;"
        " scikit-learn prints the same rounding)",
    ),
    "rating.explained_variance": Example(
        "explained_variance",
        "1 - ((1 - 2.5/3)**2 + (-0.5 - 2.5/3)**2 + (2 - 2.5/3)**2)"
        " / ((4 - 11/3)**2 + (2 - 11/3)**2 + (5 - 11/3)**2)",
        "0.3214285714285713",
        "the errors' mean 2.5/3 is taken out: what is left of their variance over the ratings'",
    ),
    "rating.max_error": Example("max_error", "2", "2.0", "rating 5 predicted 3"),
    "rating.mape": Example("MAPE", "(1/4 + 0.5/2 + 2/5) / 3", "0.3", "each error over its rating"),
    "diversity.subtopic_recall": Example(
        "strec@5", "2/3", "0.6666666666666666", "d2 covers s1 and s2; s3 (d6) is not in the top 5"
    ),
    "diversity.p_ia": Example(
        "P-IA@5",
        "(2 + 1)/(3*5)",
        "0.2",
        "d2 is relevant to two subtopics, d4 to one: 3 hits over N·k",
    ),
    "diversity.nrbp": Example(
        "NRBP",
        "(1 - 0.5*0.5) * (0.5**1 * 2 + 0.5**3 * 0.5) / 3",
        "0.265625",
        "g(2) = 2 (s1 and s2 new), g(4) = (1 − α)^1 = 0.5 (s1 seen once), β^(i−1) at ranks 2 and 4",
    ),
    "diversity.alpha_dcg": Example(
        "alpha-DCG@5",
        "(2/math.log2(3) + 0.5/math.log2(5))"
        " / (3*(1 + 0.5/math.log2(3) + 0.25/2 + 0.125/math.log2(5) + 0.0625/math.log2(6)))",
        "0.32427163521733404",
        "NRBP's gains at ranks 2 and 4, over N times the DCG of a ranking of new documents,"
        " Σ_(i≤5) (1 − α)^(i−1)/log2(i+1)",
    ),
}
