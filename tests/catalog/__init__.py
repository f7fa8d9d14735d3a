"""polars_rank.catalog: the entries against the code and docs they describe."""
