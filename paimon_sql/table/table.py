"""Table: the user-facing handle on one Paimon table (read with time travel, write, delete, alter).

A thin facade (Paimon's ``Table``, pyiceberg's ``Table``): reads build a ``TableScan``
(``table/reading.py``), writes and commits go through ``table/writing.py`` and the table's
``TableCommit``; the other operations are grouped in sub-facades, ``table.tags``
(``table/tags.py``), ``table.branches``, ``table.snapshots``, ``table.partitions`` and
``table.maintenance``, over one ``paimon_sql/ops`` module per operation. The flat methods
(``create_tag``, ``compact``...) are one-line delegates kept for the procedures and users.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from paimon_sql.errors import NotFoundError
from paimon_sql.fs.file_io import FileIO
from paimon_sql.lazy import lazy_module
from paimon_sql.meta.file_store import MAIN_BRANCH, FileStore, branch_identifier
from paimon_sql.meta.schema import TableSchema
from paimon_sql.meta.schema_change import SchemaChange
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.names import check_name
from paimon_sql.predicate import Predicate
from paimon_sql.scan.reader import output_schema
from paimon_sql.scan.split import DataSplit
from paimon_sql.scan.table_scan import FALLBACK_BRANCH as FALLBACK_BRANCH  # (re-exported)
from paimon_sql.scan.table_scan import TableScan
from paimon_sql.table import reading, writing
from paimon_sql.table.branches import Branches
from paimon_sql.table.facets import Overwrite as Overwrite  # (re-exported)
from paimon_sql.table.facets import WriteInput as WriteInput  # (re-exported)
from paimon_sql.table.facets import delegate
from paimon_sql.table.maintenance import Maintenance
from paimon_sql.table.partitions import Partitions
from paimon_sql.table.snapshots import Snapshots
from paimon_sql.table.table_commit import TableCommit
from paimon_sql.table.tags import Tags
from paimon_sql.write.compaction_policy import CompactionPolicy
from paimon_sql.write.table_write import CommitChanges, TableWrite

# the operation modules load when an operation first runs (a write or read does not import them all)
if TYPE_CHECKING:
    from paimon_sql.ops import alter as alter_ops
    from paimon_sql.ops import branches as branch_ops
else:
    alter_ops = lazy_module("paimon_sql.ops.alter")
    branch_ops = lazy_module("paimon_sql.ops.branches")


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

    def copy(self, dynamic_options: Mapping[str, str]) -> Table:
        """This table read and written with ``dynamic_options`` on top of its own (Paimon's dynamic
        options: per-read options, ``SET spark.paimon.<key>``); the schema on disk is unchanged.
        Options a table keeps for life (Paimon's immutable options: ``merge-engine``, keys...) and
        ``bucket`` to or from -1 cannot change, as ALTER TABLE on a table with data; options
        paimon_sql does not apply are refused, values are checked."""
        schema = alter_ops.with_dynamic_options(self.schema, self.identifier, dynamic_options)
        return self if schema is None else self.with_schema(schema)

    def with_schema(self, schema: TableSchema) -> Table:
        return Table(self.file_io, self.path, self.table_name, schema, self.branch, self.commit_user)

    def __repr__(self) -> str:
        return f"Table({self.identifier!r}, fields={self.schema.field_names})"

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

    # -- sub-facades: the operations grouped by what they act on ----------------------------------
    @property
    def tags(self) -> Tags:
        """The table's tags (``table.tags()`` lists them; ``create``, ``delete``, ``replace``...)."""
        return Tags(self)

    @property
    def branches(self) -> Branches:
        """The table's branches (``table.branches()`` lists them; ``create``, ``switch_to``...)."""
        return Branches(self)

    @property
    def snapshots(self) -> Snapshots:
        """The table's snapshots (``table.snapshots()`` lists their ids; ``rollback``, ``expire``...)."""
        return Snapshots(self)

    @property
    def partitions(self) -> Partitions:
        """The table's partitions (``table.partitions()`` lists them; ``drop``, ``expire``...)."""
        return Partitions(self)

    @property
    def maintenance(self) -> Maintenance:
        """Compaction, rescale, repairs, orphan files, consumers, copy and purge."""
        return Maintenance(self)

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
        return reading.new_scan(self, columns, filter, snapshot_id, tag, timestamp_ms, latest_snapshot_id, watermark,
                                read_optimized, incremental_between, incremental_between_timestamp,
                                incremental_to_auto_tag, incremental_mode, keep_row_kind, limit)

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
        return writing.write(self, data, overwrite)

    def write_merge_schema(
        self, data: pa.Table, overwrite: Overwrite = False, type_widening: bool = False,
        explicit_cast: bool = False, case_sensitive: bool = False,
    ) -> int:
        """Writes ``data`` after merging its schema into the table's (Paimon's ``write.merge-schema``,
        ``write.merge-schema.type-widening``, ``write.merge-schema.explicit-cast``; see
        ``ops/merge_schema.py``): new columns and ROW fields are added (one schema version), missing
        ones are written as null. Returns the new snapshot id; ``refresh()`` shows the new schema."""
        return writing.write_merge_schema(self, data, overwrite, type_widening, explicit_cast, case_sensitive)

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
    def new_write(
        self, overwrite: bool = False, compaction: CompactionPolicy | str = CompactionPolicy.SYNC,
    ) -> TableWrite:
        """A writer for one task; its ``prepare_commit()`` result is picklable. ``overwrite``: the
        write replaces what it writes into (Paimon's ignore-previous-files: the base's files are not
        restored into the writer's levels, and a partition may change its bucket count).
        ``compaction``: ``"sync"`` (default, Paimon's batch writer: ``prepare_commit`` compacts the
        primary-key buckets written and waits) or ``"defer"`` (no compaction at ``prepare_commit``,
        for a caller that must not stall; a later ``compact`` catches up)."""
        return TableWrite(
            self.store, self.store.snapshots.latest(), ignore_previous_files=overwrite,
            compaction=CompactionPolicy.of(compaction),
        )

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
        return writing.commit_changes(self, changes, overwrite, _renumber, commit_identifier)

    def abort_changes(self, changes: Sequence[CommitChanges | None]) -> bool:
        """Deletes the files of prepared but uncommitted writes (failed tasks give None); only files
        inside this table's folder are touched. False (nothing deleted) when a snapshot already holds
        them: their commit happened (see ``writing.abort_changes``)."""
        return writing.abort_changes(self, changes)

    def delete(self, predicate: str | Predicate) -> int | None:
        """Deletes the rows matching ``predicate`` (SQL text); returns the new snapshot id, or None
        when nothing matched. Deleting every row is ``truncate()``."""
        return writing.delete(self, predicate)

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
        return self.with_schema(alter_ops.alter_table(self.store, changes, arguments))

    # -- flat delegates to the sub-facades (the procedures and the Python API call them) ----------
    create_tag = delegate(Tags, Tags.create)
    delete_tag = delegate(Tags, Tags.delete)
    replace_tag = delegate(Tags, Tags.replace)
    rename_tag = delegate(Tags, Tags.rename)
    create_tag_from_timestamp = delegate(Tags, Tags.create_from_timestamp)
    expire_tags = delegate(Tags, Tags.expire)
    trigger_tag_automatic_creation = delegate(Tags, Tags.trigger_automatic_creation)
    create_branch = delegate(Branches, Branches.create)
    delete_branch = delegate(Branches, Branches.delete)
    rename_branch = delegate(Branches, Branches.rename)
    merge_branch = delegate(Branches, Branches.merge)
    fast_forward = delegate(Branches, Branches.fast_forward)
    rollback = delegate(Snapshots, Snapshots.rollback)
    rollback_to_timestamp = delegate(Snapshots, Snapshots.rollback_to_timestamp)
    rollback_to_watermark = delegate(Snapshots, Snapshots.rollback_to_watermark)
    expire_snapshots = delegate(Snapshots, Snapshots.expire)
    expire_changelogs = delegate(Snapshots, Snapshots.expire_changelogs)
    drop_partitions = delegate(Partitions, Partitions.drop)
    expire_partitions = delegate(Partitions, Partitions.expire)
    mark_partition_done = delegate(Partitions, Partitions.mark_done)
    compact = delegate(Maintenance, Maintenance.compact)
    plan_compaction = delegate(Maintenance, Maintenance.plan_compaction)
    sort_compact = delegate(Maintenance, Maintenance.sort_compact)
    rescale = delegate(Maintenance, Maintenance.rescale)
    compact_manifest = delegate(Maintenance, Maintenance.compact_manifest)
    remove_unexisting_files = delegate(Maintenance, Maintenance.remove_unexisting_files)
    repair_earliest_snapshot = delegate(Maintenance, Maintenance.repair_earliest_snapshot)
    remove_orphan_files = delegate(Maintenance, Maintenance.remove_orphan_files)
    purge_files = delegate(Maintenance, Maintenance.purge_files)
    reset_consumer = delegate(Maintenance, Maintenance.reset_consumer)
    clear_consumers = delegate(Maintenance, Maintenance.clear_consumers)
    copy_files_to = delegate(Maintenance, Maintenance.copy_files_to)
