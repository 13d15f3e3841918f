from __future__ import annotations

import datetime as dt

import pyarrow as pa

from paimon_sql import Catalog
from paimon_sql.format.partition_path import escape_path_name, java_local_date_time, partition_path
from paimon_sql.types import DateType, IntType, TimestampType, VarCharType


def test_escaping_and_defaults() -> None:
    assert escape_path_name("a/b=c:d%") == "a%2Fb%3Dc%3Ad%25"
    path = partition_path(["s", "i"], [None, 3], [VarCharType(), IntType()])
    assert path == "s=__DEFAULT_PARTITION__/i=3"
    assert partition_path(["s"], ["  "], [VarCharType()], "X") == "s=X"


def test_dates_and_timestamps_like_java() -> None:
    d = dt.date(2024, 1, 2)
    assert partition_path(["d"], [d], [DateType()]) == "d=19724"  # partition.legacy-name=true
    assert partition_path(["d"], [d], [DateType()], legacy_name=False) == "d=2024-01-02"
    assert java_local_date_time(dt.datetime(2024, 1, 2, 3, 4)) == "2024-01-02T03:04"
    assert java_local_date_time(dt.datetime(2024, 1, 2, 3, 4, 5, 120000)) == "2024-01-02T03:04:05.120"
    assert java_local_date_time(dt.datetime(2024, 1, 2, 3, 4, 5, 123456)) == "2024-01-02T03:04:05.123456"
    ts = partition_path(["t"], [dt.datetime(2024, 1, 2, 3, 4, 5)], [TimestampType(3)])
    assert ts == "t=2024-01-02T03%3A04%3A05"


def test_partitioned_tables_round_trip(catalog: Catalog) -> None:
    schema = pa.schema([("id", pa.int64()), ("d", pa.date32()), ("s", pa.string()), ("b", pa.bool_())])
    t = catalog.create_table("db.p", schema, partition_keys=["d", "s", "b"])
    rows = pa.table({
        "id": [1, 2, 3, 4],
        "d": [dt.date(2024, 1, 1), dt.date(2024, 1, 2), None, dt.date(2024, 1, 1)],
        "s": ["a/b", "x", "y", None],
        "b": [True, False, None, True],
    })
    t.write(rows)
    assert sorted(t.read().to_pylist(), key=lambda r: r["id"]) == rows.to_pylist()
    assert t.read(filter="d = DATE '2024-01-01' AND b").column("id").to_pylist() in ([1, 4], [4, 1])
    assert t.read(filter="s IS NULL").column("id").to_pylist() == [4]
    import os

    top = sorted(os.listdir(t.path))
    assert "d=19723" in top and "d=__DEFAULT_PARTITION__" in top
    assert os.path.isdir(os.path.join(t.path, "d=19723", "s=a%2Fb", "b=true", "bucket-0"))
