from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.format.murmur import hash_columns
from paimon_sql.meta.index_file_meta import INDEX_TYPE_HASH
from paimon_sql.options import CoreOptions
from paimon_sql.types import BigIntType
from paimon_sql.write.dynamic_bucket import read_hashes

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])


def rows(ids: list[int], v: str = "a") -> pa.Table:
    return pa.table({"id": ids, "v": [v] * len(ids)})


def bucket_files(t) -> dict[int, int]:  # type: ignore[no-untyped-def]
    out: dict[int, int] = {}
    for e in t.store.manifests.live_entries(t.latest_snapshot()):
        out[e.bucket] = out.get(e.bucket, 0) + e.file.row_count
    return out


def hash_index(t) -> dict[int, np.ndarray]:  # type: ignore[no-untyped-def]
    out = {}
    for e in t.store.manifests.index_entries(t.latest_snapshot()):
        assert e.index_file.index_type == INDEX_TYPE_HASH
        out[e.bucket] = read_hashes(t.file_io, t.store.index_file_path(e.index_file.file_name))
    return out


def test_dynamic_buckets_fill_to_target(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"],
                             options={"dynamic-bucket.target-row-num": "10"})
    assert t.store.options.bucket == -1
    t.write(rows(list(range(35))))
    counts = bucket_files(t)
    assert sorted(counts) == [0, 1, 2, 3] and sorted(counts.values()) == [5, 10, 10, 10]
    index = hash_index(t)
    expected = hash_columns([pa.array(range(35), pa.int64())], [BigIntType(nullable=False)])
    assert sorted(np.concatenate(list(index.values())).tolist()) == sorted(expected.tolist())
    # upserting known keys keeps them in their bucket; new keys fill bucket 3 first
    t.write(rows([0, 34, 100], "b"))
    index2 = hash_index(t)
    assert sum(len(h) for h in index2.values()) == 36
    assert sorted(t.read(filter="v = 'b'").column("id").to_pylist()) == [0, 34, 100]
    assert t.read().num_rows == 36
    for e in t.store.manifests.live_entries(t.latest_snapshot()):  # type: ignore[arg-type]
        assert e.total_buckets == -1


def test_initial_and_max_buckets(catalog: Catalog) -> None:
    t = catalog.create_table("db.i", SCHEMA, primary_keys=["id"],
                             options={"dynamic-bucket.initial-buckets": "3"})
    t.write(rows(list(range(300))))
    assert sorted(bucket_files(t)) == [0, 1, 2]
    m = catalog.create_table("db.m", SCHEMA, primary_keys=["id"],
                             options={"dynamic-bucket.target-row-num": "5", "dynamic-bucket.max-buckets": "2"})
    m.write(rows(list(range(30))))
    assert sorted(bucket_files(m)) == [0, 1]
    assert m.read().num_rows == 30


def test_partitions_have_their_own_buckets(catalog: Catalog) -> None:
    schema = pa.schema([("id", pa.int64()), ("v", pa.string()), ("dt", pa.string())])
    t = catalog.create_table("db.p", schema, primary_keys=["id", "dt"], partition_keys=["dt"],
                             options={"dynamic-bucket.target-row-num": "4"})
    t.write(pa.table({"id": list(range(6)) * 2, "v": ["x"] * 12, "dt": ["a"] * 6 + ["b"] * 6}))
    entries = t.store.manifests.index_entries(t.latest_snapshot())  # type: ignore[arg-type]
    assert len({e.partition for e in entries}) == 2
    assert sorted(e.bucket for e in entries) == [0, 0, 1, 1]
    t.delete("id = 1 AND dt = 'b'")
    assert t.read().num_rows == 11


def test_write_with_max_buckets(catalog: Catalog) -> None:
    # DynamicBucketTableTest "write with max buckets": max-buckets caps the assigners, so the
    # twelve keys of one partition spread over two buckets (target-row-num is far from reached)
    schema = pa.schema([("pk", pa.string()), ("v", pa.string()), ("pt", pa.string())])
    catalog.create_table("db.mb", schema, primary_keys=["pk", "pt"], partition_keys=["pt"],
                         options={"bucket": "-1", "dynamic-bucket.max-buckets": "2"})
    for keys in (["1", "2", "3", "4", "5", "6"], ["11", "22", "33", "44", "55", "66"]):
        catalog.get_table("db.mb").write(pa.table({"pk": keys, "v": list("abcdee"), "pt": ["p"] * 6}))
    t = catalog.get_table("db.mb")
    assert sorted(set(bucket_files(t))) == [0, 1]
    assert t.read().num_rows == 12


@pytest.mark.parametrize(
    "options, assigners",
    [
        ({}, 1),
        ({"dynamic-bucket.max-buckets": "2"}, 2),
        ({"dynamic-bucket.initial-buckets": "3"}, 3),
        ({"dynamic-bucket.initial-buckets": "3", "dynamic-bucket.max-buckets": "2"}, 2),
        # DynamicBucketTableTest: assigner-parallelism 10 with initial-buckets 3 still gives 3 buckets
        ({"dynamic-bucket.assigner-parallelism": "10", "dynamic-bucket.initial-buckets": "3"}, 3),
        ({"dynamic-bucket.assigner-parallelism": "4"}, 4),
        ({"dynamic-bucket.assigner-parallelism": "4", "dynamic-bucket.max-buckets": "3"}, 3),
    ],
)
def test_number_of_assigners(options: dict[str, str], assigners: int) -> None:
    assert CoreOptions(options).dynamic_bucket_assigners() == assigners


@pytest.mark.parametrize("options", [
    # DynamicBucketTableTest "write with assign parallelism"
    {"dynamic-bucket.target-row-num": "3", "dynamic-bucket.assigner-parallelism": "3"},
    # "write with dynamic-bucket.initial-buckets": parallelism 10, but initial-buckets 3 gives 3 buckets
    {"dynamic-bucket.target-row-num": "3", "dynamic-bucket.initial-buckets": "3",
     "dynamic-bucket.assigner-parallelism": "10"},
])
def test_write_with_assigner_parallelism(catalog: Catalog, options: dict[str, str]) -> None:
    schema = pa.schema([("pk", pa.string()), ("v", pa.string()), ("pt", pa.string())])
    catalog.create_table("db.ap", schema, primary_keys=["pk", "pt"], partition_keys=["pt"],
                         options={"bucket": "-1", **options})
    catalog.get_table("db.ap").write(pa.table({"pk": list("12345"), "v": list("abcde"), "pt": ["p"] * 5}))
    t = catalog.get_table("db.ap")
    assert sorted((r["pk"], r["v"]) for r in t.read().to_pylist()) == list(zip("12345", "abcde"))
    assert sorted(set(bucket_files(t))) == [0, 1, 2]
