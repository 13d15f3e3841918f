"""Java's hash codes and ``HashMap`` / ``HashSet`` iteration order, where Paimon's Java code lets
them show: option maps of system tables, the element order of a distinct ``collect`` aggregate. The
hashes are ``hashCode()`` as unsigned 32-bit numbers."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterable
from typing import TypeVar

_K = TypeVar("_K")


def java_int_hash(v: int) -> int:
    """``Integer`` / ``Short`` / ``Byte`` ``hashCode()`` (the value)."""
    return v & 0xFFFFFFFF


def java_long_hash(v: int) -> int:
    """``Long.hashCode()``: ``(int) (v ^ (v >>> 32))``."""
    u = v & 0xFFFFFFFFFFFFFFFF
    return (u ^ (u >> 32)) & 0xFFFFFFFF


def java_boolean_hash(v: bool) -> int:
    return 1231 if v else 1237


def java_float_hash(v: float) -> int:
    """``Float.hashCode()``: ``floatToIntBits`` (one canonical NaN)."""
    if math.isnan(v):
        return 0x7FC00000
    return struct.unpack(">I", struct.pack(">f", v))[0]


def java_double_hash(v: float) -> int:
    """``Double.hashCode()``: the ``doubleToLongBits`` folded like a long (one canonical NaN)."""
    bits = 0x7FF8000000000000 if math.isnan(v) else struct.unpack(">Q", struct.pack(">d", v))[0]
    return java_long_hash(bits)


def java_string_hash(s: str) -> int:
    """``String.hashCode()`` as an unsigned 32-bit number."""
    data = s.encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h


def java_hash_map_order(
    keys: Iterable[_K], hash: Callable[[_K], int] = java_string_hash, copied: bool = False  # type: ignore[assignment]
) -> list[_K]:
    """The iteration order of a ``java.util.HashMap`` the keys were put into, in this order.

    Buckets in index order (``(h ^ h >>> 16) & (capacity - 1)``, ``hash`` giving ``hashCode()``
    as an unsigned 32-bit number), insertion order inside a bucket (resizing keeps it). The
    capacity is 16 doubled whenever the size exceeds 3/4 of it, or, for a map made by the copy
    constructor ``new HashMap<>(map)`` (``copied``), ``tableSizeFor(size / 0.75 + 1)`` (Java 8 to
    17). Bins that Java turns into trees (8+ colliding keys) are not modelled."""
    ks = list(dict.fromkeys(keys))
    cap = _copy_capacity(len(ks)) if copied else 16
    while len(ks) > cap * 3 // 4:
        cap *= 2

    def bucket(k: _K) -> int:
        h = hash(k)
        return (h ^ (h >> 16)) & (cap - 1)

    order = sorted(range(len(ks)), key=lambda i: (bucket(ks[i]), i))
    return [ks[i] for i in order]


def _copy_capacity(size: int) -> int:
    """``HashMap(Map)``'s table length for ``size`` entries (``putMapEntries``, Java 8 to 17)."""
    t = max(int(size / 0.75 + 1.0), 1)
    return 1 << (t - 1).bit_length()


