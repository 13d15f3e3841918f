"""Schema evolution of a Spark write (Paimon's ``write.merge-schema``): the shim's
``MergeSchemaWrites`` rule sends the written query's Spark schema before the write runs; the
table's schema is merged with it by Paimon's rules (``ops/merge_schema.py``) and committed (one
schema version, nothing when the table already has every column), then the shim aligns the query
to the evolved table and Spark writes it as usual."""

from __future__ import annotations

from paimon_sql.ops.merge_schema import merge_schema_changes
from paimon_sql.spark import spark_types
from paimon_sql.spark.handlers.common import catalog_of, data_table, identifier
from paimon_sql.spark.handlers.registry import Params, Result, handler
from paimon_sql.spark.handlers.tables import _describe, _legacy


@handler("merge_write_schema")
def merge_write_schema(params: Params) -> Result:
    """Params: the table (``namespace``, ``table``), ``schema`` (the query's Spark schema, JSON),
    ``type_widening``, ``explicit_cast``, ``case_sensitive``. Result: the table's description
    (as ``load_table``) after the merge."""
    cat = catalog_of(params)
    ident = identifier(params)
    table = data_table(cat, ident)
    legacy = _legacy(params)
    data = spark_types.arrow_schema(str(params["schema"]), f"data written into {table.name}", legacy)
    changes = merge_schema_changes(table.schema, data, bool(params.get("type_widening")),
                                   bool(params.get("explicit_cast")), bool(params.get("case_sensitive")))
    if changes:
        table.alter(*changes)
        cat.sync_table(ident)
    return _describe(cat, ident, params)
