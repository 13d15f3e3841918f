"""DELETE FROM and TRUNCATE TABLE on catalog tables through a real SparkSession."""

from __future__ import annotations

from typing import Any

import pytest

from paimon_sql import Catalog

pytestmark = pytest.mark.spark


def _snapshots(wh: str, table: str) -> list[int]:
    return Catalog(wh).get_table(table).snapshot_ids()


def test_delete_from_append_table(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.a (id BIGINT, name STRING, d DATE) PARTITIONED BY (d)")
    spark.sql(f"INSERT INTO {db}.a VALUES (1, 'x', DATE'2024-01-01'), (2, 'its', DATE'2024-01-01'), "
              f"(3, 'it\\'s', DATE'2024-01-02'), (4, NULL, DATE'2024-01-02')")
    spark.sql(f"DELETE FROM {db}.a WHERE name = 'it\\'s'")
    assert sorted(sql(f"SELECT id FROM {db}.a")) == [(1,), (2,), (4,)]
    spark.sql(f"DELETE FROM {db}.a WHERE d = DATE'2024-01-01' AND id IN (1, 7)")
    assert sorted(sql(f"SELECT id FROM {db}.a")) == [(2,), (4,)]
    spark.sql(f"DELETE FROM {db}.a WHERE name IS NULL OR id > 100")
    assert sql(f"SELECT id, name FROM {db}.a") == [(2, "its")]
    before = _snapshots(spark_warehouse, f"{db}.a")
    spark.sql(f"DELETE FROM {db}.a WHERE id = 99")  # nothing matches: no commit
    assert _snapshots(spark_warehouse, f"{db}.a") == before == [1, 2, 3, 4]


def test_delete_from_primary_key_table_and_time_travel(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.k (id BIGINT, v STRING, ts TIMESTAMP_NTZ) "
              "TBLPROPERTIES ('primary-key'='id', 'bucket'='2')")
    spark.sql(f"INSERT INTO {db}.k VALUES (1, 'a', TIMESTAMP_NTZ'2024-01-01 00:00:00'), "
              f"(2, 'b', TIMESTAMP_NTZ'2024-01-01 10:30:00.5'), (3, 'c', NULL)")
    spark.sql(f"DELETE FROM {db}.k WHERE ts = TIMESTAMP_NTZ'2024-01-01 10:30:00.5' OR v LIKE 'c%'")
    assert sql(f"SELECT id FROM {db}.k") == [(1,)]
    assert sorted(sql(f"SELECT id FROM {db}.k VERSION AS OF 1")) == [(1,), (2,), (3,)]
    spark.sql(f"INSERT INTO {db}.k VALUES (2, 'again', NULL)")
    assert sorted(sql(f"SELECT id, v FROM {db}.k")) == [(1, "a"), (2, "again")]


def test_delete_that_cannot_be_pushed_is_a_row_level_delete(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.b (id BIGINT, name STRING)")
    spark.sql(f"INSERT INTO {db}.b VALUES (1, 'x'), (2, 'y')")
    with pytest.raises(Exception, match="(?i)read-only|not support|cannot"):
        spark.sql(f"DELETE FROM {db}.`b$snapshots` WHERE snapshot_id = 1")
    assert _snapshots(spark_warehouse, f"{db}.b") == [1]
    # a condition Spark cannot push down: the row-level path (tests/spark/test_spark_rowlevel_append.py)
    spark.sql(f"DELETE FROM {db}.b WHERE upper(name) = 'X'")
    assert sorted(sql(f"SELECT id FROM {db}.b")) == [(2,)]
    assert _snapshots(spark_warehouse, f"{db}.b") == [1, 2]


def test_truncate_table(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t (id BIGINT, dt STRING) PARTITIONED BY (dt) TBLPROPERTIES ('primary-key'='id,dt', 'bucket'='1')")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"TRUNCATE TABLE {db}.t")
    assert sql(f"SELECT * FROM {db}.t") == []
    t = Catalog(spark_warehouse).get_table(f"{db}.t")
    assert t.latest_snapshot().commit_kind == "OVERWRITE"
    assert sorted(sql(f"SELECT id FROM {db}.t VERSION AS OF 1")) == [(1,), (2,)]
    spark.sql(f"INSERT INTO {db}.t VALUES (3, 'a')")
    assert sql(f"SELECT id FROM {db}.t") == [(3,)]


def test_delete_with_numeric_and_boolean_literals(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.n (id INT, x DOUBLE, m DECIMAL(10, 2), f BOOLEAN, s SMALLINT)")
    spark.sql(f"INSERT INTO {db}.n VALUES (1, 0.1, 1.25, true, 1), (2, 2.5, 10.00, false, 2), (3, -1e10, -3.50, NULL, 3)")
    spark.sql(f"DELETE FROM {db}.n WHERE x = 0.1")
    spark.sql(f"DELETE FROM {db}.n WHERE m <= -3.5 AND s <> 2")
    assert sql(f"SELECT id FROM {db}.n") == [(2,)]
    spark.sql(f"DELETE FROM {db}.n WHERE NOT f")
    assert sql(f"SELECT id FROM {db}.n") == []


def test_delete_from_append_table_with_deletion_vectors(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    """Paimon's DeletionVectorTest 'delete for append partitioned table' (bucket-unaware): DELETE
    writes deletion vectors (no file rewritten, one OVERWRITE snapshot each), reads and count(*)
    apply them, a compaction of a partition drops that partition's vectors."""
    t = f"{db}.dv"
    spark.sql(f"CREATE TABLE {t} (id INT, name STRING, pt STRING) PARTITIONED BY (pt) "
              "TBLPROPERTIES ('deletion-vectors.enabled' = 'true')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', '2024'), (2, 'b', '2024'), (3, 'c', '2025'), (4, 'd', '2025')")
    table = Catalog(spark_warehouse).get_table(t)
    files = {e.file.file_name for e in table.store.manifests.live_entries(table.latest_snapshot())}
    spark.sql(f"DELETE FROM {t} WHERE id = 2")
    spark.sql(f"DELETE FROM {t} WHERE id = 3")
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(1, "a", "2024"), (4, "d", "2025")]
    assert sql(f"SELECT count(*) FROM {t}") == [(2,)]
    table = Catalog(spark_warehouse).get_table(t)
    assert {e.file.file_name for e in table.store.manifests.live_entries(table.latest_snapshot())} == files
    assert [table.store.snapshots.snapshot(i).commit_kind for i in table.snapshot_ids()] == [
        "APPEND", "OVERWRITE", "OVERWRITE"]
    assert sorted(sql(f"SELECT partition, bucket, index_type FROM {t}$table_indexes")) == [
        ("{2024}", 0, "DELETION_VECTORS"), ("{2025}", 0, "DELETION_VECTORS")]
    spark.sql(f"CALL sys.compact(table => '{t}', partitions => \"pt = '2024'\")")
    assert sql(f"SELECT partition FROM {t}$table_indexes") == [("{2025}",)]
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(1, "a", "2024"), (4, "d", "2025")]
