"""Statements from Apache Paimon's own Spark tests that used to return wrong answers here: REPLACE
TABLE of a partitioned table read by its own query, bare table names in procedures after USE,
dynamic options (``SET spark.paimon.*``), Spark connector options we do not implement, SET
LOCATION, static overwrite of a FLOAT partition."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark




def _fails(spark: Any, statement: str, match: str) -> None:
    with pytest.raises(Exception, match=match):
        spark.sql(statement).collect()


def test_replace_table_in_place_and_ctas(spark: Any, sql: Any, db: str) -> None:
    """REPLACE TABLE replaces in place as Paimon 2.x (tests/spark/test_spark_replace_table.py has
    the cases); CTAS and CREATE OR REPLACE of a new table work; a failed CTAS leaves no table."""
    spark.sql(f"CREATE TABLE {db}.q (id INT, dt STRING) PARTITIONED BY (dt)")
    spark.sql(f"INSERT INTO {db}.q VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    _fails(spark, f"REPLACE TABLE {db}.q AS SELECT * FROM {db}.q WHERE dt = 'a'", "Cannot replace table")
    assert sql(f"SELECT * FROM {db}.q ORDER BY id") == [(1, "a"), (2, "b"), (3, "c")]
    assert sql(f"SELECT snapshot_id FROM {db}.`q$snapshots`") == [(1,)]
    _fails(spark, f"REPLACE TABLE {db}.missing (id INT)", "cannot be found")
    spark.sql(f"CREATE TABLE {db}.c AS SELECT * FROM {db}.q WHERE id > 1")
    assert sql(f"SELECT * FROM {db}.c ORDER BY id") == [(2, "b"), (3, "c")]
    spark.sql(f"CREATE OR REPLACE TABLE {db}.n AS SELECT 5 AS x")
    assert sql(f"SELECT * FROM {db}.n") == [(5,)]
    _fails(spark, f"CREATE TABLE {db}.bad AS SELECT id, CASE WHEN id = 2 THEN raise_error('boom') "
                  "ELSE 'x' END AS s FROM range(3)", "boom")
    assert ("bad",) not in [(r[1],) for r in sql(f"SHOW TABLES IN {db}")]


def test_bare_table_names_in_procedures_use_the_current_database(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.T (id INT)")
    spark.sql(f"INSERT INTO {db}.T VALUES 10")
    spark.sql(f"INSERT INTO {db}.T VALUES 11")
    spark.sql(f"USE {db}")
    try:
        assert sql("CALL sys.create_tag(table => 'T', tag => 't1', snapshot => 1)") == [(True,)]
        sql("CALL sys.rollback(table => 'T', version => '1')")
    finally:
        spark.sql("USE paimon.default")
    assert sql(f"SELECT tag_name FROM {db}.`T$tags`") == [("t1",)]
    assert sql(f"SELECT * FROM {db}.T") == [(10,)]


def test_dynamic_options(spark: Any, sql: Any, db: str, conf: Any) -> None:
    spark.sql(f"CREATE TABLE {db}.T (id INT)")
    spark.sql(f"INSERT INTO {db}.T VALUES 1")
    spark.sql(f"INSERT INTO {db}.T VALUES 2")
    spark.sql("SET `spark.paimon.scan.snapshot-id` = 1")  # the SQL form (Spark needs the quotes)
    conf("spark.paimon.scan.snapshot-id", "1")
    assert sql(f"SELECT * FROM {db}.T ORDER BY id") == [(1,)]
    conf(f"spark.paimon.*.{db}.T.scan.snapshot-id", "2")  # per table wins over global
    assert sql(f"SELECT * FROM {db}.T ORDER BY id") == [(1,), (2,)]
    spark.conf.unset(f"spark.paimon.*.{db}.T.scan.snapshot-id")
    spark.conf.unset("spark.paimon.scan.snapshot-id")
    conf(f"spark.paimon.paimon.{db}.T.scan.snapshot-id", "1")  # catalog, database and table named
    assert sql(f"SELECT * FROM {db}.T ORDER BY id") == [(1,)]
    assert sql(f"SELECT * FROM {db}.`T$snapshots`") != []
    # a per-query option wins over the session's
    got = spark.read.format("paimon_sql").option("warehouse", spark.conf.get("spark.sql.catalog.paimon.warehouse")) \
        .option("table", f"{db}.T").option("scan.snapshot-id", "2").load().collect()
    assert sorted(r[0] for r in got) == [1, 2]


@pytest.mark.parametrize("key,value,match", [
    ("spark.paimon.bucket", "-1", r"Cannot change bucket to -1\."),
    ("spark.paimon.merge-engine", "first-row", r"Change 'merge-engine' is not supported yet\."),
    ("spark.paimon.tag.create-success-file", "true", "'tag.create-success-file'.*not supported"),
    ("spark.paimon.write-buffer-size", "0", "write-buffer-size"),
])
def test_dynamic_options_that_cannot_apply_are_refused(spark: Any, db: str, conf: Any, key: str, value: str,
                                                       match: str) -> None:
    spark.sql(f"CREATE TABLE {db}.T (id INT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {db}.T VALUES 1")
    conf(key, value)
    _fails(spark, f"SELECT * FROM {db}.T", match)
    _fails(spark, f"INSERT INTO {db}.T VALUES 2", match)


def test_set_location_is_refused(spark: Any, db: str, spark_warehouse: str) -> None:
    from paimon_sql import Catalog

    spark.sql(f"CREATE TABLE {db}.t (id INT)")
    _fails(spark, f"ALTER TABLE {db}.t SET LOCATION '/tmp/elsewhere'", "cannot set 'location'")
    t = Catalog(spark_warehouse).get_table(f"{db}.t")
    assert "location" not in t.options and t.snapshot_ids() == []  # type: ignore[union-attr]
    assert len(t.store.schemas.schema_ids()) == 1  # type: ignore[union-attr]


@pytest.mark.parametrize("typ,literal,stored", [("FLOAT", "12.3", 12.300000190734863), ("DOUBLE", "12.3", 12.3),
                                                ("DECIMAL(4,2)", "1.5", None)])
def test_static_overwrite_of_a_floating_partition(spark: Any, sql: Any, db: str, typ: str, literal: str,
                                                 stored: Any) -> None:
    spark.sql(f"CREATE TABLE {db}.f (id INT, pt {typ}) PARTITIONED BY (pt)")
    spark.sql(f"INSERT INTO {db}.f VALUES (1, {literal}), (2, 99)")
    spark.sql(f"INSERT OVERWRITE {db}.f PARTITION (pt = {literal}) VALUES (3)")
    rows = sql(f"SELECT id FROM {db}.f ORDER BY id")
    assert rows == [(2,), (3,)]
    paths = [r[0] for r in sql(f"SELECT partition FROM {db}.`f$partitions`")]
    assert any(literal in p for p in paths), paths
