"""ALTER TABLE re-checks the merge engine against the new schema, as CREATE TABLE does (Paimon's
SchemaValidation.validateMergeFunction runs on every new schema of a primary-key table): aggregate
functions against column types, partial-update sequence groups. A refused ALTER leaves the schema."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import ValidationError

SCHEMA = pa.schema([("k", pa.int64()), ("v", pa.int64()), ("name", pa.string())])
AGG = {"bucket": "1", "merge-engine": "aggregation", "fields.v.aggregate-function": "sum"}
SUM_ON_STRING = r"Data type for sum column must be 'NumericType' but was 'STRING' \(field 'name'\)"


def test_create_and_alter_give_the_same_error(catalog: Catalog) -> None:
    with pytest.raises(ValidationError, match=SUM_ON_STRING):
        catalog.create_table("db.c", SCHEMA, primary_keys=["k"], options={**AGG, "fields.name.aggregate-function": "sum"})
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options=AGG)
    t.write(pa.table({"k": [1, 1], "v": [2, 3], "name": ["a", "b"]}))
    with pytest.raises(ValidationError, match=SUM_ON_STRING):
        t.alter(set_options={"fields.name.aggregate-function": "sum"})
    with pytest.raises(ValidationError, match=SUM_ON_STRING):
        t.alter(set_options={"fields.default-aggregate-function": "sum"})
    with pytest.raises(ValidationError, match="Invalid value .summ. for option .fields.v.aggregate-function"):
        t.alter(set_options={"fields.v.aggregate-function": "summ"})
    t = t.refresh()
    assert t.schema.id == 0 and t.options == AGG
    assert t.read().to_pylist() == [{"k": 1, "v": 5, "name": "b"}]
    t = t.alter(set_options={"fields.name.aggregate-function": "max"})  # a valid change goes through
    assert t.schema.id == 1
    t.write(pa.table({"k": [1], "v": [1], "name": ["a"]}))
    assert t.read().to_pylist() == [{"k": 1, "v": 6, "name": "b"}]


def test_an_added_column_meets_the_default_aggregate_function(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", pa.schema([("k", pa.int64()), ("v", pa.int64())]), primary_keys=["k"],
                             options={"merge-engine": "aggregation", "fields.default-aggregate-function": "sum"})
    with pytest.raises(ValidationError, match=r"sum column must be 'NumericType' but was 'STRING' \(field 'note'\)"):
        t.alter(add_columns=[("note", pa.string())])
    assert t.refresh().schema.id == 0
    t = t.alter(add_columns=[("n", pa.int32())], change_types={"v": pa.decimal128(30, 2)})
    assert [f.name for f in t.schema.fields] == ["k", "v", "n"]


def test_partial_update_groups_are_checked(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"merge-engine": "partial-update"})
    with pytest.raises(ValidationError, match="contains primary key field 'k'"):
        t.alter(set_options={"fields.v.sequence-group": "k"})
    with pytest.raises(ValidationError, match="Must use sequence group for aggregation functions"):
        t.alter(set_options={"fields.name.aggregate-function": "max"})
    with pytest.raises(ValidationError, match="must be part of sequence groups"):
        t.alter(set_options={"fields.v.sequence-group": "name",
                             "partial-update.remove-record-on-sequence-group": "name"})
    assert t.refresh().schema.id == 0
    t = t.alter(set_options={"fields.v.sequence-group": "name", "partial-update.remove-record-on-sequence-group": "v"})
    assert t.schema.id == 1


def test_append_tables_have_no_merge_to_check(catalog: Catalog) -> None:
    """Paimon checks the merge function of primary-key tables only."""
    t = catalog.create_table("db.t", SCHEMA)
    assert t.alter(set_options={"fields.name.aggregate-function": "sum"}).schema.id == 1
