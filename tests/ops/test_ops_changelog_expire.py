"""The decoupled changelog lifecycle (ops/expire.py): with ``changelog.num-retained.*`` /
``changelog.time-retained`` above the snapshot retention, snapshot expiry turns the expired
snapshots into long-lived changelogs (``changelog/changelog-<id>``) that keep their changelog (the
delta files of a table without a changelog producer), and changelog expiry deletes them later, as
Paimon's ExpireSnapshotsImpl / ExpireChangelogImpl do."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.errors import ValidationError
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.kinds import FileKind, FileSource
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.ops.expire import (
    changelog_decoupled,
    expire_all_changelogs,
    expire_changelogs,
    expire_snapshots,
)
from paimon_sql.ops.file_refs import FileRefs, tagged_snapshots
from paimon_sql.ops.rollback import rollback
from paimon_sql.ops.tags import create_tag
from paimon_sql.procedures import call_procedure

DECOUPLED = {
    "bucket": "1",
    "num-sorted-run.compaction-trigger": "3",
    "snapshot.num-retained.min": "1",
    "snapshot.num-retained.max": "2",
    "changelog.num-retained.max": "4",
}


def _table(catalog: Catalog, name: str = "db.t", compact: bool = False, **options: str) -> Table:
    """A decoupled primary-key table; without ``compact`` no compaction runs (one snapshot per write)."""
    if not compact:
        options = {"num-sorted-run.compaction-trigger": "50", **options}
    t = catalog.create_table(name, pa.schema([pa.field("k", pa.int64(), nullable=False), ("v", pa.string())]),
                             primary_keys=["k"], options={**DECOUPLED, **options})
    assert isinstance(t, Table)
    return t


def _upsert(t: Table, keys: list[int], tag: str) -> int:
    sid = t.write(pa.table({"k": keys, "v": [f"{tag}{k}" for k in keys]}))
    time.sleep(0.002)
    return sid


def _on_disk(t: Table) -> set[str]:
    root = Path(t.path)
    return {str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and p.parent.name not in ("schema", "snapshot", "tag", "consumer", "changelog")}


def _expected(store: FileStore, snapshots_from: int = 0, changelogs_from: int = 0) -> set[str]:
    """What must be on disk: every file of a snapshot or tag; for a long-lived changelog, its base
    and delta manifest lists with their manifests and the data files its delta adds (the delta is
    the changelog of a table without a changelog producer); and for every snapshot or changelog,
    the written (not compacted) files its delta deletes: they are the changelog of an earlier
    snapshot, kept until the changelog of this one expires (Paimon's decoupled expiry). Only the
    snapshots and changelogs from the given ids on count (an interrupted expiry may have deleted
    files of the ones it was expiring)."""
    refs = FileRefs(store)
    root = store.path.rstrip("/") + "/"
    out: set[str] = set()
    snaps = [store.snapshots.snapshot(i) for i in store.snapshots.snapshot_ids() if i >= snapshots_from]
    tags = [s for s, _ in tagged_snapshots(store.tags)]
    changelogs = [store.changelogs.changelog(i) for i in store.changelogs.ids() if i >= changelogs_from]
    for s in snaps + tags:
        for ref in refs.live(s).values():
            out.update(f.path[len(root):] for f in refs.data_paths(ref))
        for name in refs.metadata_names(s):
            out.add(f"index/{name}" if name.startswith("index-") and "manifest" not in name else f"manifest/{name}")
    for cl in changelogs:
        for lst in (cl.base_manifest_list, cl.delta_manifest_list):
            out.add(f"manifest/{lst}")
            out.update(f"manifest/{m.file_name}" for m in refs.manifest_list(lst))
    for x in snaps + changelogs:
        for m in refs.manifest_list(x.delta_manifest_list):
            for ref in refs.manifest(m.file_name):
                if (ref.kind == FileKind.ADD and x in changelogs) or (
                    ref.kind == FileKind.DELETE and ref.file_source != FileSource.COMPACT
                ):
                    out.update(f.path[len(root):] for f in refs.data_paths(ref))
    return out


def _delta_rows(t: Table, snap: Snapshot) -> dict[int, str]:
    """The rows the written (APPEND) files a snapshot's delta adds hold: its changelog."""
    refs = FileRefs(t.store)
    root = Path(t.path)
    out: dict[int, str] = {}
    for m in refs.manifest_list(snap.delta_manifest_list):
        for ref in refs.manifest(m.file_name):
            if ref.kind == FileKind.ADD and ref.file_source == FileSource.APPEND:
                rel = refs.data_paths(ref)[0].path[len(t.path.rstrip("/")) + 1:]
                tbl = pq.read_table(root / rel)
                out.update(zip(tbl.column("k").to_pylist(), tbl.column("v").to_pylist()))
    return out


def test_options_make_the_lifecycle_decoupled(catalog: Catalog) -> None:
    t = _table(catalog)
    assert changelog_decoupled(t.store)
    plain = catalog.create_table("db.plain", pa.schema([("k", pa.int64())]))
    assert isinstance(plain, Table) and not changelog_decoupled(plain.store)
    for opts in ({"changelog.time-retained": "2 h"}, {"changelog.num-retained.min": "11"}):
        other = catalog.create_table(f"db.o{len(opts)}{next(iter(opts))[10:13]}", pa.schema([("k", pa.int64())]),
                                     options=opts)
        assert isinstance(other, Table) and changelog_decoupled(other.store)


def test_expired_snapshots_become_changelogs_that_keep_their_delta(catalog: Catalog) -> None:
    t = _table(catalog, compact=True)
    written: dict[int, dict[int, str]] = {}
    jsons: dict[int, str] = {}
    for i in range(1, 13):
        keys = [i % 4, 10 + i]
        sid = _upsert(t, keys, f"w{i}-")
        written[sid] = {k: f"w{i}-{k}" for k in keys}
        for s in t.snapshot_ids():
            jsons.setdefault(s, Path(t.path, "snapshot", f"snapshot-{s}").read_text())
        ids = t.snapshot_ids()
        cls = t.store.changelogs.ids()
        assert len(ids) <= 2
        if cls:
            # contiguous, right below the earliest snapshot, at most changelog.num-retained.max - 2 of
            # them are old enough to count (all are younger than changelog.time-retained: 1 h)
            assert cls == list(range(cls[0], ids[0]))
        assert _on_disk(t) == _expected(t.store), f"after write {i}"
    kinds = [Snapshot.from_json(j).commit_kind for j in jsons.values()]
    assert "COMPACT" in kinds  # compaction rewrote files, which the changelogs must keep
    cls = t.store.changelogs.ids()
    latest = t.snapshot_ids()[-1]
    assert cls[0] == latest - 4 + 1  # changelog.num-retained.max counts from the latest snapshot
    for cid in cls:
        cl = t.store.changelogs.changelog(cid)
        assert json.loads(Path(t.path, "changelog", f"changelog-{cid}").read_text()) == json.loads(jsons[cid])
        if cl.commit_kind == "APPEND":
            assert _delta_rows(t, cl) == written[cid]  # the changelog still reads
    assert Path(t.path, "changelog", "LATEST").read_text() == str(cls[-1])
    assert Path(t.path, "changelog", "EARLIEST").read_text() == str(cls[0])
    assert t.read().num_rows == 4 + 12


def test_changelog_expiry_by_time_count_and_limit(catalog: Catalog) -> None:
    t = _table(catalog, **{"changelog.num-retained.max": "100", "changelog.num-retained.min": "1",
                           "changelog.time-retained": "1 h"})
    for i in range(1, 9):
        _upsert(t, [i], "a")
    assert t.snapshot_ids() == [7, 8] and t.store.changelogs.ids() == list(range(1, 7))
    # time: changelogs 1-3 older than the cut-off go; expiry stops at the first young one (4)
    cutoff = t.store.changelogs.changelog(4).time_millis
    r = expire_changelogs(t.store, older_than=_local(cutoff))
    assert r.expired_changelog_ids == (1, 2, 3) and t.store.changelogs.ids() == [4, 5, 6]
    # the limit, then retain_max counted from the latest snapshot; the latest changelog always stays
    r = expire_changelogs(t.store, retain_max=2, max_deletes=1)
    assert r.expired_changelog_ids == (4,) and t.store.changelogs.ids() == [5, 6]
    r = expire_changelogs(t.store, retain_max=1, retain_min=1)
    assert r.expired_changelog_ids == (5,) and t.store.changelogs.ids() == [6]
    assert _on_disk(t) == _expected(t.store)
    dry = expire_all_changelogs(t.store, dry_run=True)
    assert dry.deleted_changelogs == 1 and dry.deleted_bytes > 0 and t.store.changelogs.ids() == [6]
    r = expire_all_changelogs(t.store)
    assert r.deleted_changelogs == 1 and t.store.changelogs.ids() == []
    assert not Path(t.path, "changelog", "LATEST").exists()
    assert _on_disk(t) == _expected(t.store)
    assert sorted(t.read()["k"].to_pylist()) == list(range(1, 9))


def _local(ms: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ms / 1000).isoformat(sep=" ", timespec="milliseconds")


def test_tag_keeps_files_changelog_expiry_would_delete(catalog: Catalog) -> None:
    t = _table(catalog, **{"changelog.num-retained.max": "100", "changelog.time-retained": "1 ms",
                           "changelog.num-retained.min": "1"})
    for i in range(1, 4):
        _upsert(t, [1, 2], f"x{i}")
    create_tag(t.store, "keep", snapshot_id=3)
    tagged = sorted(t.read(tag="keep")["v"].to_pylist())
    for i in range(4, 12):
        _upsert(t, [1, 2], f"y{i}")
    expire_changelogs(t.store)
    expire_snapshots(t.store)
    assert sorted(t.read(tag="keep")["v"].to_pylist()) == tagged
    assert _on_disk(t) == _expected(t.store)


def test_consumer_changelog_only(catalog: Catalog) -> None:
    """Paimon's testConsumerChangelogOnly: with consumer.changelog-only a consumer keeps changelogs,
    not snapshots."""
    t = _table(catalog, **{"changelog.num-retained.max": "1000", "changelog.time-retained": "1 ms",
                           "snapshot.num-retained.max": "1", "consumer.changelog-only": "true"})
    folder = Path(t.path, "consumer")
    folder.mkdir()
    (folder / "consumer-c").write_text(json.dumps({"nextSnapshot": 3}))
    for i in range(1, 8):
        _upsert(t, [i], "c")
    assert t.snapshot_ids() == [7]
    assert t.store.changelogs.ids() == [3, 4, 5, 6]  # changelogs 1, 2 expired; from 3 on the consumer keeps them
    assert _on_disk(t) == _expected(t.store)


def test_without_changelog_only_a_consumer_keeps_snapshots(catalog: Catalog) -> None:
    t = _table(catalog, **{"changelog.num-retained.max": "1000", "snapshot.num-retained.max": "1"})
    folder = Path(t.path, "consumer")
    folder.mkdir()
    (folder / "consumer-c").write_text(json.dumps({"nextSnapshot": 3}))
    for i in range(1, 6):
        _upsert(t, [i], "c")
    assert t.snapshot_ids() == [3, 4, 5] and t.store.changelogs.ids() == [1, 2]


def test_rollback_removes_later_changelogs_and_writes_continue(catalog: Catalog) -> None:
    t = _table(catalog, **{"changelog.num-retained.max": "100"})
    for i in range(1, 7):
        _upsert(t, [i], "r")
    create_tag(t.store, "t5", snapshot_id=5)
    assert t.store.changelogs.ids() == [1, 2, 3, 4]
    rollback(t.store, tag="t5")
    # nothing after snapshot 5 is left; changelogs 1-4 are older and stay
    assert t.snapshot_ids() == [5] and t.store.changelogs.ids() == [1, 2, 3, 4]
    assert _upsert(t, [99], "after") == 6
    assert sorted(t.read()["k"].to_pylist()) == [1, 2, 3, 4, 5, 99]


def test_procedure_and_bad_arguments(catalog: Catalog) -> None:
    t = _table(catalog, **{"changelog.num-retained.max": "100"})
    for i in range(1, 7):
        _upsert(t, [i], "p")
    before = t.store.changelogs.ids()
    for kwargs, match in [
        ({"retain_max": 0}, "retain_max"), ({"retain_min": 3, "retain_max": 2}, "retain_max 2 must not be less"),
        ({"older_than": "yesterday"}, "older_than"), ({"max_deletes": -1}, "max_deletes"),
        ({"dry_run": "yes"}, "dry_run"),
    ]:
        with pytest.raises(ValidationError, match=match):
            expire_changelogs(t.store, **kwargs)  # type: ignore[arg-type]
    assert t.store.changelogs.ids() == before
    (row,) = call_procedure(catalog, "expire_changelogs", {"table": "db.t", "retain_max": 3}).rows
    assert row[0] == "3" and t.store.changelogs.ids() == [4]  # 6 - 3 + 1: from 4 on
    (row,) = call_procedure(catalog, "expire_changelogs", {"table": "db.t", "delete_all": True}).rows
    assert row[0] == "Delete all separated changelogs success." and t.store.changelogs.ids() == []


def test_tables_with_changelog_files_keep_them_until_changelog_expiry(catalog: Catalog) -> None:
    # changelog-producer input: each write adds its records as changelog files
    t = _table(catalog, **{"changelog.num-retained.max": "5", "write-only": "true", "changelog-producer": "input"})
    changelog_files: dict[int, set[str]] = {}
    for i in range(1, 9):
        sid = _upsert(t, [i, 100], "i")
        changelog_files[sid] = {p.name for p in Path(t.path, "bucket-0").glob("changelog-*")} - set().union(
            *changelog_files.values())
    r = expire_snapshots(t.store)  # retain_max 2: snapshots 1-6 become changelogs
    assert r.expired_snapshot_ids == (1, 2, 3, 4, 5, 6) and t.store.changelogs.ids() == [1, 2, 3, 4, 5, 6]
    present = {p.name for p in Path(t.path, "bucket-0").glob("changelog-*")}
    assert present == set().union(*changelog_files.values())  # every changelog file is kept
    # snapshot expiry deleted the data files the expired deltas replaced: with changelog files of its
    # own, the table's delta files are not its changelog
    refs = FileRefs(t.store)
    for cid in t.store.changelogs.ids():
        cl = t.store.changelogs.changelog(cid)
        assert Path(t.store.manifests.path(cl.changelog_manifest_list)).exists()
        assert {r.file_name for r in refs.added_in_changelog(cl)} == changelog_files[cid]
    expired = [t.store.changelogs.changelog(i) for i in (1, 2, 3)]
    r2 = expire_changelogs(t.store, retain_max=5, retain_min=1)  # 8 - 5 + 1: from 4 on (all young)
    assert r2.expired_changelog_ids == (1, 2, 3) and t.store.changelogs.ids() == [4, 5, 6], r2
    present = {p.name for p in Path(t.path, "bucket-0").glob("changelog-*")}
    assert present == set().union(*(changelog_files[i] for i in (4, 5, 6, 7, 8)))
    assert r2.deleted_data_files == len(changelog_files[1] | changelog_files[2] | changelog_files[3])
    for cl in expired:
        assert not Path(t.store.manifests.path(cl.changelog_manifest_list)).exists()
    assert sorted(t.read()["k"].to_pylist()) == [*range(1, 9), 100]
