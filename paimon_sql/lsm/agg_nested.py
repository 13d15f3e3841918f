"""Paimon's ``nested_update`` and ``nested_partial_update`` aggregate functions (``FieldNestedUpdateAgg``,
``FieldNestedPartialUpdateAgg`` of Paimon 1.4) over ``ARRAY<ROW<...>>`` columns ("nested tables").

Facts reproduced (per key, records folded in sequence order):

* ``agg(null, x)`` and ``agg(acc, null)`` keep the non-null side as it is: a key's first non-null
  array (or a -D's under ``aggregation.remove-record-on-delete``) is kept verbatim, null elements and
  duplicate nested keys included, until a second non-null array comes.
* Merging two arrays drops their null elements. Without ``fields.<f>.nested-key`` (nested_update
  only) the rows are appended; with it, the rows go into a new Java ``HashMap`` keyed by the
  ``BinaryRow`` of the key fields: a later row replaces an earlier one of the same key, which keeps
  its place, and the result is the map's iteration order (buckets by the BinaryRow's Murmur hash,
  insertion order inside a bucket). Without retractions that is the order of the keys' first
  arrival within each bucket.
* ``fields.<f>.count-limit`` (nested_update): an accumulator of at least that many elements (null
  elements counted) takes nothing more; otherwise only the first ``limit - size`` non-null rows of
  the input are added (with a nested key, before deduplication).
* nested_update retracts: with a nested key the retracted rows' keys are removed (the remaining
  rows in the order of a HashMap rebuilt from the accumulator); without one every accumulated row
  equal to a retracted row is removed.
* nested_partial_update (a nested key is required): rows of the same key merge field by field, the
  latest non-null value of each field winning; no retraction.

The common case (no retraction in a key; a count limit that cannot bind) is computed for all keys
at once: key rows are encoded as BinaryRows (identity) and hashed with numpy. Keys with retractions,
or whose count limit can bind with a nested key, are folded record by record over element indices.
Java ``HashMap`` bins that turn into trees (9+ colliding keys) are not modelled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql import types as pt
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.format.binary_row import encode_rows_array
from paimon_sql.format.java_hash import java_hash_map_order
from paimon_sql.format.murmur import hash_columns
from paimon_sql.lsm.agg_base import (
    Aggregator,
    FieldAgg,
    Segments,
    agg_and_retract_rows,
    count_true,
    first_true,
    valid_mask,
)
from paimon_sql.options import CoreOptions
from paimon_sql.types import DataType

__all__ = ["NestedUpdate", "NestedPartialUpdate"]


def _row_type(fa: FieldAgg) -> pt.RowType:
    return cast(pt.RowType, cast(pt.ArrayType, fa.data_type).element)


def _hash_map_capacity(n: np.ndarray) -> np.ndarray:
    """Table length of a ``new HashMap<>()`` after ``n`` distinct puts: 16, doubled while the size
    exceeds 3/4 of it."""
    cap = np.full(len(n), 16, dtype=np.int64)
    while True:
        grow = n > cap * 3 // 4
        if not grow.any():
            return cap
        cap[grow] *= 2


class _Elements:
    """The elements of a column's arrays, flattened: per row its element range, per element its
    row, segment and validity; for keyed functions the nested key's identity within the segment
    (``key``: equal ids are equal key BinaryRows of one segment) and its Java ``hashCode()``."""

    def __init__(self, values: pa.Array, seg: Segments, key_fields: Sequence[str], row_type: pt.RowType) -> None:
        self.flat = cast(pa.StructArray, values.flatten())
        lengths = np.asarray(pc.fill_null(pc.list_value_length(values), 0).to_numpy(zero_copy_only=False),
                             dtype=np.int64)
        self.lengths = lengths
        self.row_start = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        self.row = np.repeat(np.arange(len(lengths)), lengths)
        self.seg = seg.ids[self.row]
        self.valid = valid_mask(self.flat)
        self.key = np.full(len(self.flat), -1, dtype=np.int64)
        self.hash = np.zeros(len(self.flat), dtype=np.int64)
        if key_fields and self.valid.any():
            present = np.flatnonzero(self.valid)
            sub = cast(pa.StructArray, self.flat.take(pa.array(present)))
            names = row_type.field_names
            cols = [sub.field(names.index(k)) for k in key_fields]
            types = [row_type.fields[names.index(k)].type for k in key_fields]
            # identity: the key's BinaryRow bytes, prefixed with the segment (a key of one segment)
            ident = encode_rows_array([pa.array(self.seg[present], pa.int64()), *cols], [pt.BigIntType(), *types])
            codes = pc.dictionary_encode(ident).indices
            self.key[present] = np.asarray(codes.to_numpy(zero_copy_only=False), dtype=np.int64)
            self.hash[present] = hash_columns(cols, types).astype(np.int64) & 0xFFFFFFFF

    def of(self, r: int) -> range:
        s = int(self.row_start[r])
        return range(s, s + int(self.lengths[r]))


class _Nested(Aggregator):
    """Shared by both functions: type and option checks, per-segment assembly of the result."""

    keys_required: ClassVar[bool] = False

    def check_table_options(self, field: str, options: CoreOptions) -> None:
        """Paimon 2.0's nested-key null strategy and nested sequence field are not implemented."""
        raw = options.raw
        strategy = raw.get(f"fields.{field}.nested-key-null-strategy")
        later = {k: v for k, v in (
            (f"fields.{field}.nested-key-null-strategy",
             None if strategy is None or strategy.strip().lower() == "merge" else strategy),
            (f"fields.{field}.nested-sequence-field", raw.get(f"fields.{field}.nested-sequence-field")),
        ) if v is not None}
        if later:
            raise UnsupportedError(
                f"Options {sorted(later)} of field {field!r} ({self.name}) come from Apache Paimon 2.0, whose "
                "nested_update semantics paimon_sql does not implement (it follows Paimon 1.4)"
            )

    def check_type(self, field: str, t: DataType) -> None:
        if t.root != "ARRAY" or cast(pt.ArrayType, t).element.root != "ROW":
            raise ValidationError(
                f"Data type for nested table column must be 'Array<Row>' but was '{t.to_string()}' "
                f"(field {field!r}, aggregate function {self.name})"
            )

    def check_options(self, fa: FieldAgg) -> None:
        if self.keys_required and not fa.nested_key:
            raise ValidationError(
                f"Aggregate function {self.name} of field {fa.column!r} needs 'fields.{fa.column}.nested-key' "
                "(the key fields of the nested rows)"
            )
        row = _row_type(fa)
        for k in fa.nested_key:
            if k not in row.field_names:
                raise ValidationError(
                    f"Nested key {k!r} of 'fields.{fa.column}.nested-key' is not a field of the nested rows "
                    f"{row.to_string()} (field {fa.column!r}, aggregate function {self.name})"
                )

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        agg, retract = agg_and_retract_rows(seg, active)
        valid = valid_mask(values)
        used = (agg | seg.reset_rows) & valid  # rows whose array is folded in (a reset row starts anew)
        minus = retract & valid
        el = _Elements(values, seg, fa.nested_key, _row_type(fa))
        n_segs = len(seg.starts)
        m = count_true(used, seg)
        first = first_true(used, seg)
        hard = self._hard(seg, el, used, minus, m, fa)
        verbatim = (m == 1) & ~hard
        merged = (m >= 2) & ~hard
        parts_seg: list[np.ndarray] = []
        parts_ord: list[np.ndarray] = []
        parts_src: list[np.ndarray] = []
        extra: pa.Array | None = None
        # one non-null array: kept as it is
        vrows = first[verbatim]
        if len(vrows):
            idx = _ranges(el.row_start[vrows], el.lengths[vrows])
            parts_seg.append(el.seg[idx])
            parts_ord.append(idx)
            parts_src.append(idx)
        if merged.any():
            seg_m, ord_m, src_m, extra = self._merge(values, seg, fa, el, used, first, merged)
            parts_seg.append(seg_m)
            parts_ord.append(ord_m)
            parts_src.append(src_m)
        is_null = m == 0
        if hard.any():
            for s in np.flatnonzero(hard).tolist():
                out = self._fold(int(seg.starts[s]), int(seg.ends[s]), seg, el, used, minus, fa)
                if out is None:
                    is_null[s] = True
                    continue
                parts_seg.append(np.full(len(out), s, dtype=np.int64))
                parts_ord.append(np.arange(len(out), dtype=np.int64))
                parts_src.append(np.asarray(out, dtype=np.int64))
        seg_all = np.concatenate(parts_seg) if parts_seg else np.zeros(0, dtype=np.int64)
        ord_all = np.concatenate(parts_ord) if parts_ord else np.zeros(0, dtype=np.int64)
        src_all = np.concatenate(parts_src) if parts_src else np.zeros(0, dtype=np.int64)
        perm = np.lexsort((ord_all, seg_all))
        source: pa.Array = el.flat if extra is None else pa.concat_arrays([el.flat, extra])
        items = source.take(pa.array(src_all[perm], pa.int64()))
        counts = np.bincount(seg_all, minlength=n_segs)
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
        return pa.ListArray.from_arrays(pa.array(offsets), items, type=values.type, mask=pa.array(is_null))

    # -- per function ------------------------------------------------------------------------

    def _hard(self, seg: Segments, el: _Elements, used: np.ndarray, minus: np.ndarray, m: np.ndarray,
              fa: FieldAgg) -> np.ndarray:
        """Segments folded record by record."""
        return np.zeros(len(seg.starts), dtype=bool)

    def _merge(
        self, values: pa.Array, seg: Segments, fa: FieldAgg, el: _Elements, used: np.ndarray, first: np.ndarray,
        merged: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, pa.Array | None]:
        """The ``merged`` segments (two or more arrays, nothing folded record by record): per output
        element its segment, its order within the segment and its index into the flat elements
        (then into the returned extra rows)."""
        raise NotImplementedError

    def _fold(self, start: int, end: int, seg: Segments, el: _Elements, used: np.ndarray, minus: np.ndarray,
              fa: FieldAgg) -> list[int] | None:
        raise NotImplementedError

    @staticmethod
    def _keyed_elements(el: _Elements, used: np.ndarray, merged: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The non-null elements of the used rows of ``merged`` segments (positions into the flat
        elements), and per key id of theirs the segment's Java HashMap order (a rank per key id;
        -1 for the ids of other elements)."""
        pos = np.flatnonzero(el.valid & used[el.row] & merged[el.seg])
        keys = el.key[pos]
        n_keys = int(el.key.max()) + 1 if len(el.key) else 0
        rank = np.full(n_keys, -1, dtype=np.int64)
        if not len(pos):
            return pos, rank
        # a key's first element among these gives its segment, hash and arrival rank (inside a
        # bucket the HashMap keeps the order of first puts). The key ids cannot serve as the arrival
        # rank: they were numbered over all elements, those of rows not folded in (retractions
        # under ignore-retract, ...) included, which can come first.
        ids, first_pos = np.unique(keys, return_index=True)
        k_seg = el.seg[pos[first_pos]]
        k_hash = el.hash[pos[first_pos]]
        per_seg = np.bincount(k_seg, minlength=len(merged))
        cap = _hash_map_capacity(per_seg)[k_seg]
        bucket = (k_hash ^ (k_hash >> 16)) & (cap - 1)
        order = np.lexsort((first_pos, bucket, k_seg))
        seg_sorted = k_seg[order]
        starts = np.searchsorted(seg_sorted, seg_sorted, side="left")
        rank[ids[order]] = np.arange(len(order)) - starts
        return pos, rank


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(s, s + n)`` for every (s, n)."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offs = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return (np.arange(total) + offs).astype(np.int64)


def _rank_in_groups(mask: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Per element, the number of ``mask`` elements before it in its group (groups contiguous)."""
    if not len(mask):
        return np.zeros(0, dtype=np.int64)
    before = np.cumsum(mask) - mask
    is_start = np.concatenate([[True], group[1:] != group[:-1]])
    base = np.maximum.accumulate(np.where(is_start, np.arange(len(mask)), 0))
    return (before - before[base]).astype(np.int64)


def _java_hash_order(elements: list[int], el: _Elements) -> list[int]:
    """``new ArrayList<>(map.values())`` of a new HashMap the elements were put into in order (a
    later row of a key replaces the value, the key keeps its place)."""
    slot: dict[int, int] = {}
    out: list[int] = []
    for e in elements:
        k = int(el.key[e])
        if k in slot:
            out[slot[k]] = e
        else:
            slot[k] = len(out)
            out.append(e)
    order = java_hash_map_order(range(len(out)), lambda i: int(el.hash[out[i]]))
    return [out[i] for i in order]


class NestedUpdate(_Nested):
    """Paimon's ``nested_update``: see the module docstring."""

    name = "nested_update"
    retracts = True

    def _hard(self, seg: Segments, el: _Elements, used: np.ndarray, minus: np.ndarray, m: np.ndarray,
              fa: FieldAgg) -> np.ndarray:
        hard = (count_true(minus, seg) > 0) & (count_true(used, seg) > 0)
        if fa.nested_key:
            # the limit cannot bind when the arrays hold fewer elements than it, nulls included
            total = np.bincount(seg.ids[used], weights=el.lengths[used], minlength=len(seg.starts))
            hard |= (m >= 2) & (total >= fa.count_limit)
        return hard

    def _merge(
        self, values: pa.Array, seg: Segments, fa: FieldAgg, el: _Elements, used: np.ndarray, first: np.ndarray,
        merged: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, pa.Array | None]:
        if fa.nested_key:
            pos, rank = self._keyed_elements(el, used, merged)
            keys = el.key[pos]
            last = np.full(len(rank), -1, dtype=np.int64)
            np.maximum.at(last, keys, pos)
            ids = np.unique(keys)
            return el.seg[last[ids]], rank[ids], last[ids], None
        return self._append(seg, fa, el, used, first, merged)

    @staticmethod
    def _append(
        seg: Segments, fa: FieldAgg, el: _Elements, used: np.ndarray, first: np.ndarray, merged: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, pa.Array | None]:
        """No nested key: the arrays appended, nulls dropped, within the count limit. The first array
        (``len1`` elements, ``nn1`` non-null) taking the whole budget keeps it verbatim; else the
        second adds its first ``limit - len1`` non-null rows (``t2`` of them) and the later ones
        together their first ``limit - nn1 - t2``."""
        limit = fa.count_limit
        n_segs = len(seg.starts)
        ord_row = np.cumsum(used) - 1 - (np.cumsum(used) - used)[seg.starts][seg.ids]  # 0 for R1
        first_safe = np.maximum(first, 0)
        len1 = el.lengths[first_safe]
        nn1 = np.bincount(el.seg[el.valid & (el.row == first_safe[el.seg])], minlength=n_segs)
        whole = merged & (len1 >= limit)
        cut = merged & ~whole
        e_used = used[el.row]
        e_ord = np.where(e_used, ord_row[el.row], -1)
        keep = np.zeros(len(el.valid), dtype=bool)
        in_cut = cut[el.seg]
        keep |= in_cut & (e_ord == 0) & el.valid
        second = in_cut & (e_ord == 1) & el.valid
        r2 = _rank_in_groups(second, el.row)
        budget2 = limit - len1[el.seg]
        keep |= second & (r2 < budget2)
        nn2 = np.bincount(el.seg[second], minlength=n_segs)
        t2 = np.minimum(nn2, np.maximum(limit - len1, 0))
        later = in_cut & (e_ord >= 2) & el.valid
        r3 = _rank_in_groups(later, el.seg)
        keep |= later & (r3 < (limit - nn1 - t2)[el.seg])
        # a first array over the limit stays verbatim
        keep |= whole[el.seg] & (e_ord == 0)
        idx = np.flatnonzero(keep)
        return el.seg[idx], idx, idx, None

    def _fold(self, start: int, end: int, seg: Segments, el: _Elements, used: np.ndarray, minus: np.ndarray,
              fa: FieldAgg) -> list[int] | None:
        limit = fa.count_limit
        keyed = bool(fa.nested_key)
        py: dict[int, Any] = {}
        acc: list[int] | None = None
        for r in range(start, end + 1):
            if used[r]:
                x = list(el.of(r))
                if acc is None:
                    acc = x
                    continue
                if len(acc) >= limit:
                    continue
                rows = [e for e in acc if el.valid[e]] + [e for e in x if el.valid[e]][: limit - len(acc)]
                acc = _java_hash_order(rows, el) if keyed else rows
            elif minus[r] and acc is not None:
                gone = [e for e in el.of(r) if el.valid[e]]
                rows = [e for e in acc if el.valid[e]]
                if keyed:
                    dropped = {int(el.key[e]) for e in gone}
                    acc = [e for e in _java_hash_order(rows, el) if int(el.key[e]) not in dropped]
                else:
                    self._load(py, [*rows, *gone], el)
                    for g in gone:
                        rows = [e for e in rows if py[e] != py[g]]
                    acc = rows
        return acc

    @staticmethod
    def _load(py: dict[int, Any], elements: list[int], el: _Elements) -> None:
        """Python values of the elements (for the equality of whole rows), loaded once."""
        missing = [e for e in elements if e not in py]
        if missing:
            py.update(zip(missing, el.flat.take(pa.array(missing, pa.int64())).to_pylist()))


class NestedPartialUpdate(_Nested):
    """Paimon's ``nested_partial_update``: see the module docstring."""

    name = "nested_partial_update"
    keys_required = True

    def _merge(
        self, values: pa.Array, seg: Segments, fa: FieldAgg, el: _Elements, used: np.ndarray, first: np.ndarray,
        merged: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, pa.Array | None]:
        pos, rank = self._keyed_elements(el, used, merged)
        keys = el.key[pos]
        ids = np.unique(keys)
        flat = el.flat
        children = []
        for j in range(flat.type.num_fields):
            child = flat.field(j)
            has = valid_mask(child)[pos]
            last = np.full(len(rank), -1, dtype=np.int64)
            np.maximum.at(last, keys[has], pos[has])
            pick = last[ids]
            children.append(child.take(pa.array(np.where(pick < 0, 0, pick), mask=pick < 0)))
        rows = pa.StructArray.from_arrays(children, fields=list(flat.type))
        first_el = np.full(len(rank), len(el.valid), dtype=np.int64)
        np.minimum.at(first_el, keys, pos)
        return el.seg[first_el[ids]], rank[ids], len(flat) + np.arange(len(ids)), rows

    def _fold(self, start: int, end: int, seg: Segments, el: _Elements, used: np.ndarray, minus: np.ndarray,
              fa: FieldAgg) -> list[int] | None:
        raise AssertionError("nested_partial_update has no record-by-record fold")
