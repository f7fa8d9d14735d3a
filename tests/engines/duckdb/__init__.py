"""polars_rank.engines.duckdb: the DuckDB engine."""
