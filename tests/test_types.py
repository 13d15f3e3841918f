from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_sql import types as pt
from paimon_sql.errors import UnsupportedError, ValidationError

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures"
if not FIXTURES.is_dir():
    FIXTURES = Path("/work/shared/fixtures")
SCHEMA_FILES = sorted(FIXTURES.glob("*/**/schema/schema-*"))


def test_fixture_schemas_found() -> None:
    # Both fixture folders hold schema files; the round-trip test below must not run on nothing.
    assert any("java-written" in str(p) for p in SCHEMA_FILES)
    assert any("java-corpus" in str(p) for p in SCHEMA_FILES)
    assert len(SCHEMA_FILES) > 100


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: "/".join(p.parts[-5:]))
def test_fixture_schema_round_trip(path: Path) -> None:
    doc = json.loads(path.read_text())
    fields = [pt.parse_data_field(f) for f in doc["fields"]]
    assert [pt.data_field_to_json(f) for f in fields] == doc["fields"]
    assert pt.highest_field_id(fields) == doc["highestFieldId"]
    for f in fields:
        # the type string of every atomic type re-parses to the same type
        assert pt.parse_data_type(pt.data_type_to_json(f.type)) == f.type


@pytest.mark.parametrize(
    ("text", "expected", "canonical"),
    [
        ("INT", pt.IntType(), "INT"),
        ("INTEGER", pt.IntType(), "INT"),
        ("int not null", pt.IntType(nullable=False), "INT NOT NULL"),
        ("INT NULL", pt.IntType(), "INT"),
        ("BIGINT NOT NULL", pt.BigIntType(nullable=False), "BIGINT NOT NULL"),
        ("TINYINT", pt.TinyIntType(), "TINYINT"),
        ("SMALLINT", pt.SmallIntType(), "SMALLINT"),
        ("BOOLEAN", pt.BooleanType(), "BOOLEAN"),
        ("FLOAT", pt.FloatType(), "FLOAT"),
        ("DOUBLE PRECISION", pt.DoubleType(), "DOUBLE"),
        ("STRING", pt.VarCharType(pt.MAX_LENGTH), "STRING"),
        ("VARCHAR(2147483647)", pt.VarCharType(pt.MAX_LENGTH), "STRING"),
        ("VARCHAR(10)", pt.VarCharType(10), "VARCHAR(10)"),
        ("VARCHAR", pt.VarCharType(1), "VARCHAR(1)"),
        ("CHAR", pt.CharType(1), "CHAR(1)"),
        ("CHAR(5) NOT NULL", pt.CharType(5, nullable=False), "CHAR(5) NOT NULL"),
        ("BYTES", pt.VarBinaryType(pt.MAX_LENGTH), "BYTES"),
        ("VARBINARY(2147483647)", pt.VarBinaryType(pt.MAX_LENGTH), "BYTES"),
        ("VARBINARY(3)", pt.VarBinaryType(3), "VARBINARY(3)"),
        ("BINARY(16)", pt.BinaryType(16), "BINARY(16)"),
        ("DECIMAL", pt.DecimalType(10, 0), "DECIMAL(10, 0)"),
        ("DECIMAL(23, 5)", pt.DecimalType(23, 5), "DECIMAL(23, 5)"),
        ("NUMERIC(5,2)", pt.DecimalType(5, 2), "DECIMAL(5, 2)"),
        ("DEC(7)", pt.DecimalType(7, 0), "DECIMAL(7, 0)"),
        ("DATE", pt.DateType(), "DATE"),
        ("TIME", pt.TimeType(0), "TIME(0)"),
        ("TIME(3) WITHOUT TIME ZONE", pt.TimeType(3), "TIME(3)"),
        ("TIMESTAMP", pt.TimestampType(6), "TIMESTAMP(6)"),
        ("TIMESTAMP(9)", pt.TimestampType(9), "TIMESTAMP(9)"),
        ("TIMESTAMP(3) WITHOUT TIME ZONE", pt.TimestampType(3), "TIMESTAMP(3)"),
        (
            "TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL",
            pt.LocalZonedTimestampType(3, nullable=False),
            "TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL",
        ),
        ("TIMESTAMP_LTZ(0)", pt.LocalZonedTimestampType(0), "TIMESTAMP(0) WITH LOCAL TIME ZONE"),
        ("TIMESTAMP_LTZ", pt.LocalZonedTimestampType(6), "TIMESTAMP(6) WITH LOCAL TIME ZONE"),
        ("INT ARRAY", pt.ArrayType(pt.IntType()), "ARRAY<INT>"),
        (
            "INT NOT NULL ARRAY NOT NULL",
            pt.ArrayType(pt.IntType(nullable=False), nullable=False),
            "ARRAY<INT NOT NULL> NOT NULL",
        ),
        ("STRING MULTISET", pt.MultisetType(pt.VarCharType()), "MULTISET<STRING>"),
        ("VECTOR<FLOAT, 4>", pt.VectorType(pt.FloatType(), 4), "VECTOR<FLOAT, 4>"),
        ("VARIANT", pt.VariantType(), "VARIANT"),
        ("ARRAY<STRING NOT NULL>", pt.ArrayType(pt.VarCharType(nullable=False)), "ARRAY<STRING NOT NULL>"),
        (
            "MAP<STRING, INT> NOT NULL",
            pt.MapType(pt.VarCharType(), pt.IntType(), nullable=False),
            "MAP<STRING, INT> NOT NULL",
        ),
        (
            "ROW<`a b` INT NOT NULL, c ARRAY<BIGINT> COMMENT 'it''s'>",
            pt.RowType(
                (
                    pt.DataField(0, "a b", pt.IntType(nullable=False)),
                    pt.DataField(1, "c", pt.ArrayType(pt.BigIntType()), "it's"),
                )
            ),
            "ROW<`a b` INT NOT NULL, `c` ARRAY<BIGINT> COMMENT 'it''s'>",
        ),
    ],
)
def test_type_strings(text: str, expected: pt.DataType, canonical: str) -> None:
    t = pt.parse_data_type(text)
    assert t == expected
    assert t.to_string() == canonical
    assert pt.parse_data_type(canonical) == t


@pytest.mark.parametrize(
    "text",
    [
        "FOO",
        "INT INT",
        "DECIMAL(40, 1)",
        "DECIMAL(5, 6)",
        "VARCHAR(0)",
        "TIMESTAMP(10)",
        "CHAR(",
        "",
        "ROW<a INT, a INT>",
        "MAP<INT>",
        "ARRAY<INT",
    ],
)
def test_bad_type_strings(text: str) -> None:
    with pytest.raises(ValidationError):
        pt.parse_data_type(text)


def test_geometry_is_unsupported() -> None:
    with pytest.raises(UnsupportedError, match="GEOMETRY"):
        pt.parse_data_type("GEOMETRY")


def test_nested_json_and_strings() -> None:
    obj: dict[str, Any] = {
        "type": "ROW NOT NULL",
        "fields": [
            {"id": 3, "name": "a", "type": {"type": "ARRAY NOT NULL", "element": "INT NOT NULL"}},
            {
                "id": 4,
                "name": "m`x",
                "type": {"type": "MAP", "key": "STRING NOT NULL", "value": "DECIMAL(20, 2)"},
            },
            {"id": 5, "name": "v", "type": {"type": "VECTOR", "element": "FLOAT", "length": 4}},
            {"id": 6, "name": "s", "type": {"type": "MULTISET", "element": "DATE"}, "description": "it's"},
            {"id": 7, "name": "d", "type": "INT", "defaultValue": "5"},
        ],
    }
    t = pt.parse_data_type(obj)
    assert isinstance(t, pt.RowType) and not t.nullable
    assert pt.data_type_to_json(t) == obj
    assert t.to_string() == (
        "ROW<`a` ARRAY<INT NOT NULL> NOT NULL, `m``x` MAP<STRING NOT NULL, DECIMAL(20, 2)>, "
        "`v` VECTOR<FLOAT, 4>, `s` MULTISET<DATE> COMMENT 'it''s', `d` INT DEFAULT 5> NOT NULL"
    )
    assert t.fields[3].description == "it's"
    assert t.fields[4].default_value == "5"
    assert "description" not in pt.data_field_to_json(t.fields[0])
    assert t.root == "ROW"
    with pytest.raises(ValidationError):
        pt.parse_data_type({"type": "ARRAY"})
    with pytest.raises(ValidationError):
        pt.parse_data_type({"type": "WHAT", "element": "INT"})


def test_copy_root_and_validation() -> None:
    t = pt.DecimalType(20, 3)
    nn = t.copy(False)
    assert nn == pt.DecimalType(20, 3, nullable=False)
    assert nn.to_string() == "DECIMAL(20, 3) NOT NULL"
    assert nn.copy(True) == t
    assert t.root == "DECIMAL"
    assert pt.TimestampType(3).root == "TIMESTAMP"
    assert pt.LocalZonedTimestampType(3).root == "TIMESTAMP_LTZ"
    assert pt.VarCharType().to_string() == "STRING"
    assert pt.IntType() != pt.IntType(nullable=False)
    with pytest.raises(ValidationError):
        pt.RowType((pt.DataField(0, "a", pt.IntType()), pt.DataField(1, "a", pt.IntType())))
    with pytest.raises(ValidationError):
        pt.DecimalType(0, 0)


def test_fixed_width() -> None:
    fixed: list[pt.DataType] = [
        pt.BooleanType(),
        pt.TinyIntType(),
        pt.SmallIntType(),
        pt.IntType(),
        pt.BigIntType(),
        pt.FloatType(),
        pt.DoubleType(),
        pt.DateType(),
        pt.TimeType(3),
        pt.DecimalType(18, 2),
        pt.TimestampType(3),
        pt.LocalZonedTimestampType(0),
    ]
    var: list[pt.DataType] = [
        pt.DecimalType(19, 2),
        pt.TimestampType(4),
        pt.LocalZonedTimestampType(9),
        pt.VarCharType(),
        pt.CharType(3),
        pt.BinaryType(2),
        pt.VarBinaryType(),
        pt.ArrayType(pt.IntType()),
        pt.RowType(()),
    ]
    assert all(pt.is_fixed_width(t) for t in fixed)
    assert not any(pt.is_fixed_width(t) for t in var)


@pytest.mark.parametrize(
    ("t", "arrow"),
    [
        (pt.BooleanType(), pa.bool_()),
        (pt.TinyIntType(), pa.int8()),
        (pt.SmallIntType(), pa.int16()),
        (pt.IntType(), pa.int32()),
        (pt.BigIntType(), pa.int64()),
        (pt.FloatType(), pa.float32()),
        (pt.DoubleType(), pa.float64()),
        (pt.DecimalType(23, 5), pa.decimal128(23, 5)),
        (pt.CharType(3), pa.string()),
        (pt.VarCharType(), pa.string()),
        (pt.BinaryType(4), pa.binary()),
        (pt.VarBinaryType(), pa.binary()),
        (pt.DateType(), pa.date32()),
        (pt.TimeType(0), pa.time32("ms")),
        (pt.TimestampType(0), pa.timestamp("ms")),
        (pt.TimestampType(3), pa.timestamp("ms")),
        (pt.TimestampType(4), pa.timestamp("us")),
        (pt.TimestampType(6), pa.timestamp("us")),
        (pt.TimestampType(9), pa.timestamp("ns")),
        (pt.LocalZonedTimestampType(3), pa.timestamp("ms", tz="UTC")),
        (pt.LocalZonedTimestampType(6), pa.timestamp("us", tz="UTC")),
        (pt.LocalZonedTimestampType(7), pa.timestamp("ns", tz="UTC")),
        (pt.ArrayType(pt.IntType(nullable=False)), pa.list_(pa.field("element", pa.int32(), False))),
        (pt.VectorType(pt.FloatType(), 4), pa.list_(pa.field("element", pa.float32()), 4)),
        (pt.MapType(pt.VarCharType(), pt.IntType()), pa.map_(pa.string(), pa.int32())),
    ],
)
def test_to_arrow_type(t: pt.DataType, arrow: pa.DataType) -> None:
    assert pt.to_arrow_type(t) == arrow


@pytest.mark.parametrize(
    "t",
    [
        pt.BooleanType(),
        pt.TinyIntType(),
        pt.SmallIntType(),
        pt.IntType(nullable=False),
        pt.BigIntType(),
        pt.FloatType(),
        pt.DoubleType(),
        pt.DecimalType(38, 10),
        pt.VarCharType(),
        pt.VarBinaryType(),
        pt.BinaryType(4),
        pt.DateType(),
        pt.TimeType(3),
        pt.TimestampType(3),
        pt.TimestampType(6),
        pt.TimestampType(9),
        pt.LocalZonedTimestampType(3),
        pt.LocalZonedTimestampType(9),
        pt.ArrayType(pt.VarCharType(nullable=False)),
        pt.VectorType(pt.FloatType(), 3),
        pt.MapType(pt.VarCharType(nullable=False), pt.ArrayType(pt.IntType())),
    ],
)
def test_arrow_round_trip(t: pt.DataType) -> None:
    arrow = pt.to_arrow_type(t)
    if isinstance(t, pt.BinaryType):
        # BINARY(n) reads as plain binary; a fixed-size binary maps back to BINARY(n)
        assert pt.from_arrow_type(pa.binary(4)) == pt.BinaryType(4)
        return
    assert pt.from_arrow_type(arrow, t.nullable) == t


def test_from_arrow_variants() -> None:
    assert pt.from_arrow_type(pa.large_string()) == pt.VarCharType()
    assert pt.from_arrow_type(pa.string_view()) == pt.VarCharType()
    assert pt.from_arrow_type(pa.large_binary()) == pt.VarBinaryType()
    assert pt.from_arrow_type(pa.timestamp("s")) == pt.TimestampType(0)
    assert pt.from_arrow_type(pa.timestamp("ns", tz="Asia/Shanghai")) == pt.LocalZonedTimestampType(9)
    assert pt.from_arrow_type(pa.date64()) == pt.DateType()
    assert pt.from_arrow_type(pa.time64("us")) == pt.TimeType(6)
    assert pt.from_arrow_type(pa.dictionary(pa.int32(), pa.string())) == pt.VarCharType()
    assert pt.from_arrow_type(pa.large_list(pa.int64())) == pt.ArrayType(pt.BigIntType())
    assert pt.from_arrow_type(pa.int32(), nullable=False) == pt.IntType(nullable=False)
    with pytest.raises(UnsupportedError):
        pt.from_arrow_type(pa.uint32())
    with pytest.raises(UnsupportedError):
        pt.to_arrow_type(pt.VariantType())


def test_arrow_field_ids_reach_parquet(tmp_path: Path) -> None:
    fields = [
        pt.DataField(7, "a", pt.BigIntType(nullable=False)),
        pt.DataField(9, "b", pt.RowType((pt.DataField(10, "x", pt.VarCharType()),))),
    ]
    schema = pt.to_arrow_schema(fields)
    assert schema.field("a").metadata[pt.PARQUET_FIELD_ID_KEY] == b"7"
    assert not schema.field("a").nullable
    assert pt.to_arrow_field(fields[1]).type.field(0).metadata[pt.PARQUET_FIELD_ID_KEY] == b"10"
    table = pa.table(
        {"a": pa.array([1], pa.int64()), "b": pa.array([{"x": "s"}], schema.field("b").type)}, schema=schema
    )
    path = tmp_path / "f.parquet"
    pq.write_table(table, path)
    parquet_schema = pq.ParquetFile(path).schema
    assert parquet_schema.column(0).name == "a"
    ids = [parquet_schema.column(i) for i in range(2)]
    assert [c.path for c in ids] == ["a", "b.x"]
    arrow_back = pq.read_schema(path)
    assert arrow_back.field("a").metadata[pt.PARQUET_FIELD_ID_KEY] == b"7"
    assert arrow_back.field("b").type.field(0).metadata[pt.PARQUET_FIELD_ID_KEY] == b"10"


def test_field_ids_as_paimon_assigns_them() -> None:
    schema = pa.schema(
        [
            pa.field("a", pa.int32(), False),
            pa.field("b", pa.struct([("x", pa.int32()), ("y", pa.struct([("z", pa.int32())]))])),
            pa.field("c", pa.list_(pa.struct([("w", pa.int32())]))),
        ]
    )
    fields, highest = pt.fields_from_arrow_schema(schema, start_id=0)
    assert [f.id for f in fields] == [0, 1, 5]
    b = fields[1].type
    assert isinstance(b, pt.RowType)
    # ReassignFieldId: a nested field's own type is numbered before the field itself
    assert [(f.name, f.id) for f in b.fields] == [("x", 2), ("y", 4)]
    y = b.fields[1].type
    assert isinstance(y, pt.RowType) and y.fields[0].id == 3
    c = fields[2].type
    assert isinstance(c, pt.ArrayType) and isinstance(c.element, pt.RowType) and c.element.fields[0].id == 6
    assert highest == 6 == pt.highest_field_id(fields)
    assert not fields[0].type.nullable
    more, highest2 = pt.fields_from_arrow_schema(pa.schema([pa.field("d", pa.string())]), start_id=highest + 1)
    assert more[0].id == 7 and highest2 == 7
    assert pt.assign_field_ids([], 3) == ([], 2)


@pytest.mark.parametrize("table", ["pk_table_nested_type", "append_complex_build_in_fieldid"])
def test_field_ids_match_java_fixture(table: str) -> None:
    path = next(FIXTURES.glob(f"java-corpus/parquet/{table}.db/{table}/schema/schema-0"))
    doc = json.loads(path.read_text())
    fields = [pt.parse_data_field(f) for f in doc["fields"]]
    again, highest = pt.fields_from_arrow_schema(pt.to_arrow_schema(fields))
    assert highest == doc["highestFieldId"]

    def ids(fs: list[pt.DataField] | tuple[pt.DataField, ...]) -> list[Any]:
        out: list[Any] = []
        for f in fs:
            t = f.type
            out.append((f.name, f.id, ids(t.fields) if isinstance(t, pt.RowType) else None))
        return out

    # Arrow map keys are never null, so only the ids and names are compared here.
    assert ids(again) == ids(fields)
