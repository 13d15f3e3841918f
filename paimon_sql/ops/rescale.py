"""Rescaling the buckets of partitions (Paimon's ``rescale``): the live rows of the selected
partitions (of the whole table when unpartitioned) are read and written again with ``bucket_num``
buckets (default: the table's ``bucket``, e.g. after ``ALTER TABLE ... SET ('bucket' = ...)``), as
one OVERWRITE of those partitions. Like Paimon's strict mode, a commit that lands while the rows are
rewritten fails the rescale (nothing is lost), and its files are deleted."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pyarrow as pa

from paimon_sql.errors import UnsupportedError, ValidationError, WriteConflictError
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.kinds import CommitKind, FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.predicate import Predicate
from paimon_sql.scan.planner import live_entries, plan
from paimon_sql.scan.reader import read_split
from paimon_sql.write.commit import CommitRequest, FileStoreCommit, WriteCompaction
from paimon_sql.write.table_write import TableWrite


def rescale(
    store: FileStore, bucket_num: int | None = None, partition_filter: Predicate | None = None,
    partition_match: Callable[[bytes], bool] | None = None, committer: FileStoreCommit | None = None,
) -> int | None:
    """Rewrites the selected partitions with ``bucket_num`` buckets; returns the snapshot id (None
    when no partition was selected). When the rewrite compacted (``full-compaction.delta-commits``),
    a COMPACT snapshot follows the OVERWRITE one."""
    name = store.name
    if store.options.bucket <= 0 and not store.has_primary_key:
        raise UnsupportedError(f"Rescale of table {name}: only tables with fixed buckets can be rescaled")
    if store.options.bucket == -1:
        raise UnsupportedError(f"Rescale of table {name}: dynamic-bucket tables (bucket = -1) have no bucket number to rescale")
    if bucket_num is not None and (isinstance(bucket_num, bool) or not isinstance(bucket_num, int) or bucket_num < 1):
        raise ValidationError(f"Rescale of table {name}: bucket_num must be a positive number, got {bucket_num!r}")
    base = store.snapshots.latest()
    if base is None:
        raise ValidationError(f"Table {name} has no snapshot, no need to rescale.")
    selected = {e.partition for e in live_entries(store, base, partition_filter)
                if partition_match is None or partition_match(e.partition)}
    if not selected:
        return None
    target = bucket_num if bucket_num is not None else store.options.bucket
    schema = dataclasses.replace(store.schema, options={**store.schema.options, "bucket": str(target)})
    rescaled = store.with_schema(schema)
    fields = list(store.schema.fields)
    writer = TableWrite(rescaled, base, ignore_previous_files=True)
    committer = committer.on(rescaled) if committer is not None else FileStoreCommit(rescaled)
    with committer.undo_on_failure(writer.abort):
        for split in plan(store, base, partition_filter):
            if split.partition in selected:
                rows = read_split(store, split, fields, defaults=False)
                if rows.num_rows:
                    writer.write(rows if isinstance(rows, pa.Table) else pa.table(rows))
        changes = writer.prepare_commit()
        snap = committer.commit(CommitRequest(
            CommitKind.OVERWRITE, tuple(changes.entries), tuple(changes.index_entries),
            deletes_for=_partitions_of(base.id, selected), base=changes.base,
        ), WriteCompaction.of([changes]))
    return snap.id


def _partitions_of(base_id: int, partitions: set[bytes]) -> Callable[[FileStore, Snapshot | None], list[ManifestEntry]]:
    def deletes_for(store: FileStore, latest: Snapshot | None) -> list[ManifestEntry]:
        if latest is None or latest.id != base_id:
            raise WriteConflictError(
                f"Rescale of table {store.name}: snapshot {latest.id if latest else None} was committed while "
                f"the rows of snapshot {base_id} were rewritten; rescale again"
            )
        return [dataclasses.replace(e, kind=FileKind.DELETE) for e in store.manifests.live_entries(latest)
                if e.partition in partitions]

    return deletes_for
