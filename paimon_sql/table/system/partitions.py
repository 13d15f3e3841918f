"""``t$partitions``: one row per partition of a snapshot (the latest, or the one time travel picks),
as Paimon's ``PartitionsTable`` computes it from the manifest entries: record count, file size and
file count summed over ADD (+) and DELETE (-) entries, partitions with files left, sorted by the
partition text ``k=v/k2=v2`` (values cast to STRING, null as the default partition name).

``last_update_time`` is the newest file creation time (the stored wall clock); ``created_at``,
``created_by``, ``updated_by`` and ``options`` are null and ``done`` false, as for a filesystem
catalog; ``deleted_record_count`` sums the deletion-vector cardinalities of deletion-vector tables
(null when a vector lacks its cardinality) and is 0 otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.index_file_meta import INDEX_TYPE_DELETION_VECTORS
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.table.system._snapshot_files import all_entries, partition_spec_strings
from paimon_sql.table.system.base import ColumnFn, ReadContext, SystemTable, constant
from paimon_sql.types import BigIntType, BooleanType, DataField, IntType, TimestampType, VarCharType

_KEYS = ("record_count", "file_size_in_bytes", "file_count", "last_update_time", "total_buckets")


def entry_stats(
    store: FileStore, snapshot: Snapshot, by_bucket: bool, entries: Sequence[ManifestEntry] | None = None
) -> pa.Table:
    """Per partition (and bucket): signed sums of rows, bytes and files over all entries (the
    snapshot's, unless given), the newest creation time and the total buckets of the last entry;
    groups with files only."""
    if entries is None:
        entries = all_entries(store, snapshot)
    sign = [1 if e.kind == 0 else -1 for e in entries]
    t = pa.table({
        "partition": pa.array([e.partition for e in entries], pa.binary()),
        "bucket": pa.array([e.bucket for e in entries], pa.int32()),
        "record_count": pa.array([s * e.file.row_count for s, e in zip(sign, entries)], pa.int64()),
        "file_size_in_bytes": pa.array([s * e.file.file_size for s, e in zip(sign, entries)], pa.int64()),
        "file_count": pa.array(sign, pa.int64()),
        "last_update_time": pa.array([e.file.creation_time_ms for e in entries], pa.int64()),
        "total_buckets": pa.array([e.total_buckets for e in entries], pa.int32()),
    })
    keys = ["partition", "bucket"] if by_bucket else ["partition"]
    g = t.group_by(keys, use_threads=False).aggregate([
        ("record_count", "sum"), ("file_size_in_bytes", "sum"), ("file_count", "sum"),
        ("last_update_time", "max"), ("total_buckets", "last"),
    ])
    g = g.rename_columns([c.rsplit("_", 1)[0] if c.endswith(("_sum", "_max", "_last")) else c
                          for c in g.column_names])
    return g.filter(pc.greater(g["file_count"], 0))


def deleted_record_counts(store: FileStore, snapshot: Snapshot) -> dict[bytes, int | None]:
    """Partition -> rows marked deleted by the snapshot's deletion vectors (None when unknown)."""
    if not store.options.deletion_vectors_enabled:
        return {}
    out: dict[bytes, int | None] = {}
    for ie in store.manifests.index_entries(snapshot):
        f = ie.index_file
        if f.index_type != INDEX_TYPE_DELETION_VECTORS or not f.dv_ranges:
            continue
        if ie.partition in out and out[ie.partition] is None:
            continue
        count = out.get(ie.partition, 0)
        assert count is not None
        for r in f.dv_ranges.values():
            if r.cardinality is None:
                out[ie.partition] = None
                break
            count += r.cardinality
        else:
            out[ie.partition] = count
    return out


class PartitionsTable(SystemTable):
    SYSTEM_NAME = "partitions"
    TIME_TRAVEL = True
    FIELDS = (
        DataField(0, "partition", VarCharType()),
        DataField(1, "record_count", BigIntType(nullable=False)),
        DataField(2, "file_size_in_bytes", BigIntType(nullable=False)),
        DataField(3, "file_count", BigIntType(nullable=False)),
        DataField(4, "last_update_time", TimestampType(3)),
        DataField(5, "created_at", TimestampType(3)),
        DataField(6, "created_by", VarCharType()),
        DataField(7, "updated_by", VarCharType()),
        DataField(8, "options", VarCharType()),
        DataField(9, "total_buckets", IntType(nullable=False)),
        DataField(10, "done", BooleanType(nullable=False)),
        DataField(11, "deleted_record_count", BigIntType()),
    )

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        store, snap = ctx.store, ctx.snapshot
        if snap is None:
            return 0, {}
        g = entry_stats(store, snap, by_bucket=False)
        parts = g["partition"].to_pylist()
        texts = partition_spec_strings(store, parts)
        order = sorted(range(len(parts)), key=lambda i: texts[parts[i]])  # BinaryString order = code points
        g = g.take(pa.array(order, pa.int64()))
        parts = [parts[i] for i in order]
        n = len(parts)
        cols: dict[str, ColumnFn] = {
            "partition": lambda: pa.array([texts[p] for p in parts], pa.string()),
            "created_at": constant(n, None, pa.timestamp("ms")),
            "created_by": constant(n, None, pa.string()),
            "updated_by": constant(n, None, pa.string()),
            "options": constant(n, None, pa.string()),
            "done": constant(n, False, pa.bool_()),
            "deleted_record_count": lambda: _deleted(store, snap, parts),
        }
        for k in _KEYS:
            cols[k] = (lambda k=k: g[k].combine_chunks())  # type: ignore[misc]
        return n, cols


def _deleted(store: FileStore, snap: Snapshot, parts: list[bytes]) -> pa.Array:
    counts = deleted_record_counts(store, snap)
    return pa.array([counts.get(p, 0) for p in parts], pa.int64())
