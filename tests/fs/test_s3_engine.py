"""The engine's core operations on a warehouse in an S3-compatible store (moto's server on
127.0.0.1): write, upsert, compact, expire, time travel, tags, branches, orphan removal, system
tables; commits are conditional PUTs; bad endpoints, credentials and buckets fail naming the option."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql.catalog.factory import load_catalog
from paimon_sql.errors import AlreadyExistsError, UnsupportedError, ValidationError
from paimon_sql.fs.file_io import FileIO
from paimon_sql.fs.snapshot_commit import ConditionalPutCommit
from paimon_sql.table.table import Table
from tests.helpers.s3_server import S3Warehouse, running_s3_server

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("dt", pa.string())])


def _table(wh: S3Warehouse, **opts: str) -> Table:
    cat = load_catalog(wh.uri, wh.options)
    cat.create_database("db", ignore_if_exists=True)
    t = cat.create_table("db.t", SCHEMA, primary_keys=["id", "dt"], partition_keys=["dt"],
                         options={"bucket": "2", **opts})
    assert isinstance(t, Table)
    return t


def _rows(t: pa.Table) -> list[tuple[int, str, str]]:
    return sorted(zip(t.column("id").to_pylist(), t.column("v").to_pylist(), t.column("dt").to_pylist()))


def _data(ids: list[int], v: str, day: str = "d1") -> pa.Table:
    return pa.table({"id": ids, "v": [v] * len(ids), "dt": [day] * len(ids)}, schema=SCHEMA)


def test_write_upsert_compact_time_travel_on_s3(s3_warehouse: S3Warehouse) -> None:
    t = _table(s3_warehouse)
    assert isinstance(t.store.file_io.snapshot_commit, ConditionalPutCommit)
    assert t.write(_data([1, 2, 3], "a")) == 1
    assert t.write(_data([2, 3, 4], "b")) == 2
    assert t.write(_data([5], "c", "d2")) == 3
    assert _rows(t.read()) == [(1, "a", "d1"), (2, "b", "d1"), (3, "b", "d1"), (4, "b", "d1"), (5, "c", "d2")]
    assert _rows(t.read(snapshot_id=1)) == [(1, "a", "d1"), (2, "a", "d1"), (3, "a", "d1")]
    t.compact()
    latest = t.latest_snapshot()
    assert latest is not None and latest.commit_kind == "COMPACT"
    assert _rows(t.read()) == _rows(t.read(snapshot_id=3))
    assert t.read(filter="dt = 'd2'").num_rows == 1
    keys = s3_warehouse.server.keys(s3_warehouse.bucket)
    assert "warehouse/db.db/t/snapshot/snapshot-4" in keys
    assert "warehouse/db.db/t/schema/schema-0" in keys
    assert not any(k.endswith(".tmp") for k in keys)  # no temp files: one PUT per metadata file
    # a reopened catalog sees the same table
    again = load_catalog(s3_warehouse.uri, s3_warehouse.options).get_table("db.t")
    assert isinstance(again, Table) and _rows(again.read()) == _rows(t.read())


def test_tags_branches_expire_rollback_on_s3(s3_warehouse: S3Warehouse) -> None:
    t = _table(s3_warehouse)
    for i in range(5):
        t.write(_data([i], f"v{i}"))
    t.create_tag("t2", snapshot_id=2)
    with pytest.raises(AlreadyExistsError, match="already exists"):
        t.create_tag("t2", snapshot_id=3)  # the tag file is created exactly once
    assert _rows(t.read(tag="t2")) == [(0, "v0", "d1"), (1, "v1", "d1")]
    t.create_branch("b", tag="t2")
    b = t.switch_to_branch("b")
    b.write(_data([9], "branch"))
    assert _rows(b.read()) == [(0, "v0", "d1"), (1, "v1", "d1"), (9, "branch", "d1")]
    assert t.read().num_rows == 5
    t.expire_snapshots(retain_max=2, retain_min=1)
    assert t.snapshot_ids() == [4, 5]
    assert _rows(t.read(tag="t2")) == [(0, "v0", "d1"), (1, "v1", "d1")]  # the tag keeps its files
    t.rollback(tag="t2")  # restores the expired snapshot 2 with a conditional put
    assert t.snapshot_ids() == [2]
    assert _rows(t.read()) == [(0, "v0", "d1"), (1, "v1", "d1")]


def test_orphans_and_system_tables_on_s3(s3_warehouse: S3Warehouse) -> None:
    t = _table(s3_warehouse)
    t.write(_data([1, 2], "a"))
    t.write(_data([3], "b", "d2"))
    fio = t.store.file_io
    orphan = f"{t.path}/dt=d1/bucket-0/data-orphan.parquet"
    fio.write_bytes(orphan, b"junk")
    result = t.remove_orphan_files(older_than=dt.datetime.now() + dt.timedelta(days=1))
    assert not fio.exists(orphan)
    assert result is not None
    assert t.read().num_rows == 3
    cat = load_catalog(s3_warehouse.uri, s3_warehouse.options)
    snaps = cat.get_table("db.t$snapshots").read()  # type: ignore[union-attr]
    assert snaps.column("snapshot_id").to_pylist() == [1, 2]
    files = cat.get_table("db.t$files").read()  # type: ignore[union-attr]
    assert files.num_rows == 2
    parts = cat.get_table("db.t$partitions").read()  # type: ignore[union-attr]
    assert sorted(parts.column("partition").to_pylist()) == ["dt=d1", "dt=d2"]


def test_two_writers_racing_on_one_snapshot_id_never_both_win(s3_warehouse: S3Warehouse) -> None:
    t = _table(s3_warehouse)
    fio = t.store.file_io
    path = t.store.snapshots.path(1)
    assert fio.try_create_exclusive(path, b'{"id": 1}') is True
    assert fio.try_create_exclusive(path, b'{"id": 1, "other": true}') is False
    assert fio.read_bytes(path) == b'{"id": 1}'


def test_catalog_options_under_every_paimon_prefix(s3_warehouse: S3Warehouse) -> None:
    s = s3_warehouse.server
    opts = {"fs.s3a.endpoint": s.endpoint, "s3a.access.key": s.options()["s3.access-key"],
            "fs.s3a.secret.key": s.options()["s3.secret-key"], "s3.path-style-access": "true"}
    cat = load_catalog(s3_warehouse.uri, opts)
    cat.create_database("x")
    assert cat.list_databases() == ["x"]


def test_environment_variables(s3_warehouse: S3Warehouse, monkeypatch: pytest.MonkeyPatch) -> None:
    s = s3_warehouse.server
    monkeypatch.setenv("AWS_ENDPOINT_URL", s.endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s.options()["s3.access-key"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s.options()["s3.secret-key"])
    cat = load_catalog(s3_warehouse.uri, {"s3.path.style.access": "true"})
    cat.create_database("envdb")
    assert cat.list_databases() == ["envdb"]


def test_unreachable_endpoint_names_the_option(s3_warehouse: S3Warehouse) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    opts = {**s3_warehouse.options, "s3.endpoint": f"http://127.0.0.1:{port}"}
    with pytest.raises(ValidationError, match="s3.endpoint"):
        load_catalog(s3_warehouse.uri, opts)


def test_wrong_credentials_name_the_options(tmp_path: Path) -> None:
    with running_s3_server(tmp_path, authenticate=True) as server:
        with pytest.raises(ValidationError, match="'s3.access-key' and 's3.secret-key'"):
            load_catalog("s3://some-bucket/wh", server.options())


def test_half_a_key_pair_names_the_missing_option(s3_warehouse: S3Warehouse) -> None:
    opts = {k: v for k, v in s3_warehouse.options.items() if k != "s3.secret-key"}
    with pytest.raises(ValidationError, match="'s3.secret-key' is required"):
        load_catalog(s3_warehouse.uri, opts)
    assert s3_warehouse.server.keys(s3_warehouse.bucket) == []


def test_missing_bucket_is_refused_and_nothing_is_written(s3_warehouse: S3Warehouse) -> None:
    with pytest.raises(ValidationError, match="bucket 'no-such-bucket-here' .* does not exist"):
        load_catalog("s3://no-such-bucket-here/wh", s3_warehouse.options)
    names = [b["Name"] for b in s3_warehouse.server.client().list_buckets()["Buckets"]]
    assert "no-such-bucket-here" not in names


def test_a_store_without_safe_commits_refuses_before_writing(tmp_path: Path) -> None:
    import pyarrow.fs as pafs

    # a pyarrow filesystem with neither atomic create nor conditional put (here: a SubTreeFileSystem)
    fio = FileIO(pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem()))
    assert not fio.capabilities.conditional_create
    with pytest.raises(UnsupportedError, match="'lock.enabled'"):
        fio.try_create_exclusive("snapshot/snapshot-1", b"{}")
    assert not fio.exists("snapshot/snapshot-1")


def test_rename_and_drop_table_on_s3(s3_warehouse: S3Warehouse) -> None:
    t = _table(s3_warehouse)
    t.write(_data([1, 2], "a"))
    cat = load_catalog(s3_warehouse.uri, s3_warehouse.options)
    cat.rename_table("db.t", "db.u")  # a folder copy on an object store
    assert cat.list_tables("db") == ["u"]
    u = cat.get_table("db.u")
    assert isinstance(u, Table) and _rows(u.read()) == [(1, "a", "d1"), (2, "a", "d1")]
    u.write(_data([3], "b"))
    assert u.read().num_rows == 3
    cat.drop_table("db.u")
    assert cat.list_tables("db") == []
    assert not any(k.startswith("warehouse/db.db/u/") for k in s3_warehouse.server.keys(s3_warehouse.bucket))
