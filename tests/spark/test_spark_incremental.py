"""Incremental reads from Spark: Paimon's TableValuedFunctionsTest cases (statements and expected
rows), the same options through ``spark.read.option`` and ``SET spark.paimon.*``, and ``$audit_log`` /
``$binlog``."""

from __future__ import annotations

import datetime as _dt
import time
from typing import Any

import pytest

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("has_pk", [True, False])
@pytest.mark.parametrize("bucket", [-1, 1, 2])
def test_incremental_query(spark: Any, db: str, sql: Any, has_pk: bool, bucket: int) -> None:
    """TableValuedFunctionsTest "incremental query: hasPk, bucket"."""
    if has_pk:
        prop = f"'primary-key'='a,b', 'bucket' = '{bucket}'"
    elif bucket != -1:
        prop = f"'bucket-key'='b', 'bucket' = '{bucket}'"
    else:
        prop = "'write-only'='true'"
    spark.sql(f"USE paimon.{db}")
    spark.sql(f"CREATE TABLE t (a INT, b INT, c STRING) USING paimon TBLPROPERTIES ({prop}) PARTITIONED BY (a)")
    spark.sql("INSERT INTO t values (1, 1, '1'), (2, 2, '2')")
    spark.sql("INSERT INTO t VALUES (1, 3, '3'), (2, 4, '4')")
    spark.sql("INSERT INTO t VALUES (1, 5, '5'), (1, 7, '7')")

    def incremental_df(start: int, end: int) -> list[tuple[Any, ...]]:
        df = spark.read.format("paimon").option("incremental-between", f"{start},{end}").table("t")
        return [tuple(r) for r in df.orderBy("a", "b").collect()]

    cases = {(0, 1): [(1, 1, "1"), (2, 2, "2")], (1, 2): [(1, 3, "3"), (2, 4, "4")],
             (2, 3): [(1, 5, "5"), (1, 7, "7")], (1, 3): [(1, 3, "3"), (1, 5, "5"), (1, 7, "7"), (2, 4, "4")]}
    for (s, e), expected in cases.items():
        assert incremental_df(s, e) == expected
        assert sql(f"SELECT * FROM paimon_incremental_query('t', '{s}', '{e}') ORDER BY a, b") == expected


def test_incremental_between_timestamp(spark: Any, db: str, sql: Any) -> None:
    """TableValuedFunctionsTest "paimon_incremental_between_timestamp"."""
    spark.sql(f"USE paimon.{db}")
    spark.sql("CREATE TABLE t (id INT) USING paimon")
    spark.sql("INSERT INTO t VALUES 1")
    time.sleep(0.1)
    t1 = int(time.time() * 1000)
    spark.sql("INSERT INTO t VALUES 2")
    time.sleep(0.1)
    t2 = int(time.time() * 1000)
    spark.sql("INSERT INTO t VALUES 3")
    spark.sql("INSERT INTO t VALUES 4")
    time.sleep(0.1)
    t3 = int(time.time() * 1000)
    spark.sql("INSERT INTO t VALUES 5")
    assert sql(f"SELECT * FROM paimon_incremental_between_timestamp('t', '{t1}', '{t2}') ORDER BY id") == [(2,)]
    assert sql(f"SELECT * FROM paimon_incremental_between_timestamp('{db}.t', '{t2}', '{t3}') ORDER BY id") == [
        (3,), (4,)]
    assert sql(f"SELECT * FROM paimon_incremental_between_timestamp('paimon.{db}.t', '{t1}', '{t3}') "
               "ORDER BY id") == [(2,), (3,), (4,)]
    s1, s3 = (_dt.datetime.fromtimestamp(x / 1000).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] for x in (t1, t3))
    assert sql(f"SELECT * FROM paimon_incremental_between_timestamp('paimon.{db}.t', '{s1}', '{s3}') "
               "ORDER BY id") == [(2,), (3,), (4,)]


def test_incremental_to_auto_tag(spark: Any, db: str, sql: Any) -> None:
    """TableValuedFunctionsTest "paimon_incremental_to_auto_tag" (tags created by hand, as
    IncrementalTableTest.testIncrementalToAutoTagWithManualTag)."""
    spark.sql(f"USE paimon.{db}")
    spark.sql("CREATE TABLE t (a INT, b STRING) USING paimon "
              "TBLPROPERTIES ('primary-key' = 'a', 'bucket' = '1', 'tag.creation-period'='daily')")
    for a, b, tag in [(1, "a", "2024-12-01"), (2, "b", "2024-12-02"), (3, "c", "2024-12-04")]:
        spark.sql(f"INSERT INTO t VALUES ({a}, '{b}')")
        spark.sql(f"CALL sys.create_tag('{db}.t', '{tag}')")
    assert sql("SELECT * FROM paimon_incremental_to_auto_tag('t', '2024-12-01') ORDER BY a") == []
    assert sql("SELECT * FROM paimon_incremental_to_auto_tag('t', '2024-12-02') ORDER BY a") == [(2, "b")]
    assert sql("SELECT * FROM paimon_incremental_to_auto_tag('t', '2024-12-03') ORDER BY a") == []
    assert sql("SELECT * FROM paimon_incremental_to_auto_tag('t', '2024-12-04') ORDER BY a") == [(3, "c")]


def test_delete_after_compact(spark: Any, db: str, sql: Any) -> None:
    """TableValuedFunctionsTest "incremental query with delete after compact" and "... compact2"."""
    spark.sql(f"USE paimon.{db}")
    spark.sql("CREATE TABLE t (id INT) USING paimon "
              "TBLPROPERTIES ('primary-key'='id', 'bucket' = '1', 'write-only' = 'true')")
    spark.sql("INSERT INTO t VALUES 1")
    spark.sql("INSERT INTO t VALUES 2")
    spark.sql(f"CALL sys.create_tag('{db}.t', 'tag1')")
    spark.sql(f"CALL sys.compact(table => '{db}.t')")
    spark.sql("DELETE FROM t WHERE id = 1")
    spark.sql(f"CALL sys.create_tag('{db}.t', 'tag2')")
    assert sql("SELECT level FROM `t$files` VERSION AS OF 'tag1' ORDER BY level") == [(0,), (0,)]
    assert sql("SELECT level FROM `t$files` VERSION AS OF 'tag2' ORDER BY level") == [(0,), (5,)]
    assert sql("SELECT * FROM paimon_incremental_query('`t$audit_log`', 'tag1', 'tag2') ORDER BY id") == [
        ("-D", 1)]

    spark.sql("CREATE TABLE u (id INT) USING paimon "
              "TBLPROPERTIES ('primary-key'='id', 'bucket' = '1', 'write-only' = 'true')")
    spark.sql("INSERT INTO u VALUES 1")
    spark.sql("DELETE FROM u WHERE id = 1")
    spark.sql(f"CALL sys.create_tag('{db}.u', 'tag1')")
    spark.sql(f"CALL sys.compact(table => '{db}.u')")
    spark.sql("INSERT INTO u VALUES 1")
    spark.sql("DELETE FROM u WHERE id = 1")
    spark.sql(f"CALL sys.create_tag('{db}.u', 'tag2')")
    assert sql("SELECT level FROM `u$files` VERSION AS OF 'tag1' ORDER BY level") == [(0,), (0,)]
    assert sql("SELECT level FROM `u$files` VERSION AS OF 'tag2' ORDER BY level") == [(0,), (0,)]
    assert sql("SELECT * FROM paimon_incremental_query('`u$audit_log`', 'tag1', 'tag2') ORDER BY id") == []


def test_incremental_query_by_tag_with_limit(spark: Any, db: str, sql: Any) -> None:
    """TableValuedFunctionsTest "incremental query by tag with LIMIT"."""
    spark.sql(f"USE paimon.{db}")
    spark.sql("CREATE TABLE t (a INT, b INT, c STRING) USING paimon "
              "TBLPROPERTIES ('primary-key'='a,b', 'bucket' = '2') PARTITIONED BY (a)")
    spark.sql("INSERT INTO t VALUES (1, 1, '1'), (2, 2, '2')")
    spark.sql(f"CALL sys.create_tag('{db}.t', 'tag1')")
    spark.sql("INSERT INTO t VALUES (1, 3, '3'), (2, 4, '4')")
    spark.sql(f"CALL sys.create_tag('{db}.t', 'tag2')")
    assert sql("SELECT * FROM paimon_incremental_query('t', 'tag1', 'tag2') ORDER BY a, b LIMIT 5") == [
        (1, 3, "3"), (2, 4, "4")]


def test_session_option_and_audit_log(spark: Any, db: str, sql: Any, conf: Any) -> None:
    """``SET spark.paimon.incremental-between`` applies to every read of the session; the audit log
    of an incremental range keeps each record's kind; ``$binlog`` packs arrays."""
    spark.sql(f"USE paimon.{db}")
    spark.sql("CREATE TABLE t (k INT, v STRING) USING paimon "
              "TBLPROPERTIES ('primary-key'='k', 'bucket' = '1', 'write-only' = 'true')")
    spark.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    spark.sql("INSERT INTO t VALUES (1, 'c')")
    spark.sql("DELETE FROM t WHERE k = 2")
    assert sql("SELECT * FROM `t$audit_log` ORDER BY k") == [("+I", 1, "c"), ("-D", 2, "b")]
    assert sql("SELECT * FROM `t$binlog` ORDER BY k") == [("+I", [1], ["c"]), ("-D", [2], ["b"])]
    assert sql("SELECT rowkind, k FROM paimon_incremental_query('`t$audit_log`', '1', '3') ORDER BY k, rowkind") \
        == [("+I", 1), ("-D", 2)]
    df = spark.read.format("paimon").option("incremental-between", "1,3").table("`t$audit_log`")
    assert sorted(tuple(r) for r in df.collect()) == [("+I", 1, "c"), ("-D", 2, "b")]
    # Spark's per-query table options in SQL
    assert sql("SELECT * FROM t WITH ('incremental-between' = '0,2') ORDER BY k, v") == [(1, "a"), (1, "c"), (2, "b")]
    assert sql("SELECT * FROM `t$audit_log` WITH ('incremental-between' = '2,3')") == [("-D", 2, "b")]
    conf("spark.paimon.incremental-between", "0,2")
    assert sql("SELECT * FROM t ORDER BY k, v") == [(1, "a"), (1, "c"), (2, "b")]
    assert sql("SELECT count(*) FROM t") == [(3,)]
    conf("spark.paimon.incremental-between-scan-mode", "diff")
    conf("spark.paimon.incremental-between", "1,3")
    assert sql("SELECT * FROM t ORDER BY k") == [(1, "c")]


def test_bad_input(spark: Any, db: str, sql: Any) -> None:
    spark.sql(f"USE paimon.{db}")
    spark.sql("CREATE TABLE t (k INT) USING paimon")
    spark.sql("INSERT INTO t VALUES 1")
    with pytest.raises(Exception, match="out of available snapshotId range"):
        sql("SELECT * FROM paimon_incremental_query('t', '0', '5')")
    with pytest.raises(Exception, match="Didn't find two tags"):
        sql("SELECT * FROM paimon_incremental_query('t', 'x', 'y')")
    with pytest.raises(Exception, match="incremental-between-scan-mode"):
        spark.read.format("paimon").option("incremental-between", "0,1") \
            .option("incremental-between-scan-mode", "nope").table("t").collect()
    with pytest.raises(Exception, match="paimon_incremental_query needs 3 arguments"):
        sql("SELECT * FROM paimon_incremental_query('t', '0')")


def test_delete_after_minor_compact(spark: Any, db: str, sql: Any) -> None:
    """TableValuedFunctionsTest "incremental query with delete after minor compact": the diff of
    the two tags merges only the files they do not share."""
    spark.sql(f"USE paimon.{db}")
    spark.sql("CREATE TABLE t (id INT) USING paimon "
              "TBLPROPERTIES ('primary-key'='id', 'bucket' = '1', 'write-only' = 'true')")
    spark.sql("INSERT INTO t SELECT /*+ REPARTITION(1) */ id FROM range (1, 100001)")
    spark.sql(f"CALL sys.compact(table => '{db}.t')")
    spark.sql("INSERT INTO t VALUES 100001")
    spark.sql("INSERT INTO t VALUES 100002")
    spark.sql(f"CALL sys.create_tag('{db}.t', 'tag1')")
    spark.sql(f"CALL sys.compact(table => '{db}.t', compact_strategy => 'minor', "
              "options => 'num-sorted-run.compaction-trigger=2')")
    spark.sql("DELETE FROM t WHERE id = 999")
    spark.sql(f"CALL sys.create_tag('{db}.t', 'tag2')")
    assert sql("SELECT level FROM `t$files` VERSION AS OF 'tag1' ORDER BY level") == [(0,), (0,), (5,)]
    assert sql("SELECT level FROM `t$files` VERSION AS OF 'tag2' ORDER BY level") == [(0,), (4,), (5,)]
    assert sql("SELECT * FROM paimon_incremental_query('`t$audit_log`', 'tag1', 'tag2') ORDER BY id") == [
        ("-D", 999)]


def test_inconsistent_tag_bucket(spark: Any, db: str, sql: Any) -> None:
    """TableValuedFunctionsTest "incremental query with inconsistent tag bucket": a diff across a
    bucket-count change reads as the end snapshot's rows EXCEPT the start's (Paimon's fallback).
    paimon_sql has no UPDATE yet: the last change is an upsert by INSERT (so its audit kind is +I,
    where Paimon's UPDATE writes +U)."""
    spark.sql(f"USE paimon.{db}")
    spark.sql("CREATE TABLE t (a INT, b INT) USING paimon TBLPROPERTIES ('primary-key'='a', 'bucket' = '1')")
    spark.sql("INSERT INTO t VALUES (1, 11), (2, 22)")
    spark.sql(f"CALL sys.create_tag('{db}.t', '2024-01-01', 1)")
    spark.sql("ALTER TABLE t SET TBLPROPERTIES ('bucket' = '2')")
    spark.sql("INSERT OVERWRITE t SELECT * FROM t")
    spark.sql("INSERT INTO t VALUES (3, 33)")
    spark.sql(f"CALL sys.create_tag('{db}.t', '2024-01-03', 3)")
    spark.sql("DELETE FROM t WHERE a = 1")
    spark.sql(f"CALL sys.create_tag('{db}.t', '2024-01-04', 4)")
    spark.sql("INSERT INTO t VALUES (2, 222)")
    spark.sql(f"CALL sys.create_tag('{db}.t', '2024-01-05', 5)")
    assert sql("SELECT * FROM paimon_incremental_query('t', '2024-01-01', '2024-01-03') ORDER BY a, b") == [(3, 33)]
    assert sql("SELECT * FROM paimon_incremental_to_auto_tag('t', '2024-01-03') ORDER BY a, b") == [(3, 33)]
    assert sql("SELECT * FROM paimon_incremental_query('t', '2024-01-01', '2024-01-04') ORDER BY a, b") == [(3, 33)]
    assert sql("SELECT * FROM paimon_incremental_query('t', '2024-01-01', '2024-01-05') ORDER BY a, b") == [
        (2, 222), (3, 33)]
    assert sql("SELECT * FROM paimon_incremental_query('`t$audit_log`', '2024-01-01', '2024-01-04') "
               "ORDER BY a, b") == [("-D", 1, 11), ("+I", 3, 33)]
    assert sql("SELECT * FROM paimon_incremental_query('`t$audit_log`', '2024-01-01', '2024-01-05') "
               "ORDER BY a, b") == [("-D", 1, 11), ("+I", 2, 222), ("+I", 3, 33)]
    # without the function (a read option) the diff is refused, as Paimon's scan refuses it
    # (an UnsupportedError of the planning is an error in Spark, not an empty result)
    df = spark.read.format("paimon").option("incremental-between", "2024-01-01,2024-01-03").table("t")
    with pytest.raises(Exception, match="bucket number of two snapshots are different"):
        df.collect()
