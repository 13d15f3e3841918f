"""Changelog of a compaction (changelog-producer ``lookup`` and ``full-compaction``), as Paimon's
LookupChangelogMergeFunctionWrapper and FullChangelogMergeFunctionWrapper produce it, vectorised.

For every key the compaction changes, the record before (``lookup``: the key's record of the
lowest level above 0, among the compaction's inputs or looked up in the levels above its output;
``full-compaction``: the key's record of the highest level) is compared with the merged record
after: +I for a key that had no live record before, -D (of the before row) for a key whose merged
record is a retraction, -U (before) and +U (after) for a changed key; with
``changelog-producer.row-deduplicate`` nothing for a key whose value columns (less
``changelog-producer.row-deduplicate-ignore-fields``) are equal before and after.

Also Paimon's LookupMergeFunction: in a table that needs lookup (changelog-producer lookup,
deletion vectors, force-lookup), the records of a key above level 0 are not all merged: only the
one of the lowest level (the newest such level) joins the key's level-0 records, because it
already holds the merge of the levels below it (``lookup_merge_filter``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.format.system_fields import KIND
from paimon_sql.lsm.merge import group_last_mask, java_key_order
from paimon_sql.lsm.merge_arrays import KIND_DELETE, KIND_INSERT, KIND_UPDATE_AFTER, KIND_UPDATE_BEFORE
from paimon_sql.options import CoreOptions

# the LSM level a record was read from (a column added for merging, never written)
LEVEL = "__level"


def needs_lookup(options: CoreOptions) -> bool:
    """Paimon's ``CoreOptions.needLookup``: changelog-producer lookup, deletion vectors, the
    first-row engine or ``force-lookup``."""
    return (
        options.changelog_producer == "lookup"
        or options.deletion_vectors_enabled
        or options.merge_engine == "first-row"
        or bool(options.get("force-lookup"))
    )


def lookup_merges_levels(options: CoreOptions) -> bool:
    """Reads and compactions merge a key's records as Paimon's LookupMergeFunction does (tables that
    need lookup, but first-row, which Paimon does not wrap)."""
    return needs_lookup(options) and options.merge_engine != "first-row"


def dedup_fields(options: CoreOptions, value_names: Sequence[str]) -> list[str] | None:
    """The value columns compared by ``changelog-producer.row-deduplicate`` (without its
    ``-ignore-fields``), or None when the option is off (every change is emitted)."""
    if not options.get("changelog-producer.row-deduplicate"):
        return None
    ignore = options.get("changelog-producer.row-deduplicate-ignore-fields") or ""
    ignored = {s.strip() for s in ignore.split(",") if s.strip()}
    return [n for n in value_names if n not in ignored]


def _key_table(table: pa.Table, key_columns: Sequence[str]) -> pa.Table:
    return pa.table([java_key_order(table.column(k)) for k in key_columns], names=list(key_columns))


def key_mask(table: pa.Table, keys: pa.Table, key_columns: Sequence[str]) -> np.ndarray:
    """True at the rows of ``table`` whose key is one of ``keys``' (keys compared as Paimon does)."""
    n = table.num_rows
    if n == 0 or keys.num_rows == 0:
        return np.zeros(n, dtype=bool)
    mine, theirs = _key_table(table, key_columns), _key_table(keys, key_columns)
    if len(key_columns) == 1:
        name = key_columns[0]
        col = mine.column(name)
        hit = pc.is_in(col, value_set=theirs.column(name).combine_chunks(), skip_nulls=False)
        return np.asarray(hit.to_numpy(zero_copy_only=False), dtype=bool)
    rows = mine.append_column("__row", pa.array(np.arange(n, dtype=np.int64)))
    found = rows.join(theirs.group_by(list(key_columns)).aggregate([]), keys=list(key_columns),
                      join_type="left semi").column("__row")
    mask = np.zeros(n, dtype=bool)
    mask[np.asarray(found.to_numpy(), dtype=np.int64)] = True
    return mask


def _first_of_groups(table: pa.Table, key_columns: Sequence[str], order: Sequence[tuple[str, str]]) -> np.ndarray:
    """Row indexes of ``table``: per key, the first row in ``order`` (after the key)."""
    sub = _key_table(table, key_columns)
    for name, _ in order:
        sub = sub.append_column(name, table.column(name))
    idx = pc.sort_indices(sub, sort_keys=[(k, "ascending") for k in key_columns] + list(order),
                          )
    last = group_last_mask(sub.take(idx), key_columns)
    first = np.concatenate([[True], last[:-1]]) if len(last) else last
    return np.asarray(idx.to_numpy(), dtype=np.int64)[first]


def lookup_merge_filter(table: pa.Table, key_columns: Sequence[str]) -> pa.Table:
    """``table`` (records with a ``LEVEL`` column) without the records above level 0 that are not
    their key's lowest such level (Paimon's LookupMergeFunction.pickHighLevel)."""
    levels = np.asarray(table.column(LEVEL).to_numpy(), dtype=np.int32)
    high = levels > 0
    if int(high.sum()) <= 1 or len(np.unique(levels[high])) <= 1:
        return table  # one level above 0: a sorted run holds each key once
    low = np.flatnonzero(~high)
    hi_rows = np.flatnonzero(high)
    hi = table.take(pa.array(hi_rows))
    keep = hi_rows[_first_of_groups(hi, key_columns, [(LEVEL, "ascending")])]
    return table.take(pa.array(np.sort(np.concatenate([low, keep]))))


def _values_equal(a: pa.Table, b: pa.Table, names: Sequence[str]) -> np.ndarray:
    """Row by row: are the ``names`` columns of ``a`` and ``b`` equal (two nulls equal)?"""
    eq = np.ones(a.num_rows, dtype=bool)
    for n in names:
        x, y = a.column(n), b.column(n)
        try:
            same = pc.fill_null(pc.equal(x, y), False)
            both_null = pc.and_(pc.is_null(x), pc.is_null(y))
            col_eq = np.asarray(pc.or_(same, both_null).to_numpy(zero_copy_only=False), dtype=bool)
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
            # nested columns (arrays, maps, rows) have no vectorised compare in Arrow: by value
            col_eq = np.array([p == q for p, q in zip(x.to_pylist(), y.to_pylist())], dtype=bool)
        eq &= col_eq
    return eq


def changelog_of(
    before: pa.Table, after: pa.Table, key_columns: Sequence[str], compare: Sequence[str] | None,
) -> pa.Table:
    """The changelog rows of the keys of ``after`` (one merged record per key, in key order, with
    ``_VALUE_KIND``), given ``before`` (at most one record per key; keys of ``after`` only). Rows of
    the columns of ``after``, in key order, a key's -U before its +U; ``compare``: the value columns
    of row-deduplicate (None: every change is emitted)."""
    n = after.num_rows
    if n == 0:
        return after
    a_idx = np.arange(n, dtype=np.int64)
    b_of_a = np.full(n, -1, dtype=np.int64)
    if before.num_rows:
        left = _key_table(after, key_columns).append_column("__a", pa.array(a_idx))
        right = _key_table(before, key_columns).append_column(
            "__b", pa.array(np.arange(before.num_rows, dtype=np.int64)))
        j = left.join(right, keys=list(key_columns), join_type="inner")
        b_of_a[np.asarray(j.column("__a").to_numpy(), dtype=np.int64)] = np.asarray(
            j.column("__b").to_numpy(), dtype=np.int64)
    a_kind = np.asarray(after.column(KIND).to_numpy(), dtype=np.int8)
    after_add = (a_kind == KIND_INSERT) | (a_kind == KIND_UPDATE_AFTER)
    has_before = b_of_a >= 0
    before_add = np.zeros(n, dtype=bool)
    if has_before.any():
        b_kind = np.asarray(before.column(KIND).to_numpy(), dtype=np.int8)
        bk = b_kind[b_of_a[has_before]]
        before_add[has_before] = (bk == KIND_INSERT) | (bk == KIND_UPDATE_AFTER)
    insert = ~before_add & after_add
    delete = before_add & ~after_add
    update = before_add & after_add
    if compare is not None and update.any():
        rows = np.flatnonzero(update)
        same = _values_equal(after.take(pa.array(rows)), before.take(pa.array(b_of_a[rows])), compare)
        update[rows[same]] = False
    # rows taken from before (-U, -D) and from after (+U, +I), then put in key order
    from_before = np.flatnonzero(update | delete)
    from_after = np.flatnonzero(update | insert)
    if len(from_before) == 0 and len(from_after) == 0:
        return after.slice(0, 0)
    cols = list(after.column_names)
    b_rows = before.select(cols).take(pa.array(b_of_a[from_before])) if len(from_before) else None
    a_rows = after.take(pa.array(from_after))
    b_kinds = np.where(delete[from_before], KIND_DELETE, KIND_UPDATE_BEFORE).astype(np.int8)
    a_kinds = np.where(update[from_after], KIND_UPDATE_AFTER, KIND_INSERT).astype(np.int8)
    parts = []
    if b_rows is not None:
        parts.append(b_rows.set_column(cols.index(KIND), KIND, pa.array(b_kinds)).cast(after.schema))
    parts.append(a_rows.set_column(cols.index(KIND), KIND, pa.array(a_kinds)).cast(after.schema))
    out = pa.concat_tables(parts)
    pos = np.concatenate([from_before, from_after])
    sub = np.concatenate([np.zeros(len(from_before), np.int8), np.ones(len(from_after), np.int8)])
    order = np.lexsort((sub, pos))
    return out.take(pa.array(order))


def before_rows(table: pa.Table, key_columns: Sequence[str], levels: np.ndarray) -> pa.Table:
    """The rows of ``table`` at ``levels`` (a mask), one per key (the lowest level's)."""
    rows = np.flatnonzero(levels)
    if len(rows) == 0:
        return table.slice(0, 0)
    t = table.take(pa.array(rows))
    lv = np.asarray(t.column(LEVEL).to_numpy(), dtype=np.int32)
    if len(np.unique(lv)) > 1:
        t = t.take(pa.array(_first_of_groups(t, key_columns, [(LEVEL, "ascending")])))
    return t


def changed_keys(table: pa.Table, key_columns: Sequence[str], mask: np.ndarray) -> pa.Table:
    """The distinct keys of the rows of ``table`` at ``mask``."""
    keys = table.select(list(key_columns)).filter(pa.array(mask))
    if len(key_columns) == 1:
        return pa.table([pc.unique(keys.column(0).combine_chunks())], names=list(key_columns))
    return keys.group_by(list(key_columns)).aggregate([])

