"""Repairs and metadata maintenance: ``remove_unexisting_files`` (Paimon's ``ListUnexistingFiles`` /
``SparkRemoveUnexistingFiles``: the latest snapshot's data files that are gone from storage are
removed from the table by one commit), ``repair_earliest_snapshot`` (``SnapshotManager
.repairEarliestSnapshot``: point EARLIEST past a gap of lost snapshot files) and ``compact_manifest``
(``FileStoreCommit.compactManifest``: one COMPACT snapshot whose base manifests hold only live
entries)."""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass

from paimon_sql.errors import NotFoundError, ValidationError
from paimon_sql.fs.file_io import basename, join
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.kinds import CommitKind, FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.write.commit import CommitRequest, FileStoreCommit

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class RemoveUnexistingFilesResult:
    paths: tuple[str, ...]  # the data files the latest snapshot names but storage lacks
    snapshot_id: int | None  # the commit removing them (None: none missing, or a dry run)


def remove_unexisting_files(
    store: FileStore, dry_run: bool = False, committer: FileStoreCommit | None = None
) -> RemoveUnexistingFilesResult:
    """Removes from the table the data files of the latest snapshot that no longer exist (one
    listing per bucket folder, then one commit deleting their entries); ``dry_run`` only lists."""
    if not isinstance(dry_run, bool):
        raise ValidationError(f"remove_unexisting_files of table {store.name}: dry_run must be true or false, got {dry_run!r}")
    latest = store.snapshots.latest()
    if latest is None:
        return RemoveUnexistingFilesResult((), None)
    fio = store.file_io
    by_dir: dict[str, list[tuple[str, ManifestEntry]]] = {}
    missing_entries: list[ManifestEntry] = []
    missing_paths: list[str] = []
    for e in store.manifests.live_entries(latest):
        path = store.entry_path(e)
        by_dir.setdefault(path.rsplit("/", 1)[0], []).append((path, e))
    for folder, items in by_dir.items():
        try:
            present = set(fio.list_names(folder))
        except NotFoundError:
            present = set()
        for path, e in items:
            if basename(path) not in present and not fio.exists(path):
                missing_paths.append(path)
                missing_entries.append(e)
    if not missing_entries or dry_run:
        return RemoveUnexistingFilesResult(tuple(sorted(missing_paths)), None)
    deletes = tuple(dataclasses.replace(e, kind=FileKind.DELETE) for e in missing_entries)
    snap = (committer or FileStoreCommit(store)).commit(CommitRequest(CommitKind.APPEND, deletes))
    _LOG.warning("Removed %d data files that no longer exist from table %s (snapshot %d)",
                 len(deletes), store.name, snap.id)
    return RemoveUnexistingFilesResult(tuple(sorted(missing_paths)), snap.id)


def repair_earliest_snapshot(store: FileStore, snapshot_id: int) -> tuple[int, int]:
    """Points EARLIEST at ``snapshot_id`` when the snapshots before it were lost: every snapshot
    from it to the latest exists and the one before it does not (or it is the earliest already).
    Returns (previous earliest, new earliest)."""
    if isinstance(snapshot_id, bool) or not isinstance(snapshot_id, int):
        raise ValidationError(f"repair_earliest_snapshot of table {store.name}: snapshot_id must be an integer, got {snapshot_id!r}")
    sm = store.snapshots
    previous = sm.earliest_id()
    latest = sm.latest_id()
    if previous is None or latest is None:
        raise ValidationError(f"Cannot repair earliest snapshot for an empty table {store.name}.")
    if snapshot_id < previous:
        raise ValidationError(f"Snapshot {snapshot_id} must not be earlier than current earliest snapshot {previous}"
                              f" of table {store.name}.")
    if snapshot_id > latest:
        raise ValidationError(f"Snapshot {snapshot_id} must not be later than latest snapshot {latest} of table {store.name}.")
    ids = {i for i in sm.snapshot_ids() if snapshot_id <= i <= latest}
    for i in range(snapshot_id, latest + 1):
        if i not in ids:
            raise ValidationError(f"Snapshot {i} of table {store.name} does not exist.")
    if snapshot_id != previous and sm.exists(snapshot_id - 1):
        raise ValidationError(f"Snapshot {snapshot_id} of table {store.name} does not immediately follow a snapshot gap.")
    fio = store.file_io
    fio.overwrite_atomic(join(sm.dir, "EARLIEST"), str(snapshot_id).encode())
    return previous, snapshot_id


def compact_manifests(store: FileStore, dry_run: bool = False, committer: FileStoreCommit | None = None) -> int | None:
    """Rewrites the latest snapshot's manifests into full ones (only live entries) as one COMPACT
    snapshot; returns its id (None: the table has no snapshot, or a dry run, which logs what it
    would rewrite)."""
    latest = store.snapshots.latest()
    if latest is None:
        return None
    if dry_run:
        metas = store.manifests.data_manifests(latest)
        live = len(store.manifests.live_entries(latest, metas))
        _LOG.info("compact_manifest of table %s (dry run): %d manifests with %d entries would become manifests "
                  "of %d live entries", store.name, len(metas), sum(m.num_added_files + m.num_deleted_files for m in metas),
                  live)
        return None
    return (committer or FileStoreCommit(store)).commit(
        CommitRequest(CommitKind.COMPACT, (), compact_manifests=True)).id
