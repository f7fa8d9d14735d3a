"""polars_rank.cli: the polars-rank command (and the demo)."""
