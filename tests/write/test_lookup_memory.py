"""changelog-producer = lookup with bounded memory: a compaction looks its level-0 keys up in the
levels above in batches of at most a quarter of ``lookup.cache-max-memory-size`` (Paimon bounds its
lookup cache by that option), and the changelog does not depend on the bound.

The bound is measured, not assumed: Arrow's allocations during the write go through a proxy memory
pool whose peak (``max_memory()``) must stay under the bound plus a stated slack, where the same
write with the default bound decodes the whole looked-up file."""

from __future__ import annotations

import os
import tempfile
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import PaimonError
from paimon_sql.scan.changes import changelog_splits
from paimon_sql.scan.reader import read_split
from tests.helpers.changelog_model import KINDS

# proxy pools stay referenced for the process: buffers they handed out may outlive the test
_POOLS: list[pa.MemoryPool] = []

BASE_ROWS = 50_000
BOUND = 64 * 1024
# what else the write allocates at once: the 500 written rows, their sorted run, the merge and
# the changelog of those keys, the parquet writer's and reader's buffers
SLACK = 768 * 1024


def snapshot_changelog(t: Any, snapshot_id: int) -> list[tuple[Any, ...]]:
    """The changelog rows of one snapshot: (kind, columns...) in file order."""
    store = t.store
    names = [f.name for f in store.schema.fields]
    out: list[tuple[Any, ...]] = []
    for split in changelog_splits(store, store.snapshots.snapshot(snapshot_id)):
        rows = read_split(store, split, list(store.schema.fields), keep_row_kind=True)
        out += [(KINDS[r["_VALUE_KIND"]], *(r[n] for n in names)) for r in rows.to_pylist()]
    return out


def _base() -> pa.Table:
    ids = np.arange(BASE_ROWS, dtype=np.int64)
    return pa.table({"id": ids, "s": pa.array([f"value-{i:012d}" for i in range(BASE_ROWS)]),
                     "v": np.random.default_rng(1).random(BASE_ROWS)})


def _upsert() -> pa.Table:
    rng = np.random.default_rng(2)
    ids = np.sort(rng.choice(np.arange(0, 2 * BASE_ROWS, 2), 500, replace=False)).astype(np.int64) + \
        rng.integers(0, 2, 500)  # some existing keys, some new ones (odd ids beyond the base)
    ids = np.unique(ids)
    return pa.table({"id": ids, "s": pa.array([f"new-{i}" for i in ids]), "v": rng.random(len(ids))})


def _peak_of_upsert(memory: str | None) -> tuple[int, list[Any], int]:
    """(peak Arrow bytes while the upsert is written and compacted, the changelog of its snapshots,
    the base's decoded bytes)."""
    base = _base()
    with tempfile.TemporaryDirectory() as tmp:
        cat = Catalog(tmp)
        cat.create_database("db")
        opts = {"bucket": "1", "changelog-producer": "lookup"}
        if memory is not None:
            opts["lookup.cache-max-memory-size"] = memory
        t = cat.create_table("db.t", base.schema, primary_keys=["id"], options=opts)
        t.write(base)
        first = t.store.snapshots.latest_id() or 0
        up = _upsert()
        pool = pa.proxy_memory_pool(pa.default_memory_pool())
        _POOLS.append(pool)
        old = pa.default_memory_pool()
        pa.set_memory_pool(pool)
        try:
            cat.get_table("db.t").write(up)
        finally:
            pa.set_memory_pool(old)
        t = cat.get_table("db.t")
        last = t.store.snapshots.latest_id() or 0
        kinds = [t.store.snapshots.snapshot(i).commit_kind for i in range(first + 1, last + 1)]
        assert kinds == ["APPEND", "COMPACT"]
        rows = [r for i in range(first + 1, last + 1) for r in snapshot_changelog(t, i)]
        return pool.max_memory(), rows, base.nbytes


def test_lookup_memory_is_bounded() -> None:
    bounded, rows, base_bytes = _peak_of_upsert(f"{BOUND} b")
    unbounded, rows_default, _ = _peak_of_upsert(None)
    assert bounded < BOUND + SLACK, (bounded, unbounded)
    assert unbounded > base_bytes > BOUND + SLACK  # the default bound reads the looked-up file at once
    assert rows == rows_default
    up = _upsert()
    existing = int((up.column("id").to_numpy() < BASE_ROWS).sum())
    kinds = [r[0] for r in rows]
    assert kinds.count("-U") == kinds.count("+U") == existing
    assert kinds.count("+I") == up.num_rows - existing


def test_changelog_does_not_depend_on_the_bound() -> None:
    """Keys spread over several levels (a low compaction trigger): the changelog with a tiny bound
    (one-row batches) is the one with the default."""
    def run(mem: str) -> list[Any]:
        with tempfile.TemporaryDirectory() as tmp:
            cat = Catalog(tmp)
            cat.create_database("db")
            schema = pa.schema([("k", pa.int64()), ("v", pa.string())])
            t = cat.create_table("db.t", schema, primary_keys=["k"], options={
                "bucket": "1", "changelog-producer": "lookup", "num-sorted-run.compaction-trigger": "2",
                "lookup.cache-max-memory-size": mem})
            rng = np.random.default_rng(7)
            out: list[Any] = []
            for step in range(6):
                ks = np.unique(rng.integers(0, 60, 25))
                t.write(pa.table({"k": ks, "v": [f"{step}-{k}" for k in ks]}, schema=schema))
                if step == 3:
                    t.delete("k < 10")
            for i in t.snapshot_ids():
                out += snapshot_changelog(t, i)
            return out

    small = run("1 kb")
    assert small == run("256 mb")
    assert {r[0] for r in small} == {"+I", "-U", "+U", "-D"}


def test_new_inserts_changelog_is_a_copy_of_the_file() -> None:
    """A first write's level-0 file moves up unchanged; its changelog file holds the same bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        cat = Catalog(tmp)
        cat.create_database("db")
        t = cat.create_table("db.t", pa.schema([("k", pa.int64()), ("v", pa.string())]), primary_keys=["k"],
                             options={"bucket": "1", "changelog-producer": "lookup"})
        t.write(pa.table({"k": [3, 1, 2], "v": ["c", "a", "b"]}))
        snap = t.store.snapshots.latest()
        assert snap is not None and snap.commit_kind == "COMPACT" and snap.changelog_record_count == 3
        bucket = os.path.join(tmp, "db.db", "t", "bucket-0")
        names = sorted(os.listdir(bucket))
        data = [n for n in names if n.startswith("data-")]
        changelog = [n for n in names if n.startswith("changelog-")]
        assert len(data) == len(changelog) == 1
        with open(os.path.join(bucket, data[0]), "rb") as a, open(os.path.join(bucket, changelog[0]), "rb") as b:
            assert a.read() == b.read()
        assert [r[:2] for r in snapshot_changelog(t, snap.id)] == [("+I", 1), ("+I", 2), ("+I", 3)]


def test_changelog_file_format_is_honoured() -> None:
    """changelog-file.format: the compaction's changelog files are written in it (no copy)."""
    with tempfile.TemporaryDirectory() as tmp:
        cat = Catalog(tmp)
        cat.create_database("db")
        t = cat.create_table("db.t", pa.schema([("k", pa.int64()), ("v", pa.string())]), primary_keys=["k"],
                             options={"bucket": "1", "changelog-producer": "lookup", "changelog-file.format": "avro"})
        t.write(pa.table({"k": [1, 2], "v": ["a", "b"]}))
        t.write(pa.table({"k": [2, 3], "v": ["B", "c"]}))
        names = os.listdir(os.path.join(tmp, "db.db", "t", "bucket-0"))
        changelog = sorted(n for n in names if n.startswith("changelog-"))
        assert len(changelog) == 2 and all(n.endswith(".avro") for n in changelog)
        last = t.store.snapshots.latest_id() or 0
        assert [r[:2] for r in snapshot_changelog(t, last)] == [("-U", 2), ("+U", 2), ("+I", 3)]


def test_bad_memory_size_names_the_option() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cat = Catalog(tmp)
        cat.create_database("db")
        with pytest.raises(PaimonError, match="lookup.cache-max-memory-size"):
            cat.create_table("db.t", pa.schema([("k", pa.int64())]), primary_keys=["k"],
                             options={"changelog-producer": "lookup", "lookup.cache-max-memory-size": "lots"})


def test_lost_looked_up_file_is_refused() -> None:
    """A looked-up file that is gone fails the write as scans fail (naming the table), and the
    table stays as it was."""
    with tempfile.TemporaryDirectory() as tmp:
        cat = Catalog(tmp)
        cat.create_database("db")
        schema = pa.schema([("k", pa.int64()), ("v", pa.string())])
        t = cat.create_table("db.t", schema, primary_keys=["k"],
                             options={"bucket": "1", "changelog-producer": "lookup"})
        t.write(pa.table({"k": list(range(100)), "v": ["a"] * 100}, schema=schema))
        bucket = os.path.join(tmp, "db.db", "t", "bucket-0")
        for n in os.listdir(bucket):
            if n.startswith("data-"):
                os.remove(os.path.join(bucket, n))
        before = t.store.snapshots.latest_id()
        with pytest.raises(PaimonError, match="db.t"):
            cat.get_table("db.t").write(pa.table({"k": [5, 500], "v": ["b", "c"]}, schema=schema))
        assert cat.get_table("db.t").store.snapshots.latest_id() == before
