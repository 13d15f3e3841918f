"""What a compaction does with its unit's files (Paimon's MergeTreeCompactTask), as data: the files
are split into key-range sections (``interval_partition``); a section of several sorted runs is
rewritten; a section of one run keeps its large files by moving them to the output level
(``Upgrade``, metadata only) and rewrites its small files together with the neighbouring sections
(they are never skipped over, which would break the output's key order). A file with retractions
moving to the highest level is rewritten, so that its retractions go."""

from __future__ import annotations

from dataclasses import dataclass

from paimon_sql.lsm.compact_strategy import CompactUnit
from paimon_sql.lsm.levels import KeyComparator, SortedRun, interval_partition
from paimon_sql.meta.data_file_meta import DataFileMeta


@dataclass(frozen=True)
class Upgrade:
    file: DataFileMeta
    output_level: int


@dataclass(frozen=True)
class Rewrite:
    sections: tuple[tuple[SortedRun, ...], ...]

    @property
    def files(self) -> list[DataFileMeta]:
        return [f for section in self.sections for run in section for f in run.files]


Step = Upgrade | Rewrite


def plan_unit(
    unit: CompactUnit, drop_delete: bool, cmp: KeyComparator, min_file_size: int, max_level: int
) -> list[Step]:
    output = unit.output_level
    steps: list[Step] = []
    candidate: list[tuple[SortedRun, ...]] = []

    def upgrade(f: DataFileMeta) -> None:
        if output == max_level and (f.delete_row_count is None or f.delete_row_count > 0):
            steps.append(Rewrite(((SortedRun((f,)),),)))  # its retractions must go
        elif f.level != output:
            steps.append(Upgrade(f, output))

    def rewrite() -> None:
        if not candidate:
            return
        if len(candidate) == 1 and len(candidate[0]) == 1:
            for f in candidate[0][0].files:
                upgrade(f)
        elif not (len(candidate) == 1 and len(candidate[0]) == 0):
            steps.append(Rewrite(tuple(candidate)))
        candidate.clear()

    for section in interval_partition(unit.files, cmp):
        if len(section) > 1:
            candidate.append(tuple(section))
            continue
        for f in section[0].files:
            if f.file_size < min_file_size:
                candidate.append((SortedRun((f,)),))  # small: rewritten with its neighbours
            else:
                rewrite()
                upgrade(f)
    rewrite()
    return steps
