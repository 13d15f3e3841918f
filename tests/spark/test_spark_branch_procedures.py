"""CALL sys.create_branch / delete_branch / rename_branch / fast_forward, replace_tag / rename_tag /
create_tag_from_timestamp and rollback_to_timestamp / rollback_to_watermark through Spark, as
Paimon's BranchProcedureTest, FastForwardProcedureTest, ReplaceTagProcedureTest,
CreateTagFromTimestampProcedureTest and RollbackProcedureTest run them; reading and writing a
branch as ``t$branch_b``; bad arguments."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from paimon_sql import Catalog, Table

pytestmark = pytest.mark.spark


def _table(wh: str, name: str) -> Table:
    t = Catalog(wh).get_table(name)
    assert isinstance(t, Table)
    return t


def _tree(path: str) -> dict[str, bytes]:
    out = {}
    for root, _, names in os.walk(path):
        for n in names:
            p = os.path.join(root, n)
            out[os.path.relpath(p, path)] = Path(p).read_bytes()
    return out


def test_create_query_write_and_delete_branch(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.T (a INT, b STRING) TBLPROPERTIES ('primary-key'='a', 'bucket'='3')")
    spark.sql(f"INSERT INTO {db}.T VALUES (1, 'a')")
    spark.sql(f"INSERT INTO {db}.T VALUES (2, 'b')")
    spark.sql(f"INSERT INTO {db}.T VALUES (2, 'b2')")
    assert sql(f"CALL sys.create_tag(table => '{db}.T', tag => 'test_tag', snapshot => 2)") == [(True,)]
    assert sql(f"CALL sys.create_branch(table => '{db}.T', branch => 'test_branch', tag => 'test_tag')") == [(True,)]
    assert _table(spark_warehouse, f"{db}.T").branches() == ["test_branch"]
    assert sql(f"SELECT * FROM {db}.`T$branch_test_branch` ORDER BY a") == [(1, "a"), (2, "b")]
    assert sql(f"SELECT branch_name FROM {db}.`T$branches`") == [("test_branch",)]
    # write the branch
    spark.sql(f"INSERT INTO {db}.`T$branch_test_branch` VALUES (3, 'c')")
    assert sql(f"SELECT * FROM {db}.`T$branch_test_branch` ORDER BY a") == [(1, "a"), (2, "b"), (3, "c")]
    assert sql(f"SELECT * FROM {db}.T ORDER BY a") == [(1, "a"), (2, "b2")]
    assert sql(f"SELECT snapshot_id FROM {db}.`T$branch_test_branch$snapshots` ORDER BY snapshot_id") == [(2,), (3,)]
    # a tag of the branch, and a branch of the branch from it
    assert sql(
        f"CALL sys.create_tag(table => '{db}.`T$branch_test_branch`', tag => 'test_tag2', snapshot => 3)"
    ) == [(True,)]
    assert sql(
        f"CALL sys.create_branch(table => '{db}.`T$branch_test_branch`', branch => 'test_branch2', tag => 'test_tag2')"
    ) == [(True,)]
    assert sql(f"SELECT * FROM {db}.`T$branch_test_branch2` ORDER BY a") == [(1, "a"), (2, "b"), (3, "c")]
    # an empty branch, positional arguments
    assert sql(f"CALL sys.create_branch('{db}.T', 'empty_branch')") == [(True,)]
    assert sql(f"SELECT * FROM {db}.`T$branch_empty_branch`") == []
    assert sql(f"CALL sys.create_branch('{db}.T', 'empty_branch', NULL, 'true')") == [(True,)]
    # delete, comma-separated
    assert sql(f"CALL sys.delete_branch(table => '{db}.T', branch => 'test_branch,empty_branch')") == [(True,)]
    assert _table(spark_warehouse, f"{db}.T").branches() == ["test_branch2"]
    with pytest.raises(Exception, match="test_branch"):
        spark.sql(f"SELECT * FROM {db}.`T$branch_test_branch`").collect()


def test_rename_branch(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.T (a INT, b STRING) TBLPROPERTIES ('primary-key'='a', 'bucket'='3')")
    spark.sql(f"INSERT INTO {db}.T VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"CALL sys.create_tag(table => '{db}.T', tag => 'tag1', snapshot => 1)")
    spark.sql(f"CALL sys.create_branch(table => '{db}.T', branch => 'branch1', tag => 'tag1')")
    assert sql(
        f"CALL sys.rename_branch(table => '{db}.T', from_branch => 'branch1', to_branch => 'branch2')"
    ) == [(True,)]
    assert _table(spark_warehouse, f"{db}.T").branches() == ["branch2"]
    assert sql(f"SELECT * FROM {db}.`T$branch_branch2` ORDER BY a") == [(1, "a"), (2, "b")]
    spark.sql(f"CALL sys.create_branch(table => '{db}.T', branch => 'branch3')")
    before = _tree(_table(spark_warehouse, f"{db}.T").path)
    with pytest.raises(Exception, match="'nonexistent'.*does not exist"):
        spark.sql(f"CALL sys.rename_branch(table => '{db}.T', from_branch => 'nonexistent', to_branch => 'new_branch')")
    with pytest.raises(Exception, match="'branch3'.*already exists"):
        spark.sql(f"CALL sys.rename_branch(table => '{db}.T', from_branch => 'branch2', to_branch => 'branch3')")
    assert _tree(_table(spark_warehouse, f"{db}.T").path) == before


def test_fast_forward(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    """Paimon's FastForwardProcedureTest."""
    spark.sql(f"CREATE TABLE {db}.T (id STRING, name STRING) TBLPROPERTIES ('primary-key'='id')")
    for i, c in ((1, "a"), (2, "b"), (3, "c"), (4, "d")):
        spark.sql(f"INSERT INTO {db}.T VALUES ('{i}', '{c}')")
    assert sql(f"CALL sys.create_tag(table => '{db}.T', tag => 'test_tag', snapshot => 2)") == [(True,)]
    assert sql(f"CALL sys.create_branch(table => '{db}.T', branch => 'test_branch', tag => 'test_tag')") == [(True,)]
    assert sql(f"CALL sys.fast_forward(table => '{db}.T', branch => 'test_branch')") == [(True,)]
    spark.sql(f"INSERT INTO {db}.T VALUES ('5', 'e')")
    spark.sql(f"INSERT INTO {db}.T VALUES ('6', 'f')")
    assert sql(f"SELECT * FROM {db}.T ORDER BY id") == [("1", "a"), ("2", "b"), ("5", "e"), ("6", "f")]
    assert sql(f"CALL sys.fast_forward('{db}.T', 'test_branch')") == [(True,)]
    assert sql(f"SELECT * FROM {db}.T ORDER BY id") == [("1", "a"), ("2", "b")]
    # a write to the branch, then main follows it
    spark.sql(f"INSERT INTO {db}.`T$branch_test_branch` VALUES ('9', 'z')")
    assert sql(f"CALL sys.fast_forward(table => '{db}.T', branch => 'test_branch')") == [(True,)]
    assert sql(f"SELECT * FROM {db}.T ORDER BY id") == [("1", "a"), ("2", "b"), ("9", "z")]
    assert sql(f"SELECT snapshot_id FROM {db}.`T$snapshots` ORDER BY snapshot_id") == [(1,), (2,), (3,)]


def test_replace_and_rename_tag(spark: Any, sql: Any, db: str) -> None:
    """Paimon's ReplaceTagProcedureTest, then rename_tag."""
    spark.sql(f"CREATE TABLE {db}.T (a INT, b STRING) TBLPROPERTIES ('primary-key'='a', 'bucket'='3')")
    spark.sql(f"INSERT INTO {db}.T VALUES (1, 'a')")
    spark.sql(f"INSERT INTO {db}.T VALUES (2, 'b')")
    with pytest.raises(Exception, match="'test_tag'.*does not exist"):
        spark.sql(f"CALL sys.replace_tag(table => '{db}.T', tag => 'test_tag')")
    spark.sql(f"CALL sys.create_tag(table => '{db}.T', tag => 'test_tag')")
    tags = f"SELECT tag_name, snapshot_id, time_retained FROM {db}.`T$tags`"
    assert sql(tags) == [("test_tag", 2, None)]
    assert sql(f"CALL sys.replace_tag(table => '{db}.T', tag => 'test_tag', time_retained => '1 d')") == [(True,)]
    assert sql(tags) == [("test_tag", 2, "PT24H")]
    spark.sql(f"CALL sys.replace_tag(table => '{db}.T', tag => 'test_tag', snapshot => 1, time_retained => '2 d')")
    assert sql(tags) == [("test_tag", 1, "PT48H")]
    assert sql(f"CALL sys.rename_tag(table => '{db}.T', tag => 'test_tag', target_tag => 'renamed')") == [(True,)]
    assert sql(tags) == [("renamed", 1, "PT48H")]
    assert sql(f"SELECT * FROM {db}.T VERSION AS OF 'renamed'") == [(1, "a")]
    with pytest.raises(Exception, match="'test_tag'.*does not exist"):
        spark.sql(f"CALL sys.rename_tag('{db}.T', 'test_tag', 'x')")
    # create_tag keeps its time_retained too
    spark.sql(f"CALL sys.create_tag('{db}.T', 'kept', 2, '12 h')")
    assert ("kept", 2, "PT12H") in sql(tags)


def test_create_tag_from_timestamp_and_rollback_to_timestamp(
    spark: Any, sql: Any, db: str, spark_warehouse: str
) -> None:
    spark.sql(f"CREATE TABLE {db}.T (a INT, b STRING) TBLPROPERTIES ('primary-key'='a', 'bucket'='3')")
    for i in range(1, 5):
        spark.sql(f"INSERT INTO {db}.T VALUES ({i}, 'a')")
    t = _table(spark_warehouse, f"{db}.T")
    times = {sid: t.snapshot(sid).time_millis for sid in (1, 2, 3, 4)}
    got = sql(f"CALL sys.create_tag_from_timestamp(table => '{db}.T', tag => 'test_tag', timestamp => {times[1] - 1})")
    assert got == [("test_tag", 1, times[1], "null")]
    got = sql(f"CALL sys.create_tag_from_timestamp(table => '{db}.T', tag => 'test_tag2', timestamp => {times[3]})")
    assert got[0][:3] == ("test_tag2", 3, times[3])
    got = sql(f"CALL sys.create_tag_from_timestamp('{db}.T', 'test_tag3', {times[4]}, '1 d')")
    assert got[0][:3] == ("test_tag3", 4, times[4])
    with pytest.raises(Exception, match="no snapshot or tag committed at or after"):
        spark.sql(f"CALL sys.create_tag_from_timestamp(table => '{db}.T', tag => 'x', timestamp => {2**63 - 1})")
    # rollback_to_timestamp: the latest snapshot at or before it (snapshot 2 when 3 came later)
    if times[3] > times[2]:
        assert sql(f"CALL sys.rollback_to_timestamp(table => '{db}.T', timestamp => {times[3] - 1})") == [(4, 2)]
        assert sql(f"SELECT a FROM {db}.T ORDER BY a") == [(1,), (2,)]
        assert sql(f"SELECT tag_name FROM {db}.`T$tags` ORDER BY tag_name") == [("test_tag",)]
    with pytest.raises(Exception, match="no snapshot at or before timestamp 0"):
        spark.sql(f"CALL sys.rollback_to_timestamp('{db}.T', 0)")


def test_rollback_to_watermark(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    import dataclasses

    spark.sql(f"CREATE TABLE {db}.T (a INT) TBLPROPERTIES ('primary-key'='a', 'bucket'='1')")
    for i in range(1, 4):
        spark.sql(f"INSERT INTO {db}.T VALUES ({i})")
    t = _table(spark_warehouse, f"{db}.T")
    for sid, wm in ((1, 100), (2, 200), (3, 300)):  # Spark commits no watermark: give them one
        Path(t.store.snapshots.path(sid)).write_text(dataclasses.replace(t.snapshot(sid), watermark=wm).to_json())
    assert sql(f"CALL sys.rollback_to_watermark(table => '{db}.T', watermark => 250)") == [(3, 2)]
    assert sql(f"SELECT a FROM {db}.T ORDER BY a") == [(1,), (2,)]
    with pytest.raises(Exception, match="watermark at or before 99"):
        spark.sql(f"CALL sys.rollback_to_watermark('{db}.T', 99)")


def test_bad_arguments_are_clear_and_change_nothing(spark: Any, db: str, spark_warehouse: str) -> None:
    from pyspark.errors import AnalysisException

    spark.sql(f"CREATE TABLE {db}.T (a INT) TBLPROPERTIES ('primary-key'='a', 'bucket'='1')")
    spark.sql(f"INSERT INTO {db}.T VALUES (1)")
    spark.sql(f"CALL sys.create_tag('{db}.T', 't1')")
    spark.sql(f"CALL sys.create_branch('{db}.T', 'b')")
    path = _table(spark_warehouse, f"{db}.T").path
    before = _tree(path)
    cases = [
        (f"CALL sys.create_branch(table => '{db}.T', branch => 'main')", "default branch"),
        (f"CALL sys.create_branch(table => '{db}.T', branch => '123')", "only digits"),
        (f"CALL sys.create_branch(table => '{db}.T', branch => 'b')", "'b'.*already exists"),
        (f"CALL sys.create_branch(table => '{db}.T', branch => 'c', tag => 'nope')", "tag 'nope'.*does not exist"),
        (f"CALL sys.create_branch(table => '{db}.T', branch => 'c', ignoreIfExists => 'yes')", "ignoreIfExists"),
        (f"CALL sys.create_branch(table => '{db}.missing', branch => 'c')", "missing"),
        (f"CALL sys.delete_branch(table => '{db}.T', branch => 'b,nope')", "'nope'.*does not exist"),
        (f"CALL sys.delete_branch(table => '{db}.T', branch => 'main')", "main branch"),
        (f"CALL sys.fast_forward(table => '{db}.T', branch => 'main')", "'main'"),
        (f"CALL sys.fast_forward(table => '{db}.T', branch => 'b')", "has no snapshot"),
        (f"CALL sys.fast_forward(table => '{db}.T', branch => 'nope')", "'nope'.*does not exist"),
        (f"CALL sys.rename_tag(table => '{db}.T', tag => 't1', target_tag => 't1')", "'t1'.*already exists"),
        (f"CALL sys.replace_tag(table => '{db}.T', tag => 't1', snapshot => 0)", "'snapshot'"),
        (f"CALL sys.replace_tag(table => '{db}.T', tag => 't1', time_retained => 'soon')", "'time_retained'"),
        (f"CALL sys.create_tag_from_timestamp(table => '{db}.T', tag => 't2')", "timestamp"),
        (f"CALL sys.rollback_to_timestamp(table => '{db}.T')", "timestamp"),
        (f"CALL sys.rollback_to_watermark(table => '{db}.T', watermark => 'x')", "CAST|watermark"),
        (f"CALL sys.rename_branch('{db}.T', 'b')", "to_branch"),
    ]
    for text, match in cases:
        with pytest.raises(Exception, match=match):
            spark.sql(text).collect()
    assert _tree(path) == before
    # named and positional arguments mixed: refused by Spark before the procedure runs
    with pytest.raises(AnalysisException):
        spark.sql(f"CALL sys.create_branch(table => '{db}.T', 'c')")
    assert _tree(path) == before


def test_alter_a_branch_then_fast_forward_main_to_it(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.T (a INT) TBLPROPERTIES ('primary-key'='a', 'bucket'='1')")
    spark.sql(f"INSERT INTO {db}.T VALUES (1)")
    spark.sql(f"CALL sys.create_tag('{db}.T', 't1')")
    spark.sql(f"CALL sys.create_branch('{db}.T', 'b', 't1')")
    spark.sql(f"ALTER TABLE {db}.`T$branch_b` ADD COLUMN c STRING")
    spark.sql(f"ALTER TABLE {db}.`T$branch_b` SET TBLPROPERTIES ('k' = 'v')")
    spark.sql(f"INSERT INTO {db}.`T$branch_b` VALUES (2, 'x')")
    assert sql(f"SELECT * FROM {db}.`T$branch_b` ORDER BY a") == [(1, None), (2, "x")]
    assert sql(f"SELECT * FROM {db}.T") == [(1,)]  # main keeps its schema
    assert ("k", "v") not in sql(f"SHOW TBLPROPERTIES {db}.T")
    spark.sql(f"CALL sys.fast_forward('{db}.T', 'b')")
    assert sql(f"SELECT * FROM {db}.T ORDER BY a") == [(1, None), (2, "x")]
    assert ("k", "v") in sql(f"SHOW TBLPROPERTIES {db}.T")
    spark.sql(f"INSERT INTO {db}.T VALUES (3, 'y')")
    assert sql(f"SELECT c FROM {db}.T ORDER BY a") == [(None,), ("x",), ("y",)]


def test_merge_branch(spark: Any, sql: Any, db: str) -> None:
    """Paimon's MergeBranchProcedureTest through Spark."""
    spark.sql(f"CREATE TABLE {db}.T (id INT, name STRING)")
    spark.sql(f"INSERT INTO {db}.T VALUES (1, 'a')")
    sql(f"CALL paimon.sys.create_tag(table => '{db}.T', tag => 'tag1')")
    assert sql(f"CALL paimon.sys.create_branch(table => '{db}.T', branch => 'test_branch', tag => 'tag1')") == [(True,)]
    spark.sql(f"INSERT INTO {db}.`T$branch_test_branch` VALUES (2, 'b')")
    assert sql(f"CALL paimon.sys.merge_branch(table => '{db}.T', source_branch => 'test_branch')") == [(True,)]
    assert sql(f"SELECT * FROM {db}.T ORDER BY id") == [(1, "a"), (2, "b")]
    sql(f"CALL paimon.sys.create_branch(table => '{db}.T', branch => 'branchB', tag => 'tag1')")
    assert sql(f"CALL sys.merge_branch('{db}.T', 'test_branch', 'branchB')") == [(True,)]
    assert sql(f"SELECT * FROM {db}.`T$branch_branchB` ORDER BY id") == [(1, "a"), (2, "b")]
    with pytest.raises(Exception, match="nonexistent"):
        spark.sql(f"CALL paimon.sys.merge_branch(table => '{db}.T', source_branch => 'nonexistent')")
    spark.sql(f"CREATE TABLE {db}.P (id INT, name STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {db}.P VALUES (1, 'a')")
    sql(f"CALL paimon.sys.create_branch(table => '{db}.P', branch => 'test_branch')")
    with pytest.raises(Exception, match="does not have snapshot"):  # an empty branch
        spark.sql(f"CALL paimon.sys.merge_branch(table => '{db}.P', source_branch => 'test_branch')")
    spark.sql(f"INSERT INTO {db}.`P$branch_test_branch` VALUES (2, 'b')")
    with pytest.raises(Exception, match="only supported for append-only tables"):
        spark.sql(f"CALL paimon.sys.merge_branch(table => '{db}.P', source_branch => 'test_branch')")


def test_copy(spark: Any, sql: Any, db: str) -> None:
    """Paimon's CopyFilesProcedureTest 'partitioned append table with partition filter' and
    'copy to existed table' through Spark."""
    spark.sql(f"CREATE TABLE {db}.src (k INT, v STRING, dt STRING, hh INT) PARTITIONED BY (dt, hh)")
    spark.sql(f"INSERT INTO {db}.src VALUES (1, 'a', '2025-08-17', 5), (2, 'b', '2025-10-06', 0)")
    assert sql(f"CALL sys.copy(source_table => '{db}.src', target_table => '{db}.dst', "
               "where => \"dt = '2025-08-17' and hh = 5\")") == [(True,)]
    assert sql(f"SELECT * FROM {db}.dst") == [(1, "a", "2025-08-17", 5)]
    spark.sql(f"CREATE TABLE {db}.dst2 (k INT, v STRING, dt STRING, hh INT, v2 STRING) PARTITIONED BY (dt, hh)")
    spark.sql(f"INSERT INTO {db}.dst2 VALUES (3, 'c', '2025-08-17', 5, 'c1'), (4, 'd', '2025-08-17', 6, 'd1')")
    assert sql(f"CALL sys.copy(source_table => '{db}.src', target_table => '{db}.dst2')") == [(True,)]
    assert sorted(sql(f"SELECT * FROM {db}.dst2")) == [
        (1, "a", "2025-08-17", 5, None), (2, "b", "2025-10-06", 0, None), (4, "d", "2025-08-17", 6, "d1")]
