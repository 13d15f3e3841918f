"""``t$buckets``: one row per bucket of a snapshot (the latest, or the one time travel picks), as
Paimon's ``BucketsTable``: record count, file size and file count summed over ADD (+) and DELETE (-)
entries, buckets with files left, sorted by partition text (the partition row cast to STRING,
``{2024-01-01}``) and bucket; ``last_update_time`` is the newest file creation time."""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.table.system._snapshot_files import partition_row_strings
from paimon_sql.table.system.base import ColumnFn, ReadContext, SystemTable
from paimon_sql.table.system.partitions import entry_stats
from paimon_sql.types import BigIntType, DataField, IntType, TimestampType, VarCharType


class BucketsTable(SystemTable):
    SYSTEM_NAME = "buckets"
    TIME_TRAVEL = True
    FIELDS = (
        DataField(0, "partition", VarCharType()),
        DataField(1, "bucket", IntType(nullable=False)),
        DataField(2, "record_count", BigIntType(nullable=False)),
        DataField(3, "file_size_in_bytes", BigIntType(nullable=False)),
        DataField(4, "file_count", BigIntType(nullable=False)),
        DataField(5, "last_update_time", TimestampType(3)),
    )

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        store, snap = ctx.store, ctx.snapshot
        if snap is None:
            return 0, {}
        g = entry_stats(store, snap, by_bucket=True)
        parts = g["partition"].to_pylist()
        buckets = g["bucket"].to_pylist()
        texts = partition_row_strings(store, parts)
        order = sorted(range(len(parts)), key=lambda i: (texts[parts[i]], buckets[i]))
        g = g.take(pa.array(order, pa.int64()))
        parts = [parts[i] for i in order]
        cols: dict[str, ColumnFn] = {"partition": lambda: pa.array([texts[p] for p in parts], pa.string())}
        for k in ("bucket", "record_count", "file_size_in_bytes", "file_count", "last_update_time"):
            cols[k] = (lambda k=k: g[k].combine_chunks())  # type: ignore[misc]
        return len(parts), cols
