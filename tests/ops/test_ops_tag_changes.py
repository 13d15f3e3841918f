"""replace_tag, rename_tag, create_tag_from_timestamp, the retention of create_tag, and rollback
to a timestamp or a watermark: results, files, and bad input that changes nothing."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.errors import AlreadyExistsError, NotFoundError, ValidationError
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.ops.rollback import rollback_to_timestamp, rollback_to_watermark
from paimon_sql.ops.tag_changes import create_tag_from_timestamp, parse_time_retained, rename_tag, replace_tag
from paimon_sql.table.system import SystemTable


def _table(catalog: Catalog, n: int) -> Table:
    t = catalog.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]))
    assert isinstance(t, Table)
    for i in range(1, n + 1):
        t.write(pa.table({"id": [i], "v": [str(i)]}))
    return t


def _ids(t: Table, **kw: object) -> list[int]:
    return sorted(t.read(**kw)["id"].to_pylist())  # type: ignore[arg-type]


def _tree(path: str) -> dict[str, bytes]:
    out = {}
    for root, _, names in os.walk(path):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, path)] = f.read()
    return out


def _tags_table(catalog: Catalog) -> list[tuple[object, ...]]:
    st = catalog.get_table("db.t$tags")
    assert isinstance(st, SystemTable)
    d = st.read().to_pydict()
    return sorted(zip(d["tag_name"], d["snapshot_id"], d["time_retained"]))


def _set_times(t: Table, times: dict[int, int], watermarks: dict[int, int | None] | None = None) -> None:
    """Rewrites the commit times (and watermarks) of snapshots: deterministic time lookups."""
    for sid, ms in times.items():
        snap = t.snapshot(sid)
        extra = {}
        if watermarks is not None:
            extra["watermark"] = watermarks.get(sid)
        new = dataclasses.replace(snap, time_millis=ms, **extra)
        Path(t.store.snapshots.path(sid)).write_text(new.to_json())


# -- create_tag retention, replace_tag ---------------------------------------------------------


def test_create_tag_time_retained(catalog: Catalog) -> None:
    t = _table(catalog, 2)
    t.create_tag("plain", 1)
    t.create_tag("day", 1, time_retained="1 d")
    t.create_tag("td", 2, time_retained=dt.timedelta(hours=12))
    assert _tags_table(catalog) == [("day", 1, "PT24H"), ("plain", 1, None), ("td", 2, "PT12H")]
    obj = json.loads(Path(t.path, "tag", "tag-day").read_text())
    assert obj["tagTimeRetained"] == 86400.0 and len(obj["tagCreateTime"]) >= 5
    assert "tagTimeRetained" not in json.loads(Path(t.path, "tag", "tag-plain").read_text())
    # the table's tag.default-time-retained applies when none is given (Paimon's Table.createTag)
    # (set directly: the option is still refused as unimplemented by ALTER, automatic tags being)
    t = t.with_schema(dataclasses.replace(t.schema, options={**t.options, "tag.default-time-retained": "2 h"}))
    t.create_tag("dflt", 2)
    assert ("dflt", 2, "PT2H") in _tags_table(catalog)
    before = _tree(t.path)
    for bad, match in (("1 fortnight", "time_retained.*fortnight"), ("-1 d", "time_retained"),
                       (-5, "must not be negative"), (1.5, "duration")):
        with pytest.raises(ValidationError, match=match):
            t.create_tag("x", 1, time_retained=bad)  # type: ignore[arg-type]
    assert _tree(t.path) == before


def test_replace_tag(catalog: Catalog) -> None:
    """Paimon's ReplaceTagProcedureTest: new retention, then new snapshot and retention."""
    t = _table(catalog, 2)
    with pytest.raises(NotFoundError, match="tag 'test_tag'.*does not exist"):
        t.replace_tag("test_tag")
    t.create_tag("test_tag")
    assert _tags_table(catalog) == [("test_tag", 2, None)]
    r = t.replace_tag("test_tag", time_retained="1 d")
    assert (r.previous_snapshot_id, r.snapshot_id, r.time_retained_ms) == (2, 2, 86_400_000)
    assert _tags_table(catalog) == [("test_tag", 2, "PT24H")]
    t.replace_tag("test_tag", 1, "2 d")
    assert _tags_table(catalog) == [("test_tag", 1, "PT48H")]
    assert _ids(t, tag="test_tag") == [1]
    t.replace_tag("test_tag", 2)  # no retention given: the tag has none
    assert _tags_table(catalog) == [("test_tag", 2, None)]
    before = _tree(t.path)
    with pytest.raises(NotFoundError, match="snapshot 9 does not exist"):
        replace_tag(t.store, "test_tag", 9)
    with pytest.raises(ValidationError, match="integer"):
        replace_tag(t.store, "test_tag", "1")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="tag"):
        replace_tag(t.store, "", 1)
    assert _tree(t.path) == before


def test_replace_tag_with_expired_snapshot(catalog: Catalog) -> None:
    t = _table(catalog, 3)
    t.create_tag("keep", 1)
    t.create_tag("move", 3)
    os.remove(t.store.snapshots.path(1))
    t.replace_tag("move", 1)  # the snapshot only tag 'keep' still has
    assert _ids(t, tag="move") == [1]


# -- rename_tag --------------------------------------------------------------------------------


def test_rename_tag(catalog: Catalog) -> None:
    t = _table(catalog, 2)
    t.create_tag("a", 1, time_retained="1 h")
    content = Path(t.path, "tag", "tag-a").read_bytes()
    r = t.rename_tag("a", "b")
    assert (r.tag, r.target_tag, r.snapshot_id) == ("a", "b", 1)
    assert t.store.tags.tag_names() == ["b"]
    assert Path(t.path, "tag", "tag-b").read_bytes() == content
    t.create_tag("c", 2)
    before = _tree(t.path)
    with pytest.raises(NotFoundError, match="'a'.*'tag'.*does not exist"):
        rename_tag(t.store, "a", "z")
    with pytest.raises(AlreadyExistsError, match="'c'.*'target_tag'.*already exists"):
        rename_tag(t.store, "b", "c")
    with pytest.raises(ValidationError, match="'target_tag'.*blank"):
        rename_tag(t.store, "b", " ")
    with pytest.raises(ValidationError, match="'target_tag'.*'/'"):
        rename_tag(t.store, "b", "../x")
    assert _tree(t.path) == before


# -- create_tag_from_timestamp -----------------------------------------------------------------


def test_create_tag_from_timestamp(catalog: Catalog) -> None:
    """Paimon's CreateTagFromTimestampProcedureTest: before the earliest, equal to a commit time,
    between two, after the latest."""
    t = _table(catalog, 4)
    _set_times(t, {1: 1000, 2: 2000, 3: 3000, 4: 4000})
    r = t.create_tag_from_timestamp("test_tag", 999)
    assert (r.tag, r.snapshot_id, r.commit_time, r.watermark) == ("test_tag", 1, 1000, None)
    assert create_tag_from_timestamp(t.store, "test_tag2", 3000).snapshot_id == 3
    r3 = t.create_tag_from_timestamp("test_tag3", 3001, time_retained="1 d")
    assert (r3.snapshot_id, r3.commit_time, r3.time_retained_ms) == (4, 4000, 86_400_000)
    assert ("test_tag3", 4, "PT24H") in _tags_table(catalog)
    before = _tree(t.path)
    with pytest.raises(NotFoundError, match="no snapshot or tag committed at or after timestamp 4001"):
        t.create_tag_from_timestamp("late", 4001)
    with pytest.raises(AlreadyExistsError, match="test_tag"):
        t.create_tag_from_timestamp("test_tag", 1)
    with pytest.raises(ValidationError, match="timestamp.*integer"):
        t.create_tag_from_timestamp("x", "1000")  # type: ignore[arg-type]
    assert _tree(t.path) == before


def test_create_tag_from_timestamp_counts_tagged_expired_snapshots(catalog: Catalog) -> None:
    """Paimon's second case: snapshot 1 expired but tagged; a timestamp before it takes the tag's
    snapshot, one after it the next live snapshot."""
    t = _table(catalog, 2)
    _set_times(t, {1: 1000, 2: 2000})
    t.create_tag("test_tag", 1)
    os.remove(t.store.snapshots.path(1))
    Path(t.store.snapshots.dir, "EARLIEST").write_text("2")
    assert t.create_tag_from_timestamp("test_tag1", 999).snapshot_id == 1
    r = t.create_tag_from_timestamp("test_tag2", 1001)
    assert (r.snapshot_id, r.commit_time) == (2, 2000)
    assert _ids(t, tag="test_tag1") == [1]


# -- rollback to a timestamp or a watermark ---------------------------------------------------


def test_rollback_to_timestamp(catalog: Catalog) -> None:
    t = _table(catalog, 5)
    _set_times(t, {1: 1000, 2: 2000, 3: 3000, 4: 4000, 5: 5000})
    t.create_tag("t4", 4)
    before = _tree(t.path)
    with pytest.raises(NotFoundError, match="no snapshot at or before timestamp 999"):
        t.rollback_to_timestamp(999)
    with pytest.raises(ValidationError, match="timestamp.*integer"):
        rollback_to_timestamp(t.store, "3000")  # type: ignore[arg-type]
    assert _tree(t.path) == before
    r = t.rollback_to_timestamp(3500)
    assert (r.previous_snapshot_id, r.current_snapshot_id, r.deleted_tags) == (5, 3, ("t4",))
    assert t.snapshot_ids() == [1, 2, 3] and _ids(t) == [1, 2, 3]
    assert t.rollback_to_timestamp(2000).current_snapshot_id == 2
    assert t.write(pa.table({"id": [9], "v": ["9"]})) == 3  # writes continue at the next id


def test_rollback_to_watermark(catalog: Catalog) -> None:
    t = _table(catalog, 6)
    no_wm = -(2**63)  # Long.MIN_VALUE: no watermark, as Flink commits it
    _set_times(
        t, {i: i * 1000 for i in range(1, 7)},
        {1: None, 2: 10, 3: no_wm, 4: 20, 5: 20, 6: 30},
    )
    before = _tree(t.path)
    with pytest.raises(NotFoundError, match="watermark at or before 9"):
        t.rollback_to_watermark(9)
    with pytest.raises(ValidationError, match="watermark.*integer"):
        rollback_to_watermark(t.store, None)  # type: ignore[arg-type]
    assert _tree(t.path) == before
    # the latest snapshot that carries a watermark at or below it
    assert t.store.snapshots.snapshot_at_or_before_watermark(15).id == 2  # type: ignore[union-attr]
    assert t.store.snapshots.snapshot_at_or_before_watermark(20).id == 5  # type: ignore[union-attr]
    assert t.store.snapshots.snapshot_at_or_before_watermark(10**6).id == 6  # type: ignore[union-attr]
    r = t.rollback_to_watermark(25)
    assert (r.previous_snapshot_id, r.current_snapshot_id) == (6, 5)
    assert t.rollback_to_watermark(19).current_snapshot_id == 2
    assert t.snapshot_ids() == [1, 2] and _ids(t) == [1, 2]


def test_rollback_of_an_empty_table(catalog: Catalog) -> None:
    t = catalog.create_table("db.e", pa.schema([("id", pa.int64())]))
    assert isinstance(t, Table)
    with pytest.raises(NotFoundError, match="no snapshot"):
        t.rollback_to_timestamp(1)
    with pytest.raises(NotFoundError, match="no snapshot"):
        t.rollback_to_watermark(1)


def test_parse_time_retained() -> None:
    assert parse_time_retained(None, "w") is None
    assert parse_time_retained("1 d", "w") == 86_400_000
    assert parse_time_retained("30 min", "w") == 1_800_000
    assert parse_time_retained(dt.timedelta(seconds=2), "w") == 2000
    assert parse_time_retained(5, "w") == 5
    with pytest.raises(ValidationError, match="w: invalid argument 'time_retained' 'soon'"):
        parse_time_retained("soon", "w")
    with pytest.raises(ValidationError, match="'time_retained' must be a duration"):
        parse_time_retained(True, "w")


def test_snapshot_round_trip_of_watermark() -> None:
    # _set_times relies on Snapshot carrying the watermark through to_json
    s = Snapshot.from_json(json.dumps({
        "version": 3, "id": 1, "schemaId": 0, "baseManifestList": "a", "deltaManifestList": "b",
        "commitUser": "u", "commitIdentifier": 1, "commitKind": "APPEND", "timeMillis": 1, "watermark": 7,
    }))
    assert Snapshot.from_json(dataclasses.replace(s, watermark=9).to_json()).watermark == 9
