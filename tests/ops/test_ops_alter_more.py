"""The rest of Paimon's schema evolution, on the engine: moving existing columns (SchemaManager's
applyMove, SparkSchemaEvolutionITCase.testUpdateColumnPosition), nullability changes
(assertNullabilityChange and 'alter-column-null-to-not-null.disabled'), renaming primary-key columns
(testRenamePrimaryKey) and the refusals for partition / key columns, type changes beyond widening
(DataTypeCasts.supportsCast, 'disable-explicit-type-casting') with old files read through Paimon's
casts in parquet, orc and avro, and 'add-column-before-partition'."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql import types as pt
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.meta.schema_change import (
    AddColumn,
    DropColumn,
    Move,
    RenameColumn,
    UpdateColumnNullability,
    UpdateColumnPosition,
    UpdateColumnType,
)

STRING = pt.VarCharType(pt.MAX_LENGTH)
ABCD = pa.schema([("a", pa.int32()), ("b", pa.int64()), ("c", pa.string()), ("d", pa.float64())])


def names(t: object) -> list[str]:
    return [f.name for f in t.schema.fields]  # type: ignore[attr-defined]


def test_move_columns(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", ABCD)
    t.write(pa.table({"a": [1], "b": [2], "c": ["x"], "d": [0.5]}, schema=ABCD))
    assert names(t.alter(UpdateColumnPosition.of(Move.first("b")))) == ["b", "a", "c", "d"]
    t = catalog.create_table("db.t2", ABCD)
    assert names(t.alter(UpdateColumnPosition.of(Move.after("b", "c")))) == ["a", "c", "b", "d"]
    t = catalog.create_table("db.t3", ABCD)
    t = t.alter(UpdateColumnPosition.of(Move.after("d", "a")))
    assert names(t) == ["a", "d", "b", "c"]
    t = t.alter(UpdateColumnPosition.of(Move.before("a", "c")))
    assert names(t) == ["d", "b", "a", "c"]
    assert names(t.alter(UpdateColumnPosition.of(Move.last("d")))) == ["b", "a", "c", "d"]
    # old files read by field id, whatever the order
    t = catalog.get_table("db.t")
    assert t.read().to_pylist() == [{"b": 2, "a": 1, "c": "x", "d": 0.5}]


def test_move_refusals(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", ABCD)
    with pytest.raises(UnsupportedError, match="Cannot move itself for column a"):
        t.alter(UpdateColumnPosition.of(Move.first("a")))
    with pytest.raises(UnsupportedError, match="Cannot move itself for column b"):
        t.alter(UpdateColumnPosition.of(Move.after("b", "b")))
    with pytest.raises(UnsupportedError, match="Cannot move itself for column d"):
        t.alter(UpdateColumnPosition.of(Move.last("d")))
    with pytest.raises(ValidationError, match="Field name not found: e"):
        t.alter(UpdateColumnPosition.of(Move.first("e")))
    with pytest.raises(ValidationError, match="Reference field name not found: e"):
        t.alter(UpdateColumnPosition.of(Move.after("a", "e")))
    assert t.refresh().schema.id == 0


def test_move_nested_field(catalog: Catalog) -> None:
    schema = pa.schema([("k", pa.int32()), ("s", pa.struct([("f1", pa.int32()), ("f2", pa.string())]))])
    t = catalog.create_table("db.t", schema)
    t.write(pa.table({"k": [1], "s": [{"f1": 5, "f2": "x"}]}, schema=schema))
    t = t.alter(UpdateColumnPosition.of(Move.first("f2"), "s"))
    s_type = t.schema.field("s").type
    assert isinstance(s_type, pt.RowType) and [f.name for f in s_type.fields] == ["f2", "f1"]
    assert t.read().to_pylist() == [{"k": 1, "s": {"f2": "x", "f1": 5}}]


def test_nullability(catalog: Catalog) -> None:
    schema = pa.schema([pa.field("k", pa.int64(), False), pa.field("v", pa.int32(), False), ("w", pa.string())])
    t = catalog.create_table("db.t", schema, primary_keys=["k"], options={"bucket": "1"})
    t.write(pa.table({"k": [1], "v": [2], "w": ["x"]}, schema=schema))
    with pytest.raises(UnsupportedError, match="Cannot change nullability of primary key"):
        t.alter(UpdateColumnNullability.of("k", True))
    t = t.alter(UpdateColumnNullability.of("v", True))  # DROP NOT NULL
    assert t.schema.field("v").type.nullable
    t.write(pa.table({"k": [2], "v": [None], "w": ["y"]}))
    assert sorted(t.read().to_pylist(), key=lambda r: r["k"]) == [
        {"k": 1, "v": 2, "w": "x"}, {"k": 2, "v": None, "w": "y"}]
    with pytest.raises(UnsupportedError, match="Cannot update column type from nullable to non nullable for w"):
        t.alter(UpdateColumnNullability.of("w", False))
    with pytest.raises(UnsupportedError, match="alter-column-null-to-not-null.disabled"):
        t.alter(UpdateColumnType.of("w", STRING.copy(False), keep_nullability=False))
    t = t.alter(UpdateColumnNullability.of("k", False))  # a key stays NOT NULL: no change, allowed
    assert not t.schema.field("k").type.nullable
    from paimon_sql.meta.schema_change import SetOption

    t = t.alter(SetOption("alter-column-null-to-not-null.disabled", "false"))
    t = t.alter(UpdateColumnNullability.of("w", False))
    assert not t.schema.field("w").type.nullable


def test_rename_primary_key_column(catalog: Catalog) -> None:
    """testRenamePrimaryKey: the key keeps its data and later upserts replace the old rows."""
    schema = pa.schema([pa.field("a", pa.int64(), False), ("b", pa.string())])
    t = catalog.create_table("db.t", schema, primary_keys=["a"], options={"bucket": "2"})
    t.write(pa.table({"a": [1, 2], "b": ["aaa", "bbb"]}, schema=schema))
    t = t.alter(RenameColumn.of("a", "a_"))
    assert t.schema.primary_keys == ("a_",) and names(t) == ["a_", "b"]
    assert sorted(t.read().to_pylist(), key=lambda r: r["a_"]) == [{"a_": 1, "b": "aaa"}, {"a_": 2, "b": "bbb"}]
    t.write(pa.table({"a_": [1, 2], "b": ["AAA", "BBB"]}, schema=pa.schema([pa.field("a_", pa.int64(), False),
                                                                             ("b", pa.string())])))
    assert sorted(t.read().to_pylist(), key=lambda r: r["a_"]) == [{"a_": 1, "b": "AAA"}, {"a_": 2, "b": "BBB"}]
    assert t.read(filter="a_ = 2").to_pylist() == [{"a_": 2, "b": "BBB"}]
    with pytest.raises(UnsupportedError, match=r"Cannot drop partition key or primary key: \[a_\]"):
        t.alter(DropColumn.of("a_"))


def test_rename_bucket_key_column(catalog: Catalog) -> None:
    """testRenameBucketKey: 'bucket-key' follows the rename; the rows stay where they hash."""
    schema = pa.schema([pa.field("a", pa.int64(), False), ("b", pa.string())])
    t = catalog.create_table("db.t", schema, options={"bucket-key": "a,b", "bucket": "16"})
    t.write(pa.table({"a": [1, 2], "b": ["aaa", "bbb"]}, schema=schema))
    t = t.alter(RenameColumn.of("b", "b_"))
    assert t.options["bucket-key"] == "a,b_"
    assert t.read(filter="b_ = 'bbb'").to_pylist() == [{"a": 2, "b_": "bbb"}]


def test_key_and_partition_refusals(catalog: Catalog) -> None:
    schema = pa.schema([pa.field("a", pa.int64(), False), ("b", pa.string()), ("dt", pa.string())])
    t = catalog.create_table("db.t", schema, primary_keys=["dt", "a"], partition_keys=["dt"])
    with pytest.raises(UnsupportedError, match=r"Cannot rename partition column: \[dt\]"):
        t.alter(RenameColumn.of("dt", "day"))
    with pytest.raises(UnsupportedError, match=r"Cannot update partition column: \[dt\]"):
        t.alter(UpdateColumnType.of("dt", pt.VarCharType(20)))
    with pytest.raises(UnsupportedError, match="Cannot update primary key"):
        t.alter(UpdateColumnType.of("a", pt.DecimalType(20, 0)))
    with pytest.raises(UnsupportedError, match=r"Cannot drop partition key or primary key: \[dt\]"):
        t.alter(DropColumn.of("dt"))
    assert t.refresh().schema.id == 0


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
def test_type_changes_read_old_files_with_paimon_casts(catalog: Catalog, fmt: str) -> None:
    """INT -> STRING, STRING -> INT, BIGINT -> INT (overflow wraps as Java's narrowing), INT -> FLOAT,
    DOUBLE -> DECIMAL (overflow reads null), BIGINT -> DOUBLE; old files cast on read."""
    schema = pa.schema([("k", pa.int32()), ("i", pa.int32()), ("s", pa.string()), ("big", pa.int64()),
                        ("f", pa.int32()), ("d", pa.float64())])
    t = catalog.create_table("db.t", schema, options={"file.format": fmt})
    t.write(pa.table({"k": [1, 2], "i": [7, -3], "s": ["12", "-40"], "big": [5, 2**31 + 1],
                      "f": [16777217, 3], "d": [1.25, 1e10]}, schema=schema))
    t = t.alter(UpdateColumnType.of("i", STRING), UpdateColumnType.of("s", pt.IntType()),
                UpdateColumnType.of("big", pt.IntType()), UpdateColumnType.of("f", pt.FloatType()),
                UpdateColumnType.of("d", pt.DecimalType(6, 2)))
    assert [f.type.to_string() for f in t.schema.fields] == ["INT", "STRING", "INT", "INT", "FLOAT", "DECIMAL(6, 2)"]
    rows = sorted(t.read().to_pylist(), key=lambda r: r["k"])
    assert [r["i"] for r in rows] == ["7", "-3"]
    assert [r["s"] for r in rows] == [12, -40]
    assert [r["big"] for r in rows] == [5, -(2**31) + 1]  # (int) 2147483649L
    assert [r["f"] for r in rows] == [16777216.0, 3.0]  # float precision, as Java's (float) int
    assert [str(r["d"]) if r["d"] is not None else None for r in rows] == ["1.25", None]
    # new files are written with the new types and read with the old ones together
    new = pa.schema([("k", pa.int32()), ("i", pa.string()), ("s", pa.int32()), ("big", pa.int32()),
                     ("f", pa.float32()), ("d", pa.decimal128(6, 2))])
    t.write(pa.table({"k": [3], "i": ["x"], "s": [9], "big": [1], "f": [0.5], "d": [None]}, schema=new))
    assert sorted(t.read().to_pylist(), key=lambda r: r["k"])[-1] == {
        "k": 3, "i": "x", "s": 9, "big": 1, "f": 0.5, "d": None}


def test_invalid_string_fails_the_read(catalog: Catalog) -> None:
    """A STRING value that is no number fails the read, as Paimon's StringToNumericPrimitiveCastRule."""
    schema = pa.schema([("k", pa.int32()), ("s", pa.string())])
    t = catalog.create_table("db.t", schema)
    t.write(pa.table({"k": [1], "s": [" 4"]}, schema=schema))
    t = t.alter(UpdateColumnType.of("s", pt.IntType()))
    with pytest.raises(ValidationError, match="' 4'"):  # no blanks, as BinaryStringUtils.toInt
        t.read()


def test_explicit_casts_can_be_disabled(catalog: Catalog) -> None:
    schema = pa.schema([("k", pa.int32()), ("big", pa.int64()), ("i", pa.int32())])
    t = catalog.create_table("db.t", schema, options={"disable-explicit-type-casting": "true"})
    with pytest.raises(ValidationError, match=r"Column type big\[BIGINT\] cannot be converted to INT without losing"):
        t.alter(UpdateColumnType.of("big", pt.IntType()))
    t = t.alter(UpdateColumnType.of("i", pt.BigIntType()))  # widening stays allowed
    assert t.schema.field("i").type == pt.BigIntType()
    with pytest.raises(ValidationError, match=r"Column type k\[INT\] cannot be converted to DATE"):
        catalog.create_table("db.t2", schema).alter(UpdateColumnType.of("k", pt.DateType()))
    with pytest.raises(ValidationError, match="cannot be converted"):  # no nested rule in CastExecutors
        catalog.create_table("db.t3", pa.schema([("a", pa.list_(pa.int32()))])).alter(
            UpdateColumnType.of("a", pt.ArrayType(pt.BigIntType())))


def test_add_column_before_partition(catalog: Catalog) -> None:
    schema = pa.schema([("a", pa.int32()), ("dt", pa.string()), ("hh", pa.string())])
    t = catalog.create_table("db.t", schema, partition_keys=["dt", "hh"],
                             options={"add-column-before-partition": "true"})
    t = t.alter(AddColumn.of("x", pt.IntType()))
    assert names(t) == ["a", "x", "dt", "hh"]
    t = t.alter(AddColumn.of("y", pt.IntType(), move=Move.last("y")))  # an explicit position wins
    assert names(t) == ["a", "x", "dt", "hh", "y"]


def test_add_not_null_column_is_refused_with_paimons_message(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", ABCD)
    with pytest.raises(ValidationError, match="Column e cannot specify NOT NULL in the db.t table."):
        t.alter(AddColumn.of("e", pt.IntType(nullable=False)))


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
def test_element_and_value_types(catalog: Catalog, fmt: str) -> None:
    """``v.element`` / ``m.value`` name an array's element type / a map's value type (Paimon's
    getRootType): ARRAY<INT> -> ARRAY<BIGINT>, MAP<STRING, INT> -> MAP<STRING, STRING>, old files cast."""
    schema = pa.schema([("k", pa.int32()), ("v", pa.list_(pa.int32())), ("m", pa.map_(pa.string(), pa.int32()))])
    t = catalog.create_table("db.t", schema, options={"file.format": fmt})
    t.write(pa.table({"k": [1], "v": [[1, None, 3]], "m": [[("a", 5)]]}, schema=schema))
    t = t.alter(UpdateColumnType.of(["v", "element"], pt.BigIntType()),
                UpdateColumnType.of(["m", "value"], STRING), UpdateColumnNullability.of(["v", "element"], True))
    assert [f.type.to_string() for f in t.schema.fields] == ["INT", "ARRAY<BIGINT>", "MAP<STRING NOT NULL, STRING>"]
    row = t.read().to_pylist()[0]
    assert row["v"] == [1, None, 3] and dict(row["m"]) == {"a": "5"}
    with pytest.raises(ValidationError, match=r"Column type v\[BIGINT\] cannot be converted to DATE"):
        t.alter(UpdateColumnType.of(["v", "element"], pt.DateType()))
