"""Merge engines: how the records of one primary key, ordered by sequence, become one row.

The input of every engine is one Arrow table holding the rows of several sorted runs of a bucket,
with the key columns, ``_SEQUENCE_NUMBER``, ``_VALUE_KIND`` and the value columns. Engines are
vectorised: one stable sort by (key, sequence), then group boundaries found with array compares.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import PaimonError, UnsupportedError, ValidationError
from paimon_sql.format.system_fields import KIND, SEQ, RowKind
from paimon_sql.lsm.agg_base import FieldAgg, make_segments, segments_of
from paimon_sql.lsm.aggregate import AGGREGATORS, aggregate_column, build_field_aggs, field_agg
from paimon_sql.options import CoreOptions
from paimon_sql.types import DataField

# pyarrow >= 25 takes the null placement per sort key (the global option is deprecated there)
_PER_KEY_NULL_PLACEMENT = int(pa.__version__.split(".")[0]) >= 25
# the row kinds as plain ints (numpy and Arrow compute compare them with the _VALUE_KIND column)
KIND_INSERT, KIND_UPDATE_BEFORE, KIND_UPDATE_AFTER, KIND_DELETE = (int(k) for k in RowKind)


@dataclass(frozen=True)
class SequenceGroup:
    """A partial-update sequence group: ``fields`` change only with records whose ``sequence_fields``
    (compared in order, nulls first) are not all null; a record older than the row's sequence leaves
    them (aggregated fields: aggregates them in reverse), a newer or equal one sets them."""

    sequence_fields: tuple[str, ...]
    fields: tuple[str, ...]


@dataclass(frozen=True)
class MergeSpec:
    """What a merge needs to know about the table."""

    key_columns: tuple[str, ...]
    sequence_columns: tuple[str, ...] = ()  # the 'sequence.field' columns, compared before _SEQUENCE_NUMBER
    sequence_ascending: bool = True  # 'sequence.field.sort-order' (nulls are the oldest either way)
    ignore_delete: bool = False
    # partial-update / aggregation: a -D record replaces the key's row (and, last, removes it)
    remove_record_on_delete: bool = False
    # aggregation: how each value column is aggregated (columns without one keep the newest value);
    # partial-update: the aggregate functions of columns in sequence groups
    field_aggs: tuple[FieldAgg, ...] = ()
    # partial-update: 'fields.<s1,s2>.sequence-group' = 'f1,f2'
    sequence_groups: tuple[SequenceGroup, ...] = ()
    # partial-update: 'partial-update.remove-record-on-sequence-group' (sequence fields): a -D record
    # that updates the group of one of them removes the row (it becomes the row's new initial values)
    remove_record_on_sequence_group: tuple[str, ...] = ()


_SIGN_MASK = np.int64(0x7FFFFFFFFFFFFFFF)
_CANONICAL_NAN = np.int64(0x7FF8000000000000)


def java_key_order(col: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | pa.Array:
    """A key column as Paimon's key comparator compares it. FLOAT and DOUBLE keys compare like Java's
    ``Double.compare``: every NaN is one key (above +infinity) and -0.0 is a key below 0.0, which
    Arrow's comparisons do not do (NaN != NaN, -0.0 == 0.0). They become int64s that sort and compare
    that way (the bits of the double with the sign folded); other columns are returned as they are."""
    if not pa.types.is_floating(col.type):
        return col
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    values = np.asarray(arr.cast(pa.float64()).fill_null(0.0).to_numpy(zero_copy_only=False), dtype=np.float64)
    bits = values.view(np.int64).copy()
    bits[np.isnan(values)] = _CANONICAL_NAN
    bits = np.where(bits < 0, bits ^ _SIGN_MASK, bits)
    return pa.array(bits, pa.int64(), mask=np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)
                    if arr.null_count else None)


def _key_table(table: pa.Table, key_columns: Sequence[str], others: Sequence[str] = ()) -> pa.Table:
    """``table``'s key columns in Paimon's key order (``java_key_order``) plus ``others`` unchanged."""
    names = list(key_columns) + [n for n in others if n not in key_columns]
    cols = [java_key_order(table.column(n)) if n in key_columns else table.column(n) for n in names]
    return pa.Table.from_arrays(cols, names=names)


def sort_indices(table: pa.Table, spec: MergeSpec, with_sequence_number: bool = True) -> pa.Array:
    """Row order by key (as Paimon compares keys), then user sequence fields (nulls first), then
    ``_SEQUENCE_NUMBER`` (oldest first). The sort is stable: without the sequence number, input
    order breaks ties."""
    seq_order = "ascending" if spec.sequence_ascending else "descending"
    keys = [(n, "ascending") for n in spec.key_columns] + [(n, seq_order) for n in spec.sequence_columns]
    if with_sequence_number:
        keys.append((SEQ, "ascending"))
    sub = _key_table(table, spec.key_columns, [n for n, _ in keys])
    if _PER_KEY_NULL_PLACEMENT:
        return pc.sort_indices(sub, sort_keys=[(n, o, "at_start") for n, o in keys])
    return pc.sort_indices(sub, sort_keys=keys, null_placement="at_start")


def unique_key_order(table: pa.Table, key_columns: Sequence[str]) -> np.ndarray | None:
    """The order of ``table``'s rows by its key when the key is one integer, date or timestamp
    column without nulls and no two rows share a key; else None (use ``sort_indices``).

    An unstable sort is several times faster than a stable one (numpy's SIMD quicksort); with all
    keys distinct, stability cannot matter, and checking that costs one pass over the sorted keys."""
    if len(key_columns) != 1:
        return None
    col = table.column(key_columns[0])
    t = col.type
    if col.null_count or not (pa.types.is_integer(t) or pa.types.is_date(t) or pa.types.is_timestamp(t)):
        return None
    keys = col.to_numpy()
    if keys.dtype.kind == "M":
        keys = keys.view(np.int64)
    perm = np.argsort(keys, kind="quicksort")
    ordered = keys[perm]
    if len(ordered) > 1 and not bool(np.all(ordered[1:] != ordered[:-1])):
        return None
    return perm


def sort_by_key_and_sequence(table: pa.Table, spec: MergeSpec) -> pa.Table:
    return table.take(sort_indices(table, spec))


def group_last_mask(table: pa.Table, key_columns: Sequence[str]) -> np.ndarray:
    """For a table sorted by key: True at the last row of every key group."""
    n = table.num_rows
    if n == 0:
        return np.zeros(0, dtype=bool)
    diff = np.zeros(n - 1, dtype=bool)
    for k in key_columns:
        col = java_key_order(table.column(k))
        a, b = col.slice(0, n - 1), col.slice(1)
        ne = pc.fill_null(pc.not_equal(a, b), True)
        # two nulls are the same key
        both_null = pc.and_(pc.is_null(a), pc.is_null(b))
        ne = pc.and_(ne, pc.invert(both_null))
        diff |= np.asarray(ne.to_numpy(zero_copy_only=False), dtype=bool)
    return np.append(diff, True)


def _is_add(kinds: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | pa.Array:
    return pc.or_(pc.equal(kinds, KIND_INSERT), pc.equal(kinds, KIND_UPDATE_AFTER))


def _drop_retracts(table: pa.Table) -> pa.Table:
    kinds = table.column(KIND)
    if table.num_rows == 0 or pc.max(kinds).as_py() == KIND_INSERT:
        return table  # the common case: inserts only
    return table.filter(_is_add(kinds))


def _finish(table: pa.Table, keep_deletes: bool) -> pa.Table:
    """A merge result as a read returns it (retractions dropped) or as a writer keeps it."""
    return table if keep_deletes else _drop_retracts(table)


def deduplicate(table: pa.Table, spec: MergeSpec, keep_deletes: bool = False) -> pa.Table:
    """The newest record of each key wins; a key whose newest record is a retraction disappears
    (``keep_deletes``: stays as that retraction, to shadow older files)."""
    if spec.ignore_delete:
        table = _drop_retracts(table)
    idx = sort_indices(table, spec)
    sorted_keys = table.select(list(spec.key_columns)).take(idx)
    winners = idx.filter(pa.array(group_last_mask(sorted_keys, spec.key_columns)))
    return _finish(table.take(winners), keep_deletes)


def first_row(table: pa.Table, spec: MergeSpec, keep_deletes: bool = False) -> pa.Table:
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


def _last_non_null(col: pa.ChunkedArray | pa.Array, starts: np.ndarray, ends: np.ndarray,
                   rows: np.ndarray | None = None) -> pa.Array:
    """Per group, the last non-null value among ``rows`` (all rows if None; null when none)."""
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    n = len(arr)
    valid = np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    if rows is not None:
        valid &= rows
    idx = np.where(valid, np.arange(n), -1)
    filled = np.maximum.accumulate(idx) if n else idx
    pick = filled[ends]
    found = pick >= starts
    taken = arr.take(pa.array(np.where(found, pick, 0)))
    if found.all():
        return taken
    return pc.if_else(pa.array(found), taken, pa.nulls(len(taken), arr.type))


GroupMerge = Callable[[pa.Table, np.ndarray, np.ndarray], pa.Table]


def _merge_groups(table: pa.Table, spec: MergeSpec, merge_multi: GroupMerge) -> pa.Table:
    """Sorts by key and sequence; a key with one record keeps it unchanged (Paimon's
    ReducerMergeFunctionWrapper never calls the merge function for it), the records of every other
    key go to ``merge_multi(rows, starts, ends)``, which returns one row per key group (same columns).
    The result is in key order."""
    t = sort_by_key_and_sequence(table, spec)
    if t.num_rows == 0:
        return t
    starts, ends = _group_bounds(t, spec.key_columns)
    sizes = ends - starts + 1
    multi = sizes > 1
    if not multi.any():
        return t
    row_multi = np.repeat(multi, sizes)
    mt = t.filter(pa.array(row_multi))
    m_sizes = sizes[multi]
    m_ends = np.cumsum(m_sizes) - 1
    m_starts = m_ends - m_sizes + 1
    merged = merge_multi(mt, m_starts, m_ends)
    if multi.all():
        return merged
    singles = t.filter(pa.array(~row_multi))
    # back into key order: single-record groups first in the concatenation, merged ones after
    pos = np.empty(len(sizes), dtype=np.int64)
    n_single = int((~multi).sum())
    pos[~multi] = np.arange(n_single)
    pos[multi] = n_single + np.arange(len(m_sizes))
    both = pa.concat_tables([singles, merged.cast(singles.schema)])
    return both.take(pa.array(pos))


def partial_update(table: pa.Table, spec: MergeSpec, keep_deletes: bool = False) -> pa.Table:
    """Paimon's partial-update engine: each field takes the newest non-null value of its key.

    Retractions in a key with several records fail unless ``ignore-delete`` (they are skipped) or
    ``partial-update.remove-record-on-delete`` (a -D replaces the row by its own values; -U records
    are skipped); either way a key's first record, if a retraction, gives the row its initial values.
    The merged row is a -D (dropped by reads) when its last record is such a -D or the key has no
    +I/+U record at all."""
    if spec.ignore_delete and spec.remove_record_on_delete:
        raise ValidationError(
            "ignore-delete and partial-update.remove-record-on-delete have conflicting behavior so should "
            "not be enabled at the same time."
        )

    if spec.sequence_groups:
        return _finish(
            _merge_groups(table, spec, lambda t, s, e: _partial_update_with_groups(t, s, e, spec)), keep_deletes
        )

    def merge_multi(t: pa.Table, starts: np.ndarray, ends: np.ndarray) -> pa.Table:
        n = t.num_rows
        kinds = np.asarray(t.column(KIND).to_numpy(), dtype=np.int8)
        retract = (kinds == KIND_UPDATE_BEFORE) | (kinds == KIND_DELETE)
        if retract.any() and not spec.ignore_delete and not spec.remove_record_on_delete:
            raise UnsupportedError(
                "The partial-update merge engine cannot accept delete records by default: set "
                "'ignore-delete' = 'true' to ignore them, or 'partial-update.remove-record-on-delete' = "
                "'true' to remove the row"
            )
        is_add = ~retract
        first = np.zeros(n, dtype=bool)
        first[starts] = True
        rows = is_add | (first & retract)  # a leading retraction initialises the row
        group_of = np.repeat(np.arange(len(starts)), ends - starts + 1)
        deleted = np.zeros(len(starts), dtype=bool)
        if spec.remove_record_on_delete:
            reset = kinds == KIND_DELETE
            last_reset = np.maximum.accumulate(np.where(reset, np.arange(n), -1))[ends]
            after = np.arange(n) >= last_reset[group_of]  # rows from the key's last -D on (all if none)
            rows = (rows | reset) & after
            deleted = reset[ends]
        seq_out, meet_insert = _partial_update_seq_and_insert(t, retract, starts, ends, spec)
        out_kind = np.where(deleted | ~meet_insert, KIND_DELETE, KIND_INSERT).astype(np.int8)
        keys = set(spec.key_columns)
        cols = []
        for name in t.column_names:
            col = t.column(name)
            if name in keys:
                cols.append(col.take(pa.array(ends)))
            elif name == KIND:
                cols.append(pa.array(out_kind))
            elif name == SEQ:
                cols.append(pa.array(seq_out))
            else:
                cols.append(_last_non_null(col, starts, ends, rows))
        return pa.Table.from_arrays(cols, names=t.column_names)

    return _finish(_merge_groups(table, spec, merge_multi), keep_deletes)


def _partial_update_seq_and_insert(
    t: pa.Table, retract: np.ndarray, starts: np.ndarray, ends: np.ndarray, spec: MergeSpec
) -> tuple[np.ndarray, np.ndarray]:
    """Per key: the sequence number of the last record not ignored, and whether any +I/+U came."""
    n = t.num_rows
    seq = np.asarray(t.column(SEQ).to_numpy(), dtype=np.int64)
    counted = ~retract | (not spec.ignore_delete)
    last_counted = np.maximum.accumulate(np.where(counted, np.arange(n), -1))[ends]
    seq_out = np.where(last_counted >= starts, seq[np.maximum(last_counted, 0)], 0)
    meet_insert = np.add.reduceat((~retract).astype(np.int64), starts) > 0
    return seq_out, meet_insert


def _tuple_rank(t: pa.Table, columns: Sequence[str]) -> np.ndarray:
    """Dense rank of each row's values of ``columns``, compared in order with nulls first."""
    ranks = []
    for c in columns:
        col = t.column(c).combine_chunks()
        if _PER_KEY_NULL_PLACEMENT:
            r = pc.rank(col, sort_keys=[("", "ascending", "at_start")], tiebreaker="dense")
        else:
            r = pc.rank(col, sort_keys="ascending", null_placement="at_start", tiebreaker="dense")
        ranks.append(np.asarray(r, dtype=np.int64))
    if len(ranks) == 1:
        return ranks[0]
    return np.unique(np.stack(ranks, axis=1), axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _last_where(mask: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per group, the last row where ``mask`` holds (-1 when none)."""
    last = np.maximum.accumulate(np.where(mask, np.arange(len(mask)), -1))[ends]
    return np.where(last >= starts, last, -1)


def _first_where(mask: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per group, the first row where ``mask`` holds (-1 when none)."""
    n = len(mask)
    first = np.minimum.reduceat(np.where(mask, np.arange(n), n), starts)
    return np.where(first <= ends, first, -1)


def _take_or_null(col: pa.ChunkedArray | pa.Array, idx: np.ndarray) -> pa.Array:
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    missing = idx < 0
    return arr.take(pa.array(np.where(missing, 0, idx), mask=missing if missing.any() else None))


def _partial_update_with_groups(t: pa.Table, starts: np.ndarray, ends: np.ndarray, spec: MergeSpec) -> pa.Table:
    """Paimon's PartialUpdateMergeFunction with sequence groups, for keys with several records.

    Every record is an event; a key whose first record is a retraction gets one more event before
    it that initialises the row with its values. Per group, a record takes part when its sequence
    fields are not all null, and *wins* when they are not older than the row's (the running maximum,
    ties to the newer record). Sequence fields and plain protected fields come from the last winner
    (null if that winner retracts); aggregated protected fields fold the records taking part.
    With ``remove_record_on_sequence_group``, a key's last removing -D (``_row_removals``) replaces
    the row: the merge runs on from it as from an initial row, and the row is a -D if it is last."""
    n = t.num_rows
    kinds = np.asarray(t.column(KIND).to_numpy(), dtype=np.int8)
    retract = (kinds == KIND_UPDATE_BEFORE) | (kinds == KIND_DELETE)
    first = np.zeros(n, dtype=bool)
    first[starts] = True
    dup = np.flatnonzero(first & retract)
    idx = np.sort(np.concatenate([np.arange(n), dup])) if len(dup) else np.arange(n)
    e = t.take(pa.array(idx)) if len(dup) else t
    m = len(idx)
    init = np.zeros(m, dtype=bool)
    init[np.searchsorted(idx, dup, side="left")] = True
    group_of = np.repeat(np.arange(len(starts)), ends - starts + 1)[idx]
    e_starts = np.searchsorted(group_of, np.arange(len(starts)), side="left")
    e_ends = np.searchsorted(group_of, np.arange(len(starts)), side="right") - 1
    e_retract = retract[idx] & ~init
    e_add = ~retract[idx]
    aggs = {fa.column: fa for fa in spec.field_aggs}
    removed = np.zeros(len(starts), dtype=bool)  # the key's last record removed the row
    touched: dict[tuple[str, ...], np.ndarray] = {}
    e_delete = (kinds[idx] == KIND_DELETE) & e_retract
    if spec.remove_record_on_sequence_group and e_delete.any():
        ev = _Events(e, init, e_add, e_retract, group_of, e_starts, e_ends)
        resets, triggers = _row_removals(ev, e_delete, spec)
        _check_removal_retracts(ev, resets, triggers, spec, list(t.column_names))
        last = np.full(len(starts), -1, dtype=np.int64)
        np.maximum.at(last, group_of[resets], resets)
        if len(resets):
            # the last removal replaced the whole row: the merge goes on from it, as from a first record
            begin = np.where(last >= 0, last, e_starts)
            keep = np.arange(m) >= begin[group_of]
            for g in spec.sequence_groups:  # first_value: had the group's aggregator been called before?
                before = ~keep & e_add & ~_all_null(e, g.sequence_fields)
                touched[g.sequence_fields] = np.add.reduceat(before.astype(np.int64), e_starts) > 0
            removed = last == e_ends
            init = init.copy()
            init[resets] = True
            e_retract = e_retract & ~init
            keep_idx = pa.array(np.flatnonzero(keep))
            e = e.take(keep_idx)
            init, e_add, e_retract, group_of = init[keep], e_add[keep], e_retract[keep], group_of[keep]
            m = e.num_rows
            e_starts = np.searchsorted(group_of, np.arange(len(starts)), side="left")
            e_ends = np.searchsorted(group_of, np.arange(len(starts)), side="right") - 1
    applied = e_retract & (not spec.ignore_delete)
    pos = np.arange(m)
    out: dict[str, pa.Array] = {}
    for g in spec.sequence_groups:
        part = (e_add | applied) & ~_all_null(e, g.sequence_fields)
        win = _group_wins(e, g.sequence_fields, init | part, group_of, e_starts)
        last_win = _last_where(win, e_starts, e_ends)
        for c in g.sequence_fields:
            out[c] = _take_or_null(e.column(c), last_win)
        null_win = np.where(last_win >= 0, e_retract[np.maximum(last_win, 0)], False)
        for f in g.fields:
            fa = aggs.get(f)
            col = e.column(f)
            if fa is None:
                out[f] = _take_or_null(col, np.where(null_win, -1, last_win))
            else:
                out[f] = _group_field_agg(col, fa, init, part, win, applied & part, e_add & part,
                                          e_starts, e_ends, pos, touched.get(g.sequence_fields))
    rows = init | e_add  # fields outside groups: newest non-null of the row's initial values and inserts
    keys = set(spec.key_columns)
    seq_out, meet_insert = _partial_update_seq_and_insert(t, retract, starts, ends, spec)
    cols = []
    for name in t.column_names:
        if name in keys:
            cols.append(t.column(name).take(pa.array(ends)))
        elif name == KIND:
            cols.append(pa.array(np.where(meet_insert & ~removed, KIND_INSERT, KIND_DELETE).astype(np.int8)))
        elif name == SEQ:
            cols.append(pa.array(seq_out))
        elif name in out:
            cols.append(out[name])
        else:
            cols.append(_last_non_null(e.column(name), e_starts, e_ends, rows))
    return pa.Table.from_arrays(cols, names=t.column_names)


def _all_null(t: pa.Table, columns: Sequence[str]) -> np.ndarray:
    """Rows whose ``columns`` are all null (a sequence group a record leaves alone)."""
    empty = np.ones(t.num_rows, dtype=bool)
    for c in columns:
        empty &= np.asarray(t.column(c).is_null().to_numpy(), dtype=bool)
    return empty


def _group_wins(t: pa.Table, sequence_fields: Sequence[str], counted: np.ndarray, group_of: np.ndarray,
                starts: np.ndarray) -> np.ndarray:
    """The ``counted`` records whose sequence fields are not older than the row's (the running
    maximum of the key's counted records before them: Paimon's ``compare(record, row) >= 0``)."""
    rank = _tuple_rank(t, sequence_fields)
    off = group_of * (int(rank.max()) + 2)
    run = np.maximum.accumulate(np.where(counted, rank + off, off - 1))
    prev = np.empty(len(rank), dtype=np.int64)
    prev[1:] = run[:-1]
    prev[starts] = off[starts] - 1
    return counted & (rank + off >= prev)


@dataclass(frozen=True)
class _Events:
    """The records of the keys of a partial-update merge with sequence groups, as events (a key
    whose first record is a retraction has one more, ``init``, that initialises the row)."""

    table: pa.Table
    init: np.ndarray
    add: np.ndarray
    retract: np.ndarray  # not the init events
    key_of: np.ndarray
    starts: np.ndarray  # per key
    ends: np.ndarray


def _row_removals(ev: _Events, delete: np.ndarray, spec: MergeSpec) -> tuple[np.ndarray, np.ndarray]:
    """The -D records that remove their key's row (``partial-update.remove-record-on-sequence-group``)
    and, for each, the column position where Paimon's field loop meets the removal.

    A -D removes the row when, in a group of one of the listed sequence fields, its sequence fields
    are not all null and not older than the row's; the row then becomes the -D's values, from which
    later records merge on. As the row's sequence fields change at each removal, a key's removals
    are found one after the other (each round looks at the records after the last one found)."""
    listed = set(spec.remove_record_on_sequence_group)
    groups = [g for g in spec.sequence_groups if listed & set(g.sequence_fields)]
    names = list(ev.table.column_names)
    trigger_col = [min(names.index(c) for c in g.sequence_fields) for g in groups]
    found: list[np.ndarray] = []
    found_at: list[np.ndarray] = []
    begin = ev.starts.copy()
    restarted = np.zeros(len(ev.starts), dtype=bool)
    todo = np.flatnonzero(np.add.reduceat(delete.astype(np.int64), ev.starts) > 0)
    while len(todo):
        lens = ev.ends[todo] - begin[todo] + 1
        s_ends = np.cumsum(lens) - 1
        s_starts = s_ends - lens + 1
        sel = np.repeat(begin[todo] - s_starts, lens) + np.arange(int(lens.sum()))
        sub = ev.table.take(pa.array(sel))
        s_key = np.repeat(np.arange(len(todo)), lens)
        s_init = ev.init[sel].copy()
        s_init[s_starts[restarted[todo]]] = True  # a removal is the row's new first record
        s_retract = ev.retract[sel] & ~s_init
        s_add = ev.add[sel]
        trig = np.full(len(sel), np.iinfo(np.int64).max, dtype=np.int64)
        for g, col in zip(groups, trigger_col):
            part = (s_add | s_retract) & ~_all_null(sub, g.sequence_fields)
            won = part & _group_wins(sub, g.sequence_fields, s_init | part, s_key, s_starts)
            trig = np.where(won, np.minimum(trig, col), trig)
        removal = delete[sel] & ~s_init & (trig < np.iinfo(np.int64).max)
        first = _first_where(removal, s_starts, s_ends)
        hit = first >= 0
        keys = todo[hit]
        found.append(sel[first[hit]])
        found_at.append(trig[first[hit]])
        begin[keys] = sel[first[hit]]
        restarted[keys] = True
        todo = keys[begin[keys] < ev.ends[keys]]
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(found), np.concatenate(found_at)


def _check_removal_retracts(ev: _Events, resets: np.ndarray, triggers: np.ndarray, spec: MergeSpec,
                            names: Sequence[str]) -> None:
    """A removing -D still retracts, as Paimon's field loop does, the aggregated fields of its
    non-empty groups that come before the column where the removal happens: an aggregate function
    without retraction fails there as it does for any -D."""
    if not len(resets):
        return
    aggs = {fa.column: fa for fa in spec.field_aggs}
    sub = ev.table.take(pa.array(resets))
    for g in spec.sequence_groups:
        live = ~_all_null(sub, g.sequence_fields)
        for f in g.fields:
            fa = aggs.get(f)
            if fa is None or fa.ignore_retract or AGGREGATORS[fa.function].retracts:
                continue
            if (live & (names.index(f) < triggers)).any():
                raise UnsupportedError(
                    f"Aggregate function '{fa.function}' does not support retraction (a -U/-D record of field "
                    f"{fa.column!r}); to ignore retraction messages set 'fields.{fa.column}.ignore-retract' = 'true'"
                )


def _group_field_agg(
    col: pa.ChunkedArray, fa: FieldAgg, init: np.ndarray, part: np.ndarray, win: np.ndarray,
    ret: np.ndarray, add: np.ndarray, starts: np.ndarray, ends: np.ndarray, pos: np.ndarray,
    initialized: np.ndarray | None = None,
) -> pa.Array:
    """An aggregated field of a sequence group: records that win call agg(acc, x), older ones
    agg(x, acc) (aggReversed), retractions retract(acc, x); the initial row sets acc.
    ``initialized`` (per key): the aggregator was called before the records given (which start
    where a removal replaced the row), so first_value's state is set already."""
    arr = col.combine_chunks()
    valid = np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    if fa.ignore_retract:  # FieldIgnoreRetractAgg: a retraction leaves the value
        part = part & ~ret
        ret = np.zeros_like(ret)
    elif ret.any() and not AGGREGATORS[fa.function].retracts:
        raise UnsupportedError(
            f"Aggregate function '{fa.function}' does not support retraction (a -U/-D record of field "
            f"{fa.column!r}); to ignore retraction messages set 'fields.{fa.column}.ignore-retract' = 'true'"
        )
    if fa.function == "last_value":
        last = _last_where(init | (add & win) | ret, starts, ends)
        return _take_or_null(arr, np.where((last >= 0) & ret[np.maximum(last, 0)], -1, last))
    if fa.function == "last_non_null_value":
        # the last record that settles the value (initial row, newer non-null, retracted non-null) ...
        d = _last_where(init | (add & win & valid) | (ret & valid), starts, ends)
        settled = (d >= 0) & ~ret[np.maximum(d, 0)] & valid[np.maximum(d, 0)]
        # ... else the first older non-null value after it fills the null
        after = np.repeat(np.where(d >= 0, d, starts - 1), ends - starts + 1)
        fill = _first_where(add & ~win & valid & (pos > after), starts, ends)
        return _take_or_null(arr, np.where(settled, d, fill))
    if fa.function == "first_value":
        # Paimon's 'initialized' flag: the first record sets it (newer: its value, older: keeps acc);
        # afterwards each older record replaces the value and newer ones keep it
        f = _first_where(add, starts, ends)
        no_first = ends + 1
        if initialized is not None:  # set already: every older record replaces the value
            f = np.where(initialized, -1, f)
            no_first = np.where(initialized, starts - 1, no_first)
        after = np.repeat(np.where(f >= 0, f, no_first), ends - starts + 1)
        later_old = _last_where(add & ~win & (pos > after), starts, ends)
        base = np.where(init[starts], starts, -1)
        f_wins = (f >= 0) & win[np.maximum(f, 0)]
        pick = np.where(later_old >= 0, later_old, np.where(f_wins, f, base))
        return _take_or_null(arr, pick)
    # commutative functions (sum, product, max, min, bool_and, bool_or): agg and aggReversed agree,
    # so the records taking part fold in row order, from the initial row
    rows = init | part
    sub_rows = np.flatnonzero(rows)
    group_of = np.repeat(np.arange(len(starts)), ends - starts + 1)[sub_rows]
    present = np.unique(group_of)
    g_starts = np.searchsorted(group_of, present, side="left")
    g_ends = np.searchsorted(group_of, present, side="right") - 1
    seg = segments_of(g_starts, g_ends, ret[sub_rows], init[sub_rows])
    folded = aggregate_column(arr.take(pa.array(sub_rows)), seg, fa) if len(sub_rows) else None
    where = np.full(len(starts), -1, dtype=np.int64)
    where[present] = np.arange(len(present))
    if folded is None:
        return pa.nulls(len(starts), arr.type)
    return _take_or_null(folded.take(pa.array(seg.ids[g_ends])), where)


def aggregation(table: pa.Table, spec: MergeSpec, keep_deletes: bool = False) -> pa.Table:
    """Paimon's aggregation engine: the records of a key folded column by column with each column's
    aggregate function (``spec.field_aggs``; see ``paimon_sql.lsm.aggregate``). The merged row is a
    +I, or a -D when ``aggregation.remove-record-on-delete`` and the key's last record is a -D.
    ``ignore-delete`` does not apply here (Paimon drops such records when writing only)."""
    aggs = {fa.column: fa for fa in spec.field_aggs}

    def merge_multi(t: pa.Table, starts: np.ndarray, ends: np.ndarray) -> pa.Table:
        kinds = np.asarray(t.column(KIND).to_numpy(), dtype=np.int8)
        seg = make_segments(starts, ends, kinds, spec.remove_record_on_delete)
        last_seg = seg.ids[ends]
        ends_arr = pa.array(ends)
        cols = []
        for name in t.column_names:
            col = t.column(name)
            if name == KIND:
                deleted = seg.reset_rows[ends]
                cols.append(pa.array(np.where(deleted, KIND_DELETE, KIND_INSERT).astype(np.int8)))
            elif name in aggs:
                cols.append(aggregate_column(col, seg, aggs[name]).take(pa.array(last_seg)))
            else:  # keys, _SEQUENCE_NUMBER: the newest record's
                cols.append(col.take(ends_arr))
        return pa.Table.from_arrays(cols, names=t.column_names)

    return _finish(_merge_groups(table, spec, merge_multi), keep_deletes)


class MergeFunction(Protocol):
    def __call__(self, table: pa.Table, spec: MergeSpec, keep_deletes: bool = False) -> pa.Table: ...


def build_merge_spec(
    options: CoreOptions,
    key_columns: Sequence[str],
    value_fields: Sequence[DataField],
    primary_keys: Sequence[str],
    where: str = "",
) -> MergeSpec:
    """The MergeSpec of a table's merge engine for merging ``value_fields``; raises for options
    paimon_sql does not implement (naming them and ``where``, the table)."""
    engine = options.merge_engine
    field_aggs: tuple[FieldAgg, ...] = ()
    sequence_groups: tuple[SequenceGroup, ...] = ()
    remove_record_on_delete = False
    remove_on_groups: tuple[str, ...] = ()
    try:
        if engine == "aggregation":
            field_aggs = build_field_aggs(options, value_fields, primary_keys)
            remove_record_on_delete = options.aggregation_remove_record_on_delete
        elif engine == "partial-update":
            remove_record_on_delete = options.partial_update_remove_record_on_delete
            sequence_groups, field_aggs = _partial_update_groups(options, value_fields, primary_keys, where)
            remove_on_groups = tuple(options.partial_update_remove_record_on_sequence_group)
    except PaimonError as e:  # the aggregators' messages are Paimon's; say which table they are about
        if where and where not in str(e):
            raise type(e)(f"{e} (table {where})") from e
        raise
    return MergeSpec(
        key_columns=tuple(key_columns),
        sequence_columns=tuple(options.sequence_fields),
        sequence_ascending=options.sequence_field_ascending,
        ignore_delete=options.ignore_delete,
        remove_record_on_delete=remove_record_on_delete,
        field_aggs=field_aggs,
        sequence_groups=sequence_groups,
        remove_record_on_sequence_group=remove_on_groups,
    )


_REMOVE_ON_GROUP = "partial-update.remove-record-on-sequence-group"
_PK_IN_GROUP = (
    "The sequence-group '{}' contains primary key field '{}', which is not allowed. Primary key columns "
    "cannot be put in sequence-group."
)
_NOT_IN_GROUPS = (
    "first_non_null_value", "first_not_null_value", "listagg", "collect", "merge_map", "rbm32", "rbm64",
    "merge_map_with_keytime", "nested_update", "nested_partial_update", "hll_sketch", "theta_sketch",
)


def _partial_update_groups(
    options: CoreOptions, value_fields: Sequence[DataField], primary_keys: Sequence[str], where: str
) -> tuple[tuple[SequenceGroup, ...], tuple[FieldAgg, ...]]:
    """Sequence groups and aggregate functions of a partial-update table, checked as Paimon's
    PartialUpdateMergeFunction.Factory checks them."""
    table = f" (table {where})" if where else ""
    if options.ignore_delete and options.partial_update_remove_record_on_delete:
        raise ValidationError(
            "ignore-delete and partial-update.remove-record-on-delete have conflicting behavior so should "
            f"not be enabled at the same time{table}."
        )
    if options.ignore_delete and options.contains(_REMOVE_ON_GROUP):
        raise ValidationError(
            f"ignore-delete and {_REMOVE_ON_GROUP} have conflicting behavior so should not be enabled "
            f"at the same time{table}."
        )
    names = {f.name for f in value_fields}
    groups: list[SequenceGroup] = []
    protected: dict[str, str] = {}
    for seqs, fields in options.sequence_groups().items():
        key = "fields." + ",".join(seqs) + ".sequence-group"
        for f in (*seqs, *fields):
            if f not in names:
                raise ValidationError(f"Field {f} can not be found in table schema ({key}){table}")
            if f in primary_keys:
                raise ValidationError(_PK_IN_GROUP.format(key, f) + table)
        for f in (*fields, *seqs):
            if f in protected:
                raise ValidationError(f"Field {f} is defined repeatedly by multiple groups: {key}{table}")
            protected[f] = key
        groups.append(SequenceGroup(tuple(seqs), tuple(fields)))
    if groups and options.partial_update_remove_record_on_delete:
        raise ValidationError(
            "sequence-group and partial-update.remove-record-on-delete have conflicting behavior so should "
            f"not be enabled at the same time{table}."
        )
    sequence_fields = {s for g in groups for s in g.sequence_fields}
    if options.contains(_REMOVE_ON_GROUP) and not (
        set(options.partial_update_remove_record_on_sequence_group) <= sequence_fields
        and options.partial_update_remove_record_on_sequence_group
    ):
        raise ValidationError(
            f"field '{options.raw.get(_REMOVE_ON_GROUP, '')}' defined in '{_REMOVE_ON_GROUP}' "
            f"option must be part of sequence groups{table}"
        )
    aggs = []
    for fld in value_fields:
        if fld.name in primary_keys or fld.name in sequence_fields:
            continue
        function = options.field_aggregate_function(fld.name) or options.fields_default_aggregate_function
        if function is None:
            continue
        if function != "last_non_null_value" and fld.name not in protected:
            raise ValidationError(
                f"Must use sequence group for aggregation functions but not found for field {fld.name}.{table}"
            )
        if fld.name not in protected:
            continue  # last_non_null_value outside a group is what partial-update does anyway
        fa = field_agg(fld, function, options)
        if function in _NOT_IN_GROUPS:
            raise UnsupportedError(
                f"Aggregate function '{function}' of field {fld.name!r} in a partial-update sequence group is "
                f"not supported by paimon_sql yet{table}"
            )
        aggs.append(fa)
    return tuple(groups), tuple(aggs)
