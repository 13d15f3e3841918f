"""The write side of the TableHandle facade: ``Table.write`` (with the redo on conflict), the schema-merging
write, ``commit_changes`` (many writers' prepared changes as one snapshot through the table's
``TableCommit``, Paimon's ``BatchWriteBuilder`` / ``TableCommitImpl.commit``) and DELETE. The writers are
``write/table_write.py``'s ``TableWrite``; the commit is ``table/table_commit.py``."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_sql.errors import (
    AlreadyCommittedError,
    CommitConflictError,
    NotFoundError,
    ValidationError,
    WriteConflictError,
)
from paimon_sql.lazy import lazy_module
from paimon_sql.meta.kinds import CommitKind, FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.schema_change import SchemaChange
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.predicate import Predicate
from paimon_sql.table.facets import Overwrite, TableHandle, WriteInput
from paimon_sql.table.partitions import partition_spec
from paimon_sql.write.commit import CommitRequest, WriteBase, WriteCompaction, redo_on_conflict
from paimon_sql.write.conflicts import check_files_of_table, check_one_writer_per_bucket
from paimon_sql.write.resequence import can_resequence, resequence
from paimon_sql.write.table_write import CommitChanges, merge_index_entries

if TYPE_CHECKING:
    from paimon_sql.ops import delete as delete_ops
    from paimon_sql.ops import merge_schema as merge_schema_ops
    from paimon_sql.ops import partitions as partition_ops
else:
    delete_ops = lazy_module("paimon_sql.ops.delete")
    merge_schema_ops = lazy_module("paimon_sql.ops.merge_schema")
    partition_ops = lazy_module("paimon_sql.ops.partitions")


def write(table: TableHandle, data: WriteInput, overwrite: Overwrite) -> int:
    """``Table.write``: one commit of ``data`` (see there), redone on the latest snapshot and schema
    after a conflict when the input is a ``pa.Table``."""
    current = [table]

    def attempt(redo: int) -> int:
        if redo:
            current[0] = current[0].refresh()
        table = current[0]
        writer = table.new_write(overwrite=overwrite is not False and overwrite is not None)
        try:
            writer.write(data)
            changes = writer.prepare_commit()
        except NotFoundError as e:
            writer.abort()
            if table.store.snapshots.latest_id() == writer.write_base.snapshot_id:
                raise
            # the files of the writer's base that it read (to compact them) were replaced by a
            # concurrent compaction and deleted by snapshot expiry: written again on the latest
            raise WriteConflictError(
                f"Write to table {table.identifier}: a file of its base snapshot "
                f"{writer.write_base.snapshot_id} was compacted away and expired meanwhile ({e})"
            ) from e
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


def merge_schema(
    table: TableHandle, data: pa.Schema, type_widening: bool = False, explicit_cast: bool = False,
    case_sensitive: bool = False, commit: bool = True,
) -> tuple[TableHandle, list[SchemaChange]]:
    """The schema of written ``data`` merged into ``table``'s by Paimon's rules (``write.merge-schema``,
    ``ops/merge_schema.py``): the schema changes (empty: the table has every column already) and
    the table after them, committed as one schema version when ``commit`` (else ``table`` as it
    is: the caller only plans). ``Table.write_merge_schema``, the Spark write's schema merge
    (``spark/handlers/merge_schema.py``) and a streaming write's (``spark/stream_writer.py``) all
    merge through here."""
    changes = merge_schema_ops.merge_schema_changes(table.schema, data, type_widening, explicit_cast, case_sensitive)
    if changes and commit:
        return table.alter(*changes), changes
    return table, changes


def write_merge_schema(
    table: TableHandle, data: pa.Table, overwrite: Overwrite, type_widening: bool, explicit_cast: bool,
    case_sensitive: bool,
) -> int:
    """``Table.write_merge_schema``: the schema of ``data`` merged into the table's, then written."""
    if not isinstance(data, pa.Table):
        raise ValidationError(f"write_merge_schema of table {table.identifier}: data must be a pyarrow.Table")
    target, _ = merge_schema(table, data.schema, type_widening, explicit_cast, case_sensitive)
    return target.write(merge_schema_ops.align_to_schema(target.schema, data, case_sensitive), overwrite)


def commit_changes(
    table: TableHandle, changes: Sequence[CommitChanges], overwrite: Overwrite, renumber: bool,
    commit_identifier: int | None,
) -> int | None:
    """``Table.commit_changes`` (see there): ONE snapshot of what several writers prepared."""
    store = table.store
    base = check_changes(table, changes)
    merged_index: list[str] = []
    committer = table.new_commit(batch_write=True)
    current = list(changes)  # (a renumbered write replaces its changes)
    try:
        committer.check_maintenance()  # a failed expiry surfaces here, before committing
        entries = [e for c in changes for e in c.entries]
        check_one_writer_per_bucket(store, [c.entries for c in changes])
        index = merge_index_entries(store, [e for c in changes for e in c.index_entries], merged_index)
        deletes_for = None
        kind = CommitKind.APPEND
        if overwrite is not False and overwrite is not None:
            kind = CommitKind.OVERWRITE
            if overwrite == "dynamic":
                parts = {e.partition for e in entries}
                deletes_for = partition_ops.deletes_matching(parts.__contains__)
            else:
                spec = partition_spec(table.schema, table.identifier, overwrite)
                check_rows_in_spec(table, entries, spec)
                deletes_for = partition_ops.deletes_matching(
                    partition_ops.spec_matcher(store, [spec]) if spec else (lambda p: True))
        if not entries and kind == CommitKind.APPEND:
            abort_changes(table, changes)
            return None
        req = CommitRequest(kind, tuple(entries), tuple(index), deletes_for=deletes_for, base=base,
                            changelog_entries=tuple(e for c in changes for e in c.changelog_entries))
        if commit_identifier is not None:
            req = dataclasses.replace(req, commit_identifier=commit_identifier)
        if renumber and len(changes) == 1 and can_resequence(store, changes[0]):
            # Table.write: a write that loses only the sequence-number race is renumbered on
            # the latest snapshot inside the commit (its compaction dropped), not redone
            def rebase(latest: Snapshot | None) -> CommitRequest:
                renumbered = resequence(store, current[0], latest)
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
            abort_changes(table, current)
            for p in merged_index:
                table.file_io.delete_quietly(p)
        raise
    return snap.id


def check_changes(table: TableHandle, changes: Sequence[CommitChanges]) -> WriteBase | None:
    """The common base of ``changes`` after checking that they are this table's prepared,
    uncommitted writes (every added data and index file exists where this table keeps it)."""
    if isinstance(changes, CommitChanges) or not isinstance(changes, Sequence):
        raise ValidationError(
            f"commit_changes of table {table.identifier} takes a list of CommitChanges (from "
            f"new_write().prepare_commit()), got {type(changes).__name__}"
        )
    bases = []
    for c in changes:
        if not isinstance(c, CommitChanges):
            raise ValidationError(
                f"commit_changes of table {table.identifier}: expected CommitChanges from "
                f"new_write().prepare_commit(), got {type(c).__name__}"
            )
        if c.entries or c.index_entries:
            if c.base is None:
                raise ValidationError(
                    f"commit_changes of table {table.identifier}: changes without a writer base "
                    "were not prepared by new_write() of this table"
                )
            bases.append(c.base)
    check_files_of_table(table.store, [e for c in changes for e in (*c.entries, *c.compact_entries,
                                                                    *c.changelog_entries, *c.compact_changelog_entries)
                                       if e.kind == FileKind.ADD],
                         [e for c in changes for e in c.index_entries])
    if not bases:
        return None
    schema_ids = {b.schema_id for b in bases}
    if len(schema_ids) > 1:
        raise WriteConflictError(
            f"commit_changes of table {table.identifier}: the writers used different schemas {sorted(schema_ids)}"
        )
    snapshot_ids = [b.snapshot_id for b in bases]
    first = None if None in snapshot_ids else min(i for i in snapshot_ids if i is not None)
    return WriteBase(first, bases[0].schema_id)


def abort_changes(table: TableHandle, changes: Sequence[CommitChanges | None]) -> bool:
    """Deletes the files of prepared but uncommitted writes (failed tasks give None); only files
    inside the table's folder are touched. Nothing is deleted when a snapshot after the writes' base
    already holds one of their files: their commit happened (the process that made it may have died
    before it could say so, and the caller then aborts), and its files are the table's. Returns
    False in that case (nothing aborted), else True."""
    if committed_since_base(table, changes):
        return False
    root = table.path.rstrip("/") + "/"
    for c in changes:
        if isinstance(c, CommitChanges):
            for p in c.written_paths:
                if isinstance(p, str) and p.startswith(root) and "/../" not in p:
                    table.file_io.delete_quietly(p)
    return True


def committed_since_base(table: TableHandle, changes: Sequence[CommitChanges | None]) -> bool:
    """Whether a snapshot after the base of ``changes`` added one of their data files (read from
    the delta manifests of the snapshots since the oldest base)."""
    ok = [c for c in changes if isinstance(c, CommitChanges)]
    names = {e.file.file_name for c in ok for e in (*c.entries, *c.compact_entries, *c.changelog_entries)
             if e.kind == FileKind.ADD}
    if not names:
        return False
    snapshots, manifests = table.store.snapshots, table.store.manifests
    latest = snapshots.latest_id()
    if latest is None:
        return False
    bases = [c.base.snapshot_id or 0 if c.base is not None else 0 for c in ok]
    first = min(bases) + 1
    earliest = snapshots.earliest_id() or 1
    # snapshots of the range expired before they could be read: had one of them committed the
    # files, they are live in the first snapshot after it that still exists (unless a compaction
    # dropped them there; then no snapshot that exists refers to them)
    unread = first < earliest
    for sid in range(max(first, earliest), latest + 1):
        try:
            snap = snapshots.snapshot(sid)
            if unread and any(e.file.file_name in names for e in manifests.live_entries(snap)):
                return True
            unread = False
            lists = [snap.delta_manifest_list, snap.changelog_manifest_list]
            for name in (n for n in lists if n):
                for meta in manifests.read_manifest_list(name):
                    if any(e.file.file_name in names for e in manifests.read_manifest(meta.file_name)):
                        return True
        except NotFoundError:
            unread = True  # expired while it was read (its snapshot file goes last)
    return unread and _live_in_latest(table, names)


def _live_in_latest(table: TableHandle, names: set[str]) -> bool:
    found = table.store.snapshots.read_latest(
        lambda snap: any(e.file.file_name in names for e in table.store.manifests.live_entries(snap)))
    return found is not None and found[1]


def check_rows_in_spec(table: TableHandle, entries: list[ManifestEntry], spec: dict[str, str]) -> None:
    """Raises when a partition-overwrite write has rows outside the overwritten partition."""
    if not spec:
        return
    matches = partition_ops.spec_matcher(table.store, [spec])
    for e in entries:
        if not matches(e.partition):
            raise ValidationError(
                f"Data written with overwrite={spec} to table {table.identifier} has rows outside "
                "that partition"
            )


def delete(table: TableHandle, predicate: str | Predicate) -> int | None:
    """``Table.delete``: the rows matching ``predicate`` deleted in one commit."""
    if not isinstance(predicate, (str, Predicate)) or (isinstance(predicate, str) and not predicate.strip()):
        raise ValidationError(
            f"delete of table {table.identifier} needs a predicate (SQL text or a Predicate), got "
            f"{predicate!r}; truncate() deletes every row"
        )
    committer = table.new_commit(batch_write=True)
    committer.check_maintenance()
    return delete_ops.delete_where(table.store, predicate, committer)
