from __future__ import annotations

import dataclasses
import os
import threading

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import CommitConflictError
from paimon_sql.meta.kinds import FileKind
from paimon_sql.write.commit import CommitRequest, check_deleted_files_exist, commit

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])


def test_concurrent_writers_all_land(catalog: Catalog) -> None:
    catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "2", "write-only": "true"})
    errors: list[BaseException] = []

    def writer(i: int) -> None:
        try:
            t = catalog.get_table("db.t")  # each writer has its own handle
            for j in range(3):
                base = i * 100 + j * 10
                t.write(pa.table({"id": list(range(base, base + 5)), "v": [f"w{i}"] * 5}))
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    t = catalog.get_table("db.t")
    assert t.snapshot_ids() == list(range(1, 13))
    assert t.read().num_rows == 4 * 3 * 5
    assert t.latest_snapshot().total_record_count == 60  # type: ignore[union-attr]
    # no stray temporary files are left next to the snapshots
    assert not [n for n in os.listdir(os.path.join(t.path, "snapshot")) if n.startswith(".")]


def test_file_conflict_fails_and_cleans_up(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA)
    t.write(pa.table({"id": [1, 2], "v": ["a", "b"]}))
    live = t.store.manifests.live_entries(t.latest_snapshot())  # type: ignore[arg-type]
    delete = tuple(dataclasses.replace(e, kind=FileKind.DELETE) for e in live)
    commit(t.store, CommitRequest("OVERWRITE", delete))  # the first delete wins
    manifests_before = sorted(os.listdir(os.path.join(t.path, "manifest")))
    with pytest.raises(CommitConflictError, match="no longer exist"):
        commit(t.store, CommitRequest("OVERWRITE", delete))  # the same files again: conflict
    assert t.snapshot_ids() == [1, 2]
    assert sorted(os.listdir(os.path.join(t.path, "manifest"))) == manifests_before
    assert t.read().num_rows == 0


def test_check_deleted_files_exist_names_files(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA)
    t.write(pa.table({"id": [1], "v": ["a"]}))
    live = t.store.manifests.live_entries(t.latest_snapshot())  # type: ignore[arg-type]
    check_deleted_files_exist(live, [dataclasses.replace(live[0], kind=FileKind.DELETE)], "db.t")
    with pytest.raises(CommitConflictError, match=live[0].file.file_name):
        check_deleted_files_exist([], [dataclasses.replace(live[0], kind=FileKind.DELETE)], "db.t")


def test_snapshot_record_counts_and_hints(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA)
    t.write(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"]}))
    t.write(pa.table({"id": [4], "v": ["d"]}))
    t.delete("id = 1")
    s = t.latest_snapshot()
    assert s is not None and s.id == 3
    assert s.total_record_count == 3 and s.delta_record_count == -1
    with open(os.path.join(t.path, "snapshot", "LATEST")) as f:
        assert f.read() == "3"
    with open(os.path.join(t.path, "snapshot", "EARLIEST")) as f:
        assert f.read() == "1"
    # a stale LATEST hint is only a starting point
    with open(os.path.join(t.path, "snapshot", "LATEST"), "w") as f:
        f.write("1")
    assert t.store.snapshots.latest_id() == 3


def test_manifests_are_compacted(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, options={"manifest.merge-min-count": "3"})
    for i in range(8):
        t.write(pa.table({"id": [i], "v": ["x"]}))
    snap = t.latest_snapshot()
    assert snap is not None
    assert len(t.store.manifests.data_manifests(snap)) <= 4
    assert sorted(t.read().column("id").to_pylist()) == list(range(8))


def test_failing_hint_write_keeps_the_committed_snapshot(catalog: Catalog, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    t = catalog.create_table("db.t", SCHEMA)

    def broken(*_a, **_k):  # type: ignore[no-untyped-def]
        raise RuntimeError("hint storage down")

    monkeypatch.setattr(t.file_io, "overwrite_atomic", broken)
    assert t.write(pa.table({"id": [1], "v": ["a"]})) == 1
    monkeypatch.undo()
    assert t.read().column("id").to_pylist() == [1]  # its manifests and data files were kept
