"""Parameters several entries share (gain choices, gain tables, AP's denominator, RBP's
persistence, how item popularity is counted) and trec_eval's default cutoffs."""

from __future__ import annotations

from polars_rank.catalog.model import Param
from polars_rank.ranking import metrics as m

#: trec_eval's default cutoffs for ``P``, ``recall``, ``ndcg_cut``, ``map_cut``, ``relative_P``.
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def gain_param() -> Param:
    return Param(
        "gain",
        "linear",
        {
            "linear": "linear",
            "exp": "exponential",
            "exponential": "exponential",
            "burges": "exponential",
        },
        "`linear` (the grade, trec_eval) or `exponential` (2^grade − 1, Burges)",
        kind="choice",
    )


#: A gain table (trec_eval's ``level=gain`` parameters, ir_measures' ``gains``).
GAINS = Param(
    "gains",
    None,
    doc="a gain per grade, `{1:3,2:9}` (trec_eval `.1=3,2=9`); -2 stands for negative grades",
    kind="gains",
    examples=("{1:3,2:9,4:4.5}", "{0:-1,-2:2}"),
)


AP_DENOMINATOR = Param(
    "denominator",
    "R",
    {"r": "R", "min": "min(k,R)", "min(k,r)": "min(k,R)", "mink": "min(k,R)"},
    "`R` (trec_eval) or `min(k,R)` (Spark, recommender libraries)",
    kind="choice",
)

P_PARAM = Param(
    "p",
    m.RBP_P,
    doc="persistence in (0, 1)",
    valid=lambda v: 0.0 < v < 1.0,
    valid_doc="in (0, 1)",
    examples=("0.5", "0.95"),
)

COUNT_PARAM = Param(
    "count",
    "users",
    {"users": "users", "interactions": "interactions", "rows": "interactions"},
    "item popularity: distinct `users` or `interactions` (rows, RecBole)",
    scope="table",
)
