"""Predicates: filters for reads, deletes and file pruning.

A predicate is an immutable tree of ``Leaf`` (one column compared with literals), ``And``, ``Or``
and ``Not``. It is evaluated with SQL's three-valued logic: a comparison with a null operand is
NULL, and a row matches only when the whole predicate is TRUE.

The package, by concern (everything public is re-exported here: import from
``paimon_sql.predicate``):

- ``tree``: the nodes, their operators and SQL rendering; ``referenced_columns``,
  ``rename_columns``, ``split_and``, ``partition_only``;
- ``builders``: ``equal``, ``not_equal``, ``less_than`` ... ``is_in``, ``between``,
  ``starts_with``, ``and_``, ``or_``, ``not_``;
- ``sql``: ``parse_predicate``, SQL text (Spark dialect, via sqlglot) against a table's fields,
  literals coerced to the column types;
- ``arrow``: ``to_arrow_expression``, a ``pyarrow.compute.Expression`` for ``Table.filter`` /
  datasets;
- ``stats``: ``might_match``, vectorised, conservative pruning of many files (or partitions,
  manifests) at once from their min / max / null-count statistics;
- ``like_pattern``: LIKE pattern tokens, escaping and prefixes.

Literal values are plain Python values: ``int``, ``float``, ``decimal.Decimal``, ``str``,
``bytes``, ``bool``, ``datetime.date``, ``datetime.datetime`` (aware, in UTC, for TIMESTAMP WITH
LOCAL TIME ZONE columns), ``datetime.time``, or ``None`` (SQL NULL).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from paimon_sql.predicate.arrow import to_arrow_expression
from paimon_sql.predicate.builders import (
    and_,
    between,
    contains,
    ends_with,
    equal,
    greater_or_equal,
    greater_than,
    is_in,
    is_not_in,
    is_not_null,
    is_null,
    less_or_equal,
    less_than,
    like,
    not_,
    not_equal,
    or_,
    starts_with,
)
from paimon_sql.predicate.stats import ColumnStats, might_match
from paimon_sql.predicate.tree import (
    BETWEEN,
    CONTAINS,
    ENDS_WITH,
    EQ,
    GE,
    GT,
    IN,
    IS_NOT_NULL,
    IS_NULL,
    LE,
    LIKE,
    LT,
    MAX_PREDICATE_DEPTH,
    NE,
    NOT_IN,
    OPS,
    STARTS_WITH,
    And,
    Leaf,
    Not,
    Or,
    Predicate,
    partition_only,
    referenced_columns,
    rename_columns,
    split_and,
)

if TYPE_CHECKING:
    from paimon_sql.types import DataField


def parse_predicate(sql: str, fields: Sequence[DataField]) -> Predicate:
    """A SQL boolean expression (Spark dialect) over ``fields`` as a predicate (see
    ``paimon_sql.predicate.sql.parse_predicate``); sqlglot is imported on the first call."""
    from paimon_sql.predicate import sql as sql_parser

    return sql_parser.parse_predicate(sql, fields)


__all__ = [
    "BETWEEN",
    "CONTAINS",
    "ENDS_WITH",
    "EQ",
    "GE",
    "GT",
    "IN",
    "IS_NOT_NULL",
    "IS_NULL",
    "LE",
    "LIKE",
    "LT",
    "MAX_PREDICATE_DEPTH",
    "NE",
    "NOT_IN",
    "OPS",
    "STARTS_WITH",
    "And",
    "ColumnStats",
    "Leaf",
    "Not",
    "Or",
    "Predicate",
    "and_",
    "between",
    "contains",
    "ends_with",
    "equal",
    "greater_or_equal",
    "greater_than",
    "is_in",
    "is_not_in",
    "is_not_null",
    "is_null",
    "less_or_equal",
    "less_than",
    "like",
    "might_match",
    "not_",
    "not_equal",
    "or_",
    "parse_predicate",
    "partition_only",
    "referenced_columns",
    "rename_columns",
    "split_and",
    "starts_with",
    "to_arrow_expression",
]
