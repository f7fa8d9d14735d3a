"""Off-policy evaluation: OBP's estimators (IPW, SNIPW, DM, DR, SNDR, SwitchDR) as Polars
aggregations (:mod:`.estimators`); :func:`polars_rank.evaluate_policy` evaluates them on every
engine and :func:`polars_rank.policy_sql` prints their SQL.

>>> from polars_rank import policy
>>> policy.estimator("SNIPS").name
'snipw'
"""

from polars_rank.policy.estimators import ESTIMATORS, Estimator, estimator, estimator_exprs

__all__ = ["ESTIMATORS", "Estimator", "estimator", "estimator_exprs"]
