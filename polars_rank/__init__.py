"""polars_rank."""
