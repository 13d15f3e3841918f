"""A data file's ``_CREATION_TIME`` holds the writer's local wall clock (Paimon writes
``LocalDateTime.now()``), and everything that compares it with the current time reads it back in
the local time zone (``creationTimeEpochMillis``): in a time zone behind UTC a fresh partition is
not older than an hour."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.meta.data_file_meta import local_wall_clock_ms, wall_clock_to_epoch_ms


@pytest.fixture(params=["America/Los_Angeles", "Asia/Shanghai"])
def zone(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("TZ", request.param)
    time.tzset()
    yield request.param
    monkeypatch.undo()
    time.tzset()


def test_creation_time_is_the_local_wall_clock(catalog: Catalog, zone: str) -> None:
    t = catalog.create_table("db.t", pa.schema([("id", pa.int64()), ("p", pa.string())]), partition_keys=["p"],
                             options={"partition.expiration-strategy": "update-time"})
    assert isinstance(t, Table)
    t.write(pa.table({"id": [1], "p": ["a"]}))
    now = time.time()
    (file,) = catalog.get_table("db.t$files").read().column("creation_time").to_pylist()  # type: ignore[union-attr]
    wall = dt.datetime.now()  # naive local time
    assert abs((file - wall).total_seconds()) < 30, (zone, file, wall)
    (part,) = t.partitions()
    assert abs(part.last_file_creation_time_ms / 1000 - now) < 30
    # a fresh partition is not an hour old, whatever the zone
    assert t.expire_partitions(expiration_time="1 h").texts() == []
    assert t.read().num_rows == 1


def test_wall_clock_round_trip(zone: str) -> None:
    epoch = 1_700_000_000_000
    wall = local_wall_clock_ms(epoch)
    assert wall != epoch
    assert wall_clock_to_epoch_ms(wall) == epoch
