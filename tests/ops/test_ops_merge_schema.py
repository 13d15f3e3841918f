"""Schema evolution on write (``Table.write_merge_schema``, Paimon's ``write.merge-schema``), with the
cases of Paimon's WriteMergeSchemaTest / V2WriteMergeSchemaTest: new columns, missing and new columns,
nested struct fields (also in arrays), type widening, case-insensitive names."""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import UnsupportedError


def _rows(t: object, key: str) -> list[dict]:
    return sorted(t.refresh().read().to_pylist(), key=lambda r: (r[key] is not None, r[key]))  # type: ignore[attr-defined]


def test_new_columns_then_missing_and_new(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", pa.schema([("a", pa.int32()), ("b", pa.string())]))
    t.write_merge_schema(pa.table({"a": pa.array([1, 2], pa.int32()), "b": ["1", "2"]}))
    t.write_merge_schema(pa.table({"a": pa.array([3], pa.int32()), "b": ["3"], "c": pa.array([3], pa.int32())}))
    assert _rows(t, "a") == [{"a": 1, "b": "1", "c": None}, {"a": 2, "b": "2", "c": None}, {"a": 3, "b": "3", "c": 3}]
    t.refresh().write_merge_schema(pa.table({"d": ["4"], "b": ["4"], "c": pa.array([4], pa.int32())}))
    assert _rows(t, "a") == [
        {"a": None, "b": "4", "c": 4, "d": "4"}, {"a": 1, "b": "1", "c": None, "d": None},
        {"a": 2, "b": "2", "c": None, "d": None}, {"a": 3, "b": "3", "c": 3, "d": None}]
    assert t.refresh().schema.id == 2


def test_numeric_date_and_complex_new_columns(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", pa.schema([("a", pa.int32()), ("b", pa.string())]))
    data = pa.table({
        "a": pa.array([3], pa.int32()), "b": ["3"], "byte_col": pa.array([10], pa.int8()),
        "long_col": pa.array([10000000000], pa.int64()), "decimal_col": pa.array([Decimal("7.89")], pa.decimal128(10, 2)),
        "date_col": pa.array([19358], pa.date32()), "array_col": [[1, 2, 3]],
        "map_col": pa.array([[("key1", "value1")]], pa.map_(pa.string(), pa.string())),
        "struct_col": [{"x": "x", "y": 1}],
    })
    t.write_merge_schema(data)
    t = t.refresh()
    assert [f.type.to_string() for f in t.schema.fields] == [
        "INT", "STRING", "TINYINT", "BIGINT", "DECIMAL(10, 2)", "DATE", "ARRAY<BIGINT>", "MAP<STRING NOT NULL, STRING>",
        "ROW<`x` STRING, `y` BIGINT>"]
    row = t.read().to_pylist()[0]
    assert row["decimal_col"] == Decimal("7.89") and row["array_col"] == [1, 2, 3] and row["struct_col"] == {"x": "x", "y": 1}


def test_nested_struct_new_and_missing_fields(catalog: Catalog) -> None:
    info = pa.struct([("key1", pa.struct([("key2", pa.string()), ("key3", pa.string())]))])
    t = catalog.create_table("db.t", pa.schema([("id", pa.int32()), ("info", info)]))
    t.write(pa.table({"id": pa.array([1], pa.int32()), "info": [{"key1": {"key2": "v2a", "key3": "v3a"}}]},
                     schema=t.arrow_schema))
    # a new nested field key4 placed before key3 in the data: matched by name, added last
    t.write_merge_schema(pa.table({"id": pa.array([3], pa.int32()),
                                   "info": [{"key1": {"key2": "v2c", "key4": "v4c", "key3": "v3c"}}]}))
    assert _rows(t, "id") == [{"id": 1, "info": {"key1": {"key2": "v2a", "key3": "v3a", "key4": None}}},
                              {"id": 3, "info": {"key1": {"key2": "v2c", "key3": "v3c", "key4": "v4c"}}}]
    # missing nested fields are null; a new top-level column at once
    t.refresh().write_merge_schema(pa.table({"id": pa.array([4], pa.int32()),
                                             "info": [{"key1": {"key3": "q"}}], "extra": ["top"]}))
    assert _rows(t, "id")[-1] == {"id": 4, "info": {"key1": {"key2": None, "key3": "q", "key4": None}}, "extra": "top"}


def test_array_of_struct_missing_nested_field(catalog: Catalog) -> None:
    item = pa.struct([("f1", pa.int32()), ("f2", pa.string()), ("f6", pa.int32())])
    t = catalog.create_table("db.t", pa.schema([("a", pa.int64()), ("items", pa.list_(item))]))
    data = pa.table({"a": [1], "items": [[{"f1": 10, "f2": "v2"}]]},
                    schema=pa.schema([("a", pa.int64()), ("items", pa.list_(pa.struct([("f1", pa.int32()),
                                                                                        ("f2", pa.string())])))]))
    t.write_merge_schema(data)
    assert t.refresh().read().to_pylist() == [{"a": 1, "items": [{"f1": 10, "f2": "v2", "f6": None}]}]
    assert t.refresh().schema.id == 0  # nothing new: no schema change


def test_map_of_struct_fields_by_name(catalog: Catalog) -> None:
    """ROW fields inside MAP values: a missing field is null, a new one is added; null maps and
    null values stay null; a sliced input (non-zero first offset) is aligned right."""
    value = pa.struct([("f1", pa.int32()), ("f2", pa.string())])
    t = catalog.create_table("db.t", pa.schema([("a", pa.int64()), ("m", pa.map_(pa.string(), value))]))
    src = pa.struct([("f3", pa.string()), ("f1", pa.int32())])
    data = pa.table({"a": [0, 1, 2, 3],
                     "m": pa.array([[("z", {"f3": "z", "f1": 0})], [("k", {"f3": "x", "f1": 10})], None,
                                    [("a", None), ("b", {"f3": None, "f1": 20})]], pa.map_(pa.string(), src))})
    t.write_merge_schema(data.slice(1))
    assert [f.name for f in t.refresh().schema.fields] == ["a", "m"]
    assert t.refresh().read().sort_by("a").to_pylist() == [
        {"a": 1, "m": [("k", {"f1": 10, "f2": None, "f3": "x"})]}, {"a": 2, "m": None},
        {"a": 3, "m": [("a", None), ("b", {"f1": 20, "f2": None, "f3": None})]}]


def test_type_widening(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", pa.schema([("id", pa.int32()), ("value", pa.int32())]))
    big = pa.table({"id": pa.array([2], pa.int32()), "value": pa.array([200], pa.int64())})
    t.write_merge_schema(big)  # without widening the table keeps INT
    assert t.refresh().schema.field("value").type.to_string() == "INT"
    t.refresh().write_merge_schema(big, type_widening=True)
    assert t.refresh().schema.field("value").type.to_string() == "BIGINT"
    with pytest.raises(UnsupportedError, match="Failed to merge data types BIGINT and STRING"):
        t.refresh().write_merge_schema(pa.table({"id": pa.array([3], pa.int32()), "value": ["x"]}), type_widening=True)
    t.refresh().write_merge_schema(pa.table({"id": pa.array([3], pa.int32()), "value": ["5"]}), type_widening=True,
                                   explicit_cast=True)
    assert t.refresh().schema.field("value").type.to_string() == "STRING"
    assert sorted(r["value"] for r in t.refresh().read().to_pylist()) == ["200", "200", "5"]


def test_case_insensitive_names(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", pa.schema([("id", pa.int32()), ("name", pa.string())]))
    t.write_merge_schema(pa.table({"ID": pa.array([1], pa.int32()), "NAME": ["a"], "extra": [1]}))
    t = t.refresh()
    assert t.schema.field_names == ["id", "name", "extra"]
    t.write_merge_schema(pa.table({"Id": pa.array([2], pa.int32()), "NaMe": ["b"]}))
    assert _rows(t, "id") == [{"id": 1, "name": "a", "extra": 1}, {"id": 2, "name": "b", "extra": None}]
    t.refresh().write_merge_schema(pa.table({"ID": pa.array([3], pa.int32())}), case_sensitive=True)
    assert t.refresh().schema.field_names == ["id", "name", "extra", "ID"]
