"""TableCommit, the one committer of a table: every Table commit path goes through it (and runs
the post-commit maintenance once), its maintenance state lives on a per-table object from a
bounded registry that can be closed, and the redo loop never redoes changes committed already."""

from __future__ import annotations

import random
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import AlreadyCommittedError, WriteConflictError
from paimon_sql.ops import maintenance
from paimon_sql.table.table import Table
from paimon_sql.table.table_commit import TableCommit
from paimon_sql.write.commit import redo_on_conflict, redo_wait_ms

SCHEMA = pa.schema([("k", pa.int64()), ("v", pa.string()), ("dt", pa.string())])


def rows(keys: list[int], dt: str = "a") -> pa.Table:
    return pa.table({"k": keys, "v": [str(k) for k in keys], "dt": [dt] * len(keys)}, schema=SCHEMA)


def test_every_commit_path_goes_through_table_commit(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, bool]] = []
    real_commit = TableCommit.commit

    def recording(self: TableCommit, req: Any, compaction: Any = None) -> Any:
        seen.append((req.kind.value, self.maintain))
        return real_commit(self, req, compaction)

    monkeypatch.setattr(TableCommit, "commit", recording)
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k", "dt"], partition_keys=["dt"],
                             options={"bucket": "1"})
    t.write(rows([1, 2, 3]))
    t.write(rows([4], "b"))
    t.delete("k = 2")
    t.compact()
    t.rescale(2)
    t.drop_partitions([{"dt": "b"}])
    t.compact_manifest()
    a = catalog.create_table("db.a", SCHEMA, partition_keys=["dt"])
    a.write(rows([1]))
    t.copy_files_to(catalog.create_table("db.c", SCHEMA, primary_keys=["k", "dt"], partition_keys=["dt"],
                                         options={"bucket": "1"}))
    assert seen == [("APPEND", True), ("APPEND", True), ("APPEND", True), ("COMPACT", True),
                    ("OVERWRITE", True), ("OVERWRITE", True), ("COMPACT", False), ("APPEND", True),
                    ("OVERWRITE", True)]
    assert {t.snapshot(i).commit_user for i in t.snapshot_ids()} == {t.commit_user}


def test_maintenance_registry_is_bounded_and_closes(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(maintenance, "MAX_TABLES", 2)
    opts = {"snapshot.expire.execution-mode": "async", "snapshot.num-retained.max": "1",
            "snapshot.num-retained.min": "1"}
    tables = [catalog.create_table(f"db.t{i}", SCHEMA, options=opts) for i in range(3)]
    kept = []
    for t in tables:
        t.write(rows([1]))
        kept.append(maintenance.maintenance_of(t.store))
    first = kept[0]
    assert first.closed and first.pool is None  # evicted: its thread finished its work and stopped
    assert not kept[2].closed
    kept[2].wait()
    assert tables[2].snapshot_ids() == [1]
    # a committer that still holds the evicted object runs its maintenance in its own thread
    tables[0].write(rows([2]))
    first.after_commit(tables[0].store)
    assert tables[0].snapshot_ids() == [2]
    maintenance.close_all()
    assert kept[2].closed and kept[2].pool is None


def test_redo_loop_redoes_conflicts_only(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, options={"commit.min-retry-wait": "1 ms", "commit.max-retries": "3"})
    assert isinstance(t, Table)
    calls: list[int] = []

    def conflicting(redo: int) -> int:
        calls.append(redo)
        if redo < 2:
            raise WriteConflictError("lost")
        return 7

    assert redo_on_conflict(lambda: t.store, conflicting) == 7 and calls == [0, 1, 2]

    def committed(redo: int) -> int:
        calls.append(redo)
        raise AlreadyCommittedError("done already")

    calls.clear()
    with pytest.raises(AlreadyCommittedError):
        redo_on_conflict(lambda: t.store, committed)
    assert calls == [0]

    def always(redo: int) -> int:
        calls.append(redo)
        raise WriteConflictError("lost")

    calls.clear()
    with pytest.raises(WriteConflictError):
        redo_on_conflict(lambda: t.store, always)
    assert calls == [0, 1, 2, 3]  # commit.max-retries redos


def test_redo_waits_are_jittered_within_bounds() -> None:
    rng = random.Random(7)
    for redo in range(12):
        waits = [redo_wait_ms(redo, 10, 1000, rng) for _ in range(50)]
        base = min(10 * 2**redo, 1000)
        assert all(base * 0.5 <= w <= base * 1.2 for w in waits)
        assert len({round(w, 6) for w in waits}) > 40  # not in lockstep
