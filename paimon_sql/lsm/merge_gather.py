"""Partial-update and aggregation merges that gather every output column once, from the input.

``merge.partial_update`` / ``merge.aggregation`` (the reference, kept for the tests) take the
records of every multi-record key into a new table, merge that, and interleave the merged rows with
the single-record keys' rows: two or three gathers of every column. Here the merge works on row
numbers instead:

- a key with one record keeps it: its output row is that input row;
- for a multi-record key, the columns whose value is one of the key's records (partial-update's
  newest non-null value, the ``last_value`` / ``last_non_null_value`` / key aggregators) are found as
  a row number (from the rows' kinds and the columns' validity, without reading the values);
- only the columns an aggregator computes (``sum``, ``max``, ...) gather the multi-record keys'
  values (that column alone) and patch them into the newest rows' values;
- retractions a read drops are dropped from the row numbers before anything is gathered.

Every column is then one ``take`` of the input with a row number per output row (null where the
merge gives null). The rows are those of the reference merges (the property test
``tests/lsm/test_merge_runs_property.py`` compares them).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import pyarrow as pa

from paimon_sql.errors import UnsupportedError
from paimon_sql.format.system_fields import KIND, SEQ
from paimon_sql.lsm import merge
from paimon_sql.lsm.agg_base import KeyGroups, make_segments
from paimon_sql.lsm.aggregate import ROW_PICKING, aggregate_column, aggregate_groups, aggregate_rows
from paimon_sql.lsm.merge_arrays import (
    KIND_DELETE,
    KIND_INSERT,
    KIND_UPDATE_AFTER,
    KIND_UPDATE_BEFORE,
    last_where,
)
from paimon_sql.lsm.merge_runs import SortedView, sorted_view
from paimon_sql.lsm.merge_spec import MergeSpec


class _Groups:
    """The key groups of a sorted view, split into single-record and multi-record keys.

    ``last_rows`` and ``multi`` come from the view's group ends alone (one pass over the groups);
    the multi-record keys' rows (``rows``, ``starts``, ``ends``) are found only when a merge looks
    at them (retractions, nulls, aggregated columns): a read whose every key takes its newest
    record gathers nothing else."""

    def __init__(self, view: SortedView) -> None:
        self._view = view
        ends = view.ends
        self._single = len(ends) == view.num_rows  # every key has one record
        if self._single:
            self.last_rows: np.ndarray = view.order  # per group: its newest record's input row
            self.multi: np.ndarray = np.zeros(len(ends), dtype=bool)  # per group: several records
        else:
            self.last_rows = view.order.take(ends)
            self.multi = ~view.starts.take(ends)  # its last record does not start it

    @cached_property
    def sizes(self) -> np.ndarray:
        """Per group: its number of records."""
        ends = self._view.ends
        if self._single:
            return np.ones(len(ends), dtype=np.int64)
        sizes = np.empty_like(ends)  # np.diff(ends, prepend=-1), without its copies
        sizes[0] = ends[0] + 1
        np.subtract(ends[1:], ends[:-1], out=sizes[1:])
        return sizes

    @cached_property
    def _multi_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        v = self._view
        if self._single:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        same = ~v.starts[1:]  # adjacent positions of one key
        shared = np.zeros(v.num_rows, dtype=bool)  # positions of multi-record keys
        shared[1:] = same
        shared[:-1] |= same
        # integer positions: numpy gathers by index several times faster than by boolean mask
        pos = np.flatnonzero(shared)
        m_starts = np.flatnonzero(v.starts[pos])
        m_ends = np.append(m_starts[1:] - 1, len(pos) - 1)
        return v.order[pos], m_starts, m_ends

    @property
    def rows(self) -> np.ndarray:
        """The multi-record keys' input rows, in merge order."""
        return self._multi_rows[0]

    @property
    def starts(self) -> np.ndarray:
        """Per multi-record key: its first position in ``rows``."""
        return self._multi_rows[1]

    @property
    def ends(self) -> np.ndarray:
        """Per multi-record key: its last position in ``rows`` (inclusive)."""
        return self._multi_rows[2]


def _numpy(table: pa.Table, name: str, dtype: type) -> np.ndarray:
    return np.asarray(table.column(name).to_numpy(), dtype=dtype)


def _validity(col: pa.ChunkedArray | pa.Array) -> np.ndarray | None:
    """Per input row, the value is not null; None when no value is."""
    if col.null_count == 0:
        return None
    return np.asarray(col.is_valid().to_numpy(zero_copy_only=False), dtype=bool)


def _patched(taken: pa.ChunkedArray, g: _Groups, merged: pa.Array, keep: np.ndarray) -> pa.Array:
    """``taken`` (a column at the kept groups' newest rows) with the multi-record keys' values
    replaced by ``merged`` (one per multi-record key)."""
    base = taken.combine_chunks()
    merged = merged if merged.type.equals(base.type) else merged.cast(base.type)
    at = g.multi[keep]
    if not keep.all():
        merged = merged.filter(pa.array(keep[g.multi]))
    pos = np.arange(len(base), dtype=np.int64)  # any type (replace_with_mask has no nested kernels)
    pos[at] = len(base) + np.arange(len(merged), dtype=np.int64)
    return pa.concat_arrays([base, merged]).take(pa.array(pos))


def _numeric(t: pa.DataType) -> bool:
    return pa.types.is_integer(t) or pa.types.is_floating(t)


def _values(arr: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray | None]:
    """A numeric column's values (nulls as 0) and validity (None without nulls)."""
    valid = _validity(arr)
    return np.asarray((arr if valid is None else arr.fill_null(0)).to_numpy()), valid


def _patched_numeric(col: pa.ChunkedArray, idx: np.ndarray, g: _Groups, merged: pa.Array,
                     keep: np.ndarray, known: tuple[np.ndarray, np.ndarray | None] | None = None) -> pa.Array:
    """``_patched`` for an integer or floating column, in numpy: the newest rows' values gathered
    (``idx``: the kept groups' newest rows) and the multi-record keys' ``merged`` values written
    over them, without taking the column through Arrow twice."""
    t = col.type
    merged = merged if merged.type.equals(t) else merged.cast(t)
    if not keep.all():
        merged = merged.filter(pa.array(keep[g.multi]))
    at = np.flatnonzero(g.multi[keep] if not keep.all() else g.multi)  # positions: faster than a mask
    values, valid = known if known is not None else _values(col)
    m_values, m_valid = _values(merged)
    out = values.take(idx)
    out[at] = m_values
    if valid is None and m_valid is None:
        return pa.array(out, type=t)
    ok = np.ones(len(idx), dtype=bool) if valid is None else valid[idx]
    ok[at] = True if m_valid is None else m_valid
    return pa.array(out, type=t, mask=~ok)


def _retracts(kinds: np.ndarray) -> bool:
    """Whether any of ``kinds`` is a retraction (-U / -D: the odd kinds)."""
    assert KIND_UPDATE_BEFORE % 2 == KIND_DELETE % 2 == 1 and KIND_INSERT % 2 == KIND_UPDATE_AFTER % 2 == 0
    return bool((kinds & 1).any())


def _kept(kinds: np.ndarray, keep_deletes: bool) -> np.ndarray:
    """The output groups a read keeps (a writer, ``keep_deletes``, keeps all)."""
    if keep_deletes:
        return np.ones(len(kinds), dtype=bool)
    return (kinds == KIND_INSERT) | (kinds == KIND_UPDATE_AFTER)


def _assemble(table: pa.Table, g: _Groups, kind: np.ndarray, seq: np.ndarray | None, keep: np.ndarray,
              picks: dict[str, np.ndarray], computed: dict[str, pa.Array],
              numeric: dict[str, tuple[np.ndarray, np.ndarray | None]] | None = None,
              whole: dict[str, pa.Array] | None = None) -> pa.Table:
    """The output table: ``_VALUE_KIND`` / ``_SEQUENCE_NUMBER`` per group, ``whole`` columns (a
    value per group) as they are, ``computed`` columns (one value per multi-record key) patched in,
    ``picks`` columns (a row per multi-record key, -1: null) and every other column (the newest
    record's) taken from ``table``, each once (the columns sharing row numbers in one ``take``)."""
    by_pick: dict[int, list[str]] = {}
    out: dict[str, pa.Array | pa.ChunkedArray] = {}
    every = bool(keep.all())
    for name in table.column_names:
        if name == KIND:
            out[name] = pa.array(kind if every else kind[keep], pa.int8())
        elif name == SEQ and seq is not None:
            out[name] = pa.array(seq if every else seq[keep], pa.int64())
        elif whole and name in whole:
            out[name] = whole[name] if every else whole[name].filter(pa.array(keep))
        else:  # computed columns: the newest rows', patched below
            by_pick.setdefault(id(picks.get(name)), []).append(name)
    fast = {n for n in computed if _numeric(table.schema.field(n).type) and n not in picks}
    if fast:
        idx = g.last_rows if every else g.last_rows[keep]
        for n in fast:
            out[n] = _patched_numeric(table.column(n), idx, g, computed[n], keep, (numeric or {}).get(n))
        by_pick = {k: [n for n in names if n not in fast] for k, names in by_pick.items()}
    for names in by_pick.values():
        if not names:
            continue
        pick = picks.get(names[0])
        idx = g.last_rows
        if pick is not None:
            idx = idx.copy()
            idx[g.multi] = np.where(pick >= 0, g.rows[np.maximum(pick, 0)], -1)
        idx = idx if every else idx[keep]
        taken = _take_table(table.select(names), idx)
        out.update((n, _patched(c, g, computed[n], keep) if n in computed else c) for n, c in zip(names, taken.columns))
    return pa.Table.from_arrays([out[n] for n in table.column_names], names=table.column_names)


def _take_table(table: pa.Table, idx: np.ndarray) -> pa.Table:
    """``table`` at the rows ``idx`` (nulls where -1)."""
    # int32 row numbers where they fit: Arrow's take is faster with narrower indices
    dtype = np.int32 if table.num_rows < 2**31 else np.int64
    missing = idx < 0
    if missing.any():
        return table.take(pa.array(np.where(missing, 0, idx).astype(dtype, copy=False), mask=missing))
    return table.take(pa.array(idx.astype(dtype, copy=False)))


def partial_update(table: pa.Table, spec: MergeSpec, keep_deletes: bool = False,
                   view: SortedView | None = None) -> pa.Table:
    """``merge.partial_update`` (see there for the rules), each column gathered once. Sequence
    groups are merged by the reference. Without a ``_SEQUENCE_NUMBER`` column in ``table`` (a read
    that does not return it) none is computed."""
    if spec.sequence_groups or (spec.ignore_delete and spec.remove_record_on_delete):
        return merge.partial_update(table, spec, keep_deletes, view)
    v = view if view is not None else sorted_view(table, spec)
    if v.num_rows == 0:
        return table.slice(0, 0)
    g = _Groups(v)
    all_kinds = _numpy(table, KIND, np.int8)
    all_seq = _numpy(table, SEQ, np.int64) if SEQ in table.column_names else None
    kind = all_kinds[g.last_rows]
    seq = None if all_seq is None else all_seq[g.last_rows]
    picks: dict[str, np.ndarray] = {}
    keys = set(spec.key_columns)
    multi = bool(g.multi.any())
    validity = {name: _validity(table.column(name)) for name in table.column_names
                if name not in keys and name not in (KIND, SEQ)} if multi else {}
    if multi and not _retracts(all_kinds) and all(v is None for v in validity.values()):
        # every record counts and every value is set: each key's newest record is its row
        kind[g.multi] = KIND_INSERT
    elif multi:
        rows, starts, ends = g.rows, g.starts, g.ends
        n = len(rows)
        kinds = all_kinds[rows]
        retract = (kinds == KIND_UPDATE_BEFORE) | (kinds == KIND_DELETE)
        any_retract = bool(retract.any())
        if any_retract and not spec.ignore_delete and not spec.remove_record_on_delete:
            raise UnsupportedError(
                "The partial-update merge engine cannot accept delete records by default: set "
                "'ignore-delete' = 'true' to ignore them, or 'partial-update.remove-record-on-delete' = "
                "'true' to remove the row"
            )
        counted: np.ndarray | None = None  # None: every record counts (no retraction)
        if any_retract:
            first = np.zeros(n, dtype=bool)
            first[starts] = True
            counted = ~retract | first  # a leading retraction initialises the row
            deleted = np.zeros(len(starts), dtype=bool)
            if spec.remove_record_on_delete:
                reset = kinds == KIND_DELETE
                last_reset = np.maximum.accumulate(np.where(reset, np.arange(n), -1))[ends]
                group_of = np.repeat(np.arange(len(starts)), ends - starts + 1)
                counted = (counted | reset) & (np.arange(n) >= last_reset[group_of])
                deleted = reset[ends]
            if seq is not None and all_seq is not None and spec.ignore_delete:  # the last record not ignored
                last_counted = np.maximum.accumulate(np.where(~retract, np.arange(n), -1))[ends]
                seq[g.multi] = np.where(last_counted >= starts, all_seq[rows[np.maximum(last_counted, 0)]], 0)
            meet_insert = np.add.reduceat((~retract).astype(np.int64), starts) > 0
            kind[g.multi] = np.where(deleted | ~meet_insert, KIND_DELETE, KIND_INSERT)
        else:
            kind[g.multi] = KIND_INSERT
        for name, valid in validity.items():
            if valid is None and counted is None:
                continue  # the newest record's value
            if valid is None:
                mask = counted if counted is not None else np.ones(n, dtype=bool)
            else:
                mask = valid[rows] if counted is None else counted & valid[rows]
            picks[name] = last_where(mask, starts, ends)
    return _assemble(table, g, kind, seq, _kept(kind, keep_deletes), picks, {})


def aggregation(table: pa.Table, spec: MergeSpec, keep_deletes: bool = False,
                view: SortedView | None = None) -> pa.Table:
    """``merge.aggregation`` (see there for the rules), each column gathered once: the
    ``ROW_PICKING`` functions as row numbers, the others over the multi-record keys' values only,
    or, when no record retracts (every record aggregates, one segment per key), folded key group
    by key group from each group's newest record's value where the function has that shortcut
    (``Aggregator.reduce_groups``: integer sums, min / max of numbers): its result is then the
    output column itself, and the multi-record keys' rows are not cut out at all."""
    v = view if view is not None else sorted_view(table, spec)
    if v.num_rows == 0:
        return table.slice(0, 0)
    aggs = {fa.column: fa for fa in spec.field_aggs}
    g = _Groups(v)
    all_kinds = _numpy(table, KIND, np.int8)
    kind = all_kinds[g.last_rows]
    seq = _numpy(table, SEQ, np.int64)[g.last_rows] if SEQ in table.column_names else None
    picks: dict[str, np.ndarray] = {}
    computed: dict[str, pa.Array] = {}
    numeric: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
    whole: dict[str, pa.Array] = {}
    if not g.multi.any():
        return _assemble(table, g, kind, seq, _kept(kind, keep_deletes), picks, computed)
    columns = [(n, aggs[n]) for n in table.column_names if n in aggs and n not in (KIND, SEQ)]
    if not _retracts(all_kinds):  # every record aggregates: one segment per key, no reset
        kind[g.multi] = KIND_INSERT
        groups: KeyGroups | None = None
        for name, fa in columns:
            col = table.column(name)
            if fa.function in ROW_PICKING or not _numeric(col.type):
                continue
            if groups is None:
                groups = KeyGroups.of(v.order, v.ends, g.sizes, g.last_rows)
                if groups is None:  # a key of many records: the segments' folds
                    break
            out = aggregate_groups(col, groups, fa)
            if out is not None:
                whole[name] = out
        # the newest record's value for a row-picking function over values without nulls
        columns = [(n, fa) for n, fa in columns if n not in whole
                   and not (fa.function in ROW_PICKING and table.column(n).null_count == 0)]
    if columns:
        seg = make_segments(g.starts, g.ends, all_kinds[g.rows], spec.remove_record_on_delete)
        last_seg = seg.ids[g.ends]
        kind[g.multi] = np.where(seg.reset_rows[g.ends], KIND_DELETE, KIND_INSERT)
        plain = not seg.retract.any() and not seg.reset_rows.any()  # every record aggregates
        for name, fa in columns:
            col = table.column(name)
            if fa.function in ROW_PICKING:
                valid = _validity(col)
                if valid is None and plain:
                    continue  # the newest record's value
                picked = aggregate_rows(np.ones(len(g.rows), dtype=bool) if valid is None else valid[g.rows], seg, fa)
                picks[name] = picked[last_seg]
                continue
            if _numeric(col.type):
                # integers and floats: the values once in numpy, for the aggregator's rows and the patch
                numeric[name] = _values(col)
                values, valid = numeric[name]
                sub = pa.array(values[g.rows], type=col.type, mask=None if valid is None else ~valid[g.rows])
            else:
                sub = col.take(pa.array(g.rows))
            merged = aggregate_column(sub, seg, fa)
            # one segment per key (no retraction resets a row): the segments' results are the keys'
            computed[name] = merged if len(seg.starts) == len(g.starts) else merged.take(pa.array(last_seg))
    return _assemble(table, g, kind, seq, _kept(kind, keep_deletes), picks, computed, numeric, whole)
