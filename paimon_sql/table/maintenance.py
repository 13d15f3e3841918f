"""``table.maintenance``: compaction (full, universal, sort), rescale, manifest compaction, repairs,
orphan-file removal, consumers, ``copy`` and ``purge_files`` (Paimon's maintenance procedures,
``CompactProcedure``, ``RescaleProcedure``...). The logic is in ``ops/compact.py``, ``ops/rescale.py``,
``ops/repair.py``, ``ops/orphans.py``, ``ops/consumers.py`` and ``ops/copy.py``; every commit goes
through the table's ``TableCommit``. (The per-table runtime state of the post-commit maintenance
is ``ops/maintenance.py``'s ``TableMaintenance``.)"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paimon_sql.errors import ValidationError
from paimon_sql.fs.file_io import join
from paimon_sql.lazy import lazy_module
from paimon_sql.meta.file_store import MAIN_BRANCH
from paimon_sql.predicate import Predicate
from paimon_sql.table.branches import Branches
from paimon_sql.table.facets import Facet, TableHandle
from paimon_sql.table.partitions import partition_predicate, partition_spec
from paimon_sql.table.tags import Tags

if TYPE_CHECKING:
    from paimon_sql.ops import compact as compact_ops
    from paimon_sql.ops import consumers as consumer_ops
    from paimon_sql.ops import copy as copy_ops
    from paimon_sql.ops import expire as expire_ops
    from paimon_sql.ops import orphans as orphan_ops
    from paimon_sql.ops import partitions as partition_ops
    from paimon_sql.ops import repair as repair_ops
    from paimon_sql.ops import rescale as rescale_ops
else:
    compact_ops = lazy_module("paimon_sql.ops.compact")
    consumer_ops = lazy_module("paimon_sql.ops.consumers")
    copy_ops = lazy_module("paimon_sql.ops.copy")
    expire_ops = lazy_module("paimon_sql.ops.expire")
    orphan_ops = lazy_module("paimon_sql.ops.orphans")
    partition_ops = lazy_module("paimon_sql.ops.partitions")
    repair_ops = lazy_module("paimon_sql.ops.repair")
    rescale_ops = lazy_module("paimon_sql.ops.rescale")

PartitionSpecs = Sequence[Mapping[str, Any]]


class Maintenance(Facet):
    """The maintenance operations of one table (or branch)."""

    __slots__ = ()

    # -- compaction -------------------------------------------------------------------------
    def compact(
        self,
        partitions: PartitionSpecs | None = None,
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
            self.table._committer(table.store),
        )

    def sort_compact(
        self,
        strategy: str,
        order_by: Sequence[str],
        partitions: PartitionSpecs | None = None,
        where: str | Predicate | None = None,
        options: Mapping[str, str] | None = None,
    ) -> compact_ops.CompactTableResult:
        """Paimon's sort compaction of a bucket-unaware append table: the selected partitions
        rewritten in ``strategy`` order ('order', 'zorder', 'hilbert') of ``order_by`` and committed
        as one OVERWRITE of those partitions."""
        table, match, pred = self._scope(partitions, where, options)
        return compact_ops.sort_compact(table.store, strategy, list(order_by), pred, match,
                                        self.table._committer(table.store))

    def rescale(
        self, bucket_num: int | None = None, partitions: PartitionSpecs | None = None,
        where: str | Predicate | None = None,
    ) -> int | None:
        """Paimon's ``rescale``: rewrites the selected partitions (all by default) with ``bucket_num``
        buckets (default: the table's ``bucket``) as one OVERWRITE; returns its snapshot id."""
        _, match, pred = self._scope(partitions, where, None)
        return rescale_ops.rescale(self.table.store, bucket_num, pred, match, self.table.new_commit())

    def plan_compaction(
        self,
        partitions: PartitionSpecs | None = None,
        where: str | Predicate | None = None,
        full: bool = True,
        buckets: Iterable[int] | None = None,
        options: Mapping[str, str] | None = None,
        partition_idle_time: str | _dt.timedelta | None = None,
    ) -> tuple[TableHandle, compact_ops.CompactPlan | compact_ops.CompactTableResult]:
        """The table as compaction sees it (``options`` applied) and its plan (see ``compact``); an
        empty or append table is compacted at once and its result returned instead."""
        store = self.table.store
        table, match, pred = self._scope(partitions, where, options)
        if partition_idle_time is not None:
            idle = compact_ops.idle_partitions(store, partition_idle_time, f"compact of table {self.identifier}")
            match = (lambda p, m=match: p in idle and m(p)) if match is not None else idle.__contains__
        wanted = None
        if buckets is not None:
            wanted = set(buckets)
            if store.options.bucket <= 0:
                raise ValidationError(  # Paimon's CompactProcedure text
                    f"compact of table {self.identifier}: Specifying buckets is only supported for fixed-bucket "
                    f"tables, but the table bucket mode is {self.bucket_mode_name()}."
                )
        # an append table is compacted (and committed) at once
        return table, compact_ops.plan_compaction(table.store, pred, full, match, wanted,
                                                  self.table._committer(table.store))

    def bucket_mode_name(self) -> str:
        """Paimon's name of the table's bucket mode (``BucketMode``)."""
        store = self.table.store
        bucket = store.options.bucket
        if bucket > 0:
            return "HASH_FIXED"
        if bucket == -2:
            return "POSTPONE_MODE"
        if not store.has_primary_key:
            return "BUCKET_UNAWARE"
        schema = self.table.schema
        return "HASH_DYNAMIC" if set(schema.partition_keys) <= set(schema.primary_keys) else "KEY_DYNAMIC"

    def _scope(
        self, partitions: PartitionSpecs | None, where: str | Predicate | None, options: Mapping[str, str] | None,
    ) -> tuple[TableHandle, Callable[[bytes], bool] | None, Predicate | None]:
        """The table with ``options`` and the partition test and predicate a compaction selects by."""
        self.table.new_commit().check_maintenance()
        table = self.table.copy({**(options or {}), "write-only": "false"})
        if partitions is not None and where is not None:
            raise ValidationError(f"compact of table {self.identifier}: partitions and where cannot be used together")
        schema = self.table.schema
        match = None
        if partitions is not None:
            specs = [partition_spec(schema, self.identifier, dict(p)) for p in partitions]
            match = partition_ops.spec_matcher(self.table.store, specs)
        return table, match, partition_predicate(schema, self.identifier, where, "compact")

    def compact_manifest(self, dry_run: bool = False, options: Mapping[str, str] | None = None) -> int | None:
        """Rewrites the manifests of the latest snapshot to hold only live entries, as one COMPACT
        snapshot (Paimon's ``compact_manifest``); returns its id."""
        table = self.table.copy(options) if options else self.table
        return repair_ops.compact_manifests(table.store, dry_run, self.table._committer(table.store, maintain=False))

    # -- repairs and clean-up -----------------------------------------------------------------
    def remove_unexisting_files(self, dry_run: bool = False) -> repair_ops.RemoveUnexistingFilesResult:
        """Removes from the table (one commit) the data files its latest snapshot names that are
        gone from storage (Paimon's ``remove_unexisting_files``); ``dry_run`` only lists them."""
        committer = self.table._committer(self.table.store, maintain=False)
        committer.check_maintenance()
        return repair_ops.remove_unexisting_files(self.table.store, dry_run, committer)

    def repair_earliest_snapshot(self, snapshot_id: int) -> tuple[int, int]:
        """Points EARLIEST at ``snapshot_id`` after the snapshots before it were lost (Paimon's
        ``repair_earliest_snapshot``); returns (previous earliest, new earliest)."""
        return repair_ops.repair_earliest_snapshot(self.table.store, snapshot_id)

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
        return orphan_ops.remove_orphan_files(self.table.store, cutoff, dry_run=dry_run)

    def purge_files(self) -> None:
        """Paimon's ``purge_files``: drops every branch, tag and consumer, truncates the table, removes
        the changelogs and expires every snapshot but the (empty) latest one, with their files."""
        table = self.table
        if table.store.branch != MAIN_BRANCH:
            raise ValidationError(f"purge_files of table {self.identifier}: purge the main branch, not a branch")
        branches, tags = Branches(table), Tags(table)
        names = branches()
        if names:
            branches.delete(names)
        for tag in tags():
            tags.delete(tag)
        self.clear_consumers()
        table.truncate()
        table.file_io.delete_dir(join(table.store.meta_path, "changelog"))
        expire_ops.expire_snapshots(table.store, retain_max=1, retain_min=1, older_than=_dt.datetime.now()
                                    + _dt.timedelta(days=1), max_deletes=2**31 - 1)

    # -- consumers ------------------------------------------------------------------------------
    def reset_consumer(self, consumer_id: str, next_snapshot_id: int | None = None) -> None:
        """Sets consumer ``consumer_id``'s next snapshot (Paimon's ``reset_consumer``); None deletes it."""
        consumer_ops.reset_consumer(self.table.store, consumer_id, next_snapshot_id)

    def clear_consumers(self, including: str | None = None, excluding: str | None = None) -> list[str]:
        """Deletes the consumers whose id fully matches ``including`` (default all) and not
        ``excluding`` (Java regular expressions of Paimon's ``clear_consumers``); returns their ids."""
        return list(consumer_ops.clear_consumers(self.table.store, including, excluding).cleared)

    # -- copy -----------------------------------------------------------------------------------
    def copy_files_to(self, target: TableHandle, where: str | Predicate | None = None) -> copy_ops.CopyResult:
        """Paimon's ``copy``: this table's live files (of the partitions ``where`` selects, a
        predicate on partition columns) copied into ``target`` (a compatible table) and committed there
        as one OVERWRITE of the partitions they fill."""
        table = self.table
        if target.path == table.path:
            raise ValidationError(f"Cannot copy table {self.identifier} into itself")
        copy_ops.check_compatible(table.store, target.store)
        pred = partition_predicate(table.schema, self.identifier, where, "copy")
        committer = target.new_commit()
        committer.check_maintenance()
        return copy_ops.copy_files(table.store, target.store, pred, committer=committer)
