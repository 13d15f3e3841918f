"""Paimon's MergeTreeCompactManagerTest, ported as facts: files given as (level, min key, max key)
with size max - min + 1 and sequence number = position, three levels, a minimum file size of 2, a
compaction of the unit the strategy picks (by default every run into the highest level), and a
rewriter that turns each rewritten group into one file spanning its keys. The levels afterwards
(``Levels.all_files`` order) must be Paimon's, and so must the drop-delete decision."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import pytest

from paimon_sql.format.binary_row import decode_row
from paimon_sql.lsm.compact_plan import Rewrite, Upgrade, plan_unit
from paimon_sql.lsm.compact_strategy import CompactUnit, drop_delete
from paimon_sql.lsm.levels import Levels, LevelSortedRun
from paimon_sql.meta.data_file_meta import DataFileMeta
from tests.lsm.test_compact_strategy import CMP, KEY_TYPES, file

LMM = tuple[int, int, int]  # (level, min, max)
Strategy = Callable[[int, Sequence[LevelSortedRun]], CompactUnit]


def _full(num_levels: int, runs: Sequence[LevelSortedRun]) -> CompactUnit:
    return CompactUnit.from_level_runs(num_levels - 1, runs)


def _keys(f: DataFileMeta) -> tuple[int, int]:
    return decode_row(f.min_key, KEY_TYPES)[0], decode_row(f.max_key, KEY_TYPES)[0]


def _run(inputs: list[LMM], strategy: Strategy = _full, expected_drop_delete: bool = True) -> list[LMM]:
    files = [file(hi - lo + 1, lo, hi, level=lvl, seq=(0, i)) for i, (lvl, lo, hi) in enumerate(inputs)]
    levels = Levels(CMP, files, 3)
    unit = strategy(levels.number_of_levels(), levels.level_sorted_runs())
    dd = drop_delete(unit, levels)
    assert dd == expected_drop_delete
    before: list[DataFileMeta] = []
    after: list[DataFileMeta] = []
    for step in plan_unit(unit, dd, CMP, 2, levels.max_level):
        if isinstance(step, Upgrade):
            before.append(step.file)
            after.append(dataclasses.replace(step.file, level=step.output_level))
        else:
            assert isinstance(step, Rewrite)
            group = step.files
            lo = min(_keys(f)[0] for f in group)
            hi = max(_keys(f)[1] for f in group)
            seq = max(f.max_sequence_number for f in group)
            before += group
            after.append(file(hi - lo + 1, lo, hi, level=unit.output_level, seq=(0, seq)))
    levels.update(before, after)
    return [(f.level, *_keys(f)) for f in levels.all_files()]


def test_output_to_zero_level() -> None:
    def first_two_to_level0(num_levels: int, runs: Sequence[LevelSortedRun]) -> CompactUnit:
        return CompactUnit.from_level_runs(0, runs[:2])

    assert _run([(0, 1, 3), (0, 1, 5), (0, 1, 8)], first_two_to_level0, False) == [(0, 1, 8), (0, 1, 3)]


def test_compact_to_penultimate_layer() -> None:
    def first_two_to_level1(num_levels: int, runs: Sequence[LevelSortedRun]) -> CompactUnit:
        return CompactUnit.from_level_runs(1, runs[:2])

    assert _run([(0, 1, 3), (0, 1, 5), (2, 1, 7)], first_two_to_level1, False) == [(1, 1, 5), (2, 1, 7)]


@pytest.mark.parametrize(("inputs", "expected"), [
    pytest.param([(3, 1, 3)], [(3, 1, 3)], id="no-compaction"),
    pytest.param([(0, 1, 3), (1, 1, 5), (1, 6, 7)], [(2, 1, 5), (2, 6, 7)], id="normal"),
    pytest.param([(0, 1, 3), (0, 1, 5), (0, 6, 8)], [(2, 1, 5), (2, 6, 8)], id="upgrade"),
    pytest.param([(0, 1, 1), (0, 2, 2)], [(2, 1, 2)], id="small-files"),
    pytest.param([(0, 1, 5), (0, 6, 6), (1, 7, 8), (1, 9, 10)],
                 [(2, 1, 5), (2, 6, 6), (2, 7, 8), (2, 9, 10)], id="small-files-no-compact"),
    pytest.param([(0, 1, 5), (0, 6, 6), (1, 7, 7), (1, 9, 10)],
                 [(2, 1, 5), (2, 6, 7), (2, 9, 10)], id="small-files-cross-level"),
    pytest.param([(0, 1, 5), (0, 6, 6), (1, 1, 4), (1, 6, 8), (1, 10, 11), (2, 1, 3), (2, 4, 6)],
                 [(2, 1, 8), (2, 10, 11)], id="complex"),
    pytest.param([(0, 1, 5), (0, 6, 6), (1, 1, 4), (1, 6, 8), (1, 10, 10), (2, 1, 3), (2, 4, 6)],
                 [(2, 1, 10)], id="small-in-complex"),
])
def test_full_compaction_layouts(inputs: list[LMM], expected: list[LMM]) -> None:
    assert _run(inputs) == expected
