"""Spark data source filters (``pyspark.sql.datasource.Filter``) → paimon_sql predicates.

Spark (4.1+) offers a Python data source the simple conjuncts of a query's WHERE clause: one column
compared with literals (``EqualTo``, ``EqualNullSafe``, ``GreaterThan[OrEqual]``, ``LessThan[OrEqual]``,
``In``, ``IsNull``, ``IsNotNull``, ``StringStartsWith`` / ``EndsWith`` / ``Contains``), each possibly
wrapped in one ``Not``. A filter the source accepts is *not* evaluated again by Spark, so a filter is
only accepted when the engine evaluates it exactly as Spark would:

- columns of types whose comparison semantics differ are refused: FLOAT / DOUBLE (Spark orders NaN
  above every number and treats ``NaN = NaN`` as true, Arrow follows IEEE), TIME, timestamps finer than
  microseconds (Spark sees them truncated), nested and other exotic types;
- nested column paths (``s.x``) and literals of an unexpected Python type are refused;
- ``x <=> v`` becomes ``x = v`` (``x IS NULL`` for a null ``v``); under ``Not`` it becomes
  ``x IS NULL OR x <> v``.

The engine applies accepted predicates to partitions (manifest and partition pruning), to files
(min/max statistics; for primary-key tables only on key columns) and to the rows it returns (after
the key merge), with SQL's three-valued logic.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from typing import Any

from pyspark.sql import datasource as sds

from paimon_sql import predicate as P
from paimon_sql import types as pt
from paimon_sql.types import DataField, DataType


def convert_filters(
    filters: Iterable[sds.Filter], fields: Sequence[DataField]
) -> tuple[list[tuple[sds.Filter, P.Predicate]], list[sds.Filter]]:
    """Splits Spark's offered filters into (filter, predicate) pairs the engine evaluates exactly and
    the filters (the same objects) Spark must evaluate itself."""
    by_name = _field_lookup(fields)
    accepted: list[tuple[sds.Filter, P.Predicate]] = []
    rejected: list[sds.Filter] = []
    for f in filters:
        pred = convert_filter(f, by_name)
        if pred is None:
            rejected.append(f)
        else:
            accepted.append((f, pred))
    return accepted, rejected


def convert_filter(f: sds.Filter, fields: dict[str, DataField] | Sequence[DataField]) -> P.Predicate | None:
    """The predicate of one Spark filter, or None when it cannot be evaluated exactly."""
    by_name = fields if isinstance(fields, dict) else _field_lookup(fields)
    if isinstance(f, sds.Not):
        if isinstance(f.child, sds.EqualNullSafe):
            fld = _column(f.child.attribute, by_name)
            if fld is None:
                return None
            if f.child.value is None:
                return P.is_not_null(fld.name)
            v = _literal(fld.type, f.child.value)
            if v is _NO:
                return None
            return P.or_(P.is_null(fld.name), P.not_equal(fld.name, v))
        inner = convert_filter(f.child, by_name)
        return None if inner is None else P.not_(inner)
    attribute = getattr(f, "attribute", None)
    if attribute is None:
        return None
    fld = _column(attribute, by_name)
    if fld is None:
        return None
    name, t = fld.name, fld.type
    if isinstance(f, sds.IsNull):
        return P.is_null(name)
    if isinstance(f, sds.IsNotNull):
        return P.is_not_null(name)
    if isinstance(f, (sds.StringStartsWith, sds.StringEndsWith, sds.StringContains)):
        if not t.is_family("CHARACTER_STRING") or not isinstance(f.value, str):
            return None
        if isinstance(f, sds.StringStartsWith):
            return P.starts_with(name, f.value)
        if isinstance(f, sds.StringEndsWith):
            return P.ends_with(name, f.value)
        return P.contains(name, f.value)
    if isinstance(f, sds.In):
        values = [_literal(t, v) for v in f.value]
        if not values or any(v is _NO for v in values):
            return None
        return P.is_in(name, values)
    if isinstance(f, sds.EqualNullSafe):
        if f.value is None:
            return P.is_null(name)
        v = _literal(t, f.value)
        return None if v is _NO else P.equal(name, v)
    builders = {
        sds.EqualTo: P.equal,
        sds.GreaterThan: P.greater_than,
        sds.GreaterThanOrEqual: P.greater_or_equal,
        sds.LessThan: P.less_than,
        sds.LessThanOrEqual: P.less_or_equal,
    }
    build = builders.get(type(f))
    if build is None:
        return None
    v = _literal(t, f.value)  # type: ignore[attr-defined]
    return None if v is _NO else build(name, v)


# ----------------------------------------------------------------------------------------------


class _Refused:
    """Marker: a Spark filter the engine does not evaluate (Spark keeps it)."""


_NO: Any = _Refused()


def _field_lookup(fields: Sequence[DataField]) -> dict[str, DataField]:
    out: dict[str, DataField] = {}
    lower: dict[str, list[DataField]] = {}
    for f in fields:
        out[f.name] = f
        lower.setdefault(f.name.lower(), []).append(f)
    # Spark resolves column names case-insensitively by default: accept an unambiguous other case
    for low, fs in lower.items():
        if len(fs) == 1 and low not in out:
            out[low] = fs[0]
    return out


def _column(attribute: Sequence[str], by_name: dict[str, DataField]) -> DataField | None:
    if len(attribute) != 1:
        return None  # a nested field (s.x): not pushed
    name = attribute[0]
    fld = by_name.get(name) or by_name.get(name.lower())
    if fld is None or not _pushable_type(fld.type):
        return None
    return fld


def _pushable_type(t: DataType) -> bool:
    return t.accept(_LITERALS) is not None


def _literal(t: DataType, v: Any) -> Any:
    """``v`` as the engine's literal for a column of type ``t``; ``_NO`` when its Python type does
    not fit (then the filter is left to Spark)."""
    if v is None:
        return None
    convert = t.accept(_LITERALS)
    return _NO if convert is None else convert(v)


def _boolean(v: Any) -> Any:
    return v if isinstance(v, bool) else _NO


def _integral(v: Any) -> Any:
    return v if isinstance(v, int) and not isinstance(v, bool) else _NO


def _decimal(v: Any) -> Any:
    if isinstance(v, Decimal) and v.is_finite():
        return v
    return Decimal(v) if isinstance(v, int) and not isinstance(v, bool) else _NO


def _string(v: Any) -> Any:
    return v if isinstance(v, str) else _NO


def _binary(v: Any) -> Any:
    return bytes(v) if isinstance(v, (bytes, bytearray)) else _NO


def _date(v: Any) -> Any:
    return v if isinstance(v, _dt.date) and not isinstance(v, _dt.datetime) else _NO


def _timestamp_ntz(v: Any) -> Any:
    # TIMESTAMP (without time zone) is Spark's TIMESTAMP_NTZ: a naive wall-clock value
    return v if isinstance(v, _dt.datetime) and v.tzinfo is None else _NO


def _timestamp_ltz(v: Any) -> Any:
    if not isinstance(v, _dt.datetime) or v.tzinfo is None:
        return _NO
    return v.astimezone(_dt.timezone.utc)


_Literal = Callable[[Any], Any]


class _PushableLiterals(pt.DefaultTypeVisitor["_Literal | None"]):
    """The literal conversion of a column type whose comparisons the engine evaluates as Spark
    does; None for the others (FLOAT / DOUBLE, TIME, timestamps finer than microseconds, nested
    and exotic types)."""

    def default(self, t: DataType) -> _Literal | None:
        return None

    def visit_boolean(self, t: pt.BooleanType) -> _Literal | None:
        return _boolean

    def visit_tinyint(self, t: pt.TinyIntType) -> _Literal | None:
        return _integral

    def visit_smallint(self, t: pt.SmallIntType) -> _Literal | None:
        return _integral

    def visit_int(self, t: pt.IntType) -> _Literal | None:
        return _integral

    def visit_bigint(self, t: pt.BigIntType) -> _Literal | None:
        return _integral

    def visit_decimal(self, t: pt.DecimalType) -> _Literal | None:
        return _decimal

    def visit_char(self, t: pt.CharType) -> _Literal | None:
        return _string

    def visit_varchar(self, t: pt.VarCharType) -> _Literal | None:
        return _string

    def visit_binary(self, t: pt.BinaryType) -> _Literal | None:
        return _binary

    def visit_varbinary(self, t: pt.VarBinaryType) -> _Literal | None:
        return _binary

    def visit_date(self, t: pt.DateType) -> _Literal | None:
        return _date

    def visit_timestamp(self, t: pt.TimestampType) -> _Literal | None:
        return _timestamp_ntz if t.precision <= 6 else None

    def visit_local_zoned_timestamp(self, t: pt.LocalZonedTimestampType) -> _Literal | None:
        return _timestamp_ltz if t.precision <= 6 else None


_LITERALS = _PushableLiterals()
