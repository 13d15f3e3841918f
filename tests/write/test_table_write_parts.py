"""The parts of ``TableWrite`` (issue 23 seam 6): the bucket assigner picked by the table's bucket
mode, per-(partition, bucket) slots continuing the base's sequence numbers, file namers passed
as an argument, and the compaction policy of ``prepare_commit``."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import ValidationError
from paimon_sql.write.bucket_assigner import (
    CrossPartitionBucketAssigner,
    DynamicBucketAssigner,
    FixedBucketAssigner,
    UnawareBucketAssigner,
)
from paimon_sql.write.compaction_policy import CompactionPolicy
from paimon_sql.write.file_writer import FileNamer
from paimon_sql.write.table_write import TableWrite

SCHEMA = pa.schema([("id", pa.int64()), ("p", pa.string()), ("n", pa.int64())])


def _rows(ids: list[int], p: str = "a", n: int = 0) -> pa.Table:
    return pa.table({"id": ids, "p": [p] * len(ids), "n": [n] * len(ids)}, schema=SCHEMA)


@pytest.mark.parametrize(
    ("pk", "parts", "bucket", "expected", "total"),
    [
        (["id"], [], "2", FixedBucketAssigner, 2),
        ([], [], "3", FixedBucketAssigner, 3),
        ([], [], "-1", UnawareBucketAssigner, -1),
        (["id"], [], "-1", DynamicBucketAssigner, -1),
        (["id", "p"], ["p"], "-1", DynamicBucketAssigner, -1),
        (["id"], ["p"], "-1", CrossPartitionBucketAssigner, -1),
    ],
)
def test_assigner_follows_the_bucket_mode(
    catalog: Catalog, pk: list[str], parts: list[str], bucket: str, expected: type, total: int,
) -> None:
    options = {"bucket": bucket} if pk or bucket == "-1" else {"bucket": bucket, "bucket-key": "id"}
    t = catalog.create_table("db.t", SCHEMA, primary_keys=pk, partition_keys=parts, options=options)
    t.write(_rows([1, 2, 3, 4, 5]))
    tw = TableWrite(t.store, t.latest_snapshot())
    assert type(tw.assigner) is expected
    assert tw.assigner.total_buckets == total
    # the entries written record the assigner's bucket count
    tw.write(_rows([6, 7]))
    assert {e.total_buckets for e in tw.prepare_commit().entries} == {total}
    tw.abort()


def test_slots_continue_each_bucket_sequence(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1", "write-only": "true"})
    t.write(_rows([1, 2, 3]))
    t.write(_rows([1, 4]))
    tw = TableWrite(t.store, t.latest_snapshot())
    tw.write(_rows([5, 6]))
    entry = tw.prepare_commit().entries[0]
    assert (entry.file.min_sequence_number, entry.file.max_sequence_number) == (5, 6)
    slot = tw.slots.get(entry.partition, 0)
    assert slot.next_seq == 7 and len(slot.restored) == 2
    tw.abort()
    # an overwriting write restores no files but keeps counting
    tw = TableWrite(t.store, t.latest_snapshot(), ignore_previous_files=True)
    assert tw.slots.restored() == []
    tw.abort()


def test_file_namers_are_an_argument(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id", "p"], partition_keys=["p"], options={"bucket": "2"})
    made: list[FileNamer] = []

    def namers() -> FileNamer:
        made.append(FileNamer("data-", "parquet", uuid="attempt-1"))
        return made[-1]

    tw = TableWrite(t.store, None, namers=namers)
    tw.write(pa.concat_tables([_rows(list(range(20)), "a"), _rows(list(range(20)), "b")]))
    changes = tw.prepare_commit()
    names = sorted(e.file.file_name for e in changes.entries)
    assert len(made) == len(changes.entries) == 4  # one namer per (partition, bucket)
    assert names == ["data-attempt-1-0.parquet"] * 4
    t.commit_changes([changes])
    assert catalog.get_table("db.t").read().num_rows == 40


def _compaction_table(catalog: Catalog) -> Any:
    return catalog.create_table(
        "db.t", SCHEMA, primary_keys=["id"],
        options={"bucket": "1", "num-sorted-run.compaction-trigger": "2", "num-sorted-run.stop-trigger": "10"},
    )


def test_defer_writes_only_and_sync_compacts(catalog: Catalog) -> None:
    t = _compaction_table(catalog)
    for i in range(3):
        tw = TableWrite(t.store, t.latest_snapshot(), compaction=CompactionPolicy.DEFER)
        tw.write(_rows([i, i + 10], n=i))
        changes = tw.prepare_commit()
        assert changes.entries and not changes.compact_entries
        t.commit_changes([changes])
    t = catalog.get_table("db.t")
    assert [t.store.snapshots.snapshot(i).commit_kind for i in t.snapshot_ids()] == ["APPEND"] * 3
    assert len(list(t.store.manifests.live_entries(t.latest_snapshot()))) == 3
    with pytest.raises(ValidationError, match=r"full_compaction=True.*db\.t.*DEFER"):
        TableWrite(t.store, t.latest_snapshot(), compaction=CompactionPolicy.DEFER).prepare_commit(full_compaction=True)
    # the default (SYNC) compacts the runs the deferred writes left
    tw = TableWrite(t.store, t.latest_snapshot())
    assert tw.compaction_policy is CompactionPolicy.SYNC
    tw.write(_rows([100]))
    changes = tw.prepare_commit()
    assert changes.compact_entries
    t.commit_changes([changes])
    t = catalog.get_table("db.t")
    assert t.store.snapshots.latest().commit_kind == "COMPACT"
    assert sorted(t.read().column("id").to_pylist()) == [0, 1, 2, 10, 11, 12, 100]


def test_defer_still_waits_at_the_stop_trigger(catalog: Catalog) -> None:
    t = catalog.create_table(
        "db.t", SCHEMA, primary_keys=["id"],
        options={"bucket": "1", "num-sorted-run.compaction-trigger": "2", "num-sorted-run.stop-trigger": "2",
                 "write-buffer-size": "1 b"},
    )
    tw = TableWrite(t.store, None, compaction=CompactionPolicy.DEFER)
    for i in range(4):  # each write flushes one level-0 run
        tw.write(_rows([i], n=i))
    changes = tw.prepare_commit()
    assert changes.compact_entries  # compacted while writing, as Paimon's writer waits at the stop trigger
    t.commit_changes([changes])
    assert sorted(catalog.get_table("db.t").read().column("id").to_pylist()) == [0, 1, 2, 3]


def test_new_write_takes_the_compaction_policy(catalog: Catalog) -> None:
    t = _compaction_table(catalog)
    assert t.new_write().compaction_policy is CompactionPolicy.SYNC
    assert t.new_write(compaction="DEFER").compaction_policy is CompactionPolicy.DEFER
    for i in range(3):  # deferred through the public door: no COMPACT snapshot however many runs
        tw = catalog.get_table("db.t").new_write(compaction=CompactionPolicy.DEFER)
        tw.write(_rows([i], n=i))
        t.commit_changes([tw.prepare_commit()])
    t = catalog.get_table("db.t")
    assert {t.store.snapshots.snapshot(i).commit_kind for i in t.snapshot_ids()} == {"APPEND"}
    with pytest.raises(ValidationError, match=r"compaction: expected .*'sync', 'defer'.*'later'"):
        t.new_write(compaction="later")
