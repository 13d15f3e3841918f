"""What a table's snapshots, tags and branches still reference: the one module every file-deleting
operation (snapshot expiry, tag deletion; later rollback, branch deletion and orphan cleaning) asks
before it deletes a data, changelog, manifest or index file.

Files are shared: a data file lives in every snapshot from the one that added it up to the one whose
delta deleted it; a tag keeps its snapshot's files after the snapshot expires; a branch created
from a tag (and main after a fast-forward) shares manifests and data files with the branch it came
from. So the questions are asked the way Apache Paimon's ``FileDeletionBase`` asks them: which
*candidate* files (the few an operation wants to delete) a snapshot still has live, and which
metadata files a snapshot names. Neither needs the full file list of every snapshot at once.

``FileRefs`` is built per operation and reads each manifest list, manifest and index manifest at
most once (cached by file name: those files are immutable). A manifest is kept as light
``FileRef`` tuples (no statistics), so the cache costs a few hundred bytes per data file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from paimon_sql.errors import NotFoundError
from paimon_sql.format.binary_row import decode_row
from paimon_sql.fs.file_io import basename, join, parent
from paimon_sql.meta.decoding import check_file_names, decoding
from paimon_sql.meta.file_store import BRANCH_PREFIX, MAIN_BRANCH, FileStore
from paimon_sql.meta.index_file_meta import IndexManifestEntry
from paimon_sql.meta.kinds import FileKind
from paimon_sql.meta.manifest_file_meta import ManifestFileMeta
from paimon_sql.meta.manifest_io import read_records
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.meta.snapshot_manager import SnapshotManager
from paimon_sql.meta.tag_manager import TagManager

# (partition BinaryRow bytes, bucket, file name): how a data file is matched across snapshots
FileKey = tuple[bytes, int, str]


class FileRef(NamedTuple):
    """One manifest entry without its statistics: what deleting or matching a data file needs."""

    kind: int
    partition: bytes
    bucket: int
    level: int
    file_name: str
    extra_files: tuple[str, ...]
    external_path: str | None
    file_size: int
    file_source: int | None = None  # FileSource.APPEND / COMPACT; None in files of old writers

    @property
    def key(self) -> FileKey:
        return (self.partition, self.bucket, self.file_name)

    @property
    def identifier(self) -> tuple[bytes, int, int, str, tuple[str, ...], str | None]:
        return (self.partition, self.bucket, self.level, self.file_name, self.extra_files, self.external_path)


@dataclass(frozen=True)
class FileToDelete:
    path: str
    size: int | None  # None: unknown (stat it)


def _ref(rec: dict[str, Any]) -> FileRef:
    f = rec["_FILE"]
    return FileRef(
        int(rec["_KIND"]), bytes(rec["_PARTITION"]), int(rec["_BUCKET"]), int(f["_LEVEL"]),
        f["_FILE_NAME"], tuple(f.get("_EXTRA_FILES") or ()), f.get("_EXTERNAL_PATH"), int(f["_FILE_SIZE"]),
        f.get("_FILE_SOURCE"),
    )


TAG_CREATE_TIME = "tagCreateTime"
TAG_TIME_RETAINED = "tagTimeRetained"
_TAG_KEYS = (TAG_CREATE_TIME, TAG_TIME_RETAINED)


def trim_to_snapshot(tagged: Snapshot) -> Snapshot:
    """A tag's snapshot without the tag's own fields (``Tag.trimToSnapshot``)."""
    if not any(k in tagged.extra for k in _TAG_KEYS):
        return tagged
    return dataclasses.replace(tagged, extra={k: v for k, v in tagged.extra.items() if k not in _TAG_KEYS})


def tagged_snapshots(tags: TagManager) -> list[tuple[Snapshot, list[str]]]:
    """Every tagged snapshot (without the tag's own fields) with the names of its tags, by id."""
    by_id: dict[int, tuple[Snapshot, list[str]]] = {}
    for name in tags.tag_names():
        try:
            snap = trim_to_snapshot(tags.tagged_snapshot(name))
        except NotFoundError:
            continue  # deleted since the listing
        if snap.id in by_id:
            by_id[snap.id][1].append(name)
        else:
            by_id[snap.id] = (snap, [name])
    return [by_id[k] for k in sorted(by_id)]


def earliest_snapshot(sm: SnapshotManager) -> Snapshot | None:
    sid = sm.earliest_id()
    return sm.snapshot(sid) if sid is not None else None


def other_branch_paths(store: FileStore) -> list[str]:
    """Metadata folders of every branch of the table but ``store``'s own (main included when
    ``store`` is a branch)."""
    out = []
    if store.branch != MAIN_BRANCH:
        out.append(store.path)
    for st in store.file_io.list_status(join(store.path, "branch")):
        name = basename(st.path)
        if st.is_dir and name.startswith(BRANCH_PREFIX) and name[len(BRANCH_PREFIX):] != store.branch:
            out.append(st.path)
    return out


class FileRefs:
    """Reference questions about one table (or branch); see the module doc. Not thread-safe."""

    def __init__(self, store: FileStore) -> None:
        self.store = store
        self.fio = store.file_io
        self._lists: dict[str, list[ManifestFileMeta]] = {}
        self._manifests: dict[str, list[FileRef]] = {}
        self._index: dict[str, list[IndexManifestEntry]] = {}
        self._dirs: dict[tuple[bytes, int], str] = {}
        self.files_read = 0  # metadata files read (each at most once)

    # -- reading, cached by file name ------------------------------------------------------------
    def manifest_list(self, name: str) -> list[ManifestFileMeta]:
        metas = self._lists.get(name)
        if metas is None:
            metas = self.store.manifests.read_manifest_list(name)
            self.files_read += 1
            self._lists[name] = metas
        return metas

    def manifest(self, name: str) -> list[FileRef]:
        refs = self._manifests.get(name)
        if refs is None:
            path = self.store.manifests.path(name)
            with decoding("manifest", path):
                refs = [_ref(r) for r in read_records(self.fio, path)]
            check_file_names([n for r in refs for n in (r.file_name, *r.extra_files)], "manifest", path)
            self.files_read += 1
            self._manifests[name] = refs
        return refs

    def index_manifest(self, name: str) -> list[IndexManifestEntry]:
        entries = self._index.get(name)
        if entries is None:
            entries = self.store.manifests.read_index_manifest(name)
            self.files_read += 1
            self._index[name] = entries
        return entries

    def data_manifests(self, snapshot: Snapshot) -> list[ManifestFileMeta]:
        return self.manifest_list(snapshot.base_manifest_list) + self.manifest_list(snapshot.delta_manifest_list)

    def _entries(self, metas: Iterable[ManifestFileMeta]) -> Iterator[FileRef]:
        for m in metas:
            yield from self.manifest(m.file_name)

    # -- data files ------------------------------------------------------------------------------
    def live(self, snapshot: Snapshot) -> dict[FileKey, FileRef]:
        """Every data file of ``snapshot`` (ADD entries not cancelled by a DELETE)."""
        return _merge(self._entries(self.data_manifests(snapshot)), None)

    def live_among(self, snapshot: Snapshot, candidates: Collection[FileKey]) -> set[FileKey]:
        """The ``candidates`` ``snapshot`` has live, without building its whole file list."""
        if not candidates:
            return set()
        return set(_merge(self._entries(self.data_manifests(snapshot)), candidates))

    def deleted_in_delta(self, snapshot: Snapshot) -> dict[FileKey, FileRef]:
        """Data files ``snapshot``'s delta deletes and does not add back (a level upgrade deletes
        and re-adds the same file): live in the snapshot before, gone from this one on
        (``FileDeletionBase.planDeletedInDeltaManifest``)."""
        out: dict[FileKey, FileRef] = {}
        for r in self._entries(self.manifest_list(snapshot.delta_manifest_list)):
            if r.kind == FileKind.ADD:
                out.pop(r.key, None)
            elif r.kind == FileKind.DELETE:
                out[r.key] = r
        return out

    def added_in_changelog(self, snapshot: Snapshot) -> list[FileRef]:
        """The changelog files of ``snapshot`` (ADD entries of its changelog manifests)."""
        if not snapshot.changelog_manifest_list:
            return []
        return [r for r in self._entries(self.manifest_list(snapshot.changelog_manifest_list)) if r.kind == FileKind.ADD]

    def branch_live_among(self, candidates: Collection[FileKey]) -> set[FileKey]:
        """The ``candidates`` any snapshot or tag of another branch of the table has live. A
        branch's snapshots from its earliest on hold the earliest one's files plus what later
        deltas add, so this reads each of its manifests once."""
        found: set[FileKey] = set()
        if not candidates:
            return found
        for meta in other_branch_paths(self.store):
            sm = SnapshotManager(self.fio, meta, self.store.name)
            ids = sm.snapshot_ids()
            if ids:
                found |= self.live_among(sm.snapshot(ids[0]), candidates)
                for sid in ids[1:]:
                    try:
                        snap = sm.snapshot(sid)
                    except NotFoundError:
                        continue  # expired since the listing: its files are in a later one or gone
                    for r in self._entries(self.manifest_list(snap.delta_manifest_list)):
                        if r.kind == FileKind.ADD and r.key in candidates:
                            found.add(r.key)
            for snap, _ in tagged_snapshots(TagManager(self.fio, meta, self.store.name)):
                found |= self.live_among(snap, candidates)
        return found

    # -- metadata files ---------------------------------------------------------------------------
    def metadata_names(self, snapshot: Snapshot, missing_ok: bool = False) -> set[str]:
        """Names of the manifest lists, manifests, index manifest, index files and statistics file
        ``snapshot`` references (``FileDeletionBase.manifestSkippingSet``). ``missing_ok``: a list
        or index manifest that no longer exists names nothing (a long-lived changelog's base and
        delta lists go at snapshot expiry when the table has changelog files of its own)."""
        read_list = self._try_list if missing_ok else self.manifest_list
        out: set[str] = set()
        for name in (snapshot.base_manifest_list, snapshot.delta_manifest_list, snapshot.changelog_manifest_list):
            if name:
                out.add(name)
                out.update(m.file_name for m in read_list(name))
        if snapshot.index_manifest:
            out.add(snapshot.index_manifest)
            try:
                out.update(e.index_file.file_name for e in self.index_manifest(snapshot.index_manifest))
            except NotFoundError:
                if not missing_ok:
                    raise
        if snapshot.statistics:
            out.add(snapshot.statistics)
        return out

    def branch_metadata_names(self) -> set[str]:
        """Metadata names every snapshot and tag of the other branches references (manifests are
        shared with the branch a branch was created from)."""
        out: set[str] = set()
        for meta in other_branch_paths(self.store):
            sm = SnapshotManager(self.fio, meta, self.store.name)
            snaps: list[Snapshot] = []
            for sid in sm.snapshot_ids():
                try:
                    snaps.append(sm.snapshot(sid))
                except NotFoundError:
                    continue
            snaps += [s for s, _ in tagged_snapshots(TagManager(self.fio, meta, self.store.name))]
            for s in snaps:
                out |= self.metadata_names(s)
        return out

    def unused_metadata(
        self, snapshot: Snapshot, keep: set[str], data_lists: bool = True, changelog_list: bool = True,
        index_and_statistics: bool = True,
    ) -> tuple[list[FileToDelete], ...]:
        """What of ``snapshot``'s metadata no name in ``keep`` covers, as (data manifests, index
        files, index manifests, manifest lists and statistics): the order to delete them in, each
        file before the files naming it, so an interrupted run can be redone. Names returned are
        added to ``keep`` (a file shared by several expiring snapshots is listed once). Lists that
        cannot be read any more (an interrupted earlier run) count as empty. ``data_lists`` /
        ``changelog_list`` / ``index_and_statistics`` False leave the base and delta manifest lists,
        the changelog manifest list, or the index manifest and statistics (with what they name)
        alone (Paimon's ``planManifestsCleaner`` under a decoupled changelog lifecycle, and
        ``ChangelogDeletion``)."""
        manifests: list[FileToDelete] = []
        index_files: list[FileToDelete] = []
        index_manifests: list[FileToDelete] = []
        lists: list[FileToDelete] = []
        ms = self.store.manifests
        for name, size, wanted in (
            (snapshot.base_manifest_list, snapshot.base_manifest_list_size, data_lists),
            (snapshot.delta_manifest_list, snapshot.delta_manifest_list_size, data_lists),
            (snapshot.changelog_manifest_list, snapshot.changelog_manifest_list_size, changelog_list),
        ):
            if not name or not wanted:
                continue
            for m in self._try_list(name):
                if m.file_name not in keep:
                    keep.add(m.file_name)
                    manifests.append(FileToDelete(ms.path(m.file_name), m.file_size))
            if name not in keep:
                keep.add(name)
                lists.append(FileToDelete(ms.path(name), size))
        if snapshot.index_manifest and index_and_statistics:
            try:
                entries = self.index_manifest(snapshot.index_manifest)
            except NotFoundError:
                entries = []
            for e in entries:
                f = e.index_file
                if f.file_name not in keep:
                    keep.add(f.file_name)
                    index_files.append(FileToDelete(f.external_path or self.store.index_file_path(f.file_name), f.file_size))
            if snapshot.index_manifest not in keep:
                keep.add(snapshot.index_manifest)
                index_manifests.append(FileToDelete(ms.path(snapshot.index_manifest), None))
        if snapshot.statistics and index_and_statistics and snapshot.statistics not in keep:
            keep.add(snapshot.statistics)
            lists.append(FileToDelete(join(self.store.path, "statistics", snapshot.statistics), None))
        return manifests, index_files, index_manifests, lists

    def _try_list(self, name: str) -> list[ManifestFileMeta]:
        try:
            return self.manifest_list(name)
        except NotFoundError:
            return []

    # -- paths -----------------------------------------------------------------------------------
    def data_paths(self, ref: FileRef) -> list[FileToDelete]:
        """The data file of ``ref`` and its extra files (index or changelog files beside it)."""
        key = (ref.partition, ref.bucket)
        d = self._dirs.get(key)
        if d is None:
            d = self.store.bucket_dir(decode_row(ref.partition, self.store.partition_types), ref.bucket)
            self._dirs[key] = d
        out = [FileToDelete(self.store.data_file_path(d, ref.file_name, ref.external_path), ref.file_size)]
        out += [FileToDelete(self.store.extra_file_path(d, x, ref.external_path), None) for x in ref.extra_files]
        return out


def clean_empty_directories(store: FileStore, deleted: Iterable[FileRef]) -> None:
    """``snapshot.clean-empty-directories`` (Paimon's ``FileDeletionBase.cleanEmptyDirectories``):
    after data files were deleted, the bucket folders (in the table) they were in go if empty, then
    each partition's deepest folder if empty, and then, deepest level first, its parent partition
    folders if empty. Folders that are not empty stay; external roots are not touched (as Paimon)."""
    if not store.options.snapshot_clean_empty_directories:
        return
    buckets: dict[bytes, set[int]] = {}
    for ref in deleted:
        buckets.setdefault(ref.partition, set()).add(ref.bucket)
    if not buckets:
        return
    fio = store.file_io
    names = [f.name for f in store.partition_fields]
    levels: dict[int, set[str]] = {}
    for partition, bucket_ids in buckets.items():
        values = list(decode_row(partition, store.partition_types)) if names else []
        for b in bucket_ids:
            fio.delete_empty_dir(store.bucket_dir(values, b))
        if not names:
            continue
        rel = parent(store.relative_bucket_path(values, 0))  # [<path-directory>/]k1=v1/.../kn=vn
        deepest = join(store.path, rel)
        if fio.delete_empty_dir(deepest):
            d = deepest
            for level in range(len(names) - 2, -1, -1):
                d = parent(d)
                levels.setdefault(level, set()).add(d)
    for level in sorted(levels, reverse=True):
        for d in levels[level]:
            fio.delete_empty_dir(d)


def _merge(refs: Iterable[FileRef], only: Collection[FileKey] | None) -> dict[FileKey, FileRef]:
    """The ADD entries no later DELETE cancels (Paimon's ``FileEntry.mergeEntries``), keyed by
    file; only the keys in ``only`` when given."""
    live: dict[tuple[bytes, int, int, str, tuple[str, ...], str | None], FileRef] = {}
    for r in refs:
        if only is not None and r.key not in only:
            continue
        ident = r.identifier
        if r.kind == FileKind.ADD:
            live[ident] = r
        else:
            live.pop(ident, None)
    return {r.key: r for r in live.values()}

