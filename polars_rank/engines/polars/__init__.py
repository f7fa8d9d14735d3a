"""polars"""
