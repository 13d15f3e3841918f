"""Snapshot expiry, as Apache Paimon's ``ExpireSnapshotsImpl`` does it.

Which snapshots go (``expire``): with ``latest`` the newest snapshot id,

- every snapshot older than ``latest - retain_max + 1`` may go (``snapshot.num-retained.max``),
  whatever its age;
- the ``retain_min`` newest ones always stay (``snapshot.num-retained.min``);
- no snapshot a consumer still needs goes: none from the smallest ``nextSnapshot`` of the
  ``consumer/consumer-<id>`` files on;
- at most ``max_deletes`` go in one run, counted from the earliest (``snapshot.expire.limit``);
- between the max bound and the min bound, a snapshot goes only when the snapshot after it is
  older than the time bound (``snapshot.time-retained``, or the procedure's ``older_than``):
  scanning upwards, expiry stops at the first snapshot whose successor is too young.

What is deleted (``expire until end``, everything in ``[earliest, end)``), in Paimon's order, each
step only after the one before it is complete:

1. the data files the deltas of the snapshots in ``(earliest, end]`` delete (they are live in the
   expiring snapshots only), unless a tag or another branch still has them; the changelog files
   of the expiring snapshots;
2. the manifests, index files, index manifests, manifest lists and statistics files of the
   expiring snapshots that neither the ``end`` snapshot, nor a tag in the range, nor another
   branch references;
3. the snapshot files, oldest first (the history stays contiguous);
4. the ``EARLIEST`` hint, rewritten to ``end``.

Crash safety: the retained snapshots never lose a file, so a run killed at any point leaves the
table readable at its latest snapshot; the expiring snapshots may have lost files until a rerun
deletes them. A rerun recomputes the same range (or a larger one) from the snapshots still there
and finishes the job: files already gone are skipped, and a manifest list an earlier run deleted
counts as empty. A snapshot missing in the middle of the range is skipped; a missing ``end``
snapshot is replaced by the next existing one, so expiry never gets stuck on a gap (Paimon issue
#4743).

Decoupled changelog lifecycle (``changelog.num-retained.*`` / ``changelog.time-retained`` above
the snapshot retention): step 1 keeps the written files (a table without a changelog producer reads
its changelog from its delta files) and the changelog files, step 2 keeps the changelog manifest
lists (and, without a producer, the base and delta manifest lists), and step 3 first writes each
expiring snapshot as ``changelog/changelog-<id>``. ``expire_changelogs`` (Paimon's
``ExpireChangelogImpl``) deletes those later, by the changelog retention options; it runs after
snapshot expiry after every commit.

Automatic expiry after every commit runs from the table's committer (``ops/maintenance.py``):
sync by default, on a background thread with ``snapshot.expire.execution-mode = async`` (a
failure there is raised by the next commit of the table in this process, before it commits
anything), never with ``write-only``. Consumers not updated for ``consumer.expiration-time`` are
removed first, as Paimon does.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import logging
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from paimon_sql.errors import NotFoundError, PaimonError, ValidationError
from paimon_sql.fs.file_io import FileIO, join
from paimon_sql.meta.consumer_manager import ConsumerManager
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.kinds import FileSource
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.ops.file_refs import (
    FileKey,
    FileRef,
    FileRefs,
    FileToDelete,
    clean_empty_directories,
    tagged_snapshots,
)
from paimon_sql.options.lifecycle import CONSUMER_CHANGELOG_ONLY

_LOG = logging.getLogger(__name__)

INT_MAX = 2**31 - 1
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_DELETE_THREADS = 8


@dataclass(frozen=True)
class ExpireResult:
    """What one expiry run deleted (with ``dry_run``: what it would delete)."""

    table: str
    deleted_snapshots: int
    deleted_data_files: int  # data files, their extra files and changelog files
    deleted_manifests: int  # manifests, manifest lists and statistics files
    deleted_index_files: int  # index files and index manifests
    deleted_bytes: int
    expired_snapshot_ids: tuple[int, ...]
    earliest_snapshot_id: int | None  # the earliest snapshot after the run
    dry_run: bool = False


# ----------------------------------------------------------------------------------------------
# arguments
# ----------------------------------------------------------------------------------------------


def parse_timestamp_ms(text: str, what: str) -> int:
    """Epoch millis of ``'yyyy-MM-dd[ HH:mm:ss[.fff]]'`` in the local time zone (Paimon parses
    ``older_than`` in the JVM's default zone)."""
    if not isinstance(text, str) or not text.strip():
        raise ValidationError(f"{what} must be a timestamp 'yyyy-MM-dd HH:mm:ss', got {text!r}")
    try:
        parsed = _dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValidationError(f"{what} must be a timestamp 'yyyy-MM-dd HH:mm:ss', got {text!r}") from None
    if parsed.tzinfo is None:
        parsed = parsed.astimezone()
    return (parsed - _EPOCH) // _dt.timedelta(milliseconds=1)


def _count(value: object, name: str, table: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= INT_MAX:
        raise ValidationError(
            f"Snapshot expiry of table {table}: argument {name!r} must be an integer between {minimum} "
            f"and {INT_MAX}, got {value!r}"
        )
    return value


def _older_than_ms(value: object, table: str) -> int:
    if isinstance(value, _dt.datetime):
        v = value if value.tzinfo is not None else value.astimezone()
        return (v - _EPOCH) // _dt.timedelta(milliseconds=1)
    if isinstance(value, str):
        return parse_timestamp_ms(value, f"Snapshot expiry of table {table}: argument 'older_than'")
    raise ValidationError(
        f"Snapshot expiry of table {table}: argument 'older_than' must be a timestamp "
        f"('yyyy-MM-dd HH:mm:ss' or a datetime), got {value!r}"
    )


def changelog_decoupled(store: FileStore) -> bool:
    """Whether changelogs outlive snapshots (``CoreOptions.changelogLifecycleDecoupled``): a
    ``changelog.num-retained.*`` or ``changelog.time-retained`` above the snapshot retention."""
    o = store.options
    return (
        o.changelog_num_retained_max > o.snapshot_num_retained_max
        or o.changelog_time_retained_ms > o.snapshot_time_retained_ms
        or o.changelog_num_retained_min > o.snapshot_num_retained_min
    )


def produces_changelog(store: FileStore) -> bool:
    """Whether the table has changelog files of its own (``changelog-producer`` other than none);
    without, its changelog is the delta files of its snapshots."""
    return str(store.schema.options.get("changelog-producer", "none")).strip().lower() != "none"


# ----------------------------------------------------------------------------------------------
# consumers
# ----------------------------------------------------------------------------------------------


def min_next_snapshot(store: FileStore) -> int | None:
    """The smallest ``nextSnapshot`` of the table's (branch's) consumers; None without any."""
    return ConsumerManager.of(store).min_next_snapshot()


def expire_consumers(store: FileStore, now_ms: int | None = None) -> int:
    """Deletes the consumers not updated for ``consumer.expiration-time`` (``ConsumerManager.expire``);
    returns how many."""
    keep_ms = store.options.consumer_expiration_time_ms
    if keep_ms is None:
        return 0
    cutoff = (now_ms if now_ms is not None else int(time.time() * 1000)) - int(keep_ms)
    return ConsumerManager.of(store).expire(cutoff)


# ----------------------------------------------------------------------------------------------
# expiry
# ----------------------------------------------------------------------------------------------


def expire_snapshots(
    store: FileStore,
    retain_max: int | None = None,
    retain_min: int | None = None,
    older_than: str | _dt.datetime | None = None,
    max_deletes: int | None = None,
    dry_run: bool = False,
    now_ms: int | None = None,
) -> ExpireResult:
    """Expires snapshots of ``store`` by the rules of the module doc. Arguments left None come from
    the table's options (``snapshot.num-retained.max`` / ``.min``, ``snapshot.expire.limit``, and
    ``snapshot.time-retained`` before now for ``older_than``, a local timestamp). ``dry_run``
    deletes nothing and reports what would go. Bad arguments raise a ValidationError naming the
    argument before anything is read or deleted."""
    o = store.options
    name = store.name
    rmax = _count(retain_max if retain_max is not None else o.snapshot_num_retained_max, "retain_max", name, 1)
    rmin = _count(retain_min if retain_min is not None else o.snapshot_num_retained_min, "retain_min", name, 1)
    limit = _count(max_deletes if max_deletes is not None else o.snapshot_expire_limit, "max_deletes", name, 0)
    if not isinstance(dry_run, bool):
        raise ValidationError(f"Snapshot expiry of table {name}: argument 'dry_run' must be true or false, got {dry_run!r}")
    if rmin > rmax:
        src_min = "" if retain_min is not None else " (option 'snapshot.num-retained.min')"
        src_max = "" if retain_max is not None else " (option 'snapshot.num-retained.max')"
        raise ValidationError(
            f"Snapshot expiry of table {name}: retain_max {rmax}{src_max} must not be less than "
            f"retain_min {rmin}{src_min}"
        )
    now = now_ms if now_ms is not None else int(time.time() * 1000)
    cutoff = _older_than_ms(older_than, name) if older_than is not None else now - o.snapshot_time_retained_ms
    decoupled = changelog_decoupled(store)

    sm = store.snapshots
    latest = sm.latest_id()
    earliest = sm.earliest_id()
    if latest is None or earliest is None:
        return ExpireResult(name, 0, 0, 0, 0, 0, (), None, dry_run)
    low = max(latest - rmax + 1, earliest)  # older than this: beyond retain_max, whatever the age
    hard_end = latest - rmin + 1  # from this on: protected by retain_min
    consumer = None if decoupled and o.get(CONSUMER_CHANGELOG_ONLY) else min_next_snapshot(store)
    if consumer is not None:
        hard_end = min(hard_end, consumer)  # a consumer still reads from there
    end = min(hard_end, earliest + limit)
    snaps: dict[int, Snapshot] = {}
    for sid in range(low, end):
        nxt = _try_snapshot(store, sid + 1, snaps)
        if nxt is not None and cutoff <= nxt.time_millis:
            end = sid
            break
    return _expire_until(store, earliest, end, hard_end, snaps, dry_run, decoupled)


def _try_snapshot(store: FileStore, sid: int, cache: dict[int, Snapshot]) -> Snapshot | None:
    snap = cache.get(sid)
    if snap is None:
        try:
            snap = store.snapshots.snapshot(sid)
        except NotFoundError:
            return None  # expired concurrently, or a gap
        cache[sid] = snap
    return snap


def _expire_until(
    store: FileStore, earliest: int, end: int, hard_end: int, cache: dict[int, Snapshot], dry_run: bool,
    decoupled: bool = False,
) -> ExpireResult:
    """Expires ``[earliest, end)``; ``hard_end``: what retain_min and consumers allow at most.
    ``decoupled``: the expired snapshots become long-lived changelogs, which keep their changelog
    (the changelog files and manifests; for a table without a changelog producer, the delta files
    and the base and delta manifest lists) until changelog expiry."""
    sm = store.snapshots
    fio = store.file_io
    name = store.name
    if end <= earliest:
        if not dry_run and not fio.exists(join(sm.dir, "EARLIEST")):
            _write_earliest(fio, sm.dir, earliest)
        return ExpireResult(name, 0, 0, 0, 0, 0, (), earliest, dry_run)
    end_snap = _try_snapshot(store, end, cache)
    if end_snap is None:
        # a gap: the nearest snapshot below becomes the first retained one; when that would
        # expire nothing, the next one above, within what retain_min and consumers allow, so that
        # a gap never stops expiry for good (Paimon issue #4743)
        ids = sm.snapshot_ids()
        below = [i for i in ids if earliest < i < end]
        above = [i for i in ids if end < i <= hard_end]
        pick = below[-1] if below else (above[0] if above else None)
        end_snap = _try_snapshot(store, pick, cache) if pick is not None else None
        if end_snap is None:
            return ExpireResult(name, 0, 0, 0, 0, 0, (), sm.earliest_id(), dry_run)
        end = end_snap.id
    snaps = [s for s in (_try_snapshot(store, i, cache) for i in range(earliest, end)) if s is not None]
    if not snaps:
        if not dry_run:
            _write_earliest(fio, sm.dir, end)
        return ExpireResult(name, 0, 0, 0, 0, 0, (), end, dry_run)
    begin = snaps[0].id
    refs = FileRefs(store)
    tags = _skipping_tags([s for s, _ in tagged_snapshots(store.tags)], begin, end)

    # 1. data files deleted by the deltas of (begin, end], unless a tag or another branch has them
    candidates: dict[FileKey, FileRef] = {}
    for s in snaps[1:] + [end_snap]:
        try:
            candidates.update(refs.deleted_in_delta(s))
        except PaimonError as e:  # an earlier run deleted its manifests: its files went then
            _LOG.info("Snapshot expiry of table %s: skipping the delta of snapshot %s: %s", name, s.id, e)
    keep_deltas = decoupled and not produces_changelog(store)
    if keep_deltas:  # written files are the changelog: changelog expiry deletes them
        candidates = {k: r for k, r in candidates.items() if r.file_source == FileSource.COMPACT}
    keys = set(candidates)
    try:
        protected = refs.branch_live_among(keys)
        for t in tags:
            protected |= refs.live_among(t, keys)
    except PaimonError as e:
        _LOG.warning("Snapshot expiry of table %s: cannot read what tags and branches use, no data "
                     "file is deleted: %s", name, e)
        protected = keys
    data: list[FileToDelete] = []
    deleted_refs: list[FileRef] = []
    for k, ref in candidates.items():
        if k not in protected:
            data += refs.data_paths(ref)
            deleted_refs.append(ref)
    for s in snaps if not decoupled else ():
        try:
            for ref in refs.added_in_changelog(s):
                data += refs.data_paths(ref)
                deleted_refs.append(ref)
        except PaimonError as e:
            _LOG.info("Snapshot expiry of table %s: skipping the changelog of snapshot %s: %s", name, s.id, e)

    # 2. metadata no retained snapshot, tag in the range or other branch names
    groups: tuple[list[FileToDelete], ...] = ([], [], [], [])
    try:
        keep = refs.metadata_names(end_snap) | refs.branch_metadata_names()
        for t in tags:
            keep |= refs.metadata_names(t)
    except PaimonError as e:
        _LOG.warning("Snapshot expiry of table %s: cannot read what is still used, no manifest is "
                     "deleted: %s", name, e)
    else:
        for s in snaps:
            for acc, part in zip(groups, refs.unused_metadata(s, keep, not keep_deltas, not decoupled)):
                acc.extend(part)
    manifests, index_files, index_manifests, lists = groups

    n_data, b_data = _delete(fio, data, dry_run)
    if not dry_run:
        clean_empty_directories(store, deleted_refs)
    n_man, b_man = _delete(fio, manifests, dry_run)
    n_idx, b_idx = _delete(fio, index_files, dry_run)
    n_idm, b_idm = _delete(fio, index_manifests, dry_run)
    n_lst, b_lst = _delete(fio, lists, dry_run)
    # 3. snapshot files, oldest first (each first written as a changelog when decoupled); 4. the
    # EARLIEST hint
    n_snap, b_snap = 0, 0
    for s in snaps:
        if decoupled and not dry_run:
            store.changelogs.commit(s)
        n, b = _delete(fio, [FileToDelete(sm.path(s.id), None)], dry_run, parallel=False)
        n_snap += n
        b_snap += b
    if not dry_run:
        _write_earliest(fio, sm.dir, end)
    return ExpireResult(
        name, n_snap, n_data, n_man + n_lst, n_idx + n_idm,
        b_data + b_man + b_idx + b_idm + b_lst + b_snap, tuple(s.id for s in snaps), end, dry_run,
    )


def _skipping_tags(all_tags: list[Snapshot], begin: int, end: int) -> list[Snapshot]:
    """The tags whose files an expiry of ``[begin, end)`` must keep: those in the range and the
    last one at or before ``begin`` (``findSkippingTags``)."""
    below = [t.id for t in all_tags if t.id <= begin]
    lo = below[-1] if below else begin + 1
    return [t for t in all_tags if lo <= t.id < end]


# ----------------------------------------------------------------------------------------------
# long-lived changelogs
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChangelogExpireResult:
    """What one changelog expiry run deleted (with ``dry_run``: what it would delete)."""

    table: str
    deleted_changelogs: int
    deleted_data_files: int  # changelog files, or delta files of tables without a changelog producer
    deleted_manifests: int  # manifests and manifest lists
    deleted_bytes: int
    expired_changelog_ids: tuple[int, ...]
    earliest_changelog_id: int | None  # the earliest long-lived changelog after the run
    dry_run: bool = False


def expire_changelogs(
    store: FileStore,
    retain_max: int | None = None,
    retain_min: int | None = None,
    older_than: str | _dt.datetime | None = None,
    max_deletes: int | None = None,
    dry_run: bool = False,
    now_ms: int | None = None,
) -> ChangelogExpireResult:
    """Expires long-lived changelogs (``changelog/changelog-<id>``, left by snapshot expiry under a
    decoupled changelog lifecycle) as Paimon's ``ExpireChangelogImpl``: counted from the latest
    *snapshot*, changelogs beyond ``retain_max`` go whatever their age, the ``retain_min`` newest
    ids stay, a changelog goes only while it is older than ``older_than``, never one a consumer
    still needs, at most ``max_deletes`` at a time, and never the latest long-lived changelog.
    Defaults come from ``changelog.num-retained.max`` / ``.min`` / ``changelog.time-retained``
    (each defaulting to its snapshot option) and ``snapshot.expire.limit``."""
    o = store.options
    name = store.name
    what = "Changelog expiry of table " + name
    rmax = _count(retain_max if retain_max is not None else o.changelog_num_retained_max, "retain_max", name, 1)
    rmin = _count(retain_min if retain_min is not None else o.changelog_num_retained_min, "retain_min", name, 1)
    limit = _count(max_deletes if max_deletes is not None else o.snapshot_expire_limit, "max_deletes", name, 0)
    if not isinstance(dry_run, bool):
        raise ValidationError(f"{what}: argument 'dry_run' must be true or false, got {dry_run!r}")
    if rmin > rmax:
        raise ValidationError(f"{what}: retain_max {rmax} must not be less than retain_min {rmin}")
    now = now_ms if now_ms is not None else int(time.time() * 1000)
    cutoff = _older_than_ms(older_than, name) if older_than is not None else now - o.changelog_time_retained_ms
    cm = store.changelogs
    sm = store.snapshots
    nothing = ChangelogExpireResult(name, 0, 0, 0, 0, (), None, dry_run)
    latest_snap = sm.latest_id()
    ids = cm.ids()
    if latest_snap is None or sm.earliest_id() is None or not ids:
        return dataclasses.replace(nothing, earliest_changelog_id=ids[0] if ids else None)
    earliest, latest = ids[0], ids[-1]
    low = max(latest_snap - rmax + 1, earliest)
    end = latest_snap - rmin + 1
    consumer = min_next_snapshot(store)
    if consumer is not None:
        end = min(end, consumer)
    end = min(end, earliest + limit, latest)  # the latest changelog stays
    if end <= earliest:
        return dataclasses.replace(nothing, earliest_changelog_id=earliest)
    for cid in range(low, end + 1):
        cl = cm.try_changelog(cid)
        if cl is not None and cutoff <= cl.time_millis:
            end = cid
            break
    if end <= earliest:  # the earliest one is too young: nothing to read
        return dataclasses.replace(nothing, earliest_changelog_id=earliest)
    return _expire_changelogs_until(store, earliest, end, [i for i in ids if earliest <= i < end], dry_run)


def expire_all_changelogs(store: FileStore, dry_run: bool = False) -> ChangelogExpireResult:
    """Deletes every long-lived changelog (Paimon's ``expire_changelogs(delete_all => true)``);
    they must all be older than the earliest snapshot."""
    cm = store.changelogs
    ids = cm.ids()
    earliest_snap = store.snapshots.earliest_id()
    if not ids or earliest_snap is None:
        return ChangelogExpireResult(store.name, 0, 0, 0, 0, (), ids[0] if ids else None, dry_run)
    if ids[-1] >= earliest_snap:
        raise ValidationError(
            f"Changelog expiry of table {store.name}: the latest changelog {ids[-1]} is not older than the "
            f"earliest snapshot {earliest_snap}; check the table"
        )
    result = _expire_changelogs_until(store, ids[0], earliest_snap, ids, dry_run, end_is_snapshot=True)
    if not dry_run:
        for hint in ("EARLIEST", "LATEST"):
            store.file_io.delete_quietly(join(cm.dir, hint))
    return result


def _expire_changelogs_until(
    store: FileStore, earliest: int, end: int, doomed: list[int], dry_run: bool, end_is_snapshot: bool = False
) -> ChangelogExpireResult:
    """Deletes the long-lived changelogs ``doomed`` (ids in ``[earliest, end)``) with what only they
    use, keeping what changelog (or snapshot) ``end``, the earliest snapshot, the tags in the range
    and other branches use (``ExpireChangelogImpl.expireUntil``)."""
    cm = store.changelogs
    sm = store.snapshots
    fio = store.file_io
    name = store.name
    end_snap = sm.snapshot(end) if end_is_snapshot else cm.try_changelog(end)
    if end_snap is None:
        _LOG.error("Changelog expiry of table %s: changelog %s is missing, nothing expired", name, end)
        return ChangelogExpireResult(name, 0, 0, 0, 0, (), earliest, dry_run)
    refs = FileRefs(store)
    all_tags = [s for s, _ in tagged_snapshots(store.tags)]
    skipping = [*_skipping_tags(all_tags, earliest, end), end_snap]
    earliest_snap = sm.earliest_id()
    if earliest_snap is not None and earliest_snap != end_snap.id:
        skipping.append(sm.snapshot(earliest_snap))
    try:
        keep = refs.branch_metadata_names()
        for s in skipping:
            keep |= refs.metadata_names(s, missing_ok=True)
    except PaimonError as e:
        _LOG.warning("%s: cannot read what is still used, nothing expired: %s", name, e)
        return ChangelogExpireResult(name, 0, 0, 0, 0, (), earliest, dry_run)
    # read first: each changelog's files to go (its changelog files, or the files its delta
    # deletes), the latter checked against other branches once for all changelogs
    plans: list[tuple[int, Snapshot, list[FileRef], dict[FileKey, FileRef]]] = []
    for cid in doomed:
        cl = cm.try_changelog(cid)
        if cl is None:
            continue  # deleted concurrently
        added: list[FileRef] = []
        candidates: dict[FileKey, FileRef] = {}
        try:
            if cl.changelog_manifest_list:
                added = refs.added_in_changelog(cl)
            else:
                candidates = refs.deleted_in_delta(cl)
        except PaimonError as e:  # an earlier run deleted its manifests: its files went then
            _LOG.info("Changelog expiry of table %s: skipping the files of changelog %s: %s", name, cid, e)
        plans.append((cid, cl, added, candidates))
    all_keys = {k for _, _, _, c in plans for k in c}
    try:
        on_branches = refs.branch_live_among(all_keys)
    except PaimonError as e:
        _LOG.warning("%s: cannot read what other branches use, no data file is deleted: %s", name, e)
        on_branches = all_keys
    n_cl = n_data = n_man = nbytes = 0
    expired: list[int] = []
    for cid, cl, added, candidates in plans:
        data = [f for ref in added for f in refs.data_paths(ref)]
        deleted_refs = list(added)
        if candidates:
            previous = [t for t in all_tags if t.id < cid]
            try:
                in_tag = refs.live_among(previous[-1], set(candidates)) if previous else set()
            except PaimonError as e:
                _LOG.warning("%s: cannot read tag snapshot %s, changelog %s keeps its files: %s",
                             name, previous[-1].id, cid, e)
                in_tag = set(candidates)
            gone = [ref for k, ref in candidates.items() if k not in on_branches and k not in in_tag]
            data += [f for ref in gone for f in refs.data_paths(ref)]
            deleted_refs += gone
        with_list = bool(cl.changelog_manifest_list)
        manifests, _, _, lists = refs.unused_metadata(
            cl, keep, data_lists=not with_list, changelog_list=with_list, index_and_statistics=False
        )
        n, b = _delete(fio, data, dry_run)
        n_data, nbytes = n_data + n, nbytes + b
        if not dry_run:
            clean_empty_directories(store, deleted_refs)
        for group in (manifests, lists):
            n, b = _delete(fio, group, dry_run)
            n_man, nbytes = n_man + n, nbytes + b
        n, b = _delete(fio, [FileToDelete(cm.path(cid), None)], dry_run, parallel=False)
        n_cl, nbytes = n_cl + n, nbytes + b
        expired.append(cid)
    if not dry_run and not end_is_snapshot:
        cm.write_hint("EARLIEST", end)
    return ChangelogExpireResult(name, n_cl, n_data, n_man, nbytes, tuple(expired),
                                 None if end_is_snapshot else end, dry_run)


def _write_earliest(fio: FileIO, snapshot_dir: str, earliest: int) -> None:
    try:
        fio.overwrite_atomic(join(snapshot_dir, "EARLIEST"), str(earliest).encode())
    except OSError as e:  # a hint: readers fall back to listing
        _LOG.warning("Cannot write the EARLIEST hint in %s: %s", snapshot_dir, e)


def _delete_one(fio: FileIO, f: FileToDelete, dry_run: bool) -> tuple[int, int]:
    if dry_run or f.size is None:
        try:
            size = fio.status(f.path).size
        except (NotFoundError, FileNotFoundError):
            return 0, 0
        if dry_run:
            return 1, size
    else:
        size = f.size
    return (1, size) if fio.delete(f.path) else (0, 0)


def _delete(fio: FileIO, files: Sequence[FileToDelete], dry_run: bool, parallel: bool = True) -> tuple[int, int]:
    """Deletes ``files`` (each once); returns how many were there and their bytes."""
    unique = list({f.path: f for f in files}.values())
    if parallel and len(unique) > 32:
        with ThreadPoolExecutor(_DELETE_THREADS) as pool:
            results = list(pool.map(lambda f: _delete_one(fio, f, dry_run), unique))
    else:
        results = [_delete_one(fio, f, dry_run) for f in unique]
    return sum(n for n, _ in results), sum(b for _, b in results)
