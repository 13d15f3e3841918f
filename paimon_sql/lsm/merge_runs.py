"""The order of a merge without re-sorting every row by (key, sequence).

A merge's input is the concatenation of a bucket's sorted runs: each run is already in key order.
``sorted_view`` finds the order the merge engines consume (by key as Paimon compares keys, then the
user sequence fields, then ``_SEQUENCE_NUMBER``, ties in input order: exactly the stable sort
``merge.sort_indices`` gives) in three vectorised steps:

1. The key columns become one int64 per row that orders like the key (``encode_keys``: integers,
   dates, times, timestamps, booleans and floats by Java's ``Double.compare``, nullable or not, several
   columns packed by their value ranges when they fit in 63 bits). A single string or binary key
   becomes fixed-width bytes, zero-padded (``fixed_width_keys``: numpy compares them as unsigned
   bytes, as Paimon does), and an int64 of the 8 bytes after the prefix all keys share when the
   rest fits there (``prefix_codes``: "name-1234567" keys are such). Composite keys with strings,
   nullable strings and strings holding zero bytes become digits (``composite_codes``: per column a
   null flag, the value's offset or each varying byte position, a length where zero bytes need
   it) packed as one int64 when they fit in 63 bits, else as fixed-width big-endian bytes. Other
   keys (decimals, strings over 64 bytes, encodings wider than 64 bytes) are sorted by Arrow over
   the key columns alone.
2. A stable argsort of the codes (or bytes): numpy's timsort finds the already-sorted runs and
   merges them (O(n log k) for k runs, a k-way merge), instead of comparing (key, sequence) tuples
   of the union.
3. Only the rows of keys that several records share are put in sequence order (a sort of those rows
   by (key group, sequence fields, ``_SEQUENCE_NUMBER``)), and not even that when they already are.

The result is a ``SortedView``: the permutation and each sorted row's key group number. Engines take
rows through it (``merge.deduplicate`` etc.), so rows are gathered once, into the output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.arrow_arrays import one_array
from paimon_sql.format.system_fields import SEQ
from paimon_sql.lsm.merge_arrays import PER_KEY_NULL_PLACEMENT, group_last_mask, java_key_order

if TYPE_CHECKING:
    from paimon_sql.lsm.merge_spec import MergeSpec

_MAX_BITS = 63
_GROUP = "\x00key group"  # a column name no table has


@dataclass(frozen=True)
class SortedView:
    """A table's rows in merge order without moving them: ``order`` (row indices, by key then
    sequence) and ``starts`` (per position of ``order``: True where a key group begins)."""

    order: np.ndarray
    starts: np.ndarray

    @property
    def num_rows(self) -> int:
        return len(self.order)

    @property
    def group(self) -> np.ndarray:
        """Per position: the key group number (0, 1, ... non-decreasing)."""
        return np.cumsum(self.starts, dtype=np.int64) - 1

    @cached_property
    def ends(self) -> np.ndarray:
        """The last (newest) position of every key group, computed once per view (the engines and
        the split into single- and multi-record keys share it)."""
        return np.flatnonzero(self.last_mask())  # the bool mask, not the int64 ends, is extended

    def last_mask(self) -> np.ndarray:
        """True at the last (newest) position of every key group."""
        return np.append(self.starts[1:], True) if len(self.starts) else np.zeros(0, dtype=bool)

    def first_mask(self) -> np.ndarray:
        """True at the first (oldest) position of every key group."""
        return self.starts

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Start and end (inclusive) position of every key group."""
        ends = self.ends
        starts = np.concatenate([[0], ends[:-1] + 1]) if len(ends) else ends
        return starts, ends

    def keep_rows(self, keep: np.ndarray) -> SortedView:
        """The view of the rows where ``keep`` (a mask over the table's rows) holds; the table is
        not filtered (``order`` still indexes it)."""
        at = keep[self.order]
        g = self.group[at]
        return SortedView(self.order[at], np.concatenate([[True], g[1:] != g[:-1]]) if len(g) else g.astype(bool))


def _int_codes(col: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray | None] | None:
    """A key column as int64 values ordering like Paimon's key comparator (and its validity mask
    when it has nulls), or None when it has no such form."""
    t = col.type
    if not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or pa.types.is_date(t)
            or pa.types.is_time(t) or pa.types.is_timestamp(t) or pa.types.is_duration(t)):
        return None
    arr = one_array(java_key_order(col))  # floats: int64s ordering like Double.compare
    t = arr.type
    if pa.types.is_boolean(t):
        arr = arr.cast(pa.int8())
    elif pa.types.is_date(t) or pa.types.is_time(t) or pa.types.is_timestamp(t) or pa.types.is_duration(t):
        arr = arr.view(pa.int32() if t.bit_width == 32 else pa.int64())
    elif not pa.types.is_integer(t) or t == pa.uint64():
        return None
    valid = None
    if arr.null_count:
        valid = np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        arr = arr.fill_null(0)
    return np.asarray(arr.to_numpy(), dtype=np.int64), valid


def encode_keys(table: pa.Table, key_columns: Sequence[str]) -> np.ndarray | None:
    """One int64 per row that orders (and is equal) like the row's key under Paimon's key comparator
    (nulls first); None when the key columns have no such encoding (use an Arrow sort)."""
    cols = []
    for name in key_columns:
        codes = _int_codes(table.column(name))
        if codes is None:
            return None
        cols.append(codes)
    if len(cols) == 1 and cols[0][1] is None:
        return cols[0][0]
    if table.num_rows == 0:
        return np.zeros(0, dtype=np.int64)
    # pack: each column as (value - min + 1), 0 for null, in a mixed radix of the columns' ranges
    packed: list[tuple[np.ndarray, int]] = []
    bits = 0
    for values, valid in cols:
        present = values if valid is None else values[valid]
        if len(present) == 0:
            lo = hi = 0
        else:
            lo, hi = int(present.min()), int(present.max())
        radix = hi - lo + 2  # null, then lo..hi
        bits += max(1, (radix - 1).bit_length())
        if bits > _MAX_BITS:
            return None
        code = values - np.int64(lo) + 1  # fits: hi - lo + 1 < 2**63 was just checked
        if valid is not None:
            code = np.where(valid, code, 0)
        packed.append((code, radix))
    out = np.zeros(table.num_rows, dtype=np.int64)
    for code, radix in packed:
        out = out * np.int64(radix) + code
    return out


_MAX_FIXED_WIDTH = 64  # longer string keys: the Arrow sort (the fixed-width copy would be too large)


def _as_strings(col: pa.ChunkedArray | pa.Array) -> pa.Array | None:
    """A string or binary column as one string-typed array (binary viewed as strings: the kernels
    here work on bytes); None for other types."""
    t = col.type
    if not (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)
            or pa.types.is_large_binary(t)):
        return None
    arr = one_array(col)
    if pa.types.is_binary(t):
        return arr.view(pa.string())
    if pa.types.is_large_binary(t):
        return arr.view(pa.large_string())
    return arr


def _key_bytes(col: pa.ChunkedArray | pa.Array) -> tuple[pa.Array, int] | None:
    """A string or binary key column as one string-typed array (binary viewed as strings: the
    kernels below work on bytes) and its longest value's byte length; None for other types, nulls,
    a value holding a zero byte (zero bytes pad the values below: a padded "a" would equal "a\\0")
    or values longer than 64 bytes."""
    if col.null_count or len(col) == 0:
        return None
    arr = _as_strings(col)
    if arr is None:
        return None
    offsets = _offsets(arr)
    start, end = int(offsets[0]), int(offsets[-1])
    if end == start:
        return arr, 0
    if np.frombuffer(arr.buffers()[2], dtype=np.uint8, count=end - start, offset=start).min() == 0:
        return None
    longest = int((offsets[1:] - offsets[:-1]).max())
    return (arr, longest) if longest <= _MAX_FIXED_WIDTH else None


def _offsets(arr: pa.Array) -> np.ndarray:
    large = pa.types.is_large_string(arr.type)
    return np.frombuffer(arr.buffers()[1], dtype=np.int64 if large else np.int32, count=len(arr) + 1,
                         offset=arr.offset * (8 if large else 4))


def _padded(arr: pa.Array, width: int, start: int = 0, longest: int | None = None) -> np.ndarray:
    """Bytes ``start`` to ``start + width`` of every value, zero-padded: ``S<width>`` (``longest``:
    no value is longer, none is cut)."""
    if start or longest is None or longest > width:
        binary = pa.large_binary() if pa.types.is_large_string(arr.type) else pa.binary()
        arr = pc.binary_slice(arr.view(binary), start, start + width).view(arr.type)
    padded = pc.ascii_rpad(arr, width=width, padding="\x00")  # byte-wise: every value is ``width`` bytes
    return np.frombuffer(padded.buffers()[2], dtype=np.uint8, count=len(arr) * width,
                         offset=int(_offsets(padded)[0])).view(f"S{width}")


def fixed_width_keys(col: pa.ChunkedArray | pa.Array) -> np.ndarray | None:
    """A string or binary key column as numpy fixed-width bytes (``S<w>``, each value padded with
    zero bytes to a width that is a multiple of 8) that sort and compare like Paimon's key
    comparator (unsigned bytes, a prefix first); None when ``_key_bytes`` refuses the column."""
    found = _key_bytes(col)
    return None if found is None else _fixed_width(*found)


def _fixed_width(arr: pa.Array, longest: int) -> np.ndarray:
    return _padded(arr, max(8, -(-longest // 8) * 8), longest=longest)


_SIGN = np.uint64(1 << 63)


def prefix_codes(col: pa.ChunkedArray | pa.Array) -> np.ndarray | None:
    """A string or binary key column as one int64 per row ordering and comparing like the keys,
    when what follows the bytes every key shares (a common prefix such as "user-") fits in 8 bytes:
    those 8 bytes, zero-padded, big-endian, with the sign bit flipped; None otherwise."""
    found = _key_bytes(col)
    return None if found is None else _prefix_codes(*found)


def _prefix_codes(arr: pa.Array, longest: int) -> np.ndarray | None:
    common = 0  # the bytes every key shares, from the first
    while common + 8 < longest:
        words = _padded(arr, 8, common).view(np.uint64)
        differ = int(np.bitwise_or.reduce(words ^ words[0]))
        if differ:  # little-endian words: the lowest differing byte is the first one
            common += ((differ & -differ).bit_length() - 1) // 8
            break
        common += 8
    if longest - common > 8:
        return None
    codes = _padded(arr, 8, common, longest).view(">u8").astype(np.uint64)
    codes ^= _SIGN  # unsigned order as signed
    return codes.view(np.int64)


_MAX_KEY_BYTES = 64  # a composite key wider than this once encoded as bytes: the Arrow sort
_Digit = tuple[np.ndarray, int]  # one digit of a key's encoding: per row a value in [0, radix), the radix


def _int_digits(col: pa.ChunkedArray | pa.Array) -> list[_Digit] | None:
    """An integer-like key column (``_int_codes``) as digits: a null flag (when it has nulls: 0
    null, 1 a value) and the value minus the smallest one (uint64, wrapping: the range may span
    the whole int64 range). A constant column has no digit."""
    codes = _int_codes(col)
    if codes is None:
        return None
    values, valid = codes
    digits: list[_Digit] = []
    present = values
    if valid is not None:
        digits.append((valid.view(np.uint8), 2))
        present = values[valid]
    if len(present) == 0:
        return digits
    lo, hi = int(present.min()), int(present.max())
    if hi > lo:
        offset = values.view(np.uint64) - np.uint64(lo % 2**64)
        if valid is not None:
            offset[~valid] = 0
        digits.append((offset, hi - lo + 1))
    return digits


def _string_digits(col: pa.ChunkedArray | pa.Array) -> list[_Digit] | None:
    """A string or binary key column as digits: a null flag (when it has nulls), each byte
    position (0-padded to the longest value) where the values' bytes differ, as the byte minus
    the position's smallest byte, then, when a value holds a zero byte, the length (so "a" < "a\\0"
    < "ab", as Paimon's byte-wise comparison orders them: without a zero byte, a padded value
    compares like the value). None for other types and values over ``_MAX_KEY_BYTES``."""
    arr = _as_strings(col)
    if arr is None:
        return None
    digits: list[_Digit] = []
    if arr.null_count:
        digits.append((np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool).view(np.uint8), 2))
        arr = arr.fill_null("")
    offsets = _offsets(arr)
    lengths = offsets[1:] - offsets[:-1]
    longest = int(lengths.max()) if len(lengths) else 0
    if longest > _MAX_KEY_BYTES:
        return None
    if longest == 0:
        return digits
    # one row per byte position (the transposed padded values: each position's bytes contiguous)
    by_position = np.ascontiguousarray(_padded(arr, longest, longest=longest).view(np.uint8)
                                       .reshape(len(arr), longest).T)
    lows, highs = by_position.min(axis=1), by_position.max(axis=1)
    for j in np.flatnonzero(highs > lows):
        lo = lows[j]
        digits.append((by_position[j] - lo if lo else by_position[j], int(highs[j]) - int(lo) + 1))
    start, end = int(offsets[0]), int(offsets[-1])
    if np.frombuffer(arr.buffers()[2], dtype=np.uint8, count=end - start, offset=start).min() == 0:
        short = int(lengths.min())
        if longest > short:
            digits.append(((lengths - short).astype(np.int64), longest - short + 1))
    return digits


def composite_codes(table: pa.Table, key_columns: Sequence[str]) -> np.ndarray | None:
    """The key columns (integers and the like, strings, binaries; nullable or not) as one value
    per row that orders and compares like the key under Paimon's key comparator (column by
    column, nulls first, strings by their unsigned bytes, a prefix first): the columns' digits
    (``_int_digits``, ``_string_digits``) packed in a mixed radix as int64 when they fit in 63
    bits, else as big-endian bytes (``S<w>``, w a multiple of 8; numpy compares them as unsigned
    bytes). None when a column has no digits form or the bytes would be wider than
    ``_MAX_KEY_BYTES``."""
    digits: list[_Digit] = []
    for name in key_columns:
        col = table.column(name)
        found = _int_digits(col)
        if found is None:
            found = _string_digits(col)
        if found is None:
            return None
        digits.extend(found)
    n = table.num_rows
    span = 1
    for _, radix in digits:
        span *= radix
    if span <= 2**_MAX_BITS:  # every code below 2**63
        if not digits:  # one key in every row
            return np.zeros(n, dtype=np.int64)
        out = digits[0][0].astype(np.int64)  # a copy (a radix of 2**63 alone: no product)
        for values, radix in digits[1:]:
            out *= np.int64(radix)
            out += values.view(np.int64) if values.dtype == np.uint64 else values  # below 2**63
        return out
    sizes = [((radix - 1).bit_length() + 7) // 8 for _, radix in digits]
    width = max(8, -(-sum(sizes) // 8) * 8)
    if width > _MAX_KEY_BYTES:
        return None
    out_bytes = np.zeros((n, width), dtype=np.uint8)
    at = 0
    for (values, _), size in zip(digits, sizes):
        if size == 1:
            out_bytes[:, at] = values
        else:
            out_bytes[:, at:at + size] = values.astype(">u8").view(np.uint8).reshape(n, 8)[:, 8 - size:]
        at += size
    return out_bytes.reshape(-1).view(f"S{width}")


def key_order(table: pa.Table, key_columns: Sequence[str], codes: np.ndarray | None = None) -> SortedView:
    """The rows by key alone (stable: records of one key stay in input order), with key groups.
    ``codes``: the rows' keys as ``encode_keys`` codes (any int64s that order and compare like the
    keys), when the caller has them already."""
    if codes is None:
        codes = encode_keys(table, key_columns)
    fixed = None
    found = _key_bytes(table.column(key_columns[0])) if codes is None and len(key_columns) == 1 else None
    if found is not None:
        codes = _prefix_codes(*found)
        if codes is None:
            fixed = _fixed_width(*found)
    elif codes is None:  # composite keys with strings, nullable strings, zero bytes
        packed = composite_codes(table, key_columns)
        if packed is not None and packed.dtype == np.int64:
            codes = packed
        else:
            fixed = packed
    if codes is not None:
        order = np.argsort(codes, kind="stable")
        ordered = codes[order]
        new_group = ordered[1:] != ordered[:-1]
    elif fixed is not None:
        # numpy's stable sort (a timsort: it finds the sorted runs and merges them) of the padded
        # bytes; key groups from their 8-byte words
        order = np.argsort(fixed, kind="stable")
        words = fixed.view(np.uint64).reshape(len(fixed), -1).take(order, axis=0)
        new_group = words[1:, 0] != words[:-1, 0]
        for j in range(1, words.shape[1]):
            new_group |= words[1:, j] != words[:-1, j]
    else:
        sub = pa.Table.from_arrays([java_key_order(table.column(k)) for k in key_columns], names=list(key_columns))
        if PER_KEY_NULL_PLACEMENT:
            idx = pc.sort_indices(sub, sort_keys=[(k, "ascending", "at_start") for k in key_columns])
        else:
            idx = pc.sort_indices(sub, sort_keys=[(k, "ascending") for k in key_columns], null_placement="at_start")
        order = np.asarray(idx.to_numpy(), dtype=np.int64)
        new_group = group_last_mask(sub.take(idx), key_columns)[:-1]
    return SortedView(order, np.concatenate([[True], new_group]) if len(order) else np.zeros(0, dtype=bool))


def sorted_view(table: pa.Table, spec: MergeSpec, codes: np.ndarray | None = None,
                oldest_first: bool = False) -> SortedView:
    """``table``'s rows by key, then sequence fields (nulls first), then ``_SEQUENCE_NUMBER``, ties in
    input order: the order of ``merge.sort_indices(table, spec)``, found by merging the sorted runs.

    ``codes``: the key codes, if known (see ``key_order``). ``oldest_first``: the caller knows that
    the records of each key are in sequence order in the input (runs concatenated oldest first
    whose sequence numbers do not overlap) and that no sequence field orders them: the check is
    skipped (the table then needs no ``_SEQUENCE_NUMBER``)."""
    view = key_order(table, spec.key_columns, codes)
    if oldest_first and not spec.sequence_columns:
        return view
    n = view.num_rows
    if n < 2:
        return view
    same = ~view.starts[1:]  # adjacent positions of one key
    if not same.any():
        return view
    order = view.order
    seq_all = np.asarray(table.column(SEQ).to_numpy(), dtype=np.int64)
    if not spec.sequence_columns:
        # are every key's records already oldest first (the runs concatenated oldest first)? Then
        # nothing is re-sorted. Only the adjacent records of one key are compared
        at = np.flatnonzero(same)
        if not bool((seq_all.take(order.take(at + 1)) < seq_all.take(order.take(at))).any()):
            return view
    # only the records of keys with several records are looked at (and re-sorted)
    shared = np.zeros(n, dtype=bool)
    shared[1:] = same
    shared[:-1] |= same
    pos = np.flatnonzero(shared)
    sp = seq_all[order[pos]]
    # gp: the key group of each such position (numbered among these groups only: same order)
    gp = np.cumsum(view.starts[pos], dtype=np.int64) - 1
    if not spec.sequence_columns:
        lo = int(sp.min())
        span = int(sp.max()) - lo + 1
        if (int(gp[-1]) + 1) * span < 2**_MAX_BITS:  # (group, sequence) as one int64, nearly sorted
            sub_order = np.argsort(gp * np.int64(span) + (sp - np.int64(lo)), kind="stable")
        else:
            sub_order = np.lexsort((sp, gp))  # stable: ties keep input order
    else:
        rows = pa.array(order[pos])
        direction = "ascending" if spec.sequence_ascending else "descending"
        names = [_GROUP, *spec.sequence_columns, SEQ]
        sub = pa.Table.from_arrays(
            [pa.array(gp), *(table.column(c).take(rows) for c in spec.sequence_columns), pa.array(sp)],
            names=names,
        )
        keys = [(_GROUP, "ascending"), *((c, direction) for c in spec.sequence_columns), (SEQ, "ascending")]
        if PER_KEY_NULL_PLACEMENT:
            idx = pc.sort_indices(sub, sort_keys=[(k, o, "at_start") for k, o in keys])
        else:
            idx = pc.sort_indices(sub, sort_keys=keys, null_placement="at_start")
        sub_order = np.asarray(idx.to_numpy(), dtype=np.int64)
    order = order.copy()
    order[pos] = order[pos][sub_order]
    return SortedView(order, view.starts)
