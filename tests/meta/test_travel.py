"""The one version resolver (paimon_sql/meta/travel.py): snapshot id, tag, timestamp, watermark and
``scan.version`` from the Python API, a table's own options and procedures."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import os

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import NotFoundError, ValidationError
from paimon_sql.meta.travel import TimeTravel, is_snapshot_number, parse_version, resolve, snapshot_ranges
from paimon_sql.ops.tags import create_tag
from paimon_sql.table.table import Table


def _table(catalog: Catalog, snapshots: int = 3) -> Table:
    catalog.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]), primary_keys=["id"])
    t = catalog.get_table("db.t")
    for i in range(1, snapshots + 1):
        t.write(pa.table({"id": [1], "v": [f"v{i}"]}))
    return t


def _value(t: Table, **travel: object) -> str:
    return str(t.read(**travel).column("v")[0].as_py())  # type: ignore[arg-type]


def _set_watermarks(t: Table, marks: dict[int, int | None]) -> None:
    """Snapshot files as a Flink writer leaves them: with the watermarks given."""
    sm = t.store.snapshots
    for sid, mark in marks.items():
        snap = dataclasses.replace(sm.snapshot(sid), watermark=mark)
        path = sm.path(sid)
        os.remove(path)
        with open(path, "w") as f:
            f.write(snap.to_json())


def test_is_snapshot_number_and_parse_version() -> None:
    assert is_snapshot_number("12") and not is_snapshot_number("-1") and not is_snapshot_number(" 1")
    assert not is_snapshot_number("1a") and not is_snapshot_number(str(2**63))
    assert parse_version("7", "rollback of db.t") == 7
    assert parse_version("v7", "rollback of db.t") == "v7"
    with pytest.raises(ValidationError, match="argument 'version'.*out of range"):
        parse_version(str(2**63), "rollback of db.t")


def test_snapshot_ranges() -> None:
    assert snapshot_ranges([]) == "none"
    assert snapshot_ranges([1, 2, 3, 7, 9, 10]) == "1..3, 7, 9..10"


def test_each_kind_of_travel(catalog: Catalog) -> None:
    t = _table(catalog)
    create_tag(t.store, "first", snapshot_id=1)
    assert _value(t) == "v3"
    assert _value(t, snapshot_id=2) == "v2"
    assert _value(t, tag="first") == "v1"
    ts = t.store.snapshots.snapshot(2).time_millis
    assert _value(t, timestamp_ms=ts) in ("v2", "v3")  # snapshot 3 may share the millisecond
    with pytest.raises(ValidationError, match="at most one"):
        t.read(snapshot_id=1, tag="first")
    with pytest.raises(NotFoundError, match=r"Snapshot 9 of table db.t does not exist \(snapshots: 1..3; tags: \['first'\]\)"):
        t.read(snapshot_id=9)
    with pytest.raises(NotFoundError, match="no snapshot at or before timestamp 0"):
        t.read(timestamp_ms=0)


def test_timestamp_picks_the_latest_snapshot_at_or_before(catalog: Catalog) -> None:
    t = _table(catalog, 6)
    sm = t.store.snapshots
    times = {sid: sm.snapshot(sid).time_millis for sid in sm.snapshot_ids()}
    for ms in times.values():
        expect = max(s for s, m in times.items() if m <= ms)
        assert sm.snapshot_at_or_before(ms).id == expect  # type: ignore[union-attr]
        linear = [s for s, m in times.items() if m <= ms - 1]
        got = sm.snapshot_at_or_before(ms - 1)
        assert (got.id if got else None) == (max(linear) if linear else None)


def test_watermark(catalog: Catalog) -> None:
    t = _table(catalog, 4)
    _set_watermarks(t, {1: -(2**63), 2: 100, 3: None, 4: 300})
    assert _value(t, watermark=50) == "v2"
    assert _value(t, watermark=100) == "v2"
    assert _value(t, watermark=101) == "v4"  # snapshot 3 has no watermark
    with pytest.raises(NotFoundError, match="no snapshot with a watermark at or after 301"):
        t.read(watermark=301)
    assert _value(t.copy({"scan.watermark": "150"})) == "v4"
    assert _value(t.copy({"scan.version": "watermark-100"})) == "v2"


def test_scan_version_prefers_an_existing_tag(catalog: Catalog) -> None:
    t = _table(catalog)
    create_tag(t.store, "2", snapshot_id=1)  # a tag named like a snapshot id wins, as in Paimon
    assert TimeTravel.of_version("2", t.store) == TimeTravel(tag="2")
    assert TimeTravel.of_version("3", t.store) == TimeTravel(snapshot_id=3)
    assert _value(t.copy({"scan.version": "2"})) == "v1"
    assert _value(t.copy({"scan.version": "3"})) == "v3"
    with pytest.raises(NotFoundError, match="has no tag 'nope' and it is no snapshot id"):
        t.copy({"scan.version": "nope"}).read()


def test_table_options_travel(catalog: Catalog) -> None:
    t = _table(catalog)
    assert _value(t.copy({"scan.snapshot-id": "1"})) == "v1"
    ms = t.store.snapshots.snapshot(2).time_millis
    assert _value(t.copy({"scan.timestamp-millis": str(ms)})) in ("v2", "v3")
    # a local time one second after the last commit (scan.timestamp has second precision)
    last = t.store.snapshots.latest().time_millis  # type: ignore[union-attr]
    local = _dt.datetime.fromtimestamp(last // 1000 + 1).strftime("%Y-%m-%d %H:%M:%S")
    assert _value(t.copy({"scan.timestamp": "2000-01-01 00:00:00"}), snapshot_id=1) == "v1"  # explicit wins
    snap, _store, travelled = resolve(t.store, TimeTravel.of_options({"scan.timestamp": local}, t.store), "test")
    assert travelled and snap is not None and snap.id == 3
    assert _value(t.copy({"scan.timestamp": local})) == "v3"
    with pytest.raises(ValidationError, match=r"'x' for option 'scan.snapshot-id' of table db.t"):
        t.copy({"scan.snapshot-id": "x"})
    with pytest.raises(ValidationError, match=r"Option 'scan.snapshot-id' must be an integer, got 'x'"):
        TimeTravel.of_options({"scan.snapshot-id": "x"}, t.store)
    with pytest.raises(ValidationError, match="time-travel options"):
        TimeTravel.of_options({"scan.snapshot-id": "1", "scan.tag-name": "a"}, t.store)
    with pytest.raises(ValidationError, match="scan.timestamp.*yyyy-MM-dd"):
        TimeTravel.of_options({"scan.timestamp": "yesterday"}, t.store)


def test_travel_reads_with_the_snapshot_schema(catalog: Catalog) -> None:
    t = _table(catalog, 1)
    t.alter(add_columns=[("extra", pa.int32())])
    t = catalog.get_table("db.t")
    t.write(pa.table({"id": [2], "v": ["w"], "extra": [5]}))
    assert t.read(snapshot_id=1).column_names == ["id", "v"]
    assert t.read().column_names == ["id", "v", "extra"]
