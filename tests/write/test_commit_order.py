"""A write that compacts commits its data first (APPEND, or OVERWRITE) and its compaction right
after (COMPACT), as Paimon does, on every path: ``Table.write`` (fixed and dynamic buckets, with
overwrite), its redo after a conflict, distributed writes (``commit_changes``: what Spark's writer
calls), DELETE, rescale and ``full-compaction.delta-commits``. The COMPACT snapshot lands on the data
one: it removes files live there, among them files the data snapshot added. Also: the commit user
and identifier, ``filter_committed`` and the changelog slot of ``TableCommit``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import paimon_sql.write.commit as commit_mod
from paimon_sql import Catalog
from paimon_sql.errors import CommitConflictError
from paimon_sql.meta.kinds import CommitKind, FileKind
from paimon_sql.meta.snapshot import BATCH_COMMIT_IDENTIFIER
from paimon_sql.table.table import Table
from paimon_sql.write.commit import CommitRequest, FileStoreCommit

SCHEMA = pa.schema([("k", pa.int64()), ("v", pa.string())])
FULL = {"full-compaction.delta-commits": "1"}


def rows(keys: list[int], tag: str) -> pa.Table:
    return pa.table({"k": keys, "v": [f"{tag}{k}" for k in keys]}, schema=SCHEMA)


def kinds(t: Table) -> list[str]:
    return [t.snapshot(i).commit_kind for i in t.snapshot_ids()]


def delta(t: Table, sid: int) -> list[Any]:
    ms = t.store.manifests
    snap = t.snapshot(sid)
    return [e for m in ms.read_manifest_list(snap.delta_manifest_list) for e in ms.read_manifest(m.file_name)]


def check_compact_follows(t: Table, data_id: int, data_kind: str) -> None:
    """Snapshot ``data_id`` is the write's data commit, the next one its COMPACT: it removes only
    files live in the data snapshot, some of which the data snapshot added."""
    assert t.snapshot(data_id).commit_kind == data_kind
    compact = t.snapshot(data_id + 1)
    assert compact.commit_kind == CommitKind.COMPACT
    assert compact.commit_user == t.snapshot(data_id).commit_user
    live = {e.identifier for e in t.store.manifests.live_entries(t.snapshot(data_id))}
    removed = [e for e in delta(t, data_id + 1) if e.kind == FileKind.DELETE]
    assert removed and all(e.identifier in live for e in removed)
    added = {e.file.file_name for e in delta(t, data_id) if e.kind == FileKind.ADD}
    assert added & {e.file.file_name for e in removed}


@pytest.mark.parametrize("bucket", ["1", "-1"])
def test_write_commits_append_then_compact(catalog: Catalog, bucket: str) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": bucket, **FULL})
    assert t.write(rows([1, 2, 3], "a")) == 1
    assert t.write(rows([2, 3, 4], "b")) == 3
    assert kinds(t) == ["APPEND", "COMPACT", "APPEND", "COMPACT"]
    check_compact_follows(t, 1, "APPEND")
    check_compact_follows(t, 3, "APPEND")
    assert t.write(rows([9], "c"), overwrite=True) == 5
    assert kinds(t)[4:] == ["OVERWRITE", "COMPACT"]
    check_compact_follows(t, 5, "OVERWRITE")


def test_redone_write_commits_append_then_compact(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first attempt loses to a concurrent write of the same keys; the redo commits APPEND then
    COMPACT after the other write's pair."""
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1", **FULL})
    t.write(rows([1, 2], "a"))
    other = catalog.get_table("db.t")
    assert isinstance(other, Table)
    real = commit_mod.commit
    raced: list[int] = []

    def racing(store: Any, req: CommitRequest) -> Any:
        if not raced and req.kind == CommitKind.APPEND:
            raced.append(1)
            other.write(rows([1, 2], "other"))  # lands between the write and its commit
        return real(store, req)

    monkeypatch.setattr(commit_mod, "commit", racing)
    assert t.write(rows([1, 2], "mine")) == 5
    assert kinds(t) == ["APPEND", "COMPACT", "APPEND", "COMPACT", "APPEND", "COMPACT"]
    check_compact_follows(t, 3, "APPEND")
    check_compact_follows(t, 5, "APPEND")
    assert t.read().sort_by("k").column("v").to_pylist() == ["mine1", "mine2"]


def test_distributed_write_commits_append_then_compact(catalog: Catalog) -> None:
    """Several task writers, one commit_changes (Spark's DataSourceWriter.commit calls it)."""
    schema = pa.schema([("p", pa.int64()), ("k", pa.int64()), ("v", pa.string())])
    t = catalog.create_table("db.t", schema, primary_keys=["p", "k"], partition_keys=["p"],
                             options={"bucket": "1", **FULL})

    def part(p: int, tag: str) -> pa.Table:
        return pa.table({"p": [p] * 3, "k": [1, 2, 3], "v": [tag] * 3}, schema=schema)

    t.write(pa.concat_tables([part(0, "a"), part(1, "a")]))
    changes = []
    for p in (0, 1):  # one task per partition
        w = t.new_write()
        w.write(part(p, "b"))
        changes.append(w.prepare_commit())
    assert t.commit_changes(changes) == 3
    assert kinds(t) == ["APPEND", "COMPACT", "APPEND", "COMPACT"]
    check_compact_follows(t, 3, "APPEND")
    assert {e.partition for e in delta(t, 4) if e.kind == FileKind.DELETE} == {e.partition for e in delta(t, 3)}


def test_delete_commits_append_then_compact(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1", **FULL})
    t.write(rows([1, 2, 3], "a"))
    assert t.delete("k = 2") == 3
    assert kinds(t) == ["APPEND", "COMPACT", "APPEND", "COMPACT"]
    check_compact_follows(t, 3, "APPEND")
    assert t.read().sort_by("k").column("k").to_pylist() == [1, 3]


def test_rescale_commits_overwrite_then_compact(catalog: Catalog) -> None:
    """Rescale rewrites with a compacting writer: its compaction is committed after the OVERWRITE
    (it was left uncommitted before, its files orphans)."""
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1", **FULL})
    t.write(rows([1, 2, 3], "a"))
    t.write(rows([3, 4], "b"))
    assert t.rescale(2) == 5
    assert kinds(t) == ["APPEND", "COMPACT", "APPEND", "COMPACT", "OVERWRITE", "COMPACT"]
    check_compact_follows(t, 5, "OVERWRITE")
    live = t.store.manifests.live_entries(t.latest_snapshot())  # type: ignore[arg-type]
    assert {e.total_buckets for e in live} == {2} and {e.file.level for e in live} == {5}
    data_files = {p.name for p in Path(t.path).rglob("data-*")}
    expired_or_live = {e.file.file_name for s in t.snapshot_ids() for e in delta(t, s)}
    assert data_files <= expired_or_live  # no file the rescale wrote is left uncommitted


def test_a_compact_commit_never_lands_before_its_data(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    t.write(rows([1], "a"))
    with pytest.raises(CommitConflictError, match="must land after snapshot 2"):
        commit_mod.commit(t.store, CommitRequest(CommitKind.COMPACT, (), after_snapshot=2))
    assert t.snapshot_ids() == [1]


def test_commit_user_identifier_and_filter_committed(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1", **FULL})
    t.write(rows([1], "a"))
    t.write(rows([2], "b"))
    users = {t.snapshot(i).commit_user for i in t.snapshot_ids()}
    assert users == {t.commit_user}  # one stable commit user per table handle (and its refreshes)
    assert {t.snapshot(i).commit_identifier for i in t.snapshot_ids()} == {BATCH_COMMIT_IDENTIFIER}
    assert t.snapshot(1).changelog_manifest_list is None and t.snapshot(1).changelog_record_count is None

    sink = FileStoreCommit(t.store, "sink-1")
    assert sink.filter_committed([1, 2]) == set()
    for ident in (1, 2):
        sink.commit(CommitRequest(CommitKind.APPEND, (), commit_identifier=ident))
    assert sink.filter_committed([1, 2, 3]) == {1, 2}
    assert sink.filter_committed([1, 2, 3], since=t.snapshot_ids()[-1]) == set()
    assert FileStoreCommit(t.store, "other").filter_committed([1]) == set()
    assert t.snapshot(t.snapshot_ids()[-1]).commit_kind == "APPEND"


def test_changelog_slot_is_written_when_given(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    t.write(rows([1, 2], "a"))
    files = t.store.manifests.live_entries(t.latest_snapshot())  # type: ignore[arg-type]
    snap = FileStoreCommit(t.store).commit(CommitRequest(CommitKind.APPEND, (), changelog_entries=tuple(files)))
    assert snap.changelog_manifest_list is not None and snap.changelog_record_count == 2
    metas = t.store.manifests.read_manifest_list(snap.changelog_manifest_list)
    assert [e.file.file_name for m in metas for e in t.store.manifests.read_manifest(m.file_name)] == [
        e.file.file_name for e in files]


def test_a_write_that_lost_the_sequence_race_is_renumbered_not_rewritten(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No full-compaction: the loser's sorted files are renumbered above the winner's sequence
    numbers inside the commit (the input is not written again) and its compaction is dropped."""
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    t.write(rows([1, 2, 3], "a"))
    other = catalog.get_table("db.t")
    assert isinstance(other, Table)
    real = commit_mod.commit
    raced: list[int] = []
    writes: list[int] = []
    real_new_write = Table.new_write

    def counting_new_write(self: Table, overwrite: bool = False) -> Any:
        if self is t:
            writes.append(1)
        return real_new_write(self, overwrite)

    def racing(store: Any, req: CommitRequest) -> Any:
        if not raced and req.kind == CommitKind.APPEND and req.rebase is not None:
            raced.append(1)
            other.write(rows([2, 3, 4], "other"))
        return real(store, req)

    monkeypatch.setattr(commit_mod, "commit", racing)
    monkeypatch.setattr(Table, "new_write", counting_new_write)
    assert t.write(rows([3, 4, 5], "mine")) == 3
    assert len(writes) == 1  # not written again
    assert kinds(t) == ["APPEND", "APPEND", "APPEND"]
    theirs = max(e.file.max_sequence_number for e in delta(t, 2))
    mine = delta(t, 3)
    assert min(e.file.min_sequence_number for e in mine) == theirs + 1
    assert t.read().sort_by("k").column("v").to_pylist() == ["a1", "other2", "mine3", "mine4", "mine5"]
    listed = {p.name for p in Path(t.path).rglob("data-*")}
    assert listed == {e.file.file_name for s in t.snapshot_ids() for e in delta(t, s)}  # no file left over
