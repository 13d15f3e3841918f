"""DELETE WHERE: primary-key tables get -D records; append tables are rewritten (copy on write), or,
with ``deletion-vectors.enabled``, get the matching rows marked in their files' deletion vectors
(Paimon's DELETE on append tables with deletion vectors: no data file is rewritten; the changed
index files are committed as one OVERWRITE snapshot, as Paimon commits deletion-vector changes)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from paimon_sql.errors import CommitConflictError
from paimon_sql.format.system_fields import RowKind
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.index_file_meta import IndexManifestEntry
from paimon_sql.meta.kinds import CommitKind, FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.ops.partitions import deletes_matching, list_partitions
from paimon_sql.predicate import Predicate, parse_predicate, referenced_columns, to_arrow_expression
from paimon_sql.scan.default_values import fill_defaults
from paimon_sql.scan.planner import plan
from paimon_sql.scan.reader import read_data_file, read_split
from paimon_sql.scan.split import DataSplit
from paimon_sql.types import to_arrow_type
from paimon_sql.write.append_deletion_vectors import AppendDeletionVectors, dv_entries_by_bucket
from paimon_sql.write.commit import (
    CommitRequest,
    FileStoreCommit,
    WriteBase,
    WriteCompaction,
    redo_on_conflict,
)
from paimon_sql.write.file_writer import FileNamer, append_arrow_schema, write_data_file
from paimon_sql.write.table_write import TableWrite

DELETE_KIND = int(RowKind.DELETE)
DELETE_FORCE_PRODUCE_CHANGELOG = "delete.force-produce-changelog"


def delete_where(
    store: FileStore, predicate: str | Predicate, committer: FileStoreCommit | None = None
) -> int | None:
    """Deletes the rows matching ``predicate`` in one commit (through ``committer``); returns its
    snapshot id (None when no row matched). When a concurrent commit makes the prepared delete wrong
    (a rewritten file is gone, a key was written again), the delete is planned again on the new
    snapshot (``redo_on_conflict``), unless the schema changed (the predicate may mean something
    else now)."""
    pred = parse_predicate(predicate, list(store.schema.fields)) if isinstance(predicate, str) else predicate
    committer = committer or FileStoreCommit(store)

    def schema_changed(e: CommitConflictError) -> BaseException | None:
        latest = store.schemas.latest()
        return e if latest is not None and latest.id != store.schema.id else None

    if _partition_only(store, pred):
        return _truncate_partitions(store, pred, committer)
    return redo_on_conflict(lambda: store, lambda _redo: _delete_once(store, pred, committer), schema_changed)


def _partition_only(store: FileStore, pred: Predicate) -> bool:
    """Paimon's metadata-only DELETE (Spark's OptimizeMetadataOnlyDeleteFromPaimonTable, Flink's
    canDeleteWhere): a predicate on partition columns only drops the matching partitions, unless
    ``delete.force-produce-changelog`` asks for -D records (and so a changelog)."""
    keys = set(store.schema.partition_keys)
    return bool(keys) and referenced_columns(pred) <= keys and not store.options.get(DELETE_FORCE_PRODUCE_CHANGELOG)


def _truncate_partitions(store: FileStore, pred: Predicate, committer: FileStoreCommit) -> int | None:
    """Drops the partitions of the latest snapshot whose values match ``pred`` in one OVERWRITE
    commit (Paimon's ``truncatePartitions``; no changelog); None when none matches (Paimon commits
    nothing then)."""
    parts = list_partitions(store)
    if not parts:
        return None
    cols = {f.name: pa.array([p.values[i] for p in parts], to_arrow_type(f.type))
            for i, f in enumerate(store.partition_fields)}
    mask = pc.fill_null(_eval(pa.table(cols), to_arrow_expression(pred)), False)
    doomed = {p.partition for p, hit in zip(parts, mask.to_pylist()) if hit}
    if not doomed:
        return None
    snap = committer.commit(CommitRequest(CommitKind.OVERWRITE, (), deletes_for=deletes_matching(doomed.__contains__)))
    return snap.id


def _delete_once(store: FileStore, pred: Predicate, committer: FileStoreCommit) -> int | None:
    base = store.snapshots.latest()
    if base is None:
        return None
    splits = plan(store, base, pred)
    fields = list(store.schema.fields)
    if store.has_primary_key:
        rows = [read_split(store, s, fields, pred) for s in splits]
        rows = [r for r in rows if r.num_rows]
        if not rows:
            return None
        writer = TableWrite(store, base)
        with committer.undo_on_failure(writer.abort):
            writer.write(pa.concat_tables(rows), kind=DELETE_KIND)
            changes = writer.prepare_commit()
            # the deleting write's compaction: a COMPACT snapshot after the APPEND one
            # changelog-producer input: the full -D rows are the snapshot's changelog
            snap = committer.commit(CommitRequest(
                CommitKind.APPEND, tuple(changes.entries), tuple(changes.index_entries), base=changes.base,
                changelog_entries=tuple(changes.changelog_entries),
            ), WriteCompaction.of([changes]))
        return snap.id
    if store.options.deletion_vectors_enabled:
        return _delete_with_vectors(store, base, splits, pred, committer)
    # append table: rewrite every file holding a matching row
    expr = to_arrow_expression(pred)
    entries: list[ManifestEntry] = []
    written: list[str] = []
    with committer.undo_on_failure(lambda: store.file_io.delete_all_quietly(written)):
        for s in splits:
            namer = FileNamer(store.options.data_file_prefix, store.options.file_format)
            for f in s.files:
                data = read_data_file(store, s, f, fields)
                # the filter sees what a read returns (default values filled in); kept rows stay as stored
                mask = pc.fill_null(_eval(fill_defaults(data, fields, store.options, store.name), expr), False)
                if not pc.any(mask).as_py():
                    continue
                keep = data.filter(pc.invert(mask))
                entries.append(ManifestEntry(FileKind.DELETE, s.partition, s.bucket, s.total_buckets, f))
                if keep.num_rows:
                    meta, path = write_data_file(
                        store, s.bucket_dir, namer, keep.cast(append_arrow_schema(store)), f.min_sequence_number,
                        f.min_sequence_number + keep.num_rows - 1, level=f.level,
                    )
                    written.append(path)
                    entries.append(ManifestEntry(FileKind.ADD, s.partition, s.bucket, s.total_buckets, meta))
        if not entries:
            return None
        snap = committer.commit(CommitRequest(
            CommitKind.OVERWRITE, tuple(entries), base=WriteBase(base.id, store.schema.id)
        ))
        return snap.id


def _delete_with_vectors(
    store: FileStore, base: Snapshot, splits: list[DataSplit], pred: Predicate, committer: FileStoreCommit
) -> int | None:
    """Append tables with deletion vectors: the positions of the matching rows of every file join
    the file's deletion vector (merged with the one it has); one commit of the changed index files."""
    expr = to_arrow_expression(pred)
    wanted = referenced_columns(pred)
    fields = [f for f in store.schema.fields if f.name in wanted] or list(store.schema.fields[:1])
    stored = dv_entries_by_bucket(store, base)
    vectors: dict[tuple[bytes, int], AppendDeletionVectors] = {}
    index_entries: list[IndexManifestEntry] = []
    written: list[str] = []
    with committer.undo_on_failure(lambda: store.file_io.delete_all_quietly(written)):
        for s in splits:
            raw = dataclasses.replace(s, deletion_files={})  # positions count every row of a file
            for f in s.files:
                data = read_data_file(store, raw, f, fields)
                mask = np.asarray(pc.fill_null(_eval(data, expr), False).to_numpy(), dtype=bool)
                if not mask.any():
                    continue
                k = (s.partition, s.bucket)
                dvs = vectors.get(k)
                if dvs is None:
                    dvs = vectors[k] = AppendDeletionVectors(store, s.partition, s.bucket, stored.get(k, []))
                old = dvs.current(f.file_name)
                if old is not None:
                    mask[old[old < mask.size]] = False
                dvs.delete(f.file_name, np.flatnonzero(mask))
        for dvs in vectors.values():
            entries, paths = dvs.persist()
            index_entries += entries
            written += paths
        if not index_entries:
            return None
        snap = committer.commit(CommitRequest(
            CommitKind.OVERWRITE, (), tuple(index_entries), base=WriteBase(base.id, store.schema.id)
        ))
        return snap.id


def _eval(table: pa.Table, expr: pc.Expression) -> pa.ChunkedArray:
    """Evaluates a boolean expression for every row (aligned with the table)."""
    return ds.dataset(table).to_table(columns={"m": expr}).column("m")

