"""Partition folder names: ``k1=v1/k2=v2``, Hive-style escaped, with Paimon's default-name rules."""

from __future__ import annotations

import datetime as _dt
import decimal
from collections.abc import Sequence

import numpy as np

from paimon_sql import types as pt
from paimon_sql.casting import java_double_string
from paimon_sql.types import DataType, DefaultTypeVisitor

# Characters Hive (and Paimon's PartitionPathUtils) percent-escape in partition path values.
_ESCAPE = set('"#%\'*/:=?\\\x7f{[]^') | {chr(c) for c in range(1, 32)}


def escape_path_name(s: str) -> str:
    return "".join(f"%{ord(c):02X}" if c in _ESCAPE else c for c in s)


def partition_value_string(
    value: object, dtype: DataType, default_name: str, legacy_name: bool
) -> str:
    if value is None:
        return default_name
    return dtype.accept(_PartitionValueText(value, default_name, legacy_name))


class _PartitionValueText(DefaultTypeVisitor[str]):
    """A partition value's folder text as Paimon writes it: by the value's Python type, but for a
    DATE (days since the epoch in legacy names) and a FLOAT (Java's ``Float.toString``)."""

    def __init__(self, value: object, default_name: str, legacy_name: bool) -> None:
        self.value = value
        self.default_name = default_name
        self.legacy_name = legacy_name

    def visit_date(self, t: pt.DateType) -> str:
        value = self.value
        if isinstance(value, _dt.date):
            if self.legacy_name:
                return str((value - _dt.date(1970, 1, 1)).days)
            return value.isoformat()
        return self.default(t)

    def visit_float(self, t: pt.FloatType) -> str:
        if isinstance(self.value, float):
            return java_double_string(self.value, True)
        return self.default(t)

    def default(self, t: DataType) -> str:
        value = self.value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, _dt.datetime):
            if value.tzinfo is not None:
                value = value.astimezone(_dt.timezone.utc).replace(tzinfo=None)
            return java_local_date_time(value) if self.legacy_name else _sql_timestamp(value)
        if isinstance(value, _dt.time):
            return str((value.hour * 3600 + value.minute * 60 + value.second) * 1000 + value.microsecond // 1000)
        if isinstance(value, decimal.Decimal):
            return format(value, "f")
        if isinstance(value, bytes):
            return value.decode("utf-8", errors="replace")
        if isinstance(value, float):
            return java_double_string(value, False)
        s = str(value)
        return self.default_name if s.strip() == "" else s


def normalize_value_string(text: str, dtype: DataType) -> str:
    """A partition value given as text (an overwrite spec) in the form ``partition_value_string``
    gives the stored value: FLOAT/DOUBLE and DECIMAL values compare by value (``12.30`` and
    ``12.3`` are one DECIMAL(4,2) / FLOAT value), other types by their text."""
    try:
        return dtype.accept(_NormalizedText(text))
    except (ValueError, ArithmeticError):
        return text


class _NormalizedText(DefaultTypeVisitor[str]):
    def __init__(self, text: str) -> None:
        self.text = text

    def default(self, t: DataType) -> str:
        return self.text

    def visit_float(self, t: pt.FloatType) -> str:
        return java_double_string(float(np.float32(float(self.text))), True)

    def visit_double(self, t: pt.DoubleType) -> str:
        return java_double_string(float(self.text), False)

    def visit_decimal(self, t: pt.DecimalType) -> str:
        return format(decimal.Decimal(self.text).quantize(decimal.Decimal(1).scaleb(-t.scale)), "f")


def java_local_date_time(v: _dt.datetime) -> str:
    """``LocalDateTime.toString()``: seconds only when not zero, fractions in groups of 3 digits."""
    out = f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}"
    if v.second or v.microsecond:
        out += f":{v.second:02d}"
        if v.microsecond:
            out += f".{v.microsecond // 1000:03d}" if v.microsecond % 1000 == 0 else f".{v.microsecond:06d}"
    return out


def _sql_timestamp(v: _dt.datetime) -> str:
    out = v.strftime("%Y-%m-%d %H:%M:%S")
    if v.microsecond:
        out += f".{v.microsecond:06d}".rstrip("0")
    return out


def partition_path(
    names: Sequence[str],
    values: Sequence[object],
    types: Sequence[DataType],
    default_name: str = "__DEFAULT_PARTITION__",
    legacy_name: bool = True,
) -> str:
    parts = []
    for n, v, t in zip(names, values, types):
        parts.append(f"{escape_path_name(n)}={escape_path_name(partition_value_string(v, t, default_name, legacy_name))}")
    return "/".join(parts)
