"""Compaction of primary-key tables: writers compacting at their trigger (APPEND then COMPACT
snapshots), ``Table.compact`` (full and minor), every merge engine unchanged by compaction,
deletes dropped only at the highest level, and concurrent compactions."""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import WriteConflictError
from paimon_sql.meta.kinds import FileKind, FileSource

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("n", pa.int64())])


def _live(t: Any) -> list[Any]:
    return list(t.store.manifests.live_entries(t.latest_snapshot()))


def _rows(t: Any) -> dict[int, tuple[Any, ...]]:
    got = t.read().to_pylist()
    return {r["id"]: (r["v"], r["n"]) for r in got}


def _kinds(t: Any) -> list[str]:
    return [t.store.snapshots.snapshot(i).commit_kind for i in t.snapshot_ids()]


def _data_files_on_disk(t: Any) -> set[str]:
    out = set()
    for root, _, files in os.walk(t.path):
        if "/bucket-" in root + "/" and "/branch/" not in root:
            out.update(f for f in files if f.startswith("data-"))
    return out


def test_writer_compacts_at_trigger_and_commits_compact_snapshot(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    model: dict[int, tuple[Any, ...]] = {}
    rng = np.random.default_rng(1)
    for i in range(12):
        ids = sorted(set(int(x) for x in rng.integers(0, 200, 40)))
        t = catalog.get_table("db.t")
        t.write(pa.table({"id": ids, "v": [f"c{i}"] * len(ids), "n": [i] * len(ids)}))
        model.update({k: (f"c{i}", i) for k in ids})
        assert _rows(t) == model
        # universal compaction keeps the sorted runs at or below the trigger after each commit
        assert len(_live(t)) <= t.store.options.num_sorted_run_compaction_trigger
    kinds = _kinds(t)
    assert "COMPACT" in kinds
    # a compacting write makes its APPEND snapshot first, then the COMPACT one
    first = kinds.index("COMPACT")
    assert kinds[first - 1] == "APPEND"
    assert all(e.file.level > 0 or e.file.file_source == FileSource.APPEND for e in _live(t))
    # nothing but the live files and the files of older snapshots are on disk: no orphans of
    # intermediate compaction outputs
    referenced = set()
    for sid in t.snapshot_ids():
        referenced |= {e.file.file_name for e in t.store.manifests.live_entries(t.store.snapshots.snapshot(sid))}
    assert _data_files_on_disk(t) <= referenced


def test_write_only_never_compacts(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1", "write-only": "true"})
    for i in range(8):
        t = catalog.get_table("db.t")
        t.write(pa.table({"id": [1, 2, 3], "v": [str(i)] * 3, "n": [i] * 3}))
    assert set(_kinds(t)) == {"APPEND"}
    assert len(_live(t)) == 8
    assert _rows(t) == {k: ("7", 7) for k in (1, 2, 3)}


def test_full_compaction_drops_deletes_and_keeps_rows(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"], partition_keys=None,
                             options={"bucket": "2", "write-only": "true"})
    t.write(pa.table({"id": list(range(100)), "v": ["a"] * 100, "n": list(range(100))}))
    t = catalog.get_table("db.t")
    t.delete("id < 30")
    t = catalog.get_table("db.t")
    t.write(pa.table({"id": [50, 150], "v": ["b", "b"], "n": [0, 0]}))
    t = catalog.get_table("db.t")
    before = _rows(t)
    r = t.compact()
    assert r.snapshot_id is not None and r.compacted_buckets == 2
    t = catalog.get_table("db.t")
    assert t.latest_snapshot().commit_kind == "COMPACT"
    assert _rows(t) == before
    live = _live(t)
    assert len(live) == 2  # one file per bucket, at the highest level
    assert {e.file.level for e in live} == {t.store.options.num_levels - 1}
    assert all(e.file.file_source == FileSource.COMPACT for e in live)
    assert sum(e.file.row_count for e in live) == len(before)  # the deletes are gone
    assert all(e.file.delete_row_count == 0 for e in live)
    assert t.latest_snapshot().total_record_count == len(before)
    # a second full compaction has nothing to do
    assert catalog.get_table("db.t").compact().snapshot_id is None


def test_minor_compaction_picks_by_universal_rules(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1", "write-only": "true"})
    for i in range(3):
        t = catalog.get_table("db.t")
        t.write(pa.table({"id": [i], "v": ["x"], "n": [i]}))
    # three runs, below the trigger (5): a minor compaction picks nothing
    assert catalog.get_table("db.t").compact(full=False).snapshot_id is None
    for i in range(3, 6):
        t = catalog.get_table("db.t")
        t.write(pa.table({"id": [i], "v": ["x"], "n": [i]}))
    r = catalog.get_table("db.t").compact(full=False)
    assert r.snapshot_id is not None
    t = catalog.get_table("db.t")
    assert len(_live(t)) < 6
    assert _rows(t) == {i: ("x", i) for i in range(6)}


def _write_history(catalog: Catalog, name: str) -> None:
    rng = np.random.default_rng(3)
    for i in range(7):
        ids = sorted(set(int(x) for x in rng.integers(0, 60, 25)))
        v = [None if (k + i) % 3 == 0 else f"v{i}" for k in ids]
        n = [None if (k + i) % 4 == 0 else i + 1 for k in ids]
        catalog.get_table(name).write(pa.table({"id": ids, "v": v, "n": n}, schema=SCHEMA))


@pytest.mark.parametrize("engine_opts", [
    {"merge-engine": "deduplicate"},
    {"merge-engine": "partial-update"},
    {"merge-engine": "aggregation", "fields.n.aggregate-function": "sum",
     "fields.v.aggregate-function": "last_non_null_value"},
    {"merge-engine": "partial-update", "fields.n.sequence-group": "v"},
])
def test_every_engine_reads_the_same_after_compaction(catalog: Catalog, engine_opts: dict[str, str]) -> None:
    catalog.create_table("db.t", SCHEMA, primary_keys=["id"],
                         options={"bucket": "2", "write-only": "true", **engine_opts})
    _write_history(catalog, "db.t")
    before = _rows(catalog.get_table("db.t"))
    catalog.get_table("db.t").compact(full=False)
    assert _rows(catalog.get_table("db.t")) == before
    catalog.get_table("db.t").compact(full=True)
    assert _rows(catalog.get_table("db.t")) == before
    # and writing on top of the compacted table merges with it as before
    t = catalog.get_table("db.t")
    t.write(pa.table({"id": [1, 2], "v": ["new", None], "n": [5, None]}, schema=SCHEMA))
    catalog.create_table("db.ref", SCHEMA, primary_keys=["id"],
                         options={"bucket": "2", "write-only": "true", **engine_opts})
    _write_history(catalog, "db.ref")  # the same history without any compaction
    catalog.get_table("db.ref").write(pa.table({"id": [1, 2], "v": ["new", None], "n": [5, None]}, schema=SCHEMA))
    assert _rows(catalog.get_table("db.t")) == _rows(catalog.get_table("db.ref"))


def test_compact_partitions_and_where(catalog: Catalog) -> None:
    schema = pa.schema([("dt", pa.string()), ("id", pa.int64()), ("v", pa.string())])
    t = catalog.create_table("db.p", schema, primary_keys=["dt", "id"], partition_keys=["dt"],
                             options={"bucket": "1", "write-only": "true"})
    for i in range(3):
        t = catalog.get_table("db.p")
        t.write(pa.table({"dt": ["a", "b", "c"], "id": [1, 1, 1], "v": [str(i)] * 3}))

    def files_in(dt: str) -> int:
        tt = catalog.get_table("db.p")
        return sum(1 for e in _live(tt) if e.partition == _live_partition(tt, dt))

    catalog.get_table("db.p").compact(partitions=[{"dt": "a"}])
    assert (files_in("a"), files_in("b"), files_in("c")) == (1, 3, 3)
    catalog.get_table("db.p").compact(where="dt = 'b'")
    assert (files_in("a"), files_in("b"), files_in("c")) == (1, 1, 3)
    with pytest.raises(Exception, match="Only partition predicate"):
        catalog.get_table("db.p").compact(where="v = '1'")
    assert files_in("c") == 3


@pytest.mark.parametrize("options", [
    {"primary-key": "id,dt,hh", "bucket": "1"},
    {"bucket": "-1", "compaction.min.file-num": "2"},
], ids=["pk", "unaware-append"])
def test_compact_partition_idle_time(catalog: Catalog, options: dict[str, str]) -> None:
    """Paimon's 'compact with partition_idle_time' tests (pk and unaware-bucket append tables), with
    a 1 s idle time instead of 10 s: the partitions written after the pause keep their files."""
    import time

    pk = options.pop("primary-key", None)
    schema = pa.schema([pa.field("id", pa.int32(), nullable=pk is None), ("value", pa.string()),
                        pa.field("dt", pa.string(), nullable=pk is None), pa.field("hh", pa.int32(), nullable=pk is None)])
    t = catalog.create_table("db.t", schema, primary_keys=pk.split(",") if pk else None, partition_keys=["dt", "hh"],
                             options={"write-only": "true", **options})
    for rows in ([(1, "2024-01-01", 0), (2, "2024-01-01", 1)], [(5, "2024-01-02", 0), (6, "2024-01-02", 1)],
                 [(3, "2024-01-01", 0), (4, "2024-01-01", 1)], [(7, "2024-01-02", 0), (8, "2024-01-02", 1)],
                 None, [(9, "2024-01-01", 0), (10, "2024-01-02", 0)]):
        if rows is None:
            time.sleep(1.2)
            continue
        t.write(pa.table({"id": pa.array([r[0] for r in rows], pa.int32()), "value": [str(r[0]) for r in rows],
                          "dt": [r[1] for r in rows], "hh": pa.array([r[2] for r in rows], pa.int32())}))
    with pytest.raises(Exception, match="partition_idle_time"):
        t.compact(partition_idle_time="soon")
    t.compact(partition_idle_time="1 s")
    assert _kinds(t)[-1] == "COMPACT"
    files: dict[tuple[str, int], int] = {}
    for e in _live(t):
        dt, hh = _decode(t, e)
        files[(dt, hh)] = files.get((dt, hh), 0) + 1
    assert files == {("2024-01-01", 0): 3, ("2024-01-01", 1): 1, ("2024-01-02", 0): 3, ("2024-01-02", 1): 1}
    assert sorted(r["id"] for r in t.read().to_pylist()) == list(range(1, 11))


def _decode(t: Any, e: Any) -> tuple[Any, ...]:
    from paimon_sql.format.binary_row import decode_row

    return tuple(decode_row(e.partition, t.store.partition_types))


def _live_partition(t: Any, dt: str) -> bytes:
    from paimon_sql.format.binary_row import encode_row

    return encode_row([dt], t.store.partition_types)


def test_two_compactions_of_one_bucket_one_wins(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1", "write-only": "true"})
    for i in range(4):
        t = catalog.get_table("db.t")
        t.write(pa.table({"id": [1, 2, i + 10], "v": [str(i)] * 3, "n": [i] * 3}))
    expected = _rows(catalog.get_table("db.t"))
    from paimon_sql.write.commit import CommitRequest, commit
    from paimon_sql.write.table_write import TableWrite

    a, b = catalog.get_table("db.t"), catalog.get_table("db.t")
    wa, wb = TableWrite(a.store, a.latest_snapshot()), TableWrite(b.store, b.latest_snapshot())
    ca, cb = wa.compact(full=True), wb.compact(full=True)
    commit(a.store, CommitRequest("COMPACT", tuple(ca.compact_entries), base=wa.write_base))
    with pytest.raises(WriteConflictError):
        commit(b.store, CommitRequest("COMPACT", tuple(cb.compact_entries), base=wb.write_base))
    wb.abort()
    t = catalog.get_table("db.t")
    assert _rows(t) == expected
    assert _data_files_on_disk(t) >= {e.file.file_name for e in _live(t)}
    assert not ({e.file.file_name for e in cb.compact_entries if e.kind == FileKind.ADD} & _data_files_on_disk(t))


def test_compaction_conflicting_with_a_concurrent_write_is_dropped(catalog: Catalog, caplog: Any) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    for i in range(4):
        t = catalog.get_table("db.t")
        t.write(pa.table({"id": [i], "v": ["a"], "n": [i]}))
    # a writer opened now will compact (5 runs) when it commits; another commit lands first
    slow = catalog.get_table("db.t").new_write()
    slow.write(pa.table({"id": [100], "v": ["slow"], "n": [0]}))
    catalog.get_table("db.t").copy({"write-only": "true"}).write(pa.table({"id": [200], "v": ["fast"], "n": [0]}))
    changes = slow.prepare_commit()
    assert changes.compact_entries
    with caplog.at_level(logging.WARNING):
        catalog.get_table("db.t").commit_changes([changes])
    assert "compaction is not committed" in caplog.text
    t = catalog.get_table("db.t")
    assert _rows(t) == {0: ("a", 0), 1: ("a", 1), 2: ("a", 2), 3: ("a", 3), 100: ("slow", 0), 200: ("fast", 0)}
    assert t.latest_snapshot().commit_kind == "APPEND"
    compact_outputs = {e.file.file_name for e in changes.compact_entries if e.kind == FileKind.ADD}
    assert not (compact_outputs - {e.file.file_name for e in changes.entries}) & _data_files_on_disk(t)


def test_append_compaction_unaware_and_fixed_bucket(catalog: Catalog) -> None:
    for name, opts in (("db.u", {}), ("db.f", {"bucket": "2", "bucket-key": "id"})):
        t = catalog.create_table(name, SCHEMA, options=opts)
        expected: list[dict[str, Any]] = []
        for i in range(6):
            t = catalog.get_table(name)
            rows = [{"id": i * 10 + j, "v": str(i), "n": j} for j in range(4)]
            t.write(pa.Table.from_pylist(rows, schema=SCHEMA))
            expected += rows
        before = len(_live(t))
        r = catalog.get_table(name).compact()
        t = catalog.get_table(name)
        assert r.snapshot_id is not None and t.latest_snapshot().commit_kind == "COMPACT"
        assert len(_live(t)) < before
        assert sorted(t.read().to_pylist(), key=lambda x: x["id"]) == expected
        # per bucket, the rows keep their write order and sequence numbers stay unique
        for e in _live(t):
            assert e.file.file_source == FileSource.COMPACT
        # a concurrent append does not stop an append compaction
        catalog.get_table(name).write(pa.table({"id": [999], "v": ["x"], "n": [0]}))
        assert catalog.get_table(name).read().num_rows == len(expected) + 1


def test_first_row_tables_are_writable_and_keep_the_first_row(catalog: Catalog) -> None:
    t = catalog.create_table("db.fr", SCHEMA, primary_keys=["id"],
                             options={"bucket": "2", "merge-engine": "first-row"})
    t.write(pa.table({"id": [1, 2, 3], "v": ["a", "a", "a"], "n": [1, 1, 1]}))
    # batch reads skip level 0: the write moved its files up at once
    assert _rows(catalog.get_table("db.fr")) == {1: ("a", 1), 2: ("a", 1), 3: ("a", 1)}
    for i in range(6):
        catalog.get_table("db.fr").write(pa.table({"id": [2, 3, 10 + i], "v": ["b"] * 3, "n": [i] * 3}))
    t = catalog.get_table("db.fr")
    expected = {1: ("a", 1), 2: ("a", 1), 3: ("a", 1), **{10 + i: ("b", i) for i in range(6)}}
    assert _rows(t) == expected
    ids = t.read().column("id").to_pylist()  # a key lives in one file only (reads do not merge levels)
    assert len(ids) == len(set(ids))
    assert all(e.file.level > 0 for e in _live(t))
    with pytest.raises(Exception, match="first-row"):
        t.delete("id = 1")


def test_optimization_interval_counts_from_the_last_full_compaction(catalog: Catalog) -> None:
    """With compaction.optimization-interval a writer compacts fully when the newest file of the
    highest level (Paimon's estimate of the last full compaction) is older than the interval, or
    when there is none: the first write with two runs compacts fully, later ones within the
    interval do not, and once the interval passed the next write does again."""
    catalog.create_table("db.t", SCHEMA, primary_keys=["id"],
                         options={"bucket": "1", "compaction.optimization-interval": "1 h"})
    for i in range(2):
        catalog.get_table("db.t").write(pa.table({"id": [i, 100], "v": [str(i)] * 2, "n": [i] * 2}))
    t = catalog.get_table("db.t")
    top = t.store.options.num_levels - 1
    assert [e.file.level for e in _live(t)] == [top]  # one run alone is never compacted; two are
    catalog.get_table("db.t").write(pa.table({"id": [2], "v": ["2"], "n": [2]}))
    assert sorted(e.file.level for e in _live(catalog.get_table("db.t"))) == [0, top]  # within the interval
    # an hour later (the top file's creation time moved back), the next write compacts fully
    from paimon_sql.write import bucket_writer

    real = bucket_writer.universal_compaction

    def an_hour_later(store: Any, restored: Any = ()) -> Any:
        u = real(store, restored)
        assert u.early_full is not None and u.early_full.last_full_compaction is not None
        u.early_full.last_full_compaction -= 2 * 3600 * 1000
        return u

    bucket_writer.universal_compaction = an_hour_later  # type: ignore[assignment]
    try:
        catalog.get_table("db.t").write(pa.table({"id": [3], "v": ["3"], "n": [3]}))
    finally:
        bucket_writer.universal_compaction = real
    assert [e.file.level for e in _live(catalog.get_table("db.t"))] == [top]
    assert _rows(catalog.get_table("db.t")) == {0: ("0", 0), 1: ("1", 1), 2: ("2", 2), 3: ("3", 3), 100: ("1", 1)}
