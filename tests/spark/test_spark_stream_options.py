"""Structured Streaming reads of ``t$audit_log`` and of OVERWRITE snapshots of primary-key tables
(``streaming-read-overwrite``) through Spark (the engine's rules: tests/scan/test_streaming_options.py)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark



def _start(queries: list[Any], df: Any, name: str, checkpoint: str) -> Any:
    q = df.writeStream.format("memory").option("checkpointLocation", checkpoint).queryName(name) \
        .outputMode("append").start()
    queries.append(q)
    q.processAllAvailable()
    return q


def test_stream_of_audit_log(spark: Any, db: str, tmp_path: Any, queries: list[Any]) -> None:
    # Paimon's AuditLogTable stream: the table's stream with the row kind first
    t = f"paimon.{db}.t"
    spark.sql(f"CREATE TABLE {t} (a INT, b STRING) TBLPROPERTIES ('primary-key'='a', 'bucket'='1', "
              "'table-read.sequence-number.enabled'='true')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'v_1'), (2, 'v_2')")
    df = spark.readStream.table(f"paimon.{db}.`t$audit_log`")
    assert df.columns == ["rowkind", "_SEQUENCE_NUMBER", "a", "b"]
    q = _start(queries, df, "s_audit", str(tmp_path / "c"))
    assert sorted(tuple(r) for r in spark.table("s_audit").collect()) == [("+I", 0, 1, "v_1"), ("+I", 1, 2, "v_2")]
    spark.sql(f"DELETE FROM {t} WHERE a = 1")
    spark.sql(f"INSERT INTO {t} VALUES (2, 'v_22')")
    q.processAllAvailable()
    rows = [tuple(r) for r in spark.sql("SELECT rowkind, a, b FROM s_audit").collect()][2:]
    assert rows == [("-D", 1, "v_1"), ("+I", 2, "v_22")]


def test_stream_of_primary_key_overwrite(spark: Any, db: str, spark_warehouse: str, tmp_path: Any,
                                         queries: list[Any]) -> None:
    # ReadWriteTableITCase.testStreamingReadOverwriteWithPartitionedRecords, by path with read.changelog
    t = f"paimon.{db}.r"
    spark.sql(f"CREATE TABLE {t} (currency STRING, rate BIGINT, dt STRING) PARTITIONED BY (dt) TBLPROPERTIES "
              "('primary-key'='currency,dt', 'bucket'='1', 'streaming-read-overwrite'='true')")
    spark.sql(f"INSERT INTO {t} VALUES ('US Dollar', 114, '2022-01-01'), ('Yen', 1, '2022-01-01'), "
              "('Euro', 114, '2022-01-01'), ('Euro', 119, '2022-01-02')")
    spark.sql(f"INSERT OVERWRITE {t} PARTITION (dt = '2022-01-01') VALUES ('US Dollar', 120)")
    df = spark.readStream.format("paimon").option("read.changelog", "true").load(f"{spark_warehouse}/{db}.db/r")
    q = _start(queries, df, "s_over", str(tmp_path / "c"))
    assert sorted(tuple(r) for r in spark.table("s_over").collect()) == [
        ("+I", "Euro", 119, "2022-01-02"), ("+I", "US Dollar", 120, "2022-01-01")]
    spark.sql(f"INSERT OVERWRITE {t} PARTITION (dt = '2022-01-02') VALUES ('Euro', 100), ('Yen', 1)")
    q.processAllAvailable()
    rows = sorted(tuple(r) for r in spark.table("s_over").collect())
    assert rows == sorted([("+I", "Euro", 119, "2022-01-02"), ("+I", "US Dollar", 120, "2022-01-01"),
                           ("-D", "Euro", 119, "2022-01-02"), ("+I", "Euro", 100, "2022-01-02"),
                           ("+I", "Yen", 1, "2022-01-02")])


def test_batch_read_from_file_creation_time(spark: Any, db: str) -> None:
    # from-file-creation-time in a batch read: the native parquet path and the manifest count too
    import time

    t = f"paimon.{db}.f"
    spark.sql(f"CREATE TABLE {t} (a INT, b STRING)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'old')")
    time.sleep(0.05)
    since = str(int(time.time() * 1000))
    time.sleep(0.05)
    spark.sql(f"INSERT INTO {t} VALUES (2, 'new')")
    df = spark.read.option("scan.file-creation-time-millis", since).table(t)
    assert [tuple(r) for r in df.collect()] == [(2, "new")]
    assert df.count() == 1
    assert spark.table(t).count() == 2
