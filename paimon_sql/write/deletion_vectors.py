"""The deletion vectors of one bucket while a write compacts it (Paimon's BucketedDvMaintainer):
loaded from the bucket's DELETION_VECTORS index file in the base snapshot, extended when
compaction finds an older row of a key it rewrites, dropped for the files compaction removes, and
written back as one new index file for the bucket (v1 vectors: 32-bit portable RoaringBitmaps).
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


class BucketDeletionVectors:
    def __init__(self, store: FileStore, partition: bytes, bucket: int, base: Snapshot | None) -> None:
        self.store = store
        self.partition = partition
        self.bucket = bucket
        self.vectors: dict[str, np.ndarray] = {}
        self.old_entry: IndexManifestEntry | None = None
        self.changed = False
        if base is None:
            return
        for e in store.manifests.index_entries(base):
            f = e.index_file
            if (e.partition, e.bucket) != (partition, bucket) or f.index_type != INDEX_TYPE_DELETION_VECTORS:
                continue
            self.old_entry = e
            path = f.external_path or store.index_file_path(f.file_name)
            data = store.file_io.read_bytes(path)
            for name, r in (f.dv_ranges or {}).items():
                self.vectors[name] = deletion_vector.deserialize(data[r.offset : r.offset + r.length + 8], path)

    def deleted(self, file_name: str) -> np.ndarray | None:
        return self.vectors.get(file_name)

    def keep_mask(self, file_name: str, num_rows: int) -> np.ndarray | None:
        """False at the file's deleted positions (None when nothing is deleted)."""
        pos = self.vectors.get(file_name)
        if pos is None or pos.size == 0:
            return None
        keep = np.ones(num_rows, dtype=bool)
        keep[pos[pos < num_rows]] = False
        return keep

    def delete(self, file_name: str, positions: np.ndarray) -> None:
        if positions.size == 0:
            return
        old = self.vectors.get(file_name)
        merged = positions if old is None else np.concatenate([old, positions])
        self.vectors[file_name] = np.unique(merged.astype(np.int64))
        self.changed = True

    def remove_files(self, names: Iterable[str]) -> None:
        for n in names:
            if self.vectors.pop(n, None) is not None:
                self.changed = True

    def index_entry(self) -> tuple[IndexManifestEntry | None, str | None]:
        """The bucket's new index entry and the path written (a DELETE entry, no file, when the bucket
        has no deletion vectors left; (None, None) when nothing changed)."""
        if not self.changed:
            return None, None
        if not self.vectors:
            if self.old_entry is None:
                return None, None
            old = self.old_entry.index_file
            return IndexManifestEntry(FileKind.DELETE, self.partition, self.bucket, old), None
        name = f"index-{uuid.uuid4()}-0"
        path = join(self.store.path, "index", name)
        out = bytearray([deletion_vector.INDEX_FILE_VERSION])
        ranges: dict[str, DeletionVectorRange] = {}
        for file_name in sorted(self.vectors):
            pos = self.vectors[file_name]
            blob = deletion_vector.serialize(pos, self.store.options.deletion_vectors_bitmap64)
            ranges[file_name] = DeletionVectorRange(len(out), len(blob) - 8, int(pos.size))
            out += blob
        self.store.file_io.write_bytes(path, bytes(out))
        meta = IndexFileMeta(INDEX_TYPE_DELETION_VECTORS, name, len(out), len(ranges), ranges)
        return IndexManifestEntry(FileKind.ADD, self.partition, self.bucket, meta), path

