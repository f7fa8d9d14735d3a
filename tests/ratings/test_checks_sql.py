"""The rating checks' SQL (:func:`polars_rank.compiler.rating.rating_checks_sql` and
``repeated_pair_sql``, what ``evaluate_ratings(engine="spark")`` runs on the session's
tables) with hostile column names: every name is quoted for its dialect (the text parses back
in each dialect), and run on DuckDB the counts are those worked out by hand."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest
import sqlglot

from polars_rank.compiler.rating import rating_checks_sql, repeated_pair_sql
from polars_rank.core.dialects import dialect_names

#: Column names a query must quote: a quote, a backtick, a space, a keyword, a dot.
USER, ITEM, RATING, PREDICTION, WEIGHT = 'u"ser', "it`em", "my rating", "select", "w.t"


def _sql(dialect: str) -> tuple[str, list[tuple[str, str, str]]]:
    return rating_checks_sql(
        dialect,  # type: ignore[arg-type]
        "ratings_t",
        "predictions_t",
        user=USER,
        item=ITEM,
        values={"ratings": [RATING], "predictions": [PREDICTION]},
        weight=WEIGHT,
    )


@pytest.mark.parametrize("dialect", dialect_names())
def test_hostile_names_parse_back_in_every_dialect(dialect: str) -> None:
    sql, keys = _sql(dialect)
    assert sqlglot.parse_one(sql, read=dialect) is not None
    assert len(keys) == sql.count(" AS pr_k")
    example = repeated_pair_sql(dialect, "ratings_t", USER, ITEM)  # type: ignore[arg-type]
    assert sqlglot.parse_one(example, read=dialect) is not None


def test_counts_on_duckdb_by_hand() -> None:
    # ratings: (a, x) twice, a NULL user, a NaN rating, a negative weight; 5 rows
    ratings = pl.DataFrame(
        {
            USER: ["a", "a", None, "b", "c"],
            ITEM: ["x", "x", "y", "y", "z"],
            RATING: [4.0, 4.0, 3.0, float("nan"), 5.0],
            WEIGHT: [1.0, 1.0, -1.0, 1.0, 2.0],
        }
    )
    # predictions: (b, y) and (c, z) match ratings' pairs, (d, w) does not; a NULL prediction
    predictions = pl.DataFrame(
        {USER: ["b", "c", "d"], ITEM: ["y", "z", "w"], PREDICTION: [1.0, None, 2.0]}
    )
    con = duckdb.connect()
    con.register("ratings_t", ratings)
    con.register("predictions_t", predictions)
    sql, keys = _sql("duckdb")
    row = dict(zip(keys, con.sql(sql).fetchall()[0], strict=True))
    assert row[("ratings", "null", USER)] == 1
    assert row[("ratings", "null", ITEM)] == 0
    assert row[("ratings", "nan", RATING)] == 1
    assert row[("ratings", "bad_weight", WEIGHT)] == 1
    assert row[("ratings", "rows", "")] == 5
    assert row[("ratings", "repeated", "")] == 1  # the pair (a, x)
    assert row[("predictions", "null", PREDICTION)] == 1
    assert row[("predictions", "rows", "")] == 3
    assert row[("predictions", "repeated", "")] == 0
    assert row[("both", "matched", "")] == 2  # (b, y) and (c, z)
    example = con.sql(repeated_pair_sql("duckdb", "ratings_t", USER, ITEM)).fetchall()
    assert example == [("a", "x", 1)]
