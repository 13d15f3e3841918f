"""remove_orphan_files: exactly the files no snapshot, tag, branch or changelog references go, once
older than the cut-off; everything still reads; dry runs delete nothing; errors change nothing."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import ValidationError
from paimon_sql.procedures import call_procedure

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("dt", pa.string())])
OLD = time.time() - 3 * 24 * 3600


def _age_everything(root: Path) -> None:
    for p in root.rglob("*"):
        if p.is_file():
            os.utime(p, (OLD, OLD))


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def _every_version(t: Any) -> dict[str, list[Any]]:
    out = {f"s{sid}": sorted(map(repr, t.read(snapshot_id=sid).to_pylist())) for sid in t.snapshot_ids()}
    out.update({f"tag:{n}": sorted(map(repr, t.read(tag=n).to_pylist())) for n in t.store.tags.tag_names()})
    return out


def _build(catalog: Catalog) -> Any:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id", "dt"], partition_keys=["dt"],
                             options={"bucket": "2", "deletion-vectors.enabled": "true",
                                      "num-sorted-run.compaction-trigger": "2"})
    for i in range(5):
        catalog.get_table("db.t").write(pa.table({"id": list(range(i, i + 30)), "v": [f"v{i}"] * 30,
                                                  "dt": ["a", "b"] * 15}))
        if i == 1:
            catalog.get_table("db.t").create_tag("t1")
    t = catalog.get_table("db.t")
    t.create_branch("b", tag="t1")
    b = t.switch_to_branch("b")
    b.write(pa.table({"id": [500], "v": ["branch"], "dt": ["a"]}))
    return catalog.get_table("db.t")


def test_only_unreferenced_old_files_go(catalog: Catalog) -> None:
    t = _build(catalog)
    root = Path(t.path)
    before = _every_version(t)
    branch_before = _every_version(t.switch_to_branch("b"))
    # orphans of every kind: a data file, a manifest, an index file, a stray file beside snapshots,
    # and a prepared but never committed write (its data files and index file)
    (root / "dt=a" / "bucket-0" / "data-orphan-0.parquet").write_bytes(b"x" * 10)
    (root / "manifest" / "manifest-orphan-0").write_bytes(b"y" * 20)
    (root / "index" / "index-orphan-0").write_bytes(b"z" * 30)
    (root / "snapshot" / ".snapshot-99.tmp").write_bytes(b"w")
    w = t.new_write()
    w.write(pa.table({"id": [1000], "v": ["lost"], "dt": ["b"]}))
    lost = w.prepare_commit()
    _age_everything(root)
    kept_before = _files(root)
    expected = {"dt=a/bucket-0/data-orphan-0.parquet", "manifest/manifest-orphan-0", "index/index-orphan-0",
                "snapshot/.snapshot-99.tmp"}
    expected |= {str(Path(p).relative_to(root)) for p in lost.written_paths}

    dry = t.remove_orphan_files(dry_run=True)
    assert {str(Path(p).relative_to(root)) for p in dry.deleted} == expected
    assert _files(root) == kept_before

    r = t.remove_orphan_files()
    assert r.deleted_files == len(expected) == dry.deleted_files and r.deleted_bytes == dry.deleted_bytes
    assert _files(root) == kept_before - expected
    t = catalog.get_table("db.t")
    assert _every_version(t) == before
    assert _every_version(t.switch_to_branch("b")) == branch_before
    assert t.remove_orphan_files().deleted_files == 0


def test_recent_orphans_stay_unless_older_than(catalog: Catalog) -> None:
    t = _build(catalog)
    before = _every_version(t)
    root = Path(t.path)
    orphan = root / "dt=b" / "bucket-1" / "data-fresh-0.parquet"
    orphan.write_bytes(b"fresh")
    assert t.remove_orphan_files().deleted_files == 0  # written less than a day ago
    assert orphan.exists()
    future = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() + 60))
    rows = call_procedure(catalog, "remove_orphan_files", {"table": "db.t", "older_than": future}).rows
    assert rows == [(1, 5)] and not orphan.exists()
    assert _every_version(catalog.get_table("db.t")) == before  # the table's own files were newer


def test_procedure_forms_and_errors(catalog: Catalog) -> None:
    _build(catalog)
    catalog.create_table("db.u", SCHEMA)
    catalog.get_table("db.u").write(pa.table({"id": [1], "v": ["x"], "dt": ["a"]}))
    for t in ("db.t", "db.u"):
        p = Path(catalog.get_table(t).path) / "manifest" / "manifest-orphan-1"
        p.write_bytes(b"o")
        os.utime(p, (OLD, OLD))
    result = call_procedure(catalog, "remove_orphan_files", {"table": "db.*", "dry_run": True})
    assert result.columns == [("deletedFileCount", "BIGINT"), ("deletedFileTotalLenInBytes", "BIGINT")]
    assert result.rows == [(2, 2)]
    with pytest.raises(ValidationError, match="Unknown mode: fast"):
        call_procedure(catalog, "remove_orphan_files", {"table": "db.t", "mode": "fast"})
    with pytest.raises(ValidationError, match="older_than"):
        call_procedure(catalog, "remove_orphan_files", {"table": "db.t", "older_than": "yesterday"})
    assert call_procedure(catalog, "remove_orphan_files", {"table": "db.t", "mode": "local"}).rows == [(1, 1)]
    assert (Path(catalog.get_table("db.u").path) / "manifest" / "manifest-orphan-1").exists()


def test_a_branch_without_schema_aborts(catalog: Catalog) -> None:
    t = _build(catalog)
    root = Path(t.path)
    (root / "branch" / "branch-broken").mkdir()
    p = root / "manifest" / "manifest-orphan-2"
    p.write_bytes(b"o")
    os.utime(p, (OLD, OLD))
    with pytest.raises(ValidationError, match=r"Branches \['broken'\].*have no schemas"):
        t.remove_orphan_files()
    assert p.exists()
