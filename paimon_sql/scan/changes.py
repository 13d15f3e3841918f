"""The files one snapshot changed, as splits: Paimon's ``ScanMode.DELTA`` and ``ScanMode.CHANGELOG``.

``delta_splits``: the files a snapshot's delta manifest list ADDs (for a write: its new level-0
files; for a COMPACT snapshot: the compaction's outputs). ``changelog_splits``: the files of its
changelog manifest list (written by a changelog producer). Both are read record by record with their
row kinds and without a merge (Paimon reads streaming splits with its no-merge reader):
``read_split(store, split, fields, keep_row_kind=True)``.

These are the building blocks of incremental reads (several snapshots) and of the streaming
source (one snapshot at a time); which snapshots a read takes (APPEND only in delta mode, every
snapshot with a changelog in changelog mode) is theirs to decide.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import pyarrow as pa

from paimon_sql.format.binary_row import decode_row
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.kinds import FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.predicate import Predicate, partition_only, to_arrow_expression
from paimon_sql.scan.default_values import without_default_columns
from paimon_sql.scan.split import DataSplit
from paimon_sql.types import to_arrow_type


def delta_entries(store: FileStore, snapshot: Snapshot) -> list[ManifestEntry]:
    """The entries of ``snapshot``'s delta manifest list, in order (ADD and DELETE)."""
    ms = store.manifests
    return [e for m in ms.read_manifest_list(snapshot.delta_manifest_list) for e in ms.read_manifest(m.file_name)]


def changelog_entries(store: FileStore, snapshot: Snapshot) -> list[ManifestEntry]:
    """The entries of ``snapshot``'s changelog manifest list (none without a changelog)."""
    if not snapshot.changelog_manifest_list:
        return []
    ms = store.manifests
    return [e for m in ms.read_manifest_list(snapshot.changelog_manifest_list) for e in ms.read_manifest(m.file_name)]


def delta_splits(store: FileStore, snapshot: Snapshot, predicate: Predicate | None = None) -> list[DataSplit]:
    """Splits of the files ``snapshot`` added (its delta manifests' ADD entries)."""
    return entry_splits(store, snapshot, [e for e in delta_entries(store, snapshot) if e.kind == FileKind.ADD],
                        predicate)


def changelog_splits(store: FileStore, snapshot: Snapshot, predicate: Predicate | None = None) -> list[DataSplit]:
    """Splits of ``snapshot``'s changelog files."""
    return entry_splits(store, snapshot, [e for e in changelog_entries(store, snapshot) if e.kind == FileKind.ADD],
                        predicate)


def entry_splits(
    store: FileStore, snapshot: Snapshot, entries: Sequence[ManifestEntry], predicate: Predicate | None = None
) -> list[DataSplit]:
    """``entries`` grouped into one split per (partition, bucket), files in sequence order, pruned
    by the partition conjuncts of ``predicate``; every split is read file by file (no merge)."""
    predicate = without_default_columns(predicate, store.options)
    part_pred = partition_only(predicate, list(store.schema.partition_keys)) if predicate is not None else None
    groups: dict[tuple[bytes, int], list[ManifestEntry]] = defaultdict(list)
    for e in entries:
        groups[(e.partition, e.bucket)].append(e)
    splits = []
    for (partition, bucket), es in sorted(groups.items(), key=lambda kv: kv[0]):
        pvals = tuple(decode_row(partition, store.partition_types))
        if part_pred is not None and not _partition_matches(store, pvals, part_pred):
            continue
        files = tuple(sorted((e.file for e in es), key=lambda f: (f.min_sequence_number, f.file_name)))
        splits.append(DataSplit(
            snapshot_id=snapshot.id, partition=partition, partition_values=pvals, bucket=bucket,
            total_buckets=es[0].total_buckets, bucket_dir=store.bucket_dir(list(pvals), bucket), files=files,
            raw_convertible=True,
        ))
    return splits


def _partition_matches(store: FileStore, values: tuple[object, ...], pred: Predicate) -> bool:
    cols = {f.name: pa.array([v], to_arrow_type(f.type)) for f, v in zip(store.partition_fields, values)}
    return bool(pa.table(cols).filter(to_arrow_expression(pred)).num_rows)
