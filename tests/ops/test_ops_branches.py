"""Branches: create (from a tag, empty), write, delete, rename and fast-forward, bad input that
changes nothing, and fast-forward interrupted at every file operation."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.errors import AlreadyExistsError, NotFoundError, PaimonError, ValidationError
from paimon_sql.fs.file_io import FileIO
from paimon_sql.ops.branches import create_branch, delete_branch, fast_forward, rename_branch

CORPUS = Path(os.environ.get("PAIMON_JAVA_CORPUS", "/work/shared/fixtures/java-corpus"))


def _table(catalog: Catalog, n: int, pk: bool = True) -> Table:
    t = catalog.create_table(
        "db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]),
        primary_keys=["id"] if pk else None, options={"bucket": "2", "write-only": "true"} if pk else None,
    )
    assert isinstance(t, Table)
    for i in range(1, n + 1):
        t.write(pa.table({"id": [i], "v": [str(i)]}))
    return t


def _rows(t: Table, **kw: Any) -> list[tuple[Any, ...]]:
    d = t.read(**kw).to_pydict()
    return sorted(zip(*d.values()))


def _ids(t: Table, **kw: Any) -> list[int]:
    return sorted(t.read(**kw)["id"].to_pylist())


def _tree(path: str) -> dict[str, bytes]:
    out = {}
    for root, _, names in os.walk(path):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, path)] = f.read()
    return out


def _hint(t: Table, name: str) -> str:
    return Path(t.store.snapshots.dir, name).read_text().strip()


def _expire(t: Table, up_to: int) -> None:
    for sid in range(1, up_to + 1):
        os.remove(Path(t.path, "snapshot", f"snapshot-{sid}"))
    Path(t.path, "snapshot", "EARLIEST").write_text(str(up_to + 1))


# -- create ------------------------------------------------------------------------------------


def test_create_branch_from_tag_copies_tag_snapshot_and_schemas(catalog: Catalog) -> None:
    t = _table(catalog, 2)
    t = t.alter(add_columns=[("w", pa.int32())])
    t.write(pa.table({"id": [3], "v": ["3"], "w": pa.array([3], pa.int32())}))
    t = t.alter(add_columns=[("x", pa.int32())])  # schema 2: not the tagged snapshot's
    t.create_tag("at3", 3, time_retained="1 d")
    r = t.create_branch("b", tag="at3")
    assert (r.created, r.snapshot_id, r.schema_ids) == (True, 3, (0, 1))
    bdir = Path(t.path, "branch", "branch-b")
    assert sorted(_tree(str(bdir))) == ["schema/schema-0", "schema/schema-1", "snapshot/snapshot-3", "tag/tag-at3"]
    # byte copies, as Paimon's copyFile
    assert (bdir / "tag" / "tag-at3").read_bytes() == Path(t.path, "tag", "tag-at3").read_bytes()
    assert (bdir / "snapshot" / "snapshot-3").read_bytes() == Path(t.path, "snapshot", "snapshot-3").read_bytes()
    assert (bdir / "schema" / "schema-1").read_bytes() == Path(t.path, "schema", "schema-1").read_bytes()
    b = t.switch_to_branch("b")
    assert b.name == "db.t$branch_b" and b.schema.id == 1 and b.schema.field_names == ["id", "v", "w"]
    assert _rows(b) == _rows(t, tag="at3", columns=["id", "v", "w"])
    assert t.branches() == ["b"]
    assert b.store.tags.tag_names() == ["at3"]


def test_create_branch_from_tag_whose_snapshot_expired(catalog: Catalog) -> None:
    t = _table(catalog, 4)
    t.create_tag("two", 2, time_retained="2 h")
    _expire(t, 3)
    t.create_branch("old", tag="two")
    snap = json.loads(Path(t.path, "branch", "branch-old", "snapshot", "snapshot-2").read_text())
    assert snap["id"] == 2 and "tagCreateTime" not in snap and "tagTimeRetained" not in snap
    assert _ids(t.switch_to_branch("old")) == [1, 2]


def test_empty_branch_has_the_current_schema_and_takes_writes(catalog: Catalog) -> None:
    t = _table(catalog, 3)
    t = t.alter(set_options={"k": "v"})
    r = t.create_branch("empty")
    assert r.snapshot_id is None and r.schema_ids == (0, 1)
    e = t.switch_to_branch("empty")
    assert e.read().num_rows == 0 and e.snapshot_ids() == [] and e.options["k"] == "v"
    assert e.write(pa.table({"id": [7], "v": ["e"]})) == 1
    assert _ids(e) == [7] and _ids(t) == [1, 2, 3] and t.snapshot_ids() == [1, 2, 3]


def test_branch_writes_and_main_writes_stay_apart(catalog: Catalog) -> None:
    t = _table(catalog, 2)
    t.create_tag("t2", 2)
    t.create_branch("b", tag="t2")
    b = catalog.get_table("db.t$branch_b")
    assert isinstance(b, Table)
    assert b.write(pa.table({"id": [2, 10], "v": ["b2", "b10"]})) == 3
    assert t.write(pa.table({"id": [20], "v": ["m20"]})) == 3
    assert _rows(b) == [(1, "1"), (2, "b2"), (10, "b10")]
    assert _rows(t) == [(1, "1"), (2, "2"), (20, "m20")]
    assert b.delete("id = 1") == 4
    assert _ids(b) == [2, 10] and _ids(t) == [1, 2, 20]
    # a branch of a branch, from the branch's own tag
    b.create_tag("bt", 3)
    b.create_branch("bb", tag="bt")
    assert _rows(t.switch_to_branch("bb")) == [(1, "1"), (2, "b2"), (10, "b10")]
    assert sorted(t.branches()) == ["b", "bb"]


def test_create_branch_ignore_if_exists(catalog: Catalog) -> None:
    t = _table(catalog, 1)
    t.create_branch("b")
    before = _tree(t.path)
    r = t.create_branch("b", ignore_if_exists=True)
    assert r.created is False and _tree(t.path) == before


@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("main", "default branch"),
        ("123", "only digits"),
        ("", "empty or blank"),
        ("  ", "empty or blank"),
        (" b", "blanks"),
        ("a,b", "','"),
        ("a$b", r"'\$'"),
        ("../x", "'/'"),
        ("a/b", "'/'"),
        (".", "'.'"),
        (7, "must be a string"),
    ],
)
def test_create_branch_refuses_bad_names(catalog: Catalog, name: Any, match: str) -> None:
    t = _table(catalog, 1)
    t.create_tag("t1", 1)
    before = _tree(t.path)
    with pytest.raises(ValidationError, match=match):
        t.create_branch(name)
    with pytest.raises(ValidationError, match=match):
        create_branch(t.store, name, "t1")
    assert _tree(t.path) == before


def test_create_branch_errors_change_nothing(catalog: Catalog) -> None:
    t = _table(catalog, 2)
    t.create_branch("b")
    before = _tree(t.path)
    with pytest.raises(AlreadyExistsError, match="'b'.*already exists"):
        t.create_branch("b")
    with pytest.raises(NotFoundError, match="tag 'nope'.*does not exist"):
        t.create_branch("c", tag="nope")
    with pytest.raises(ValidationError, match="tag"):
        t.create_branch("c", tag="")
    assert _tree(t.path) == before


def test_interrupted_create_leaves_no_branch(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    t = _table(catalog, 2)
    t.create_tag("t2", 2)
    original = FileIO.write_bytes
    calls = {"n": 0}

    def flaky(self: FileIO, path: str, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full")
        original(self, path, data)

    monkeypatch.setattr(FileIO, "write_bytes", flaky)
    with pytest.raises(OSError, match="disk full"):
        t.create_branch("b", tag="t2")
    monkeypatch.setattr(FileIO, "write_bytes", original)
    assert t.branches() == [] and os.listdir(Path(t.path, "branch")) == []
    t.create_branch("b", tag="t2")
    assert _ids(t.switch_to_branch("b")) == [1, 2]


# -- delete, rename ----------------------------------------------------------------------------


def test_delete_branches_comma_separated(catalog: Catalog) -> None:
    t = _table(catalog, 1)
    for b in ("a", "b", "c"):
        t.create_branch(b)
    r = t.delete_branch("a, c")
    assert r.branches == ("a", "c") and t.branches() == ["b"]
    assert sorted(os.listdir(Path(t.path, "branch"))) == ["branch-b"]
    with pytest.raises(NotFoundError, match="Branch 'a' of table db.t does not exist"):
        catalog.get_table("db.t$branch_a")
    delete_branch(t.store, ["b"])
    assert t.branches() == []


def test_delete_branch_errors_change_nothing(catalog: Catalog) -> None:
    t = _table(catalog, 1)
    t.create_branch("a")
    t.create_branch("fb")
    t = t.alter(set_options={"scan.fallback-branch": "fb"})
    before = _tree(t.path)
    with pytest.raises(NotFoundError, match="branch 'nope'.*does not exist.*branches: a, fb"):
        t.delete_branch("a,nope")  # a is checked too, and stays
    with pytest.raises(ValidationError, match="main branch"):
        t.delete_branch("main")
    with pytest.raises(ValidationError, match="scan.fallback-branch"):
        t.delete_branch("a,fb")
    with pytest.raises(ValidationError, match="empty or blank"):
        t.delete_branch("a,")
    with pytest.raises(ValidationError, match="'/'"):
        t.delete_branch("../a")
    assert _tree(t.path) == before


def test_rename_branch(catalog: Catalog) -> None:
    t = _table(catalog, 2)
    t.create_tag("t1", 1)
    t.create_branch("b1", tag="t1")
    t.create_branch("b3")
    r = t.rename_branch("b1", "b2")
    assert (r.from_branch, r.to_branch) == ("b1", "b2") and t.branches() == ["b2", "b3"]
    assert _ids(t.switch_to_branch("b2")) == [1]
    before = _tree(t.path)
    with pytest.raises(NotFoundError, match="'nonexistent'.*'from_branch'"):
        t.rename_branch("nonexistent", "x")
    with pytest.raises(AlreadyExistsError, match="'b3'.*'to_branch'.*already exists"):
        t.rename_branch("b2", "b3")
    with pytest.raises(ValidationError, match="main branch"):
        t.rename_branch("main", "x")
    with pytest.raises(ValidationError, match="'to_branch'.*only digits"):
        rename_branch(t.store, "b2", "42")
    with pytest.raises(ValidationError, match="'to_branch'.*default branch"):
        rename_branch(t.store, "b2", "main")
    assert _tree(t.path) == before


# -- fast-forward ------------------------------------------------------------------------------


def test_fast_forward_replaces_later_snapshots_tags_and_schemas(catalog: Catalog) -> None:
    """The seed's rule, as in Paimon's FastForwardProcedureTest: main's snapshots, tags and schemas
    from the branch's earliest snapshot on are the branch's; writes continue after it."""
    t = _table(catalog, 4)
    t.create_tag("t2", 2)
    t.create_tag("t3", 3)
    t.create_tag("t1", 1)
    t.create_branch("b", tag="t2")
    t = t.alter(add_columns=[("main_only", pa.int32())])  # main's schema 1
    t.write(pa.table({"id": [5], "v": ["5"], "main_only": pa.array([5], pa.int32())}))
    b = t.switch_to_branch("b")
    b = b.alter(add_columns=[("w", pa.int64())])  # the branch's schema 1
    b.write(pa.table({"id": [10], "v": ["x"], "w": [1]}))
    b.create_tag("bt", 3)
    r = t.fast_forward("b")
    assert r.earliest_snapshot_id == 2 and r.latest_snapshot_id == 3
    assert r.deleted_snapshots == (5, 4, 3) and r.copied_snapshots == (3,)
    assert r.deleted_tags == ("t3",) and r.copied_tags == ("bt",)
    assert r.copied_schemas == (1,)
    t = t.refresh()
    assert t.schema.field_names == ["id", "v", "w"]
    assert t.snapshot_ids() == [1, 2, 3]
    assert _rows(t) == [(1, "1", None), (2, "2", None), (10, "x", 1)]
    assert sorted(t.store.tags.tag_names()) == ["bt", "t1", "t2"]
    assert _ids(t, tag="t1") == [1] and _ids(t, tag="bt") == [1, 2, 10]
    assert _hint(t, "LATEST") == "3" and _hint(t, "EARLIEST") == "1"
    for sid in (1, 2, 3):
        assert _ids(t, snapshot_id=sid) == _ids(b, snapshot_id=sid) if sid > 1 else [1]
    # writes continue at the next id; a second fast-forward goes back to the branch
    assert t.write(pa.table({"id": [6], "v": ["6"], "w": [6]})) == 4
    assert _ids(t) == [1, 2, 6, 10]
    r2 = t.fast_forward("b")
    assert r2.deleted_snapshots == (4,) and r2.copied_snapshots == ()
    assert _ids(t.refresh()) == [1, 2, 10]
    # and a third run changes nothing
    before = _tree(t.path)
    r3 = t.fast_forward("b")
    assert (r3.deleted_snapshots, r3.copied_snapshots, r3.deleted_tags, r3.copied_tags) == ((), (), (), ())
    assert _tree(t.path) == before


def test_fast_forward_to_an_empty_created_branch_replaces_everything(catalog: Catalog) -> None:
    t = _table(catalog, 3)
    t.create_tag("t3", 3)
    t.create_branch("e")
    e = t.switch_to_branch("e")
    e.write(pa.table({"id": [100], "v": ["e"]}))
    r = t.fast_forward("e")
    assert r.earliest_snapshot_id == 1 and r.deleted_snapshots == (3, 2, 1) and r.copied_snapshots == (1,)
    assert r.deleted_tags == ("t3",)
    assert t.snapshot_ids() == [1] and _ids(t) == [100] and t.store.tags.tag_names() == []
    assert _hint(t, "EARLIEST") == "1" and _hint(t, "LATEST") == "1"


def test_fast_forward_when_main_expired_past_the_branch_base(catalog: Catalog) -> None:
    t = _table(catalog, 5)
    t.create_tag("t2", 2)
    t.create_branch("b", tag="t2")
    t.switch_to_branch("b").write(pa.table({"id": [9], "v": ["9"]}))
    _expire(t, 4)  # main: snapshot 5 only, EARLIEST hint 5
    t.fast_forward("b")
    assert t.snapshot_ids() == [2, 3] and _ids(t) == [1, 2, 9]
    assert _hint(t, "EARLIEST") == "2" and _hint(t, "LATEST") == "3"


def test_fast_forward_a_branch_to_another_branch(catalog: Catalog) -> None:
    t = _table(catalog, 2)
    t.create_tag("t1", 1)
    t.create_branch("a", tag="t1")
    t.create_branch("b", tag="t1")
    a = t.switch_to_branch("a")
    a.write(pa.table({"id": [50], "v": ["a"]}))
    t.switch_to_branch("b").write(pa.table({"id": [60], "v": ["b"]}))
    a.fast_forward("b")
    assert _ids(t.switch_to_branch("a")) == [1, 60] and _ids(t) == [1, 2]


def test_fast_forward_errors_change_nothing(catalog: Catalog) -> None:
    t = _table(catalog, 2)
    t.create_branch("empty")
    t.create_tag("t1", 1)
    t.create_branch("b", tag="t1")
    before = _tree(t.path)
    with pytest.raises(ValidationError, match="'main'.*'branch'"):
        t.fast_forward("main")
    with pytest.raises(NotFoundError, match="'nope'.*does not exist.*branches: b, empty"):
        t.fast_forward("nope")
    with pytest.raises(NotFoundError, match="has no snapshot"):
        t.fast_forward("empty")
    with pytest.raises(ValidationError, match="itself"):
        t.switch_to_branch("b").fast_forward("b")
    with pytest.raises(ValidationError, match="'/'"):
        fast_forward(t.store, "../b")
    assert _tree(t.path) == before


class _Crash(Exception):
    """A crash injected in the middle of a fast-forward."""


def _ff_fixture(catalog: Catalog) -> Table:
    """Main with 6 snapshots, 2 schemas and 3 tags; branch b from snapshot 2 with 4 more snapshots,
    its own schema 1 and a tag."""
    t = _table(catalog, 3)
    t.create_tag("t2", 2)
    t.create_tag("t3", 3)
    t.create_branch("b", tag="t2")
    t = t.alter(add_columns=[("m", pa.int32())])
    for i in (4, 5, 6):
        t.write(pa.table({"id": [i], "v": [str(i)], "m": pa.array([i], pa.int32())}))
    t.create_tag("t6", 6)
    b = t.switch_to_branch("b")
    b = b.alter(add_columns=[("w", pa.int64())])
    for i in (10, 11, 12, 13):
        b.write(pa.table({"id": [i], "v": [str(i)], "w": [i]}))
    b.create_tag("bt", 4)
    return t


def _readable(t: Table) -> None:
    """Every snapshot and tag of ``t`` reads a complete version: main's before, or the branch's."""
    t = t.refresh()
    main_rows = {1: [1], 2: [1, 2], 3: [1, 2, 3], 4: [1, 2, 3, 4], 5: [1, 2, 3, 4, 5], 6: [1, 2, 3, 4, 5, 6]}
    branch_rows = {2: [1, 2], 3: [1, 2, 10], 4: [1, 2, 10, 11], 5: [1, 2, 10, 11, 12], 6: [1, 2, 10, 11, 12, 13]}
    ids = t.snapshot_ids()
    assert ids == list(range(1, len(ids) + 1))  # contiguous
    latest = t.latest_snapshot()
    assert (latest.id if latest else None) == (ids[-1] if ids else None)
    for sid in ids:
        got = _ids(t, snapshot_id=sid)
        assert got in (main_rows[sid], branch_rows.get(sid)), (sid, got)
    got = _ids(t)
    assert got in (main_rows.get(ids[-1]), branch_rows.get(ids[-1])) if ids else got == []
    for name in t.store.tags.tag_names():
        assert _ids(t, tag=name)


def _done(t: Table) -> None:
    t = t.refresh()
    assert t.snapshot_ids() == [1, 2, 3, 4, 5, 6]
    assert _ids(t) == [1, 2, 10, 11, 12, 13]
    assert t.schema.field_names == ["id", "v", "w"]
    assert sorted(t.store.tags.tag_names()) == ["bt", "t2"]
    assert _hint(t, "LATEST") == "6" and _hint(t, "EARLIEST") == "1"


def test_fast_forward_interrupted_at_every_file_operation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure at the n-th delete or write of a fast-forward leaves main readable, and running
    it again finishes it; n runs over every operation of the first run."""
    template = tmp_path / "template"
    _ff_fixture(_catalog(template))
    ops = {"n": 0, "fail_at": -1}
    orig_delete, orig_over = FileIO.delete, FileIO.overwrite_atomic

    def counting(fn: Any) -> Any:
        def wrapped(self: FileIO, path: str, *a: Any) -> Any:
            ops["n"] += 1
            if ops["n"] == ops["fail_at"]:
                raise _Crash(path)
            return fn(self, path, *a)
        return wrapped

    monkeypatch.setattr(FileIO, "delete", counting(orig_delete))
    monkeypatch.setattr(FileIO, "overwrite_atomic", counting(orig_over))
    # a clean run counts the operations
    wh = tmp_path / "count"
    shutil.copytree(template, wh)
    _catalog(wh, create=False).get_table("db.t").fast_forward("b")  # type: ignore[union-attr]
    total = ops["n"]
    assert total >= 15
    for fail_at in range(1, total + 1):
        wh = tmp_path / f"run{fail_at}"
        shutil.copytree(template, wh)
        t = _catalog(wh, create=False).get_table("db.t")
        assert isinstance(t, Table)
        ops["n"], ops["fail_at"] = 0, fail_at
        with pytest.raises(_Crash):
            t.fast_forward("b")
        ops["fail_at"] = -1
        _readable(t)
        t.refresh().fast_forward("b")
        _done(t)
        shutil.rmtree(wh)


def _catalog(wh: Path, create: bool = True) -> Catalog:
    cat = Catalog(str(wh))
    if create:
        cat.create_database("db")
    return cat


def test_fast_forward_java_written_branch(tmp_path: Path) -> None:
    src = CORPUS / "parquet" / "append_table_with_rt_branch.db"
    if not src.is_dir():
        pytest.skip("Java corpus not found")
    shutil.copytree(src, tmp_path / "wh" / "append_table_with_rt_branch.db")
    cat = Catalog(str(tmp_path / "wh"))
    main = cat.get_table("append_table_with_rt_branch.append_table_with_rt_branch")
    assert isinstance(main, Table)
    b = main.switch_to_branch("rt")
    b.write(pa.table({"dt": ["20240727"], "name": ["kiwi"], "amount": pa.array([1], pa.int32())}))
    expected = b.read().sort_by("name")
    main.fast_forward("rt")
    assert main.refresh().read().sort_by("name").equals(expected)
    with pytest.raises(PaimonError):
        main.delete_branch("rt,missing")
    assert main.branches() == ["rt"]
