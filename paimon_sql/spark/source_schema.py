"""Schemas and Arrow batches of the ``paimon_sql`` data source: Paimon types as Spark reads them,
and tables conformed to the exact Arrow schema Spark expects (shared by reading and writing)."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
from pyspark.sql import types as st
from pyspark.sql.pandas.types import to_arrow_schema

from paimon_sql import types as pt
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.spark.spark_types import data_source_types

# ----------------------------------------------------------------------------------------------
# Types: Paimon → Spark
# ----------------------------------------------------------------------------------------------


def spark_type(t: pt.DataType, legacy_timestamp: bool = False) -> st.DataType:
    """The Spark SQL type a Paimon type is read as (nullability lives on the field): the one
    mapping of ``spark_types``, without CHAR/VARCHAR lengths, field comments or VARIANT."""
    return st._parse_datatype_json_value(t.accept(data_source_types(legacy_timestamp)))


def spark_schema(fields: Sequence[pt.DataField], legacy_timestamp: bool = False) -> st.StructType:
    """Spark schema of Paimon fields: same names, Spark types, Paimon's nullability
    (``legacy_timestamp``: Paimon's ``legacy-timestamp-mapping.enabled``)."""
    types = data_source_types(legacy_timestamp)
    out = []
    for f in fields:
        try:
            out.append(types.field(f))
        except UnsupportedError as e:
            raise UnsupportedError(f"Column {f.name!r}: {e}") from None
    return st.StructType.fromJson({"type": "struct", "fields": out})


def spark_schema_of_arrow(schema: pa.Schema, legacy_timestamp: bool = False) -> st.StructType:
    """Spark schema of an Arrow schema (system tables), through the Paimon type of each column."""
    return spark_schema([pt.DataField(i, f.name, pt.from_arrow_type(f.type, f.nullable))
                         for i, f in enumerate(schema)], legacy_timestamp)


def arrow_target(schema: st.StructType) -> pa.Schema:
    """The Arrow schema Spark checks every batch a reader yields against."""
    return to_arrow_schema(schema, timezone="UTC")


def conform_to(table: pa.Table, target: pa.Schema, zone: str | None = None) -> pa.Table:
    """``table``'s columns (selected by name, in ``target``'s order) as exactly ``target``'s types
    and nullability: zero-copy where only nullability or field metadata differ.

    A Paimon TIMESTAMP column (naive wall clock) read as Spark TIMESTAMP (only with Paimon's
    ``legacy-timestamp-mapping.enabled``) is that wall clock in ``zone`` (the JVM's default zone,
    UTC when not given), as Paimon's ``Timestamp.toSQLTimestamp`` makes it."""
    arrays = []
    for f in target:
        col = table.column(f.name)
        if not col.type.equals(f.type):
            if _naive_to_aware(col.type, f.type):
                col = wall_clock_to_instant(col, zone or "UTC", f.name)
            col = _cast(col, f.type)
        arrays.append(col)
    return pa.Table.from_arrays(arrays, schema=target)


def _naive_to_aware(source: pa.DataType, target: pa.DataType) -> bool:
    return bool(pa.types.is_timestamp(source) and pa.types.is_timestamp(target)
                and source.tz is None and target.tz is not None)


def _has_naive_to_aware(source: pa.DataType, target: pa.DataType) -> bool:
    if _naive_to_aware(source, target):
        return True
    if pa.types.is_struct(source) and pa.types.is_struct(target):
        return any(_has_naive_to_aware(source.field(i).type, target.field(i).type)
                   for i in range(min(source.num_fields, target.num_fields)))
    if pa.types.is_map(source) and pa.types.is_map(target):
        return (_has_naive_to_aware(source.key_type, target.key_type)
                or _has_naive_to_aware(source.item_type, target.item_type))
    if (pa.types.is_list(source) or pa.types.is_large_list(source)) and (
            pa.types.is_list(target) or pa.types.is_large_list(target)):
        return _has_naive_to_aware(source.value_type, target.value_type)
    return False


def wall_clock_to_instant(col: pa.ChunkedArray, zone: str, column: str) -> pa.ChunkedArray:
    """Naive wall-clock timestamps as the instants they are in ``zone``: the wall clock minus the
    zone's offset (a wall clock in a gap takes the offset before the gap, moving it later by the
    gap, as ``java.sql.Timestamp.valueOf``; an overlap's the earlier instant)."""
    _refuse_nested(col.type, column, zone)
    if not pa.types.is_timestamp(col.type) or zone == "UTC":
        return col
    import pyarrow.compute as pc

    unit = col.type.unit
    earliest = pc.assume_timezone(col, timezone=zone, ambiguous="earliest", nonexistent="earliest")
    wall = col.cast(pa.int64())
    offset = pc.subtract(pc.local_timestamp(earliest).cast(pa.int64()), earliest.cast(pa.int64()))
    return pc.subtract(wall, offset).cast(pa.timestamp(unit, tz=zone))


def instant_to_wall_clock(col: pa.ChunkedArray, zone: str, column: str) -> pa.ChunkedArray:
    """Instants (Spark TIMESTAMP) as their naive wall clock in ``zone`` (Paimon's
    ``Timestamp.fromSQLTimestamp`` with the JVM's default zone)."""
    _refuse_nested(col.type, column, zone)
    if not pa.types.is_timestamp(col.type):
        return col
    import pyarrow.compute as pc

    return pc.local_timestamp(col.cast(pa.timestamp(col.type.unit, tz=zone)))


def _refuse_nested(t: pa.DataType, column: str, zone: str) -> None:
    if pa.types.is_timestamp(t) or zone == "UTC":
        return
    if _contains_timestamp(t):
        raise UnsupportedError(
            f"Column {column!r}: Paimon TIMESTAMP values inside ARRAY / MAP / ROW cannot be read or written "
            f"as Spark TIMESTAMP (legacy-timestamp-mapping.enabled) with the JVM's time zone {zone} yet; "
            "only top-level columns are converted"
        )


def _contains_timestamp(t: pa.DataType) -> bool:
    if pa.types.is_timestamp(t):
        return True
    if pa.types.is_struct(t):
        return any(_contains_timestamp(t.field(i).type) for i in range(t.num_fields))
    if pa.types.is_map(t):
        return _contains_timestamp(t.key_type) or _contains_timestamp(t.item_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _contains_timestamp(t.value_type)
    return False


def _cast(col: pa.ChunkedArray, target: pa.DataType) -> pa.ChunkedArray:
    # units of timestamps (ms/ns → Spark's µs) and times change: truncate like Paimon's Spark reader
    try:
        return col.cast(target, safe=False)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise UnsupportedError(f"Cannot convert a column of Arrow type {col.type} to {target}: {e}") from e


# ----------------------------------------------------------------------------------------------
# Columns by name
# ----------------------------------------------------------------------------------------------


def _field_by_name(fields: Sequence[pt.DataField], name: str, where: str) -> pt.DataField:
    for f in fields:
        if f.name == name:
            return f
    matches = [f for f in fields if f.name.lower() == name.lower()]
    if len(matches) == 1:
        return matches[0]
    raise ValidationError(f"Column {name!r} does not exist in {where}; columns are {[f.name for f in fields]}")

