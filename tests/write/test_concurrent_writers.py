"""Several processes write one table at once: the final content and EVERY snapshot equal the replay
of the successful calls in commit order (a model of the merge engine), for fixed and dynamic
buckets, primary-key and append tables; a schema change under a writer; 8 appenders that all get
their commit in."""

from __future__ import annotations

import datetime as _dt
import json
import multiprocessing as mp
import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import CommitConflictError, WriteConflictError
from paimon_sql.table.table import Table

SCHEMA = pa.schema([("k", pa.int64()), ("v", pa.string()), ("n", pa.int64())])
SLOWEST: list[float] = []  # the slowest call of each writer process (seconds), for the record


def _worker(warehouse: str, table: str, wid: int, calls: int, keys: list[int], rows_per_call: int,
            seed: int, out: str, barrier: Any) -> None:
    """One writer process: ``calls`` writes of random rows (keys drawn from ``keys``) through one
    long-lived table handle; records (snapshot id, rows) of each successful call."""
    rng = random.Random(seed)
    t = Catalog(warehouse).get_table(table)
    assert isinstance(t, Table)
    done: list[dict[str, Any]] = []
    failures: list[str] = []
    slowest = 0.0
    barrier.wait()
    for c in range(calls):
        ks = [rng.choice(keys) for _ in range(rows_per_call)]
        rows = {"k": ks, "v": [f"w{wid}c{c}i{i}" for i in range(len(ks))], "n": [rng.randint(1, 9) for _ in ks]}
        started = time.monotonic()
        try:
            sid = t.write(pa.table(rows, schema=SCHEMA))
        except CommitConflictError as e:
            failures.append(str(e))
            continue
        finally:
            slowest = max(slowest, time.monotonic() - started)
        done.append({"sid": sid, "rows": rows})
    Path(out).write_text(json.dumps({"done": done, "failures": failures, "slowest": slowest}))


def _maintainer(warehouse: str, table: str, retain: int, out: str, barrier: Any, stop: Any) -> None:
    """A maintenance process: full compactions and snapshot expiry (keeping ``retain``) one after
    the other until ``stop``; records how many of each landed and the errors' types."""
    t = Catalog(warehouse).get_table(table)
    assert isinstance(t, Table)
    landed = {"compact": 0, "expire": 0}
    errors: list[str] = []
    barrier.wait()
    while not stop.is_set():
        try:
            t.maintenance.compact(full=True)
            landed["compact"] += 1
        except CommitConflictError as e:
            errors.append(type(e).__name__)
        t.snapshots.expire(retain_max=retain, retain_min=1)
        landed["expire"] += 1
    Path(out).write_text(json.dumps({"landed": landed, "errors": errors}))


def _reader(warehouse: str, table: str, retain: int, out: str, barrier: Any, stop: Any) -> None:
    """A reader process: reads the latest snapshot over and over until ``stop`` (every read whole:
    no key twice); records how many reads it made."""
    t = Catalog(warehouse).get_table(table)
    assert isinstance(t, Table)
    reads = 0
    barrier.wait()
    while not stop.is_set():
        _dedup_rows(t.read())
        reads += 1
    Path(out).write_text(json.dumps({"reads": reads}))


def _run_writers(tmp_path: Path, table: str, n: int, calls: int, keys: Callable[[int], list[int]],
                 rows_per_call: int, maintain: int | None = None,
                 maintainers: int = 1) -> tuple[list[dict[str, Any]], list[str]]:
    """``n`` writer processes; with ``maintain``, ``maintainers`` more that compact and expire
    (keeping ``maintain`` snapshots) and one that reads while they write (their reports in
    ``maintainer-<i>.json`` and ``reader.json``)."""
    ctx = mp.get_context("spawn")  # no fork of a process that may hold a JVM
    extra = [] if maintain is None else [(_maintainer, f"maintainer-{i}") for i in range(maintainers)] + [
        (_reader, "reader")]
    barrier = ctx.Barrier(n + len(extra))
    stop = ctx.Event()
    running = [ctx.Process(target=target, args=(str(tmp_path / "wh"), table, maintain or 0,
                                                str(tmp_path / f"{name}.json"), barrier, stop))
               for target, name in extra]
    for m in running:
        m.start()
    procs = []
    for w in range(n):
        out = tmp_path / f"writer-{w}.json"
        p = ctx.Process(target=_worker, args=(str(tmp_path / "wh"), table, w, calls, keys(w),
                                              rows_per_call, 1000 + w, str(out), barrier))
        p.start()
        procs.append((p, out))
    done, failures = [], []
    try:
        for p, out in procs:
            p.join(timeout=240)
            assert p.exitcode == 0, f"writer process failed with exit code {p.exitcode}"
            result = json.loads(out.read_text())
            done += result["done"]
            failures += result["failures"]
            SLOWEST.append(result["slowest"])
    finally:  # the maintainers run until told to stop, whatever became of the writers
        stop.set()
        for m in running:
            m.join(timeout=240)
            if m.exitcode is None:
                m.kill()
    for m in running:
        assert m.exitcode == 0, f"maintenance or reader process failed with exit code {m.exitcode}"
    done.sort(key=lambda d: d["sid"])
    return done, failures


def _dedup_model(calls: list[dict[str, Any]]) -> dict[int, tuple[str, int]]:
    state: dict[int, tuple[str, int]] = {}
    for c in calls:
        for k, v, n in zip(c["rows"]["k"], c["rows"]["v"], c["rows"]["n"]):
            state[k] = (v, n)
    return state


def _agg_model(calls: list[dict[str, Any]]) -> dict[int, tuple[str, int]]:
    """last_value(v), sum(n) per key, in commit order."""
    state: dict[int, tuple[str, int]] = {}
    for c in calls:
        for k, v, n in zip(c["rows"]["k"], c["rows"]["v"], c["rows"]["n"]):
            state[k] = (v, state.get(k, ("", 0))[1] + n)
    return state


def _check_every_snapshot(t: Table, done: list[dict[str, Any]], model: Callable[[list[dict[str, Any]]], Any],
                          rows_of: Callable[[pa.Table], Any], every: int = 1) -> int:
    """Every snapshot (``every`` > 1: every so many, and the last) is the replay of the calls that
    committed up to it; every compaction changes no row."""
    sids = [d["sid"] for d in done]
    assert len(set(sids)) == len(sids), "two calls report the same snapshot"
    kinds = {s: t.store.snapshots.snapshot(s).commit_kind for s in t.snapshot_ids()}
    data = [s for s, k in kinds.items() if k != "COMPACT"]
    assert sorted(sids) == data, "every snapshot but the writers' compactions is one successful call"
    for s, k in kinds.items():  # a compaction changes no row
        if k == "COMPACT" and (every == 1 or s % every == 0):
            assert rows_of(t.read(snapshot_id=s)) == rows_of(t.read(snapshot_id=s - 1)), f"compaction {s}"
    for i, sid in enumerate(sids):
        if every > 1 and i % every and i != len(sids) - 1:
            continue
        got = rows_of(t.read(snapshot_id=sid))
        assert got == model(done[: i + 1]), f"snapshot {sid} differs from the replay of the first {i + 1} calls"
    assert rows_of(t.read()) == model(done)
    return len(sids)


def _dedup_rows(table: pa.Table) -> dict[int, tuple[str, int]]:
    ks = table.column("k").to_pylist()
    assert len(ks) == len(set(ks)), "a key was read twice (it lives in two buckets)"
    return {k: (v, n) for k, v, n in zip(ks, table.column("v").to_pylist(), table.column("n").to_pylist())}


@pytest.mark.parametrize("bucket", ["2", "-1"])
def test_concurrent_upserts_replay_in_commit_order(tmp_path: Path, bucket: str) -> None:
    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA, primary_keys=["k"],
                     options={"bucket": bucket, "dynamic-bucket.target-row-num": "16"})
    # fixed buckets: every writer upserts the same 40 keys; dynamic: overlapping ranges, so new keys
    # keep arriving in new buckets while others assign them too
    keys = (lambda w: list(range(40))) if bucket == "2" else (lambda w: list(range(w * 25, w * 25 + 60)))
    done, failures = _run_writers(tmp_path, "db.t", 5, 6, keys, 24)
    assert failures == []
    t = cat.get_table("db.t")
    assert isinstance(t, Table)
    assert _check_every_snapshot(t, done, _dedup_model, _dedup_rows) == 30


def test_concurrent_aggregation_replays_in_commit_order(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA, primary_keys=["k"], options={
        "bucket": "1", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum",
        "fields.v.aggregate-function": "last_value"})
    done, failures = _run_writers(tmp_path, "db.t", 4, 5, lambda w: list(range(20)), 16)
    assert failures == []
    t = cat.get_table("db.t")
    assert isinstance(t, Table)

    assert _check_every_snapshot(t, done, _agg_model, _dedup_rows) == 20


def test_eight_concurrent_appenders_all_commit(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA)
    done, failures = _run_writers(tmp_path, "db.t", 8, 6, lambda w: list(range(1000)), 10)
    assert failures == [], failures[:3]
    t = cat.get_table("db.t")
    assert isinstance(t, Table)

    def multiset(calls: list[dict[str, Any]]) -> Counter[tuple[int, str]]:
        return Counter((k, v) for c in calls for k, v in zip(c["rows"]["k"], c["rows"]["v"]))

    def rows(table: pa.Table) -> Counter[tuple[int, str]]:
        return Counter(zip(table.column("k").to_pylist(), table.column("v").to_pylist()))

    assert _check_every_snapshot(t, done, multiset, rows) == 48


def test_a_handle_opened_before_a_bucket_change_writes_with_the_new_layout(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    old = cat.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "2"})
    stale_writer = old.new_write()  # a distributed task planned before the change
    stale_writer.write(pa.table({"k": [1, 2], "v": ["s", "s"], "n": [1, 1]}, schema=SCHEMA))
    stale_changes = stale_writer.prepare_commit()
    cat.get_table("db.t").alter(set_options={"bucket": "3"})  # type: ignore[union-attr]
    keys = list(range(100))
    old.write(pa.table({"k": keys, "v": ["a"] * 100, "n": [1] * 100}, schema=SCHEMA))  # redone with 3
    new = cat.get_table("db.t")
    assert isinstance(new, Table)
    new.write(pa.table({"k": keys, "v": ["b"] * 100, "n": [2] * 100}, schema=SCHEMA))
    got = new.read()
    assert got.num_rows == 100 and set(got.column("v").to_pylist()) == {"b"}
    assert {e.total_buckets for e in new.store.manifests.live_entries(new.latest_snapshot())} == {3}  # type: ignore[arg-type]
    with pytest.raises(WriteConflictError, match="schema"):
        old.commit_changes([stale_changes])
    assert not any(Path(p).exists() for p in stale_changes.written_paths)
    assert new.snapshot_ids() == [1, 2]


def test_a_stream_input_that_lost_a_race_fails_and_leaves_nothing(tmp_path: Path) -> None:
    """A dynamic-bucket write that lost the race must be written again (its keys' buckets came from
    an index that changed): a stream input, consumed by then, fails and leaves nothing."""
    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    t = cat.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "-1"})
    other = cat.get_table("db.t")
    assert isinstance(other, Table)

    def batches() -> Any:
        yield pa.record_batch({"k": [1], "v": ["mine"], "n": [1]}, schema=SCHEMA)
        other.write(pa.table({"k": [1], "v": ["theirs"], "n": [2]}, schema=SCHEMA))  # commits meanwhile

    with pytest.raises(WriteConflictError, match="stream"):
        t.write(batches())
    assert len(list((tmp_path / "wh").rglob("data-*"))) == 1  # only the concurrent commit's file
    assert t.read().column("v").to_pylist() == ["theirs"]
    assert t.snapshot_ids() == [1]


def test_a_stream_input_that_lost_the_sequence_race_is_renumbered(tmp_path: Path) -> None:
    """A fixed-bucket write that lost only the sequence-number race is renumbered on the new
    snapshot: a stream input need not be read again, the write lands after the other one."""
    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    t = cat.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    other = cat.get_table("db.t")
    assert isinstance(other, Table)

    def batches() -> Any:
        yield pa.record_batch({"k": [1], "v": ["mine"], "n": [1]}, schema=SCHEMA)
        other.write(pa.table({"k": [1], "v": ["theirs"], "n": [2]}, schema=SCHEMA))  # commits meanwhile

    assert t.write(batches()) == 2
    assert t.read().column("v").to_pylist() == ["mine"]
    assert len(list((tmp_path / "wh").rglob("data-*"))) == 2  # the renumbered file replaced the first


def test_six_writers_on_overlapping_keys_never_give_up(tmp_path: Path) -> None:
    """Six processes, 30 writes each (180 in all), every write upserting keys the others write in
    the same bucket: each write that loses a race is redone on the new snapshot until it lands, so
    no call gives up; every snapshot is the replay of the successful calls (no row lost, none
    duplicated: a key is read once)."""
    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    done, failures = _run_writers(tmp_path, "db.t", 6, 30, lambda w: list(range(30)), 8)
    assert failures == [], failures[:3]
    t = cat.get_table("db.t")
    assert isinstance(t, Table)
    assert _check_every_snapshot(t, done, _dedup_model, _dedup_rows, every=9) == 180
    print(f"slowest write: {max(SLOWEST[-6:]):.2f} s")


@pytest.mark.parametrize(("bucket", "maintainers"), [("2", 1), ("-1", 2)])
def test_writers_racing_compaction_and_snapshot_expiry_lose_nothing(
    tmp_path: Path, bucket: str, maintainers: int
) -> None:
    """Three writers upsert while other processes compact the table fully and expire every
    snapshot but the newest, over and over (with ``snapshot.clean-empty-directories``), and one
    reads the latest snapshot over and over: the snapshots, manifests and files a writer or reader
    based its work on vanish under it. Every write lands (a write whose base expired, or whose
    files to compact were compacted away and deleted, is redone on the latest snapshot; a commit
    that read a snapshot being expired starts again), every read returns a whole snapshot, the
    snapshots that are left are the replay of the writes before them, and no file is orphaned."""
    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA, primary_keys=["k"], options={
        "bucket": bucket, "dynamic-bucket.target-row-num": "16", "snapshot.clean-empty-directories": "true"})
    done, failures = _run_writers(tmp_path, "db.t", 3, 15, lambda w: list(range(40)), 12, maintain=1,
                                  maintainers=maintainers)
    assert failures == [], failures[:3]
    sids = [d["sid"] for d in done]
    assert len(done) == 45 and len(set(sids)) == 45, f"two writes report one snapshot: {sorted(sids)}"
    for i in range(maintainers):  # a compaction that loses a race is refused; anything else fails the process
        report = json.loads((tmp_path / f"maintainer-{i}.json").read_text())
        assert report["landed"]["compact"] > 0 and report["landed"]["expire"] > 0, report
        assert set(report["errors"]) <= {"WriteConflictError", "CommitConflictError"}, report
    assert json.loads((tmp_path / "reader.json").read_text())["reads"] > 0  # none failed: it would have exited
    t = cat.get_table("db.t")
    assert isinstance(t, Table)
    for sid in t.snapshot_ids():
        before = [d for d in done if d["sid"] <= sid]
        assert _dedup_rows(t.read(snapshot_id=sid)) == _dedup_model(before), f"snapshot {sid}"
    assert _dedup_rows(t.read()) == _dedup_model(done)
    orphans = t.maintenance.remove_orphan_files(
        older_than=_dt.datetime.now() + _dt.timedelta(minutes=1), dry_run=True)
    assert orphans.deleted == (), orphans.deleted[:5]
