"""polars_rank.classification: the classification metrics."""
