"""``changelog-producer`` = input through Spark SQL: INSERT (written by Spark's executors) and
DELETE write their records as changelog files; ``$snapshots`` shows ``changelog_record_count`` as
Paimon does (null without changelog files: SparkReadITCase.testSnapshotsTableWithRecordCount)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paimon_sql import Catalog
from paimon_sql.scan.changes import changelog_entries, changelog_splits
from paimon_sql.scan.reader import read_split

pytestmark = pytest.mark.spark

KINDS = {0: "+I", 1: "-U", 2: "+U", 3: "-D"}


def _changelog(wh: str, table: str, snapshot_id: int) -> list[tuple[Any, ...]]:
    store = Catalog(wh).get_table(table).store
    out = []
    for split in changelog_splits(store, store.snapshots.snapshot(snapshot_id)):
        tbl = read_split(store, split, list(store.schema.fields), None, keep_row_kind=True)
        out += [(KINDS[r.pop("_VALUE_KIND")], *r.values()) for r in tbl.to_pylist()]
    return sorted(out, key=repr)


def test_insert_and_delete_write_the_changelog(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t (id INT, name STRING, dt STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key' = 'id, dt', 'bucket' = '2', 'changelog-producer' = 'input')")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 'a', 'p1'), (2, 'b', 'p1'), (3, 'c', 'p2'), (1, 'a2', 'p1')")
    spark.sql(f"DELETE FROM {db}.t WHERE name = 'b' OR id = 3")
    spark.sql(f"INSERT INTO {db}.t VALUES (4, 'd', 'p2')")
    assert sql(f"SELECT * FROM {db}.t ORDER BY id") == [(1, "a2", "p1"), (4, "d", "p2")]
    rows = sql(f"SELECT snapshot_id, commit_kind, total_record_count, delta_record_count, changelog_record_count "
               f"FROM {db}.`t$snapshots` ORDER BY snapshot_id")
    # the INSERT's data files hold 3 merged rows, its changelog the 4 records written
    assert rows == [(1, "APPEND", 3, 3, 4), (2, "APPEND", 5, 2, 2), (3, "APPEND", 6, 1, 1)]
    name = f"{db}.t"
    assert _changelog(spark_warehouse, name, 1) == [
        ("+I", 1, "a", "p1"), ("+I", 1, "a2", "p1"), ("+I", 2, "b", "p1"), ("+I", 3, "c", "p2")]
    assert _changelog(spark_warehouse, name, 2) == [("-D", 2, "b", "p1"), ("-D", 3, "c", "p2")]
    assert _changelog(spark_warehouse, name, 3) == [("+I", 4, "d", "p2")]
    # changelog files sit in the bucket folders, named changelog-*, at level 0
    t = Catalog(spark_warehouse).get_table(name)
    for sid in t.snapshot_ids():
        for e in changelog_entries(t.store, t.snapshot(sid)):
            assert e.file.file_name.startswith("changelog-") and e.file.level == 0
            assert Path(t.store.entry_path(e)).exists()


def test_snapshots_without_changelog_show_null(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.n (a BIGINT, b STRING) TBLPROPERTIES ('primary-key' = 'a', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {db}.n VALUES (1, 'x'), (2, 'y'), (3, 'z')")
    assert sql(f"SELECT snapshot_id, total_record_count, delta_record_count, changelog_record_count "
               f"FROM {db}.`n$snapshots`") == [(1, 3, 3, None)]


def test_input_producer_without_primary_key_is_refused(spark: Any, db: str) -> None:
    with pytest.raises(Exception, match="changelog-producer"):
        spark.sql(f"CREATE TABLE {db}.a (a INT) TBLPROPERTIES ('changelog-producer' = 'input')")
    spark.sql(f"CREATE TABLE {db}.b (a INT)")
    with pytest.raises(Exception, match="changelog-producer"):
        spark.sql(f"ALTER TABLE {db}.b SET TBLPROPERTIES ('changelog-producer' = 'input')")


def test_insert_overwrite_commits_no_changelog(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    """Paimon's overwrite commit ignores changelog files: the OVERWRITE snapshot has none (and
    paimon_sql's overwriting writers write none, so no file is left behind)."""
    spark.sql(f"CREATE TABLE {db}.o (id INT, name STRING) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'changelog-producer' = 'input')")
    spark.sql(f"INSERT INTO {db}.o VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT OVERWRITE {db}.o VALUES (3, 'c')")
    assert sql(f"SELECT snapshot_id, commit_kind, changelog_record_count FROM {db}.`o$snapshots` "
               "ORDER BY snapshot_id") == [(1, "APPEND", 2), (2, "OVERWRITE", None)]
    t = Catalog(spark_warehouse).get_table(f"{db}.o")
    on_disk = {p.name for p in Path(t.store.path).rglob("changelog-*") if p.parent.name.startswith("bucket-")}
    assert on_disk == {e.file.file_name for e in changelog_entries(t.store, t.snapshot(1))}
    assert sql(f"SELECT * FROM {db}.o") == [(3, "c")]
