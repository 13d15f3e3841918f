"""Deletion vectors of append tables (no primary key, ``deletion-vectors.enabled``), as Paimon's
append delete-file maintainers keep them:

- fixed-bucket tables (BucketedAppendDeleteFileMaintainer): one DELETION_VECTORS index file per
  (partition, bucket) holding every vector of the bucket; a change rewrites it whole (the new
  entry replaces the bucket's index; a bucket left without vectors loses its index).
- bucket-unaware tables (AppendDeleteFileMaintainer): index entries at bucket 0, any number of
  index files per partition, each data file's vector in exactly one of them. A change writes the
  new vectors into new index files (rolled at ``deletion-vector.index-file.target-size``); every
  index file that held a changed or dropped vector is deleted and its other vectors are written
  again into new files. Untouched index files stay. The index manifest combines these entries by
  file name (``write/commit.py``).

A DELETE merges the new positions into a data file's existing vector; a compaction drops the
vectors of the files it rewrites. ``persist`` writes the index files and returns the index
manifest entries (DELETE entries for the replaced files, ADD entries for the new ones).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

import numpy as np

from paimon_sql.format import deletion_vector
from paimon_sql.fs.file_io import join
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.index_file_meta import (
    INDEX_TYPE_DELETION_VECTORS,
    DeletionVectorRange,
    IndexFileMeta,
    IndexManifestEntry,
)
from paimon_sql.meta.kinds import FileKind
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.options.merge import DV_INDEX_FILE_TARGET_SIZE
from paimon_sql.scan.split import DeletionFile

UNAWARE_BUCKET = 0  # Paimon keeps a bucket-unaware table's files and index entries at bucket 0


def is_unaware(store: FileStore) -> bool:
    return not store.has_primary_key and store.options.bucket == -1


def dv_entries_by_bucket(store: FileStore, snapshot: Snapshot | None) -> dict[tuple[bytes, int], list[IndexManifestEntry]]:
    """The live DELETION_VECTORS index entries of ``snapshot`` by (partition, bucket)."""
    out: dict[tuple[bytes, int], list[IndexManifestEntry]] = {}
    if snapshot is None:
        return out
    for e in store.manifests.index_entries(snapshot):
        if e.index_file.index_type == INDEX_TYPE_DELETION_VECTORS:
            out.setdefault((e.partition, e.bucket), []).append(e)
    return out


def deletion_files(store: FileStore, entries: Iterable[IndexManifestEntry]) -> dict[str, DeletionFile]:
    """Where the vectors of ``entries`` are, by data file name (what a split's reader applies)."""
    out: dict[str, DeletionFile] = {}
    for e in entries:
        f = e.index_file
        path = f.external_path or store.index_file_path(f.file_name)
        for data_file, r in (f.dv_ranges or {}).items():
            out[data_file] = DeletionFile(path, r.offset, r.length, r.cardinality)
    return out


class AppendDeletionVectors:
    """The vectors of one partition (bucket-unaware) or one (partition, bucket) (fixed buckets)."""

    def __init__(self, store: FileStore, partition: bytes, bucket: int, entries: Iterable[IndexManifestEntry]) -> None:
        self.store = store
        self.partition = partition
        self.bucket = bucket
        self.unaware = is_unaware(store)
        self.entries: dict[str, IndexManifestEntry] = {}
        self.where: dict[str, str] = {}  # data file -> the index file holding its vector
        for e in entries:
            self.entries[e.index_file.file_name] = e
            for data_file in e.index_file.dv_ranges or {}:
                self.where[data_file] = e.index_file.file_name
        self._bytes: dict[str, bytes] = {}
        self.new: dict[str, np.ndarray] = {}  # data file -> its whole new vector
        self.dropped: set[str] = set()
        self.touched: set[str] = set()  # index files to replace

    # -- reading ---------------------------------------------------------------------------------
    def _path(self, index_file: str) -> str:
        f = self.entries[index_file].index_file
        return f.external_path or self.store.index_file_path(f.file_name)

    def index_file_of(self, data_file: str) -> str | None:
        return self.where.get(data_file)

    def cardinality(self, data_file: str) -> int | None:
        """The number of deleted rows the index records for ``data_file`` (0: no vector; None: unknown)."""
        name = self.where.get(data_file)
        if name is None:
            return 0
        r = (self.entries[name].index_file.dv_ranges or {})[data_file]
        return r.cardinality

    def stored(self, data_file: str) -> np.ndarray | None:
        """The deleted positions the base snapshot records for ``data_file`` (None: no vector)."""
        name = self.where.get(data_file)
        if name is None:
            return None
        if name not in self._bytes:
            self._bytes[name] = self.store.file_io.read_bytes(self._path(name))
        r = (self.entries[name].index_file.dv_ranges or {})[data_file]
        data = self._bytes[name]
        return deletion_vector.deserialize(data[r.offset : r.offset + r.length + 8], self._path(name))

    def current(self, data_file: str) -> np.ndarray | None:
        if data_file in self.new:
            return self.new[data_file]
        if data_file in self.dropped:
            return None
        return self.stored(data_file)

    # -- changing --------------------------------------------------------------------------------
    def delete(self, data_file: str, positions: np.ndarray) -> None:
        """Marks ``positions`` of ``data_file`` deleted, merged with the vector it has."""
        if positions.size == 0:
            return
        old = self.current(data_file)
        merged = positions if old is None else np.concatenate([old, positions])
        self.new[data_file] = np.unique(merged.astype(np.int64))
        self.dropped.discard(data_file)
        self._touch(data_file)

    def drop(self, data_files: Iterable[str]) -> None:
        """Drops the vectors of ``data_files`` (files a compaction removes)."""
        for f in data_files:
            self.new.pop(f, None)
            if f in self.where:
                self.dropped.add(f)
                self._touch(f)

    def _touch(self, data_file: str) -> None:
        name = self.where.get(data_file)
        if name is not None:
            self.touched.add(name)
        if not self.unaware:
            self.touched.update(self.entries)  # a bucket's one index file is rewritten whole

    @property
    def changed(self) -> bool:
        return bool(self.new) or bool(self.touched)

    # -- writing ---------------------------------------------------------------------------------
    def persist(self) -> tuple[list[IndexManifestEntry], list[str]]:
        """Writes the new index files; returns the index manifest entries and the paths written."""
        if not self.changed:
            return [], []
        out = [IndexManifestEntry(FileKind.DELETE, self.partition, self.bucket, self.entries[n].index_file)
               for n in sorted(self.touched)]
        vectors: dict[str, np.ndarray] = {}
        for data_file, name in self.where.items():
            if name in self.touched and data_file not in self.dropped and data_file not in self.new:
                old = self.stored(data_file)
                if old is not None:
                    vectors[data_file] = old
        vectors.update(self.new)
        target = self.store.options.get(DV_INDEX_FILE_TARGET_SIZE) if self.unaware else None
        written: list[str] = []
        for meta, path in write_index_files(self.store, vectors, target):
            written.append(path)
            out.append(IndexManifestEntry(FileKind.ADD, self.partition, self.bucket, meta))
        return out, written


def write_index_files(
    store: FileStore, vectors: dict[str, np.ndarray], target_size: int | None,
) -> list[tuple[IndexFileMeta, str]]:
    """Writes ``vectors`` (by data file name, in name order) as DELETION_VECTORS index files (v1 vectors, v2 with ``deletion-vectors.bitmap64``): one
    file, or (``target_size``) a new file once one has grown past it (Paimon's rolling writer)."""
    out: list[tuple[IndexFileMeta, str]] = []
    names = sorted(vectors)
    i = 0
    while i < len(names):
        buf = bytearray([deletion_vector.INDEX_FILE_VERSION])
        ranges: dict[str, DeletionVectorRange] = {}
        while i < len(names):
            pos = vectors[names[i]]
            blob = deletion_vector.serialize(pos, store.options.deletion_vectors_bitmap64)
            ranges[names[i]] = DeletionVectorRange(len(buf), len(blob) - 8, int(pos.size))
            buf += blob
            i += 1
            if target_size is not None and len(buf) > target_size:
                break
        name = f"index-{uuid.uuid4()}-0"
        path = join(store.path, "index", name)
        store.file_io.write_bytes(path, bytes(buf))
        out.append((IndexFileMeta(INDEX_TYPE_DELETION_VECTORS, name, len(buf), len(ranges), ranges), path))
    return out
