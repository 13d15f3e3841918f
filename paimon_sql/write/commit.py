"""Committing: base snapshot + changes → new snapshot, created atomically, retried on lost races.

``build_snapshot`` is the pure part (it only writes new, private manifest files); ``commit`` is the
one retry loop that creates ``snapshot-<id>`` exclusively, waiting between attempts as Paimon does
(``commit.min-retry-wait`` doubled per retry up to ``commit.max-retry-wait``, plus up to 20 %
jitter; at most ``commit.max-retries`` retries within ``commit.timeout``). Before every attempt the
commit is checked against what changed since its writer's base snapshot (``write/conflicts.py``).
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace

from paimon_sql.errors import CommitConflictError, WriteConflictError
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.index_file_meta import INDEX_TYPE_DELETION_VECTORS, IndexManifestEntry
from paimon_sql.meta.kinds import FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry, merge_entries
from paimon_sql.meta.manifest_file_meta import ManifestFileMeta
from paimon_sql.meta.snapshot import BATCH_COMMIT_IDENTIFIER, Snapshot
from paimon_sql.write.conflicts import (
    changes_since,
    check_append_deletion_vectors,
    check_compacted_buckets_unchanged,
    check_dynamic_bucket_index,
    check_not_committed,
    check_schema,
    check_sequence_numbers,
    check_total_buckets,
)

_LOG = logging.getLogger(__name__)

# Rewrite the base manifests into one when a snapshot has this many of them (manifest.merge-min-count)
_ENTRIES_PER_MANIFEST = 200_000


@dataclass(frozen=True)
class WriteBase:
    """What a writer laid its files out by: the snapshot its sequence numbers and dynamic-bucket
    assignments continue from (None: the table had none) and the schema it wrote with."""

    snapshot_id: int | None
    schema_id: int


@dataclass(frozen=True)
class CommitRequest:
    kind: str  # APPEND | OVERWRITE | COMPACT
    entries: tuple[ManifestEntry, ...]
    index_entries: tuple[IndexManifestEntry, ...] = ()
    commit_user: str = ""
    # For OVERWRITE: computes the DELETE entries against the snapshot the commit lands on.
    deletes_for: Callable[[FileStore, Snapshot | None], list[ManifestEntry]] | None = None
    # the writers' base: the commit is checked against what changed since (None: nothing to check,
    # e.g. a commit that writes no new sequence numbers)
    base: WriteBase | None = None
    # COMPACT: the entries the same write committed just before (not a concurrent change)
    own_entries: tuple[ManifestEntry, ...] = ()
    # rewrite the base manifests into full ones whatever their number (compact_manifest)
    compact_manifests: bool = False


def check_deleted_files_exist(live: list[ManifestEntry], deletes: list[ManifestEntry], table: str) -> None:
    """File conflict: every file a commit deletes must still be live in the snapshot it lands on."""
    if not deletes:
        return
    ids = {e.identifier for e in live}
    gone = [d.file.file_name for d in deletes if d.identifier not in ids]
    if gone:
        raise WriteConflictError(
            f"Commit to table {table} conflicts with a concurrent commit: files it deletes no longer "
            f"exist: {gone[:5]}{' ...' if len(gone) > 5 else ''}"
        )


def build_snapshot(
    store: FileStore, base: Snapshot | None, req: CommitRequest, entries: list[ManifestEntry], written: list[str]
) -> Snapshot:
    """Writes the manifests of a new snapshot on top of ``base`` and returns it (not yet committed)."""
    ms = store.manifests
    schema_id = store.schema.id
    base_metas: list[ManifestFileMeta] = ms.data_manifests(base) if base is not None else []
    if len(base_metas) >= store.options.manifest_merge_min_count or (req.compact_manifests and base_metas):
        base_metas = _full_compact(store, base_metas, schema_id, written)
    base_list, base_size = ms.write_manifest_list(base_metas)
    written.append(ms.path(base_list))
    delta_metas = []
    if entries:
        delta = ms.write_manifest(entries, schema_id)
        written.append(ms.path(delta.file_name))
        delta_metas.append(delta)
    delta_list, delta_size = ms.write_manifest_list(delta_metas)
    written.append(ms.path(delta_list))

    index_manifest = base.index_manifest if base is not None else None
    # an overwrite drops the index files of the partitions it empties (as Paimon's overwrite does)
    overwritten = {e.partition for e in entries if e.kind == FileKind.DELETE} if req.kind == "OVERWRITE" else set()
    prev = ms.index_entries(base) if base is not None and (req.index_entries or overwritten) else []
    if req.index_entries or any(e.partition in overwritten for e in prev):
        # an entry replaces the bucket's index of its type; a DELETE entry only removes it. The
        # deletion vectors of a bucket-unaware append table are combined by file name instead
        # (Paimon's GlobalCombiner: a partition has many index files, an entry adds or removes one)
        by_name = not store.has_primary_key and store.options.bucket == -1
        by_file = {INDEX_TYPE_DELETION_VECTORS} if by_name else set()
        removed = {e.index_file.file_name for e in req.index_entries if e.index_file.index_type in by_file}
        replaced = {(e.partition, e.bucket, e.index_file.index_type) for e in req.index_entries
                    if e.index_file.index_type not in by_file}
        kept = [e for e in prev if (e.partition, e.bucket, e.index_file.index_type) not in replaced
                and e.index_file.file_name not in removed and e.partition not in overwritten]
        added = [e for e in req.index_entries if e.kind == FileKind.ADD]
        index_manifest = ms.write_index_manifest(kept + added)
        written.append(ms.path(index_manifest))

    added_rows = sum(e.file.row_count for e in entries if e.kind == FileKind.ADD)
    deleted_rows = sum(e.file.row_count for e in entries if e.kind == FileKind.DELETE)
    prev_total = (base.total_record_count or 0) if base is not None else 0
    return Snapshot(
        id=(base.id + 1) if base is not None else 1,
        schema_id=schema_id,
        base_manifest_list=base_list,
        base_manifest_list_size=base_size,
        delta_manifest_list=delta_list,
        delta_manifest_list_size=delta_size,
        changelog_manifest_list=None,
        index_manifest=index_manifest,
        commit_user=req.commit_user,
        commit_identifier=BATCH_COMMIT_IDENTIFIER,
        commit_kind=req.kind,
        time_millis=int(time.time() * 1000),
        total_record_count=prev_total + added_rows - deleted_rows,
        delta_record_count=added_rows - deleted_rows,
        changelog_record_count=0,
        next_row_id=base.next_row_id if base is not None and base.next_row_id is not None else 0,
    )


def _full_compact(
    store: FileStore, metas: list[ManifestFileMeta], schema_id: int, written: list[str]
) -> list[ManifestFileMeta]:
    entries: list[ManifestEntry] = []
    for m in metas:
        entries.extend(store.manifests.read_manifest(m.file_name))
    live = [e for e in merge_entries(entries) if e.kind == FileKind.ADD]
    out = []
    for i in range(0, len(live), _ENTRIES_PER_MANIFEST):
        meta = store.manifests.write_manifest(live[i : i + _ENTRIES_PER_MANIFEST], schema_id)
        written.append(store.manifests.path(meta.file_name))
        out.append(meta)
    return out


def check_against_base(store: FileStore, req: CommitRequest, latest: Snapshot | None, entries: list[ManifestEntry]) -> None:
    """Raises a WriteConflictError when ``req`` would land wrong on ``latest`` because of what
    changed since its writers' base (see ``write/conflicts.py``)."""
    if req.base is None:
        return
    ids = store.schemas.schema_ids()
    check_schema(store, req.base.schema_id, ids[-1] if ids else None)
    since = changes_since(store, req.base.snapshot_id, latest)
    if req.kind == "COMPACT":
        # a primary-key compaction keeps sequence numbers and drops deletes at the highest level: its
        # buckets must be as it read them; an append compaction only needs its files (checked above)
        if store.has_primary_key:
            check_compacted_buckets_unchanged(store, since, entries, req.own_entries)
        return
    check_not_committed(store, since, entries)
    check_sequence_numbers(store, since, entries)
    check_dynamic_bucket_index(store, since, req.index_entries, entries)
    check_total_buckets(store, since.added, entries)


def commit_write_compaction(
    store: FileStore, compact: list[ManifestEntry], index_entries: list[IndexManifestEntry],
    base: WriteBase | None, committed: list[ManifestEntry],
) -> int | None:
    """Commits what a write's compaction changed as a COMPACT snapshot after the write's own
    snapshot (``committed``: its entries), as Paimon does, and returns its id. The data is committed
    already: when the compaction cannot land (a concurrent commit changed a bucket it compacted, an
    overwrite replaced files it read, two writers compacted one bucket), its files are deleted,
    the table stays uncompacted, a warning says why and None is returned. (An overwriting write
    compacts only its own files: see TableWrite's ``ignore_previous_files``.)"""
    own = {e.file.file_name for e in committed}
    removed = {e.file.file_name for e in compact if e.kind == FileKind.DELETE}
    outputs = [e for e in compact if e.kind == FileKind.ADD and e.file.file_name not in own | removed]
    deleted = [e.identifier for e in compact if e.kind == FileKind.DELETE]
    if len(deleted) != len(set(deleted)):
        reason = "several writers compacted the same bucket"
    else:
        try:
            return commit(store, CommitRequest(
                "COMPACT", tuple(compact), tuple(index_entries), base=base, own_entries=tuple(committed),
            )).id
        except (WriteConflictError, CommitConflictError) as e:
            reason = str(e)
    _LOG.warning("Table %s: the write's compaction is not committed (%s)", store.name, reason)
    for out in outputs:
        store.file_io.delete_quietly(store.entry_path(out))
    for ie in index_entries:
        store.file_io.delete_quietly(ie.index_file.external_path or store.index_file_path(ie.index_file.file_name))
    return None


def retry_wait_ms(attempt: int, min_wait_ms: int, max_wait_ms: int, rng: random.Random | None = None) -> float:
    """Paimon's wait before retry ``attempt`` (0-based): the minimum wait doubled per retry, capped
    at the maximum, plus up to 20 % random jitter."""
    wait = min(min_wait_ms * (2.0 ** min(attempt, 62)), max_wait_ms)
    return wait + (rng or random).uniform(0, max(1.0, wait * 0.2))


def commit(store: FileStore, req: CommitRequest) -> Snapshot:
    """Commits ``req`` as one new snapshot; retries when another writer took the snapshot id."""
    if not req.commit_user:
        req = replace(req, commit_user=str(uuid.uuid4()))
    opts = store.options
    retries, timeout_ms = opts.commit_max_retries, opts.commit_timeout_ms
    started = time.monotonic()
    attempt = 0
    while True:
        base = store.snapshots.latest()
        entries = list(req.entries)
        deletes: list[ManifestEntry] = []
        if req.deletes_for is not None:
            deletes = req.deletes_for(store, base)
        explicit_deletes = [e for e in entries if e.kind == FileKind.DELETE]
        live: list[ManifestEntry] | None = None
        if explicit_deletes:
            live = store.manifests.live_entries(base) if base is not None else []
            check_deleted_files_exist(live, explicit_deletes, store.name)
        if not store.has_primary_key and (req.index_entries or explicit_deletes):
            if live is None:
                live = store.manifests.live_entries(base) if base is not None else []
            check_append_deletion_vectors(store, base, live, explicit_deletes, req.index_entries)
        entries = deletes + entries
        check_against_base(store, req, base, entries)
        written: list[str] = []
        try:
            snap = build_snapshot(store, base, req, entries, written)
            committed = store.snapshots.try_commit(snap)
        except BaseException:
            for p in written:
                store.file_io.delete_quietly(p)
            raise
        if committed:  # visible now: nothing of it may be deleted, whatever happens next
            return snap
        for p in written:  # lost the race: drop this attempt's manifests and rebase
            store.file_io.delete_quietly(p)
        elapsed_ms = (time.monotonic() - started) * 1000
        if attempt >= retries or (timeout_ms is not None and elapsed_ms > timeout_ms):
            raise CommitConflictError(
                f"Commit to table {store.name} failed after {attempt} retries in {elapsed_ms:.0f} ms: "
                "too many concurrent commits (raise 'commit.max-retries' or 'commit.timeout')"
            )
        time.sleep(retry_wait_ms(attempt, opts.commit_min_retry_wait_ms, opts.commit_max_retry_wait_ms) / 1000)
        attempt += 1
