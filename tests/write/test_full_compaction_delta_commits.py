"""``full-compaction.delta-commits``: Paimon's batch writers (Spark's DataWrite, Flink's batch sink)
fully compact every bucket a write touched before committing when the option is > 0; every
paimon_sql write is such a batch write. Primary-key tables only (Paimon refuses it on
bucket-unaware append tables; paimon_sql's append writers do not compact)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import UnsupportedError, ValidationError

SCHEMA = pa.schema([("k", pa.int64()), ("v", pa.string())])
DELTA = "full-compaction.delta-commits"


def kinds(t: Any) -> list[str]:
    snaps = t.store.snapshots
    return [snaps.snapshot(i).commit_kind for i in range(1, (snaps.latest_id() or 0) + 1)]


def levels(t: Any) -> dict[int, list[int]]:
    """Per bucket, the levels of its live files."""
    out: dict[int, list[int]] = {}
    for _, split in t.refresh().plan()[1]:
        out.setdefault(split.bucket, []).extend(sorted(f.level for f in split.files))
    return out


def rows(keys: list[int], tag: str) -> pa.Table:
    return pa.table({"k": keys, "v": [f"{tag}{k}" for k in keys]}, schema=SCHEMA)


@pytest.mark.parametrize("delta", ["1", "3"])
def test_every_write_fully_compacts_the_buckets_it_wrote(catalog: Catalog, delta: str) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1", DELTA: delta})
    t.write(rows([1, 2, 3], "a"))
    assert kinds(t) == ["APPEND", "COMPACT"]
    assert levels(t) == {0: [5]}  # num-levels 6: the highest level
    t.write(rows([2, 4], "b"))
    assert kinds(t) == ["APPEND", "COMPACT", "APPEND", "COMPACT"]
    assert levels(t) == {0: [5]}
    assert sorted(t.read().to_pylist(), key=lambda r: r["k"]) == [
        {"k": 1, "v": "a1"}, {"k": 2, "v": "b2"}, {"k": 3, "v": "a3"}, {"k": 4, "v": "b4"}]
    t.delete("k = 1")  # a DELETE statement is a write too
    assert kinds(t)[-2:] == ["APPEND", "COMPACT"] and levels(t) == {0: [5]}
    assert t.read().num_rows == 3


@pytest.mark.parametrize("options", [{DELTA: "0"}, {DELTA: "-1"}, {}, {DELTA: "1", "write-only": "true"}])
def test_no_full_compaction(catalog: Catalog, options: dict[str, str]) -> None:
    """0 and negative values (Spark's rule: > 0), no option, and write-only leave level 0 alone."""
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1", **options})
    t.write(rows([1, 2], "a"))
    t.write(rows([2, 3], "b"))
    assert kinds(t) == ["APPEND", "APPEND"]
    assert levels(t) == {0: [0, 0]}


def test_only_the_written_buckets_are_compacted(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "2"})
    t.write(rows(list(range(20)), "a"))
    t.write(rows(list(range(20)), "b"))
    before = levels(t)
    assert before == {0: [0, 0], 1: [0, 0]}
    t = t.alter(set_options={DELTA: "2"})
    t.write(rows([7], "c"))  # one key: one bucket
    after = levels(t)
    assert sorted(after.values()) == [[0, 0], [5]]
    assert t.read(filter="k = 7").column("v").to_pylist() == ["c7"]
    assert t.read().num_rows == 20


def test_tables_that_cannot_have_it(catalog: Catalog) -> None:
    with pytest.raises(ValidationError, match="unaware or dynamic bucket does not support 'full-compaction.delta-commits'"):
        catalog.create_table("db.a", SCHEMA, options={DELTA: "1"})
    with pytest.raises(UnsupportedError, match="not supported on append tables yet"):
        catalog.create_table("db.a", SCHEMA, options={DELTA: "1", "bucket": "2", "bucket-key": "k"})
    catalog.create_table("db.w", SCHEMA, options={DELTA: "1", "bucket": "2", "bucket-key": "k", "write-only": "true"})
    a = catalog.create_table("db.a", SCHEMA, options={"bucket": "2", "bucket-key": "k"})
    with pytest.raises(UnsupportedError, match="not supported on append tables yet"):
        a.alter(set_options={DELTA: "1"})
    assert a.refresh().schema.id == 0
