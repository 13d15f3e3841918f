"""Paimon's ``spark.paimon.legacy-timestamp-mapping.enabled``: Paimon TIMESTAMP is Spark TIMESTAMP
(ported from Paimon's DDLTestBase "Paimon DDL: legacy timestamp mapping" and
SparkLegacyTimestampMappingTest), the values stored as the wall clock of the JVM's default zone."""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paimon_sql import types as pt
from paimon_sql.spark import spark_types
from tests.helpers.spark_zone import time_zone as _time_zone

KEY = "spark.paimon.legacy-timestamp-mapping.enabled"


@contextlib.contextmanager
def _conf(spark: Any, key: str, value: str) -> Iterator[None]:
    old = spark.conf.get(key, None)
    spark.conf.set(key, value)
    try:
        yield
    finally:
        if old is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, old)



def test_type_mapping_both_directions() -> None:
    """SparkLegacyTimestampMappingTest: TIMESTAMP is timestamp_ntz, with the flag timestamp, and
    Spark timestamp converts back to TIMESTAMP (not WITH LOCAL TIME ZONE)."""
    fields = [pt.DataField(0, "ts", pt.TimestampType(6))]
    assert spark_types.spark_struct(fields)["fields"][0]["type"] == "timestamp_ntz"
    struct = spark_types.spark_struct(fields, legacy_timestamp=True)
    assert struct["fields"][0]["type"] == "timestamp"
    back = spark_types.arrow_schema(struct, legacy_timestamp=True)
    assert pt.fields_from_arrow_schema(back, 0)[0][0].type == pt.TimestampType(6)
    # without the flag Spark timestamp stays TIMESTAMP WITH LOCAL TIME ZONE
    assert isinstance(pt.fields_from_arrow_schema(spark_types.arrow_schema(struct), 0)[0][0].type,
                      pt.LocalZonedTimestampType)


@pytest.mark.parametrize("fmt", ["orc", "parquet"])
def test_legacy_timestamp_mapping_ddl(spark: Any, sql: Any, db: str, spark_warehouse: str, fmt: str,
                                      tmp_path: Path) -> None:
    with _conf(spark, KEY, "true"), _time_zone(spark, "Asia/Shanghai"):
        spark.sql(f"USE paimon.{db}")
        sql(f"CREATE TABLE paimon_tbl (reported_time timestamp) USING paimon TBLPROPERTIES ('file.format'='{fmt}')")
        sql("INSERT INTO paimon_tbl VALUES (timestamp'2026-06-30 23:47:51')")
        from pyspark.sql.types import TimestampType

        assert spark.table("paimon_tbl").schema["reported_time"].dataType == TimestampType()
        assert sql("SELECT from_unixtime(unix_timestamp(reported_time) + 24 * 3600, 'yyyy-MM-dd HH:mm:ss') "
                   "FROM paimon_tbl") == [("2026-07-01 23:47:51",)]
        # a filter on the column (Spark evaluates it) and the value itself
        assert sql("SELECT count(*) FROM paimon_tbl WHERE reported_time = timestamp'2026-06-30 23:47:51'") == [(1,)]
        assert sql("SELECT date_format(reported_time, 'yyyy-MM-dd HH:mm:ss') FROM paimon_tbl") == [
            ("2026-06-30 23:47:51",)
        ]
    # the table is a Paimon TIMESTAMP column holding the wall clock of the JVM's zone (Shanghai)
    from paimon_sql import Catalog

    table = Catalog(spark_warehouse).get_table(f"{db}.paimon_tbl")
    assert table.schema.field("reported_time").type == pt.TimestampType(6)
    rows = table.read().to_pylist()
    assert rows == [{"reported_time": datetime.datetime(2026, 6, 30, 23, 47, 51)}]
    # without the flag the same column is TIMESTAMP_NTZ showing that wall clock
    spark.sql(f"USE paimon.{db}")
    assert sql("SELECT CAST(reported_time AS STRING) FROM paimon_tbl") == [("2026-06-30 23:47:51",)]
    from pyspark.sql.types import TimestampNTZType

    assert spark.table("paimon_tbl").schema["reported_time"].dataType == TimestampNTZType()
    if fmt == "parquet":  # pypaimon reads the same stored wall clock
        from tests.helpers.interop_util import PypaimonIO, ensure_pypaimon_python

        python, why = ensure_pypaimon_python()
        if python is None:
            pytest.skip(why)
        scratch = tmp_path / "ipc"
        scratch.mkdir()
        got = PypaimonIO(python, Path(spark_warehouse), scratch).read(f"{db}.paimon_tbl")
        assert got.column("reported_time").to_pylist() == [datetime.datetime(2026, 6, 30, 23, 47, 51)]


def test_legacy_mapping_native_scan_and_utc(spark: Any, sql: Any, db: str) -> None:
    """With the flag a Paimon TIMESTAMP written without it (an NTZ wall clock) reads as that wall
    clock in the JVM's zone; the native parquet reader is not used for such scans."""
    spark.sql(f"USE paimon.{db}")
    sql("CREATE TABLE t (id INT, ts TIMESTAMP_NTZ) TBLPROPERTIES ('file.format'='parquet')")
    sql("INSERT INTO t VALUES (1, timestamp_ntz'2024-01-01 08:00:00'), (2, NULL)")
    def plan() -> str:
        return str(spark.table("t")._jdf.queryExecution().executedPlan().toString())

    assert "(native parquet" in plan()
    with _conf(spark, KEY, "true"), _time_zone(spark, "America/Los_Angeles"):
        assert sql("SELECT id, CAST(ts AS STRING), unix_timestamp(ts) FROM t ORDER BY id") == [
            (1, "2024-01-01 08:00:00", 1704124800), (2, None, None)
        ]
        assert "(Python)" in plan() and "(native parquet" not in plan()
        # a write under the flag stores the wall clock of the JVM's zone
        sql("INSERT INTO t VALUES (3, timestamp'2024-07-01 12:30:00')")
    assert sql("SELECT CAST(ts AS STRING) FROM t WHERE id = 3") == [("2024-07-01 12:30:00",)]


def test_legacy_mapping_bad_value(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"USE paimon.{db}")
    sql("CREATE TABLE t (ts TIMESTAMP_NTZ)")
    with _conf(spark, KEY, "yes"), pytest.raises(Exception, match="legacy-timestamp-mapping.enabled"):
        sql("SELECT * FROM t")


def test_legacy_mapping_alter_and_system_table(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    """ALTER TABLE ADD COLUMN of a Spark TIMESTAMP under the flag adds a Paimon TIMESTAMP; a
    system table's TIMESTAMP column (commit_time) reads as Spark TIMESTAMP, the same instant."""
    spark.sql(f"USE paimon.{db}")
    sql("CREATE TABLE t (id INT)")
    sql("INSERT INTO t VALUES (1)")
    plain = sql("SELECT CAST(commit_time AS STRING) FROM `t$snapshots`")
    with _conf(spark, KEY, "true"):
        sql("ALTER TABLE t ADD COLUMN ts TIMESTAMP")
        from pyspark.sql.types import TimestampType

        assert spark.table("`t$snapshots`").schema["commit_time"].dataType == TimestampType()
        # the JVM zone and the session zone are both UTC here: the same text
        assert sql("SELECT CAST(commit_time AS STRING) FROM `t$snapshots`") == plain
    from paimon_sql import Catalog

    table = Catalog(spark_warehouse).get_table(f"{db}.t")
    assert table.schema.field("ts").type == pt.TimestampType(6)


def test_wall_clock_conversions() -> None:
    """Wall clock <-> instant in a zone as java.sql.Timestamp does (a gap's wall clock moves later
    by the gap); nested timestamps are refused outside UTC."""
    import pyarrow as pa

    from paimon_sql.errors import UnsupportedError
    from paimon_sql.spark.source_schema import instant_to_wall_clock, wall_clock_to_instant

    wall = pa.chunked_array([pa.array([datetime.datetime(2026, 6, 30, 23, 47, 51),
                                       datetime.datetime(2026, 3, 29, 2, 30), None], pa.timestamp("us"))])
    inst = wall_clock_to_instant(wall, "Europe/Berlin", "ts").cast(pa.timestamp("us", tz="UTC"))
    utc = datetime.timezone.utc
    assert inst.to_pylist() == [datetime.datetime(2026, 6, 30, 21, 47, 51, tzinfo=utc),
                                datetime.datetime(2026, 3, 29, 1, 30, tzinfo=utc), None]
    back = instant_to_wall_clock(inst, "Europe/Berlin", "ts").to_pylist()
    assert back[0] == datetime.datetime(2026, 6, 30, 23, 47, 51) and back[2] is None
    nested = pa.chunked_array([pa.array([[datetime.datetime(2026, 1, 1)]], pa.list_(pa.timestamp("us")))])
    with pytest.raises(UnsupportedError, match="'ts'"):
        wall_clock_to_instant(nested, "Asia/Shanghai", "ts")


def test_legacy_mapping_primary_key_and_partition(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    """A TIMESTAMP primary key / partition column under the flag: rows land and merge by the stored
    wall clock; a static TIMESTAMP partition of INSERT OVERWRITE is refused outside UTC."""
    spark.sql(f"USE paimon.{db}")
    with _conf(spark, KEY, "true"), _time_zone(spark, "Asia/Shanghai"):
        sql("CREATE TABLE pk (ts TIMESTAMP, v INT) TBLPROPERTIES ('primary-key'='ts', 'bucket'='2')")
        sql("INSERT INTO pk VALUES (timestamp'2026-06-30 23:47:51', 1), (timestamp'2026-01-01 00:00:00', 2)")
        sql("INSERT INTO pk VALUES (timestamp'2026-06-30 23:47:51', 3)")
        assert sql("SELECT date_format(ts, 'yyyy-MM-dd HH:mm:ss'), v FROM pk ORDER BY ts") == [
            ("2026-01-01 00:00:00", 2), ("2026-06-30 23:47:51", 3)
        ]
        sql("CREATE TABLE part (v INT, dt TIMESTAMP) PARTITIONED BY (dt)")
        with pytest.raises(Exception, match="legacy-timestamp-mapping.enabled"):
            sql("INSERT OVERWRITE part PARTITION (dt = timestamp'2026-01-01 00:00:00') VALUES (1)")
    from paimon_sql import Catalog

    rows = Catalog(spark_warehouse).get_table(f"{db}.pk").read().sort_by("v").to_pylist()
    assert rows == [{"ts": datetime.datetime(2026, 1, 1), "v": 2},
                    {"ts": datetime.datetime(2026, 6, 30, 23, 47, 51), "v": 3}]
