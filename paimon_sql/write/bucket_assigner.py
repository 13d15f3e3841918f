"""Which partition and bucket each written row goes to.

Paimon picks a bucket assigner from the table's bucket mode (``BucketMode``; the switch in
``KeyValueFileStoreWrite`` / ``AppendFileStoreWrite`` and the Spark writer): hash of the bucket key
modulo ``bucket`` (HASH_FIXED, with the rule that a partition keeps the bucket count it was written
with), the per-partition hash index (HASH_DYNAMIC: ``HashBucketAssigner`` /
``SimpleHashBucketAssigner``), the global key index (KEY_DYNAMIC: cross-partition upsert) or bucket 0
(BUCKET_UNAWARE append tables). ``TableWrite`` asks :func:`bucket_assigner` for one and calls
:meth:`BucketAssigner.place` on every flushed buffer.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from paimon_sql.errors import ValidationError
from paimon_sql.format.binary_row import encode_rows
from paimon_sql.format.murmur import bucket_of, hash_columns
from paimon_sql.fs.file_io import join
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.index_file_meta import INDEX_TYPE_HASH
from paimon_sql.meta.simple_stats import empty_row
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.write.changes import CommitChanges
from paimon_sql.write.conflicts import describe_partition
from paimon_sql.write.cross_partition import CrossPartitionAssigner, is_cross_partition
from paimon_sql.write.dynamic_bucket import PartitionBuckets, read_hashes, write_hash_index
from paimon_sql.write.grouping import group_ids

# rows are hashed in chunks (bounds the hashing's scratch memory)
_HASH_CHUNK = 1 << 18


@dataclass
class Placement:
    """The rows of one flushed buffer with their partition and bucket."""

    table: pa.Table  # the rows to write (a cross-partition upsert may add retractions)
    pids: np.ndarray  # each row's partition: an index into ``partitions``
    partitions: list[bytes]  # BinaryRow of each partition
    values: list[list[object]]  # the partition values of each partition
    buckets: np.ndarray  # each row's bucket (int64)


def group_partitions(store: FileStore, table: pa.Table) -> tuple[np.ndarray, list[bytes], list[list[object]]]:
    """Each row's partition id, and each partition's BinaryRow and values (from one representative row)."""
    part_names = [f.name for f in store.partition_fields]
    pids, num_parts = group_ids(table, part_names)
    first_rows = np.unique(pids, return_index=True)[1] if num_parts > 1 else np.zeros(1, dtype=np.int64)
    pcols = [table.column(n).take(pa.array(first_rows)).combine_chunks() for n in part_names]
    partitions = encode_rows(pcols, store.partition_types) if part_names else [empty_row()] * num_parts
    values = [[c[i].as_py() for c in pcols] for i in range(num_parts)]
    return pids, partitions, values


class BucketAssigner(ABC):
    """Assigns the rows of a flushed buffer to partitions and buckets (see the module docstring)."""

    # the bucket count the manifest entries of the written files record (-1: not a fixed count)
    total_buckets = -1

    def __init__(self, store: FileStore) -> None:
        self.store = store

    @abstractmethod
    def place(self, table: pa.Table) -> Placement | None:
        """The rows of ``table`` with their partitions and buckets (None: nothing to write)."""

    def prepare_commit(self, changes: CommitChanges) -> None:
        """Adds what the assignment itself must commit (a dynamic table's hash index files);
        nothing by default."""
        return None


class _RowBucketAssigner(BucketAssigner):
    """An assigner that keeps the rows as they are and gives each one a bucket."""

    def place(self, table: pa.Table) -> Placement | None:
        pids, partitions, values = group_partitions(self.store, table)
        return Placement(table, pids, partitions, values, self.assign(table, pids, partitions))

    @abstractmethod
    def assign(self, table: pa.Table, pids: np.ndarray, partitions: list[bytes]) -> np.ndarray:
        """Each row's bucket; ``pids`` indexes ``partitions`` (each row's partition)."""


class FixedBucketAssigner(_RowBucketAssigner):
    """``bucket`` > 0: the hash of the bucket key modulo the bucket count. ``previous_buckets``
    gives each partition's bucket count in the base snapshot (None: an overwriting write, where a
    partition may be written with another bucket count)."""

    def __init__(self, store: FileStore, previous_buckets: Callable[[], Mapping[bytes, int]] | None) -> None:
        super().__init__(store)
        self.num_buckets = self.total_buckets = store.options.bucket
        self.previous_buckets = previous_buckets

    def assign(self, table: pa.Table, pids: np.ndarray, partitions: list[bytes]) -> np.ndarray:
        if self.previous_buckets is not None:
            self._check_bucket_count(partitions, self.previous_buckets())
        n = self.num_buckets
        fields = self.store.bucket_key_fields
        cols = [table.column(f.name).combine_chunks() for f in fields]
        if not cols:
            raise ValidationError(f"Table {self.store.name} has bucket={n} but no bucket-key")
        types = [f.type for f in fields]
        out = np.empty(table.num_rows, dtype=np.int64)
        for lo in range(0, table.num_rows, _HASH_CHUNK):
            out[lo : lo + _HASH_CHUNK] = bucket_of([c.slice(lo, _HASH_CHUNK) for c in cols], types, n)
        return out

    def _check_bucket_count(self, partitions: list[bytes], previous_buckets: Mapping[bytes, int]) -> None:
        """A partition keeps the bucket count it was written with (Paimon refuses to mix them):
        after ``bucket`` changed, overwrite or rescale the partition first."""
        for partition in partitions:
            previous = previous_buckets.get(partition)
            if previous is not None and previous != self.num_buckets:
                where = describe_partition(self.store, partition)
                where = "table" if where == "the table" else where.replace("partition ", "partition {", 1) + "}"
                raise ValidationError(  # Paimon's message, then the table and the procedure that rescales
                    f"Try to write {where} with a new bucket num {self.num_buckets}, but the previous bucket "
                    f"num is {previous}. Please switch to batch mode, and perform INSERT OVERWRITE to rescale "
                    f"current data layout first (table {self.store.name}; or CALL sys.rescale(table => "
                    f"'{self.store.name}'))"
                )


class UnawareBucketAssigner(_RowBucketAssigner):
    """An append table without a fixed bucket count (``bucket`` = -1, or -2 as the code has it):
    every row goes to bucket 0."""

    def assign(self, table: pa.Table, pids: np.ndarray, partitions: list[bytes]) -> np.ndarray:
        return np.zeros(table.num_rows, dtype=np.int64)


class DynamicBucketAssigner(_RowBucketAssigner):
    """A primary-key table with ``bucket`` = -1 whose key holds every partition column: each
    partition's hash index (key hash -> bucket) from the base snapshot, extended with the new keys;
    the changed buckets' index files are written at prepare-commit."""

    def __init__(self, store: FileStore, base: Snapshot | None) -> None:
        super().__init__(store)
        self.base = base
        self.partitions: dict[bytes, PartitionBuckets] = {}
        self._loaded = False

    def assign(self, table: pa.Table, pids: np.ndarray, partitions: list[bytes]) -> np.ndarray:
        if len(partitions) == 1:
            return self._assign(partitions[0], table)
        out = np.empty(table.num_rows, dtype=np.int64)
        order = np.argsort(pids, kind="stable")
        bounds = np.flatnonzero(np.diff(pids[order])) + 1
        for idx in np.split(order, bounds):
            out[idx] = self._assign(partitions[int(pids[idx[0]])], table.take(pa.array(idx)))
        return out

    def _assign(self, partition: bytes, rows: pa.Table) -> np.ndarray:
        self._load()
        pb = self.partitions.setdefault(partition, PartitionBuckets())
        key_cols = [rows.column(f.name).combine_chunks() for f in self.store.key_fields]
        key_types = [f.type for f in self.store.key_fields]
        hashes = np.concatenate([
            np.asarray(hash_columns([c.slice(lo, _HASH_CHUNK) for c in key_cols], key_types), dtype=np.int32)
            for lo in range(0, rows.num_rows, _HASH_CHUNK)
        ]) if rows.num_rows else np.empty(0, dtype=np.int32)
        opts = self.store.options
        return pb.assign(
            hashes, opts.dynamic_bucket_target_row_num, opts.dynamic_bucket_max_buckets,
            opts.dynamic_bucket_assigners(),
        ).astype(np.int64)

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if self.base is None:
            return
        for e in self.store.manifests.index_entries(self.base):
            if e.index_file.index_type != INDEX_TYPE_HASH:
                continue
            f = e.index_file
            path = f.external_path or self.store.index_file_path(f.file_name)
            pb = self.partitions.setdefault(e.partition, PartitionBuckets())
            pb.hashes[e.bucket] = read_hashes(self.store.file_io, path)

    def prepare_commit(self, changes: CommitChanges) -> None:
        index_dir = join(self.store.path, "index")
        for partition, pb in self.partitions.items():
            for bucket in sorted(pb.changed):
                entry = write_hash_index(self.store.file_io, index_dir, partition, bucket, pb.hashes[bucket])
                changes.index_entries.append(entry)
                changes.written_paths.append(join(index_dir, entry.index_file.file_name))
            pb.changed.clear()


class CrossPartitionBucketAssigner(BucketAssigner):
    """Cross-partition upsert (``bucket`` = -1, a key without every partition column): the global
    key index places each row (and retracts a key leaving its partition) before the rows are grouped."""

    def __init__(self, store: FileStore, base: Snapshot | None, overwrite: bool) -> None:
        super().__init__(store)
        self.index = CrossPartitionAssigner(store, base, overwrite)

    def place(self, table: pa.Table) -> Placement | None:
        table, buckets = self.index.process(table)
        if table.num_rows == 0:
            return None
        pids, partitions, values = group_partitions(self.store, table)
        return Placement(table, pids, partitions, values, buckets)


def bucket_assigner(
    store: FileStore, base: Snapshot | None, ignore_previous_files: bool,
    previous_buckets: Callable[[], Mapping[bytes, int]],
) -> BucketAssigner:
    """The assigner of the table's bucket mode. ``previous_buckets``: each partition's bucket
    count in ``base`` (checked by fixed-bucket writes that do not ignore the previous files)."""
    n = store.options.bucket
    if n > 0:
        return FixedBucketAssigner(store, None if ignore_previous_files else previous_buckets)
    if not store.has_primary_key:
        return UnawareBucketAssigner(store)
    if is_cross_partition(store):
        return CrossPartitionBucketAssigner(store, base, ignore_previous_files)
    return DynamicBucketAssigner(store, base)
