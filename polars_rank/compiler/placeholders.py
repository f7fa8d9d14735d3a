"""Placeholders for the caller's tables and columns: the plan (:mod:`.plan`, :mod:`.recsys`)
is written over these names, and :mod:`.dialects` replaces them in the parsed tree by the
caller's quoted names, so no caller text is ever pasted into SQL."""

#: Placeholders for the caller's tables and columns, replaced in the parsed tree.
RUN, QRELS = "pr_input_run", "pr_input_qrels"
QUERY, DOC, ORDER, RELEVANCE = "pr_col_query", "pr_col_doc", "pr_col_order", "pr_col_relevance"
QUERY_OUT, LEFT_OUT_OUT = "pr_col_query_out", "pr_col_left_out"
DUPLICATES_OUT = "pr_col_duplicates"
#: The output columns of the long layout (``measure``, ``value``).
MEASURE_OUT, VALUE_OUT = "pr_col_measure_out", "pr_col_value_out"

#: The alias of a caller's table in the CTEs that read it: every caller's column is written
#: qualified (``pr_src.<column>``), so that no name of the caller's can be taken for a column
#: alias of the query's own (``GROUP BY`` and lateral aliases read those in some dialects).
SOURCE = "pr_src"

#: The column the joined rows call the doc id (its text form is where byte order applies).
DOC_KEY = "docno"


def by_placeholder(i: int) -> str:
    """The placeholder of the caller's ``i``-th ``by`` column (input and output)."""
    return f"pr_col_by{i}"
