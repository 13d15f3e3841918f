"""Table: the user-facing handle on one Paimon table (read with time travel, write, delete, alter)."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import logging
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union

import pyarrow as pa

from paimon_sql.errors import (
    AlreadyCommittedError,
    CommitConflictError,
    NotFoundError,
    UnsupportedError,
    ValidationError,
    WriteConflictError,
)
from paimon_sql.fs.file_io import FileIO, join
from paimon_sql.lazy import lazy_module
from paimon_sql.meta.file_store import MAIN_BRANCH, FileStore, branch_identifier
from paimon_sql.meta.kinds import CommitKind, FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.schema import TableSchema
from paimon_sql.meta.schema_change import SchemaChange
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.meta.travel import TimeTravel
from paimon_sql.names import check_name
from paimon_sql.ops.maintenance import maintenance_of
from paimon_sql.options import check_implemented, validate_options
from paimon_sql.options.lifecycle import TAG_DEFAULT_TIME_RETAINED, TAG_TIME_EXPIRE_ENABLED
from paimon_sql.options.support import NOT_DYNAMIC, option_change_error
from paimon_sql.predicate import Predicate, parse_predicate, referenced_columns
from paimon_sql.scan import incremental
from paimon_sql.scan.incremental import INCREMENTAL_OPTIONS, IncrementalRange, IncrementalSpec
from paimon_sql.scan.reader import output_schema
from paimon_sql.scan.split import DataSplit
from paimon_sql.scan.table_scan import FALLBACK_BRANCH as FALLBACK_BRANCH  # (re-exported)
from paimon_sql.scan.table_scan import TableScan
from paimon_sql.table.table_commit import TableCommit
from paimon_sql.write.commit import CommitRequest, WriteBase, WriteCompaction, redo_on_conflict
from paimon_sql.write.conflicts import (
    check_files_of_table,
    check_one_writer_per_bucket,
)
from paimon_sql.write.resequence import can_resequence, resequence
from paimon_sql.write.table_write import CommitChanges, TableWrite, merge_index_entries

# the operation modules load when an operation first runs (a write or read does not import them all)
if TYPE_CHECKING:
    from paimon_sql.ops import alter as alter_ops
    from paimon_sql.ops import branches as branch_ops
    from paimon_sql.ops import compact as compact_ops
    from paimon_sql.ops import consumers as consumer_ops
    from paimon_sql.ops import copy as copy_ops
    from paimon_sql.ops import delete as delete_ops
    from paimon_sql.ops import expire as expire_ops
    from paimon_sql.ops import merge_schema as merge_schema_ops
    from paimon_sql.ops import orphans as orphan_ops
    from paimon_sql.ops import partitions as partition_ops
    from paimon_sql.ops import repair as repair_ops
    from paimon_sql.ops import rescale as rescale_ops
    from paimon_sql.ops import rollback as rollback_ops
    from paimon_sql.ops import tag_auto as tag_auto_ops
    from paimon_sql.ops import tag_changes as tag_change_ops
    from paimon_sql.ops import tag_expire as tag_expire_ops
    from paimon_sql.ops import tags as tag_ops
else:
    alter_ops = lazy_module("paimon_sql.ops.alter")
    branch_ops = lazy_module("paimon_sql.ops.branches")
    compact_ops = lazy_module("paimon_sql.ops.compact")
    consumer_ops = lazy_module("paimon_sql.ops.consumers")
    copy_ops = lazy_module("paimon_sql.ops.copy")
    delete_ops = lazy_module("paimon_sql.ops.delete")
    expire_ops = lazy_module("paimon_sql.ops.expire")
    merge_schema_ops = lazy_module("paimon_sql.ops.merge_schema")
    orphan_ops = lazy_module("paimon_sql.ops.orphans")
    partition_ops = lazy_module("paimon_sql.ops.partitions")
    repair_ops = lazy_module("paimon_sql.ops.repair")
    rescale_ops = lazy_module("paimon_sql.ops.rescale")
    rollback_ops = lazy_module("paimon_sql.ops.rollback")
    tag_auto_ops = lazy_module("paimon_sql.ops.tag_auto")
    tag_change_ops = lazy_module("paimon_sql.ops.tag_changes")
    tag_expire_ops = lazy_module("paimon_sql.ops.tag_expire")
    tag_ops = lazy_module("paimon_sql.ops.tags")

_LOG = logging.getLogger(__name__)

Overwrite = Union[bool, Mapping[str, Any], str]  # noqa: UP007
WriteInput = Union[pa.Table, pa.RecordBatchReader, Iterable[pa.RecordBatch]]  # noqa: UP007


class Table:
    def __init__(
        self, file_io: FileIO, path: str, table_name: str, schema: TableSchema, branch: str = MAIN_BRANCH,
        commit_user: str | None = None,
    ) -> None:
        self.file_io = file_io
        # the commit user of every commit through this handle (and the handles derived from it)
        self.commit_user = commit_user or str(uuid.uuid4())
        self.path = path
        self.table_name = table_name  # "db.table", without the branch
        self.branch = branch
        self.identifier = branch_identifier(table_name, branch)
        self.store = FileStore(file_io, path, self.identifier, schema, branch)

    # -- metadata --------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.identifier

    @property
    def schema(self) -> TableSchema:
        return self.store.schema

    @property
    def arrow_schema(self) -> pa.Schema:
        return output_schema(self.schema.fields)

    @property
    def primary_keys(self) -> list[str]:
        return list(self.schema.primary_keys)

    @property
    def partition_keys(self) -> list[str]:
        return list(self.schema.partition_keys)

    @property
    def options(self) -> dict[str, str]:
        return dict(self.schema.options)

    def snapshot_ids(self) -> list[int]:
        return self.store.snapshots.snapshot_ids()

    def latest_snapshot(self) -> Snapshot | None:
        return self.store.snapshots.latest()

    def snapshot(self, snapshot_id: int) -> Snapshot:
        return self.store.snapshots.snapshot(snapshot_id)

    def refresh(self) -> Table:
        latest = self.store.schemas.latest()
        if latest is None:
            raise NotFoundError(f"Table {self.identifier} does not exist")
        return self.with_schema(latest)

    def __repr__(self) -> str:
        return f"Table({self.identifier!r}, fields={self.schema.field_names})"

    # -- reading ---------------------------------------------------------------------------------
    def scan(
        self, columns: Sequence[str] | None = None, filter: str | Predicate | None = None,
        snapshot_id: int | None = None, tag: str | None = None, timestamp_ms: int | None = None,
        latest_snapshot_id: int | None = None, watermark: int | None = None, read_optimized: bool = False,
        incremental_between: tuple[int | str, int | str] | str | None = None,
        incremental_between_timestamp: tuple[int, int] | str | None = None,
        incremental_to_auto_tag: str | None = None, incremental_mode: str | None = None,
        keep_row_kind: bool = False, limit: int | None = None,
    ) -> TableScan:
        """The scan object of a read (``paimon_sql.scan.table_scan.TableScan``; see ``read`` for
        the arguments). The incremental options among the table's (dynamic) options apply when no
        incremental keyword is given, as in Paimon."""
        travel = TimeTravel(snapshot_id, tag, timestamp_ms, watermark).check(f"a read of table {self.identifier}")
        scan = TableScan(self.store, travel=travel, latest_snapshot_id=latest_snapshot_id,
                         read_optimized=read_optimized).select(columns).where(filter)
        scan = scan.with_row_kind(keep_row_kind).with_limit(limit)
        spec = self._incremental_spec(incremental_between, incremental_between_timestamp,
                                      incremental_to_auto_tag, incremental_mode)
        if spec is not None:
            scan = scan.with_incremental(self._resolve_auto_tag(spec))
        return scan

    def _incremental_spec(
        self, between: tuple[int | str, int | str] | str | None, between_timestamp: tuple[int, int] | str | None,
        to_auto_tag: str | None, mode: str | None,
    ) -> IncrementalSpec | None:
        given = [n for n, v in (("incremental_between", between), ("incremental_between_timestamp", between_timestamp),
                                ("incremental_to_auto_tag", to_auto_tag)) if v is not None]
        if len(given) > 1:
            raise ValidationError(f"Give at most one of {', '.join(given)} for a read of table {self.identifier}")
        opts = dict(self.schema.options)
        if given:
            for key in INCREMENTAL_OPTIONS:
                if key != incremental.SCAN_MODE and key != incremental.TAG_TO_SNAPSHOT:
                    opts.pop(key, None)
        if mode is not None:
            opts[incremental.SCAN_MODE] = mode
        if between is not None:
            if isinstance(between, str):
                opts[incremental.BETWEEN] = between
            else:
                return dataclasses.replace(
                    IncrementalSpec.of_between(between, self.identifier, opts.get(incremental.SCAN_MODE, "auto")),
                    tag_to_snapshot=str(opts.get(incremental.TAG_TO_SNAPSHOT, "false")).lower() == "true")
        if between_timestamp is not None:
            if isinstance(between_timestamp, str):
                opts[incremental.BETWEEN_TIMESTAMP] = between_timestamp
            elif (isinstance(between_timestamp, (tuple, list)) and len(between_timestamp) == 2
                  and all(isinstance(v, int) and not isinstance(v, bool) for v in between_timestamp)):
                opts[incremental.BETWEEN_TIMESTAMP] = f"{between_timestamp[0]},{between_timestamp[1]}"
            else:
                raise ValidationError(f"incremental_between_timestamp of a read of table {self.identifier} must be "
                                      f"a (start, end) pair of epoch milliseconds, got {between_timestamp!r}")
        if to_auto_tag is not None:
            if not isinstance(to_auto_tag, str):
                raise ValidationError(f"incremental_to_auto_tag of a read of table {self.identifier} must be a tag "
                                      f"name, got {to_auto_tag!r}")
            opts[incremental.TO_AUTO_TAG] = to_auto_tag
        if mode is not None and not given and not any(k in opts for k in (
                incremental.BETWEEN, incremental.BETWEEN_TIMESTAMP, incremental.TO_AUTO_TAG)):
            raise ValidationError(f"incremental_mode of a read of table {self.identifier} needs an incremental "
                                  "range (incremental_between, incremental_between_timestamp or "
                                  "incremental_to_auto_tag)")
        return IncrementalSpec.of_options(opts, self.identifier)

    def _resolve_auto_tag(self, spec: IncrementalSpec) -> IncrementalSpec | IncrementalRange:
        """``incremental-to-auto-tag``: the diff between the automatic tag before ``spec.to_auto_tag``
        and it (Paimon's ``IncrementalDiffStartingScanner.toEndAutoTag``); empty when the end tag
        does not exist or no automatic tag precedes it."""
        if spec.to_auto_tag is None or spec.between is not None or spec.between_timestamp is not None:
            return spec
        handler = tag_auto_ops.PeriodHandler.of(self.store)
        end_name = spec.to_auto_tag
        end_time = handler.tag_to_time(end_name)
        if end_time is None:
            raise ValidationError(f"Option {incremental.TO_AUTO_TAG!r} of table {self.identifier}: Specified tag "
                                  f"'{end_name}' is not an auto-created tag.")
        tags = self.store.tags
        if not tags.exists(end_name):
            return incremental.EMPTY
        previous = []
        for name in tags.tag_names():
            t = handler.tag_to_time(name)
            if t is not None and t < end_time:
                previous.append((t, name))
        if not previous:
            return incremental.EMPTY
        start = tags.tagged_snapshot(max(previous)[1])
        end = tags.tagged_snapshot(end_name)
        return IncrementalRange("diff", start.id, end.id, start, end)

    def resolve_read(
        self, snapshot_id: int | None = None, tag: str | None = None, timestamp_ms: int | None = None,
        latest_snapshot_id: int | None = None, watermark: int | None = None,
    ) -> tuple[Snapshot | None, FileStore, bool]:
        """The snapshot a read sees, the store (schema) it reads with, and whether it travels in
        time (``plan``'s keyword arguments; see there)."""
        return self.scan(snapshot_id=snapshot_id, tag=tag, timestamp_ms=timestamp_ms,
                         latest_snapshot_id=latest_snapshot_id, watermark=watermark).resolve()

    def plan(
        self, filter: str | Predicate | None = None, snapshot_id: int | None = None,
        tag: str | None = None, timestamp_ms: int | None = None, latest_snapshot_id: int | None = None,
        watermark: int | None = None, read_optimized: bool = False,
    ) -> tuple[FileStore, list[tuple[FileStore, DataSplit]], Predicate | None]:
        """The store (schema) the read uses and its splits, each with the store to read it with.

        ``latest_snapshot_id``: read that snapshot as the latest one (with the table's current
        schema, not time travel): a caller that planned part of a read already pins the snapshot
        it saw, so that the rest of the read sees the same one. ``read_optimized``: only the
        highest level of a primary-key table (``$ro``; no fallback branch). An incremental read
        asked for by the table's (dynamic) options plans its range (see ``scan``)."""
        p = self.scan(filter=filter, snapshot_id=snapshot_id, tag=tag, timestamp_ms=timestamp_ms,
                      latest_snapshot_id=latest_snapshot_id, watermark=watermark,
                      read_optimized=read_optimized).plan()
        return p.store, list(p.splits), p.predicate

    def read(
        self,
        columns: Sequence[str] | None = None,
        filter: str | Predicate | None = None,
        snapshot_id: int | None = None,
        tag: str | None = None,
        timestamp_ms: int | None = None,
        watermark: int | None = None,
        read_optimized: bool = False,
        incremental_between: tuple[int | str, int | str] | str | None = None,
        incremental_between_timestamp: tuple[int, int] | str | None = None,
        incremental_to_auto_tag: str | None = None,
        incremental_mode: str | None = None,
        keep_row_kind: bool = False,
        limit: int | None = None,
    ) -> pa.Table:
        """Rows of the table (at a snapshot, tag, timestamp or watermark: the earliest snapshot whose
        watermark is at least it), projected and filtered; ``read_optimized``: only what a
        primary-key table's highest level holds (``t$ro``).

        Incremental reads (Paimon's ``incremental-between`` options, also taken from the table's
        dynamic options, ``Table.copy``): ``incremental_between=(start, end)`` (snapshot ids or tag
        names, start exclusive), ``incremental_between_timestamp=(t1, t2)`` (epoch millis),
        ``incremental_to_auto_tag=tag``; ``incremental_mode`` auto / delta / changelog / diff
        (``paimon_sql.scan.incremental``). ``keep_row_kind``: a last ``_VALUE_KIND`` int8 column
        (0 +I, 1 -U, 2 +U, 3 -D). ``limit``: at most that many rows."""
        return self.scan(columns, filter, snapshot_id, tag, timestamp_ms, watermark=watermark,
                         read_optimized=read_optimized, incremental_between=incremental_between,
                         incremental_between_timestamp=incremental_between_timestamp,
                         incremental_to_auto_tag=incremental_to_auto_tag, incremental_mode=incremental_mode,
                         keep_row_kind=keep_row_kind, limit=limit).to_arrow()

    # -- writing ---------------------------------------------------------------------------------
    def write(self, data: WriteInput, overwrite: Overwrite = False) -> int:
        """Writes ``data`` in one commit and returns the new snapshot id.

        ``overwrite=True`` replaces the whole table, ``overwrite={"dt": "2024-01-01"}`` one partition,
        ``overwrite="dynamic"`` the partitions the data has rows in.

        When a concurrent commit took the sequence numbers the write's files carry (a fixed-bucket
        primary-key table), the files are renumbered on the latest snapshot inside the commit
        (``write/resequence.py``). When a concurrent commit or schema change makes the written files
        wrong otherwise (see ``write/conflicts.py``), or the commit kept losing the race for the next
        snapshot, a ``pa.Table`` input is written again on top of the latest snapshot and schema (at
        most ``commit.max-retries`` times, ``redo_on_conflict``); a stream input, consumed by then,
        gives the ``CommitConflictError`` and nothing is left behind."""
        current = [self]

        def attempt(redo: int) -> int:
            if redo:
                current[0] = current[0].refresh()
            table = current[0]
            writer = table.new_write(overwrite=overwrite is not False and overwrite is not None)
            try:
                writer.write(data)
                changes = writer.prepare_commit()
            except BaseException:
                writer.abort()
                raise
            sid = table.commit_changes([changes], overwrite, _renumber=True)
            if sid is None:
                latest = table.store.snapshots.latest_id()
                return latest if latest is not None else 0
            return sid

        def consumed(e: CommitConflictError) -> BaseException | None:
            if isinstance(data, pa.Table):
                return None
            return type(e)(f"{e} (the input was a stream, already consumed: write it again)")

        return redo_on_conflict(lambda: current[0].store, attempt, consumed)

    def write_merge_schema(
        self, data: pa.Table, overwrite: Overwrite = False, type_widening: bool = False,
        explicit_cast: bool = False, case_sensitive: bool = False,
    ) -> int:
        """Writes ``data`` after merging its schema into the table's (Paimon's ``write.merge-schema``,
        ``write.merge-schema.type-widening``, ``write.merge-schema.explicit-cast``; see
        ``ops/merge_schema.py``): new columns and ROW fields are added (one schema version), missing
        ones are written as null. Returns the new snapshot id; ``refresh()`` shows the new schema."""
        if not isinstance(data, pa.Table):
            raise ValidationError(f"write_merge_schema of table {self.identifier}: data must be a pyarrow.Table")
        changes = merge_schema_ops.merge_schema_changes(self.schema, data.schema, type_widening, explicit_cast,
                                                        case_sensitive)
        table = self.alter(*changes) if changes else self
        return table.write(merge_schema_ops.align_to_schema(table.schema, data, case_sensitive), overwrite)

    # -- committing: every commit of this table goes through a TableCommit ----------------------
    def new_commit(self, batch_write: bool = False) -> TableCommit:
        """The committer of this table (Paimon's ``TableCommitImpl``): this handle's commit user,
        the commit, then the post-commit maintenance (``ops/maintenance.py``). ``batch_write``:
        the commits are a batch write's (batch-mode automatic tags)."""
        return TableCommit(self.store, self.commit_user, batch_write=batch_write)

    def _committer(self, store: FileStore, maintain: bool = True) -> TableCommit:
        """A committer to ``store`` (this table with per-call options) whose maintenance follows
        this table's own options (a compaction's ``write-only`` = false does not turn it on)."""
        return TableCommit(store, self.commit_user, maintain=maintain and not self.store.options.write_only)

    def filter_committed(self, identifiers: Iterable[int], since: int | None = None) -> set[int]:
        """Which of ``identifiers`` this handle's commit user has committed (in the snapshots after
        ``since``): Paimon's ``TableCommit.filterCommitted``, for exactly-once streaming sinks."""
        return self.new_commit().filter_committed(identifiers, since)

    # -- distributed writes: many TableWrites (one per task), one commit on the driver ------------
    def new_write(self, overwrite: bool = False) -> TableWrite:
        """A writer for one task; its ``prepare_commit()`` result is picklable. ``overwrite``: the
        write replaces what it writes into (Paimon's ignore-previous-files: the base's files are not
        restored into the writer's levels, and a partition may change its bucket count)."""
        return TableWrite(self.store, self.store.snapshots.latest(), ignore_previous_files=overwrite)

    def commit_changes(
        self, changes: Sequence[CommitChanges], overwrite: Overwrite = False, _renumber: bool = False,
        commit_identifier: int | None = None,
    ) -> int | None:
        """Commits what several writers prepared as ONE snapshot and returns its id (None when nothing
        was written and nothing is overwritten); when the writers compacted, a COMPACT snapshot
        follows it. On failure every written file is deleted.

        The changes must come from writers of this table (``new_write``) that have not been aborted:
        every file they add must exist in this table's folders with its recorded size, in the
        table's bucket layout; otherwise a ValidationError, and nothing is deleted (the files may not
        be this call's to delete). Changes committed already give an AlreadyCommittedError; changes
        a concurrent commit or schema change made wrong a WriteConflictError (their files deleted).
        ``commit_identifier``: the snapshots' commitIdentifier (a streaming sink's batch id, see
        ``filter_committed``; default Paimon's batch identifier, Long.MAX_VALUE)."""
        base = self._check_changes(changes)
        merged_index: list[str] = []
        committer = self.new_commit(batch_write=True)
        current = list(changes)  # (a renumbered write replaces its changes)
        try:
            committer.check_maintenance()  # a failed expiry surfaces here, before committing
            entries = [e for c in changes for e in c.entries]
            check_one_writer_per_bucket(self.store, [c.entries for c in changes])
            index = merge_index_entries(self.store, [e for c in changes for e in c.index_entries], merged_index)
            deletes_for = None
            kind = CommitKind.APPEND
            if overwrite is not False and overwrite is not None:
                kind = CommitKind.OVERWRITE
                if overwrite == "dynamic":
                    parts = {e.partition for e in entries}
                    deletes_for = partition_ops.deletes_matching(parts.__contains__)
                else:
                    spec = self._partition_spec(overwrite)
                    self._check_rows_in_spec(entries, spec)
                    deletes_for = partition_ops.deletes_matching(
                        partition_ops.spec_matcher(self.store, [spec]) if spec else (lambda p: True))
            if not entries and kind == CommitKind.APPEND:
                self.abort_changes(changes)
                return None
            req = CommitRequest(kind, tuple(entries), tuple(index), deletes_for=deletes_for, base=base,
                                changelog_entries=tuple(e for c in changes for e in c.changelog_entries))
            if commit_identifier is not None:
                req = dataclasses.replace(req, commit_identifier=commit_identifier)
            if _renumber and len(changes) == 1 and can_resequence(self.store, changes[0]):
                # Table.write: a write that loses only the sequence-number race is renumbered on
                # the latest snapshot inside the commit (its compaction dropped), not redone
                def rebase(latest: Snapshot | None) -> CommitRequest:
                    renumbered = resequence(self.store, current[0], latest)
                    current[0] = renumbered
                    return dataclasses.replace(req, entries=tuple(renumbered.entries), base=renumbered.base)

                req = dataclasses.replace(req, rebase=rebase)

            def compaction() -> WriteCompaction | None:
                # the writers' compaction: a COMPACT snapshot after the data one (the write's id)
                return WriteCompaction.of(current)

            snap = committer.commit(req, compaction)
        except AlreadyCommittedError:
            raise  # the files belong to the snapshot that committed them
        except BaseException:
            if committer.last_snapshot is None:  # nothing landed: the files are ours to delete
                self.abort_changes(current)
                for p in merged_index:
                    self.file_io.delete_quietly(p)
            raise
        return snap.id

    def _check_changes(self, changes: Sequence[CommitChanges]) -> WriteBase | None:
        """The common base of ``changes`` after checking that they are this table's prepared,
        uncommitted writes (every added data and index file exists where this table keeps it)."""
        if isinstance(changes, CommitChanges) or not isinstance(changes, Sequence):
            raise ValidationError(
                f"commit_changes of table {self.identifier} takes a list of CommitChanges (from "
                f"new_write().prepare_commit()), got {type(changes).__name__}"
            )
        bases = []
        for c in changes:
            if not isinstance(c, CommitChanges):
                raise ValidationError(
                    f"commit_changes of table {self.identifier}: expected CommitChanges from "
                    f"new_write().prepare_commit(), got {type(c).__name__}"
                )
            if c.entries or c.index_entries:
                if c.base is None:
                    raise ValidationError(
                        f"commit_changes of table {self.identifier}: changes without a writer base "
                        "were not prepared by new_write() of this table"
                    )
                bases.append(c.base)
        check_files_of_table(self.store, [e for c in changes for e in (*c.entries, *c.compact_entries,
                                                                       *c.changelog_entries, *c.compact_changelog_entries)
                                          if e.kind == FileKind.ADD],
                             [e for c in changes for e in c.index_entries])
        if not bases:
            return None
        schema_ids = {b.schema_id for b in bases}
        if len(schema_ids) > 1:
            raise WriteConflictError(
                f"commit_changes of table {self.identifier}: the writers used different schemas {sorted(schema_ids)}"
            )
        snapshot_ids = [b.snapshot_id for b in bases]
        first = None if None in snapshot_ids else min(i for i in snapshot_ids if i is not None)
        return WriteBase(first, bases[0].schema_id)

    def abort_changes(self, changes: Sequence[CommitChanges | None]) -> None:
        """Deletes the files of prepared but uncommitted writes (failed tasks give None); only files
        inside this table's folder are touched."""
        root = self.path.rstrip("/") + "/"
        for c in changes:
            if isinstance(c, CommitChanges):
                for p in c.written_paths:
                    if isinstance(p, str) and p.startswith(root) and "/../" not in p:
                        self.file_io.delete_quietly(p)

    def _partition_spec(self, overwrite: Overwrite) -> dict[str, str]:
        if overwrite is True:
            return {}
        if not isinstance(overwrite, Mapping):
            raise ValidationError(f"overwrite must be True or a partition spec dict, got {overwrite!r}")
        spec = {}
        for k, v in overwrite.items():
            if k not in self.schema.partition_keys:
                raise ValidationError(
                    f"Overwrite spec key {k!r} is not a partition column of table {self.identifier} "
                    f"(partition keys: {list(self.schema.partition_keys)})"
                )
            spec[k] = str(v)
        return spec

    def _check_rows_in_spec(self, entries: list[ManifestEntry], spec: dict[str, str]) -> None:
        if not spec:
            return
        matches = partition_ops.spec_matcher(self.store, [spec])
        for e in entries:
            if not matches(e.partition):
                raise ValidationError(
                    f"Data written with overwrite={spec} to table {self.identifier} has rows outside "
                    "that partition"
                )

    def delete(self, predicate: str | Predicate) -> int | None:
        """Deletes the rows matching ``predicate`` (SQL text); returns the new snapshot id, or None
        when nothing matched. Deleting every row is ``truncate()``."""
        if not isinstance(predicate, (str, Predicate)) or (isinstance(predicate, str) and not predicate.strip()):
            raise ValidationError(
                f"delete of table {self.identifier} needs a predicate (SQL text or a Predicate), got "
                f"{predicate!r}; truncate() deletes every row"
            )
        committer = self.new_commit(batch_write=True)
        committer.check_maintenance()
        return delete_ops.delete_where(self.store, predicate, committer)

    def truncate(self) -> int:
        """Deletes every row (``TRUNCATE TABLE``): one OVERWRITE commit that keeps no file."""
        return self.write(self.arrow_schema.empty_table(), overwrite=True)

    def alter(self, *changes: SchemaChange, **arguments: Any) -> Table:
        """Schema/option changes; writes a new schema version and returns the refreshed table.
        Either schema changes as values (``paimon_sql.meta.schema_change``: SetOption, RemoveOption,
        AddColumn, RenameColumn, DropColumn, UpdateColumnType, UpdateColumnNullability,
        UpdateColumnPosition, UpdateColumnComment, UpdateComment),
        applied in order, or the keyword arguments add_columns, drop_columns, rename_columns,
        change_types, set_options, remove_options, comment, column_comments (a convenience that
        builds that list). Once the table has a snapshot, Paimon's immutable options
        (``merge-engine``, ``bucket-key``...) cannot be set or removed."""
        unknown = sorted(set(arguments) - set(alter_ops.ALTER_ARGUMENTS))
        if unknown:
            raise ValidationError(
                f"alter of table {self.identifier}: unknown argument(s) {unknown}; "
                f"expected any of {list(alter_ops.ALTER_ARGUMENTS)}"
            )
        if changes and arguments:
            raise ValidationError(
                f"alter of table {self.identifier}: give schema changes or keyword arguments, not both"
            )
        todo = list(changes) or alter_ops.changes_from_arguments(self.identifier, **arguments)
        new_schema = alter_ops.apply_changes(self.store, todo)
        self.store.schemas.commit(new_schema)
        return self.with_schema(new_schema)

    def expire_snapshots(
        self,
        retain_max: int | None = None,
        retain_min: int | None = None,
        older_than: str | _dt.datetime | None = None,
        max_deletes: int | None = None,
        dry_run: bool = False,
        options: Mapping[str, str] | None = None,
    ) -> expire_ops.ExpireResult:
        """Expires old snapshots (Paimon's ``expire_snapshots``): snapshots beyond ``retain_max``
        go whatever their age; between it and ``retain_min`` a snapshot goes once the snapshot after
        it is older than ``older_than`` (a local timestamp 'yyyy-MM-dd HH:mm:ss'; default: now minus
        ``snapshot.time-retained``); at most ``max_deletes`` go; consumers and ``retain_min`` protect
        the newest. Defaults come from the table's options, ``options`` overrides them for this call.
        Files only the expired snapshots used are deleted (tags and branches keep theirs).
        ``dry_run`` deletes nothing and reports what would go."""
        table = self.copy(options) if options else self
        return expire_ops.expire_snapshots(
            table.store, retain_max, retain_min, older_than, max_deletes, dry_run=dry_run
        )

    def expire_changelogs(
        self,
        retain_max: int | None = None,
        retain_min: int | None = None,
        older_than: str | _dt.datetime | None = None,
        max_deletes: int | None = None,
        delete_all: bool = False,
        dry_run: bool = False,
    ) -> expire_ops.ChangelogExpireResult:
        """Expires long-lived changelogs (``changelog/changelog-<id>``, which snapshot expiry keeps
        when ``changelog.num-retained.*`` / ``changelog.time-retained`` exceed the snapshot
        retention), as Paimon's ``expire_changelogs``: beyond ``retain_max`` counted from the latest
        snapshot, the ``retain_min`` newest kept, once older than ``older_than``, at most
        ``max_deletes``, never the latest one; defaults from the table's changelog options.
        ``delete_all`` deletes every one. ``dry_run`` deletes nothing and reports what would go."""
        if not isinstance(delete_all, bool):
            raise ValidationError(
                f"expire_changelogs of table {self.identifier}: argument 'delete_all' must be true or false, "
                f"got {delete_all!r}"
            )
        if delete_all:
            return expire_ops.expire_all_changelogs(self.store, dry_run=dry_run)
        return expire_ops.expire_changelogs(self.store, retain_max, retain_min, older_than, max_deletes, dry_run=dry_run)

    def compact(
        self,
        partitions: Sequence[Mapping[str, Any]] | None = None,
        where: str | Predicate | None = None,
        full: bool = True,
        buckets: Iterable[int] | None = None,
        options: Mapping[str, str] | None = None,
        partition_idle_time: str | _dt.timedelta | None = None,
    ) -> compact_ops.CompactTableResult:
        """Compacts the table (Paimon's ``compact``): every bucket of the latest snapshot, or those of
        the ``partitions`` (a list of partition specs, ``{'dt': '2024-01-01'}``) or of the partitions
        matching ``where`` (a predicate on partition columns), or the bucket numbers ``buckets``;
        with ``partition_idle_time`` ('1 d', or a timedelta) only partitions with no file newer than
        that. ``full`` rewrites each bucket into its highest level (deletes dropped); otherwise
        universal compaction picks what to merge. One COMPACT snapshot; ``options`` apply to this call."""
        table, plan = self.plan_compaction(partitions, where, full, buckets, options, partition_idle_time)
        if isinstance(plan, compact_ops.CompactTableResult):
            return plan
        return compact_ops.commit_compaction(
            table.store, plan, [compact_ops.compact_buckets(table.store, plan, plan.buckets)],
            self._committer(table.store),
        )

    def sort_compact(
        self,
        strategy: str,
        order_by: Sequence[str],
        partitions: Sequence[Mapping[str, Any]] | None = None,
        where: str | Predicate | None = None,
        options: Mapping[str, str] | None = None,
    ) -> compact_ops.CompactTableResult:
        """Paimon's sort compaction of a bucket-unaware append table: the selected partitions
        rewritten in ``strategy`` order ('order', 'zorder', 'hilbert') of ``order_by`` and committed
        as one OVERWRITE of those partitions."""
        table, match, pred = self._compaction_scope(partitions, where, options)
        return compact_ops.sort_compact(table.store, strategy, list(order_by), pred, match,
                                        self._committer(table.store))

    def rescale(
        self, bucket_num: int | None = None, partitions: Sequence[Mapping[str, Any]] | None = None,
        where: str | Predicate | None = None,
    ) -> int | None:
        """Paimon's ``rescale``: rewrites the selected partitions (all by default) with ``bucket_num``
        buckets (default: the table's ``bucket``) as one OVERWRITE; returns its snapshot id."""
        _, match, pred = self._compaction_scope(partitions, where, None)
        return rescale_ops.rescale(self.store, bucket_num, pred, match, self.new_commit())

    def plan_compaction(
        self,
        partitions: Sequence[Mapping[str, Any]] | None = None,
        where: str | Predicate | None = None,
        full: bool = True,
        buckets: Iterable[int] | None = None,
        options: Mapping[str, str] | None = None,
        partition_idle_time: str | _dt.timedelta | None = None,
    ) -> tuple[Table, compact_ops.CompactPlan | compact_ops.CompactTableResult]:
        """The table as compaction sees it (``options`` applied) and its plan (see ``compact``); an
        empty or append table is compacted at once and its result returned instead."""
        table, match, pred = self._compaction_scope(partitions, where, options)
        if partition_idle_time is not None:
            idle = compact_ops.idle_partitions(self.store, partition_idle_time, f"compact of table {self.identifier}")
            match = (lambda p, m=match: p in idle and m(p)) if match is not None else idle.__contains__
        wanted = None
        if buckets is not None:
            wanted = set(buckets)
            if self.store.options.bucket <= 0:
                raise ValidationError(  # Paimon's CompactProcedure text
                    f"compact of table {self.identifier}: Specifying buckets is only supported for fixed-bucket "
                    f"tables, but the table bucket mode is {self._bucket_mode_name()}."
                )
        # an append table is compacted (and committed) at once
        return table, compact_ops.plan_compaction(table.store, pred, full, match, wanted, self._committer(table.store))

    def _bucket_mode_name(self) -> str:
        """Paimon's name of the table's bucket mode (``BucketMode``)."""
        bucket = self.store.options.bucket
        if bucket > 0:
            return "HASH_FIXED"
        if bucket == -2:
            return "POSTPONE_MODE"
        if not self.store.has_primary_key:
            return "BUCKET_UNAWARE"
        keys = set(self.schema.primary_keys)
        return "HASH_DYNAMIC" if set(self.schema.partition_keys) <= keys else "KEY_DYNAMIC"

    def _compaction_scope(
        self, partitions: Sequence[Mapping[str, Any]] | None, where: str | Predicate | None,
        options: Mapping[str, str] | None,
    ) -> tuple[Table, Callable[[bytes], bool] | None, Predicate | None]:
        """The table with ``options`` and the partition test and predicate a compaction selects by."""
        self.new_commit().check_maintenance()
        table = self.copy({**(options or {}), "write-only": "false"})
        if partitions is not None and where is not None:
            raise ValidationError(f"compact of table {self.identifier}: partitions and where cannot be used together")
        match = None
        if partitions is not None:
            specs = [self._partition_spec(dict(p)) for p in partitions]
            match = partition_ops.spec_matcher(self.store, specs)
        return table, match, self._partition_predicate(where, "compact")

    def _partition_predicate(self, where: str | Predicate | None, what: str) -> Predicate | None:
        """``where`` (SQL text or a Predicate) parsed; it may use partition columns only."""
        if where is None:
            return None
        pred = parse_predicate(where, list(self.schema.fields)) if isinstance(where, str) else where
        outside = sorted(referenced_columns(pred) - set(self.schema.partition_keys))
        if outside:
            raise ValidationError(
                f"{what} of table {self.identifier}: Only partition predicate is supported, but the "
                f"where condition uses {outside} (partition keys: {list(self.schema.partition_keys)})"
            )
        return pred

    def expire_tags(self, older_than: str | _dt.datetime | None = None) -> list[str]:
        """Deletes the tags whose ``time_retained`` has passed, and with ``older_than`` (a local
        timestamp 'yyyy-MM-dd HH:mm:ss' or a datetime) those created before it (Paimon's
        ``expire_tags``); returns their names."""
        when = None
        if isinstance(older_than, _dt.datetime):
            when = older_than
        elif older_than is not None:
            ms = expire_ops.parse_timestamp_ms(older_than, f"expire_tags of table {self.identifier}: older_than")
            when = _dt.datetime.fromtimestamp(ms / 1000)
        return list(tag_expire_ops.expire_tags(self.store, when).expired)

    def trigger_tag_automatic_creation(self) -> tag_auto_ops.AutoTagResult:
        """Paimon's ``trigger_tag_automatic_creation``: creates the ``tag.automatic-creation``
        (process-time / watermark) tags the snapshots call for, deletes automatic tags beyond
        ``tag.num-retained-max``, then (``tag.time-expire-enabled``) tags whose retention passed."""
        result = tag_auto_ops.create_auto_tags(self.store, maintenance_of(self.store).tag_positions)
        if self.store.options.get(TAG_TIME_EXPIRE_ENABLED):
            tag_expire_ops.expire_tags(self.store)
        return result

    def reset_consumer(self, consumer_id: str, next_snapshot_id: int | None = None) -> None:
        """Sets consumer ``consumer_id``'s next snapshot (Paimon's ``reset_consumer``); None deletes it."""
        consumer_ops.reset_consumer(self.store, consumer_id, next_snapshot_id)

    def clear_consumers(self, including: str | None = None, excluding: str | None = None) -> list[str]:
        """Deletes the consumers whose id fully matches ``including`` (default all) and not
        ``excluding`` (Java regular expressions of Paimon's ``clear_consumers``); returns their ids."""
        return list(consumer_ops.clear_consumers(self.store, including, excluding).cleared)

    def purge_files(self) -> None:
        """Paimon's ``purge_files``: drops every branch, tag and consumer, truncates the table, removes
        the changelogs and expires every snapshot but the (empty) latest one, with their files."""
        if self.store.branch != MAIN_BRANCH:
            raise ValidationError(f"purge_files of table {self.identifier}: purge the main branch, not a branch")
        names = self.branches()
        if names:
            self.delete_branch(names)
        for tag in self.store.tags.tag_names():
            self.delete_tag(tag)
        self.clear_consumers()
        self.truncate()
        self.file_io.delete_dir(join(self.store.meta_path, "changelog"))
        expire_ops.expire_snapshots(self.store, retain_max=1, retain_min=1, older_than=_dt.datetime.now()
                                    + _dt.timedelta(days=1), max_deletes=2**31 - 1)

    def remove_orphan_files(
        self, older_than: str | _dt.datetime | None = None, dry_run: bool = False
    ) -> orphan_ops.RemoveOrphanFilesResult:
        """Deletes the table's files no snapshot, tag or changelog of any branch references, modified
        before ``older_than`` (a local timestamp 'yyyy-MM-dd HH:mm:ss', or a datetime; default one day
        ago); ``dry_run`` only reports (Paimon's ``remove_orphan_files``)."""
        cutoff = None
        if isinstance(older_than, _dt.datetime):
            when = older_than if older_than.tzinfo is not None else older_than.astimezone()
            cutoff = int(when.timestamp() * 1000)
        elif older_than is not None:
            cutoff = expire_ops.parse_timestamp_ms(older_than, f"remove_orphan_files of table {self.identifier}: older_than")
        return orphan_ops.remove_orphan_files(self.store, cutoff, dry_run=dry_run)

    # -- partitions ---------------------------------------------------------------------------
    def partitions(self) -> list[partition_ops.PartitionInfo]:
        """The partitions with files in the latest snapshot (``SHOW PARTITIONS``), sorted by their
        folder text, with their row, byte and file counts and newest file time."""
        return partition_ops.list_partitions(self.store)

    def drop_partitions(
        self, partitions: Sequence[Mapping[str, Any]], dry_run: bool = False, *, commit_if_empty: bool = False
    ) -> partition_ops.DropPartitionsResult:
        """Drops every partition matching one of ``partitions`` (specs column -> value, None for
        null; a spec may give only some columns, e.g. ``{"dt": "2024-01-01"}`` drops every hour of
        that day) in one OVERWRITE commit (``ALTER TABLE t DROP PARTITION``). Nothing matching is
        no commit, unless ``commit_if_empty`` (then an OVERWRITE snapshot changing nothing, as
        Paimon's ``truncatePartitions``)."""
        committer = self.new_commit()
        committer.check_maintenance()
        return partition_ops.drop_partitions(self.store, partitions, dry_run=dry_run,
                                             commit_if_empty=commit_if_empty, committer=committer)

    def expire_partitions(
        self,
        expiration_time: str | None = None,
        timestamp_formatter: str | None = None,
        timestamp_pattern: str | None = None,
        expire_strategy: str | None = None,
        max_expires: int | None = None,
        options: Mapping[str, str] | None = None,
        dry_run: bool = False,
    ) -> partition_ops.ExpirePartitionsResult:
        """Drops the partitions older than ``expiration_time`` (Paimon's ``expire_partitions``; each
        argument overrides its table option: ``partition.expiration-time``,
        ``partition.timestamp-formatter``, ``partition.timestamp-pattern``,
        ``partition.expiration-strategy``, ``partition.expiration-max-num``; ``options`` sets others).
        ``dry_run`` drops nothing and reports what would go."""
        if max_expires is not None and (isinstance(max_expires, bool) or not isinstance(max_expires, int)):
            raise ValidationError(f"expire_partitions of table {self.identifier}: max_expires must be an integer, got {max_expires!r}")
        dynamic = dict(options or {})
        for key, value in (("partition.expiration-strategy", expire_strategy),
                           ("partition.timestamp-formatter", timestamp_formatter),
                           ("partition.timestamp-pattern", timestamp_pattern),
                           ("partition.expiration-time", expiration_time),
                           ("partition.expiration-max-num", None if max_expires is None else str(max_expires))):
            if value is not None and value != "":
                dynamic[key] = value
        table = self.copy(dynamic) if dynamic else self
        committer = self._committer(table.store, maintain=False)  # expiry is maintenance itself
        committer.check_maintenance()
        return partition_ops.expire_partitions(table.store, dry_run=dry_run, committer=committer)

    def mark_partition_done(self, partitions: Sequence[Mapping[str, Any]]) -> list[str]:
        """Marks each partition (a full spec) done with the table's ``partition.mark-done-action``
        (``success-file``: ``<partition>/_SUCCESS``); returns the partition paths."""
        return partition_ops.mark_partitions_done(self.store, partitions)

    def copy_files_to(self, target: Table, where: str | Predicate | None = None) -> copy_ops.CopyResult:
        """Paimon's ``copy``: this table's live files (of the partitions ``where`` selects, a
        predicate on partition columns) copied into ``target`` (a compatible table) and committed there
        as one OVERWRITE of the partitions they fill."""
        if target.path == self.path:
            raise ValidationError(f"Cannot copy table {self.identifier} into itself")
        copy_ops.check_compatible(self.store, target.store)
        pred = self._partition_predicate(where, "copy")
        committer = target.new_commit()
        committer.check_maintenance()
        return copy_ops.copy_files(self.store, target.store, pred, committer=committer)

    # -- repairs ------------------------------------------------------------------------------
    def remove_unexisting_files(self, dry_run: bool = False) -> repair_ops.RemoveUnexistingFilesResult:
        """Removes from the table (one commit) the data files its latest snapshot names that are
        gone from storage (Paimon's ``remove_unexisting_files``); ``dry_run`` only lists them."""
        committer = self._committer(self.store, maintain=False)
        committer.check_maintenance()
        return repair_ops.remove_unexisting_files(self.store, dry_run, committer)

    def repair_earliest_snapshot(self, snapshot_id: int) -> tuple[int, int]:
        """Points EARLIEST at ``snapshot_id`` after the snapshots before it were lost (Paimon's
        ``repair_earliest_snapshot``); returns (previous earliest, new earliest)."""
        return repair_ops.repair_earliest_snapshot(self.store, snapshot_id)

    def compact_manifest(self, dry_run: bool = False, options: Mapping[str, str] | None = None) -> int | None:
        """Rewrites the manifests of the latest snapshot to hold only live entries, as one COMPACT
        snapshot (Paimon's ``compact_manifest``); returns its id."""
        table = self.copy(options) if options else self
        return repair_ops.compact_manifests(table.store, dry_run, self._committer(table.store, maintain=False))

    def copy(self, dynamic_options: Mapping[str, str]) -> Table:
        """This table read and written with ``dynamic_options`` on top of its own (Paimon's dynamic
        options: per-read options, ``SET spark.paimon.<key>``); the schema on disk is unchanged.
        Options a table keeps for life (Paimon's immutable options: ``merge-engine``, keys...) and
        ``bucket`` to or from -1 cannot change, as ALTER TABLE on a table with data; options
        paimon_sql does not apply are refused, values are checked."""
        dyn = {str(k): str(v) for k, v in dynamic_options.items()}
        current = self.schema.options
        changed = {k: v for k, v in dyn.items()
                   if current.get(k) != v and not alter_ops.unchanged_option(k, current.get(k), v, self.schema)}
        if not changed:
            return self
        for key in sorted(changed):  # Paimon's checkImmutability: the rules of ALTER TABLE on a table with data
            if key in NOT_DYNAMIC:
                raise UnsupportedError(
                    f"Table {self.identifier}: option {key!r} cannot be changed by a dynamic (per-read or "
                    f"session) option (set to {changed[key]!r})"
                )
            error = option_change_error(current, key, current.get(key), changed[key])
            if error:
                raise UnsupportedError(error)
        merged = {**current, **changed}
        validate_options(merged, self.identifier, columns=self.schema.field_names)
        check_implemented(changed, self.identifier)
        return self.with_schema(dataclasses.replace(self.schema, options=merged))

    def with_schema(self, schema: TableSchema) -> Table:
        return Table(self.file_io, self.path, self.table_name, schema, self.branch, self.commit_user)

    # -- tags, rollback and branches (paimon_sql/ops; the procedures call the same functions) ------
    def create_tag(
        self, tag: str, snapshot_id: int | None = None, time_retained: str | int | _dt.timedelta | None = None
    ) -> tag_ops.CreateTagResult:
        """Tags ``snapshot_id`` (default: the latest snapshot). ``time_retained``: a duration
        (``'1 d'``), a timedelta or milliseconds; None takes the table's ``tag.default-time-retained``
        (as Paimon's ``Table.createTag``)."""
        ms = tag_change_ops.parse_time_retained(time_retained, f"create_tag of table {self.identifier}")
        if ms is None:
            ms = self.store.options.get(TAG_DEFAULT_TIME_RETAINED)
        return tag_ops.create_tag(self.store, tag, snapshot_id, ms)

    def delete_tag(self, tag: str) -> tag_ops.DeleteTagResult:
        """Deletes ``tag`` (nothing happens when it does not exist, as in Paimon)."""
        return tag_ops.delete_tag(self.store, tag)

    def replace_tag(
        self, tag: str, snapshot_id: int | None = None, time_retained: str | int | _dt.timedelta | None = None
    ) -> tag_change_ops.ReplaceTagResult:
        """Points the existing ``tag`` at ``snapshot_id`` (default: the latest) with ``time_retained``."""
        ms = tag_change_ops.parse_time_retained(time_retained, f"replace_tag of table {self.identifier}")
        return tag_change_ops.replace_tag(self.store, tag, snapshot_id, ms)

    def rename_tag(self, tag: str, target_tag: str) -> tag_change_ops.RenameTagResult:
        return tag_change_ops.rename_tag(self.store, tag, target_tag)

    def create_tag_from_timestamp(
        self, tag: str, timestamp_ms: int, time_retained: str | int | _dt.timedelta | None = None
    ) -> tag_change_ops.CreateTagFromTimestampResult:
        """Tags the earliest snapshot (or tagged snapshot) committed at or after ``timestamp_ms``."""
        where = f"create_tag_from_timestamp of table {self.identifier}"
        ms = tag_change_ops.parse_time_retained(time_retained, where)
        return tag_change_ops.create_tag_from_timestamp(self.store, tag, timestamp_ms, ms)

    def rollback(self, snapshot_id: int | None = None, tag: str | None = None) -> rollback_ops.RollbackResult:
        """Rolls back to ``snapshot_id`` or to the snapshot of ``tag`` (later snapshots and tags go)."""
        return rollback_ops.rollback(self.store, snapshot_id=snapshot_id, tag=tag)

    def rollback_to_timestamp(self, timestamp_ms: int) -> rollback_ops.RollbackResult:
        """Rolls back to the latest snapshot committed at or before ``timestamp_ms`` (epoch millis)."""
        return rollback_ops.rollback_to_timestamp(self.store, timestamp_ms)

    def rollback_to_watermark(self, watermark: int) -> rollback_ops.RollbackResult:
        """Rolls back to the latest snapshot whose watermark is at or below ``watermark``."""
        return rollback_ops.rollback_to_watermark(self.store, watermark)

    def branches(self) -> list[str]:
        """The branches of the table (``main`` not included)."""
        return branch_ops.branch_names(self.store)

    def switch_to_branch(self, name: str) -> Table:
        """The branch ``name`` of this table (``main``: the main branch), to read and write."""
        name = check_name("branch", name, f"table {self.table_name}")
        if not branch_ops.branch_exists(self.store, name):
            raise NotFoundError(
                f"Branch {name!r} of table {self.table_name} does not exist "
                f"(branches: {', '.join(self.branches()) or 'none'})"
            )
        store = self.store.for_branch(name, self.schema)
        schema = store.schemas.latest()
        if schema is None:
            raise NotFoundError(f"Branch {name!r} of table {self.table_name} has no schema")
        return Table(self.file_io, self.path, self.table_name, schema, name)

    def create_branch(
        self, branch: str, tag: str | None = None, ignore_if_exists: bool = False
    ) -> branch_ops.CreateBranchResult:
        """Creates ``branch`` from ``tag`` of this table (or branch), or empty with the current schema."""
        return branch_ops.create_branch(self.store, branch, tag, ignore_if_exists)

    def delete_branch(self, branches: str | Sequence[str]) -> branch_ops.DeleteBranchResult:
        """Deletes the branches ``branches`` names (comma-separated, or a list)."""
        return branch_ops.delete_branch(self.store, branches)

    def rename_branch(self, from_branch: str, to_branch: str) -> branch_ops.RenameBranchResult:
        return branch_ops.rename_branch(self.store, from_branch, to_branch)

    def merge_branch(self, source_branch: str, target_branch: str = MAIN_BRANCH) -> branch_ops.MergeBranchResult:
        """Paimon's ``merge_branch`` (append tables): the data files of ``source_branch`` that
        ``target_branch`` (default main) lacks are added to it in one APPEND commit."""
        return branch_ops.merge_branch(self.store, source_branch, target_branch,
                                       self._committer(self.store, maintain=False))

    def fast_forward(self, branch: str) -> branch_ops.FastForwardResult:
        """Replaces this table's (or branch's) snapshots, schemas and tags from ``branch``'s earliest
        snapshot on by ``branch``'s; returns what changed. Reload the table afterwards (the
        schema may have changed)."""
        return branch_ops.fast_forward(self.store, branch)
