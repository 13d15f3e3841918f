"""What a user meets first, through a real SparkSession: names given with the catalog name
(``paimon.db.t``), tables read and written by path (``format("paimon")``), NULL key values, and
the time columns of system tables in a non-UTC session. Statements and expected answers are
those of Paimon's Spark tests (PaimonSparkTestBase, DDLTestBase, AnalyzeTableTestBase,
DataFrameWriteTestBase) where they have one."""

from __future__ import annotations

import datetime
import os
import time
import uuid
import zoneinfo
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.spark_zone import time_zone as _time_zone

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


NON_NULLABLE = "value appeared in non-nullable field"  # what Paimon's tests look for


def test_null_in_a_primary_key_column_names_the_table_and_column(spark: Any, sql: Any, db: str) -> None:
    """DDLTestBase "Paimon DDL: create primary-key table with not null": Spark's check, with a
    message naming the table and the key columns instead of Spark's advice about Scala tuples."""
    from pyspark.errors import PySparkException

    spark.sql(f"CREATE TABLE {db}.T (id INT, name STRING, pt STRING) TBLPROPERTIES ('primary-key' = 'id,pt')")
    for stmt, column in ((f"INSERT INTO {db}.T VALUES (1, 'a', 'pt1'), (2, 'b', null)", "pt"),
                         (f"INSERT INTO {db}.T VALUES (1, 'a', 'pt1'), (null, 'b', 'pt2')", "id"),
                         (f"INSERT INTO {db}.T SELECT * FROM VALUES (CAST(NULL AS INT), 'x', 'p')", "id")):
        with pytest.raises(PySparkException) as e:
            spark.sql(stmt).collect()
        msg = str(e.value)
        assert NON_NULLABLE in msg and "Scala" not in msg, msg
        assert f"field: {column} (table paimon.`{db}`.`T`: primary-key columns [id, pt] are NOT NULL)" in msg
    with pytest.raises(PySparkException) as e:  # a DataFrame write
        spark.createDataFrame([(None, "z", "p")], "id INT, name STRING, pt STRING").writeTo(f"{db}.T").append()
    assert "field: id (table" in str(e.value)
    assert sql(f"SELECT count(*) FROM {db}.`T$snapshots`") == [(0,)]  # nothing committed
    spark.sql(f"INSERT INTO {db}.T VALUES (1, 'a', 'pt1'), (2, 'b', 'pt1'), (3, null, 'pt2')")
    assert sql(f"SELECT * FROM {db}.T ORDER BY id") == [(1, "a", "pt1"), (2, "b", "pt1"), (3, None, "pt2")]
    schema = spark.table(f"{db}.T").schema
    assert not schema["id"].nullable and not schema["pt"].nullable and schema["name"].nullable


def test_null_in_a_not_null_column(spark: Any, sql: Any, db: str) -> None:
    """DDLTestBase "Paimon DDL: create append table with not null"."""
    from pyspark.errors import PySparkException

    spark.sql(f"CREATE TABLE {db}.T (id INT NOT NULL, name STRING)")
    with pytest.raises(PySparkException) as e:
        spark.sql(f"INSERT INTO {db}.T VALUES (1, 'a'), (2, 'b'), (null, 'c')").collect()
    assert NON_NULLABLE in str(e.value)
    assert f"field: id (table paimon.`{db}`.`T`: column id is NOT NULL)" in str(e.value)
    spark.sql(f"INSERT INTO {db}.T VALUES (1, 'a'), (2, 'b'), (3, null)")
    assert sql(f"SELECT * FROM {db}.T ORDER BY id") == [(1, "a"), (2, "b"), (3, None)]
    schema = spark.table(f"{db}.T").schema
    assert not schema["id"].nullable and schema["name"].nullable


def test_python_api_null_key_names_the_table_and_column(tmp_path: Any) -> None:
    import pyarrow as pa

    from paimon_sql import Catalog
    from paimon_sql.errors import ValidationError

    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    t = cat.create_table("db.t", pa.schema([("id", pa.int32()), ("v", pa.string())]), primary_keys=["id"])
    with pytest.raises(ValidationError) as e:
        t.write(pa.table({"id": pa.array([1, None], pa.int32()), "v": ["a", "b"]}))
    assert "db.t" in str(e.value) and "'id'" in str(e.value), str(e.value)
    assert t.latest_snapshot() is None



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


@pytest.mark.parametrize(("has_pk", "bucket"), [(True, 1), (True, -1), (False, 2), (False, -1)])
def test_write_and_read_a_table_by_path(
    spark: Any, sql: Any, db: str, spark_warehouse: str, has_pk: bool, bucket: int
) -> None:
    """DataFrameWriteTestBase "Write data into Paimon directly: has-pk, bucket"."""
    prop = (f"'primary-key'='a', 'bucket' = '{bucket}'" if has_pk
            else f"'bucket-key'='a', 'bucket' = '{bucket}'" if bucket != -1 else "'write-only'='true'")
    spark.sql(f"CREATE TABLE {db}.T (a INT, b STRING) TBLPROPERTIES ({prop})")
    location = os.path.join(spark_warehouse, f"{db}.db", "T")
    spark.createDataFrame([(1, "a"), (2, "b")], "a INT, b STRING").write.format("paimon").mode("append").save(location)
    assert sql(f"SELECT * FROM {db}.T ORDER BY a, b") == [(1, "a"), (2, "b")]
    spark.createDataFrame([(1, "a2"), (3, "c")], "a INT, b STRING").write.format("paimon").mode("append").save(location)
    expected = ([(1, "a2"), (2, "b"), (3, "c")] if has_pk else [(1, "a"), (1, "a2"), (2, "b"), (3, "c")])
    assert sql(f"SELECT * FROM {db}.T ORDER BY a, b") == expected
    df = spark.read.format("paimon").load(location)
    assert sorted(tuple(r) for r in df.collect()) == expected
    spark.createDataFrame([(4, "d"), (5, "e")], "a INT, b STRING").write.format("paimon").mode("overwrite").save(location)
    assert sql(f"SELECT * FROM {db}.T ORDER BY a, b") == [(4, "d"), (5, "e")]
    assert [r[0] for r in sql(f"SELECT commit_kind FROM {db}.`T$snapshots` ORDER BY snapshot_id")][-1] == "OVERWRITE"


def test_read_by_path_with_time_travel_options(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    """SparkTimeTravelWithDataFrameITCase: ``.option("path", ...)`` / ``load(path)`` with
    ``scan.snapshot-id``, ``scan.tag-name`` and ``scan.timestamp-millis``."""
    spark.sql(f"CREATE TABLE {db}.t (a INT, b BIGINT, c STRING) TBLPROPERTIES ('primary-key' = 'a')")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 2, '1'), (5, 6, '3')")
    spark.sql(f"CALL paimon.sys.create_tag(table => '{db}.t', tag => 'first')")
    anchor = int(time.time() * 1000)
    time.sleep(0.05)
    spark.sql(f"INSERT INTO {db}.t VALUES (7, 2, '7'), (8, 4, '8')")
    path = os.path.join(spark_warehouse, f"{db}.db", "t")

    def rows(df: Any) -> list[tuple[Any, ...]]:
        return sorted(tuple(r) for r in df.collect())

    first = [(1, 2, "1"), (5, 6, "3")]
    assert rows(spark.read.format("paimon").option("path", path).option("scan.snapshot-id", 1).load()) == first
    assert rows(spark.read.format("paimon").option("scan.timestamp-millis", anchor).load(path)) == first
    assert rows(spark.read.format("paimon").option("scan.tag-name", "first").load(path)) == first
    assert len(rows(spark.read.format("paimon").load(path))) == 4


def test_path_errors_and_path_safety(spark: Any, db: str, spark_warehouse: str, tmp_path: Any) -> None:
    from pyspark.errors import PySparkException

    spark.sql(f"CREATE TABLE {db}.t (a INT)")
    cases = {
        str(tmp_path / "nowhere"): "must be a table folder <warehouse>/<db>.db/<table>",
        str(tmp_path / "wh" / "x.db" / "t"): "does not exist",
        os.path.join(spark_warehouse, f"{db}.db", "nope"): "does not exist",
        os.path.join(spark_warehouse, f"{db}.db", "t$files"): "names a table folder",
        os.path.join(spark_warehouse, "..", os.path.basename(spark_warehouse), f"{db}.db", "t"): None,
    }
    for path, message in cases.items():
        if message is None:  # a path with '..' in its warehouse part is that warehouse
            assert spark.read.format("paimon").load(path).count() == 0
            continue
        with pytest.raises(PySparkException) as e:
            spark.read.format("paimon").load(path).collect()
        assert message in str(e.value), (path, str(e.value))
    with pytest.raises(PySparkException) as e:
        spark.read.format("paimon").load().collect()
    assert "needs the table's folder" in str(e.value)
    assert not (tmp_path / "wh").exists()  # a failed path read creates nothing

