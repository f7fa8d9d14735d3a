"""polars_rank.engines: one folder per engine."""
