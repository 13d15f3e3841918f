"""The level model and universal compaction picks, on the cases of Paimon's UniversalCompactionTest,
IntervalPartitionTest and MergeTreeCompactTask (inputs and expected picks as Paimon's tests state
them), plus a property test of the LSM invariants under random writes and compactions."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_sql import Catalog, Table
from paimon_sql.errors import ValidationError
from paimon_sql.format.binary_row import encode_row
from paimon_sql.lsm.compact_plan import Rewrite, Upgrade, plan_unit
from paimon_sql.lsm.compact_strategy import (
    CompactUnit,
    EarlyFullCompaction,
    ForceUpLevel0Compaction,
    OffPeakHours,
    UniversalCompaction,
    create_unit,
    drop_delete,
    pick_full_compaction,
)
from paimon_sql.lsm.levels import KeyComparator, Levels, LevelSortedRun, SortedRun, interval_partition
from paimon_sql.meta.data_file_meta import DataFileMeta
from paimon_sql.meta.simple_stats import SimpleStats
from paimon_sql.types import BigIntType
from paimon_sql.write.bucket_writer import universal_compaction

KEY_TYPES = [BigIntType(nullable=False)]
CMP = KeyComparator(KEY_TYPES)
_EMPTY = SimpleStats(encode_row([], []), encode_row([], []), ())
_n = [0]


def file(size: int, lo: int = 0, hi: int = 0, level: int = 0, seq: tuple[int, int] = (0, 0),
         deletes: int | None = 0) -> DataFileMeta:
    _n[0] += 1
    return DataFileMeta(
        file_name=f"f{_n[0]}", file_size=size, row_count=1, min_key=encode_row([lo], KEY_TYPES),
        max_key=encode_row([hi], KEY_TYPES), key_stats=_EMPTY, value_stats=_EMPTY,
        min_sequence_number=seq[0], max_sequence_number=seq[1], schema_id=0, level=level,
        delete_row_count=deletes,
    )


def level(lvl: int, size: int) -> LevelSortedRun:
    return LevelSortedRun(lvl, SortedRun((file(size, level=lvl),)))


def level0(*sizes: int) -> list[LevelSortedRun]:
    return [level(0, s) for s in sizes]


def sizes_of(unit: CompactUnit | None) -> list[int]:
    assert unit is not None
    return [f.file_size for f in unit.files]


def uc(max_amp: int, ratio: int, trigger: int) -> UniversalCompaction:
    return UniversalCompaction(max_amp, ratio, trigger)


def test_output_level() -> None:
    runs = [level(lv, 1) for lv in (0, 0, 1, 3, 4)]
    assert [create_unit(runs, 5, n).output_level for n in (1, 2, 3, 4, 5)] == [1, 1, 2, 3, 5]


def test_pick() -> None:
    c = uc(25, 1, 3)
    assert sizes_of(c.pick(3, level0(1, 2, 3, 3))) == [1, 2, 3, 3]  # size amplification
    assert sizes_of(c.pick(4, [level(0, 1), level(1, 1), level(2, 1), level(3, 50)])) == [1, 1, 1]  # ratio
    # by file num: 3 joins by size ratio after picking by file num
    assert sizes_of(c.pick(4, [level(0, 1), level(1, 2), level(2, 3), level(3, 50)])) == [1, 2, 3]


def test_no_output_level0() -> None:
    c = uc(25, 1, 3)
    assert sizes_of(c.pick(3, [level(0, 1), level(0, 1), level(1, 1), level(2, 50)])) == [1, 1, 1]
    assert sizes_of(c.pick(3, [level(0, 1), level(0, 2), level(1, 3), level(2, 50)])) == [1, 2, 3]


def test_file_num_compaction_considers_level2() -> None:
    unit = uc(200, 1, 3).pick(3, [level(0, 10), level(0, 20), level(1, 97), level(2, 100)])
    assert unit is not None and len(unit.files) == 4 and unit.output_level == 2


def test_extreme_case_no_output_level0() -> None:
    unit = uc(200, 1, 5).pick(6, level0(1, 1, 1, 1024, 1024 * 1024))
    assert sizes_of(unit) == [1, 1, 1, 1024, 1024 * 1024] and unit is not None and unit.output_level == 5


def _append_amp(c: UniversalCompaction, sizes: list[int]) -> list[int]:
    sizes = [1, *sizes]
    unit = c.pick_for_size_amp(3, level0(*sizes))
    return [sum(sizes_of(unit))] if unit is not None else sizes


def test_size_amplification() -> None:
    c = uc(25, 0, 1)
    sizes = [1]
    seen = []
    for _ in range(17):
        sizes = _append_amp(c, sizes)
        seen.append(sizes)
    assert seen == [[2], [3], [4], [1, 4], [6], [1, 6], [8], [1, 8], [1, 1, 8], [11], [1, 11], [1, 1, 11],
                    [14], [1, 14], [1, 1, 14], [1, 1, 1, 14], [18]]


def _pick_ratio(c: UniversalCompaction, sizes: list[int]) -> list[int]:
    runs = [level(i, s) for i, s in enumerate(sizes)]
    unit = c.pick_for_size_ratio(len(sizes), runs)
    if unit is None:
        return sizes
    compact = sizes_of(unit)
    rest = list(sizes)
    for s in compact:
        rest.remove(s)
    return [sum(compact), *rest]


def test_size_ratio() -> None:
    c = uc(25, 1, 5)
    sizes = [1, 1, 1, 1]
    seen = []
    for _ in range(21):
        sizes = _pick_ratio(c, [1, *sizes])
        seen.append(sizes)
    assert seen == [
        [5], [1, 5], [1, 1, 5], [1, 1, 1, 5], [4, 5], [1, 4, 5], [1, 1, 4, 5], [3, 4, 5], [1, 3, 4, 5],
        [2, 3, 4, 5], [1, 2, 3, 4, 5], [16], [1, 16], [1, 1, 16], [1, 1, 1, 16], [4, 16], [1, 4, 16],
        [1, 1, 4, 16], [3, 4, 16], [1, 3, 4, 16], [2, 3, 4, 16],
    ]


def test_size_ratio_threshold() -> None:
    assert _pick_ratio(uc(25, 10, 2), [8, 9, 10]) == [8, 9, 10]
    assert _pick_ratio(uc(25, 20, 2), [8, 9, 10]) == [27]


def test_optimized_compaction_interval() -> None:
    """Paimon's testOptimizedCompactionInterval."""
    now = [0]
    early = EarlyFullCompaction(1000, None, None, clock=lambda: now[0])
    c = UniversalCompaction(100, 1, 3, early)
    runs = [level(0, 1), level(1, 3), level(2, 5)]
    assert sizes_of(c.pick(3, runs)) == [1, 3, 5]  # a new writer compacts fully first
    now[0] = 1001
    assert sizes_of(c.pick(3, runs)) == [1, 3, 5]
    assert c.pick(3, runs) is None
    now[0] = 1500
    assert sizes_of(c.pick(3, [level(0, 3), level(1, 3), level(2, 5)])) == [3, 3, 5]  # size amplification
    now[0] = 2001
    assert c.pick(3, runs) is None  # the size amplification pick counted as a full compaction


def test_total_size_threshold() -> None:
    """Paimon's testTotalSizeThreshold."""
    c = UniversalCompaction(100, 1, 3, EarlyFullCompaction(None, 10, None))
    assert sizes_of(c.pick(3, [level(0, 1), level(1, 3), level(2, 5)])) == [1, 3, 5]
    assert c.pick(3, [level(0, 2), level(1, 6), level(2, 10)]) is None
    assert c.pick(3, [level(3, 5)]) is None


def test_incremental_size_threshold() -> None:
    c = UniversalCompaction(100, 1, 5, EarlyFullCompaction(None, None, 4))
    assert sizes_of(c.pick(3, [level(0, 2), level(1, 3), level(2, 50)])) == [2, 3, 50]
    assert c.pick(3, [level(0, 1), level(1, 3), level(2, 50)]) is None


def test_force_pick_level0() -> None:
    c = uc(25, 1, 3)
    unit = c.force_pick_level0(3, level0(1, 2, 2, 2))
    assert sizes_of(unit) == [1, 2, 2, 2] and unit is not None and unit.output_level == 2
    unit = c.force_pick_level0(3, [level(0, 1), level(2, 2)])
    assert sizes_of(unit) == [1] and unit is not None and unit.output_level == 1


def test_force_up_level0_compaction() -> None:
    """Paimon's ForceUpLevel0CompactionTest (testForceCompaction0, ...ConsidersLevel2)."""
    c = ForceUpLevel0Compaction(uc(200, 1, 5))
    out = c.pick(3, [level(0, 1), level(0, 1)])
    assert out is not None and out.output_level == 2
    out = c.pick(3, [level(0, 1), level(1, 10)])
    assert out is not None and out.output_level == 2
    out = c.pick(3, [level(0, 1), level(0, 5), level(2, 10)])
    assert out is not None and out.output_level == 1
    assert c.pick(3, [level(2, 10)]) is None
    out = c.pick(3, [level(0, 1), level(0, 5), level(0, 10), level(0, 20)])
    assert out is not None and out.output_level == 2
    out = c.pick(3, [level(0, 1), level(1, 99), level(2, 100)])
    assert out is not None and len(out.files) == 3 and out.output_level == 2
    out = c.pick(3, [level(0, 1), level(1, 99), level(2, 102)])
    assert out is not None and len(out.files) == 2 and out.output_level == 1


def test_full_compaction() -> None:
    assert pick_full_compaction(3, []) is None
    assert pick_full_compaction(3, [level(2, 5)]) is None  # one run at the highest level already
    unit = pick_full_compaction(3, [level(0, 1), level(2, 5)])
    assert unit is not None and unit.output_level == 2 and sizes_of(unit) == [1, 5]
    # one run at the highest level: its files with a deletion vector are rewritten one by one
    top = level(2, 7)
    unit = pick_full_compaction(3, [top], {top.run.files[0].file_name})
    assert unit is not None and unit.file_rewrite and sizes_of(unit) == [7]


def test_interval_partition() -> None:
    # Paimon's IntervalPartitionTest: [1,3] [2,5] [6,8] [7,9] [10,12] -> 3 sections
    fs = [file(1, 1, 3), file(1, 2, 5), file(1, 6, 8), file(1, 7, 9), file(1, 10, 12)]
    sections = interval_partition(fs, CMP)
    shapes = [sorted([(CMP.key(f.min_key)[0][1], CMP.key(f.max_key)[0][1]) for f in r.files] for r in s)
              for s in sections]
    assert shapes == [[[(1, 3)], [(2, 5)]], [[(6, 8)], [(7, 9)]], [[(10, 12)]]]
    # files that chain without overlap form one run of one section each
    fs = [file(1, 0, 9), file(1, 10, 19), file(1, 20, 29)]
    assert [len(s) for s in interval_partition(fs, CMP)] == [1, 1, 1]


def _partition_shape(spec: str) -> list[list[tuple[tuple[int, int], ...]]]:
    fs = [file(1, int(a), int(b)) for a, b in (iv.strip(" []").split(",") for iv in spec.split("],"))]
    out = []
    for section in interval_partition(fs, CMP):
        runs = [tuple((CMP.key(f.min_key)[0][1], CMP.key(f.max_key)[0][1]) for f in r.files) for r in section]
        out.append(sorted(runs))
    return out


def test_interval_partition_paimon_cases() -> None:
    """Paimon's IntervalPartitionTest: same min key, same max key, section partitioning."""
    assert _partition_shape("[100, 200], [100, 400], [100, 300], [100, 500]") == [
        [((100, 200),), ((100, 300),), ((100, 400),), ((100, 500),)]]
    assert _partition_shape("[100, 500], [300, 500], [200, 500], [400, 500]") == [
        [((100, 500),), ((200, 500),), ((300, 500),), ((400, 500),)]]
    assert _partition_shape("[0, 9], [5, 7], [9, 15], [16, 22], [16, 28], [24, 32]") == [
        [((0, 9),), ((5, 7), (9, 15))], [((16, 22), (24, 32)), ((16, 28),)]]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(0, 999), min_size=2, max_size=20, unique=True), min_size=1, max_size=10))
def test_interval_partition_never_needs_more_runs_than_given(runs: list[list[int]]) -> None:
    """Paimon's randomTest: disjoint intervals from each of N sorted runs partition into sections
    of at most N runs, each a valid sorted run."""
    fs = []
    for points in runs:
        pts = sorted(points)[: len(points) // 2 * 2]
        fs += [file(1, pts[j], pts[j + 1]) for j in range(0, len(pts), 2)]
    for section in interval_partition(fs, CMP):
        assert len(section) <= len(runs)
        for r in section:
            SortedRun.from_unsorted(r.files, CMP)  # raises if the run's files overlap


def test_key_comparator_orders_like_java() -> None:
    from paimon_sql.types import DoubleType, VarCharType

    c = KeyComparator([DoubleType(nullable=False)])
    vals = [float("nan"), 1.0, -0.0, 0.0, float("-inf"), float("inf"), -2.5]
    ordered = sorted(vals, key=lambda v: c.key(encode_row([v], [DoubleType(nullable=False)])))
    assert [repr(v) for v in ordered] == ["-inf", "-2.5", "-0.0", "0.0", "1.0", "inf", "nan"]
    s = KeyComparator([VarCharType(100, nullable=False)])
    words = ["b", "a", "é", "z", "ab"]
    enc = {w: encode_row([w], [VarCharType(100, nullable=False)]) for w in words}
    assert sorted(words, key=lambda w: s.key(enc[w])) == sorted(words, key=lambda w: w.encode())


def test_plan_upgrades_large_files_and_rewrites_small_ones() -> None:
    big, small = 1000, 10
    a = file(big, 0, 9, level=0, seq=(5, 5))
    b = file(small, 10, 19, level=0, seq=(6, 6))
    c = file(small, 15, 25, level=1, seq=(1, 1))
    d = file(big, 30, 39, level=1, seq=(2, 2))
    unit = CompactUnit(2, (a, b, c, d))
    steps = plan_unit(unit, True, CMP, 100, max_level=3)
    assert steps == [Upgrade(a, 2), Rewrite(((SortedRun((b,)), SortedRun((c,))),)), Upgrade(d, 2)]
    # to the highest level a large file with retractions is rewritten (they must go), not upgraded
    e = file(big, 0, 9, level=1, deletes=3)
    steps = plan_unit(CompactUnit(3, (e,)), True, CMP, 100, max_level=3)
    assert [type(s) for s in steps] == [Rewrite]
    f = file(big, 0, 9, level=1, deletes=0)
    assert plan_unit(CompactUnit(3, (f,)), True, CMP, 100, max_level=3) == [Upgrade(f, 3)]


def test_levels_order_and_drop_delete() -> None:
    f1 = file(1, 0, 5, level=0, seq=(0, 3))
    f2 = file(1, 0, 5, level=0, seq=(4, 8))
    f3 = file(1, 0, 5, level=2, seq=(0, 0))
    lv = Levels(CMP, [f1, f2, f3], 3)
    assert [r.run.files[0].file_name for r in lv.level_sorted_runs()] == [f2.file_name, f1.file_name, f3.file_name]
    assert lv.number_of_sorted_runs() == 3 and lv.non_empty_highest_level() == 2
    assert drop_delete(CompactUnit(2, (f1, f2, f3)), lv)
    assert not drop_delete(CompactUnit(1, (f1, f2)), lv)  # level 2 holds older data
    assert not drop_delete(CompactUnit(0, (f1,)), lv)
    # restoring files at a level beyond num-levels grows the levels
    assert Levels(CMP, [file(1, level=6)], 3).number_of_levels() == 7


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 200), st.integers(1, 40), st.integers(1, 500)), min_size=1, max_size=40),
       st.integers(2, 6))
def test_lsm_invariants_under_random_writes(writes: Sequence[tuple[int, int, int]], trigger: int) -> None:
    """Level 0 files are added; after each, universal compaction runs (a rewrite becomes one file of
    the merged key range; upgrades move files). Higher levels never overlap, the runs stay at or
    below the stop trigger, and drop-delete only happens at the highest non-empty level."""
    c = UniversalCompaction(200, 1, trigger)
    lv = Levels(CMP, [], trigger + 1)
    seq = 0
    for lo, width, size in writes:
        seq += 1
        lv.update([], [file(size, lo, lo + width, level=0, seq=(seq, seq))])
        while True:
            unit = c.pick(lv.number_of_levels(), lv.level_sorted_runs())
            if unit is None or (len(unit.files) == 1 and unit.files[0].level == unit.output_level):
                break
            drop = drop_delete(unit, lv)
            if drop:
                assert unit.output_level >= lv.non_empty_highest_level()
            before, after = [], []
            for step in plan_unit(unit, drop, CMP, 50, lv.max_level):
                if isinstance(step, Upgrade):
                    before.append(step.file)
                    after.append(DataFileMeta(**{**step.file.__dict__, "level": step.output_level}))
                else:
                    fs = step.files
                    before += fs
                    lo_k = min(CMP.key(f.min_key)[0][1] for f in fs)
                    hi_k = max(CMP.key(f.max_key)[0][1] for f in fs)
                    after.append(file(sum(f.file_size for f in fs), lo_k, hi_k, level=unit.output_level,
                                      seq=(min(f.min_sequence_number for f in fs),
                                           max(f.max_sequence_number for f in fs))))
            lv.update(before, after)  # raises if a level's files overlap
        assert lv.number_of_sorted_runs() <= trigger + 1
    assert sum(len(r.run.files) for r in lv.level_sorted_runs()) == len(lv.all_files())


def test_off_peak_hours() -> None:
    """Paimon's OffPeakHoursTest, and the off-peak ratio added to the size ratio (the pick of
    test_size_ratio_threshold with ratio 10 becomes the pick of ratio 20 off-peak)."""
    assert OffPeakHours.of(-1, -1, 10) is None and OffPeakHours.of(5, 5, 10) is None
    assert OffPeakHours.of(2, -1, 10) is None and OffPeakHours.of(-1, 2, 10) is None
    wrap = OffPeakHours.of(22, 6, 10)
    assert wrap is not None and wrap.current_ratio(23) == 10 and wrap.current_ratio(7) == 0
    assert [wrap.current_ratio(h) for h in (21, 22, 0, 5, 6)] == [0, 10, 10, 10, 0]
    normal = OffPeakHours.of(2, 8, 10)
    assert normal is not None and [normal.current_ratio(h) for h in (1, 2, 7, 8)] == [0, 10, 10, 0]
    for hour, picked in ((12, [8, 9, 10]), (3, [27])):
        c = UniversalCompaction(25, 10, 2, None, normal, lambda h=hour: h)  # type: ignore[misc]
        assert _pick_ratio(c, [8, 9, 10]) == picked


def test_off_peak_options_reach_the_writer(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", pa.schema([pa.field("k", pa.int64(), nullable=False)]), primary_keys=["k"],
                             options={"bucket": "1", "compaction.offpeak.start.hour": "22",
                                      "compaction.offpeak.end.hour": "6", "compaction.offpeak-ratio": "15"})
    assert isinstance(t, Table)
    assert universal_compaction(t.store).off_peak == OffPeakHours(22, 6, 15)
    with pytest.raises(ValidationError, match="compaction.offpeak.start.hour"):
        catalog.create_table("db.bad", pa.schema([("k", pa.int64())]), options={"compaction.offpeak.start.hour": "24"})
