"""The LSM of one (partition, bucket) of a primary-key table while a write runs (Paimon's
MergeTreeWriter with its MergeTreeCompactManager, run synchronously).

It is restored from the bucket's files in the writer's base snapshot, receives the level-0 files
the write buffer flushes, and compacts: after a flush only when the bucket holds more sorted runs
than ``num-sorted-run.stop-trigger`` (where Paimon's writer waits for its background compaction),
and once when the write prepares its commit (where Paimon's batch writer waits for it). What it
hands to the commit is Paimon's CommitIncrement: the new files, and the files compaction removed
and added (an upgraded file is removed at its old level and added at the new one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from paimon_sql.lsm.changelog import needs_lookup
from paimon_sql.lsm.compact_plan import Rewrite, Upgrade, plan_unit
from paimon_sql.lsm.compact_strategy import (
    CompactUnit,
    EarlyFullCompaction,
    ForceUpLevel0Compaction,
    OffPeakHours,
    UniversalCompaction,
    drop_delete,
    pick_full_compaction,
)
from paimon_sql.lsm.levels import KeyComparator, Levels, SortedRun
from paimon_sql.meta.data_file_meta import DataFileMeta
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.options.validation import lookup_compact_max_interval
from paimon_sql.options.write import (
    COMPACTION_OFFPEAK_END_HOUR,
    COMPACTION_OFFPEAK_RATIO,
    COMPACTION_OFFPEAK_START_HOUR,
)
from paimon_sql.write.compact_rewriter import CompactResult, CompactRewriter
from paimon_sql.write.deletion_vectors import BucketDeletionVectors
from paimon_sql.write.file_writer import FileNamer


@dataclass
class BucketIncrement:
    """What one bucket's writer hands to the commit."""

    new_files: list[DataFileMeta] = field(default_factory=list)
    compact_before: list[DataFileMeta] = field(default_factory=list)
    compact_after: list[DataFileMeta] = field(default_factory=list)
    # changelog files of the written records (changelog-producer input) and of the compactions
    # (lookup, full-compaction): Paimon's newFilesIncrement / compactIncrement changelogFiles
    new_changelog: list[DataFileMeta] = field(default_factory=list)
    compact_changelog: list[DataFileMeta] = field(default_factory=list)


def universal_compaction(store: FileStore, restored: Sequence[DataFileMeta] = ()) -> UniversalCompaction:
    opts = store.options
    interval = opts.compaction_optimization_interval_ms
    total, incremental = opts.compaction_total_size_threshold, opts.compaction_incremental_size_threshold
    early = None
    if interval is not None or total is not None or incremental is not None:
        early = EarlyFullCompaction(interval, total, incremental)
        # Paimon's estimateLastFullCompactionTime: the newest file at the highest level
        top = opts.num_levels - 1
        times = [t for f in restored if f.level == top and (t := f.creation_time_epoch_ms) is not None]
        early.last_full_compaction = max(times) if times else None
    return UniversalCompaction(
        opts.compaction_max_size_amplification_percent,
        opts.compaction_size_ratio,
        opts.num_sorted_run_compaction_trigger,
        early,
        OffPeakHours.of(opts.get(COMPACTION_OFFPEAK_START_HOUR), opts.get(COMPACTION_OFFPEAK_END_HOUR),
                        opts.get(COMPACTION_OFFPEAK_RATIO)),
    )


class BucketWriter:
    def __init__(
        self, store: FileStore, partition: bytes, partition_values: Sequence[object], bucket: int,
        total_buckets: int, restored: Sequence[DataFileMeta], namer: FileNamer, base: Snapshot | None = None,
        ignore_previous_files: bool = False,
    ) -> None:
        self.store = store
        opts = store.options
        self.key_cmp = KeyComparator([k.type for k in store.key_fields])
        self.levels = Levels(self.key_cmp, list(restored), opts.num_levels)
        # deletion-vector tables (merge-on-write): the bucket's vectors, extended by compaction
        self.dvs = BucketDeletionVectors(store, partition, bucket, base) if opts.deletion_vectors_enabled else None
        self.rewriter = CompactRewriter(store, partition, partition_values, bucket, total_buckets, namer, self.dvs)
        if ignore_previous_files:  # an overwrite: lookup has no older rows to compare with (as Paimon)
            self.rewriter.lookup_changelog = False
        universal = universal_compaction(store, restored)
        # tables that need lookup (Paimon's needLookup: first-row, deletion vectors, changelog-producer
        # lookup): level-0 files move up at once and their keys are looked up in older levels
        self.lookup = needs_lookup(opts)
        # lookup-compact = gentle: level 0 is forced up only every lookup-compact.max-interval picks
        self.strategy: UniversalCompaction | ForceUpLevel0Compaction = (
            ForceUpLevel0Compaction(universal, lookup_compact_max_interval(opts, store.name)) if self.lookup
            else universal
        )
        self.stop_trigger = opts.num_sorted_run_stop_trigger
        self.min_file_size = opts.compaction_file_size(True)
        self.new_files: list[DataFileMeta] = []
        self.compact_before: dict[str, DataFileMeta] = {}
        self.compact_after: list[DataFileMeta] = []
        self.new_changelog: list[DataFileMeta] = []
        self.compact_changelog: list[DataFileMeta] = []
        self.written: list[str] = []  # files compaction wrote (deleted if the write is aborted)
        self.compactions = 0

    def add_new_file(self, file: DataFileMeta) -> None:
        self.new_files.append(file)
        self.levels.update([], [file])

    @property
    def should_wait(self) -> bool:
        """More sorted runs than the stop trigger: the write waits for (here: runs) a compaction."""
        return self.levels.number_of_sorted_runs() > self.stop_trigger

    def compact(self, full: bool = False) -> bool:
        """Picks and runs one compaction (full: everything into the highest level). True if one ran."""
        runs = self.levels.level_sorted_runs()
        unit: CompactUnit | None
        if full:
            with_dv = set(self.dvs.vectors) if self.dvs is not None else set()
            unit = pick_full_compaction(self.levels.number_of_levels(), runs, with_dv)
        else:
            unit = self.strategy.pick(self.levels.number_of_levels(), runs)
            if unit is not None and (not unit.files or (len(unit.files) == 1 and unit.files[0].level == unit.output_level)):
                unit = None
        if unit is None or not unit.files:
            return False
        # with deletion vectors the older rows of a key are deleted where they lie: deletes can go
        dropping = drop_delete(unit, self.levels) or (self.dvs is not None and unit.output_level != 0)
        lookup: list[DataFileMeta] = []
        if self.lookup:  # the older levels, looked up (see CompactRewriter.rewrite)
            picked = {f.file_name for f in unit.files}
            lookup = [f for f in self.levels.all_files() if f.level > 0 and f.file_name not in picked]
        result = CompactResult()
        # file_rewrite: each file rewritten on its own (its deletion vector applied)
        steps = [Rewrite(((SortedRun((f,)),),)) for f in unit.files] if unit.file_rewrite else \
            plan_unit(unit, dropping, self.key_cmp, self.min_file_size, self.levels.max_level)
        try:
            for step in steps:
                if isinstance(step, Upgrade):
                    how = self.rewriter.upgrade_strategy(step.output_level, step.file, self.lookup)
                    if how == "upgrade":
                        result.merge(self.rewriter.upgrade(step.output_level, step.file))
                    else:  # its changelog written ('changelog'), or looked up and rewritten too
                        result.merge(self.rewriter.rewrite(unit.output_level, dropping, [step.file], lookup,
                                                           data=how == "rewrite"))
                else:
                    assert isinstance(step, Rewrite)
                    result.merge(self.rewriter.rewrite(unit.output_level, dropping, step.files, lookup))
        except BaseException:
            for p in result.written:
                self.store.file_io.delete_quietly(p)
            raise
        self.levels.update(result.before, result.after)
        self._record(result)
        self.compactions += 1
        return True

    def compact_while_waiting(self) -> None:
        """Compacts until the bucket is back under the stop trigger (or nothing can be picked)."""
        compacted = True
        while compacted and self.should_wait:
            compacted = self.compact()

    def _record(self, result: CompactResult) -> None:
        """Paimon's MergeTreeWriter.updateCompactResult: a file this write's compaction produced and a
        later compaction removed is an intermediate file: it leaves the increment and is deleted
        (unless an upgrade made it the same file as one the increment removes or adds)."""
        self.written += result.written
        after_names = {f.file_name for f in result.after}
        for f in result.before:
            if f in self.compact_after:
                self.compact_after.remove(f)
                if f.file_name not in self.compact_before and f.file_name not in after_names:
                    self.store.file_io.delete_quietly(self.store.data_file_path(
                        self.rewriter.split.bucket_dir, f.file_name, f.external_path))
            else:
                self.compact_before[f.file_name] = f
        self.compact_after += result.after
        self.compact_changelog += result.changelog

    def increment(self) -> BucketIncrement:
        return BucketIncrement(list(self.new_files), list(self.compact_before.values()), list(self.compact_after),
                               list(self.new_changelog), list(self.compact_changelog))
