"""Bridge calls of row-level operations (UPDATE / MERGE INTO / DELETE of append tables, see
``paimon_sql.spark.row_level``): the snapshot a statement reads."""

from __future__ import annotations

from paimon_sql.catalog.identifier import Identifier
from paimon_sql.spark.handlers.common import catalog_of, data_table, str_param
from paimon_sql.spark.handlers.registry import Params, Result, handler


@handler("row_level_snapshot", read_only=True)
def row_level_snapshot(params: Params) -> Result:
    """The latest snapshot id of the table (None: it has none), which the statement's scan reads
    and its commit replaces files of."""
    table = data_table(catalog_of(params), Identifier.parse(str_param(params, "table")))
    latest = table.latest_snapshot()
    return {"snapshot": latest.id if latest is not None else None}
