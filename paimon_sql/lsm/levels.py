"""The LSM of one bucket: level 0 (one sorted run per file) and levels 1..n-1 (one sorted run each),
as Paimon's ``Levels`` / ``SortedRun`` / ``LevelSortedRun`` model it, plus the key order of files
(``KeyComparator``) and the key-range sections of a set of files (Paimon's ``IntervalPartition``).

Per-file work only (a bucket holds files, not rows): keys are decoded from the files' min/max key
BinaryRows once and cached.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from paimon_sql.errors import PaimonError
from paimon_sql.format.binary_row import decode_row
from paimon_sql.meta.data_file_meta import DataFileMeta
from paimon_sql.types import DataType


def _float_order(v: float) -> int:
    """A double as an int that orders like Java's Double.compare (NaN last, -0.0 < 0.0)."""
    if math.isnan(v):
        return 0x7FF8000000000000
    bits = struct.unpack(">q", struct.pack(">d", v))[0]
    return bits ^ 0x7FFFFFFFFFFFFFFF if bits < 0 else bits


def _order_value(v: Any) -> Any:
    if isinstance(v, float):
        return _float_order(v)
    return v


class KeyComparator:
    """Orders primary-key BinaryRows as Paimon's key comparator does: field by field, numbers by
    value, FLOAT/DOUBLE like Java's Double.compare, strings by code point (= UTF-8 bytes), binary by
    unsigned bytes, decimals, dates and timestamps by value; nulls first."""

    def __init__(self, types: Sequence[DataType]) -> None:
        self.types = list(types)
        self._cache: dict[bytes, tuple[Any, ...]] = {}

    def key(self, blob: bytes) -> tuple[Any, ...]:
        k = self._cache.get(blob)
        if k is None:
            values = decode_row(blob, self.types)
            k = tuple((0, None) if v is None else (1, _order_value(v)) for v in values)
            self._cache[blob] = k
        return k

    def compare(self, a: bytes, b: bytes) -> int:
        ka, kb = self.key(a), self.key(b)
        return (ka > kb) - (ka < kb)


@dataclass(frozen=True)
class SortedRun:
    """Files with disjoint key ranges, ordered by key."""

    files: tuple[DataFileMeta, ...]

    @property
    def total_size(self) -> int:
        return sum(f.file_size for f in self.files)

    @staticmethod
    def from_unsorted(files: Iterable[DataFileMeta], cmp: KeyComparator) -> SortedRun:
        ordered = sorted(files, key=lambda f: cmp.key(f.min_key))
        for prev, cur in zip(ordered, ordered[1:]):
            if cmp.compare(cur.min_key, prev.max_key) <= 0:
                raise PaimonError(
                    f"Files {prev.file_name} and {cur.file_name} of one LSM level overlap in their key "
                    "ranges; the level is not a sorted run"
                )
        return SortedRun(tuple(ordered))


@dataclass(frozen=True)
class LevelSortedRun:
    level: int
    run: SortedRun


def _level0_order(f: DataFileMeta) -> tuple[int, int, int, str]:
    # newest first (larger max sequence number), then Paimon's tie-breakers
    return (-f.max_sequence_number, f.min_sequence_number, f.creation_time_ms or 0, f.file_name)


class Levels:
    """The files of one bucket by level. Restoring puts each file at its recorded level; the number
    of levels is at least ``num_levels`` and covers the highest recorded level."""

    def __init__(self, cmp: KeyComparator, files: Sequence[DataFileMeta], num_levels: int) -> None:
        self.cmp = cmp
        n = max(num_levels, max((f.level for f in files), default=-1) + 1)
        if n < 2:
            raise PaimonError("Number of levels must be at least 2")
        self.level0: list[DataFileMeta] = []
        self.levels: list[SortedRun] = [SortedRun(()) for _ in range(n - 1)]
        self.update([], list(files))

    def number_of_levels(self) -> int:
        return len(self.levels) + 1

    @property
    def max_level(self) -> int:
        return len(self.levels)

    def number_of_sorted_runs(self) -> int:
        return len(self.level0) + sum(1 for r in self.levels if r.files)

    def non_empty_highest_level(self) -> int:
        for i in range(len(self.levels) - 1, -1, -1):
            if self.levels[i].files:
                return i + 1
        return 0 if self.level0 else -1

    def level_sorted_runs(self) -> list[LevelSortedRun]:
        runs = [LevelSortedRun(0, SortedRun((f,))) for f in self.level0]
        runs += [LevelSortedRun(i + 1, r) for i, r in enumerate(self.levels) if r.files]
        return runs

    def all_files(self) -> list[DataFileMeta]:
        return [f for r in self.level_sorted_runs() for f in r.run.files]

    def update(self, before: Sequence[DataFileMeta], after: Sequence[DataFileMeta]) -> None:
        """Removes ``before`` and adds ``after``, each file at its level."""
        for level in sorted({f.level for f in before} | {f.level for f in after}):
            rm = [f for f in before if f.level == level]
            add = [f for f in after if f.level == level]
            if level == 0:
                names = {f.file_name for f in rm}
                kept = [f for f in self.level0 if f.file_name not in names]
                self.level0 = sorted(kept + add, key=_level0_order)
            else:
                if level > self.max_level:
                    self.levels += [SortedRun(()) for _ in range(level - self.max_level)]
                names = {f.file_name for f in rm}
                files = [f for f in self.levels[level - 1].files if f.file_name not in names] + add
                self.levels[level - 1] = SortedRun.from_unsorted(files, self.cmp)


def interval_partition(files: Sequence[DataFileMeta], cmp: KeyComparator) -> list[list[SortedRun]]:
    """Paimon's IntervalPartition: ``files`` split into sections whose key ranges do not overlap
    (in key order), each section as few sorted runs as possible (files packed greedily, the run
    with the smallest max key first)."""
    ordered = sorted(files, key=lambda f: (cmp.key(f.min_key), cmp.key(f.max_key)))
    out: list[list[SortedRun]] = []
    section: list[DataFileMeta] = []
    bound: bytes | None = None
    for f in ordered:
        if section and bound is not None and cmp.compare(f.min_key, bound) > 0:
            out.append(_section_runs(section, cmp))
            section, bound = [], None
        section.append(f)
        if bound is None or cmp.compare(f.max_key, bound) > 0:
            bound = f.max_key
    if section:
        out.append(_section_runs(section, cmp))
    return out


def _section_runs(files: list[DataFileMeta], cmp: KeyComparator) -> list[SortedRun]:
    runs: list[list[DataFileMeta]] = [[files[0]]]
    for f in files[1:]:
        # any run ending before f starts will do: take the one with the smallest max key
        best = min(range(len(runs)), key=lambda i: cmp.key(runs[i][-1].max_key))
        if cmp.compare(f.min_key, runs[best][-1].max_key) > 0:
            runs[best].append(f)
        else:
            runs.append([f])
    return [SortedRun(tuple(r)) for r in runs]

