"""Paimon's SQL tag statements through Spark (the parser extension): SHOW TAGS, ALTER TABLE ...
CREATE [OR REPLACE] / REPLACE / DELETE / RENAME TAG. The first tests are the statements of
Apache Paimon's PaimonTagDdlTestBase with the answers it expects."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from paimon_sql import Catalog

pytestmark = pytest.mark.spark


@pytest.fixture()
def in_db(spark: Any, db: str) -> Iterator[str]:
    """``USE paimon.<db>`` for one test, so that statements name the table ``T`` alone."""
    spark.sql(f"USE paimon.{db}")
    try:
        yield db
    finally:
        spark.sql("USE paimon.default")


@pytest.fixture()
def T(spark: Any, in_db: str) -> str:  # noqa: N802 - Paimon's tests name the table T
    spark.sql("CREATE TABLE T (id INT, name STRING) TBLPROPERTIES ('primary-key'='id')")
    return f"{in_db}.T"


@pytest.fixture()
def in_spark_catalog(spark: Any) -> Iterator[None]:
    """Spark's session catalog current (as in a plain spark-sql shell) for one test."""
    spark.sql("USE spark_catalog.default")
    try:
        yield
    finally:
        spark.sql("USE paimon.default")


def _retained(sql: Any, where: str = "") -> list[tuple[Any, ...]]:
    return sql(f"SELECT tag_name, snapshot_id, time_retained FROM `T$tags` {where} ORDER BY tag_name")


def _show(sql: Any, table: str = "T") -> list[str]:
    return [r[0] for r in sql(f"SHOW TAGS {table}")]


# -- PaimonTagDdlTestBase ----------------------------------------------------------------------


def test_show_tags_syntax(spark: Any, sql: Any, T: str) -> None:
    spark.sql("insert into T values(1, 'a')")
    spark.sql("alter table T create tag `2024-10-12`")
    spark.sql("alter table T create tag `2024-10-11`")
    spark.sql("alter table T create tag `2024-10-13`")
    assert sql("show tags T") == [("2024-10-11",), ("2024-10-12",), ("2024-10-13",)]


def test_create_tag_syntax(spark: Any, sql: Any, T: str, spark_warehouse: str) -> None:
    for i, v in enumerate("abc", 1):
        spark.sql(f"insert into T values({i}, '{v}')")
    assert Catalog(spark_warehouse).get_table(T).snapshot_ids() == [1, 2, 3]
    spark.sql("alter table T create tag `tag-1`")
    spark.sql("alter table T create tag `tag-2` RETAIN 2 DAYS")
    spark.sql("alter table T create tag `tag-3` as of version 1")
    spark.sql("alter table T create tag `tag-4` as of version 2 RETAIN 3 HOURS")
    assert spark.sql("show tags T").count() == 4
    assert _retained(sql) == [("tag-1", 3, None), ("tag-2", 3, "PT48H"), ("tag-3", 1, None), ("tag-4", 2, "PT3H")]
    # 'if not exists' does not update the tag
    spark.sql("alter table T create tag if not exists `tag-1` RETAIN 10 HOURS")
    assert _retained(sql, "WHERE tag_name = 'tag-1'") == [("tag-1", 3, None)]


def test_create_or_replace_tag_syntax(spark: Any, sql: Any, T: str) -> None:
    spark.sql("insert into T values(1, 'a')")
    spark.sql("insert into T values(2, 'b')")
    spark.sql("alter table T create tag `tag-1` as of version 1")
    spark.sql("alter table T replace tag `tag-1` as of version 2 RETAIN 1 HOURS")
    assert _retained(sql) == [("tag-1", 2, "PT1H")]
    # tag-2 does not exist: created
    spark.sql("alter table T create or replace tag `tag-2` as of version 1")
    assert _retained(sql, "WHERE tag_name = 'tag-2'") == [("tag-2", 1, None)]
    # tag-2 exists: replaced
    spark.sql("alter table T create or replace tag `tag-2` as of version 2 RETAIN 1 HOURS")
    assert _retained(sql, "WHERE tag_name = 'tag-2'") == [("tag-2", 2, "PT1H")]


def test_create_or_replace_tag_twice(spark: Any, sql: Any, T: str) -> None:
    from pyspark.errors import AnalysisException

    spark.sql("INSERT INTO T VALUES (1, 'a')")
    spark.sql("ALTER TABLE  T CREATE TAG `tag-1`")
    assert sql("SHOW TAGS T") == [("tag-1",)]
    # PaimonTagDdlTestBase checks Paimon's text "Tag tag-1 is exists."
    with pytest.raises(AnalysisException, match=r"table t_\w+\.T: Tag tag-1 is exists\."):
        spark.sql("ALTER TABLE T CREATE TAG `tag-1`")
    spark.sql("ALTER TABLE T CREATE TAG IF NOT EXISTS `tag-1`")
    spark.sql("ALTER TABLE T CREATE TAG IF NOT EXISTS `tag-1` AS OF VERSION 1")
    spark.sql("ALTER TABLE T CREATE TAG IF NOT EXISTS `tag-1` AS OF VERSION 1 RETAIN 1 HOURS")
    spark.sql("ALTER TABLE T CREATE OR REPLACE TAG `tag-1`")
    spark.sql("ALTER TABLE T CREATE OR REPLACE TAG `tag-1` AS OF VERSION 1")
    spark.sql("ALTER TABLE T CREATE OR REPLACE TAG `tag-1` AS OF VERSION 1 RETAIN 1 HOURS")
    assert _retained(sql) == [("tag-1", 1, "PT1H")]


def test_delete_tag_syntax(spark: Any, sql: Any, T: str) -> None:
    spark.sql("insert into T values(1, 'a')")
    for name in ("2024-10-12", "2024-10-15", "2024-10-13", "2024-10-14"):
        spark.sql(f"alter table T create tag `{name}`")
    assert _show(sql) == ["2024-10-12", "2024-10-13", "2024-10-14", "2024-10-15"]
    spark.sql("alter table T delete tag `2024-10-12`")
    assert _show(sql) == ["2024-10-13", "2024-10-14", "2024-10-15"]
    spark.sql("alter table T delete tag `2024-10-13, 2024-10-14`")
    assert _show(sql) == ["2024-10-15"]
    spark.sql("alter table T delete tag if EXISTS `2024-10-18`")
    assert _show(sql) == ["2024-10-15"]


def test_rename_tag_syntax(spark: Any, sql: Any, T: str) -> None:
    spark.sql("insert into T values(1, 'a')")
    spark.sql("alter table T create tag `tag-1`")
    assert sql("show tags T") == [("tag-1",)]
    spark.sql("alter table T rename tag `tag-1` to `tag-2`")
    assert sql("show tags T") == [("tag-2",)]


def test_batch_creation_mode(spark: Any, sql: Any, in_db: str) -> None:
    """Paimon's 'Tag creation: batch creation mode': every INSERT replaces the batch tag."""
    spark.sql("CREATE TABLE T (id INT, name STRING) TBLPROPERTIES ("
              "'file.format' = 'avro', 'tag.automatic-creation' = 'batch', 'tag.batch.customized-name' = 'haha')")
    spark.sql("insert into T values(1, 'a')")
    assert sql("show tags T") == [("haha",)]
    spark.sql("insert into T values(1, 'a')")
    assert sql("show tags T") == [("haha",)]
    assert sql("SELECT snapshot_id FROM `T$tags`") == [(2,)]


def test_batch_write_expires_tags(spark: Any, sql: Any, in_db: str) -> None:
    """Paimon's 'Tag expiration: batch write expire tag' (the tag name from a session conf)."""
    spark.sql("CREATE TABLE T (id INT, name STRING) TBLPROPERTIES ("
              "'file.format' = 'avro', 'tag.automatic-creation' = 'batch', 'tag.num-retained-max' = '1')")
    try:
        spark.conf.set("spark.paimon.tag.batch.customized-name", "batch-tag-1")
        spark.sql("insert into T values(1, 'a')")
        assert sql("show tags T") == [("batch-tag-1",)]
        spark.conf.set("spark.paimon.tag.batch.customized-name", "batch-tag-2")
        spark.sql("insert into T values(2, 'b')")
        assert sql("show tags T") == [("batch-tag-2",)]
    finally:
        spark.conf.unset("spark.paimon.tag.batch.customized-name")


# -- result shapes -----------------------------------------------------------------------------


def test_result_shapes(spark: Any, T: str) -> None:
    spark.sql("INSERT INTO T VALUES (1, 'a')")
    for stmt in ("ALTER TABLE T CREATE TAG a", "ALTER TABLE T CREATE TAG IF NOT EXISTS a",
                 "ALTER TABLE T REPLACE TAG a", "ALTER TABLE T CREATE OR REPLACE TAG b",
                 "ALTER TABLE T RENAME TAG b TO c", "ALTER TABLE T DELETE TAG c"):
        df = spark.sql(stmt)
        assert df.columns == [] and df.collect() == [], stmt
    shown = spark.sql("SHOW TAGS T")
    assert [(f.name, f.dataType.simpleString(), f.nullable) for f in shown.schema.fields] == [("tag", "string", False)]
    assert [tuple(r) for r in shown.collect()] == [("a",)]


def test_show_tags_sorts_by_name_and_empty(spark: Any, sql: Any, T: str) -> None:
    assert sql("SHOW TAGS T") == []
    spark.sql("INSERT INTO T VALUES (1, 'a')")
    for name in ("b", "B", "a10", "a9", "_x"):
        spark.sql(f"ALTER TABLE T CREATE TAG {name}")
    assert _show(sql) == ["B", "_x", "a10", "a9", "b"]


# -- names, retention, versions ------------------------------------------------------------------


def test_retain_units_and_time_travel(spark: Any, sql: Any, T: str) -> None:
    spark.sql("INSERT INTO T VALUES (1, 'a')")
    spark.sql("INSERT INTO T VALUES (2, 'b')")
    spark.sql("ALTER TABLE T CREATE TAG m RETAIN 90 MINUTES")
    spark.sql("ALTER TABLE T CREATE TAG s AS OF VERSION 1 retain 30 seconds")
    assert _retained(sql) == [("m", 2, "PT1H30M"), ("s", 1, "PT30S")]
    assert sql("SELECT id FROM T VERSION AS OF 's'") == [(1,)]
    assert sql("SELECT id FROM T VERSION AS OF 'm' ORDER BY id") == [(1,), (2,)]


def test_qualified_names_quoted_names_and_keywords(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE paimon.{db}.t (id INT)")
    spark.sql(f"INSERT INTO paimon.{db}.t VALUES (1)")
    spark.sql(f"ALTER TABLE paimon.{db}.t CREATE TAG `it's`")
    spark.sql(f"ALTER TABLE `{db}`.`t` CREATE TAG tag")
    spark.sql(f"alter table {db}.t create tag `a``b`;")
    assert _show(sql, f"{db}.t") == ["a`b", "it's", "tag"]
    assert _show(sql, f"paimon.{db}.t") == ["a`b", "it's", "tag"]
    spark.sql(f"ALTER TABLE {db}.t RENAME TAG `it's` TO its")
    spark.sql(f"ALTER TABLE {db}.t DELETE TAG `a``b,tag`")
    assert _show(sql, f"{db}.t") == ["its"]


def test_branch_tags(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t (id INT)")
    spark.sql(f"INSERT INTO {db}.t VALUES (1)")
    spark.sql(f"CALL sys.create_branch(table => '{db}.t', branch => 'b')")
    spark.sql(f"INSERT INTO {db}.`t$branch_b` VALUES (2)")
    spark.sql(f"ALTER TABLE {db}.t$branch_b CREATE TAG on_branch")
    spark.sql(f"ALTER TABLE {db}.t CREATE TAG on_main")
    assert _show(sql, f"{db}.t$branch_b") == ["on_branch"]
    assert _show(sql, f"{db}.`t$branch_b`") == ["on_branch"]
    assert _show(sql, f"{db}.t") == ["on_main"]


# -- errors --------------------------------------------------------------------------------------


def test_errors_are_clear_and_change_nothing(spark: Any, sql: Any, T: str) -> None:
    from pyspark.errors import AnalysisException

    spark.sql("INSERT INTO T VALUES (1, 'a')")
    spark.sql("ALTER TABLE T CREATE TAG a")
    bad = [
        ("ALTER TABLE T CREATE TAG x RETAIN 2 WEEKS", "expected DAYS, HOURS, MINUTES or SECONDS after RETAIN 2"),
        ("ALTER TABLE T CREATE TAG x AS OF VERSION", "expected a snapshot id after AS OF VERSION"),
        ("ALTER TABLE T CREATE TAG `x,y`", "must not contain ','"),
        ("ALTER TABLE T CREATE TAG x AS OF VERSION 7", "snapshot 7"),
        ("ALTER TABLE T REPLACE TAG a AS OF VERSION 7", "snapshot 7"),
        ("ALTER TABLE T CREATE TAG x AS OF VERSION 0", "AS OF VERSION must name a snapshot id"),
        ("ALTER TABLE T RENAME TAG nope TO x", "Cannot rename tag 'nope'"),
        ("ALTER TABLE T RENAME TAG a TO a", "tag 'a' (argument 'target_tag') already exists"),
        ("ALTER TABLE T DELETE TAG `a,`", "DELETE TAG 'a,'"),
        ("ALTER TABLE missing CREATE TAG x", "missing"),
    ]
    for stmt, message in bad:
        with pytest.raises(AnalysisException) as e:
            spark.sql(stmt)
        assert message in str(e.value), (stmt, str(e.value))
    with pytest.raises(AnalysisException, match="missing"):
        spark.sql("SHOW TAGS missing").collect()
    assert _show(sql) == ["a"]


def test_other_current_catalog(spark: Any, sql: Any, db: str, in_spark_catalog: None) -> None:
    from pyspark.errors import ParseException

    spark.sql(f"CREATE TABLE paimon.{db}.t (id INT)")
    spark.sql(f"INSERT INTO paimon.{db}.t VALUES (1)")
    spark.sql(f"ALTER TABLE paimon.{db}.t CREATE TAG v1")
    spark.sql(f"ALTER TABLE paimon.{db}.t CREATE OR REPLACE TAG v2 RETAIN 1 DAYS")
    assert _show(sql, f"paimon.{db}.t") == ["v1", "v2"]
    # a table of Spark's own catalog is left to Spark, which has no tag statements
    spark.sql("CREATE TABLE IF NOT EXISTS spark_tags_t (id INT) USING parquet")
    try:
        with pytest.raises(ParseException):
            spark.sql("ALTER TABLE spark_tags_t CREATE TAG x")
        with pytest.raises(ParseException):
            spark.sql("SHOW TAGS spark_tags_t")
    finally:
        spark.sql("DROP TABLE IF EXISTS spark_tags_t")
