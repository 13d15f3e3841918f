"""``t$manifests``: the manifest files of a snapshot (the latest, or the one time travel picks):
base and delta data manifests, then changelog manifests, as Paimon's ``ManifestsTable`` lists them.

``min_partition_stats`` / ``max_partition_stats`` are the manifest's partition bounds cast to STRING
as rows (``{2024-01-01}``; ``{}`` for an unpartitioned table).
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.errors import PaimonError
from paimon_sql.format.binary_row import decode_rows
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.manifest_file_meta import ManifestFileMeta
from paimon_sql.table.system._format import row_cast_strings
from paimon_sql.table.system.base import ColumnFn, ReadContext, SystemTable
from paimon_sql.types import BigIntType, DataField, VarCharType


class ManifestsTable(SystemTable):
    SYSTEM_NAME = "manifests"
    TIME_TRAVEL = True
    FIELDS = (
        DataField(0, "file_name", VarCharType(nullable=False)),
        DataField(1, "file_size", BigIntType(nullable=False)),
        DataField(2, "num_added_files", BigIntType(nullable=False)),
        DataField(3, "num_deleted_files", BigIntType(nullable=False)),
        DataField(4, "schema_id", BigIntType(nullable=False)),
        DataField(5, "min_partition_stats", VarCharType()),
        DataField(6, "max_partition_stats", VarCharType()),
        DataField(7, "min_row_id", BigIntType()),
        DataField(8, "max_row_id", BigIntType()),
    )

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        store, snap = ctx.store, ctx.snapshot
        if snap is None:
            return 0, {}
        metas = store.manifests.data_manifests(snap)
        if snap.changelog_manifest_list:
            metas += store.manifests.read_manifest_list(snap.changelog_manifest_list)

        def col(get, t: pa.DataType) -> ColumnFn:  # type: ignore[no-untyped-def]
            return lambda: pa.array([get(m) for m in metas], t)

        return len(metas), {
            "file_name": col(lambda m: m.file_name, pa.string()),
            "file_size": col(lambda m: m.file_size, pa.int64()),
            "num_added_files": col(lambda m: m.num_added_files, pa.int64()),
            "num_deleted_files": col(lambda m: m.num_deleted_files, pa.int64()),
            "schema_id": col(lambda m: m.schema_id, pa.int64()),
            "min_partition_stats": lambda: _bounds(store, metas, "min"),
            "max_partition_stats": lambda: _bounds(store, metas, "max"),
            "min_row_id": col(lambda m: m.min_row_id, pa.int64()),
            "max_row_id": col(lambda m: m.max_row_id, pa.int64()),
        }


def _bounds(store: FileStore, metas: list[ManifestFileMeta], which: str) -> pa.Array:
    blobs = [m.partition_stats.min_values if which == "min" else m.partition_stats.max_values for m in metas]
    fields = store.partition_fields
    try:
        cols = decode_rows(blobs, store.partition_types) if fields else []
    except PaimonError:
        return pa.nulls(len(metas), pa.string())
    return row_cast_strings(cols, fields, len(metas))
