"""Rollback: make an older snapshot (or a tagged one) the latest, as Apache Paimon does.

Semantics (Paimon's ``FileStoreTable.rollbackTo`` and ``RollbackHelper``, since Paimon 1.2):

- to a snapshot: every snapshot after it is deleted, and so are the tags of snapshots after it and
  long-lived changelogs after it; the ``LATEST`` hint points at it. A snapshot that has expired but
  is still tagged is rolled back to through its (first) tag.
- to a tag: the same, around the tagged snapshot; when that snapshot has expired, the tag's snapshot
  is written back as the snapshot file (and the ``EARLIEST`` hint points at it).
- data files and manifests written by the removed snapshots are NOT deleted (Paimon stopped doing
  that in 1.2: they are orphan files for ``remove_orphan_files``); so a rollback never deletes a
  file another snapshot, tag or branch still uses.

Crash safety: every change keeps the table readable, so an interrupted rollback leaves either the
old state or a consistent, shorter history, and running it again finishes it. The restored
snapshot file (rollback to an expired tag) is written first, below the earliest snapshot, where no
reader sees it while newer snapshots exist; then the ``LATEST`` hint; then snapshots are deleted
from the newest down (the history stays contiguous); then changelogs and tags; the ``EARLIEST``
hint last. Do not run it while other writers commit to the table (Paimon has the same rule).
"""

from __future__ import annotations

from dataclasses import dataclass

from paimon_sql.errors import CommitConflictError, NotFoundError, ValidationError
from paimon_sql.fs.file_io import join
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.meta.travel import snapshot_at_or_before_time, snapshot_at_or_before_watermark
from paimon_sql.ops.tags import tagged_snapshots, trim_to_snapshot, validate_tag_name


@dataclass(frozen=True)
class RollbackResult:
    table: str
    previous_snapshot_id: int  # the latest snapshot before the rollback
    current_snapshot_id: int  # the snapshot the table was rolled back to
    deleted_snapshots: tuple[int, ...]
    deleted_tags: tuple[str, ...]
    restored_snapshot: bool  # the snapshot file was written back from its tag


def rollback(store: FileStore, snapshot_id: int | None = None, tag: str | None = None) -> RollbackResult:
    """Rolls the table (or branch) back to ``snapshot_id`` or to the snapshot of ``tag``."""
    if (snapshot_id is None) == (tag is None):
        raise ValidationError(f"Rollback of table {store.name} needs exactly one of a snapshot id and a tag")
    sm = store.snapshots
    latest = sm.latest()
    if latest is None:
        raise NotFoundError(f"Cannot roll back table {store.name}: it has no snapshot")
    if snapshot_id is not None:
        if isinstance(snapshot_id, bool) or not isinstance(snapshot_id, int):
            raise ValidationError(f"Snapshot id to roll table {store.name} back to must be an integer, got {snapshot_id!r}")
        if sm.exists(snapshot_id):
            return _rollback_to(store, latest, sm.snapshot(snapshot_id), restore=False)
        for snap, names in tagged_snapshots(store.tags):
            if snap.id == snapshot_id:
                return _rollback_to(store, latest, snap, restore=True, via_tag=names[0])
        raise NotFoundError(
            f"Cannot roll back table {store.name} to snapshot {snapshot_id}: it does not exist "
            f"(snapshots {sm.earliest_id()}..{sm.latest_id()}) and no tag keeps it"
        )
    assert tag is not None
    validate_tag_name(tag, store.name, new=False)
    if not store.tags.exists(tag):
        raise NotFoundError(f"Cannot roll back table {store.name} to tag {tag!r}: the tag does not exist")
    tagged = trim_to_snapshot(store.tags.tagged_snapshot(tag))
    return _rollback_to(store, latest, tagged, restore=True, via_tag=tag)


def _rollback_to(
    store: FileStore, latest: Snapshot, target: Snapshot, restore: bool, via_tag: str | None = None
) -> RollbackResult:
    sm = store.snapshots
    fio = store.file_io
    latest_id = latest.id
    if target.id > latest_id:
        raise ValidationError(
            f"Cannot roll table {store.name} back to snapshot {target.id}: it is newer than the latest "
            f"snapshot {latest_id}"
        )
    # 1. an expired tagged snapshot comes back first, below the earliest snapshot
    restored = False
    if restore and not sm.exists(target.id):
        data = target.to_json().encode("utf-8")
        ok = fio.try_create_exclusive(sm.path(target.id), data)
        if not ok and not sm.exists(target.id):
            raise CommitConflictError(
                f"Cannot restore snapshot {target.id} of table {store.name} from tag {via_tag!r}"
            )
        restored = ok
    # 2. the LATEST hint (readers still walk up to newer snapshots until those are deleted)
    fio.overwrite_atomic(join(sm.dir, "LATEST"), str(target.id).encode())
    # 3. newer snapshots, newest first (listed: a gap left by an interrupted run is no obstacle)
    deleted: list[int] = []
    for sid in sorted((i for i in sm.snapshot_ids() if i > target.id), reverse=True):
        if fio.delete(sm.path(sid)):
            deleted.append(sid)
    # 4. long-lived changelogs and tags after the target
    _clean_changelogs(store, target.id)
    deleted_tags: list[str] = []
    for snap, names in reversed(tagged_snapshots(store.tags)):
        if snap.id <= target.id:
            break
        for name in names:
            fio.delete_quietly(store.tags.path(name))
            deleted_tags.append(name)
    # 5. the EARLIEST hint, when it no longer names the earliest snapshot (a restored one)
    ids = sm.snapshot_ids()
    if ids and _read_hint(store, "EARLIEST") != ids[0]:
        fio.overwrite_atomic(join(sm.dir, "EARLIEST"), str(ids[0]).encode())
    return RollbackResult(
        store.name, latest_id, target.id, tuple(deleted), tuple(sorted(deleted_tags)), restored
    )


def _read_hint(store: FileStore, name: str) -> int | None:
    try:
        return int(store.file_io.read_text(join(store.snapshots.dir, name)).strip())
    except (NotFoundError, ValueError):
        return None


def _clean_changelogs(store: FileStore, retained_id: int) -> None:
    """Long-lived changelog files (``changelog/changelog-<id>``) after the retained snapshot, and
    their LATEST hint (``-1`` when none is left), as ``RollbackHelper.cleanLongLivedChangelogs``."""
    fio = store.file_io
    cm = store.changelogs
    ids = cm.ids()
    if not ids:
        return
    doomed = [i for i in ids if i > retained_id]
    if not doomed:
        return
    kept = [i for i in ids if i <= retained_id]
    fio.overwrite_atomic(join(cm.dir, "LATEST"), str(kept[-1] if kept else -1).encode())
    for i in reversed(doomed):
        fio.delete_quietly(cm.path(i))


def rollback_to_timestamp(store: FileStore, timestamp_ms: int) -> RollbackResult:
    """Rolls back to the latest snapshot committed at or before ``timestamp_ms`` (epoch millis),
    as Paimon's ``rollback_to_timestamp``."""
    if store.snapshots.latest_id() is None:
        raise NotFoundError(f"Cannot roll back table {store.name}: it has no snapshot")
    snap = snapshot_at_or_before_time(store, timestamp_ms, f"rollback_to_timestamp of table {store.name}")
    return rollback(store, snapshot_id=snap.id)


def rollback_to_watermark(store: FileStore, watermark: int) -> RollbackResult:
    """Rolls back to the latest snapshot whose watermark is at or below ``watermark``, as Paimon's
    ``rollback_to_watermark``."""
    if store.snapshots.latest_id() is None:
        raise NotFoundError(f"Cannot roll back table {store.name}: it has no snapshot")
    snap = snapshot_at_or_before_watermark(store, watermark, f"rollback_to_watermark of table {store.name}")
    return rollback(store, snapshot_id=snap.id)
