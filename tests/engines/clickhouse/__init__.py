"""clickhouse"""
