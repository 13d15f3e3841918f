"""``CALL sys.compact(table, where => ...)`` on append tables, as Paimon's CompactProcedureTestBase
("compact with where", "type cast in where"): the selected buckets are compacted into one COMPACT
snapshot. A fixed bucket with fewer than 3 files gets no full-compaction task in Paimon; the
best-effort pick of its batch commit (``compaction.min.file-num``) rewrites them instead."""

from __future__ import annotations

import os

import pyarrow as pa

from paimon_sql import Catalog, Table
from paimon_sql.procedures import call_procedure


def _kinds(t: Table) -> list[str]:
    return [t.store.snapshots.snapshot(s).commit_kind for s in t.snapshot_ids()]


def test_compact_with_where_fixed_bucket_append(catalog: Catalog) -> None:
    schema = pa.schema([("id", pa.int32()), ("value", pa.string()), ("dt", pa.string()), ("hh", pa.int32())])
    t = catalog.create_table("db.T", schema, partition_keys=["dt", "hh"], options={
        "bucket": "1", "bucket-key": "id", "write-only": "true", "compaction.min.file-num": "1"})
    assert isinstance(t, Table)
    for a, b, dt in [(1, 2, "2024-01-01"), (3, 4, "2024-01-01"), (5, 6, "2024-01-02"), (7, 8, "2024-01-02")]:
        t.write(pa.table({"id": pa.array([a, b], pa.int32()), "value": [str(a), str(b)], "dt": [dt, dt],
                          "hh": pa.array([0, 1], pa.int32())}, schema=schema))
    rows = call_procedure(catalog, "compact", {"table": "db.T", "where": 'dt = "2024-01-01" and hh >= 1'}).rows
    assert rows == [(True,)]
    t = t.refresh()
    assert _kinds(t) == ["APPEND"] * 4 + ["COMPACT"]  # Paimon: lastSnapshotCommand == COMPACT

    def files(part: str) -> int:
        return len(os.listdir(os.path.join(t.path, part, "bucket-0")))

    # the two files of dt=2024-01-01/hh=1: the oldest rewritten (min.file-num 1), both old ones kept
    # on disk for the older snapshots
    assert [files(p) for p in ("dt=2024-01-01/hh=0", "dt=2024-01-01/hh=1", "dt=2024-01-02/hh=0",
                               "dt=2024-01-02/hh=1")] == [2, 3, 2, 2]
    assert sorted(t.read()["id"].to_pylist()) == list(range(1, 9))


def test_type_cast_in_where_unaware_append(catalog: Catalog) -> None:
    schema = pa.schema([("id", pa.int32()), ("value", pa.string()), ("day_part", pa.int64())])
    t = catalog.create_table("db.t", schema, partition_keys=["day_part"], options={"compaction.min.file-num": "2"})
    assert isinstance(t, Table)
    for i, v, d in [(1, "a", 20250810), (2, "b", 20250810), (3, "c", 20250811)]:
        t.write(pa.table({"id": pa.array([i], pa.int32()), "value": [v], "day_part": [d]}, schema=schema))
    call_procedure(catalog, "compact", {"table": "db.t", "where": "day_part < 20250811 and day_part > 20250809"})
    assert _kinds(t.refresh())[-1] == "COMPACT"


def test_fixed_bucket_minor_is_best_effort(catalog: Catalog) -> None:
    """compact_strategy 'minor' of a fixed append bucket: only the best-effort pick (Paimon's
    triggerCompaction(false)); with the default compaction.min.file-num (5) four files stay."""
    schema = pa.schema([("id", pa.int32())])
    t = catalog.create_table("db.m", schema, options={"bucket": "1", "bucket-key": "id", "write-only": "true"})
    assert isinstance(t, Table)
    for i in range(4):
        t.write(pa.table({"id": pa.array([i], pa.int32())}))
    call_procedure(catalog, "compact", {"table": "db.m", "compact_strategy": "minor"})
    assert _kinds(t.refresh()) == ["APPEND"] * 4
    call_procedure(catalog, "compact", {"table": "db.m"})  # full: 4 small files, one FullCompactTask
    assert _kinds(t.refresh()) == ["APPEND"] * 4 + ["COMPACT"]
