"""Compacting a table on request (``Table.compact``, ``CALL sys.compact``): every
selected bucket of the latest snapshot is compacted (primary-key tables, full: into the highest
level; minor: what universal compaction picks; append tables: small files merged, see
``write/append_compact.py``) and the result is committed as one COMPACT snapshot.

The buckets come from the latest snapshot's live files, optionally limited by a partition
predicate. The commit is checked against what changed since that snapshot: a bucket another
commit added files to, or files another compaction removed, make it fail with a
WriteConflictError, and the files this compaction wrote are deleted.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import time
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import pyarrow as pa

from paimon_sql.errors import NotFoundError, UnsupportedError, ValidationError, WriteConflictError
from paimon_sql.format.binary_row import decode_row
from paimon_sql.meta.data_file_meta import DataFileMeta
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.index_file_meta import IndexManifestEntry
from paimon_sql.meta.kinds import CommitKind, FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.ops import partitions as partition_ops
from paimon_sql.options import parse_duration_ms
from paimon_sql.options.write import COMPACTION_DELETE_RATIO_THRESHOLD
from paimon_sql.predicate import Predicate
from paimon_sql.scan.planner import live_entries
from paimon_sql.scan.reader import read_data_file
from paimon_sql.scan.split import DataSplit
from paimon_sql.write.append_compact import (
    pack_unaware,
    pack_unaware_dv,
    pick_bucketed,
    rewrite_append,
)
from paimon_sql.write.append_deletion_vectors import (
    AppendDeletionVectors,
    deletion_files,
    dv_entries_by_bucket,
)
from paimon_sql.write.commit import CommitRequest, FileStoreCommit, WriteBase
from paimon_sql.write.compact_rewriter import CompactResult, rows_per_file_of, sequence_counter, write_rolling
from paimon_sql.write.file_writer import FileNamer, append_arrow_schema
from paimon_sql.write.sort_order import sort_indices
from paimon_sql.write.table_write import CommitChanges, TableWrite


@dataclass(frozen=True)
class CompactTableResult:
    snapshot_id: int | None  # the COMPACT snapshot (None: nothing needed compacting)
    buckets: int  # buckets looked at
    compacted_buckets: int
    files_before: int  # files removed from the table's levels (upgraded files count on both sides)
    files_after: int
    rewritten_bytes: int  # bytes of the files read and rewritten (upgrades excluded)
    written_bytes: int


@dataclass(frozen=True)
class CompactPlan:
    """The buckets a compaction of a primary-key table rewrites, from snapshot ``base_id``; each
    bucket can be compacted by another process (``compact_buckets``), the results committed once
    (``commit_compaction``)."""

    base_id: int
    schema_id: int
    buckets: tuple[tuple[bytes, int], ...]
    full: bool


def idle_partitions(store: FileStore, idle_time: str | _dt.timedelta, what: str) -> frozenset[bytes]:
    """The partitions of the latest snapshot whose newest file was created at least ``idle_time``
    ago (Paimon's ``partition_idle_time`` of ``compact``: ``lastFileCreationTime`` at or before now
    minus the duration)."""
    if isinstance(idle_time, _dt.timedelta):
        ms = idle_time // _dt.timedelta(milliseconds=1)
    else:
        try:
            ms = parse_duration_ms(idle_time)
        except (ValueError, ValidationError):
            raise ValidationError(f"{what}: argument 'partition_idle_time' must be a duration such as "
                                  f"'1 d' or '12 h', got {idle_time!r}") from None
    if ms < 0:
        raise ValidationError(f"{what}: argument 'partition_idle_time' must not be negative, got {idle_time!r}")
    cutoff = int(time.time() * 1000) - ms
    return frozenset(p.partition for p in partition_ops.list_partitions(store)
                     if p.last_file_creation_time_ms <= cutoff)


def plan_compaction(
    store: FileStore, partition_filter: Predicate | None = None, full: bool = True,
    partition_match: Callable[[bytes], bool] | None = None, buckets: Collection[int] | None = None,
    committer: FileStoreCommit | None = None,
) -> CompactPlan | CompactTableResult:
    """The plan of compacting the buckets of the latest snapshot whose partition matches
    ``partition_filter`` (a predicate on partition columns) and ``partition_match`` (a test of the
    partition's BinaryRow) and whose number is in ``buckets`` (all when None); or, for an empty
    table and for append tables (compacted here at once: small files, committed by ``committer``),
    the result."""
    latest = store.snapshots.read_latest(lambda snap: live_entries(store, snap, partition_filter))
    if latest is None:
        return CompactTableResult(None, 0, 0, 0, 0, 0, 0)
    base, entries = latest
    live = [
        e for e in entries
        if (partition_match is None or partition_match(e.partition)) and (buckets is None or e.bucket in buckets)
    ]
    picked = tuple(sorted({(e.partition, e.bucket) for e in live}))
    if not store.has_primary_key:
        return _compact_append(store, base, live, len(picked), committer, full)
    return CompactPlan(base.id, store.schema.id, picked, full)


def compact_buckets(store: FileStore, plan: CompactPlan, buckets: Collection[tuple[bytes, int]]) -> CommitChanges:
    """Compacts ``buckets`` of ``plan`` (in this process) and returns the changes to commit; on
    failure the files written are deleted."""
    if store.schema.id != plan.schema_id:
        raise WriteConflictError(
            f"Compaction of table {store.name}: planned with schema {plan.schema_id}, the store has "
            f"schema {store.schema.id}"
        )
    try:
        tw = TableWrite(store, store.snapshots.snapshot(plan.base_id))
    except NotFoundError as e:
        raise _expired_meanwhile(store, plan) from e
    try:
        return tw.compact(sorted(buckets), full=plan.full)
    except NotFoundError as e:
        tw.abort()
        if store.snapshots.latest_id() == plan.base_id:
            raise  # the snapshot it planned on is the latest still: a file is missing
        raise _expired_meanwhile(store, plan) from e
    except BaseException:
        tw.abort()
        raise


def _expired_meanwhile(store: FileStore, plan: CompactPlan) -> WriteConflictError:
    return WriteConflictError(
        f"Compaction of table {store.name} conflicts with concurrent commits: snapshot {plan.base_id}, "
        "which it planned on, or files of it were replaced and expired meanwhile"
    )


def commit_compaction(
    store: FileStore, plan: CompactPlan, changes: Sequence[CommitChanges], committer: FileStoreCommit | None = None,
) -> CompactTableResult:
    """Commits the compacted buckets of ``plan`` as one COMPACT snapshot (none when nothing was
    rewritten); a conflict raises and deletes every file the compaction wrote."""
    entries = [e for c in changes for e in c.compact_entries]
    index = [e for c in changes for e in c.compact_index_entries]
    changelog = [e for c in changes for e in c.compact_changelog_entries]
    compacted = len({(e.partition, e.bucket) for e in entries})
    before = [e.file for e in entries if e.kind == FileKind.DELETE]
    after = [e.file for e in entries if e.kind == FileKind.ADD]
    committer = committer or FileStoreCommit(store)
    with committer.undo_on_failure(lambda: store.file_io.delete_all_quietly(p for c in changes for p in c.written_paths)):
        if len({e.identifier for e in entries if e.kind == FileKind.DELETE}) != len(before):
            raise WriteConflictError(f"Compaction of table {store.name}: a bucket was compacted twice")
        if not entries:
            return CompactTableResult(None, len(plan.buckets), 0, 0, 0, 0, 0)
        snap = committer.commit(CommitRequest(
            CommitKind.COMPACT, tuple(entries), tuple(index), base=WriteBase(plan.base_id, plan.schema_id),
            changelog_entries=tuple(changelog),
        ))
    after_names = {f.file_name for f in after}
    before_names = {f.file_name for f in before}
    return CompactTableResult(
        snap.id, len(plan.buckets), compacted, len(before), len(after),
        sum(f.file_size for f in before if f.file_name not in after_names),
        sum(f.file_size for f in after if f.file_name not in before_names),
    )


def compact(
    store: FileStore, partition_filter: Predicate | None = None, full: bool = True,
    partition_match: Callable[[bytes], bool] | None = None, buckets: Collection[int] | None = None,
    committer: FileStoreCommit | None = None,
) -> CompactTableResult:
    """Plans, compacts (in this process) and commits: see ``plan_compaction``."""
    plan = plan_compaction(store, partition_filter, full, partition_match, buckets, committer)
    if isinstance(plan, CompactTableResult):
        return plan
    return commit_compaction(store, plan, [compact_buckets(store, plan, plan.buckets)], committer)


def _compact_append(
    store: FileStore, base: Snapshot, live: list[ManifestEntry], n_buckets: int, committer: FileStoreCommit | None,
    full: bool = True,
) -> CompactTableResult:
    """Append tables: Paimon's small-file compaction per partition (bucket-unaware) or per bucket
    (fixed buckets: ``pick_bucketed``, a full or a best-effort pick)."""
    opts = store.options
    target, small = opts.target_file_size(False), opts.compaction_file_size(False)
    groups: dict[tuple[bytes, int], list[ManifestEntry]] = defaultdict(list)
    for e in live:
        groups[(e.partition, e.bucket)].append(e)
    with_dv = opts.deletion_vectors_enabled
    stored_dvs = dv_entries_by_bucket(store, base)
    entries: list[ManifestEntry] = []
    index_entries: list[IndexManifestEntry] = []
    written: list[str] = []
    compacted = 0
    try:
        for (partition, bucket), es in sorted(groups.items(), key=lambda kv: kv[0]):
            files = [e.file for e in es]
            dv_entries = stored_dvs.get((partition, bucket), [])
            dvs = AppendDeletionVectors(store, partition, bucket, dv_entries)
            if opts.bucket == -1 and with_dv:
                ratio = opts.get(COMPACTION_DELETE_RATIO_THRESHOLD)
                candidates = [f for f in files if f.file_size < small or _too_many_deleted(dvs, f, ratio)]
                plans = pack_unaware_dv(candidates, dvs.where, target, opts.compaction_min_file_num,
                                        opts.source_split_open_file_cost)
            elif opts.bucket == -1:
                plans = pack_unaware(files, target, small, opts.compaction_min_file_num,
                                     opts.source_split_open_file_cost)
            else:
                chosen = pick_bucketed(files, full, small, opts.compaction_min_file_num, target,
                                       dvs.where.__contains__ if with_dv else None)
                plans = [chosen] if chosen else []
            if not plans:
                continue
            compacted += 1
            pvals = list(decode_row(partition, store.partition_types)) if store.partition_fields else []
            namer = FileNamer(opts.data_file_prefix, opts.file_format)
            total = es[0].total_buckets
            applied = deletion_files(store, dv_entries)
            for plan in plans:
                r = rewrite_append(store, partition, pvals, bucket, total, plan, namer, applied)
                written += r.written
                entries += [ManifestEntry(FileKind.DELETE, partition, bucket, total, f) for f in r.before]
                entries += [ManifestEntry(FileKind.ADD, partition, bucket, total, f) for f in r.after]
                dvs.drop(f.file_name for f in r.before)  # their deleted rows are gone with them
            changes, paths = dvs.persist()
            index_entries += changes
            written += paths
    except BaseException:
        for p in written:
            store.file_io.delete_quietly(p)
        raise
    return _commit_rewrite(store, CommitKind.COMPACT, base, entries, written, n_buckets, compacted, index_entries,
                           committer)


def _too_many_deleted(dvs: AppendDeletionVectors, f: DataFileMeta, ratio: float) -> bool:
    """Paimon's delete-ratio trigger: the file's deleted rows exceed ``ratio`` of its rows (or
    their number is unknown)."""
    if f.file_name not in dvs.where:
        return False
    deleted = dvs.cardinality(f.file_name)
    return deleted is None or deleted > f.row_count * ratio


def _commit_rewrite(
    store: FileStore, kind: CommitKind, base: Snapshot, entries: list[ManifestEntry], written: list[str],
    looked_at: int, compacted: int, index_entries: Sequence[IndexManifestEntry] = (),
    committer: FileStoreCommit | None = None,
) -> CompactTableResult:
    """Commits files rewritten from ``base`` (their DELETE and ADD entries, and the deletion-vector
    index changes) as one ``kind`` snapshot; on failure the ``written`` files are deleted."""
    if not entries:
        for p in written:
            store.file_io.delete_quietly(p)
        return CompactTableResult(None, looked_at, 0, 0, 0, 0, 0)
    committer = committer or FileStoreCommit(store)
    with committer.undo_on_failure(lambda: store.file_io.delete_all_quietly(written)):
        snap = committer.commit(CommitRequest(
            kind, tuple(entries), tuple(index_entries), base=WriteBase(base.id, store.schema.id)))
    before = [e.file for e in entries if e.kind == FileKind.DELETE]
    after = [e.file for e in entries if e.kind == FileKind.ADD]
    return CompactTableResult(snap.id, looked_at, compacted, len(before), len(after),
                              sum(f.file_size for f in before), sum(f.file_size for f in after))


SORT_STRATEGIES = ("order", "zorder", "hilbert")


def sort_compact(
    store: FileStore, strategy: str, columns: Sequence[str], partition_filter: Predicate | None = None,
    partition_match: Callable[[bytes], bool] | None = None, committer: FileStoreCommit | None = None,
) -> CompactTableResult:
    """Paimon's sort compaction of a bucket-unaware append table: every selected partition's rows
    rewritten in ``strategy`` order of ``columns`` (order, zorder, hilbert) into files of about
    ``target-file-size``, committed as one OVERWRITE of those partitions (Paimon overwrites them
    dynamically). A partition is sorted in memory on this process."""
    name = store.name
    if store.has_primary_key or store.options.bucket != -1:
        raise UnsupportedError(
            f"Sort compaction (order_strategy {strategy!r}) of table {name} only supports unaware-bucket "
            "append-only tables (bucket = -1, no primary key), as Paimon"
        )
    if strategy not in SORT_STRATEGIES:
        raise ValidationError(f"Sort compaction of table {name}: unknown strategy {strategy!r} {SORT_STRATEGIES}")
    fields = {f.name: f for f in store.schema.fields}
    unknown = [c for c in columns if c not in fields]
    if unknown or not columns:
        raise ValidationError(f"Sort compaction of table {name}: order_by columns {unknown or list(columns)} "
                              f"are not columns of the table {list(fields)}")
    base = store.snapshots.latest()
    if base is None:
        return CompactTableResult(None, 0, 0, 0, 0, 0, 0)
    groups: dict[bytes, list[ManifestEntry]] = defaultdict(list)
    for e in live_entries(store, base, partition_filter):
        if partition_match is None or partition_match(e.partition):
            groups[e.partition].append(e)
    opts = store.options
    types = [fields[c].type for c in columns]
    var_size = int(opts.get("zorder.var-length-contribution") or 8)
    entries: list[ManifestEntry] = []
    index_entries: list[IndexManifestEntry] = []
    written: list[str] = []
    stored_dvs = dv_entries_by_bucket(store, base)
    try:
        for partition, es in sorted(groups.items()):
            files = sorted((e.file for e in es), key=lambda f: (f.min_sequence_number, f.max_sequence_number))
            pvals = list(decode_row(partition, store.partition_types)) if store.partition_fields else []
            # the rows deletion vectors delete stay deleted; the partition's vectors go with its files
            dvs = stored_dvs.get((partition, 0), [])
            index_entries += [dataclasses.replace(e, kind=FileKind.DELETE) for e in dvs]
            split = DataSplit(0, partition, tuple(pvals), 0, es[0].total_buckets, store.bucket_dir(pvals, 0), (),
                              deletion_files=deletion_files(store, dvs))
            rows = pa.concat_tables([read_data_file(store, split, f, list(store.schema.fields)) for f in files])
            rows = rows.take(pa.array(sort_indices(rows, columns, types, strategy, var_size)))
            result = CompactResult(before=files)
            write_rolling(store, split.bucket_dir, FileNamer(opts.data_file_prefix, opts.file_format),
                          rows.cast(append_arrow_schema(store)), rows_per_file_of(files, opts.target_file_size(False)),
                          0, sequence_counter(files[0].min_sequence_number), result)
            written += result.written
            entries += [ManifestEntry(FileKind.DELETE, partition, 0, es[0].total_buckets, f) for f in files]
            entries += [ManifestEntry(FileKind.ADD, partition, 0, es[0].total_buckets, f) for f in result.after]
    except BaseException:
        for p in written:
            store.file_io.delete_quietly(p)
        raise
    return _commit_rewrite(store, CommitKind.OVERWRITE, base, entries, written, len(groups), len(groups),
                           index_entries, committer)
