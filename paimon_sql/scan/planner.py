"""Planning a batch scan: snapshot → manifests → live files → pruned → splits per (partition, bucket)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from paimon_sql.errors import PaimonError, UnsupportedError
from paimon_sql.format.binary_row import decode_row, decode_rows
from paimon_sql.lsm.engines import engine_of
from paimon_sql.meta.data_file_meta import DataFileMeta
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.index_file_meta import INDEX_TYPE_DELETION_VECTORS
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.manifest_file_meta import ManifestFileMeta
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.predicate import (
    ColumnStats,
    Predicate,
    and_,
    might_match,
    partition_only,
    referenced_columns,
    split_and,
)
from paimon_sql.scan.default_values import without_default_columns
from paimon_sql.scan.split import DataSplit, DeletionFile
from paimon_sql.types import BinaryType, VarBinaryType


def _manifest_might_match(store: FileStore, metas: list[ManifestFileMeta], pred: Predicate) -> list[bool]:
    names = [f.name for f in store.partition_fields]
    mins = decode_rows([m.partition_stats.min_values for m in metas], store.partition_types)
    maxs = decode_rows([m.partition_stats.max_values for m in metas], store.partition_types)
    stats = {n: ColumnStats(mins[i], maxs[i], None) for i, n in enumerate(names)}
    mask = might_match(pred, stats, np.full(len(metas), 1, dtype=np.int64))
    return [bool(x) for x in mask]


def live_entries(store: FileStore, snapshot: Snapshot, partition_pred: Predicate | None) -> list[ManifestEntry]:
    metas = store.manifests.data_manifests(snapshot)
    if partition_pred is not None and metas and store.partition_fields:
        keep = _manifest_might_match(store, metas, partition_pred)
        # a DELETE in a pruned manifest can only cancel an ADD of the same partition, so pruning
        # whole manifests by partition range is safe
        metas = [m for m, k in zip(metas, keep) if k]
    entries = store.manifests.live_entries(snapshot, metas)
    if partition_pred is not None and entries and store.partition_fields:
        parts = sorted({e.partition for e in entries})
        cols = decode_rows(parts, store.partition_types)
        names = [f.name for f in store.partition_fields]
        stats = {n: ColumnStats(cols[i], cols[i], np.asarray(cols[i].is_null(), dtype=np.int64))
                 for i, n in enumerate(names)}
        mask = might_match(partition_pred, stats, np.ones(len(parts), dtype=np.int64))
        ok = {p for p, m in zip(parts, mask) if m}
        entries = [e for e in entries if e.partition in ok]
    return entries


def ensure_no_full_scan(store: FileStore, snapshot: Snapshot, splits: list[DataSplit]) -> None:
    """``read.allow.fullScan`` = false (Paimon's ``PaimonBaseScan.ensureNoFullScan``): a read of a
    partitioned table whose plan skips no data file of the snapshot (by partition, statistics or
    level) is refused with Paimon's message "Full scan is not supported."."""
    if store.options.read_allow_full_scan or not store.partition_fields:
        return
    total = sum(m.num_added_files - m.num_deleted_files for m in store.manifests.data_manifests(snapshot))
    planned = sum(len(s.files) for s in splits)
    if total - planned <= 0:
        keys = [f.name for f in store.partition_fields]
        raise UnsupportedError(
            f"Full scan is not supported. (table {store.name}: 'read.allow.fullScan' is false and the read "
            f"skips no data file; filter on the partition columns {keys})"
        )


def plan(
    store: FileStore, snapshot: Snapshot, predicate: Predicate | None = None, top_level_only: bool = False
) -> list[DataSplit]:
    """Splits of ``snapshot`` that may hold rows matching ``predicate``. ``top_level_only``: a
    primary-key table's files of the highest level only (``num-levels`` - 1: Paimon's
    read-optimized ``$ro`` table, which merges nothing and misses what is not compacted yet).
    Conjuncts naming a column with a default value prune nothing (its nulls read as the default)."""
    predicate = without_default_columns(predicate, store.options)
    part_pred = partition_only(predicate, list(store.schema.partition_keys)) if predicate is not None else None
    entries = live_entries(store, snapshot, part_pred)
    if top_level_only and store.has_primary_key:
        top = store.options.num_levels - 1
        entries = [e for e in entries if e.file.level == top]

    if predicate is not None and entries:
        entries = prune_by_stats(store, entries, predicate)

    # Paimon's batchScanSkipLevel0: deletion-vector tables unless deletion-vectors.merge-on-read,
    # else the first-row engine
    if store.options.deletion_vectors_enabled:
        skip_level0 = store.has_primary_key and not store.options.deletion_vectors_merge_on_read
    else:
        skip_level0 = store.has_primary_key and engine_of(store.options).skips_level0
    if skip_level0:
        entries = [e for e in entries if e.file.level > 0]

    dv_index = deletion_files(store, snapshot)

    groups: dict[tuple[bytes, int], list[ManifestEntry]] = defaultdict(list)
    for e in entries:
        groups[(e.partition, e.bucket)].append(e)

    if groups:
        _check_legacy_binary_partitions(store)
    splits = []
    part_cache: dict[bytes, tuple[object, ...]] = {}
    for (partition, bucket), es in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        if partition not in part_cache:
            part_cache[partition] = tuple(decode_row(partition, store.partition_types))
        pvals = part_cache[partition]
        files = tuple(sorted((e.file for e in es), key=lambda f: (f.level, f.min_sequence_number)))
        bucket_dir = store.bucket_dir(list(pvals), bucket)
        raw = not store.has_primary_key or skip_level0 or _non_overlapping_single_run(files)
        splits.append(
            DataSplit(
                snapshot_id=snapshot.id,
                partition=partition,
                partition_values=pvals,
                bucket=bucket,
                total_buckets=es[0].total_buckets,
                bucket_dir=bucket_dir,
                files=files,
                deletion_files=dv_index.get((partition, bucket), {}),
                raw_convertible=raw,
            )
        )
    return splits


def deletion_files(store: FileStore, snapshot: Snapshot) -> dict[tuple[bytes, int], dict[str, DeletionFile]]:
    """Where the deletion vector of each data file of ``snapshot`` lives, per (partition, bucket)."""
    out: dict[tuple[bytes, int], dict[str, DeletionFile]] = defaultdict(dict)
    for ie in store.manifests.index_entries(snapshot):
        f = ie.index_file
        if f.index_type != INDEX_TYPE_DELETION_VECTORS or not f.dv_ranges:
            continue
        path = f.external_path or store.index_file_path(f.file_name)
        for data_file, r in f.dv_ranges.items():
            out[(ie.partition, ie.bucket)][data_file] = DeletionFile(path, r.offset, r.length, r.cardinality)
    return out


def _check_legacy_binary_partitions(store: FileStore) -> None:
    """Paimon cannot read the files of a BINARY / VARBINARY partition column under
    ``partition.legacy-name`` = true (its default): the legacy folder name of such a value is the
    Java array's identity text (``day=[B@1b2c3d``), different at every write and read, so its reads
    look in a folder that does not exist (DDLTestBase "Fix partition column generate wrong
    partition spec"). Reads of such a table are refused as in Paimon; set
    ``'partition.legacy-name' = 'false'`` for readable folder names."""
    if not store.options.partition_legacy_name:
        return
    binary = [f.name for f in store.partition_fields if isinstance(f.type, (BinaryType, VarBinaryType))]
    if binary:
        raise UnsupportedError(
            f"Cannot read table {store.name}: its partition column(s) {binary} are BINARY/VARBINARY and "
            "'partition.legacy-name' is true, under which Paimon names their folders after a Java "
            "array's identity and cannot find its files again; create the table with "
            "'partition.legacy-name' = 'false'"
        )


def prune_by_stats(store: FileStore, entries: list[ManifestEntry], predicate: Predicate) -> list[ManifestEntry]:
    """Drops files whose min/max/null-count statistics prove no row can match.

    Append tables use the value stats of every column. Primary-key tables only use the key columns'
    stats: a value filter must not skip a file whose newer record of a key would be merged away.
    Files written with another schema version keep their rows (their stats are by old column ids)."""
    if store.has_primary_key:
        key_names = {k.name for k in store.key_fields}
        conjuncts = [c for c in split_and(predicate) if referenced_columns(c) <= key_names]
        if not conjuncts:
            return entries
        pred = and_(*conjuncts)
    else:
        pred = predicate
    groups: dict[tuple[str, ...] | None, list[int]] = defaultdict(list)
    keep = np.ones(len(entries), dtype=bool)
    for i, e in enumerate(entries):
        if e.file.schema_id == store.schema.id:
            groups[e.file.value_stats_cols if not store.has_primary_key else ("__key__",)].append(i)
    for cols, idx in groups.items():
        files = [entries[i].file for i in idx]
        if store.has_primary_key:
            fields = store.key_fields
            stats_list = [f.key_stats for f in files]
        else:
            fields = store.schema.fields_of(list(cols)) if cols is not None else list(store.schema.fields)
            stats_list = [f.value_stats for f in files]
        types = [f.type for f in fields]
        try:
            mins = decode_rows([s.min_values for s in stats_list], types)
            maxs = decode_rows([s.max_values for s in stats_list], types)
        except PaimonError:
            continue  # stats we cannot decode never prune
        stats = {}
        for j, f in enumerate(fields):
            counts = [s.null_counts[j] if s.null_counts is not None and j < len(s.null_counts) else None
                      for s in stats_list]
            nc = None if any(c is None for c in counts) else np.asarray(counts, dtype=np.int64)
            stats[f.name] = ColumnStats(mins[j], maxs[j], nc)
        rows = np.asarray([f.row_count for f in files], dtype=np.int64)
        mask = might_match(pred, stats, rows)
        keep[np.asarray(idx)[~mask]] = False
    return [e for e, k in zip(entries, keep) if k]


def _non_overlapping_single_run(files: tuple[object, ...]) -> bool:
    # One file: keys are unique inside a file, so no merge is needed.
    return len(files) == 1


def data_file_path(store: FileStore, split: DataSplit, file_name: str, external_path: str | None) -> str:
    return store.data_file_path(split.bucket_dir, file_name, external_path)


def with_files(split: DataSplit, files: tuple[DataFileMeta, ...]) -> DataSplit:
    """``split`` reading only ``files`` (a subset of its files) and their deletion files."""
    import dataclasses

    names = {f.file_name for f in files}
    return dataclasses.replace(
        split, files=files, deletion_files={k: v for k, v in split.deletion_files.items() if k in names},
        raw_convertible=split.raw_convertible or len(files) <= 1,
    )


def creation_time_floor(store: FileStore, travelled: bool) -> int | None:
    """``scan.file-creation-time-millis`` when a read of the latest snapshot starts from it (Paimon's
    ``from-file-creation-time`` startup mode: ``scan.mode`` says so, or is ``default`` and no time
    travel option comes first); None otherwise."""
    since = store.options.get("scan.file-creation-time-millis")
    mode = str(store.options.scan_mode)
    if since is None or travelled or mode not in ("default", "from-file-creation-time"):
        return None
    return int(since)


def created_since(splits: list[DataSplit], millis: int | None) -> list[DataSplit]:
    """The splits with only their files created at or after ``millis`` (epoch milliseconds; Paimon's
    ``scan.file-creation-time-millis`` manifest entry filter: imprecise, a compaction renews files);
    ``splits`` as they are when ``millis`` is None."""
    if millis is None:
        return splits
    out = []
    for s in splits:
        files = tuple(f for f in s.files if (f.creation_time_epoch_ms or 0) >= millis)
        if files:
            out.append(s if len(files) == len(s.files) else with_files(s, files))
    return out
