"""Merge engines: how the records of one primary key, ordered by sequence, become one row.

The input of every engine is one Arrow table holding the rows of several sorted runs of a bucket,
with the key columns, ``_SEQUENCE_NUMBER``, ``_VALUE_KIND`` and the value columns. Engines are
vectorised: one stable sort by (key, sequence), then group boundaries found with array compares.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import UnsupportedError

SEQ = "_SEQUENCE_NUMBER"
KIND = "_VALUE_KIND"
# pyarrow >= 25 takes the null placement per sort key (the global option is deprecated there)
_PER_KEY_NULL_PLACEMENT = int(pa.__version__.split(".")[0]) >= 25
KIND_INSERT, KIND_UPDATE_BEFORE, KIND_UPDATE_AFTER, KIND_DELETE = 0, 1, 2, 3


@dataclass(frozen=True)
class MergeSpec:
    """What a merge needs to know about the table."""

    key_columns: tuple[str, ...]
    sequence_columns: tuple[str, ...] = ()  # the 'sequence.field' columns, compared before _SEQUENCE_NUMBER
    ignore_delete: bool = False
    # partial-update: a -D record removes the key's row (later records start a new row)
    remove_record_on_delete: bool = False


def sort_indices(table: pa.Table, spec: MergeSpec) -> pa.Array:
    """Row order by key, then user sequence fields, then ``_SEQUENCE_NUMBER`` (oldest first)."""
    names = [*spec.key_columns, *spec.sequence_columns, SEQ]
    sub = table.select(names)
    if _PER_KEY_NULL_PLACEMENT:
        return pc.sort_indices(sub, sort_keys=[(n, "ascending", "at_start") for n in names])
    return pc.sort_indices(sub, sort_keys=[(n, "ascending") for n in names], null_placement="at_start")


def sort_by_key_and_sequence(table: pa.Table, spec: MergeSpec) -> pa.Table:
    return table.take(sort_indices(table, spec))


def group_last_mask(table: pa.Table, key_columns: Sequence[str]) -> np.ndarray:
    """For a table sorted by key: True at the last row of every key group."""
    n = table.num_rows
    if n == 0:
        return np.zeros(0, dtype=bool)
    diff = np.zeros(n - 1, dtype=bool)
    for k in key_columns:
        col = table.column(k)
        a, b = col.slice(0, n - 1), col.slice(1)
        ne = pc.fill_null(pc.not_equal(a, b), True)
        # two nulls are the same key
        both_null = pc.and_(pc.is_null(a), pc.is_null(b))
        ne = pc.and_(ne, pc.invert(both_null))
        diff |= np.asarray(ne.to_numpy(zero_copy_only=False), dtype=bool)
    return np.append(diff, True)


def _drop_retracts(table: pa.Table) -> pa.Table:
    kinds = table.column(KIND)
    if table.num_rows == 0 or pc.max(kinds).as_py() == KIND_INSERT:
        return table  # the common case: inserts only
    keep = pc.or_(pc.equal(kinds, KIND_INSERT), pc.equal(kinds, KIND_UPDATE_AFTER))
    return table.filter(keep)


def deduplicate(table: pa.Table, spec: MergeSpec) -> pa.Table:
    """The newest record of each key wins; a key whose newest record is a retraction disappears."""
    if spec.ignore_delete:
        table = _drop_retracts(table)
    idx = sort_indices(table, spec)
    sorted_keys = table.select(list(spec.key_columns)).take(idx)
    winners = idx.filter(pa.array(group_last_mask(sorted_keys, spec.key_columns)))
    return _drop_retracts(table.take(winners))


def first_row(table: pa.Table, spec: MergeSpec) -> pa.Table:
    """The oldest inserted record of each key wins; retractions are ignored."""
    t = sort_by_key_and_sequence(_drop_retracts(table), spec)
    n = t.num_rows
    if n == 0:
        return t
    last = group_last_mask(t, spec.key_columns)
    first = np.concatenate([[True], last[:-1]])
    return t.filter(pa.array(first))


def _group_bounds(table: pa.Table, key_columns: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (inclusive) row of every key group of a key-sorted table."""
    last = group_last_mask(table, key_columns)
    ends = np.flatnonzero(last)
    starts = np.concatenate([[0], ends[:-1] + 1]) if len(ends) else ends
    return starts, ends


def _last_non_null(col: pa.ChunkedArray | pa.Array, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """Per group, the last non-null value (null when the group has none)."""
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    n = len(arr)
    valid = np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    idx = np.where(valid, np.arange(n), -1)
    filled = np.maximum.accumulate(idx) if n else idx
    pick = filled[ends]
    found = pick >= starts
    taken = arr.take(pa.array(np.where(found, pick, 0)))
    if found.all():
        return taken
    return pc.if_else(pa.array(found), taken, pa.nulls(len(taken), arr.type))


def partial_update(table: pa.Table, spec: MergeSpec) -> pa.Table:
    """Each field takes the newest non-null value of its key (Paimon's partial-update engine)."""
    kinds = table.column(KIND)
    retract = pc.or_(pc.equal(kinds, KIND_UPDATE_BEFORE), pc.equal(kinds, KIND_DELETE))
    if spec.ignore_delete:
        table = table.filter(pc.invert(retract))
    elif pc.any(retract).as_py():
        if not spec.remove_record_on_delete:
            raise UnsupportedError(
                "The partial-update merge engine cannot accept delete records by default: set "
                "'ignore-delete' = 'true' to ignore them, or 'partial-update.remove-record-on-delete' = "
                "'true' to remove the row"
            )
    t = sort_by_key_and_sequence(table, spec)
    if t.num_rows == 0:
        return t
    starts, ends = _group_bounds(t, spec.key_columns)
    if spec.remove_record_on_delete and not spec.ignore_delete:
        # only the records after a key's last -D count
        is_delete = np.asarray(pc.equal(t.column(KIND), KIND_DELETE).to_numpy(zero_copy_only=False), dtype=bool)
        n = t.num_rows
        marks = np.maximum.accumulate(np.where(is_delete, np.arange(n), -1))
        group_of = np.repeat(np.arange(len(starts)), ends - starts + 1)
        last_delete = marks[ends][group_of]  # the last -D of each row's group (or earlier: none)
        keep = (last_delete < starts[group_of]) | (np.arange(n) > last_delete)
        keep &= ~is_delete
        kinds_np = np.asarray(pc.equal(t.column(KIND), KIND_UPDATE_BEFORE).to_numpy(zero_copy_only=False), dtype=bool)
        keep &= ~kinds_np
        t = t.filter(pa.array(keep))
        if t.num_rows == 0:
            return t
        starts, ends = _group_bounds(t, spec.key_columns)
    keys = set(spec.key_columns)
    cols = []
    for name in t.column_names:
        col = t.column(name)
        if name in keys:
            cols.append(col.take(pa.array(ends)))
        elif name == KIND:
            cols.append(pa.array(np.zeros(len(ends), dtype=np.int8)))
        else:
            cols.append(_last_non_null(col, starts, ends))
    return pa.Table.from_arrays(cols, names=t.column_names)


def _unsupported(engine: str) -> Callable[[pa.Table, MergeSpec], pa.Table]:
    def merge(table: pa.Table, spec: MergeSpec) -> pa.Table:
        raise UnsupportedError(
            f"merge-engine '{engine}' is not supported yet by paimon_sql (reading or writing a "
            f"primary-key table that needs it); supported: deduplicate, first-row, partial-update"
        )

    return merge


MERGE_ENGINES: dict[str, Callable[[pa.Table, MergeSpec], pa.Table]] = {
    "deduplicate": deduplicate,
    "first-row": first_row,
    "partial-update": partial_update,
    "aggregation": _unsupported("aggregation"),
}


def merge_engine(name: str) -> Callable[[pa.Table, MergeSpec], pa.Table]:
    try:
        return MERGE_ENGINES[name]
    except KeyError:
        raise UnsupportedError(
            f"Unknown merge-engine {name!r}; known: {sorted(MERGE_ENGINES)}"
        ) from None
