"""The engines that run an evaluation: Polars (one lazy plan) and DuckDB (one SQL query).

Both produce per-query values with the same internal bookkeeping columns, named here.
"""

#: Whether a query has retrieved documents / judgments, and how many run queries were left out.
IN_RUN = "__in_run"
JUDGED = "__judged"
LEFT_OUT = "__left_out"

#: Names a metric label may not take.
RESERVED = (IN_RUN, JUDGED, LEFT_OUT)
