"""Partition management through Spark (Paimon's PaimonPartitionManagementTest, PartitionExpireTest,
ExpirePartitionsProcedureTest and MarkPartitionDoneProcedureTest): SHOW PARTITIONS, ALTER TABLE ...
DROP PARTITION, TRUNCATE TABLE ... PARTITION, partition expiry at commit and as a procedure,
mark_partition_done."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from paimon_sql import Catalog

pytestmark = pytest.mark.spark


def _show(sql: Any, t: str, spec: str = "") -> list[str]:
    return sorted(r[0] for r in sql(f"SHOW PARTITIONS {t} {spec}"))


@pytest.mark.parametrize("props", [
    "'primary-key'='a,b,dt,hh', 'bucket'='2'",
    "'bucket-key'='a,b', 'bucket'='2'",
    "'write-only'='true'",
])
def test_show_and_drop_partitions(spark: Any, sql: Any, db: str, props: str) -> None:
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (a STRING, b STRING, c BIGINT, dt BIGINT, hh STRING) "
              f"PARTITIONED BY (dt, hh) TBLPROPERTIES ({props})")
    for c, dt, hh in [(1, 20230816, "1132"), (1, 20230816, "1133"), (1, 20230816, "1134"),
                      (2, 20230817, "1132"), (2, 20230817, "1133"), (2, 20230817, "1134"),
                      (2, 20240101, "00"), (2, 20240102, "00")]:
        spark.sql(f"INSERT INTO {t} VALUES ('a', 'b', {c}, {dt}, '{hh}')")
    assert _show(sql, t) == ["dt=20230816/hh=1132", "dt=20230816/hh=1133", "dt=20230816/hh=1134",
                             "dt=20230817/hh=1132", "dt=20230817/hh=1133", "dt=20230817/hh=1134",
                             "dt=20240101/hh=00", "dt=20240102/hh=00"]
    assert _show(sql, t, "PARTITION (dt=20230817, hh='1132')") == ["dt=20230817/hh=1132"]
    assert _show(sql, t, "PARTITION (hh='1132')") == ["dt=20230816/hh=1132", "dt=20230817/hh=1132"]
    assert _show(sql, t, "PARTITION (dt=20230816)") == [
        "dt=20230816/hh=1132", "dt=20230816/hh=1133", "dt=20230816/hh=1134"]
    assert _show(sql, t, "PARTITION (hh='1135')") == []

    spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt=20230816, hh='1134')")
    spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt=20230817, hh='1133')")
    before = sql(f"SELECT count(*) FROM {t}$snapshots")[0][0]
    with pytest.raises(Exception, match="PARTITIONS_NOT_FOUND"):  # one of them does not exist: nothing dropped
        spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt=20240101, hh='00'), PARTITION (dt=999999, hh='00')")
    assert sql(f"SELECT count(*) FROM {t}$snapshots")[0][0] == before
    assert _show(sql, t, "PARTITION (dt=20240101)") == ["dt=20240101/hh=00"]
    # two partitions, one OVERWRITE commit
    spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt=20240101, hh='00'), PARTITION (dt=20240102, hh='00')")
    assert sql(f"SELECT count(*) FROM {t}$snapshots")[0][0] == before + 1
    assert sql(f"SELECT commit_kind FROM {t}$snapshots ORDER BY snapshot_id DESC LIMIT 1") == [("OVERWRITE",)]
    assert _show(sql, t) == ["dt=20230816/hh=1132", "dt=20230816/hh=1133",
                             "dt=20230817/hh=1132", "dt=20230817/hh=1134"]
    assert sorted(sql(f"SELECT c, dt, hh FROM {t}")) == [
        (1, 20230816, "1132"), (1, 20230816, "1133"), (2, 20230817, "1132"), (2, 20230817, "1134")]
    # an older snapshot still reads the dropped partitions
    assert sql(f"SELECT count(*) FROM {t} VERSION AS OF 8")[0][0] == 8


def test_drop_partitions_by_partial_spec(spark: Any, sql: Any, db: str) -> None:
    """Paimon's 'batch drop partitions': a spec naming the first partition columns drops every
    partition under it."""
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (a INT, dt INT, hh STRING, mm STRING) PARTITIONED BY (dt, hh, mm) "
              "TBLPROPERTIES ('file.format' = 'avro')")
    rows = "(1, 20240101, '00', '00'), (2, 20240101, '00', '01'), (3, 20240101, '01', '00'), " \
           "(4, 20240102, '00', '00'), (5, 20240102, '00', '01')"
    spark.sql(f"INSERT INTO {t} VALUES {rows}")
    spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt=20240101)")
    assert _show(sql, t) == ["dt=20240102/hh=00/mm=00", "dt=20240102/hh=00/mm=01"]
    spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt=20240102, hh='00')")
    assert _show(sql, t) == []

    # mixed full and partial specs, refusals, IF EXISTS: test_spark_partition_ddl.py


def test_unpartitioned_table_has_no_partitions(spark: Any, db: str) -> None:
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (a STRING, dt STRING)")
    spark.sql(f"INSERT INTO {t} VALUES ('a', '20230816')")
    for stmt in (f"ALTER TABLE {t} DROP PARTITION (dt='20230816')", f"SHOW PARTITIONS {t}"):
        with pytest.raises(Exception, match="(?i)partition"):
            spark.sql(stmt).collect()


def test_null_partition_and_truncate_partition(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (a INT, dt STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('partition.default-name'='__TEST_DEFAULT_PARTITION__')")
    spark.sql(f"INSERT INTO {t} VALUES (1, '20240601'), (2, null), (3, '20240602')")
    assert _show(sql, t) == ["dt=20240601", "dt=20240602", "dt=null"]
    spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt=null)")
    assert _show(sql, t) == ["dt=20240601", "dt=20240602"]
    spark.sql(f"TRUNCATE TABLE {t} PARTITION (dt='20240601')")
    assert sql(f"SELECT * FROM {t}") == [(3, "20240602")]
    with pytest.raises(Exception, match="(?i)cannot add partitions"):
        spark.sql(f"ALTER TABLE {t} ADD PARTITION (dt='20240605')")


def test_date_partitions(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (a INT, d DATE) PARTITIONED BY (d)")
    spark.sql(f"INSERT INTO {t} VALUES (1, DATE'2024-06-01'), (2, DATE'2024-06-02')")
    assert _show(sql, t) == ["d=2024-06-01", "d=2024-06-02"]
    spark.sql(f"ALTER TABLE {t} DROP PARTITION (d=DATE'2024-06-01')")
    assert sql(f"SELECT a FROM {t}") == [(2,)]
    # values-time reads a DATE partition by its date (Paimon cannot)
    assert sql(f"CALL sys.expire_partitions(table => '{t}', expiration_time => '1 d')") == [("d=2024-06-02",)]
    assert sql(f"SELECT a FROM {t}") == []


def test_partition_expire_at_commit(spark: Any, sql: Any, db: str) -> None:
    """PartitionExpireTest: with end-input.check-partition-expire every INSERT expires."""
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT, v INT, p STRING, dt STRING) PARTITIONED BY (p, dt) TBLPROPERTIES ("
              "'partition.expiration-time' = '7d', 'end-input.check-partition-expire' = 'true', "
              "'partition.timestamp-formatter' = 'yyyyMMdd', 'partition.timestamp-pattern' = '$dt')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 1, 'un-known', '20250601')")
    assert sql(f"SELECT * FROM {t}") == []
    spark.sql(f"INSERT INTO {t} VALUES (2, 2, 'un-known', '99991231')")
    assert sql(f"SELECT * FROM {t}") == [(2, 2, "un-known", "99991231")]
    # without end-input.check-partition-expire, a commit checks once an hour per process
    u = f"{db}.u"
    spark.sql(f"CREATE TABLE {u} (id INT, dt STRING) PARTITIONED BY (dt) TBLPROPERTIES ("
              "'partition.expiration-time' = '7d')")
    spark.sql(f"INSERT INTO {u} VALUES (1, '2025-06-01')")
    assert sql(f"SELECT id FROM {u}") == [(1,)]


def test_expire_partitions_procedure(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (k STRING, pt STRING, hm STRING) PARTITIONED BY (pt, hm) "
              "TBLPROPERTIES ('primary-key'='k,pt,hm', 'bucket'='1')")
    call = f"CALL paimon.sys.expire_partitions(table => '{t}', expiration_time => '1 d', " \
           "timestamp_formatter => 'yyyy-MM-dd'"
    assert sql(call + ")") == [("No expired partitions.",)]
    for k, pt, hm in [("a", "2024-06-02", "02:00"), ("b", "2024-06-02", "01:00"), ("d", "2024-06-03", "01:00"),
                      ("c", "2024-06-01", "01:00"), ("Never-expire", "9999-09-09", "99:99")]:
        spark.sql(f"INSERT INTO {t} VALUES ('{k}', '{pt}', '{hm}')")
    rows = spark.sql(call + ", max_expires => 3, dry_run => true)")
    assert rows.columns == ["expired_partitions"]
    assert len(sql(f"SELECT * FROM {t}")) == 5
    assert sql(call + ", max_expires => 3)") == [
        ("pt=2024-06-01, hm=01:00",), ("pt=2024-06-02, hm=01:00",), ("pt=2024-06-02, hm=02:00",)]
    assert sorted(sql(f"SELECT * FROM {t}")) == [("Never-expire", "9999-09-09", "99:99"), ("d", "2024-06-03", "01:00")]
    with pytest.raises(Exception, match="expire_strategy|partition.expiration-strategy"):
        spark.sql(call + ", expire_strategy => 'sometimes')")
    with pytest.raises(Exception, match="partition.expiration-time"):
        spark.sql(f"CALL sys.expire_partitions(table => '{t}', expiration_time => 'soon')")
    assert sorted(sql(f"SELECT k FROM {t}")) == [("Never-expire",), ("d",)]


def test_mark_partition_done(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (id STRING, name STRING, day STRING) PARTITIONED BY (day) "
              "TBLPROPERTIES ('primary-key'='day,id', 'partition.mark-done-action'='success-file')")
    spark.sql(f"INSERT INTO {t} VALUES ('1', 'a', '2024-07-13')")
    spark.sql(f"INSERT INTO {t} VALUES ('2', 'b', '2024-07-14')")
    assert sql(f"CALL paimon.sys.mark_partition_done(table => '{t}', "
               "partitions => 'day=2024-07-13;day=2024-07-14')") == [(True,)]
    root = Catalog(spark_warehouse).get_table(t).store.path
    for day in ("2024-07-13", "2024-07-14"):
        doc = json.loads(open(os.path.join(root, f"day={day}", "_SUCCESS")).read())
        assert doc["creationTime"] == doc["modificationTime"] > 0
    assert _show(sql, t) == ["day=2024-07-13", "day=2024-07-14"]
