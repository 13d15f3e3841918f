"""The commit's conflict checks, each on real tables: what a writer prepared against a base snapshot
is refused when another commit changed what it relied on, and accepted when it did not."""

from __future__ import annotations

import os
import random

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import AlreadyCommittedError, ValidationError, WriteConflictError
from paimon_sql.table.table import Table
from paimon_sql.write.commit import retry_wait_ms
from paimon_sql.write.conflicts import changes_since

SCHEMA = pa.schema([("k", pa.int64()), ("v", pa.string()), ("dt", pa.string())])


def rows(keys: list[int], v: str = "a", dt: str = "x") -> pa.Table:
    return pa.table({"k": keys, "v": [v] * len(keys), "dt": [dt] * len(keys)}, schema=SCHEMA)


def table(catalog: Catalog, **options: str) -> Table:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k", "dt"], partition_keys=["dt"],
                             options={"bucket": "1", **options})
    return t


def prepared(t: Table, data: pa.Table) -> object:
    w = t.new_write()
    w.write(data)
    return w.prepare_commit()


def test_same_bucket_overlapping_keys_from_a_stale_base_is_refused(catalog: Catalog) -> None:
    t = table(catalog)
    t.write(rows([1, 2]))
    mine = prepared(t, rows([2, 3], "mine"))
    t.write(rows([2], "theirs"))  # lands first, numbered from the same base
    with pytest.raises(WriteConflictError, match=r"partition dt=x, bucket 0.*resolve wrongly"):
        t.commit_changes([mine])  # type: ignore[list-item]
    assert not any(os.path.exists(p) for p in mine.written_paths)  # type: ignore[attr-defined]
    assert t.snapshot_ids() == [1, 2]
    assert dict(zip(*t.read(columns=["k", "v"]).to_pydict().values())) == {1: "a", 2: "theirs"}


def test_disjoint_key_ranges_and_other_buckets_commit(catalog: Catalog) -> None:
    t = table(catalog)
    t.write(rows([1, 2]))
    low, high, other_partition = prepared(t, rows([1], "low")), prepared(t, rows([5, 6], "high")), \
        prepared(t, rows([1], "y", dt="y"))
    assert t.commit_changes([low]) == 2  # type: ignore[list-item]
    assert t.commit_changes([high]) == 3  # type: ignore[list-item]
    assert t.commit_changes([other_partition]) == 4  # type: ignore[list-item]
    assert sorted(t.read(columns=["k", "v"]).to_pylist(), key=lambda r: (r["k"], r["v"])) == [
        {"k": 1, "v": "low"}, {"k": 1, "v": "y"}, {"k": 2, "v": "a"}, {"k": 5, "v": "high"}, {"k": 6, "v": "high"}]


def test_overwrite_deleting_the_concurrent_files_commits(catalog: Catalog) -> None:
    t = table(catalog)
    t.write(rows([1, 2]))
    mine = prepared(t, rows([1], "mine"))
    t.write(rows([1], "theirs"))
    assert t.commit_changes([mine], overwrite={"dt": "x"}) == 3  # type: ignore[list-item]
    assert t.read(columns=["k", "v"]).to_pylist() == [{"k": 1, "v": "mine"}]


def test_two_writers_of_one_commit_sharing_keys_are_refused(catalog: Catalog) -> None:
    t = table(catalog)
    a, b = prepared(t, rows([1, 2], "a")), prepared(t, rows([2, 3], "b"))
    with pytest.raises(WriteConflictError, match="overlapping keys and sequence numbers"):
        t.commit_changes([a, b])  # type: ignore[list-item]
    assert t.snapshot_ids() == []
    assert not any(os.path.exists(p) for c in (a, b) for p in c.written_paths)  # type: ignore[attr-defined]


def test_dynamic_bucket_index_changed_concurrently_is_refused(catalog: Catalog) -> None:
    t = table(catalog, bucket="-1")
    t.write(rows([1, 2]))
    mine = prepared(t, rows([10, 11], "mine"))  # new keys, assigned from the base's index
    t.write(rows([20], "theirs"))  # also a new key: the partition's index changes
    with pytest.raises(WriteConflictError, match="dynamic-bucket index of partition dt=x"):
        t.commit_changes([mine])  # type: ignore[list-item]
    t.write(rows([10, 11], "again"))  # Table.write redoes on the latest index
    ks = t.read(columns=["k"]).column("k").to_pylist()
    assert sorted(ks) == [1, 2, 10, 11, 20]


def test_schema_change_since_the_writer_is_refused(catalog: Catalog) -> None:
    t = table(catalog)
    mine = prepared(t, rows([1]))
    t.alter(set_options={"bucket": "2"})
    with pytest.raises(WriteConflictError, match="schema 0, but the table's schema is now 1"):
        t.commit_changes([mine])  # type: ignore[list-item]


def test_aborted_foreign_and_twice_committed_changes(catalog: Catalog, tmp_path: object) -> None:
    t = table(catalog)
    other = catalog.create_table("db.other", SCHEMA, primary_keys=["k", "dt"], partition_keys=["dt"],
                                 options={"bucket": "1"})
    aborted = prepared(t, rows([1]))
    t.abort_changes([aborted])  # type: ignore[list-item]
    with pytest.raises(ValidationError, match="does not exist.*aborted, or prepared for another table"):
        t.commit_changes([aborted])  # type: ignore[list-item]
    foreign = prepared(other, rows([2]))
    with pytest.raises(ValidationError, match="does not exist"):
        t.commit_changes([foreign])  # type: ignore[list-item]
    assert all(os.path.exists(p) for p in foreign.written_paths)  # type: ignore[attr-defined]
    assert other.commit_changes([foreign]) == 1  # type: ignore[list-item]
    with pytest.raises(AlreadyCommittedError, match="committed already"):
        other.commit_changes([foreign])  # type: ignore[list-item]
    assert other.read().num_rows == 1 and all(os.path.exists(p) for p in foreign.written_paths)  # type: ignore[attr-defined]
    assert t.snapshot_ids() == [] and other.snapshot_ids() == [1]
    for bad in (None, "x", [object()], prepared(t, rows([3]))):
        with pytest.raises(ValidationError):
            t.commit_changes(bad)  # type: ignore[arg-type]


def test_changes_since_survives_a_missing_snapshot_and_refuses_a_missing_base(catalog: Catalog) -> None:
    t = table(catalog)
    for i in range(4):
        t.write(rows([i], str(i)))
    latest = t.latest_snapshot()
    full = changes_since(t.store, 1, latest)
    os.remove(t.store.snapshots.path(3))  # as if expired
    fallback = changes_since(t.store, 1, latest)
    assert {e.file.file_name for e in full.added} == {e.file.file_name for e in fallback.added}
    assert len(full.added) == 3
    os.remove(t.store.snapshots.path(1))
    with pytest.raises(WriteConflictError, match="base snapshot 1 expired"):
        changes_since(t.store, 1, latest)


def test_retry_waits_double_up_to_the_maximum_with_jitter() -> None:
    rng = random.Random(7)
    waits = [retry_wait_ms(i, 10, 1000, rng) for i in range(12)]
    for i, w in enumerate(waits):
        base = min(10 * 2**i, 1000)
        assert base <= w <= base * 1.2


def test_interleaved_but_disjoint_keys_commit(catalog: Catalog) -> None:
    """Key ranges overlap but no key is shared: within one commit and across commits, the exact
    key check lets the commits through."""
    t = table(catalog)
    a, b = prepared(t, rows([1, 3], "a")), prepared(t, rows([2, 4], "b"))
    assert t.commit_changes([a, b]) == 1  # type: ignore[list-item]
    mine = prepared(t, rows([10, 30], "mine"))
    t.write(rows([20], "theirs"))
    assert t.commit_changes([mine]) == 3  # type: ignore[list-item]
    assert dict(zip(*t.read(columns=["k", "v"]).to_pydict().values())) == {
        1: "a", 2: "b", 3: "a", 4: "b", 10: "mine", 20: "theirs", 30: "mine"}
