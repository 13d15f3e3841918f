"""ALTER TABLE through Spark SQL as Paimon answers it: immutable options refused once a table has data
(SchemaChangeITCase), 'bucket' changed then rescaled (RescaleProcedureTest 'rescale with ALTER TABLE
and write validation'), column comments (SparkSchemaEvolutionITCase testAlterTableColumnComment),
the table comment in DESCRIBE TABLE EXTENDED (DescribeTableTestBase 'describe table comment'), added
column positions (FIRST / AFTER)."""

from __future__ import annotations

from typing import Any

import pytest

from paimon_sql import Catalog
from paimon_sql.options.support import IMMUTABLE


def _fails(spark: Any, statement: str, match: str) -> None:
    with pytest.raises(Exception, match=match):
        spark.sql(statement).collect()


def _state(sql: Any, warehouse: str, table: str) -> tuple[object, ...]:
    t = Catalog(warehouse).get_table(table)
    return t.schema.id, t.latest_snapshot().id, sql(f"SELECT * FROM {table} ORDER BY k")  # type: ignore[union-attr]


def test_immutable_options_are_refused_on_a_table_with_data(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    t = f"{db}.T"
    spark.sql(f"CREATE TABLE {t} (k INT, v INT) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1', "
              "'merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 3)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 7)")
    before = _state(sql, spark_warehouse, t)
    assert before[2] == [(1, 10)]
    _fails(spark, f"ALTER TABLE {t} SET TBLPROPERTIES ('merge-engine' = 'deduplicate')",
           r"Change 'merge-engine' is not supported yet\.")
    for key in sorted(IMMUTABLE - {"primary-key"}):
        _fails(spark, f"ALTER TABLE {t} SET TBLPROPERTIES ('{key}' = 'changed')",
               rf"Change '{key}' is not supported yet\.")
        _fails(spark, f"ALTER TABLE {t} UNSET TBLPROPERTIES ('{key}')", rf"Change '{key}' is not supported yet\.")
    for stmt in (f"ALTER TABLE {t} SET TBLPROPERTIES ('primary-key' = 'v')",
                 f"ALTER TABLE {t} UNSET TBLPROPERTIES ('primary-key')"):
        _fails(spark, stmt, "Alter primary key is not supported")  # Paimon's SparkCatalog
    _fails(spark, f"ALTER TABLE {t} UNSET TBLPROPERTIES ('bucket')", r"Cannot reset bucket\.")
    _fails(spark, f"ALTER TABLE {t} SET TBLPROPERTIES ('bucket' = '-1')", r"Cannot change bucket to -1\.")
    assert _state(sql, spark_warehouse, t) == before


def test_immutable_options_on_an_empty_table(spark: Any, sql: Any, db: str) -> None:
    # SchemaChangeITCase.testSetAndResetImmutableOptionsOnEmptyTables (its T2, in Spark's words)
    spark.sql(f"CREATE TABLE {db}.T2 (a INT, b INT) TBLPROPERTIES ('primary-key' = 'a', 'bucket' = '1', "
              "'merge-engine' = 'first-row')")
    spark.sql(f"ALTER TABLE {db}.T2 UNSET TBLPROPERTIES ('merge-engine')")
    spark.sql(f"INSERT INTO {db}.T2 VALUES (1, 10), (2, 20), (1, 11), (2, 21)")
    assert sql(f"SELECT * FROM {db}.T2 ORDER BY a") == [(1, 11), (2, 21)]
    _fails(spark, f"ALTER TABLE {db}.T2 SET TBLPROPERTIES ('merge-engine' = 'first-row')",
           r"Change 'merge-engine' is not supported yet\.")


def test_alter_bucket_then_rescale(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    t = f"{db}.T"
    spark.sql(f"CREATE TABLE {t} (f0 INT) TBLPROPERTIES ('bucket' = '2', 'bucket-key' = 'f0')")
    spark.sql(f"INSERT INTO {t} VALUES (1), (2), (3), (4), (5)")
    before = sql(f"SELECT * FROM {t} ORDER BY f0")
    snapshot = Catalog(spark_warehouse).get_table(t).latest_snapshot().id  # type: ignore[union-attr]
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('bucket' = '4')")
    assert Catalog(spark_warehouse).get_table(t).options["bucket"] == "4"
    assert sql(f"SELECT * FROM {t} ORDER BY f0") == before
    _fails(spark, f"INSERT INTO {t} VALUES (6)",
           "Try to write table with a new bucket num 4, but the previous bucket num is 2")
    assert sql(f"CALL sys.rescale(table => '{t}', bucket_num => 4)") == [(True,)]
    table = Catalog(spark_warehouse).get_table(t)
    assert table.latest_snapshot().id > snapshot  # type: ignore[union-attr]
    assert table.latest_snapshot().commit_kind == "OVERWRITE"  # type: ignore[union-attr]
    entries = table.store.manifests.live_entries(table.latest_snapshot())  # type: ignore[union-attr]
    assert {e.total_buckets for e in entries} == {4}
    assert sql(f"SELECT * FROM {t} ORDER BY f0") == before
    spark.sql(f"INSERT INTO {t} VALUES (6)")
    assert len(sql(f"SELECT * FROM {t}")) == 6


def test_alter_bucket_of_a_partitioned_table(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.P"
    spark.sql(f"CREATE TABLE {t} (id INT, v STRING, pt STRING) PARTITIONED BY (pt) "
              "TBLPROPERTIES ('primary-key' = 'id, pt', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'p1'), (2, 'b', 'p1'), (3, 'c', 'p2')")
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('bucket' = '3')")
    _fails(spark, f"INSERT INTO {t} VALUES (4, 'd', 'p1')",
           r"Try to write partition \{pt=p1\} with a new bucket num 3, but the previous bucket num is 2")
    spark.sql(f"INSERT INTO {t} VALUES (5, 'e', 'p3')")  # a new partition takes the new count
    spark.sql(f"INSERT OVERWRITE {t} PARTITION (pt = 'p2') VALUES (6, 'f')")  # an overwrite too
    assert sql(f"CALL sys.rescale(table => '{t}', partitions => 'pt=\"p1\"')") == [(True,)]
    spark.sql(f"INSERT INTO {t} VALUES (2, 'B', 'p1')")
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(1, "a", "p1"), (2, "B", "p1"), (5, "e", "p3"), (6, "f", "p2")]
    assert sorted(sql(f"SELECT partition, total_buckets FROM {db}.`P$partitions`")) == [
        ("pt=p1", 3), ("pt=p2", 3), ("pt=p3", 3)]


def test_alter_column_comment(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t1 (a INT, b STRING)")
    assert Catalog(spark_warehouse).get_table(f"{db}.t1").schema.fields[0].description is None
    spark.sql(f"ALTER TABLE {db}.t1 ALTER COLUMN a COMMENT 'a new comment'")
    assert Catalog(spark_warehouse).get_table(f"{db}.t1").schema.fields[0].description == "a new comment"
    spark.sql(f"ALTER TABLE {db}.t1 ALTER COLUMN a COMMENT 'yet another comment'")
    assert Catalog(spark_warehouse).get_table(f"{db}.t1").schema.fields[0].description == "yet another comment"
    assert ("a", "int", "yet another comment") in sql(f"DESCRIBE TABLE {db}.t1")


def _comment_rows(sql: Any, table: str) -> list[tuple[Any, ...]]:
    return [r[:2] for r in sql(f"DESCRIBE TABLE EXTENDED {table}") if r[0] == "Comment"]


def test_describe_table_comment(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    t = f"{db}.T"
    spark.sql(f"CREATE TABLE {t} (id INT COMMENT 'id comment', name STRING, dt STRING) COMMENT 'test comment'")
    for comment in ("test comment", "new comment", "  ", "", None, "new comment"):
        if comment is None:
            spark.sql(f"ALTER TABLE {t} UNSET TBLPROPERTIES ('comment')")
        elif comment != "test comment":
            spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('comment' = '{comment}')")
        assert _comment_rows(sql, t) == ([] if comment is None else [("Comment", comment)]), comment
        assert Catalog(spark_warehouse).get_table(t).schema.comment == comment
    spark.sql(f"CREATE TABLE {db}.N (id INT COMMENT 'id comment', name STRING)")
    assert _comment_rows(sql, f"{db}.N") == []


def test_add_column_positions(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.T"
    spark.sql(f"CREATE TABLE {t} (a INT, b STRING)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'x')")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN f INT FIRST")
    spark.sql(f"ALTER TABLE {t} ADD COLUMNS (m STRING AFTER a, z STRING)")
    assert [r[0] for r in sql(f"DESCRIBE TABLE {t}")][:5] == ["f", "a", "m", "b", "z"]
    spark.sql(f"INSERT INTO {t} VALUES (0, 2, 'm', 'y', 'z')")
    assert sql(f"SELECT * FROM {t} ORDER BY a") == [(None, 1, None, "x", None), (0, 2, "m", "y", "z")]


def test_a_session_bucket_reads_and_refuses_mixed_writes(spark: Any, sql: Any, db: str) -> None:
    """A dynamic 'bucket' follows ALTER's rule (Paimon's copy checks it as checkAlterTableOption): it may
    differ from the table's, but a write into a partition of another bucket count is refused."""
    spark.sql(f"CREATE TABLE {db}.T (id INT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {db}.T VALUES 1, 2")
    spark.conf.set("spark.paimon.bucket", "3")
    try:
        assert sql(f"SELECT * FROM {db}.T ORDER BY id") == [(1,), (2,)]
        _fails(spark, f"INSERT INTO {db}.T VALUES 3",
               "Try to write table with a new bucket num 3, but the previous bucket num is 1")
    finally:
        spark.conf.unset("spark.paimon.bucket")
    spark.sql(f"INSERT INTO {db}.T VALUES 3")
    assert sql(f"SELECT * FROM {db}.T ORDER BY id") == [(1,), (2,), (3,)]
