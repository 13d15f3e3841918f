"""Paimon's casts between data types, over Arrow arrays.

When a column's type was changed (``ALTER TABLE ... TYPE``), data files written before keep the old
type and are converted on read with Paimon's cast rules. The facts follow Apache Paimon's
``org.apache.paimon.casting`` (``CastExecutors`` and the ``*CastRule`` classes), ``SchemaEvolutionUtil``
(nested ROW / ARRAY / MAP casts), ``BinaryStringUtils``, ``DateTimeUtils``, ``DecimalUtils`` and
``Decimal.fromBigDecimal``:

* Rule lookup (``CastExecutors.internalResolve``): the target is tried as the exact type (only the
  nullable ``STRING`` has rules of its own: DATE / TIME / TIMESTAMP -> STRING), then its type root, then
  its families; for each, the input's root and then its families. The first rule found decides; when
  it has no executor for the pair (e.g. TINYINT -> TIMESTAMP) the cast is unsupported.
* Types equal but for the top-level nullability are not cast. ROW -> ROW maps nested fields by id
  (missing ones read null), ARRAY -> ARRAY casts the elements, MAP -> MAP casts the values (the key
  types must be equal).
* The session time zone of the LTZ casts is UTC, so TIMESTAMP <-> TIMESTAMP WITH LOCAL TIME ZONE keep
  the value.
* A value Paimon cannot convert (a string that is no number, date or boolean, NaN -> DECIMAL...) raises
  ``ValidationError``; a pair of types Paimon has no cast for raises ``UnsupportedError``. Decimal
  overflow reads null, as ``Decimal.fromBigDecimal`` returns null.

Arrays use the engine's Arrow representation of each type (``types.to_arrow_type``); ``cast_array``
first brings a file's array to that representation (units, nested field names).
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Sequence
from decimal import MAX_EMAX as _DEC_MAX_EMAX
from decimal import MIN_EMIN as _DEC_MIN_EMIN
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql import types as pt
from paimon_sql.arrow_arrays import one_array
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.types import (
    MAX_LENGTH,
    TYPE_FAMILIES,
    DataType,
    DecimalType,
    IntType,
    VarCharType,
    to_arrow_type,
)

__all__ = ["cast_array", "can_cast", "normalize_array", "resolves"]

RuleFn = Callable[[pa.Array, DataType, DataType], pa.Array]

# ----------------------------------------------------------------------------------------------
# Rules by type roots and families (org.apache.paimon.types.DataTypeRoot, types.TYPE_FAMILIES)
# ----------------------------------------------------------------------------------------------


_STRING = VarCharType(MAX_LENGTH)
"""``VarCharType.STRING_TYPE``: nullable STRING, the exact target of DATE/TIME/TIMESTAMP -> STRING."""

_Key = tuple[str, Any]
_RULES: dict[_Key, dict[_Key, RuleFn]] = {}


def _r(root: str) -> _Key:
    return ("root", root)


def _f(family: str) -> _Key:
    return ("family", family)


def _register(fn: RuleFn, inputs: Sequence[_Key], targets: Sequence[_Key]) -> None:
    for t in targets:
        m = _RULES.setdefault(t, {})
        for i in inputs:
            m[i] = fn


def _resolve(source: DataType, target: DataType) -> RuleFn | None:
    target_keys: list[_Key] = [("type", target), _r(target.root)]
    target_keys += [_f(f) for f in TYPE_FAMILIES.get(target.root, ())]
    input_keys: list[_Key] = [_r(source.root)] + [_f(f) for f in TYPE_FAMILIES.get(source.root, ())]
    for tk in target_keys:
        m = _RULES.get(tk)
        if not m:
            continue
        for ik in input_keys:
            fn = m.get(ik)
            if fn is not None:
                return fn
    return None


# ----------------------------------------------------------------------------------------------
# Entry points
# ----------------------------------------------------------------------------------------------


def cast_array(arr: pa.Array | pa.ChunkedArray, source: DataType, target: DataType) -> pa.Array:
    """Casts ``arr`` (values of Paimon type ``source``) to ``target`` with Paimon's semantics.

    A chunked array is combined first. Raises ``UnsupportedError`` for a pair of types Paimon cannot
    cast and ``ValidationError`` for a value Paimon cannot convert."""
    arr = one_array(arr)
    try:
        return _cast(normalize_array(arr, source), source, target)
    except UnsupportedError as e:
        head = f"Cannot cast {source.to_string()} to {target.to_string()}"
        if str(e).startswith(head):
            raise
        raise UnsupportedError(f"{head}: {e}") from e


def can_cast(source: DataType, target: DataType) -> bool:
    """True when Paimon reads values of ``source`` as ``target`` (Paimon resolves an executor)."""
    try:
        cast_array(pa.array([], to_arrow_type(source)), source, target)
    except UnsupportedError:
        return False
    return True


def resolves(source: DataType, target: DataType, nested: bool = True) -> bool:
    """Whether a cast rule exists for the pair (``CastExecutors.resolve`` is not null); with
    ``nested`` False the ROW / ARRAY / MAP -> same-kind rules of the schema-evolution reader do not
    count (Paimon's CastExecutors has none). Types equal but for nullability always resolve."""
    if source.copy(True) == target.copy(True):
        return True
    fn = _resolve(source, target)
    return fn is not None and (nested or fn not in (_row_to_row, _array_to_array, _map_to_map))


def _unsupported(source: DataType, target: DataType, why: str = "Paimon has no cast rule for it") -> UnsupportedError:
    return UnsupportedError(f"Cannot cast {source.to_string()} to {target.to_string()}: {why}")


def _bad_value(value: Any, source: DataType, target: DataType, why: str) -> ValidationError:
    return ValidationError(f"Cannot cast {value!r} from {source.to_string()} to {target.to_string()}: {why}")


def _cast(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    if source.copy(True) == target.copy(True):
        return arr
    fn = _resolve(source, target)
    if fn is None:
        raise _unsupported(source, target)
    return fn(arr, source, target)


# ----------------------------------------------------------------------------------------------
# Arrow helpers
# ----------------------------------------------------------------------------------------------


def _null_mask(arr: pa.Array) -> np.ndarray:
    if arr.null_count == 0:
        return np.zeros(len(arr), dtype=bool)
    return np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)


def _ints(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The values as int64 numpy (0 where null) and the null mask."""
    t = arr.type
    if pa.types.is_timestamp(t) or pa.types.is_date64(t) or pa.types.is_time64(t) or pa.types.is_duration(t):
        a = arr.view(pa.int64())
    elif pa.types.is_date32(t) or pa.types.is_time32(t):
        a = arr.view(pa.int32())
    elif pa.types.is_boolean(t):
        a = pc.cast(arr, pa.int8())
    else:
        a = arr
    mask = _null_mask(arr)
    if arr.null_count:
        a = pc.fill_null(a, 0)
    return np.asarray(a.to_numpy(zero_copy_only=False)).astype(np.int64, copy=False), mask


def _floats(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    mask = _null_mask(arr)
    a = pc.fill_null(arr, 0) if arr.null_count else arr
    return np.asarray(a.to_numpy(zero_copy_only=False)).astype(np.float64, copy=False), mask


def _from_ints(values: np.ndarray, mask: np.ndarray, t: pa.DataType) -> pa.Array:
    """An Arrow array of type ``t`` (integer, date, time or timestamp) from integer values."""
    m = mask if mask.any() else None
    if pa.types.is_timestamp(t) or pa.types.is_date64(t) or pa.types.is_time64(t):
        return pa.array(values.astype(np.int64, copy=False), pa.int64(), mask=m).view(t)
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return pa.array(values.astype(np.int32, copy=False), pa.int32(), mask=m).view(t)
    return pa.array(values, t, mask=m)


def _first_bad(arr: pa.Array, ok: pa.Array) -> Any:
    """The first non-null value of ``arr`` where ``ok`` is false, or None when there is none."""
    bad = pc.and_(pc.invert(pc.fill_null(ok, True)), pc.is_valid(arr))
    if not pc.any(bad).as_py():
        return None
    return pc.filter(arr, bad)[0].as_py()


def _map_unique(arr: pa.Array, fn: Callable[[Any], Any], out_type: pa.DataType) -> pa.Array:
    """Applies ``fn`` once per distinct non-null value (the per-value fallback of exotic casts)."""
    if len(arr) == 0:
        return pa.array([], out_type)
    uniq = pc.unique(arr.drop_null()) if arr.null_count else pc.unique(arr)
    results = pa.array([fn(v) for v in uniq.to_pylist()], out_type)
    if len(uniq) == len(arr) and arr.null_count == 0:
        # all values distinct: unique keeps the input order
        return results
    return pc.take(results, pc.index_in(arr, value_set=uniq))


def _offsets_and_take(offsets: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, int, int]:
    """For a list-like array's offsets: the new offsets (from 0, empty for null rows) and either
    the child indices to take (when null rows are dropped) or the contiguous child slice."""
    lengths = np.diff(offsets).astype(np.int64)
    start = int(offsets[0]) if len(offsets) else 0
    if not mask.any():
        new = (offsets - start).astype(np.int64)
        return new, None, start, int(new[-1]) if len(new) else 0
    lengths[mask] = 0
    new = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new[1:])
    total = int(new[-1])
    starts = offsets[:-1].astype(np.int64)
    idx = np.repeat(starts - new[:-1], lengths) + np.arange(total, dtype=np.int64)
    return new, idx, 0, total


def _list_children(arr: pa.Array) -> tuple[np.ndarray, list[pa.Array], np.ndarray]:
    """Offsets (from 0), the logical child arrays (values, or keys and items of a map) and the
    null mask of a list / map array."""
    mask = _null_mask(arr)
    offsets = np.asarray(arr.offsets.to_numpy(zero_copy_only=False))
    new, idx, start, length = _offsets_and_take(offsets, mask)
    raw = [arr.keys, arr.items] if isinstance(arr, pa.MapArray) else [arr.values]
    if idx is None:
        children = [c.slice(start, length) for c in raw]
    else:
        take = pa.array(idx, pa.int64())
        children = [c.take(take) for c in raw]
    return new, children, mask


def _make_list(offsets: np.ndarray, values: pa.Array, mask: np.ndarray, t: pa.DataType) -> pa.Array:
    m = pa.array(mask) if mask.any() else None
    if pa.types.is_large_list(t):
        return pa.LargeListArray.from_arrays(pa.array(offsets, pa.int64()), values, type=t, mask=m)
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), values, type=t, mask=m)


def _make_map(offsets: np.ndarray, keys: pa.Array, items: pa.Array, mask: np.ndarray, t: pa.DataType) -> pa.Array:
    m = pa.array(mask) if mask.any() else None
    return pa.MapArray.from_arrays(pa.array(offsets, pa.int32()), keys, items, type=t, mask=m)


def _make_struct(children: list[pa.Array], mask: np.ndarray, t: pa.DataType, n: int) -> pa.Array:
    if t.num_fields == 0:
        return pa.array([{}] * n, t, mask=mask if mask.any() else None)
    m = pa.array(mask) if mask.any() else None
    return pa.StructArray.from_arrays(children, fields=list(t), mask=m)


# ----------------------------------------------------------------------------------------------
# Normalisation: a file's array in the engine's representation of its Paimon type
# ----------------------------------------------------------------------------------------------


_UNITS_PER_SECOND = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}
_NANOS_PER_UNIT = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1000, "ns": 1}
MILLIS_PER_DAY = 86_400_000


def normalize_array(arr: pa.Array, t: DataType) -> pa.Array:
    """``arr`` as the Arrow type the engine uses for ``t`` (``to_arrow_type``): timestamps and
    times in the precision's unit (floored), nested field names and nullability from ``t``,
    dictionaries decoded."""
    want = to_arrow_type(t)
    if arr.type.equals(want):
        return arr
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
        if arr.type.equals(want):
            return arr
    return t.accept(_Normalize(arr, want))


class _Normalize(pt.DefaultTypeVisitor[pa.Array]):
    """``arr`` (not yet of Arrow type ``want``) as the visited type's engine representation."""

    def __init__(self, arr: pa.Array, want: pa.DataType) -> None:
        self.arr = arr
        self.want = want

    def default(self, t: DataType) -> pa.Array:
        arr, at, want = self.arr, self.arr.type, self.want
        if pa.types.is_timestamp(at) and pa.types.is_timestamp(want):
            return _timestamp_to_unit(arr, want)
        if pa.types.is_time(at) and pa.types.is_time(want):
            vals, mask = _ints(arr)
            if at.unit == "s":
                millis = vals * 1000
            else:
                millis = np.floor_divide(vals, _UNITS_PER_SECOND[at.unit] // 1000)
            return _from_ints(millis, mask, want)
        try:
            return pc.cast(arr, want)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise ValidationError(f"Cannot read a {at} array as {t.to_string()}: {e}") from e

    def visit_row(self, t: pt.RowType) -> pa.Array:
        arr, at = self.arr, self.arr.type
        if not pa.types.is_struct(at):
            return self.default(t)
        names = [at.field(i).name for i in range(at.num_fields)]
        flat = arr.flatten()
        children = []
        for i, f in enumerate(t.fields):
            if f.name in names:
                c = flat[names.index(f.name)]
            elif i < len(flat) and len(flat) == len(t.fields):
                c = flat[i]
            else:
                c = pa.nulls(len(arr), to_arrow_type(f.type))
            children.append(normalize_array(c, f.type))
        return _make_struct(children, _null_mask(arr), self.want, len(arr))

    def visit_array(self, t: pt.ArrayType) -> pa.Array:
        at = self.arr.type
        if not (pa.types.is_list(at) or pa.types.is_large_list(at)):
            return self.default(t)
        offsets, (values,), mask = _list_children(self.arr)
        return _make_list(offsets, normalize_array(values, t.element), mask, self.want)

    def visit_vector(self, t: pt.VectorType) -> pa.Array:
        arr, at = self.arr, self.arr.type
        if not pa.types.is_fixed_size_list(at):
            return self.default(t)
        size = at.list_size
        values = arr.values.slice(arr.offset * size, len(arr) * size)
        m = pa.array(_null_mask(arr)) if arr.null_count else None
        return pa.FixedSizeListArray.from_arrays(normalize_array(values, t.element), type=self.want, mask=m)

    def _map(self, t: DataType, key_t: DataType, val_t: DataType) -> pa.Array:
        if not pa.types.is_map(self.arr.type):
            return self.default(t)
        offsets, (keys, items), mask = _list_children(self.arr)
        return _make_map(offsets, normalize_array(keys, key_t), normalize_array(items, val_t), mask, self.want)

    def visit_map(self, t: pt.MapType) -> pa.Array:
        return self._map(t, t.key, t.value)

    def visit_multiset(self, t: pt.MultisetType) -> pa.Array:
        return self._map(t, t.element, _MULTISET_COUNT)


def _timestamp_to_unit(arr: pa.Array, want: pa.DataType) -> pa.Array:
    """A timestamp array in another unit (floored when coarser), with ``want``'s time zone."""
    src, dst = arr.type.unit, want.unit
    if src == dst:
        return arr.view(pa.int64()).view(want)
    vals, mask = _ints(arr)
    if _UNITS_PER_SECOND[src] > _UNITS_PER_SECOND[dst]:
        out = np.floor_divide(vals, _UNITS_PER_SECOND[src] // _UNITS_PER_SECOND[dst])
    else:
        out = _checked_mul(vals, mask, _UNITS_PER_SECOND[dst] // _UNITS_PER_SECOND[src], f"timestamp[{dst}]")
    return _from_ints(out, mask, want)


def _checked_mul(vals: np.ndarray, mask: np.ndarray, factor: int, what: str) -> np.ndarray:
    if factor == 1:
        return vals
    limit = (2**63 - 1) // factor
    over = (np.abs(vals) > limit) & ~mask
    if over.any():
        raise ValidationError(f"Value {int(vals[over][0])} is out of the range Arrow's {what} can hold")
    return vals * factor


_MULTISET_COUNT = IntType(nullable=False)


# ----------------------------------------------------------------------------------------------
# Nested types (SchemaEvolutionUtil)
# ----------------------------------------------------------------------------------------------


def _row_to_row(arr: pa.Array, source_type: DataType, target_type: DataType) -> pa.Array:
    source, target = cast(pt.RowType, source_type), cast(pt.RowType, target_type)
    flat = arr.flatten()
    by_id = {f.id: (i, f) for i, f in enumerate(source.fields)}
    children = []
    for tf in target.fields:
        hit = by_id.get(tf.id)
        if hit is None:
            children.append(pa.nulls(len(arr), to_arrow_type(tf.type)))
        else:
            i, sf = hit
            children.append(_cast(flat[i], sf.type, tf.type))
    return _make_struct(children, _null_mask(arr), to_arrow_type(target), len(arr))


def _array_to_array(arr: pa.Array, source_type: DataType, target_type: DataType) -> pa.Array:
    source, target = cast(pt.ArrayType, source_type), cast(pt.ArrayType, target_type)
    offsets, (values,), mask = _list_children(arr)
    return _make_list(offsets, _cast(values, source.element, target.element), mask, to_arrow_type(target))


def _map_to_map(arr: pa.Array, source_type: DataType, target_type: DataType) -> pa.Array:
    source, target = cast(pt.MapType, source_type), cast(pt.MapType, target_type)
    if source.key != target.key:
        raise _unsupported(source, target, "the map key types differ")
    offsets, (keys, items), mask = _list_children(arr)
    return _make_map(offsets, keys, _cast(items, source.value, target.value), mask, to_arrow_type(target))


# ----------------------------------------------------------------------------------------------
# Java number semantics
# ----------------------------------------------------------------------------------------------

_INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
_NP_INT = {"TINYINT": np.int8, "SMALLINT": np.int16, "INT": np.int32, "BIGINT": np.int64}


def _java_float_to_integral(v: np.ndarray, root: str) -> np.ndarray:
    """Java's narrowing of a double to ``root``: NaN -> 0, saturating to int (to long for BIGINT),
    then wrapping to byte / short."""
    bits = 64 if root == "BIGINT" else 32
    hi, lo = float(2 ** (bits - 1)), -float(2 ** (bits - 1))
    out = np.zeros(len(v), dtype=np.int64)
    with np.errstate(invalid="ignore"):
        t = np.trunc(v)
        big = t >= hi
        small = t <= lo
        mid = ~(big | small | np.isnan(t))
    out[mid] = t[mid].astype(np.int64)
    out[big] = 2 ** (bits - 1) - 1
    out[small] = -(2 ** (bits - 1))
    return out.astype(_NP_INT[root])


def _jdiv(a: int, b: int) -> int:
    """Java's integer division (truncating toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _jrem(a: int, b: int) -> int:
    return a - _jdiv(a, b) * b


def _wrap32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def java_double_string(x: float, single: bool) -> str:
    """``Double.toString`` / ``Float.toString`` (shortest repr digits, Java's layout)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sci = np.format_float_scientific(np.float32(x) if single else np.float64(x), unique=True, trim="-")
    mant, exp_s = sci.split("e")
    neg = mant.startswith("-")
    digits = mant.lstrip("-").replace(".", "").rstrip("0") or "0"
    exp = int(exp_s)
    sign = "-" if neg else ""
    if -3 <= exp < 7:
        if exp >= 0:
            int_part = digits[: exp + 1].ljust(exp + 1, "0")
            frac = digits[exp + 1 :] or "0"
        else:
            int_part = "0"
            frac = "0" * (-exp - 1) + digits
        return f"{sign}{int_part}.{frac}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exp}"


def _decimal_from(d: Decimal, precision: int, scale: int) -> Decimal | None:
    """``Decimal.fromBigDecimal``: HALF_UP to ``scale``; null when the precision is exceeded."""
    if d.is_zero():
        return Decimal(0).scaleb(-scale)
    if d.adjusted() >= precision - scale:
        return None
    with localcontext() as ctx:
        ctx.prec = precision + 5
        ctx.Emax = _DEC_MAX_EMAX
        ctx.Emin = _DEC_MIN_EMIN
        q = d.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    if q.adjusted() >= precision - scale:
        return None
    return q


# ----------------------------------------------------------------------------------------------
# Numeric rules
# ----------------------------------------------------------------------------------------------


def _numeric_primitive(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """NumericPrimitiveCastRule: Java's ``Number.byteValue() / intValue() / ... / doubleValue()``."""
    out_t = to_arrow_type(target)
    s, t = source.root, target.root
    if s in _INT_BITS and t in _INT_BITS:
        vals, mask = _ints(arr)
        return _from_ints(vals.astype(_NP_INT[t]), mask, out_t)  # two's complement wrap
    if t in _INT_BITS:
        vals_f, mask = _floats(arr)
        return pa.array(_java_float_to_integral(vals_f, t), out_t, mask=mask if mask.any() else None)
    if s in _INT_BITS:
        vals, mask = _ints(arr)
        out = vals.astype(np.float32 if t == "FLOAT" else np.float64)
        return pa.array(out, out_t, mask=mask if mask.any() else None)
    # FLOAT <-> DOUBLE: IEEE widening / round-to-nearest narrowing
    return pc.cast(arr, out_t, safe=False)


def _decimal_to_decimal(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """DecimalToDecimalCastRule: HALF_UP to the target scale, null on overflow."""
    target = cast(DecimalType, target)
    p, s = arr.type.precision, arr.type.scale
    pt, st = target.precision, target.scale
    out_t = pa.decimal128(pt, st)
    if st >= s and pt - st >= p - s:
        return pc.cast(arr, out_t)
    work = arr
    if st < s:
        wide = pa.decimal128(p + 1, s) if p < 38 else pa.decimal256(p + 1, s)
        work = pc.round(pc.cast(arr, wide), ndigits=st, round_mode="half_towards_infinity")
    return pc.cast(_null_overflow(work, pt - st), out_t)


def _null_overflow(dec: pa.Array, int_digits: int) -> pa.Array:
    """Nulls the decimals whose absolute value is >= 10^int_digits."""
    wp, ws = dec.type.precision, dec.type.scale
    if wp - ws <= int_digits:
        return dec
    bound = pa.scalar(Decimal(10) ** int_digits, type=dec.type)
    over = pc.greater_equal(pc.abs(dec), bound)
    return pc.if_else(over, pa.scalar(None, dec.type), dec)


def _decimal_words(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Low and high 64-bit words of a decimal128 array's unscaled values."""
    raw = np.frombuffer(arr.buffers()[1], dtype="<i8")
    raw = raw[2 * arr.offset : 2 * (arr.offset + len(arr))]
    return raw[0::2].copy(), raw[1::2].copy()


def _decimal_to_numeric(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """DecimalToNumericPrimitiveCastRule: integral types take the value rounded toward zero, its
    low 64 bits (``BigInteger.longValue``) then Java's narrowing; FLOAT / DOUBLE take
    ``unscaled / 10^scale`` in double arithmetic (exact ``BigDecimal.doubleValue`` beyond 18 digits)."""
    source = cast(DecimalType, source)
    out_t = to_arrow_type(target)
    mask = _null_mask(arr)
    m = mask if mask.any() else None
    t = target.root
    if t in _INT_BITS:
        whole = pc.cast(pc.round(arr, ndigits=0, round_mode="towards_zero"), pa.decimal128(38, 0))
        low, _ = _decimal_words(whole)
        low[mask] = 0
        return pa.array(low.astype(_NP_INT[t]), out_t, mask=m)
    if arr.type.precision <= 18:
        low, _ = _decimal_words(arr)
        low[mask] = 0
        d = low.astype(np.float64) / float(10**arr.type.scale)
    else:
        d = np.array([float(v) if v is not None else 0.0 for v in arr.to_pylist()], dtype=np.float64)
    return pa.array(d.astype(np.float32) if t == "FLOAT" else d, out_t, mask=m)


def _numeric_to_decimal(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """NumericPrimitiveToDecimalCastRule: integers exactly, FLOAT / DOUBLE through their shortest
    decimal string (``BigDecimal.valueOf(double)``); HALF_UP, null on overflow."""
    target = cast(DecimalType, target)
    if source.root in _INT_BITS:
        return _integers_to_decimal(arr, target)
    return _doubles_to_decimal(pc.cast(arr, pa.float64()), source, target)


def _doubles_to_decimal(arr: pa.Array, source: DataType, target: DecimalType) -> pa.Array:
    """``DecimalUtils.castFrom(double)`` vectorised. ``BigDecimal.valueOf`` takes the shortest
    round-trip digits (Arrow's double -> string cast gives them); HALF_UP to the scale depends
    only on the first dropped digit, so the digits are cut (toward zero) at scale + 1 and then
    rounded half away from zero; values far from a tie take the rounded product instead (below).
    Magnitudes >= 10^(precision - scale) are null before the parse
    (shortest digits are monotonic in the double and 10^k's are 10^k), and so are values that
    reach it by rounding. NaN and infinities have no BigDecimal: refused with the value."""
    p, s = target.precision, target.scale
    out_t = pa.decimal128(p, s)
    if len(arr) == 0:
        return pa.array([], out_t)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    vals = np.asarray(arr.fill_null(0.0).to_numpy(zero_copy_only=False), dtype=np.float64)
    mask = _null_mask(arr)
    bad = ~np.isfinite(vals) & ~mask
    if bad.any():
        raise _bad_value(float(vals[int(np.argmax(bad))]), source, target, "not a finite number")
    mag = np.abs(vals)
    over = mag >= float(10 ** (p - s))
    null = mask | over
    # below 10^-(s+2) the digits round to zero; Arrow's parse cannot rescale very small
    # exponents (1e-89 into scale 3), so they are zeroed first
    zero = over | (mag < float(Decimal(10) ** -(s + 2)))
    if zero.any():
        vals = np.where(zero, 0.0, vals)
    # Fast path: the nearest integer to x * 10^s is HALF_UP of the shortest digits times 10^s
    # unless a .5 boundary lies within the product's error (a few ulps: x's distance to its
    # shortest digits, the rounded 10^s, the rounded product); those, and products of 2^50 or
    # more, go through the digits.
    with np.errstate(over="ignore", invalid="ignore"):
        y = vals * (10.0**s)
    ay = np.abs(y)
    frac = ay - np.floor(ay)
    slow = ~null & ((ay >= float(1 << 50)) | (np.abs(frac - 0.5) <= ay * 1e-14 + 1e-15))
    unscaled = np.where(slow | null, 0.0, np.copysign(np.floor(ay + 0.5), y)).astype(np.int64)
    if p < 19:
        null = null | (np.abs(unscaled) >= 10**p)  # rounding carried up to 10^(p - s)
    fast = _decimal_from_unscaled(unscaled, null | slow, out_t)
    if not slow.any():
        return fast
    where = np.flatnonzero(slow)
    exact = _shortest_digits_to_decimal(vals[where], p, s)
    index = np.arange(len(vals), dtype=np.int64)
    index[where] = len(vals) + np.arange(len(where), dtype=np.int64)
    return pa.concat_arrays([fast, exact]).take(pa.array(index))


def _decimal_from_unscaled(unscaled: np.ndarray, null: np.ndarray, out_t: pa.DataType) -> pa.Array:
    """A decimal128 array of int64 unscaled values (the high word their sign)."""
    words = np.empty((len(unscaled), 2), dtype="<i8")
    words[:, 0] = unscaled
    words[:, 1] = unscaled >> 63
    validity = pa.array(~null).buffers()[1] if null.any() else None
    return pa.Array.from_buffers(out_t, len(unscaled), [validity, pa.py_buffer(words)],
                                 null_count=int(null.sum()))


def _shortest_digits_to_decimal(vals: np.ndarray, p: int, s: int) -> pa.Array:
    """HALF_UP of the shortest digits of finite ``vals`` (|x| < 10^(p - s), tiny ones zeroed) to
    DECIMAL(p, s), null where rounding reaches 10^(p - s): Arrow's double -> string digits cut
    (toward zero) at scale + 1, then rounded half away from zero."""
    digits = pc.cast(pa.array(vals, pa.float64()), pa.string())
    # one digit more than the cut needs: rounding may carry into it (99.995 -> 100.00)
    wide_t = pa.decimal128(p + 2, s + 1) if p + 2 <= 38 else pa.decimal256(p + 2, s + 1)
    cut = pc.cast(digits, wide_t, safe=False)
    rounded = pc.round(cut, ndigits=s, round_mode="half_towards_infinity")
    rounded = rounded.cast(pa.decimal128(p + 1, s) if p + 1 <= 38 else pa.decimal256(p + 1, s))
    bound = pa.scalar(Decimal(10) ** (p - s), type=rounded.type)
    carried = pc.greater_equal(pc.abs(rounded), bound)
    return pc.if_else(carried, pa.scalar(None, rounded.type), rounded).cast(pa.decimal128(p, s))


def _integers_to_decimal(arr: pa.Array, target: DecimalType) -> pa.Array:
    vals, mask = _ints(arr)
    int_digits = target.precision - target.scale
    if int_digits < 19:
        bound = 10**int_digits
        mask = mask | (vals >= bound) | (vals <= -bound)
    wide = pc.cast(pa.array(vals, pa.int64(), mask=mask if mask.any() else None), pa.decimal128(38, 0))
    return pc.cast(wide, pa.decimal128(target.precision, target.scale))


def _boolean_to_numeric(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """BooleanToNumericCastRule: true -> 1, false -> 0."""
    if target.root == "DECIMAL":
        return _integers_to_decimal(arr, cast(DecimalType, target))
    return pc.cast(pc.cast(arr, pa.int8()), to_arrow_type(target))


def _numeric_to_boolean(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """NumericToBooleanCastRule (integer types): value != 0."""
    return pc.not_equal(arr, pa.scalar(0, arr.type))


def _numeric_to_timestamp(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """NumericPrimitiveToTimestamp: INT / BIGINT are seconds since the epoch (UTC)."""
    if source.root not in ("INT", "BIGINT"):
        raise _unsupported(source, target, "only INT and BIGINT convert to timestamps")
    vals, mask = _ints(arr)
    with np.errstate(over="ignore"):
        millis = vals * 1000  # Java long arithmetic
    return _timestamp_from_parts(millis, np.zeros_like(millis), mask, target)


# ----------------------------------------------------------------------------------------------
# To string
# ----------------------------------------------------------------------------------------------


def _to_character_string(arr: pa.Array, target: DataType) -> pa.Array:
    """``BinaryStringUtils.toCharacterString``: cut to the length, CHAR pads with spaces."""
    length = target.accept(_LENGTH) if target.is_family("CHARACTER_STRING") else MAX_LENGTH
    if length < MAX_LENGTH:
        arr = pc.utf8_slice_codeunits(arr, 0, length)
        if target.root == "CHAR":
            arr = pc.utf8_rpad(arr, width=length, padding=" ")
    return arr


def _numeric_to_string(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """NumericToStringCastRule: Java's ``toString`` of the boxed value, then toCharacterString."""
    if source.root in ("FLOAT", "DOUBLE"):
        single = source.root == "FLOAT"
        out = _map_unique(arr, lambda x: java_double_string(x, single), pa.string())
    else:
        out = pc.cast(arr, pa.string())  # integers, and DECIMAL as toPlainString
    return _to_character_string(out, target)


def _boolean_to_string(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    out = pc.if_else(arr, pa.scalar("true"), pa.scalar("false"))
    return _to_character_string(out, target)


def _string_to_string(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    return _to_character_string(arr, target)


def _binary_to_string(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """BinaryToStringCastRule: the bytes as a string (not cut to the target length). Bytes that are
    no valid UTF-8 decode with replacement characters, as Java's String does."""
    try:
        return pc.cast(arr, pa.string())
    except pa.ArrowInvalid:
        return pa.array([None if b is None else b.decode("utf-8", "replace") for b in arr.to_pylist()],
                        pa.string())


def _pad2(a: pa.Array) -> pa.Array:
    return pc.utf8_lpad(pc.cast(a, pa.string()), width=2, padding="0")


def _java_int4(i: int) -> str:
    return "".join(chr(ord("0") + _jrem(_jdiv(i, d), 10)) for d in (1000, 100, 10, 1))


def _java_int2(i: int) -> str:
    return chr(ord("0") + _jrem(_jdiv(i, 10), 10)) + chr(ord("0") + _jrem(i, 10))


def _civil_from_days(z: int) -> tuple[int, int, int]:
    """Proleptic Gregorian (year, month, day) of an epoch day (``LocalDate.ofEpochDay``)."""
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + 1 if m <= 2 else y), m, d


def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _java_julian_date_string(date: int) -> str:
    """``DateTimeUtils.formatDate`` (Java's int arithmetic on the julian day)."""
    j = date + 2440588 + 32044
    g = _jdiv(j, 146097)
    dg = _jrem(j, 146097)
    c = _jdiv((_jdiv(dg, 36524) + 1) * 3, 4)
    dc = dg - c * 36524
    b = _jdiv(dc, 1461)
    db = _jrem(dc, 1461)
    a = _jdiv((_jdiv(db, 365) + 1) * 3, 4)
    da = db - a * 365
    y = g * 400 + c * 100 + b * 4 + a
    m = _jdiv(da * 5 + 308, 153) - 2
    d = da - _jdiv((m + 4) * 153, 5) + 122
    year = y - 4800 + _jdiv(m + 2, 12)
    month = _jrem(m + 2, 12) + 1
    return f"{_java_int4(year)}-{_java_int2(month)}-{_java_int2(d + 1)}"


# 0000-01-01T00:00:00 and 10000-01-01T00:00:00 in epoch seconds: years Arrow and Java print alike.
_SEC_YEAR_0 = -62_167_219_200
_SEC_YEAR_10000 = 253_402_300_800


def _timestamp_parts(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Paimon's Timestamp fields of a timestamp array: epoch millis (floored), nano of milli."""
    vals, mask = _ints(arr)
    unit = arr.type.unit
    if unit == "s":
        return vals * 1000, np.zeros_like(vals), mask
    if unit == "ms":
        return vals, np.zeros_like(vals), mask
    per_ms = _UNITS_PER_SECOND[unit] // 1000
    millis = np.floor_divide(vals, per_ms)
    return millis, (vals - millis * per_ms) * _NANOS_PER_UNIT[unit], mask


def _timestamp_from_parts(millis: np.ndarray, nano_of_milli: np.ndarray, mask: np.ndarray,
                          target: DataType) -> pa.Array:
    out_t = to_arrow_type(target)
    unit = out_t.unit
    if unit == "ms":
        return _from_ints(millis, mask, out_t)
    per_ms = _UNITS_PER_SECOND[unit] // 1000
    vals = _checked_mul(millis, mask, per_ms, f"timestamp[{unit}]") + nano_of_milli // _NANOS_PER_UNIT[unit]
    return _from_ints(vals, mask, out_t)


class _Precision(pt.DefaultTypeVisitor[int]):
    def default(self, t: DataType) -> int:
        raise UnsupportedError(f"{t.to_string()} has no time precision")

    def visit_time(self, t: pt.TimeType) -> int:
        return t.precision

    def visit_timestamp(self, t: pt.TimestampType) -> int:
        return t.precision

    def visit_local_zoned_timestamp(self, t: pt.LocalZonedTimestampType) -> int:
        return t.precision


_PRECISION = _Precision()


def _precision(t: DataType) -> int:
    return t.accept(_PRECISION)


class _Length(pt.DefaultTypeVisitor[int]):
    """The declared length of CHAR / VARCHAR / BINARY / VARBINARY; ``MAX_LENGTH`` for the others."""

    def default(self, t: DataType) -> int:
        return MAX_LENGTH

    def visit_char(self, t: pt.CharType) -> int:
        return t.length

    def visit_varchar(self, t: pt.VarCharType) -> int:
        return t.length

    def visit_binary(self, t: pt.BinaryType) -> int:
        return t.length

    def visit_varbinary(self, t: pt.VarBinaryType) -> int:
        return t.length


_LENGTH = _Length()


def _timestamp_to_string(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """TimestampToStringCastRule: ``yyyy-MM-dd HH:mm:ss[.fraction]``, the nine-digit fraction
    trimmed of trailing zeros down to the source precision (LTZ in the UTC session zone)."""
    precision = _precision(source)
    millis, nom, mask = _timestamp_parts(arr)
    secs = np.floor_divide(millis, 1000)
    nanos = (millis - secs * 1000) * 1_000_000 + nom
    n = len(arr)
    in_range = (secs >= _SEC_YEAR_0) & (secs < _SEC_YEAR_10000)
    safe_secs = np.where(in_range, secs, 0)
    base = pc.cast(_from_ints(safe_secs, mask, pa.timestamp("s")), pa.string())  # yyyy-MM-dd HH:mm:ss
    trailing = np.zeros(n, dtype=np.int64)
    for k in range(1, 10):
        trailing += (nanos % (10**k) == 0)
    length = np.maximum(9 - trailing, precision)
    frac_all = pc.utf8_lpad(pc.cast(pa.array(nanos, pa.int64()), pa.string()), width=9, padding="0")
    lengths = np.unique(length)
    frac: pa.Array | None = None
    for k in lengths:
        k = int(k)
        piece = pa.scalar("") if k == 0 else pc.binary_join_element_wise(
            ".", pc.utf8_slice_codeunits(frac_all, 0, k), "")
        if frac is None:
            frac = piece if isinstance(piece, pa.Array) else pa.repeat(pa.scalar(""), n)
        else:
            frac = pc.if_else(pa.array(length == k), piece, frac)
    if frac is None:
        frac = pa.array([], pa.string())
    out = pc.binary_join_element_wise(base, frac, "")
    if not in_range[~mask].all():
        fixed = []
        for i, v in enumerate(out.to_pylist()):
            if mask[i] or in_range[i]:
                fixed.append(v)
                continue
            y, mo, d = _civil_from_days(int(secs[i]) // 86400)
            sod = int(secs[i]) % 86400
            fixed.append(f"{_java_int4(y)}-{_java_int2(mo)}-{_java_int2(d)} {_java_int2(sod // 3600)}:"
                         f"{_java_int2(sod // 60 % 60)}:{_java_int2(sod % 60)}{frac[i].as_py()}")
        out = pa.array(fixed, pa.string())
    return out


def _date_to_string(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """DateToStringCastRule: ``yyyy-MM-dd``."""
    days, mask = _ints(arr)
    in_range = (days >= _SEC_YEAR_0 // 86400) & (days < _SEC_YEAR_10000 // 86400)
    if in_range[~mask].all():
        return pc.cast(arr, pa.string())
    return pa.array([None if mask[i] else _java_julian_date_string(int(d)) for i, d in enumerate(days)],
                    pa.string())


def _time_to_string(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """TimeToStringCastRule (``DateTimeUtils.formatTimestampMillis``): ``HH:mm:ss`` and, for a
    precision > 0, the millis' digits up to the last non-zero one (at least one, at most the
    precision)."""
    precision = _precision(source)
    vals, mask = _ints(arr)
    t = np.where(vals < 0, np.mod(vals, MILLIS_PER_DAY), vals)
    h, rem = np.divmod(t, 3_600_000)
    mi, rem = np.divmod(rem, 60_000)
    s, ms = np.divmod(rem, 1000)
    parts = [_pad2(pa.array(h % 100)), pa.scalar(":"), _pad2(pa.array(mi)), pa.scalar(":"), _pad2(pa.array(s))]
    if precision > 0:
        digits = pc.utf8_lpad(pc.cast(pa.array(ms), pa.string()), width=3, padding="0")
        digits = pc.utf8_rtrim(digits, characters="0")
        digits = pc.if_else(pc.equal(pc.utf8_length(digits), 0), pa.scalar("0"), digits)
        parts += [pa.scalar("."), pc.utf8_slice_codeunits(digits, 0, precision)]
    out = pc.binary_join_element_wise(*parts, "")
    return pc.if_else(pa.array(mask), pa.scalar(None, pa.string()), out) if mask.any() else out


def _list_to_string(values_str: pa.Array, offsets: np.ndarray, mask: np.ndarray, open_: str,
                    close: str) -> pa.Array:
    joined = pc.binary_join(_make_list(offsets, pc.fill_null(values_str, "null"), mask,
                                       pa.list_(pa.string())), ", ")
    return pc.binary_join_element_wise(open_, joined, close, "")


def _element_to_string(arr: pa.Array, t: DataType, outer: DataType) -> pa.Array:
    fn = _resolve(t, _STRING)
    if fn is None:
        raise _unsupported(outer, _STRING, f"its {t.to_string()} elements have no cast to STRING")
    return fn(arr, t, _STRING)


def _array_to_string(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """ArrayToStringCastRule: ``[e1, e2, null]`` (not cut to the target length)."""
    source = cast(pt.ArrayType, source)
    offsets, (values,), mask = _list_children(arr)
    return _list_to_string(_element_to_string(values, source.element, source), offsets, mask, "[", "]")


def _map_to_string(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """MapToStringCastRule: ``{k1 -> v1, k2 -> null}``."""
    source = cast(pt.MapType, source)
    offsets, (keys, items), mask = _list_children(arr)
    ks = pc.fill_null(_element_to_string(keys, source.key, source), "null")
    vs = pc.fill_null(_element_to_string(items, source.value, source), "null")
    return _list_to_string(pc.binary_join_element_wise(ks, vs, " -> "), offsets, mask, "{", "}")


def _row_to_string(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """RowToStringCastRule: ``{f1, null, f3}``."""
    source = cast(pt.RowType, source)
    flat = arr.flatten()
    mask = _null_mask(arr)
    if not source.fields:
        inner: pa.Array | pa.Scalar = pa.scalar("")
    else:
        strs = [pc.fill_null(_element_to_string(c, f.type, source), "null") for c, f in zip(flat, source.fields)]
        inner = pc.binary_join_element_wise(*strs, ", ") if len(strs) > 1 else strs[0]
    out = pc.binary_join_element_wise("{", inner, "}", "")
    if isinstance(out, pa.Scalar):
        out = pa.array([out.as_py()] * len(arr), pa.string())
    return pc.if_else(pa.array(mask), pa.scalar(None, pa.string()), out) if mask.any() else out


# ----------------------------------------------------------------------------------------------
# From string
# ----------------------------------------------------------------------------------------------

_TRUE_STRINGS = ["t", "true", "y", "yes", "1"]
_FALSE_STRINGS = ["f", "false", "n", "no", "0"]
_JAVA_TRIM = "".join(chr(i) for i in range(33))
"""``String.trim`` removes every char <= U+0020 at both ends."""


def _string_to_boolean(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """StringToBooleanCastRule (``BinaryStringUtils.toBoolean``): lower-cased t/true/y/yes/1 and
    f/false/n/no/0; anything else fails."""
    lower = pc.utf8_lower(arr)
    is_true = pc.is_in(lower, value_set=pa.array(_TRUE_STRINGS))
    ok = pc.or_(is_true, pc.is_in(lower, value_set=pa.array(_FALSE_STRINGS)))
    bad = _first_bad(arr, ok)
    if bad is not None:
        raise _bad_value(bad, source, target, "not a BOOLEAN (t, true, y, yes, 1, f, false, n, no, 0)")
    mask = _null_mask(arr)
    return pa.array(np.asarray(is_true.to_numpy(zero_copy_only=False), dtype=bool), pa.bool_(),
                    mask=mask if mask.any() else None)


_INTEGRAL_RE = r"^[+-]?[0-9]*(\.[0-9]*)?$"
_INT_RANGE = {"TINYINT": (-(2**7), 2**7 - 1), "SMALLINT": (-(2**15), 2**15 - 1), "INT": (-(2**31), 2**31 - 1)}


def _string_to_integral(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """``BinaryStringUtils.toLong / toInt / toShort / toByte``: an optional sign, ASCII digits and
    an optional ``.digits`` fraction that is dropped; no blanks; overflow fails."""
    ok = pc.and_(pc.match_substring_regex(arr, _INTEGRAL_RE),
                 pc.invert(pc.is_in(arr, value_set=pa.array(["", "+", "-"]))))
    bad = _first_bad(arr, ok)
    if bad is not None:
        raise _bad_value(bad, source, target, "not an integer")
    whole = pc.replace_substring_regex(arr, r"\..*$", "")
    whole = pc.replace_substring_regex(whole, r"^\+", "")
    whole = pc.replace_substring_regex(whole, r"^-?$", "0")
    try:
        vals = pc.cast(whole, pa.int64())
    except pa.ArrowInvalid:
        for v in arr.drop_null().to_pylist():
            _java_to_int(v, source, target, bits=64)  # raises for the value that overflows
        raise
    rng = _INT_RANGE.get(target.root)
    if rng is not None:
        inside = pc.and_(pc.greater_equal(vals, rng[0]), pc.less_equal(vals, rng[1]))
        bad = _first_bad(arr, inside)
        if bad is not None:
            raise _bad_value(bad, source, target, "overflow")
    return pc.cast(vals, to_arrow_type(target))


_FLOAT_RE = r"^[+-]?(NaN|Infinity|(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[fFdD]?))$"
_HEX_FLOAT_RE = r"^[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?$"


def _string_to_floating(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """``Double.parseDouble`` / ``Float.parseFloat``: trimmed, Java's float literal syntax (NaN,
    Infinity, an optional f/F/d/D suffix, hexadecimal ``0x1.8p3``)."""
    out_t = to_arrow_type(target)
    s = pc.utf8_trim(arr, characters=_JAVA_TRIM)
    dec = pc.match_substring_regex(s, _FLOAT_RE)
    hexa = pc.match_substring_regex(s, _HEX_FLOAT_RE)
    bad = _first_bad(arr, pc.or_(dec, hexa))
    if bad is not None:
        raise _bad_value(bad, source, target, "not a floating point number")
    plain = pc.replace_substring_regex(s, r"^([^xX]*[0-9.])[fFdD]$", r"\1")
    if pc.any(hexa).as_py():
        plain = pc.if_else(hexa, pa.scalar("0"), plain)
        out = pc.cast(plain, out_t)
        hex_vals = [float.fromhex(re.sub(r"[fFdD]$", "", v)) if h else None
                    for v, h in zip(s.to_pylist(), hexa.to_pylist())]
        hex_arr = pa.array(hex_vals, pa.float64()).cast(out_t, safe=False)
        return pc.if_else(pc.fill_null(hexa, False), hex_arr, out)
    return pc.cast(plain, out_t)


_BIG_DECIMAL_RE = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _string_to_decimal(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """StringToDecimalCastRule: ``new BigDecimal(string)`` (no blanks), HALF_UP, null on overflow."""
    target = cast(DecimalType, target)
    p, s = target.precision, target.scale

    def conv(v: str) -> Decimal | None:
        if not _BIG_DECIMAL_RE.fullmatch(v):
            raise _bad_value(v, source, target, "not a decimal number")
        try:
            return _decimal_from(Decimal(v), p, s)
        except InvalidOperation as e:  # pragma: no cover - exponent beyond Python's decimal range
            raise _bad_value(v, source, target, "not a decimal number") from e

    return _map_unique(arr, conv, pa.decimal128(p, s))


def _is_java_numeric(v: str) -> bool:
    """``StringUtils.isNumeric``: an optional '-' then only (Unicode) digits."""
    body = v[1:] if v.startswith("-") else v
    return bool(body) and all(c.isdigit() for c in body)


def _java_to_int(v: str, source: DataType, target: DataType, bits: int = 32) -> int:
    """``BinaryStringUtils.toInt`` / ``toLong`` on a string."""
    m = re.fullmatch(r"([+-]?)([0-9]*)(\.[0-9]*)?", v)
    if not m or v in ("", "+", "-"):
        raise _bad_value(v, source, target, "not an integer")
    n = int(m.group(2) or "0")
    n = -n if m.group(1) == "-" else n
    if not -(2 ** (bits - 1)) <= n < 2 ** (bits - 1):
        raise _bad_value(v, source, target, "overflow")
    return n


def _java_parse_int(s: str, v: str, source: DataType, target: DataType) -> int | None:
    """``Integer.parseInt`` of a trimmed part that ``isInteger`` accepted (None when it did not)."""
    s = s.strip(_JAVA_TRIM)
    if not s or not all("0" <= c <= "9" for c in s):
        return None
    n = int(s)
    if n >= 2**31:
        raise _bad_value(v, source, target, "overflow")
    return n


def _legal_date(y: int, m: int, d: int) -> bool:
    if y < 0 or y > 9999 or m < 1 or m > 12 or d < 1 or d > 31:
        return False
    if m == 2 and d > 28 and not (_is_leap(y) and d == 29):
        return False
    return d != 31 or m in (1, 3, 5, 7, 8, 10, 12)


def _is_leap(y: int) -> bool:
    return y % 400 == 0 or (y % 4 == 0 and y % 100 != 0)


def _java_parse_date(v: str, source: DataType, target: DataType) -> int:
    """``BinaryStringUtils.toDate`` / ``DateTimeUtils.parseDate``."""
    if _is_java_numeric(v):
        return _java_to_int(v, source, target)
    s = v
    ws = s.find(" ")
    if ws > 0:
        s = s[:ws]
    parts: list[int | None]
    h1 = s.find("-")
    if h1 < 0:
        parts = [_java_parse_int(s, v, source, target), 1, 1]
    else:
        h2 = s.find("-", h1 + 1)
        if h2 < 0:
            parts = [_java_parse_int(s[:h1], v, source, target), _java_parse_int(s[h1 + 1 :], v, source, target), 1]
        else:
            parts = [_java_parse_int(s[:h1], v, source, target),
                     _java_parse_int(s[h1 + 1 : h2], v, source, target),
                     _java_parse_int(s[h2 + 1 :], v, source, target)]
    y, m, d = parts
    if y is None or m is None or d is None or not _legal_date(y, m, d):
        raise _bad_value(v, source, target, "not a date")
    return _days_from_civil(y, m, d)


def _jsub(s: str, begin: int, end: int, v: str, source: DataType, target: DataType) -> str:
    if begin > end or end > len(s):
        raise _bad_value(v, source, target, "not a time")
    return s[begin:end]


def _java_parse_time(v: str, source: DataType, target: DataType) -> int:
    """``BinaryStringUtils.toTime`` / ``DateTimeUtils.parseTime`` (millis of the day)."""
    if _is_java_numeric(v):
        return _java_to_int(v, source, target)

    def num(s: str) -> int:
        n = _java_parse_int(s, v, source, target)
        if n is None:
            raise _bad_value(v, source, target, "not a time")
        return n

    def sub(b: int, e: int) -> str:
        return _jsub(v, b, e, v, source, target)

    colon1 = v.find(":")
    operator = -1
    end = len(v)
    tz = v.find("-")
    if tz < 0:
        tz = v.find("+")
        operator = 1
    if tz < 0:
        tz_h = tz_m = 0
    else:
        end = tz
        colon3 = v.find(":", tz)
        if colon3 < 0:
            tz_h, tz_m = num(v[tz + 1 :]), 0
        else:
            tz_h, tz_m = num(sub(tz + 1, colon3)), num(v[colon3 + 1 :])
    milli = 0
    second = 0
    minute = 0
    if colon1 < 0:
        hour = num(sub(0, end))
    else:
        hour = num(sub(0, colon1))
        colon2 = v.find(":", colon1 + 1)
        if colon2 < 0:
            minute = num(sub(colon1 + 1, end))
        else:
            minute = num(sub(colon1 + 1, colon2))
            dot = v.find(".", colon2)
            if dot < 0:
                second = num(sub(colon2 + 1, end))
            else:
                second = num(sub(colon2 + 1, dot))
                milli = _parse_fraction(sub(dot + 1, end).strip(_JAVA_TRIM))
    hour += operator * tz_h
    minute += operator * tz_m
    return _wrap32(hour * 3_600_000 + minute * 60_000 + second * 1000 + milli)


def _parse_fraction(v: str) -> int:
    multiplier = 100
    r = 0
    for i, c in enumerate(v):
        x = ord(c) - 48 if "0" <= c <= "9" else 0
        r += multiplier * x
        if multiplier < 10:
            if i + 1 < len(v) and v[i + 1] >= "5":
                r += 1
            break
        multiplier //= 10
    return r


_TS_FORMAT_RE = re.compile(
    r"(?P<y>\+[0-9]{5,19}|[0-9]{4})-(?P<mo>[0-9]{1,2})-(?P<d>[0-9]{1,2})"
    r"(?:(?: (?P<h>[0-9]{1,2}):(?P<mi>[0-9]{1,2}):(?P<s>[0-9]{1,2})(?:\.(?P<f>[0-9]{0,9}))?)"
    r"|(?:T(?P<h2>[0-9]{1,2}):(?P<mi2>[0-9]{1,2})(?::(?P<s2>[0-9]{1,2})(?:\.(?P<f2>[0-9]{0,9}))?)?))?"
)
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _java_parse_local_datetime(v: str, precision: int, source: DataType, target: DataType) -> tuple[int, int]:
    """``DateTimeUtils.parseTimestampData``: Paimon's DEFAULT_TIMESTAMP_FORMATTER (``yyyy-M-d``
    then `` H:m:s[.fraction]`` or ``'T'H:m[:s[.fraction]]``, resolved SMART: a day past the month's
    end is clamped, 24:00:00 is the next midnight), the nanos floored to the precision. Returns
    (epoch seconds, nano of second) of the local date-time."""
    m = _TS_FORMAT_RE.fullmatch(v)
    if not m:
        raise _bad_value(v, source, target, "not a timestamp (yyyy-MM-dd[ HH:mm:ss[.fff]])")
    year = int(m.group("y"))
    month, day = int(m.group("mo")), int(m.group("d"))
    if year < 1 or not 1 <= month <= 12 or not 1 <= day <= 31:
        raise _bad_value(v, source, target, "invalid date")
    last = 29 if month == 2 and _is_leap(year) else _MONTH_DAYS[month - 1]
    day = min(day, last)
    h_s, mi_s = m.group("h") or m.group("h2"), m.group("mi") or m.group("mi2")
    s_s, f_s = m.group("s") or m.group("s2"), m.group("f") if m.group("h") else m.group("f2")
    hour = int(h_s) if h_s else 0
    minute = int(mi_s) if mi_s else 0
    second = int(s_s) if s_s else 0
    nano = int((f_s or "").ljust(9, "0")) if f_s else 0
    extra_day = 0
    if hour == 24 and minute == 0 and second == 0 and nano == 0:
        hour, extra_day = 0, 1
    if hour > 23 or minute > 59 or second > 59:
        raise _bad_value(v, source, target, "invalid time")
    step = 10 ** (9 - precision)
    nano = nano // step * step
    days = _days_from_civil(year, month, day) + extra_day
    return days * 86400 + hour * 3600 + minute * 60 + second, nano


_TS_FAST_RE = (r"^[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?"
               r"|T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?)?$")


def _string_to_timestamp(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """StringToTimestampCastRule. TIMESTAMP: an all-digit string (``StringUtils.isNumeric``) is an
    epoch count in the precision's unit (precision 0, 3, 6 or 9 only); else the formatter.
    TIMESTAMP WITH LOCAL TIME ZONE: the formatter, in the session time zone (UTC)."""
    precision = _precision(target)
    out_t = to_arrow_type(target)
    is_ltz = target.root == "TIMESTAMP_LTZ"
    valid = pc.is_valid(arr)
    fast = pc.and_(pc.match_substring_regex(arr, _TS_FAST_RE), pc.invert(pc.starts_with(arr, "0000")))
    if pc.all(pc.or_(fast, pc.invert(valid))).as_py():
        try:
            ns = pc.cast(arr, pa.timestamp("ns"))
        except pa.ArrowInvalid:
            ns = None
        if ns is not None:
            vals, mask = _ints(ns)
            step = 10 ** (9 - precision)
            vals = np.floor_divide(vals, step) * step
            return _timestamp_to_unit(_from_ints(vals, mask, pa.timestamp("ns")), out_t)
    unit_nanos = _NANOS_PER_UNIT[out_t.unit]

    def conv(v: str) -> int:
        if not is_ltz and _is_java_numeric(v):
            epoch = _java_to_int(v, source, target, bits=64)
            if precision not in (0, 3, 6, 9):
                raise _bad_value(v, source, target, f"an epoch number needs precision 0, 3, 6 or 9, not {precision}")
            total_nanos = epoch * 10 ** (9 - precision)
        else:
            secs, nano = _java_parse_local_datetime(v, precision, source, target)
            total_nanos = secs * 1_000_000_000 + nano
        out = total_nanos // unit_nanos
        if not -(2**63) <= out < 2**63:
            raise _bad_value(v, source, target, f"out of the range Arrow's timestamp[{out_t.unit}] can hold")
        return out

    vals = _map_unique(arr, conv, pa.int64())
    return vals.view(out_t)


def _string_to_date(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """StringToDateCastRule (``BinaryStringUtils.toDate``): an all-digit string is an epoch day,
    else ``yyyy[-M[-d]]`` (anything after a blank ignored), years 0..9999."""
    valid = pc.is_valid(arr)
    fast = pc.match_substring_regex(arr, r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
    if pc.all(pc.or_(fast, pc.invert(valid))).as_py():
        with contextlib.suppress(pa.ArrowInvalid):  # not all valid dates: the Java-rule path below
            return pc.cast(arr, pa.date32())
    return _map_unique(arr, lambda v: _java_parse_date(v, source, target), pa.int32()).view(pa.date32())


def _string_to_time(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """StringToTimeCastRule (``BinaryStringUtils.toTime``): millis of the day."""
    return _map_unique(arr, lambda v: _java_parse_time(v, source, target), pa.int32()).view(pa.time32("ms"))


def _to_binary_string(arr: pa.Array, target: DataType) -> pa.Array:
    """``BinaryStringUtils.toBinaryString``: BINARY(n) is cut or zero-padded to n bytes,
    VARBINARY(n) cut to n bytes."""
    n = target.accept(_LENGTH)
    if target.root == "BINARY":
        padded = pc.binary_join_element_wise(arr, pa.scalar(b"\x00" * n), pa.scalar(b""))
        return pc.binary_slice(padded, 0, n)
    if target.root == "VARBINARY" and n < MAX_LENGTH:
        return pc.binary_slice(arr, 0, n)
    return arr


def _string_to_binary(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    return _to_binary_string(pc.cast(arr, pa.binary()), target)


def _binary_to_binary(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    return _to_binary_string(arr, target)


# String -> ARRAY / MAP / ROW: Paimon's text forms, parsed per value (the elements are then cast
# from STRING in one vectorised cast).

_JS = "[ \\t\\n\\x0b\\f\\r]*"
"""Java regex ``\\s*``."""
_ARRAY_FORMS = (re.compile(_JS + r"\[(.*)\]" + _JS), re.compile(_JS + r"ARRAY" + _JS + r"\((.*)\)" + _JS, re.I))
_MAP_FORMS = (re.compile(_JS + r"\{(.*)\}" + _JS), re.compile(_JS + r"MAP" + _JS + r"\((.*)\)" + _JS, re.I))
_ROW_FORMS = (re.compile(_JS + r"\{(.*)\}" + _JS), re.compile(_JS + r"STRUCT" + _JS + r"\((.*)\)" + _JS, re.I))
_MAP_ENTRY = re.compile(r"(.+?)" + _JS + "->" + _JS + r"(.+)")


def _jtrim(s: str) -> str:
    return s.strip(_JAVA_TRIM)


def _split_top_level(content: str, map_style: bool) -> list[str]:
    """Splits on commas outside ``([{`` brackets and double quotes (Paimon's ``split*Elements``).
    The map splitter drops quotes, backslashes and the escaped characters and trims entries."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    in_quotes = False
    escaped = False
    for c in content:
        if escaped:
            escaped = False
            if map_style:
                continue
        elif c == "\\":
            escaped = True
            if map_style:
                continue
        elif c == '"':
            in_quotes = not in_quotes
            if map_style:
                continue
        elif not in_quotes:
            if c in "([{":
                depth += 1
            elif c in ")]}" and depth > 0:
                depth -= 1
            elif c == "," and depth == 0:
                if cur:
                    out.append(_jtrim("".join(cur)) if map_style else "".join(cur))
                cur = []
                continue
        cur.append(c)
    if cur:
        out.append(_jtrim("".join(cur)) if map_style else "".join(cur))
    return out


def _form_content(s: str, forms: tuple[re.Pattern[str], re.Pattern[str]]) -> str | None:
    for form in forms:
        m = form.fullmatch(s)
        if m is not None:
            return _jtrim(m.group(1))
    return None


def _token(s: str) -> str | None:
    t = _jtrim(s)
    return None if t == "null" else t


def _string_to_array(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """StringToArrayCastRule: ``[a, b, null]`` or ``ARRAY(a, b)``."""
    target = cast(pt.ArrayType, target)
    if _resolve(_STRING, target.element) is None:
        raise _unsupported(source, target, f"STRING has no cast to {target.element.to_string()}")
    tokens: list[str | None] = []
    lengths: list[int] = []
    for v in arr.to_pylist():
        n = 0
        if v is not None:
            s = _jtrim(v)
            if not (s == "[]" or s.upper() == "ARRAY()"):
                content = _form_content(s, _ARRAY_FORMS)
                if content is None:
                    raise _bad_value(v, source, target, "not an ARRAY ([a, b, c] or ARRAY(a, b, c))")
                if content:
                    elems = _split_top_level(content, False)
                    n = len(elems)
                    tokens += [_token(e) for e in elems]
        lengths.append(n)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    values = _cast(pa.array(tokens, pa.string()), _STRING, target.element)
    return _make_list(offsets, values, _null_mask(arr), to_arrow_type(target))


def _string_to_map(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """StringToMapCastRule: ``{k1 -> v1, k2 -> v2}`` or ``MAP(k1, v1, k2, v2)``; ``NULL`` is a null
    map; a repeated key keeps its last value."""
    target = cast(pt.MapType, target)
    for t in (target.key, target.value):
        if _resolve(_STRING, t) is None:
            raise _unsupported(source, target, f"STRING has no cast to {t.to_string()}")
    keys: list[str | None] = []
    vals: list[str | None] = []
    lengths: list[int] = []
    mask = _null_mask(arr).copy()
    for i, v in enumerate(arr.to_pylist()):
        entries: dict[str | None, str | None] = {}
        if v is not None:
            s = _jtrim(v)
            if s.upper() == "NULL":
                mask[i] = True
            elif not (s == "{}" or s.upper() == "MAP()"):
                bracket = _MAP_FORMS[0].fullmatch(s)
                content = _form_content(s, _MAP_FORMS)
                if content is None:
                    raise _bad_value(v, source, target, "not a MAP ({k -> v} or MAP(k, v))")
                if bracket is not None:
                    for e in _split_top_level(content, True):
                        m = _MAP_ENTRY.fullmatch(e)
                        if m is None:
                            raise _bad_value(v, source, target, f"invalid map entry {e!r}")
                        entries[_token(m.group(1))] = _token(m.group(2))
                else:
                    parts = _split_top_level(content, True)
                    if len(parts) % 2:
                        raise _bad_value(v, source, target, "odd number of MAP(...) elements")
                    for j in range(0, len(parts), 2):
                        entries[_token(parts[j])] = _token(parts[j + 1])
        lengths.append(len(entries))
        keys += list(entries.keys())
        vals += list(entries.values())
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    k_arr = _cast(pa.array(keys, pa.string()), _STRING, target.key)
    if k_arr.null_count:
        raise _bad_value(next(v for v in arr.to_pylist() if v), source, target, "Arrow maps cannot hold a null key")
    v_arr = _cast(pa.array(vals, pa.string()), _STRING, target.value)
    return _make_map(offsets, k_arr, v_arr, mask, to_arrow_type(target))


def _string_to_row(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """StringToRowCastRule: ``{f1, f2}`` or ``STRUCT(f1, f2)``; ``{}`` is a row of nulls."""
    target = cast(pt.RowType, target)
    n_fields = len(target.fields)
    for f in target.fields:
        if _resolve(_STRING, f.type) is None:
            raise _unsupported(source, target, f"STRING has no cast to {f.type.to_string()}")
    columns: list[list[str | None]] = [[] for _ in range(n_fields)]
    for v in arr.to_pylist():
        values: list[str | None] = [None] * n_fields
        if v is not None:
            s = _jtrim(v)
            if not (s == "{}" or s.upper() == "STRUCT()"):
                content = _form_content(s, _ROW_FORMS)
                if content is None:
                    raise _bad_value(v, source, target, "not a ROW ({f1, f2} or STRUCT(f1, f2))")
                if content:
                    parts = _split_top_level(content, False)
                    if len(parts) != n_fields:
                        raise _bad_value(v, source, target, f"expected {n_fields} fields, found {len(parts)}")
                    values = [_token(p) for p in parts]
        for j in range(n_fields):
            columns[j].append(values[j])
    children = [_cast(pa.array(col, pa.string()), _STRING, f.type) for col, f in zip(columns, target.fields)]
    return _make_struct(children, _null_mask(arr), to_arrow_type(target), len(arr))


# ----------------------------------------------------------------------------------------------
# Date / time / timestamp rules
# ----------------------------------------------------------------------------------------------


def _timestamp_to_timestamp(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """TimestampToTimestampCastRule: the value is kept (UTC session zone for LTZ); a lower
    precision truncates (``DateTimeUtils.truncate``: to 0..3 digits the epoch millis lose their
    last digits toward zero, to 4..9 digits the nanos of the milli are floored)."""
    pin, pout = _precision(source), _precision(target)
    millis, nom, mask = _timestamp_parts(arr)
    if pin > pout:
        if pout <= 3:
            step = 10 ** (3 - pout)
            millis = np.where(millis < 0, -((-millis) // step), millis // step) * step
            nom = np.zeros_like(nom)
        else:
            step = 10 ** (9 - pout)
            nom = nom // step * step
    return _timestamp_from_parts(millis, nom, mask, target)


def _timestamp_to_date(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """TimestampToDateCastRule: floor(epoch millis / day) (LTZ in the UTC session zone)."""
    millis, _, mask = _timestamp_parts(arr)
    return _from_ints(np.floor_divide(millis, MILLIS_PER_DAY), mask, pa.date32())


def _timestamp_to_time(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """TimestampToTimeCastRule: floorMod(epoch millis, day)."""
    millis, _, mask = _timestamp_parts(arr)
    return _from_ints(np.mod(millis, MILLIS_PER_DAY), mask, pa.time32("ms"))


def _date_to_timestamp(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """DateToTimestampCastRule: midnight of the day (UTC session zone for LTZ)."""
    days, mask = _ints(arr)
    return _timestamp_from_parts(days * MILLIS_PER_DAY, np.zeros_like(days), mask, target)


def _time_to_timestamp(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """TimeToTimestampCastRule: the time of day on 1970-01-01."""
    millis, mask = _ints(arr)
    return _timestamp_from_parts(millis, np.zeros_like(millis), mask, target)


def _timestamp_to_numeric(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """TimestampToNumericPrimitiveCastRule: epoch millis / 1000 truncated toward zero (seconds);
    INT narrows that long."""
    millis, _, mask = _timestamp_parts(arr)
    secs = np.where(millis < 0, -((-millis) // 1000), millis // 1000)
    return _from_ints(secs.astype(_NP_INT[target.root]), mask, to_arrow_type(target))


# ----------------------------------------------------------------------------------------------
# The rule table, in CastExecutors' order
# ----------------------------------------------------------------------------------------------

_INTEGER_OR_APPROX = [_f("INTEGER_NUMERIC"), _f("APPROXIMATE_NUMERIC")]
_TIMESTAMP_ROOTS = [_r("TIMESTAMP"), _r("TIMESTAMP_LTZ")]

_register(_row_to_row, [_r("ROW")], [_r("ROW")])
_register(_array_to_array, [_r("ARRAY")], [_r("ARRAY")])
_register(_map_to_map, [_r("MAP")], [_r("MAP")])
_register(_decimal_to_decimal, [_r("DECIMAL")], [_r("DECIMAL")])
_register(_numeric_to_decimal, _INTEGER_OR_APPROX, [_r("DECIMAL")])
_register(_decimal_to_numeric, [_r("DECIMAL")], _INTEGER_OR_APPROX)
_register(_numeric_primitive, _INTEGER_OR_APPROX, _INTEGER_OR_APPROX)
_register(_numeric_to_timestamp, [_f("NUMERIC")], _TIMESTAMP_ROOTS)
_register(_boolean_to_numeric, [_r("BOOLEAN")], [_f("NUMERIC")])
_register(_numeric_to_boolean, [_f("INTEGER_NUMERIC")], [_r("BOOLEAN")])
_register(_numeric_to_string, [_f("NUMERIC")], [_f("CHARACTER_STRING")])
_register(_boolean_to_string, [_r("BOOLEAN")], [_f("CHARACTER_STRING")])
_register(_timestamp_to_string, [_f("TIMESTAMP")], [("type", _STRING)])
_register(_time_to_string, [_r("TIME")], [("type", _STRING)])
_register(_date_to_string, [_r("DATE")], [("type", _STRING)])
_register(_string_to_string, [_f("CHARACTER_STRING")], [_f("CHARACTER_STRING")])
_register(_array_to_string, [_r("ARRAY")], [_f("CHARACTER_STRING")])
_register(_map_to_string, [_r("MAP")], [_f("CHARACTER_STRING")])
_register(_row_to_string, [_r("ROW")], [_f("CHARACTER_STRING")])
_register(_string_to_boolean, [_f("CHARACTER_STRING")], [_r("BOOLEAN")])
_register(_string_to_decimal, [_f("CHARACTER_STRING")], [_r("DECIMAL")])


def _string_to_numeric(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """StringToNumericPrimitiveCastRule."""
    if target.root in _INT_BITS:
        return _string_to_integral(arr, source, target)
    return _string_to_floating(arr, source, target)


_register(_string_to_numeric, [_f("CHARACTER_STRING")], _INTEGER_OR_APPROX)
_register(_string_to_date, [_f("CHARACTER_STRING")], [_r("DATE")])
_register(_string_to_time, [_f("CHARACTER_STRING")], [_r("TIME")])
_register(_string_to_timestamp, [_f("CHARACTER_STRING")], [_f("TIMESTAMP")])
_register(_string_to_binary, [_f("CHARACTER_STRING")], [_f("BINARY_STRING")])
_register(_string_to_array, [_f("CHARACTER_STRING")], [_r("ARRAY")])
_register(_string_to_map, [_f("CHARACTER_STRING")], [_r("MAP")])
_register(_string_to_row, [_f("CHARACTER_STRING")], [_r("ROW")])
_register(_timestamp_to_timestamp, _TIMESTAMP_ROOTS, _TIMESTAMP_ROOTS)
_register(_timestamp_to_date, _TIMESTAMP_ROOTS, [_r("DATE")])
_register(_timestamp_to_time, _TIMESTAMP_ROOTS, [_r("TIME")])
_register(_date_to_timestamp, [_r("DATE")], _TIMESTAMP_ROOTS)
_register(_time_to_timestamp, [_r("TIME")], _TIMESTAMP_ROOTS)
_register(_timestamp_to_numeric, _TIMESTAMP_ROOTS, [_r("BIGINT"), _r("INT")])
_register(_binary_to_binary, [_f("BINARY_STRING")], [_f("BINARY_STRING")])
_register(_binary_to_string, [_f("BINARY_STRING")], [_f("CHARACTER_STRING")])
