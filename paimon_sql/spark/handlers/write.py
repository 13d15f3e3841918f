"""Bridge calls that write a table outside Spark's write path (DELETE FROM and TRUNCATE: one commit
each), and the driver side of Spark's batch writes (planned and committed here, see planning)."""

from __future__ import annotations

import base64

from paimon_sql.catalog.identifier import Identifier
from paimon_sql.errors import UnsupportedError
from paimon_sql.spark.handlers.common import catalog_of, data_table, str_map_param, str_param
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


# -- Spark batch writes planned and committed in the bridge (the shim's BridgeBatchWrite) ---------
@handler("plan_write")
def plan_write(params: Params) -> Result:
    """A batch write's pickled task command and writer (base64), from its data source options,
    its rows' Spark schema and return type (JSON) and whether it overwrites."""
    from paimon_sql.spark.planning import plan_write as plan

    func, writer = plan(
        str_map_param(params, "options"), str_param(params, "schema"),
        str_param(params, "return_type"), bool(params.get("overwrite")),
    )
    return {"func": base64.b64encode(func).decode("ascii"), "writer": base64.b64encode(writer).decode("ascii")}


@handler("commit_write")
def commit_write(params: Params) -> Result:
    """Commits (``abort``: aborts) a planned write with its tasks' pickled messages (base64; null
    for a failed task)."""
    from paimon_sql.spark.planning import commit_write as finish

    messages = params.get("messages")
    if not isinstance(messages, list):
        raise TypeError("commit_write: 'messages' must be a list")
    decoded = [None if m is None else base64.b64decode(m) for m in messages]
    finish(base64.b64decode(str_param(params, "writer")), decoded, bool(params.get("abort")))
    return {}
