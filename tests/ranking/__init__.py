"""polars_rank.ranking: the ranking metrics, worked by hand."""
