"""Paimon's Spark connector option ``write.hive-style-dynamic-partition.enabled`` (the shim's
HiveStyleDynamicPartition rule): positional inserts with dynamic partition columns take the
query's columns in Hive's order. Ported from Paimon's InsertOverwriteTableTestBase
("[hive-tail-enabled] dynamic overwrite accepts Hive partition order", "[table-order-default]
dynamic partition follows table order"), plus the same statements without the option."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark

HIVE = "spark.paimon.write.hive-style-dynamic-partition.enabled"




def _my_table(spark: Any, db: str) -> None:
    spark.sql(f"""
        CREATE TABLE {db}.my_table (
          id INT,
          dt STRING,
          name STRING,
          hr STRING
        ) PARTITIONED BY (dt, hr)
        TBLPROPERTIES (
          'primary-key' = 'dt,hr,id',
          'bucket' = '2',
          'bucket-key' = 'id'
        )""")
    spark.sql(f"""
        INSERT INTO {db}.my_table VALUES
          (1, '2026-06-29', 'old-00', '00'),
          (2, '2026-06-29', 'old-01', '01')""")


def test_hive_tail_enabled_dynamic_overwrite_accepts_hive_partition_order(
        spark: Any, sql: Any, db: str, conf: Any) -> None:
    conf("spark.sql.sources.partitionOverwriteMode", "dynamic")
    conf("spark.paimon.write.use-v2-write", "true")
    conf(HIVE, "true")
    _my_table(spark, db)
    spark.sql(f"""
        INSERT OVERWRITE {db}.my_table PARTITION (dt, hr)
        SELECT
          3 AS id,
          'new-10' AS name,
          '2026-06-30' AS dt,
          '10' AS hr""")
    rows = [(1, "2026-06-29", "old-00", "00"), (2, "2026-06-29", "old-01", "01"), (3, "2026-06-30", "new-10", "10")]
    assert sql(f"SELECT id, dt, name, hr FROM {db}.my_table ORDER BY id") == rows
    # the query's names are the table's: the table's order, as without the option
    spark.sql(f"""
        INSERT OVERWRITE {db}.my_table PARTITION (dt, hr)
        SELECT
          4 AS id,
          '2026-07-01' AS dt,
          'table-order-11' AS name,
          '11' AS hr""")
    rows.append((4, "2026-07-01", "table-order-11", "11"))
    assert sql(f"SELECT id, dt, name, hr FROM {db}.my_table ORDER BY id") == rows
    spark.sql(f"""
        INSERT OVERWRITE {db}.my_table PARTITION (dt = '2026-07-02', hr)
        SELECT
          5 AS id,
          'mixed-12' AS name,
          '12' AS hr""")
    rows.append((5, "2026-07-02", "mixed-12", "12"))
    assert sql(f"SELECT id, dt, name, hr FROM {db}.my_table ORDER BY id") == rows


def test_hive_order_whatever_the_query_names(spark: Any, sql: Any, db: str, conf: Any) -> None:
    """Positional: the names of the query do not matter (Hive's rule), in INSERT INTO and in a
    static-mode INSERT OVERWRITE (which replaces the written partitions only when static)."""
    conf(HIVE, "true")
    _my_table(spark, db)
    spark.sql(f"INSERT INTO {db}.my_table PARTITION (dt, hr) VALUES (3, 'c', '2026-06-30', '10')")
    spark.sql(f"INSERT INTO {db}.my_table PARTITION (hr, dt) SELECT 4, 'd', '2026-06-30', '11'")
    assert sql(f"SELECT id, dt, name, hr FROM {db}.my_table WHERE id > 2 ORDER BY id") == [
        (3, "2026-06-30", "c", "10"), (4, "2026-06-30", "d", "11")]
    # static mode: PARTITION (dt = ..., hr) overwrites partition dt only
    spark.sql(f"INSERT OVERWRITE {db}.my_table PARTITION (dt = '2026-06-30', hr) SELECT 5 AS a, 'e' AS b, '10' AS c")
    assert sql(f"SELECT id, dt, name, hr FROM {db}.my_table ORDER BY id") == [
        (1, "2026-06-29", "old-00", "00"), (2, "2026-06-29", "old-01", "01"), (5, "2026-06-30", "e", "10")]


def test_without_the_option_the_table_order_is_kept(spark: Any, sql: Any, db: str, conf: Any) -> None:
    """The statements of the hive-tail test without the option: positional in the table's order."""
    conf("spark.sql.sources.partitionOverwriteMode", "dynamic")
    conf("spark.paimon.write.use-v2-write", "true")
    _my_table(spark, db)
    spark.sql(f"""
        INSERT OVERWRITE {db}.my_table PARTITION (dt, hr)
        SELECT 3 AS id, 'new-10' AS name, '2026-06-30' AS dt, '10' AS hr""")
    assert sql(f"SELECT id, dt, name, hr FROM {db}.my_table WHERE id = 3") == [(3, "new-10", "2026-06-30", "10")]
    conf(HIVE, "false")
    spark.sql(f"INSERT INTO {db}.my_table PARTITION (dt, hr) VALUES (4, 'd', 'x', '11')")
    assert sql(f"SELECT id, dt, name, hr FROM {db}.my_table WHERE id = 4") == [(4, "d", "x", "11")]


@pytest.mark.parametrize("hive", [False, True])
def test_table_order_default_dynamic_partition_follows_table_order(
        spark: Any, sql: Any, db: str, conf: Any, hive: bool) -> None:
    """Paimon's [table-order-default] case (the option unset); with the option on, the same
    statement reads the query in Hive's order (uid, value, ds, part), as Paimon's rule does."""
    conf("spark.sql.sources.partitionOverwriteMode", "dynamic")
    if hive:
        conf(HIVE, "true")
    spark.sql(f"""
        CREATE TABLE {db}.target_table (
          ds STRING,
          part STRING,
          uid STRING,
          value STRING
        ) PARTITIONED BY (ds, part)
        TBLPROPERTIES (
          'primary-key' = 'ds,part,uid',
          'bucket' = '2',
          'bucket-key' = 'uid'
        )""")
    spark.sql(f"""
        INSERT OVERWRITE {db}.target_table PARTITION (ds, part)
        SELECT
          '20260808' AS ds,
          'p1' AS part,
          '1001' AS uid,
          '0.8' AS metric""")
    expected = ("1001", "0.8", "20260808", "p1") if hive else ("20260808", "p1", "1001", "0.8")
    assert sql(f"SELECT ds, part, uid, value FROM {db}.target_table") == [expected]


def test_dynamic_overwrite_without_partition_clause_by_hive_names(
        spark: Any, sql: Any, db: str, conf: Any) -> None:
    """A dynamic-mode INSERT OVERWRITE without PARTITION clause takes Hive's order only when the
    query's names are exactly Hive's order over all partition keys (as Paimon)."""
    conf("spark.sql.sources.partitionOverwriteMode", "dynamic")
    conf(HIVE, "true")
    _my_table(spark, db)
    spark.sql(f"INSERT OVERWRITE {db}.my_table SELECT 3 AS id, 'n' AS name, '2026-06-29' AS dt, '00' AS hr")
    spark.sql(f"INSERT OVERWRITE {db}.my_table SELECT 4 AS a, 'm' AS b, '2026-06-30' AS c, '01' AS d")
    assert sql(f"SELECT id, dt, name, hr FROM {db}.my_table ORDER BY id") == [
        (2, "2026-06-29", "old-01", "01"), (3, "2026-06-29", "n", "00"), (4, "m", "2026-06-30", "01")]


def test_static_partition_after_a_dynamic_one_is_refused(spark: Any, sql: Any, db: str, conf: Any) -> None:
    conf(HIVE, "true")
    spark.sql(f"CREATE TABLE {db}.t (dt STRING, hr STRING, id INT, name STRING) PARTITIONED BY (dt, hr)")
    with pytest.raises(Exception, match="write.hive-style-dynamic-partition.enabled.*static partition column hr"):
        spark.sql(f"INSERT INTO {db}.t PARTITION (dt, hr = '01') SELECT 1, 'a', '2026-06-29'").collect()
    assert sql(f"SELECT * FROM {db}.t") == []


def test_a_value_that_is_not_a_boolean_is_refused_on_insert(spark: Any, sql: Any, db: str, conf: Any) -> None:
    spark.sql(f"CREATE TABLE {db}.t (id INT, dt STRING) PARTITIONED BY (dt)")
    conf(HIVE, "yes")
    assert sql(f"SELECT * FROM {db}.t") == []
    with pytest.raises(Exception, match="write.hive-style-dynamic-partition.enabled.*must be true or false"):
        spark.sql(f"INSERT INTO {db}.t PARTITION (dt) VALUES (1, 'a')").collect()
