"""CALL sys.<procedure> through Spark's native ProcedureCatalog, SHOW PROCEDURES, and the parser
extension (unquoted ``t$files``, ``CALL sys.x`` while another catalog is current)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from paimon_sql import Catalog

pytestmark = pytest.mark.spark


@pytest.fixture()
def t3(spark: Any, db: str) -> str:
    """A table with snapshots 1, 2, 3 (one row each)."""
    spark.sql(f"CREATE TABLE {db}.t (id BIGINT, v STRING)")
    for i in (1, 2, 3):
        spark.sql(f"INSERT INTO {db}.t VALUES ({i}, 'v{i}')")
    return f"{db}.t"


@pytest.fixture()
def in_spark_catalog(spark: Any) -> Iterator[None]:
    """Makes Spark's session catalog current (as in a plain spark-sql shell) for one test."""
    spark.sql("USE spark_catalog.default")
    try:
        yield
    finally:
        spark.sql("USE paimon.default")


def _tags(wh: str, table: str) -> list[str]:
    tags: list[str] = Catalog(wh).get_table(table).store.tags.tag_names()
    return tags


def test_create_tag_named_and_positional_then_delete(spark: Any, sql: Any, t3: str, spark_warehouse: str) -> None:
    assert sql(f"CALL paimon.sys.create_tag(table => '{t3}', tag => 'one', snapshot => 1)") == [(True,)]
    assert sql(f"CALL sys.create_tag('{t3}', 'latest')") == [(True,)]
    assert sorted(_tags(spark_warehouse, t3)) == ["latest", "one"]
    assert sql(f"SELECT tag_name, snapshot_id FROM {t3}$tags ORDER BY tag_name") == [("latest", 3), ("one", 1)]
    assert sql(f"SELECT count(*) FROM {t3} VERSION AS OF 'one'") == [(1,)]
    assert sql(f"CALL sys.delete_tag(table => '{t3}', tag => 'latest')") == [(True,)]
    assert _tags(spark_warehouse, t3) == ["one"]


def test_rollback_to_snapshot_and_tag(spark: Any, sql: Any, t3: str, spark_warehouse: str) -> None:
    spark.sql(f"CALL sys.create_tag(table => '{t3}', tag => 'two', snapshot => 2)")
    assert sql(f"CALL sys.rollback(table => '{t3}', snapshot => 2)") == [(3, 2)]
    assert sql(f"SELECT id FROM {t3} ORDER BY id") == [(1,), (2,)]
    assert Catalog(spark_warehouse).get_table(t3).snapshot_ids() == [1, 2]
    spark.sql(f"INSERT INTO {t3} VALUES (9, 'v9')")
    assert sql(f"CALL sys.rollback(table => '{t3}', tag => 'two')") == [(3, 2)]
    assert sql(f"SELECT id FROM {t3} ORDER BY id") == [(1,), (2,)]


def test_show_procedures(sql: Any) -> None:
    names = {r[-1] for r in sql("SHOW PROCEDURES IN paimon.sys")}
    assert {"create_tag", "delete_tag", "rollback"} <= names
    assert {"create_tag", "rollback"} <= {r[-1] for r in sql("SHOW PROCEDURES")}


def test_procedure_errors_are_clear_and_change_nothing(spark: Any, t3: str, spark_warehouse: str) -> None:
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException, match="nope"):
        spark.sql(f"CALL sys.nope(table => '{t3}')")
    with pytest.raises(AnalysisException, match="REQUIRED_PARAMETER_NOT_FOUND|tag"):
        spark.sql(f"CALL sys.create_tag(table => '{t3}')")
    with pytest.raises(AnalysisException, match="UNRECOGNIZED_PARAMETER_NAME|snap"):
        spark.sql(f"CALL sys.create_tag(table => '{t3}', tag => 'x', snap => 1)")
    with pytest.raises(Exception, match="CAST|abc"):
        spark.sql(f"CALL sys.create_tag(table => '{t3}', tag => 'x', snapshot => 'abc')").collect()
    with pytest.raises(AnalysisException, match=r"Snapshot 42|snapshot 42"):
        spark.sql(f"CALL sys.create_tag(table => '{t3}', tag => 'x', snapshot => 42)")
    with pytest.raises(AnalysisException, match="does not exist"):
        spark.sql(f"CALL sys.rollback(table => '{t3}_missing', snapshot => 1)")
    spark.sql(f"CALL sys.create_tag(table => '{t3}', tag => 'dup')")
    with pytest.raises(AnalysisException, match=r"Table .*: Tag 'dup' already exists\."):
        spark.sql(f"CALL sys.create_tag(table => '{t3}', tag => 'dup')")
    assert _tags(spark_warehouse, t3) == ["dup"]
    assert Catalog(spark_warehouse).get_table(t3).snapshot_ids() == [1, 2, 3]


def test_parser_extension_without_use_paimon(spark: Any, sql: Any, t3: str, in_spark_catalog: None) -> None:
    assert sql("SELECT current_catalog()") == [("spark_catalog",)]
    assert sql(f"CALL sys.create_tag(table => '{t3}', tag => 'ext')") == [(True,)]
    assert sql(f"SELECT tag_name FROM paimon.{t3}$tags") == [("ext",)]
    assert sql(f"SELECT snapshot_id FROM paimon.{t3}$snapshots WHERE snapshot_id > 1 ORDER BY 1") == [(2,), (3,)]
    assert sql(f"SELECT 'a$b' AS s, count(*) FROM paimon.{t3}") == [("a$b", 3)]
