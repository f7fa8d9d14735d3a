"""duckdb"""
