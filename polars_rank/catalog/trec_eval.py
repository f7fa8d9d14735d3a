"""trec_eval's other measures (:mod:`polars_rank.ranking.trec_metrics`): relstring, infAP,
yaap, utility, binG, ... exactly as trec_eval computes them; macros in ``sql/trec_eval.sql``."""

from __future__ import annotations

from polars_rank.catalog.model import Metric, Param, TrecEval, alias, with_family
from polars_rank.catalog.params import GAINS
from polars_rank.ranking import metrics as m
from polars_rank.ranking import trec_metrics as tm

#: Why relstring has no portable SQL.
_STRING_REASON = (
    "its value is a string built in rank order (trec_eval's relstring), which the SQL "
    "dialects aggregate in incompatible ways: evaluate it with engine='polars' or "
    "engine='duckdb'"
)

_ENTRIES: tuple[Metric, ...] = (
    Metric(
        "relevance_string",
        tm.relevance_string,
        "one character per retrieved document up to the length: the grade 0–9, `>` above 9, "
        "`-` unjudged, `.` negative grade (a string; no summary)",
        params=(Param("length", 10, doc="documents shown"),),
        relevance_level=False,
        summary="none",
        result="string",
        title="relevance string",
        aliases=(alias("relstring", "trec_eval"), alias("relevance_string")),
        trec_eval=(TrecEval("relstring", parameter="length"),),
        reference="trec_eval relstring (m_relstring.c)",
        higher_is_better=None,
        value_range=None,
        unsupported=(
            ("sql", _STRING_REASON),
            *(
                (
                    engine,
                    "does not take string-valued metrics (trec_eval's relstring, built in "
                    "rank order): evaluate it with engine='polars' or engine='duckdb'",
                )
                for engine in ("spark", "clickhouse")
            ),
        ),
    ),
    Metric(
        "inferred_ap",
        tm.inferred_ap,
        "(1/R) Σ over retrieved relevant at rank j + 1 of 1/(j+1) + (j/(j+1))·((r+n+u)/j)·"
        "((r+ε)/(r+n+2ε)) (1 at rank 1); r, n, u relevant, non-relevant, negative above; "
        "ε = 1e-5",
        title="inferred AP",
        aliases=(alias("infAP", "ir_measures", "trec_eval"), alias("inferred_ap")),
        trec_eval=(TrecEval("infAP"),),
        reference="trec_eval infAP (m_infAP.c); Yilmaz & Aslam, CIKM 2006",
    ),
    Metric(
        "gm_bpref",
        m.bpref,
        "bpref per query; summary exp(mean(ln(max(bpref, 1e-5)))) (trec_eval)",
        summary="gmean",
        macro="bpref",
        title="geometric bpref",
        aliases=(alias("gm_bpref", "trec_eval"),),
        trec_eval=(TrecEval("gm_bpref", per_query=False),),
        reference="trec_eval gm_bpref (m_gm_bpref.c)",
    ),
    Metric(
        "yaap",
        tm.yaap,
        "ln((1 + S) / (1 + R − S)), S = Σ P@rank over the retrieved relevant documents (AP·R)",
        title="YAAP",
        aliases=(alias("yaap", "trec_eval"),),
        trec_eval=(TrecEval("yaap"),),
        reference="trec_eval yaap (m_yaap.c)",
        value_range=(-float("inf"), float("inf")),
    ),
    Metric(
        "r_precision_multiple",
        tm.r_precision_multiple,
        "precision at c = ⌊multiple·R + 0.9⌋ (positions; 0 when c = 0)",
        params=(Param("multiple", 1.0, doc="multiple of R"),),
        title="precision at a multiple of R",
        aliases=(alias("Rprec_mult", "trec_eval"), alias("r_precision_multiple")),
        trec_eval=(
            TrecEval(
                "Rprec_mult",
                (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
                parameter="multiple",
            ),
        ),
        reference="trec_eval Rprec_mult (m_Rprec_mult.c)",
    ),
    Metric(
        "utility",
        tm.utility,
        "p1·a + p2·b + p3·c + p4·d: a relevant retrieved, b other retrieved, c relevant "
        "missed, d = collection_size + a − retrieved − R",
        params=(
            Param(
                "coefficients",
                tm.UTILITY_COEFFICIENTS,
                doc="p1, p2, p3, p4, `[1,-1,0,0]`",
                kind="numbers",
                examples=("[2,-1,0,0]", "[1,-1,-0.5,0.25]"),
            ),
            Param("collection_size", 0, doc="documents in the collection (trec_eval `-N`)"),
        ),
        aliases=(alias("utility", "trec_eval"),),
        trec_eval=(TrecEval("utility", parameter="coefficients"),),
        reference="trec_eval utility (m_utility.c)",
        value_range=(-float("inf"), float("inf")),
    ),
    Metric(
        "binary_g",
        tm.binary_g,
        "(1/R) Σ over retrieved relevant of 1 / log2(2 + non-relevant or unjudged above)",
        title="binary G",
        aliases=(alias("binG", "trec_eval"), alias("binary_g")),
        trec_eval=(TrecEval("binG"),),
        reference="trec_eval binG (m_binG.c)",
    ),
    Metric(
        "normalized_gain",
        tm.normalized_gain,
        "Σ over ranks i with gain g_i ≠ 0 of g_i / log2(2 + C_i − S_i) / Σ ideal gains; S_i "
        "gain so far, C_i ideal cost so far (max(ideal gain, 1) per position)",
        params=(GAINS,),
        relevance_level=False,
        title="G (normalized gain)",
        aliases=(alias("G", "trec_eval"), alias("normalized_gain")),
        trec_eval=(TrecEval("G", parameter="pairs"),),
        reference="trec_eval G (m_G.c)",
    ),
    Metric(
        "ndcg_rel",
        tm.ndcg_rel,
        "nDCG averaged over the documents with positive gain (a missed one scores the final "
        "DCG / IDCG)",
        params=(GAINS,),
        relevance_level=False,
        title="nDCG over relevant",
        aliases=(alias("ndcg_rel", "trec_eval"),),
        trec_eval=(TrecEval("ndcg_rel", parameter="pairs"),),
        reference="trec_eval ndcg_rel (m_ndcg_rel.c)",
    ),
    Metric(
        "r_ndcg",
        tm.r_ndcg,
        "nDCG averaged at the ends of the runs of equal ideal gains (and at the number "
        "retrieved); 0 when R = 0",
        params=(GAINS,),
        title="nDCG at R levels",
        aliases=(alias("Rndcg", "trec_eval"), alias("r_ndcg")),
        trec_eval=(TrecEval("Rndcg", parameter="pairs"),),
        reference="trec_eval Rndcg (m_Rndcg.c)",
    ),
    Metric(
        "set_relative_precision",
        tm.set_relative_precision,
        "relevant retrieved / min(retrieved, R)",
        title="relative set precision",
        aliases=(alias("set_relative_P", "trec_eval"), alias("set_relative_precision")),
        trec_eval=(TrecEval("set_relative_P"),),
        reference="trec_eval set_relative_P (m_set_relative_P.c)",
    ),
    Metric(
        "set_average_precision",
        tm.set_average_precision,
        "relevant retrieved² / (retrieved · R)",
        title="set AP",
        aliases=(
            alias("SetAP", "ir_measures"),
            alias("set_map", "trec_eval"),
            alias("set_average_precision"),
        ),
        trec_eval=(TrecEval("set_map"),),
        reference="trec_eval set_map (m_set_map.c)",
    ),
    Metric(
        "trec_rbp",
        tm.trec_rbp,
        "trec_eval's rbp: (1 − p) Σ gain · p^(rank − 1), gains rescaled to [0, 1] per query "
        "when any lies outside",
        params=(Param("p", 0.9, doc="persistence"), GAINS),
        relevance_level=False,
        title="RBP (trec_eval)",
        aliases=(alias("trec_rbp"),),
        trec_eval=(TrecEval("rbp", parameter="pairs"),),
        reference="trec_eval rbp (m_rbp.c); Moffat & Zobel, TOIS 2008",
    ),
    Metric(
        "trec_rbp_residual",
        tm.trec_rbp_residual,
        "p^N + (1 − p) Σ over unjudged retrieved of p^(rank − 1); 0 when all are judged",
        params=(Param("p", 0.9, doc="persistence"),),
        relevance_level=False,
        title="RBP residual (trec_eval)",
        aliases=(alias("trec_rbp_resid"), alias("trec_rbp_residual")),
        trec_eval=(TrecEval("rbp_resid", parameter="pairs"),),
        reference="trec_eval rbp_resid (m_rbp_resid.c); Moffat & Zobel, TOIS 2008",
        higher_is_better=None,
    ),
)

ENTRIES = with_family("trec_eval", _ENTRIES)
