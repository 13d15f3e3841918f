"""Rollback to a snapshot or a tag: history, hints, tags, data, and interrupted rollbacks."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.errors import NotFoundError, ValidationError
from paimon_sql.fs.file_io import FileIO
from paimon_sql.ops.rollback import rollback
from paimon_sql.ops.tags import create_tag

CORPUS = Path(os.environ.get("PAIMON_JAVA_CORPUS", "/work/shared/fixtures/java-corpus"))
JAVA_WRITTEN = Path(os.environ.get("PAIMON_JAVA_WRITTEN", "/work/shared/fixtures/java-written"))


def _table(catalog: Catalog, n: int) -> Table:
    t = catalog.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]))
    assert isinstance(t, Table)
    for i in range(1, n + 1):
        t.write(pa.table({"id": [i], "v": [str(i)]}))
    return t


def _ids(t: Table) -> list[int]:
    return sorted(t.read()["id"].to_pylist())


def _hint(t: Table, name: str) -> str:
    return Path(t.path, "snapshot", name).read_text().strip()


def _all_files(path: str) -> set[str]:
    out = set()
    for root, _, names in os.walk(path):
        for n in names:
            if not n.startswith("."):
                out.add(os.path.relpath(os.path.join(root, n), path))
    return out


def test_rollback_to_snapshot(catalog: Catalog) -> None:
    t = _table(catalog, 5)
    create_tag(t.store, "at2", 2)
    create_tag(t.store, "at4", 4)
    create_tag(t.store, "at4b", 4)
    data_before = {f for f in _all_files(t.path) if "bucket-" in f or f.startswith("manifest/")}
    r = rollback(t.store, snapshot_id=3)
    assert (r.previous_snapshot_id, r.current_snapshot_id) == (5, 3)
    assert r.deleted_snapshots == (5, 4) and r.deleted_tags == ("at4", "at4b") and not r.restored_snapshot
    assert t.snapshot_ids() == [1, 2, 3]
    assert _hint(t, "LATEST") == "3"
    assert sorted(t.store.tags.tag_names()) == ["at2"]
    assert _ids(t) == [1, 2, 3]
    # data files and manifests stay (orphans of the removed snapshots, as in Paimon 1.2+)
    assert data_before <= _all_files(t.path)
    # the table goes on from the rolled-back snapshot
    assert t.write(pa.table({"id": [10], "v": ["x"]})) == 4
    assert _ids(t) == [1, 2, 3, 10]
    assert t.snapshot(4).total_record_count == 4


def test_rollback_to_tag_with_live_snapshot(catalog: Catalog) -> None:
    t = _table(catalog, 4)
    create_tag(t.store, "two", 2)
    r = rollback(t.store, tag="two")
    assert (r.previous_snapshot_id, r.current_snapshot_id, r.restored_snapshot) == (4, 2, False)
    assert t.snapshot_ids() == [1, 2] and _ids(t) == [1, 2]
    assert t.store.tags.tag_names() == ["two"]


def _expire(t: Table, up_to: int) -> None:
    for sid in range(1, up_to + 1):
        os.remove(Path(t.path, "snapshot", f"snapshot-{sid}"))
    Path(t.path, "snapshot", "EARLIEST").write_text(str(up_to + 1))


def test_rollback_to_tag_whose_snapshot_expired(catalog: Catalog) -> None:
    t = _table(catalog, 5)
    create_tag(t.store, "two", 2, time_retained_ms=60_000)
    tag_obj = json.loads(Path(t.path, "tag", "tag-two").read_text())
    _expire(t, 3)
    r = rollback(t.store, tag="two")
    assert (r.previous_snapshot_id, r.current_snapshot_id, r.restored_snapshot) == (5, 2, True)
    assert r.deleted_snapshots == (5, 4)
    assert t.snapshot_ids() == [2]
    assert _hint(t, "LATEST") == "2" and _hint(t, "EARLIEST") == "2"
    restored = json.loads(Path(t.path, "snapshot", "snapshot-2").read_text())
    tag_obj.pop("tagCreateTime")
    tag_obj.pop("tagTimeRetained")
    assert restored == tag_obj  # the tag trimmed to a snapshot
    assert _ids(t) == [1, 2]
    assert t.write(pa.table({"id": [7], "v": ["7"]})) == 3
    assert _ids(t) == [1, 2, 7]


def test_rollback_by_id_of_an_expired_but_tagged_snapshot(catalog: Catalog) -> None:
    t = _table(catalog, 4)
    create_tag(t.store, "b-tag", 2)
    create_tag(t.store, "a-tag", 2)
    _expire(t, 2)
    r = rollback(t.store, snapshot_id=2)
    assert r.current_snapshot_id == 2 and r.restored_snapshot
    assert t.snapshot_ids() == [2] and _ids(t) == [1, 2]
    assert sorted(t.store.tags.tag_names()) == ["a-tag", "b-tag"]


def test_rollback_errors_leave_the_table_alone(catalog: Catalog) -> None:
    empty = catalog.create_table("db.e", pa.schema([("id", pa.int64())]))
    assert isinstance(empty, Table)
    with pytest.raises(NotFoundError, match="db.e.*no snapshot"):
        rollback(empty.store, snapshot_id=1)
    t = _table(catalog, 3)
    before = _all_files(t.path)
    with pytest.raises(NotFoundError, match="snapshot 9"):
        rollback(t.store, snapshot_id=9)
    with pytest.raises(NotFoundError, match="tag 'nope'"):
        rollback(t.store, tag="nope")
    with pytest.raises(ValidationError, match="exactly one"):
        rollback(t.store, snapshot_id=1, tag="x")
    with pytest.raises(ValidationError, match="exactly one"):
        rollback(t.store)
    with pytest.raises(ValidationError):
        rollback(t.store, snapshot_id="2")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        rollback(t.store, tag="a/b")
    _expire(t, 1)
    with pytest.raises(NotFoundError, match="snapshot 1"):
        rollback(t.store, snapshot_id=1)  # expired and not tagged
    assert _all_files(t.path) == before - {"snapshot/snapshot-1"}


def test_rollback_cleans_long_lived_changelogs(catalog: Catalog) -> None:
    t = _table(catalog, 4)
    folder = Path(t.path, "changelog")
    folder.mkdir()
    for i in (1, 2, 3, 4):
        Path(folder, f"changelog-{i}").write_text("{}")
    Path(folder, "LATEST").write_text("4")
    rollback(t.store, snapshot_id=2)
    assert sorted(p.name for p in folder.iterdir()) == ["LATEST", "changelog-1", "changelog-2"]
    assert Path(folder, "LATEST").read_text() == "2"


class _Crash(Exception):
    """A crash injected in the middle of a rollback."""


@pytest.mark.parametrize("allowed", [0, 1, 2])
def test_interrupted_rollback_leaves_a_readable_table(catalog: Catalog, monkeypatch, allowed: int) -> None:  # type: ignore[no-untyped-def]
    t = _table(catalog, 5)
    create_tag(t.store, "at5", 5)
    calls = {"n": 0}
    original = FileIO.delete

    def flaky(self, path):  # type: ignore[no-untyped-def]
        if "/snapshot/snapshot-" in path:
            if calls["n"] >= allowed:
                raise _Crash(path)
            calls["n"] += 1
        return original(self, path)

    monkeypatch.setattr(FileIO, "delete", flaky)
    with pytest.raises(_Crash):
        rollback(t.store, snapshot_id=2)
    # readers see a contiguous history ending at a real snapshot, with its rows
    ids = t.snapshot_ids()
    assert ids == list(range(1, 6 - allowed))
    latest = t.latest_snapshot()
    assert latest is not None and latest.id == ids[-1]
    assert _ids(t) == list(range(1, latest.id + 1))
    monkeypatch.setattr(FileIO, "delete", original)
    r = rollback(t.store, snapshot_id=2)  # running it again finishes the job
    assert t.snapshot_ids() == [1, 2] and _ids(t) == [1, 2] and r.current_snapshot_id == 2
    assert t.store.tags.tag_names() == []


def test_interrupted_rollback_to_expired_tag(catalog: Catalog, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    t = _table(catalog, 4)
    create_tag(t.store, "one", 1)
    _expire(t, 2)
    original = FileIO.delete

    def crash(self, path):  # type: ignore[no-untyped-def]
        if path.endswith("snapshot-3"):
            raise _Crash(path)
        return original(self, path)

    monkeypatch.setattr(FileIO, "delete", crash)
    with pytest.raises(_Crash):
        rollback(t.store, tag="one")
    # snapshot-1 came back first; snapshot-4 is gone; the LATEST hint names snapshot 1 but
    # snapshot 3 still exists, so the history a reader walks is still whole and readable
    assert sorted(t.snapshot_ids()) == [1, 3]
    latest = t.latest_snapshot()
    assert latest is not None
    assert _ids(t) == list(range(1, latest.id + 1))
    monkeypatch.setattr(FileIO, "delete", original)
    rollback(t.store, tag="one")
    assert t.snapshot_ids() == [1] and _ids(t) == [1]
    assert _hint(t, "EARLIEST") == "1"


def test_rollback_java_written_table(tmp_path: Path) -> None:
    src = JAVA_WRITTEN / "default.db" / "test_pk_full_text_golden"
    if not src.is_dir():
        pytest.skip("Java-written fixtures not found")
    shutil.copytree(src, tmp_path / "wh" / "default.db" / "test_pk_full_text_golden")
    cat = Catalog(str(tmp_path / "wh"))
    t = cat.get_table("default.test_pk_full_text_golden")
    assert isinstance(t, Table)
    at4 = t.read(snapshot_id=4).sort_by("id")
    create_tag(t.store, "s6", 6)
    r = rollback(t.store, snapshot_id=4)
    assert (r.previous_snapshot_id, r.current_snapshot_id) == (8, 4)
    assert t.snapshot_ids() == [1, 2, 3, 4]
    assert t.read().sort_by("id").equals(at4)
    assert t.store.tags.tag_names() == []


def test_rollback_branch_of_java_table(tmp_path: Path) -> None:
    src = CORPUS / "parquet" / "append_table_with_rt_branch.db"
    if not src.is_dir():
        pytest.skip("Java corpus not found")
    shutil.copytree(src, tmp_path / "wh" / "append_table_with_rt_branch.db")
    cat = Catalog(str(tmp_path / "wh"))
    b = cat.get_table("append_table_with_rt_branch.append_table_with_rt_branch$branch_rt")
    assert isinstance(b, Table)
    before = b.read().num_rows
    b.write(pa.table({"dt": ["20240727"], "name": ["kiwi"], "amount": pa.array([1], pa.int32())}))
    assert b.snapshot_ids() == [1, 2]
    r = rollback(b.store, snapshot_id=1)
    assert r.current_snapshot_id == 1 and b.snapshot_ids() == [1]
    assert b.read().num_rows == before
    main = cat.get_table("append_table_with_rt_branch.append_table_with_rt_branch")
    assert isinstance(main, Table)
    assert main.snapshot_ids() == [1]
