"""Bridge calls that plan a catalog scan: whether Spark's own parquet reader can read it, and
``count(*)`` from the manifests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paimon_sql.errors import ValidationError
from paimon_sql.spark.handlers.common import catalog_of, str_map_param, str_param
from paimon_sql.spark.handlers.registry import Params, Result, handler
from paimon_sql.table.table import Table


@handler("plan_native_read", read_only=True)
def plan_native_read(params: Params) -> Result:
    """Plans a catalog scan (``options``: the scan's data source options; ``columns``: Spark's
    required columns; ``filters``: Spark SQL text of each offered filter, or None) and says whether
    Spark's own parquet reader can read its files as they are (see ``paimon_sql.spark.native_read``)."""
    from paimon_sql.spark.native_read import plan_native

    columns = params.get("columns")
    filters = params.get("filters") or []
    if not isinstance(columns, list) or not isinstance(filters, list):
        raise ValidationError("plan_native_read needs 'columns' and 'filters' (lists)")
    table, read = _scan_table(params, "plan_native_read")
    if table is None:
        return {"native": False, "reason": "a system table", "accepted": [False] * len(filters), "files": []}
    mixed = params.get("mixed") is True
    return plan_native(table, read, [str(c) for c in columns], filters, mixed).to_json()


def _scan_table(params: Params, method: str) -> tuple[Table | None, dict[str, Any]]:
    """The data table a catalog scan's ``options`` name (None for a system table), and the
    snapshot it reads (``Table.plan``'s keyword arguments: time travel, or the pinned latest)."""
    from paimon_sql.spark.source_options import TableRef, dynamic_options, read_snapshot

    options = params.get("options")
    if not isinstance(options, Mapping):
        raise ValidationError(f"{method} needs 'options' (an object)")
    ref = TableRef.of(options)
    if ref.is_system:
        return None, {}
    table = catalog_of({"warehouse": ref.warehouse, "catalog_options": dict(ref.catalog_options)}).get_table(ref.table)
    if not isinstance(table, Table):
        return None, {}
    table = table.copy(dynamic_options(options))
    return table, read_snapshot(options, table)


@handler("count_rows", read_only=True)
def count_rows(params: Params) -> Result:
    """``SELECT count(*)`` of a catalog scan (``options``: the scan's data source options) from the
    manifests, when the files' row counts are the table's (see ``native_read.count_rows``)."""
    from paimon_sql.spark.native_read import count_rows as count

    table, read = _scan_table(params, "count_rows")
    if table is None:
        return {"count": None, "reason": "a system table", "snapshot": None}
    return count(table, read).to_json()


@handler("incremental_diff_fallback", read_only=True)
def incremental_diff_fallback(params: Params) -> Result:
    """Paimon's table-valued functions ``paimon_incremental_query`` / ``paimon_incremental_to_auto_tag``
    (``PaimonTableValuedFunctions.usingSparkIncrementQuery``): when the diff the read asks for crosses
    a bucket-count change, the two snapshot ids (``start``, ``end``), which the shim then reads as
    ``end EXCEPT start``; else nothing. ``namespace``, ``table``: the table (or ``t$audit_log``),
    ``options``: the function's options."""
    from paimon_sql.scan.incremental import InconsistentBucketError

    options = params.get("options")
    if not isinstance(options, Mapping):
        raise ValidationError("incremental_diff_fallback needs 'options' (an object)")
    obj = catalog_of(params).get_table(f"{params.get('namespace')}.{params.get('table')}")
    table = obj if isinstance(obj, Table) else getattr(obj, "table", None)
    if not isinstance(table, Table):
        return {}
    try:
        table.copy({str(k): str(v) for k, v in options.items()}).scan().plan()
    except InconsistentBucketError as e:
        return {"start": e.start_id, "end": e.end_id}
    return {}


@handler("plan_read", read_only=True)
def plan_read(params: Params) -> Result:
    """A batch read's pickled task command and input partitions (base64) and the positions of the
    filters its reader accepted, from its data source options, its columns' Spark schema (JSON),
    the filters as Spark serializes them for Python (a JSON text; absent: no pushdown) and Spark's
    Arrow batch size (see ``paimon_sql.spark.planning``)."""
    import base64

    from paimon_sql.spark.planning import plan_read as plan

    filters = params.get("filters")
    func, partitions, accepted = plan(
        str_map_param(params, "options"), str_param(params, "schema"),
        filters if isinstance(filters, str) else None, int(params.get("max_arrow_batch_size") or 10000),
    )
    return {
        "func": base64.b64encode(func).decode("ascii"),
        "partitions": [base64.b64encode(p).decode("ascii") for p in partitions],
        "accepted": accepted,
    }
