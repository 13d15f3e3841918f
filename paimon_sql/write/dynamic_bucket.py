"""Dynamic bucket mode (``bucket`` = -1 on a primary-key table): keys are assigned to buckets by a
HASH index (one index file per partition and bucket holding the 4-byte big-endian key hashes).

A known key stays in its bucket; a new key goes to the first bucket holding fewer than
``dynamic-bucket.target-row-num`` keys, or to a new bucket.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

import numpy as np

from paimon_sql.fs.file_io import FileIO
from paimon_sql.meta.index_file_meta import INDEX_TYPE_HASH, IndexFileMeta, IndexManifestEntry
from paimon_sql.meta.manifest_entry import KIND_ADD


def read_hashes(file_io: FileIO, path: str) -> np.ndarray:
    data = file_io.read_bytes(path)
    return np.frombuffer(data, dtype=">i4").astype(np.int32)


@dataclass
class PartitionBuckets:
    """Key hashes per bucket of one partition."""

    hashes: dict[int, np.ndarray] = field(default_factory=dict)
    changed: set[int] = field(default_factory=set)

    def assign(self, key_hashes: np.ndarray, target_rows: int, max_buckets: int | None) -> np.ndarray:
        out = np.full(len(key_hashes), -1, dtype=np.int32)
        if self.hashes:
            all_h = np.concatenate(list(self.hashes.values()))
            all_b = np.concatenate([np.full(len(h), b, dtype=np.int32) for b, h in self.hashes.items()])
            order = np.argsort(all_h, kind="stable")
            sh, sb = all_h[order], all_b[order]
            pos = np.searchsorted(sh, key_hashes)
            pos_c = np.minimum(pos, len(sh) - 1)
            found = (pos < len(sh)) & (sh[pos_c] == key_hashes)
            out[found] = sb[pos_c[found]]
        new_mask = out < 0
        if new_mask.any():
            new_hashes, first_idx, inverse = np.unique(
                key_hashes[new_mask], return_index=True, return_inverse=True
            )
            # assign in order of first appearance, like a row-by-row assigner would
            appearance = np.argsort(first_idx, kind="stable")
            assigned = np.empty(len(new_hashes), dtype=np.int32)
            counts = {b: len(h) for b, h in self.hashes.items()}
            i = 0
            while i < len(appearance):
                bucket = next((b for b in sorted(counts) if counts[b] < target_rows), None)
                if bucket is None:
                    bucket = max(counts) + 1 if counts else 0
                    if max_buckets is not None and max_buckets > 0 and bucket >= max_buckets:
                        bucket = int(np.argmin([counts[b] for b in sorted(counts)]))
                    counts.setdefault(bucket, 0)
                room = max(target_rows - counts[bucket], 1)
                take = appearance[i : i + room]
                assigned[take] = bucket
                counts[bucket] += len(take)
                self.hashes[bucket] = np.concatenate(
                    [self.hashes.get(bucket, np.empty(0, dtype=np.int32)), new_hashes[take]]
                )
                self.changed.add(bucket)
                i += len(take)
            out[new_mask] = assigned[inverse]
        return out


def write_hash_index(
    file_io: FileIO, index_dir: str, partition: bytes, bucket: int, hashes: np.ndarray
) -> IndexManifestEntry:
    name = f"index-{uuid.uuid4()}-0"
    data = np.asarray(hashes, dtype=">i4").tobytes()
    file_io.write_bytes(f"{index_dir}/{name}", data)
    return IndexManifestEntry(
        kind=KIND_ADD,
        partition=partition,
        bucket=bucket,
        index_file=IndexFileMeta(INDEX_TYPE_HASH, name, len(data), len(hashes)),
    )
