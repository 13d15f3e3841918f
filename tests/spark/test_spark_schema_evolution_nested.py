"""Nested schema changes through Spark SQL, ported from Paimon's SparkSchemaEvolutionITCase
(testAddAndDropNestedColumn[InArray|InMap], testRenameNestedColumn[InArray|InMap]): the same
statements and the same rows, old files read by nested field id."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.mark.parametrize("fmt", ["orc", "avro", "parquet"])
def test_add_and_drop_nested_column(spark: Any, sql: Any, db: str, fmt: str) -> None:
    t = f"{db}.nested_{fmt}"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, v STRUCT<f1: INT, f2: STRUCT<f1: STRING, f2: INT>>) "
              f"TBLPROPERTIES ('bucket' = '1', 'primary-key' = 'k', 'file.format' = '{fmt}')")
    spark.sql(f"INSERT INTO {t} VALUES (1, STRUCT(10, STRUCT('apple', 100))), (2, STRUCT(20, STRUCT('banana', 200)))")
    assert sorted(sql(f"SELECT v.f2.f1, k FROM {t}")) == [("apple", 1), ("banana", 2)]
    spark.sql(f"ALTER TABLE {t} ADD COLUMN v.f3 STRING")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN v.f2.f3 BIGINT")
    spark.sql(f"INSERT INTO {t} VALUES (1, STRUCT(11, STRUCT('APPLE', 101, 1001), 'one')), "
              "(3, STRUCT(31, STRUCT('CHERRY', 301, 3001), 'three'))")
    assert sql(f"SELECT * FROM {t} ORDER BY k") == [
        (1, (11, ("APPLE", 101, 1001), "one")), (2, (20, ("banana", 200, None), None)),
        (3, (31, ("CHERRY", 301, 3001), "three"))]
    spark.sql(f"ALTER TABLE {t} DROP COLUMN v.f2.f1")
    spark.sql(f"INSERT INTO {t} VALUES (1, STRUCT(12, STRUCT(102, 1002), 'one')), (4, STRUCT(42, STRUCT(402, 4002), 'four'))")
    assert sql(f"SELECT * FROM {t} ORDER BY k") == [
        (1, (12, (102, 1002), "one")), (2, (20, (200, None), None)), (3, (31, (301, 3001), "three")),
        (4, (42, (402, 4002), "four"))]
    spark.sql(f"ALTER TABLE {t} ADD COLUMN v.f2.f1 DECIMAL(5, 2) AFTER f2")
    spark.sql(f"INSERT INTO {t} VALUES (1, STRUCT(13, STRUCT(103, 100.03, 1003), 'one')), "
              "(5, STRUCT(53, STRUCT(503, 500.03, 5003), 'five'))")
    rows = [(k, (a, (b, None if c is None else str(c), d), e)) for k, (a, (b, c, d), e) in sql(f"SELECT * FROM {t} ORDER BY k")]
    assert rows == [
        (1, (13, (103, "100.03", 1003), "one")), (2, (20, (200, None, None), None)),
        (3, (31, (301, None, 3001), "three")), (4, (42, (402, None, 4002), "four")),
        (5, (53, (503, "500.03", 5003), "five"))]


def test_add_and_drop_nested_column_in_array_and_map(spark: Any, sql: Any, db: str) -> None:
    a, m = f"{db}.nested_array", f"{db}.nested_map"
    spark.sql(f"CREATE TABLE {a} (k INT NOT NULL, v ARRAY<STRUCT<f1: STRING, f2: INT>>) "
              "TBLPROPERTIES ('bucket' = '1', 'primary-key' = 'k')")
    spark.sql(f"INSERT INTO {a} VALUES (1, ARRAY(STRUCT('apple', 100), STRUCT('banana', 101))), "
              "(2, ARRAY(STRUCT('cat', 200), STRUCT('dog', 201)))")
    spark.sql(f"ALTER TABLE {a} ADD COLUMN v.element.f3 STRING AFTER f2")
    spark.sql(f"ALTER TABLE {a} DROP COLUMN v.element.f1")
    spark.sql(f"INSERT INTO {a} VALUES (1, ARRAY(STRUCT(110, 'APPLE'), STRUCT(111, 'BANANA'))), "
              "(3, ARRAY(STRUCT(310, 'FLOWER')))")
    assert [(k, [tuple(x) for x in v]) for k, v in sql(f"SELECT * FROM {a} ORDER BY k")] == [
        (1, [(110, "APPLE"), (111, "BANANA")]), (2, [(200, None), (201, None)]), (3, [(310, "FLOWER")])]

    spark.sql(f"CREATE TABLE {m} (k INT NOT NULL, v MAP<INT, STRUCT<f1: STRING, f2: INT>>) "
              "TBLPROPERTIES ('bucket' = '1', 'primary-key' = 'k')")
    spark.sql(f"INSERT INTO {m} VALUES (1, MAP(10, STRUCT('apple', 100), 20, STRUCT('banana', 101))), "
              "(2, MAP(10, STRUCT('cat', 200), 20, STRUCT('dog', 201)))")
    spark.sql(f"ALTER TABLE {m} ADD COLUMN v.value.f3 STRING AFTER f2")
    spark.sql(f"ALTER TABLE {m} DROP COLUMN v.value.f1")
    spark.sql(f"INSERT INTO {m} VALUES (1, MAP(10, STRUCT(110, 'APPLE'), 20, STRUCT(111, 'BANANA'))), "
              "(3, MAP(10, STRUCT(310, 'FLOWER')))")
    assert sql(f"SELECT k, v[10].f2, v[10].f3 FROM {m} ORDER BY k") == [(1, 110, "APPLE"), (2, 200, None), (3, 310, "FLOWER")]


def test_rename_nested_column(spark: Any, sql: Any, db: str) -> None:
    s, a, m = f"{db}.ren_struct", f"{db}.ren_array", f"{db}.ren_map"
    spark.sql(f"CREATE TABLE {s} (k INT NOT NULL, v STRUCT<f1: INT, f2: STRUCT<f1: STRING, f2: INT>>)")
    spark.sql(f"INSERT INTO {s} VALUES (1, STRUCT(10, STRUCT('apple', 100))), (2, STRUCT(20, STRUCT('banana', 200)))")
    spark.sql(f"ALTER TABLE {s} RENAME COLUMN v.f2.f1 to f100")
    assert sorted(sql(f"SELECT v.f2.f100, k FROM {s}")) == [("apple", 1), ("banana", 2)]
    spark.sql(f"CREATE TABLE {a} (k INT NOT NULL, v ARRAY<STRUCT<f1: STRING, f2: INT>>)")
    spark.sql(f"INSERT INTO {a} VALUES (1, ARRAY(STRUCT('apple', 100), STRUCT('banana', 101))), "
              "(2, ARRAY(STRUCT('cat', 200), STRUCT('dog', 201)))")
    spark.sql(f"ALTER TABLE {a} RENAME COLUMN v.element.f1 to f100")
    assert sorted(sql(f"SELECT v[0].f100, k FROM {a}")) == [("apple", 1), ("cat", 2)]
    spark.sql(f"CREATE TABLE {m} (k INT NOT NULL, v MAP<INT, STRUCT<f1: STRING, f2: INT>>)")
    spark.sql(f"INSERT INTO {m} VALUES (1, MAP(10, STRUCT('apple', 100), 20, STRUCT('banana', 101))), "
              "(2, MAP(10, STRUCT('cat', 200), 20, STRUCT('dog', 201)))")
    spark.sql(f"ALTER TABLE {m} RENAME COLUMN v.value.f1 to f100")
    assert sorted(sql(f"SELECT v[10].f100, k FROM {m}")) == [("apple", 1), ("cat", 2)]
