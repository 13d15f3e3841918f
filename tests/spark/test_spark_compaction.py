"""Compaction through Spark SQL, as Paimon's CompactProcedureTest states it: ``CALL sys.compact`` on
partitioned primary-key tables (fixed and dynamic bucket) and append tables, an INSERT at the
compaction trigger committing a COMPACT snapshot, and wrong usage that changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


def _last(sql: Any, t: str) -> tuple[int, str]:
    rows = sql(f"SELECT snapshot_id, commit_kind FROM {t}$snapshots ORDER BY snapshot_id DESC LIMIT 1")
    return rows[0][0], rows[0][1]


@pytest.mark.parametrize("bucket", [1, -1])
def test_compact_aware_bucket_pk_table(spark: Any, sql: Any, db: str, bucket: int) -> None:
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT, value STRING, pt STRING) TBLPROPERTIES "
              f"('primary-key'='id, pt', 'bucket'='{bucket}', 'write-only'='true') PARTITIONED BY (pt)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'p1'), (2, 'b', 'p2')")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'c', 'p1'), (4, 'd', 'p2')")
    assert sql(f"CALL sys.compact(table => '{t}', partitions => 'pt=\"p1\"')") == [(True,)]
    assert _last(sql, t) == (3, "COMPACT")
    spark.sql(f"CALL sys.compact(table => '{t}')")
    assert _last(sql, t) == (4, "COMPACT")
    spark.sql(f"CALL sys.compact(table => '{t}')")  # nothing left to compact
    assert _last(sql, t) == (4, "COMPACT")
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(1, "a", "p1"), (2, "b", "p2"), (3, "c", "p1"), (4, "d", "p2")]
    assert all(level > 0 for (level,) in sql(f"SELECT level FROM {t}$files"))


def test_compact_buckets_and_wrong_usage(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT, value STRING) TBLPROPERTIES "
              "('primary-key'='id', 'bucket'='4', 'write-only'='true')")
    spark.sql(f"INSERT INTO {t} SELECT id, 'first' FROM range(0, 40)")
    spark.sql(f"INSERT INTO {t} SELECT id, 'second' FROM range(40, 80)")
    spark.sql(f"CALL sys.compact(table => '{t}', compact_strategy => 'full', buckets => '0-1')")
    per_bucket = dict(sql(f"SELECT bucket, count(*) FROM {t}$files GROUP BY bucket"))
    assert per_bucket == {0: 1, 1: 1, 2: 2, 3: 2}
    before = sql(f"SELECT snapshot_id FROM {t}$snapshots")
    for call, message in [
        ("compact_strategy => 'major'", "only supports 'full' or 'minor'"),
        ("partitions => 'pt=1', where => 'pt=1'", "partitions and where cannot be used together"),
        ("partitions => 'id=1'", r"Partition keys \[id\] are invalid"),
        ("where => 'id > 1'", "Only partition predicate is supported"),
        ("order_strategy => 'zorder', order_by => 'value'", "only supports unaware-bucket append"),
        ("order_strategy => 'none', order_by => 'value'", "cannot work with order_by"),
        ("order_strategy => 'order', order_by => 'nope'", "not columns of table"),
        ("buckets => 'x'", "buckets"),
    ]:
        with pytest.raises(Exception, match=message):
            spark.sql(f"CALL sys.compact(table => '{t}', {call})").collect()
    assert sql(f"SELECT snapshot_id FROM {t}$snapshots") == before


def test_insert_at_the_trigger_commits_a_compact_snapshot(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT, v STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='1', "
              "'num-sorted-run.compaction-trigger'='3')")
    for i in range(4):
        spark.sql(f"INSERT INTO {t} VALUES ({i}, 'v{i}'), (100, 'last{i}')")
    kinds = [r[0] for r in sql(f"SELECT commit_kind FROM {t}$snapshots ORDER BY snapshot_id")]
    assert "COMPACT" in kinds and kinds[kinds.index("COMPACT") - 1] == "APPEND"
    assert sql(f"SELECT count(*) FROM {t}$files")[0][0] <= 3
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(0, "v0"), (1, "v1"), (2, "v2"), (3, "v3"), (100, "last3")]


def test_compact_unaware_bucket_append_table(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT, value STRING, pt STRING) TBLPROPERTIES "
              "('bucket'='-1', 'write-only'='true', 'compaction.min.file-num'='2') PARTITIONED BY (pt)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'p1'), (2, 'b', 'p2')")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'c', 'p1'), (4, 'd', 'p2')")
    spark.sql(f"INSERT INTO {t} VALUES (5, 'e', 'p1'), (6, 'f', 'p2')")
    spark.sql(f"CALL sys.compact(table => '{t}', partitions => 'pt=\"p1\"')")
    assert _last(sql, t) == (4, "COMPACT")
    spark.sql(f"CALL sys.compact(table => '{t}')")
    assert _last(sql, t) == (5, "COMPACT")
    spark.sql(f"CALL sys.compact(table => '{t}')")
    assert _last(sql, t) == (5, "COMPACT")
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [
        (1, "a", "p1"), (2, "b", "p2"), (3, "c", "p1"), (4, "d", "p2"), (5, "e", "p1"), (6, "f", "p2")]


def test_deletion_vector_table_through_spark(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.dv"
    spark.sql(f"CREATE TABLE {t} (id INT, v STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='1', "
              "'deletion-vectors.enabled'='true')")
    spark.sql(f"INSERT INTO {t} SELECT id, 'a' FROM range(0, 300)")
    spark.sql(f"INSERT INTO {t} VALUES (5, 'b'), (7, 'b')")
    spark.sql(f"DELETE FROM {t} WHERE id = 9")
    assert sql(f"SELECT count(*), count_if(v = 'b') FROM {t}") == [(299, 2)]
    assert sql(f"SELECT v FROM {t} WHERE id IN (5, 7, 9) ORDER BY id") == [("b",), ("b",)]
    rows = sql(f"SELECT index_type, dv_ranges[0]._CARDINALITY FROM {t}$table_indexes")
    assert rows == [("DELETION_VECTORS", 3)]
    assert all(level > 0 for (level,) in sql(f"SELECT level FROM {t}$files"))


def test_compact_runs_as_a_spark_job_one_task_per_bucket(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT, v STRING, pt STRING) PARTITIONED BY (pt) TBLPROPERTIES "
              "('primary-key'='id, pt', 'bucket'='3', 'write-only'='true')")
    for i in range(3):
        spark.sql(f"INSERT INTO {t} SELECT id, 'v{i}', CAST(id % 2 AS STRING) FROM range(0, 60)")
    sc = spark.sparkContext
    sc.setJobGroup("test-compact", "compaction job")
    try:
        assert sql(f"CALL sys.compact(table => '{t}')") == [(True,)]
    finally:
        sc.setJobGroup("test-other", "other")
    tracker = sc.statusTracker()
    stages = [s for j in tracker.getJobIdsForGroup("test-compact") for s in tracker.getJobInfo(j).stageIds]
    assert sum(tracker.getStageInfo(s).numTasks for s in stages) == 6  # 2 partitions x 3 buckets
    assert _last(sql, t)[1] == "COMPACT"
    assert sql(f"SELECT count(*), count_if(v = 'v2') FROM {t}") == [(60, 60)]
    assert sql(f"SELECT count(*) FROM {t}$files") == [(6,)]


def test_remove_orphan_files_call(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    import os
    import time

    t = f"{db}.orph"
    spark.sql(f"CREATE TABLE {t} (id INT, v STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='1')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a')")
    folder = os.path.join(spark_warehouse, f"{db}.db", "orph", "bucket-0")
    with open(os.path.join(folder, "data-orphan-0.parquet"), "wb") as fh:
        fh.write(b"1234")
    assert sql(f"CALL sys.remove_orphan_files(table => '{t}')") == [(0, 0)]  # younger than a day
    future = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() + 60))
    rows = spark.sql(f"CALL sys.remove_orphan_files(table => '{t}', older_than => '{future}', dry_run => true)")
    assert rows.columns == ["deletedFileCount", "deletedFileTotalLenInBytes"] and rows.collect()[0][0] == 1
    assert sql(f"CALL sys.remove_orphan_files('{t}', '{future}')") == [(1, 4)]
    assert not os.path.exists(os.path.join(folder, "data-orphan-0.parquet"))
    assert sql(f"SELECT * FROM {t}") == [(1, "a")]


def test_sort_compact_through_spark(spark: Any, sql: Any, db: str) -> None:
    """Paimon's 'sort compact' test: zorder, hilbert and order on (a, b) of a bucket-unaware table."""
    t = f"{db}.srt"
    spark.sql(f"CREATE TABLE {t} (a INT, b INT) TBLPROPERTIES ('bucket'='-1')")
    for a in range(3):
        for b in range(3):
            spark.sql(f"INSERT INTO {t} VALUES ({a}, {b})")
    grid = [(a, b) for a in range(3) for b in range(3)]
    assert sql(f"CALL sys.compact(table => '{t}', order_strategy => 'zorder', order_by => 'a,b')") == [(True,)]
    assert sql(f"SELECT * FROM {t}") == [(0, 0), (0, 1), (1, 0), (1, 1), (0, 2), (1, 2), (2, 0), (2, 1), (2, 2)]
    assert sql(f"CALL sys.compact(table => '{t}', order_strategy => 'hilbert', order_by => 'a,b')") == [(True,)]
    assert sql(f"SELECT * FROM {t}") == [(0, 0), (0, 1), (1, 1), (1, 0), (2, 0), (2, 1), (2, 2), (1, 2), (0, 2)]
    assert sql(f"CALL sys.compact(table => '{t}', order_strategy => 'order', order_by => 'a,b')") == [(True,)]
    assert sql(f"SELECT * FROM {t}") == grid
    p = f"{db}.srtp"
    spark.sql(f"CREATE TABLE {p} (id INT, v STRING, pt STRING) PARTITIONED BY (pt) TBLPROPERTIES ('bucket'='-1')")
    spark.sql(f"INSERT INTO {p} VALUES (1, 'a', 'p1')")
    with pytest.raises(Exception, match="order_by should not contain partition"):
        spark.sql(f"CALL sys.compact(table => '{p}', order_strategy => 'sort', order_by => 'pt')").collect()
    with pytest.raises(Exception, match="sort compact do not support 'partition_idle_time'"):
        spark.sql(f"CALL sys.compact(table => '{p}', order_strategy => 'sort', order_by => 'id', "
                  "partition_idle_time => '5s')").collect()


def test_read_optimized_system_table(spark: Any, sql: Any, db: str) -> None:
    """``t$ro`` through Spark: the highest level only (Paimon's ReadOptimizedTable)."""
    t = f"{db}.ro_t"
    spark.sql(f"CREATE TABLE {t} (k INT, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    assert sql(f"SELECT * FROM {t}$ro") == []
    sql(f"CALL sys.compact(table => '{t}')")
    spark.sql(f"INSERT INTO {t} VALUES (2, 'b2')")
    assert sql(f"SELECT * FROM {t}$ro ORDER BY k") == [(1, "a"), (2, "b")]
    assert sql(f"SELECT * FROM {t} ORDER BY k") == [(1, "a"), (2, "b2")]
    assert sql(f"SELECT v FROM {t}$ro VERSION AS OF 1") == []
    with pytest.raises(Exception, match="does not support append"):  # read-only, as every system table
        spark.sql(f"INSERT INTO {t}$ro VALUES (3, 'c')")


def test_partition_idle_time_through_sql(spark: Any, sql: Any, db: str) -> None:
    """``partition_idle_time``: fresh partitions are not idle for a day, and all are idle for 0 s."""
    t = f"{db}.idle_t"
    spark.sql(f"CREATE TABLE {t} (k INT, v STRING, pt STRING) PARTITIONED BY (pt) "
              "TBLPROPERTIES ('primary-key' = 'k,pt', 'bucket' = '1', 'write-only' = 'true')")
    for i in range(2):
        spark.sql(f"INSERT INTO {t} VALUES ({i}, 'a', 'p1'), ({i}, 'b', 'p2')")
    kinds = f"SELECT commit_kind FROM {t}$snapshots ORDER BY snapshot_id"
    assert sql(f"CALL sys.compact(table => '{t}', partition_idle_time => '1 d')") == [(True,)]
    assert sql(kinds) == [("APPEND",), ("APPEND",)]
    with pytest.raises(Exception, match="partition_idle_time"):
        spark.sql(f"CALL sys.compact(table => '{t}', partition_idle_time => 'soon')").collect()
    assert sql(f"CALL sys.compact(table => '{t}', partition_idle_time => '0 s')") == [(True,)]
    assert sql(kinds) == [("APPEND",), ("APPEND",), ("COMPACT",)]
    assert sql(f"SELECT count(*) FROM {t}$files") == [(2,)]
