"""Cross-partition upsert: a primary-key table in dynamic bucket mode (``bucket`` = -1) whose
primary key does not include every partition column (Paimon's KEY_DYNAMIC bucket mode).

A key is unique across the whole table, so a write must know in which partition and bucket each
existing key lives: a global key index, bootstrapped from the keys of the write's base snapshot
(a merged read of the primary-key columns of every bucket, as Paimon's ``IndexBootstrap``; no
HASH index files are read or written in this mode, as in Paimon), then updated as the write
assigns keys. A row whose key lives in another partition is handled by the merge engine's rule
(Paimon's ``ExistingProcessor``):

* deduplicate: a -D of the key (the new row's values with the old partition) goes to the old
  partition and bucket, and the row is written to a (new) bucket of its own partition;
* partial-update, aggregation: the row is written into the key's OLD partition and bucket;
* first-row: the row is dropped (the key keeps its first row).

New keys of a partition fill its buckets up to ``dynamic-bucket.target-row-num`` keys each; with
N bucket assigners (``dynamic-bucket.assigner-parallelism``, else ``dynamic-bucket.initial-buckets``,
else one) a key belongs to assigner ``abs(hash(key) % N)``, which only uses buckets ``b`` with
``b % N`` equal to its id, as Paimon's assigners do. Everything is vectorised: lookups are Arrow
hash joins of a batch's distinct keys against the index.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.format.binary_row import decode_row, encode_rows
from paimon_sql.format.murmur import hash_columns
from paimon_sql.format.system_fields import ROW_KINDS
from paimon_sql.lsm.engines import engine_of
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.options.layout import (
    CROSS_PARTITION_UPSERT_BOOTSTRAP_PARALLELISM,
    CROSS_PARTITION_UPSERT_INDEX_TTL,
    DYNAMIC_BUCKET_ASSIGNER_PARALLELISM,
)
from paimon_sql.scan.reader import read_split
from paimon_sql.scan.split import DataSplit, DeletionFile
from paimon_sql.types import to_arrow_type
from paimon_sql.write.file_writer import KIND
from paimon_sql.write.grouping import group_ids

_PART = "__paimon_xpart_part"
_BUCKET = "__paimon_xpart_bucket"
_ROW = "__paimon_xpart_row"
_DELETE = ROW_KINDS["-D"]


def is_cross_partition(store: FileStore) -> bool:
    """Paimon's ``TableSchema.crossPartitionUpdate()`` with ``bucket`` = -1 (KEY_DYNAMIC mode):
    other bucket modes keep a key unique per partition only, as Paimon does."""
    schema = store.schema
    if not schema.primary_keys or not schema.partition_keys:
        return False
    return not set(schema.partition_keys) <= set(schema.primary_keys) and store.options.bucket == -1


def num_assigners(store: FileStore) -> int:
    """Bucket assigners of a cross-partition write: Paimon's Flink rule, max of
    ``dynamic-bucket.initial-buckets`` and ``dynamic-bucket.assigner-parallelism``; one when neither
    is set (Paimon's writers then use the engine's parallelism)."""
    opts = store.options
    values = [v for v in (opts.dynamic_bucket_initial_buckets, opts.get(DYNAMIC_BUCKET_ASSIGNER_PARALLELISM))
              if v is not None]
    return max([1, *values])


class CrossPartitionAssigner:
    """The global key index of one write and the assignment of its rows to partitions and buckets."""

    def __init__(self, store: FileStore, base: Snapshot | None, overwrite: bool = False) -> None:
        self.store = store
        self.base = base
        # an overwriting write: a key may not leave (or be redirected into) a partition it does not write
        self.overwrite = overwrite
        schema = store.schema
        self.key_fields = schema.fields_of(list(schema.primary_keys))
        self.key_names = [f.name for f in self.key_fields]
        self.key_types = [f.type for f in self.key_fields]
        self.part_fields = store.partition_fields
        self.part_names = [f.name for f in self.part_fields]
        self.part_arrow = [to_arrow_type(f.type) for f in self.part_fields]
        self.engine = engine_of(store.options).name
        self.target = max(1, int(store.options.dynamic_bucket_target_row_num))
        self.assigners = num_assigners(store)
        # partitions by dense id: BinaryRow, values (a one-row-per-id Arrow table) and bucket key counts
        self.part_ids: dict[bytes, int] = {}
        self._part_rows: list[bytes] = []
        self._part_values: list[list[object]] = []
        self._part_table: pa.Table | None = None
        self.counts: dict[int, dict[int, int]] = defaultdict(dict)
        self.index: pa.Table | None = None  # key columns, _PART, _BUCKET: one row per live key
        self.bootstrap_seconds = 0.0

    # -- bootstrap -------------------------------------------------------------------------------
    def ensure_index(self) -> pa.Table:
        """The global key index (bootstrapped from the base snapshot on first use)."""
        if self.index is None:
            start = time.perf_counter()
            self.index = self._bootstrap()
            self.bootstrap_seconds = time.perf_counter() - start
        return self.index

    def _empty_index(self) -> pa.Table:
        fields = [pa.field(f.name, to_arrow_type(f.type)) for f in self.key_fields]
        return pa.schema(fields + [pa.field(_PART, pa.int32()), pa.field(_BUCKET, pa.int32())]).empty_table()

    def _bootstrap(self) -> pa.Table:
        """The keys of the base snapshot with their partition and bucket (merged reads: a deleted
        key is absent), as Paimon's IndexBootstrap reads them at the start of a write."""
        store, snap = self.store, self.base
        if snap is None:
            return self._empty_index()
        groups: dict[tuple[bytes, int], list] = defaultdict(list)
        for e in store.manifests.live_entries(snap):
            groups[(e.partition, e.bucket)].append(e)
        if not groups:
            return self._empty_index()
        ttl_ms = store.options.get(CROSS_PARTITION_UPSERT_INDEX_TTL)
        now = int(time.time() * 1000)
        dvs = _deletion_files(store, snap)
        splits = []
        for (partition, bucket), es in sorted(groups.items(), key=lambda kv: kv[0]):
            files = tuple(sorted((e.file for e in es), key=lambda f: (f.level, f.min_sequence_number)))
            if ttl_ms is not None and not any(
                (f.creation_time_epoch_ms or 0) + ttl_ms >= now for f in files
            ):
                continue  # Paimon's index-ttl: a bucket whose files are all older is not indexed
            pvals = tuple(decode_row(partition, store.partition_types))
            self._part_id(partition, list(pvals))
            splits.append(DataSplit(
                snapshot_id=snap.id, partition=partition, partition_values=pvals, bucket=bucket,
                total_buckets=es[0].total_buckets, bucket_dir=store.bucket_dir(list(pvals), bucket),
                files=files, deletion_files=dvs.get((partition, bucket), {}), raw_convertible=len(files) == 1,
            ))
        threads = max(1, min(store.options.get(CROSS_PARTITION_UPSERT_BOOTSTRAP_PARALLELISM),
                             os.cpu_count() or 1, len(splits) or 1))

        def read(split: DataSplit) -> pa.Table:
            t = read_split(store, split, self.key_fields)
            pid = self.part_ids[split.partition]
            return t.append_column(_PART, pa.array(np.full(t.num_rows, pid, dtype=np.int32))).append_column(
                _BUCKET, pa.array(np.full(t.num_rows, split.bucket, dtype=np.int32)))

        if threads > 1:
            with ThreadPoolExecutor(max_workers=threads) as pool:
                parts = list(pool.map(read, splits))
        else:
            parts = [read(s) for s in splits]
        if not parts:
            return self._empty_index()
        index = pa.concat_tables(parts).cast(self._empty_index().schema)
        if index.num_rows:
            stats = index.group_by([_PART, _BUCKET]).aggregate([([], "count_all")])
            for p, b, c in zip(stats.column(_PART).to_pylist(), stats.column(_BUCKET).to_pylist(),
                               stats.column("count_all").to_pylist()):
                self.counts[p][b] = c
            distinct = index.group_by(self.key_names).aggregate([]).num_rows
            if distinct != index.num_rows and ttl_ms is not None:
                # index-ttl can leave a key in two partitions (Paimon's documented duplicates): once
                # both buckets are indexed again, the copy read last is the one the index follows
                rows = index.append_column(_ROW, pa.array(np.arange(index.num_rows, dtype=np.int64)))
                last = rows.group_by(self.key_names).aggregate([(_ROW, "max")]).column(f"{_ROW}_max")
                index = index.take(pc.sort_indices(last))
            elif distinct != index.num_rows:
                raise ValidationError(
                    f"Table {store.name} holds {index.num_rows - distinct} primary keys in more than one "
                    f"bucket or partition: its data contains duplicates (a cross-partition upsert table "
                    "supports one writer at a time, as Paimon's)"
                )
        return index

    # -- partitions ------------------------------------------------------------------------------
    def _part_id(self, partition: bytes, values: list[object]) -> int:
        pid = self.part_ids.get(partition)
        if pid is None:
            pid = len(self._part_values)
            self.part_ids[partition] = pid
            self._part_rows.append(partition)
            self._part_values.append(values)
            self._part_table = None
        return pid

    def _partition_columns(self, pids: np.ndarray) -> list[pa.Array]:
        if self._part_table is None:
            cols = [pa.array([v[i] for v in self._part_values], type=t) for i, t in enumerate(self.part_arrow)]
            self._part_table = pa.Table.from_arrays(cols, names=self.part_names)
        idx = pa.array(pids.astype(np.int64))
        return [self._part_table.column(i).take(idx).combine_chunks() for i in range(len(self.part_names))]

    def _row_partitions(self, table: pa.Table) -> np.ndarray:
        """Dense global partition id of every row."""
        local, num = group_ids(table, self.part_names)
        first = np.unique(local, return_index=True)[1] if num > 1 else np.zeros(1, dtype=np.int64)
        cols = [table.column(n).take(pa.array(first)).combine_chunks() for n in self.part_names]
        rows = encode_rows(cols, self.store.partition_types)
        mapping = np.empty(num, dtype=np.int64)
        for i, row in enumerate(rows):
            mapping[i] = self._part_id(row, [c[i].as_py() for c in cols])
        return mapping[local]

    # -- buckets ---------------------------------------------------------------------------------
    def _assign(self, pid: int, hashes: np.ndarray) -> np.ndarray:
        """Buckets of new keys of partition ``pid`` (key hashes in order of appearance): each
        assigner fills its lowest bucket below the target, else opens its lowest unused bucket
        (Paimon's cross-partition BucketAssigner)."""
        n = self.assigners
        counts = self.counts[pid]
        out = np.empty(len(hashes), dtype=np.int32)
        owner = np.abs(hashes.astype(np.int64) % n)
        for a in np.unique(owner):
            a = int(a)
            mine = np.flatnonzero(owner == a)
            i = 0
            while i < len(mine):
                bucket = next((b for b in sorted(counts) if b % n == a and counts[b] < self.target), None)
                if bucket is None:
                    bucket = a
                    while bucket in counts:
                        bucket += n
                    counts[bucket] = 0
                take = mine[i : i + self.target - counts[bucket]]
                out[take] = bucket
                counts[bucket] += len(take)
                i += len(take)
        return out

    def _assign_new(self, pids: np.ndarray, hashes: np.ndarray) -> np.ndarray:
        """Buckets of new key occurrences (in order of appearance) in their partitions ``pids``."""
        out = np.empty(len(pids), dtype=np.int32)
        for pid in np.unique(pids):
            sel = np.flatnonzero(pids == pid)
            out[sel] = self._assign(int(pid), hashes[sel])
        return out

    def _decrement(self, pids: np.ndarray, buckets: np.ndarray) -> None:
        if not len(pids):
            return
        pairs, cnt = np.unique(np.stack([pids.astype(np.int64), buckets.astype(np.int64)]), axis=1,
                               return_counts=True)
        for (p, b), c in zip(pairs.T.tolist(), cnt.tolist()):
            counts = self.counts[p]
            counts[b] = max(counts.get(b, 0) - c, 0)

    # -- the write -------------------------------------------------------------------------------
    def process(self, table: pa.Table) -> tuple[pa.Table, np.ndarray]:
        """Rows of ``table`` (the table's columns and the row kind ``KIND``, in input order) as
        they are to be written, with each row's bucket: rows redirected or dropped by the merge
        engine's rule, and (deduplicate) a -D for each key leaving a partition, placed right
        before the row that moves it."""
        index = self.ensure_index()
        n = table.num_rows
        if n == 0:
            return table, np.empty(0, dtype=np.int64)
        empty_index = index.num_rows == 0
        if empty_index and self.engine in ("deduplicate", "first-row"):
            # Paimon's bulk load into an empty index: one row per key (the last; first-row: the first)
            kid, _ = group_ids(table, self.key_names)
            keep = _last_of_group(kid) if self.engine == "deduplicate" else _first_of_group(kid)
            if not keep.all():
                table = table.filter(pa.array(keep))
                n = table.num_rows
        kid, nk = group_ids(table, self.key_names)
        gpid = self._row_partitions(table)
        first_row = _first_rows(kid, nk)
        keys = table.select(self.key_names).take(pa.array(first_row))
        hashes = _hashes(keys, self.key_names, self.key_types)
        old_part = np.full(nk, -1, dtype=np.int64)
        old_bucket = np.full(nk, -1, dtype=np.int64)
        if not empty_index:
            probe = keys.append_column(_ROW, pa.array(np.arange(nk, dtype=np.int64)))
            # Arrow builds the hash table of the right side: the batch's keys, not the whole index
            found = index.join(probe, keys=self.key_names, join_type="inner")
            at = found.column(_ROW).to_numpy()
            old_part[at] = found.column(_PART).to_numpy()
            old_bucket[at] = found.column(_BUCKET).to_numpy()
        if self.engine == "deduplicate":
            out, buckets, loc_part, loc_bucket, changed = self._delete_existing(
                table, kid, nk, gpid, hashes, old_part, old_bucket)
        else:
            out, buckets, loc_part, loc_bucket, changed = self._keep_existing(
                table, kid, nk, gpid, first_row, hashes, old_part, old_bucket)
        self._update_index(keys, changed, loc_part, loc_bucket)
        return out, buckets

    def _delete_existing(
        self, table: pa.Table, kid: np.ndarray, nk: int, gpid: np.ndarray, hashes: np.ndarray,
        old_part: np.ndarray, old_bucket: np.ndarray,
    ) -> tuple[pa.Table, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Deduplicate (Paimon's DeleteExistingProcessor). The rows of one key form segments (runs
        of consecutive rows of one partition); each segment after the first, and a first segment
        in another partition than the index says, retracts the key from where it was and takes a
        new bucket in its own partition."""
        n = table.num_rows
        order = np.argsort(kid, kind="stable")
        sk, sp = kid[order], gpid[order]
        key_start = np.ones(n, dtype=bool)
        key_start[1:] = sk[1:] != sk[:-1]
        seg_start = key_start.copy()
        seg_start[1:] |= sp[1:] != sp[:-1]
        seg_pos = np.flatnonzero(seg_start)
        seg_key, seg_part, seg_row = sk[seg_pos], sp[seg_pos], order[seg_pos]
        seg_first = key_start[seg_pos]
        reuse = seg_first & (old_part[seg_key] == seg_part)
        seg_bucket = np.where(reuse, old_bucket[seg_key], -1)
        prev_part = np.empty(len(seg_pos), dtype=np.int64)
        prev_part[seg_first] = old_part[seg_key[seg_first]]
        later = np.flatnonzero(~seg_first)
        prev_part[later] = seg_part[later - 1]
        retract = (prev_part >= 0) & ~reuse
        # the index's buckets lose their moved keys, then new occurrences are assigned in input order
        first_retract = retract & seg_first
        self._decrement(prev_part[first_retract], old_bucket[seg_key[first_retract]])
        new = np.flatnonzero(~reuse)
        if len(new):
            new = new[np.argsort(seg_row[new], kind="stable")]
            seg_bucket[new] = self._assign_new(seg_part[new], hashes[seg_key[new]])
        prev_bucket = np.empty(len(seg_pos), dtype=np.int64)
        prev_bucket[seg_first] = old_bucket[seg_key[seg_first]]
        prev_bucket[later] = seg_bucket[later - 1]
        later_retract = retract & ~seg_first
        self._decrement(prev_part[later_retract], prev_bucket[later_retract])
        # every row takes its segment's bucket
        row_seg = np.empty(n, dtype=np.int64)
        row_seg[order] = np.cumsum(seg_start) - 1
        buckets = seg_bucket[row_seg].astype(np.int64)
        # where each key ends up: its last segment
        last_seg = np.flatnonzero(np.append(seg_key[1:] != seg_key[:-1], True))
        loc_part = np.empty(nk, dtype=np.int64)
        loc_bucket = np.empty(nk, dtype=np.int64)
        loc_part[seg_key[last_seg]] = seg_part[last_seg]
        loc_bucket[seg_key[last_seg]] = seg_bucket[last_seg]
        changed = (loc_part != old_part) | (loc_bucket != old_bucket)
        r = np.flatnonzero(retract)
        if not len(r) or self.store.options.ignore_delete:  # ignore-delete drops the retractions too
            return table, buckets, loc_part, loc_bucket, changed
        self._check_overwrite(prev_part[r], gpid)
        rows = seg_row[r]
        minus = table.take(pa.array(rows))
        for name, col in zip(self.part_names, self._partition_columns(prev_part[r])):
            i = minus.schema.get_field_index(name)
            minus = minus.set_column(i, minus.schema.field(i), col.cast(minus.schema.field(i).type))
        i = minus.schema.get_field_index(KIND)
        minus = minus.set_column(i, minus.schema.field(i), pa.array(np.full(len(r), _DELETE, dtype=np.int8)))
        out = pa.concat_tables([table, minus.cast(table.schema)])
        position = np.concatenate([np.arange(n, dtype=np.int64) * 2 + 1, rows.astype(np.int64) * 2])
        perm = np.argsort(position, kind="stable")
        all_buckets = np.concatenate([buckets, prev_bucket[r]])
        return out.take(pa.array(perm)), all_buckets[perm], loc_part, loc_bucket, changed

    def _keep_existing(
        self, table: pa.Table, kid: np.ndarray, nk: int, gpid: np.ndarray, first_row: np.ndarray,
        hashes: np.ndarray, old_part: np.ndarray, old_bucket: np.ndarray,
    ) -> tuple[pa.Table, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Partial-update and aggregation (Paimon's UseOldExistingProcessor): every row of a key
        goes to where the key lives (a new key: the partition of its first row); first-row
        (SkipNewExistingProcessor): rows of a key in another partition are dropped."""
        loc_part = old_part.copy()
        loc_bucket = old_bucket.copy()
        new = np.flatnonzero(old_part < 0)
        if len(new):
            new = new[np.argsort(first_row[new], kind="stable")]
            loc_part[new] = gpid[first_row[new]]
            loc_bucket[new] = self._assign_new(loc_part[new], hashes[new])
        changed = old_part < 0
        row_part = loc_part[kid]
        buckets = loc_bucket[kid]
        moved = row_part != gpid
        if not moved.any():
            return table, buckets, loc_part, loc_bucket, changed
        if self.engine == "first-row":
            keep = ~moved
            return table.filter(pa.array(keep)), buckets[keep], loc_part, loc_bucket, changed
        self._check_overwrite(row_part, gpid)
        cols = self._partition_columns(row_part)
        out = table
        for name, col in zip(self.part_names, cols):
            i = out.schema.get_field_index(name)
            out = out.set_column(i, out.schema.field(i), col.cast(out.schema.field(i).type))
        return out, buckets, loc_part, loc_bucket, changed

    def _check_overwrite(self, touched: np.ndarray, written: np.ndarray) -> None:
        """An overwrite replaces the partitions it writes (or the table); a key it moves out of (or
        into) a partition it does not write would make that partition part of the overwrite
        (dynamic) or fall outside it (static): refused, before anything is written."""
        if not self.overwrite:
            return
        outside = np.setdiff1d(np.unique(touched), np.unique(written))
        if len(outside):
            from paimon_sql.write.conflicts import describe_partition

            where = ", ".join(describe_partition(self.store, self._part_rows[int(p)]) for p in outside[:3])
            raise UnsupportedError(
                f"Overwriting table {self.store.name} would move primary keys of {where}, which the "
                "overwrite does not write (a cross-partition upsert table keeps each key in one "
                "partition): overwrite those partitions too, or upsert with INSERT INTO"
            )

    def _update_index(self, keys: pa.Table, changed: np.ndarray, loc_part: np.ndarray, loc_bucket: np.ndarray) -> None:
        assert self.index is not None
        sel = np.flatnonzero(changed)
        if not len(sel):
            return
        take = pa.array(sel)
        fresh = keys.take(take).append_column(_PART, pa.array(loc_part[sel].astype(np.int32))).append_column(
            _BUCKET, pa.array(loc_bucket[sel].astype(np.int32)))
        fresh = fresh.cast(self.index.schema)
        kept = self.index
        if kept.num_rows:
            kept = kept.join(fresh.select(self.key_names), keys=self.key_names, join_type="left anti")
            kept = kept.select(self.index.schema.names).cast(self.index.schema)
        self.index = pa.concat_tables([kept, fresh]).combine_chunks()


def _first_rows(kid: np.ndarray, nk: int) -> np.ndarray:
    first = np.full(nk, len(kid), dtype=np.int64)
    np.minimum.at(first, kid, np.arange(len(kid), dtype=np.int64))
    return first


def _first_of_group(gid: np.ndarray) -> np.ndarray:
    keep = np.zeros(len(gid), dtype=bool)
    keep[np.unique(gid, return_index=True)[1]] = True
    return keep


def _last_of_group(gid: np.ndarray) -> np.ndarray:
    keep = np.zeros(len(gid), dtype=bool)
    rev = gid[::-1]
    keep[len(gid) - 1 - np.unique(rev, return_index=True)[1]] = True
    return keep


def _hashes(keys: pa.Table, names: list[str], types: list) -> np.ndarray:
    if keys.num_rows == 0:
        return np.empty(0, dtype=np.int32)
    cols = [keys.column(n).combine_chunks() for n in names]
    return np.asarray(hash_columns(cols, types), dtype=np.int32)


def _deletion_files(store: FileStore, snapshot: Snapshot) -> dict[tuple[bytes, int], dict[str, DeletionFile]]:
    from paimon_sql.scan.planner import deletion_files

    return deletion_files(store, snapshot)

