"""Paimon's metadata columns (__paimon_file_path, __paimon_row_index, __paimon_partition,
__paimon_bucket) through Spark: the cases of Paimon's PaimonQueryTest and DeleteFromTableTestBase."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import Row

pytestmark = pytest.mark.spark


def test_file_path_and_row_index(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    """Paimon's "Query metadata columns": every row's file is a data file of the table and its row
    indexes are distinct within the file."""
    spark.sql(f"USE paimon.{db}")
    sql("CREATE TABLE T (id INT, name STRING) TBLPROPERTIES ('file.format'='parquet')")
    sql("INSERT INTO T VALUES (1, 'x1'), (2, 'x3'), (3, 'x3'), (4, 'x4'), (5, 'x5')")
    location = f"{spark_warehouse.removeprefix('file:')}/{db}.db/T"
    assert sql(f"""
        SELECT SUM(cnt) FROM (
          SELECT __paimon_file_path AS path, count(1) AS cnt, count(distinct __paimon_row_index) AS dc
          FROM T GROUP BY __paimon_file_path)
        WHERE startswith(path, '{location}') AND endswith(path, '.parquet') AND cnt == dc""") == [(5,)]
    # the file paths are those of t$files, the row indexes positions from 0
    files = {r[0] for r in sql("SELECT file_path FROM `T$files`")}
    got = sql("SELECT __paimon_file_path, min(__paimon_row_index), max(__paimon_row_index), count(*) "
              "FROM T GROUP BY 1")
    assert {r[0] for r in got} == files
    assert all(lo == 0 and hi == n - 1 for _, lo, hi, n in got)


def test_bucket_and_partition(spark: Any, sql: Any, db: str) -> None:
    """Paimon's "Query metadata columns for bucket" and "... for partition"."""
    spark.sql(f"USE paimon.{db}")
    sql("CREATE TABLE T (c1 INT, c2 STRING) TBLPROPERTIES ('bucket-key'='c1', 'bucket'='3')")
    sql("INSERT INTO T VALUES (1, 'x1'), (2, 'x3'), (3, 'x3'), (4, 'x4'), (5, 'x5'), (6, 'x6')")
    assert sql("""
        SELECT __paimon_partition, __paimon_bucket,
               min(__paimon_row_index) AS min_paimon_row_index, max(__paimon_row_index) AS max_paimon_row_index
        FROM T GROUP BY __paimon_partition, __paimon_bucket ORDER BY __paimon_partition, __paimon_bucket""") == [
        (Row(), 0, 0, 1), (Row(), 1, 0, 1), (Row(), 2, 0, 1)]
    sql("CREATE TABLE P (c1 INT) PARTITIONED BY (p1 INT, p2 STRING)")
    sql("INSERT INTO P VALUES (1, 1, 'x1'), (2, 1, 'x2'), (3, 2, 'x1'), (4, 2, 'x2'), (5, 3, 'x3')")
    assert sql("""
        SELECT __paimon_partition, __paimon_bucket FROM P GROUP BY __paimon_partition, __paimon_bucket
        ORDER BY __paimon_partition, __paimon_bucket""") == [
        (Row(p1=1, p2="x1"), 0), (Row(p1=1, p2="x2"), 0), (Row(p1=2, p2="x1"), 0),
        (Row(p1=2, p2="x2"), 0), (Row(p1=3, p2="x3"), 0)]


def test_with_all_columns_and_unknown_column(spark: Any, sql: Any, db: str) -> None:
    """Paimon's "Paimon Query: query metadata columns"; an unknown metadata column is Spark's
    unresolved column error."""
    spark.sql(f"USE paimon.{db}")
    sql("CREATE TABLE T (a INT, p1 INT, p2 INT) PARTITIONED BY (p1, p2)")
    sql("INSERT INTO T VALUES (1, 1, 1), (2, 1, 2)")
    assert sql("""
        SELECT *, element_at(split(__paimon_file_path, '\\\\.'), -1), __paimon_partition, __paimon_bucket
        FROM T ORDER BY a""") == [(1, 1, 1, "parquet", Row(p1=1, p2=1), 0), (2, 1, 2, "parquet", Row(p1=1, p2=2), 0)]
    with pytest.raises(Exception, match="__paimon_nope"):
        sql("SELECT __paimon_nope FROM T")
    # a filter on a metadata column (Spark evaluates it)
    path = sql("SELECT __paimon_file_path FROM T WHERE a = 2")[0][0]
    assert sql(f"SELECT a FROM T WHERE __paimon_file_path = '{path}'") == [(2,)]


def test_refused_on_merged_primary_key_reads(spark: Any, sql: Any, db: str) -> None:
    """Paimon's "not support querying metadata columns for pk table": a bucket read file by file
    (one file) has them, a bucket whose files must be merged is refused with Paimon's message."""
    spark.sql(f"USE paimon.{db}")
    sql("CREATE TABLE T (id INT, name STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    sql("INSERT INTO T VALUES (1, 'a')")
    assert len(sql("SELECT *, __paimon_file_path FROM T")) == 1
    sql("INSERT INTO T VALUES (2, 'b')")
    with pytest.raises(Exception, match="Only append table or deletion vector table support querying metadata columns"):
        sql("SELECT *, __paimon_file_path FROM T")


def test_delete_by_file_path(spark: Any, sql: Any, db: str) -> None:
    """Paimon's "delete with metadata column"."""
    spark.sql(f"USE paimon.{db}")
    sql("CREATE TABLE T (id BIGINT, c1 STRING) TBLPROPERTIES ('bucket' = '1', 'bucket-key' = 'id', "
        "'file.format'='avro')")
    sql("INSERT INTO T VALUES (1, 'a')")
    paths = sql("SELECT __paimon_file_path FROM T")
    assert len(paths) == 1
    sql(f"DELETE FROM T WHERE __paimon_file_path = '{paths[0][0]}'")
    assert sql("SELECT __paimon_file_path FROM T") == []
