"""CREATE TABLE ... LIKE as Paimon's Spark integration answers it (DDLTestBase "Paimon DDL: create
table like ..."): the source's columns, partitioning, primary key, options and comment (its
location not), the statement's TBLPROPERTIES winning; from a branch (its schema); IF NOT EXISTS
keeps an existing table; STORED AS refused; no data copied."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


def _props(sql: Any, t: str) -> dict[str, str]:
    return {str(k): str(v) for k, v in sql(f"SHOW TBLPROPERTIES {t}")}


def _extended(sql: Any, t: str) -> dict[str, str]:
    return {str(r[0]): str(r[1]) for r in sql(f"DESCRIBE TABLE EXTENDED {t}")}


def _source(sql: Any, db: str) -> str:
    s = f"{db}.source_tbl"
    sql(f"CREATE TABLE {s} (id INT, name STRING COMMENT 'name column', pt STRING) COMMENT 'source comment' "
        "PARTITIONED BY (pt) TBLPROPERTIES ('primary-key' = 'id,pt', 'bucket' = '5', 'target-file-size' = '128MB')")
    sql(f"INSERT INTO {s} VALUES (1, 'a', 'p1')")
    return s


def test_create_table_like(spark: Any, sql: Any, db: str) -> None:
    s, t = _source(sql, db), f"{db}.target_tbl"
    sql(f"CREATE TABLE {t} LIKE {s} TBLPROPERTIES ('bucket' = '8')")
    assert spark.table(s).schema == spark.table(t).schema
    ext = _extended(sql, t)
    assert ext["Comment"] == "source comment"
    assert ext["Location"] != _extended(sql, s)["Location"]
    props = _props(sql, t)
    assert props["primary-key"] == "id,pt"
    assert props["bucket"] == "8" and props["target-file-size"] == "128MB"
    assert "PARTITIONED BY (pt)" in sql(f"SHOW CREATE TABLE {t}")[0][0]
    assert sql(f"SELECT * FROM {t}") == []  # no data
    sql(f"INSERT INTO {t} VALUES (2, 'b', 'p2')")
    assert sql(f"SELECT * FROM {t}") == [(2, "b", "p2")]


def test_create_table_like_from_a_branch(spark: Any, sql: Any, db: str) -> None:
    s, t = _source(sql, db), f"{db}.target_tbl"
    assert sql(f"CALL paimon.sys.create_branch(table => '{s}', branch => 'test_branch')") == [(True,)]
    sql(f"ALTER TABLE {db}.`source_tbl$branch_test_branch` ADD COLUMNS (extra STRING)")
    sql(f"CREATE TABLE {t} LIKE {db}.`source_tbl$branch_test_branch`")
    assert "extra" not in spark.table(s).schema.fieldNames()
    assert "extra" in spark.table(t).schema.fieldNames()
    assert spark.sql(f"SELECT * FROM {db}.`source_tbl$branch_test_branch`").schema == spark.table(t).schema
    assert _extended(sql, t)["Comment"] == "source comment"
    props = _props(sql, t)
    assert props["primary-key"] == "id,pt" and props["bucket"] == "5"


def test_create_table_like_if_not_exists_keeps_the_table(spark: Any, sql: Any, db: str) -> None:
    s, t = _source(sql, db), f"{db}.target_tbl"
    sql(f"CREATE TABLE {t} (id BIGINT, pt STRING) COMMENT 'target comment' PARTITIONED BY (pt) "
        "TBLPROPERTIES ('primary-key' = 'id,pt', 'bucket' = '3')")
    schema = spark.table(t).schema
    location = _extended(sql, t)["Location"]
    sql(f"CREATE TABLE IF NOT EXISTS {t} LIKE {s}")
    assert spark.table(t).schema == schema
    assert "name" not in spark.table(t).schema.fieldNames()
    assert _extended(sql, t)["Comment"] == "target comment"
    assert _props(sql, t)["bucket"] == "3"
    assert _extended(sql, t)["Location"] == location


def test_create_table_like_an_existing_table_fails(spark: Any, sql: Any, db: str) -> None:
    from pyspark.errors import AnalysisException

    s = _source(sql, db)
    sql(f"CREATE TABLE {db}.other (id INT)")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_ALREADY_EXISTS|already exists"):
        spark.sql(f"CREATE TABLE {db}.other LIKE {s}")


def test_create_table_like_stored_as_is_refused(spark: Any, sql: Any, db: str) -> None:
    sql(f"CREATE TABLE {db}.source_tbl (id INT)")
    with pytest.raises(Exception) as e:
        spark.sql(f"CREATE TABLE {db}.target_tbl LIKE {db}.source_tbl STORED AS PARQUET")
    assert "CREATE TABLE LIKE ... STORED AS is not supported for SparkCatalog." in str(e.value)
    assert [r[1] for r in sql(f"SHOW TABLES IN {db}")] == ["source_tbl"]


def test_create_table_like_keeps_char_and_varchar(sql: Any, db: str) -> None:
    sql(f"CREATE TABLE {db}.s (a CHAR(3), b VARCHAR(5), c STRING)")
    sql(f"CREATE TABLE {db}.t LIKE {db}.s")
    assert [(r[0], r[1]) for r in sql(f"DESCRIBE {db}.t")] == [("a", "char(3)"), ("b", "varchar(5)"), ("c", "string")]
