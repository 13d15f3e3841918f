"""The engine's streaming scan (paimon_sql.scan.streaming): where each scan.mode starts, the
follow-up over appends, deletes, compactions and overwrites, offsets, read limits and consumers
(Paimon's DataTableStreamScan as its Spark PaimonMicroBatchStream drives it)."""

from __future__ import annotations

import time

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import NotFoundError, UnsupportedError, ValidationError
from paimon_sql.meta.consumer_manager import ConsumerManager
from paimon_sql.scan.streaming import (
    ReadLimits,
    SnapshotExpiredError,
    StreamOffset,
    StreamScan,
    read_stream_splits,
    startup_mode,
)

SCHEMA = pa.schema([pa.field("a", pa.int32(), False), ("b", pa.string())])


def _rows(ids: list[int]) -> pa.Table:
    return pa.table({"a": pa.array(ids, pa.int32()), "b": pa.array([f"v_{i}" for i in ids])}, schema=SCHEMA)


def _prepare(catalog: Catalog, snapshots: int, pk: bool = True, name: str = "db.t", **opts: str):  # type: ignore[no-untyped-def]
    """Paimon's PaimonSourceTest table: (a INT, b STRING), 2 buckets, snapshot n writes
    10n, 10n+1, 10n+2."""
    options = {"bucket": "2", **opts} if pk else {"bucket": "2", "bucket-key": "a", **opts}
    t = catalog.create_table(name, SCHEMA, primary_keys=["a"] if pk else None, options=options)
    for n in range(1, snapshots + 1):
        t.write(_rows([10 * n, 10 * n + 1, 10 * n + 2]))
    return catalog.get_table(name)


def _drain(scan: StreamScan, start: StreamOffset, limits: ReadLimits | None = None,
           row_kind: bool = False) -> tuple[list[tuple], StreamOffset, int]:
    """Reads every batch after ``start``: (rows, last offset, number of batches)."""
    rows: list[tuple] = []
    batches = 0
    while True:
        end = scan.latest_offset(start, limits)
        if end is None:
            return rows, start, batches
        splits = scan.batch(start, end)
        tbl = read_stream_splits(scan.store, splits, row_kind=row_kind)
        rows += [tuple(r.values()) for r in tbl.to_pylist()]
        batches += 1
        scan.commit(end)
        start = end


def _stream(catalog: Catalog, name: str = "db.t", **opts: str) -> StreamScan:
    return StreamScan(catalog.get_table(name).copy(opts).store)


def test_default_mode_is_latest_full_then_changes(catalog: Catalog) -> None:
    t = _prepare(catalog, 3)
    scan = _stream(catalog)
    assert startup_mode(scan.store) == "latest-full"
    init = scan.initial_offset()
    assert init == StreamOffset(3, -1, True)
    rows, end, _ = _drain(scan, init)
    assert sorted(rows) == [(i, f"v_{i}") for i in (10, 11, 12, 20, 21, 22, 30, 31, 32)]
    assert end.snapshot_id == 3 and end.scan_snapshot and end.snapshot_completed
    t.write(_rows([40, 41, 42]))
    rows, end, _ = _drain(scan, end)
    assert sorted(rows) == [(40, "v_40"), (41, "v_41"), (42, "v_42")]
    assert end.snapshot_id == 4 and not end.scan_snapshot


def test_latest_reads_the_latest_snapshot_changes(catalog: Catalog) -> None:
    _prepare(catalog, 3)
    scan = _stream(catalog, **{"scan.mode": "latest"})
    assert scan.initial_offset() == StreamOffset(3, -1, False)
    rows, _, _ = _drain(scan, scan.initial_offset())
    assert sorted(rows) == [(30, "v_30"), (31, "v_31"), (32, "v_32")]


def test_from_snapshot_and_from_snapshot_full(catalog: Catalog) -> None:
    t = _prepare(catalog, 3)
    delta = _stream(catalog, **{"scan.snapshot-id": "3"})
    assert startup_mode(delta.store) == "from-snapshot"
    assert sorted(_drain(delta, delta.initial_offset())[0]) == [(30, "v_30"), (31, "v_31"), (32, "v_32")]
    full = _stream(catalog, **{"scan.mode": "from-snapshot-full", "scan.snapshot-id": "2"})
    assert sorted(_drain(full, full.initial_offset())[0]) == [
        (i, f"v_{i}") for i in (10, 11, 12, 20, 21, 22, 30, 31, 32)]
    # a snapshot to come: nothing yet, then that snapshot's rows
    nxt = _stream(catalog, **{"scan.snapshot-id": "4"})
    start = nxt.initial_offset()
    assert _drain(nxt, start)[0] == []
    t.write(_rows([40]))
    assert _drain(nxt, start)[0] == [(40, "v_40")]
    with pytest.raises(ValidationError, match="scan.snapshot-id must be set"):
        _stream(catalog, **{"scan.mode": "from-snapshot-full"})


def test_from_timestamp(catalog: Catalog) -> None:
    before = int(time.time() * 1000) - 1
    t = _prepare(catalog, 3)
    after = int(time.time() * 1000) + 1
    early = _stream(catalog, **{"scan.timestamp-millis": str(before)})
    assert startup_mode(early.store) == "from-timestamp"
    assert len(_drain(early, early.initial_offset())[0]) == 9
    late = _stream(catalog, **{"scan.mode": "from-timestamp", "scan.timestamp-millis": str(after)})
    start = late.initial_offset()
    assert start.snapshot_id == 4 and _drain(late, start)[0] == []
    t.write(_rows([40]))
    assert _drain(late, start)[0] == [(40, "v_40")]


def test_empty_table_then_writes(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["a"], options={"bucket": "1"})
    scan = _stream(catalog)
    start = scan.initial_offset()
    assert start == StreamOffset(1, -1, False)
    assert _drain(scan, start)[0] == []
    t.write(_rows([1, 2]))
    assert sorted(_drain(scan, start)[0]) == [(1, "v_1"), (2, "v_2")]


def test_empty_first_snapshot_does_not_stall(catalog: Catalog) -> None:
    # Paimon bug #9308: a full phase of a snapshot without rows must not hold the stream back
    t = _prepare(catalog, 1)
    t.truncate()
    scan = _stream(catalog)
    start = scan.initial_offset()
    assert start.scan_snapshot and _drain(scan, start)[0] == []
    catalog.get_table("db.t").write(_rows([7]))
    rows, end, _ = _drain(scan, start)
    assert rows == [(7, "v_7")] and not end.scan_snapshot


def test_deletes_and_compactions_in_delta_mode(catalog: Catalog) -> None:
    t = _prepare(catalog, 1)
    scan = _stream(catalog, **{"scan.mode": "latest"})
    start = StreamOffset(1, -1, False, None)
    rows, end, _ = _drain(scan, start, row_kind=True)
    assert sorted(rows) == [("+I", 10, "v_10"), ("+I", 11, "v_11"), ("+I", 12, "v_12")]
    t.delete("a = 11")
    t.compact(full=True)
    kinds = [s.commit_kind for s in (t.snapshot(i) for i in t.snapshot_ids())]
    assert "COMPACT" in kinds
    rows, end2, _ = _drain(scan, end, row_kind=True)
    # the delete's -D record; the COMPACT snapshot changes no row and is skipped
    assert [r[0] for r in rows] == ["-D"] and rows[0][1] == 11
    assert end2.snapshot_id == 2


def test_overwrite_is_skipped_unless_streaming_read_overwrite(catalog: Catalog) -> None:
    t = _prepare(catalog, 1, pk=False)
    t.write(_rows([99]), overwrite=True)
    t.write(_rows([5]))
    plain = _stream(catalog, **{"scan.snapshot-id": "1"})
    assert sorted(_drain(plain, plain.initial_offset())[0]) == [
        (5, "v_5"), (10, "v_10"), (11, "v_11"), (12, "v_12")]
    over = _stream(catalog, **{"scan.snapshot-id": "1", "streaming-read-overwrite": "true"})
    assert sorted(_drain(over, over.initial_offset())[0]) == [
        (5, "v_5"), (10, "v_10"), (11, "v_11"), (12, "v_12"), (99, "v_99")]


def test_offsets_round_trip_and_order() -> None:
    o = StreamOffset(3, 1, False, 2)
    assert o.to_json() == {"snapshotId": 3, "index": 1, "scanSnapshot": False, "totalSplits": 2}
    assert StreamOffset.from_json(o.to_json()) == o and o.snapshot_completed
    legacy = StreamOffset.from_json({"snapshotId": 3, "index": 0, "scanSnapshot": True})
    assert legacy.total_splits is None and not legacy.snapshot_completed
    with pytest.raises(ValidationError, match="Not a Paimon stream offset"):
        StreamOffset.from_json({"snapshotId": "x", "index": 0, "scanSnapshot": True})


def test_max_files_per_trigger_counts_splits(catalog: Catalog) -> None:
    _prepare(catalog, 3)
    scan = _stream(catalog, **{"scan.mode": "latest"})
    rows, end, batches = _drain(scan, scan.initial_offset(), ReadLimits(max_files=1))
    assert batches == 2  # two buckets: two splits
    assert (end.snapshot_id, end.index, end.scan_snapshot) == (3, 1, False)
    assert len(rows) == 3


def test_max_bytes_and_rows_per_trigger(catalog: Catalog) -> None:
    _prepare(catalog, 3, pk=False)
    scan = _stream(catalog, **{"scan.snapshot-id": "1"})
    splits = [len(scan.change_splits(scan.store.snapshots.snapshot(i)) or []) for i in (1, 2, 3)]
    rows, end, batches = _drain(scan, scan.initial_offset(), ReadLimits(max_bytes=1))
    # one split per batch: every split is more than one byte
    assert batches == sum(splits) and len(rows) == 9
    assert (end.snapshot_id, end.index) == (3, splits[2] - 1)
    _prepare(catalog, 3, name="db.p")
    pk = _stream(catalog, "db.p")
    rows, end, batches = _drain(pk, pk.initial_offset(), ReadLimits(max_rows=10))
    assert batches == 1 and len(rows) == 9 and (end.snapshot_id, end.index, end.scan_snapshot) == (3, 1, True)


def test_min_rows_and_max_trigger_delay(catalog: Catalog) -> None:
    t = _prepare(catalog, 3)
    scan = _stream(catalog)
    lim = ReadLimits(min_rows=5, max_delay_ms=60_000)
    start = scan.initial_offset()
    end = scan.latest_offset(start, lim, last_trigger_ms=0)  # the first batch always triggers
    assert end is not None
    t.write(_rows([40, 41, 42]))
    now = int(time.time() * 1000)
    assert scan.latest_offset(end, lim, last_trigger_ms=now) is None  # 3 rows < 5, delay not reached
    late = scan.latest_offset(end, lim, last_trigger_ms=now - 61_000)
    assert late is not None and late.snapshot_id == 4
    with pytest.raises(ValidationError, match="Can't provide only one of"):
        ReadLimits.of({"read.stream.minRowsPerTrigger": "10"})
    assert ReadLimits.of({"read.stream.maxfilespertrigger": "2"}).max_files == 2


def test_available_now_cap(catalog: Catalog) -> None:
    t = _prepare(catalog, 2)
    scan = _stream(catalog, **{"scan.mode": "latest"})
    cap = t.latest_snapshot().id  # type: ignore[union-attr]
    start = scan.initial_offset()
    t.write(_rows([50]))
    end = scan.latest_offset(start, None, max_snapshot=cap)
    assert end is not None and end.snapshot_id == cap
    assert scan.latest_offset(end, None, max_snapshot=cap) is None


def test_consumer_progress_after_commit_and_restart(catalog: Catalog) -> None:
    t = _prepare(catalog, 2)
    scan = _stream(catalog, **{"consumer-id": "c1", "scan.mode": "latest"})
    consumers = ConsumerManager.of(scan.store)
    start = scan.initial_offset()
    end = scan.latest_offset(start)
    assert end is not None
    assert consumers.consumer("c1") is None  # nothing recorded before the batch completes
    assert scan.commit(end) == 3
    assert consumers.consumer("c1").next_snapshot == 3  # type: ignore[union-attr]
    t.write(_rows([60]))
    # a new stream of the consumer (no checkpoint) starts at its next snapshot
    again = _stream(catalog, **{"consumer-id": "c1"})
    assert again.initial_offset() == StreamOffset(3, -1, False)
    assert _drain(again, again.initial_offset())[0] == [(60, "v_60")]
    ignoring = _stream(catalog, **{"consumer-id": "c1", "consumer.ignore-progress": "true"})
    assert ignoring.initial_offset().scan_snapshot
    # a partly read full phase records nothing
    assert _stream(catalog, **{"consumer-id": "c2"}).commit(StreamOffset(3, 0, True, 2)) is None
    assert consumers.consumer("c2") is None


def test_restart_resumes_from_offset_not_full_scan(catalog: Catalog) -> None:
    # Paimon bug #8205: a restarted latest-full stream resumes from its checkpointed offset
    t = _prepare(catalog, 2)
    scan = _stream(catalog)
    _, end, _ = _drain(scan, scan.initial_offset())
    t.write(_rows([70]))
    restarted = _stream(catalog)
    start = restarted.normalize_start(end)
    assert start == end
    assert _drain(restarted, start)[0] == [(70, "v_70")]


def test_expired_snapshot_under_a_running_stream(catalog: Catalog) -> None:
    t = _prepare(catalog, 2)
    scan = _stream(catalog, **{"scan.mode": "latest"})
    _, end, _ = _drain(scan, scan.initial_offset())
    for n in range(3, 7):
        t.write(_rows([100 + n]))
    catalog.get_table("db.t").expire_snapshots(retain_max=1, retain_min=1)
    with pytest.raises(SnapshotExpiredError, match="has expired"):
        scan.batch(StreamOffset(3, -1, False))
    # a checkpointed offset whose snapshot expired starts again from the initial offset
    assert scan.normalize_start(end) == scan.initial_offset()


def test_bad_modes(catalog: Catalog) -> None:
    _prepare(catalog, 1)
    with pytest.raises(UnsupportedError, match="Cannot read incremental in streaming mode"):
        _stream(catalog, **{"scan.mode": "incremental"})
    with pytest.raises(UnsupportedError, match="Cannot scan from tag in streaming mode"):
        catalog.get_table("db.t").create_tag("tag1")
        _stream(catalog, **{"scan.tag-name": "tag1"})
    with pytest.raises(NotFoundError, match="too big"):
        s = _stream(catalog, **{"scan.snapshot-id": "9"})
        s.batch(s.initial_offset())


def test_compacted_full(catalog: Catalog) -> None:
    t = _prepare(catalog, 2)
    t.compact(full=True)
    t.write(_rows([80]))
    scan = _stream(catalog, **{"scan.mode": "compacted-full"})
    start = scan.initial_offset()
    assert start.scan_snapshot and t.snapshot(start.snapshot_id).commit_kind == "COMPACT"
    rows, _, _ = _drain(scan, start)
    assert sorted(rows) == [(i, f"v_{i}") for i in (10, 11, 12, 20, 21, 22, 80)]


def test_partitioned_split_order(catalog: Catalog) -> None:
    schema = pa.schema([pa.field("a", pa.int32(), False), ("p", pa.string())])
    t = catalog.create_table("db.pt", schema, partition_keys=["p"], options={"bucket": "1", "bucket-key": "a"})
    t.write(pa.table({"a": pa.array([1, 2, 3], pa.int32()), "p": ["b", "a", "c"]}, schema=schema))
    scan = StreamScan(catalog.get_table("db.pt").store)
    splits = scan.batch(scan.initial_offset())
    assert [s.split.partition_values for s in splits] == [("a",), ("b",), ("c",)]
    assert [s.index for s in splits] == [0, 1, 2]


def test_two_starting_points_are_refused(catalog: Catalog) -> None:
    _prepare(catalog, 1)
    with pytest.raises(ValidationError, match="at most one"):
        _stream(catalog, **{"scan.snapshot-id": "1", "scan.timestamp-millis": "1"})


def test_decoupled_changelogs_are_read_after_their_snapshots_expired(catalog: Catalog) -> None:
    t = _prepare(catalog, 4, **{"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1",
                                "changelog.num-retained.max": "10"})
    assert t.store.snapshots.earliest_id() == 4 and t.store.changelogs.ids()[:1] == [1]
    scan = _stream(catalog, **{"scan.snapshot-id": "1"})
    assert scan.initial_offset() == StreamOffset(1, -1, False)
    rows, _, _ = _drain(scan, scan.initial_offset())
    assert sorted(rows) == [(i, f"v_{i}") for n in (1, 2, 3, 4) for i in (10 * n, 10 * n + 1, 10 * n + 2)]


@pytest.mark.parametrize("producer", ["input", "lookup", "full-compaction"])
def test_stream_follows_each_changelog_producer(catalog: Catalog, producer: str) -> None:
    """With a changelog producer the follow-up reads every snapshot's changelog files with their
    row kinds (PaimonCDCSourceTest): an update is -U/+U (lookup, full-compaction) or the input
    record (input), a delete -D; the changes after the full first read fold to the table."""
    opts = {"changelog-producer": producer}
    if producer == "full-compaction":
        opts["full-compaction.delta-commits"] = "1"
    t = _prepare(catalog, 1, **opts)
    scan = _stream(catalog, **{"read.changelog": "true"})
    first, start, _ = _drain(scan, scan.initial_offset(), row_kind=True)
    assert sorted(first) == [("+I", 10, "v_10"), ("+I", 11, "v_11"), ("+I", 12, "v_12")]
    t.write(pa.table({"a": pa.array([10, 20], pa.int32()), "b": ["new", "v_20"]}, schema=SCHEMA))
    t.delete("a = 11")
    changes, _, _ = _drain(scan, start, row_kind=True)
    by_key: dict[int, list[tuple]] = {}
    for kind, a, b in changes:
        by_key.setdefault(a, []).append((kind, b))
    if producer == "input":
        assert by_key == {10: [("+I", "new")], 20: [("+I", "v_20")], 11: [("-D", "v_11")]}
    else:
        assert by_key == {10: [("-U", "v_10"), ("+U", "new")], 20: [("+I", "v_20")], 11: [("-D", "v_11")]}
    # folded over the first read, the changes give the table
    state = {a: b for _, a, b in first}
    for kind, a, b in changes:
        if kind in ("+I", "+U"):
            state[a] = b
        elif kind == "-D":
            state.pop(a, None)
    assert sorted(state.items()) == sorted(zip(*catalog.get_table("db.t").read().to_pydict().values()))
