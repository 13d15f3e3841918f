"""Bridge calls that write a table outside Spark's write path: DELETE FROM and TRUNCATE (one
commit each)."""

from __future__ import annotations

from paimon_sql.catalog.identifier import Identifier
from paimon_sql.errors import UnsupportedError
from paimon_sql.spark.handlers.common import catalog_of, data_table, str_param
from paimon_sql.spark.handlers.registry import Params, Result, handler
from paimon_sql.table.table import Table


def _writable_table(params: Params, statement: str) -> Table:
    """The data table (or branch) named by the data source option text ``table``."""
    cat = catalog_of(params)
    ident = Identifier.parse(str_param(params, "table"))
    if ident.system_table is not None:
        raise UnsupportedError(f"Cannot {statement} system table {ident.full_name}: system tables are read-only")
    return data_table(cat, ident)


@handler("delete_where")
def delete_where(params: Params) -> Result:
    """``DELETE FROM t WHERE <where>`` (Spark SQL text built by the shim): one commit, or none
    when no row matches."""
    table = _writable_table(params, "DELETE FROM")
    return {"snapshot": table.delete(str_param(params, "where"))}


@handler("truncate_table")
def truncate_table(params: Params) -> Result:
    """``TRUNCATE TABLE t``: one OVERWRITE commit that keeps no file."""
    table = _writable_table(params, "TRUNCATE")
    return {"snapshot": table.truncate()}
