"""A commit racing snapshot expiry: the snapshots a commit read vanish under it.

The worst case is an id that expiry deleted created again: a writer reads snapshot 1 as the
latest; before it creates snapshot 2, others commit 2 and 3 and expiry deletes 1 and 2. Creating
``snapshot-2`` then succeeds (the id is free again), but no later snapshot holds what it wrote:
the write would be reported as committed and be lost. The commit must see that it lost the race
(before creating the file: its base is gone; after: the next snapshot does not build on it) and
redo the write on the latest snapshot."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import NotFoundError, WriteConflictError
from paimon_sql.meta.snapshot_manager import SnapshotManager
from paimon_sql.ops import compact as compact_ops
from paimon_sql.table.table import Table
from paimon_sql.write import commit as commit_mod

SCHEMA = pa.schema([("k", pa.int64()), ("v", pa.string())])


def _rows(k: int, v: str) -> pa.Table:
    return pa.table({"k": [k], "v": [v]}, schema=SCHEMA)


def _table(tmp_path: Path) -> tuple[Table, Table]:
    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    mine, other = cat.get_table("db.t"), cat.get_table("db.t")
    assert isinstance(mine, Table) and isinstance(other, Table)
    mine.write(_rows(0, "a"))  # snapshot 1
    return mine, other


def _meanwhile(other: Table) -> None:
    """Two commits on top of snapshot 1, then expiry keeps only the newest (3)."""
    other.write(_rows(2, "b"))
    other.write(_rows(3, "c"))
    other.snapshots.expire(retain_max=1, retain_min=1)


@pytest.mark.parametrize("where", ["before the snapshot is built", "as the snapshot file is created"])
def test_a_commit_whose_base_expired_does_not_revive_an_expired_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    mine, other = _table(tmp_path)
    fired: list[bool] = []
    if where == "before the snapshot is built":
        build = commit_mod.build_snapshot

        def late_build(*args: Any) -> Any:
            snap = build(*args)
            if not fired:
                fired.append(True)
                _meanwhile(other)  # the base is gone before the create: seen before the file is made
            return snap

        monkeypatch.setattr(commit_mod, "build_snapshot", late_build)
    else:
        create = SnapshotManager.try_commit

        def late_create(self: SnapshotManager, snapshot: Any) -> bool:
            if not fired:
                fired.append(True)
                _meanwhile(other)  # between the check of the base and the create: id 2 is free again
            return create(self, snapshot)

        monkeypatch.setattr(SnapshotManager, "try_commit", late_create)
    sid = mine.write(_rows(1, "x"))
    assert fired
    assert sid == 4, "the write is redone on the latest snapshot"
    assert mine.snapshot_ids() == [3, 4], "no snapshot 2 revived below the latest"
    got = mine.read().sort_by("k")
    assert got.to_pydict() == {"k": [0, 1, 2, 3], "v": ["a", "x", "b", "c"]}


def test_the_lineage_check(tmp_path: Path) -> None:
    """``_in_lineage`` on each case it tells apart, with snapshots 1-4 and files removed by hand as
    expiry removes them (oldest first)."""
    mine, other = _table(tmp_path)
    store, sm = mine.store, mine.store.snapshots
    one = sm.latest()
    assert one is not None
    mine.write(_rows(1, "x"))  # snapshot 2: the commit under test
    other.write(_rows(2, "b"))
    other.write(_rows(3, "c"))
    two = sm.snapshot(2)
    ours = [e for e in store.manifests.live_entries(two) if e.file.max_sequence_number == 1]
    assert len(ours) == 1 and ours[0].file.row_count == 1
    alien = [replace(ours[0], file=replace(ours[0].file, file_name="data-never-written-0.parquet"))]
    assert commit_mod._in_lineage(store, one, two, alien), "the base is there: the id was free"
    assert commit_mod._in_lineage(store, None, two, alien), "the first snapshot"
    Path(sm.path(1)).unlink()
    assert commit_mod._in_lineage(store, one, two, ours), "the next snapshot holds its file"
    assert not commit_mod._in_lineage(store, one, two, alien), "the next snapshot does not build on it"
    assert commit_mod._in_lineage(store, one, sm.snapshot(4), alien), "it is the latest"
    Path(sm.path(3)).unlink()
    assert not commit_mod._in_lineage(store, one, two, ours), "expiry passed the id while it was not there"
    Path(sm.path(2)).unlink()
    assert commit_mod._in_lineage(store, one, two, ours), "expired with the ones after it"


def test_reading_the_latest_snapshot_starts_again_when_it_expired_meanwhile(tmp_path: Path) -> None:
    """``SnapshotManager.read_latest`` (compaction planning): a read that finds files gone after
    newer commits landed runs again on the new latest; while the snapshot is still the latest, a
    missing file is an error."""
    mine, other = _table(tmp_path)
    sm = mine.store.snapshots
    seen: list[int] = []

    def read(snap: Any) -> int:
        seen.append(snap.id)
        if len(seen) == 1:
            other.write(_rows(5, "e"))  # a newer snapshot lands, and expiry took this one's files
            raise NotFoundError("a manifest of the snapshot was deleted")
        return int(snap.id)

    assert sm.read_latest(read) is not None and seen == [1, 2]

    def missing(snap: Any) -> int:
        raise NotFoundError("a file is missing")

    with pytest.raises(NotFoundError, match="missing"):
        sm.read_latest(missing)


def test_a_compaction_whose_planned_snapshot_expired_is_a_conflict(tmp_path: Path) -> None:
    mine, other = _table(tmp_path)
    mine.write(_rows(1, "x"))
    table, plan = mine.maintenance.plan_compaction()
    assert isinstance(plan, compact_ops.CompactPlan)
    _meanwhile(other)  # the planned snapshot (2) expires
    with pytest.raises(WriteConflictError, match="planned on"):
        compact_ops.compact_buckets(table.store, plan, plan.buckets)
    assert mine.read().num_rows == 4  # keys 0-3: the compaction changed nothing
