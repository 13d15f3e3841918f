"""Java hash codes of the elements and map keys that ``collect`` (distinct: Java's ``HashSet``),
``merge_map`` and ``merge_map_with_keytime`` (Java's ``HashMap``) order their output by, and the
Java objects those hash codes are taken of."""

from __future__ import annotations

import datetime as _dt
import math
import struct
from collections.abc import Callable
from typing import Any

from paimon_sql import types as pt
from paimon_sql.errors import UnsupportedError
from paimon_sql.format.java_hash import (
    java_boolean_hash,
    java_double_hash,
    java_float_hash,
    java_int_hash,
    java_long_hash,
)
from paimon_sql.format.murmur import murmur_hash_bytes
from paimon_sql.types import DataType


class SetHash(pt.DefaultTypeVisitor["Callable[[Any], int] | None"]):
    """How a distinct ``collect`` orders elements of a type: Java's ``HashSet`` order needs the
    element's ``hashCode()`` (None: compared by an equaliser in arrival order instead, as Paimon
    does for strings, binaries and nested types; a type with neither raises)."""

    def default(self, t: DataType) -> Callable[[Any], int] | None:
        raise UnsupportedError(
            f"collect with fields.<field>.distinct is not supported for elements of type {t.to_string()} "
            "(Java's HashSet order of their hash codes is not reproduced)"
        )

    def _ordered(self, t: DataType) -> Callable[[Any], int] | None:
        return None

    visit_char = visit_varchar = visit_binary = visit_varbinary = _ordered
    visit_array = visit_map = visit_multiset = visit_row = _ordered

    def _int(self, t: DataType) -> Callable[[Any], int] | None:
        return java_int_hash

    visit_tinyint = visit_smallint = visit_int = visit_date = visit_time = _int

    def visit_bigint(self, t: pt.BigIntType) -> Callable[[Any], int] | None:
        return java_long_hash

    def visit_boolean(self, t: pt.BooleanType) -> Callable[[Any], int] | None:
        return java_boolean_hash

    def visit_float(self, t: pt.FloatType) -> Callable[[Any], int] | None:
        return java_float_hash

    def visit_double(self, t: pt.DoubleType) -> Callable[[Any], int] | None:
        return java_double_hash


_EPOCH_DAY = _dt.date(1970, 1, 1)


def java_value(e: Any) -> Any:
    """An element as the Java object whose hashCode / equals a HashSet uses: a DATE is its epoch
    day, a TIME its millisecond of the day, a float its bits (NaN canonical, -0.0 not 0.0)."""
    if isinstance(e, _dt.date):
        return (e - _EPOCH_DAY).days
    if isinstance(e, _dt.time):
        return ((e.hour * 60 + e.minute) * 60 + e.second) * 1000 + e.microsecond // 1000
    return e


def set_key(e: Any) -> Any:
    if isinstance(e, float):
        return ("nan",) if math.isnan(e) else (struct.pack(">d", e),)
    return e


class MapKeyHash(SetHash):
    """``hashCode()`` of a map key in Paimon's merge_map HashMap: a string is a BinaryString (Murmur3
    of its UTF-8 bytes); a binary key has identity hashing in Paimon (any order is Paimon's), kept in
    arrival order here; nested keys are not supported."""

    def default(self, t: DataType) -> Callable[[Any], int] | None:
        raise UnsupportedError(
            f"merge_map is not supported for map keys of type {t.to_string()} (Java's HashMap order of "
            "their hash codes is not reproduced)"
        )

    def _string(self, t: DataType) -> Callable[[Any], int] | None:
        return lambda v: murmur_hash_bytes(v.encode("utf-8")) & 0xFFFFFFFF

    visit_char = visit_varchar = _string

    def _binary(self, t: DataType) -> Callable[[Any], int] | None:
        return None

    visit_binary = visit_varbinary = _binary

    def _nested(self, t: DataType) -> Callable[[Any], int] | None:
        return self.default(t)

    visit_array = visit_map = visit_multiset = visit_row = _nested
