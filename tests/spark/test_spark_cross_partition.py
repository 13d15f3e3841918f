"""Cross-partition upsert through spark-sql: Paimon's DynamicBucketTableTest cross-partition cases
(statements and expected answers), the merge engines' rules, and writes of several Spark tasks
(the write is clustered by the primary key, so all rows of a key reach one task, which alone
retracts the key from its old partition; every task bootstraps the whole key index)."""

from __future__ import annotations

from typing import Any

import pytest

from paimon_sql import Catalog

pytestmark = pytest.mark.spark


def create(sql: Any, db: str, props: str, name: str = "T") -> None:
    sql(f"""CREATE TABLE {db}.{name} (pt INT, pk INT, v INT)
            TBLPROPERTIES ('primary-key' = 'pk', 'bucket' = '-1'{props})
            PARTITIONED BY (pt)""")


def test_write_with_partition_change(sql: Any, db: str) -> None:
    create(sql, db, ", 'dynamic-bucket.target-row-num'='3', 'dynamic-bucket.assigner-parallelism'='1'")
    sql(f"INSERT INTO {db}.T VALUES (1, 1, 1), (1, 2, 2), (1, 3, 3), (1, 4, 4), (1, 5, 5)")
    assert sql(f"SELECT * FROM {db}.T ORDER BY pk") == [(1, 1, 1), (1, 2, 2), (1, 3, 3), (1, 4, 4), (1, 5, 5)]
    sql(f"INSERT INTO {db}.T VALUES (1, 3, 33), (1, 1, 11)")
    assert sql(f"SELECT * FROM {db}.T ORDER BY pk") == [(1, 1, 11), (1, 2, 2), (1, 3, 33), (1, 4, 4), (1, 5, 5)]
    assert sorted(sql(f"SELECT DISTINCT bucket FROM {db}.`T$files`")) == [(0,), (1,)]
    sql(f"INSERT INTO {db}.T VALUES (2, 1, 2), (2, 2, 3)")
    assert sql(f"SELECT * FROM {db}.T ORDER BY pk") == [(2, 1, 2), (2, 2, 3), (1, 3, 33), (1, 4, 4), (1, 5, 5)]


def test_write_with_delete(sql: Any, db: str) -> None:
    create(sql, db, ", 'dynamic-bucket.target-row-num'='3'")
    sql(f"INSERT INTO {db}.T VALUES (1, 1, 1), (1, 2, 2), (1, 3, 3), (1, 4, 4), (1, 5, 5)")
    sql(f"DELETE FROM {db}.T WHERE pk = 1")
    assert sql(f"SELECT * FROM {db}.T ORDER BY pk") == [(1, 2, 2), (1, 3, 3), (1, 4, 4), (1, 5, 5)]
    sql(f"INSERT INTO {db}.T VALUES (2, 1, 2), (2, 2, 3)")
    assert sql(f"SELECT * FROM {db}.T ORDER BY pk") == [(2, 1, 2), (2, 2, 3), (1, 3, 3), (1, 4, 4), (1, 5, 5)]
    sql(f"DELETE FROM {db}.T WHERE pk = 2")
    assert sql(f"SELECT * FROM {db}.T ORDER BY pk") == [(2, 1, 2), (1, 3, 3), (1, 4, 4), (1, 5, 5)]


def test_user_defined_assigner_parallelism(sql: Any, db: str) -> None:
    create(sql, db, ", 'dynamic-bucket.target-row-num'='3', 'dynamic-bucket.assigner-parallelism'='3'")
    sql(f"INSERT INTO {db}.T VALUES (1, 1, 1), (1, 2, 2), (1, 3, 3), (1, 4, 4), (1, 5, 5)")
    assert sql(f"SELECT * FROM {db}.T ORDER BY pk") == [(1, 1, 1), (1, 2, 2), (1, 3, 3), (1, 4, 4), (1, 5, 5)]
    assert sorted(sql(f"SELECT DISTINCT bucket FROM {db}.`T$files`")) == [(0,), (1,), (2,)]


def test_write_multiple_cols(sql: Any, db: str) -> None:
    columns = ", ".join(f"c{i} STRING" for i in range(118))
    sql(f"CREATE TABLE {db}.t ({columns}, pt STRING) PARTITIONED BY (pt) TBLPROPERTIES ('primary-key' = 'c0')")
    sql(f"INSERT INTO {db}.t (c0, c1, c2, pt) VALUES ('c0','c1','c2','pt')")
    assert sql(f"SELECT c0, c1, c2, pt FROM {db}.t") == [("c0", "c1", "c2", "pt")]


def test_write_timestamp_with_precision_3(sql: Any, db: str, spark_warehouse: str) -> None:
    """Paimon's case creates the table through its catalog (DATE NOT NULL partition, BIGINT NOT
    NULL key, TIMESTAMP(3), deletion vectors): here through the Python catalog."""
    import pyarrow as pa

    cat = Catalog(spark_warehouse)
    schema = pa.schema([pa.field("etl_dt", pa.date32(), False), pa.field("order_id", pa.int64(), False),
                        ("despatch_end", pa.timestamp("ms"))])
    cat.create_table(f"{db}.t", schema, primary_keys=["order_id"], partition_keys=["etl_dt"],
                     options={"bucket": "-1", "deletion-vectors.enabled": "true",
                              "dynamic-bucket.assigner-parallelism": "1"})
    sql(f"INSERT INTO {db}.t VALUES (DATE '2026-08-14', 1L, TIMESTAMP '2026-08-14 10:00:00')")
    assert sql(f"SELECT order_id FROM {db}.t") == [(1,)]
    sql(f"INSERT INTO {db}.t VALUES (DATE '2026-08-15', 1L, TIMESTAMP '2026-08-15 10:00:00')")
    assert sql(f"SELECT CAST(etl_dt AS STRING), order_id FROM {db}.t") == [("2026-08-15", 1)]


def test_partial_update_and_first_row(sql: Any, db: str) -> None:
    create(sql, db, ", 'merge-engine'='partial-update'", "P")
    sql(f"INSERT INTO {db}.P VALUES (1, 1, 10), (1, 2, 20)")
    sql(f"INSERT INTO {db}.P VALUES (2, 1, CAST(NULL AS INT)), (2, 2, 21), (2, 3, 30)")
    assert sql(f"SELECT * FROM {db}.P ORDER BY pk") == [(1, 1, 10), (1, 2, 21), (2, 3, 30)]
    create(sql, db, ", 'merge-engine'='first-row'", "F")
    sql(f"INSERT INTO {db}.F VALUES (1, 1, 10)")
    sql(f"INSERT INTO {db}.F VALUES (2, 1, 20), (2, 2, 30)")
    sql(f"CALL paimon.sys.compact(table => '{db}.F')")
    assert sql(f"SELECT * FROM {db}.F ORDER BY pk") == [(1, 1, 10), (2, 2, 30)]


def test_many_tasks_move_many_keys(sql: Any, db: str, spark: Any) -> None:
    """Several Spark tasks (4 input partitions) upsert 2000 keys, half of them moving partition:
    each key is in one task, so exactly one copy of every key remains."""
    create(sql, db, ", 'dynamic-bucket.target-row-num'='300'")
    spark.range(0, 2000, 1, 4).selectExpr("CAST(id % 3 AS INT) AS pt", "CAST(id AS INT) AS pk",
                                          "CAST(id AS INT) AS v").writeTo(f"paimon.{db}.T").append()
    spark.range(0, 2000, 1, 4).selectExpr("CAST(IF(id % 2 = 0, (id + 1) % 3, id % 3) AS INT) AS pt",
                                          "CAST(id AS INT) AS pk", "CAST(-id AS INT) AS v"
                                          ).writeTo(f"paimon.{db}.T").append()
    got = sql(f"SELECT pt, pk, v FROM {db}.T")
    assert len(got) == 2000
    want = sorted(((i + 1) % 3 if i % 2 == 0 else i % 3, i, -i) for i in range(2000))
    assert sorted(got) == want
    counts = sql(f"SELECT partition, bucket, SUM(record_count) FROM {db}.`T$files` GROUP BY partition, bucket")
    assert counts and all(c[2] > 0 for c in counts)


def test_changelog_input_retracts_old_copy(sql: Any, db: str) -> None:
    create(sql, db, ", 'changelog-producer'='input'")
    sql(f"INSERT INTO {db}.T VALUES (1, 1, 10)")
    sql(f"INSERT INTO {db}.T VALUES (2, 1, 20)")
    rows = sql(f"SELECT rowkind, pt, pk, v FROM paimon_incremental_query('`{db}`.`T$audit_log`', '1', '2')")
    assert sorted(rows) == [("+I", 2, 1, 20), ("-D", 1, 1, 20)]
