"""Copying a table's files into another table (Paimon's ``copy`` procedure, ``CopyFilesProcedure``).

The live data files of the source's latest snapshot (of the partitions a partition filter selects)
are copied byte for byte into the target's folders under new names, with their metadata (sequence
numbers, statistics, levels) kept and the target's schema id; the index files of their buckets
(dynamic-bucket HASH indexes, deletion vectors, renamed to the new file names) are copied too. One
OVERWRITE commit replaces the target's partitions that receive files (Paimon's dynamic partition
overwrite; an unpartitioned target is replaced whole). A failure deletes every copied file.

The target must be compatible (Paimon's ``CopySchemaOperator.checkCompatible``): the same bucket
number, file format, primary and partition keys, and every source field (id, name, type) in it.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from paimon_sql.errors import ValidationError
from paimon_sql.format.binary_row import decode_row
from paimon_sql.fs.file_io import join
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.index_file_meta import IndexManifestEntry
from paimon_sql.meta.kinds import CommitKind, FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.ops.partitions import deletes_matching
from paimon_sql.predicate import Predicate
from paimon_sql.scan.planner import live_entries
from paimon_sql.write.commit import CommitRequest, FileStoreCommit


@dataclass(frozen=True)
class CopyResult:
    files: int  # data files copied
    index_files: int
    snapshot_id: int | None  # the target's OVERWRITE snapshot (None: the source has no snapshot)


def check_compatible(source: FileStore, target: FileStore) -> None:
    """Paimon's rules for copying into an existing table; the error names what differs."""
    what = f"Cannot copy table {source.name} into {target.name}"
    s, t = source.schema, target.schema
    if source.options.bucket != target.options.bucket:
        raise ValidationError(f"{what}: source table bucket is not compatible with existed paimon table bucket "
                              f"({source.options.bucket} vs {target.options.bucket}).")
    if source.options.file_format != target.options.file_format:
        raise ValidationError(f"{what}: source table format is not compatible with existed paimon table format "
                              f"({source.options.file_format} vs {target.options.file_format}).")
    if sorted(s.primary_keys) != sorted(t.primary_keys):
        raise ValidationError(f"{what}: source table primary keys is not compatible with existed paimon table "
                              f"primary keys ({list(s.primary_keys)} vs {list(t.primary_keys)}).")
    if sorted(s.partition_keys) != sorted(t.partition_keys):
        raise ValidationError(f"{what}: source table partition keys is not compatible with existed paimon table "
                              f"partition keys ({list(s.partition_keys)} vs {list(t.partition_keys)}).")
    target_fields = {(f.id, f.name, f.type) for f in t.fields}
    missing = [f.to_string() for f in s.fields if (f.id, f.name, f.type) not in target_fields]
    if missing:
        raise ValidationError(f"{what}: source table fields is not compatible with existed paimon table fields "
                              f"(the target lacks {missing}).")


def copy_files(
    source: FileStore, target: FileStore, partition_filter: Predicate | None = None,
    partition_match: Callable[[bytes], bool] | None = None, committer: FileStoreCommit | None = None,
) -> CopyResult:
    """Copies the live files of ``source``'s latest snapshot (selected partitions) into ``target``
    and commits them there as one OVERWRITE of the partitions they fill (through ``committer``, one
    of ``target``)."""
    snap = source.snapshots.latest()
    if snap is None:
        return CopyResult(0, 0, None)
    entries = [e for e in live_entries(source, snap, partition_filter)
               if partition_match is None or partition_match(e.partition)]
    if not entries:
        return CopyResult(0, 0, None)
    written: list[str] = []
    committer = committer or FileStoreCommit(target)
    with committer.undo_on_failure(lambda: target.file_io.delete_all_quietly(written)):
        new_entries, renamed = _copy_data_files(source, target, entries, written)
        index_entries = _copy_index_files(source, target, snap, {(e.partition, e.bucket) for e in entries},
                                          renamed, written)
        partitions = {e.partition for e in entries}
        snapshot = committer.commit(CommitRequest(
            CommitKind.OVERWRITE, tuple(new_entries), tuple(index_entries), deletes_for=deletes_matching(partitions.__contains__),
        ))
    return CopyResult(len(new_entries), len(index_entries), snapshot.id)


def _copy_data_files(
    source: FileStore, target: FileStore, entries: list[ManifestEntry], written: list[str]
) -> tuple[list[ManifestEntry], dict[tuple[bytes, int, str], str]]:
    schema_id = target.schema.id
    out: list[ManifestEntry] = []
    renamed: dict[tuple[bytes, int, str], str] = {}
    prefix = f"data-{uuid.uuid4()}-"
    for n, e in enumerate(entries):
        f = e.file
        ext = f.file_name.rsplit(".", 1)[1] if "." in f.file_name else target.options.file_format
        name = f"{prefix}{n}.{ext}"
        values = list(decode_row(e.partition, target.partition_types)) if target.partition_fields else []
        dst = join(target.bucket_dir(values, e.bucket), name)
        data = source.file_io.read_bytes(source.entry_path(e))
        written.append(dst)
        target.file_io.write_bytes(dst, data)
        renamed[(e.partition, e.bucket, f.file_name)] = name
        meta = dataclasses.replace(f, file_name=name, schema_id=schema_id, extra_files=(), external_path=None)
        out.append(dataclasses.replace(e, kind=FileKind.ADD, file=meta))
    return out, renamed


def _copy_index_files(
    source: FileStore, target: FileStore, snap: Snapshot, buckets: set[tuple[bytes, int]],
    renamed: dict[tuple[bytes, int, str], str], written: list[str],
) -> list[IndexManifestEntry]:
    out: list[IndexManifestEntry] = []
    for ie in source.manifests.index_entries(snap):
        if (ie.partition, ie.bucket) not in buckets:
            continue
        f = ie.index_file
        name = f"index-{uuid.uuid4()}-0"
        dst = target.index_file_path(name)
        data = source.file_io.read_bytes(f.external_path or source.index_file_path(f.file_name))
        written.append(dst)
        target.file_io.write_bytes(dst, data)
        ranges = None
        if f.dv_ranges is not None:  # deletion vectors are keyed by data file name
            ranges = {renamed[(ie.partition, ie.bucket, k)]: r for k, r in f.dv_ranges.items()
                      if (ie.partition, ie.bucket, k) in renamed}
        meta = dataclasses.replace(f, file_name=name, external_path=None, dv_ranges=ranges)
        out.append(dataclasses.replace(ie, kind=FileKind.ADD, index_file=meta))
    return out
