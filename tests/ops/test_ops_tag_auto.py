"""Automatic tags (ops/tag_auto.py): Paimon's TagAutoManagerTest cases (watermark mode, commit by
commit: each step writes a snapshot, gives it the watermark of the Java test's commit and runs the
tag maintenance as Paimon's committer does), process-time and batch modes through real commits,
tag.num-retained-max, formatters and custom periods, and the option rules."""

from __future__ import annotations

import dataclasses
import datetime as _dt
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import ValidationError
from paimon_sql.ops.maintenance import maintenance_of
from paimon_sql.ops.tag_auto import PeriodHandler, create_auto_tags, create_batch_tag
from paimon_sql.procedures import call_procedure


def _utc_ms(text: str) -> int:
    return int(_dt.datetime.fromisoformat(text).replace(tzinfo=_dt.timezone.utc).timestamp() * 1000)


class Steps:
    """A write-only table (no automatic maintenance at commit) driven like Paimon's test commits."""

    def __init__(self, catalog: Catalog, name: str = "db.t", **options: str) -> None:
        self.t = catalog.create_table(name, pa.schema([("id", pa.int64())]),
                                      options={"write-only": "true", **options})
        self.n = 0

    def commit(self, *, watermark: int | None = None, time_ms: int | None = None) -> list[str]:
        self.n += 1
        sid = self.t.write(pa.table({"id": [self.n]}))
        snap = self.t.snapshot(sid)
        new = dataclasses.replace(snap, watermark=watermark,
                                  time_millis=time_ms if time_ms is not None else snap.time_millis)
        Path(self.t.store.snapshots.path(sid)).write_text(new.to_json())
        create_auto_tags(self.t.store, maintenance_of(self.t.store).tag_positions)  # as the committer does
        return self.tags()

    def tags(self) -> list[str]:
        return sorted(self.t.store.tags.tag_names())


def test_hourly_tags_and_num_retained_max(catalog: Catalog) -> None:
    s = Steps(catalog, **{"tag.automatic-creation": "watermark", "tag.creation-period": "hourly",
                          "tag.num-retained-max": "3"})
    assert s.commit(watermark=_utc_ms("2023-07-18T12:12:00")) == ["2023-07-18 11"]
    assert s.commit(watermark=_utc_ms("2023-07-18T12:59:00")) == ["2023-07-18 11"]
    assert s.commit(watermark=_utc_ms("2023-07-18T13:00:00")) == ["2023-07-18 11", "2023-07-18 12"]
    s.commit(watermark=_utc_ms("2023-07-18T14:00:00"))
    assert s.commit(watermark=_utc_ms("2023-07-18T15:00:00")) == ["2023-07-18 12", "2023-07-18 13", "2023-07-18 14"]
    s.commit(watermark=_utc_ms("2023-07-18T15:01:00"))
    s.commit(watermark=_utc_ms("2023-07-18T15:02:00"))
    # snapshots expire: the walk restarts after the newest tag's snapshot
    s.t = s.t.copy({"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1"})
    s.commit(watermark=_utc_ms("2023-07-18T15:03:00"))
    s.t.expire_snapshots()
    s.commit(watermark=_utc_ms("2023-07-18T15:04:00"))
    s.t.expire_snapshots()
    assert s.commit(watermark=_utc_ms("2023-07-18T16:00:00")) == ["2023-07-18 13", "2023-07-18 14", "2023-07-18 15"]
    # every retained tag still reads its snapshot
    assert s.t.read(tag="2023-07-18 13").num_rows == 4


def test_delay(catalog: Catalog) -> None:
    s = Steps(catalog, **{"tag.automatic-creation": "watermark", "tag.creation-period": "hourly",
                          "tag.creation-delay": "10 s"})
    assert s.commit(watermark=_utc_ms("2023-07-18T12:00:09")) == ["2023-07-18 11"]
    assert s.commit(watermark=_utc_ms("2023-07-18T13:00:09")) == ["2023-07-18 11"]
    assert s.commit(watermark=_utc_ms("2023-07-18T13:00:10")) == ["2023-07-18 11", "2023-07-18 12"]


def test_no_watermark_no_tag(catalog: Catalog) -> None:
    s = Steps(catalog, **{"tag.automatic-creation": "watermark", "tag.creation-period": "hourly"})
    assert s.commit(watermark=-(2**63)) == []
    assert s.commit(watermark=None) == []
    assert s.commit(watermark=_utc_ms("2023-07-18T12:00:09")) == ["2023-07-18 11"]


def test_two_hours_and_daily(catalog: Catalog) -> None:
    s = Steps(catalog, **{"tag.automatic-creation": "watermark", "tag.creation-period": "two-hours"})
    assert s.commit(watermark=_utc_ms("2023-07-18T12:00:01")) == ["2023-07-18 10"]
    assert s.commit(watermark=_utc_ms("2023-07-18T13:00:01")) == ["2023-07-18 10"]
    assert s.commit(watermark=_utc_ms("2023-07-18T14:00:09")) == ["2023-07-18 10", "2023-07-18 12"]


def test_daily(catalog: Catalog) -> None:
    s = Steps(catalog, **{"tag.automatic-creation": "watermark", "tag.creation-period": "daily"})
    assert s.commit(watermark=_utc_ms("2023-07-18T12:00:01")) == ["2023-07-17"]
    assert s.commit(watermark=_utc_ms("2023-07-19T12:00:01")) == ["2023-07-17", "2023-07-18"]
    assert s.commit(watermark=_utc_ms("2023-07-20T12:00:01")) == ["2023-07-17", "2023-07-18", "2023-07-19"]


def test_changed_period_and_manual_tags(catalog: Catalog) -> None:
    s = Steps(catalog, **{"tag.automatic-creation": "watermark", "tag.creation-period": "hourly",
                          "tag.num-retained-max": "3"})
    assert s.commit(watermark=_utc_ms("2023-07-18T12:12:00")) == ["2023-07-18 11"]
    s.t.create_tag("savepoint-11", 1)
    s.commit(watermark=_utc_ms("2023-07-18T14:00:00"))
    assert s.tags() == ["2023-07-18 11", "2023-07-18 13", "savepoint-11"]
    s.commit(watermark=_utc_ms("2023-07-18T15:00:00"))
    # only automatic tags count against tag.num-retained-max
    assert s.commit(watermark=_utc_ms("2023-07-18T16:00:00")) == [
        "2023-07-18 13", "2023-07-18 14", "2023-07-18 15", "savepoint-11"]
    # switching to daily: hourly tags are not daily tags, the walk starts over
    s.t = s.t.copy({"tag.creation-period": "daily"})
    assert "2023-07-19" in s.commit(watermark=_utc_ms("2023-07-20T12:00:01"))


@pytest.mark.parametrize("period,formatter,expected", [
    ("daily", "without_dashes", ["20230717", "20230718"]),
    ("hourly", "without_dashes", ["20230718 11", "20230719 11"]),
    ("hourly", "without_dashes_and_spaces", ["2023071811", "2023071911"]),
])
def test_period_formatters(catalog: Catalog, period: str, formatter: str, expected: list[str]) -> None:
    s = Steps(catalog, **{"tag.automatic-creation": "watermark", "tag.creation-period": period,
                          "tag.period-formatter": formatter})
    s.commit(watermark=_utc_ms("2023-07-18T12:12:00"))
    assert s.commit(watermark=_utc_ms("2023-07-19T12:13:00")) == expected


def test_custom_period_and_completion(catalog: Catalog) -> None:
    s = Steps(catalog, **{"tag.automatic-creation": "watermark", "tag.creation-period-duration": "30 min"})
    assert s.commit(watermark=_utc_ms("2023-07-18T12:12:00")) == ["202307181130"]
    assert s.commit(watermark=_utc_ms("2023-07-18T13:40:00")) == ["202307181130", "202307181300"]
    s2 = Steps(catalog, "db.t2", **{"tag.automatic-creation": "watermark", "tag.creation-period": "hourly",
                        "tag.automatic-completion": "true"})
    assert s2.commit(watermark=_utc_ms("2023-07-18T12:12:00")) == ["2023-07-18 11"]
    # three periods later: completion creates the next missing one, not the latest
    assert s2.commit(watermark=_utc_ms("2023-07-18T15:30:00")) == ["2023-07-18 11", "2023-07-18 12"]


def test_process_time_after_commits(catalog: Catalog) -> None:
    """Paimon's TriggerTagAutomaticCreationProcedureTest: a table with one snapshot, then the
    options, then the procedure: yesterday's daily tag."""
    t = catalog.create_table("db.p", pa.schema([("id", pa.int64())]), primary_keys=["id"])
    t.write(pa.table({"id": [1]}))
    t = t.alter(set_options={"tag.automatic-creation": "process-time", "tag.creation-period": "daily",
                             "tag.creation-delay": "10 m", "tag.num-retained-max": "90"})
    assert t.store.tags.tag_names() == []
    assert call_procedure(catalog, "trigger_tag_automatic_creation", {"table": "db.p"}).rows == [(True,)]
    yesterday = (_dt.date.today() - _dt.timedelta(days=1)).isoformat()
    assert t.store.tags.tag_names() == [yesterday]
    # a commit runs it too (nothing new today), and the tag protects its snapshot from expiry
    t.write(pa.table({"id": [2]}))
    assert sorted(t.store.tags.tag_names()) == [yesterday]
    assert t.read(tag=yesterday).num_rows == 1


def test_batch_tags(catalog: Catalog) -> None:
    t = catalog.create_table("db.b", pa.schema([("id", pa.int64())]),
                             options={"tag.automatic-creation": "batch", "tag.num-retained-max": "2"})
    t.write(pa.table({"id": [1]}))
    today = "batch-write-" + _dt.date.today().isoformat()
    assert t.store.tags.tag_names() == [today]
    t.refresh().write(pa.table({"id": [2]}))
    assert t.store.tags.tag_names() == [today]
    assert t.refresh().read(tag=today).num_rows == 2  # replaced: it holds the latest snapshot
    t.create_tag("manual-1", 1)
    t.create_tag("manual-0", 1)
    create_batch_tag(t.store)
    # all tags count in batch mode; the oldest snapshot's tags go first
    assert sorted(t.store.tags.tag_names()) == [today, "manual-1"]
    named = t.copy({"tag.batch.customized-name": "nightly"})
    named.write(pa.table({"id": [3]}))
    assert "nightly" in t.store.tags.tag_names()


def test_time_retained_tags_expire_after_commits(catalog: Catalog) -> None:
    t = catalog.create_table("db.r", pa.schema([("id", pa.int64())]))
    t.write(pa.table({"id": [1]}))
    t.create_tag("short", 1, time_retained="1 ms")
    t.create_tag("kept", 1)
    off = t.copy({"tag.time-expire-enabled": "false"})
    off.write(pa.table({"id": [2]}))
    assert sorted(t.store.tags.tag_names()) == ["kept", "short"]
    t.refresh().write(pa.table({"id": [3]}))
    assert t.store.tags.tag_names() == ["kept"]


def test_period_handler_names() -> None:
    h = PeriodHandler(_dt.timedelta(days=1), "day", daily=True)
    assert h.tag_to_time("2023-07-18") == _dt.datetime(2023, 7, 18)
    assert h.tag_to_time("2023-07-18 11") == _dt.datetime(2023, 7, 18)  # daily ignores an hour part
    assert not h.is_auto_tag("savepoint-11") and not h.is_auto_tag("2023-02-30") and not h.is_auto_tag("23-07-18")
    assert h.normalize_to_previous_tag(_dt.datetime(2023, 7, 18, 0, 0)) == _dt.datetime(2023, 7, 17)


@pytest.mark.parametrize("options,match", [
    ({"tag.automatic-creation": "process-time", "tag.creation-delay": "1 d"}, "tag.creation-delay"),
    ({"tag.automatic-creation": "sometimes"}, "tag.automatic-creation"),
    ({"tag.creation-period": "weekly"}, "tag.creation-period"),
    ({"tag.num-retained-max": "0"}, "tag.num-retained-max"),
])
def test_bad_options(catalog: Catalog, options: dict[str, Any], match: str) -> None:
    with pytest.raises(ValidationError, match=match):
        catalog.create_table("db.bad", pa.schema([("id", pa.int64())]), options=options)


def test_walk_resumes_where_the_last_commit_stopped(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many commits within one tag period: each commit reads only the snapshots it adds, not every
    snapshot since the newest tag (a committer keeps its place, as Paimon's TagAutoCreation)."""
    from paimon_sql.meta.snapshot_manager import SnapshotManager

    s = Steps(catalog, **{"tag.automatic-creation": "watermark", "tag.creation-period": "daily"})
    assert s.commit(watermark=_utc_ms("2023-07-18T01:00:00")) == ["2023-07-17"]
    for minute in range(1, 20):
        s.commit(watermark=_utc_ms(f"2023-07-18T02:{minute:02d}:00"))
    reads: list[int] = []
    real = SnapshotManager.snapshot

    def counting(self: SnapshotManager, sid: int) -> Any:
        reads.append(sid)
        return real(self, sid)

    monkeypatch.setattr(SnapshotManager, "snapshot", counting)
    assert s.commit(watermark=_utc_ms("2023-07-18T03:00:00")) == ["2023-07-17"]
    assert set(reads) <= {20, 21}, reads  # the resume point and the new snapshot, not all 21
    reads.clear()
    # the next day's tag still comes, from the resumed position
    assert s.commit(watermark=_utc_ms("2023-07-19T00:30:00")) == ["2023-07-17", "2023-07-18"]
    assert set(reads) <= {21, 22}, reads
