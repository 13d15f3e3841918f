"""Dynamic bucket mode (``bucket`` = -1 on a primary-key table): keys are assigned to buckets by a
HASH index (one index file per partition and bucket holding the 4-byte big-endian key hashes).

A known key stays in its bucket; a new key goes to the first bucket holding fewer than
``dynamic-bucket.target-row-num`` keys, or to a new bucket.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

import numpy as np

from paimon_sql.errors import ValidationError
from paimon_sql.fs.file_io import FileIO
from paimon_sql.meta.index_file_meta import INDEX_TYPE_HASH, IndexFileMeta, IndexManifestEntry
from paimon_sql.meta.kinds import FileKind


def read_hashes(file_io: FileIO, path: str) -> np.ndarray:
    data = file_io.read_bytes(path)
    return np.frombuffer(data, dtype=">i4").astype(np.int32)


@dataclass
class PartitionBuckets:
    """Key hashes per bucket of one partition."""

    hashes: dict[int, np.ndarray] = field(default_factory=dict)
    changed: set[int] = field(default_factory=set)

    def assign(
        self, key_hashes: np.ndarray, target_rows: int, max_buckets: int | None, num_assigners: int = 1
    ) -> np.ndarray:
        """Buckets of the given key hashes; new keys are added to the index.

        With ``num_assigners`` = N (``dynamic-bucket.initial-buckets``), a key belongs to assigner
        ``abs(hash % N)`` and that assigner only uses buckets ``b`` with ``b % N`` equal to its id, so
        a new partition starts with N buckets, as with Paimon's N parallel bucket assigners."""
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
        if not new_mask.any():
            return out
        uniq, first_idx, inverse = np.unique(key_hashes[new_mask], return_index=True, return_inverse=True)
        appearance = np.argsort(first_idx, kind="stable")  # new keys in order of first appearance
        assigned = np.empty(len(uniq), dtype=np.int32)
        n = max(num_assigners, 1)
        owner = np.abs(uniq.astype(np.int64) % n)
        for a in np.unique(owner):
            mine = appearance[owner[appearance] == a]
            self._fill(uniq, mine, assigned, target_rows, max_buckets, int(a), n)
        out[new_mask] = assigned[inverse]
        return out

    def _fill(
        self, uniq: np.ndarray, mine: np.ndarray, assigned: np.ndarray, target_rows: int,
        max_buckets: int | None, assigner: int, num_assigners: int,
    ) -> None:
        counts = {b: len(h) for b, h in self.hashes.items() if b % num_assigners == assigner}
        limit = max_buckets if max_buckets is not None and max_buckets > 0 else 32767
        i = 0
        while i < len(mine):
            bucket = next((b for b in sorted(counts) if counts[b] < target_rows), None)
            room = 0
            if bucket is None:
                used = set(self.hashes)
                bucket = next(
                    (b for b in range(limit) if b % num_assigners == assigner and b not in used), None
                )
                if bucket is None:
                    if not counts:
                        raise ValidationError(
                            f"Dynamic bucket assignment ran out of buckets (max {limit}); raise "
                            "'dynamic-bucket.target-row-num' or 'dynamic-bucket.max-buckets'"
                        )
                    # upper bound reached: spread the rest over the least filled buckets
                    bucket = min(counts, key=lambda b: counts[b])
                    room = len(mine) - i
                counts.setdefault(bucket, 0)
            if not room:
                room = max(target_rows - counts[bucket], 1)
            take = mine[i : i + room]
            assigned[take] = bucket
            counts[bucket] += len(take)
            self.hashes[bucket] = np.concatenate(
                [self.hashes.get(bucket, np.empty(0, dtype=np.int32)), uniq[take].astype(np.int32)]
            )
            self.changed.add(bucket)
            i += len(take)


def write_hash_index(
    file_io: FileIO, index_dir: str, partition: bytes, bucket: int, hashes: np.ndarray
) -> IndexManifestEntry:
    name = f"index-{uuid.uuid4()}-0"
    data = np.asarray(hashes, dtype=">i4").tobytes()
    file_io.write_bytes(f"{index_dir}/{name}", data)
    return IndexManifestEntry(
        kind=FileKind.ADD,
        partition=partition,
        bucket=bucket,
        index_file=IndexFileMeta(INDEX_TYPE_HASH, name, len(data), len(hashes)),
    )
