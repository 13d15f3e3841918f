"""Which sorted runs of a bucket a compaction merges, and into which level: Paimon's universal
compaction (``UniversalCompaction``), its full compaction (``CompactStrategy.pickFullCompaction``)
and the drop-delete rule of ``MergeTreeCompactManager``. Pure functions of the runs."""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from paimon_sql.lsm.levels import Levels, LevelSortedRun
from paimon_sql.meta.data_file_meta import DataFileMeta


@dataclass(frozen=True)
class CompactUnit:
    output_level: int
    files: tuple[DataFileMeta, ...]
    # the files are rewritten one by one (no merge; Paimon's FileRewriteCompactTask)
    file_rewrite: bool = False

    @staticmethod
    def from_level_runs(output_level: int, runs: Sequence[LevelSortedRun]) -> CompactUnit:
        return CompactUnit(output_level, tuple(f for r in runs for f in r.run.files))


class EarlyFullCompaction:
    """Paimon's EarlyFullCompaction: a full compaction before universal compaction's own picks when
    the last one is older than ``interval_ms`` (``compaction.optimization-interval``; a new writer
    has none), when all runs together are smaller than ``total_size_threshold``
    (``compaction.total-size-threshold``) or the runs above the highest level exceed
    ``incremental_size_threshold`` (``compaction.incremental-size-threshold``)."""

    def __init__(
        self, interval_ms: int | None, total_size_threshold: int | None, incremental_size_threshold: int | None,
        clock: Callable[[], int] | None = None,
    ) -> None:
        self.interval_ms = interval_ms
        self.total_size_threshold = total_size_threshold
        self.incremental_size_threshold = incremental_size_threshold
        self.clock = clock or (lambda: int(time.time() * 1000))
        self.last_full_compaction: int | None = None

    def try_full_compact(self, num_levels: int, runs: Sequence[LevelSortedRun]) -> CompactUnit | None:
        if len(runs) == 1:
            return None
        max_level = num_levels - 1
        due = (
            (self.interval_ms is not None and (
                self.last_full_compaction is None or self.clock() - self.last_full_compaction > self.interval_ms))
            or (self.total_size_threshold is not None
                and sum(r.run.total_size for r in runs) < self.total_size_threshold)
            or (self.incremental_size_threshold is not None
                and sum(r.run.total_size for r in runs if r.level != max_level) > self.incremental_size_threshold)
        )
        if not due:
            return None
        self.updated()
        return CompactUnit.from_level_runs(max_level, runs)

    def updated(self) -> None:
        self.last_full_compaction = self.clock()


@dataclass(frozen=True)
class OffPeakHours:
    """``compaction.offpeak.start.hour`` / ``.end.hour`` / ``compaction.offpeak-ratio`` (Paimon's
    OffPeakHours): within the hours (local time; the range may wrap past midnight) the size ratio
    grows by ``ratio``."""

    start: int
    end: int
    ratio: int

    @staticmethod
    def of(start: int, end: int, ratio: int) -> OffPeakHours | None:
        return None if start == -1 or end == -1 or start == end else OffPeakHours(start, end, ratio)

    def current_ratio(self, hour: int) -> int:
        off_peak = self.start <= hour < self.end if self.start <= self.end else hour < self.end or self.start <= hour
        return self.ratio if off_peak else 0


def _local_hour() -> int:
    return _dt.datetime.now().hour


@dataclass(frozen=True)
class UniversalCompaction:
    """RocksDB-style universal compaction as Paimon picks it: first by size amplification (all runs
    into the highest level when the newer runs exceed ``max_size_amp`` percent of the oldest), then
    by size ratio (the newest runs while each next run is not much larger than them together), then
    by the number of runs (more than ``num_run_compaction_trigger``: the oldest runs beyond it)."""

    max_size_amp: int
    size_ratio: int
    num_run_compaction_trigger: int
    early_full: EarlyFullCompaction | None = None
    off_peak: OffPeakHours | None = None
    hour: Callable[[], int] = _local_hour

    def pick(self, num_levels: int, runs: Sequence[LevelSortedRun]) -> CompactUnit | None:
        max_level = num_levels - 1
        if self.early_full is not None:
            unit = self.early_full.try_full_compact(num_levels, runs)
            if unit is not None:
                return unit
        unit = self.pick_for_size_amp(max_level, runs)
        if unit is not None:
            return unit
        unit = self.pick_for_size_ratio(max_level, runs)
        if unit is not None:
            return unit
        if len(runs) > self.num_run_compaction_trigger:
            candidates = len(runs) - self.num_run_compaction_trigger + 1
            return self._pick_for_size_ratio(max_level, runs, candidates)
        return None

    def force_pick_level0(self, num_levels: int, runs: Sequence[LevelSortedRun]) -> CompactUnit | None:
        """Every level-0 run (and what size ratio adds), never into level 0 (ForceUpLevel0)."""
        count = 0
        for r in runs:
            if r.level > 0:
                break
            count += 1
        return None if count == 0 else self._pick_for_size_ratio(num_levels - 1, runs, count, force=True)

    def pick_for_size_amp(self, max_level: int, runs: Sequence[LevelSortedRun]) -> CompactUnit | None:
        if len(runs) < self.num_run_compaction_trigger:
            return None
        candidate = sum(r.run.total_size for r in runs[:-1])
        earliest = runs[-1].run.total_size
        if candidate * 100 > self.max_size_amp * earliest:
            if self.early_full is not None:
                self.early_full.updated()
            return CompactUnit.from_level_runs(max_level, runs)
        return None

    def pick_for_size_ratio(self, max_level: int, runs: Sequence[LevelSortedRun]) -> CompactUnit | None:
        if len(runs) < self.num_run_compaction_trigger:
            return None
        return self._pick_for_size_ratio(max_level, runs, 1)

    def _pick_for_size_ratio(
        self, max_level: int, runs: Sequence[LevelSortedRun], count: int, force: bool = False
    ) -> CompactUnit | None:
        size = sum(r.run.total_size for r in runs[:count])
        triggered = force or count > 1
        ratio = self.size_ratio + (self.off_peak.current_ratio(self.hour()) if self.off_peak is not None else 0)
        for nxt in runs[count:]:
            if size * (100.0 + ratio) / 100.0 < nxt.run.total_size:
                if not triggered or nxt.level > 1:
                    break
            size += nxt.run.total_size
            count += 1
            triggered = True
        return create_unit(runs, max_level, count) if triggered else None


@dataclass(frozen=True)
class ForceUpLevel0Compaction:
    """Universal compaction, and when it picks nothing, every level-0 run up out of level 0 (Paimon's
    ForceUpLevel0Compaction, for tables that need lookup). ``max_interval`` (``lookup-compact`` =
    gentle): level 0 is forced up only at every ``max_interval``-th pick that universal compaction
    left empty."""

    universal: UniversalCompaction
    max_interval: int | None = None
    _count: list[int] = field(default_factory=lambda: [0], compare=False)

    def pick(self, num_levels: int, runs: Sequence[LevelSortedRun]) -> CompactUnit | None:
        unit = self.universal.pick(num_levels, runs)
        if unit is not None:
            return unit
        if self.max_interval is None:
            return self.universal.force_pick_level0(num_levels, runs)
        self._count[0] += 1
        if self._count[0] == self.max_interval:
            self._count[0] = 0
            return self.universal.force_pick_level0(num_levels, runs)
        return None


def create_unit(runs: Sequence[LevelSortedRun], max_level: int, count: int) -> CompactUnit:
    """The first ``count`` runs, output one level below the next run's (never level 0: then more
    runs join until one above level 0 does); all runs go to the highest level."""
    if count == len(runs):
        output = max_level
    else:
        output = max(0, runs[count].level - 1)
    if output == 0:
        for nxt in runs[count:]:
            count += 1
            if nxt.level != 0:
                output = nxt.level
                break
    if count == len(runs):
        output = max_level
    return CompactUnit.from_level_runs(output, runs[:count])


def pick_full_compaction(
    num_levels: int, runs: Sequence[LevelSortedRun], with_deletion_vector: Collection[str] = (),
) -> CompactUnit | None:
    """Everything into the highest level. When the bucket is one run there already: nothing, or
    (Paimon's rule) the files of it that have a deletion vector, each rewritten on its own."""
    max_level = num_levels - 1
    if not runs:
        return None
    if len(runs) == 1 and runs[0].level == max_level:
        files = tuple(f for f in runs[0].run.files if f.file_name in with_deletion_vector)
        return CompactUnit(max_level, files, file_rewrite=True) if files else None
    return CompactUnit.from_level_runs(max_level, runs)


def drop_delete(unit: CompactUnit, levels: Levels) -> bool:
    """Retractions may go when the output is the oldest data of the bucket: its level is above 0 and
    no non-empty level is higher."""
    return unit.output_level != 0 and unit.output_level >= levels.non_empty_highest_level()
