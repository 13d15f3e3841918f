"""Snapshot expiry (ops/expire.py): Paimon's retention rules, tags and consumers protecting files,
what is deleted and what is kept, gaps, dry runs and bad arguments."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.errors import NotFoundError, ValidationError
from paimon_sql.meta.file_store import FileStore
from paimon_sql.ops.expire import ExpireResult, expire_snapshots
from paimon_sql.ops.file_refs import FileRefs, tagged_snapshots
from paimon_sql.ops.tags import create_tag, delete_tag

FAR_FUTURE = "2999-01-01 00:00:00"


def _table(catalog: Catalog, name: str = "db.t", **options: str) -> Table:
    t = catalog.create_table(name, pa.schema([("id", pa.int64()), ("v", pa.string())]), options=options or None)
    assert isinstance(t, Table)
    return t


def _write(t: Table, ids: list[int], overwrite: bool = False) -> int:
    sid = t.write(pa.table({"id": ids, "v": [str(i) for i in ids]}), overwrite=overwrite)
    time.sleep(0.003)  # distinct commit times
    return sid


def _rows(t: Table, **kw: object) -> list[int]:
    return sorted(t.read(**kw)["id"].to_pylist())  # type: ignore[arg-type]


def _ts(t: Table, sid: int) -> str:
    """Snapshot ``sid``'s commit time as a local timestamp string (what ``older_than`` takes)."""
    ms = t.snapshot(sid).time_millis
    return dt.datetime.fromtimestamp(ms / 1000).isoformat(sep=" ", timespec="milliseconds")


def _files(t: Table) -> set[str]:
    """Every file under the table folder (relative), but hints and schema/snapshot/tag files."""
    root = Path(t.path)
    return {
        str(p.relative_to(root)) for p in root.rglob("*")
        if p.is_file() and p.parent.name not in ("schema", "snapshot", "tag", "consumer")
    }


def referenced(store: FileStore) -> set[str]:
    """Files (relative to the table folder) the snapshots and tags of ``store`` reference."""
    refs = FileRefs(store)
    snaps = [store.snapshots.snapshot(i) for i in store.snapshots.snapshot_ids()]
    snaps += [s for s, _ in tagged_snapshots(store.tags)]
    out: set[str] = set()
    root = store.path.rstrip("/") + "/"
    for s in snaps:
        for ref in refs.live(s).values():
            out.update(f.path[len(root):] for f in refs.data_paths(ref))
        for name in refs.metadata_names(s):
            if name.startswith("index-") and not name.startswith("index-manifest"):
                out.add(f"index/{name}")
            else:
                out.add(f"manifest/{name}")
    return out


def _history(t: Table, n: int) -> list[list[int]]:
    """``n`` snapshots alternating appends and overwrites (so deltas delete files); returns the
    rows of every snapshot."""
    rows: list[list[int]] = []
    current: list[int] = []
    for i in range(1, n + 1):
        if i % 3 == 0:
            current = [i]
            _write(t, [i], overwrite=True)
        else:
            current = current + [i]
            _write(t, [i])
        rows.append(sorted(current))
    return rows


# ----------------------------------------------------------------------------------------------
# which snapshots go
# ----------------------------------------------------------------------------------------------


def test_retain_max_expires_regardless_of_age(catalog: Catalog) -> None:
    t = _table(catalog)
    rows = _history(t, 3)
    r = expire_snapshots(t.store, retain_max=2, retain_min=1)
    assert isinstance(r, ExpireResult)
    assert (r.deleted_snapshots, r.expired_snapshot_ids, r.earliest_snapshot_id) == (1, (1,), 2)
    assert t.snapshot_ids() == [2, 3]
    assert Path(t.path, "snapshot", "EARLIEST").read_text() == "2"
    assert _rows(t) == rows[-1] and _rows(t, snapshot_id=2) == rows[1]
    with pytest.raises(NotFoundError, match="Snapshot 1 of table db.t"):
        t.read(snapshot_id=1)


def test_time_retention_keeps_young_snapshots(catalog: Catalog) -> None:
    t = _table(catalog)
    _history(t, 5)
    # the default: younger than one hour, nothing goes (beyond retain_max would)
    r = expire_snapshots(t.store, retain_min=1)
    assert r.deleted_snapshots == 0 and t.snapshot_ids() == [1, 2, 3, 4, 5]
    # a snapshot goes when the one after it is older than the bound
    r = expire_snapshots(t.store, retain_min=1, older_than=_ts(t, 3))
    assert r.expired_snapshot_ids == (1,) and t.snapshot_ids() == [2, 3, 4, 5]
    # the table's snapshot.time-retained, measured from now
    later = t.snapshot(5).time_millis + 3_600_000 + 1
    r = expire_snapshots(t.store, retain_min=1, now_ms=later)
    assert r.expired_snapshot_ids == (2, 3, 4) and t.snapshot_ids() == [5]


def test_min_max_and_time_together(catalog: Catalog) -> None:
    t = _table(catalog)
    rows = _history(t, 10)
    # retain_max 6: 1..4 go whatever their age; time: 5 goes too (6 is older than snapshot 7);
    # retain_min 2 would protect 9 and 10 only
    r = expire_snapshots(t.store, retain_max=6, retain_min=2, older_than=_ts(t, 7))
    assert r.expired_snapshot_ids == (1, 2, 3, 4, 5)
    assert t.snapshot_ids() == [6, 7, 8, 9, 10]
    # retain_min wins over any time bound
    r = expire_snapshots(t.store, retain_max=6, retain_min=2, older_than=FAR_FUTURE)
    assert r.expired_snapshot_ids == (6, 7, 8) and t.snapshot_ids() == [9, 10]
    assert _rows(t) == rows[-1] and _rows(t, snapshot_id=9) == rows[8]


def test_expire_limit(catalog: Catalog) -> None:
    t = _table(catalog)
    _history(t, 8)
    r = expire_snapshots(t.store, retain_min=1, older_than=FAR_FUTURE, max_deletes=3)
    assert r.expired_snapshot_ids == (1, 2, 3)
    r = expire_snapshots(t.store, retain_min=1, older_than=FAR_FUTURE, max_deletes=3)
    assert r.expired_snapshot_ids == (4, 5, 6)
    r = expire_snapshots(t.store, retain_min=1, older_than=FAR_FUTURE, max_deletes=0)
    assert r.deleted_snapshots == 0 and t.snapshot_ids() == [7, 8]


def test_consumer_blocks_expiry(catalog: Catalog) -> None:
    t = _table(catalog)
    _history(t, 6)
    folder = Path(t.path, "consumer")
    folder.mkdir()
    (folder / "consumer-slow").write_text(json.dumps({"nextSnapshot": 3}))
    (folder / "consumer-fast").write_text(json.dumps({"nextSnapshot": 6}))
    r = expire_snapshots(t.store, retain_max=1, retain_min=1)
    assert r.expired_snapshot_ids == (1, 2) and t.snapshot_ids() == [3, 4, 5, 6]
    (folder / "consumer-slow").unlink()
    r = expire_snapshots(t.store, retain_max=1, retain_min=1)
    assert r.expired_snapshot_ids == (3, 4, 5)


# ----------------------------------------------------------------------------------------------
# what is deleted
# ----------------------------------------------------------------------------------------------


def test_expiry_deletes_exactly_what_nothing_references(catalog: Catalog) -> None:
    t = _table(catalog)
    rows = _history(t, 12)
    before = _files(t)
    assert before == referenced(t.store) | (before - referenced(t.store))
    r = expire_snapshots(t.store, retain_max=3, retain_min=1)
    assert r.expired_snapshot_ids == tuple(range(1, 10))
    after = _files(t)
    assert after == referenced(t.store)  # nothing leaked, nothing referenced missing
    assert r.deleted_data_files > 0 and r.deleted_manifests > 0 and r.deleted_bytes > 0
    assert r.deleted_data_files + r.deleted_manifests == len(before - after)
    sizes = sum(os.path.getsize(Path(t.path, "snapshot", f"snapshot-{i}")) for i in t.snapshot_ids())
    assert sizes > 0
    for sid, want in zip(range(10, 13), rows[9:]):
        assert _rows(t, snapshot_id=sid) == want


def test_dry_run_reports_and_deletes_nothing(catalog: Catalog) -> None:
    t = _table(catalog)
    _history(t, 9)
    files, snaps = _files(t), t.snapshot_ids()
    dry = expire_snapshots(t.store, retain_max=2, retain_min=1, dry_run=True)
    assert dry.dry_run and dry.deleted_snapshots == 7
    assert _files(t) == files and t.snapshot_ids() == snaps
    real = expire_snapshots(t.store, retain_max=2, retain_min=1)
    assert (real.deleted_snapshots, real.deleted_data_files, real.deleted_manifests, real.deleted_index_files,
            real.deleted_bytes) == (dry.deleted_snapshots, dry.deleted_data_files, dry.deleted_manifests,
                                    dry.deleted_index_files, dry.deleted_bytes)


def test_tag_keeps_files_after_its_snapshot_expires(catalog: Catalog) -> None:
    t = _table(catalog)
    rows = _history(t, 7)  # 3 and 6 overwrite: the files of 1, 2 (and 4, 5) are deleted by deltas
    create_tag(t.store, "t2", 2)
    r = expire_snapshots(t.store, retain_max=1, retain_min=1)
    assert t.snapshot_ids() == [7] and r.deleted_snapshots == 6
    assert _rows(t, tag="t2") == rows[1]
    assert _files(t) == referenced(t.store)
    # the tag goes: its files go with it (tag deletion uses the same reference module)
    d = delete_tag(t.store, "t2")
    assert d.deleted_data_files > 0
    assert _files(t) == referenced(t.store)
    assert _rows(t) == rows[-1]


def test_tag_between_expired_snapshots_and_later_tags(catalog: Catalog) -> None:
    t = _table(catalog)
    rows = _history(t, 12)
    create_tag(t.store, "a", 4)
    create_tag(t.store, "b", 8)
    expire_snapshots(t.store, retain_max=5, retain_min=1, max_deletes=3)  # 1..3, before any tag
    expire_snapshots(t.store, retain_max=2, retain_min=1)  # 4..10, across both tags
    assert t.snapshot_ids() == [11, 12]
    assert _rows(t, tag="a") == rows[3] and _rows(t, tag="b") == rows[7]
    assert _files(t) == referenced(t.store)


def test_snapshot_missing_in_the_middle(catalog: Catalog) -> None:
    t = _table(catalog)
    rows = _history(t, 10)
    Path(t.path, "snapshot", "snapshot-4").unlink()
    r = expire_snapshots(t.store, retain_max=5, retain_min=1)
    assert r.expired_snapshot_ids == (1, 2, 3, 5) and t.snapshot_ids() == [6, 7, 8, 9, 10]
    assert _rows(t) == rows[-1]


def test_missing_end_snapshot_does_not_stop_expiry(catalog: Catalog) -> None:
    """Paimon issue #4743: the snapshot expiry would stop at is missing."""
    t = _table(catalog)
    rows = _history(t, 8)
    Path(t.path, "snapshot", "snapshot-2").unlink()
    # the limit makes snapshot 2 the end: snapshot 1 still goes
    r = expire_snapshots(t.store, retain_min=1, older_than=FAR_FUTURE, max_deletes=1)
    assert r.expired_snapshot_ids == (1,) and t.snapshot_ids() == [3, 4, 5, 6, 7, 8]
    r = expire_snapshots(t.store, retain_min=1, older_than=FAR_FUTURE, max_deletes=1)
    assert r.expired_snapshot_ids == (3,)
    Path(t.path, "snapshot", "snapshot-6").unlink()
    r = expire_snapshots(t.store, retain_max=3, retain_min=1)  # end 6 is missing: 5 is kept
    assert r.expired_snapshot_ids == (4,) and t.snapshot_ids() == [5, 7, 8]
    assert _rows(t) == rows[-1] and _rows(t, snapshot_id=5) == rows[4]


def test_rerun_after_half_done_expiry(catalog: Catalog) -> None:
    """A run that deleted data files and manifests but not the snapshot files (killed): a rerun
    finishes it."""
    t = _table(catalog)
    rows = _history(t, 9)
    plan = expire_snapshots(t.store, retain_max=2, retain_min=1, dry_run=True)
    refs = FileRefs(t.store)
    # what a killed run may have done: the manifests and manifest lists of snapshot 3 are gone
    s3 = t.snapshot(3)
    keep = refs.metadata_names(t.snapshot(8))
    for group in refs.unused_metadata(s3, keep):
        for f in group:
            Path(f.path).unlink(missing_ok=True)
    r = expire_snapshots(t.store, retain_max=2, retain_min=1)
    assert r.expired_snapshot_ids == plan.expired_snapshot_ids and t.snapshot_ids() == [8, 9]
    assert _rows(t) == rows[-1]
    assert referenced(t.store) <= _files(t)


# ----------------------------------------------------------------------------------------------
# bad input: a clear error naming the argument, nothing changed
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"retain_max": 2, "retain_min": 3}, "retain_max 2 must not be less than retain_min 3"),
        ({"retain_max": 2}, r"retain_min 10 \(option 'snapshot.num-retained.min'\)"),
        ({"retain_max": 0}, "'retain_max'"),
        ({"retain_min": -1}, "'retain_min'"),
        ({"retain_min": "2"}, "'retain_min'"),
        ({"max_deletes": -1}, "'max_deletes'"),
        ({"older_than": "yesterday"}, "'older_than'"),
        ({"older_than": 12}, "'older_than'"),
        ({"dry_run": "yes"}, "'dry_run'"),
    ],
)
def test_bad_arguments_change_nothing(catalog: Catalog, kwargs: dict[str, object], match: str) -> None:
    t = _table(catalog)
    _history(t, 4)
    files, snaps = _files(t), t.snapshot_ids()
    with pytest.raises(ValidationError, match=match):
        expire_snapshots(t.store, **kwargs)  # type: ignore[arg-type]
    assert _files(t) == files and t.snapshot_ids() == snaps


def test_empty_table(catalog: Catalog) -> None:
    t = _table(catalog)
    r = expire_snapshots(t.store, retain_min=1, retain_max=1)
    assert r == ExpireResult("db.t", 0, 0, 0, 0, 0, (), None, False)


# ----------------------------------------------------------------------------------------------
# automatic expiry after every commit
# ----------------------------------------------------------------------------------------------


def test_commit_expires_by_table_options(catalog: Catalog) -> None:
    t = _table(catalog, **{"snapshot.num-retained.max": "3", "snapshot.num-retained.min": "1"})
    rows = _history(t, 7)
    assert t.snapshot_ids() == [5, 6, 7]
    assert _files(t) == referenced(t.store)
    assert t.delete("id = 7") == 8 and t.snapshot_ids() == [6, 7, 8]  # a DELETE commit too
    assert _rows(t, snapshot_id=7) == rows[-1]


def test_commit_keeps_young_snapshots_by_default(catalog: Catalog) -> None:
    t = _table(catalog)
    _history(t, 14)
    assert t.snapshot_ids() == list(range(1, 15))  # younger than snapshot.time-retained (1 h)
    t2 = _table(catalog, "db.t2", **{"snapshot.time-retained": "1 ms"})
    _history(t2, 14)
    assert t2.snapshot_ids() == list(range(5, 15))  # snapshot.num-retained.min (10) stay


def test_commit_expire_limit_and_write_only(catalog: Catalog) -> None:
    t = _table(catalog, **{"write-only": "true", "snapshot.num-retained.max": "1", "snapshot.num-retained.min": "1"})
    _history(t, 6)
    assert t.snapshot_ids() == [1, 2, 3, 4, 5, 6]  # write-only: no expiry
    t = t.alter(set_options={"write-only": "false", "snapshot.expire.limit": "2"})
    _write(t, [99])
    assert t.snapshot_ids() == [3, 4, 5, 6, 7]
    _write(t, [100])
    assert t.snapshot_ids() == [5, 6, 7, 8]


def test_commit_respects_and_expires_consumers(catalog: Catalog) -> None:
    t = _table(catalog, **{"snapshot.num-retained.max": "1", "snapshot.num-retained.min": "1",
                           "consumer.expiration-time": "1 d"})
    _history(t, 2)
    folder = Path(t.path, "consumer")
    folder.mkdir()
    (folder / "consumer-job").write_text(json.dumps({"nextSnapshot": 2}))
    _history(t, 3)
    assert t.snapshot_ids() == [2, 3, 4, 5]
    old = time.time() - 2 * 86400
    os.utime(folder / "consumer-job", (old, old))  # not updated for two days: it expires first
    _write(t, [42])
    assert not (folder / "consumer-job").exists() and t.snapshot_ids() == [6]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_failed_expiry_surfaces_on_next_commit(catalog: Catalog, mode: str) -> None:
    from paimon_sql.errors import PaimonError
    from paimon_sql.ops.maintenance import maintenance_of

    def wait_async_expiry(store: object) -> None:
        maintenance_of(t.store).wait()

    t = _table(catalog, **{"snapshot.num-retained.max": "2", "snapshot.num-retained.min": "1",
                           "snapshot.expire.execution-mode": mode})
    _history(t, 3)
    wait_async_expiry(t.store)
    assert t.snapshot_ids() == [2, 3]
    folder = Path(t.path, "consumer")
    folder.mkdir()
    (folder / "consumer-bad").write_text("{not json")
    _write(t, [10])  # commits; its expiry fails on the corrupt consumer file
    wait_async_expiry(t.store)
    assert t.snapshot_ids() == [2, 3, 4]
    files = _files(t)
    with pytest.raises(PaimonError, match="Corrupt consumer file"):
        _write(t, [11])
    assert t.snapshot_ids() == [2, 3, 4] and _files(t) == files  # nothing committed, nothing left
    (folder / "consumer-bad").unlink()
    _write(t, [11])
    wait_async_expiry(t.store)
    assert t.snapshot_ids() == [4, 5] and _rows(t) == [3, 10, 11]


def test_reading_the_latest_snapshot_while_it_expires_reads_the_new_latest(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read of the latest snapshot (no time travel) that planned snapshot 6, whose files a newer
    overwrite and expiry deleted before they were read: planned and read again on the new latest,
    never partial rows."""
    import paimon_sql.scan.table_scan as scan_mod

    t = _table(catalog)
    _history(t, 6)
    real = scan_mod.read_planned_split
    planned: list[int] = []

    def overwrite_expire_then_read(store: object, split: object, *args: object, **kw: object) -> object:
        planned.append(split.snapshot_id)  # type: ignore[attr-defined]
        if len(planned) == 1:
            _write(t, [7], overwrite=True)
            expire_snapshots(t.store, retain_max=1, retain_min=1)
        return real(store, split, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(scan_mod, "read_planned_split", overwrite_expire_then_read)
    assert _rows(t) == [7]
    assert planned == [6, 7]


def test_reading_a_snapshot_while_it_expires(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read that planned snapshot 2 before expiry deleted its files: a clear error naming the
    snapshot, never partial rows; time travel after expiry says it has expired."""
    import threading

    import paimon_sql.scan.table_scan as scan_mod

    t = _table(catalog)
    _history(t, 6)
    real = scan_mod.read_planned_split
    lock, done = threading.Lock(), list[bool]()

    def expire_then_read(*args: object, **kw: object) -> object:
        with lock:  # between planning and reading (once; splits are read on a few threads)
            if not done:
                expire_snapshots(t.store, retain_max=2, retain_min=1)
                done.append(True)
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(scan_mod, "read_planned_split", expire_then_read)
    with pytest.raises(NotFoundError, match="Snapshot 2 of table db.t was expired while it was read.*"
                                            "snapshot.time-retained"):
        t.read(snapshot_id=2)
    monkeypatch.setattr(scan_mod, "read_planned_split", real)
    with pytest.raises(NotFoundError, match=r"Snapshot 2 of table db.t does not exist \(it has expired\)"):
        t.read(snapshot_id=2)


def test_other_branch_keeps_files(catalog: Catalog) -> None:
    """A branch made from a tag (as Paimon's createBranch lays it out: the tag's snapshot and the
    schemas copied into branch/branch-<name>/) keeps the files it shares with main after the tag is
    deleted and main expires that snapshot."""
    import shutil

    t = _table(catalog)
    rows = _history(t, 8)
    create_tag(t.store, "t2", 2)
    root = Path(t.path)
    b = root / "branch" / "branch-b"
    (b / "snapshot").mkdir(parents=True)
    shutil.copytree(root / "schema", b / "schema")
    shutil.copy(root / "tag" / "tag-t2", b / "snapshot" / "snapshot-2")
    (b / "snapshot" / "LATEST").write_text("2")
    delete_tag(t.store, "t2")  # snapshot 2 still exists on main: only the tag file goes
    expire_snapshots(t.store, retain_max=1, retain_min=1)
    assert t.snapshot_ids() == [8]
    branch = Table(t.file_io, t.path, "db.t", t.schema, branch="b")
    assert sorted(branch.read()["id"].to_pylist()) == rows[1]
    assert referenced(branch.store) <= _files(t)
    assert _rows(t) == rows[-1]
