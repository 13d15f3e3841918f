"""Spark type JSON <-> Paimon types / Arrow (no Spark needed)."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from paimon_sql.errors import UnsupportedError
from paimon_sql.spark import spark_types as stypes
from paimon_sql.types import (
    ArrayType,
    BigIntType,
    CharType,
    DataField,
    DecimalType,
    IntType,
    LocalZonedTimestampType,
    MapType,
    MultisetType,
    RowType,
    TimestampType,
    TimeType,
    VarCharType,
    fields_from_arrow_schema,
)


def test_paimon_to_spark_atomic_types() -> None:
    assert stypes.spark_type(BigIntType()) == "long"
    assert stypes.spark_type(DecimalType(12, 3)) == "decimal(12,3)"
    assert stypes.spark_type(TimestampType(3)) == "timestamp_ntz"
    assert stypes.spark_type(LocalZonedTimestampType(6)) == "timestamp"
    assert stypes.spark_type(TimeType(9)) == "time(6)"
    assert stypes.spark_type(VarCharType(10)) == "string"


def test_paimon_to_spark_nested_types_keep_element_nullability() -> None:
    t = MapType(IntType(nullable=False), ArrayType(BigIntType(nullable=False)))
    assert stypes.spark_type(t) == {
        "type": "map",
        "keyType": "integer",
        "valueType": {"type": "array", "elementType": "long", "containsNull": False},
        "valueContainsNull": True,
    }
    assert stypes.spark_type(MultisetType(IntType()))["valueType"] == "integer"
    row = RowType((DataField(1, "a", IntType(nullable=False)),))
    assert stypes.spark_type(row) == {
        "type": "struct",
        "fields": [{"name": "a", "type": "integer", "nullable": False, "metadata": {}}],
    }


def test_schema_json_carries_comments_and_char_lengths() -> None:
    fields = [
        DataField(0, "id", BigIntType(nullable=False), description="the key"),
        DataField(1, "code", CharType(3)),
        DataField(2, "s", VarCharType(2147483647)),
    ]
    parsed = json.loads(stypes.spark_schema_json(fields))
    assert parsed["fields"][0] == {"name": "id", "type": "long", "nullable": False, "metadata": {"comment": "the key"}}
    assert parsed["fields"][1] == {"name": "code", "type": "char(3)", "nullable": True, "metadata": {}}
    assert parsed["fields"][2]["type"] == "string" and parsed["fields"][2]["metadata"] == {}


def test_spark_schema_to_arrow_round_trips_through_paimon() -> None:
    spark_json = {
        "type": "struct",
        "fields": [
            {"name": "b", "type": "byte", "nullable": True, "metadata": {}},
            {"name": "i", "type": "integer", "nullable": False, "metadata": {}},
            {"name": "d", "type": "decimal(20,4)", "nullable": True, "metadata": {}},
            {"name": "ts", "type": "timestamp", "nullable": True, "metadata": {}},
            {"name": "ntz", "type": "timestamp_ntz", "nullable": True, "metadata": {}},
            {"name": "dt", "type": "date", "nullable": True, "metadata": {}},
            {"name": "bin", "type": "binary", "nullable": True, "metadata": {}},
            {"name": "arr", "type": {"type": "array", "elementType": "string", "containsNull": False}, "nullable": True, "metadata": {}},
            {"name": "m", "type": {"type": "map", "keyType": "string", "valueType": "double", "valueContainsNull": True}, "nullable": True, "metadata": {}},
            {"name": "st", "type": {"type": "struct", "fields": [{"name": "x", "type": "long", "nullable": True, "metadata": {}}]}, "nullable": True, "metadata": {}},
        ],
    }
    schema = stypes.arrow_schema(json.dumps(spark_json))
    assert schema.field("i").nullable is False
    assert schema.field("ts").type == pa.timestamp("us", tz="UTC")
    assert schema.field("ntz").type == pa.timestamp("us")
    assert schema.field("d").type == pa.decimal128(20, 4)
    fields, _ = fields_from_arrow_schema(schema)
    back = json.loads(stypes.spark_schema_json(fields))
    assert [(f["name"], f["type"], f["nullable"]) for f in back["fields"]] == [
        (f["name"], f["type"], f["nullable"]) for f in spark_json["fields"]
    ]


def test_spark_char_varchar_become_strings() -> None:
    assert stypes.arrow_type("varchar(10)") == pa.string()
    field = stypes.arrow_field({"name": "c", "type": "string", "nullable": True, "metadata": {stypes.CHAR_VARCHAR_METADATA: "char(2)"}})
    assert field.type == pa.string() and field.metadata == {b"paimon.type": b"CHAR(2)"}
    field = stypes.arrow_field({"name": "v", "type": "varchar(7)", "nullable": True, "metadata": {"comment": "x"}})
    assert field.type == pa.string() and field.metadata == {b"paimon.type": b"VARCHAR(7)", b"paimon.comment": b"x"}


def test_unsupported_spark_type_names_the_column() -> None:
    with pytest.raises(UnsupportedError, match="interval.*column 'x'"):
        stypes.arrow_field({"name": "x", "type": "interval", "nullable": True})


def test_ddl_type_names() -> None:
    assert stypes.ddl_type("long") == "BIGINT"
    assert stypes.ddl_type({"type": "array", "elementType": "string", "containsNull": True}) == "ARRAY<STRING>"
    assert stypes.ddl_columns([("result", "BOOLEAN"), ("a b", "STRING")]) == "`result` BOOLEAN, `a b` STRING"
