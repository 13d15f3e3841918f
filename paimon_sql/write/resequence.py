"""Re-sequencing a write that lost a sequence-number race, instead of writing it again.

Two writers of one primary-key bucket number their records from the bucket's highest sequence
number in their base snapshot; the one that commits second is refused (``SequenceConflictError``:
the older write would win the keys both wrote). Its files are already sorted and merged: it only
needs higher numbers. ``resequence`` renumbers them on the latest snapshot, inside the commit's retry
loop (``CommitRequest.rebase``, set by ``Table.write``), so the window another writer can slip
into is one commit attempt, not a whole write: every file of a bucket
is rewritten with its sequence numbers shifted by one offset (their order within the write stays),
so that the smallest is above every sequence number the concurrent commits added there, and the
write's base becomes the latest snapshot. Everything else the conflict check guarantees is checked
against the old base first (the schema, the bucket count of the partitions); the write's own
compaction, planned on the old levels, is dropped (its files deleted), as a conflicting
compaction is dropped at commit, and the next write compacts.

Only where the numbers are all that depends on the base: fixed-bucket primary-key tables without
deletion vectors, first-row, changelog files or index files (their writers look keys up in the
base's levels or index), and not with ``full-compaction.delta-commits`` (every write must land
fully compacted). Elsewhere the write is redone.
"""

from __future__ import annotations

import logging
from collections import defaultdict

import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.format.data_files import read_file
from paimon_sql.lsm.engines import engine_of
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.kinds import FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.write.commit import WriteBase
from paimon_sql.write.conflicts import changes_since, check_schema, check_total_buckets
from paimon_sql.write.file_writer import SEQ, FileNamer, write_data_file
from paimon_sql.write.table_write import CommitChanges

_LOG = logging.getLogger(__name__)


def can_resequence(store: FileStore, changes: CommitChanges) -> bool:
    """Whether ``changes`` can be renumbered on a newer snapshot instead of written again."""
    o = store.options
    return (
        store.has_primary_key and o.bucket > 0 and not o.deletion_vectors_enabled
        and engine_of(o).resequences and o.changelog_producer == "none"
        and not (o.full_compaction_delta_commits or 0) > 0
        and changes.base is not None and not changes.index_entries
        and bool(changes.entries) and all(e.kind == FileKind.ADD and e.file.level == 0 for e in changes.entries)
    )


def drop_compaction(store: FileStore, changes: CommitChanges) -> None:
    """Deletes the files of the write's compaction (outputs and index files, not its own data)."""
    own = {e.file.file_name for e in changes.entries}
    for e in changes.compact_entries:
        if e.kind == FileKind.ADD and e.file.file_name not in own:
            store.file_io.delete_quietly(store.entry_path(e))
    for ie in changes.compact_index_entries:
        store.file_io.delete_quietly(ie.index_file.external_path or store.index_file_path(ie.index_file.file_name))


def resequence(store: FileStore, changes: CommitChanges, latest: Snapshot | None) -> CommitChanges:
    """``changes`` renumbered on ``latest`` (see the module doc); the old data files and the
    compaction's files are deleted. Raises a WriteConflictError when another check fails against
    the old base (then the write must be redone; ``changes``' files are left to the caller)."""
    base = changes.base
    assert base is not None
    ids = store.schemas.schema_ids()
    check_schema(store, base.schema_id, ids[-1] if ids else None)
    since = changes_since(store, base.snapshot_id, latest)
    check_total_buckets(store, since.added, changes.entries)
    highest: dict[tuple[bytes, int], int] = defaultdict(lambda: -1)
    for e in since.added:
        k = (e.partition, e.bucket)
        highest[k] = max(highest[k], e.file.max_sequence_number)
    ours: dict[tuple[bytes, int], list[ManifestEntry]] = defaultdict(list)
    for e in changes.entries:
        ours[(e.partition, e.bucket)].append(e)
    drop_compaction(store, changes)
    out = CommitChanges(base=WriteBase(latest.id if latest is not None else None, base.schema_id))
    old_paths: list[str] = []
    try:
        for (partition, bucket), entries in ours.items():
            offset = max(0, highest[(partition, bucket)] + 1 - min(e.file.min_sequence_number for e in entries))
            for e in entries:
                path = store.entry_path(e)
                if offset == 0:
                    out.entries.append(e)
                    out.written_paths.append(path)
                    continue
                data = read_file(store.file_io, path, store.options.file_format,
                                 expected_rows=e.file.row_count, expected_size=e.file.file_size)
                i = data.schema.get_field_index(SEQ)
                shifted = pc.add(data.column(i), pa.scalar(offset, pa.int64()))
                data = data.set_column(i, data.schema.field(i), shifted)
                namer = FileNamer(store.options.data_file_prefix, store.options.file_format)
                meta, new_path = write_data_file(
                    store, path.rsplit("/", 1)[0], namer, data, e.file.min_sequence_number + offset,
                    e.file.max_sequence_number + offset, level=e.file.level,
                )
                out.written_paths.append(new_path)
                out.entries.append(ManifestEntry(FileKind.ADD, partition, bucket, e.total_buckets, meta))
                old_paths.append(path)
    except BaseException:
        for p in out.written_paths:
            if p not in {store.entry_path(e) for e in changes.entries}:
                store.file_io.delete_quietly(p)
        raise
    for p in old_paths:
        store.file_io.delete_quietly(p)
    _LOG.info("Table %s: a write that lost a sequence-number race was renumbered on snapshot %s",
              store.name, out.base.snapshot_id if out.base else None)
    return out
