"""Partition folder names: ``k1=v1/k2=v2``, Hive-style escaped, with Paimon's default-name rules."""

from __future__ import annotations

import datetime as _dt
import decimal
from collections.abc import Sequence

from paimon_sql.types import DataType, DateType

# Characters Hive (and Paimon's PartitionPathUtils) percent-escape in partition path values.
_ESCAPE = set('"#%\'*/:=?\\\x7f{[]^') | {chr(c) for c in range(1, 32)}


def escape_path_name(s: str) -> str:
    return "".join(f"%{ord(c):02X}" if c in _ESCAPE else c for c in s)


def partition_value_string(
    value: object, dtype: DataType, default_name: str, legacy_name: bool
) -> str:
    if value is None:
        return default_name
    if isinstance(dtype, DateType) and isinstance(value, _dt.date):
        if legacy_name:
            return str((value - _dt.date(1970, 1, 1)).days)
        return value.isoformat()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    s = str(value)
    return default_name if s.strip() == "" else s


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
