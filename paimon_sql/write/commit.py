"""Committing: base snapshot + changes → new snapshot, created atomically, retried on lost races.

``build_snapshot`` is the pure part (it only writes new, private manifest files); ``commit`` is the
one retry loop that creates ``snapshot-<id>`` exclusively, waiting between attempts as Paimon does
(``commit.min-retry-wait`` doubled per retry up to ``commit.max-retry-wait``, plus up to 20 %
jitter; at most ``commit.max-retries`` retries within ``commit.timeout``). Before every attempt the
commit is checked against what changed since its writer's base snapshot (``write/conflicts.py``).

``FileStoreCommit`` (Paimon's ``FileStoreCommitImpl``) is what every commit path calls: one stable
commit user, the data commit (APPEND or OVERWRITE) and then, only after it landed, the COMPACT
commit of the same write (a compaction conflict drops the compaction, never the data), and
``filter_committed``. The table layer's ``TableCommit`` adds the post-commit maintenance.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import random
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from paimon_sql.errors import AlreadyCommittedError, CommitConflictError, NotFoundError, WriteConflictError
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.index_file_meta import INDEX_TYPE_DELETION_VECTORS, IndexManifestEntry
from paimon_sql.meta.kinds import CommitKind, FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry, merge_entries
from paimon_sql.meta.manifest_file_meta import ManifestFileMeta
from paimon_sql.meta.snapshot import BATCH_COMMIT_IDENTIFIER, Snapshot
from paimon_sql.scan.changes import delta_entries
from paimon_sql.write.changes import CommitChanges, WriteBase  # noqa: F401 (WriteBase re-exported)
from paimon_sql.write.conflicts import (
    SequenceConflictError,
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
class CommitRequest:
    kind: CommitKind
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
    # Paimon's commitIdentifier (a streaming checkpoint; batch commits use Long.MAX_VALUE)
    commit_identifier: int = BATCH_COMMIT_IDENTIFIER
    # the changelog slot: entries of changelog files, written as the snapshot's changelog manifest
    # list with their row count
    changelog_entries: tuple[ManifestEntry, ...] = ()
    # the snapshot this commit must land after (a write's COMPACT: its APPEND or OVERWRITE one)
    after_snapshot: int | None = None
    # a write that may be renumbered: called with the latest snapshot when the commit lost only
    # the sequence-number race; returns the request with the renumbered files and the new base
    rebase: Callable[[Snapshot | None], CommitRequest] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, CommitKind):
            object.__setattr__(self, "kind", CommitKind(self.kind))


@dataclass(frozen=True)
class WriteCompaction:
    """What a write's compaction changed (DELETE/ADD entries and the compacted buckets' new
    deletion-vector index files), committed as a COMPACT snapshot after the write's data commit."""

    entries: tuple[ManifestEntry, ...]
    index_entries: tuple[IndexManifestEntry, ...] = ()
    # the compaction's changelog files (lookup / full-compaction producers)
    changelog_entries: tuple[ManifestEntry, ...] = ()

    @classmethod
    def of(cls, changes: Iterable[CommitChanges]) -> WriteCompaction:
        """What the writers' ``changes`` compacted."""
        cs = list(changes)
        return cls(tuple(e for c in cs for e in c.compact_entries),
                   tuple(e for c in cs for e in c.compact_index_entries),
                   tuple(e for c in cs for e in c.compact_changelog_entries))


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
    overwritten = ({e.partition for e in entries if e.kind == FileKind.DELETE}
                   if req.kind == CommitKind.OVERWRITE else set())
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

    changelog_list: str | None = None
    changelog_size: int | None = None
    changelog_rows: int | None = None  # Paimon: null without changelog files (omitted from the JSON)
    if req.changelog_entries:
        changelog = ms.write_manifest(list(req.changelog_entries), schema_id)
        written.append(ms.path(changelog.file_name))
        changelog_list, changelog_size = ms.write_manifest_list([changelog])
        written.append(ms.path(changelog_list))
        changelog_rows = sum(e.file.row_count for e in req.changelog_entries if e.kind == FileKind.ADD)

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
        changelog_manifest_list=changelog_list,
        changelog_manifest_list_size=changelog_size,
        index_manifest=index_manifest,
        commit_user=req.commit_user,
        commit_identifier=req.commit_identifier,
        commit_kind=req.kind.value,
        time_millis=int(time.time() * 1000),
        total_record_count=prev_total + added_rows - deleted_rows,
        delta_record_count=added_rows - deleted_rows,
        changelog_record_count=changelog_rows,
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
    if req.kind == CommitKind.COMPACT:
        # a primary-key compaction keeps sequence numbers and drops deletes at the highest level: its
        # buckets must be as it read them; an append compaction only needs its files (checked above)
        if store.has_primary_key:
            check_compacted_buckets_unchanged(store, since, entries, req.own_entries)
        return
    check_not_committed(store, since, entries)
    check_sequence_numbers(store, since, entries)
    check_dynamic_bucket_index(store, since, req.index_entries, entries)
    check_total_buckets(store, since.added, entries)


def retry_wait_ms(attempt: int, min_wait_ms: int, max_wait_ms: int, rng: random.Random | None = None) -> float:
    """Paimon's wait before retry ``attempt`` (0-based): the minimum wait doubled per retry, capped
    at the maximum, plus up to 20 % random jitter."""
    wait = min(min_wait_ms * (2.0 ** min(attempt, 62)), max_wait_ms)
    return wait + (rng or random).uniform(0, max(1.0, wait * 0.2))


def _checked(store: FileStore, req: CommitRequest, base: Snapshot | None) -> list[ManifestEntry]:
    """The entries ``req`` commits on ``base``, once every check against ``base`` and what changed
    since the writers' base passed."""
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
    return entries


def _revived(store: FileStore, base: Snapshot | None, snap: Snapshot, entries: Sequence[ManifestEntry]) -> bool:
    """Whether ``snap``, just created, revived an expired id (see ``_in_lineage``); a check that
    fails takes it as landed: nothing of a snapshot that may be the table's is deleted."""
    try:
        return not _in_lineage(store, base, snap, entries)
    except Exception as e:  # noqa: BLE001 - undecided: the commit stands
        _LOG.warning("Table %s: could not check that snapshot %s extends the history: %s", store.name, snap.id, e)
        return False


def _in_lineage(store: FileStore, base: Snapshot | None, snap: Snapshot, entries: Sequence[ManifestEntry]) -> bool:
    """Whether ``snap``, just created after ``base``, extends the table's history rather than
    reviving an id that snapshot expiry deleted (this commit read ``base`` as the latest; another
    commit took the next id, later ones followed, expiry deleted ``base`` and that id; then this
    commit created the id again: a snapshot below the latest, holding what no later one has).

    Expiry deletes snapshot files oldest first and never the latest, from a list made when it
    starts. So: ``base`` still there means the id was free; the id being the latest means nothing
    was built on another snapshot of that id. Otherwise expiry took ``base`` after this commit
    and another commit followed; the next snapshot extends this one only if it holds (or deletes)
    a file this commit added; the next one gone while this one is not means expiry passed this id
    while it was not there."""
    sm = store.snapshots
    if base is None or sm.exists(base.id):
        return True
    ids = sm.snapshot_ids()  # listed: the LATEST hint is this commit's own by now
    if not ids or ids[-1] <= snap.id:
        return True
    added = {e.file.file_name for e in entries if e.kind == FileKind.ADD}
    if not added:
        return True  # nothing to tell it by: a commit that only deletes files is taken as landed
    try:
        after = sm.snapshot(snap.id + 1)
        if any(e.file.file_name in added for e in store.manifests.live_entries(after)):
            return True
        return any(e.file.file_name in added and e.kind == FileKind.DELETE for e in delta_entries(store, after))
    except NotFoundError:
        return not sm.exists(snap.id)  # expired with the ones after it: it was in the history


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
        if req.after_snapshot is not None and (base is None or base.id < req.after_snapshot):
            raise CommitConflictError(
                f"Commit to table {store.name}: a {req.kind.value} commit must land after snapshot "
                f"{req.after_snapshot}, but the latest snapshot is {base.id if base else None}"
            )
        written: list[str] = []
        try:
            try:
                entries = _checked(store, req, base)
            except SequenceConflictError:
                if req.rebase is None:
                    raise
                # lost only the sequence-number race: renumbered on this snapshot (its old files
                # deleted: from here on only the renumbered request exists), checked again
                req = req.rebase(base)
                entries = _checked(store, req, base)
            snap = build_snapshot(store, base, req, entries, written)
            # the id after ``base`` is free only while ``base`` exists: once expiry deleted it (the
            # oldest first), that id may be one it deleted too, below newer snapshots
            committed = (base is None or store.snapshots.exists(base.id)) and store.snapshots.try_commit(snap)
            if committed and _revived(store, base, snap, entries):
                store.file_io.delete_quietly(store.snapshots.path(snap.id))
                committed = False
        except NotFoundError:
            for p in written:
                store.file_io.delete_quietly(p)
            if base is None or store.snapshots.latest_id() in (None, base.id):
                raise
            # ``base`` (or a snapshot after the writers' base) was expired by the newer snapshots
            # while this attempt read it: the attempt lost the race, as below
            committed = False
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


def redo_wait_ms(redo: int, min_wait_ms: int, max_wait_ms: int, rng: random.Random | None = None) -> float:
    """The wait before redoing a write that a concurrent commit made wrong: Paimon's retry wait
    with full jitter (uniformly between half of it and all of it plus 20 %), so that writers that
    lost to each other do not redo in lockstep and collide again."""
    wait = min(min_wait_ms * (2.0 ** min(redo, 62)), max_wait_ms)
    return (rng or random).uniform(wait * 0.5, wait * 1.2)


T = TypeVar("T")


def redo_on_conflict(
    store: Callable[[], FileStore], attempt: Callable[[int], T],
    refuse: Callable[[CommitConflictError], BaseException | None] | None = None,
) -> T:
    """Runs ``attempt(redo)`` (redo = 0, 1, ...) until it returns; a conflict with concurrent
    commits (a WriteConflictError: a concurrent commit or schema change made the attempt's files
    wrong; or a CommitConflictError: the commit lost the race for the next snapshot id more than
    ``commit.max-retries`` times; the files are deleted by then) runs it again on the latest
    snapshot after ``redo_wait_ms``, at most ``commit.max-retries`` times within
    ``commit.timeout``. ``refuse`` may turn a conflict into the error to raise instead (an input
    that cannot be read twice, a schema that changed under a predicate). The one redo-on-conflict
    loop of ``Table.write`` and ``Table.delete``; changes committed already are never redone."""
    started = time.monotonic()
    redo = 0
    while True:
        try:
            return attempt(redo)
        except AlreadyCommittedError:
            raise
        except CommitConflictError as e:
            final = refuse(e) if refuse is not None else None
            if final is not None:
                if final is e:
                    raise
                raise final from e
            opts = store().options
            elapsed_ms = (time.monotonic() - started) * 1000
            if redo >= opts.commit_max_retries or (
                opts.commit_timeout_ms is not None and elapsed_ms > opts.commit_timeout_ms
            ):
                raise
            time.sleep(redo_wait_ms(redo, opts.commit_min_retry_wait_ms, opts.commit_max_retry_wait_ms) / 1000)
            redo += 1


class FileStoreCommit:
    """Commits to one table (branch) under one commit user (Paimon's ``FileStoreCommitImpl``): a
    data commit and the COMPACT commit of the same write's compaction after it, each through
    ``commit`` (conflict checks, exclusive snapshot creation, retries). Subclassed by the table
    layer's ``TableCommit``, which adds the post-commit maintenance; ops functions take either."""

    def __init__(self, store: FileStore, commit_user: str | None = None) -> None:
        self.store = store
        self.commit_user = commit_user or str(uuid.uuid4())
        # the data snapshot of the last ``commit`` call, set as soon as it is visible (None until
        # then): a caller that sees an error after it must not delete the committed files
        self.last_snapshot: Snapshot | None = None

    @contextlib.contextmanager
    def undo_on_failure(self, undo: Callable[[], None]) -> Iterator[None]:
        """Runs the block (which commits through this committer); when it fails, ``undo`` (deleting
        the files written for the commit) runs unless the commit landed: what failed came after it
        (an interrupt in the post-commit maintenance), and the files are the table's."""
        self.last_snapshot = None
        try:
            yield
        except BaseException:
            if self.last_snapshot is None:
                undo()
            raise

    def on(self, store: FileStore) -> FileStoreCommit:
        """This committer (same user) committing to ``store``: the same table with other options
        (a rescale's new bucket number) or another branch (a branch merge's target)."""
        other = copy.copy(self)
        other.store = store
        return other

    def commit(
        self, req: CommitRequest, compaction: WriteCompaction | Callable[[], WriteCompaction | None] | None = None
    ) -> Snapshot:
        """Commits ``req`` (stamped with this committer's user) and returns its snapshot; then, when
        the write compacted, its compaction as a COMPACT snapshot that lands after it (see
        ``commit_compaction_after``). A failure raises before anything is visible; the caller
        deletes its files."""
        self.last_snapshot = None
        self.before_commit()
        snap = self.last_snapshot = self._commit(req)
        if callable(compaction):  # decided after the data commit (a renumbered write has none)
            compaction = compaction()
        if compaction is not None and (compaction.entries or compaction.index_entries or compaction.changelog_entries):
            self.commit_compaction_after(snap, req, compaction)
        return snap

    def _commit(self, req: CommitRequest) -> Snapshot:
        if not req.commit_user:
            req = replace(req, commit_user=self.commit_user)
        return commit(self.store, req)

    def commit_compaction_after(
        self, data: Snapshot, req: CommitRequest, compaction: WriteCompaction
    ) -> int | None:
        """Commits what a write's compaction changed as a COMPACT snapshot after the write's own
        snapshot ``data`` (committed from ``req``), as Paimon does, and returns its id. The data is
        committed already: when the compaction cannot land (a concurrent commit changed a bucket it
        compacted, an overwrite replaced files it read, two writers compacted one bucket), its files
        are deleted, the table stays uncompacted, a warning says why and None is returned (Paimon:
        a compaction's conflict is not fatal to the append). (An overwriting write compacts only its
        own files: see TableWrite's ``ignore_previous_files``.)"""
        store = self.store
        compact = list(compaction.entries)
        own = {e.file.file_name for e in req.entries}
        removed = {e.file.file_name for e in compact if e.kind == FileKind.DELETE}
        outputs = [e for e in compact if e.kind == FileKind.ADD and e.file.file_name not in own | removed]
        deleted = [e.identifier for e in compact if e.kind == FileKind.DELETE]
        if len(deleted) != len(set(deleted)):
            reason = "several writers compacted the same bucket"
        else:
            try:
                return self._commit(CommitRequest(
                    CommitKind.COMPACT, tuple(compact), tuple(compaction.index_entries), base=req.base,
                    own_entries=req.entries, commit_identifier=req.commit_identifier, after_snapshot=data.id,
                    changelog_entries=compaction.changelog_entries,
                )).id
            except Exception as e:  # noqa: BLE001 - the data is committed: only the compaction is lost
                reason = str(e)
        _LOG.warning("Table %s: the write's compaction is not committed (%s)", store.name, reason)
        for out in [*outputs, *compaction.changelog_entries]:
            store.file_io.delete_quietly(store.entry_path(out))
        for ie in compaction.index_entries:
            store.file_io.delete_quietly(ie.index_file.external_path or store.index_file_path(ie.index_file.file_name))
        return None

    def before_commit(self) -> None:
        """Runs before every commit (TableCommit: raises the failure of an earlier maintenance)."""

    def filter_committed(self, identifiers: Iterable[int], since: int | None = None) -> set[int]:
        """Which of ``identifiers`` this committer's user has committed already (see
        ``filter_committed``)."""
        return filter_committed(self.store, self.commit_user, identifiers, since)


def filter_committed(
    store: FileStore, commit_user: str, identifiers: Iterable[int], since: int | None = None
) -> set[int]:
    """The ``identifiers`` that ``commit_user`` has committed in the snapshots after ``since``
    (default: every snapshot still there): those at or below the identifier of the user's latest
    snapshot, as Paimon's ``FileStoreCommit.filterCommitted`` decides (a user's identifiers
    increase), for exactly-once sinks that must not commit a checkpoint twice after a restart."""
    wanted = set(identifiers)
    if not wanted:
        return set()
    sm = store.snapshots
    latest, earliest = sm.latest_id(), sm.earliest_id()
    if latest is None or earliest is None:
        return set()
    first = max(earliest, (since + 1) if since is not None else earliest)
    for sid in range(latest, first - 1, -1):
        if not sm.exists(sid):
            continue
        snap = sm.snapshot(sid)
        if snap.commit_user == commit_user:
            return {i for i in wanted if i <= snap.commit_identifier}
    return set()
