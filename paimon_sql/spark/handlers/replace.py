"""Bridge calls of ``REPLACE TABLE`` / ``CREATE OR REPLACE TABLE [AS SELECT]`` (in place, as Paimon
2.x: :mod:`paimon_sql.catalog.replace`) and of ``CREATE TABLE ... LIKE``."""

from __future__ import annotations

from paimon_sql.catalog.catalog import build_schema, system_database_error
from paimon_sql.catalog.replace import ReplaceResult, replace_table, undo_replace
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.spark.column_defaults import spark_defaults, with_defaults
from paimon_sql.spark.handlers.common import catalog_of, data_table, identifier, str_param
from paimon_sql.spark.handlers.registry import WARNINGS_KEY, Params, Result, handler
from paimon_sql.spark.handlers.tables import _describe, table_definition


@handler("latest_snapshot", read_only=True)
def latest_snapshot(params: Params) -> Result:
    """The latest snapshot id of a table (None when it has none): a self-referencing ``REPLACE
    TABLE t AS SELECT ... FROM t`` reads it, as it was before the replace truncated the table."""
    table = data_table(catalog_of(params), identifier(params))
    snap = table.latest_snapshot()
    return {"snapshot": snap.id if snap is not None else None}


@handler("replace_table")
def replace_table_handler(params: Params) -> Result:
    """``REPLACE TABLE t (...)`` of an existing table: truncated, then the new definition committed
    as the next schema; answers the replaced table's description and what :func:`undo` needs.
    ``check_only``: only checks the new definition (nothing written), before a drop and create."""
    cat = catalog_of(params)
    ident = identifier(params)
    if ident.in_system_database:
        raise system_database_error(f"replace table {ident.full_name}")
    if ident.system_table is not None or ident.branch is not None:
        raise UnsupportedError(
            f"Cannot replace {ident.full_name}: only a table's main branch can be replaced, not a branch "
            "or a system table"
        )
    table = data_table(cat, ident)
    d = table_definition(cat, ident, params)
    new_schema = with_defaults(build_schema(ident.full_name, d.schema, None, d.partition_keys, d.options, d.comment),
                               spark_defaults(str_param(params, "schema")), ident.full_name)
    if params.get("check_only"):  # a replace by drop and create checks the new definition first
        return {}
    result = replace_table(table, new_schema)
    out = _describe(cat, ident, {"legacy_timestamp_mapping": d.legacy})
    out[WARNINGS_KEY] = d.warnings
    out["undo"] = {
        "previous_schema_id": result.previous_schema_id,
        "previous_snapshot_id": result.previous_snapshot_id,
        "truncate_snapshot_id": result.truncate_snapshot_id,
        "schema_id": result.schema.id,
    }
    return out


@handler("undo_replace")
def undo(params: Params) -> Result:
    """The query of a ``REPLACE TABLE ... AS SELECT`` failed: the table is put back as it was (when
    nothing else committed since)."""
    cat = catalog_of(params)
    table = data_table(cat, identifier(params))
    raw = params.get("undo")
    if not isinstance(raw, dict):
        raise ValidationError(f"'undo' of table {table.name} must be an object, got {raw!r}")
    schema = table.store.schemas.latest()
    if schema is None or schema.id != raw.get("schema_id"):
        return {"restored": False}

    def opt_int(key: str) -> int | None:
        v = raw.get(key)
        return None if v is None else int(v)

    result = ReplaceResult(int(raw["previous_schema_id"]), opt_int("previous_snapshot_id"),
                           opt_int("truncate_snapshot_id"), schema)
    return {"restored": undo_replace(table, result)}
