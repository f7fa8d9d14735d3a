"""polars_rank.compiler: to_sql, check_sql and curve_sql, run on DuckDB, PostgreSQL and
transpiled."""
