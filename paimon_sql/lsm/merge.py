"""Merge engines: how the records of one primary key, ordered by sequence, become one row.

The input of every engine is one Arrow table holding the rows of several sorted runs of a bucket,
with the key columns, ``_SEQUENCE_NUMBER``, ``_VALUE_KIND`` and the value columns. Engines are
vectorised: the rows in (key, sequence) order come from ``merge_runs.sorted_view`` (the sorted runs
merged, not re-sorted), group boundaries from its key groups; rows are gathered once. The stable sort
by (key, sequence) of the whole input (``sort_indices``, ``reference_view``) is the reference the
tests compare the view with.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.format.system_fields import KIND, SEQ
from paimon_sql.lsm.agg_base import make_segments
from paimon_sql.lsm.aggregate import aggregate_column, build_field_aggs
from paimon_sql.lsm.merge_arrays import (
    KIND_DELETE,
    KIND_INSERT,
    KIND_UPDATE_AFTER,
    KIND_UPDATE_BEFORE,
    PER_KEY_NULL_PLACEMENT,
    group_last_mask,
    java_key_order,
    last_non_null,
    partial_update_seq_and_insert,
)
from paimon_sql.lsm.merge_runs import SortedView, sorted_view
from paimon_sql.lsm.merge_spec import MergeSpec, SequenceGroup  # noqa: F401 (re-exported)
from paimon_sql.lsm.partial_update_groups import merge_with_groups
from paimon_sql.options import CoreOptions
from paimon_sql.types import DataField


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
    if PER_KEY_NULL_PLACEMENT:
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


def reference_view(table: pa.Table, spec: MergeSpec) -> SortedView:
    """The merge order by the stable sort of every row by (key, sequence): what ``sorted_view`` must
    equal (the property tests compare the engines' results over both)."""
    idx = sort_indices(table, spec)
    last = group_last_mask(table.select(list(spec.key_columns)).take(idx), spec.key_columns)
    return SortedView(np.asarray(idx.to_numpy(), dtype=np.int64), np.concatenate([[True], last[:-1]]) if len(last) else last)


def _is_add(kinds: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | pa.Array:
    return pc.or_(pc.equal(kinds, KIND_INSERT), pc.equal(kinds, KIND_UPDATE_AFTER))


def _retract_free(table: pa.Table, view: SortedView) -> SortedView:
    """``view`` without the table's retractions (-U, -D)."""
    kinds = table.column(KIND)
    if table.num_rows == 0 or pc.max(kinds).as_py() == KIND_INSERT:
        return view
    return view.keep_rows(np.asarray(_is_add(kinds).to_numpy(zero_copy_only=False), dtype=bool))


def _drop_retracts(table: pa.Table) -> pa.Table:
    kinds = table.column(KIND)
    if table.num_rows == 0 or pc.max(kinds).as_py() == KIND_INSERT:
        return table  # the common case: inserts only
    return table.filter(_is_add(kinds))


def _finish(table: pa.Table, keep_deletes: bool) -> pa.Table:
    """A merge result as a read returns it (retractions dropped) or as a writer keeps it."""
    return table if keep_deletes else _drop_retracts(table)


def deduplicate(table: pa.Table, spec: MergeSpec, keep_deletes: bool = False,
                view: SortedView | None = None) -> pa.Table:
    """The newest record of each key wins; a key whose newest record is a retraction disappears
    (``keep_deletes``: stays as that retraction, to shadow older files). ``view``: the rows' merge
    order (default ``sorted_view``)."""
    v = view if view is not None else sorted_view(table, spec)
    if spec.ignore_delete:
        v = _retract_free(table, v)
    winners = v.order[np.flatnonzero(v.last_mask())]  # by index: faster than a boolean mask
    return _finish(take_rows(table, winners), keep_deletes)


def take_rows(table: pa.Table, rows: np.ndarray) -> pa.Table:
    """``table.take(rows)``; a slice when ``rows`` are consecutive (a newer run that replaced every
    key of an older one wins whole: no gather of its columns)."""
    n = len(rows)
    if n and int(rows[-1]) - int(rows[0]) == n - 1 and bool((np.diff(rows) == 1).all()):
        return table.slice(int(rows[0]), n)
    return table.take(pa.array(rows))


def first_row(table: pa.Table, spec: MergeSpec, keep_deletes: bool = False,
              view: SortedView | None = None) -> pa.Table:
    """The oldest inserted record of each key wins; retractions are ignored."""
    v = _retract_free(table, view if view is not None else sorted_view(table, spec))
    return table.take(pa.array(v.order[np.flatnonzero(v.first_mask())]))


GroupMerge = Callable[[pa.Table, np.ndarray, np.ndarray], pa.Table]


def _merge_groups(table: pa.Table, spec: MergeSpec, merge_multi: GroupMerge,
                  view: SortedView | None = None) -> pa.Table:
    """Takes the rows by key and sequence (``view``, default ``sorted_view``); a key with one record
    keeps it unchanged (Paimon's ReducerMergeFunctionWrapper never calls the merge function for it),
    the records of every other key go to ``merge_multi(rows, starts, ends)``, which returns one row
    per key group (same columns). The result is in key order."""
    v = view if view is not None else sorted_view(table, spec)
    if v.num_rows == 0:
        return table.slice(0, 0)
    starts, ends = v.bounds()
    sizes = ends - starts + 1
    multi = sizes > 1
    if not multi.any():
        return table.take(pa.array(v.order))
    row_multi = np.repeat(multi, sizes)
    mt = table.take(pa.array(v.order[row_multi]))
    m_sizes = sizes[multi]
    m_ends = np.cumsum(m_sizes) - 1
    m_starts = m_ends - m_sizes + 1
    merged = merge_multi(mt, m_starts, m_ends)
    if multi.all():
        return merged
    # in key order, gathered once: a single-record key's row from the input, a merged key's from
    # ``merged`` (after the input's rows in the concatenation)
    pos = np.empty(len(sizes), dtype=np.int64)
    pos[~multi] = v.order[starts[~multi]]
    pos[multi] = table.num_rows + np.arange(len(m_sizes))
    both = pa.concat_tables([table, merged.cast(table.schema)])
    return both.take(pa.array(pos))


def partial_update(table: pa.Table, spec: MergeSpec, keep_deletes: bool = False,
                   view: SortedView | None = None) -> pa.Table:
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
            _merge_groups(table, spec, lambda t, s, e: merge_with_groups(t, s, e, spec), view), keep_deletes
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
        seq_out, meet_insert = partial_update_seq_and_insert(t, retract, starts, ends, spec.ignore_delete)
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
                cols.append(last_non_null(col, starts, ends, rows))
        return pa.Table.from_arrays(cols, names=t.column_names)

    return _finish(_merge_groups(table, spec, merge_multi, view), keep_deletes)


def aggregation(table: pa.Table, spec: MergeSpec, keep_deletes: bool = False,
                view: SortedView | None = None) -> pa.Table:
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

    return _finish(_merge_groups(table, spec, merge_multi, view), keep_deletes)


class MergeFunction(Protocol):
    def __call__(self, table: pa.Table, spec: MergeSpec, keep_deletes: bool = False,
                 view: SortedView | None = None) -> pa.Table: ...


def aggregation_spec(
    options: CoreOptions, spec: MergeSpec, value_fields: Sequence[DataField], primary_keys: Sequence[str],
    where: str,
) -> MergeSpec:
    """``spec`` with the aggregation engine's options: every value field's aggregate function."""
    return replace(
        spec, field_aggs=build_field_aggs(options, value_fields, primary_keys),
        remove_record_on_delete=options.aggregation_remove_record_on_delete,
    )
