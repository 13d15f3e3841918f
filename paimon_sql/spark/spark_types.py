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
TIMESTAMP(p)                           timestamp_ntz (timestamp with legacy-timestamp-mapping.enabled)
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

from paimon_sql import types as pt
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.types import (
    ARROW_COMMENT_KEY,
    ARROW_TYPE_KEY,
    MAX_LENGTH,
    DataField,
    DataType,
    from_arrow_type,
)

SparkType = Union[str, dict[str, Any]]  # noqa: UP007
"""A Spark type in JSON form: ``"long"``, ``"decimal(10,2)"``, ``{"type": "array", ...}``."""

CHAR_VARCHAR_METADATA = "__CHAR_VARCHAR_TYPE_STRING"
"""Field metadata Spark uses to remember a CHAR/VARCHAR column it stores as STRING."""

_DECIMAL_RE = re.compile(r"^decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)$")
_CHAR_RE = re.compile(r"^(char|varchar)\(\s*(\d+)\s*\)$")
_TIME_RE = re.compile(r"^time\(\s*(\d+)\s*\)$")


# ----------------------------------------------------------------------------------------------
# Paimon -> Spark
# ----------------------------------------------------------------------------------------------


class SparkTypeJson(pt.TypeVisitor[SparkType]):
    """The Spark type (JSON form) of a Paimon type: the one Paimon -> Spark mapping.

    ``variant=False`` refuses VARIANT (Spark's Python data source moves values as Arrow, which has
    no VARIANT); ``char_varchar=False`` maps the CHAR(n) / VARCHAR(n) of ROW fields and columns to
    ``string`` instead of Spark's own ``char(n)`` / ``varchar(n)``; ``comments=False`` leaves field
    descriptions out of the field metadata; ``legacy_timestamp=True`` maps TIMESTAMP to Spark's
    ``timestamp`` (Paimon's ``legacy-timestamp-mapping.enabled``) instead of ``timestamp_ntz``."""

    def __init__(
        self, *, variant: bool = True, char_varchar: bool = True, comments: bool = True,
        legacy_timestamp: bool = False,
    ) -> None:
        self.variant = variant
        self.char_varchar = char_varchar
        self.comments = comments
        self.legacy_timestamp = legacy_timestamp

    def visit_boolean(self, t: pt.BooleanType) -> SparkType:
        return "boolean"

    def visit_tinyint(self, t: pt.TinyIntType) -> SparkType:
        return "byte"

    def visit_smallint(self, t: pt.SmallIntType) -> SparkType:
        return "short"

    def visit_int(self, t: pt.IntType) -> SparkType:
        return "integer"

    def visit_bigint(self, t: pt.BigIntType) -> SparkType:
        return "long"

    def visit_float(self, t: pt.FloatType) -> SparkType:
        return "float"

    def visit_double(self, t: pt.DoubleType) -> SparkType:
        return "double"

    def visit_decimal(self, t: pt.DecimalType) -> SparkType:
        return f"decimal({t.precision},{t.scale})"

    def visit_char(self, t: pt.CharType) -> SparkType:
        return "string"

    def visit_varchar(self, t: pt.VarCharType) -> SparkType:
        return "string"

    def visit_binary(self, t: pt.BinaryType) -> SparkType:
        return "binary"

    def visit_varbinary(self, t: pt.VarBinaryType) -> SparkType:
        return "binary"

    def visit_blob(self, t: pt.BlobType) -> SparkType:
        return "binary"

    def visit_date(self, t: pt.DateType) -> SparkType:
        return "date"

    def visit_time(self, t: pt.TimeType) -> SparkType:
        return f"time({min(t.precision, 6)})"

    def visit_timestamp(self, t: pt.TimestampType) -> SparkType:
        return "timestamp" if self.legacy_timestamp else "timestamp_ntz"

    def visit_local_zoned_timestamp(self, t: pt.LocalZonedTimestampType) -> SparkType:
        return "timestamp"

    def visit_variant(self, t: pt.VariantType) -> SparkType:
        if not self.variant:
            raise UnsupportedError(
                f"Paimon type {t.to_string()} cannot be read by Spark through paimon_sql's Python data "
                f"source yet (Arrow has no VARIANT)"
            )
        return "variant"

    def visit_array(self, t: pt.ArrayType) -> SparkType:
        return {"type": "array", "elementType": t.element.accept(self), "containsNull": t.element.nullable}

    def visit_vector(self, t: pt.VectorType) -> SparkType:
        return {"type": "array", "elementType": t.element.accept(self), "containsNull": t.element.nullable}

    def visit_map(self, t: pt.MapType) -> SparkType:
        return {
            "type": "map",
            "keyType": t.key.accept(self),
            "valueType": t.value.accept(self),
            "valueContainsNull": t.value.nullable,
        }

    def visit_multiset(self, t: pt.MultisetType) -> SparkType:
        return {"type": "map", "keyType": t.element.accept(self), "valueType": "integer", "valueContainsNull": False}

    def visit_row(self, t: pt.RowType) -> SparkType:
        return self.struct(t.fields)

    def field(self, f: DataField) -> dict[str, Any]:
        """A ``StructField`` (JSON form) of a Paimon field."""
        metadata: dict[str, Any] = {}
        if f.description and self.comments:
            metadata["comment"] = f.description
        t = f.type
        stype = (t.accept(_SPARK_CHAR_VARCHAR) if self.char_varchar else None) or t.accept(self)
        return {"name": f.name, "type": stype, "nullable": t.nullable, "metadata": metadata}

    def struct(self, fields: Iterable[DataField]) -> dict[str, Any]:
        return {"type": "struct", "fields": [self.field(f) for f in fields]}


class _SparkCharVarchar(pt.DefaultTypeVisitor["str | None"]):
    """Spark's own ``char(n)`` / ``varchar(n)`` for a field of Paimon CHAR(n) / VARCHAR(n) (not
    STRING): DESCRIBE shows it, INSERT pads / checks the length. None for every other type."""

    def default(self, t: DataType) -> str | None:
        return None

    def visit_char(self, t: pt.CharType) -> str | None:
        return f"char({t.length})"

    def visit_varchar(self, t: pt.VarCharType) -> str | None:
        return None if t.length == MAX_LENGTH else f"varchar({t.length})"


_SPARK_CHAR_VARCHAR = _SparkCharVarchar()
_CATALOG_TYPES = SparkTypeJson()
"""Spark types as the catalog (JVM shim) shows tables: CHAR/VARCHAR, comments, VARIANT."""
_CATALOG_TYPES_LEGACY = SparkTypeJson(legacy_timestamp=True)
DATA_SOURCE_TYPES = SparkTypeJson(variant=False, char_varchar=False, comments=False)
"""Spark types the Python data source reads and writes as (plain ``string``, no metadata, no VARIANT)."""
DATA_SOURCE_TYPES_LEGACY = SparkTypeJson(variant=False, char_varchar=False, comments=False, legacy_timestamp=True)
"""``DATA_SOURCE_TYPES`` with Paimon's ``legacy-timestamp-mapping.enabled`` (TIMESTAMP as ``timestamp``)."""

LEGACY_TIMESTAMP_MAPPING = "legacy-timestamp-mapping.enabled"
"""Paimon's Spark connector option (session ``spark.paimon.legacy-timestamp-mapping.enabled``):
Paimon TIMESTAMP is Spark TIMESTAMP (values: the wall clock of the JVM's default zone) instead of
TIMESTAMP_NTZ, and Spark TIMESTAMP columns of new tables are Paimon TIMESTAMP, not WITH LOCAL TIME ZONE."""


def legacy_timestamp_mapping(value: object, what: str = LEGACY_TIMESTAMP_MAPPING) -> bool:
    """The option's value (None: the default, false); anything but true / false is refused."""
    if value is None or isinstance(value, bool):
        return bool(value)
    text = str(value).strip().lower()
    if text not in ("true", "false"):
        raise ValidationError(f"Option {what!r} must be true or false, got {value!r}")
    return text == "true"


def data_source_types(legacy_timestamp: bool = False) -> SparkTypeJson:
    return DATA_SOURCE_TYPES_LEGACY if legacy_timestamp else DATA_SOURCE_TYPES


def spark_type(t: DataType, legacy_timestamp: bool = False) -> SparkType:
    """The Spark type (JSON form) of a Paimon type."""
    return t.accept(_CATALOG_TYPES_LEGACY if legacy_timestamp else _CATALOG_TYPES)


def spark_struct(fields: Iterable[DataField], legacy_timestamp: bool = False) -> dict[str, Any]:
    return (_CATALOG_TYPES_LEGACY if legacy_timestamp else _CATALOG_TYPES).struct(fields)


def spark_schema_json(fields: Iterable[DataField], legacy_timestamp: bool = False) -> str:
    """``StructType.json()`` of a table's columns."""
    return json.dumps(spark_struct(fields, legacy_timestamp), separators=(",", ":"))


def spark_schema_json_from_arrow(schema: pa.Schema, legacy_timestamp: bool = False) -> str:
    """``StructType.json()`` for an Arrow schema (system tables)."""
    fields = [DataField(i, f.name, from_arrow_type(f.type, f.nullable)) for i, f in enumerate(schema)]
    return spark_schema_json(fields, legacy_timestamp)


# ----------------------------------------------------------------------------------------------
# Spark -> Arrow (new tables and columns are created from Arrow types by the engine)
# ----------------------------------------------------------------------------------------------


def parse_spark_type(obj: SparkType | str) -> SparkType:
    """A Spark type from its JSON text (``'"long"'``) or its already decoded form."""
    if isinstance(obj, str) and obj[:1] in ('"', "{"):
        decoded: SparkType = json.loads(obj)
        return decoded
    return obj


def arrow_type(t: SparkType, what: str = "column", legacy_timestamp: bool = False) -> pa.DataType:
    """The Arrow type of a Spark type (JSON form); ``what`` names the column in errors.
    ``legacy_timestamp``: Spark ``timestamp`` becomes Paimon TIMESTAMP (naive), as Paimon's
    ``legacy-timestamp-mapping.enabled`` creates it, instead of TIMESTAMP WITH LOCAL TIME ZONE."""
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
            "timestamp": pa.timestamp("us") if legacy_timestamp else pa.timestamp("us", tz="UTC"),
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
    lg = legacy_timestamp
    if kind == "array":
        return pa.list_(pa.field("element", arrow_type(t["elementType"], what, lg), bool(t.get("containsNull", True))))
    if kind == "map":
        return pa.map_(
            pa.field("key", arrow_type(t["keyType"], what, lg), False),
            pa.field("value", arrow_type(t["valueType"], what, lg), bool(t.get("valueContainsNull", True))),
        )
    if kind == "struct":
        return pa.struct(arrow_fields(t, what, lg))
    if kind == "udt":
        return arrow_type(t["sqlType"], what, lg)
    raise UnsupportedError(f"Spark type {json.dumps(t)} of {what} has no Paimon type")


def arrow_field(f: Mapping[str, Any], what: str = "column", legacy_timestamp: bool = False) -> pa.Field:
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
        name, arrow_type(ftype, f"{what} {name!r}", legacy_timestamp), bool(f.get("nullable", True)),
        metadata=extra or None,
    )


def arrow_fields(struct: Mapping[str, Any], what: str = "schema", legacy_timestamp: bool = False) -> list[pa.Field]:
    if struct.get("type") != "struct":
        raise ValidationError(f"Expected a Spark struct type for {what}, got {json.dumps(struct)}")
    return [arrow_field(f, what, legacy_timestamp) for f in struct.get("fields", [])]


def arrow_schema(
    schema_json: str | Mapping[str, Any], what: str = "schema", legacy_timestamp: bool = False
) -> pa.Schema:
    """The Arrow schema of a Spark ``StructType`` (JSON text or decoded)."""
    struct = json.loads(schema_json) if isinstance(schema_json, str) else schema_json
    return pa.schema(arrow_fields(struct, what, legacy_timestamp))


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
