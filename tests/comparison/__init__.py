"""polars_rank.comparison: significance tests between runs."""
