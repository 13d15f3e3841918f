"""Spark SQL on a JDBC catalog (``spark.sql.catalog.<name>.metastore = jdbc``, ``.uri``,
``.lock.enabled``): a second Paimon catalog of the running session on SQLite. Databases with
properties, tables, writes by Spark's Python workers under the catalog's lock, ALTER TABLE kept in
``paimon_table_properties``, the global system tables listing the JDBC catalog."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

from paimon_sql.catalog.factory import load_catalog
from paimon_sql.table.table import Table

pytestmark = pytest.mark.spark


def test_spark_sql_on_a_jdbc_catalog(spark: Any, tmp_path: Path) -> None:
    from paimon_sql.spark.session import catalog_conf

    name = "jdbc_" + uuid.uuid4().hex[:8]
    db_file = tmp_path / "catalog.db"
    options = {"metastore": "jdbc", "uri": f"jdbc:sqlite:{db_file}", "lock.enabled": "true",
               "jdbc.password": "not-shown"}
    conf = catalog_conf(str(tmp_path / "wh"), name, default_catalog=False, catalog_options=options)
    for k, v in conf.items():
        if k.startswith(f"spark.sql.catalog.{name}"):
            spark.conf.set(k, v)

    def rows(text: str) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in spark.sql(text).collect()]

    spark.sql(f"CREATE DATABASE {name}.db WITH DBPROPERTIES ('team' = 'lake')")
    desc = dict((r[0], r[1]) for r in rows(f"DESCRIBE DATABASE EXTENDED {name}.db"))
    assert "team" in str(desc.get("Properties")) and "lake" in str(desc.get("Properties"))
    spark.sql(f"ALTER DATABASE {name}.db SET DBPROPERTIES ('team' = 'lakehouse', 'tier' = 'gold')")
    spark.sql(f"ALTER DATABASE {name}.db UNSET DBPROPERTIES ('tier')")
    desc = dict((r[0], r[1]) for r in rows(f"DESCRIBE DATABASE EXTENDED {name}.db"))
    assert "lakehouse" in str(desc.get("Properties")) and "tier" not in str(desc.get("Properties"))
    with pytest.raises(Exception, match="Alter database is not supported"):
        spark.sql("CREATE DATABASE IF NOT EXISTS paimon.alter_me")
        spark.sql("ALTER DATABASE paimon.alter_me SET DBPROPERTIES ('a' = 'b')")
    spark.sql("DROP DATABASE IF EXISTS paimon.alter_me")
    spark.sql(f"CREATE TABLE {name}.db.t (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {name}.db.t VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {name}.db.t VALUES (2, 'B')")
    assert rows(f"SELECT id, v FROM {name}.db.t ORDER BY id") == [(1, "a"), (2, "B")]
    assert [r[1] for r in rows(f"SHOW TABLES IN {name}.db")] == ["t"]
    plan = "\n".join(r[0] for r in rows(f"EXPLAIN EXTENDED SELECT * FROM {name}.db.t"))
    assert "not-shown" not in plan
    spark.sql(f"ALTER TABLE {name}.db.t SET TBLPROPERTIES ('snapshot.num-retained.max' = '50')")
    con = sqlite3.connect(db_file)
    try:
        assert con.execute("SELECT catalog_key, database_name, table_name FROM paimon_tables").fetchall() == [
            ("jdbc", "db", "t")]
        props = dict(con.execute("SELECT property_key, property_value FROM paimon_table_properties").fetchall())
        assert props["snapshot.num-retained.max"] == "50" and props["primary-key"] == "id"
        db_props = dict(con.execute("SELECT property_key, property_value FROM paimon_database_properties").fetchall())
        assert db_props["team"] == "lakehouse" and db_props["exists"] == "true" and "tier" not in db_props
        assert con.execute("SELECT count(*) FROM paimon_distributed_locks").fetchone() == (0,)
    finally:
        con.close()
    assert rows(f"SELECT database_name, table_name FROM {name}.sys.tables") == [("db", "t")]
    # the engine, through the same catalog, sees what Spark wrote
    t = load_catalog(str(tmp_path / "wh"), options).get_table("db.t")
    assert isinstance(t, Table) and t.latest_snapshot().id == 2  # type: ignore[union-attr]
    spark.sql(f"DROP TABLE {name}.db.t")
    assert rows(f"SHOW TABLES IN {name}.db") == []
    spark.sql(f"DROP DATABASE {name}.db")
    assert not (tmp_path / "wh" / "db.db").exists()
