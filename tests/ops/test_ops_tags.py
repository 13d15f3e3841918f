"""Tags: creating and deleting them, time travel by tag, and the files a deleted tag takes along."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.errors import AlreadyExistsError, NotFoundError, ValidationError
from paimon_sql.ops.tags import create_tag, delete_tag


def _table(catalog: Catalog, name: str = "db.t") -> Table:
    t = catalog.create_table(name, pa.schema([("id", pa.int64()), ("v", pa.string())]))
    assert isinstance(t, Table)
    return t


def _rows(t: Table, **kw: object) -> list[int]:
    return sorted(t.read(**kw)["id"].to_pylist())  # type: ignore[arg-type]


def _snapshot_json(t: Table, sid: int) -> dict:  # type: ignore[type-arg]
    return json.loads(Path(t.path, "snapshot", f"snapshot-{sid}").read_text())


def _expire(t: Table, up_to: int) -> None:
    """What snapshot expiration leaves behind: snapshot files up to ``up_to`` gone, EARLIEST moved."""
    for sid in range(1, up_to + 1):
        os.remove(Path(t.path, "snapshot", f"snapshot-{sid}"))
    Path(t.path, "snapshot", "EARLIEST").write_text(str(up_to + 1))


def _data_files(t: Table) -> set[str]:
    return {p.name for p in Path(t.path).glob("bucket-*/*.parquet")}


# ----------------------------------------------------------------------------------------------
# create
# ----------------------------------------------------------------------------------------------


def test_create_tag_and_time_travel(catalog: Catalog) -> None:
    t = _table(catalog)
    t.write(pa.table({"id": [1, 2], "v": ["a", "b"]}))
    t.write(pa.table({"id": [3], "v": ["c"]}))
    r = create_tag(t.store, "first", 1)
    assert (r.tag, r.snapshot_id, r.time_retained_ms, r.table) == ("first", 1, None, "db.t")
    latest = create_tag(t.store, "latest")
    assert latest.snapshot_id == 2
    t.write(pa.table({"id": [4], "v": ["d"]}))
    assert _rows(t, tag="first") == [1, 2]
    assert _rows(t, tag="latest") == [1, 2, 3]
    assert _rows(t) == [1, 2, 3, 4]
    # without a retention the tag file is the snapshot's JSON (no tag fields), as Paimon writes it
    assert json.loads(Path(r.path).read_text()) == _snapshot_json(t, 1)


def test_create_tag_with_retention_writes_paimons_fields(catalog: Catalog) -> None:
    t = _table(catalog)
    t.write(pa.table({"id": [1], "v": ["a"]}))
    before = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    r = create_tag(t.store, "kept", time_retained_ms=86_400_000)
    text = Path(r.path).read_text()
    assert '"tagTimeRetained" : 86400.000000000' in text  # Jackson's Duration: decimal seconds
    obj = json.loads(text)
    created = obj.pop("tagCreateTime")
    obj.pop("tagTimeRetained")
    assert obj == _snapshot_json(t, 1)
    assert 5 <= len(created) <= 7
    parts = created + [0] * (7 - len(created))
    stamp = dt.datetime(*parts[:6], parts[6] // 1000)
    assert before - dt.timedelta(seconds=1) <= stamp <= dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    assert _rows(t, tag="kept") == [1]


def test_create_tag_errors(catalog: Catalog) -> None:
    t = _table(catalog)
    with pytest.raises(NotFoundError, match="no snapshot"):
        create_tag(t.store, "x")
    t.write(pa.table({"id": [1], "v": ["a"]}))
    create_tag(t.store, "x")
    with pytest.raises(AlreadyExistsError, match=r"db.t: Tag 'x' already exists\."):
        create_tag(t.store, "x")
    with pytest.raises(NotFoundError, match="snapshot 7"):
        create_tag(t.store, "y", 7)
    for bad in ["", "  ", " a", "a/b", "a,b", ".hidden", "a\\b", "a\nb"]:
        with pytest.raises(ValidationError):
            create_tag(t.store, bad)
    with pytest.raises(ValidationError):
        create_tag(t.store, "z", "1")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        create_tag(t.store, "z", time_retained_ms=-1)
    assert sorted(p.name for p in Path(t.path, "tag").iterdir()) == ["tag-x"]


def test_create_tag_of_an_expired_snapshot_kept_by_a_tag(catalog: Catalog) -> None:
    t = _table(catalog)
    t.write(pa.table({"id": [1], "v": ["a"]}))
    t.write(pa.table({"id": [2], "v": ["b"]}))
    create_tag(t.store, "old", 1, time_retained_ms=1000)
    _expire(t, 1)
    r = create_tag(t.store, "again", 1)  # Paimon's findSnapshot looks through the tags
    assert r.snapshot_id == 1
    again = json.loads(Path(r.path).read_text())
    assert "tagCreateTime" not in again and "tagTimeRetained" not in again
    assert _rows(t, tag="again") == [1]


def test_tags_of_a_branch(catalog: Catalog) -> None:
    t = _table(catalog)
    t.write(pa.table({"id": [1], "v": ["a"]}))
    create_tag(t.store, "t1")
    branch = Path(t.path, "branch", "branch-b")
    (branch / "schema").mkdir(parents=True)
    (branch / "snapshot").mkdir()
    Path(branch, "schema", "schema-0").write_text(Path(t.path, "schema", "schema-0").read_text())
    Path(branch, "snapshot", "snapshot-1").write_text(Path(t.path, "tag", "tag-t1").read_text())
    b = catalog.get_table("db.t$branch_b")
    assert isinstance(b, Table)
    create_tag(b.store, "bt")
    assert Path(branch, "tag", "tag-bt").is_file()
    assert not Path(t.path, "tag", "tag-bt").exists()
    assert _rows(b, tag="bt") == [1]


# ----------------------------------------------------------------------------------------------
# delete
# ----------------------------------------------------------------------------------------------


def test_delete_tag_of_a_live_snapshot_keeps_every_file(catalog: Catalog) -> None:
    t = _table(catalog)
    t.write(pa.table({"id": [1], "v": ["a"]}))
    create_tag(t.store, "t1")
    files = _data_files(t)
    manifests = set(os.listdir(Path(t.path, "manifest")))
    r = delete_tag(t.store, "t1")
    assert (r.deleted, r.snapshot_id, r.deleted_data_files, r.deleted_metadata_files) == (True, 1, 0, 0)
    assert not Path(t.path, "tag", "tag-t1").exists()
    assert _data_files(t) == files and set(os.listdir(Path(t.path, "manifest"))) == manifests
    assert _rows(t) == [1]
    # a tag that does not exist is ignored, as in Paimon
    assert delete_tag(t.store, "t1").deleted is False
    with pytest.raises(ValidationError):
        delete_tag(t.store, " ")


@pytest.fixture()
def history(catalog: Catalog) -> tuple[Table, dict[str, str]]:
    """s1 adds A, s2 adds B, s3 overwrites everything with C; tags t1@s1 and t2@s2; s1, s2 expired
    (Paimon's expiration keeps A and B because the tags reference them)."""
    t = _table(catalog)
    names: dict[str, str] = {}
    t.write(pa.table({"id": [1, 2], "v": ["a", "a"]}))
    names["A"] = (_data_files(t)).pop()
    t.write(pa.table({"id": [3], "v": ["b"]}))
    names["B"] = (_data_files(t) - {names["A"]}).pop()
    t.write(pa.table({"id": [9], "v": ["c"]}), overwrite=True)
    names["C"] = (_data_files(t) - {names["A"], names["B"]}).pop()
    create_tag(t.store, "t1", 1)
    create_tag(t.store, "t2", 2)
    _expire(t, 2)
    return t, names


def _all_metadata_of_latest_readable(t: Table) -> None:
    snap = t.latest_snapshot()
    assert snap is not None
    for m in t.store.manifests.data_manifests(snap):
        assert Path(t.path, "manifest", m.file_name).is_file()


def test_delete_tag_of_expired_snapshot_deletes_only_its_own_files(history) -> None:  # type: ignore[no-untyped-def]
    t, f = history
    r = delete_tag(t.store, "t2")
    # B only lived in s2 (tag t2); A is kept by the neighbour tag t1, C by the earliest snapshot s3
    assert r.deleted and r.snapshot_id == 2 and r.deleted_data_files == 1
    assert _data_files(t) == {f["A"], f["C"]}
    assert r.deleted_metadata_files >= 2  # at least t2's own manifest lists
    assert _rows(t, tag="t1") == [1, 2]
    assert _rows(t) == [9]
    _all_metadata_of_latest_readable(t)
    r = delete_tag(t.store, "t1")
    assert r.deleted_data_files == 1
    assert _data_files(t) == {f["C"]}
    assert _rows(t) == [9]
    _all_metadata_of_latest_readable(t)
    assert catalog_files_table_rows(t) == 1


def catalog_files_table_rows(t: Table) -> int:
    from paimon_sql.table.system import load_system_table

    return load_system_table(t, "files").read().num_rows


def test_delete_one_of_two_tags_of_a_snapshot_keeps_files(history) -> None:  # type: ignore[no-untyped-def]
    t, f = history
    create_tag(t.store, "t2bis", 2)
    r = delete_tag(t.store, "t2")
    assert r.deleted and r.deleted_data_files == 0 and r.deleted_metadata_files == 0
    assert _data_files(t) == {f["A"], f["B"], f["C"]}
    assert _rows(t, tag="t2bis") == [1, 2, 3]


def test_delete_tag_keeps_files_a_branch_uses(history) -> None:  # type: ignore[no-untyped-def]
    t, f = history
    # branch b created from tag t2 (Paimon copies the tag into the branch's snapshot and tag folders)
    branch = Path(t.path, "branch", "branch-b")
    (branch / "schema").mkdir(parents=True)
    (branch / "snapshot").mkdir()
    Path(branch, "schema", "schema-0").write_text(Path(t.path, "schema", "schema-0").read_text())
    Path(branch, "snapshot", "snapshot-2").write_text(Path(t.path, "tag", "tag-t2").read_text())
    r = delete_tag(t.store, "t2")
    assert r.deleted and r.deleted_data_files == 0
    assert _data_files(t) == {f["A"], f["B"], f["C"]}
    b = t.__class__(t.file_io, t.path, t.table_name, t.schema, "b")
    assert _rows(b) == [1, 2, 3]
    for m in b.store.manifests.data_manifests(b.latest_snapshot()):  # type: ignore[arg-type]
        assert Path(t.path, "manifest", m.file_name).is_file()


def test_delete_tag_cleans_nothing_when_a_neighbour_is_unreadable(history) -> None:  # type: ignore[no-untyped-def]
    t, f = history
    snap = t.latest_snapshot()
    assert snap is not None
    # the earliest snapshot's manifest list is gone: nothing can be proven unused
    os.rename(Path(t.path, "manifest", snap.base_manifest_list), Path(t.path, "base.bak"))
    r = delete_tag(t.store, "t2")
    assert r.deleted and r.deleted_data_files == 0 and r.deleted_metadata_files == 0
    assert _data_files(t) == {f["A"], f["B"], f["C"]}


def test_tags_named_as_only_java_allows_can_be_used(catalog: Catalog) -> None:
    t = _table(catalog)
    t.write(pa.table({"id": [1], "v": ["a"]}))
    t.write(pa.table({"id": [2], "v": ["b"]}))
    Path(t.path, "tag").mkdir()
    Path(t.path, "tag", "tag-a,b").write_text(Path(t.path, "snapshot", "snapshot-1").read_text())
    with pytest.raises(ValidationError):
        create_tag(t.store, "a,b")  # paimon_sql does not create such names...
    assert _rows(t, tag="a,b") == [1]  # ...but reads, rolls back to and deletes them
    from paimon_sql.ops.rollback import rollback

    assert rollback(t.store, tag="a,b").current_snapshot_id == 1
    assert delete_tag(t.store, "a,b").deleted
    assert t.store.tags.tag_names() == []


def test_delete_expired_tag_of_java_deletion_vector_table(tmp_path: Path) -> None:
    """Java-written primary-key table with deletion vectors and compactions (index files): deleting a
    tag of an expired snapshot removes files, and never one that a remaining snapshot needs."""
    import shutil

    src = Path(os.environ.get("PAIMON_JAVA_WRITTEN", "/work/shared/fixtures/java-written"))
    name = "test_pk_full_text_golden"
    if not (src / "default.db" / name).is_dir():
        pytest.skip("Java-written fixtures not found")
    shutil.copytree(src / "default.db" / name, tmp_path / "wh" / "default.db" / name)
    cat = Catalog(str(tmp_path / "wh"))
    t = cat.get_table(f"default.{name}")
    assert isinstance(t, Table)
    expected = {sid: t.read(snapshot_id=sid).sort_by("id") for sid in (7, 8)}
    create_tag(t.store, "t2", 2)
    _expire(t, 6)
    r = delete_tag(t.store, "t2")
    assert r.deleted and r.deleted_data_files + r.deleted_metadata_files > 0
    for sid in (7, 8):
        snap = t.snapshot(sid)
        assert t.read(snapshot_id=sid).sort_by("id").equals(expected[sid])
        for m in t.store.manifests.data_manifests(snap):
            assert Path(t.path, "manifest", m.file_name).is_file()
        for ie in t.store.manifests.index_entries(snap):
            assert Path(t.path, "index", ie.index_file.file_name).is_file()
        for e in t.store.manifests.live_entries(snap):
            assert any(Path(t.path).glob(f"bucket-{e.bucket}/{e.file.file_name}"))
