from __future__ import annotations

import os

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import (
    CorruptFileError,
    NotFoundError,
    UnsupportedError,
    ValidationError,
)

PK_SCHEMA = pa.schema([("id", pa.int64()), ("k", pa.string()), ("v", pa.float64()), ("dt", pa.string())])


def rows(table: pa.Table, *keys: str) -> list[dict]:
    return sorted(table.to_pylist(), key=lambda r: tuple(r[k] for k in keys))


def all_files(path: str) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), path) for d, _, fs in os.walk(path) for f in fs)


def data(ids, k="x", v=1.0, dt="d1"):  # type: ignore[no-untyped-def]
    n = len(ids)
    return pa.table({"id": ids, "k": [f"{k}{i}" for i in ids], "v": [v] * n, "dt": [dt] * n})


@pytest.mark.parametrize("bucket", ["2", "-1"])
@pytest.mark.parametrize("partitioned", [False, True])
def test_pk_upsert_delete_time_travel(catalog: Catalog, bucket: str, partitioned: bool) -> None:
    parts = ["dt"] if partitioned else []
    pks = ["id", "dt"] if partitioned else ["id"]
    t = catalog.create_table("db.t", PK_SCHEMA, primary_keys=pks, partition_keys=parts,
                             options={"bucket": bucket})
    s1 = t.write(data([1, 2, 3]))
    s2 = t.write(data([2, 3, 4], k="y", v=2.0))
    s3 = t.delete("id = 3")
    assert (s1, s2, s3) == (1, 2, 3)
    assert t.snapshot_ids() == [1, 2, 3]
    assert [r["id"] for r in rows(t.read(), "id")] == [1, 2, 4]
    assert rows(t.read(), "id")[1] == {"id": 2, "k": "y2", "v": 2.0, "dt": "d1"}
    assert [r["id"] for r in rows(t.read(snapshot_id=1), "id")] == [1, 2, 3]
    assert rows(t.read(snapshot_id=1), "id")[1]["k"] == "x2"
    assert [r["id"] for r in rows(t.read(snapshot_id=2), "id")] == [1, 2, 3, 4]
    snap2 = t.snapshot(2)
    assert [r["id"] for r in rows(t.read(timestamp_ms=snap2.time_millis), "id")] == [1, 2, 3, 4]
    assert t.latest_snapshot().total_record_count == 3 + 3 + 1  # type: ignore[union-attr]
    assert t.read(columns=["k"], filter="id >= 2").column("k").to_pylist() in (["y2", "y4"], ["y4", "y2"])


def test_same_key_twice_in_one_write_last_wins(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", PK_SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    t.write(pa.table({"id": [1, 1, 1], "k": ["a", "b", "c"], "v": [1.0, 2.0, 3.0], "dt": ["d"] * 3}))
    assert t.read().to_pylist() == [{"id": 1, "k": "c", "v": 3.0, "dt": "d"}]


def test_sequence_field(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", PK_SCHEMA, primary_keys=["id"],
                             options={"bucket": "1", "sequence.field": "v"})
    t.write(pa.table({"id": [1], "k": ["new"], "v": [5.0], "dt": ["d"]}))
    t.write(pa.table({"id": [1], "k": ["old"], "v": [1.0], "dt": ["d"]}))
    assert t.read().column("k").to_pylist() == ["new"]


def test_rowkind_field(catalog: Catalog) -> None:
    schema = pa.schema([("id", pa.int64()), ("op", pa.string())])
    t = catalog.create_table("db.t", schema, primary_keys=["id"],
                             options={"bucket": "1", "rowkind.field": "op"})
    t.write(pa.table({"id": [1, 2, 3], "op": ["+I", "+I", "+I"]}))
    t.write(pa.table({"id": [2, 3], "op": ["-D", "+U"]}))
    assert sorted(t.read().column("id").to_pylist()) == [1, 3]
    with pytest.raises(ValidationError, match="'xx'.*op"):
        t.write(pa.table({"id": [9], "op": ["xx"]}))


def test_ignore_delete(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", PK_SCHEMA, primary_keys=["id"],
                             options={"bucket": "1", "ignore-delete": "true"})
    t.write(data([1, 2]))
    assert t.delete("id = 1") is not None or True
    assert sorted(t.read().column("id").to_pylist()) == [1, 2]


@pytest.mark.parametrize("bucket", [None, "3"])
def test_append_table(catalog: Catalog, bucket: str | None) -> None:
    opts = {"bucket": bucket, "bucket-key": "id"} if bucket else {}
    t = catalog.create_table("db.a", PK_SCHEMA, partition_keys=["dt"], options=opts)
    t.write(data([1, 2, 3], dt="d1"))
    t.write(data([1, 5], dt="d2"))
    assert len(t.read()) == 5
    assert sorted(t.read(filter="dt = 'd2'").column("id").to_pylist()) == [1, 5]
    sid = t.delete("id = 1")
    assert sid == 3 and t.snapshot(3).commit_kind == "OVERWRITE"
    assert sorted(t.read().column("id").to_pylist()) == [2, 3, 5]
    assert len(t.read(snapshot_id=2)) == 5
    assert t.delete("id = 100") is None


def test_overwrite(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", PK_SCHEMA, partition_keys=["dt"])
    t.write(data([1, 2], dt="d1"))
    t.write(data([3], dt="d2"))
    t.write(data([7], dt="d1"), overwrite={"dt": "d1"})
    assert rows(t.read(), "id") == [{"id": 3, "k": "x3", "v": 1.0, "dt": "d2"}, {"id": 7, "k": "x7", "v": 1.0, "dt": "d1"}]
    assert t.latest_snapshot().commit_kind == "OVERWRITE"  # type: ignore[union-attr]
    with pytest.raises(ValidationError, match="outside"):
        t.write(data([8], dt="d9"), overwrite={"dt": "d1"})
    t.write(data([9], dt="d3"), overwrite=True)
    assert t.read().column("id").to_pylist() == [9]
    assert t.latest_snapshot().total_record_count == 1  # type: ignore[union-attr]


def test_tags(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", PK_SCHEMA)
    t.write(data([1]))
    snap = t.snapshot(1)
    os.makedirs(os.path.join(t.path, "tag"))
    with open(os.path.join(t.path, "tag", "tag-v1"), "w") as f:
        f.write(snap.to_json())
    t.write(data([2]))
    assert t.read(tag="v1").column("id").to_pylist() == [1]
    with pytest.raises(NotFoundError, match="Tag 'nope'"):
        t.read(tag="nope")
    with pytest.raises(NotFoundError, match="Snapshot 99"):
        t.read(snapshot_id=99)


def test_alter_and_read_old_files(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", PK_SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    t.write(data([1, 2]))
    t = t.alter(add_columns=[pa.field("extra", pa.int32())], rename_columns={"k": "name"},
                drop_columns=["v"])
    assert t.schema.id == 1
    assert t.schema.field_names == ["id", "name", "dt", "extra"]
    t.write(pa.table({"id": [2], "name": ["n2"], "dt": ["d1"], "extra": [7]}))
    assert rows(t.read(), "id") == [
        {"id": 1, "name": "x1", "dt": "d1", "extra": None},
        {"id": 2, "name": "n2", "dt": "d1", "extra": 7},
    ]
    # time travel reads with the schema of that snapshot
    assert t.read(snapshot_id=1).column_names == ["id", "k", "v", "dt"]
    t = t.alter(change_types={"extra": pa.int64()})
    assert t.read(filter="extra = 7").column("extra").type == pa.int64()
    with pytest.raises(ValidationError, match="cannot be converted to DATE without losing information"):
        t.alter(change_types={"extra": pa.date32()})
    with pytest.raises(UnsupportedError, match="primary key"):
        t.alter(drop_columns=["id"])
    with pytest.raises(ValidationError, match="bucket"):
        t.alter(set_options={"bucket": "x"})


def test_bad_writes_leave_table_unchanged(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", PK_SCHEMA, primary_keys=["id"], options={"bucket": "2"})
    t.write(data([1]))
    before = all_files(t.path)
    with pytest.raises(ValidationError, match="'id'.*nulls"):
        t.write(pa.table({"id": [None, 5], "k": ["a", "b"], "v": [1.0, 2.0], "dt": ["d", "d"]}))
    with pytest.raises(ValidationError, match="column 'v'"):
        t.write(pa.table({"id": [5], "k": ["a"], "v": ["not a number"], "dt": ["d"]}))
    with pytest.raises(ValidationError, match="missing columns"):
        t.write(pa.table({"id": [5]}))

    def batches():  # a stream that fails half way: nothing may be committed
        yield pa.record_batch(data([7, 8]).to_batches()[0])
        raise RuntimeError("source failed")

    with pytest.raises(RuntimeError):
        t.write(batches())
    assert t.snapshot_ids() == [1]
    assert all_files(t.path) == before
    with pytest.raises(ValidationError):
        t.read(filter="nope = 1")


def test_corrupt_snapshot_and_manifest(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", PK_SCHEMA)
    t.write(data([1]))
    t.write(data([2]))
    snap_path = os.path.join(t.path, "snapshot", "snapshot-2")
    with open(snap_path, "w") as f:
        f.write('{"version": 3, "id": 2, "sch')
    with pytest.raises(CorruptFileError, match="snapshot-2"):
        t.read()
    os.remove(snap_path)
    with open(os.path.join(t.path, "snapshot", "LATEST"), "w") as f:
        f.write("1")
    snap = t.snapshot(1)
    manifest_list = os.path.join(t.path, "manifest", snap.delta_manifest_list)
    with open(manifest_list, "r+b") as f:
        f.truncate(20)
    with pytest.raises(CorruptFileError, match=snap.delta_manifest_list):
        t.read()


def test_first_row_writes_of_a_write_only_table_show_after_compaction(catalog: Catalog) -> None:
    """Batch reads of first-row tables skip level 0 (as Paimon's): a write-only writer leaves its
    files there, so its rows show once a compaction moved them up."""
    t = catalog.create_table("db.t", PK_SCHEMA, primary_keys=["id"],
                             options={"bucket": "1", "merge-engine": "first-row", "write-only": "true"})
    t.write(data([1]))
    assert t.read().num_rows == 0
    t.compact()
    assert t.read().num_rows == 1
