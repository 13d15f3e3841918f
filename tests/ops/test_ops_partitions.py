"""Partitions as units (ops/partitions.py): listing, dropping (one OVERWRITE, index files of the
dropped partitions go), expiry by values-time and update-time with Paimon's pattern / formatter
rules, order and limits (Paimon's PartitionExpireTest and ExpirePartitionsProcedureTest cases, with
a clock instead of sleeps), expiry after commits, mark_partition_done, and bad input that changes
nothing."""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.ops import partitions as partition_ops
from paimon_sql.ops.maintenance import maintenance_of
from paimon_sql.ops.partitions import ExpireSettings, expire_partitions, parse_partition_time
from paimon_sql.procedures import call_procedure

KPH = pa.schema([("k", pa.string()), ("pt", pa.string()), ("hm", pa.string())])


def _kph(catalog: Catalog, rows: list[tuple[str, str, str]], **options: str) -> Any:
    t = catalog.create_table("db.t", KPH, primary_keys=["k", "pt", "hm"], partition_keys=["pt", "hm"],
                             options={"bucket": "1", **options})
    for k, pt, hm in rows:
        t.write(pa.table({"k": [k], "pt": [pt], "hm": [hm]}))
    return catalog.get_table("db.t")


def _keys(t: Any) -> list[str]:
    return sorted(r["k"] for r in t.refresh().read().to_pylist())


def _kinds(t: Any) -> list[str]:
    t = t.refresh()
    return [t.snapshot(i).commit_kind for i in t.snapshot_ids()]


# -- time parsing (PartitionTimeExtractor) -----------------------------------------------------


@pytest.mark.parametrize("text,formatter,expected", [
    ("2024-06-01", None, _dt.datetime(2024, 6, 1)),
    ("2024-6-1", None, _dt.datetime(2024, 6, 1)),
    ("2024-06-01 10:30:01", None, _dt.datetime(2024, 6, 1, 10, 30, 1)),
    ("2024-06-01 10:30:01.25", None, _dt.datetime(2024, 6, 1, 10, 30, 1, 250000)),
    ("20250601", "yyyyMMdd", _dt.datetime(2025, 6, 1)),
    ("2025060113", "yyyyMMddHH", _dt.datetime(2025, 6, 1, 13)),
    ("2025/06/01 07:05", "yyyy/MM/dd HH:mm", _dt.datetime(2025, 6, 1, 7, 5)),
    ("2025-06-01T07", "yyyy-MM-dd'T'HH", _dt.datetime(2025, 6, 1, 7)),
    ("pt-1", None, None),
    ("2024-06-01", "yyyyMMdd", None),
    ("12:00", "HH:mm", None),  # no date: Java's LocalDate.parse fails too
    ("2024-02-30", None, None),
])
def test_parse_partition_time(text: str, formatter: str | None, expected: _dt.datetime | None) -> None:
    assert parse_partition_time(text, formatter) == expected


def test_unsupported_formatter_letters_are_an_error() -> None:
    with pytest.raises(ValidationError, match="MMM"):
        parse_partition_time("01 Jun 2024", "dd MMM yyyy")


# -- listing and dropping ----------------------------------------------------------------------


def test_partitions_and_drop(catalog: Catalog) -> None:
    t = _kph(catalog, [("a", "2024-06-01", "01:00"), ("b", "2024-06-01", "02:00"), ("c", "2024-06-02", "01:00")])
    parts = t.partitions()
    assert [p.path for p in parts] == ["pt=2024-06-01/hm=01:00", "pt=2024-06-01/hm=02:00", "pt=2024-06-02/hm=01:00"]
    assert [(p.record_count, p.file_count) for p in parts] == [(1, 1)] * 3
    assert all(p.file_size_in_bytes > 0 and p.last_file_creation_time_ms > 0 for p in parts)
    # a prefix drops every partition under it, in one OVERWRITE
    r = t.drop_partitions([{"pt": "2024-06-01"}])
    assert r.partitions == [{"pt": "2024-06-01", "hm": "01:00"}, {"pt": "2024-06-01", "hm": "02:00"}]
    assert (r.files, r.rows) == (2, 2)
    assert _keys(t) == ["c"] and _kinds(t) == ["APPEND"] * 3 + ["OVERWRITE"]
    assert sorted(x["k"] for x in t.refresh().read(snapshot_id=3).to_pylist()) == ["a", "b", "c"]
    # nothing matches: no commit
    assert t.refresh().drop_partitions([{"hm": "03:00"}]).snapshot_id is None
    assert len(t.refresh().snapshot_ids()) == 4
    # ... unless commit_if_empty (SQL's DROP PARTITION): an OVERWRITE changing nothing, as Paimon's
    r = t.refresh().drop_partitions([{"pt": "2099-01-01"}], commit_if_empty=True)
    assert r.snapshot_id == 5 and r.partitions == [] and _kinds(t) == ["APPEND"] * 3 + ["OVERWRITE"] * 2
    assert _keys(t) == ["c"]
    # dry run
    dry = t.refresh().drop_partitions([{"pt": "2024-06-02", "hm": "01:00"}], dry_run=True)
    assert dry.snapshot_id is None and dry.partitions == [{"pt": "2024-06-02", "hm": "01:00"}]
    assert _keys(t) == ["c"]


@pytest.mark.parametrize("specs,match", [
    ([{"nope": "1"}], "'nope' is not a partition column"),
    ([{}], "non-empty mapping"),
    ([], "non-empty list"),
    ({"pt": "x"}, "non-empty list"),
])
def test_drop_bad_specs_change_nothing(catalog: Catalog, specs: Any, match: str) -> None:
    t = _kph(catalog, [("a", "2024-06-01", "01:00")])
    with pytest.raises(ValidationError, match=match):
        t.drop_partitions(specs)
    assert len(t.refresh().snapshot_ids()) == 1


def test_drop_on_unpartitioned_table(catalog: Catalog) -> None:
    t = catalog.create_table("db.u", pa.schema([("a", pa.int64())]))
    t.write(pa.table({"a": [1]}))
    with pytest.raises(ValidationError, match="db.u.*not partitioned"):
        t.drop_partitions([{"a": "1"}])
    with pytest.raises(ValidationError, match="not partitioned"):
        t.expire_partitions(expiration_time="1 d")


def test_drop_null_and_numeric_partitions(catalog: Catalog) -> None:
    t = catalog.create_table("db.n", pa.schema([("a", pa.int64()), ("f", pa.float64()), ("s", pa.string())]),
                             partition_keys=["f", "s"])
    t.write(pa.table({"a": [1, 2, 3], "f": [12.3, 12.3, 1.0], "s": [None, "x", "x"]}))
    t = t.refresh()
    assert [p.path for p in t.partitions()] == ["f=1.0/s=x", "f=12.3/s=__DEFAULT_PARTITION__", "f=12.3/s=x"]
    t.drop_partitions([{"f": "12.30", "s": None}])
    assert sorted(r["a"] for r in t.refresh().read().to_pylist()) == [2, 3]


def test_drop_removes_the_index_files_of_dropped_partitions(catalog: Catalog) -> None:
    t = catalog.create_table("db.dv", KPH, primary_keys=["k", "pt"], partition_keys=["pt"],
                             options={"bucket": "1", "deletion-vectors.enabled": "true"})
    keys = [f"k{i}" for i in range(200)]
    t.write(pa.table({"k": keys * 2, "pt": ["p1"] * 200 + ["p2"] * 200, "hm": ["0"] * 400}))
    t = t.refresh()
    t.write(pa.table({"k": ["k1", "k2"], "pt": ["p1", "p2"], "hm": ["1"] * 2}))  # deletion vectors in both
    t = t.refresh()
    before = {e.partition for e in t.store.manifests.index_entries(t.latest_snapshot())}
    assert len(before) == 2
    t.drop_partitions([{"pt": "p1"}])
    t = t.refresh()
    after = t.store.manifests.index_entries(t.latest_snapshot())
    assert len({e.partition for e in after}) == 1
    rows = t.read().to_pylist()
    assert len(rows) == 200 and {r["pt"] for r in rows} == {"p2"} and {"k": "k2", "pt": "p2", "hm": "1"} in rows
    # the dropped partition comes back cleanly
    t.write(pa.table({"k": ["k1"], "pt": ["p1"], "hm": ["new"]}))
    assert [r for r in t.refresh().read().to_pylist() if r["pt"] == "p1"] == [{"k": "k1", "pt": "p1", "hm": "new"}]


# -- expiry ------------------------------------------------------------------------------------


def test_expire_values_time_order_and_limit(catalog: Catalog) -> None:
    t = _kph(catalog, [("a", "2024-06-02", "02:00"), ("b", "2024-06-02", "01:00"), ("d", "2024-06-03", "01:00"),
                       ("c", "2024-06-01", "01:00"), ("n", "9999-09-09", "99:99")])
    assert call_procedure(catalog, "expire_partitions", {"table": "db.t", "expiration_time": "1 d",
                                                         "timestamp_formatter": "yyyy-MM-dd",
                                                         "max_expires": 3}).rows == [
        ("pt=2024-06-01, hm=01:00",), ("pt=2024-06-02, hm=01:00",), ("pt=2024-06-02, hm=02:00",)]
    assert _keys(t) == ["d", "n"]
    assert _kinds(t)[-1] == "OVERWRITE" and len(_kinds(t)) == 6


def test_expire_with_time_pattern(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", KPH, primary_keys=["k", "pt", "hm"], partition_keys=["hm", "pt"],
                             options={"bucket": "1"})
    for k, pt, hm in [("a", "2024-06-01", "01:00"), ("b", "2024-06-02", "02:00"), ("n", "9999-09-09", "99:99")]:
        t.write(pa.table({"k": [k], "pt": [pt], "hm": [hm]}))
    rows = call_procedure(catalog, "expire_partitions", {
        "table": "db.t", "expiration_time": "1 d", "timestamp_formatter": "yyyy-MM-dd HH:mm",
        "timestamp_pattern": "$pt $hm"}).rows
    assert rows == [("hm=01:00, pt=2024-06-01",), ("hm=02:00, pt=2024-06-02",)]
    assert _keys(t) == ["n"]


def test_expire_skips_values_it_cannot_read(catalog: Catalog, caplog: pytest.LogCaptureFixture) -> None:
    t = _kph(catalog, [("a", "pt-1", "x"), ("b", "2024-06-01", "x")])
    assert t.expire_partitions(expiration_time="1 d").texts() == ["pt=2024-06-01, hm=x"]
    assert "does not expire" in caplog.text
    assert _keys(t) == ["a"]


def test_expire_update_time(catalog: Catalog) -> None:
    t = _kph(catalog, [("a", "9999-09-09", "x")])
    time.sleep(0.05)
    t.write(pa.table({"k": ["b"], "pt": ["2024-06-01"], "hm": ["x"]}))
    t = t.refresh()
    newest = max(p.last_file_creation_time_ms for p in t.partitions())
    settings = ExpireSettings(1000, "update-time", None, None, 100, None)
    # one second after the newest file: both are older than the cut-off
    at = _dt.datetime.fromtimestamp(newest / 1000 + 1.02)
    assert [p.spec["pt"] for p in partition_ops.expired_partitions(t.store, settings, at)] == ["2024-06-01", "9999-09-09"]
    # just after the first file only that one (whatever its value says)
    first = min(p.last_file_creation_time_ms for p in t.partitions())
    at = _dt.datetime.fromtimestamp((first + newest) / 2000 + 1)
    r = expire_partitions(t.store, settings, now=at)
    assert r.texts() == ["pt=9999-09-09, hm=x"] and len(r.snapshot_ids) == 1
    assert _keys(t) == ["b"]


def test_expire_defaults_from_table_options_and_batches(catalog: Catalog) -> None:
    t = _kph(catalog, [(k, f"2024-06-0{i}", "x") for i, k in enumerate("abcd", 1)] + [("n", "9999-09-09", "x")],
             **{"partition.expiration-max-num": "3", "partition.expiration-batch-size": "2",
                "write-only": "true"})
    with pytest.raises(ValidationError, match="no expiration time"):
        t.expire_partitions()
    dry = t.expire_partitions(expiration_time="1 d", dry_run=True)
    assert len(dry.partitions) == 3 and dry.snapshot_ids == [] and _keys(t) == ["a", "b", "c", "d", "n"]
    r = t.expire_partitions(expiration_time="1 d")
    assert [p["pt"] for p in r.partitions] == ["2024-06-01", "2024-06-02", "2024-06-03"]
    assert len(r.snapshot_ids) == 2 and _kinds(t)[-2:] == ["OVERWRITE", "OVERWRITE"]
    assert _keys(t) == ["d", "n"]
    # the options argument; max_expires overrides the table's limit
    rows = call_procedure(catalog, "expire_partitions", {"table": "db.t", "options": "partition.expiration-time=1 d"}).rows
    assert rows == [("pt=2024-06-04, hm=x",)]


@pytest.mark.parametrize("args,match", [
    ({"expiration_time": "soon"}, "partition.expiration-time"),
    ({"expiration_time": "1 d", "expire_strategy": "sometimes"}, "partition.expiration-strategy"),
    ({"expiration_time": "1 d", "max_expires": 0}, "partition.expiration-max-num"),
    ({"expiration_time": "1 d", "timestamp_formatter": "dd MMM yyyy"}, "MMM"),
    ({"expiration_time": "1 d", "options": "nonsense"}, "options"),
])
def test_expire_bad_arguments_change_nothing(catalog: Catalog, args: dict[str, Any], match: str) -> None:
    t = _kph(catalog, [("a", "2024-06-01", "x")])
    with pytest.raises(ValidationError, match=match):
        call_procedure(catalog, "expire_partitions", {"table": "db.t", **args})
    assert _keys(t) == ["a"]


def test_expire_after_commit(catalog: Catalog) -> None:
    t = catalog.create_table("db.e", pa.schema([("id", pa.int64()), ("p", pa.string()), ("dt", pa.string())]),
                             partition_keys=["p", "dt"],
                             options={"partition.expiration-time": "7d", "end-input.check-partition-expire": "true",
                                      "partition.timestamp-formatter": "yyyyMMdd",
                                      "partition.timestamp-pattern": "$dt"})
    t.write(pa.table({"id": [1], "p": ["un-known"], "dt": ["20250601"]}))
    assert t.refresh().read().num_rows == 0
    t.write(pa.table({"id": [2], "p": ["un-known"], "dt": ["99991231"]}))
    assert t.refresh().read().to_pylist() == [{"id": 2, "p": "un-known", "dt": "99991231"}]
    # write-only skips it; check interval 0 checks after every commit
    w = t.copy({"write-only": "true"})
    w.write(pa.table({"id": [3], "p": ["x"], "dt": ["20250601"]}))
    assert t.refresh().read().num_rows == 2
    t.refresh().copy({"end-input.check-partition-expire": "false",
                      "partition.expiration-check-interval": "0 s"}).write(pa.table({"id": [4], "p": ["x"], "dt": ["99991231"]}))
    assert sorted(r["id"] for r in t.refresh().read().to_pylist()) == [2, 4]


def test_expire_after_commit_waits_for_the_check_interval(catalog: Catalog) -> None:
    t = catalog.create_table("db.i", pa.schema([("id", pa.int64()), ("dt", pa.string())]), partition_keys=["dt"],
                             options={"partition.expiration-time": "1 d"})
    t.write(pa.table({"id": [1], "dt": ["2020-01-01"]}))
    t.refresh().write(pa.table({"id": [2], "dt": ["2020-01-02"]}))
    assert t.refresh().read().num_rows == 2  # the first check is up to an hour away
    maintenance_of(t.store).partition_clock.last = time.time() - 3601  # the table committer's clock
    t.refresh().write(pa.table({"id": [3], "dt": ["2999-01-01"]}))
    assert t.refresh().read().to_pylist() == [{"id": 3, "dt": "2999-01-01"}]


def test_date_partitions_expire_by_their_date(catalog: Catalog) -> None:
    t = catalog.create_table("db.d", pa.schema([("id", pa.int64()), ("d", pa.date32())]), partition_keys=["d"])
    t.write(pa.table({"id": [1, 2], "d": [_dt.date(2024, 1, 1), _dt.date(2999, 1, 1)]}))
    assert t.refresh().expire_partitions(expiration_time="1 d").texts() == ["d=2024-01-01"]
    assert t.refresh().read().column("id").to_pylist() == [2]


# -- mark done ---------------------------------------------------------------------------------


def test_mark_partition_done(catalog: Catalog) -> None:
    t = _kph(catalog, [("a", "2024-06-01", "01:00")], **{"partition.mark-done-action": "success-file"})
    paths = t.mark_partition_done([{"pt": "2024-06-01", "hm": "01:00"}])
    assert paths == ["pt=2024-06-01/hm=01%3A00"]
    target = os.path.join(t.store.path, paths[0], "_SUCCESS")
    text = open(target).read()
    assert text.startswith('{\n  "creationTime" : ')
    first = json.loads(text)
    assert first["creationTime"] == first["modificationTime"]
    time.sleep(0.01)
    assert call_procedure(catalog, "mark_partition_done",
                          {"table": "db.t", "partitions": "pt=2024-06-01,hm=01:00"}).rows == [(True,)]
    second = json.loads(open(target).read())
    assert second["creationTime"] == first["creationTime"] < second["modificationTime"]
    with pytest.raises(ValidationError, match="must give every partition column"):
        t.mark_partition_done([{"pt": "2024-06-01"}])


def test_mark_done_actions_needing_a_metastore_are_refused(catalog: Catalog) -> None:
    t = _kph(catalog, [("a", "2024-06-01", "01:00")], **{"partition.mark-done-action": "success-file,done-partition"})
    with pytest.raises(UnsupportedError, match="done-partition"):
        t.mark_partition_done([{"pt": "2024-06-01", "hm": "01:00"}])
    assert not os.path.exists(os.path.join(t.store.path, "pt=2024-06-01", "hm=01%3A00", "_SUCCESS"))
    with pytest.raises(ValidationError, match="partition.mark-done-action"):
        catalog.create_table("db.bad", KPH, partition_keys=["pt"], options={"partition.mark-done-action": "email"})
