"""The rest of schema evolution through Spark SQL, ported from Paimon's SparkSchemaEvolutionITCase
(testUpdateColumnPosition, testAlterTableColumnNullability, testAlterPrimaryKeyNullability,
testRenamePrimaryKey, testRenameBucketKey, testRenamePartitionKey, testDropPartitionKey,
testDropPrimaryKey, testAddNotNullColumn, testReplaceColumnsUnsupported, testAlterColumnType, testSchemaEvolution,
testUpdateNestedColumnType): the same statements, rows and refusals."""

from __future__ import annotations

from typing import Any

import pytest


def _columns(spark: Any, t: str) -> list[tuple[str, str, bool]]:
    return [(f.name, f.dataType.simpleString(), f.nullable) for f in spark.table(t).schema.fields]


def _fails(spark: Any, stmt: str, message: str) -> None:
    with pytest.raises(Exception, match=message):  # noqa: PT011 - Spark wraps the engine's error
        spark.sql(stmt)


def test_update_column_position(spark: Any, db: str) -> None:
    def create(name: str) -> str:
        t = f"{db}.{name}"
        spark.sql(f"CREATE TABLE {t} (a INT NOT NULL, b BIGINT, c STRING) TBLPROPERTIES ('bucket'='1', 'bucket-key'='a')")
        return t

    t = create("tableFirst")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN b FIRST")
    assert [c[0] for c in _columns(spark, t)] == ["b", "a", "c"]
    t = create("tableAfter")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN c AFTER a")
    assert [c[0] for c in _columns(spark, t)] == ["a", "c", "b"]
    spark.sql(f"CREATE TABLE {db}.tableAfter1 (a INT, b BIGINT, c STRING, d DOUBLE)")
    spark.sql(f"ALTER TABLE {db}.tableAfter1 ALTER COLUMN b AFTER c")
    assert [c[0] for c in _columns(spark, f"{db}.tableAfter1")] == ["a", "c", "b", "d"]
    t = create("tableSelf")
    _fails(spark, f"ALTER TABLE {t} ALTER COLUMN a FIRST", "Cannot move itself for column a")
    _fails(spark, f"ALTER TABLE {t} ALTER COLUMN b AFTER b", "Cannot move itself for column b")
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException):
        spark.sql(f"ALTER TABLE {t} ALTER COLUMN d FIRST")
    with pytest.raises(AnalysisException):
        spark.sql(f"ALTER TABLE {t} ALTER COLUMN a AFTER d")


def test_move_reads_old_files(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.moved"
    spark.sql(f"CREATE TABLE {t} (k INT, v STRING, s STRUCT<f1: INT, f2: STRING>) "
              "TBLPROPERTIES ('primary-key'='k', 'bucket'='1')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'one', STRUCT(10, 'x'))")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN v FIRST")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN s.f2 FIRST")
    spark.sql(f"INSERT INTO {t} VALUES ('two', 2, STRUCT('y', 20))")
    assert sql(f"SELECT * FROM {t} ORDER BY k") == [("one", 1, ("x", 10)), ("two", 2, ("y", 20))]


def test_alter_column_nullability(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t2"
    spark.sql(f"CREATE TABLE {t} (a BIGINT NOT NULL, b BIGINT NOT NULL, "
              "c STRUCT<c1: STRUCT<c11: DOUBLE, c12: BOOLEAN NOT NULL> NOT NULL, c2: BIGINT> NOT NULL)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 2, STRUCT(STRUCT(0.5, true), 3))")
    for stmt in ("a DROP NOT NULL", "b DROP NOT NULL", "c DROP NOT NULL", "c.c1 DROP NOT NULL",
                 "c.c1.c12 DROP NOT NULL"):
        spark.sql(f"ALTER TABLE {t} ALTER COLUMN {stmt}")
    schema = spark.table(t).schema
    assert schema["a"].nullable and schema["b"].nullable and schema["c"].nullable
    c1 = schema["c"].dataType["c1"]
    assert c1.nullable and c1.dataType["c12"].nullable
    spark.sql(f"INSERT INTO {t} VALUES (NULL, 4, STRUCT(STRUCT(NULL, NULL), NULL)), (5, NULL, NULL)")
    assert sorted(sql(f"SELECT a, b, c FROM {t}"), key=str) == sorted(
        [(1, 2, ((0.5, True), 3)), (None, 4, ((None, None), None)), (5, None, None)], key=str)


def test_alter_primary_key_nullability(spark: Any, db: str) -> None:
    t = f"{db}.testAlterPkNullability"
    spark.sql(f"CREATE TABLE {t} (a BIGINT, b STRING) TBLPROPERTIES ('primary-key' = 'a')")
    _fails(spark, f"ALTER TABLE {t} ALTER COLUMN a DROP NOT NULL", "Cannot change nullability of primary key")


def test_rename_primary_key(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.test_rename_primary_key_table"
    spark.sql(f"CREATE TABLE {t} (a BIGINT NOT NULL, b STRING) TBLPROPERTIES ('primary-key' = 'a')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'aaa'), (2, 'bbb')")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN a TO a_")
    assert _columns(spark, t) == [("a_", "bigint", False), ("b", "string", True)]
    assert "'primary-key' = 'a_'" in sql(f"SHOW CREATE TABLE {t}")[0][0]
    assert sorted(sql(f"SELECT * FROM {t}")) == [(1, "aaa"), (2, "bbb")]
    spark.sql(f"INSERT INTO {t} VALUES (1, 'AAA'), (2, 'BBB')")
    assert sorted(sql(f"SELECT * FROM {t}")) == [(1, "AAA"), (2, "BBB")]


def test_rename_bucket_key(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.test_rename_bucket_key_table"
    spark.sql(f"CREATE TABLE {t} (a BIGINT NOT NULL, b STRING) TBLPROPERTIES ('bucket-key' = 'a,b', 'bucket'='16')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'aaa'), (2, 'bbb')")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN b TO b_")
    assert "'bucket-key' = 'a,b_'" in sql(f"SHOW CREATE TABLE {t}")[0][0]
    assert sql(f"SELECT * FROM {t} WHERE b_ = 'bbb'") == [(2, "bbb")]


def test_partition_and_key_refusals(spark: Any, db: str) -> None:
    t = f"{db}.testRenamePartitionKey"
    spark.sql(f"CREATE TABLE {t} (a BIGINT, b STRING) PARTITIONED BY (a)")
    _fails(spark, f"ALTER TABLE {t} RENAME COLUMN a TO aa", r"Cannot rename partition column: \[a\]")
    _fails(spark, f"ALTER TABLE {t} DROP COLUMN a", r"Cannot drop partition key or primary key: \[a\]")
    _fails(spark, f"ALTER TABLE {t} ALTER COLUMN a TYPE DOUBLE", r"Cannot update partition column: \[a\]")
    t = f"{db}.testDropPrimaryKey"
    spark.sql(f"CREATE TABLE {t} (a BIGINT, b STRING) PARTITIONED BY (a) TBLPROPERTIES ('primary-key' = 'a, b')")
    assert _columns(spark, t) == [("a", "bigint", False), ("b", "string", False)]
    _fails(spark, f"ALTER TABLE {t} DROP COLUMN b", r"Cannot drop partition key or primary key: \[b\]")
    t = f"{db}.pk_type"
    spark.sql(f"CREATE TABLE {t} (a INT, b STRING) TBLPROPERTIES ('primary-key' = 'a')")
    _fails(spark, f"ALTER TABLE {t} ALTER COLUMN a TYPE BIGINT", "Cannot update primary key")
    t = f"{db}.testReplaceColumnsUnsupported"
    spark.sql(f"CREATE TABLE {t} (a INT NOT NULL, b BIGINT, c STRING)")
    _fails(spark, f"ALTER TABLE {t} REPLACE COLUMNS (a BIGINT, bb STRING, c STRING)",
           r"ALTER TABLE \.\.\. REPLACE COLUMNS is not supported for Paimon tables\. Please use RENAME COLUMN, "
           r"ALTER COLUMN TYPE, DROP COLUMN, and ADD COLUMN instead\.")
    t = f"{db}.testAddNotNullColumn"
    spark.sql(f"CREATE TABLE {t} (a INT NOT NULL, b BIGINT, c STRING)")
    _fails(spark, f"ALTER TABLE {t} ADD COLUMNS (d INT NOT NULL)",
           f"Column d cannot specify NOT NULL in the {db}.testAddNotNullColumn table.")


def test_alter_column_type(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.testAlterColumnType"
    spark.sql(f"CREATE TABLE {t} (a INT NOT NULL, b BIGINT NOT NULL, c STRING)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 2L, '1'), (5, 6L, '3')")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN b TYPE DOUBLE")
    assert sql(f"SELECT * FROM {t} ORDER BY a") == [(1, 2.0, "1"), (5, 6.0, "3")]
    assert _columns(spark, t) == [("a", "int", False), ("b", "double", False), ("c", "string", True)]
    with pytest.raises(Exception, match="non-nullable|NOT NULL|null"):  # noqa: PT011
        spark.sql(f"INSERT INTO {t} VALUES (1, null, 'a')")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN a TYPE STRING")  # beyond widening: INT -> STRING
    assert sql(f"SELECT * FROM {t} ORDER BY a") == [("1", 2.0, "1"), ("5", 6.0, "3")]


@pytest.mark.parametrize("fmt", ["avro", "parquet", "orc"])
def test_schema_evolution(spark: Any, sql: Any, db: str, fmt: str) -> None:
    """testSchemaEvolution: renames into each other's names, retypes, drops and adds."""
    t = f"{db}.testSchemaEvolution_{fmt}"
    spark.sql(f"CREATE TABLE {t} (a INT, b BIGINT, c VARCHAR(10), d INT, e INT, f INT) "
              f"TBLPROPERTIES ('file.format'='{fmt}')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 2L, '3', 4, 5, 6), (7, 8L, '9', 10, 11, 12)")
    for stmt in ("RENAME COLUMN a TO aa", "ALTER COLUMN aa TYPE bigint", "RENAME COLUMN c TO a",
                 "RENAME COLUMN b TO c", "RENAME COLUMN d TO b", "ALTER COLUMN b TYPE bigint",
                 "RENAME COLUMN f TO ff", "ALTER COLUMN ff TYPE float"):
        spark.sql(f"ALTER TABLE {t} {stmt}")
    spark.sql(f"INSERT INTO {t} VALUES (13L, 14L, '15', 16L, 17, 18.0F), (19L, 20L, '21', 22L, 23, 24.0F)")
    assert sorted(sql(f"SELECT * FROM {t}")) == [
        (1, 2, "3", 4, 5, 6.0), (7, 8, "9", 10, 11, 12.0), (13, 14, "15", 16, 17, 18.0), (19, 20, "21", 22, 23, 24.0)]
    assert sorted(sql(f"SELECT aa, a, ff FROM {t} WHERE b > 10L")) == [(13, "15", 18.0), (19, "21", 24.0)]
    spark.sql(f"ALTER TABLE {t} DROP COLUMNS aa, c, e")
    spark.sql(f"INSERT INTO {t} VALUES ('25', 26L, 27.0F), ('28', 29L, 30.0)")
    assert sorted(sql(f"SELECT a, ff FROM {t} WHERE b > 10L")) == [
        ("15", 18.0), ("21", 24.0), ("25", 27.0), ("28", 30.0)]
    spark.sql(f"ALTER TABLE {t} ADD COLUMNS (d INT, c INT, e INT)")
    spark.sql(f"INSERT INTO {t} VALUES ('31', 32L, 33.0F, 34, 35, 36), ('37', 38L, 39.0F, 40, 41, 42)")
    assert sorted(sql(f"SELECT e, a, ff, d, b FROM {t} WHERE b > 10 AND e IS NOT NULL")) == [
        (36, "31", 33.0, 34, 32), (42, "37", 39.0, 40, 38)]
    assert len(sql(f"SELECT * FROM {t}")) == 8


def test_update_nested_column_type(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.nested_type"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, v STRUCT<f1: INT, f2: STRUCT<f1: STRING, f2: INT>>) "
              "TBLPROPERTIES ('bucket' = '1', 'primary-key' = 'k', 'file.format' = 'orc')")
    spark.sql(f"INSERT INTO {t} VALUES (1, STRUCT(10, STRUCT('apple', 100))), (2, STRUCT(20, STRUCT('banana', 200)))")
    spark.sql(f"ALTER TABLE {t} CHANGE COLUMN v.f2.f2 f2 BIGINT")
    spark.sql(f"INSERT INTO {t} VALUES (1, STRUCT(11, STRUCT('APPLE', 101))), "
              "(3, STRUCT(31, STRUCT('CHERRY', 3000000000000)))")
    assert sorted(sql(f"SELECT v.f2.f2, k FROM {t}")) == [(101, 1), (200, 2), (3000000000000, 3)]


def test_update_array_element_type(spark: Any, sql: Any, db: str) -> None:
    """``ALTER COLUMN v.element TYPE BIGINT`` retypes an array's elements (Paimon's [v, element] path)."""
    t = f"{db}.element_type"
    spark.sql(f"CREATE TABLE {t} (k INT, v ARRAY<INT>, m MAP<STRING, INT>)")
    spark.sql(f"INSERT INTO {t} VALUES (1, ARRAY(1, 2), MAP('a', 3))")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN v.element TYPE BIGINT")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN m.value TYPE BIGINT")
    assert [c[1] for c in _columns(spark, t)] == ["int", "array<bigint>", "map<string,bigint>"]
    spark.sql(f"INSERT INTO {t} VALUES (2, ARRAY(3000000000000), MAP('b', 3000000000000))")
    assert sql(f"SELECT * FROM {t} ORDER BY k") == [(1, [1, 2], {"a": 3}), (2, [3000000000000], {"b": 3000000000000})]


def test_insert_by_name_without_merge_schema(spark: Any, sql: Any, db: str) -> None:
    """WriteMergeSchemaTest "fail when merge schema is disabled but new columns are provided" (refused
    by Spark's own output resolution here: "too many data columns", where Paimon's resolver says "extra
    columns"); by-name inserts of the table's own columns in another order work."""
    t = f"{db}.by_name"
    spark.sql(f"CREATE TABLE {t} (a INT, b STRING)")
    spark.sql(f"INSERT INTO {t} VALUES (1, '1'), (2, '2')")
    spark.sql(f"INSERT INTO {t} BY NAME SELECT '3' AS b, 3 AS a")
    assert sql(f"SELECT * FROM {t} ORDER BY a") == [(1, "1"), (2, "2"), (3, "3")]
    _fails(spark, f"INSERT INTO {t} BY NAME SELECT 3 AS a, '3' AS b, 3 AS c", "too many data columns|extra columns")
    # with write.merge-schema a DataFrame write of the table's own columns is a plain write
    df = spark.createDataFrame([(4, "4")], "a INT, b STRING")
    df.writeTo(t).option("write.merge-schema", "true").append()
    assert sql(f"SELECT count(*) FROM {t}") == [(4,)]
