"""polars_rank.recsys: the recommender metrics."""
