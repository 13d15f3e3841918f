"""Spark SQL types (their JSON form, as ``StructType.json()`` writes it) <-> Paimon types and Arrow.

The JVM shim hands ``CREATE TABLE`` / ``ALTER TABLE`` schemas over as Spark's type JSON and expects
the same back from ``load_table``. No pyspark import here: the bridge process stays light.

Mapping (as Apache Paimon's Spark integration maps types):

=====================================  ===========================================
Paimon                                 Spark
=====================================  ===========================================
BOOLEAN TINYINT SMALLINT INT BIGINT    boolean byte short integer long
FLOAT DOUBLE DECIMAL(p, s)             float double decimal(p,s)
CHAR(n) VARCHAR(n) STRING              string (Spark's char/varchar become Paimon CHAR/VARCHAR)
BINARY(n) VARBINARY(n) BYTES BLOB      binary
DATE / TIME(p)                         date / time(p) (p <= 6)
TIMESTAMP(p)                           timestamp_ntz
TIMESTAMP(p) WITH LOCAL TIME ZONE      timestamp
ARRAY / VECTOR, MAP, MULTISET, ROW     array, map, map<element, integer>, struct
VARIANT                                variant
=====================================  ===========================================
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union

import pyarrow as pa

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.types import (
    ARROW_COMMENT_KEY,
    ARROW_TYPE_KEY,
    MAX_LENGTH,
    ArrayType,
    BigIntType,
    BinaryType,
    BlobType,
    BooleanType,
    CharType,
    DataField,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntType,
    LocalZonedTimestampType,
    MapType,
    MultisetType,
    RowType,
    SmallIntType,
    TimestampType,
    TimeType,
    TinyIntType,
    VarBinaryType,
    VarCharType,
    VariantType,
    VectorType,
    from_arrow_type,
)

SparkType = Union[str, dict[str, Any]]  # noqa: UP007
"""A Spark type in JSON form: ``"long"``, ``"decimal(10,2)"``, ``{"type": "array", ...}``."""

CHAR_VARCHAR_METADATA = "__CHAR_VARCHAR_TYPE_STRING"
"""Field metadata Spark uses to remember a CHAR/VARCHAR column it stores as STRING."""

_SIMPLE_TO_PAIMON: dict[str, type[DataType]] = {
    "boolean": BooleanType,
    "byte": TinyIntType,
    "short": SmallIntType,
    "integer": IntType,
    "long": BigIntType,
    "float": FloatType,
    "double": DoubleType,
    "date": DateType,
}
_DECIMAL_RE = re.compile(r"^decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)$")
_CHAR_RE = re.compile(r"^(char|varchar)\(\s*(\d+)\s*\)$")
_TIME_RE = re.compile(r"^time\(\s*(\d+)\s*\)$")


# ----------------------------------------------------------------------------------------------
# Paimon -> Spark
# ----------------------------------------------------------------------------------------------


def spark_type(t: DataType) -> SparkType:
    """The Spark type (JSON form) of a Paimon type."""
    if isinstance(t, BooleanType):
        return "boolean"
    if isinstance(t, TinyIntType):
        return "byte"
    if isinstance(t, SmallIntType):
        return "short"
    if isinstance(t, IntType):
        return "integer"
    if isinstance(t, BigIntType):
        return "long"
    if isinstance(t, FloatType):
        return "float"
    if isinstance(t, DoubleType):
        return "double"
    if isinstance(t, DecimalType):
        return f"decimal({t.precision},{t.scale})"
    if isinstance(t, (CharType, VarCharType)):
        return "string"
    if isinstance(t, (BinaryType, VarBinaryType, BlobType)):
        return "binary"
    if isinstance(t, DateType):
        return "date"
    if isinstance(t, TimeType):
        return f"time({min(t.precision, 6)})"
    if isinstance(t, TimestampType):
        return "timestamp_ntz"
    if isinstance(t, LocalZonedTimestampType):
        return "timestamp"
    if isinstance(t, VariantType):
        return "variant"
    if isinstance(t, (ArrayType, VectorType)):
        return {"type": "array", "elementType": spark_type(t.element), "containsNull": t.element.nullable}
    if isinstance(t, MapType):
        return {
            "type": "map",
            "keyType": spark_type(t.key),
            "valueType": spark_type(t.value),
            "valueContainsNull": t.value.nullable,
        }
    if isinstance(t, MultisetType):
        return {"type": "map", "keyType": spark_type(t.element), "valueType": "integer", "valueContainsNull": False}
    if isinstance(t, RowType):
        return spark_struct(t.fields)
    raise UnsupportedError(f"Paimon type {t.to_string()} has no Spark SQL type")


def spark_field(f: DataField) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    if f.description:
        metadata["comment"] = f.description
    stype: SparkType = spark_type(f.type)
    if isinstance(f.type, (CharType, VarCharType)) and not (
        isinstance(f.type, VarCharType) and f.type.length == MAX_LENGTH
    ):
        # Spark's own CHAR(n)/VARCHAR(n): DESCRIBE shows it, INSERT pads / checks the length
        stype = f"{'char' if isinstance(f.type, CharType) else 'varchar'}({f.type.length})"
    return {"name": f.name, "type": stype, "nullable": f.type.nullable, "metadata": metadata}


def spark_struct(fields: Iterable[DataField]) -> dict[str, Any]:
    return {"type": "struct", "fields": [spark_field(f) for f in fields]}


def spark_schema_json(fields: Iterable[DataField]) -> str:
    """``StructType.json()`` of a table's columns."""
    return json.dumps(spark_struct(fields), separators=(",", ":"))


def spark_schema_json_from_arrow(schema: pa.Schema) -> str:
    """``StructType.json()`` for an Arrow schema (system tables)."""
    fields = [DataField(i, f.name, from_arrow_type(f.type, f.nullable)) for i, f in enumerate(schema)]
    return spark_schema_json(fields)


# ----------------------------------------------------------------------------------------------
# Spark -> Arrow (new tables and columns are created from Arrow types by the engine)
# ----------------------------------------------------------------------------------------------


def parse_spark_type(obj: SparkType | str) -> SparkType:
    """A Spark type from its JSON text (``'"long"'``) or its already decoded form."""
    if isinstance(obj, str) and obj[:1] in ('"', "{"):
        decoded: SparkType = json.loads(obj)
        return decoded
    return obj


def arrow_type(t: SparkType, what: str = "column") -> pa.DataType:
    """The Arrow type of a Spark type (JSON form); ``what`` names the column in errors."""
    if isinstance(t, str):
        name = t.strip().lower()
        if name in ("string", "char", "varchar") or _CHAR_RE.match(name) or name.startswith("string collate"):
            return pa.string()
        if name == "binary":
            return pa.binary()
        simple = {
            "boolean": pa.bool_(),
            "byte": pa.int8(),
            "short": pa.int16(),
            "integer": pa.int32(),
            "long": pa.int64(),
            "float": pa.float32(),
            "double": pa.float64(),
            "date": pa.date32(),
            "timestamp": pa.timestamp("us", tz="UTC"),
            "timestamp_ntz": pa.timestamp("us"),
        }
        if name in simple:
            return simple[name]
        m = _DECIMAL_RE.match(name)
        if m:
            return pa.decimal128(int(m.group(1)), int(m.group(2)))
        if name == "decimal":
            return pa.decimal128(10, 0)
        m = _TIME_RE.match(name)
        if m:
            p = int(m.group(1))
            return pa.time32("s") if p == 0 else pa.time32("ms") if p <= 3 else pa.time64("us")
        raise UnsupportedError(f"Spark type {t!r} of {what} has no Paimon type")
    kind = t.get("type")
    if kind == "array":
        return pa.list_(pa.field("element", arrow_type(t["elementType"], what), bool(t.get("containsNull", True))))
    if kind == "map":
        return pa.map_(
            pa.field("key", arrow_type(t["keyType"], what), False),
            pa.field("value", arrow_type(t["valueType"], what), bool(t.get("valueContainsNull", True))),
        )
    if kind == "struct":
        return pa.struct(arrow_fields(t, what))
    if kind == "udt":
        return arrow_type(t["sqlType"], what)
    raise UnsupportedError(f"Spark type {json.dumps(t)} of {what} has no Paimon type")


def arrow_field(f: Mapping[str, Any], what: str = "column") -> pa.Field:
    name = f.get("name")
    if not isinstance(name, str) or not name:
        raise ValidationError(f"Invalid Spark field {f!r} in {what}: no name")
    meta = f.get("metadata") or {}
    ftype = f["type"]
    extra: dict[bytes, bytes] = {}
    if isinstance(meta, Mapping):
        if isinstance(meta.get(CHAR_VARCHAR_METADATA), str):
            ftype = meta[CHAR_VARCHAR_METADATA]
        if isinstance(meta.get("comment"), str):
            extra[ARROW_COMMENT_KEY] = meta["comment"].encode()
    if isinstance(ftype, str) and _CHAR_RE.match(ftype.strip().lower()):
        # CHAR(n) / VARCHAR(n): the Arrow type is a string, the length lives in Paimon's type
        extra[ARROW_TYPE_KEY] = ftype.strip().upper().encode()
    return pa.field(
        name, arrow_type(ftype, f"{what} {name!r}"), bool(f.get("nullable", True)), metadata=extra or None
    )


def arrow_fields(struct: Mapping[str, Any], what: str = "schema") -> list[pa.Field]:
    if struct.get("type") != "struct":
        raise ValidationError(f"Expected a Spark struct type for {what}, got {json.dumps(struct)}")
    return [arrow_field(f, what) for f in struct.get("fields", [])]


def arrow_schema(schema_json: str | Mapping[str, Any], what: str = "schema") -> pa.Schema:
    """The Arrow schema of a Spark ``StructType`` (JSON text or decoded)."""
    struct = json.loads(schema_json) if isinstance(schema_json, str) else schema_json
    return pa.schema(arrow_fields(struct, what))


# ----------------------------------------------------------------------------------------------
# Spark SQL (DDL) type names, for procedure parameters and outputs
# ----------------------------------------------------------------------------------------------

_DDL_NAMES = {
    "boolean": "BOOLEAN",
    "byte": "TINYINT",
    "short": "SMALLINT",
    "integer": "INT",
    "long": "BIGINT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "string": "STRING",
    "binary": "BINARY",
    "date": "DATE",
    "timestamp": "TIMESTAMP",
    "timestamp_ntz": "TIMESTAMP_NTZ",
}


def ddl_type(t: SparkType) -> str:
    """A Spark type (JSON form) as Spark SQL DDL text (``BIGINT``, ``ARRAY<STRING>``)."""
    if isinstance(t, str):
        if t in _DDL_NAMES:
            return _DDL_NAMES[t]
        return t.upper()
    kind = t.get("type")
    if kind == "array":
        return f"ARRAY<{ddl_type(t['elementType'])}>"
    if kind == "map":
        return f"MAP<{ddl_type(t['keyType'])}, {ddl_type(t['valueType'])}>"
    if kind == "struct":
        inner = ", ".join(f"{quote_ident(f['name'])}: {ddl_type(f['type'])}" for f in t["fields"])
        return f"STRUCT<{inner}>"
    raise UnsupportedError(f"Spark type {json.dumps(t)} has no DDL form")


def quote_ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def ddl_columns(columns: Sequence[tuple[str, str]]) -> str:
    """``name TYPE, ...`` for ``StructType.fromDDL`` (types already in Spark SQL syntax)."""
    return ", ".join(f"{quote_ident(n)} {t}" for n, t in columns)
