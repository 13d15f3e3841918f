"""pypaimon 2.1.0 reads a table replaced in place (paimon_sql.catalog.replace: truncated by an
OVERWRITE snapshot, the new definition the next schema id with fresh field ids) at its latest
snapshot and before the replace, as paimon_sql reads it; and column defaults in the schema."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from paimon_sql import Catalog
from paimon_sql.catalog.catalog import build_schema
from paimon_sql.catalog.replace import replace_table
from tests.helpers.interop_util import PypaimonIO, assert_same_rows


def test_pypaimon_reads_a_replaced_table(warehouse: Path, pypaimon: PypaimonIO) -> None:
    cat = Catalog(str(warehouse))
    cat.create_database("db", ignore_if_exists=True)
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]), primary_keys=["id"],
                         options={"bucket": "2"})
    t.write(pa.table({"id": [1, 2], "v": ["a", "b"]}))
    before = t.latest_snapshot()
    assert before is not None
    new = build_schema("db.t", pa.schema([("k", pa.string()), ("n", pa.int32())]), None, [], {"bucket": "-1"}, None)
    result = replace_table(t, new)
    assert result.schema.id == 1
    t = cat.get_table("db.t")
    t.write(pa.table({"k": ["x"], "n": [None]}, schema=pa.schema([("k", pa.string()), ("n", pa.int32())])))
    assert_same_rows(pypaimon.read("db.t"), t.read(), "pypaimon after REPLACE TABLE")
    assert_same_rows(pypaimon.read("db.t", snapshot_id=before.id), t.read(snapshot_id=before.id),
                     "pypaimon before REPLACE TABLE")


def test_pypaimon_reads_a_table_with_column_defaults(warehouse: Path, pypaimon: PypaimonIO) -> None:
    cat = Catalog(str(warehouse))
    cat.create_database("db", ignore_if_exists=True)
    schema = pa.schema([("a", pa.int32()), ("b", pa.int32()), ("c", pa.string())])
    t = cat.create_table("db.d", schema, column_defaults={"b": "2", "c": "'v'"})
    t.write(pa.table({"a": [1, 2], "b": [None, 5], "c": [None, "w"]}, schema=schema))
    theirs = pypaimon.read("db.d")
    assert_same_rows(theirs, t.read(), "pypaimon with column defaults")
    assert sorted(theirs.to_pylist(), key=lambda r: r["a"]) == [{"a": 1, "b": 2, "c": "v"}, {"a": 2, "b": 5, "c": "w"}]
