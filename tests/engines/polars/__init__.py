"""polars_rank.engines.polars: the Polars engine."""
