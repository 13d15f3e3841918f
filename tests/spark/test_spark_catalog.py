"""The ``paimon`` catalog through a real SparkSession: namespaces, DDL, DESCRIBE/SHOW, errors."""

from __future__ import annotations

import os
from typing import Any

import pytest

from paimon_sql import Catalog

pytestmark = pytest.mark.spark


def _condition(e: BaseException) -> str | None:
    get = getattr(e, "getCondition", None)
    return get() if get else None


def test_namespaces(spark: Any, sql: Any, db: str) -> None:
    from pyspark.errors import AnalysisException

    assert (db,) in sql("SHOW NAMESPACES")
    assert ("default",) in sql("SHOW NAMESPACES IN paimon")
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"CREATE NAMESPACE {db}")
    assert _condition(e.value) == "SCHEMA_ALREADY_EXISTS"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {db}")
    desc = dict((r[0], r[1]) for r in sql(f"DESCRIBE NAMESPACE {db}"))
    assert desc["Location"].endswith(f"{db}.db")
    spark.sql(f"CREATE TABLE {db}.t (a INT)")
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"DROP NAMESPACE {db}")
    assert _condition(e.value) == "SCHEMA_NOT_EMPTY"
    spark.sql(f"DROP NAMESPACE {db} CASCADE")
    assert (db,) not in sql("SHOW NAMESPACES")
    spark.sql(f"DROP NAMESPACE IF EXISTS {db}")
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"SHOW TABLES IN {db}")
    assert _condition(e.value) == "SCHEMA_NOT_FOUND"


def test_create_table_lands_in_the_default_namespace(spark: Any, sql: Any, spark_warehouse: str) -> None:
    name = "t_default_" + os.urandom(4).hex()
    spark.sql(f"CREATE TABLE {name} (a INT, b STRING)")
    try:
        assert ("default", name, False) in sql("SHOW TABLES")
        assert Catalog(spark_warehouse).table_exists(f"default.{name}")
        assert sql("SELECT current_catalog(), current_database()") == [("paimon", "default")]
    finally:
        spark.sql(f"DROP TABLE {name}")
    assert not Catalog(spark_warehouse).table_exists(f"default.{name}")


def test_create_table_with_partitions_and_properties(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(
        f"CREATE TABLE {db}.t (id BIGINT, name STRING, v DOUBLE, dt STRING) PARTITIONED BY (dt) "
        "COMMENT 'sales' TBLPROPERTIES ('primary-key'='id,dt', 'bucket'='4', 'merge-engine'='aggregation', "
        "'fields.v.aggregate-function'='sum')"
    )
    table = Catalog(spark_warehouse).get_table(f"{db}.t")
    assert table.primary_keys == ["id", "dt"] and table.partition_keys == ["dt"]
    assert table.options == {"bucket": "4", "merge-engine": "aggregation", "fields.v.aggregate-function": "sum"}
    assert table.schema.comment == "sales"
    assert (db, "t", False) in sql(f"SHOW TABLES IN {db}")

    props = dict(sql(f"SHOW TBLPROPERTIES {db}.t"))
    assert props["primary-key"] == "id,dt" and props["bucket"] == "4" and props["merge-engine"] == "aggregation"

    desc = sql(f"DESCRIBE TABLE EXTENDED {db}.t")
    assert desc[:4] == [("id", "bigint", None), ("name", "string", None), ("v", "double", None), ("dt", "string", None)]
    info = {r[0]: r[1] for r in desc}
    assert info["Provider"] == "paimon" and info["Comment"] == "sales"
    assert info["Location"] == os.path.join(spark_warehouse, f"{db}.db", "t")
    i = [r[0] for r in desc].index("# Partition Information")
    assert desc[i + 2] == ("dt", "string", None)

    ddl = sql(f"SHOW CREATE TABLE {db}.t")[0][0]
    assert f"CREATE TABLE paimon.{db}.t" in ddl
    assert "id BIGINT NOT NULL" in ddl and "USING paimon" in ddl and "PARTITIONED BY (dt)" in ddl
    assert "'primary-key' = 'id,dt'" in ddl and "'fields.v.aggregate-function' = 'sum'" in ddl
    # the DDL Spark shows creates the same table again
    spark.sql(ddl.replace(f"paimon.{db}.t", f"paimon.{db}.t_copy").replace(f"LOCATION '{table.path}'", ""))
    copy = Catalog(spark_warehouse).get_table(f"{db}.t_copy")
    assert copy.schema.fields == table.schema.fields and copy.options == table.options


def test_bad_tblproperties_fail_with_key_and_value(spark: Any, sql: Any, db: str) -> None:
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException, match=r"Invalid value 'many' for option 'bucket' of table .*\.bad"):
        spark.sql(f"CREATE TABLE {db}.bad (id BIGINT) TBLPROPERTIES ('primary-key'='id', 'bucket'='many')")
    with pytest.raises(AnalysisException, match="merge-engine"):
        spark.sql(f"CREATE TABLE {db}.bad (id BIGINT) TBLPROPERTIES ('primary-key'='id', 'merge-engine'='nope')")
    assert sql(f"SHOW TABLES IN {db}") == []


def test_create_table_errors(spark: Any, db: str) -> None:
    from pyspark.errors import AnalysisException

    spark.sql(f"CREATE TABLE {db}.t (id BIGINT)")
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"CREATE TABLE {db}.t (id BIGINT)")
    assert _condition(e.value) == "TABLE_OR_VIEW_ALREADY_EXISTS"
    spark.sql(f"CREATE TABLE IF NOT EXISTS {db}.t (id BIGINT)")
    with pytest.raises(AnalysisException, match="USING parquet"):
        spark.sql(f"CREATE TABLE {db}.p (id BIGINT) USING parquet")
    with pytest.raises(AnalysisException) as e:
        spark.sql("CREATE TABLE nodb_x1.t (id BIGINT)")
    assert _condition(e.value) == "SCHEMA_NOT_FOUND"
    with pytest.raises(AnalysisException, match="partitioned by columns only"):
        spark.sql(f"CREATE TABLE {db}.b (id BIGINT) PARTITIONED BY (bucket(4, id))")


def test_ctas(spark: Any, sql: Any, db: str) -> None:
    spark.sql(
        f"CREATE TABLE {db}.c TBLPROPERTIES ('file.format'='avro') AS "
        "SELECT id, CAST(id AS STRING) AS s FROM range(5)"
    )
    assert sql(f"SELECT * FROM {db}.c ORDER BY id") == [(i, str(i)) for i in range(5)]
    assert dict(sql(f"SHOW TBLPROPERTIES {db}.c"))["file.format"] == "avro"


def test_alter_table(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.a (id INT, s STRING, gone STRING)")
    spark.sql(f"INSERT INTO {db}.a VALUES (1, 'x', 'g')")
    spark.sql(f"ALTER TABLE {db}.a SET TBLPROPERTIES ('target-file-size'='50 mb', 'my.key'='v')")
    assert dict(sql(f"SHOW TBLPROPERTIES {db}.a"))["target-file-size"] == "50 mb"
    spark.sql(f"ALTER TABLE {db}.a UNSET TBLPROPERTIES ('my.key')")
    assert "my.key" not in dict(sql(f"SHOW TBLPROPERTIES {db}.a"))
    spark.sql(f"ALTER TABLE {db}.a ADD COLUMNS (n BIGINT, d DATE)")
    spark.sql(f"ALTER TABLE {db}.a DROP COLUMN gone")
    spark.sql(f"ALTER TABLE {db}.a RENAME COLUMN s TO s2")
    spark.sql(f"ALTER TABLE {db}.a ALTER COLUMN id TYPE BIGINT")
    assert [r[:2] for r in sql(f"DESCRIBE TABLE {db}.a")] == [
        ("id", "bigint"), ("s2", "string"), ("n", "bigint"), ("d", "date")
    ]
    spark.sql(f"INSERT INTO {db}.a VALUES (2, 'y', 20, DATE'2024-01-02')")
    assert sql(f"SELECT id, s2, n FROM {db}.a ORDER BY id") == [(1, "x", None), (2, "y", 20)]
    spark.sql(f"ALTER TABLE {db}.a RENAME TO {db}.a2")
    assert sql(f"SHOW TABLES IN {db}") == [(db, "a2", False)]
    assert sql(f"SELECT count(*) FROM {db}.a2") == [(2,)]
    assert len(Catalog(spark_warehouse).get_table(f"{db}.a2").store.schemas.schema_ids()) == 7


def test_bad_alter_leaves_the_table_unchanged(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    from pyspark.errors import AnalysisException

    spark.sql(f"CREATE TABLE {db}.b (id INT, s STRING) TBLPROPERTIES ('primary-key'='id')")
    before = Catalog(spark_warehouse).get_table(f"{db}.b").schema
    with pytest.raises(AnalysisException, match=r"Invalid value 'zero' for option 'snapshot.num-retained.min'"):
        spark.sql(f"ALTER TABLE {db}.b SET TBLPROPERTIES ('snapshot.num-retained.min'='zero')")
    with pytest.raises(AnalysisException, match=r"Cannot drop partition key or primary key: \[id\]"):
        spark.sql(f"ALTER TABLE {db}.b DROP COLUMN id")
    with pytest.raises(AnalysisException, match="NOT_SUPPORTED_CHANGE_COLUMN|widening"):
        spark.sql(f"ALTER TABLE {db}.b ALTER COLUMN s TYPE INT")
    with pytest.raises(AnalysisException, match="Cannot move itself for column id"):
        spark.sql(f"ALTER TABLE {db}.b ALTER COLUMN id FIRST")
    with pytest.raises(AnalysisException, match="Alter primary key is not supported"):
        spark.sql(f"ALTER TABLE {db}.b SET TBLPROPERTIES ('primary-key' = 's')")
    assert Catalog(spark_warehouse).get_table(f"{db}.b").schema == before


def test_unknown_tables_are_sparks_not_found_errors(spark: Any, db: str) -> None:
    from pyspark.errors import AnalysisException

    for stmt in (f"SELECT * FROM {db}.nope", "SELECT * FROM nodb_x2.nope", f"INSERT INTO {db}.nope VALUES (1)",
                 f"DESCRIBE TABLE {db}.nope", f"ALTER TABLE {db}.nope ADD COLUMNS (x INT)"):
        with pytest.raises(AnalysisException) as e:
            spark.sql(stmt)
        assert _condition(e.value) == "TABLE_OR_VIEW_NOT_FOUND", stmt
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"DROP TABLE {db}.nope")
    assert _condition(e.value) == "TABLE_OR_VIEW_NOT_FOUND"
    spark.sql(f"DROP TABLE IF EXISTS {db}.nope")


def test_drop_table(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.d (id INT)")
    spark.sql(f"INSERT INTO {db}.d VALUES (1)")
    spark.sql(f"DROP TABLE {db}.d")
    assert sql(f"SHOW TABLES IN {db}") == []
    assert not os.path.exists(os.path.join(spark_warehouse, f"{db}.db", "d"))


def test_column_comments_and_char_varchar_lengths_are_kept(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(
        f"CREATE TABLE {db}.c (id BIGINT COMMENT 'the key', code CHAR(5), name VARCHAR(20) COMMENT 'who', "
        "note STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='1')"
    )
    table = Catalog(spark_warehouse).get_table(f"{db}.c")
    fields = {f.name: f for f in table.schema.fields}
    assert fields["id"].description == "the key" and fields["name"].description == "who"
    assert fields["note"].description is None
    assert fields["code"].type.to_string() == "CHAR(5)"
    assert fields["name"].type.to_string() == "VARCHAR(20)"
    assert fields["note"].type.to_string() == "STRING"
    desc = sql(f"DESCRIBE TABLE {db}.c")
    assert desc[:4] == [("id", "bigint", "the key"), ("code", "char(5)", None),
                        ("name", "varchar(20)", "who"), ("note", "string", None)]

    spark.sql(f"ALTER TABLE {db}.c ALTER COLUMN note COMMENT 'free text'")
    spark.sql(f"ALTER TABLE {db}.c ADD COLUMNS (extra INT COMMENT 'added', tag VARCHAR(3))")
    fields = {f.name: f for f in Catalog(spark_warehouse).get_table(f"{db}.c").schema.fields}
    assert fields["note"].description == "free text" and fields["extra"].description == "added"
    assert fields["tag"].type.to_string() == "VARCHAR(3)"
    assert ("note", "string", "free text") in sql(f"DESCRIBE TABLE {db}.c")

    spark.sql(f"INSERT INTO {db}.c VALUES (1, 'ab', 'x', 'n', 7, 'abc')")
    # Spark pads CHAR values to their length and checks VARCHAR lengths on write
    assert sql(f"SELECT code, name, tag FROM {db}.c") == [("ab   ", "x", "abc")]
    with pytest.raises(Exception, match="(?i)length|exceeds"):
        spark.sql(f"INSERT INTO {db}.c VALUES (2, 'ab', 'x', 'n', 7, 'abcd')")
    assert sql(f"SELECT count(*) FROM {db}.c") == [(1,)]
