"""Distributed writes: one TableWrite per task, one commit on the driver."""

from __future__ import annotations

import os
import pickle

import pyarrow as pa
import pytest

from paimon_sql import Catalog

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("dt", pa.string())])


def rows(ids: list[int], v: str = "a", dt: str = "x") -> pa.Table:
    return pa.table({"id": ids, "v": [v] * len(ids), "dt": [dt] * len(ids)})


@pytest.mark.parametrize("bucket", ["2", "-1"])
def test_many_writers_one_snapshot(catalog: Catalog, bucket: str) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id", "dt"], partition_keys=["dt"],
                             options={"bucket": bucket, "dynamic-bucket.target-row-num": "3"})
    changes = []
    for part in ([1, 2, 3, 4], [5, 6, 7], [8]):  # tasks with disjoint keys (clustered by key)
        w = t.new_write()
        w.write(rows(part))
        changes.append(pickle.loads(pickle.dumps(w.prepare_commit())))  # travels to the driver
    assert t.commit_changes(changes) == 1
    assert t.snapshot_ids() == [1]
    assert sorted(t.read().column("id").to_pylist()) == list(range(1, 9))
    if bucket == "-1":  # index entries of a bucket written by several tasks are merged
        idx = t.store.manifests.index_entries(t.latest_snapshot())  # type: ignore[arg-type]
        assert len({(e.partition, e.bucket) for e in idx}) == len(idx)
        assert sum(e.index_file.row_count for e in idx) == 8
    t.write(rows([1, 8], "b"))
    assert sorted(t.read(filter="v = 'b'").column("id").to_pylist()) == [1, 8]


def test_abort_deletes_files(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA)
    w = t.new_write()
    w.write(rows([1, 2]))
    c = w.prepare_commit()
    assert all(os.path.exists(p) for p in c.written_paths)
    t.abort_changes([c, None])
    assert not any(os.path.exists(p) for p in c.written_paths)
    assert t.snapshot_ids() == []


@pytest.mark.parametrize("pk", [False, True])
def test_abort_after_the_commit_landed_deletes_nothing(catalog: Catalog, pk: bool) -> None:
    # the process that committed died before it could say so (a bridge or commit worker killed
    # after the snapshot file was created): Spark then aborts the write with the same messages
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"] if pk else None,
                             options={"bucket": "2"} if pk else None)
    t.write(rows([7]))
    w = t.new_write()
    w.write(rows([1, 2]))
    c = pickle.loads(pickle.dumps(w.prepare_commit()))
    assert t.commit_changes([c]) == 2
    t.write(rows([3]))  # a later commit by someone else
    t.abort_changes([c, None])
    assert all(os.path.exists(p) for p in c.written_paths)
    assert sorted(t.read().column("id").to_pylist()) == [1, 2, 3, 7]
    # while a write that did not land is still deleted
    w = t.new_write()
    w.write(rows([4]))
    lost = w.prepare_commit()
    t.abort_changes([lost])
    assert not any(os.path.exists(p) for p in lost.written_paths)


def test_dynamic_partition_overwrite(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, partition_keys=["dt"])
    t.write(rows([1, 2], dt="x"))
    t.write(rows([3], dt="y"))
    t.write(rows([9], dt="x"), overwrite="dynamic")  # only partition x is replaced
    assert sorted(t.read().column("id").to_pylist()) == [3, 9]
    assert t.latest_snapshot().commit_kind == "OVERWRITE"  # type: ignore[union-attr]


def test_empty_commit_makes_no_snapshot(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA)
    assert t.commit_changes([t.new_write().prepare_commit()]) is None
    assert t.snapshot_ids() == []
    t.write(rows([1]))
    assert t.commit_changes([], overwrite=True) is not None  # overwrite with nothing empties it
    assert t.read().num_rows == 0
