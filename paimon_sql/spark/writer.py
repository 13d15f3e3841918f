"""Writing with the ``paimon_sql`` data source: one engine ``TableWrite`` per Spark task, one
snapshot committed on the driver, staging markers so that failed attempts leave no files (see
``PaimonWriter``), and the overwrite modes."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyspark.sql import types as st
from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage

from paimon_sql import types as pt
from paimon_sql.errors import PaimonError, ValidationError
from paimon_sql.fs.file_io import basename, join
from paimon_sql.meta.file_store import FileStore
from paimon_sql.spark.source_options import OPT_OVERWRITE, OPT_OVERWRITE_PARTITION, TableRef
from paimon_sql.spark.source_schema import (
    _has_naive_to_aware,
    instant_to_wall_clock,
    spark_schema,
    spark_type,
)
from paimon_sql.spark.store_ref import StoreRef
from paimon_sql.spark.worker_memory import prepare_worker
from paimon_sql.write.file_writer import FileNamer
from paimon_sql.write.table_write import TableWrite

_LOG = logging.getLogger(__name__)
# a task hands the engine's writer chunks of about this many rows (Spark sends 10k-row batches)
WRITE_CHUNK_ROWS = 1 << 17
STAGING_DIR = ".spark-writes"
FINISHED = "_FINISHED"  # the tombstone of a write that was aborted, or committed without some attempt
# abort() looks for files of unfinished attempts every ABORT_POLL_SECONDS until it has found none
# for ABORT_SETTLE_SECONDS (at most ABORT_SETTLE_MAX_SECONDS)
ABORT_SETTLE_SECONDS = 3.0
ABORT_POLL_SECONDS = 0.5
ABORT_SETTLE_MAX_SECONDS = 60.0


@dataclass
class PaimonCommitMessage(WriterCommitMessage):
    """What one task wrote: the engine's (picklable) ``CommitChanges``."""

    changes: Any  # paimon_sql.write.table_write.CommitChanges
    rows: int = 0
    partition_id: int | None = None
    marker: str | None = None  # the task's list of written files under the write's staging folder


OverwriteMode = Any  # False | True | "dynamic" | dict[str, str]


def _overwrite_mode(opts: Mapping[str, str], overwrite: bool, table: Any) -> OverwriteMode:
    mode = (opts.get(OPT_OVERWRITE) or ("full" if overwrite else "none")).strip().lower()
    if mode == "none":
        return False
    if mode in ("full", "true"):
        return True
    if mode == "dynamic":
        return "dynamic" if table.partition_keys else True
    if mode == "static":
        raw = opts.get(OPT_OVERWRITE_PARTITION) or "{}"
        try:
            spec = json.loads(raw)
        except json.JSONDecodeError as e:
            raise ValidationError(f"Option {OPT_OVERWRITE_PARTITION!r} must be a JSON object, got {raw!r}: {e}") from None
        if not isinstance(spec, dict):
            raise ValidationError(f"Option {OPT_OVERWRITE_PARTITION!r} must be a JSON object, got {raw!r}")
        bad = [k for k in spec if k not in table.partition_keys]
        if bad:
            raise ValidationError(
                f"Static overwrite of table {table.name}: {bad} are not partition columns "
                f"(partition keys: {table.partition_keys})"
            )
        # a null value names the default partition (where rows with a null partition value live)
        default = table.store.options.partition_default_name
        return {k: (default if v is None else str(v)) for k, v in spec.items()} if spec else True
    raise ValidationError(
        f"Option {OPT_OVERWRITE!r} must be one of none, full, dynamic, static; got {opts.get(OPT_OVERWRITE)!r}"
    )


def _same_spark_type(a: st.DataType, b: st.DataType) -> bool:
    """Equal types, ignoring nullability (checked on the data) and CHAR/VARCHAR lengths."""
    if isinstance(a, (st.StringType, st.CharType, st.VarcharType)):
        return isinstance(b, (st.StringType, st.CharType, st.VarcharType))
    if isinstance(a, st.ArrayType) and isinstance(b, st.ArrayType):
        return _same_spark_type(a.elementType, b.elementType)
    if isinstance(a, st.MapType) and isinstance(b, st.MapType):
        return _same_spark_type(a.keyType, b.keyType) and _same_spark_type(a.valueType, b.valueType)
    if isinstance(a, st.StructType) and isinstance(b, st.StructType):
        return len(a.fields) == len(b.fields) and all(
            x.name == y.name and _same_spark_type(x.dataType, y.dataType) for x, y in zip(a.fields, b.fields)
        )
    return bool(a == b)


def _check_write_schema(schema: st.StructType, table: Any, legacy_timestamp: bool = False) -> list[tuple[str, str]]:
    """(input column, table column) pairs; the input must have the table's columns (by name,
    case-insensitively) with the types Spark reads them as (``legacy_timestamp``: Paimon's
    ``legacy-timestamp-mapping.enabled``, TIMESTAMP as Spark TIMESTAMP)."""
    fields = list(table.schema.fields)
    by_lower: dict[str, pt.DataField] = {f.name.lower(): f for f in fields}
    pairs: list[tuple[str, str]] = []
    unknown, seen, wrong = [], set(), []
    for sf in schema.fields:
        tf = by_lower.get(sf.name.lower())
        if tf is None:
            unknown.append(sf.name)
            continue
        seen.add(tf.name)
        pairs.append((sf.name, tf.name))
        want = spark_type(tf.type, legacy_timestamp)
        if not _same_spark_type(want, sf.dataType):
            wrong.append(f"{sf.name}: {sf.dataType.simpleString()} (table has {want.simpleString()})")
    missing = [f.name for f in fields if f.name not in seen]
    problems = []
    if missing:
        problems.append(f"missing columns {missing}")
    if unknown:
        problems.append(f"unknown columns {unknown}")
    if wrong:
        problems.append(f"type mismatch in {wrong}")
    if problems:
        raise ValidationError(
            f"Cannot write to table {table.name}: the data's schema does not match the table's "
            f"({'; '.join(problems)}). Table schema: {spark_schema(fields, legacy_timestamp).simpleString()}"
        )
    return pairs


class PaimonWriter(DataSourceArrowWriter):
    """Pickled once on the driver and sent to every task and back to the driver's commit.

    Failed and lost task attempts must leave no files. Each task attempt names all its data files
    ``data-<attempt uuid>-<n>`` and keeps a marker file ``<table>/.spark-writes/<write id>/<attempt
    uuid>.json`` listing what it has written (created before its first file, rewritten after every
    flush). A task whose input ends because the job failed upstream finishes "normally" in Python
    and its message never reaches the driver; a task killed by Spark may die in the middle of a
    flush. ``abort()`` (and ``commit()``, for failed or duplicate attempts) deletes the files the
    markers list and every file named with their attempt uuids. ``abort()`` (and ``commit()`` when
    it found such attempts) first leaves a ``_FINISHED`` tombstone: a task still running checks it
    before each flush and after recording its files, and deletes them itself. As Spark kills the
    Python workers of a failed job's tasks a few seconds later (maybe before they cleaned up, and
    later still on a busy machine), ``abort()`` keeps looking when some attempt had not finished,
    until it found nothing of theirs for ``ABORT_SETTLE_SECONDS``.
    Tombstones older than ten minutes are removed (with their folder) by the next write to the
    table."""

    def __init__(
        self, ref: TableRef, store: StoreRef, table_name: str, overwrite: OverwriteMode,
        columns: list[tuple[str, str]], base_snapshot: int | None, time_zone: str | None = None,
    ) -> None:
        self.ref = ref
        self.store = store
        self.table_name = table_name
        self.overwrite = overwrite
        self.columns = columns
        self.base_snapshot = base_snapshot
        # the JVM's default zone: Spark TIMESTAMP values into Paimon TIMESTAMP columns (only with
        # legacy-timestamp-mapping.enabled) are stored as their wall clock there, as Paimon does
        self.time_zone = time_zone
        self.write_id = uuid.uuid4().hex
        # the commit's user and commitIdentifier (a streaming sink's query and batch id, see
        # paimon_sql.spark.stream_writer); None: a user of its own and Paimon's batch identifier
        self.commit_user: str | None = None
        self.commit_identifier: int | None = None
        # whether the tasks fully compact the buckets they write (None: the table's rule, see
        # TableWrite.full_compaction; a streaming sink decides per micro-batch)
        self.full_compaction: bool | None = None
        # a row-level delta write (UPDATE / MERGE INTO / DELETE of a primary-key table: its
        # command): the first column is Spark's row operation (see paimon_sql.ops.row_delta)
        self.row_level: str | None = None
        # a streaming write with write.merge-schema: the data aligned to the table's columns by name
        # (ROW fields too; missing ones null) before the write casts it to the table's types
        self.merge_schema = False

    @property
    def staging_dir(self) -> str:
        return join(self.store.path, STAGING_DIR, self.write_id)

    def _table(self) -> Any:
        from paimon_sql.table.table import Table

        s = self.store
        return Table(s.file_io, s.path, self.table_name, s.schema, s.branch, self.commit_user)

    # -- executors -------------------------------------------------------------------------------
    def write(self, iterator: Iterator[pa.RecordBatch]) -> PaimonCommitMessage:
        prepare_worker()
        store = self.store.open()
        fio = store.file_io
        base = store.snapshots.snapshot(self.base_snapshot) if self.base_snapshot is not None else None
        attempt = str(uuid.uuid4())
        # every data file of the attempt is named ``<prefix><attempt uuid>-<n>.<format>`` (one uuid
        # per task attempt instead of one per bucket), so that files of a dead attempt can be found
        prefix, extension = store.options.data_file_prefix, store.options.file_format
        tw = TableWrite(store, base, ignore_previous_files=self.overwrite is not False,
                        namers=lambda: FileNamer(prefix, extension, uuid=attempt))
        if self.full_compaction is not None:
            tw.full_compaction = tw.full_compaction and self.full_compaction
        marker = join(self.staging_dir, f"{attempt}.json")
        tombstone = join(self.staging_dir, FINISHED)
        recorded = -1

        def check() -> None:
            if fio.exists(tombstone):
                raise PaimonError(
                    f"The Spark write {self.write_id} into {self.table_name} has already been aborted "
                    "or committed without this task attempt: its files are deleted"
                )

        def record(done: bool = False) -> None:
            nonlocal recorded
            paths = tw.changes.written_paths
            if len(paths) != recorded or done:
                doc = {"attempt": attempt, "paths": paths, "done": done}
                fio.write_bytes(marker, json.dumps(doc).encode())
                recorded = len(paths)
                check()  # after writing the marker: see the class docstring

        rows = 0
        try:
            record()  # before any data file exists
            buf: list[pa.RecordBatch] = []
            buf_rows = 0
            for batch in iterator:
                if batch.num_rows == 0:
                    continue
                buf.append(batch)
                buf_rows += batch.num_rows
                if buf_rows >= WRITE_CHUNK_ROWS:
                    check()  # a task of a finished write stops before writing more files
                    self._write_chunk(tw, buf, store)  # flushes one sorted run when the buffer is full
                    rows += buf_rows
                    buf, buf_rows = [], 0
                    record()
            check()
            if buf:
                self._write_chunk(tw, buf, store)
                rows += buf_rows
            changes = tw.prepare_commit()
            record(done=True)
        except BaseException:
            tw.abort()
            fio.delete_quietly(marker)
            raise
        return PaimonCommitMessage(changes, rows, _task_partition_id(), marker)

    def _write_chunk(self, tw: TableWrite, batches: list[pa.RecordBatch], store: FileStore) -> None:
        if self.row_level is None:
            tw.write(self._prepare(batches, store))
            return
        from paimon_sql.ops.row_delta import fill_deleted_rows, row_kinds

        tbl = pa.Table.from_batches(batches).combine_chunks()
        kinds = row_kinds(tbl.column(0), self.table_name)
        data = self._prepare(tbl.remove_column(0), store)
        data, kinds = fill_deleted_rows(store, self.base_snapshot, data, kinds)
        tw.write(data, kind=kinds)

    def _prepare(self, batches: list[pa.RecordBatch] | pa.Table, store: FileStore) -> pa.Table:
        """Spark's batches as one contiguous table of the table's columns (sorting and bucketing
        contiguous arrays is faster); time units are truncated like Paimon's Spark writer does
        (Spark has microseconds, TIMESTAMP(3) keeps milliseconds)."""
        tbl = batches if isinstance(batches, pa.Table) else pa.Table.from_batches(batches).combine_chunks()
        if self.merge_schema:
            from paimon_sql.ops.merge_schema import align_to_schema

            tbl = align_to_schema(store.schema, tbl)
        arrays, names = [], []
        for src, dst in self.columns:
            col = tbl.column(src)
            want = pt.to_arrow_type(store.schema.field(dst).type)
            if _has_aware_to_naive(col.type, want):
                col = instant_to_wall_clock(col, self.time_zone or "UTC", dst)
            if not col.type.equals(want) and _is_temporal(col.type) and _is_temporal(want):
                col = col.cast(want, safe=False)
            arrays.append(col)
            names.append(dst)
        return pa.Table.from_arrays(arrays, names=names)

    # -- driver ----------------------------------------------------------------------------------
    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        ok = [m for m in messages if isinstance(m, PaimonCommitMessage)]
        self._table().commit_changes([m.changes for m in ok], self.overwrite, commit_identifier=self.commit_identifier)
        self._clean_staging(ok)

    def _clean_staging(self, ok: list[PaimonCommitMessage]) -> None:
        """After a commit of the tasks' messages ``ok``: the files of failed or duplicate task
        attempts go, then the write's staging folder."""
        fio = self.store.file_io
        keep = {m.marker for m in ok if m.marker}
        lost = [s_ for s_ in fio.list_status(self.staging_dir)
                if not s_.is_dir and join(self.staging_dir, basename(s_.path)) not in keep
                and s_.path.endswith(".json")]
        if lost:  # failed or duplicate task attempts: their files go (never those committed)
            fio.write_bytes(join(self.staging_dir, FINISHED), b"")
            self._clean_markers(keep)
            for m in keep:
                fio.delete_quietly(m)
        else:
            fio.delete_dir(self.staging_dir)
            self._remove_empty_staging_root()

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        ok = [m for m in messages if isinstance(m, PaimonCommitMessage)]
        changes = [m.changes if isinstance(m, PaimonCommitMessage) else None for m in messages]
        fio = self.store.file_io
        tombstone = join(self.staging_dir, FINISHED)
        try:
            aborted = self._table().abort_changes(changes)
        except BaseException:
            # whether the commit landed is unknown: running attempts stop, every file stays (the
            # table's if it landed, else orphans for remove_orphan_files)
            fio.write_bytes(tombstone, b"")
            raise
        if not aborted:
            # the commit landed and the process that made it died before it could say so (Spark
            # then aborts): the statement failed, its rows are the table's; clean up as a commit does
            _LOG.warning("Table %s: the aborted write %s had been committed; its files stay",
                         self.table_name, self.write_id)
            self._clean_staging(ok)
            return
        fio.write_bytes(tombstone, b"")  # before reading the markers
        running, _ = self._clean_markers(set())
        if running:
            # Attempts that had not finished may still be flushing (Spark kills their Python
            # workers a few seconds after the job failed, possibly before they saw the
            # tombstone and removed their files): look again until they are quiet.
            self._settle(running)

    def _settle(self, running: Sequence[str]) -> None:
        start = last_found = time.monotonic()
        while True:
            now = time.monotonic()
            if now - last_found >= ABORT_SETTLE_SECONDS or now - start >= ABORT_SETTLE_MAX_SECONDS:
                return
            time.sleep(ABORT_POLL_SECONDS)
            _, deleted = self._clean_markers(set(), attempts=running)
            if deleted:
                last_found = time.monotonic()

    def _clean_markers(
        self, keep: set[str], staging_dir: str | None = None, attempts: Sequence[str] = ()
    ) -> tuple[list[str], int]:
        """Deletes the files of the task attempts whose markers are not in ``keep`` (and of
        ``attempts``): those the markers list, and any other file named with their attempt uuids
        (written by an attempt killed in the middle of a flush). Then the markers. Returns the
        attempts whose markers did not say they had finished, and how many files and markers it
        found to delete."""
        fio = self.store.file_io
        folder = staging_dir or self.staging_dir
        found: list[str] = list(attempts)
        unfinished: list[str] = []
        markers = []
        for status in fio.list_status(folder):
            path = join(folder, basename(status.path))
            if status.is_dir or path in keep or not path.endswith(".json"):
                continue
            markers.append(path)
            attempt = basename(path)[: -len(".json")]
            found.append(attempt)
            try:
                doc = json.loads(fio.read_bytes(path))
                paths, done = list(doc.get("paths", [])), bool(doc.get("done"))
            except (OSError, ValueError, AttributeError, PaimonError):
                paths, done = [], False
            if not done:
                unfinished.append(attempt)
            for p in paths:
                fio.delete_quietly(p)
        deleted = len(markers)  # the files a marker lists are counted with it
        if found:
            for f in fio.walk_files(self.store.path):
                name = basename(f.path)
                if any(a in name for a in found) and STAGING_DIR not in f.path:
                    fio.delete_quietly(f.path)
                    deleted += 1
        for path in markers:
            fio.delete_quietly(path)
        return unfinished, deleted

    def remove_stale_staging(self, older_than_ms: int = 10 * 60 * 1000) -> None:
        """Removes the staging folders of writes finished (see the tombstone) more than
        ``older_than_ms`` ago."""
        fio = self.store.file_io
        root = join(self.store.path, STAGING_DIR)
        now_ms = int(time.time() * 1000)
        for status in fio.list_status(root):
            if not status.is_dir:
                continue
            folder = join(root, basename(status.path))
            try:
                finished = fio.status(join(folder, FINISHED))
            except PaimonError:
                continue  # a write in progress: not ours to touch
            if now_ms - finished.mtime_ms > older_than_ms:
                self._clean_markers(set(), folder)
                fio.delete_dir(folder)
        self._remove_empty_staging_root()

    def _remove_empty_staging_root(self) -> None:
        fio = self.store.file_io
        if fio.is_local:  # only when empty: another write may be using it
            with contextlib.suppress(OSError):  # not empty, or already gone
                os.rmdir(join(self.store.path, STAGING_DIR))


def _has_aware_to_naive(source: pa.DataType, target: pa.DataType) -> bool:
    """Whether Spark TIMESTAMP values (instants) go into a Paimon TIMESTAMP (a wall clock)."""
    return _has_naive_to_aware(target, source)


def _is_temporal(t: pa.DataType) -> bool:
    return bool(pa.types.is_timestamp(t) or pa.types.is_time(t))


def _task_partition_id() -> int | None:
    try:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        return ctx.partitionId() if ctx is not None else None
    except Exception:  # noqa: BLE001 - outside a task
        return None
