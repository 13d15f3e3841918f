"""ALTER TABLE ... RENAME TO another database and to a catalog-qualified name, as Paimon's
SparkCatalog.renameTable (its catalog name dropped, another catalog refused: DDLTestBase "Paimon
DDL: rename table with catalog name"); the table keeps its rows and history."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

pytestmark = pytest.mark.spark


def test_rename_to_another_database_and_qualified_names(spark: Any, sql: Any, db: str) -> None:
    db2 = "r_" + uuid.uuid4().hex[:10]
    sql(f"CREATE NAMESPACE paimon.{db2}")
    try:
        sql(f"CREATE TABLE {db}.t (id INT)")
        sql(f"INSERT INTO {db}.t VALUES (1)")
        sql(f"INSERT INTO {db}.t VALUES (2)")
        sql(f"ALTER TABLE {db}.t RENAME TO {db2}.t2")
        assert [r[1] for r in sql(f"SHOW TABLES IN {db}")] == []
        assert sql(f"SELECT * FROM {db2}.t2 ORDER BY id") == [(1,), (2,)]
        sql(f"ALTER TABLE {db2}.t2 RENAME TO paimon.{db}.t3")
        assert sql(f"SELECT * FROM paimon.{db}.t3 VERSION AS OF 1") == [(1,)]
        with pytest.raises(Exception, match="Only supports operations within the same catalog"):
            spark.sql(f"ALTER TABLE paimon.{db}.t3 RENAME TO spark_catalog.{db}.t4")
        assert sql(f"SELECT count(*) FROM {db}.t3") == [(2,)]
    finally:
        sql(f"DROP NAMESPACE IF EXISTS paimon.{db2} CASCADE")
