"""``t$snapshots``: one row per snapshot file of the table (or branch), oldest first.

Columns as Paimon's ``SnapshotsTable``; ``commit_time`` is the snapshot's ``timeMillis`` as the
wall clock of the table's ``time_zone`` (Paimon: the JVM's default zone). A filter on ``snapshot_id`` (=, <, <=, >, >=, IN, BETWEEN) limits the snapshot files read.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.table.system.base import ColumnFn, ReadContext, SystemTable, id_candidates
from paimon_sql.types import BigIntType, DataField, TimestampType, VarCharType


class SnapshotsTable(SystemTable):
    SYSTEM_NAME = "snapshots"
    FIELDS = (
        DataField(0, "snapshot_id", BigIntType(nullable=False)),
        DataField(1, "schema_id", BigIntType(nullable=False)),
        DataField(2, "commit_user", VarCharType(nullable=False)),
        DataField(3, "commit_identifier", BigIntType(nullable=False)),
        DataField(4, "commit_kind", VarCharType(nullable=False)),
        DataField(5, "commit_time", TimestampType(3, nullable=False)),
        DataField(6, "base_manifest_list", VarCharType(nullable=False)),
        DataField(7, "delta_manifest_list", VarCharType(nullable=False)),
        DataField(8, "changelog_manifest_list", VarCharType()),
        DataField(9, "total_record_count", BigIntType()),
        DataField(10, "delta_record_count", BigIntType()),
        DataField(11, "changelog_record_count", BigIntType()),
        DataField(12, "watermark", BigIntType()),
        DataField(13, "next_row_id", BigIntType()),
        DataField(14, "operation", VarCharType()),
        DataField(15, "writer_version", VarCharType()),
    )

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        sm = ctx.store.snapshots
        ids = id_candidates(ctx.predicate, "snapshot_id", sm.snapshot_ids())
        snaps: list[Snapshot] = []
        for sid in ids:
            if sm.exists(sid):  # may have expired since the listing
                snaps.append(sm.snapshot(sid))

        def col(get, t: pa.DataType) -> ColumnFn:  # type: ignore[no-untyped-def]
            return lambda: pa.array([get(s) for s in snaps], t)

        def extra_str(key: str) -> ColumnFn:
            return col(lambda s: None if s.extra.get(key) is None else str(s.extra.get(key)), pa.string())

        return len(snaps), {
            "snapshot_id": col(lambda s: s.id, pa.int64()),
            "schema_id": col(lambda s: s.schema_id, pa.int64()),
            "commit_user": col(lambda s: s.commit_user or "", pa.string()),
            "commit_identifier": col(lambda s: s.commit_identifier, pa.int64()),
            "commit_kind": col(lambda s: s.commit_kind, pa.string()),
            "commit_time": lambda: self._local_timestamps([s.time_millis for s in snaps]),
            "base_manifest_list": col(lambda s: s.base_manifest_list, pa.string()),
            "delta_manifest_list": col(lambda s: s.delta_manifest_list, pa.string()),
            "changelog_manifest_list": col(lambda s: s.changelog_manifest_list, pa.string()),
            "total_record_count": col(lambda s: s.total_record_count, pa.int64()),
            "delta_record_count": col(lambda s: s.delta_record_count, pa.int64()),
            "changelog_record_count": col(lambda s: s.changelog_record_count, pa.int64()),
            "watermark": col(lambda s: s.watermark, pa.int64()),
            "next_row_id": col(lambda s: s.next_row_id, pa.int64()),
            "operation": extra_str("operation"),
            "writer_version": extra_str("writerVersion"),
        }
