"""Field aggregators of the aggregation merge engine (Paimon's ``FieldAggregator`` family), vectorised.

Semantics follow Apache Paimon's ``AggregateMergeFunction``: the records of one key, in sequence order,
are folded field by field; ``+I``/``+U`` records call the aggregator's ``agg``, ``-U``/``-D`` records its
``retract`` (an error for functions that cannot retract, unless ``fields.<f>.ignore-retract``), and with
``aggregation.remove-record-on-delete`` a ``-D`` record replaces the accumulated row by its own values
(a *reset*). Here a key group is cut into *segments* at every reset; each aggregator reduces every
segment at once with numpy/pyarrow (``ufunc.at`` folds in row order where the order matters, so float
sums and products round exactly as Java's left fold does). Per-row Python is used only where a type or
an order-dependent rule forces it: decimals wider than 18 digits, decimal products, integer products
close to overflowing, and products that are retracted (Java divides, truncating).

``AGGREGATORS`` is the registry (function name → implementation); ``build_field_aggs`` resolves the
function of every field exactly as Paimon does (sequence fields ``last_value``, primary-key fields
``primary-key``, then ``fields.<f>.aggregate-function``, ``fields.default-aggregate-function``,
``last_non_null_value``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any, ClassVar, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql import types as pt
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.format.java_hash import (
    java_hash_map_order,
)
from paimon_sql.lsm.agg_base import (
    Aggregator,
    FieldAgg,
    KeyGroups,
    Segments,
    SequenceGroupMerge,
    agg_and_retract_rows,
    as_floats,
    as_int64,
    count_true,
    decimal_from_unscaled,
    decimal_unscaled,
    first_true,
    fold_groups,
    fold_segments,
    last_true,
    numpy_result,
    take_or_null,
    valid_mask,
)
from paimon_sql.lsm.agg_java_keys import MapKeyHash, SetHash, java_value, set_key
from paimon_sql.lsm.agg_keytime import MergeMapWithKeyTime
from paimon_sql.lsm.agg_nested import NestedPartialUpdate, NestedUpdate
from paimon_sql.lsm.agg_rbm32 import RoaringBitmap32
from paimon_sql.lsm.agg_rbm64 import RoaringBitmap64
from paimon_sql.lsm.agg_sketch import HllSketch, ThetaSketch
from paimon_sql.options import CoreOptions
from paimon_sql.types import MAX_LENGTH, DataField, DataType, DecimalType, to_arrow_type

PRIMARY_KEY = "primary-key"
LAST_VALUE = "last_value"
LAST_NON_NULL_VALUE = "last_non_null_value"


class LastValue(Aggregator):
    """The newest value (null included); a retraction sets the value to null."""

    name = LAST_VALUE
    in_sequence_group = "last"
    retracts = True

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        agg, retract = agg_and_retract_rows(seg, active)
        last = last_true(agg | retract | seg.reset_rows, seg)
        hit = last >= 0
        last[hit] = np.where(seg.retract[last[hit]], -1, last[hit])
        return take_or_null(values, last)


class PrimaryKeyValue(Aggregator):
    """Primary-key columns: the newest record's value, retraction or not."""

    name = PRIMARY_KEY
    in_sequence_group = "fold"  # folds in row order: the newest record's value
    retracts = True

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        agg, retract = agg_and_retract_rows(seg, active)
        return take_or_null(values, last_true(agg | retract | seg.reset_rows, seg))


class LastNonNullValue(Aggregator):
    """The newest non-null value; retracting a non-null value sets the value to null."""

    name = LAST_NON_NULL_VALUE
    in_sequence_group = "last_non_null"
    retracts = True

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        agg, retract = agg_and_retract_rows(seg, active)
        last = last_true(seg.reset_rows | ((agg | retract) & valid_mask(values)), seg)
        hit = last >= 0
        last[hit] = np.where(seg.retract[last[hit]], -1, last[hit])
        return take_or_null(values, last)


class FirstValue(Aggregator):
    """The oldest value (null included). Paimon keeps an 'initialized' flag per key that a reset does
    not clear: after a reset the reset row's value stays unless nothing was aggregated before it."""

    name = "first_value"
    in_sequence_group: ClassVar[SequenceGroupMerge | None] = "first"
    non_null = False

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        agg, _ = agg_and_retract_rows(seg, active)
        if self.non_null:
            agg = agg & valid_mask(values)
        first = first_true(agg, seg)
        # aggregated rows of the same key before the segment (only segments after a reset have any)
        csum = np.concatenate([[0], np.cumsum(agg)])
        before = csum[seg.starts] - csum[seg.group_start] > 0
        pick = np.where(seg.reset & (before | (first < 0)), seg.starts, first)
        return take_or_null(values, pick)


class FirstNonNullValue(FirstValue):
    name = "first_non_null_value"
    in_sequence_group = None
    non_null = True


class FirstNotNullValue(FirstNonNullValue):
    """The legacy spelling."""

    name = "first_not_null_value"


_INT_BOUNDS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}


class _ValueKind(pt.DefaultTypeVisitor[str]):
    """How the aggregators compute on a type's values: ``float`` (FLOAT, DOUBLE), ``decimal``
    (compact DECIMAL: unscaled longs), ``wide_decimal``, ``int`` (integers and the types whose Arrow
    values are integers: BOOLEAN, DATE, TIME, timestamps), else ``other``."""

    def default(self, t: DataType) -> str:
        return "other"

    def _int(self, t: DataType) -> str:
        return "int"

    visit_boolean = visit_tinyint = visit_smallint = visit_int = visit_bigint = _int
    visit_date = visit_time = visit_timestamp = visit_local_zoned_timestamp = _int

    def visit_float(self, t: pt.FloatType) -> str:
        return "float"

    def visit_double(self, t: pt.DoubleType) -> str:
        return "float"

    def visit_decimal(self, t: DecimalType) -> str:
        return "decimal" if t.is_compact else "wide_decimal"


_VALUE_KIND = _ValueKind()


def _check_numeric(name: str, field: str, t: DataType) -> None:
    if not t.is_family("NUMERIC"):
        raise ValidationError(
            f"Data type for {name} column must be 'NumericType' but was '{t.to_string()}' (field {field!r})"
        )


def _overflow(fa: FieldAgg, what: str) -> ValidationError:
    return ValidationError(
        f"Aggregation of field {fa.column!r} ({fa.function} over {fa.data_type.to_string()}) overflows: {what} "
        "(Apache Paimon fails the same way)"
    )


def _plus_minus_rows(values: pa.Array, seg: Segments, active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows whose non-null value a sum or product takes in: reset and agg rows; rows it takes out:
    retractions)."""
    agg, retract = agg_and_retract_rows(seg, active)
    valid = valid_mask(values)
    return (agg | seg.reset_rows) & valid, retract & valid


class Sum(Aggregator):
    """Sum of the non-null values; a retraction subtracts (from null: the negated value). Integer
    overflow fails as in Java (Math.addExact); wide decimals become null on overflow (Paimon's
    Decimal.fromBigDecimal)."""

    name = "sum"
    commutative = True
    in_sequence_group = "fold"
    retracts = True

    def check_type(self, field: str, t: DataType) -> None:
        _check_numeric(self.name, field, t)

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        plus, minus = _plus_minus_rows(values, seg, active)
        contrib = plus | minus
        has = count_true(contrib, seg) > 0
        t = fa.data_type
        kind = t.accept(_VALUE_KIND)
        if kind == "float":
            x = as_floats(values)
            acc = np.full(len(seg.starts), -0.0, dtype=x.dtype)  # -0.0 + x == x for every x
            with np.errstate(all="ignore"):  # inf - inf is NaN, as in Java
                np.add.at(acc, seg.ids[contrib], np.where(minus, -x, x)[contrib])
            return numpy_result(acc, has, values.type)
        if kind == "wide_decimal":
            return _python_fold(values, seg, fa, plus, minus, _wide_decimal_sum(cast(DecimalType, t)))
        if kind == "decimal":
            d = cast(DecimalType, t)
            x = decimal_unscaled(values)
            limit = 10**d.precision
            if _cannot_reach(x, contrib, seg, limit):
                return decimal_from_unscaled(_segment_sums(x, plus, minus, seg), has, values.type)
            local = _exact_int64_sum(x, plus, minus, seg, fa)
            if np.any(contrib & ((local >= limit) | (local <= -limit))):
                raise _overflow(fa, f"a sum exceeds DECIMAL({d.precision}, {d.scale}), which Apache Paimon "
                                    "keeps unchecked for compact decimals; paimon_sql cannot represent it")
            return decimal_from_unscaled(local[seg.ends], has, values.type)
        x = as_int64(values)
        bits = _INT_BOUNDS[t.root]
        if _cannot_reach(x, contrib, seg, 1 << (bits - 1)):  # the common case: no overflow possible
            return numpy_result(_segment_sums(x, plus, minus, seg), has, values.type)
        if bits == 64:
            return numpy_result(_exact_int64_sum(x, plus, minus, seg, fa)[seg.ends], has, values.type)
        signed = np.where(minus, -x, np.where(plus, x, 0))
        csum = np.concatenate([[0], np.cumsum(signed)])
        local = csum[1:] - csum[seg.starts][seg.ids]
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        bad = contrib & ((local < lo) | (local > hi))
        if bad.any():
            raise _overflow(fa, f"a running sum reaches {int(local[np.argmax(bad)])}")
        return numpy_result(local[seg.ends], has, values.type)

    def reduce_groups(self, values: pa.Array, groups: KeyGroups, fa: FieldAgg) -> pa.Array | None:
        # integers whose sums cannot overflow: exact in any order
        if not pa.types.is_integer(values.type) or fa.data_type.root not in _INT_BOUNDS or len(values) == 0:
            return None
        x = _numpy_values(values)
        bits = _INT_BOUNDS[fa.data_type.root]
        longest = len(groups.steps) + 1
        if max(int(x.max()), -int(x.min())) * longest >= 1 << (bits - 1):  # nulls are 0
            return None  # a running sum might overflow: ``reduce`` checks it as Java does
        sums = fold_groups(x.astype(np.int64, copy=False), groups, np.add)
        return _grouped_result(sums.astype(x.dtype, copy=False), values, groups)


def _numpy_values(values: pa.Array) -> np.ndarray:
    """An integer or floating array's values in numpy (nulls as 0)."""
    return np.asarray((values.fill_null(0) if values.null_count else values).to_numpy())


def _grouped_result(result: np.ndarray, values: pa.Array, groups: KeyGroups) -> pa.Array:
    """Per key group, ``result`` (of the values' type), null where every value of the group is."""
    if values.null_count == 0:
        return pa.array(result, type=values.type)
    valid = np.asarray(values.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    return pa.array(result, type=values.type, mask=~fold_groups(valid, groups, np.logical_or))


def _cannot_reach(x: np.ndarray, contrib: np.ndarray, seg: Segments, limit: int) -> bool:
    """True when no running sum of a segment can reach ``limit`` in magnitude (largest |value| times
    the longest segment stays below it): then the sums need no overflow checks."""
    if not contrib.any():
        return True
    biggest = float(np.abs(x[contrib].astype(np.float64)).max())
    longest = int((seg.ends - seg.starts).max()) + 1
    return biggest * longest < float(limit) * (1 - 1e-9)


def _segment_sums(x: np.ndarray, plus: np.ndarray, minus: np.ndarray, seg: Segments) -> np.ndarray:
    signed = np.where(plus, x, 0)
    if minus.any():
        signed = np.where(minus, -x, signed)
    return np.add.reduceat(signed, seg.starts)


def _exact_int64_sum(
    x: np.ndarray, plus: np.ndarray, minus: np.ndarray, seg: Segments, fa: FieldAgg
) -> np.ndarray:
    """Per row, the running sum of its segment up to and including it, in int64, failing on the first step that overflows (Java's
    addExact/subtractExact/negateExact), found exactly from the wrapped two's complement sums."""
    x = np.where(plus | minus, x, 0)
    signed = np.where(minus, -x, x)  # wraps for MIN_VALUE: the check below still finds it
    csum = np.concatenate([[0], np.cumsum(signed)])
    local = csum[1:] - csum[seg.starts][seg.ids]
    prev = local - signed
    add_over = plus & (((prev ^ local) & (x ^ local)) < 0)
    sub_over = minus & (((prev ^ x) & (prev ^ local)) < 0)
    if add_over.any() or sub_over.any():
        raise _overflow(fa, "a running sum leaves the 64-bit range")
    return local


def _wide_decimal_sum(t: DecimalType) -> tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]:
    limit = 10**t.precision

    def fit(v: int) -> int | None:
        return v if -limit < v < limit else None  # Decimal.fromBigDecimal: null when too wide

    def agg(acc: int | None, x: int) -> int | None:
        return x if acc is None else fit(acc + x)

    def retract(acc: int | None, x: int) -> int | None:
        return fit(-x) if acc is None else fit(acc - x)

    return agg, retract


def _to_unscaled(v: Decimal, scale: int) -> int:
    with localcontext() as ctx:
        ctx.prec = 100  # the default 28 digits would round DECIMAL(38, s) values
        return int(v.scaleb(scale))


def _from_unscaled(v: int, scale: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 100
        return Decimal(v).scaleb(-scale)


def _python_fold(
    values: pa.Array,
    seg: Segments,
    fa: FieldAgg,
    plus: np.ndarray,
    minus: np.ndarray,
    fns: tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]],
    only: np.ndarray | None = None,
) -> pa.Array:
    """Row-at-a-time fold (for types or rules that force it) of the segments flagged in ``only``
    (all if None); ``plus`` rows call agg (a reset row's value starts the accumulator: agg from
    null), ``minus`` rows retract. Decimals are folded as unscaled ints."""
    agg, retract = fns
    t = fa.data_type
    scale = cast(DecimalType, t).scale if t.root == "DECIMAL" else None
    todo = np.arange(len(seg.starts)) if only is None else np.flatnonzero(only)
    rows = np.flatnonzero(plus | minus)
    rows = rows[np.isin(seg.ids[rows], todo)] if only is not None else rows
    py = values.take(pa.array(rows)).to_pylist()
    acc: dict[int, Any] = {}
    for r, v in zip(rows.tolist(), py):
        s = int(seg.ids[r])
        if scale is not None:
            v = _to_unscaled(v, scale)
        cur = acc.get(s)
        acc[s] = retract(cur, v) if minus[r] else agg(cur, v)
    out: list[Any] = []
    for s in todo.tolist():
        v = acc.get(s)
        if v is not None and scale is not None:
            v = _from_unscaled(v, scale)
        out.append(v)
    return pa.array(out, type=values.type)


class Product(Aggregator):
    """Product of the non-null values; a retraction divides (integers truncate, as in Java)."""

    name = "product"
    commutative = True
    in_sequence_group = "fold"
    retracts = True

    def check_type(self, field: str, t: DataType) -> None:
        _check_numeric(self.name, field, t)

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        plus, minus = _plus_minus_rows(values, seg, active)
        has = count_true(plus, seg) > 0
        t = fa.data_type
        fns = _product_fns(t, fa)
        kind = t.accept(_VALUE_KIND)
        if kind in ("decimal", "wide_decimal"):
            return _python_fold(values, seg, fa, plus, minus, fns)
        slow = count_true(minus, seg) > 0  # division truncates: order matters, fold row by row
        if kind == "float":
            x = as_floats(values)
            acc = np.ones(len(seg.starts), dtype=x.dtype)
            with np.errstate(all="ignore"):
                np.multiply.at(acc, seg.ids[plus], x[plus])
        else:
            x = as_int64(values)
            bits = _INT_BOUNDS[t.root]
            # |running product| only grows until a zero: near the bound, check exactly row by row
            mag = np.ones(len(seg.starts))
            nz = plus & (x != 0)
            np.multiply.at(mag, seg.ids[nz], np.abs(x[nz].astype(np.float64)))
            slow |= mag >= float(1 << (bits - 1)) * (1 - 1e-9)
            acc = np.ones(len(seg.starts), dtype=np.int64)
            np.multiply.at(acc, seg.ids[plus], x[plus])
            acc[slow] = 0  # replaced below
        out = numpy_result(acc, has, values.type)
        if not slow.any():
            return out
        fixed = _python_fold(values, seg, fa, plus, minus, fns, only=slow)
        where = np.flatnonzero(slow)
        merged = out.to_pylist()
        for i, v in zip(where.tolist(), fixed.to_pylist()):
            merged[i] = v
        return pa.array(merged, type=values.type)


def _product_fns(t: DataType, fa: FieldAgg) -> tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]:
    kind = t.accept(_VALUE_KIND)
    if kind in ("decimal", "wide_decimal"):
        d = cast(DecimalType, t)
        scale, limit = d.scale, 10**d.precision

        def fit(num: Fraction) -> int | None:
            # BigDecimal.setScale(scale, HALF_UP), then null when wider than the precision
            q = num * 10**scale
            mag = abs(q)
            r = int(mag)
            if mag - r >= Fraction(1, 2):
                r += 1
            v = r if q >= 0 else -r
            return v if -limit < v < limit else None

        def dagg(acc: int | None, x: int) -> int | None:
            if acc is None:
                return x
            return fit(Fraction(acc * x, 10 ** (2 * scale)))

        def dretract(acc: int | None, x: int) -> int | None:
            if acc is None:
                return acc
            if x == 0:
                raise ValidationError(f"Aggregation of field {fa.column!r} (product): division by zero")
            q = Fraction(acc, x)
            d = q.denominator
            for p in (2, 5):
                while d % p == 0:
                    d //= p
            if d != 1:
                raise ValidationError(
                    f"Aggregation of field {fa.column!r} (product): retracting {_from_unscaled(x, scale)} "
                    "gives a non-terminating decimal expansion (Java's BigDecimal.divide fails the same way)"
                )
            return fit(q)

        return dagg, dretract
    if kind == "float":
        ftype = np.float32 if t.root == "FLOAT" else np.float64

        def fagg(acc: Any, x: Any) -> Any:
            if acc is None:
                return x
            with np.errstate(all="ignore"):
                return float(ftype(acc) * ftype(x))

        def fretract(acc: Any, x: Any) -> Any:
            if acc is None:
                return acc
            with np.errstate(all="ignore"):
                return float(ftype(acc) / ftype(x))

        return fagg, fretract
    bits = _INT_BOUNDS[t.root]
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def iagg(acc: int | None, x: int) -> int | None:
        if acc is None:
            return x
        v = acc * x
        if not lo <= v <= hi:
            raise _overflow(fa, f"{acc} * {x}")
        return v

    def iretract(acc: int | None, x: int) -> int | None:
        if acc is None:
            return acc
        if x == 0:
            raise ValidationError(f"Aggregation of field {fa.column!r} (product): division by zero")
        q = abs(acc) // abs(x)
        v = q if (acc >= 0) == (x > 0) else -q
        if not lo <= v <= hi:
            raise _overflow(fa, f"{acc} / {x}")
        return v

    return iagg, iretract


class _Comparable(pt.DefaultTypeVisitor[bool]):
    """Whether min / max accept the type: not ARRAY, MAP, MULTISET, ROW, VECTOR, VARIANT or BLOB."""

    def default(self, t: DataType) -> bool:
        return True

    def _no(self, t: DataType) -> bool:
        return False

    visit_array = visit_map = visit_multiset = visit_row = visit_vector = visit_variant = visit_blob = _no


_COMPARABLE = _Comparable()


def _check_comparable(name: str, field: str, t: DataType) -> None:
    if not t.accept(_COMPARABLE):
        raise ValidationError(
            f"Data type for {name} column '{field}' must be comparable but was '{t.to_string()}'."
        )


def _order_keys(values: pa.Array, t: DataType) -> np.ndarray | None:
    """int64 keys ordered as Paimon compares the values (None: compare with a sort instead)."""
    kind = t.accept(_VALUE_KIND)
    if kind == "float":
        x = as_floats(values)
        ibits = np.int32 if x.dtype == np.float32 else np.int64
        nan = 0x7FC00000 if ibits is np.int32 else 0x7FF8000000000000
        b = x.view(ibits).copy()
        b[np.isnan(x)] = nan  # Float.compare / Double.compare: NaN above +inf, -0.0 below 0.0
        mask = ibits(0x7FFFFFFF) if ibits is np.int32 else np.int64(0x7FFFFFFFFFFFFFFF)
        return (b ^ ((b >> (31 if ibits is np.int32 else 63)) & mask)).astype(np.int64)
    if kind == "decimal":
        return decimal_unscaled(values)
    if kind == "int":
        return as_int64(values)
    return None


class _MinMax(Aggregator):
    largest: ClassVar[bool] = True
    commutative = True
    in_sequence_group = "fold"

    def check_type(self, field: str, t: DataType) -> None:
        _check_comparable(self.name, field, t)

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        agg, _ = agg_and_retract_rows(seg, active)
        contrib = (agg | seg.reset_rows) & valid_mask(values)
        keys = _order_keys(values, fa.data_type)
        if keys is None:  # strings, binary, wide decimals: pyarrow's hash min/max (byte order)
            sub = pa.table({"s": seg.ids[contrib], "v": values.filter(pa.array(contrib))})
            how = "max" if self.largest else "min"
            g = sub.group_by("s", use_threads=False).aggregate([("v", how)])
            pos = np.full(len(seg.starts), -1, dtype=np.int64)
            pos[g.column("s").to_numpy()] = np.arange(g.num_rows)
            return take_or_null(g.column("v_" + how).combine_chunks(), pos)
        info = np.iinfo(np.int64)
        fill = info.min if self.largest else info.max
        masked = np.where(contrib, keys, fill)
        ufunc = np.maximum if self.largest else np.minimum
        best = ufunc.reduceat(masked, seg.starts)
        hit = contrib & (keys == best[seg.ids])
        # ties compare equal and are equal values: max keeps the older one, min takes the newer one
        pick = first_true(hit, seg) if self.largest else last_true(hit, seg)
        return take_or_null(values, pick)

    def reduce_groups(self, values: pa.Array, groups: KeyGroups, fa: FieldAgg) -> pa.Array | None:
        # integers and floats without NaN: values equal under Java's comparison are the same bits,
        # so the extreme value is the result (no search for its row); floats compare as numbers
        # unless a -0.0 is there (then as their order keys, where -0.0 is below 0.0)
        t = values.type
        if len(values) == 0 or not (pa.types.is_integer(t) or pa.types.is_floating(t)):
            return None
        x = _numpy_values(values)
        largest = self.largest
        op = np.maximum if largest else np.minimum
        valid = None if values.null_count == 0 else np.asarray(values.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        if x.dtype.kind in "iu":
            if valid is not None:  # nulls never win
                info = np.iinfo(x.dtype)
                x = np.where(valid, x, info.min if largest else info.max)
            return _grouped_result(fold_groups(x, groups, op), values, groups)
        if x.dtype not in (np.float32, np.float64):
            return None
        if valid is not None:
            x = np.where(valid, x, -np.inf if largest else np.inf)
        bits = np.int32 if x.dtype == np.float32 else np.int64
        # as numbers, unless the values compared (a single-record key's value is not) hold a NaN (one
        # key, several bit patterns) or a -0.0 (which numpy's max and min take for 0.0)
        best = x.take(groups.last_rows)
        for at, rows in groups.steps:
            newer, older = best.take(at), x.take(rows)
            if _nan_or_negative_zero(newer, bits) or _nan_or_negative_zero(older, bits):
                break
            best[at] = op(newer, older)
        else:
            return _grouped_result(best, values, groups)
        if np.isnan(x).any():
            return None
        keys = fold_groups(x.view(bits), groups, op, _float_order)  # -0.0 below 0.0
        return _grouped_result(_float_order(keys).view(x.dtype), values, groups)  # its own inverse


def _nan_or_negative_zero(x: np.ndarray, bits: type) -> bool:
    return bool(np.isnan(x).any() or (x.view(bits) == np.iinfo(bits).min).any())


def _float_order(b: np.ndarray) -> np.ndarray:
    """The bits of floats (int32 / int64, no NaN) as integers ordering like Float.compare /
    Double.compare (-0.0 below 0.0), in place; applied twice it gives the bits back."""
    flip = b >> (b.dtype.itemsize * 8 - 1)  # all ones for negative floats
    flip &= np.array(np.iinfo(b.dtype).max, dtype=b.dtype)
    b ^= flip
    return b


class Max(_MinMax):
    name = "max"
    largest = True


class Min(_MinMax):
    name = "min"
    largest = False


class _Bool(Aggregator):
    all_of: ClassVar[bool] = True
    commutative = True
    in_sequence_group = "fold"

    def check_type(self, field: str, t: DataType) -> None:
        if t.root != "BOOLEAN":
            raise ValidationError(
                f"Data type for {self.name.replace('_', ' ')} column must be 'BooleanType' but was "
                f"'{t.to_string()}' (field {field!r})"
            )

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        agg, _ = agg_and_retract_rows(seg, active)
        contrib = (agg | seg.reset_rows) & valid_mask(values)
        x = as_int64(values).astype(bool)
        has = count_true(contrib, seg) > 0
        if self.all_of:
            result = count_true(contrib & ~x, seg) == 0
        else:
            result = count_true(contrib & x, seg) > 0
        return pa.array(result, type=pa.bool_(), mask=~has)


class BoolAnd(_Bool):
    name = "bool_and"
    all_of = True


class BoolOr(_Bool):
    name = "bool_or"
    all_of = False


# Java's Character.isWhitespace (StringUtils.isBlank): no-break spaces are not whitespace
_BLANK = r"^[\t\n\x0B\f\r\x1C-\x1F \x{1680}\x{2000}-\x{2006}\x{2008}-\x{200A}\x{2028}\x{2029}\x{205F}\x{3000}]*$"


_BLANK_PY = "[\t\n\x0b\f\r\x1c-\x1f \u1680\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000]*"


def _blank(values: pa.Array) -> np.ndarray:
    return np.asarray(pc.fill_null(pc.match_substring_regex(values, _BLANK), True).to_numpy(zero_copy_only=False),
                      dtype=bool)


def _lists(items: pa.Array, seg_of_item: np.ndarray, n_segs: int) -> pa.ListArray:
    """A list per segment from ``items`` ordered by segment."""
    counts = np.bincount(seg_of_item, minlength=n_segs)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), items)


class Listagg(Aggregator):
    """Concatenation of the non-blank strings with ``fields.<f>.list-agg-delimiter`` (default ',');
    with ``fields.<f>.distinct`` later strings add only their tokens not seen yet."""

    name = "listagg"

    def check_type(self, field: str, t: DataType) -> None:
        if t.root != "VARCHAR":
            raise ValidationError(
                f"Data type for list agg column must be 'VarCharType' but was '{t.to_string()}' (field {field!r})"
            )
        length = cast(pt.VarCharType, t).length
        if length != MAX_LENGTH:
            raise ValidationError(
                f"Data type for list agg column must be STRING (unbounded VARCHAR), but was VARCHAR({length}) "
                f"(field {field!r})"
            )

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        agg, _ = agg_and_retract_rows(seg, active)
        nonblank = (agg | seg.reset_rows) & valid_mask(values) & ~_blank(values)
        n_segs = len(seg.starts)
        if fa.distinct:
            joined = self._distinct(values, seg, fa, nonblank)
        else:
            items = values.filter(pa.array(nonblank))
            joined = pc.binary_join(_lists(items, seg.ids[nonblank], n_segs), fa.delimiter)
        has = count_true(nonblank, seg) > 0
        if has.all():
            return joined
        # nothing to concatenate: a reset row's own value (blank or null) stays, else null
        fallback = take_or_null(values, np.where(seg.reset, seg.starts, -1))
        return pc.if_else(pa.array(has), joined, fallback)

    def _distinct(self, values: pa.Array, seg: Segments, fa: FieldAgg, nonblank: np.ndarray) -> pa.Array:
        d = fa.delimiter
        if not d or any(d[:k] == d[-k:] for k in range(1, len(d))):
            # Paimon re-splits the whole accumulated string at every step: with an empty delimiter
            # (split on ' ', joined with '') or one that overlaps itself, tokens of the concatenation
            # are not the tokens added, so fold row by row
            return self._distinct_rows(values, seg, fa, nonblank)
        n_segs = len(seg.starts)
        first = first_true(nonblank, seg)
        first = first[first >= 0]
        later = nonblank.copy()
        later[first] = False
        split_on = fa.delimiter or " "  # Paimon splits on a space when the delimiter is empty
        first_tokens = pc.split_pattern(values.take(pa.array(first)), split_on)
        later_rows = np.flatnonzero(later)
        later_tokens = pc.split_pattern(values.take(pa.array(later_rows)), split_on)
        ft = first_tokens.flatten()
        lt = later_tokens.flatten()
        f_seg = seg.ids[first][np.asarray(pc.list_parent_indices(first_tokens), dtype=np.int64)]
        l_seg = seg.ids[later_rows][np.asarray(pc.list_parent_indices(later_tokens), dtype=np.int64)]
        # a later token is kept unless blank or already present (in the first string or kept before)
        tokens = pa.table({
            "s": np.concatenate([f_seg, l_seg]),
            "t": pa.concat_arrays([ft, lt]),
            "o": np.concatenate([np.full(len(ft), -1, dtype=np.int64), np.arange(len(lt), dtype=np.int64)]),
        })
        order = np.asarray(pc.sort_indices(tokens, [("s", "ascending"), ("t", "ascending"), ("o", "ascending")]),
                           dtype=np.int64)
        st = tokens.take(pa.array(order))
        s_np = st.column("s").to_numpy()
        o_np = st.column("o").to_numpy()
        tcol = st.column("t").combine_chunks()
        run_start = np.ones(len(order), dtype=bool)
        if len(order) > 1:
            same_tok = np.asarray(pc.equal(tcol.slice(1), tcol.slice(0, len(tcol) - 1)).to_numpy(zero_copy_only=False),
                                  dtype=bool)
            run_start[1:] = ~((s_np[1:] == s_np[:-1]) & same_tok)
        keep = run_start & (o_np >= 0)
        keep &= ~_blank(tcol) if len(tcol) else keep
        kept_o = o_np[keep]
        kept_o.sort()
        kept = lt.take(pa.array(kept_o))
        kept_seg = l_seg[kept_o]
        # per segment: the first string verbatim, then the kept tokens in arrival order
        items = pa.concat_arrays([values.take(pa.array(first)).cast(pa.string()), kept.cast(pa.string())])
        item_seg = np.concatenate([seg.ids[first], kept_seg])
        item_ord = np.concatenate([np.full(len(first), -1, dtype=np.int64), kept_o])
        perm = np.lexsort((item_ord, item_seg))
        return pc.binary_join(_lists(items.take(pa.array(perm)), item_seg[perm], n_segs), fa.delimiter)


    @staticmethod
    def _distinct_rows(values: pa.Array, seg: Segments, fa: FieldAgg, nonblank: np.ndarray) -> pa.Array:
        d, split_on = fa.delimiter, fa.delimiter or " "
        rows = np.flatnonzero(nonblank)
        acc: dict[int, str] = {}
        for r, x in zip(rows.tolist(), values.take(pa.array(rows)).to_pylist()):
            s = int(seg.ids[r])
            cur = acc.get(s)
            if cur is None:
                acc[s] = x
                continue
            existing = set(cur.split(split_on)) if cur else set()
            parts = [cur]
            for tok in x.split(split_on) if x else []:
                if tok in existing or re.fullmatch(_BLANK_PY, tok):
                    continue
                existing.add(tok)
                parts.append(tok)
            acc[s] = d.join(parts)
        return pa.array([acc.get(s, "") for s in range(len(seg.starts))], type=pa.string())


class Collect(Aggregator):
    """Paimon's ``collect``: the elements of the arrays of a key concatenated in sequence order (null
    arrays skipped); with ``fields.<f>.distinct`` every fold keeps each element once, strings and
    nested elements in arrival order, others in Java's ``HashSet`` order (as Paimon's fold builds a
    new HashSet each time); a retraction removes one occurrence of each of its elements."""

    name = "collect"
    retracts = True

    def check_type(self, field: str, t: DataType) -> None:
        if t.root != "ARRAY":
            raise ValidationError(
                f"Data type for collect column must be 'Array' but was '{t.to_string()}' (field {field!r})"
            )

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        agg, retract = agg_and_retract_rows(seg, active)
        if not fa.distinct and not retract.any():
            return self._concat(values, seg, (agg | seg.reset_rows) & valid_mask(values))
        return self._fold(values, seg, fa, agg, retract)

    @staticmethod
    def _concat(values: pa.Array, seg: Segments, used: np.ndarray) -> pa.Array:
        """Vectorised: per segment, the elements of its used rows' arrays in row order."""
        n_segs = len(seg.starts)
        rows = np.flatnonzero(used)
        lists = values.take(pa.array(rows, pa.int64()))
        lengths = np.asarray(pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False),
                             dtype=np.int64)
        flat = pc.list_flatten(lists)
        item_seg = np.repeat(seg.ids[rows], lengths)
        counts = np.bincount(item_seg, minlength=n_segs)
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
        has = count_true(used, seg) > 0
        out = pa.ListArray.from_arrays(pa.array(offsets), flat, type=values.type,
                                       mask=pa.array(~has))
        return out

    @staticmethod
    def _fold(values: pa.Array, seg: Segments, fa: FieldAgg, agg: np.ndarray, retract: np.ndarray) -> pa.Array:
        """Paimon's fold, per key: where Java's set order or a retraction forces it."""
        element_type = cast(pt.ArrayType, fa.data_type).element
        hash_of = element_type.accept(SetHash()) if fa.distinct else None

        def step(acc: list[Any] | None, x: list[Any] | None, r: int) -> Any:
            if agg[r]:
                return _collect_agg(acc, x, fa.distinct, hash_of)
            return _collect_retract(acc, x) if retract[r] else acc

        return fold_segments(values, seg, step)


def _collect_agg(
    acc: list[Any] | None, x: list[Any] | None, distinct: bool, hash_of: Callable[[Any], int] | None,
) -> list[Any] | None:
    if acc is None and x is None:
        return None
    if (acc is None or x is None) and not distinct:
        return acc if x is None else x
    items = (acc or []) + (x or [])
    if not distinct:
        return items
    if hash_of is None:  # strings, binaries, nested: an equaliser, arrival order
        kept: list[Any] = []
        for e in items:
            if e not in kept:
                kept.append(e)
        return kept
    seen: set[Any] = set()
    uniq: list[Any] = []
    for e in items:  # a HashSet keeps the first of equal elements
        k = set_key(e)
        if k not in seen:
            seen.add(k)
            uniq.append(e)
    order = java_hash_map_order(range(len(uniq)), lambda i: 0 if uniq[i] is None else hash_of(java_value(uniq[i])))
    return [uniq[i] for i in order]


def _collect_retract(acc: list[Any] | None, x: list[Any] | None) -> list[Any] | None:
    if acc is None:
        return None
    if not x:
        return acc
    pending = list(x)
    out = []
    for e in acc:
        if e in pending:
            pending.remove(e)
        else:
            out.append(e)
    return out


class MergeMap(Aggregator):
    """Paimon's ``merge_map``: the maps of a key merged, later values winning; every merge of two
    non-null maps builds a new Java HashMap (keys in its iteration order: the key hash codes are
    reproduced); a retraction removes its keys."""

    name = "merge_map"
    retracts = True

    def check_type(self, field: str, t: DataType) -> None:
        if t.root != "MAP":
            raise ValidationError(
                f"Data type for merge map column must be 'MAP' but was '{t.to_string()}' (field {field!r})"
            )

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        agg, retract = agg_and_retract_rows(seg, active)
        key_type = cast(pt.MapType, fa.data_type).key
        hash_of = key_type.accept(MapKeyHash())

        def step(acc: list[tuple[Any, Any]] | None, x: list[tuple[Any, Any]] | None, r: int) -> Any:
            if agg[r]:
                return acc if x is None else x if acc is None else _hash_map(acc + x, hash_of)
            if retract[r] and acc is not None and x:
                gone = {k for k, _ in x}
                return _hash_map([(k, v) for k, v in acc if k not in gone], hash_of)
            return acc

        return fold_segments(values, seg, step)


def _hash_map(items: list[tuple[Any, Any]], hash_of: Callable[[Any], int] | None) -> list[tuple[Any, Any]]:
    """``items`` put into a new Java HashMap in order (a later value replaces an earlier one, the
    key keeps its place), in the map's iteration order (arrival order when ``hash_of`` is None)."""
    merged: dict[Any, Any] = {}
    for k, v in items:
        merged[set_key(k)] = (k, v) if set_key(k) not in merged else (merged[set_key(k)][0], v)
    entries = list(merged.values())
    if hash_of is None:
        return entries
    order = java_hash_map_order(range(len(entries)), lambda i: hash_of(java_value(entries[i][0])))
    return [entries[i] for i in order]


AGGREGATORS: dict[str, Aggregator] = {
    a.name: a
    for a in (
        Sum(), Product(), Max(), Min(), LastValue(), LastNonNullValue(), FirstValue(), FirstNonNullValue(),
        FirstNotNullValue(), Listagg(), BoolAnd(), BoolOr(), PrimaryKeyValue(), Collect(), MergeMap(), RoaringBitmap32(),
    )
}
"""Paimon's aggregate functions by name; adding one is an entry here and a module building on
``agg_base``."""
AGGREGATORS.update({
    "nested_update": NestedUpdate(), "nested_partial_update": NestedPartialUpdate(),
    "rbm64": RoaringBitmap64(), "merge_map_with_keytime": MergeMapWithKeyTime(),
    "hll_sketch": HllSketch(), "theta_sketch": ThetaSketch(),
})


def aggregate_groups(values: pa.Array | pa.ChunkedArray, groups: KeyGroups, fa: FieldAgg) -> pa.Array | None:
    """One value per key group of a merge where every record aggregates (``aggregate_column`` of
    one segment per group, over the whole column in merge order); None when the function has no
    such shortcut for these values."""
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    out = AGGREGATORS[fa.function].reduce_groups(arr, groups, fa)
    if out is None:
        return None
    target = to_arrow_type(fa.data_type)
    return out if out.type.equals(target) else out.cast(target)


def aggregate_column(values: pa.Array | pa.ChunkedArray, seg: Segments, fa: FieldAgg) -> pa.Array:
    """One value per segment: the column folded with its aggregator."""
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    impl = AGGREGATORS[fa.function]
    out = impl.reduce(arr, seg, fa, _active_rows(impl, seg, fa))
    target = to_arrow_type(fa.data_type)
    return out if out.type.equals(target) else out.cast(target)


def _active_rows(impl: Aggregator, seg: Segments, fa: FieldAgg) -> np.ndarray:
    """The rows the aggregator sees (retractions dropped by ``ignore-retract``); fails for a
    retraction the function cannot take."""
    active = np.ones(seg.n, dtype=bool)
    if fa.ignore_retract:
        active &= ~seg.retract
    elif not impl.retracts and seg.retract.any():
        raise UnsupportedError(
            f"Aggregate function '{fa.function}' does not support retraction (a -U/-D record of field "
            f"{fa.column!r}); to ignore retraction messages set 'fields.{fa.column}.ignore-retract' = 'true'"
        )
    return active


# the functions whose result is one of the segment's values (or null), chosen by the rows' kinds
# and the values' validity alone: ``aggregate_rows`` finds that row without reading the values
ROW_PICKING = frozenset({LAST_VALUE, LAST_NON_NULL_VALUE, PRIMARY_KEY})


def aggregate_rows(valid: np.ndarray, seg: Segments, fa: FieldAgg) -> np.ndarray:
    """For a ``ROW_PICKING`` function: per segment, the row (of ``seg``'s rows) whose value
    ``aggregate_column`` returns, -1 where it returns null. ``valid``: per row, the value is not null.
    The rows' positions stand in for the values (the functions only test validity and take)."""
    impl = AGGREGATORS[fa.function]
    positions = pa.array(np.arange(seg.n, dtype=np.int64), mask=None if valid.all() else ~valid)
    picked = impl.reduce(positions, seg, fa, _active_rows(impl, seg, fa))
    return np.asarray(picked.fill_null(-1).to_numpy(), dtype=np.int64)


# ----------------------------------------------------------------------------------------------
# Resolving every field's function from the table options
# ----------------------------------------------------------------------------------------------


def function_name(field: str, options: CoreOptions, primary_keys: Sequence[str], sequence_fields: Sequence[str]) -> str:
    """Paimon's ``AggregateMergeFunction.getAggFuncName``."""
    if field in sequence_fields:
        return LAST_VALUE
    if field in primary_keys:
        return PRIMARY_KEY
    return options.field_aggregate_function(field) or options.fields_default_aggregate_function or LAST_NON_NULL_VALUE


def field_agg(field: DataField, function: str, options: CoreOptions) -> FieldAgg:
    """The FieldAgg of ``field`` aggregated by ``function``, checked as Paimon's factories check it."""
    impl = AGGREGATORS.get(function)
    if impl is None:
        raise ValidationError(
            f"Use unsupported aggregation: {function} or spell aggregate function incorrectly! (field {field.name!r})"
        )
    ignore = options.field_ignore_retract(field.name)
    if ignore and options.aggregation_remove_record_on_delete:
        raise ValidationError(
            f"aggregation.remove-record-on-delete and fields.{field.name}.ignore-retract have conflicting "
            "behavior so should not be enabled at the same time."
        )
    impl.check_type(field.name, field.type)
    impl.check_table_options(field.name, options)
    fa = FieldAgg(
        column=field.name,
        function=function,
        data_type=field.type,
        ignore_retract=ignore,
        delimiter=options.field_list_agg_delimiter(field.name),
        distinct=options.field_distinct(field.name),
        nested_key=tuple(options.field_nested_key(field.name)),
        count_limit=options.field_count_limit(field.name),
        ts_field=options.field_merge_map_ts_field(field.name),
    )
    impl.check_options(fa)
    return fa


def build_field_aggs(
    options: CoreOptions, fields: Sequence[DataField], primary_keys: Sequence[str]
) -> tuple[FieldAgg, ...]:
    """The aggregation of each of ``fields`` (the value columns being merged)."""
    seq = options.sequence_fields
    return tuple(field_agg(f, function_name(f.name, options, primary_keys, seq), options) for f in fields)

