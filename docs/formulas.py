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
    the terms are."""

    metric: str
    arithmetic: str
    value: str
    why: str


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
    r" \mathrm{rel}_i \, P@i, \qquad D = R \ (\text{trec\_eval}) \text{ or } \min(k, R)",
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
    "trec_eval.utility": r"p_1 a + p_2 b + p_3 c + p_4 d, \qquad d = \text{collection\_size}"
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
}
