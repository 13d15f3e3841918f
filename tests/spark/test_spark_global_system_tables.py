"""Paimon's global system tables through Spark SQL: ``SELECT * FROM sys.tables`` (and
``paimon.sys.tables`` from another catalog), ``SHOW TABLES IN sys``, and the statements Paimon
refuses on the system database ``sys`` (CREATE/DROP DATABASE sys, CREATE/DROP/ALTER TABLE and
INSERT on its tables)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from paimon_sql import Catalog
from paimon_sql.spark import CATALOG_CLASS

pytestmark = pytest.mark.spark

# Spark's view of Paimon's columns (all nullable but catalog_options' key and value)
SPARK_COLUMNS = {
    "tables": [
        ("database_name", "string"), ("table_name", "string"), ("table_type", "string"),
        ("partitioned", "boolean"), ("primary_key", "boolean"), ("owner", "string"), ("created_at", "bigint"),
        ("created_by", "string"), ("updated_at", "bigint"), ("updated_by", "string"), ("record_count", "bigint"),
        ("file_size_in_bytes", "bigint"), ("file_count", "bigint"), ("last_file_creation_time", "bigint"),
    ],
    "partitions": [
        ("database_name", "string"), ("table_name", "string"), ("partition_name", "string"),
        ("record_count", "bigint"), ("file_size_in_bytes", "bigint"), ("file_count", "bigint"),
        ("last_file_creation_time", "bigint"), ("done", "boolean"),
    ],
    "all_table_options": [
        ("database_name", "string"), ("table_name", "string"), ("key", "string"), ("value", "string"),
    ],
}


@pytest.fixture()
def two_dbs(spark: Any, db: str) -> Iterator[tuple[str, str]]:
    """``db`` with a partitioned primary-key table and an append table, and a second database with
    one table; three partitions in all."""
    db2 = "t_" + uuid.uuid4().hex[:10]
    spark.sql(f"CREATE NAMESPACE paimon.{db2}")
    spark.sql(
        f"CREATE TABLE {db}.pk (id BIGINT, dt STRING, v STRING) PARTITIONED BY (dt) "
        "TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '2', 'createdBy' = 'alice', 'createdAt' = '1700000000000')"
    )
    spark.sql(f"INSERT INTO {db}.pk VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'a', 'z')")
    spark.sql(f"CREATE TABLE {db}.app (id INT, s STRING)")
    spark.sql(f"INSERT INTO {db}.app VALUES (1, 'p')")
    spark.sql(f"CREATE TABLE {db2}.ev (id INT, day DATE) PARTITIONED BY (day) TBLPROPERTIES ('file.format' = 'orc')")
    spark.sql(f"INSERT INTO {db2}.ev VALUES (1, DATE '2024-01-02')")
    try:
        yield db, db2
    finally:
        spark.sql(f"DROP NAMESPACE IF EXISTS paimon.{db2} CASCADE")


@pytest.fixture()
def in_spark_catalog(spark: Any) -> Iterator[None]:
    spark.sql("USE spark_catalog.default")
    try:
        yield
    finally:
        spark.sql("USE paimon.default")


def _engine_rows(wh: str, name: str, dbs: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """The rows the engine gives for ``sys.<name>`` in these databases, in its (Paimon's) order."""
    cat = Catalog(wh)
    rows = cat.get_table(f"sys.{name}").read().to_pylist()
    return [tuple(r.values()) for r in rows if r["database_name"] in dbs]


def test_show_tables_in_sys_lists_the_global_tables(sql: Any) -> None:
    # PaimonSystemTableTest: SHOW TABLES IN sys = SystemTableLoader.loadGlobalTableNames()
    assert sql("SHOW TABLES IN sys") == [
        ("sys", "tables", False), ("sys", "partitions", False), ("sys", "all_table_options", False),
    ]
    assert "sys" not in [r[0] for r in sql("SHOW DATABASES")]
    assert sql("SHOW NAMESPACES LIKE 'sys'") == []


def test_use_sys(spark: Any, sql: Any) -> None:
    spark.sql("USE sys")
    try:
        assert [r[1] for r in sql("SHOW TABLES")] == ["tables", "partitions", "all_table_options"]
        assert sql("SELECT count(*) FROM tables WHERE table_name = 'no_such_table'") == [(0,)]
    finally:
        spark.sql("USE paimon.default")


@pytest.mark.parametrize("name", sorted(SPARK_COLUMNS))
def test_columns(spark: Any, name: str) -> None:
    schema = spark.table(f"sys.{name}").schema
    assert [(f.name, f.dataType.simpleString()) for f in schema.fields] == SPARK_COLUMNS[name]
    assert all(f.nullable for f in schema.fields)


def test_sys_tables(sql: Any, two_dbs: tuple[str, str], spark_warehouse: str) -> None:
    db, db2 = two_dbs
    rows = sql(f"SELECT * FROM sys.tables WHERE database_name IN ('{db}', '{db2}')")
    assert rows == _engine_rows(spark_warehouse, "tables", (db, db2))
    none = (None,) * 4
    assert sorted(rows) == sorted([
        (db, "app", "table", False, False, None, None, None, None, None, *none),
        (db, "pk", "table", True, True, None, 1700000000000, "alice", None, None, *none),
        (db2, "ev", "table", True, False, None, None, None, None, None, *none),
    ])
    assert sql(f"SELECT table_name FROM paimon.sys.tables WHERE database_name = '{db}' AND primary_key") == [("pk",)]


def test_sys_partitions(sql: Any, two_dbs: tuple[str, str], spark_warehouse: str) -> None:
    db, db2 = two_dbs
    rows = sql(f"SELECT * FROM sys.partitions WHERE database_name IN ('{db}', '{db2}')")
    assert rows == _engine_rows(spark_warehouse, "partitions", (db, db2))
    got = sorted((r[1], r[2], r[3], r[7]) for r in rows)
    assert got == [("ev", "day=19724", 1, False), ("pk", "dt=a", 2, False), ("pk", "dt=b", 1, False)]
    per_table = {r[0]: r for r in sql(f"SELECT partition, record_count, file_size_in_bytes, file_count FROM {db}.`pk$partitions`")}
    for r in rows:
        if r[1] == "pk":
            assert (r[3], r[4], r[5]) == per_table[r[2]][1:]


def test_sys_all_table_options(sql: Any, two_dbs: tuple[str, str], spark_warehouse: str) -> None:
    db, db2 = two_dbs
    rows = sql(f"SELECT * FROM sys.all_table_options WHERE database_name IN ('{db}', '{db2}')")
    assert rows == _engine_rows(spark_warehouse, "all_table_options", (db, db2))
    pk = {r[2]: r[3] for r in rows if r[1] == "pk"}
    assert pk == {"bucket": "2", "createdBy": "alice", "createdAt": "1700000000000",
                  "path": f"{spark_warehouse}/{db}.db/pk"}
    assert (db2, "ev", "file.format", "orc") in rows


def test_from_another_catalog(sql: Any, two_dbs: tuple[str, str], in_spark_catalog: None) -> None:
    db, _ = two_dbs
    assert sql(f"SELECT table_name FROM paimon.sys.tables WHERE database_name = '{db}' ORDER BY table_name") == [
        ("app",), ("pk",),
    ]
    assert sql(f"SELECT count(*) FROM paimon.sys.partitions WHERE database_name = '{db}'") == [(2,)]


def test_catalog_options(spark: Any, sql: Any, spark_warehouse: str) -> None:
    # Paimon has sys.catalog_options only with catalog-options-table.enabled
    with pytest.raises(Exception, match="TABLE_OR_VIEW_NOT_FOUND"):
        sql("SELECT * FROM sys.catalog_options")
    name = "paimon_opts_" + uuid.uuid4().hex[:6]
    spark.conf.set(f"spark.sql.catalog.{name}", CATALOG_CLASS)
    spark.conf.set(f"spark.sql.catalog.{name}.warehouse", spark_warehouse)
    spark.conf.set(f"spark.sql.catalog.{name}.catalog-options-table.enabled", "true")
    assert [r[1] for r in sql(f"SHOW TABLES IN {name}.sys")] == [
        "tables", "partitions", "all_table_options", "catalog_options",
    ]
    rows = sql(f"SELECT * FROM {name}.sys.catalog_options")
    assert dict(rows) == {"warehouse": spark_warehouse, "catalog-options-table.enabled": "true"}
    assert sql(f"SELECT value FROM {name}.sys.catalog_options WHERE key = 'warehouse'") == [(spark_warehouse,)]
    schema = spark.table(f"{name}.sys.catalog_options").schema
    assert [(f.name, f.dataType.simpleString(), f.nullable) for f in schema.fields] == [
        ("key", "string", False), ("value", "string", False),
    ]


def test_data_source_reads_sys_tables(spark: Any, two_dbs: tuple[str, str], spark_warehouse: str) -> None:
    db, _ = two_dbs
    df = spark.read.format("paimon_sql").option("warehouse", spark_warehouse).option("table", "sys.tables").load()
    assert sorted(r.table_name for r in df.where(f"database_name = '{db}'").collect()) == ["app", "pk"]
    with pytest.raises(Exception, match=r"Cannot write into system table sys\.tables"):
        df.limit(0).write.format("paimon_sql").option("warehouse", spark_warehouse).option(
            "table", "sys.tables").mode("append").save()


# -- what Paimon refuses on the system database -------------------------------------------------


def test_sys_tables_are_read_only(sql: Any, db: str) -> None:
    with pytest.raises(Exception, match=r"`sys`\.`tables` does not support append"):
        sql("INSERT INTO sys.tables SELECT * FROM sys.tables")
    with pytest.raises(Exception, match=r"System table sys\.tables cannot be dropped"):
        sql("DROP TABLE sys.tables")
    with pytest.raises(Exception, match=r"System table sys\.partitions cannot be altered"):
        sql("ALTER TABLE sys.partitions SET TBLPROPERTIES ('a' = 'b')")
    with pytest.raises(Exception, match=r"Cannot rename table sys\.tables to"):
        sql(f"ALTER TABLE sys.tables RENAME TO {db}.x")
    with pytest.raises(Exception, match="System table sys.tables has no time travel"):
        sql("SELECT * FROM sys.tables VERSION AS OF 1")
    with pytest.raises(Exception, match="TABLE_OR_VIEW_NOT_FOUND"):
        sql("SELECT * FROM sys.no_such_table")
    assert [r[1] for r in sql("SHOW TABLES IN sys")] == ["tables", "partitions", "all_table_options"]


def test_sys_holds_no_user_tables(sql: Any, db: str) -> None:
    with pytest.raises(Exception, match=r"Cannot create table sys\.x: 'sys' is the system database"):
        sql("CREATE TABLE sys.x (id INT)")
    with pytest.raises(Exception, match=r"Cannot create table sys\.y"):
        sql("CREATE TABLE sys.y AS SELECT 1 AS id")
    sql(f"CREATE TABLE {db}.t (id INT)")
    with pytest.raises(Exception, match=rf"Cannot rename table {db}\.t to sys\.t"):
        sql(f"ALTER TABLE {db}.t RENAME TO sys.t")
    with pytest.raises(Exception, match="TABLE_OR_VIEW_ALREADY_EXISTS"):
        sql("CREATE TABLE sys.tables (id INT)")


def test_sys_cannot_be_created_or_dropped(sql: Any, spark_warehouse: str) -> None:
    with pytest.raises(Exception, match="Cannot create database sys: 'sys' is the system database"):
        sql("CREATE DATABASE sys")
    sql("CREATE DATABASE IF NOT EXISTS sys")  # it exists (Paimon's getDatabase("sys")): nothing to do
    for stmt in ("DROP DATABASE sys", "DROP DATABASE sys CASCADE", "DROP DATABASE IF EXISTS sys"):
        with pytest.raises(Exception, match="Cannot drop database sys"):
            sql(stmt)
    assert not Catalog(spark_warehouse).file_io.exists(f"{spark_warehouse}/sys.db")
    assert [r[1] for r in sql("SHOW TABLES IN sys")] == ["tables", "partitions", "all_table_options"]


def test_procedures_in_sys_keep_working(sql: Any, db: str) -> None:
    sql(f"CREATE TABLE {db}.t (id INT)")
    sql(f"INSERT INTO {db}.t VALUES (1)")
    assert sql(f"CALL sys.create_tag(table => '{db}.t', tag => 'one')") == [(True,)]
    assert sql(f"CALL paimon.sys.delete_tag(table => '{db}.t', tag => 'one')") == [(True,)]
    with pytest.raises(Exception, match="must name a table, not the system table sys.tables"):
        sql("CALL sys.create_tag(table => 'sys.tables', tag => 'x')")
