"""Cross-partition upsert (``bucket`` = -1, a primary key without every partition column).

Ports Paimon's DynamicBucketTableTest cross-partition cases to the Python API, the merge engines'
rules of Paimon's ExistingProcessor (deduplicate: the old copy is deleted; partial-update and
aggregation: the row stays in its old partition; first-row: the new row is dropped), the global
index's bootstrap from disk (a new catalog), ``cross-partition-upsert.index-ttl``, the -D of the
old copy in the ``changelog-producer`` = input changelog, and a hypothesis model: random upserts
and deletes moving keys between partitions over several commits against a dict.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_sql import Catalog
from paimon_sql.errors import CommitConflictError, UnsupportedError, ValidationError
from paimon_sql.format.system_fields import ROW_KINDS
from paimon_sql.meta.index_file_meta import INDEX_TYPE_HASH
from paimon_sql.scan.changes import changelog_splits
from paimon_sql.scan.planner import plan
from paimon_sql.scan.reader import read_split
from paimon_sql.table.table import Table
from paimon_sql.write.cross_partition import CrossPartitionAssigner, is_cross_partition

SCHEMA = pa.schema([("pt", pa.int32()), ("pk", pa.int32()), ("v", pa.int32())])
KIND_NAMES = {v: k for k, v in ROW_KINDS.items()}


def rows(pt: list[int], pk: list[int], v: list[int | None]) -> pa.Table:
    return pa.table({"pt": pa.array(pt, pa.int32()), "pk": pa.array(pk, pa.int32()), "v": pa.array(v, pa.int32())})


def content(t: Table) -> list[tuple[Any, ...]]:
    return sorted((r["pt"], r["pk"], r["v"]) for r in t.read().to_pylist())


def buckets(t: Table) -> set[int]:
    snap = t.latest_snapshot()
    assert snap is not None
    return {e.bucket for e in t.store.manifests.live_entries(snap)}


def make(catalog: Catalog, name: str = "db.t", **options: str) -> Table:
    opts = {"bucket": "-1", **options}
    return catalog.create_table(name, SCHEMA, primary_keys=["pk"], partition_keys=["pt"], options=opts)


def test_is_cross_partition_only_in_dynamic_bucket_mode(catalog: Catalog) -> None:
    assert is_cross_partition(make(catalog).store)
    fixed = catalog.create_table("db.f", SCHEMA, primary_keys=["pk"], partition_keys=["pt"], options={"bucket": "2"})
    assert not is_cross_partition(fixed.store)
    # fixed buckets: a key is unique per partition only, as in Paimon (HASH_FIXED)
    fixed.write(rows([1, 2], [1, 1], [10, 20]))
    assert content(fixed) == [(1, 1, 10), (2, 1, 20)]


def test_default_bucket_is_cross_partition(catalog: Catalog) -> None:
    """Paimon's 'write multiple cols': no 'bucket' option, 118 columns, an INSERT of some."""
    fields = [(f"c{i}", pa.string()) for i in range(118)] + [("pt", pa.string())]
    t = catalog.create_table("db.m", pa.schema(fields), primary_keys=["c0"], partition_keys=["pt"])
    assert is_cross_partition(t.store)
    data = {f"c{i}": [None] for i in range(118)}
    data.update({"c0": ["c0"], "c1": ["c1"], "c2": ["c2"], "pt": ["pt"]})
    t.write(pa.table(data, schema=pa.schema(fields)))
    assert t.read(columns=["c0", "c1", "c2", "pt"]).to_pylist() == [{"c0": "c0", "c1": "c1", "c2": "c2", "pt": "pt"}]


def test_write_with_partition_change(catalog: Catalog) -> None:
    """Paimon's DynamicBucketTableTest 'write with partition change'."""
    t = make(catalog, **{"dynamic-bucket.target-row-num": "3", "dynamic-bucket.assigner-parallelism": "1"})
    t.write(rows([1] * 5, [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]))
    assert content(t) == [(1, 1, 1), (1, 2, 2), (1, 3, 3), (1, 4, 4), (1, 5, 5)]
    t.write(rows([1, 1], [3, 1], [33, 11]))
    assert content(t) == [(1, 1, 11), (1, 2, 2), (1, 3, 33), (1, 4, 4), (1, 5, 5)]
    assert buckets(t) == {0, 1}
    t.write(rows([2, 2], [1, 2], [2, 3]))
    assert content(t) == [(1, 3, 33), (1, 4, 4), (1, 5, 5), (2, 1, 2), (2, 2, 3)]
    # no HASH index in this mode (Paimon's KEY_DYNAMIC writes none)
    snap = t.latest_snapshot()
    assert snap is not None
    assert not [e for e in t.store.manifests.index_entries(snap) if e.index_file.index_type == INDEX_TYPE_HASH]


def test_write_with_delete(catalog: Catalog) -> None:
    """Paimon's DynamicBucketTableTest 'write with delete'."""
    t = make(catalog, **{"dynamic-bucket.target-row-num": "3"})
    t.write(rows([1] * 5, [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]))
    t.delete("pk = 1")
    assert content(t) == [(1, 2, 2), (1, 3, 3), (1, 4, 4), (1, 5, 5)]
    t.write(rows([2, 2], [1, 2], [2, 3]))
    assert content(t) == [(1, 3, 3), (1, 4, 4), (1, 5, 5), (2, 1, 2), (2, 2, 3)]
    t.delete("pk = 2")
    assert content(t) == [(1, 3, 3), (1, 4, 4), (1, 5, 5), (2, 1, 2)]


def test_assigner_parallelism(catalog: Catalog) -> None:
    """Paimon's 'user define assigner parallelism': 3 assigners, each owning buckets b % 3 = id."""
    t = make(catalog, **{"dynamic-bucket.target-row-num": "3", "dynamic-bucket.assigner-parallelism": "3"})
    t.write(rows([1] * 5, [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]))
    assert content(t) == [(1, i, i) for i in range(1, 6)]
    assert buckets(t) == {0, 1, 2}


def test_initial_buckets(catalog: Catalog) -> None:
    t = make(catalog, **{"dynamic-bucket.initial-buckets": "2"})
    t.write(rows([1] * 50, list(range(50)), list(range(50))))
    assert buckets(t) == {0, 1}


def test_target_row_num_counts_moved_keys(catalog: Catalog) -> None:
    """A key leaving a bucket frees its place (Paimon's BucketAssigner.decrement)."""
    t = make(catalog, **{"dynamic-bucket.target-row-num": "2", "dynamic-bucket.assigner-parallelism": "1"})
    t.write(rows([1, 1, 1, 1], [1, 2, 3, 4], [0, 0, 0, 0]))
    assert buckets(t) == {0, 1}
    t.write(rows([2], [1], [9]))  # key 1 leaves partition 1, bucket 0
    t.write(rows([1], [7], [7]))  # the new key fills bucket 0 again
    assert key_buckets(t)[7] == (1, 0)


def key_buckets(t: Table) -> dict[int, tuple[Any, int]]:
    """pk -> (pt, bucket) of every live row."""
    snap = t.latest_snapshot()
    assert snap is not None
    out = {}
    for s in plan(t.store, snap):
        for k in read_split(t.store, s, list(t.store.schema.fields)).column("pk").to_pylist():
            out[k] = (s.partition_values[0], s.bucket)
    return out


def test_moves_inside_one_write(catalog: Catalog) -> None:
    """One write moving a key 1 -> 2 -> 1 -> 3: each move retracts the previous copy."""
    t = make(catalog)
    t.write(rows([1, 1], [1, 2], [0, 0]))
    t.write(rows([2, 1, 1, 3, 2], [1, 1, 2, 1, 2], [1, 2, 3, 4, 5]))
    assert content(t) == [(2, 2, 5), (3, 1, 4)]
    # a new key moving inside its first write
    t.write(rows([1, 2, 2], [9, 9, 9], [1, 2, 3]))
    assert (2, 9, 3) in content(t) and len([r for r in content(t) if r[1] == 9]) == 1


def test_bootstrap_from_disk(catalog: Catalog, tmp_path: Any) -> None:
    """A new catalog (a restarted writer) bootstraps the index from the table's keys."""
    t = make(catalog)
    t.write(rows([1, 1, 2], [1, 2, 3], [1, 2, 3]))
    t.write(rows([2], [1], [10]))
    again = Catalog(str(tmp_path / "warehouse")).get_table("db.t")
    again.write(rows([3, 3], [1, 3], [100, 300]))
    assert content(again) == [(1, 2, 2), (3, 1, 100), (3, 3, 300)]
    a = CrossPartitionAssigner(again.store, again.latest_snapshot())
    index = a.ensure_index()
    assert sorted(index.column("pk").to_pylist()) == [1, 2, 3]


def test_partial_update_keeps_old_partition(catalog: Catalog) -> None:
    t = make(catalog, **{"merge-engine": "partial-update"})
    t.write(rows([1, 1], [1, 2], [10, 20]))
    t.write(rows([2, 2], [1, 3], [None, 30]))
    assert content(t) == [(1, 1, 10), (1, 2, 20), (2, 3, 30)]
    t.write(rows([3, 2], [1, 2], [11, None]))
    assert content(t) == [(1, 1, 11), (1, 2, 20), (2, 3, 30)]


def test_aggregation_keeps_old_partition(catalog: Catalog) -> None:
    t = make(catalog, **{"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"})
    t.write(rows([1], [1], [10]))
    t.write(rows([2, 3], [1, 1], [5, 1]))
    assert content(t) == [(1, 1, 16)]


def test_first_row_drops_new_partition(catalog: Catalog) -> None:
    t = make(catalog, **{"merge-engine": "first-row"})
    t.write(rows([1, 2], [1, 1], [10, 20]))  # the first occurrence wins, inside one write too
    t.write(rows([2, 2], [1, 2], [30, 40]))
    t.compact(full=True)
    assert content(t) == [(1, 1, 10), (2, 2, 40)]


def test_sequence_field_refused(catalog: Catalog) -> None:
    with pytest.raises(ValidationError, match="You can not use sequence.field in cross partition update case"):
        make(catalog, **{"sequence.field": "v"})


def test_changelog_input_has_retraction(catalog: Catalog) -> None:
    t = make(catalog, **{"changelog-producer": "input"})
    t.write(rows([1], [1], [10]))
    sid = t.write(rows([2], [1], [20]))
    store = t.store
    snap = store.snapshots.snapshot(sid)
    got = []
    for split in changelog_splits(store, snap):
        for r in read_split(store, split, list(store.schema.fields), None, keep_row_kind=True).to_pylist():
            got.append((KIND_NAMES[r["_VALUE_KIND"]], r["pt"], r["pk"], r["v"]))
    assert sorted(got) == [("+I", 2, 1, 20), ("-D", 1, 1, 20)]


def test_index_ttl_skips_old_buckets(catalog: Catalog) -> None:
    """cross-partition-upsert.index-ttl: keys of buckets whose files are older are not indexed, so
    a row for them in another partition is a new key (Paimon's documented duplicate)."""
    t = make(catalog, **{"cross-partition-upsert.index-ttl": "1 ms"})
    t.write(rows([1], [1], [1]))
    time.sleep(0.05)
    t.write(rows([2], [1], [2]))
    assert content(t) == [(1, 1, 1), (2, 1, 2)]
    fresh = make(catalog, "db.t2", **{"cross-partition-upsert.index-ttl": "1 h"})
    fresh.write(rows([1], [1], [1]))
    fresh.write(rows([2], [1], [2]))
    assert content(fresh) == [(2, 1, 2)]


def test_multi_column_key_with_partition_column(catalog: Catalog) -> None:
    """Primary key (pk, dt) on a table partitioned by (dt, hr): the key moves between hours."""
    schema = pa.schema([("dt", pa.string()), ("hr", pa.int32()), ("pk", pa.int64()), ("v", pa.string())])
    t = catalog.create_table("db.k", schema, primary_keys=["pk", "dt"], partition_keys=["dt", "hr"])
    assert is_cross_partition(t.store)
    t.write(pa.table({"dt": ["a", "a", "b"], "hr": [1, 1, 1], "pk": [1, 2, 1], "v": ["x", "y", "z"]}, schema=schema))
    t.write(pa.table({"dt": ["a"], "hr": [2], "pk": [1], "v": ["w"]}, schema=schema))
    got = sorted(tuple(r.values()) for r in t.read().to_pylist())
    assert got == [("a", 1, 2, "y"), ("a", 2, 1, "w"), ("b", 1, 1, "z")]


# -- the model -------------------------------------------------------------------------------------
ENGINES = ["deduplicate", "partial-update", "aggregation"]

op = st.tuples(st.sampled_from(["+I", "+I", "+I", "-D"]), st.integers(0, 11), st.integers(0, 3), st.integers(0, 99))
commit = st.lists(st.lists(op, min_size=1, max_size=12), min_size=1, max_size=3)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(commits=st.lists(commit, min_size=1, max_size=5), reopen=st.lists(st.booleans(), min_size=5, max_size=5),
       target=st.integers(1, 4), assigners=st.integers(1, 3), small_buffer=st.booleans())
def test_model(tmp_path_factory: Any, engine: str, commits: list[list[list[tuple[str, int, int, int]]]],
               reopen: list[bool], target: int, assigners: int, small_buffer: bool) -> None:
    """Random upserts / deletes (deduplicate only) moving keys between partitions, each commit a
    few write() calls of one kind; sometimes a new catalog (restart) between commits. After each
    commit the table equals the dict model and no key is in two partitions; at the end a fresh
    bootstrap indexes exactly the model's keys and no bucket holds more than ``target`` keys."""
    warehouse = str(tmp_path_factory.mktemp("xpart") / "w")
    cat = Catalog(warehouse)
    cat.create_database("db")
    opts = {"merge-engine": engine, "dynamic-bucket.target-row-num": str(target),
            "dynamic-bucket.assigner-parallelism": str(assigners)}
    if engine == "aggregation":
        opts["fields.v.aggregate-function"] = "sum"
    if small_buffer:  # every write() call flushes: later flushes see the index the earlier ones updated
        opts["write-buffer-size"] = "1 b"
    t = make(cat, **opts)
    model: dict[int, tuple[int, int]] = {}  # pk -> (pt, v)
    for i, batches in enumerate(commits):
        if reopen[i % len(reopen)]:
            t = Catalog(warehouse).get_table("db.t")
        w = t.new_write()
        for batch in batches:
            if engine != "deduplicate":
                batch = [o for o in batch if o[0] == "+I"]
                if not batch:
                    continue
            kind = batch[0][0]
            same = [o for o in batch if o[0] == kind]
            w.write(rows([o[2] for o in same], [o[1] for o in same], [o[3] for o in same]), kind=ROW_KINDS[kind])
            for _, k, pt, v in same:
                if kind == "-D":
                    model.pop(k, None)
                elif engine == "deduplicate" or k not in model:
                    model[k] = (pt, v)
                elif engine == "partial-update":
                    model[k] = (model[k][0], v)
                else:
                    model[k] = (model[k][0], model[k][1] + v)
        t.commit_changes([w.prepare_commit()], False)
        got = content(t)
        assert got == sorted((pt, k, v) for k, (pt, v) in model.items())
        keys = [r[1] for r in got]
        assert len(keys) == len(set(keys))
    # every key is in exactly one bucket, and a fresh bootstrap agrees with the table
    a = CrossPartitionAssigner(t.store, t.latest_snapshot())
    index = a.ensure_index()
    assert sorted(index.column("pk").to_pylist()) == sorted(model)
    assert sum(sum(c.values()) for c in a.counts.values()) == len(model)
    assert all(np.asarray(list(c.values())).max(initial=0) <= max(target, 1) for c in a.counts.values())


def test_overwrite_moving_keys_out_of_other_partitions_is_refused(catalog: Catalog) -> None:
    """An overwrite replaces what it writes; retracting a key from a partition it does not write
    would either fall outside a static overwrite or, dynamic, overwrite that whole partition (and
    lose its other keys): refused, nothing written. Overwrites that keep keys in place work."""
    t = make(catalog)
    t.write(rows([1, 1, 2], [1, 2, 3], [1, 2, 3]))
    before = t.latest_snapshot()
    for overwrite in ({"pt": 2}, "dynamic", True):
        with pytest.raises(UnsupportedError, match="would move primary keys of partition pt=1"):
            t.write(rows([2], [1], [10]), overwrite=overwrite)  # type: ignore[arg-type]
    assert t.latest_snapshot() == before
    t.write(rows([2, 2], [3, 4], [30, 40]), overwrite={"pt": 2})
    assert content(t) == [(1, 1, 1), (1, 2, 2), (2, 3, 30), (2, 4, 40)]
    t.write(rows([1, 2], [2, 3], [20, 31]), overwrite="dynamic")  # key 2 from pt 1 into pt 2: both written
    assert content(t) == [(1, 2, 20), (2, 3, 31)]
    t.write(rows([5], [1], [1]), overwrite=True)
    assert content(t) == [(5, 1, 1)]


def test_index_ttl_duplicates_do_not_block_writes(catalog: Catalog) -> None:
    """A key left in two partitions by the index TTL: once both are indexed again (new files in
    the old bucket), writes go on and a move retracts the copy the index follows."""
    t = make(catalog, **{"cross-partition-upsert.index-ttl": "3 s", "dynamic-bucket.assigner-parallelism": "1"})
    t.write(rows([1, 1], [1, 2], [1, 2]))
    time.sleep(3.5)
    t.write(rows([2], [1], [10]))  # pt 1's bucket is older than the TTL: key 1 is new in pt 2
    assert content(t) == [(1, 1, 1), (1, 2, 2), (2, 1, 10)]
    t.write(rows([1, 2], [3, 4], [3, 4]))  # both buckets now hold fresh files: both indexed
    t.write(rows([3], [2], [20]))
    got = content(t)
    assert (3, 2, 20) in got and (1, 2, 2) not in got
    assert len([r for r in got if r[1] == 1]) in (1, 2)


def test_concurrent_writers(catalog: Catalog) -> None:
    """Two writers moving the same key both retract it from its old bucket: the second commit
    conflicts there (and Table.write would redo it on the new snapshot). Two writers adding the
    same NEW key to two partitions do not meet: the key is then in both, and the next write
    fails with the table named, as Paimon's bootstrap does, writing nothing."""
    t = make(catalog)
    t.write(rows([1], [1], [1]))
    w1, w2 = t.new_write(), t.new_write()
    w1.write(rows([2], [1], [2]))
    w2.write(rows([3], [1], [3]))
    c1, c2 = w1.prepare_commit(), w2.prepare_commit()
    t.commit_changes([c1], False)
    with pytest.raises(CommitConflictError):
        t.commit_changes([c2], False)
    assert content(t) == [(2, 1, 2)]
    w1, w2 = t.new_write(), t.new_write()
    w1.write(rows([2], [5], [5]))
    w2.write(rows([3], [5], [6]))
    c1, c2 = w1.prepare_commit(), w2.prepare_commit()
    t.commit_changes([c1], False)
    t.commit_changes([c2], False)
    before = t.latest_snapshot()
    with pytest.raises(ValidationError, match="db.t holds 1 primary keys in more than one bucket or partition"):
        t.write(rows([4], [9], [9]))
    assert t.latest_snapshot() == before


def test_two_tasks_of_one_write(catalog: Catalog) -> None:
    """A distributed write: two TableWrites (tasks) of disjoint keys, one commit. Each bootstraps
    the whole index but only looks up its own keys, which the other task never writes, so each
    retracts its moved keys exactly once."""
    t = make(catalog, **{"dynamic-bucket.target-row-num": "4"})
    t.write(rows([1] * 6 + [2] * 6, list(range(12)), list(range(12))))
    w1, w2 = t.new_write(), t.new_write()
    w1.write(rows([2, 3, 1], [0, 2, 4], [100, 102, 104]))  # even keys: 0 and 2 move
    w2.write(rows([1, 3, 2], [7, 9, 11], [107, 109, 111]))  # odd keys: 7 and 9 move
    t.commit_changes([w1.prepare_commit(), w2.prepare_commit()], False)
    got = {r[1]: (r[0], r[2]) for r in content(t)}
    assert len(content(t)) == 12
    assert got[0] == (2, 100) and got[2] == (3, 102) and got[4] == (1, 104)
    assert got[7] == (1, 107) and got[9] == (3, 109) and got[11] == (2, 111)
