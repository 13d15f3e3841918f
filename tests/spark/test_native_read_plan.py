"""Which scans Spark's parquet reader may read natively (paimon_sql.spark.native_read), without
Spark: the plan the bridge's ``plan_native_read`` answers with."""

from __future__ import annotations

import os
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.spark.handlers import dispatch
from paimon_sql.spark.native_read import native_type, plan_native
from paimon_sql.types import parse_type_string


@pytest.fixture()
def cat(tmp_path: Any) -> Catalog:
    c = Catalog(str(tmp_path / "wh"))
    c.create_database("db")
    return c


def test_append_table_files_are_native_and_filters_prune(cat: Catalog) -> None:
    schema = pa.schema([("id", pa.int64()), ("dt", pa.string())])
    t = cat.create_table("db.a", schema, partition_keys=["dt"])
    t.write(pa.table({"id": [1, 2], "dt": ["a", "b"]}))
    t.write(pa.table({"id": [3], "dt": ["a"]}))
    plan = plan_native(t, {}, ["id"], ["`dt` = 'a'", None, "no such syntax ((("])
    assert plan.reason is None and plan.files is not None
    assert plan.accepted == (True, False, False)
    assert len(plan.files) == 2 and all(os.path.isfile(f.path) for f in plan.files)
    assert sum(f.rows for f in plan.files) == 2
    assert all(f.size == os.path.getsize(f.path) for f in plan.files)
    assert plan.snapshot_id == 2
    # time travel: snapshot 1 had one file of partition a
    old = plan_native(t, {"snapshot_id": 1}, ["id"], ["`dt` = 'a'"])
    assert old.files is not None and len(old.files) == 1 and old.snapshot_id == 1


def test_merges_retractions_and_evolution_are_not_native(cat: Catalog) -> None:
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.string())])
    t = cat.create_table("db.p", schema, primary_keys=["id"], options={"bucket": "1"})
    t.write(pa.table({"id": [1, 2], "v": ["a", "b"]}, schema=schema))
    assert plan_native(t, {}, ["id", "v"]).files is not None
    t.write(pa.table({"id": [2], "v": ["c"]}, schema=schema))
    p = plan_native(t, {}, ["id", "v"])
    assert p.files is None and p.reason is not None and "merge by key" in p.reason

    d = cat.create_table("db.d", schema, primary_keys=["id"], options={"bucket": "1"})
    d.write(pa.table({"id": [1, 2], "v": ["a", "b"]}, schema=schema))
    d.delete("id = 1")
    assert "merge" in (plan_native(d, {}, ["v"]).reason or "")

    a = cat.create_table("db.e", pa.schema([("id", pa.int32()), ("v", pa.string())]))
    a.write(pa.table({"id": pa.array([1], pa.int32()), "v": ["x"]}))
    a.alter(rename_columns={"v": "w"})
    r = plan_native(cat.get_table("db.e"), {}, ["w"])
    assert r.files is None and "'w' differs" in (r.reason or "")
    assert plan_native(cat.get_table("db.e"), {}, ["id"]).files is not None


def test_types_and_formats(cat: Catalog) -> None:
    for text, ok in [
        ("BIGINT", True), ("DECIMAL(38, 10)", True), ("VARCHAR(3)", True), ("BYTES", True),
        ("DATE", True), ("TIMESTAMP(3)", True), ("TIMESTAMP(6) WITH LOCAL TIME ZONE", True),
        ("TIMESTAMP(9)", False), ("BINARY(4)", False), ("ARRAY<INT>", False), ("MAP<INT, INT>", False),
        ("ROW<a INT>", False), ("TIME", False),
    ]:
        assert native_type(parse_type_string(text)) is ok, text
    t = cat.create_table("db.o", pa.schema([("id", pa.int64())]), options={"file.format": "orc"})
    t.write(pa.table({"id": [1]}))
    assert "not a parquet file" in (plan_native(t, {}, ["id"]).reason or "")
    empty = cat.create_table("db.empty", pa.schema([("id", pa.int64())]))
    p = plan_native(empty, {}, ["id"])
    assert p.files == () and p.snapshot_id is None


def test_the_bridge_handler(cat: Catalog) -> None:
    t = cat.create_table("db.h", pa.schema([("id", pa.int64())]))
    t.write(pa.table({"id": [1, 2, 3]}))
    wh = cat.warehouse
    resp = dispatch("plan_native_read", {
        "options": {"warehouse": wh, "table": "db.h"}, "columns": ["ID"], "filters": ["`id` > 1"]})
    res = resp["result"]
    assert res["native"] is True and res["accepted"] == [True] and res["snapshot"] == 1
    assert [f["rows"] for f in res["files"]] == [3]
    sys_table = dispatch("plan_native_read", {
        "options": {"warehouse": wh, "table": "db.h$files"}, "columns": ["file_path"], "filters": []})
    assert sys_table["result"]["native"] is False
    bad = dispatch("plan_native_read", {"options": {"warehouse": wh, "table": "db.nope"}, "columns": []})
    assert bad["error"]["kind"] == "NoSuchTable"


def test_files_with_a_column_subset_are_not_native(cat: Catalog) -> None:
    import dataclasses

    from paimon_sql.spark.native_read import _file_not_native

    t = cat.create_table("db.x", pa.schema([("id", pa.int64()), ("v", pa.string())]))
    t.write(pa.table({"id": [1], "v": ["a"]}))
    store, splits, _ = t.plan()
    split = splits[0][1]
    meta = split.files[0]
    fields = list(store.schema.fields)
    assert _file_not_native(store, split, meta, fields, {store.schema.id: store.schema}) is None
    partial = dataclasses.replace(meta, write_cols=("id",))
    why = _file_not_native(store, split, partial, fields, {store.schema.id: store.schema})
    assert why is not None and "some columns" in why


def test_count_rows_from_the_manifests(cat: Catalog) -> None:
    from paimon_sql.spark.native_read import count_rows

    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.string())])
    t = cat.create_table("db.c", schema, primary_keys=["id"], options={"bucket": "2"})
    assert count_rows(t, {}).count == 0
    t.write(pa.table({"id": list(range(10)), "v": ["a"] * 10}, schema=schema))
    one = count_rows(t, {})
    assert one.count == 10 and one.snapshot_id == 1
    t.write(pa.table({"id": [1, 20], "v": ["b", "c"]}, schema=schema))
    two = count_rows(t, {})
    assert two.count is None and "merge" in (two.reason or "")
    assert count_rows(t, {"snapshot_id": 1}).count == 10


def test_mixed_plans_and_the_pinned_latest_snapshot(cat: Catalog) -> None:
    from paimon_sql.spark.source_options import read_snapshot, skip_buckets

    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("dt", pa.string(), nullable=False)])
    t = cat.create_table("db.m", schema, primary_keys=["id", "dt"], partition_keys=["dt"], options={"bucket": "1"})
    t.write(pa.table({"id": [1, 2], "dt": ["a", "b"]}, schema=schema))
    t.write(pa.table({"id": [2], "dt": ["b"]}, schema=schema))  # partition b needs a merge
    assert plan_native(t, {}, ["id"]).files is None
    mixed = plan_native(t, {}, ["id"], mixed=True)
    assert mixed.files is not None and len(mixed.files) == 1 and mixed.python_buckets == 1
    assert "merge" in (mixed.python_reason or "")
    js = mixed.to_json()
    skip = skip_buckets({"paimon.read.skip-buckets": js["skip_buckets"]})
    _, splits, _ = t.plan()
    assert {(s.partition, s.bucket) for _, s in splits} - skip == {(splits[1][1].partition, 0)}
    assert len(skip) == 1
    # the Python part reads the pinned snapshot as the latest one: the current schema
    t = t.alter(add_columns=[pa.field("n", pa.int32())])
    t.write(pa.table({"id": [3], "dt": ["a"], "n": pa.array([7], pa.int32())}))
    kw = read_snapshot({"paimon.read.latest-snapshot-id": "2"}, t)
    assert kw == {"latest_snapshot_id": 2}
    store, pinned, _ = t.plan(**kw)
    assert "n" in store.schema.field_names and len(pinned) == 2
    old_store, _, _ = t.plan(snapshot_id=2)
    assert "n" not in old_store.schema.field_names
    assert read_snapshot({"paimon.read.latest-snapshot-id": "2", "scan.snapshot-id": "1"}, t) == {"snapshot_id": 1}
    with pytest.raises(Exception, match="skip-buckets"):
        skip_buckets({"paimon.read.skip-buckets": "[[1"})


def test_the_python_part_of_a_mixed_scan_reads_the_planned_snapshot_and_skips_native_buckets(cat: Catalog) -> None:
    from pyspark.sql import types as st

    from paimon_sql.spark.datasource import PaimonReader, SplitPartition, TableRef

    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("dt", pa.string(), nullable=False)])
    t = cat.create_table("db.r", schema, primary_keys=["id", "dt"], partition_keys=["dt"], options={"bucket": "1"})
    t.write(pa.table({"id": [1, 2], "dt": ["a", "b"]}, schema=schema))
    t.write(pa.table({"id": [2], "dt": ["b"]}, schema=schema))
    js = plan_native(t, {}, ["id"], mixed=True).to_json()
    assert js["snapshot"] == 2 and js["python_buckets"] == 1
    t.write(pa.table({"id": [5, 6], "dt": ["a", "b"]}, schema=schema))  # a commit after planning
    opts = {"paimon.read.skip-buckets": js["skip_buckets"], "paimon.read.latest-snapshot-id": "2"}
    reader = PaimonReader(TableRef(cat.warehouse, "db.r"), opts, st.StructType([st.StructField("id", st.LongType())]))
    parts = reader.partitions()
    splits = [sp for p in parts if isinstance(p, SplitPartition) for sp in p.splits]
    assert {sp.snapshot_id for sp in splits} == {2}
    assert {sp.partition_values for sp in splits} == {("b",)}
    rows = sorted(v for p in parts for b in reader.read(p) for v in b.column(0).to_pylist())
    assert rows == [2]
