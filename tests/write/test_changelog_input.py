"""``changelog-producer`` = input (Paimon's MergeTreeWriter with ChangelogProducer.INPUT).

Every flush of a writer's buffer also writes the buffer's records, with their row kinds, sorted by
key (then sequence) and not merged, as a level-0 changelog file of the bucket; the commit lists them
in the APPEND snapshot's changelog manifest list (``changelogRecordCount``). DELETE writes full -D
rows. Compaction produces no changelog with ``input``; an overwrite commits none (Paimon ignores
changelog files at overwrite). Snapshot and changelog expiry, orphan removal, rollback, tags,
branches and ``copy`` treat the changelog files as Paimon does.

The model test (hypothesis, one run per merge engine): random writes of +I / +U / -D records,
DELETE statements, minor and full compactions and snapshot expiries (deduplicate with and without
deletion vectors, partial-update, aggregation). Each snapshot's changelog is
exactly what was written (each key's records in write order, keys sorted), each key's row kinds
over all changelogs are the model's, and the changelog folded over the first retained snapshot's
rows (with the merge engine's semantics) gives every later snapshot's rows.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_sql import Catalog
from paimon_sql.errors import ValidationError
from paimon_sql.meta.kinds import FileKind, FileSource
from paimon_sql.scan.changes import changelog_entries, changelog_splits
from paimon_sql.scan.reader import read_split
from paimon_sql.table.table import Table

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("n", pa.int64())])
KINDS = {0: "+I", 1: "-U", 2: "+U", 3: "-D"}

ENGINES: dict[str, dict[str, str]] = {
    "deduplicate": {},
    "dv-deduplicate": {"deletion-vectors.enabled": "true"},
    "partial-update": {"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
    "aggregation": {"merge-engine": "aggregation", "fields.n.aggregate-function": "sum",
                    "fields.v.aggregate-function": "max", "aggregation.remove-record-on-delete": "true"},
}


def _create(cat: Catalog, name: str, **opts: str) -> Table:
    cat.create_table(name, SCHEMA, primary_keys=["id"],
                     options={"bucket": "2", "changelog-producer": "input", **opts})
    return cat.get_table(name)


def _changelog(t: Table, snapshot_id: int) -> list[tuple[str, Any, Any, Any]]:
    """The snapshot's changelog rows (row kind, id, v, n) in file order, bucket by bucket."""
    store = t.store
    snap = store.snapshots.snapshot(snapshot_id)
    out: list[tuple[str, Any, Any, Any]] = []
    for split in changelog_splits(store, snap):
        tbl = read_split(store, split, list(store.schema.fields), None, keep_row_kind=True)
        for r in tbl.to_pylist():
            out.append((KINDS[r["_VALUE_KIND"]], r["id"], r["v"], r["n"]))
    return out


def _rows(t: Table, snapshot_id: int) -> dict[int, tuple[Any, Any]]:
    return {r["id"]: (r["v"], r["n"]) for r in t.read(snapshot_id=snapshot_id).to_pylist()}


def _apply(engine: str, state: dict[int, tuple[Any, Any]], kind: str, k: int, v: Any, n: Any) -> None:
    """One changelog record applied to a table's rows, as the merge engine reads it."""
    if kind in ("-D", "-U"):
        state.pop(k, None)  # deduplicate; the others with *.remove-record-on-delete
        return
    old = state.get(k)
    if engine.endswith("deduplicate") or old is None:
        state[k] = (v, n)
    elif engine == "partial-update":  # non-null fields overwrite
        state[k] = (v if v is not None else old[0], n if n is not None else old[1])
    else:  # aggregation: max(v), sum(n), nulls ignored
        vs = [x for x in (old[0], v) if x is not None]
        ns = [x for x in (old[1], n) if x is not None]
        state[k] = (max(vs) if vs else None, sum(ns) if ns else None)


def _by_key(records: list[tuple[str, int, Any, Any]]) -> list[tuple[str, int, Any, Any]]:
    """Records as a changelog file holds them: sorted by key, each key's in write order."""
    return sorted(records, key=lambda r: r[1])


write_step = st.tuples(
    st.just("write"),
    st.lists(st.tuples(st.sampled_from(["+I", "+I", "+U", "-D"]), st.integers(0, 12)), min_size=1, max_size=10),
)
delete_step = st.tuples(st.just("delete"), st.integers(0, 12))
compact_step = st.tuples(st.sampled_from(["minor", "full"]), st.just(0))
expire_step = st.tuples(st.just("expire"), st.integers(1, 3))
steps = st.lists(st.one_of(write_step, write_step, write_step, delete_step, compact_step, expire_step),
                 min_size=1, max_size=12)


@settings(max_examples=int(os.environ.get("PAIMON_MODEL_EXAMPLES", "10")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=steps)
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_input_changelog_is_the_input(tmp_path_factory: Any, engine: str, history: list[tuple[Any, ...]]) -> None:
    cat = Catalog(str(tmp_path_factory.mktemp("wh")))
    cat.create_database("db")
    t = _create(cat, "db.t", **{"num-sorted-run.compaction-trigger": "3", **ENGINES[engine]})
    model: dict[int, tuple[Any, Any]] = {}
    kinds: dict[int, list[str]] = {}
    seen: dict[int, list[str]] = {}
    deleted: set[int] = set()  # partial-update / aggregation: a deleted key is not written again
    for i, step in enumerate(history):
        before = t.store.snapshots.latest_id()
        expected: list[tuple[str, int, Any, Any]] = []
        if step[0] == "write":
            tw = t.new_write()
            for j, (kind, k) in enumerate(step[1]):
                if not engine.endswith("deduplicate") and k in deleted:
                    continue
                v = None if (k + j) % 4 == 0 else f"s{i}.{j}"
                n = None if (k + i) % 5 == 0 else i * 10 + j
                if kind == "-D" and not engine.endswith("deduplicate"):
                    # full rows, as a DELETE writes them
                    if k not in model:
                        continue
                    v, n = model[k]
                tw.write(pa.table({"id": [k], "v": [v], "n": [n]}, schema=SCHEMA),
                         kind={"+I": 0, "+U": 2, "-D": 3}[kind])
                expected.append((kind, k, v, n))
                _apply(engine, model, kind, k, v, n)
                kinds.setdefault(k, []).append(kind)
                if kind == "-D":
                    deleted.add(k)
            if not expected:
                tw.abort()
                continue
            t.commit_changes([tw.prepare_commit()])
        elif step[0] == "delete":
            doomed = sorted(k for k in model if k >= step[1] and k < step[1] + 3)
            expected = [("-D", k, *model[k]) for k in doomed]
            t.delete(f"id >= {step[1]} AND id < {step[1] + 3}")
            for k in doomed:
                model.pop(k)
                kinds.setdefault(k, []).append("-D")
                deleted.add(k)
        elif step[0] in ("minor", "full"):
            t.compact(full=step[0] == "full")
        else:
            t.expire_snapshots(retain_max=step[1], retain_min=1)
        t = cat.get_table("db.t")
        after = t.store.snapshots.latest_id()
        new_ids = range((before or 0) + 1, (after or 0) + 1)
        got: list[tuple[str, int, Any, Any]] = []
        for sid in new_ids:
            snap = t.store.snapshots.snapshot(sid)
            cl = _changelog(t, sid)
            if snap.commit_kind != "APPEND":
                assert cl == [] and snap.changelog_manifest_list is None  # compaction: no changelog
            else:
                assert snap.changelog_record_count == len(cl)
            got += cl
            for kind, k, _, _ in cl:
                seen.setdefault(k, []).append(kind)
        # the snapshot's changelog is what was written, keys sorted, each key's records in order
        assert sorted(got, key=lambda r: r[1]) == _by_key(expected)
        if after is not None:
            assert _rows(t, after) == model
    # each key's row kinds over every changelog written are the model's
    assert seen == kinds
    # the changelog of the retained snapshots folded over the first one's rows gives each later one
    ids = t.snapshot_ids()
    if engine.startswith("dv-"):
        # deletion-vector tables: batch reads skip level 0, so an APPEND snapshot reads its rows
        # only once the COMPACT snapshot after it moved them up: compare those
        ids = ids[next((i for i, sid in enumerate(ids) if t.snapshot(sid).commit_kind != "APPEND"), len(ids)):]
    if ids:
        state = _rows(t, ids[0])
        for sid in ids[1:]:
            for kind, k, v, n in _changelog(t, sid):
                _apply(engine, state, kind, k, v, n)
            if not engine.startswith("dv-") or t.snapshot(sid).commit_kind != "APPEND":
                assert state == _rows(t, sid), sid
    # expired snapshots took their changelog files along: those on disk are the retained ones'
    assert _changelog_files_on_disk(t) == _live_changelog_files(t)


def _changelog_files_on_disk(t: Table) -> set[str]:
    return {p.name for p in Path(t.store.path).rglob("changelog-*") if p.parent.name.startswith("bucket-")}


def _live_changelog_files(t: Table) -> set[str]:
    store = t.store
    out: set[str] = set()
    for sid in store.snapshots.snapshot_ids():
        out |= {e.file.file_name for e in changelog_entries(store, store.snapshots.snapshot(sid))}
    for cid in store.changelogs.ids():
        cl = store.changelogs.try_changelog(cid)
        if cl is not None:
            out |= {e.file.file_name for e in changelog_entries(store, cl)}
    return out


# ---- the files -----------------------------------------------------------------------------------

def test_changelog_files_as_paimon_writes_them(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    t = _create(cat, "db.t", bucket="1")
    sid = t.write(pa.table({"id": [2, 1, 2], "v": ["a", "b", "c"], "n": [1, 2, 3]}, schema=SCHEMA))
    snap = t.snapshot(sid)
    assert snap.commit_kind == "APPEND" and snap.changelog_record_count == 3
    entries = changelog_entries(t.store, snap)
    assert len(entries) == 1 and entries[0].kind == FileKind.ADD
    f = entries[0].file
    data = [e.file for e in t.store.manifests.live_entries(snap)]
    assert f.file_name.startswith("changelog-") and f.file_name.endswith(".parquet")
    # one uuid and one count per writer, shared with the data file (Paimon's DataFilePathFactory)
    assert f.file_name.rsplit("-", 1)[0][len("changelog-"):] == data[0].file_name.rsplit("-", 1)[0][len("data-"):]
    assert (f.level, f.file_source, f.row_count) == (0, FileSource.APPEND, 3)
    assert (f.min_sequence_number, f.max_sequence_number) == (0, 2)
    assert data[0].row_count == 2  # the data file is merged, the changelog is not
    assert (tmp_path / "db.db" / "t" / "bucket-0" / f.file_name).exists()
    # the records, sorted by key, each key's in write order, with their sequence numbers
    import pyarrow.parquet as pq
    raw = pq.read_table(tmp_path / "db.db" / "t" / "bucket-0" / f.file_name).to_pylist()
    assert [(r["_KEY_id"], r["_SEQUENCE_NUMBER"], r["_VALUE_KIND"], r["v"]) for r in raw] == [
        (1, 1, 0, "b"), (2, 0, 0, "a"), (2, 2, 0, "c")]


def test_changelog_file_options(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    t = _create(cat, "db.t", bucket="1", **{"changelog-file.prefix": "cl-", "changelog-file.format": "avro",
                                             "changelog-file.stats-mode": "none"})
    sid = t.write(pa.table({"id": [1], "v": ["a"], "n": [1]}, schema=SCHEMA))
    (e,) = changelog_entries(t.store, t.snapshot(sid))
    assert e.file.file_name.startswith("cl-") and e.file.file_name.endswith(".avro")
    assert _changelog(t, sid) == [("+I", 1, "a", 1)]
    # stats-mode none: no min/max, null counts kept
    from paimon_sql.format.binary_row import decode_row
    assert decode_row(e.file.value_stats.min_values, [f.type for f in t.store.schema.fields]) == [None, None, None]


def test_no_changelog_without_a_producer_and_for_compaction_and_overwrite(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    cat.create_table("db.none", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    n = cat.get_table("db.none")
    sid = n.write(pa.table({"id": [1], "v": ["a"], "n": [1]}, schema=SCHEMA))
    assert n.snapshot(sid).changelog_manifest_list is None and n.snapshot(sid).changelog_record_count is None
    t = _create(cat, "db.t", bucket="1")
    t.write(pa.table({"id": [1, 2], "v": ["a", "b"], "n": [1, 2]}, schema=SCHEMA))
    t.write(pa.table({"id": [2], "v": ["c"], "n": [3]}, schema=SCHEMA))
    res = t.compact(full=True)
    snap = t.latest_snapshot()
    assert snap is not None and snap.commit_kind == "COMPACT" and snap.changelog_manifest_list is None, res
    sid = t.write(pa.table({"id": [5], "v": ["x"], "n": [5]}, schema=SCHEMA), overwrite=True)
    over = t.snapshot(sid)
    assert over.commit_kind == "OVERWRITE" and over.changelog_manifest_list is None
    assert over.changelog_record_count is None
    assert _changelog_files_on_disk(t) == _live_changelog_files(t)  # the overwrite wrote none
    assert t.read().to_pylist() == [{"id": 5, "v": "x", "n": 5}]


def test_delete_writes_full_delete_rows(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    t = _create(cat, "db.t")
    t.write(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"], "n": [1, 2, 3]}, schema=SCHEMA))
    sid = t.delete("n >= 2")
    assert sid is not None
    assert sorted(_changelog(t, sid), key=lambda r: r[1]) == [("-D", 2, "b", 2), ("-D", 3, "c", 3)]
    assert t.snapshot(sid).changelog_record_count == 2


def test_input_producer_needs_a_primary_key_and_first_row_refuses_it(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    with pytest.raises(ValidationError, match="changelog-producer"):
        cat.create_table("db.a", SCHEMA, options={"changelog-producer": "input"})
    with pytest.raises(ValidationError, match="changelog-producer"):
        cat.create_table("db.f", SCHEMA, primary_keys=["id"],
                         options={"changelog-producer": "input", "merge-engine": "first-row"})


# ---- lifecycle -----------------------------------------------------------------------------------

def _three_writes(t: Table) -> None:
    for i in range(3):
        t.write(pa.table({"id": [i, 10], "v": [f"v{i}", f"w{i}"], "n": [i, i]}, schema=SCHEMA))


def test_snapshot_expiry_deletes_the_changelog_files_of_expired_snapshots(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    t = _create(cat, "db.t", bucket="1", **{"write-only": "true"})
    _three_writes(t)
    assert len(_changelog_files_on_disk(t)) == 3
    t.expire_snapshots(retain_max=1, retain_min=1)
    assert _changelog_files_on_disk(t) == _live_changelog_files(t)
    assert len(_changelog_files_on_disk(t)) == 1


def test_decoupled_changelog_lifecycle_keeps_changelog_files_until_changelog_expiry(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    t = _create(cat, "db.t", bucket="1", **{
        "write-only": "true", "snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1",
        "changelog.num-retained.max": "10"})
    _three_writes(t)
    t.expire_snapshots()
    assert t.store.changelogs.ids() == [1, 2]
    assert len(_changelog_files_on_disk(t)) == 3
    assert _changelog_files_on_disk(t) == _live_changelog_files(t)
    # the long-lived changelogs still read with their row kinds
    cl = t.store.changelogs.try_changelog(1)
    assert cl is not None
    store = t.store
    rows = [r for s in changelog_splits(store, cl) for r in read_split(
        store, s, list(store.schema.fields), None, keep_row_kind=True).to_pylist()]
    assert [(r["id"], r["_VALUE_KIND"]) for r in rows] == [(0, 0), (10, 0)]
    t.expire_changelogs(delete_all=True)
    assert len(_changelog_files_on_disk(t)) == 1
    assert _changelog_files_on_disk(t) == _live_changelog_files(t)


def test_orphan_removal_keeps_live_changelog_files(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    t = _create(cat, "db.t", bucket="1", **{
        "write-only": "true", "snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1",
        "changelog.num-retained.max": "10"})
    _three_writes(t)
    t.create_tag("t2", 2)
    t.expire_snapshots()
    assert t.store.changelogs.ids() == [1, 2]
    live = _changelog_files_on_disk(t)
    res = t.remove_orphan_files(older_than="2999-01-01 00:00:00")
    assert _changelog_files_on_disk(t) == live, res
    # a rollback leaves the newer snapshots' changelog files behind: orphans, which then go
    t = cat.get_table("db.t")
    t.write(pa.table({"id": [7], "v": ["x"], "n": [7]}, schema=SCHEMA))
    t.rollback(snapshot_id=t.snapshot_ids()[0])
    t = cat.get_table("db.t")
    t.remove_orphan_files(older_than="2999-01-01 00:00:00")
    assert _changelog_files_on_disk(t) == _live_changelog_files(t)
    assert sorted(r["id"] for r in t.read().to_pylist()) == [0, 1, 2, 10]


def test_tags_branches_and_copy(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    t = _create(cat, "db.t", bucket="1")
    _three_writes(t)
    t.create_tag("t1", 1)
    t.create_branch("b", tag="t1")
    b = cat.get_table("db.t$branch_b")
    sid = b.write(pa.table({"id": [3], "v": ["b"], "n": [3]}, schema=SCHEMA))
    assert _changelog(b, sid) == [("+I", 3, "b", 3)]
    assert b.snapshot(sid).changelog_record_count == 1
    # the tagged snapshot still reads; tag deletion and orphan removal keep every live changelog
    assert sorted(r["id"] for r in t.read(tag="t1").to_pylist()) == [0, 10]
    t.delete_tag("t1")
    t.remove_orphan_files(older_than="2999-01-01 00:00:00")
    assert _changelog(b, sid) == [("+I", 3, "b", 3)]
    assert len(_changelog(t, 3)) == 2
    # copy: the live data files (no changelog: one OVERWRITE commit, as Paimon's copy)
    cat.create_table("db.c", SCHEMA, primary_keys=["id"], options={"bucket": "1", "changelog-producer": "input"})
    c = cat.get_table("db.c")
    res = t.copy_files_to(c)
    assert res.snapshot_id is not None
    c = cat.get_table("db.c")
    assert c.snapshot(res.snapshot_id).changelog_manifest_list is None
    assert sorted(r["id"] for r in c.read().to_pylist()) == [0, 1, 2, 10]


# ---- a writer killed before its commit ---------------------------------------------------------

_KILLED_WRITER = textwrap.dedent("""
    import os, signal, sys
    import pyarrow as pa
    from paimon_sql import Catalog
    t = Catalog(sys.argv[1]).get_table("db.t")
    tw = t.new_write()
    tw.write(pa.table({"id": list(range(100)), "v": ["k"] * 100, "n": list(range(100))}))
    changes = tw.prepare_commit()
    assert changes.changelog_entries, "no changelog written"
    print("prepared", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def test_writer_killed_before_commit_leaves_removable_orphans(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    t = _create(cat, "db.t", bucket="1")
    t.write(pa.table({"id": [1], "v": ["a"], "n": [1]}, schema=SCHEMA))
    proc = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(tmp_path)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert "prepared" in proc.stdout
    t = cat.get_table("db.t")
    assert t.snapshot_ids() == [1]
    assert t.read().to_pylist() == [{"id": 1, "v": "a", "n": 1}]
    on_disk = _changelog_files_on_disk(t)
    assert len(on_disk) == 2 and len(_live_changelog_files(t)) == 1
    res = t.remove_orphan_files(older_than="2999-01-01 00:00:00")
    assert _changelog_files_on_disk(t) == _live_changelog_files(t), res
    assert [p.name for p in Path(t.store.path).rglob("data-*")].__len__() == 1
    assert t.read().to_pylist() == [{"id": 1, "v": "a", "n": 1}]
    # and the table takes writes with their changelog again
    sid = t.write(pa.table({"id": [2], "v": ["b"], "n": [2]}, schema=SCHEMA))
    assert _changelog(t, sid) == [("+I", 2, "b", 2)]


# ---- DELETE of whole partitions ------------------------------------------------------------------

PSCHEMA = pa.schema([("id", pa.int32()), ("name", pa.string()), ("dt", pa.string()), ("hh", pa.string())])


def _partitioned(cat: Catalog, **opts: str) -> Table:
    cat.create_table("db.p", PSCHEMA, primary_keys=["id", "dt", "hh"], partition_keys=["dt", "hh"],
                     options={"changelog-producer": "input", "bucket": "1", **opts})
    t = cat.get_table("db.p")
    t.write(pa.table({"id": [1, 2, 3, 4, 5, 6], "name": list("abcdef"),
                      "dt": ["2023-10-01"] * 2 + ["2023-10-02"] * 4, "hh": ["12", "12", "12", "13", "14", "15"]},
                     schema=PSCHEMA))
    return t


def _deletes(t: Table) -> int:
    return sum(1 for sid in t.snapshot_ids() for r in _changelog_rows(t, sid) if r == "-D")


def _changelog_rows(t: Table, sid: int) -> list[str]:
    store = t.store
    return [KINDS[k] for s in changelog_splits(store, store.snapshots.snapshot(sid))
            for k in read_split(store, s, list(store.schema.fields), None, keep_row_kind=True)
            .column("_VALUE_KIND").to_pylist()]


def test_delete_with_force_produce_changelog(tmp_path: Path) -> None:
    """Paimon's DeleteFromTableTestBase 'test delete producer changelog' (the -D rows counted in
    the changelog instead of ``$audit_log``)."""
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    t = _partitioned(cat, **{"delete.force-produce-changelog": "true"})
    t.delete("name = 'a' AND hh = '12'")
    assert _deletes(t) == 1
    t.delete("hh = '12'")  # partition columns only: still -D records, as forced
    assert _deletes(t) == 3
    assert [t.snapshot(i).commit_kind for i in t.snapshot_ids()] == ["APPEND", "APPEND", "APPEND"]
    assert sorted(r["id"] for r in t.read().to_pylist()) == [4, 5, 6]


def test_delete_of_whole_partitions_drops_them_without_changelog(tmp_path: Path) -> None:
    """Without ``delete.force-produce-changelog`` a DELETE on partition columns only drops the
    partitions (Paimon's metadata-only delete: one OVERWRITE snapshot, no changelog)."""
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    t = _partitioned(cat)
    sid = t.delete("hh = '12'")
    assert sid is not None and t.snapshot(sid).commit_kind == "OVERWRITE"
    assert t.snapshot(sid).changelog_manifest_list is None and _deletes(t) == 0
    assert sorted(r["id"] for r in t.read().to_pylist()) == [4, 5, 6]
    assert t.delete("dt = '2099-01-01'") is None  # no partition matches: no commit
    sid = t.delete("name = 'd' AND dt = '2023-10-02'")  # a data column: -D records
    assert sid is not None and t.snapshot(sid).commit_kind == "APPEND" and _deletes(t) == 1


def test_sequence_field_orders_the_changelog_and_dynamic_buckets(tmp_path: Path) -> None:
    """Each key's records in the changelog file follow the sequence field (Paimon sorts the write
    buffer by key, then the user sequence fields, then the sequence number)."""
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    t = _create(cat, "db.s", bucket="1", **{"sequence.field": "n"})
    sid = t.write(pa.table({"id": [1, 1, 1, 0], "v": ["x", "y", "z", "w"], "n": [5, 3, 9, 1]}, schema=SCHEMA))
    assert _changelog(t, sid) == [("+I", 0, "w", 1), ("+I", 1, "y", 3), ("+I", 1, "x", 5), ("+I", 1, "z", 9)]
    assert t.read().to_pylist() == [{"id": 0, "v": "w", "n": 1}, {"id": 1, "v": "z", "n": 9}]
    d = _create(cat, "db.d", bucket="-1", **{"dynamic-bucket.target-row-num": "2"})
    sid = d.write(pa.table({"id": [1, 2, 3, 4, 5], "v": list("abcde"), "n": [1, 2, 3, 4, 5]}, schema=SCHEMA))
    entries = changelog_entries(d.store, d.snapshot(sid))
    assert len({e.bucket for e in entries}) > 1 and all(e.total_buckets == -1 for e in entries)
    assert sorted(_changelog(d, sid), key=lambda r: r[1]) == [("+I", i, v, i) for i, v in zip(range(1, 6), "abcde")]


def test_each_flush_of_a_small_write_buffer_writes_a_changelog_file(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    t = _create(cat, "db.t", bucket="1", **{"write-buffer-size": "1 kb", "num-sorted-run.compaction-trigger": "50",
                                             "num-sorted-run.stop-trigger": "60"})
    tw = t.new_write()
    written = []
    for i in range(6):
        ids = [*range(i * 10, i * 10 + 60), 1000]  # overlapping keys across the writes
        tw.write(pa.table({"id": ids, "v": [f"v{i}"] * len(ids), "n": [i] * len(ids)}, schema=SCHEMA))
        written += [("+I", k, f"v{i}", i) for k in ids]
    changes = tw.prepare_commit()
    sid = t.commit_changes([changes])
    assert sid is not None
    entries = changelog_entries(t.store, t.snapshot(sid))
    assert len(entries) == len(changes.entries) == 6  # one changelog file per flush
    got = _changelog(t, sid)
    assert sorted(got, key=repr) == sorted(written, key=repr)
    assert t.snapshot(sid).changelog_record_count == len(written) == 366
    seqs = sorted((e.file.min_sequence_number, e.file.max_sequence_number) for e in entries)
    assert seqs[0][0] == 0 and seqs[-1][1] == 365 and all(a[1] + 1 == b[0] for a, b in zip(seqs, seqs[1:]))
