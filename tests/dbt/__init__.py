"""polars_rank.dbt and the dbt package."""
