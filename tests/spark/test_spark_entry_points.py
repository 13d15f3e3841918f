"""What a user meets first, through a real SparkSession: names given with the catalog name
(``paimon.db.t``), tables read and written by path (``format("paimon")``), NULL key values, and
the time columns of system tables in a non-UTC session. Statements and expected answers are
those of Paimon's Spark tests (PaimonSparkTestBase, DDLTestBase, AnalyzeTableTestBase,
DataFrameWriteTestBase) where they have one."""

from __future__ import annotations

import contextlib
import datetime
import uuid
import zoneinfo
from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.spark


@pytest.fixture()
def in_paimon_db(spark: Any) -> Iterator[str]:
    """PaimonSparkTestBase's set-up: ``USE paimon``, ``CREATE DATABASE IF NOT EXISTS paimon.<db>``,
    ``USE paimon.<db>``; afterwards ``DROP DATABASE paimon.<db> CASCADE`` and back to
    ``paimon.default``."""
    name = "test_" + uuid.uuid4().hex[:8]
    spark.sql("USE paimon")
    spark.sql(f"CREATE DATABASE IF NOT EXISTS paimon.{name}")
    spark.sql(f"USE paimon.{name}")
    try:
        yield name
    finally:
        spark.sql("USE paimon")
        spark.sql("USE default")
        spark.sql(f"DROP DATABASE paimon.{name} CASCADE")


def test_names_with_the_catalog_name(spark: Any, sql: Any, in_paimon_db: str) -> None:
    db = in_paimon_db
    assert sql("SELECT current_catalog(), current_database()") == [("paimon", db)]
    spark.sql("DROP TABLE IF EXISTS T")
    spark.sql(f"CREATE TABLE paimon.{db}.T (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id')")
    spark.sql(f"INSERT INTO paimon.{db}.T VALUES (1, 'a'), (2, 'b')")
    assert sql(f"SELECT * FROM paimon.{db}.T ORDER BY id") == [(1, "a"), (2, "b")]
    assert sql("SELECT * FROM T WHERE id = 2") == [(2, "b")]
    assert sql(f"SHOW TABLES IN paimon.{db} LIKE 'T'") == [(db, "T", False)]
    spark.sql(f"CALL paimon.sys.create_tag(table => '{db}.T', tag => 'tag1')")
    assert sql(f"SELECT tag_name FROM paimon.{db}.`T$tags`") == [("tag1",)]
    assert sql(f"SELECT count(*) FROM paimon.{db}.`T$snapshots`") == [(1,)]
    # INSERT through a DataFrame into the catalog-qualified name
    spark.createDataFrame([(3, "c")], "id INT, v STRING").writeTo(f"paimon.{db}.T").append()
    assert sql(f"SELECT count(*) FROM paimon.{db}.T") == [(3,)]


def test_rename_table_with_catalog_name(spark: Any, sql: Any) -> None:
    """DDLTestBase "Paimon DDL: rename table with catalog name"."""
    from pyspark.errors import AnalysisException

    spark.sql("USE default")
    t1, t2 = "t1_" + uuid.uuid4().hex[:6], "t2_" + uuid.uuid4().hex[:6]
    try:
        spark.sql(f"CREATE TABLE {t1} (id INT) USING paimon")
        spark.sql(f"INSERT INTO {t1} VALUES 1")
        spark.sql(f"ALTER TABLE paimon.default.{t1} RENAME TO paimon.default.{t2}")
        assert sql(f"SELECT * FROM {t2}") == [(1,)]
        with pytest.raises(AnalysisException) as e:
            spark.sql(f"ALTER TABLE paimon.default.{t2} RENAME TO spark_catalog.default.{t2}")
        assert "Only supports operations within the same catalog" in str(e.value)
        assert sql(f"SELECT * FROM paimon.default.{t2}") == [(1,)]  # the refused rename changed nothing
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {t1}")
        spark.sql(f"DROP TABLE IF EXISTS {t2}")


def test_namespaces_of_more_than_one_level_are_refused_as_paimon_refuses_them(spark: Any) -> None:
    """AnalyzeTableTestBase "Query a non-existent catalog" / "Query a table with multiple
    namespaces": the current catalog is paimon, so ``paimon1.default`` is a two-level namespace."""
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT * FROM paimon1.default.t")
    assert "Current catalog is paimon, catalog paimon1 does not exist" in str(e.value)
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT * FROM paimon.x.default.t")
    assert "Paimon only support single namespace" in str(e.value)
    with pytest.raises(AnalysisException) as e:
        spark.sql("SHOW TABLES IN paimon.x.y")
    assert "Paimon only support single namespace" in str(e.value)


@contextlib.contextmanager
def _time_zone(spark: Any, zone: str) -> Iterator[None]:
    """PaimonSparkTestBase.withTimeZone: the session's time zone and the JVM's default zone."""
    jtz = spark._jvm.java.util.TimeZone
    old_default = jtz.getDefault()
    old_conf = spark.conf.get("spark.sql.session.timeZone")
    jtz.setDefault(jtz.getTimeZone(zone))
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        yield
    finally:
        jtz.setDefault(old_default)
        spark.conf.set("spark.sql.session.timeZone", old_conf)


def _wall_clock(epoch_ms: int, zone: str) -> datetime.datetime:
    return (datetime.datetime.fromtimestamp(epoch_ms / 1000, zoneinfo.ZoneInfo(zone))
            .replace(tzinfo=None))


@pytest.mark.parametrize("zone", ["Asia/Shanghai", "America/Los_Angeles"])
def test_commit_time_pasted_into_timestamp_as_of_finds_the_snapshot(
    spark: Any, sql: Any, db: str, spark_warehouse: str, zone: str
) -> None:
    from paimon_sql import Catalog

    spark.sql(f"CREATE TABLE {db}.t (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id')")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 'a')")
    spark.sql(f"INSERT INTO {db}.t VALUES (2, 'b')")
    spark.sql(f"CALL paimon.sys.create_tag(table => '{db}.t', tag => 'tag1', snapshot => 1)")
    spark.sql(f"CALL paimon.sys.create_branch(table => '{db}.t', branch => 'b1')")
    table = Catalog(spark_warehouse).get_table(f"{db}.t")
    sm = table.store.snapshots
    millis = {i: sm.snapshot(i).time_millis for i in sm.snapshot_ids()}
    latest_schema = table.store.schemas.latest()
    assert latest_schema is not None
    schema_ms = latest_schema.time_millis
    with _time_zone(spark, zone):
        rows = sql(f"SELECT snapshot_id, commit_time, CAST(commit_time AS STRING) FROM {db}.`t$snapshots`")
        assert [(r[0], r[1]) for r in rows] == [(i, _wall_clock(ms, zone)) for i, ms in sorted(millis.items())]
        first = rows[0][2]
        assert sql(f"SELECT * FROM {db}.t TIMESTAMP AS OF '{first}' ORDER BY id") == [(1, "a")]
        assert sql(f"SELECT * FROM {db}.t TIMESTAMP AS OF '{rows[1][2]}' ORDER BY id") == [(1, "a"), (2, "b")]
        assert sql(f"SELECT commit_time FROM {db}.`t$tags`") == [(_wall_clock(millis[1], zone),)]
        assert sql(f"SELECT update_time FROM {db}.`t$schemas`") == [(_wall_clock(schema_ms, zone),)]
        (created,) = sql(f"SELECT create_time FROM {db}.`t$branches`")[0]
        assert abs((created - datetime.datetime.now(zoneinfo.ZoneInfo(zone)).replace(tzinfo=None))
                   .total_seconds()) < 600
    # a UTC session (and JVM) shows the same instants at the UTC wall clock
    assert sql(f"SELECT commit_time FROM {db}.`t$snapshots` WHERE snapshot_id = 1") == [
        (_wall_clock(millis[1], "UTC"),)]
