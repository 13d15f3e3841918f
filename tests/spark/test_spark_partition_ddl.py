"""Partition statements as Paimon's Spark extension answers them (PaimonPartitionManagementTest,
DDLTestBase "Drop Partition by partial spec" / "Fix partition column generate wrong partition
spec", DescribeTableTestBase "show table extended"): which partial DROP PARTITION specs are
accepted (the first partition columns only) and the refusals' texts, and SHOW TABLE EXTENDED ...
PARTITION's partition statistics."""

from __future__ import annotations

import os
from typing import Any

import pytest

pytestmark = pytest.mark.spark


def _show(sql: Any, t: str, spec: str = "") -> list[str]:
    return sorted(r[0] for r in sql(f"SHOW PARTITIONS {t} {spec}"))


def _count(sql: Any, t: str) -> int:
    n: int = sql(f"SELECT count(*) FROM {t}")[0][0]
    return n


def test_partition_statements_on_a_non_partitioned_table(spark: Any, db: str) -> None:
    """PaimonPartitionManagementTest 'Partition for non-partitioned table': every partition
    statement is an AnalysisException."""
    from pyspark.errors import AnalysisException

    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (a VARCHAR(10), b CHAR(10), c BIGINT, dt VARCHAR(8), hh VARCHAR(4)) "
              "TBLPROPERTIES ('primary-key'='a,b', 'bucket'='1')")
    spark.sql(f"INSERT INTO {t} VALUES('a','b',1,'20230816','1132')")
    for stmt in ("alter table {t} drop partition (dt='20230816', hh='1134')",
                 "alter table {t} drop partition (dt='20230816')",
                 "alter table {t} drop partition (hh='1134')",
                 "alter table {t} drop partition (dt='20230816'), partition (dt='20230817')",
                 "show partitions {t} partition (dt='20230816', hh='1134')",
                 "show partitions {t} partition (dt='20230816')",
                 "show partitions {t} partition (hh='1134')"):
        with pytest.raises(AnalysisException):
            spark.sql(stmt.format(t=t)).collect()
    assert spark.sql(f"SELECT count(*) FROM {t}").collect()[0][0] == 1


def test_drop_partition_spec_must_name_the_first_partition_columns(spark: Any, sql: Any, db: str) -> None:
    """PaimonPartitionManagementTest 'Partition for partitioned table': (hh = ...) alone is refused
    with Paimon's message; (dt = ...) alone drops every hour of the day."""
    from pyspark.errors import AnalysisException

    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (a VARCHAR(10), b CHAR(10), c BIGINT, dt LONG, hh VARCHAR(4)) "
              "PARTITIONED BY (dt, hh) TBLPROPERTIES ('bucket-key'='a,b', 'bucket'='1')")
    for c, dt, hh in [(1, 20230816, "1132"), (1, 20230816, "1134"), (2, 20230817, "1134")]:
        spark.sql(f"INSERT INTO {t} VALUES ('a', 'b', {c}, {dt}, '{hh}')")
    snapshots = _count(sql, f"{t}$snapshots")
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"alter table {t} drop partition (hh='1134')")
    assert str(e.value) == (
        f"Partition spec is invalid. The spec (hh = '1134') must match the partition spec (dt, hh) "
        f"defined in table '{db}.t'.")
    assert _count(sql, f"{t}$snapshots") == snapshots
    assert _show(sql, t, "PARTITION (hh='1134')") == ["dt=20230816/hh=1134", "dt=20230817/hh=1134"]
    assert _show(sql, t, "PARTITION (dt=20230818)") == []
    spark.sql(f"alter table {t} drop partition (dt=20230816)")
    assert _show(sql, t) == ["dt=20230817/hh=1134"]


def test_drop_partition_by_partial_spec(spark: Any, sql: Any, db: str) -> None:
    """DDLTestBase 'Paimon DDL: Drop Partition by partial spec'."""
    from pyspark.errors import AnalysisException

    t = f"{db}.tbl"
    spark.sql(f"CREATE TABLE {t} (id int, data string) USING paimon PARTITIONED BY (dt string, hour string, event string)")
    for dt, hour, event in [("2023-01-01", "00", "event1"), ("2023-01-02", "00", "event1"),
                            ("2023-01-02", "00", "event2"), ("2023-01-02", "00", "event3"),
                            ("2023-01-02", "02", "event1"), ("2023-01-02", "02", "event2"),
                            ("2023-01-02", "03", "event1"), ("2023-01-03", "00", "event1")]:
        spark.sql(f"INSERT INTO {t} VALUES (1, 'a', '{dt}', '{hour}', '{event}')")
    assert _count(sql, t) == 8
    spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt='2023-01-01', hour='00', event='event1')")  # full
    assert _count(sql, t) == 7
    spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt='2023-01-02', hour='00')")  # first + second level
    assert _count(sql, t) == 4
    spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt='2023-01-02')")  # first level
    assert _count(sql, t) == 1
    spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt='2023-01-01')")  # matches nothing: no error
    assert _count(sql, t) == 1
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"ALTER TABLE {t} DROP PARTITION (hour='00', event='event1')")
    assert str(e.value) == (
        "Partition spec is invalid. The spec (hour = '00',event = 'event1') must match the partition "
        f"spec (dt, hour, event) defined in table '{db}.tbl'.")
    # a full spec naming no partition: Spark's NoSuchPartitionsException
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt='2023-01-01', hour='00', event='event1')")
    assert e.value.getCondition() == "PARTITIONS_NOT_FOUND"
    assert "PARTITION (`dt` = 2023-01-01, `hour` = 00, `event` = event1)" in str(e.value)
    assert _count(sql, t) == 1


def test_mixed_specs_in_one_commit_and_refusals(spark: Any, sql: Any, db: str) -> None:
    """PaimonPartitionManagementTest 'batch drop partitions with mixed full and partial specs' (one
    OVERWRITE commit), plus what Paimon refuses: a missing full spec among others (nothing
    dropped), PURGE (Spark's 'Partition purge is not supported'), an unknown column."""
    from pyspark.errors import AnalysisException

    t = f"{db}.m"
    spark.sql(f"CREATE TABLE {t} (a INT, dt INT, hh STRING, mm STRING) USING paimon "
              "TBLPROPERTIES ('file.format' = 'avro') PARTITIONED BY (dt, hh, mm)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 20240101, '00', '00'), (2, 20240101, '00', '01'), "
              "(3, 20240101, '01', '00'), (4, 20240102, '00', '00'), (5, 20240102, '00', '01')")
    spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt=20240101, hh='00', mm='00'), PARTITION (dt=20240102)")
    assert sql(f"SELECT COUNT(*) FROM `{db}`.`m$snapshots` WHERE commit_kind = 'OVERWRITE'") == [(1,)]
    assert _show(sql, t) == ["dt=20240101/hh=00/mm=01", "dt=20240101/hh=01/mm=00"]

    snapshots = _count(sql, f"{t}$snapshots")
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt=20240101, hh='01', mm='00'), "
                  "PARTITION (dt=20990101, hh='00', mm='00')")
    assert e.value.getCondition() == "PARTITIONS_NOT_FOUND"
    with pytest.raises(Exception, match="PURGE_PARTITION"):
        spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt=20240101) PURGE")
    with pytest.raises(AnalysisException, match="PARTITIONS_NOT_FOUND"):
        spark.sql(f"ALTER TABLE {t} DROP PARTITION (xx='1')")
    assert _count(sql, f"{t}$snapshots") == snapshots
    # IF EXISTS skips the missing full spec; names match case-insensitively
    spark.sql(f"ALTER TABLE {t} DROP IF EXISTS PARTITION (DT=20240101, hh='01', mm='00'), "
              "PARTITION (dt=20990101, hh='00', mm='00')")
    assert _show(sql, t) == ["dt=20240101/hh=00/mm=01"]
    # a spec matching nothing still commits (Paimon truncates the partitions it is given)
    snapshots = _count(sql, f"{t}$snapshots")
    spark.sql(f"ALTER TABLE {t} DROP PARTITION (dt=20990101)")
    assert _show(sql, t) == ["dt=20240101/hh=00/mm=01"]
    assert _count(sql, f"{t}$snapshots") == snapshots + 1
    assert sql(f"SELECT commit_kind, total_record_count FROM `{db}`.`m$snapshots` ORDER BY snapshot_id DESC "
               "LIMIT 1") == [("OVERWRITE", 1)]


def test_drop_partition_of_another_catalog_is_sparks(spark: Any, db: str) -> None:
    """The rewrite applies to tables of a Paimon catalog only: Spark's own catalog answers a
    partial spec as Spark does (its v1 command looks the spec up as a partition)."""
    from pyspark.errors import AnalysisException

    spark.sql("CREATE NAMESPACE IF NOT EXISTS spark_catalog.parts_other")
    try:
        spark.sql("CREATE TABLE spark_catalog.parts_other.t (a INT, dt STRING, hh STRING) USING parquet "
                  "PARTITIONED BY (dt, hh)")
        spark.sql("INSERT INTO spark_catalog.parts_other.t VALUES (1, 'x', 'y')")
        with pytest.raises(AnalysisException, match=r"PARTITIONS_NOT_FOUND.*PARTITION \(`dt` = x\)"):
            spark.sql("ALTER TABLE spark_catalog.parts_other.t DROP PARTITION (dt='x')")
    finally:
        spark.sql("DROP NAMESPACE IF EXISTS spark_catalog.parts_other CASCADE")


def test_binary_partition_with_legacy_names_cannot_be_read(
    spark: Any, sql: Any, db: str, spark_warehouse: str
) -> None:
    """DDLTestBase 'Fix partition column generate wrong partition spec': with
    'partition.legacy-name' = true a BINARY partition is written but cannot be read (Paimon's legacy
    folder name is the Java array's identity); without it the folder is day=2021. A DATE partition
    is day=18628 (legacy) or day=2021-01-01."""
    for legacy in (True, False):
        flag = str(legacy).lower()
        t = f"{db}.p_t"
        spark.sql(f"CREATE TABLE {t} (id BIGINT, c1 STRING) USING paimon PARTITIONED BY (day binary) "
                  f"TBLPROPERTIES ('partition.legacy-name'='{flag}')")
        spark.sql(f"insert into table {t} values(1, 'a', cast('2021' as binary))")
        table_dir = os.path.join(spark_warehouse.removeprefix("file:"), f"{db}.db", "p_t")
        if legacy:
            with pytest.raises(Exception, match="partition.legacy-name"):
                spark.sql(f"SELECT * FROM {t}").collect()
        else:
            assert sql(f"SELECT * FROM {t}") == [(1, "a", bytearray(b"2021"))]
            assert os.path.isdir(os.path.join(table_dir, "day=2021"))
        spark.sql(f"DROP TABLE {t}")

        spark.sql(f"CREATE TABLE {t} (id BIGINT, c1 STRING) USING paimon PARTITIONED BY (day date) "
                  f"TBLPROPERTIES ('partition.legacy-name'='{flag}')")
        spark.sql(f"insert into table {t} values(1, 'a', cast('2021-01-01' as date))")
        import datetime as dt

        assert sql(f"SELECT * FROM {t}") == [(1, "a", dt.date(2021, 1, 1))]
        assert os.path.isdir(os.path.join(table_dir, "day=18628" if legacy else "day=2021-01-01"))
        spark.sql(f"DROP TABLE {t}")


def test_show_table_extended_partition(spark: Any, sql: Any, db: str) -> None:
    """DescribeTableTestBase 'Paimon show: show table extended'."""
    spark.sql(f"CREATE TABLE {db}.s2 (id INT, pt STRING) PARTITIONED BY (pt)")
    spark.sql(f"CREATE TABLE {db}.s3 (id INT, pt1 STRING, pt2 STRING) PARTITIONED BY (pt1, pt2)")
    spark.sql(f"INSERT INTO {db}.s2 VALUES (1, '2024'), (2, '2024'), (3, '2025'), (4, '2026')")
    spark.sql(f"INSERT INTO {db}.s3 VALUES (1, '2024', '11'), (2, '2024', '12'), (3, '2025', '11'), (4, '2025', '12')")
    listed = spark.sql(f"SHOW TABLE EXTENDED IN {db} LIKE '*'").select("namespace", "tableName", "isTemporary")
    # the session's temporary views (other tests') are listed too: keep the database's tables
    assert sorted(tuple(r) for r in listed.collect() if not r[2]) == [(db, "s2", False), (db, "s3", False)]
    info = spark.sql(f"SHOW TABLE EXTENDED IN {db} LIKE 's2'").select("information").collect()
    assert len(info) == 1
    fields = dict(line.split(": ", 1) for line in info[0][0].split("\n") if ": " in line)
    assert (fields["Catalog"], fields["Namespace"], fields["Table"], fields["Provider"]) == ("paimon", db, "s2", "paimon")

    with pytest.raises(Exception, match="PARTITIONS_NOT_FOUND"):
        spark.sql(f"SHOW TABLE EXTENDED IN {db} LIKE 's2' PARTITION(pt='2022')").collect()
    with pytest.raises(Exception, match="Partition spec is invalid"):
        spark.sql(f"SHOW TABLE EXTENDED IN {db} LIKE 's3' PARTITION(pt1='2024')").collect()

    res = spark.sql(f"SHOW TABLE EXTENDED IN {db} LIKE 's3' PARTITION(pt1 = '2024', pt2 = 11)").collect()
    assert [tuple(r)[:3] for r in res] == [(db, "s3", False)]
    lines = res[0][3].split("\n")
    assert lines[0] == "Partition Values: [pt1=2024, pt2=11]"
    params = lines[1]
    assert params.startswith("Partition Parameters: {") and params.endswith("}")
    stats = dict(kv.split("=", 1) for kv in params[len("Partition Parameters: {"):-1].split(", "))
    # Paimon's order (its Scala map's): lastFileCreationTime, recordCount, fileSizeInBytes, fileCount
    assert list(stats) == ["lastFileCreationTime", "recordCount", "fileSizeInBytes", "fileCount"]
    assert stats["recordCount"] == "1" and stats["fileCount"] == "1" and int(stats["lastFileCreationTime"]) > 0
    assert lines[2] == f"Partition Statistics: 1 rows, {stats['fileSizeInBytes']} bytes"
    assert lines[3:] == [""]

    info3 = spark.sql(f"SHOW TABLE EXTENDED IN {db} LIKE 's2' PARTITION(pt = '2024')").collect()[0][3]
    assert "recordCount=2" in info3 and "Partition Statistics: 2 rows, " in info3


def test_timestamp_and_null_partitions(spark: Any, sql: Any, db: str) -> None:
    """PaimonPartitionManagementTest 'timestamp partition column' and 'drop null partition with
    specified default partition name'."""
    t = f"{db}.ts"
    spark.sql(f"CREATE TABLE {t} (a INT, dt TIMESTAMP) PARTITIONED BY (dt)")
    spark.sql(f"INSERT INTO {t} VALUES (1, CAST('2024-06-01 10:30:01' AS TIMESTAMP))")
    spark.sql(f"INSERT INTO {t} VALUES (2, CAST('2024-06-02 15:45:30' AS TIMESTAMP))")
    assert _show(sql, t) == ["dt=2024-06-01 10%3A30%3A01", "dt=2024-06-02 15%3A45%3A30"]

    n = f"{db}.n"
    spark.sql(f"CREATE TABLE {n} (a INT, dt STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('partition.default-name'='__TEST_DEFAULT_PARTITION__')")
    spark.sql(f"INSERT INTO {n} VALUES (1, '20240601'), (2, null)")
    assert _show(sql, n) == ["dt=20240601", "dt=null"]
    spark.sql(f"ALTER TABLE {n} DROP PARTITION (dt=null)")
    assert _show(sql, n) == ["dt=20240601"]


def test_describe_table_partition(spark: Any, db: str) -> None:
    """DescribeTableTestBase 'Paimon describe: describe table partition': one 'Partition Parameters'
    row with Paimon's statistics, column comments and '# Column Not Null'. The table is created
    without the column DEFAULT of the Spark 3.4+ variant (the catalog does not take column
    defaults: Paimon's Spark 3.2/3.3 variant of the test)."""
    t = f"{db}.T"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, name STRING, age INT COMMENT 'Age') "
              "PARTITIONED BY (year INT COMMENT 'Year', month INT, day INT)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 16, 2025, 9, 20), (2, 'b', 17, 2025, 9, 21), (3, 'c', 18, 2025, 9, 21)")
    res = [tuple(r) for r in spark.sql(f"DESCRIBE FORMATTED {t} PARTITION (year=2025, month=9, day=21)").collect()]

    def rows(name: str, with_comment: bool = False) -> list[tuple[str, str, str | None]]:
        return [r for r in res if r[0] == name and (not with_comment or r[2] not in (None, ""))]

    assert [r[:2] for r in rows("Partition Values")] == [("Partition Values", "[year=2025, month=9, day=21]")]
    assert rows("age", True) == [("age", "int", "Age")]
    assert rows("id", True) == [("id", "int", "NOT NULL")]
    params = rows("Partition Parameters")
    assert len(params) == 1
    text = params[0][1]
    # Spark's CatalogTablePartition renders the map (this Spark: in brackets)
    assert text[1:].startswith("fileCount=1, fileSizeInBytes=") and text[:-1].endswith(", recordCount=2")
    assert "lastFileCreationTime=" in text
    stats = rows("Partition Statistics")
    assert len(stats) == 1 and stats[0][1].endswith(" bytes, 2 rows")
    # a spec naming no partition
    with pytest.raises(Exception, match="Found 0 matching partitions"):
        spark.sql(f"DESCRIBE FORMATTED {t} PARTITION (year=2025, month=9, day=22)").collect()
