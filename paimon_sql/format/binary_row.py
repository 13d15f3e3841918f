"""Paimon's ``BinaryRow``, encoded and decoded column-wise with numpy.

Layout (Apache Paimon ``BinaryRow``/``BinaryRowWriter``/``AbstractBinaryWriter``/``BinarySection``):

* Serialised rows (manifests: ``_PARTITION``, ``_MIN_KEY``, stats ``_MIN_VALUES`` ...) are
  ``SerializationUtils.serializeBinaryRow``: a 4-byte big-endian arity, then the row bytes.
  A 0-arity row serialises to 12 bytes (arity 0 + one 8-byte header word).
* Row bytes: a null bit set of ``((arity + 63 + 8) // 64) * 8`` bytes whose first byte is the
  row kind (0 = INSERT) and whose bit ``i + 8`` (byte ``(i + 8) >> 3``, bit ``(i + 8) & 7``) marks
  field ``i`` null; then one 8-byte little-endian slot per field; then the variable part, each
  value padded to a multiple of 8 bytes. A null field has its slot zeroed.
* BOOLEAN/TINYINT/SMALLINT/INT/DATE(days)/TIME(millis of day)/BIGINT/FLOAT/DOUBLE live in the slot's
  low bytes (the rest of the slot is 0; no sign extension).
* CHAR/VARCHAR/BINARY/VARBINARY: up to 7 bytes are inlined: bytes in the slot's low 7 bytes and
  ``0x80 | len`` in the highest byte; longer ones go to the variable part with the slot holding
  ``offset << 32 | len`` (offset from the row start).
* DECIMAL: precision <= 18 as the unscaled long; otherwise 16 bytes are always reserved in the
  variable part (also for a null value) holding the minimal big-endian two's complement of the
  unscaled value (``BigInteger.toByteArray``), slot ``offset << 32 | len`` (null: ``offset << 32``).
* TIMESTAMP / TIMESTAMP_LTZ: precision <= 3 as epoch millis; otherwise 8 bytes always reserved in
  the variable part holding the epoch millis (LE), the slot ``offset << 32 | nano_of_milli``.
* ARRAY (``BinaryArray``: 4-byte count, null bits in 4-byte words, elements of 1/2/4/8 bytes,
  rounded to 8, then the element variable part), MAP/MULTISET (``BinaryMap``: 4-byte key-array
  size, key array, value array), nested ROW (a ``BinaryRow``) and VECTOR (4-byte count then the
  packed elements rounded to 8) are written to the variable part with ``offset << 32 | size``.

Columns are Arrow arrays typed as :func:`paimon_sql.types.to_arrow_type` gives (chunked arrays
and compatible types are accepted). Nested values inside a row are rare (never in keys,
partitions or stats values) but are supported both ways, also vectorised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql import types as pt
from paimon_sql.arrow_arrays import one_array
from paimon_sql.errors import CorruptFileError, UnsupportedError, ValidationError
from paimon_sql.types import DataType, DecimalType, IntType, to_arrow_type

__all__ = [
    "null_bits_size",
    "fixed_part_size",
    "encode_rows",
    "encode_rows_array",
    "encode_row",
    "decode_rows",
    "decode_row",
    "row_arity",
    "empty_row",
    "truncate_min_max",
]

HEADER_SIZE_IN_BITS = 8
_U64 = np.dtype("<u8")
_I64 = np.dtype("<i8")
_I32 = np.dtype("<i4")
_EMPTY_U8 = np.zeros(0, dtype=np.uint8)


def null_bits_size(arity: int) -> int:
    """Bytes of the header + null bit set of a BinaryRow of this arity."""
    return ((arity + 63 + HEADER_SIZE_IN_BITS) // 64) * 8


def fixed_part_size(arity: int) -> int:
    return null_bits_size(arity) + 8 * arity


def _round8(x: np.ndarray) -> np.ndarray:
    return (x + 7) & ~np.int64(7)


def _excl_cumsum(x: np.ndarray) -> np.ndarray:
    out = np.zeros(len(x) + 1, dtype=np.int64)
    np.cumsum(x, out=out[1:])
    return out


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + n)`` for every (s, n), vectorised."""
    lengths = lengths.astype(np.int64, copy=False)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    cum = _excl_cumsum(lengths)
    return np.repeat(starts.astype(np.int64, copy=False) - cum[:-1], lengths) + np.arange(
        total, dtype=np.int64
    )


class _ElementWidth(pt.DefaultTypeVisitor[int]):
    """Slot width of an element inside a BinaryArray (``calculateFixLengthPartSize``)."""

    def default(self, t: DataType) -> int:
        return 8

    def visit_boolean(self, t: pt.BooleanType) -> int:
        return 1

    def visit_tinyint(self, t: pt.TinyIntType) -> int:
        return 1

    def visit_smallint(self, t: pt.SmallIntType) -> int:
        return 2

    def visit_int(self, t: pt.IntType) -> int:
        return 4

    def visit_float(self, t: pt.FloatType) -> int:
        return 4

    def visit_date(self, t: pt.DateType) -> int:
        return 4

    def visit_time(self, t: pt.TimeType) -> int:
        return 4


class _VectorElementWidth(_ElementWidth):
    """Width of a VECTOR element: only BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE."""

    def default(self, t: DataType) -> int:
        raise UnsupportedError(f"VECTOR element type {t.to_string()} is not supported in a BinaryRow")

    def visit_bigint(self, t: pt.BigIntType) -> int:
        return 8

    def visit_double(self, t: pt.DoubleType) -> int:
        return 8

    def visit_date(self, t: pt.DateType) -> int:
        return self.default(t)

    def visit_time(self, t: pt.TimeType) -> int:
        return self.default(t)


_ELEMENT_WIDTH = _ElementWidth()
_VECTOR_ELEMENT_WIDTH = _VectorElementWidth()


def _element_width(t: DataType) -> int:
    return t.accept(_ELEMENT_WIDTH)


def _vector_element_width(t: DataType) -> int:
    return t.accept(_VECTOR_ELEMENT_WIDTH)


# ----------------------------------------------------------------------------------------------
# Arrow input
# ----------------------------------------------------------------------------------------------


def _as_array(col: Any) -> pa.Array:
    if isinstance(col, (pa.ChunkedArray, pa.Array)):
        return one_array(col)
    return pa.array(col)


def _cast(arr: pa.Array, target: pa.DataType, t: DataType) -> pa.Array:
    if arr.type == target:
        return arr
    try:
        return arr.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
        raise ValidationError(
            f"Cannot use an Arrow column of type {arr.type} as Paimon {t.to_string()}: {e}"
        ) from None


def _null_mask(arr: pa.Array) -> np.ndarray:
    if arr.null_count == 0:
        return np.zeros(len(arr), dtype=bool)
    return np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)


def _int_values(arr: pa.Array, int_type: pa.DataType) -> np.ndarray:
    """The physical integer values of a fixed-width array (nulls as 0)."""
    v = arr.view(int_type)
    if v.null_count:
        v = pc.fill_null(v, 0)
    return np.asarray(v.to_numpy(zero_copy_only=False))


def _validity_buffer(null: np.ndarray) -> pa.Buffer | None:
    if not null.any():
        return None
    return pa.py_buffer(np.packbits(~null, bitorder="little"))


def _from_values(values: np.ndarray, pa_type: pa.DataType, null: np.ndarray) -> pa.Array:
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa_type, len(null), [_validity_buffer(null), pa.py_buffer(values)])


def _binary_parts(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(data buffer, value starts, value lengths) of a string/binary array; nulls have length 0."""
    t = arr.type
    if pa.types.is_string_view(t) or pa.types.is_binary_view(t) or pa.types.is_fixed_size_binary(t):
        arr = arr.cast(pa.large_binary())
        t = arr.type
    if pa.types.is_large_string(t) or pa.types.is_large_binary(t):
        off_dtype: np.dtype = np.dtype("<i8")
    elif pa.types.is_string(t) or pa.types.is_binary(t):
        off_dtype = np.dtype("<i4")
    else:
        raise ValidationError(f"Expected a string or binary Arrow column, got {t}")
    n = len(arr)
    bufs = arr.buffers()
    if n == 0 or bufs[1] is None:
        return _EMPTY_U8, np.zeros(n, np.int64), np.zeros(n, np.int64)
    offsets = np.frombuffer(bufs[1], dtype=off_dtype)[arr.offset : arr.offset + n + 1].astype(np.int64)
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else _EMPTY_U8
    starts = offsets[:-1]
    lengths = offsets[1:] - starts
    if arr.null_count:
        lengths = np.where(_null_mask(arr), 0, lengths)
    return data, starts, lengths


# ----------------------------------------------------------------------------------------------
# Encoding: one column
# ----------------------------------------------------------------------------------------------


@dataclass
class _Var:
    pad: np.ndarray  # int64 (n,): bytes reserved in the variable part (multiple of 8)
    src: np.ndarray  # uint8: where the bytes come from
    start: np.ndarray  # int64 (n,): start of each value in src
    length: np.ndarray  # int64 (n,): bytes copied (<= pad)
    cursor: np.ndarray  # bool (n,): rows whose slot takes ``offset << 32``


@dataclass
class _ColEnc:
    slot: np.ndarray  # uint64 (n,)
    null: np.ndarray  # bool (n,)
    var: _Var | None


@dataclass
class _Sections:
    """Variable-length byte sections laid out in one flat buffer."""

    flat: np.ndarray  # uint8
    starts: np.ndarray  # int64 (n,)
    sizes: np.ndarray  # int64 (n,)


def _section_var(sec: _Sections, null: np.ndarray, pad: np.ndarray | None = None) -> _Var:
    sizes = np.where(null, 0, sec.sizes)
    return _Var(
        pad=_round8(sizes) if pad is None else np.where(null, 0, pad),
        src=sec.flat,
        start=sec.starts,
        length=sizes,
        cursor=~null,
    )


def _to_millis_and_nanos(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Epoch millis (floor) and nano-of-milli of a timestamp array (nulls as 0)."""
    v = _int_values(arr, pa.int64()).astype(np.int64, copy=False)
    unit = arr.type.unit
    if unit == "s":
        return v * 1000, np.zeros(len(v), np.int64)
    if unit == "ms":
        return v, np.zeros(len(v), np.int64)
    if unit == "us":
        return np.floor_divide(v, 1000), np.mod(v, 1000) * 1000
    return np.floor_divide(v, 1_000_000), np.mod(v, 1_000_000)


def _decimal_words(arr: pa.Array, t: DecimalType) -> tuple[np.ndarray, np.ndarray]:
    """(low uint64, high int64) words of the unscaled 128-bit values; nulls as 0."""
    target = pa.decimal128(t.precision, t.scale)
    arr = _cast(arr, target, t)
    n = len(arr)
    buf = arr.buffers()[1]
    if n == 0 or buf is None:
        return np.zeros(n, np.uint64), np.zeros(n, np.int64)
    words = np.frombuffer(buf, dtype=_U64).reshape(-1, 2)[arr.offset : arr.offset + n]
    lo = words[:, 0].copy()
    hi = words[:, 1].view(np.int64).copy()
    if arr.null_count:
        null = _null_mask(arr)
        lo[null] = 0
        hi[null] = 0
    return lo, hi


def _minimal_be_bytes(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``BigInteger.toByteArray`` of 128-bit values: (n, 16) left-aligned bytes and lengths."""
    n = len(lo)
    be = np.empty((n, 16), dtype=np.uint8)
    be[:, :8] = hi.astype(">i8").view(np.uint8).reshape(n, 8)
    be[:, 8:] = lo.astype(">u8").view(np.uint8).reshape(n, 8)
    sign = np.where(hi < 0, 0xFF, 0).astype(np.uint8)
    redundant = (be[:, :15] == sign[:, None]) & ((be[:, 1:] & 0x80) == (sign & 0x80)[:, None])
    lead = np.cumprod(redundant, axis=1).sum(axis=1)
    idx = lead[:, None] + np.arange(16)
    out = np.where(idx < 16, np.take_along_axis(be, np.minimum(idx, 15), axis=1), 0).astype(np.uint8)
    return out, (16 - lead).astype(np.int64)


def _encode_column(col: Any, t: DataType, in_array: bool = False, legacy_nulls: bool = False) -> _ColEnc:
    """Slot values, null mask and variable-part data of one column.

    ``in_array``: element of a BinaryArray (nulls reserve no variable space; NaN canonical).
    ``legacy_nulls``: null non-compact decimals/timestamps reserve no variable space either."""
    return t.accept(_ColumnEncoder(_as_array(col), in_array, legacy_nulls))


_STRING_LIKE = (
    pa.types.is_string,
    pa.types.is_large_string,
    pa.types.is_binary,
    pa.types.is_large_binary,
    pa.types.is_string_view,
    pa.types.is_binary_view,
    pa.types.is_fixed_size_binary,
)


class _ColumnEncoder(pt.TypeVisitor[_ColEnc]):
    """Encodes one column (``arr``) as the visited type."""

    def __init__(self, arr: pa.Array, in_array: bool, legacy_nulls: bool) -> None:
        self.arr = arr
        self.in_array = in_array
        self.legacy_nulls = legacy_nulls

    def _cast(self, t: DataType) -> tuple[pa.Array, np.ndarray]:
        """The column as ``t``'s Arrow type, and its null mask."""
        arr = _cast(self.arr, to_arrow_type(t), t)
        return arr, _null_mask(arr)

    def _ints(self, t: DataType, int_type: pa.DataType) -> _ColEnc:
        arr, null = self._cast(t)
        return _ColEnc(_int_values(arr, int_type).astype(np.uint64), null, None)

    def visit_boolean(self, t: pt.BooleanType) -> _ColEnc:
        arr, null = self._cast(t)
        v = (
            pc.fill_null(arr, False).to_numpy(zero_copy_only=False)
            if arr.null_count
            else arr.to_numpy(zero_copy_only=False)
        )
        return _ColEnc(np.asarray(v, dtype=np.uint64), null, None)

    def visit_tinyint(self, t: pt.TinyIntType) -> _ColEnc:
        return self._ints(t, pa.uint8())

    def visit_smallint(self, t: pt.SmallIntType) -> _ColEnc:
        return self._ints(t, pa.uint16())

    def visit_int(self, t: pt.IntType) -> _ColEnc:
        return self._ints(t, pa.uint32())

    def visit_date(self, t: pt.DateType) -> _ColEnc:
        return self._ints(t, pa.uint32())

    def visit_time(self, t: pt.TimeType) -> _ColEnc:
        return self._ints(t, pa.uint32())

    def visit_bigint(self, t: pt.BigIntType) -> _ColEnc:
        arr, null = self._cast(t)
        return _ColEnc(_int_values(arr, pa.uint64()).astype(np.uint64, copy=False), null, None)

    def visit_float(self, t: pt.FloatType) -> _ColEnc:
        arr, null = self._cast(t)
        bits = _int_values(arr, pa.uint32()).astype(np.uint64)
        if self.in_array:
            f = _int_values(arr, pa.uint32()).view(np.float32)
            bits = np.where(np.isnan(f), np.uint64(0x7FC00000), bits)
        return _ColEnc(bits, null, None)

    def visit_double(self, t: pt.DoubleType) -> _ColEnc:
        arr, null = self._cast(t)
        bits = _int_values(arr, pa.uint64()).astype(np.uint64, copy=False)
        if self.in_array:
            d = bits.view(np.float64)
            bits = np.where(np.isnan(d), np.uint64(0x7FF8000000000000), bits)
        return _ColEnc(bits, null, None)

    def visit_decimal(self, t: DecimalType) -> _ColEnc:
        arr = self.arr  # _decimal_words rescales any decimal / integer input itself
        null = _null_mask(arr)
        n = len(arr)
        lo, hi = _decimal_words(arr, t)
        if t.is_compact:
            return _ColEnc(lo, null, None)
        data, lengths = _minimal_be_bytes(lo, hi)
        reserve = ~null if self.in_array or self.legacy_nulls else np.ones(n, dtype=bool)
        lengths = np.where(null, 0, lengths)
        var = _Var(
            pad=np.where(reserve, 16, 0).astype(np.int64),
            src=data.reshape(-1),
            start=np.arange(n, dtype=np.int64) * 16,
            length=lengths,
            cursor=reserve,
        )
        return _ColEnc(lengths.astype(np.uint64), null, var)

    def _timestamp(self, t: pt.TimestampType | pt.LocalZonedTimestampType) -> _ColEnc:
        arr = self.arr
        if not pa.types.is_timestamp(arr.type):
            arr = _cast(arr, to_arrow_type(t), t)
        null = _null_mask(arr)
        n = len(arr)
        millis, nanos = _to_millis_and_nanos(arr)
        if t.is_compact:
            return _ColEnc(millis.view(np.uint64), null, None)
        reserve = ~null if self.in_array or self.legacy_nulls else np.ones(n, dtype=bool)
        millis = np.where(null, 0, millis).astype(_I64)
        var = _Var(
            pad=np.where(reserve, 8, 0).astype(np.int64),
            src=millis.view(np.uint8),
            start=np.arange(n, dtype=np.int64) * 8,
            length=np.where(reserve, 8, 0).astype(np.int64),
            cursor=reserve,
        )
        return _ColEnc(np.where(null, 0, nanos).astype(np.uint64), null, var)

    def visit_timestamp(self, t: pt.TimestampType) -> _ColEnc:
        return self._timestamp(t)

    def visit_local_zoned_timestamp(self, t: pt.LocalZonedTimestampType) -> _ColEnc:
        return self._timestamp(t)

    def _bytes(self, t: DataType) -> _ColEnc:
        arr = self.arr
        if not any(is_(arr.type) for is_ in _STRING_LIKE):
            arr = _cast(arr, to_arrow_type(t), t)
        null = _null_mask(arr)
        n = len(arr)
        data, starts, lengths = _binary_parts(arr)
        inline = (~null) & (lengths <= 7)
        is_var = (~null) & (lengths > 7)
        slot = np.zeros(n, dtype=np.uint64)
        if inline.any():
            rows = np.nonzero(inline)[0]
            ln = lengths[rows]
            src = data if len(data) else np.zeros(1, np.uint8)
            idx = starts[rows][:, None] + np.arange(7)
            valid = np.arange(7) < ln[:, None]
            b = np.zeros((len(rows), 8), dtype=np.uint8)
            b[:, :7] = np.where(valid, src[np.where(valid, idx, 0)], 0)
            b[:, 7] = 0x80 | ln
            slot[rows] = b.view(_U64).reshape(-1)
        if not is_var.any():
            return _ColEnc(slot, null, None)
        vl = np.where(is_var, lengths, 0)
        slot = np.where(is_var, vl.astype(np.uint64), slot)
        return _ColEnc(slot, null, _Var(pad=_round8(vl), src=data, start=starts, length=vl, cursor=is_var))

    def visit_char(self, t: pt.CharType) -> _ColEnc:
        return self._bytes(t)

    def visit_varchar(self, t: pt.VarCharType) -> _ColEnc:
        return self._bytes(t)

    def visit_binary(self, t: pt.BinaryType) -> _ColEnc:
        return self._bytes(t)

    def visit_varbinary(self, t: pt.VarBinaryType) -> _ColEnc:
        return self._bytes(t)

    def visit_blob(self, t: pt.BlobType) -> _ColEnc:
        return self._bytes(t)

    def visit_variant(self, t: pt.VariantType) -> _ColEnc:
        raise UnsupportedError(f"Paimon type {t.to_string()} cannot be written to a BinaryRow")

    def visit_row(self, t: pt.RowType) -> _ColEnc:
        arr, null = self._cast(t)
        sec = _encode_row_sections(
            [arr.field(i) for i in range(len(t.fields))], t.field_types, null, self.legacy_nulls
        )
        var = _section_var(sec, null)
        return _ColEnc(var.length.astype(np.uint64), null, var)

    def visit_array(self, t: pt.ArrayType) -> _ColEnc:
        arr, null = self._cast(t)
        offsets = np.asarray(arr.offsets.to_numpy(), dtype=np.int64)
        sec = _encode_array_sections(arr.values, t.element, offsets, null)
        var = _section_var(sec, null)
        return _ColEnc(var.length.astype(np.uint64), null, var)

    def _map(self, t: DataType, key_t: DataType, value_t: DataType) -> _ColEnc:
        arr, null = self._cast(t)
        offsets = np.asarray(arr.offsets.to_numpy(), dtype=np.int64)
        keys = _encode_array_sections(arr.keys, key_t, offsets, null)
        values = _encode_array_sections(arr.items, value_t, offsets, null)
        sizes = np.where(null, 0, 4 + keys.sizes + values.sizes)
        starts = _excl_cumsum(sizes)
        flat = np.zeros(int(starts[-1]), dtype=np.uint8)
        _write_fixed(flat, starts[:-1], keys.sizes.astype(_I32).view(np.uint8).reshape(-1, 4), ~null)
        _copy(flat, starts[:-1] + 4, keys.flat, keys.starts, np.where(null, 0, keys.sizes))
        _copy(flat, starts[:-1] + 4 + keys.sizes, values.flat, values.starts, np.where(null, 0, values.sizes))
        var = _section_var(_Sections(flat, starts[:-1], sizes), null)
        return _ColEnc(var.length.astype(np.uint64), null, var)

    def visit_map(self, t: pt.MapType) -> _ColEnc:
        return self._map(t, t.key, t.value)

    def visit_multiset(self, t: pt.MultisetType) -> _ColEnc:
        return self._map(t, t.element, _MULTISET_COUNT)

    def visit_vector(self, t: pt.VectorType) -> _ColEnc:
        arr, null = self._cast(t)
        n = len(arr)
        w = _vector_element_width(t.element)
        size = t.length
        if not pa.types.is_fixed_size_list(arr.type) or arr.type.list_size != size:
            raise ValidationError(f"Expected a fixed-size list of {size} for {t.to_string()}, got {arr.type}")
        base = arr.offset * size
        elems = arr.values.slice(base, n * size)
        enc = _encode_column(elems, t.element)
        if (enc.null & ~np.repeat(null, size)).any():
            raise ValidationError(f"{t.to_string()} cannot hold null elements in a BinaryRow")
        body = _round8(np.int64(size * w))
        sizes = np.where(null, 0, 4 + body).astype(np.int64)
        starts = _excl_cumsum(sizes)[:-1]
        flat = np.zeros(int(sizes.sum()), dtype=np.uint8)
        _write_fixed(flat, starts, np.full((n, 1), size, dtype=_I32).view(np.uint8).reshape(n, 4), ~null)
        elem_bytes = enc.slot.astype(_U64).view(np.uint8).reshape(-1, 8)[:, :w].reshape(n, size * w)
        _write_fixed(flat, starts + 4, elem_bytes, ~null)
        var = _section_var(_Sections(flat, starts, sizes), null)
        return _ColEnc(var.length.astype(np.uint64), null, var)


_MULTISET_COUNT = IntType(nullable=False)
"""The value type of a MULTISET's BinaryMap: the count of each element."""


# ----------------------------------------------------------------------------------------------
# Encoding: assembling rows and arrays
# ----------------------------------------------------------------------------------------------


def _write_fixed(
    flat: np.ndarray, dest: np.ndarray, data: np.ndarray, rows: np.ndarray | None = None
) -> None:
    """flat[dest[r] : dest[r] + w] = data[r] for the selected rows."""
    if rows is not None:
        if not rows.all():
            dest, data = dest[rows], data[rows]
    if len(dest) == 0 or data.shape[1] == 0:
        return
    flat[dest[:, None] + np.arange(data.shape[1])] = data


def _copy(flat: np.ndarray, dest: np.ndarray, src: np.ndarray, start: np.ndarray, length: np.ndarray) -> None:
    """flat[dest[r] : dest[r] + length[r]] = src[start[r] : start[r] + length[r]]."""
    length = length.astype(np.int64, copy=False)
    if not length.any():
        return
    sel = length > 0
    dest, start, length = dest[sel], start[sel], length[sel]
    flat[_ranges(dest, length)] = src[_ranges(start, length)]


@dataclass
class _RowsEnc:
    words: np.ndarray  # (n, fixed // 8) uint64: header, null bits and slots
    sizes: np.ndarray | None  # int64 (n,) total row size; None when every row is just the fixed part
    pieces: list[tuple[np.ndarray, _Var]]  # (offset within the row, var data)


def _encode_rows_fixed(
    columns: Sequence[Any], types: Sequence[DataType], n: int, legacy_nulls: bool = False
) -> _RowsEnc:
    arity = len(types)
    nb = null_bits_size(arity)
    fixed = nb + 8 * arity
    words = np.zeros((n, fixed // 8), dtype=np.uint64)
    cursor = np.full(n, fixed, dtype=np.int64)
    pieces: list[tuple[np.ndarray, _Var]] = []
    has_var = False
    for i, (col, t) in enumerate(zip(columns, types, strict=True)):
        enc = _encode_column(col, t, legacy_nulls=legacy_nulls)
        if len(enc.null) != n:
            raise ValidationError(f"Column {i} has {len(enc.null)} rows, expected {n}")
        slot = enc.slot
        if enc.var is not None:
            v = enc.var
            slot = np.where(v.cursor, slot | (cursor.astype(np.uint64) << np.uint64(32)), slot)
            pieces.append((cursor.copy(), v))
            cursor = cursor + v.pad
            has_var = True
        if enc.null.any():
            bit = i + HEADER_SIZE_IN_BITS
            words[:, bit // 64] |= enc.null.astype(np.uint64) << np.uint64(bit % 64)
            if enc.var is None:
                slot = np.where(enc.null, np.uint64(0), slot)
            else:
                slot = np.where(enc.null & ~enc.var.cursor, np.uint64(0), slot)
        words[:, nb // 8 + i] = slot
    return _RowsEnc(words, cursor if has_var else None, pieces)


def _rows_to_sections(enc: _RowsEnc, prefix: int | None, valid: np.ndarray | None = None) -> _Sections:
    """Lay rows out in one buffer, each preceded by the 4-byte big-endian arity when ``prefix``
    is given. Rows not ``valid`` (nested nulls) get size 0."""
    n, fw = enc.words.shape
    fixed = fw * 8
    pre = 0 if prefix is None else 4
    fixed_bytes = enc.words.view(np.uint8).reshape(n, fixed)
    if enc.sizes is None and valid is None:
        width = pre + fixed
        mat = np.empty((n, width), dtype=np.uint8)
        if pre:
            mat[:, :4] = np.frombuffer(int(prefix or 0).to_bytes(4, "big", signed=True), dtype=np.uint8)
        mat[:, pre:] = fixed_bytes
        return _Sections(mat.reshape(-1), np.arange(n, dtype=np.int64) * width, np.full(n, width, np.int64))
    sizes = (np.full(n, fixed, np.int64) if enc.sizes is None else enc.sizes) + pre
    if valid is not None:
        sizes = np.where(valid, sizes, 0)
    starts = _excl_cumsum(sizes)
    flat = np.zeros(int(starts[-1]), dtype=np.uint8)
    starts = starts[:-1]
    if pre:
        head = np.frombuffer(int(prefix or 0).to_bytes(4, "big", signed=True), dtype=np.uint8)
        _write_fixed(flat, starts, np.broadcast_to(head, (n, 4)), valid)
    _write_fixed(flat, starts + pre, fixed_bytes, valid)
    for offset, v in enc.pieces:
        length = v.length if valid is None else np.where(valid, v.length, 0)
        _copy(flat, starts + pre + offset, v.src, v.start, length)
    return _Sections(flat, starts, sizes)


def _encode_row_sections(
    columns: Sequence[Any], types: Sequence[DataType], null: np.ndarray, legacy_nulls: bool = False
) -> _Sections:
    """Nested rows (no arity prefix); null rows get size 0."""
    n = len(null)
    enc = _encode_rows_fixed(columns, types, n, legacy_nulls)
    return _rows_to_sections(enc, None, ~null)


def _encode_array_sections(
    values: pa.Array, elem_t: DataType, offsets: np.ndarray, null: np.ndarray
) -> _Sections:
    """BinaryArray bytes of each list (``offsets`` index ``values``); null lists get size 0."""
    n = len(null)
    w = _element_width(elem_t)
    counts = np.where(null, 0, offsets[1:] - offsets[:-1]).astype(np.int64)
    enc = _encode_column(values, elem_t, in_array=True)
    elem_idx = _ranges(offsets[:-1], counts)
    row_of = np.repeat(np.arange(n, dtype=np.int64), counts)
    local = np.arange(len(elem_idx), dtype=np.int64) - np.repeat(_excl_cumsum(counts)[:-1], counts)
    header = 4 + ((counts + 31) // 32) * 4
    fixed = _round8(header + w * counts)
    slot = enc.slot[elem_idx]
    e_null = enc.null[elem_idx]
    if enc.var is not None:
        pads = enc.var.pad[elem_idx]
        cum = _excl_cumsum(pads)
        row_first = _excl_cumsum(counts)[:-1]
        var_total = cum[row_first + counts] - cum[row_first]
        cursor = fixed[row_of] + cum[:-1] - cum[row_first[row_of]]
        slot = np.where(enc.var.cursor[elem_idx], slot | (cursor.astype(np.uint64) << np.uint64(32)), slot)
    else:
        var_total = np.zeros(n, np.int64)
    slot = np.where(e_null, np.uint64(0), slot)
    sizes = np.where(null, 0, fixed + var_total).astype(np.int64)
    starts = _excl_cumsum(sizes)
    flat = np.zeros(int(starts[-1]), dtype=np.uint8)
    starts = starts[:-1]
    _write_fixed(flat, starts, counts.astype(_I32).view(np.uint8).reshape(n, 4), ~null)
    if e_null.any():
        nl = np.nonzero(e_null)[0]
        byte_idx = starts[row_of[nl]] + 4 + local[nl] // 8
        np.bitwise_or.at(flat, byte_idx, (np.uint8(1) << (local[nl] % 8).astype(np.uint8)))
    if len(elem_idx):
        slot_bytes = slot.astype(_U64).view(np.uint8).reshape(-1, 8)[:, :w]
        _write_fixed(flat, starts[row_of] + header[row_of] + local * w, slot_bytes)
    if enc.var is not None and len(elem_idx):
        _copy(flat, starts[row_of] + cursor, enc.var.src, enc.var.start[elem_idx], enc.var.length[elem_idx])
    return _Sections(flat, starts, sizes)


def _check_columns(columns: Sequence[Any], types: Sequence[DataType]) -> tuple[list[pa.Array], int]:
    if len(columns) != len(types):
        raise ValidationError(f"Got {len(columns)} columns for {len(types)} types")
    arrays = [_as_array(c) for c in columns]
    if not arrays:
        return arrays, 0
    n = len(arrays[0])
    for i, a in enumerate(arrays):
        if len(a) != n:
            raise ValidationError(f"Column {i} has {len(a)} rows, column 0 has {n}")
    return arrays, n


def _encode_sections(
    columns: Sequence[Any],
    types: Sequence[DataType],
    prefix: bool,
    num_rows: int | None = None,
    legacy_nulls: bool = False,
) -> _Sections:
    arrays, n = _check_columns(columns, types)
    if not arrays:
        n = num_rows or 0
    enc = _encode_rows_fixed(arrays, types, n, legacy_nulls)
    return _rows_to_sections(enc, len(types) if prefix else None)


def _sections_to_bytes(sec: _Sections) -> list[bytes]:
    n = len(sec.sizes)
    if n == 0:
        return []
    first = int(sec.sizes[0])
    if first > 0 and (sec.sizes == first).all() and len(sec.flat) == n * first:
        return sec.flat.reshape(n, first).view(f"V{first}").reshape(-1).tolist()
    out = np.empty(n, dtype=object)
    for size in np.unique(sec.sizes):
        rows = np.nonzero(sec.sizes == size)[0]
        s = int(size)
        if s == 0:
            out[rows] = b""
            continue
        mat = sec.flat[sec.starts[rows][:, None] + np.arange(s)]
        lst = mat.view(f"V{s}").reshape(-1).tolist()
        tmp = np.empty(len(lst), dtype=object)
        tmp[:] = lst
        out[rows] = tmp
    return out.tolist()


def encode_rows(
    columns: Sequence[Any],
    types: Sequence[DataType],
    num_rows: int | None = None,
    *,
    legacy_nulls: bool = False,
) -> list[bytes]:
    """Serialised BinaryRows (4-byte big-endian arity + row bytes, as manifests store them), one per
    row of the columns. ``num_rows`` gives the row count when there are no columns.

    A null DECIMAL of precision > 18 or TIMESTAMP of precision > 3 keeps its reserved variable
    space (16 / 8 zero bytes) as Paimon's code-generated projections and, since Paimon 1.2,
    ``InternalRowSerializer`` write it; ``legacy_nulls=True`` reproduces older writers, which only
    set the null bit. Both decode alike."""
    return _sections_to_bytes(_encode_sections(columns, types, True, num_rows, legacy_nulls))


def encode_rows_array(
    columns: Sequence[Any],
    types: Sequence[DataType],
    num_rows: int | None = None,
    *,
    legacy_nulls: bool = False,
) -> pa.Array:
    """Like :func:`encode_rows` but as one Arrow binary array (no per-row Python objects)."""
    sec = _encode_sections(columns, types, True, num_rows, legacy_nulls)
    offsets = np.append(sec.starts, sec.starts[-1] + sec.sizes[-1] if len(sec.sizes) else 0)
    if offsets[-1] < 2**31:
        return pa.Array.from_buffers(
            pa.binary(), len(sec.sizes), [None, pa.py_buffer(offsets.astype(_I32)), pa.py_buffer(sec.flat)]
        )
    return pa.Array.from_buffers(
        pa.large_binary(), len(sec.sizes), [None, pa.py_buffer(offsets.astype(_I64)), pa.py_buffer(sec.flat)]
    )


def encode_row(values: Sequence[Any], types: Sequence[DataType], *, legacy_nulls: bool = False) -> bytes:
    """One serialised BinaryRow from Python values (as ``pa.array([v], to_arrow_type(t))`` takes)."""
    if len(values) != len(types):
        raise ValidationError(f"Got {len(values)} values for {len(types)} types")
    cols = []
    for v, t in zip(values, types, strict=True):
        try:
            cols.append(pa.array([v], type=to_arrow_type(t)))
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError) as e:
            raise ValidationError(f"Value {v!r} is not a valid {t.to_string()}: {e}") from None
    return encode_rows(cols, types, num_rows=1, legacy_nulls=legacy_nulls)[0]


def empty_row() -> bytes:
    """The serialised 0-arity row (``BinaryRow.EMPTY_ROW``): 12 bytes."""
    return encode_rows([], [], num_rows=1)[0]


# ----------------------------------------------------------------------------------------------
# Decoding
# ----------------------------------------------------------------------------------------------


def _take(flat: np.ndarray, idx: np.ndarray) -> np.ndarray:
    return np.take(flat, idx, mode="clip") if len(flat) else np.zeros(idx.shape, np.uint8)


def _read_le(flat: np.ndarray, pos: np.ndarray, width: int) -> np.ndarray:
    """Little-endian unsigned integers of ``width`` bytes at ``pos`` (as uint64)."""
    b = np.zeros((len(pos), 8), dtype=np.uint8)
    b[:, :width] = _take(flat, pos[:, None] + np.arange(width))
    return b.view(_U64).reshape(-1)


def _corrupt(what: str, rows: np.ndarray, detail: str) -> CorruptFileError:
    first = int(np.nonzero(rows)[0][0])
    return CorruptFileError(f"Corrupt {what} at row {first}: {detail}")


def _var_bounds(
    what: str, slot: np.ndarray, base: np.ndarray, limit: np.ndarray, check: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    off = ((slot >> np.uint64(32)) & np.uint64(0x7FFFFFFF)).astype(np.int64)
    ln = (slot & np.uint64(0xFFFFFFFF)).astype(np.int64)
    bad = check & ((base + off + ln > limit) | (off < 0))
    if bad.any():
        raise _corrupt(what, bad, "variable-length data lies outside the row")
    return base + off, ln


def _decode_values(
    t: DataType,
    flat: np.ndarray,
    slot: np.ndarray,
    slot_pos: np.ndarray,
    base: np.ndarray,
    limit: np.ndarray,
    null: np.ndarray,
) -> pa.Array:
    """Decode one column from its slots; ``base``/``limit`` bound the enclosing row or array."""
    return t.accept(_ValueDecoder(flat, slot, slot_pos, base, limit, null))


class _ValueDecoder(pt.TypeVisitor[pa.Array]):
    """Decodes one column of the visited type from its slots."""

    def __init__(
        self,
        flat: np.ndarray,
        slot: np.ndarray,
        slot_pos: np.ndarray,
        base: np.ndarray,
        limit: np.ndarray,
        null: np.ndarray,
    ) -> None:
        self.flat = flat
        self.slot = slot
        self.slot_pos = slot_pos
        self.base = base
        self.limit = limit
        self.null = null

    def _values(self, t: DataType, values: np.ndarray) -> pa.Array:
        return _from_values(values, to_arrow_type(t), self.null)

    def visit_boolean(self, t: pt.BooleanType) -> pa.Array:
        v = (self.slot & np.uint64(0xFF)) != 0
        return pa.Array.from_buffers(
            pa.bool_(), len(self.slot), [_validity_buffer(self.null), pa.py_buffer(np.packbits(v, bitorder="little"))]
        )

    def visit_tinyint(self, t: pt.TinyIntType) -> pa.Array:
        return self._values(t, self.slot.astype(np.uint8).view(np.int8))

    def visit_smallint(self, t: pt.SmallIntType) -> pa.Array:
        return self._values(t, self.slot.astype(np.uint16).view(np.int16))

    def visit_int(self, t: pt.IntType) -> pa.Array:
        return self._values(t, self.slot.astype(np.uint32).view(np.int32))

    def visit_date(self, t: pt.DateType) -> pa.Array:
        return self._values(t, self.slot.astype(np.uint32).view(np.int32))

    def visit_time(self, t: pt.TimeType) -> pa.Array:
        return self._values(t, self.slot.astype(np.uint32).view(np.int32))

    def visit_float(self, t: pt.FloatType) -> pa.Array:
        return self._values(t, self.slot.astype(np.uint32).view(np.float32))

    def visit_bigint(self, t: pt.BigIntType) -> pa.Array:
        return self._values(t, self.slot.astype(_U64))

    def visit_double(self, t: pt.DoubleType) -> pa.Array:
        return self._values(t, self.slot.astype(_U64))

    def visit_decimal(self, t: DecimalType) -> pa.Array:
        slot, null = self.slot, self.null
        words = np.zeros((len(slot), 2), dtype=_U64)
        if t.is_compact:
            unscaled = slot.view(np.int64)
            words[:, 0] = slot
            words[:, 1] = (unscaled >> np.int64(63)).view(np.uint64)
        else:
            what = f"BinaryRow field of type {t.to_string()}"
            check = ~null
            pos, ln = _var_bounds(what, slot, self.base, self.limit, check)
            bad = check & ((ln < 1) | (ln > 16))
            if bad.any():
                raise _corrupt(what, bad, "a non-compact decimal must have 1 to 16 bytes")
            ln = np.where(check, ln, 1)
            window = _take(self.flat, pos[:, None] + np.arange(16))
            shift = 16 - ln
            src_idx = np.arange(16)[None, :] - shift[:, None]
            sign = np.where((window[:, 0] & 0x80) != 0, 0xFF, 0).astype(np.uint8)
            be = np.where(
                src_idx >= 0, np.take_along_axis(window, np.maximum(src_idx, 0), axis=1), sign[:, None]
            ).astype(np.uint8)
            be[null] = 0
            words = np.ascontiguousarray(be[:, ::-1]).view(_U64)
        return self._values(t, words.reshape(-1))

    def _timestamp(self, t: pt.TimestampType | pt.LocalZonedTimestampType) -> pa.Array:
        slot, null = self.slot, self.null
        target = to_arrow_type(t)
        if t.is_compact:
            return _from_values(slot.view(np.int64), target, null)
        what = f"BinaryRow field of type {t.to_string()}"
        check = ~null
        off = ((slot >> np.uint64(32)) & np.uint64(0x7FFFFFFF)).astype(np.int64)
        bad = check & (self.base + off + 8 > self.limit)
        if bad.any():
            raise _corrupt(what, bad, "timestamp millis lie outside the row")
        millis = _read_le(self.flat, self.base + off, 8).view(np.int64)
        nanos = (slot & np.uint64(0xFFFFFFFF)).astype(np.int64)
        bad = check & (nanos >= 1_000_000)
        if bad.any():
            raise _corrupt(what, bad, "nano-of-millisecond exceeds 999999")
        if target.unit == "us":
            v = millis * 1000 + nanos // 1000
        else:
            v = millis * 1_000_000 + nanos
        return _from_values(np.where(null, 0, v), target, null)

    def visit_timestamp(self, t: pt.TimestampType) -> pa.Array:
        return self._timestamp(t)

    def visit_local_zoned_timestamp(self, t: pt.LocalZonedTimestampType) -> pa.Array:
        return self._timestamp(t)

    def _bytes(self, t: DataType) -> pa.Array:
        slot, null = self.slot, self.null
        target = to_arrow_type(t)
        what = f"BinaryRow field of type {t.to_string()}"
        inline = (slot >> np.uint64(63)) != 0
        in_len = ((slot >> np.uint64(56)) & np.uint64(0x7F)).astype(np.int64)
        bad = ~null & inline & (in_len > 7)
        if bad.any():
            raise _corrupt(what, bad, "inline length exceeds 7")
        vpos, vlen = _var_bounds(what, slot, self.base, self.limit, ~null & ~inline)
        lengths = np.where(null, 0, np.where(inline, in_len, vlen))
        starts = np.where(inline, self.slot_pos, vpos)
        data = self.flat[_ranges(starts, lengths)] if lengths.any() else _EMPTY_U8
        offs = _excl_cumsum(lengths)
        big = offs[-1] >= 2**31
        phys = pa.large_binary() if big else pa.binary()
        arr = pa.Array.from_buffers(
            phys,
            len(slot),
            [_validity_buffer(null), pa.py_buffer(offs.astype(_I64 if big else _I32)), pa.py_buffer(data)],
        )
        if pa.types.is_string(target):
            arr = arr.view(pa.large_string() if big else pa.string())
            try:
                arr.validate(full=True)
            except pa.ArrowInvalid as e:
                raise CorruptFileError(f"Corrupt {what}: invalid UTF-8 ({e})") from None
            return arr.cast(target) if big else arr
        return arr.cast(target) if big else arr

    def visit_char(self, t: pt.CharType) -> pa.Array:
        return self._bytes(t)

    def visit_varchar(self, t: pt.VarCharType) -> pa.Array:
        return self._bytes(t)

    def visit_binary(self, t: pt.BinaryType) -> pa.Array:
        return self._bytes(t)

    def visit_varbinary(self, t: pt.VarBinaryType) -> pa.Array:
        return self._bytes(t)

    def visit_blob(self, t: pt.BlobType) -> pa.Array:
        return self._bytes(t)

    def visit_variant(self, t: pt.VariantType) -> pa.Array:
        raise UnsupportedError(f"Paimon type {t.to_string()} cannot be read from a BinaryRow")

    def _nested(self, t: DataType) -> tuple[np.ndarray, np.ndarray, pa.DataType, pa.Array | None]:
        """(position, size) of each nested value, the Arrow type and the null mask."""
        null = self.null
        what = f"BinaryRow field of type {t.to_string()}"
        pos, ln = _var_bounds(what, self.slot, self.base, self.limit, ~null)
        mask = pa.array(null) if null.any() else None
        return np.where(null, 0, pos), np.where(null, 0, ln), to_arrow_type(t), mask

    def visit_row(self, t: pt.RowType) -> pa.Array:
        pos, size, target, mask = self._nested(t)
        children = _decode_row_sections(t.field_types, self.flat, pos, size, self.null, "nested ROW")
        return pa.StructArray.from_arrays(children, fields=list(target), mask=mask)

    def visit_array(self, t: pt.ArrayType) -> pa.Array:
        pos, size, target, mask = self._nested(t)
        offsets, values = _decode_array_sections(t.element, self.flat, pos, size, self.null)
        return pa.ListArray.from_arrays(pa.array(offsets.astype(_I32)), values, type=target, mask=mask)

    def _map(self, t: DataType, key_t: DataType, value_t: DataType) -> pa.Array:
        pos, size, target, mask = self._nested(t)
        flat, null = self.flat, self.null
        check = ~null
        bad = check & (size < 4)
        if bad.any():
            raise _corrupt("BinaryMap", bad, "shorter than its header")
        key_size = np.where(check, _read_le(flat, pos, 4).astype(np.uint32).view(np.int32), 0).astype(
            np.int64
        )
        bad = check & ((key_size < 0) | (4 + key_size > size))
        if bad.any():
            raise _corrupt("BinaryMap", bad, "key array size exceeds the map")
        k_off, keys = _decode_array_sections(key_t, flat, pos + 4, key_size, null)
        v_off, values = _decode_array_sections(value_t, flat, pos + 4 + key_size, size - 4 - key_size, null)
        if not np.array_equal(k_off, v_off):
            raise CorruptFileError("Corrupt BinaryMap: key and value arrays differ in length")
        return pa.MapArray.from_arrays(pa.array(k_off.astype(_I32)), keys, values, type=target, mask=mask)

    def visit_map(self, t: pt.MapType) -> pa.Array:
        return self._map(t, t.key, t.value)

    def visit_multiset(self, t: pt.MultisetType) -> pa.Array:
        return self._map(t, t.element, _MULTISET_COUNT)

    def visit_vector(self, t: pt.VectorType) -> pa.Array:
        pos, size, target, mask = self._nested(t)
        flat, null = self.flat, self.null
        w = _vector_element_width(t.element)
        check = ~null
        count = np.where(check, _read_le(flat, pos, 4).astype(np.uint32).view(np.int32), t.length)
        bad = check & ((count != t.length) | (size < 4 + count.astype(np.int64) * w))
        if bad.any():
            raise _corrupt(f"BinaryRow {t.to_string()}", bad, "wrong element count or size")
        n = len(null)
        elem_pos = (pos[:, None] + 4 + np.arange(t.length) * w).reshape(-1)
        slots = _read_le(flat, elem_pos, w)
        rep_base = np.repeat(pos, t.length)
        values = _decode_values(
            t.element,
            flat,
            slots,
            elem_pos,
            rep_base,
            rep_base + 8 * t.length + 8,
            np.zeros(n * t.length, bool),
        )
        return pa.FixedSizeListArray.from_arrays(values, type=target, mask=mask)


def _decode_array_sections(
    elem_t: DataType, flat: np.ndarray, pos: np.ndarray, size: np.ndarray, null: np.ndarray
) -> tuple[np.ndarray, pa.Array]:
    """Decode BinaryArrays at ``pos`` into (list offsets, flat values)."""
    check = ~null
    bad = check & (size < 4)
    if bad.any():
        raise _corrupt("BinaryArray", bad, "shorter than its header")
    counts = np.where(check, _read_le(flat, pos, 4).astype(np.uint32).view(np.int32), 0).astype(np.int64)
    w = _element_width(elem_t)
    header = 4 + ((counts + 31) // 32) * 4
    bad = check & ((counts < 0) | (header + counts * w > size))
    if bad.any():
        raise _corrupt("BinaryArray", bad, "element count exceeds the array size")
    counts = np.where(check, counts, 0)
    offsets = _excl_cumsum(counts)
    row_of = np.repeat(np.arange(len(pos), dtype=np.int64), counts)
    local = np.arange(int(offsets[-1]), dtype=np.int64) - np.repeat(offsets[:-1], counts)
    a_base = pos[row_of]
    bits = _take(flat, a_base + 4 + local // 8)
    e_null = ((bits >> (local % 8).astype(np.uint8)) & 1).astype(bool)
    slot_pos = a_base + header[row_of] + local * w
    slots = _read_le(flat, slot_pos, w)
    values = _decode_values(elem_t, flat, slots, slot_pos, a_base, a_base + size[row_of], e_null)
    return offsets, values


def _decode_row_sections(
    types: Sequence[DataType],
    flat: np.ndarray,
    base: np.ndarray,
    size: np.ndarray,
    null: np.ndarray,
    what: str,
) -> list[pa.Array]:
    arity = len(types)
    nb = null_bits_size(arity)
    fixed = nb + 8 * arity
    n = len(base)
    bad = ~null & (size < fixed)
    if bad.any():
        raise _corrupt(what, bad, f"{int(size[bad][0])} bytes is shorter than the fixed part ({fixed} bytes)")
    if arity == 0:
        return []
    safe_base = np.where(null, 0, base)
    words = _take(flat, safe_base[:, None] + np.arange(fixed)).view(_U64)
    limit = safe_base + size
    out = []
    for i, t in enumerate(types):
        bit = i + HEADER_SIZE_IN_BITS
        f_null = null | (((words[:, bit // 64] >> np.uint64(bit % 64)) & np.uint64(1)) != 0)
        slot = np.ascontiguousarray(words[:, nb // 8 + i])
        out.append(_decode_values(t, flat, slot, safe_base + nb + 8 * i, safe_base, limit, f_null))
    if n == 0:
        return [pa.array([], type=to_arrow_type(t)) for t in types]
    return out


def _blobs_to_flat(blobs: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(flat buffer, starts, lengths, null mask) of a sequence of bytes or an Arrow binary array."""
    if isinstance(blobs, (pa.Array, pa.ChunkedArray)):
        arr = _as_array(blobs)
        if not (pa.types.is_binary(arr.type) or pa.types.is_large_binary(arr.type)):
            arr = arr.cast(pa.large_binary())
        null = _null_mask(arr)
        data, starts, lengths = _binary_parts(arr)
        return data, starts, lengths, null
    items = blobs if isinstance(blobs, list) else list(blobs)
    try:
        arr = pa.array(items, type=pa.large_binary())
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as e:
        raise ValidationError(f"BinaryRow blobs must be bytes or None: {e}") from None
    data, starts, lengths = _binary_parts(arr)
    return data, starts, lengths, _null_mask(arr)


def row_arity(blob: bytes) -> int:
    """The arity stored in a serialised BinaryRow (0 for ``b""``)."""
    if len(blob) == 0:
        return 0
    if len(blob) < 4:
        raise CorruptFileError(f"Corrupt BinaryRow: {len(blob)} bytes is shorter than the arity header")
    return int.from_bytes(blob[:4], "big", signed=True)


def decode_rows(blobs: Any, types: Sequence[DataType]) -> list[pa.Array]:
    """Decode serialised BinaryRows column-wise: one Arrow array per type.

    ``blobs`` is a sequence of ``bytes`` (``None`` entries decode as all-null rows) or an Arrow
    binary array. ``b""`` is accepted as the 0-arity row."""
    flat, starts, lengths, null = _blobs_to_flat(blobs)
    arity = len(types)
    empty = ~null & (lengths == 0)
    if arity and empty.any():
        raise _corrupt("BinaryRow", empty, f"empty bytes for a row of arity {arity}")
    short = ~null & ~empty & (lengths < 4)
    if short.any():
        raise _corrupt("BinaryRow", short, "shorter than the 4-byte arity header")
    head = _take(flat, starts[:, None] + np.arange(4)) if len(starts) else np.zeros((0, 4), np.uint8)
    arities = head.view(">i4").reshape(-1).astype(np.int64)
    bad = ~null & ~empty & (arities != arity)
    if bad.any():
        first = int(np.nonzero(bad)[0][0])
        raise CorruptFileError(
            f"Corrupt BinaryRow at row {first}: arity {int(arities[first])}, expected {arity}"
        )
    return _decode_row_sections(
        types, flat, starts + 4, np.where(empty, 0, lengths - 4), null | empty, "BinaryRow"
    )


def _ns_as_int(t: pa.DataType) -> pa.DataType:
    """The type with every timestamp replaced by int64 (epoch values in its unit)."""
    if pa.types.is_timestamp(t):
        return pa.int64()
    if pa.types.is_fixed_size_list(t):
        return pa.list_(t.value_field.with_type(_ns_as_int(t.value_type)), t.list_size)
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_ns_as_int(t.value_type)))
    if pa.types.is_map(t):
        return pa.map_(
            t.key_field.with_type(_ns_as_int(t.key_type)), t.item_field.with_type(_ns_as_int(t.item_type))
        )
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(_ns_as_int(t.field(i).type)) for i in range(t.num_fields)])
    return t


def _py_value(arr: pa.Array, i: int) -> Any:
    scalar = arr[i]
    try:
        return scalar.as_py()
    except (ValueError, OverflowError):
        # timestamps that datetime cannot hold (nanoseconds, out of range): ints in the Arrow unit
        return arr.slice(i, 1).cast(_ns_as_int(arr.type))[0].as_py()


def decode_row(blob: bytes, types: Sequence[DataType]) -> list[Any]:
    """Python values of one serialised BinaryRow, as ``pa.array([v], to_arrow_type(t))`` takes them.
    Timestamps that ``datetime`` cannot hold (sub-microsecond nanos, beyond year 1..9999) come back
    as ints in the column's Arrow unit (epoch nanos for precision > 6)."""
    return [_py_value(a, 0) for a in decode_rows([blob], types)]


# ----------------------------------------------------------------------------------------------
# Stats truncation
# ----------------------------------------------------------------------------------------------


def _truncate_max_str(s: str, length: int) -> str | None:
    # TruncateSimpleColStatsCollector.truncateMax: keep `length` code points, then bump the last
    # code point that can be incremented (a bumped surrogate becomes '?' as Java encodes it).
    if len(s) <= length:
        return s
    prefix = s[:length]
    for i in range(length - 1, -1, -1):
        nxt = ord(prefix[i]) + 1
        if nxt <= 0x10FFFF:
            bumped = prefix[:i] + chr(nxt)
            return bumped.encode("utf-8", errors="replace").decode("utf-8")
    return None


def _truncate_max_bytes(b: bytes, length: int) -> bytes | None:
    if len(b) <= length:
        return b
    prefix = bytearray(b[:length])
    for i in range(length - 1, -1, -1):
        if prefix[i] != 0xFF:
            prefix[i] += 1
            return bytes(prefix[: i + 1])
    return None


def truncate_min_max(min_arr: Any, max_arr: Any, length: int = 16) -> tuple[pa.Array, pa.Array]:
    """Paimon's ``truncate(length)`` stats mode (``TruncateSimpleColStatsCollector.convert``) applied
    element-wise to min/max arrays of one column.

    Strings: min keeps its first ``length`` code points; a max longer than that is cut to
    ``length`` code points and its last incrementable code point is incremented (dropping what
    follows). Binary: the same on bytes (a byte 0xFF cannot be incremented). When no upper bound
    exists (all 0xFF / U+10FFFF) both min and max become null. Other types pass through."""
    mn, mx = _as_array(min_arr), _as_array(max_arr)
    if len(mn) != len(mx):
        raise ValidationError(f"min has {len(mn)} values, max has {len(mx)}")
    is_str = pa.types.is_string(mn.type) or pa.types.is_large_string(mn.type)
    is_bin = pa.types.is_binary(mn.type) or pa.types.is_large_binary(mn.type)
    if not (is_str or is_bin):
        return mn, mx
    if length <= 0:
        raise ValidationError(f"Truncate length should be larger than zero: {length}")
    if is_str:
        new_min = pc.utf8_slice_codeunits(mn, 0, length)
        too_long = pc.fill_null(pc.greater(pc.utf8_length(mx), length), False)
    else:
        new_min = pc.binary_slice(mn, 0, length)
        too_long = pc.fill_null(pc.greater(pc.binary_length(mx), length), False)
    if not pc.any(too_long).as_py():
        return new_min, mx
    long_rows = np.nonzero(np.asarray(too_long.to_numpy(zero_copy_only=False)))[0]
    max_values = mx.to_pylist()
    min_null = np.zeros(len(mn), dtype=bool)
    for r in long_rows.tolist():
        v = max_values[r]
        t = _truncate_max_str(v, length) if is_str else _truncate_max_bytes(v, length)
        max_values[r] = t
        if t is None:
            min_null[r] = True
    new_max = pa.array(max_values, type=mx.type)
    if min_null.any():
        new_min = pc.if_else(pa.array(min_null), pa.nulls(len(mn), type=new_min.type), new_min)
    return new_min, new_max
