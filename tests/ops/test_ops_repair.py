"""Repairs (ops/repair.py): remove_unexisting_files (Paimon's RemoveUnexistingFilesProcedureTest:
randomly deleted data files are listed, then removed from the table by one commit),
repair_earliest_snapshot (RepairEarliestSnapshotProcedureTest and its rules) and compact_manifest
(one COMPACT snapshot whose manifests hold only live entries, same rows everywhere)."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.procedures import call_procedure

SCHEMA = pa.schema([("id", pa.int64()), ("pt", pa.int64())])


@pytest.mark.parametrize("bucket", [-1, 3])
def test_remove_unexisting_files(catalog: Catalog, bucket: int) -> None:
    opts = {"bucket": str(bucket)} if bucket > 0 else {}
    if bucket > 0:
        opts["bucket-key"] = "id"
    t = catalog.create_table("db.t", SCHEMA, partition_keys=["pt"], options=opts)
    for i in range(10):  # ten files per partition, one row each
        t.write(pa.table({"id": [i, 100 + i], "pt": [0, 1]}))
    t = t.refresh()
    assert call_procedure(catalog, "remove_unexisting_files", {"table": "db.t", "dry_run": True}).rows == []
    rng = random.Random(7)
    entries = t.store.manifests.live_entries(t.latest_snapshot())
    gone = rng.sample(entries, 7)
    for e in gone:
        os.remove(t.store.entry_path(e))
    expected = sorted(t.store.entry_path(e) for e in gone)
    dry = call_procedure(catalog, "remove_unexisting_files", {"table": "db.t", "dry_run": True}).rows
    assert [r[0] for r in dry] == expected
    before = t.refresh().snapshot_ids()
    rows = call_procedure(catalog, "remove_unexisting_files", {"table": "db.t"}).rows
    assert [r[0] for r in rows] == expected
    t = t.refresh()
    assert len(t.snapshot_ids()) == len(before) + 1
    counts = {0: 0, 1: 0}
    for r in t.read().to_pylist():
        counts[r["pt"]] += 1
    lost = {0: sum(1 for e in gone if e.partition == entries[0].partition), 1: 0}
    lost[1] = 7 - lost[0]
    assert counts == {0: 10 - lost[0], 1: 10 - lost[1]}
    assert call_procedure(catalog, "remove_unexisting_files", {"table": "db.t"}).rows == []


def test_remove_unexisting_files_on_an_empty_table(catalog: Catalog) -> None:
    catalog.create_table("db.e", SCHEMA)
    assert call_procedure(catalog, "remove_unexisting_files", {"table": "db.e", "dry_run": True}).rows == []
    assert call_procedure(catalog, "remove_unexisting_files", {"table": "db.e"}).rows == []
    with pytest.raises(ValidationError, match="parallelism"):
        call_procedure(catalog, "remove_unexisting_files", {"table": "db.e", "parallelism": 0})


def _snapshots(catalog: Catalog, n: int) -> Any:
    t = catalog.create_table("db.s", SCHEMA)
    for i in range(n):
        t.write(pa.table({"id": [i], "pt": [0]}))
    return t.refresh()


def test_repair_earliest_snapshot(catalog: Catalog) -> None:
    t = _snapshots(catalog, 5)
    for sid in (1, 2, 3):  # lost snapshot files, EARLIEST still says 1
        os.remove(t.store.snapshots.path(sid))
    Path(t.store.snapshots.dir, "EARLIEST").write_text("1")
    snap1 = Path(t.store.snapshots.path(1))
    snap1.write_text(Path(t.store.snapshots.path(4)).read_text().replace('"id" : 4', '"id" : 1'))
    assert t.store.snapshots.earliest_id() == 1
    with pytest.raises(ValidationError, match="must not be later than latest snapshot 5"):
        t.repair_earliest_snapshot(6)
    with pytest.raises(ValidationError, match="does not immediately follow a snapshot gap"):
        t.repair_earliest_snapshot(5)
    with pytest.raises(ValidationError, match="Snapshot 2 .*does not exist"):
        t.repair_earliest_snapshot(2)
    assert call_procedure(catalog, "repair_earliest_snapshot", {"table": "db.s", "snapshot_id": 4}).rows == [(1, 4)]
    assert t.store.snapshots.earliest_id() == 4
    assert Path(t.store.snapshots.dir, "EARLIEST").read_text() == "4"
    with pytest.raises(ValidationError, match="must not be earlier than current earliest snapshot 4"):
        t.repair_earliest_snapshot(3)


def test_repair_earliest_snapshot_of_an_empty_table(catalog: Catalog) -> None:
    catalog.create_table("db.e", SCHEMA)
    with pytest.raises(ValidationError, match="empty table"):
        call_procedure(catalog, "repair_earliest_snapshot", {"table": "db.e", "snapshot_id": 1})


def test_compact_manifest(catalog: Catalog) -> None:
    t = catalog.create_table("db.m", SCHEMA, primary_keys=["id"], options={"bucket": "1", "write-only": "true"})
    for i in range(6):
        t.write(pa.table({"id": [i % 3], "pt": [i]}))
    t = t.refresh()
    t.compact()
    t = t.refresh()
    rows = sorted(map(repr, t.read().to_pylist()))
    metas = t.store.manifests.data_manifests(t.latest_snapshot())
    assert len(metas) > 1
    assert call_procedure(catalog, "compact_manifest", {"table": "db.m", "dry_run": True}).rows == [(True,)]
    assert t.refresh().latest_snapshot().id == t.latest_snapshot().id
    assert call_procedure(catalog, "compact_manifest", {"table": "db.m"}).rows == [(True,)]
    t = t.refresh()
    snap = t.latest_snapshot()
    assert snap.commit_kind == "COMPACT"
    metas = t.store.manifests.data_manifests(snap)
    assert sum(m.num_deleted_files for m in metas) == 0
    assert sum(m.num_added_files for m in metas) == len(t.store.manifests.live_entries(snap))
    assert sorted(map(repr, t.read().to_pylist())) == rows
    with pytest.raises(UnsupportedError, match="sorting manifests"):
        call_procedure(catalog, "compact_manifest", {"table": "db.m", "manifest_sort_enabled": True})
