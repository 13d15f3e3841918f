"""Removing orphan files (Paimon's ``remove_orphan_files`` / ``OrphanFilesClean``): files in a
table's data, manifest, index and statistics folders that no snapshot, tag or changelog of any
branch references, and stray non-snapshot files in the snapshot and changelog folders, once they
are older than a cut-off (default: one day ago, so that files of writes still in flight are left
alone). What a crashed writer, an aborted Spark job or a dropped compaction left behind goes.

References are collected over every branch (main and ``branch/branch-*``: snapshots, tags and
changelogs name manifest lists, manifests, index manifests, index files, statistics and data files,
deleted entries included, as Paimon collects them); a branch without a schema aborts the run, as in
Paimon. Staging folders of Spark writes in progress (``.spark-writes``) are not touched.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

from paimon_sql.errors import NotFoundError, ValidationError
from paimon_sql.fs.file_io import FileIO, basename, join
from paimon_sql.meta.changelog_manager import ChangelogManager
from paimon_sql.meta.file_store import BRANCH_PREFIX, MAIN_BRANCH, FileStore, branch_path
from paimon_sql.meta.schema_manager import SchemaManager
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.meta.snapshot_manager import SnapshotManager
from paimon_sql.meta.tag_manager import TagManager
from paimon_sql.ops.file_refs import FileRefs, tagged_snapshots

DAY_MS = 24 * 3600 * 1000
_SNAPSHOT_DIR_FILES = ("EARLIEST", "LATEST")


@dataclass(frozen=True)
class RemoveOrphanFilesResult:
    deleted_files: int
    deleted_bytes: int
    deleted: tuple[str, ...]  # the paths (dry run: that would be deleted)


def branches(store: FileStore) -> list[str]:
    """The table's branches with the main one; a branch folder without a schema aborts."""
    out: list[str] = []
    broken: list[str] = []
    for st in store.file_io.list_status(join(store.path, "branch")):
        name = basename(st.path)
        if not st.is_dir or not name.startswith(BRANCH_PREFIX):
            continue
        branch = name[len(BRANCH_PREFIX):]
        if not SchemaManager(store.file_io, st.path, store.name).schema_ids():
            broken.append(branch)
        out.append(branch)
    if broken:
        raise ValidationError(
            f"Branches {sorted(broken)} of table {store.name} have no schemas. Orphan files cleaning "
            "aborted. Please check these branches manually."
        )
    return [*sorted(out), MAIN_BRANCH]


def _snapshots_of(fio: FileIO, meta: str, name: str) -> Iterator[tuple[Snapshot, bool]]:
    """(snapshot, is a long-lived changelog) of every snapshot, tag and changelog of a branch."""
    sm = SnapshotManager(fio, meta, name)
    for sid in sm.snapshot_ids():
        try:
            yield sm.snapshot(sid), False
        except NotFoundError:
            continue  # expired since the listing
    for snap, _ in tagged_snapshots(TagManager(fio, meta, name)):
        yield snap, False
    cm = ChangelogManager(fio, meta, name)
    for cid in cm.ids():
        changelog = cm.try_changelog(cid)
        if changelog is not None:  # else expired since the listing
            yield changelog, True


def used_files(store: FileStore) -> tuple[set[str], set[str]]:
    """(metadata file names, data file names) every snapshot, tag and changelog of every branch
    references."""
    refs = FileRefs(store)
    meta: set[str] = set()
    data: set[str] = set()
    seen_lists: set[str] = set()
    for branch in branches(store):
        for snap, long_lived in _snapshots_of(store.file_io, branch_path(store.path, branch), store.name):
            # a long-lived changelog of a table with changelog files keeps only its changelog
            # manifest list: snapshot expiry deleted its base and delta lists (Paimon reads a
            # missing list as empty)
            meta |= refs.metadata_names(snap, missing_ok=long_lived)
            for name in (snap.base_manifest_list, snap.delta_manifest_list, snap.changelog_manifest_list):
                if not name or name in seen_lists:
                    continue
                seen_lists.add(name)
                try:
                    metas = refs.manifest_list(name)
                except NotFoundError:
                    if not long_lived:
                        raise
                    continue
                for m in metas:
                    for r in refs.manifest(m.file_name):  # ADD and DELETE entries, as Paimon
                        data.add(r.file_name)
                        data.update(r.extra_files)
    return meta, data


def _candidates(store: FileStore) -> Iterator[tuple[str, int, int, str]]:
    """(path, size, modification ms, kind) of every file the cleaner may delete."""
    fio = store.file_io
    for folder, kind in ((join(store.path, "manifest"), "meta"), (join(store.path, "index"), "meta"),
                         (join(store.path, "statistics"), "meta")):
        for st in fio.list_status(folder):
            if not st.is_dir:
                yield st.path, st.size, st.mtime_ms, kind
    levels = len(store.schema.partition_keys)
    for root in [store.data_root, *_external_roots(store)]:
        for bucket_dir in _bucket_dirs(fio, root, levels):
            for st in fio.list_status(bucket_dir):
                if not st.is_dir:
                    yield st.path, st.size, st.mtime_ms, "data"
    for branch in [MAIN_BRANCH, *[b for b in branches(store) if b != MAIN_BRANCH]]:
        meta = branch_path(store.path, branch)
        for folder, prefix in ((join(meta, "snapshot"), "snapshot-"), (join(meta, "changelog"), "changelog-")):
            for st in fio.list_status(folder):
                name = basename(st.path)
                if not st.is_dir and not name.startswith(prefix) and name not in _SNAPSHOT_DIR_FILES:
                    yield st.path, st.size, st.mtime_ms, "stray"


def _external_roots(store: FileStore) -> list[str]:
    """The external roots of the table's data files, as Paimon's orphan cleaning lists them: each
    root of ``data-file.external-paths`` (only the partition and bucket folders right under it)."""
    provider = store.external_paths
    if provider is None:
        return []
    return [store.data_file_path("", "", root) for root in provider.roots]


def _bucket_dirs(fio: FileIO, root: str, partition_levels: int) -> Iterator[str]:
    """The bucket folders under ``root`` (``k=v/`` partition levels deep), as Paimon lists them."""
    dirs = [root]
    for _ in range(partition_levels):
        dirs = [st.path for d in dirs for st in fio.list_status(d) if st.is_dir and "=" in basename(st.path)]
    for d in dirs:
        for st in fio.list_status(d):
            if st.is_dir and basename(st.path).startswith("bucket-"):
                yield st.path


def remove_orphan_files(
    store: FileStore, older_than_ms: int | None = None, dry_run: bool = False, now_ms: int | None = None,
) -> RemoveOrphanFilesResult:
    """Deletes the orphan files of ``store``'s table modified before ``older_than_ms`` (epoch ms;
    default: one day before now). ``dry_run`` deletes nothing and reports what would go."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    cutoff = now - DAY_MS if older_than_ms is None else older_than_ms
    main = store
    if store.branch != MAIN_BRANCH:  # the files are the whole table's: clean from main
        schema = SchemaManager(store.file_io, store.path, store.name).latest()
        if schema is None:
            raise NotFoundError(f"Table {store.name} has no schema on its main branch")
        main = store.for_branch(MAIN_BRANCH, schema)
    # candidates first: a file written after its listing is never a candidate
    candidates = [c for c in _candidates(main) if c[2] < cutoff]
    if not candidates:
        return RemoveOrphanFilesResult(0, 0, ())
    meta_names, data_names = used_files(main)
    deleted: list[str] = []
    total = 0
    for path, size, _, kind in candidates:
        name = basename(path)
        if kind == "meta" and name in meta_names:
            continue
        if kind == "data" and name in data_names:
            continue
        if not dry_run and not main.file_io.delete(path):
            continue  # gone already
        deleted.append(path)
        total += size
    return RemoveOrphanFilesResult(len(deleted), total, tuple(deleted))
