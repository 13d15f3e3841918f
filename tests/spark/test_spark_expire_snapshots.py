"""``CALL sys.expire_snapshots`` through Spark (as Paimon's ExpireSnapshotsProcedureTest): named and
positional arguments, the output row, the table afterwards, and errors that change nothing."""

from __future__ import annotations

from typing import Any

import pytest

from paimon_sql import Catalog

pytestmark = pytest.mark.spark


def _snapshots(sql: Any, t: str) -> list[int]:
    return [r[0] for r in sql(f"SELECT snapshot_id FROM {t}$snapshots ORDER BY snapshot_id")]


def test_expire_snapshots_call(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (a INT, b STRING)")
    for i in range(1, 6):
        spark.sql(f"INSERT INTO {t} VALUES ({i}, 'v{i}')")
    # Paimon's check: retain_max below the table's snapshot.num-retained.min (10)
    with pytest.raises(Exception, match="retain_max 2 must not be less than retain_min 10"):
        spark.sql(f"CALL paimon.sys.expire_snapshots(table => '{t}', retain_max => 2)")
    with pytest.raises(Exception, match="retain_max 2 must not be less than retain_min 3"):
        spark.sql(f"CALL sys.expire_snapshots(table => '{t}', retain_max => 2, retain_min => 3)")
    with pytest.raises(Exception, match="older_than"):
        spark.sql(f"CALL sys.expire_snapshots(table => '{t}', older_than => 'not a time')")
    assert _snapshots(sql, t) == [1, 2, 3, 4, 5]

    dry = sql(f"CALL sys.expire_snapshots(table => '{t}', retain_max => 4, retain_min => 1, dry_run => true, "
              "verbose => true)")
    assert dry[0][0] == 1 and len(dry[0]) == 5 and dry[0][4] > 0 and _snapshots(sql, t) == [1, 2, 3, 4, 5]
    rows = spark.sql(f"CALL paimon.sys.expire_snapshots(table => '{t}', retain_max => 4, retain_min => 1)")
    assert rows.columns == ["deleted_snapshots_count"]  # Paimon's one column, Row(1)
    assert dict(rows.dtypes) == {"deleted_snapshots_count": "int"}
    assert [tuple(r) for r in rows.collect()] == [(1,)]
    assert _snapshots(sql, t) == [2, 3, 4, 5]
    # positional, Paimon's order: table, retain_max, retain_min, older_than, max_deletes
    assert sql(f"CALL sys.expire_snapshots('{t}', 1, 1, '2999-01-01 00:00:00', 2)")[0][0] == 2
    assert _snapshots(sql, t) == [4, 5]
    assert sql(f"SELECT a FROM {t} ORDER BY a") == [(i,) for i in range(1, 6)]
    with pytest.raises(Exception, match="Snapshot 3"):
        spark.sql(f"SELECT * FROM {t} VERSION AS OF 3").collect()
    assert Catalog(spark_warehouse).get_table(t).snapshot_ids() == [4, 5]


def test_table_options_and_automatic_expiry(spark: Any, sql: Any, db: str) -> None:
    """Paimon's 'expire snapshots load table property first' and 'add options parameter', and
    expiry after every INSERT unless write-only."""
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (a INT, b STRING) TBLPROPERTIES ('snapshot.num-retained.max' = '2', "
              "'snapshot.num-retained.min' = '1', 'write-only' = 'true')")
    for i in range(1, 4):
        spark.sql(f"INSERT INTO {t} VALUES ({i}, 'v{i}')")
    assert _snapshots(sql, t) == [1, 2, 3]
    assert sql(f"CALL sys.expire_snapshots(table => '{t}')")[0][0] == 1
    assert _snapshots(sql, t) == [2, 3]
    assert sql(f"CALL sys.expire_snapshots(table => '{t}', "
               "options => 'snapshot.num-retained.max=1, snapshot.num-retained.min=1')")[0][0] == 1
    assert _snapshots(sql, t) == [3]
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write-only' = 'false')")
    for i in range(4, 7):
        spark.sql(f"INSERT INTO {t} VALUES ({i}, 'v{i}')")
    assert _snapshots(sql, t) == [5, 6]
    assert sql(f"SELECT a FROM {t} ORDER BY a") == [(i,) for i in range(1, 7)]


def test_decoupled_changelogs_through_sql(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    """With changelog.num-retained.max above snapshot.num-retained.max, INSERTs keep the expired
    snapshots as long-lived changelogs; CALL sys.expire_changelogs expires them."""
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (a INT, b STRING) TBLPROPERTIES ('snapshot.num-retained.max' = '2', "
              "'snapshot.num-retained.min' = '1', 'changelog.num-retained.max' = '10')")
    for i in range(1, 7):
        spark.sql(f"INSERT INTO {t} VALUES ({i}, 'v{i}')")
    table = Catalog(spark_warehouse).get_table(t)
    assert _snapshots(sql, t) == [5, 6] and table.store.changelogs.ids() == [1, 2, 3, 4]
    assert sql(f"CALL sys.expire_changelogs(table => '{t}', retain_max => 4)") == [("2",)]
    assert table.store.changelogs.ids() == [3, 4]
    rows = spark.sql(f"CALL sys.expire_changelogs(table => '{t}', delete_all => true, verbose => true)")
    assert rows.columns == ["result", "deleted_data_files_count", "deleted_manifests_count", "deleted_bytes"]
    assert rows.collect()[0][0] == "Delete all separated changelogs success."
    assert table.store.changelogs.ids() == []
    assert sql(f"SELECT a FROM {t} ORDER BY a") == [(i,) for i in range(1, 7)]
