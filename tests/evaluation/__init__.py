"""polars_rank.evaluation (evaluate, evaluate_runs, by=) and polars_rank.plot."""
