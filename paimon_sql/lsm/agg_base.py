"""The base of the aggregation merge engine's field aggregators (``aggregate.py`` holds the
registry): how a column is aggregated (``FieldAgg``), the segments a key group's rows are cut into
(``Segments``), the ``Aggregator`` interface every function implements (one module per function
family: ``aggregate.py``, ``agg_nested.py``, ``agg_keytime.py``, ``agg_rbm64.py``, ...), and the
vectorised helpers over segments they share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.options import CoreOptions
from paimon_sql.types import DataType


@dataclass(frozen=True)
class FieldAgg:
    """How one column of a merged table is aggregated."""

    column: str
    function: str
    data_type: DataType
    ignore_retract: bool = False
    delimiter: str = ","  # listagg
    distinct: bool = False  # listagg
    nested_key: tuple[str, ...] = ()  # nested_update, nested_partial_update
    count_limit: int = 2**31 - 1  # nested_update
    ts_field: str | None = None  # merge_map_with_keytime: fields.<f>.ts-field


@dataclass(frozen=True)
class Segments:
    """The rows of several key groups (sorted by key and sequence) cut into segments: a segment
    starts at each group's first row and at each reset row (a ``-D`` under remove-record-on-delete)."""

    starts: np.ndarray  # first row of each segment
    ends: np.ndarray  # last row of each segment (inclusive)
    ids: np.ndarray  # per row: its segment
    retract: np.ndarray  # per row: a retraction (-U, or -D when it is no reset)
    reset: np.ndarray  # per segment: its first row is a reset
    reset_rows: np.ndarray  # per row: a reset row
    group_start: np.ndarray  # per segment: the first row of its key group

    @property
    def n(self) -> int:
        return len(self.ids)


def make_segments(
    group_starts: np.ndarray, group_ends: np.ndarray, kinds: np.ndarray, remove_record_on_delete: bool
) -> Segments:
    """Segments of rows whose key groups are ``group_starts``..``group_ends`` (row kinds ``kinds``)."""
    reset_rows = (kinds == 3) if remove_record_on_delete else np.zeros(len(kinds), dtype=bool)
    retract = (kinds == 1) | ((kinds == 3) & ~reset_rows)
    return segments_of(group_starts, group_ends, retract, reset_rows)


def segments_of(
    group_starts: np.ndarray, group_ends: np.ndarray, retract: np.ndarray, reset_rows: np.ndarray
) -> Segments:
    """Segments of rows in key groups, given which rows retract and which reset the row."""
    n = len(retract)
    if not reset_rows.any():  # the common case: a segment per key group
        ids = np.repeat(np.arange(len(group_starts), dtype=np.int64), group_ends - group_starts + 1)
        return Segments(starts=group_starts, ends=group_ends, ids=ids, retract=retract,
                        reset=np.zeros(len(group_starts), dtype=bool), reset_rows=reset_rows,
                        group_start=group_starts)
    is_start = reset_rows.copy()
    is_start[group_starts] = True
    starts = np.flatnonzero(is_start)
    ends = np.append(starts[1:] - 1, n - 1)
    ids = np.cumsum(is_start) - 1
    sizes = group_ends - group_starts + 1
    group_of_row = np.repeat(np.arange(len(group_starts)), sizes)
    return Segments(
        starts=starts,
        ends=ends,
        ids=ids,
        retract=retract,
        reset=reset_rows[starts],
        reset_rows=reset_rows,
        group_start=group_starts[group_of_row[starts]],
    )


@dataclass(frozen=True)
class KeyGroups:
    """The key groups of a merge in which every record aggregates (no retraction, no reset: one
    segment per key, single-record keys included), by rows: each group's newest record, then
    step by step the groups with more records and their next older record. A fold over them
    (``fold_groups``) touches a single-record key once, as the output gather does, and a
    multi-record key once per record, without cutting the multi-record keys' rows out first."""

    last_rows: np.ndarray  # per group: its newest record's input row
    # step j (1, 2, ...): the groups with more than j records, and their j-th newest record's row
    steps: tuple[tuple[np.ndarray, np.ndarray], ...]

    MAX_STEPS: ClassVar[int] = 16  # more records in one key: fold the segments instead

    @staticmethod
    def of(order: np.ndarray, ends: np.ndarray, sizes: np.ndarray, last_rows: np.ndarray) -> KeyGroups | None:
        """The groups of the merge order ``order`` whose groups end at ``ends`` (inclusive) with
        ``sizes`` records (``last_rows``: ``order[ends]``); None when a group holds more than
        ``MAX_STEPS`` records."""
        longest = int(sizes.max()) if len(sizes) else 0
        if longest > KeyGroups.MAX_STEPS:
            return None
        steps = []
        for j in range(1, longest):
            at = np.flatnonzero(sizes > j)
            steps.append((at, order.take(ends.take(at) - j)))
        return KeyGroups(last_rows, tuple(steps))


def fold_groups(x: np.ndarray, groups: KeyGroups, op: np.ufunc,
                key: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """Per key group, ``op`` (commutative and associative: the records are folded newest first)
    over the group's values of ``x`` (a value per input row), each value taken through ``key``
    first if given (applied to the values gathered, not to the whole column)."""
    out = x.take(groups.last_rows)
    if key is not None:
        out = key(out)
    for at, rows in groups.steps:
        older = x.take(rows)
        out[at] = op(out.take(at), older if key is None else key(older))
    return out


# ----------------------------------------------------------------------------------------------
# Vectorised helpers over segments
# ----------------------------------------------------------------------------------------------


def last_true(mask: np.ndarray, seg: Segments) -> np.ndarray:
    """Per segment, the last row where ``mask`` holds (-1 when none)."""
    idx = np.where(mask, np.arange(seg.n), -1)
    last = np.maximum.accumulate(idx)[seg.ends]
    return np.where(last >= seg.starts, last, -1)


def first_true(mask: np.ndarray, seg: Segments) -> np.ndarray:
    """Per segment, the first row where ``mask`` holds (-1 when none)."""
    idx = np.where(mask, np.arange(seg.n), seg.n)
    first = np.minimum.reduceat(idx, seg.starts)
    return np.where(first <= seg.ends, first, -1)


def count_true(mask: np.ndarray, seg: Segments) -> np.ndarray:
    if len(mask) and mask.all():  # every row: the segments' sizes
        return seg.ends - seg.starts + 1
    return np.add.reduceat(mask.astype(np.int64), seg.starts)


def take_or_null(values: pa.Array, idx: np.ndarray) -> pa.Array:
    """``values[idx]`` per segment, null where ``idx`` is -1."""
    missing = idx < 0
    if not missing.any():
        return values.take(pa.array(idx))
    return values.take(pa.array(np.where(missing, 0, idx), mask=missing))


def valid_mask(values: pa.Array) -> np.ndarray:
    if values.null_count == 0:
        return np.ones(len(values), dtype=bool)
    return np.asarray(values.is_valid().to_numpy(zero_copy_only=False), dtype=bool)


def as_int64(values: pa.Array) -> np.ndarray:
    """Integer-like values (ints, dates, times, timestamps, booleans) as int64, nulls as 0."""
    t = values.type
    if pa.types.is_boolean(t):
        values = pc.cast(values, pa.int8())
    elif pa.types.is_date32(t) or pa.types.is_time32(t):
        values = values.view(pa.int32())
    elif pa.types.is_timestamp(t) or pa.types.is_date64(t) or pa.types.is_time64(t):
        values = values.view(pa.int64())
    return np.asarray(pc.fill_null(values, 0).to_numpy(zero_copy_only=False)).astype(np.int64, copy=False)


def as_floats(values: pa.Array) -> np.ndarray:
    return np.asarray(pc.fill_null(values, 0).to_numpy(zero_copy_only=False))


def decimal_unscaled(values: pa.Array) -> np.ndarray:
    """Unscaled int64 values of a decimal128 array whose precision is at most 18 (nulls as 0)."""
    data = values.buffers()[1]
    assert data is not None
    words = np.frombuffer(data, dtype=np.int64, count=2 * (values.offset + len(values)))
    out = words[2 * values.offset :: 2].copy()
    out[~valid_mask(values)] = 0
    return out


def decimal_from_unscaled(unscaled: np.ndarray, valid: np.ndarray, t: pa.Decimal128Type) -> pa.Array:
    words = np.empty(2 * len(unscaled), dtype=np.int64)
    words[0::2] = unscaled
    words[1::2] = unscaled >> 63
    bitmap = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little").tobytes())
    return pa.Array.from_buffers(t, len(unscaled), [bitmap, pa.py_buffer(words.tobytes())])


def numpy_result(result: np.ndarray, has: np.ndarray, t: pa.DataType) -> pa.Array:
    if pa.types.is_decimal(t):
        assert isinstance(t, pa.Decimal128Type)
        return decimal_from_unscaled(result.astype(np.int64), has, t)
    return pa.array(result, type=t, mask=~has)


# ----------------------------------------------------------------------------------------------
# Aggregators
# ----------------------------------------------------------------------------------------------


SequenceGroupMerge = Literal["fold", "last", "last_non_null", "first"]
"""How an aggregated field of a partial-update sequence group merges (``partial_update_groups``):
``fold`` the records taking part in row order (commutative functions: agg and aggReversed agree),
or pick the value as last_value, last_non_null_value or first_value do."""


class Aggregator:
    """One Paimon field aggregator. ``reduce`` folds every segment of ``values``; ``active`` marks the
    rows that take part (retractions ignored by ``fields.<f>.ignore-retract`` are left out).

    The class attributes are the function's capabilities; code outside the aggregator's module asks
    them instead of naming functions."""

    name: ClassVar[str] = ""
    retracts: ClassVar[bool] = False  # Paimon's aggregator implements retract()
    commutative: ClassVar[bool] = False  # agg(acc, x) == agg(x, acc): folding order does not matter
    # how it merges inside a partial-update sequence group; None: refused there
    in_sequence_group: ClassVar[SequenceGroupMerge | None] = None

    def check_table_options(self, field: str, options: CoreOptions) -> None:
        """Raises for table options of ``field`` the function has but paimon_sql does not implement."""

    def check_type(self, field: str, t: DataType) -> None:
        """Raises like Paimon's factory when the function does not accept the column's type."""

    def check_options(self, fa: FieldAgg) -> None:
        """Raises like Paimon's factory when the field's options do not fit (after ``check_type``)."""

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        raise NotImplementedError

    def reduce_groups(self, values: pa.Array, groups: KeyGroups, fa: FieldAgg) -> pa.Array | None:
        """One value per key group of ``groups`` (every record aggregates): what ``reduce`` gives
        for one segment per group, computed over the whole column in merge order; None when the
        function has no such shortcut for these values (then ``reduce`` runs)."""
        return None


def agg_and_retract_rows(seg: Segments, active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows calling agg(), rows calling retract()) among the active rows; reset rows are neither."""
    agg = active & ~seg.retract & ~seg.reset_rows
    return agg, active & seg.retract


def fold_segments(values: pa.Array, seg: Segments, step: Callable[[Any, Any, int], Any]) -> pa.Array:
    """Per segment, a row-at-a-time fold (for nested values no Arrow kernel merges as Paimon does):
    a reset row that starts the segment gives the accumulator, ``step(acc, value, row)`` folds each
    other row in (null before the first)."""
    py = values.to_pylist()
    out: list[Any] = []
    for start, end in zip(seg.starts.tolist(), seg.ends.tolist()):
        acc: Any = None
        for r in range(start, end + 1):
            if seg.reset_rows[r] and r == start:
                acc = py[r]
            else:
                acc = step(acc, py[r], r)
        out.append(acc)
    return pa.array(out, type=values.type)
