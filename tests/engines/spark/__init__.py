"""polars_rank.engines.spark: the Spark engine."""
