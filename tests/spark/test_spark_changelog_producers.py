"""The compaction changelog producers through Spark SQL, as Paimon's Spark tests state them:
LookupCompactionTest (files a lookup write rewrites per merge engine), SparkWriteITCase's
changelog-file prefix, and ``CALL sys.compact`` writing a full-compaction table's changelog."""

from __future__ import annotations

import os
from typing import Any

import pytest

from paimon_sql import Catalog
from tests.helpers.changelog_model import KINDS

pytestmark = pytest.mark.spark


def _table(warehouse: str, name: str) -> Any:
    return Catalog(warehouse).get_table(name)


def _changelog(t: Any, snapshot_id: int) -> list[tuple[Any, ...]]:
    from paimon_sql.scan.changes import changelog_splits
    from paimon_sql.scan.reader import read_split

    store = t.store
    out: list[tuple[Any, ...]] = []
    for split in changelog_splits(store, store.snapshots.snapshot(snapshot_id)):
        rows = read_split(store, split, list(store.schema.fields), keep_row_kind=True).to_pylist()
        out += [(KINDS[r.pop("_VALUE_KIND")], *r.values()) for r in rows]
    return out


@pytest.mark.parametrize("engine", ["deduplicate", "partial-update", "aggregation", "first-row"])
def test_lookup_compaction_data_files(spark: Any, sql: Any, db: str, spark_warehouse: str, engine: str) -> None:
    extra = ", 'fields.count.aggregate-function' = 'sum'" if engine == "aggregation" else ""
    t = f"{db}.T"
    spark.sql(f"CREATE TABLE {t} (id INT, name STRING, count INT) TBLPROPERTIES ('primary-key' = 'id', "
              f"'bucket' = '1', 'merge-engine' = '{engine}', 'changelog-producer' = 'lookup' {extra})")
    table = _table(spark_warehouse, t)
    bucket = os.path.join(table.store.path, "bucket-0")

    def data_files() -> int:
        return len([f for f in os.listdir(bucket) if f.startswith("data")])

    spark.sql(f"INSERT INTO {t} VALUES (1, 'aaaaaaaaaaa', 1), (2, 'b', 2)")
    assert data_files() == 1
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(1, "aaaaaaaaaaa", 1), (2, "b", 2)]
    spark.sql(f"INSERT INTO {t} VALUES (2, 'b', 22), (3, 'c', 3)")
    assert data_files() == (2 if engine == "deduplicate" else 3)
    second = {"deduplicate": 22, "partial-update": 22, "aggregation": 24, "first-row": 2}[engine]
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(1, "aaaaaaaaaaa", 1), (2, "b", second), (3, "c", 3)]
    assert [k for (k,) in sql(f"SELECT commit_kind FROM {t}$snapshots ORDER BY snapshot_id")] == [
        "APPEND", "COMPACT", "APPEND", "COMPACT"]
    changes = _changelog(_table(spark_warehouse, t), 4)
    if engine == "first-row":
        assert changes == [("+I", 3, "c", 3)]
    else:
        assert changes == [("-U", 2, "b", 2), ("+U", 2, "b", second), ("+I", 3, "c", 3)]


def test_changelog_file_prefix(spark: Any, db: str, spark_warehouse: str, conf: Any) -> None:
    t = f"{db}.T"
    spark.sql(f"CREATE TABLE {t} (a INT, b INT, c STRING) TBLPROPERTIES "
              "('primary-key'='a', 'bucket' = '1', 'changelog-producer' = 'lookup')")
    bucket = os.path.join(_table(spark_warehouse, t).store.path, "bucket-0")
    spark.sql(f"INSERT INTO {t} VALUES (1, 1, 'aa')")
    assert len([f for f in os.listdir(bucket) if f.startswith("changelog-")]) == 1
    conf("spark.paimon.changelog-file.prefix", "test-changelog-")
    spark.sql(f"INSERT INTO {t} VALUES (2, 2, 'bb')")
    assert len([f for f in os.listdir(bucket) if f.startswith("test-changelog-")]) == 1


def test_compact_procedure_writes_full_compaction_changelog(
    spark: Any, sql: Any, db: str, spark_warehouse: str,
) -> None:
    t = f"{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT, v STRING) TBLPROPERTIES "
              "('primary-key'='id', 'bucket'='1', 'changelog-producer'='full-compaction')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {t} VALUES (2, 'c'), (3, 'd')")
    assert sql(f"CALL sys.compact(table => '{t}')") == [(True,)]
    spark.sql(f"INSERT INTO {t} VALUES (1, 'e')")
    spark.sql(f"DELETE FROM {t} WHERE id = 3")
    spark.sql(f"CALL sys.compact(table => '{t}', compact_strategy => 'full')")
    kinds = sql(f"SELECT snapshot_id, commit_kind FROM {t}$snapshots ORDER BY snapshot_id")
    assert [k for _, k in kinds] == ["APPEND", "APPEND", "COMPACT", "APPEND", "APPEND", "COMPACT"]
    table = _table(spark_warehouse, t)
    assert _changelog(table, 3) == [("+I", 1, "a"), ("+I", 2, "c"), ("+I", 3, "d")]
    assert _changelog(table, 6) == [("-U", 1, "a"), ("+U", 1, "e"), ("-D", 3, "d")]
    assert all(not _changelog(table, i) for i in (1, 2, 4, 5))


@pytest.mark.parametrize(("engine", "option"), [
    ("deduplicate", ""),
    ("partial-update", "'partial-update.remove-record-on-delete' = 'true',"),
    ("aggregation", "'aggregation.remove-record-on-delete' = 'true',"),
])
def test_delete_with_lookup(spark: Any, sql: Any, db: str, spark_warehouse: str, engine: str, option: str) -> None:
    """Paimon's DeleteFromTableTestBase "test delete with lookup": the DELETE's changelog is the -D
    of the merged row (Paimon bug #5847: deletes reach the changelog)."""
    t = f"{db}.T"
    spark.sql(f"CREATE TABLE {t} (id INT, name STRING, age INT) TBLPROPERTIES ('changelog-producer' = 'lookup', "
              f"{option} 'primary-key' = 'id', 'merge-engine' = '{engine}')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', NULL)")
    spark.sql(f"INSERT INTO {t} VALUES (2, 'b', NULL)")
    spark.sql(f"INSERT INTO {t} VALUES (1, NULL, 16)")
    spark.sql(f"DELETE FROM {t} WHERE id = 1")
    assert sql(f"SELECT * FROM {t}") == [(2, "b", None)]
    table = _table(spark_warehouse, t)
    latest = table.store.snapshots.latest_id()
    merged = (1, None, 16) if engine == "deduplicate" else (1, "a", 16)
    assert _changelog(table, latest) == [("-D", *merged)]
    assert _changelog(table, latest - 2) == [("-U", 1, "a", None), ("+U", *merged)]
