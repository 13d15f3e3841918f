"""Paimon's ``hll_sketch`` and ``theta_sketch`` aggregate functions (``FieldHllSketchAgg``,
``FieldThetaSketchAgg``): the union of serialized Apache DataSketches sketches in a ``VARBINARY``
column, byte for byte what Paimon's Java aggregators write.

Facts reproduced (per key, records folded in sequence order, like every Paimon aggregator):

* ``agg(null, x)`` and ``agg(acc, null)`` keep the non-null side as it is: a key's first non-null
  sketch is kept verbatim (never parsed) until a second one comes. No retraction (``-U``/``-D`` fail
  unless ``fields.<f>.ignore-retract``). Only ``VARBINARY`` columns (not ``BINARY``).
* ``hll_sketch`` (``HllSketchUtil.union(acc, x)``): a union is heapified from the *input* ``x``
  (its ``lgMaxK`` is ``x``'s ``lgK``), the accumulator is merged into it, and the result is an
  ``HLL_4`` sketch in compact form.
* ``theta_sketch`` (``ThetaSketch.union(acc, x)``): a default union (``lgK`` 12, ``p`` 1.0, seed
  9001) takes the accumulator, then the input; the result is an ordered compact sketch.

The unions run in the ``datasketches`` package (Apache DataSketches' C++ library; imported only
when a table uses these functions). Where it reads or writes otherwise than Java, Java's way is
followed here:

* Theta: Java writes the unused ``p`` field of a compact sketch as ``1.0f`` (C++ writes 0), an
  empty compact sketch with a zero seed hash (C++ writes the seed hash), and sets the single-item
  flag (0x20) on a sketch of one entry (C++ does not). An input in Java's updatable (QuickSelect)
  form, which Java's union reads and the C++ library does not, is turned into the compact sketch
  of the same entries first; inputs under 16 bytes are skipped, as Java's union does.
* HLL: when a union merges a LIST/SET sketch's coupons into an HLL-mode sketch, the HIP
  accumulator differs: Java adds to it on every register increase, C++ only while the sketch is
  not "out of order" (the state after merging two HLL-mode sketches, whose HIP both reset to 0),
  and after downsampling a larger sketch C++ computes them from KxQ sums not yet rebuilt. The
  Java value is recomputed here with Java's arithmetic: the HLL side copied to an HLL_8 array,
  then ``k / (kxq0 + kxq1)`` added per register a coupon increases, in the coupons' order.
  And the union of an HLL-mode sketch with an empty one keeps the HIP in Java (unless it is out
  of order and downsampled); C++ zeroes that of an out-of-order sketch.

Checked against datasketches-java 6.2.0 (the jar Spark ships; Paimon builds with 4.2.0, whose union
and serialization code is the same) in tests/lsm/test_agg_sketch.py.
"""

from __future__ import annotations

import struct
from functools import cache
from typing import Any

import numpy as np
import pyarrow as pa

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.lsm.agg_base import Aggregator, FieldAgg, Segments, agg_and_retract_rows
from paimon_sql.types import DataType


@cache
def datasketches() -> Any:
    """The ``datasketches`` module, imported on first use (it costs ~0.2 s)."""
    try:
        import datasketches as ds
    except ImportError as e:  # pragma: no cover - a declared dependency
        raise UnsupportedError(
            "Aggregate functions 'hll_sketch' and 'theta_sketch' need the 'datasketches' package "
            "(pip install datasketches)"
        ) from e
    return ds


# ----------------------------------------------------------------------------------------------
# HLL
# ----------------------------------------------------------------------------------------------

_HLL_MODE_HLL = 2
_HLL_TYPE_8 = 2
_HLL_FLAG_OUT_OF_ORDER = 0x10
_HLL_REGISTERS = 40  # offset of an HLL_8 register array


def _hll_mode(b: bytes) -> int:
    return b[7] & 3  # 0 LIST, 1 SET, 2 HLL


def java_hll_union(acc: bytes, x: bytes) -> bytes:
    """Paimon's ``HllSketchUtil.union(acc, x)``: the bytes Java writes."""
    ds = datasketches()
    sa = ds.hll_sketch.deserialize(acc)
    sx = ds.hll_sketch.deserialize(x)
    union = ds.hll_union(sx.lg_config_k)
    union.update(sx)
    union.update(sa)
    out = bytes(union.get_result(ds.tgt_hll_type.HLL_4).serialize_compact())
    if sa.is_empty() or sx.is_empty():  # a copy of the other side, or nothing
        other, other_sketch = (x, sx) if sa.is_empty() else (acc, sa)
        if other_sketch.is_empty() or _hll_mode(other) != _HLL_MODE_HLL:
            return out  # coupons only (a promotion to HLL mode computes the HIP as Java does)
        hip = _java_hip0(other, other_sketch.lg_config_k > sx.lg_config_k)
        return out[:8] + struct.pack("<d", hip) + out[16:]
    if (_hll_mode(acc) == _HLL_MODE_HLL) == (_hll_mode(x) == _HLL_MODE_HLL):
        return out  # two HLL-mode sketches (HIP reset to 0 in both), or coupons only
    hll, hll_sketch, coupons = (x, sx, sa) if _hll_mode(x) == _HLL_MODE_HLL else (acc, sa, sx)
    hip = _java_hip(ds, hll, hll_sketch, coupons, sx.lg_config_k)
    return out[:8] + struct.pack("<d", hip) + out[16:]


def _java_hip(ds: Any, hll: bytes, hll_sketch: Any, coupon_sketch: Any, lg_max_k: int) -> float:
    """The HIP accumulator of Java's union after the coupons of ``coupon_sketch`` (LIST/SET mode)
    are merged into the HLL-mode sketch ``hll``: Java copies it to an HLL_8 array (downsampled to
    ``lg_max_k`` when larger; an HLL_8 sketch of that size keeps its stored KxQ sums), then updates
    the registers coupon by coupon. The KxQ sums of the copy are the C++ library's: sums of powers
    of two within 53 bits, exact in any order."""
    lg_t = min(hll_sketch.lg_config_k, lg_max_k)
    union = ds.hll_union(lg_t)
    union.update(hll_sketch)
    data = bytes(union.get_result(ds.tgt_hll_type.HLL_8).serialize_updatable())
    regs = np.frombuffer(data, np.uint8, count=1 << lg_t, offset=_HLL_REGISTERS).copy()
    same = lg_t == hll_sketch.lg_config_k
    kxq0, kxq1 = struct.unpack_from("<2d", hll if same and (hll[7] >> 2) & 3 == _HLL_TYPE_8 else data, 16)
    return _feed(regs, kxq0, kxq1, _coupons(coupon_sketch), lg_t, _java_hip0(hll, not same))[3]


def _java_hip0(hll: bytes, downsampled: bool) -> float:
    """The HIP of an HLL-mode sketch as Java's union copies it: kept, except that a downsampled
    copy of an out-of-order sketch has 0 (``Union.downsample`` sets the HIP, then the out-of-order
    flag, which zeroes it)."""
    if downsampled and hll[5] & _HLL_FLAG_OUT_OF_ORDER:
        return 0.0
    return float(struct.unpack_from("<d", hll, 8)[0])


def _coupons(sketch: Any) -> np.ndarray:
    """The coupons of a LIST/SET-mode sketch in its array's order (the order unions iterate)."""
    data = bytes(sketch.serialize_updatable())
    start = 8 if _hll_mode(data) == 0 else 12
    ints = np.frombuffer(data, "<u4", count=(len(data) - start) // 4, offset=start)
    return ints[ints != 0].astype(np.uint32)


def _feed(
    regs: np.ndarray, kxq0: float, kxq1: float, coupons: np.ndarray, lg_k: int, hip: float
) -> tuple[np.ndarray, float, float, float]:
    """Java's ``Hll8Array.couponUpdate`` for each coupon in order: a register that grows adds
    ``k / (kxq0 + kxq1)`` to the HIP, then moves its ``2^-value`` from kxq0/kxq1 (subtract the old,
    add the new). Sequential in float64 like Java (numpy's cumsum adds left to right)."""
    k = 1 << lg_k
    regs = regs.copy()
    if len(coupons) == 0:
        return regs, kxq0, kxq1, hip
    slots = (coupons & np.uint32(k - 1)).astype(np.int64)
    vals = (coupons >> np.uint32(26)).astype(np.int64)
    order = np.argsort(slots, kind="stable")
    s, v = slots[order], vals[order]
    run = np.maximum.accumulate(s * 64 + v)  # running max within each slot (earlier slots are smaller)
    prev = np.concatenate(([-1], run[:-1]))
    old = np.empty(len(s), np.int64)
    old[order] = np.maximum(regs[s].astype(np.int64), np.maximum(prev - s * 64, 0))
    grows = vals > old
    o, n = old[grows], vals[grows]
    m = len(o)
    np.maximum.at(regs, slots, vals.astype(np.uint8))
    if m == 0:
        return regs, kxq0, kxq1, hip
    d0 = np.zeros(2 * m)
    d1 = np.zeros(2 * m)
    d0[0::2] = np.where(o < 32, -np.ldexp(1.0, -o), 0.0)
    d1[0::2] = np.where(o < 32, 0.0, -np.ldexp(1.0, -o))
    d0[1::2] = np.where(n < 32, np.ldexp(1.0, -n), 0.0)
    d1[1::2] = np.where(n < 32, 0.0, np.ldexp(1.0, -n))
    q0 = np.cumsum(np.concatenate(([kxq0], d0)))
    q1 = np.cumsum(np.concatenate(([kxq1], d1)))
    steps = k / (q0[0:2 * m:2] + q1[0:2 * m:2])
    return regs, float(q0[-1]), float(q1[-1]), float(np.cumsum(np.concatenate(([hip], steps)))[-1])


# ----------------------------------------------------------------------------------------------
# Theta
# ----------------------------------------------------------------------------------------------

_THETA_EMPTY_FLAG = 4
_THETA_SINGLE_ITEM_FLAG = 0x20
_THETA_COMPACT_ORDERED = 0x1A  # read-only, compact, ordered
_THETA_FAMILY_QUICKSELECT = 2
_THETA_MAX = 2**63 - 1
_JAVA_EMPTY_THETA = bytes([1, 3, 3, 0, 0, 0x1E, 0, 0])  # Java's EmptyCompactSketch (seed hash 0)
_JAVA_P = struct.pack("<f", 1.0)


def java_theta_union(acc: bytes, x: bytes) -> bytes:
    """Paimon's ``ThetaSketch.union(acc, x)``: the bytes Java writes."""
    ds = datasketches()
    union = ds.theta_union()  # lgK 12, p 1.0, seed 9001: Java's SetOperationBuilder defaults
    for b in (acc, x):
        if len(b) >= 16:  # Java's union skips shorter inputs ("empty or garbage")
            union.update(ds.compact_theta_sketch.deserialize(_compact_theta(b)))
    out = bytes(union.get_result(True).serialize())
    if out[0] == 1 and out[5] & _THETA_EMPTY_FLAG:
        return _JAVA_EMPTY_THETA
    if out[0] == 1:  # one entry, theta 1.0: Java's SingleItemSketch sets its flag
        return out[:5] + bytes([out[5] | _THETA_SINGLE_ITEM_FLAG]) + out[6:]
    return out[:12] + _JAVA_P + out[16:]


def _compact_theta(b: bytes) -> bytes:
    """A sketch in Java's updatable (QuickSelect) form as the ordered compact sketch of the same
    entries and theta, which a union reads alike (the C++ library reads compact sketches only);
    other sketches as they are."""
    if len(b) < 24 or b[1] != 3 or b[2] != _THETA_FAMILY_QUICKSELECT:
        return b
    pre, lg_arr, flags, seed_hash = b[0] & 0x3F, b[4], b[5], b[6:8]
    if flags & _THETA_EMPTY_FLAG:
        return _JAVA_EMPTY_THETA
    theta = struct.unpack_from("<q", b, 16)[0]
    table = np.frombuffer(b, "<i8", count=min(1 << lg_arr, (len(b) - pre * 8) // 8), offset=pre * 8)
    hashes = np.sort(table[(table > 0) & (table < theta)])
    flags = _THETA_COMPACT_ORDERED
    if theta == _THETA_MAX and len(hashes) == 1:
        return bytes([1, 3, 3, 0, 0, flags | _THETA_SINGLE_ITEM_FLAG]) + seed_hash + hashes.tobytes()
    pre = 2 if theta == _THETA_MAX else 3
    head = bytes([pre, 3, 3, 0, 0, flags]) + seed_hash + struct.pack("<i", len(hashes)) + _JAVA_P
    return head + (struct.pack("<q", theta) if pre == 3 else b"") + hashes.astype("<i8").tobytes()


# ----------------------------------------------------------------------------------------------
# Aggregators
# ----------------------------------------------------------------------------------------------


class _SketchUnion(Aggregator):
    kind: str = ""

    def check_type(self, field: str, t: DataType) -> None:
        if t.root != "VARBINARY":
            raise ValidationError(
                f"Data type for {self.kind} sketch column must be 'VarBinaryType' but was '{t.to_string()}' "
                f"(field {field!r}, aggregate function '{self.name}')"
            )

    @staticmethod
    def union(acc: bytes, x: bytes) -> bytes:
        raise NotImplementedError

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        agg, _ = agg_and_retract_rows(seg, active)
        valid = values.is_valid().to_numpy(zero_copy_only=False)
        # nulls are skipped; a reset row (first of its segment) starts the fold with its own value
        rows = np.flatnonzero((agg | seg.reset_rows) & valid)
        ids = seg.ids[rows]
        n = len(seg.starts)
        lo = np.searchsorted(ids, np.arange(n), "left")
        hi = np.searchsorted(ids, np.arange(n), "right")
        xs = values.take(pa.array(rows)).to_pylist()
        out: list[bytes | None] = [None] * n
        for i in np.flatnonzero(hi > lo).tolist():
            acc = xs[lo[i]]  # a lone sketch is kept as it is, never parsed
            for x in xs[lo[i] + 1 : hi[i]]:
                try:
                    acc = self.union(acc, x)
                except (RuntimeError, ValueError, IndexError, struct.error) as e:
                    raise ValidationError(
                        f"Unable to union the {self.kind} sketches of field {fa.column!r} "
                        f"(aggregate function '{self.name}'): {e}"
                    ) from e
            out[i] = acc
        return pa.array(out, type=values.type)


class HllSketch(_SketchUnion):
    """Paimon's ``hll_sketch``: the union of serialized DataSketches HLL sketches (as HLL_4)."""

    name = "hll_sketch"
    kind = "hll"

    @staticmethod
    def union(acc: bytes, x: bytes) -> bytes:
        return java_hll_union(acc, x)


class ThetaSketch(_SketchUnion):
    """Paimon's ``theta_sketch``: the union of serialized DataSketches Theta sketches."""

    name = "theta_sketch"
    kind = "theta"

    @staticmethod
    def union(acc: bytes, x: bytes) -> bytes:
        return java_theta_union(acc, x)
