"""Row orders of sort compaction (Paimon's TableSorter): ``order`` (by the columns), ``zorder``
(Paimon's ZIndexer: each column as ordered bytes, their bits interleaved) and ``hilbert`` (Paimon's
HilbertIndexer: each column as a long, the index of the point on a 63-bit Hilbert curve, as the
davidmoten library computes it). Vectorised with numpy: the per-row work is array operations over
bit positions, never Python per row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import UnsupportedError
from paimon_sql.types import DataType

_PER_KEY_NULL_PLACEMENT = int(pa.__version__.split(".")[0]) >= 25
_SIGN = np.uint64(0x8000000000000000)
LONG_MAX = np.int64(0x7FFFFFFFFFFFFFFF)
HILBERT_BITS = 63


def _ints(arr: pa.Array) -> np.ndarray:
    return np.asarray(arr.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)


def _double_bits(arr: pa.Array) -> np.ndarray:
    """``Double.doubleToLongBits`` (every NaN canonical)."""
    v = np.asarray(arr.cast(pa.float64()).fill_null(0.0).to_numpy(zero_copy_only=False), dtype=np.float64)
    bits = v.view(np.int64).copy()
    bits[np.isnan(v)] = np.int64(0x7FF8000000000000)
    return bits


def _epoch_millis(arr: pa.Array) -> np.ndarray:
    t = arr.type
    if pa.types.is_timestamp(t):
        return _ints(arr.cast(pa.timestamp("ms", tz=t.tz), safe=False).cast(pa.int64()))
    return _ints(arr.cast(pa.int64()))


def _var_bytes(arr: pa.Array, size: int) -> np.ndarray:
    """The UTF-8 (or raw) bytes of each value, cut or zero-filled to ``size`` (rows x size)."""
    binary = arr.cast(pa.large_binary()) if not pa.types.is_large_binary(arr.type) else arr
    binary = binary.fill_null(b"")
    buffers = binary.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64)[binary.offset: binary.offset + len(binary) + 1]
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
    starts, lengths = offsets[:-1], offsets[1:] - offsets[:-1]
    out = np.zeros((len(arr), size), dtype=np.uint8)
    for k in range(size):
        has = lengths > k
        out[has, k] = data[starts[has] + k]
    return out


def _u64_bytes(values: np.ndarray) -> np.ndarray:
    """Big-endian bytes of unsigned 64-bit values (rows x 8)."""
    return values.astype(">u8").view(np.uint8).reshape(-1, 8)


def zorder_column_bytes(arr: pa.Array, t: DataType, var_size: int = 8) -> np.ndarray:
    """One column as ZIndexer's ordered bytes (nulls: zeros)."""
    root = t.root
    nulls = np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    if root in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
        out = _var_bytes(arr, var_size)
        out[nulls] = 0
        return out
    if root in ("TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME"):
        vals = _ints(arr.cast(pa.int64()) if not pa.types.is_integer(arr.type) else arr).view(np.uint64) ^ _SIGN
    elif root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        vals = _epoch_millis(arr).view(np.uint64) ^ _SIGN
    elif root in ("FLOAT", "DOUBLE"):
        bits = _double_bits(arr)
        # ZOrderByteUtils: lval ^= ((lval >> (Integer.SIZE - 1)) | Long.MIN_VALUE) -- a shift by 31
        vals = (bits ^ ((bits >> np.int64(31)) | np.int64(-(2**63)))).view(np.uint64)
    elif root == "BOOLEAN":
        b = np.asarray(arr.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)
        out = np.zeros((len(arr), 8), dtype=np.uint8)
        out[:, 0] = np.where(b, 0x81, 0)
        out[nulls] = 0
        return out
    else:
        raise UnsupportedError(f"zorder sort compaction does not support columns of type {t.to_string()} yet")
    out = _u64_bytes(vals)
    out[nulls] = 0
    return out


def interleave_bits(columns: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Paimon's ZOrderByteUtils.interleaveBits over byte matrices of possibly different widths: bits
    taken round robin, column by column, from the most significant, skipping exhausted columns;
    returned as big-endian 64-bit words (most significant first)."""
    rows = columns[0].shape[0]
    total = sum(c.shape[1] for c in columns)
    positions = []
    col = byte = 0
    bit = 7
    for _ in range(total * 8):
        positions.append((col, byte, bit))
        while True:
            col += 1
            if col == len(columns):
                col = 0
                bit -= 1
                if bit == -1:
                    byte += 1
                    bit = 7
            if byte >= total or columns[col].shape[1] > byte:
                break
    n_words = (total + 7) // 8
    words = [np.zeros(rows, dtype=np.uint64) for _ in range(n_words)]
    for i, (c, b, k) in enumerate(positions):
        if b >= columns[c].shape[1]:
            break
        bit_vals = ((columns[c][:, b] >> np.uint8(k)) & np.uint8(1)).astype(np.uint64)
        words[i // 64] |= bit_vals << np.uint64(63 - i % 64)
    return words


def hilbert_column_longs(arr: pa.Array, t: DataType) -> np.ndarray:
    """One column as HilbertIndexer's long (nulls: Long.MAX_VALUE)."""
    root = t.root
    nulls = np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    if root in ("SMALLINT", "INT", "BIGINT", "DATE", "TIME"):
        vals = _ints(arr.cast(pa.int64()) if not pa.types.is_integer(arr.type) else arr)
    elif root == "TINYINT":  # ConvertBinaryUtil.convertBytesToLong of the one byte, left-aligned
        vals = (_ints(arr) & 0xFF) << np.int64(56)
    elif root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        vals = _epoch_millis(arr)
    elif root in ("FLOAT", "DOUBLE"):
        vals = _double_bits(arr)
    elif root == "BOOLEAN":
        vals = np.where(np.asarray(arr.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool), LONG_MAX, 0)
    elif root in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
        # ConvertBinaryUtil.convertBytesToLong: the first 8 bytes, zero-filled, big-endian
        vals = _var_bytes(arr, 8).copy().view(">u8").reshape(-1).astype(np.uint64).view(np.int64)
    else:
        raise UnsupportedError(f"hilbert sort compaction does not support columns of type {t.to_string()} yet")
    return np.where(nulls, LONG_MAX, vals).astype(np.int64)


def hilbert_index(points: Sequence[np.ndarray], bits: int = HILBERT_BITS) -> list[np.ndarray]:
    """The Hilbert index of every row's point (one int64 array per dimension), as 64-bit words (most
    significant first): Skilling's transposition, then the bits level by level, dimension 0 first."""
    n = len(points)
    x = [np.asarray(p, dtype=np.int64).view(np.uint64).copy() for p in points]
    m = 1 << (bits - 1)
    q = m
    while q > 1:
        p = np.uint64(q - 1)
        qq = np.uint64(q)
        for i in range(n):
            has = (x[i] & qq) != 0
            t = (x[0] ^ x[i]) & p
            new0 = np.where(has, x[0] ^ p, x[0] ^ t)
            if i:
                x[i] = np.where(has, x[i], x[i] ^ t)
            x[0] = new0
        q >>= 1
    for i in range(1, n):
        x[i] ^= x[i - 1]
    t = np.zeros_like(x[0])
    q = m
    while q > 1:
        t = np.where((x[n - 1] & np.uint64(q)) != 0, t ^ np.uint64(q - 1), t)
        q >>= 1
    for i in range(n):
        x[i] ^= t
    total = bits * n
    words = [np.zeros(len(x[0]), dtype=np.uint64) for _ in range((total + 63) // 64)]
    pos = 0
    for level in range(bits - 1, -1, -1):
        for j in range(n):
            bit_vals = (x[j] >> np.uint64(level)) & np.uint64(1)
            words[pos // 64] |= bit_vals << np.uint64(63 - pos % 64)
            pos += 1
    return words


def sort_indices(table: pa.Table, columns: Sequence[str], types: Sequence[DataType], strategy: str,
                 var_size: int = 8) -> np.ndarray:
    """The row order of ``table`` for sort compaction by ``strategy`` (order, zorder, hilbert)."""
    if strategy == "order":  # ascending, nulls first, as Spark orders
        if _PER_KEY_NULL_PLACEMENT:
            return np.asarray(pc.sort_indices(table, sort_keys=[(c, "ascending", "at_start") for c in columns]),
                              dtype=np.int64)
        keys = [(c, "ascending") for c in columns]
        return np.asarray(pc.sort_indices(table, sort_keys=keys, null_placement="at_start"), dtype=np.int64)
    arrays = [table.column(c).combine_chunks() for c in columns]
    if strategy == "zorder":
        words = interleave_bits([zorder_column_bytes(a, t, var_size) for a, t in zip(arrays, types)])
    elif strategy == "hilbert":
        words = hilbert_index([hilbert_column_longs(a, t) for a, t in zip(arrays, types)])
    else:
        raise UnsupportedError(f"Unknown sort strategy {strategy!r}")
    return np.lexsort(words[::-1]).astype(np.int64)
