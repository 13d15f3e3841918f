"""Instants in system tables (``$snapshots.commit_time``, ``$tags.commit_time``,
``$schemas.update_time``, ``$branches.create_time``) are shown as the wall clock of a time zone, as
Paimon shows them in its JVM's default zone: the process's local zone by default, or the zone
``with_time_zone`` names (the Spark shim passes its JVM's)."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import zoneinfo
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import ValidationError
from paimon_sql.table.system._format import check_time_zone, local_timestamps, local_zone_name


def _wall(ms: int, zone: str) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ms / 1000, zoneinfo.ZoneInfo(zone)).replace(tzinfo=None)


def _table(tmp_path: Path) -> tuple[Catalog, dict[int, int]]:
    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]), primary_keys=["id"])
    t.write(pa.table({"id": [1], "v": ["a"]}))
    t.write(pa.table({"id": [2], "v": ["b"]}))
    t.create_tag("tag1", snapshot_id=1)
    sm = t.store.snapshots
    return cat, {i: sm.snapshot(i).time_millis for i in sm.snapshot_ids()}


def test_with_time_zone_shows_the_zones_wall_clock(tmp_path: Path) -> None:
    cat, millis = _table(tmp_path)
    for zone in ("Asia/Shanghai", "America/New_York", "UTC", "+05:30"):
        snaps = cat.get_table("db.t$snapshots").with_time_zone(zone)
        got = snaps.read(columns=["snapshot_id", "commit_time"]).to_pylist()
        tz = zone if "/" in zone or zone == "UTC" else None
        expected = [_wall(ms, tz) if tz else
                    datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone(datetime.timedelta(hours=5, minutes=30)))
                    .replace(tzinfo=None) for _, ms in sorted(millis.items())]
        assert [r["commit_time"] for r in got] == expected, zone
        tags = cat.get_table("db.t$tags").with_time_zone(zone).read(columns=["commit_time"]).to_pylist()
        assert tags == [{"commit_time": expected[0]}]
    # a filter on the column compares the shown wall clock
    shanghai = cat.get_table("db.t$snapshots").with_time_zone("Asia/Shanghai")
    first = _wall(millis[1], "Asia/Shanghai")
    got = shanghai.read(columns=["snapshot_id"], filter=f"commit_time <= TIMESTAMP '{first}'").to_pylist()
    assert got == [{"snapshot_id": 1}]


def test_java_zone_ids_are_accepted_and_unknown_zones_refused(tmp_path: Path) -> None:
    assert check_time_zone("Z", "x") == "UTC"
    assert check_time_zone("GMT+08:00", "x") == "+08:00"
    assert check_time_zone("Europe/Berlin", "x") == "Europe/Berlin"
    cat, _ = _table(tmp_path)
    with pytest.raises(ValidationError, match=r"db\.t\$snapshots.*'Mars/Olympus'"):
        cat.get_table("db.t$snapshots").with_time_zone("Mars/Olympus")
    arr = local_timestamps([0, None], "Asia/Kolkata")
    assert arr.to_pylist() == [datetime.datetime(1970, 1, 1, 5, 30), None]


def test_default_is_the_process_local_zone(tmp_path: Path) -> None:
    """A process whose TZ is Asia/Shanghai shows commit times at the Shanghai wall clock (Paimon's
    ZoneId.systemDefault()); this process (whatever its zone) shows its own."""
    cat, millis = _table(tmp_path)
    code = (
        "import json, sys; from paimon_sql import Catalog; "
        "from paimon_sql.table.system._format import local_zone_name; "
        "t = Catalog(sys.argv[1]).get_table('db.t$snapshots'); "
        "print(json.dumps([local_zone_name(), [str(r['commit_time']) for r in t.read(columns=['commit_time']).to_pylist()]]))"
    )
    env = {**os.environ, "TZ": "Asia/Shanghai"}
    out = subprocess.run([sys.executable, "-c", code, cat.warehouse], env=env, capture_output=True,
                         text=True, check=True).stdout
    zone, times = json.loads(out)
    assert zone == "Asia/Shanghai"
    assert times == [str(_wall(ms, "Asia/Shanghai")) for _, ms in sorted(millis.items())]
    here = cat.get_table("db.t$snapshots").read(columns=["commit_time"]).to_pylist()
    assert [r["commit_time"] for r in here] == [_wall(ms, local_zone_name()) for _, ms in sorted(millis.items())]
