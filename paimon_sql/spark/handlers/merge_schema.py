"""Schema evolution of a Spark write (Paimon's ``write.merge-schema``): the shim's
``MergeSchemaWrites`` rule sends the written query's Spark schema while Spark analyses the write;
the table's schema is merged with it by Paimon's rules (``ops/merge_schema.py``, through
``table/writing.py``'s ``merge_schema``, as every schema-merging write). With ``commit``
false (analysis) nothing is written: the answer describes the table as the merge would leave it and
says whether a change is pending; the shim aligns the query to that table and, when the write runs
(``PaimonWrite.toBatch``, so an ``EXPLAIN`` or a statement failing before it changes nothing), calls
again with ``commit`` true, which merges with the schema of that moment and commits it (one schema
version, nothing when the table already has every column)."""

from __future__ import annotations

from paimon_sql.ops.alter import apply_changes
from paimon_sql.spark import spark_types
from paimon_sql.spark.handlers.common import catalog_of, data_table, identifier, source_options
from paimon_sql.spark.handlers.registry import Params, Result, handler
from paimon_sql.spark.handlers.tables import _describe, _describe_schema, _legacy
from paimon_sql.table.writing import merge_schema

PENDING = "schema_merge_pending"


@handler("merge_write_schema")
def merge_write_schema(params: Params) -> Result:
    """Params: the table (``namespace``, ``table``), ``schema`` (the query's Spark schema, JSON),
    ``type_widening``, ``explicit_cast``, ``case_sensitive``, ``commit`` (default true). Result: the
    table's description (as ``load_table``) after the merge, with ``schema_merge_pending`` true when
    ``commit`` is false and the merge changes the schema."""
    cat = catalog_of(params)
    ident = identifier(params)
    table = data_table(cat, ident)
    legacy = _legacy(params)
    data = spark_types.arrow_schema(str(params["schema"]), f"data written into {table.name}", legacy)
    commit = params.get("commit", True) is not False
    _, changes = merge_schema(table, data, bool(params.get("type_widening")), bool(params.get("explicit_cast")),
                              bool(params.get("case_sensitive")), commit)
    if changes and not commit:
        planned = apply_changes(table.store, changes)  # validated, not written
        return {**_describe_schema(table, planned, source_options(cat, ident.full_name), False, params),
                PENDING: True}
    if changes:
        cat.sync_table(ident)
    return _describe(cat, ident, params)
