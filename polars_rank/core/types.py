"""Type aliases for what polars_rank's functions take: frames, tables, connections, metric names.

pandas, pyarrow and pyspark are optional: they are named here only for type checkers (under
``if TYPE_CHECKING:``), and each alias is a string at run time, so importing polars_rank
imports none of them. Use the aliases in annotations (``from __future__ import annotations``
or quoted), not in ``isinstance`` checks.

>>> import subprocess, sys
>>> code = "import sys, polars_rank; print({'pandas', 'pyarrow', 'pyspark'} & {*sys.modules})"
>>> subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip()
'set()'
>>> FrameLike
'pl.DataFrame | pl.LazyFrame | pd.DataFrame | pa.Table | pa.RecordBatch'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeAlias, TypedDict

if TYPE_CHECKING:
    import duckdb
    import pandas as pd
    import polars as pl
    import pyarrow as pa
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql import SparkSession

    from polars_rank.core.conventions import OrderBy
    from polars_rank.core.options import Duplicates, Queries

__all__ = [
    "CatalogInput",
    "Connection",
    "EngineName",
    "EvaluateOptions",
    "FrameLike",
    "PolarsFrame",
    "TableInput",
]

#: A Polars frame. The functions taking one give back the same kind: DataFrame in, DataFrame
#: out; LazyFrame in, LazyFrame out.
PolarsFrame: TypeAlias = "pl.DataFrame | pl.LazyFrame"

#: A frame in memory, or a lazy one: what every function taking a frame accepts. A pandas
#: DataFrame or a pyarrow Table (or RecordBatch) is converted with ``pl.from_pandas`` /
#: ``pl.from_arrow`` (:func:`polars_rank.core.frames.as_polars`).
FrameLike: TypeAlias = "pl.DataFrame | pl.LazyFrame | pd.DataFrame | pa.Table | pa.RecordBatch"

#: A table :func:`polars_rank.evaluate` reads (the run, the qrels, the recommender inputs):
#: a :data:`FrameLike` for every engine; besides, for ``engine="duckdb"`` a DuckDB relation,
#: a table or view name on ``con`` or a ``.parquet`` path, for ``engine="spark"`` a Spark
#: DataFrame or a table or view name the session knows. Another engine refuses them with a
#: ``TypeError``.
TableInput: TypeAlias = "FrameLike | duckdb.DuckDBPyRelation | SparkDataFrame | str"

#: :func:`polars_rank.evaluate`'s ``catalog``: a table with the doc column, or a Series of ids.
CatalogInput: TypeAlias = "TableInput | pl.Series"

#: The connection of an engine: a DuckDB connection (``engine="duckdb"``) or a SparkSession
#: (``engine="spark"``).
Connection: TypeAlias = "duckdb.DuckDBPyConnection | SparkSession"

#: The engines of :func:`polars_rank.evaluate`.
EngineName = Literal["polars", "clickhouse", "duckdb", "spark"]


class EvaluateOptions(TypedDict, total=False):
    """The keyword options of :func:`polars_rank.evaluate` besides ``per_query``: what
    :func:`polars_rank.evaluate_runs`, :func:`polars_rank.compare` and the plot frames pass on
    (see :func:`polars_rank.evaluate` for each).

    >>> from polars_rank.evaluation import _EVALUATE_DEFAULTS
    >>> sorted(EvaluateOptions.__optional_keys__) == sorted(_EVALUATE_DEFAULTS)
    True
    """

    interactions: TableInput | None
    item_features: TableInput | None
    catalog: CatalogInput | None
    by: str | Sequence[str] | None
    engine: EngineName
    queries: Queries
    relevance_level: float
    query: str
    doc: str
    score: str
    rank: str
    relevance: str
    order_by: OrderBy | None
    max_rank: int | None
    duplicates: Duplicates
    validate: bool
    con: Connection | None
