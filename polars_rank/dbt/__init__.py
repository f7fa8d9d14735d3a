"""The dbt package's generator: ``polars_rank.yml`` (:mod:`polars_rank.dbt.config`) in,
the macros of every declared report (:mod:`polars_rank.dbt.generate`) out."""
