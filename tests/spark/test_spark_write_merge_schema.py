"""Paimon's ``write.merge-schema`` on DataFrame writes by name (the shim's ``MergeSchemaWrites``):
ports of WriteMergeSchemaTest / DataFrameWriteTestBase (schema evolution) statements and answers."""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.spark


def _types(spark: Any, t: str) -> list[tuple[str, str]]:
    return [(f.name, f.dataType.simpleString()) for f in spark.table(t).schema.fields]


def test_dataframe_write_adds_columns(spark: Any, sql: Any, db: str) -> None:
    """WriteMergeSchemaTest "dataframe write": new columns, then missing and new columns."""
    t = f"paimon.{db}.t"
    spark.sql(f"CREATE TABLE {t} (a INT, b STRING)")
    spark.createDataFrame([(1, "1"), (2, "2")], "a INT, b STRING").write.format("paimon").mode("append").saveAsTable(t)
    (spark.createDataFrame([(3, "3", 3)], "a INT, b STRING, c INT").write.format("paimon").mode("append")
     .option("write.merge-schema", "true").saveAsTable(t))
    assert sql(f"SELECT * FROM {t} ORDER BY a") == [(1, "1", None), (2, "2", None), (3, "3", 3)]
    spark.createDataFrame([("4", "4", 4)], "d STRING, b STRING, c INT").writeTo(t).option(
        "write.merge-schema", "true").append()
    assert sql(f"SELECT * FROM {t} ORDER BY a NULLS FIRST") == [
        (None, "4", 4, "4"), (1, "1", None, None), (2, "2", None, None), (3, "3", 3, None)]
    assert _types(spark, t) == [("a", "int"), ("b", "string"), ("c", "int"), ("d", "string")]


def test_type_widening_and_refusals(spark: Any, sql: Any, db: str, spark_warehouse: str, tmp_path: Path) -> None:
    """INT -> BIGINT keeps the table's type without type-widening and widens it with; a lossy change
    (STRING -> DATE) is refused without explicit-cast (nothing written, schema unchanged) and done
    with it (DataFrameWriteTestBase "allowExplicitCast = true")."""
    t = f"paimon.{db}.w"
    spark.sql(f"CREATE TABLE {t} (id INT, a INT, b STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 1, '2023-08-01')")
    df = spark.createDataFrame([(2, 2, "2023-08-02")], "id INT, a BIGINT, b STRING")
    df.writeTo(t).option("write.merge-schema", "true").append()
    assert _types(spark, t) == [("id", "int"), ("a", "int"), ("b", "string")]
    df.writeTo(t).option("write.merge-schema", "true").option("write.merge-schema.type-widening", "true").append()
    assert _types(spark, t) == [("id", "int"), ("a", "bigint"), ("b", "string")]
    dated = spark.createDataFrame([(3, 3, datetime.date(2023, 8, 3))], "id INT, a BIGINT, b DATE")
    with pytest.raises(Exception, match="b"):  # noqa: PT011 - Spark wraps the engine's error
        (dated.writeTo(t).option("write.merge-schema", "true").option("write.merge-schema.type-widening", "true")
         .append())
    assert _types(spark, t) == [("id", "int"), ("a", "bigint"), ("b", "string")]
    assert sql(f"SELECT count(*) FROM {t}") == [(2,)]
    (dated.writeTo(t).option("write.merge-schema", "true").option("write.merge-schema.type-widening", "true")
     .option("write.merge-schema.explicit-cast", "true").append())
    assert _types(spark, t) == [("id", "int"), ("a", "bigint"), ("b", "date")]
    want = [(1, 1, datetime.date(2023, 8, 1)), (2, 2, datetime.date(2023, 8, 2)), (3, 3, datetime.date(2023, 8, 3))]
    assert sql(f"SELECT * FROM {t} ORDER BY id") == want
    # pypaimon 2.1.0 reads the evolved table (files of three schema versions) the same
    from tests.helpers.interop_util import PypaimonIO, ensure_pypaimon_python

    python, why = ensure_pypaimon_python()
    if python is None:
        pytest.skip(why)
    scratch = tmp_path / "ipc"
    scratch.mkdir()
    got = PypaimonIO(python, Path(spark_warehouse), scratch).read(f"{db}.w")
    assert sorted(zip(*(got.column(c).to_pylist() for c in ("id", "a", "b")))) == want


def test_refused_without_the_option(spark: Any, sql: Any, db: str) -> None:
    """Extra columns without write.merge-schema: Spark's output check refuses, nothing written;
    the session setting spark.paimon.write.merge-schema turns it on."""
    t = f"paimon.{db}.r"
    spark.sql(f"CREATE TABLE {t} (a INT, b STRING)")
    df = spark.createDataFrame([(1, "1", 1)], "a INT, b STRING, c INT")
    with pytest.raises(Exception, match="too many data columns|extra columns|INCOMPATIBLE_DATA"):  # noqa: PT011
        df.writeTo(t).append()
    assert sql(f"SELECT count(*) FROM {t}") == [(0,)]
    assert _types(spark, t) == [("a", "int"), ("b", "string")]
    spark.conf.set("spark.paimon.write.merge-schema", "true")
    try:
        df.writeTo(t).append()
    finally:
        spark.conf.unset("spark.paimon.write.merge-schema")
    assert sql(f"SELECT * FROM {t}") == [(1, "1", 1)]


def test_path_write_adds_columns(spark: Any, sql: Any, db: str) -> None:
    """DataFrameWriteTestBase "Schema evolution": ``df.write.format("paimon").save(location)``."""
    t = f"paimon.{db}.p"
    spark.sql(f"CREATE TABLE {t} (a INT, b STRING)")
    location = os.path.join(spark.conf.get("spark.sql.catalog.paimon.warehouse"), f"{db}.db", "p")
    spark.createDataFrame([(1, "a")], "a INT, b STRING").write.format("paimon").mode("append").save(location)
    (spark.createDataFrame([(3, "c", 345)], "a INT, b STRING, c BIGINT").write.format("paimon").mode("append")
     .option("write.merge-schema", "true").save(location))
    assert sql(f"SELECT * FROM {t} ORDER BY a") == [(1, "a", None), (3, "c", 345)]


def test_sql_insert_by_name(spark: Any, sql: Any, db: str) -> None:
    """WriteMergeSchemaTest "sql write": INSERT INTO t BY NAME with spark.paimon.write.merge-schema."""
    t = f"paimon.{db}.s"
    spark.sql(f"CREATE TABLE {t} (a INT, b STRING)")
    spark.sql(f"INSERT INTO {t} VALUES (1, '1'), (2, '2')")
    spark.conf.set("spark.paimon.write.merge-schema", "true")
    try:
        spark.sql(f"INSERT INTO {t} BY NAME SELECT 3 AS a, '3' AS b, 3 AS c")
        assert sql(f"SELECT * FROM {t} ORDER BY a") == [(1, "1", None), (2, "2", None), (3, "3", 3)]
        spark.sql(f"INSERT INTO {t} BY NAME SELECT '4' AS d, '4' AS b, 4 AS c")
    finally:
        spark.conf.unset("spark.paimon.write.merge-schema")
    assert sql(f"SELECT * FROM {t} ORDER BY a NULLS FIRST") == [
        (None, "4", 4, "4"), (1, "1", None, None), (2, "2", None, None), (3, "3", 3, None)]


def test_schema_committed_when_the_write_runs(spark: Any, sql: Any, db: str) -> None:
    """The merge is planned while the write is analysed and committed when it runs: an EXPLAIN of the
    write (analysed and planned, never run) leaves the schema as it was; the write itself evolves it
    (one schema version)."""
    t = f"paimon.{db}.e"
    spark.sql(f"CREATE TABLE {t} (a INT, b STRING)")
    spark.conf.set("spark.paimon.write.merge-schema", "true")
    try:
        plan = sql(f"EXPLAIN INSERT INTO {t} BY NAME SELECT 1 AS a, '1' AS b, 1 AS c")
        assert "AppendData" in plan[0][0]
        assert _types(spark, t) == [("a", "int"), ("b", "string")]
        assert sql(f"SELECT count(*) FROM paimon.{db}.`e$schemas`") == [(1,)]
        spark.sql(f"INSERT INTO {t} BY NAME SELECT 1 AS a, '1' AS b, 1 AS c")
    finally:
        spark.conf.unset("spark.paimon.write.merge-schema")
    assert _types(spark, t) == [("a", "int"), ("b", "string"), ("c", "int")]
    assert sql(f"SELECT count(*) FROM paimon.{db}.`e$schemas`") == [(2,)]
    assert sql(f"SELECT * FROM {t}") == [(1, "1", 1)]


def test_nested_struct_fields(spark: Any, sql: Any, db: str) -> None:
    """WriteMergeSchemaTest "nested struct with new fields by sql / by dataframe", "deeply nested struct
    with new fields", "nested struct new fields and top-level new column together" and "nested struct
    with missing fields": new fields inside ROW columns are added (by name, at the end of their ROW),
    fields the data lacks are written as null, a null ROW stays null."""
    from pyspark.sql import Row

    t = f"paimon.{db}.ns"
    spark.sql(f"CREATE TABLE {t} (id INT, info STRUCT<key1 STRUCT<key2 STRING, key3 STRING>>)")
    spark.sql(f"INSERT INTO {t} VALUES (1, struct(struct('v2a', 'v3a')))")
    spark.conf.set("spark.paimon.write.merge-schema", "true")
    try:
        spark.sql(f"INSERT INTO {t} BY NAME SELECT 3 AS id, named_struct('key1', named_struct("
                  "'key2', 'v2c', 'key4', 'v4c', 'key3', 'v3c')) AS info")
        spark.sql(f"INSERT INTO {t} BY NAME SELECT 4 AS id, CAST(NULL AS STRUCT<key1: STRUCT<key3: STRING>>) AS info")
        m = f"paimon.{db}.nm"
        spark.sql(f"CREATE TABLE {m} (id INT, info STRUCT<f1 STRING, f2 STRING, f3 STRING>)")
        spark.sql(f"INSERT INTO {m} VALUES (1, struct('a', 'b', 'c'))")
        spark.sql(f"INSERT INTO {m} BY NAME SELECT 2 AS id, named_struct('f2', 'y', 'f3', 'z') AS info")
        spark.sql(f"INSERT INTO {m} BY NAME SELECT 3 AS id, named_struct('f1', 'x', 'f4', 'w', 'f3', 'z') AS info,"
                  " 'top' AS extra")
        spark.sql(f"INSERT INTO {m} BY NAME SELECT 4 AS id, named_struct('f2', 'p', 'f3', 'q', 'f4', 'r') AS info")
    finally:
        spark.conf.unset("spark.paimon.write.merge-schema")
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [
        (1, Row(key1=Row(key2="v2a", key3="v3a", key4=None))),
        (3, Row(key1=Row(key2="v2c", key3="v3c", key4="v4c"))),
        (4, None)]
    assert sql(f"SELECT * FROM {m} ORDER BY id") == [
        (1, Row(f1="a", f2="b", f3="c", f4=None), None),
        (2, Row(f1=None, f2="y", f3="z", f4=None), None),
        (3, Row(f1="x", f2=None, f3="z", f4="w"), "top"),
        (4, Row(f1=None, f2="p", f3="q", f4="r"), None)]
    # a DataFrame write (WriteMergeSchemaTest "... by dataframe"), with type widening inside the ROW
    d = f"paimon.{db}.nd"
    spark.sql(f"CREATE TABLE {d} (id INT, info STRUCT<f1 INT, f2 STRING>)")
    spark.sql(f"INSERT INTO {d} VALUES (1, struct(10, 'a'))")
    df = spark.createDataFrame([(2, (20, "new", "b"))], "id INT, info STRUCT<f1: BIGINT, f3: STRING, f2: STRING>")
    (df.write.format("paimon").mode("append").option("write.merge-schema", "true")
     .option("write.merge-schema.type-widening", "true").saveAsTable(d))
    assert sql(f"SELECT * FROM {d} ORDER BY id") == [(1, Row(f1=10, f2="a", f3=None)), (2, Row(f1=20, f2="b", f3="new"))]
    assert _types(spark, d) == [("id", "int"), ("info", "struct<f1:bigint,f2:string,f3:string>")]


def test_case_insensitive_names(spark: Any, sql: Any, db: str) -> None:
    """WriteMergeSchemaTest "case-insensitive dataframe write", "only case differs, no schema change",
    "repeated writes with alternating case", "nested struct case mismatch with new sub-field"."""
    t = f"paimon.{db}.ci"
    spark.sql(f"CREATE TABLE {t} (id INT, name STRING)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a')")
    spark.createDataFrame([(3, "c", 100)], "ID INT, NAME STRING, extra INT").write.format("paimon").mode(
        "append").option("write.merge-schema", "true").saveAsTable(t)
    n = f"paimon.{db}.cn"
    spark.sql(f"CREATE TABLE {n} (id INT, info STRUCT<key1: STRING, key2: STRING>)")
    spark.sql(f"INSERT INTO {n} VALUES (1, named_struct('key1', 'a', 'key2', 'b'))")
    spark.conf.set("spark.paimon.write.merge-schema", "true")
    try:
        spark.sql(f"INSERT INTO {t} BY NAME SELECT 4 AS ID, 'd' AS NAME")
        spark.sql(f"INSERT INTO {t} BY NAME SELECT 5 AS Id, 'e' AS NaMe, 7 AS EXTRA")
        spark.sql(f"INSERT INTO {n} BY NAME SELECT 2 AS id, named_struct('KEY1', 'A', 'KEY2', 'B', 'key3', 'C') AS info")
    finally:
        spark.conf.unset("spark.paimon.write.merge-schema")
    assert _types(spark, t) == [("id", "int"), ("name", "string"), ("extra", "int")]
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(1, "a", None), (3, "c", 100), (4, "d", None), (5, "e", 7)]
    assert _types(spark, n) == [("id", "int"), ("info", "struct<key1:string,key2:string,key3:string>")]
    assert sql(f"SELECT id, info.key1, info.key2, info.key3 FROM {n} ORDER BY id") == [
        (1, "a", "b", None), (2, "A", "B", "C")]


def test_merge_into_evolves_the_schema(spark: Any, sql: Any, db: str) -> None:
    """WriteMergeSchemaTest "Merge into with merge-schema: ..." (source uppercase does not create
    duplicate columns, append-only target evolves, extra column with case-mismatched columns, only
    case differs, nested struct fields case mismatch) and "Merge into without merge-schema: ARRAY<INT>
    target with ARRAY<BIGINT> source": UPDATE SET * / INSERT * add the source's new columns."""
    pk = "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')"
    t, a, n, r = (f"paimon.{db}.{x}" for x in ("mt", "ma", "mn", "mr"))
    spark.sql(f"CREATE TABLE {t} (id INT, name STRING) {pk}")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"CREATE TABLE {a} (id INT, name STRING)")
    spark.sql(f"INSERT INTO {a} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"CREATE TABLE {n} (id INT, info STRUCT<key1: STRING, key2: STRING>) {pk}")
    spark.sql(f"INSERT INTO {n} VALUES (1, named_struct('key1', 'a', 'key2', 'b'))")
    spark.sql(f"CREATE TABLE {r} (id INT, ports ARRAY<INT>) {pk}")
    spark.sql(f"INSERT INTO {r} VALUES (1, array(80, 443))")
    spark.sql("SELECT 1 AS ID, 'A' AS NAME, 100 AS extra_col UNION ALL SELECT 3 AS ID, 'c' AS NAME, 30 AS extra_col"
              ).createOrReplaceTempView("ms1")
    spark.sql("SELECT 1 AS id, 'a2' AS name, 100 AS value UNION ALL SELECT 3 AS id, 'c' AS name, 30 AS value"
              ).createOrReplaceTempView("ms2")
    spark.sql("SELECT 1 AS id, named_struct('KEY1', 'A', 'KEY2', 'B', 'key3', 'C') AS info").createOrReplaceTempView("ms3")
    spark.sql("SELECT 4 AS Id, 'd' AS NaMe").createOrReplaceTempView("ms4")
    both = "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    spark.sql(f"MERGE INTO {r} USING (SELECT 1 AS id, array(cast(8080 as bigint), cast(9090 as bigint)) AS ports) s "
              f"ON {r}.id = s.id {both}")
    spark.conf.set("spark.paimon.write.merge-schema", "true")
    try:
        spark.sql(f"MERGE INTO {t} USING ms1 ON {t}.id = ms1.ID {both}")
        spark.sql(f"MERGE INTO {t} USING ms4 ON {t}.id = ms4.Id WHEN NOT MATCHED THEN INSERT *")
        spark.sql(f"MERGE INTO {a} USING ms2 ON {a}.id = ms2.id {both}")
        spark.sql(f"MERGE INTO {n} USING ms3 ON {n}.id = ms3.id {both}")
    finally:
        spark.conf.unset("spark.paimon.write.merge-schema")
    assert _types(spark, t) == [("id", "int"), ("name", "string"), ("extra_col", "int")]
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(1, "A", 100), (2, "b", None), (3, "c", 30), (4, "d", None)]
    assert sql(f"SELECT * FROM {a} ORDER BY id") == [(1, "a2", 100), (2, "b", None), (3, "c", 30)]
    assert sql(f"SELECT id, info.key1, info.key2, info.key3 FROM {n}") == [(1, "A", "B", "C")]
    assert _types(spark, r) == [("id", "int"), ("ports", "array<int>")]
    assert sql(f"SELECT * FROM {r}") == [(1, [8080, 9090])]
    assert sql(f"SELECT count(*) FROM paimon.{db}.`mt$schemas`") == [(2,)]


def test_rows_inside_arrays(spark: Any, sql: Any, db: str) -> None:
    """WriteMergeSchemaTest "array of struct missing nested field by dataframe": a ROW field the data
    lacks inside ARRAY<ROW> is written as null; a new field inside the ARRAY's ROW is added to the
    table (nested), old rows read it as null."""
    t = f"paimon.{db}.t"
    spark.sql(f"CREATE TABLE {t} (ids ARRAY<BIGINT>, a BIGINT, items ARRAY<STRUCT<f1: INT, f2: STRING, f6: INT>>)")
    src = spark.sql("SELECT array(CAST(1 AS BIGINT), 2) AS ids, CAST(1 AS BIGINT) AS a, "
                    "array(named_struct('f1', 10, 'f2', 'v2')) AS items")
    src.write.format("paimon").mode("append").option("write.merge-schema", "true").saveAsTable(t)
    assert [tuple(r) for r in spark.table(t).collect()] == [([1, 2], 1, [(10, "v2", None)])]
    # a new field inside the ARRAY's ROW, fields in another order, and a null array
    more = spark.sql("SELECT CAST(2 AS BIGINT) AS a, array(named_struct('f7', 'n', 'f1', 20), "
                     "CAST(NULL AS STRUCT<f7: STRING, f1: INT>)) AS items "
                     "UNION ALL SELECT 3, CAST(NULL AS ARRAY<STRUCT<f7: STRING, f1: INT>>)")
    more.writeTo(t).option("write.merge-schema", "true").append()
    assert _types(spark, t) == [("ids", "array<bigint>"), ("a", "bigint"),
                                ("items", "array<struct<f1:int,f2:string,f6:int,f7:string>>")]
    assert sql(f"SELECT a, items FROM {t} ORDER BY a") == [
        (1, [(10, "v2", None, None)]), (2, [(20, None, None, "n"), None]), (3, None)]


def test_rows_inside_map_values(spark: Any, sql: Any, db: str) -> None:
    """WriteMergeSchemaTest "map of struct": ROW fields inside MAP values are matched by name as in
    ARRAY elements: a field the data lacks is null, a new field is added to the value ROW."""
    t = f"paimon.{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT, m MAP<STRING, STRUCT<f1: INT, f2: STRING>>)")
    src = spark.sql("SELECT 1 AS id, map('k', named_struct('f1', 10)) AS m")
    src.writeTo(t).option("write.merge-schema", "true").append()
    assert sql(f"SELECT * FROM {t}") == [(1, {"k": (10, None)})]
    more = spark.sql("SELECT 2 AS id, map('a', named_struct('f3', 'n', 'f1', 20), 'b', "
                     "CAST(NULL AS STRUCT<f3: STRING, f1: INT>)) AS m "
                     "UNION ALL SELECT 3, CAST(NULL AS MAP<STRING, STRUCT<f3: STRING, f1: INT>>)")
    more.writeTo(t).option("write.merge-schema", "true").append()
    assert _types(spark, t) == [("id", "int"), ("m", "map<string,struct<f1:int,f2:string,f3:string>>")]
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [
        (1, {"k": (10, None, None)}), (2, {"a": (20, None, "n"), "b": None}), (3, None)]
