"""``t$schemas``: one row per schema version of the table (or branch).

``fields``, ``partition_keys``, ``primary_keys`` and ``options`` are flat JSON as Paimon prints them
(``JsonSerdeUtil.toFlatJson``; options in Java ``HashMap`` order); ``update_time`` is the schema's
``timeMillis`` as the wall clock of the table's ``time_zone`` (Paimon: the JVM's default zone).
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.meta.schema import TableSchema
from paimon_sql.table.system._format import flat_json, java_map_json
from paimon_sql.table.system.base import ColumnFn, ReadContext, SystemTable, id_candidates
from paimon_sql.types import BigIntType, DataField, TimestampType, VarCharType, data_field_to_json


class SchemasTable(SystemTable):
    SYSTEM_NAME = "schemas"
    FIELDS = (
        DataField(0, "schema_id", BigIntType(nullable=False)),
        DataField(1, "fields", VarCharType(nullable=False)),
        DataField(2, "partition_keys", VarCharType(nullable=False)),
        DataField(3, "primary_keys", VarCharType(nullable=False)),
        DataField(4, "options", VarCharType(nullable=False)),
        DataField(5, "comment", VarCharType()),
        DataField(6, "update_time", TimestampType(3, nullable=False)),
    )

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        manager = ctx.store.schemas
        ids = id_candidates(ctx.predicate, "schema_id", manager.schema_ids())
        schemas: list[TableSchema] = [manager.schema(i) for i in ids]

        def col(get, t: pa.DataType) -> ColumnFn:  # type: ignore[no-untyped-def]
            return lambda: pa.array([get(s) for s in schemas], t)

        return len(schemas), {
            "schema_id": col(lambda s: s.id, pa.int64()),
            "fields": col(lambda s: flat_json([data_field_to_json(f) for f in s.fields]), pa.string()),
            "partition_keys": col(lambda s: flat_json(list(s.partition_keys)), pa.string()),
            "primary_keys": col(lambda s: flat_json(list(s.primary_keys)), pa.string()),
            "options": col(lambda s: java_map_json(dict(s.options)), pa.string()),
            "comment": col(lambda s: s.comment, pa.string()),
            "update_time": lambda: self._local_timestamps([s.time_millis for s in schemas]),
        }
