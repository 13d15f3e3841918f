"""Array helpers shared by the merge engines (``merge``) and the partial-update sequence-group merge
(``partial_update_groups``): per key group, the last/first row where a mask holds, the last
non-null value, and the row kinds as plain ints."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.arrow_arrays import one_array
from paimon_sql.format.system_fields import SEQ, RowKind

# pyarrow >= 25 takes the null placement per sort key (the global option is deprecated there)
PER_KEY_NULL_PLACEMENT = int(pa.__version__.split(".")[0]) >= 25
# the row kinds as plain ints (numpy and Arrow compute compare them with the _VALUE_KIND column)
KIND_INSERT, KIND_UPDATE_BEFORE, KIND_UPDATE_AFTER, KIND_DELETE = (int(k) for k in RowKind)


def last_non_null(col: pa.ChunkedArray | pa.Array, starts: np.ndarray, ends: np.ndarray,
                  rows: np.ndarray | None = None) -> pa.Array:
    """Per group, the last non-null value among ``rows`` (all rows if None; null when none)."""
    arr = one_array(col)
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


def last_where(mask: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per group, the last row where ``mask`` holds (-1 when none)."""
    last = np.maximum.accumulate(np.where(mask, np.arange(len(mask)), -1))[ends]
    return np.where(last >= starts, last, -1)


def first_where(mask: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per group, the first row where ``mask`` holds (-1 when none)."""
    n = len(mask)
    first = np.minimum.reduceat(np.where(mask, np.arange(n), n), starts)
    return np.where(first <= ends, first, -1)


def partial_update_seq_and_insert(
    t: pa.Table, retract: np.ndarray, starts: np.ndarray, ends: np.ndarray, ignore_delete: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Per key of a partial-update merge: the sequence number of the last record not ignored, and
    whether any +I/+U came."""
    n = t.num_rows
    seq = np.asarray(t.column(SEQ).to_numpy(), dtype=np.int64)
    counted = ~retract | (not ignore_delete)
    last_counted = np.maximum.accumulate(np.where(counted, np.arange(n), -1))[ends]
    seq_out = np.where(last_counted >= starts, seq[np.maximum(last_counted, 0)], 0)
    meet_insert = np.add.reduceat((~retract).astype(np.int64), starts) > 0
    return seq_out, meet_insert


_SIGN_MASK = np.int64(0x7FFFFFFFFFFFFFFF)
_CANONICAL_NAN = np.int64(0x7FF8000000000000)


def java_key_order(col: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | pa.Array:
    """A key column as Paimon's key comparator compares it. FLOAT and DOUBLE keys compare like Java's
    ``Double.compare``: every NaN is one key (above +infinity) and -0.0 is a key below 0.0, which
    Arrow's comparisons do not do (NaN != NaN, -0.0 == 0.0). They become int64s that sort and compare
    that way (the bits of the double with the sign folded); other columns are returned as they are."""
    if not pa.types.is_floating(col.type):
        return col
    arr = one_array(col)
    values = np.asarray(arr.cast(pa.float64()).fill_null(0.0).to_numpy(zero_copy_only=False), dtype=np.float64)
    bits = values.view(np.int64).copy()
    bits[np.isnan(values)] = _CANONICAL_NAN
    bits = np.where(bits < 0, bits ^ _SIGN_MASK, bits)
    return pa.array(bits, pa.int64(), mask=np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)
                    if arr.null_count else None)


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
