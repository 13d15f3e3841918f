"""pypaimon 2.1.0 reads every snapshot of a cross-partition upsert table paimon_sql wrote (keys
moving between partitions: the old copy's -D in its old bucket, deduplicate and partial-update,
with and without deletion vectors), with the rows paimon_sql reads."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from tests.helpers.interop_util import PypaimonIO, assert_same_rows

SCHEMA = pa.schema([("pt", pa.int32()), ("pk", pa.int64()), ("v", pa.string())])


def _rows(pt: list[int], pk: list[int], v: list[str | None]) -> pa.Table:
    return pa.table({"pt": pa.array(pt, pa.int32()), "pk": pa.array(pk, pa.int64()), "v": pa.array(v, pa.string())})


@pytest.mark.parametrize("options", [
    {},
    {"deletion-vectors.enabled": "true"},
    {"merge-engine": "partial-update"},
    {"dynamic-bucket.target-row-num": "2", "dynamic-bucket.assigner-parallelism": "2"},
])
def test_pypaimon_reads_cross_partition_upserts(options: dict[str, str], warehouse: Any, pypaimon: PypaimonIO) -> None:
    cat = Catalog(str(warehouse))
    cat.create_database("db")
    t = cat.create_table("db.x", SCHEMA, primary_keys=["pk"], partition_keys=["pt"], options={"bucket": "-1", **options})
    t.write(_rows([1, 1, 1, 2, 2], [1, 2, 3, 4, 5], ["a", "b", "c", "d", "e"]))
    t.write(_rows([2, 3, 1], [1, 2, 4], ["a2", "b2", "d2"]))
    t.write(_rows([3, 3, 1], [1, 5, 6], ["a3", None, "f"]))
    t.compact(full=True)
    t.write(_rows([1], [1], ["a4"]))
    expected = {sid: t.read(snapshot_id=sid) for sid in t.snapshot_ids()}
    read = pypaimon.read_all("db.x")
    assert sorted(read) == sorted(expected)
    for sid, rows in expected.items():
        assert_same_rows(read[sid], rows, f"pypaimon reading snapshot {sid} ({options})")
    keys = t.read().column("pk").to_pylist()
    assert sorted(keys) == [1, 2, 3, 4, 5, 6]
