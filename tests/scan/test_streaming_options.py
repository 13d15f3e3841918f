"""The streaming scan's remaining source options (paimon_sql.scan.streaming): ``streaming-read-overwrite``
on primary-key tables (Paimon's ReadWriteTableITCase "Streaming Read of Overwrite" cases),
``scan.bounded.watermark``, ``streaming.read.snapshot.delay`` and ``scan.mode`` =
``from-file-creation-time`` (Paimon's DataTableStreamScan / FileCreationTimeStartingScanner)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.scan.streaming import ReadLimits, StreamOffset, StreamScan, read_stream_splits, startup_mode

RATES = pa.schema([pa.field("currency", pa.string(), False), ("rate", pa.int64()), pa.field("dt", pa.string(), False)])


def _rates(*rows: tuple[str, int, str]) -> pa.Table:
    return pa.table({"currency": [r[0] for r in rows], "rate": [r[1] for r in rows], "dt": [r[2] for r in rows]},
                    schema=RATES)


def _drain(scan: StreamScan, start: StreamOffset, limits: ReadLimits | None = None,
           sequence_number: bool = False) -> tuple[list[tuple], StreamOffset]:
    rows: list[tuple] = []
    while True:
        end = scan.latest_offset(start, limits)
        if end is None:
            return rows, start
        tbl = read_stream_splits(scan.store, scan.batch(start, end), row_kind=True, sequence_number=sequence_number)
        rows += [tuple(r.values()) for r in tbl.to_pylist()]
        start = end


def _stream(catalog: Catalog, name: str, **opts: str) -> StreamScan:
    return StreamScan(catalog.get_table(name).copy(opts).store)


def _rewrite(t, sid: int, **changes: object) -> None:  # type: ignore[no-untyped-def]
    """Gives snapshot ``sid`` a watermark or a commit time (as a Flink writer would have)."""
    snap = t.store.snapshots.snapshot(sid)
    Path(t.store.snapshots.path(sid)).write_text(dataclasses.replace(snap, **changes).to_json())


def test_streaming_read_overwrite_of_partitions(catalog: Catalog) -> None:
    # testStreamingReadOverwriteWithPartitionedRecords
    t = catalog.create_table("db.r", RATES, primary_keys=["currency", "dt"], partition_keys=["dt"],
                             options={"streaming-read-overwrite": "true", "bucket": "1"})
    t.write(_rates(("US Dollar", 114, "2022-01-01"), ("Yen", 1, "2022-01-01"), ("Euro", 114, "2022-01-01"),
                   ("Euro", 119, "2022-01-02")))
    t.write(_rates(("US Dollar", 120, "2022-01-01")), overwrite={"dt": "2022-01-01"})
    scan = _stream(catalog, "db.r")
    rows, end = _drain(scan, scan.initial_offset())
    assert rows == [("+I", "US Dollar", 120, "2022-01-01"), ("+I", "Euro", 119, "2022-01-02")]
    t.write(_rates(("Euro", 100, "2022-01-02"), ("Yen", 1, "2022-01-02")), overwrite={"dt": "2022-01-02"})
    rows, _ = _drain(scan, end)
    # the removed rows first (-D), then the written ones; not a diff
    assert rows == [("-D", "Euro", 119, "2022-01-02"), ("+I", "Euro", 100, "2022-01-02"),
                    ("+I", "Yen", 1, "2022-01-02")]
    # without the option the OVERWRITE snapshot is skipped
    plain = _stream(catalog, "db.r", **{"streaming-read-overwrite": "false"})
    assert _drain(plain, end)[0] == []


def test_streaming_read_overwrite_of_the_whole_table(catalog: Catalog) -> None:
    # testStreamingReadOverwriteWithoutPartitionedRecords (without the projection and filter)
    t = catalog.create_table("db.r", RATES, primary_keys=["currency"], options={"streaming-read-overwrite": "true",
                                                                                 "bucket": "1"})
    t.write(_rates(("US Dollar", 102, "2022-01-01"), ("Yen", 1, "2022-01-02"), ("Euro", 119, "2022-01-02")))
    t.write(_rates(("Euro", 120, "2022-01-02")))  # two sorted runs: the removed rows are merged first
    scan = _stream(catalog, "db.r", **{"scan.mode": "latest"})
    start = StreamOffset(2, 0, False, 1)
    t.write(_rates(("US Dollar", 100, "2022-01-02"), ("Yen", 10, "2022-01-01")), overwrite=True)
    rows, _ = _drain(scan, start)
    assert sorted(r for r in rows if r[0] == "-D") == [
        ("-D", "Euro", 120, "2022-01-02"), ("-D", "US Dollar", 102, "2022-01-01"), ("-D", "Yen", 1, "2022-01-02")]
    assert [r[0] for r in rows] == ["-D"] * 3 + ["+I"] * 2
    assert sorted(rows[3:]) == [("+I", "US Dollar", 100, "2022-01-02"), ("+I", "Yen", 10, "2022-01-01")]


def test_streaming_read_overwrite_refused_with_lookup_and_full_compaction(catalog: Catalog) -> None:
    # CatalogTableITCase.testInvalidStreamingReadOverwrite (the stream refuses it: a table option
    # set later, or a dynamic one, is caught here too)
    for producer in ("lookup", "full-compaction"):
        catalog.create_table(f"db.{producer.replace('-', '_')}", RATES, primary_keys=["currency"],
                             options={"changelog-producer": producer})
        with pytest.raises(UnsupportedError, match="Cannot set streaming-read-overwrite to true when changelog "
                                                   "producer is full-compaction or lookup"):
            _stream(catalog, f"db.{producer.replace('-', '_')}", **{"streaming-read-overwrite": "true"})


def test_bounded_watermark_ends_the_stream(catalog: Catalog) -> None:
    t = catalog.create_table("db.w", RATES, primary_keys=["currency"], options={"bucket": "1"})
    for i, wm in enumerate((100, 200, 300, 400), start=1):
        t.write(_rates((f"c{i}", i, "d")))
        _rewrite(t, i, watermark=wm)
    # changes: the first snapshot whose watermark passes the bound is not read, nor anything after
    scan = _stream(catalog, "db.w", **{"scan.snapshot-id": "1", "scan.bounded.watermark": "250"})
    rows, end = _drain(scan, scan.initial_offset())
    assert [r[1] for r in rows] == ["c1", "c2"]
    assert end.snapshot_id == 2 and scan.ended(end)
    t.write(_rates(("c5", 5, "d")))
    assert _drain(scan, end)[0] == []
    # a full phase of a snapshot past the bound is the last thing read
    full = _stream(catalog, "db.w", **{"scan.mode": "from-snapshot-full", "scan.snapshot-id": "3",
                                       "scan.bounded.watermark": "250"})
    rows, end = _drain(full, full.initial_offset(), ReadLimits(max_files=1))
    assert sorted(r[1] for r in rows) == ["c1", "c2", "c3"]
    assert full.ended(end)
    # without a watermark past the bound the stream goes on
    lax = _stream(catalog, "db.w", **{"scan.snapshot-id": "1", "scan.bounded.watermark": "1000"})
    assert [r[1] for r in _drain(lax, lax.initial_offset())[0]] == ["c1", "c2", "c3", "c4", "c5"]


def test_snapshot_delay_holds_young_snapshots_back(catalog: Catalog) -> None:
    t = catalog.create_table("db.d", RATES, primary_keys=["currency"], options={"bucket": "1"})
    t.write(_rates(("a", 1, "d")))
    t.write(_rates(("b", 2, "d")))
    scan = _stream(catalog, "db.d", **{"streaming.read.snapshot.delay": "1 h"})
    assert scan.delay_ms == 3_600_000
    # the full phase is not delayed (Paimon delays follow-up snapshots only)
    rows, end = _drain(scan, scan.initial_offset())
    assert [r[1] for r in rows] == ["a", "b"]
    t.write(_rates(("c", 3, "d")))
    t.write(_rates(("e", 4, "d")))
    assert _drain(scan, end)[0] == []
    # once a snapshot is old enough it is read; the younger one after it still waits
    _rewrite(t, 3, time_millis=int(time.time() * 1000) - 2 * 3_600_000)
    rows, end = _drain(scan, end)
    assert [r[1] for r in rows] == ["c"] and end.snapshot_id == 3


def test_from_file_creation_time(catalog: Catalog) -> None:
    t = catalog.create_table("db.f", RATES, primary_keys=["currency"], options={"bucket": "1"})
    t.write(_rates(("old", 1, "d")))
    time.sleep(0.05)
    since = int(time.time() * 1000)
    time.sleep(0.05)
    t.write(_rates(("new", 2, "d")))
    scan = _stream(catalog, "db.f", **{"scan.file-creation-time-millis": str(since)})
    assert startup_mode(scan.store) == "from-file-creation-time"
    # the latest snapshot's files created since then, then the later changes
    rows, end = _drain(scan, scan.initial_offset())
    assert rows == [("+I", "new", 2, "d")]
    t.write(_rates(("later", 3, "d")))
    assert _drain(scan, end)[0] == [("+I", "later", 3, "d")]
    with pytest.raises(ValidationError, match="scan.file-creation-time-millis"):
        _stream(catalog, "db.f", **{"scan.mode": "from-file-creation-time"})


def test_batch_read_from_file_creation_time(catalog: Catalog) -> None:
    # Paimon's from-file-creation-time in a batch read: the latest snapshot, files created since then
    t = catalog.create_table("db.f", RATES, options={"bucket": "1", "bucket-key": "currency"})
    t.write(_rates(("old", 1, "d")))
    time.sleep(0.05)
    since = int(time.time() * 1000)
    time.sleep(0.05)
    t.write(_rates(("new", 2, "d")))
    assert t.copy({"scan.file-creation-time-millis": str(since)}).read().column("currency").to_pylist() == ["new"]
    assert sorted(t.read().column("currency").to_pylist()) == ["new", "old"]
