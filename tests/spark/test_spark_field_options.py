"""Per-field table options through Spark SQL: ``fields.<f>.default-value`` (nulls read as the
default, filters see it) and ALTER TABLE re-checking aggregate functions against column types."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


def test_default_value_reads_and_filters(spark: Any, sql: Any, db: str) -> None:
    """Paimon's ReadWriteTableITCase.testDefaultValueWithoutPrimaryKey, in Spark SQL."""
    spark.sql(f"CREATE TABLE {db}.r (id BIGINT, currency STRING, rate BIGINT, dt STRING) "
              "TBLPROPERTIES ('fields.rate.default-value' = '1000')")
    spark.sql(f"INSERT INTO {db}.r VALUES (1, 'US Dollar', 114, '2022-01-01'), "
              "(2, 'Yen', CAST(NULL AS BIGINT), '2022-01-01'), (3, 'Euro', CAST(NULL AS BIGINT), '2022-01-01'), "
              "(3, 'Euro', 119, '2022-01-02')")
    assert sql(f"SELECT * FROM {db}.r WHERE rate = 1000 ORDER BY id") == [
        (2, "Yen", 1000, "2022-01-01"), (3, "Euro", 1000, "2022-01-01")]
    assert sql(f"SELECT id FROM {db}.r WHERE rate > 500 ORDER BY id") == [(2,), (3,)]
    with pytest.raises(Exception, match="fields.rate.default-value"):
        spark.sql(f"ALTER TABLE {db}.r SET TBLPROPERTIES ('fields.rate.default-value' = 'abc')")
    assert sql(f"SELECT count(*) FROM {db}.r WHERE rate = 1000") == [(2,)]


def test_alter_rechecks_aggregate_functions(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.a (k BIGINT, v BIGINT, name STRING) TBLPROPERTIES ('primary-key' = 'k', "
              "'bucket' = '1', 'merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum')")
    spark.sql(f"INSERT INTO {db}.a VALUES (1, 2, 'x'), (1, 3, 'y')")
    with pytest.raises(Exception, match=r"sum column must be 'NumericType' but was 'STRING' \(field 'name'\)"):
        spark.sql(f"ALTER TABLE {db}.a SET TBLPROPERTIES ('fields.name.aggregate-function' = 'sum')")
    props = dict(sql(f"SHOW TBLPROPERTIES {db}.a"))
    assert "fields.name.aggregate-function" not in props
    assert sql(f"SELECT * FROM {db}.a") == [(1, 5, "y")]


def test_full_compaction_delta_commits_on_spark_writes(spark: Any, sql: Any, db: str) -> None:
    """Each INSERT fully compacts the buckets it wrote (Paimon's Spark DataWrite.preCommit)."""
    spark.sql(f"CREATE TABLE {db}.f (k INT, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2', "
              "'full-compaction.delta-commits' = '1')")
    spark.sql(f"INSERT INTO {db}.f VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql(f"INSERT INTO {db}.f VALUES (2, 'B'), (4, 'd')")
    assert [r[0] for r in sql(f"SELECT commit_kind FROM {db}.`f$snapshots` ORDER BY snapshot_id")] == [
        "APPEND", "COMPACT", "APPEND", "COMPACT"]
    assert {r[0] for r in sql(f"SELECT level FROM {db}.`f$files`")} == {5}
    assert sql(f"SELECT * FROM {db}.f ORDER BY k") == [(1, "a"), (2, "B"), (3, "c"), (4, "d")]
