"""The commit of a row-level operation (UPDATE, MERGE INTO or DELETE through Spark) on an append
table, after Spark computed its rows:

- copy-on-write (no deletion vectors): the statement read the files ``replaced`` of snapshot
  ``base`` and wrote their surviving and changed rows (and inserted rows) as new files; one commit
  deletes exactly the replaced files and adds the new ones;
- deletion vectors: the rows at the given (file, position)s are marked deleted in their files'
  deletion vectors, the new rows (updated and inserted) are added; one commit of both.

Like Paimon (``FileStoreCommitImpl``: a commit that deletes files or changes deletion vectors is an
OVERWRITE), the snapshot is an OVERWRITE when it removes a file or changes a vector, else an APPEND.
The commit is checked against what happened since ``base``: a file of ``base`` that a concurrent
commit removed (compaction, overwrite, delete) fails the statement (its rows may have been read
elsewhere), so rows are never lost or duplicated; concurrent appends are kept."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from paimon_sql.errors import WriteConflictError
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.index_file_meta import IndexManifestEntry
from paimon_sql.meta.kinds import CommitKind, FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.write.append_deletion_vectors import AppendDeletionVectors, dv_entries_by_bucket
from paimon_sql.write.commit import CommitRequest, FileStoreCommit, WriteBase, WriteCompaction
from paimon_sql.write.table_write import CommitChanges


def check_base_files_live(store: FileStore, base: Snapshot | None) -> None:
    """Every data file of ``base`` is still live in the latest snapshot (else a WriteConflictError)."""
    if base is None:
        return
    latest = store.snapshots.latest()
    if latest is None or latest.id == base.id:
        return
    ms = store.manifests
    now = {e.identifier for e in ms.live_entries(latest)}
    gone = [e.file.file_name for e in ms.live_entries(base) if e.identifier not in now]
    if gone:
        raise WriteConflictError(
            f"Commit to table {store.name} conflicts with a concurrent commit: data files of snapshot "
            f"{base.id}, which the statement read, were removed since: {gone[:5]}{' ...' if len(gone) > 5 else ''}"
        )


def commit_row_level(
    store: FileStore,
    committer: FileStoreCommit,
    changes: Sequence[CommitChanges],
    base_id: int | None,
    replaced: frozenset[str] | None = frozenset(),
    deletions: Mapping[str, np.ndarray] | None = None,
) -> int | None:
    """Commits one row-level statement; returns the snapshot id (None: nothing changed).

    ``replaced``: paths (``FileStore.entry_path``, the ``__paimon_file_path`` of their rows) of
    the data files of snapshot ``base_id`` the new files replace (None: every file of it).
    ``deletions``: data file path -> positions to mark deleted (deletion vectors). Files the writers added are deleted when the commit fails."""
    base = store.snapshots.snapshot(base_id) if base_id is not None else None
    live = store.manifests.live_entries(base) if base is not None else []
    by_name = {store.entry_path(e): e for e in live}
    deletes: list[ManifestEntry] = []
    if replaced is None:
        deletes = [ManifestEntry(FileKind.DELETE, e.partition, e.bucket, e.total_buckets, e.file) for e in live]
    else:
        unknown = sorted(n for n in replaced if n not in by_name)
        if unknown:
            raise WriteConflictError(f"Commit to table {store.name}: the statement read data files that snapshot "
                                     f"{base_id} does not have: {unknown[:5]}")
        deletes = [ManifestEntry(FileKind.DELETE, e.partition, e.bucket, e.total_buckets, e.file)
                   for n, e in by_name.items() if n in replaced]
    index_entries: list[IndexManifestEntry] = []
    written_index: list[str] = []
    adds = [e for c in changes for e in c.entries]
    with committer.undo_on_failure(lambda: store.file_io.delete_all_quietly([*written_index, *(p for c in changes for p in c.written_paths)])):
        if deletions:
            stored = dv_entries_by_bucket(store, base)
            vectors: dict[tuple[bytes, int], AppendDeletionVectors] = {}
            for name, positions in sorted(deletions.items()):
                e = by_name.get(name)
                if e is None:
                    raise WriteConflictError(f"Commit to table {store.name}: the statement deletes rows of data file "
                                             f"{name}, which snapshot {base_id} does not have")
                k = (e.partition, e.bucket)
                dvs = vectors.get(k)
                if dvs is None:
                    dvs = vectors[k] = AppendDeletionVectors(store, e.partition, e.bucket, stored.get(k, []))
                dvs.delete(e.file.file_name, np.unique(np.asarray(positions, dtype=np.int64)))
            for dvs in vectors.values():
                entries, paths = dvs.persist()
                index_entries += entries
                written_index += paths
        if not deletes and not adds and not index_entries:
            return None
        check_base_files_live(store, base)
        kind = CommitKind.OVERWRITE if deletes or index_entries else CommitKind.APPEND
        bases = {c.base for c in changes if c.base is not None}
        schema_id = next(iter(bases)).schema_id if len(bases) == 1 else store.schema.id
        req = CommitRequest(kind, tuple(deletes + adds), tuple(index_entries),
                            base=WriteBase(base_id, schema_id))
        snap = committer.commit(req, WriteCompaction.of(changes))
        return snap.id
