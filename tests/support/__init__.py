"""Helpers shared by the tests (no tests here): the live engines, generated data, the shared
SQL cases, the dbt environment, the documentation's code blocks."""
