"""Avro data files: Paimon's schema and encoding, round trips, the Java-written fixture, the engine
with file.format=avro, and pypaimon 2.1.0 reading what we write."""

from __future__ import annotations

import importlib
import io
import json
import random
import shutil
from decimal import Context, Decimal
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql import types as pt
from paimon_sql.errors import CorruptFileError, UnsupportedError, ValidationError
from paimon_sql.format import avro_data
from paimon_sql.format.avro_data import avro_columns, avro_schema, read_avro, write_avro
from paimon_sql.format.data_files import file_columns, read_file, write_file
from paimon_sql.fs.file_io import FileIO

FIXTURE_TABLE = Path(
    "/work/shared/fixtures/java-corpus/avro/append_with_multiple_ts_precision_and_timezone.db/"
    "append_with_multiple_ts_precision_and_timezone"
)

# ------------------------------------------------------------------------------------------------
# Helpers


def _schema(*cols: tuple[str, Any]) -> pa.Schema:
    fields, _ = pt.assign_field_ids(list(cols))
    return pt.to_arrow_schema(fields)


def _header(data: bytes) -> tuple[list[tuple[str, bytes]], bytes]:
    meta, sync, _ = avro_data._parse_header(data)
    return meta, sync


def _java_bytes(n: int) -> bytes:
    """Java's BigInteger.valueOf(n).toByteArray(): minimal two's complement, big-endian."""
    bits = (n if n >= 0 else ~n).bit_length()
    return n.to_bytes(bits // 8 + 1, "big", signed=True)


def _ts(unit: str, tz: str | None = None) -> pa.DataType:
    return pa.timestamp(unit, tz)


# ------------------------------------------------------------------------------------------------
# Every type, through write -> read

ROW_T = pt.RowType(tuple(pt.assign_field_ids([("x", pt.IntType(nullable=False)), ("y", pt.VarCharType())])[0]))

ALL_TYPES: list[tuple[str, Any]] = [
    ("id", pt.BigIntType(nullable=False)),
    ("b", pt.BooleanType()),
    ("t8", pt.TinyIntType()),
    ("s16", pt.SmallIntType()),
    ("i32", pt.IntType()),
    ("i64", pt.BigIntType()),
    ("f32", pt.FloatType()),
    ("f64", pt.DoubleType()),
    ("dec10", pt.DecimalType(10, 2)),
    ("dec38", pt.DecimalType(38, 10)),
    ("ch", pt.CharType(5)),
    ("vc", pt.VarCharType(20)),
    ("str", pt.VarCharType()),
    ("bin", pt.BinaryType(4)),
    ("bytes", pt.VarBinaryType()),
    ("day", pt.DateType()),
    ("tm", pt.TimeType(3)),
    ("ts0", pt.TimestampType(0)),
    ("ts3", pt.TimestampType(3)),
    ("ts6", pt.TimestampType(6)),
    ("ltz3", pt.LocalZonedTimestampType(3)),
    ("ltz6", pt.LocalZonedTimestampType(6)),
    ("arr", pt.ArrayType(pt.IntType())),
    ("arr_nn", pt.ArrayType(pt.VarCharType(nullable=False), nullable=False)),
    ("arr_row", pt.ArrayType(ROW_T)),
    ("map_s", pt.MapType(pt.VarCharType(nullable=False), pt.BigIntType())),
    ("map_i", pt.MapType(pt.IntType(nullable=False), pt.VarCharType())),
    ("map_row", pt.MapType(pt.IntType(nullable=False), ROW_T)),
    (
        "row",
        pt.RowType(
            tuple(pt.assign_field_ids([("a", pt.IntType()), ("inner", ROW_T), ("l", pt.ArrayType(pt.DoubleType()))])[0])
        ),
    ),
    ("vec", pt.VectorType(pt.FloatType(nullable=False), 3)),
]

DEC38_MAX = Decimal("9999999999999999999999999999.9999999999")


def _all_types_table() -> pa.Table:
    schema = _schema(*ALL_TYPES)
    n = 4
    cols: dict[str, list[Any]] = {
        "id": [1, 2, 3, 4],
        "b": [True, None, False, True],
        "t8": [-128, None, 127, 0],
        "s16": [-32768, 32767, None, 1],
        "i32": [-(2**31), 2**31 - 1, None, 7],
        "i64": [-(2**63), 2**63 - 1, None, 0],
        "f32": [1.5, float("inf"), None, -0.0],
        "f64": [1e300, -2.5, None, float("-inf")],
        "dec10": [Decimal("12345678.91"), Decimal("-1.28"), None, Decimal("0.00")],
        "dec38": [DEC38_MAX, Decimal("-" + str(DEC38_MAX)), None, Decimal("-0.0000000001")],
        "ch": ["abcde", None, "", "ü"],
        "vc": ["hello", "wörld", None, ""],
        "str": ["x" * 1000, None, "日本", ""],
        "bin": [b"\x00\x01\x02\x03", None, b"\xff" * 4, b""],
        "bytes": [b"", None, bytes(range(256)), b"\x80"],
        "day": [0, -719162, None, 2932896],
        "tm": [0, 86399999, None, 12345],
        "ts0": [0, -62135596800000, None, 253402300799000],
        "ts3": [1, -1, None, 1700000000123],
        "ts6": [1, -1, None, 1700000000123456],
        "ltz3": [2, -2, None, 1700000000123],
        "ltz6": [2, -2, None, 1700000000123456],
        "arr": [[1, None, 3], None, [], [2**31 - 1]],
        "arr_nn": [["a"], [], ["b", "c"], ["d"]],
        "arr_row": [[{"x": 1, "y": "a"}, None], None, [], [{"x": 2, "y": None}]],
        "map_s": [[("k", 1), ("l", None)], None, [], [("", -1)]],
        "map_i": [[(1, "one"), (-2, None)], None, [], [(0, "")]],
        "map_row": [[(1, {"x": 5, "y": "five"}), (2, None)], None, [], [(3, {"x": 0, "y": None})]],
        "row": [
            {"a": 1, "inner": {"x": 2, "y": "z"}, "l": [1.0, None]},
            None,
            {"a": None, "inner": None, "l": None},
            {"a": 3, "inner": {"x": 4, "y": None}, "l": []},
        ],
        "vec": [[1.0, 2.0, 3.0], None, [0.0, -1.0, 0.5], [4.0, 5.0, 6.0]],
    }
    arrays = []
    for field in schema:
        values = cols[field.name]
        assert len(values) == n
        t = field.type
        if pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_time(t):
            storage = pa.int64() if pa.types.is_timestamp(t) else pa.int32()
            arrays.append(pa.array(values, storage).cast(t))
        else:
            arrays.append(pa.array(values, t))
    return pa.Table.from_arrays(arrays, schema=schema)


def test_round_trip_every_type_exact_arrow_types() -> None:
    table = _all_types_table()
    data = write_avro(table, "zstd", 1)
    out = read_avro(data, None, {f.name: f.type for f in table.schema})
    assert out.schema.names == table.schema.names
    for f in table.schema:
        assert out.schema.field(f.name).type == f.type, f.name
        assert out.schema.field(f.name).nullable == f.nullable, f.name
        assert out.column(f.name).to_pylist() == table.column(f.name).to_pylist(), f.name


def test_round_trip_without_arrow_types_gives_the_file_types() -> None:
    table = _all_types_table()
    out = read_avro(write_avro(table, "zstd", 3), None, None)
    t = out.schema
    # What Avro itself says: no int8/int16 (int), no fixed-size lists, timestamp units kept exactly.
    assert t.field("t8").type == pa.int32() and t.field("s16").type == pa.int32()
    assert t.field("dec10").type == pa.decimal128(10, 2)
    assert t.field("dec38").type == pa.decimal128(38, 10)
    assert t.field("day").type == pa.date32() and t.field("tm").type == pa.time32("ms")
    assert t.field("ts0").type == _ts("ms") and t.field("ts6").type == _ts("us")
    assert t.field("ltz3").type == _ts("ms", "UTC") and t.field("ltz6").type == _ts("us", "UTC")
    assert t.field("map_i").type == table.schema.field("map_i").type
    assert t.field("vec").type == pa.list_(pa.field("element", pa.float32(), False))
    assert not t.field("id").nullable and t.field("b").nullable
    assert not t.field("arr_nn").nullable and not t.field("arr_nn").type.value_field.nullable
    # ... and the values survive a cast to the table's types.
    assert out.cast(table.schema).to_pylist() == table.to_pylist()


def test_fastavro_decodes_the_logical_values() -> None:
    """An independent decoder (fastavro with its logical types) sees the values Arrow holds."""
    table = _all_types_table()
    records: list[Any] = list(fastavro.reader(io.BytesIO(write_avro(table, "zstd", 1))))
    expected = table.to_pylist()
    for rec, exp in zip(records, expected, strict=True):
        assert rec["dec10"] == exp["dec10"] and rec["dec38"] == exp["dec38"]
        assert rec["day"] == exp["day"] and rec["tm"] == exp["tm"]
        for name in ("ts3", "ts6"):  # timestamp-millis/micros: fastavro gives UTC datetimes
            assert (rec[name] and rec[name].replace(tzinfo=None)) == exp[name]
        for name in ("ltz3", "ltz6"):  # local-timestamp-*: naive wall clock == the UTC instant
            assert (rec[name] and rec[name]) == (exp[name] and exp[name].replace(tzinfo=None))
        assert rec["map_s"] == (None if exp["map_s"] is None else dict(exp["map_s"]))
        assert rec["map_i"] == (
            None if exp["map_i"] is None else [{"key": k, "value": v} for k, v in exp["map_i"]]
        )
        assert rec["row"] == exp["row"] and rec["arr_row"] == exp["arr_row"]


def test_sliced_and_chunked_input() -> None:
    table = _all_types_table()
    chunked = pa.concat_tables([table.slice(1, 2), table.slice(0, 1), table.slice(3)])
    out = read_avro(write_avro(chunked, "none", 1), None, {f.name: f.type for f in table.schema})
    assert out.to_pylist() == chunked.to_pylist()


def test_projection_by_name() -> None:
    table = _all_types_table()
    data = write_avro(table, "zstd", 1)
    out = read_avro(data, ["map_row", "id"], None)
    assert out.schema.names == ["map_row", "id"]
    assert out.column("id").to_pylist() == [1, 2, 3, 4]
    assert out.column("map_row").to_pylist() == table.column("map_row").to_pylist()
    assert avro_columns(data) == table.schema.names
    assert read_avro(data, [], None).num_columns == 0
    with pytest.raises(CorruptFileError, match="nope"):
        read_avro(data, ["nope"], None)


def test_many_rows_make_64000_byte_blocks() -> None:
    n = 50_000
    table = pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "s": pa.array([f"value-{i}" if i % 5 else None for i in range(n)], pa.string()),
            "d": pa.array([Decimal(i - n // 2) / 100 for i in range(n)], pa.decimal128(12, 2)),
        }
    )
    data = write_avro(table, "null", 1)
    blocks = list(fastavro.block_reader(io.BytesIO(data)))
    assert len(blocks) > 1
    assert sum(b.num_records for b in blocks) == n
    assert all(b.size >= avro_data.SYNC_INTERVAL for b in blocks[:-1])
    assert all(b.size < avro_data.SYNC_INTERVAL + 100 for b in blocks)
    assert read_avro(data, None, dict(zip(table.schema.names, table.schema.types))).equals(table)


# ------------------------------------------------------------------------------------------------
# Paimon's encoding


def test_decimal_bytes_are_javas_minimal_twos_complement() -> None:
    rng = random.Random(7)
    unscaled = [
        0,
        1,
        -1,
        127,
        128,
        -128,
        -129,
        255,
        256,
        -256,
        -257,
        32767,
        -32768,
        10**38 - 1,
        -(10**38) + 1,
    ]
    unscaled += [2**k + d for k in range(0, 126) for d in (-1, 0, 1)]
    unscaled += [-(2**k) + d for k in range(0, 126) for d in (-1, 0, 1)]
    unscaled += [rng.randrange(-(10**38) + 1, 10**38) for _ in range(2000)]
    unscaled = [u for u in unscaled if abs(u) < 10**38]
    arr = pa.array([Decimal(u).scaleb(-5, Context(prec=60)) for u in unscaled], pa.decimal128(38, 5))
    got = avro_data._decimal_to_unscaled_bytes(arr)
    assert got == [_java_bytes(u) for u in unscaled]
    back = avro_data._decimal_from_unscaled_bytes(got, 38, 5)
    assert back.equals(arr)
    # Longer (sign-extended) encodings from other writers decode too.
    padded = [b"\x00" * 20 + b"\x05", b"\xff" * 18 + b"\xfb", None]
    assert avro_data._decimal_from_unscaled_bytes(padded, 38, 0).to_pylist() == [
        Decimal(5),
        Decimal(-5),
        None,
    ]


def test_schema_text_matches_java_for_the_fixture() -> None:
    """The Java-written fixture's header holds exactly the schema we generate for its table."""
    data = next((FIXTURE_TABLE / "bucket-0").glob("*.avro")).read_bytes()
    schema_json = json.loads((FIXTURE_TABLE / "schema" / "schema-0").read_text())
    fields = [pt.parse_data_field(f) for f in schema_json["fields"]]
    meta, _ = _header(data)
    assert dict(meta)["avro.schema"] == avro_data._schema_text(avro_schema(pt.to_arrow_schema(fields)))
    assert dict(meta)["avro.codec"] == b"zstandard"


def test_nested_schema_follows_paimons_converter() -> None:
    """Record names, unions, defaults and the array-of-entries map as AvroSchemaConverter makes them."""
    schema = _schema(
        ("a", pt.RowType(tuple(pt.assign_field_ids([("x", pt.IntType(nullable=False)), ("y", ROW_T)])[0]))),
        ("m", pt.MapType(pt.IntType(nullable=False), pt.RowType(tuple(pt.assign_field_ids([("v", pt.DoubleType())])[0])))),
        ("l", pt.ArrayType(pt.RowType(tuple(pt.assign_field_ids([("w", pt.BigIntType())])[0])), nullable=False)),
        ("s", pt.MapType(pt.VarCharType(nullable=False), pt.ArrayType(pt.IntType()))),
    )
    text = avro_data._schema_text(avro_schema(schema)).decode()
    expected = (
        '{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":['
        '{"name":"a","type":["null",{"type":"record","name":"record_a","fields":['
        '{"name":"x","type":"int"},'
        '{"name":"y","type":["null",{"type":"record","name":"record_a_y","fields":['
        '{"name":"x","type":"int"},{"name":"y","type":["null","string"],"default":null}]}],"default":null}]}],'
        '"default":null},'
        '{"name":"m","type":["null",{"type":"array","items":{"type":"record","name":"record_m","fields":['
        '{"name":"key","type":"int"},'
        '{"name":"value","type":["null",{"type":"record","name":"record_m_value","fields":['
        '{"name":"v","type":["null","double"],"default":null}]}],"default":null}]},"logicalType":"map"}],'
        '"default":null},'
        '{"name":"l","type":{"type":"array","items":["null",{"type":"record","name":"record_l","fields":['
        '{"name":"w","type":["null","long"],"default":null}]}]}},'
        '{"name":"s","type":["null",{"type":"map","values":["null",{"type":"array","items":["null","int"]}]}],'
        '"default":null}]}'
    )
    assert text == expected
    # The primitives and logical types.
    prim = avro_schema(
        _schema(
            ("d", pt.DecimalType(10, 2, nullable=False)),
            ("day", pt.DateType(nullable=False)),
            ("tm", pt.TimeType(3, nullable=False)),
            ("ts0", pt.TimestampType(0, nullable=False)),
            ("ts6", pt.TimestampType(6, nullable=False)),
            ("ltz3", pt.LocalZonedTimestampType(3, nullable=False)),
            ("ltz6", pt.LocalZonedTimestampType(6, nullable=False)),
            ("t8", pt.TinyIntType(nullable=False)),
            ("bin", pt.BinaryType(3, nullable=False)),
            ("ch", pt.CharType(3, nullable=False)),
        )
    )
    assert [f["type"] for f in prim["fields"]] == [
        {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2},
        {"type": "int", "logicalType": "date"},
        {"type": "int", "logicalType": "time-millis"},
        {"type": "long", "logicalType": "timestamp-millis"},
        {"type": "long", "logicalType": "timestamp-micros"},
        {"type": "long", "logicalType": "local-timestamp-millis"},
        {"type": "long", "logicalType": "local-timestamp-micros"},
        "int",
        "bytes",
        "string",
    ]
    assert all("default" not in f for f in prim["fields"])


def test_header_layout_and_codecs() -> None:
    table = pa.table({"x": pa.array([1, None, 3], pa.int32())})
    for compression, codec in [
        ("zstd", b"zstandard"),
        ("ZSTD", b"zstandard"),
        ("none", b"null"),
        ("null", b"null"),
        ("deflate", b"deflate"),
        ("bzip2", b"bzip2"),
        ("xz", b"xz"),
    ]:
        data = write_avro(table, compression, 1)
        meta, sync = _header(data)
        assert [k for k, _ in meta] == ["avro.schema", "avro.codec"]
        assert dict(meta)["avro.codec"] == codec, compression
        assert data.endswith(sync)
        assert read_avro(data, None, None).column("x").to_pylist() == [1, None, 3]
        decoded: list[Any] = list(fastavro.reader(io.BytesIO(data)))
        assert [r["x"] for r in decoded] == [1, None, 3]
    for bad in ("lz4", "gzip", "brotli"):
        with pytest.raises(UnsupportedError, match=bad):
            write_avro(table, bad, 1)
    empty = write_avro(table.slice(0, 0), "zstd", 1)
    assert read_avro(empty, None, None).num_rows == 0


def test_zstd_level_is_used() -> None:
    table = pa.table({"s": pa.array([f"row {i} " * 20 for i in range(5000)], pa.string())})
    assert len(write_avro(table, "zstd", 19)) < len(write_avro(table, "zstd", 1))


# ------------------------------------------------------------------------------------------------
# What Paimon rejects, and bad input


def test_nanosecond_timestamps_are_rejected_as_paimon_does() -> None:
    """Paimon's AvroSchemaConverter throws for TIMESTAMP(7..9) (and TIME(>3)); we neither truncate
    nor write what Java cannot read."""
    for t in (pt.TimestampType(9), pt.LocalZonedTimestampType(7)):
        table = pa.Table.from_arrays(
            [pa.array([1], pa.int64()).cast(_schema(("t", t)).field(0).type)], schema=_schema(("t", t))
        )
        with pytest.raises(UnsupportedError, match="precision"):
            write_avro(table, "zstd", 1)
    with pytest.raises(UnsupportedError, match="TIME"):
        write_avro(pa.table({"t": pa.array([1], pa.time64("us"))}), "zstd", 1)


def test_reading_timestamp_nanos_written_by_others_keeps_nanoseconds() -> None:
    schema = {
        "type": "record",
        "name": "r",
        "fields": [
            {"name": "ts", "type": ["null", {"type": "long", "logicalType": "timestamp-nanos"}]},
            {"name": "ltz", "type": {"type": "long", "logicalType": "local-timestamp-nanos"}},
        ],
    }
    buf = io.BytesIO()
    fastavro.writer(buf, schema, [{"ts": 1700000000123456789, "ltz": -1}, {"ts": None, "ltz": 1}])
    out = read_avro(buf.getvalue(), None, None)
    assert out.schema.field("ts").type == _ts("ns")
    assert out.schema.field("ltz").type == _ts("ns", "UTC")
    assert out.column("ts").cast(pa.int64()).to_pylist() == [1700000000123456789, None]
    assert out.column("ltz").cast(pa.int64()).to_pylist() == [-1, 1]


def test_null_in_not_null_column_is_rejected() -> None:
    schema = _schema(("id", pt.BigIntType(nullable=False)))
    with pytest.raises(ValidationError, match="'id'"):
        write_avro(pa.Table.from_arrays([pa.array([1, None], pa.int64())], schema=schema), "zstd", 1)
    nested = _schema(("r", ROW_T))
    bad = pa.Table.from_arrays([pa.array([{"x": None, "y": "a"}], nested.field(0).type)], schema=nested)
    with pytest.raises(ValidationError, match=r"'r\.x'"):
        write_avro(bad, "zstd", 1)


def test_corrupt_input() -> None:
    with pytest.raises(CorruptFileError):
        read_avro(b"PAR1 not avro", None, None)
    data = write_avro(pa.table({"x": pa.array(list(range(1000)), pa.int64())}), "null", 1)
    with pytest.raises(CorruptFileError):
        read_avro(data[:40], None, None)
    with pytest.raises(CorruptFileError):
        read_avro(data[: len(data) // 2], None, None)


# ------------------------------------------------------------------------------------------------
# The Java-written fixture

FIXTURE_ROWS = [  # README: Timestamp(millis, nanosOfMilli) per column
    (1000, 1, 1, 2000, 2, 2),
    (None, 3, None, None, 4, None),
    (5000, None, 5, 6000, None, 6),
]
FIXTURE_TYPES = [_ts("ms"), _ts("ms"), _ts("us"), _ts("ms", "UTC"), _ts("ms", "UTC"), _ts("us", "UTC")]
FIXTURE_NAMES = ["ts_sec", "ts_milli", "ts_micro", "ts_tz_sec", "ts_tz_milli", "ts_tz_micro"]


def _fixture_expected() -> pa.Table:
    cols = [pa.array([r[i] for r in FIXTURE_ROWS], pa.int64()).cast(t) for i, t in enumerate(FIXTURE_TYPES)]
    return pa.table(dict(zip(FIXTURE_NAMES, cols)))


def test_reads_the_java_written_fixture() -> None:
    data = next((FIXTURE_TABLE / "bucket-0").glob("*.avro")).read_bytes()
    out = read_avro(data, None, None)
    assert out.equals(_fixture_expected())
    # With the table's Arrow types (TIMESTAMP(0) is ms in Arrow, like TIMESTAMP(3)).
    fields = [
        pt.parse_data_field(f) for f in json.loads((FIXTURE_TABLE / "schema" / "schema-0").read_text())["fields"]
    ]
    arrow = pt.to_arrow_schema(fields)
    typed = read_avro(data, ["ts_tz_micro", "ts_sec"], {f.name: f.type for f in arrow})
    assert typed.column("ts_sec").equals(_fixture_expected().column("ts_sec"))
    assert typed.column("ts_tz_micro").equals(_fixture_expected().column("ts_tz_micro"))


def test_engine_reads_the_java_written_avro_table(tmp_path: Path) -> None:
    warehouse = tmp_path / "wh"
    shutil.copytree(FIXTURE_TABLE.parent, warehouse / FIXTURE_TABLE.parent.name)
    table = Catalog(str(warehouse)).get_table(
        "append_with_multiple_ts_precision_and_timezone.append_with_multiple_ts_precision_and_timezone"
    )
    out = table.read()
    assert sorted(out.to_pylist(), key=repr) == sorted(_fixture_expected().to_pylist(), key=repr)


# ------------------------------------------------------------------------------------------------
# data_files and the engine


def test_data_files_avro_branches(tmp_path: Path) -> None:
    file_io, root = FileIO.for_uri(str(tmp_path))
    table = _all_types_table()
    path = root + "/data-0.avro"
    size = write_file(file_io, path, table, "avro", "zstd", 1)
    assert size == len(file_io.read_bytes(path))
    assert file_columns(file_io, path, "avro") == table.schema.names
    got = read_file(file_io, path, "avro", ["row", "id"])
    assert got.column("row").to_pylist() == table.column("row").to_pylist()
    # Paimon's system columns come back with the Arrow types the other formats give them.
    kv = pa.table(
        {"_SEQUENCE_NUMBER": pa.array([1, 2], pa.int64()), "_VALUE_KIND": pa.array([0, 3], pa.int8())}
    )
    write_file(file_io, root + "/kv.avro", kv, "avro", "none", 1)
    assert read_file(file_io, root + "/kv.avro", "avro").schema.types == [pa.int64(), pa.int8()]


ENGINE_SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), False),
        ("name", pa.string()),
        ("small", pa.int8()),
        ("price", pa.decimal128(10, 2)),
        ("big", pa.decimal128(38, 10)),
        ("ts", pa.timestamp("us")),
        ("ts3", pa.timestamp("ms")),
        ("ltz", pa.timestamp("us", tz="UTC")),
        ("day", pa.date32()),
        ("raw", pa.binary()),
        ("score", pa.float32()),
        ("flag", pa.bool_()),
        ("tags", pa.list_(pa.string())),
        ("point", pa.struct([("x", pa.int32()), ("y", pa.string())])),
        ("attrs", pa.map_(pa.string(), pa.int32())),
        ("codes", pa.map_(pa.int32(), pa.string())),
    ]
)


def _engine_rows(ids: list[int], tag: str) -> pa.Table:
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "name": pa.array([f"{tag}-{i}" if i % 3 else None for i in ids], pa.string()),
            "small": pa.array([i % 100 - 50 for i in ids], pa.int8()),
            "price": pa.array([Decimal(i * 7 - 100) / 100 for i in ids], pa.decimal128(10, 2)),
            "big": pa.array(
                [None if i % 4 == 0 else Decimal(f"-{i}1234567890123456789012345.0123456789") for i in ids],
                pa.decimal128(38, 10),
            ),
            "ts": pa.array([1700000000123456 + i for i in ids], pa.int64()).cast(pa.timestamp("us")),
            "ts3": pa.array([1700000000123 - i for i in ids], pa.int64()).cast(pa.timestamp("ms")),
            "ltz": pa.array([None if i % 5 == 0 else 1600000000654321 + i for i in ids], pa.int64()).cast(
                pa.timestamp("us", tz="UTC")
            ),
            "day": pa.array([19000 + i for i in ids], pa.int32()).cast(pa.date32()),
            "raw": pa.array([bytes([i % 256, 0, 255]) for i in ids], pa.binary()),
            "score": pa.array([i / 4 for i in ids], pa.float32()),
            "flag": pa.array([None if i % 7 == 0 else i % 2 == 0 for i in ids], pa.bool_()),
            "tags": pa.array([[tag, None, str(i)] if i % 2 else [] for i in ids], pa.list_(pa.string())),
            "point": pa.array(
                [None if i % 6 == 0 else {"x": i, "y": tag} for i in ids], ENGINE_SCHEMA.field("point").type
            ),
            "attrs": pa.array([[("a", i), ("b", None)] for i in ids], ENGINE_SCHEMA.field("attrs").type),
            "codes": pa.array([[(i, tag), (-i - 1, None)] for i in ids], ENGINE_SCHEMA.field("codes").type),
        },
        schema=ENGINE_SCHEMA,
    )


def _avro_data_files(table_dir: Path) -> list[Path]:
    files = sorted(table_dir.rglob("data-*"))
    assert files and all(f.suffix == ".avro" for f in files)
    return files


def _write_engine_tables(warehouse: Path) -> dict[str, pa.Table]:
    catalog = Catalog(str(warehouse))
    catalog.create_database("db")
    append = catalog.create_table("db.append", ENGINE_SCHEMA, options={"file.format": "avro"})
    append.write(_engine_rows(list(range(0, 20)), "a"))
    append.write(_engine_rows(list(range(20, 30)), "b"))
    pk = catalog.create_table(
        "db.pk", ENGINE_SCHEMA, primary_keys=["id"], options={"file.format": "avro", "bucket": "2"}
    )
    pk.write(_engine_rows(list(range(0, 20)), "a"))
    pk.write(_engine_rows(list(range(10, 30)), "b"))  # upserts ids 10..19
    expected_pk = pa.concat_tables(
        [_engine_rows(list(range(0, 10)), "a"), _engine_rows(list(range(10, 30)), "b")]
    )
    expected_append = pa.concat_tables(
        [_engine_rows(list(range(0, 20)), "a"), _engine_rows(list(range(20, 30)), "b")]
    )
    return {"db.append": expected_append, "db.pk": expected_pk}


def _sorted_rows(t: pa.Table) -> list[dict[str, Any]]:
    return sorted(t.to_pylist(), key=lambda r: r["id"])


def test_engine_append_and_primary_key_tables_in_avro(tmp_path: Path) -> None:
    warehouse = tmp_path / "wh"
    expected = _write_engine_tables(warehouse)
    catalog = Catalog(str(warehouse))
    for name, want in expected.items():
        table = catalog.get_table(name)
        got = table.read()
        assert got.schema.equals(table.arrow_schema) or got.schema.types == table.arrow_schema.types
        assert _sorted_rows(got) == _sorted_rows(want), name
        for path in _avro_data_files(warehouse / "db.db" / name.split(".")[1]):
            meta, _ = _header(path.read_bytes())
            assert dict(meta)["avro.codec"] == b"zstandard"
    # Primary-key files carry Paimon's key-value layout.
    pk_file = _avro_data_files(warehouse / "db.db" / "pk")[0].read_bytes()
    assert avro_columns(pk_file)[:3] == ["_KEY_id", "_SEQUENCE_NUMBER", "_VALUE_KIND"]
    fields = json.loads(dict(_header(pk_file)[0])["avro.schema"])["fields"]
    assert [f["type"] for f in fields[:3]] == ["long", "long", "int"]
    # Filters and projections go through the avro reader too.
    pk = catalog.get_table("db.pk")
    assert sorted(pk.read(columns=["id", "name"], filter="id >= 25").column("id").to_pylist()) == [
        25,
        26,
        27,
        28,
        29,
    ]


def _interop() -> Any:
    return importlib.import_module("tests.helpers.interop_util")


def test_pypaimon_reads_our_avro_tables(tmp_path: Path) -> None:
    util = _interop()
    python, why = util.ensure_pypaimon_python()
    if python is None:
        pytest.skip(why)
    warehouse = tmp_path / "wh"
    expected = _write_engine_tables(warehouse)
    scratch = tmp_path / "ipc"
    scratch.mkdir()
    pypaimon = util.PypaimonIO(python, warehouse, scratch)
    for name, want in expected.items():
        got = pypaimon.read(name)
        util.assert_same_rows(got, want, f"pypaimon reading {name} (file.format=avro)")
