"""The DuckDB macro files (sql/*.sql, polars_rank.duckdb) on their own and in the DuckDB shell."""
