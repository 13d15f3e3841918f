"""``fields.<name>.default-value`` (Paimon up to 1.2): nulls read as the default, after the merge;
filters on such columns prune nothing. Cases from Paimon's DefaultValueAssignerTest,
DefaultValueScannerTest and ReadWriteTableITCase (testDefaultValueWith[out]PrimaryKey)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.options import CoreOptions
from paimon_sql.predicate import and_, equal, or_, parse_predicate
from paimon_sql.scan.default_values import default_value, fill_defaults, without_default_columns
from paimon_sql.scan.reader import read_split
from paimon_sql.types import fields_from_arrow_schema

RATES = pa.schema([("id", pa.int64()), ("currency", pa.string()), ("rate", pa.int64()), ("dt", pa.string())])
DEFAULT = {"fields.rate.default-value": "1000"}


def rates(*rows: tuple[Any, ...]) -> pa.Table:
    return pa.table({n: [r[i] for r in rows] for i, n in enumerate(RATES.names)}, schema=RATES)


def by_id(t: pa.Table) -> list[tuple[Any, ...]]:
    return sorted(tuple(r.values()) for r in t.to_pylist())


def test_append_table_nulls_read_as_the_default_and_filters_see_it(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", RATES, options=DEFAULT)
    t.write(rates((1, "US Dollar", 114, "2022-01-01"), (2, "Yen", None, "2022-01-01"),
                  (3, "Euro", None, "2022-01-01"), (3, "Euro", 119, "2022-01-02")))
    t.write(rates((4, "Won", 5, "2022-01-03")))  # a file whose stats (5..5, no null) exclude 1000
    assert by_id(t.read(filter="rate = 1000")) == [
        (2, "Yen", 1000, "2022-01-01"), (3, "Euro", 1000, "2022-01-01")]
    # the filter column is not returned: still filled in before filtering
    assert by_id(t.read(columns=["id"], filter="rate = 1000 and dt = '2022-01-01'")) == [(2,), (3,)]
    assert by_id(t.read(columns=["rate"])) == [(5,), (114,), (119,), (1000,), (1000,)]
    assert t.read(filter="rate is null").num_rows == 0


@pytest.mark.parametrize("engine", ["deduplicate", "partial-update", "aggregation", "first-row"])
def test_primary_key_table_every_merge_engine(catalog: Catalog, engine: str) -> None:
    t = catalog.create_table("db.t", RATES, primary_keys=["id", "dt"], partition_keys=["dt"],
                             options={**DEFAULT, "merge-engine": engine, "bucket": "1"})
    t.write(rates((1, "US Dollar", 114, "2022-01-01"), (2, "Yen", None, "2022-01-01"),
                  (3, "Euro", None, "2022-01-02")))
    t.write(rates((2, "Yen", None, "2022-01-01")))
    assert by_id(t.read(filter="rate = 1000 and currency = 'Euro'")) == [(3, "Euro", 1000, "2022-01-02")]
    assert by_id(t.read(columns=["id", "rate"])) == [(1, 114), (2, 1000), (3, 1000)]


def test_default_applies_after_the_merge(catalog: Catalog) -> None:
    """DefaultValueScannerTest: the newest record of key 1 has a null b: the merged row reads the
    default, not the older 101; a filter on b still keeps the rows that read as matching."""
    schema = pa.schema([("pt", pa.int32()), ("a", pa.int32()), ("b", pa.int64())])
    t = catalog.create_table("db.t", schema, primary_keys=["pt", "a"], partition_keys=["pt"],
                             options={"fields.b.default-value": "100", "bucket": "1"})
    t.write(pa.table({"pt": [1], "a": [10], "b": [101]}, schema=schema))
    t.write(pa.table({"pt": [1], "a": [10], "b": [None]}, schema=schema))
    assert t.read().to_pylist() == [{"pt": 1, "a": 10, "b": 100}]
    t.write(pa.table({"pt": [2, 2], "a": [11, 12], "b": [200, None]}, schema=schema))
    assert by_id(t.read(filter="pt = 2 and b = 200")) == [(2, 11, 200)]
    assert by_id(t.read(filter="pt = 2 and b = 100")) == [(2, 12, 100)]
    # partial-update: a null does not replace the older value; only a key without any reads the default
    p = catalog.create_table("db.p", schema, primary_keys=["pt", "a"], partition_keys=["pt"],
                             options={"fields.b.default-value": "100", "bucket": "1",
                                      "merge-engine": "partial-update"})
    p.write(pa.table({"pt": [1, 1], "a": [10, 11], "b": [101, None]}, schema=schema))
    p.write(pa.table({"pt": [1, 1], "a": [10, 11], "b": [None, None]}, schema=schema))
    assert by_id(p.read()) == [(1, 10, 101), (1, 11, 100)]


def test_projection_fills_only_read_columns_in_their_order() -> None:
    """DefaultValueAssignerTest.testGeneralRow: col4 = '0', col5 = '1', read as (col5, col4, col0)."""
    fields = fields_from_arrow_schema(pa.schema([(f"col{i}", pa.string()) for i in range(6)]), 0)[0]
    opts = CoreOptions({"fields.col4.default-value": "0", "fields.col5.default-value": "1"})
    read = [fields[5], fields[4], fields[0]]
    t = pa.table({"col5": pa.array([None], pa.string()), "col4": pa.array([None], pa.string()),
                  "col0": pa.array([None], pa.string())})
    assert fill_defaults(t, read, opts).to_pylist() == [{"col5": "1", "col4": "0", "col0": None}]


def test_filters_lose_the_conjuncts_naming_default_columns() -> None:
    """DefaultValueAssignerTest.testHandlePredicate, plus a disjunction (dropped as a whole)."""
    opts = CoreOptions({"fields.col4.default-value": "0", "fields.col5.default-value": "1"})
    col1, col4, col5 = equal("col1", "1"), equal("col4", "1"), equal("col5", "100")
    assert without_default_columns(and_(col5, col1), opts) == col1
    assert without_default_columns(and_(col5, col4), opts) is None
    assert without_default_columns(None, opts) is None
    assert without_default_columns(col1, opts) == col1
    assert without_default_columns(and_(or_(col1, col5), col1), opts) == col1
    assert without_default_columns(and_(col5, col1), CoreOptions({})) == and_(col5, col1)


def test_files_keep_their_nulls(catalog: Catalog) -> None:
    """Writes, compaction and rescale store nulls; only reads fill them in."""
    t = catalog.create_table("db.t", RATES, primary_keys=["id"], options={**DEFAULT, "bucket": "1"})
    t.write(rates((1, "a", None, "x"), (2, "b", 7, "x")))
    t.write(rates((1, "a", None, "x")))
    t.compact()
    t.rescale(2)
    t = t.refresh()
    raw = [read_split(t.store, s, list(t.store.schema.fields), defaults=False)
           for _, s in t.plan()[1]]
    assert sorted(r["rate"] or -1 for p in raw for r in p.to_pylist()) == [-1, 7]
    assert by_id(t.read(columns=["id", "rate"])) == [(1, 1000), (2, 7)]
    t = t.alter(remove_options=["fields.rate.default-value"])  # a read-time option: old data reads null again
    assert by_id(t.read(columns=["id", "rate"])) == [(1, None), (2, 7)]


def test_delete_matches_what_reads_return(catalog: Catalog) -> None:
    a = catalog.create_table("db.a", RATES, options=DEFAULT)
    a.write(rates((1, "a", None, "x"), (2, "b", 7, "x"), (3, "c", None, "x")))
    a.delete("rate = 1000 and id = 1")
    assert by_id(a.read(columns=["id", "rate"])) == [(2, 7), (3, 1000)]
    p = catalog.create_table("db.p", RATES, primary_keys=["id"], options={**DEFAULT, "bucket": "1"})
    p.write(rates((1, "a", None, "x"), (2, "b", 7, "x")))
    p.delete(parse_predicate("rate = 1000", list(p.store.schema.fields)))
    assert by_id(p.read(columns=["id", "rate"])) == [(2, 7)]


def test_added_column_and_option_set_later_apply_to_old_files(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", pa.schema([("id", pa.int64())]))
    t.write(pa.table({"id": [1]}))
    t = t.alter(add_columns=[("score", pa.float64())], set_options={"fields.score.default-value": "2.5"})
    t.write(pa.table({"id": [2], "score": [1.0]}))
    assert by_id(t.read()) == [(1, 2.5), (2, 1.0)]


@pytest.mark.parametrize(("arrow_type", "text", "expected"), [
    (pa.string(), "0", "0"),
    (pa.bool_(), "true", True),
    (pa.int8(), "-7", -7),
    (pa.int16(), "300", 300),
    (pa.int32(), "+42", 42),
    (pa.int64(), "9000000000", 9_000_000_000),
    (pa.float32(), "1.5", 1.5),
    (pa.float64(), "-2.25", -2.25),
    (pa.decimal128(10, 2), "3.14159", Decimal("3.14")),
    (pa.date32(), "2024-02-29", dt.date(2024, 2, 29)),
    (pa.timestamp("us"), "2024-01-02 03:04:05.123456", dt.datetime(2024, 1, 2, 3, 4, 5, 123456)),
    (pa.binary(), "ab", b"ab"),
])
def test_values_cast_to_the_column_type(arrow_type: pa.DataType, text: str, expected: Any) -> None:
    field = fields_from_arrow_schema(pa.schema([("c", arrow_type)]), 0)[0][0]
    assert default_value(field, text).as_py() == expected


def test_bad_values_fail_at_create_and_alter_naming_option_and_column(catalog: Catalog) -> None:
    with pytest.raises(ValidationError, match=r"'fields.rate.default-value' = 'abc' of table db.x.*column 'rate'"):
        catalog.create_table("db.x", RATES, options={"fields.rate.default-value": "abc"})
    with pytest.raises(ValidationError, match="primary key column 'id' cannot have a default value"):
        catalog.create_table("db.x", RATES, primary_keys=["id"], options={"fields.id.default-value": "1"})
    with pytest.raises(ValidationError, match="partition column 'dt' cannot have a default value"):
        catalog.create_table("db.x", RATES, partition_keys=["dt"], options={"fields.dt.default-value": "d"})
    with pytest.raises(ValidationError, match="does not fit DECIMAL\\(3, 1\\)"):
        catalog.create_table("db.x", pa.schema([("d", pa.decimal128(3, 1))]),
                             options={"fields.d.default-value": "12345"})
    with pytest.raises(ValidationError, match="'fields.a.default-value'.*ARRAY<INT>.*cannot have a default value"):
        catalog.create_table("db.x", pa.schema([("a", pa.list_(pa.int32()))]),
                             options={"fields.a.default-value": "[1]"})
    with pytest.raises(ValidationError, match="not a column"):
        catalog.create_table("db.x", RATES, options={"fields.nope.default-value": "1"})
    with pytest.raises(ValidationError, match="' 42 '.*INT"):  # Java's Integer parsing: no blanks
        catalog.create_table("db.x", RATES, options={"fields.rate.default-value": " 42 "})
    assert not catalog.table_exists("db.x")
    t = catalog.create_table("db.t", RATES, options=DEFAULT)
    with pytest.raises(ValidationError, match="'fields.rate.default-value' = '1.5x' of table db.t"):
        t.alter(set_options={"fields.rate.default-value": "1.5x"})
    with pytest.raises(ValidationError, match="'fields.d.default-value' = 'x'.*DATE"):
        t.alter(add_columns=[("d", pa.date32())], set_options={"fields.d.default-value": "x"})
    assert t.refresh().schema.id == 0


def test_a_bad_value_written_by_another_engine_fails_the_read(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", RATES)
    t.write(rates((1, "a", None, "x")))
    # Paimon 1.2 kept such values unchecked; the read names the option
    bad = dataclasses.replace(t.schema, id=1, options={**t.schema.options, "fields.rate.default-value": "x"})
    t.store.schemas.commit(bad)
    t = t.refresh()
    assert t.read(columns=["id"]).num_rows == 1
    with pytest.raises(ValidationError, match="'fields.rate.default-value' = 'x' of table db.t"):
        t.read()


def test_a_default_on_a_type_without_one_fails_only_reads_of_that_column(catalog: Catalog) -> None:
    schema = pa.schema([("id", pa.int64()), ("a", pa.list_(pa.int32()))])
    t = catalog.create_table("db.t", schema)
    t.write(pa.table({"id": [1], "a": [None]}, schema=schema))
    t.store.schemas.commit(dataclasses.replace(t.schema, id=1, options={"fields.a.default-value": "[1]"}))
    t = t.refresh()
    assert t.read(columns=["id"]).to_pylist() == [{"id": 1}]
    with pytest.raises(UnsupportedError, match="'fields.a.default-value' of table db.t.*ARRAY<INT>"):
        t.read()
