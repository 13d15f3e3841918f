"""Schemas and Arrow batches of the ``paimon_sql`` data source: Paimon types as Spark reads them,
and tables conformed to the exact Arrow schema Spark expects (shared by reading and writing)."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
from pyspark.sql import types as st
from pyspark.sql.pandas.types import to_arrow_schema

from paimon_sql import types as pt
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.spark.spark_types import DATA_SOURCE_TYPES

# ----------------------------------------------------------------------------------------------
# Types: Paimon → Spark
# ----------------------------------------------------------------------------------------------


def spark_type(t: pt.DataType) -> st.DataType:
    """The Spark SQL type a Paimon type is read as (nullability lives on the field): the one
    mapping of ``spark_types``, without CHAR/VARCHAR lengths, field comments or VARIANT."""
    return st._parse_datatype_json_value(t.accept(DATA_SOURCE_TYPES))


def spark_schema(fields: Sequence[pt.DataField]) -> st.StructType:
    """Spark schema of Paimon fields: same names, Spark types, Paimon's nullability."""
    out = []
    for f in fields:
        try:
            out.append(DATA_SOURCE_TYPES.field(f))
        except UnsupportedError as e:
            raise UnsupportedError(f"Column {f.name!r}: {e}") from None
    return st.StructType.fromJson({"type": "struct", "fields": out})


def spark_schema_of_arrow(schema: pa.Schema) -> st.StructType:
    """Spark schema of an Arrow schema (system tables), through the Paimon type of each column."""
    return spark_schema([pt.DataField(i, f.name, pt.from_arrow_type(f.type, f.nullable))
                         for i, f in enumerate(schema)])


def arrow_target(schema: st.StructType) -> pa.Schema:
    """The Arrow schema Spark checks every batch a reader yields against."""
    return to_arrow_schema(schema, timezone="UTC")


def conform_to(table: pa.Table, target: pa.Schema) -> pa.Table:
    """``table``'s columns (selected by name, in ``target``'s order) as exactly ``target``'s types
    and nullability: zero-copy where only nullability or field metadata differ."""
    arrays = []
    for f in target:
        col = table.column(f.name)
        if not col.type.equals(f.type):
            col = _cast(col, f.type)
        arrays.append(col)
    return pa.Table.from_arrays(arrays, schema=target)


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

