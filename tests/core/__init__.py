"""polars_rank.core: errors and messages, identifiers and reserved words."""
