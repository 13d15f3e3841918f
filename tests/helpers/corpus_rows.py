"""Canonical, JSON-friendly rows for comparing table reads with stored expectations.

`canonical_rows(table)` turns a `pyarrow.Table` into a list of plain dicts (column order kept inside
each dict), sorted by their JSON dump, with every value in one canonical form:

- booleans, integers and strings as themselves; None for null;
- floating point as Python float (a FLOAT column's values are the exact double widening of the
  float32, e.g. 3.1f -> 3.0999999046325684, so expectations store that widened value);
- binary as ``{"hex": "..."}``;
- DECIMAL as a plain decimal string with exactly the column's scale ("0.020", "-123.45000");
- DATE as "YYYY-MM-DD"; TIME as "HH:MM:SS.fffffffff";
- TIMESTAMP (no zone) as "YYYY-MM-DDTHH:MM:SS.fffffffff" (always nine fraction digits);
- TIMESTAMP WITH LOCAL TIME ZONE (an Arrow timestamp carrying a time zone) as the same in UTC with a
  trailing "Z";
- lists as lists, maps as lists of ``[key, value]`` pairs (in stored order), structs as dicts.

Temporal values are formatted from their integer encoding, so nanosecond timestamps and dates far
from 1970 work without pandas.
"""

from __future__ import annotations

import datetime
import decimal
import json
from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_DATE = datetime.date(1970, 1, 1)
_NANOS_PER_UNIT = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


def format_timestamp(value: int, unit: str = "ns", utc: bool = False) -> str:
    """Format an epoch offset in `unit` as ISO text with nine fraction digits ('Z' appended if utc)."""
    nanos = value * _NANOS_PER_UNIT[unit]
    seconds, fraction = divmod(nanos, 1_000_000_000)
    moment = _EPOCH + datetime.timedelta(seconds=seconds)
    text = (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T"
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}.{fraction:09d}"
    )
    return text + "Z" if utc else text


def format_date(days: int) -> str:
    """Format days since 1970-01-01 as YYYY-MM-DD."""
    day = _EPOCH_DATE + datetime.timedelta(days=days)
    return f"{day.year:04d}-{day.month:02d}-{day.day:02d}"


def format_time(value: int, unit: str) -> str:
    """Format a time of day given in `unit` since midnight as HH:MM:SS.fffffffff."""
    nanos = value * _NANOS_PER_UNIT[unit]
    seconds, fraction = divmod(nanos, 1_000_000_000)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    return f"{hour:02d}:{minute:02d}:{second:02d}.{fraction:09d}"


def format_decimal(value: decimal.Decimal, scale: int) -> str:
    """Plain (never exponent) decimal text with exactly `scale` fraction digits; no negative zero."""
    quantized = value.quantize(decimal.Decimal(1).scaleb(-scale)) if scale > 0 else value.quantize(1)
    if quantized.is_zero():
        quantized = abs(quantized)
    return f"{quantized:f}"


def _null_mask(array: pa.Array) -> list[bool]:
    if array.null_count == 0:
        return [False] * len(array)
    mask: list[bool] = pc.is_null(array).to_pylist()
    return mask


def canonical_array(array: pa.Array | pa.ChunkedArray) -> list[Any]:
    """Canonical Python values of every element of `array` (see the module docstring)."""
    if isinstance(array, pa.ChunkedArray):
        out: list[Any] = []
        for chunk in array.chunks:
            out.extend(canonical_array(chunk))
        return out
    kind = array.type
    if pa.types.is_dictionary(kind):
        return canonical_array(array.dictionary_decode())
    if pa.types.is_null(kind):
        return [None] * len(array)
    if isinstance(kind, pa.ExtensionType):
        return canonical_array(array.storage)
    nulls = _null_mask(array)
    if pa.types.is_timestamp(kind):
        raw = array.cast(pa.int64()).to_pylist()
        utc = kind.tz is not None
        return [None if v is None else format_timestamp(v, kind.unit, utc) for v in raw]
    if pa.types.is_date32(kind):
        return [None if v is None else format_date(v) for v in array.cast(pa.int32()).to_pylist()]
    if pa.types.is_date64(kind):
        return [
            None if v is None else format_date(v // 86_400_000) for v in array.cast(pa.int64()).to_pylist()
        ]
    if pa.types.is_time(kind):
        raw_times = array.cast(pa.int64() if pa.types.is_time64(kind) else pa.int32()).to_pylist()
        return [None if v is None else format_time(v, kind.unit) for v in raw_times]
    if pa.types.is_decimal(kind):
        scale = kind.scale
        return [None if v is None else format_decimal(v, scale) for v in array.to_pylist()]
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_fixed_size_binary(kind):
        return [None if v is None else {"hex": v.hex()} for v in array.to_pylist()]
    if pa.types.is_binary_view(kind):
        return [None if v is None else {"hex": v.hex()} for v in array.to_pylist()]
    if pa.types.is_floating(kind):
        return [None if v is None else float(v) for v in array.to_pylist()]
    if pa.types.is_map(kind):
        assert isinstance(array, pa.MapArray)
        offsets = array.offsets.to_pylist()
        keys = canonical_array(array.keys)
        items = canonical_array(array.items)
        return [
            None if nulls[i] else [[keys[j], items[j]] for j in range(offsets[i], offsets[i + 1])]
            for i in range(len(array))
        ]
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        offsets = array.offsets.to_pylist()
        values = canonical_array(array.values)
        return [None if nulls[i] else values[offsets[i] : offsets[i + 1]] for i in range(len(array))]
    if pa.types.is_fixed_size_list(kind):
        size = kind.list_size
        flat = canonical_array(array.flatten())
        return [None if nulls[i] else flat[i * size : (i + 1) * size] for i in range(len(array))]
    if pa.types.is_list_view(kind) or pa.types.is_large_list_view(kind):
        return canonical_array(array.cast(pa.large_list(kind.value_type)))
    if pa.types.is_struct(kind):
        names = [kind.field(i).name for i in range(kind.num_fields)]
        children = [canonical_array(child) for child in array.flatten()]
        return [
            None if nulls[i] else {name: child[i] for name, child in zip(names, children, strict=True)}
            for i in range(len(array))
        ]
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return array.to_pylist()
    if pa.types.is_boolean(kind) or pa.types.is_integer(kind):
        return array.to_pylist()
    raise TypeError(f"no canonical form for Arrow type {kind}")


def row_sort_key(row: dict[str, Any]) -> str:
    """The key rows are sorted by: their JSON dump with sorted keys."""
    return json.dumps(row, sort_keys=True)


def sort_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=row_sort_key)


def canonical_rows(table: pa.Table | pa.RecordBatch) -> list[dict[str, Any]]:
    """Every row of `table` as a canonical dict (column order kept), sorted by `row_sort_key`."""
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    names = table.column_names
    columns = [canonical_array(table.column(i)) for i in range(table.num_columns)]
    rows = [
        {name: column[r] for name, column in zip(names, columns, strict=True)} for r in range(table.num_rows)
    ]
    return sort_rows(rows)


def rows_diff(actual: Sequence[dict[str, Any]], expected: Sequence[dict[str, Any]], limit: int = 10) -> str:
    """Human-readable difference of two sorted canonical row lists ('' when equal)."""
    actual_keys = [row_sort_key(r) for r in actual]
    expected_keys = [row_sort_key(r) for r in expected]
    if actual_keys == expected_keys:
        return ""
    missing = [k for k in expected_keys if k not in set(actual_keys)]
    unexpected = [k for k in actual_keys if k not in set(expected_keys)]
    lines = [f"got {len(actual)} rows, expected {len(expected)}"]
    lines += [f"  missing:    {k}" for k in missing[:limit]]
    lines += [f"  unexpected: {k}" for k in unexpected[:limit]]
    if not missing and not unexpected:
        lines.append("  same distinct rows, different multiplicities")
    return "\n".join(lines)
