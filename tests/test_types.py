from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.types import (
    MAX_LENGTH,
    PARQUET_FIELD_ID_KEY,
    ArrayType,
    BigIntType,
    BinaryType,
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
    assign_field_ids,
    data_field_to_json,
    data_type_to_json,
    fields_from_arrow_schema,
    from_arrow_type,
    highest_field_id,
    is_fixed_width,
    parse_data_field,
    parse_data_type,
    to_arrow_field,
    to_arrow_schema,
    to_arrow_type,
)

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
    fields = [parse_data_field(f) for f in doc["fields"]]
    assert [data_field_to_json(f) for f in fields] == doc["fields"]
    assert highest_field_id(fields) == doc["highestFieldId"]
    for f in fields:
        # the type string of every atomic type re-parses to the same type
        assert parse_data_type(data_type_to_json(f.type)) == f.type


@pytest.mark.parametrize(
    ("text", "expected", "canonical"),
    [
        ("INT", IntType(), "INT"),
        ("INTEGER", IntType(), "INT"),
        ("int not null", IntType(nullable=False), "INT NOT NULL"),
        ("INT NULL", IntType(), "INT"),
        ("BIGINT NOT NULL", BigIntType(nullable=False), "BIGINT NOT NULL"),
        ("TINYINT", TinyIntType(), "TINYINT"),
        ("SMALLINT", SmallIntType(), "SMALLINT"),
        ("BOOLEAN", BooleanType(), "BOOLEAN"),
        ("FLOAT", FloatType(), "FLOAT"),
        ("DOUBLE PRECISION", DoubleType(), "DOUBLE"),
        ("STRING", VarCharType(MAX_LENGTH), "STRING"),
        ("VARCHAR(2147483647)", VarCharType(MAX_LENGTH), "STRING"),
        ("VARCHAR(10)", VarCharType(10), "VARCHAR(10)"),
        ("VARCHAR", VarCharType(1), "VARCHAR(1)"),
        ("CHAR", CharType(1), "CHAR(1)"),
        ("CHAR(5) NOT NULL", CharType(5, nullable=False), "CHAR(5) NOT NULL"),
        ("BYTES", VarBinaryType(MAX_LENGTH), "BYTES"),
        ("VARBINARY(2147483647)", VarBinaryType(MAX_LENGTH), "BYTES"),
        ("VARBINARY(3)", VarBinaryType(3), "VARBINARY(3)"),
        ("BINARY(16)", BinaryType(16), "BINARY(16)"),
        ("DECIMAL", DecimalType(10, 0), "DECIMAL(10, 0)"),
        ("DECIMAL(23, 5)", DecimalType(23, 5), "DECIMAL(23, 5)"),
        ("NUMERIC(5,2)", DecimalType(5, 2), "DECIMAL(5, 2)"),
        ("DEC(7)", DecimalType(7, 0), "DECIMAL(7, 0)"),
        ("DATE", DateType(), "DATE"),
        ("TIME", TimeType(0), "TIME(0)"),
        ("TIME(3) WITHOUT TIME ZONE", TimeType(3), "TIME(3)"),
        ("TIMESTAMP", TimestampType(6), "TIMESTAMP(6)"),
        ("TIMESTAMP(9)", TimestampType(9), "TIMESTAMP(9)"),
        ("TIMESTAMP(3) WITHOUT TIME ZONE", TimestampType(3), "TIMESTAMP(3)"),
        (
            "TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL",
            LocalZonedTimestampType(3, nullable=False),
            "TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL",
        ),
        ("TIMESTAMP_LTZ(0)", LocalZonedTimestampType(0), "TIMESTAMP(0) WITH LOCAL TIME ZONE"),
        ("TIMESTAMP_LTZ", LocalZonedTimestampType(6), "TIMESTAMP(6) WITH LOCAL TIME ZONE"),
        ("INT ARRAY", ArrayType(IntType()), "ARRAY<INT>"),
        (
            "INT NOT NULL ARRAY NOT NULL",
            ArrayType(IntType(nullable=False), nullable=False),
            "ARRAY<INT NOT NULL> NOT NULL",
        ),
        ("STRING MULTISET", MultisetType(VarCharType()), "MULTISET<STRING>"),
        ("VECTOR<FLOAT, 4>", VectorType(FloatType(), 4), "VECTOR<FLOAT, 4>"),
        ("VARIANT", VariantType(), "VARIANT"),
        ("ARRAY<STRING NOT NULL>", ArrayType(VarCharType(nullable=False)), "ARRAY<STRING NOT NULL>"),
        (
            "MAP<STRING, INT> NOT NULL",
            MapType(VarCharType(), IntType(), nullable=False),
            "MAP<STRING, INT> NOT NULL",
        ),
        (
            "ROW<`a b` INT NOT NULL, c ARRAY<BIGINT> COMMENT 'it''s'>",
            RowType(
                (
                    DataField(0, "a b", IntType(nullable=False)),
                    DataField(1, "c", ArrayType(BigIntType()), "it's"),
                )
            ),
            "ROW<`a b` INT NOT NULL, `c` ARRAY<BIGINT> COMMENT 'it''s'>",
        ),
    ],
)
def test_type_strings(text: str, expected: DataType, canonical: str) -> None:
    t = parse_data_type(text)
    assert t == expected
    assert t.to_string() == canonical
    assert parse_data_type(canonical) == t


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
        parse_data_type(text)


def test_geometry_is_unsupported() -> None:
    with pytest.raises(UnsupportedError, match="GEOMETRY"):
        parse_data_type("GEOMETRY")


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
    t = parse_data_type(obj)
    assert isinstance(t, RowType) and not t.nullable
    assert data_type_to_json(t) == obj
    assert t.to_string() == (
        "ROW<`a` ARRAY<INT NOT NULL> NOT NULL, `m``x` MAP<STRING NOT NULL, DECIMAL(20, 2)>, "
        "`v` VECTOR<FLOAT, 4>, `s` MULTISET<DATE> COMMENT 'it''s', `d` INT DEFAULT 5> NOT NULL"
    )
    assert t.fields[3].description == "it's"
    assert t.fields[4].default_value == "5"
    assert "description" not in data_field_to_json(t.fields[0])
    assert t.root == "ROW"
    with pytest.raises(ValidationError):
        parse_data_type({"type": "ARRAY"})
    with pytest.raises(ValidationError):
        parse_data_type({"type": "WHAT", "element": "INT"})


def test_copy_root_and_validation() -> None:
    t = DecimalType(20, 3)
    nn = t.copy(False)
    assert nn == DecimalType(20, 3, nullable=False)
    assert nn.to_string() == "DECIMAL(20, 3) NOT NULL"
    assert nn.copy(True) == t
    assert t.root == "DECIMAL"
    assert TimestampType(3).root == "TIMESTAMP"
    assert LocalZonedTimestampType(3).root == "TIMESTAMP_LTZ"
    assert VarCharType().to_string() == "STRING"
    assert IntType() != IntType(nullable=False)
    with pytest.raises(ValidationError):
        RowType((DataField(0, "a", IntType()), DataField(1, "a", IntType())))
    with pytest.raises(ValidationError):
        DecimalType(0, 0)


def test_fixed_width() -> None:
    fixed: list[DataType] = [
        BooleanType(),
        TinyIntType(),
        SmallIntType(),
        IntType(),
        BigIntType(),
        FloatType(),
        DoubleType(),
        DateType(),
        TimeType(3),
        DecimalType(18, 2),
        TimestampType(3),
        LocalZonedTimestampType(0),
    ]
    var: list[DataType] = [
        DecimalType(19, 2),
        TimestampType(4),
        LocalZonedTimestampType(9),
        VarCharType(),
        CharType(3),
        BinaryType(2),
        VarBinaryType(),
        ArrayType(IntType()),
        RowType(()),
    ]
    assert all(is_fixed_width(t) for t in fixed)
    assert not any(is_fixed_width(t) for t in var)


@pytest.mark.parametrize(
    ("t", "arrow"),
    [
        (BooleanType(), pa.bool_()),
        (TinyIntType(), pa.int8()),
        (SmallIntType(), pa.int16()),
        (IntType(), pa.int32()),
        (BigIntType(), pa.int64()),
        (FloatType(), pa.float32()),
        (DoubleType(), pa.float64()),
        (DecimalType(23, 5), pa.decimal128(23, 5)),
        (CharType(3), pa.string()),
        (VarCharType(), pa.string()),
        (BinaryType(4), pa.binary()),
        (VarBinaryType(), pa.binary()),
        (DateType(), pa.date32()),
        (TimeType(0), pa.time32("ms")),
        (TimestampType(0), pa.timestamp("ms")),
        (TimestampType(3), pa.timestamp("ms")),
        (TimestampType(4), pa.timestamp("us")),
        (TimestampType(6), pa.timestamp("us")),
        (TimestampType(9), pa.timestamp("ns")),
        (LocalZonedTimestampType(3), pa.timestamp("ms", tz="UTC")),
        (LocalZonedTimestampType(6), pa.timestamp("us", tz="UTC")),
        (LocalZonedTimestampType(7), pa.timestamp("ns", tz="UTC")),
        (ArrayType(IntType(nullable=False)), pa.list_(pa.field("element", pa.int32(), False))),
        (VectorType(FloatType(), 4), pa.list_(pa.field("element", pa.float32()), 4)),
        (MapType(VarCharType(), IntType()), pa.map_(pa.string(), pa.int32())),
    ],
)
def test_to_arrow_type(t: DataType, arrow: pa.DataType) -> None:
    assert to_arrow_type(t) == arrow


@pytest.mark.parametrize(
    "t",
    [
        BooleanType(),
        TinyIntType(),
        SmallIntType(),
        IntType(nullable=False),
        BigIntType(),
        FloatType(),
        DoubleType(),
        DecimalType(38, 10),
        VarCharType(),
        VarBinaryType(),
        BinaryType(4),
        DateType(),
        TimeType(3),
        TimestampType(3),
        TimestampType(6),
        TimestampType(9),
        LocalZonedTimestampType(3),
        LocalZonedTimestampType(9),
        ArrayType(VarCharType(nullable=False)),
        VectorType(FloatType(), 3),
        MapType(VarCharType(nullable=False), ArrayType(IntType())),
    ],
)
def test_arrow_round_trip(t: DataType) -> None:
    arrow = to_arrow_type(t)
    if isinstance(t, BinaryType):
        # BINARY(n) reads as plain binary; a fixed-size binary maps back to BINARY(n)
        assert from_arrow_type(pa.binary(4)) == BinaryType(4)
        return
    assert from_arrow_type(arrow, t.nullable) == t


def test_from_arrow_variants() -> None:
    assert from_arrow_type(pa.large_string()) == VarCharType()
    assert from_arrow_type(pa.string_view()) == VarCharType()
    assert from_arrow_type(pa.large_binary()) == VarBinaryType()
    assert from_arrow_type(pa.timestamp("s")) == TimestampType(0)
    assert from_arrow_type(pa.timestamp("ns", tz="Asia/Shanghai")) == LocalZonedTimestampType(9)
    assert from_arrow_type(pa.date64()) == DateType()
    assert from_arrow_type(pa.time64("us")) == TimeType(6)
    assert from_arrow_type(pa.dictionary(pa.int32(), pa.string())) == VarCharType()
    assert from_arrow_type(pa.large_list(pa.int64())) == ArrayType(BigIntType())
    assert from_arrow_type(pa.int32(), nullable=False) == IntType(nullable=False)
    with pytest.raises(UnsupportedError):
        from_arrow_type(pa.uint32())
    with pytest.raises(UnsupportedError):
        to_arrow_type(VariantType())


def test_arrow_field_ids_reach_parquet(tmp_path: Path) -> None:
    fields = [
        DataField(7, "a", BigIntType(nullable=False)),
        DataField(9, "b", RowType((DataField(10, "x", VarCharType()),))),
    ]
    schema = to_arrow_schema(fields)
    assert schema.field("a").metadata[PARQUET_FIELD_ID_KEY] == b"7"
    assert not schema.field("a").nullable
    assert to_arrow_field(fields[1]).type.field(0).metadata[PARQUET_FIELD_ID_KEY] == b"10"
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
    assert arrow_back.field("a").metadata[PARQUET_FIELD_ID_KEY] == b"7"
    assert arrow_back.field("b").type.field(0).metadata[PARQUET_FIELD_ID_KEY] == b"10"


def test_field_ids_as_paimon_assigns_them() -> None:
    schema = pa.schema(
        [
            pa.field("a", pa.int32(), False),
            pa.field("b", pa.struct([("x", pa.int32()), ("y", pa.struct([("z", pa.int32())]))])),
            pa.field("c", pa.list_(pa.struct([("w", pa.int32())]))),
        ]
    )
    fields, highest = fields_from_arrow_schema(schema, start_id=0)
    assert [f.id for f in fields] == [0, 1, 5]
    b = fields[1].type
    assert isinstance(b, RowType)
    # ReassignFieldId: a nested field's own type is numbered before the field itself
    assert [(f.name, f.id) for f in b.fields] == [("x", 2), ("y", 4)]
    y = b.fields[1].type
    assert isinstance(y, RowType) and y.fields[0].id == 3
    c = fields[2].type
    assert isinstance(c, ArrayType) and isinstance(c.element, RowType) and c.element.fields[0].id == 6
    assert highest == 6 == highest_field_id(fields)
    assert not fields[0].type.nullable
    more, highest2 = fields_from_arrow_schema(pa.schema([pa.field("d", pa.string())]), start_id=highest + 1)
    assert more[0].id == 7 and highest2 == 7
    assert assign_field_ids([], 3) == ([], 2)


@pytest.mark.parametrize("table", ["pk_table_nested_type", "append_complex_build_in_fieldid"])
def test_field_ids_match_java_fixture(table: str) -> None:
    path = next(FIXTURES.glob(f"java-corpus/parquet/{table}.db/{table}/schema/schema-0"))
    doc = json.loads(path.read_text())
    fields = [parse_data_field(f) for f in doc["fields"]]
    again, highest = fields_from_arrow_schema(to_arrow_schema(fields))
    assert highest == doc["highestFieldId"]

    def ids(fs: list[DataField] | tuple[DataField, ...]) -> list[Any]:
        out: list[Any] = []
        for f in fs:
            t = f.type
            out.append((f.name, f.id, ids(t.fields) if isinstance(t, RowType) else None))
        return out

    # Arrow map keys are never null, so only the ids and names are compared here.
    assert ids(again) == ids(fields)
