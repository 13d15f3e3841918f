"""Where data files go: ``data-file.path-directory`` (a folder of the table) and
``data-file.external-paths`` with its strategies (roots outside the table, recorded in
``DataFileMeta._EXTERNAL_PATH``), through writes, reads, compaction, DELETE, expiry, rollback and
orphan cleaning; bad values are refused naming the option."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import TableNotFoundError, UnsupportedError, ValidationError
from paimon_sql.format.murmur import bucket_of
from paimon_sql.fs.data_paths import entropy_dirs, murmur3_32
from paimon_sql.types import BigIntType

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("dt", pa.string())])
OLD = time.time() - 3 * 24 * 3600


def _data_files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*.parquet")}


def _entries(t: Any) -> list[Any]:
    snap = t.store.snapshots.latest()
    return list(t.store.manifests.live_entries(snap))


def _rows(t: Any) -> list[tuple[Any, ...]]:
    return sorted(tuple(r.values()) for r in t.read().to_pylist())


def _write_three(catalog: Catalog, name: str) -> None:
    for i in range(3):
        catalog.get_table(name).write(pa.table({"id": list(range(i, i + 10)), "v": [f"v{i}"] * 10,
                                                "dt": ["a", "b"] * 5}))


def _expected_rows() -> list[tuple[Any, ...]]:
    state: dict[tuple[int, str], str] = {}
    for i in range(3):
        for n, k in enumerate(range(i, i + 10)):
            state[(k, "ab"[n % 2])] = f"v{i}"
    return sorted((k, v, dt) for (k, dt), v in state.items())


def test_path_directory_puts_buckets_under_it(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id", "dt"], partition_keys=["dt"],
                             options={"bucket": "2", "data-file.path-directory": "data"})
    _write_three(catalog, "db.t")
    root = Path(t.path)
    files = _data_files(root)
    assert files and all(f.startswith("data/dt=") and "/bucket-" in f for f in files)
    assert not list(root.glob("dt=*"))
    t = catalog.get_table("db.t")
    assert _rows(t) == _expected_rows()
    assert all(e.file.external_path is None for e in _entries(t))
    t.compact(full=True)
    assert _rows(catalog.get_table("db.t")) == _expected_rows()


def test_remove_orphan_files_with_path_directory(catalog: Catalog) -> None:
    # RemoveOrphanFilesProcedureTest "remove orphan files with data file path directory"
    t = catalog.create_table("db.t", pa.schema([("id", pa.string()), ("name", pa.string())]),
                             primary_keys=["id"], options={"data-file.path-directory": "data"})
    t.write(pa.table({"id": ["1", "2"], "name": ["a", "b"]}))
    orphan = Path(t.path) / "data" / "bucket-0" / "orphan_file1"
    orphan.write_text("b")
    os.utime(orphan, (OLD, OLD))
    r = catalog.get_table("db.t").remove_orphan_files()
    assert (r.deleted_files, r.deleted_bytes) == (1, 1)
    assert not orphan.exists()
    assert catalog.get_table("db.t").read().num_rows == 2


@pytest.mark.parametrize("strategy", ["round-robin", "entropy-inject", "weight-robin"])
def test_external_paths_hold_every_new_file(catalog: Catalog, tmp_path: Path, strategy: str) -> None:
    ext1, ext2 = tmp_path / "ext1", tmp_path / "ext2"
    opts = {"bucket": "2", "data-file.external-paths": f"file://{ext1}, file:{ext2}",
            "data-file.external-paths.strategy": strategy}
    if strategy == "weight-robin":
        opts["data-file.external-paths.weights"] = "3,1"
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id", "dt"], partition_keys=["dt"], options=opts)
    _write_three(catalog, "db.t")
    t = catalog.get_table("db.t")
    assert not _data_files(Path(t.path)), "no data file in the table's folder"
    entries = _entries(t)
    for e in entries:
        ext = e.file.external_path
        assert ext is not None and ext.startswith(("file:" + str(ext1) + "/", "file:" + str(ext2) + "/"))
        rel = ext.split("/dt=", 1)[1]
        part, bucket = rel.split("/")[0], rel.split("/")[1]
        assert part in ("a", "b") and bucket == f"bucket-{e.bucket}"
        assert ext.endswith("/" + e.file.file_name)
        if strategy == "entropy-inject":
            assert f"/bucket-{e.bucket}/{entropy_dirs(e.file.file_name)}/{e.file.file_name}" in ext
        assert Path(ext[len("file:"):]).is_file()
    if strategy == "round-robin":
        assert {e.file.external_path.split("/dt=")[0] for e in entries} == {f"file:{ext1}", f"file:{ext2}"}
    assert _rows(t) == _expected_rows()

    # compaction writes to the external roots too; expiry deletes the replaced external files
    before = {e.file.external_path for e in entries}
    t.compact(full=True)
    t = catalog.get_table("db.t")
    assert _rows(t) == _expected_rows()
    after = {e.file.external_path for e in _entries(t)}
    assert after.isdisjoint(before) and all(p.startswith("file:") for p in after)
    t.expire_snapshots(retain_max=1, retain_min=1)
    for p in before:
        assert not Path(p[len("file:"):]).exists()
    for p in after:
        assert Path(p[len("file:"):]).is_file()
    assert _rows(catalog.get_table("db.t")) == _expected_rows()


def test_external_paths_delete_rollback_and_orphans(catalog: Catalog, tmp_path: Path) -> None:
    # DeletionVectorTest "delete from non-pk table with data file external paths" (Python API)
    ext = tmp_path / "ext"
    t = catalog.create_table(
        "db.t", pa.schema([("id", pa.int32()), ("v", pa.int32())]),
        options={"deletion-vectors.enabled": "true", "bucket-key": "id", "bucket": "1",
                 "data-file.external-paths": f"file://{ext}", "data-file.external-paths.strategy": "round-robin"},
    )
    ids = pa.array(range(1, 50000), pa.int32())
    t.write(pa.table({"id": ids, "v": ids}))
    t = catalog.get_table("db.t")
    t.delete("id >= 111 and id <= 444")
    t = catalog.get_table("db.t")
    data = t.read()
    assert data.num_rows == 49665 and sum(data.column("v").to_pylist()) == 1249882315
    assert all(e.file.external_path for e in _entries(t))

    # rollback to the first snapshot reads the external files it references
    t.rollback(snapshot_id=1)
    assert catalog.get_table("db.t").read().num_rows == 49999

    # orphan cleaning lists the bucket folders under each external root, and nothing else there
    bucket_dir = next(ext.rglob("bucket-0"))
    orphan = bucket_dir / "data-orphan-0.parquet"
    orphan.write_bytes(b"x" * 7)
    outside = ext / "not-a-bucket.txt"
    outside.write_bytes(b"y")
    for p in ext.rglob("*"):
        if p.is_file():
            os.utime(p, (OLD, OLD))
    r = catalog.get_table("db.t").remove_orphan_files()
    assert not orphan.exists() and outside.exists()
    assert str(orphan) in r.deleted
    assert catalog.get_table("db.t").read().num_rows == 49999


def test_strategy_none_and_specific_fs(catalog: Catalog, tmp_path: Path) -> None:
    ext = tmp_path / "ext"
    t = catalog.create_table("db.n", SCHEMA, options={
        "data-file.external-paths": f"file://{ext}", "data-file.external-paths.strategy": "none"})
    t.write(pa.table({"id": [1], "v": ["a"], "dt": ["x"]}))
    assert not ext.exists() and _data_files(Path(t.path))
    # specific-fs keeps the roots of its scheme (Paimon's check is case-insensitive)
    t = catalog.create_table("db.s", SCHEMA, options={
        "data-file.external-paths": f"s3://bucket/x,file://{ext}", "data-file.external-paths.strategy": "specific-fs",
        "data-file.external-paths.specific-fs": "FILE"})
    t.write(pa.table({"id": [1], "v": ["a"], "dt": ["x"]}))
    assert _data_files(ext) and not _data_files(Path(t.path))
    assert catalog.get_table("db.s").read().num_rows == 1


@pytest.mark.parametrize(
    "options, error, match",
    [
        ({"data-file.path-directory": "../up"}, ValidationError, r"'data-file.path-directory'.*'\.\.'"),
        ({"data-file.path-directory": "/abs"}, ValidationError, r"'data-file.path-directory'.*relative"),
        ({"data-file.external-paths": "/no/scheme", "data-file.external-paths.strategy": "round-robin"},
         ValidationError, r"'data-file.external-paths'.*scheme should not be null"),
        ({"data-file.external-paths": "s3://b/x", "data-file.external-paths.strategy": "round-robin"},
         UnsupportedError, r"'data-file.external-paths'.*scheme 's3' are not supported"),
        ({"data-file.external-paths": "file:///a/../b", "data-file.external-paths.strategy": "round-robin"},
         ValidationError, r"'data-file.external-paths'.*'\.\.'"),
        ({"data-file.external-paths": "file:///a", "data-file.external-paths.strategy": "specific-fs"},
         ValidationError, "External path specificFS should not be null"),
        ({"data-file.external-paths": "file:///a", "data-file.external-paths.strategy": "specific-fs",
          "data-file.external-paths.specific-fs": "s3"}, ValidationError, "External paths should not be empty"),
        ({"data-file.external-paths": "file:///a,file:///b", "data-file.external-paths.strategy": "weight-robin",
          "data-file.external-paths.weights": "1,0"}, ValidationError, "Weight must be positive, got: 0"),
        ({"data-file.external-paths": "file:///a,file:///b", "data-file.external-paths.strategy": "weight-robin",
          "data-file.external-paths.weights": "1"}, ValidationError, "Paths: 2, Weights: 1"),
        ({"data-file.external-paths.strategy": "sideways"}, ValidationError, "data-file.external-paths.strategy"),
    ],
)
def test_bad_values_are_refused_naming_the_option(
    catalog: Catalog, options: dict[str, str], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        catalog.create_table("db.bad", SCHEMA, options=options)
    with pytest.raises(TableNotFoundError):  # a refused table is not created
        catalog.get_table("db.bad")


def test_murmur3_matches_guava() -> None:
    # MurmurHash3_x86_32 reference values (seed 0), as Guava's Hashing.murmur3_32 gives them
    assert murmur3_32(b"") == 0
    assert murmur3_32(b"hello") == 0x248BFA47
    assert murmur3_32(b"The quick brown fox jumps over the lazy dog") == 0x2E4FF723


@pytest.mark.parametrize("clean", [True, False])
def test_expiry_cleans_empty_directories(catalog: Catalog, clean: bool) -> None:
    # FileDeletionTest.testMultiPartitions: partitions (dt, hr), two buckets each; dt=0401 and
    # dt=0402/hr=8 are overwritten empty, dt=0402/hr=12/bucket-0 loses every row; expiring down to
    # the latest snapshot removes the folders left empty when snapshot.clean-empty-directories is set
    schema = pa.schema([("k", pa.int64()), ("dt", pa.string()), ("hr", pa.int32()), ("v", pa.string())])
    t = catalog.create_table("db.t", schema, primary_keys=["k", "dt", "hr"], partition_keys=["dt", "hr"],
                             options={"bucket": "2", "snapshot.clean-empty-directories": str(clean).lower()})
    keys = pa.array(range(40), pa.int64())
    buckets = bucket_of([keys], [BigIntType(nullable=False)], 2)
    rows = [(k, dt, hr, "x") for dt in ("0401", "0402") for hr in (8, 12) for k in range(40)]
    t.write(pa.Table.from_pylist([dict(zip(schema.names, r)) for r in rows], schema))
    root = Path(t.path)
    for dt in ("0401", "0402"):
        for hr in (8, 12):
            for b in (0, 1):
                assert (root / f"dt={dt}" / f"hr={hr}" / f"bucket-{b}").is_dir()
    empty = pa.Table.from_pylist([], schema)
    catalog.get_table("db.t").write(empty, overwrite={"dt": "0401"})
    catalog.get_table("db.t").write(empty, overwrite={"dt": "0402", "hr": 8})
    in_bucket_0 = [k for k, b in zip(range(40), buckets) if b == 0]
    catalog.get_table("db.t").delete(f"dt = '0402' AND hr = 12 AND k IN ({', '.join(map(str, in_bucket_0))})")
    catalog.get_table("db.t").compact(full=True)
    t = catalog.get_table("db.t")
    t.expire_snapshots(retain_max=1, retain_min=1)

    assert (root / "dt=0402" / "hr=12" / "bucket-1").is_dir()
    if clean:
        assert not (root / "dt=0401").exists()
        assert not (root / "dt=0402" / "hr=8").exists()
        assert not (root / "dt=0402" / "hr=12" / "bucket-0").exists()
    else:
        for d in ("dt=0401/hr=8/bucket-0", "dt=0401/hr=12/bucket-1", "dt=0402/hr=8/bucket-0",
                  "dt=0402/hr=12/bucket-0"):
            assert (root / d).is_dir() and not list((root / d).iterdir())
    assert catalog.get_table("db.t").read().num_rows == 40 - len(in_bucket_0)


def test_rollback_leaves_orphans_in_external_roots_for_orphan_cleaning(catalog: Catalog, tmp_path: Path) -> None:
    # a rollback deletes no data file (Paimon 1.2+); the external files of the removed snapshots are
    # then orphans, which remove_orphan_files deletes from the external root, keeping what is used
    ext = tmp_path / "ext"
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id", "dt"], partition_keys=["dt"],
                             options={"bucket": "2", "data-file.external-paths": f"file://{ext}",
                                      "data-file.external-paths.strategy": "round-robin"})
    _write_three(catalog, "db.t")
    t = catalog.get_table("db.t")
    first = {e.file.external_path for e in t.store.manifests.live_entries(t.store.snapshots.snapshot(1))}
    first_rows = sorted(tuple(r.values()) for r in t.read(snapshot_id=1).to_pylist())
    t.rollback(snapshot_id=1)
    later = {str(p) for p in ext.rglob("*.parquet")} - {p[len("file:"):] for p in first}
    assert later
    for p in ext.rglob("*"):
        if p.is_file():
            os.utime(p, (OLD, OLD))
    r = catalog.get_table("db.t").remove_orphan_files()
    assert set(r.deleted) == later
    assert {str(p) for p in ext.rglob("*.parquet")} == {p[len("file:"):] for p in first}
    assert _rows(catalog.get_table("db.t")) == first_rows


def test_drop_table_deletes_its_external_roots(catalog: Catalog, tmp_path: Path) -> None:
    # CatalogTestBase.testDropTableWithExternalPaths: DROP TABLE deletes the roots of
    # data-file.external-paths and global-index.external-path of every schema (whatever the strategy)
    data_ext, index_ext, later = tmp_path / "data-external-path", tmp_path / "global-index-external-path", tmp_path / "l"
    (data_ext / "data").mkdir(parents=True)
    (index_ext / "index").mkdir(parents=True)
    t = catalog.create_table("db.x", SCHEMA, options={"data-file.external-paths": data_ext.as_uri(),
                                                       "global-index.external-path": index_ext.as_uri()})
    t.alter(set_options={"data-file.external-paths": f"file://{later}",
                         "data-file.external-paths.strategy": "round-robin"})
    catalog.get_table("db.x").write(pa.table({"id": [1], "v": ["a"], "dt": ["x"]}))
    assert list(later.rglob("*.parquet"))
    # a root holding the warehouse is never deleted
    catalog.create_table("db.y", SCHEMA, options={"data-file.external-paths": tmp_path.as_uri()})
    catalog.drop_table("db.x")
    assert not data_ext.exists() and not index_ext.exists() and not later.exists()
    catalog.drop_table("db.y")
    assert tmp_path.exists() and Path(catalog.warehouse).exists()


def test_path_directory_cannot_change(catalog: Catalog) -> None:
    # an @Immutable option: Paimon's checkAlterTableOption refuses the change (existing files would
    # be looked up in the wrong folder)
    t = catalog.create_table("db.t", SCHEMA)
    t.write(pa.table({"id": [1], "v": ["a"], "dt": ["x"]}))
    with pytest.raises(UnsupportedError, match=r"Change 'data-file.path-directory' is not supported yet"):
        t.alter(set_options={"data-file.path-directory": "data"})
    u = catalog.create_table("db.u", SCHEMA, options={"data-file.path-directory": "data"})
    u.write(pa.table({"id": [1], "v": ["a"], "dt": ["x"]}))  # as Paimon: an empty table may change it
    with pytest.raises(UnsupportedError, match=r"Change 'data-file.path-directory' is not supported yet"):
        u.alter(remove_options=["data-file.path-directory"])
    assert catalog.get_table("db.t").read().num_rows == 1
