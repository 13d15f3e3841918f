"""Incremental batch reads (Paimon's ``incremental-between*`` options): the cases of Paimon's
IncrementalTableTest / TableValuedFunctionsTest (statements and expected rows), the scan object, a
hypothesis model test and bad input."""

from __future__ import annotations

import datetime as _dt
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_sql import Catalog
from paimon_sql.errors import NotFoundError, PaimonError, UnsupportedError, ValidationError
from paimon_sql.lsm.merge import KIND
from paimon_sql.scan.table_scan import ScanMode, TableScan
from paimon_sql.table.table import Table

KINDS = {0: "+I", 1: "-U", 2: "+U", 3: "-D"}


def rows(t: pa.Table) -> list[tuple[Any, ...]]:
    return sorted(tuple(r.values()) for r in t.to_pylist())


def kinds(t: pa.Table) -> list[tuple[Any, ...]]:
    """Rows with their kind first ('+I' ...), sorted."""
    out = []
    for r in t.to_pylist():
        k = KINDS[r.pop(KIND)]
        out.append((k, *r.values()))
    return sorted(out)


def pk_table(catalog: Catalog, name: str = "db.t", **options: str) -> Table:
    schema = pa.schema([("pt", pa.int32()), ("pk", pa.int32()), ("col1", pa.int32())])
    return catalog.create_table(name, schema, primary_keys=["pk", "pt"], partition_keys=["pt"],
                                options={"bucket": "1", "write-only": "true", **options})


def w(t: Table, *rs: tuple[int, int, int]) -> int:
    return t.write(pa.table({"pt": pa.array([r[0] for r in rs], pa.int32()),
                             "pk": pa.array([r[1] for r in rs], pa.int32()),
                             "col1": pa.array([r[2] for r in rs], pa.int32())}))


def test_primary_key_table_delta(catalog: Catalog) -> None:
    """IncrementalTableTest.testPrimaryKeyTable: the records APPEND snapshots 3..5 added, unmerged;
    the COMPACT snapshot in the range adds nothing."""
    t = pk_table(catalog)
    w(t, (1, 1, 1), (1, 2, 1), (1, 3, 1), (2, 1, 1))
    w(t, (1, 1, 2), (1, 2, 2), (1, 4, 1), (2, 1, 2))
    t.compact(partitions=[{"pt": 1}])  # snapshot 3: COMPACT
    assert t.latest_snapshot().commit_kind == "COMPACT"
    w(t, (1, 1, 3), (1, 2, 3), (2, 1, 3), (2, 2, 1))
    w(t, (1, 1, 4), (1, 2, 4), (2, 1, 4))
    w(t, (1, 1, 5), (1, 2, 5), (2, 1, 5))
    expected = [(1, 1, 3), (1, 1, 4), (1, 2, 3), (1, 2, 4), (2, 1, 3), (2, 1, 4), (2, 2, 1)]
    assert rows(t.copy({"incremental-between": "2,5"}).read()) == expected
    assert rows(t.read(incremental_between=(2, 5))) == expected
    assert rows(t.read(incremental_between="2,5")) == expected
    # the same through the scan object
    scan = TableScan(t.store).with_incremental(t.scan(incremental_between=(2, 5)).incremental)  # type: ignore[arg-type]
    assert scan.effective_mode() == ScanMode.INCREMENTAL
    assert rows(scan.to_arrow()) == expected
    assert sum(b.num_rows for b in scan.to_batches()) == 7
    # projection, filter, limit
    assert rows(t.read(["col1"], "pt = 2", incremental_between=(2, 5))) == [(1,), (3,), (4,)]
    assert t.read(incremental_between=(2, 5), limit=3).num_rows == 3


def test_append_table(catalog: Catalog) -> None:
    """IncrementalTableTest.testAppendTable."""
    schema = pa.schema([("pt", pa.int32()), ("pk", pa.int32()), ("col1", pa.int32())])
    t = catalog.create_table("db.a", schema, partition_keys=["pt"])
    for batch in ([(1, 1, 1), (1, 2, 1), (1, 3, 1), (2, 1, 1)], [(1, 1, 2), (1, 2, 2), (1, 4, 1), (2, 1, 2)],
                  [(1, 1, 3), (1, 2, 3), (2, 1, 3), (2, 2, 1)], [(1, 1, 4), (1, 2, 4), (2, 1, 4)],
                  [(1, 1, 5), (1, 2, 5), (2, 1, 5)]):
        w(t, *batch)
    assert rows(t.read(incremental_between=(2, 4))) == sorted(
        [(1, 1, 3), (1, 2, 3), (2, 1, 3), (2, 2, 1), (1, 1, 4), (1, 2, 4), (2, 1, 4)])
    # TableValuedFunctionsTest "incremental query": (0, 1], (1, 2], (1, 3]
    assert rows(t.read(incremental_between=(0, 1))) == [(1, 1, 1), (1, 2, 1), (1, 3, 1), (2, 1, 1)]
    assert rows(t.read(incremental_between=(5, 5))) == []


def test_deletes_are_records_of_the_delta(catalog: Catalog) -> None:
    """IncrementalTableTest.testAuditLog's writes: a delta read keeps every record, -D included
    (Paimon's table read returns them; their kind with keep_row_kind)."""
    t = pk_table(catalog)
    w(t, (1, 1, 1), (1, 2, 1), (1, 3, 1), (2, 1, 1))
    t.delete("pt = 1 AND pk IN (1, 2)")
    w(t, (1, 4, 1), (2, 1, 2))
    got = kinds(t.read(incremental_between=(1, 3), keep_row_kind=True))
    assert got == [("+I", 1, 4, 1), ("+I", 2, 1, 2), ("-D", 1, 1, 1), ("-D", 1, 2, 1)]
    assert rows(t.read(incremental_between=(1, 3))) == [(1, 1, 1), (1, 2, 1), (1, 4, 1), (2, 1, 2)]


def test_tags_read_the_diff(catalog: Catalog) -> None:
    """IncrementalTableTest.testTagIncremental: two tags read the diff of their snapshots."""
    t = pk_table(catalog)
    w(t, (1, 1, 1), (1, 2, 1), (1, 3, 1), (1, 4, 1), (1, 5, 1), (2, 1, 1))
    t.delete("pt = 1 AND pk = 1")  # snapshot 2
    w(t, (1, 2, 2), (1, 6, 1))  # snapshot 3
    t.compact(partitions=[{"pt": 1}])  # snapshot 4
    t.create_tag("TAG1", 1)
    t.create_tag("TAG2", 3)
    t.create_tag("TAG3", 4)
    for end in ("TAG2", "TAG3"):
        assert rows(t.read(incremental_between=("TAG1", end))) == [(1, 2, 2), (1, 6, 1)]
        assert kinds(t.read(incremental_between=("TAG1", end), keep_row_kind=True)) == [
            ("+I", 1, 2, 2), ("+I", 1, 6, 1), ("-D", 1, 1, 1)]
    assert rows(t.read(["pk"], incremental_between=("TAG1", "TAG3"))) == [(2,), (6,)]
    with pytest.raises(ValidationError, match="Tag end TAG1 with snapshot id 1 should be >= tag start TAG2"):
        t.read(incremental_between=("TAG2", "TAG1"))
    assert t.read(incremental_between=("TAG1", "TAG1")).num_rows == 0
    # incremental-between-tag-to-snapshot: the tags' snapshots as a delta range
    got = t.copy({"incremental-between-tag-to-snapshot": "true"}).read(incremental_between=("TAG1", "TAG3"))
    assert rows(got) == [(1, 1, 1), (1, 2, 2), (1, 6, 1)]


def test_diff_after_compactions(catalog: Catalog) -> None:
    """TableValuedFunctionsTest "delete after compact" / "delete after compact2" on the audit view
    of a diff: the row kinds do not depend on the compactions between the tags (Paimon bug #5709)."""
    schema = pa.schema([("id", pa.int32())])
    t = catalog.create_table("db.c", schema, primary_keys=["id"], options={"bucket": "1", "write-only": "true"})
    t.write(pa.table({"id": pa.array([1], pa.int32())}))
    t.write(pa.table({"id": pa.array([2], pa.int32())}))
    t.create_tag("tag1")
    t.compact()
    t.delete("id = 1")
    t.create_tag("tag2")
    got = t.read(incremental_between=("tag1", "tag2"), keep_row_kind=True)
    assert kinds(got) == [("-D", 1)]
    assert t.read(incremental_between=("tag1", "tag2")).num_rows == 0

    u = catalog.create_table("db.c2", schema, primary_keys=["id"], options={"bucket": "1", "write-only": "true"})
    u.write(pa.table({"id": pa.array([1], pa.int32())}))
    u.delete("id = 1")
    u.create_tag("tag1")
    u.compact()
    u.write(pa.table({"id": pa.array([1], pa.int32())}))
    u.delete("id = 1")
    u.create_tag("tag2")
    assert u.read(incremental_between=("tag1", "tag2"), keep_row_kind=True).num_rows == 0


def test_between_timestamp(catalog: Catalog) -> None:
    """TableValuedFunctionsTest paimon_incremental_between_timestamp: epoch millis and local times."""
    schema = pa.schema([("id", pa.int32())])
    t = catalog.create_table("db.ts", schema)
    times = []
    for i in range(1, 6):
        t.write(pa.table({"id": pa.array([i], pa.int32())}))
        times.append(t.latest_snapshot().time_millis)  # type: ignore[union-attr]
    t1, t2, t3 = times[0], times[1], times[3]
    assert rows(t.read(incremental_between_timestamp=(t1, t2))) == [(2,)]
    assert rows(t.read(incremental_between_timestamp=(t2, t3))) == [(3,), (4,)]
    assert rows(t.copy({"incremental-between-timestamp": f"{t1},{t3}"}).read()) == [(2,), (3,), (4,)]
    local = [_dt.datetime.fromtimestamp(x / 1000).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] for x in (t1, t3)]
    assert rows(t.copy({"incremental-between-timestamp": ",".join(local)}).read()) == [(2,), (3,), (4,)]
    # before the first snapshot: from the start; after the last: nothing
    assert rows(t.read(incremental_between_timestamp=(t1 - 10_000, t1))) == [(1,)]
    assert t.read(incremental_between_timestamp=(times[-1] + 1, times[-1] + 2)).num_rows == 0
    assert rows(t.read(incremental_between_timestamp=(t1, t2), incremental_mode="diff")) == [(2,)]


def test_to_auto_tag(catalog: Catalog) -> None:
    """IncrementalTableTest.testIncrementalToAutoTagWithManualTag / TableValuedFunctionsTest
    paimon_incremental_to_auto_tag: the diff from the automatic tag before the given one."""
    schema = pa.schema([("a", pa.int32()), ("b", pa.string())])
    t = catalog.create_table("db.at", schema, primary_keys=["a"],
                             options={"bucket": "1", "tag.creation-period": "daily"})
    for i, (a, b, tag) in enumerate([(1, "a", "2024-12-01"), (2, "b", "2024-12-02"), (3, "c", "2024-12-04")]):
        t.write(pa.table({"a": pa.array([a], pa.int32()), "b": [b]}))
        t.create_tag(tag)
        assert i + 1 == t.latest_snapshot().id  # type: ignore[union-attr]
    assert t.read(incremental_to_auto_tag="2024-12-01").num_rows == 0
    assert rows(t.read(incremental_to_auto_tag="2024-12-02")) == [(2, "b")]
    assert t.read(incremental_to_auto_tag="2024-12-03").num_rows == 0
    assert rows(t.copy({"incremental-to-auto-tag": "2024-12-04"}).read()) == [(3, "c")]
    with pytest.raises(ValidationError, match="is not an auto-created tag"):
        t.read(incremental_to_auto_tag="nope")


def test_changelog_mode_reads_changelog_files(catalog: Catalog) -> None:
    """changelog mode reads the changelog files of every snapshot in the range (none here: a
    table without a producer has none); auto picks delta without a producer."""
    t = pk_table(catalog)
    w(t, (1, 1, 1))
    w(t, (1, 1, 2))
    assert t.read(incremental_between=(0, 2), incremental_mode="changelog").num_rows == 0
    assert rows(t.read(incremental_between=(0, 2), incremental_mode="auto")) == [(1, 1, 1), (1, 1, 2)]
    assert rows(t.read(incremental_between=(1, 2), incremental_mode="diff")) == [(1, 1, 2)]
    with pytest.raises(NotFoundError, match="snapshot 0 does not exist"):
        t.read(incremental_between=(0, 2), incremental_mode="diff")


def test_delta_and_changelog_scan_modes_of_one_snapshot(catalog: Catalog) -> None:
    t = pk_table(catalog)
    w(t, (1, 1, 1), (1, 2, 1))
    w(t, (1, 1, 2))
    scan = t.scan(snapshot_id=2).with_mode(ScanMode.DELTA).with_row_kind()
    assert kinds(scan.to_arrow()) == [("+I", 1, 1, 2)]
    assert t.scan(snapshot_id=2).with_mode(ScanMode.CHANGELOG).to_arrow().num_rows == 0
    assert rows(t.scan().to_arrow()) == [(1, 1, 2), (1, 2, 1)]


def test_bad_input(catalog: Catalog) -> None:
    t = pk_table(catalog)
    for _ in range(4):
        w(t, (1, 1, 1))
    with pytest.raises(NotFoundError, match=r"incremental-between.*out of available snapshotId range"):
        t.read(incremental_between=(2, 9))  # a future snapshot
    with pytest.raises(ValidationError, match=r"Ending snapshotId should >= starting snapshotId"):
        t.read(incremental_between=(3, 2))
    with pytest.raises(NotFoundError, match=r"Didn't find two tags for start 'a' and end 'b'"):
        t.read(incremental_between=("a", "b"))
    with pytest.raises(ValidationError, match="incremental-between-scan-mode"):
        t.read(incremental_between=(1, 2), incremental_mode="sideways")
    with pytest.raises(ValidationError, match="incremental-between-scan-mode"):
        t.copy({"incremental-between-scan-mode": "sideways"})
    with pytest.raises(ValidationError, match="incremental-between"):
        t.copy({"incremental-between": "1"}).read()
    with pytest.raises(ValidationError, match="incremental-between-timestamp"):
        t.copy({"incremental-between-timestamp": "x,y"}).read()
    with pytest.raises(ValidationError, match="time travel"):
        t.read(snapshot_id=1, incremental_between=(1, 2))
    with pytest.raises(ValidationError, match="at most one"):
        t.read(incremental_between=(1, 2), incremental_to_auto_tag="2024-01-01")
    with pytest.raises(ValidationError, match="needs an incremental range"):
        t.read(incremental_mode="delta")
    with pytest.raises(ValidationError, match="pair"):
        t.read(incremental_between=(1, 2, 3))  # type: ignore[arg-type]


def test_expired_start(catalog: Catalog) -> None:
    t = pk_table(catalog)
    for i in range(5):
        w(t, (1, i, i))
    t.expire_snapshots(retain_max=2, retain_min=1)
    earliest = t.snapshot_ids()[0]
    assert earliest > 2
    with pytest.raises(NotFoundError, match=r"out of available snapshotId range.*has expired"):
        t.read(incremental_between=(1, 5))
    assert rows(t.read(incremental_between=(earliest - 1, 5))) == [(1, i, i) for i in range(earliest - 1, 5)]


def test_bucket_count_change_refused_in_diff(catalog: Catalog) -> None:
    """Paimon's InconsistentTagBucketException: a diff across a bucket-count change is refused."""
    t = pk_table(catalog)
    w(t, (1, 1, 11), (1, 2, 22))
    t.create_tag("t1", 1)
    t.alter(set_options={"bucket": "2"})
    t = catalog.get_table("db.t")  # type: ignore[assignment]
    t.write(t.read(), overwrite=True)
    t.create_tag("t2")
    with pytest.raises(UnsupportedError, match="bucket number of two snapshots are different"):
        t.read(incremental_between=("t1", "t2"))


# -- the model: folding the delta between two snapshots onto the start gives the end -------------

OPS = st.lists(
    st.one_of(
        st.tuples(st.just("write"), st.lists(st.tuples(st.integers(0, 7), st.integers(0, 99)), min_size=1,
                                             max_size=6)),
        st.tuples(st.just("delete"), st.lists(st.integers(0, 7), min_size=1, max_size=3)),
        st.tuples(st.just("compact"), st.booleans()),
    ),
    min_size=1, max_size=8,
)


def _state(t: Table, sid: int) -> dict[int, int]:
    return {r["k"]: r["v"] for r in t.read(snapshot_id=sid).to_pylist()} if sid else {}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS, data=st.data())
def test_model_delta_folds_to_end(tmp_path_factory: pytest.TempPathFactory, ops: list[Any], data: Any) -> None:
    cat = Catalog(str(tmp_path_factory.mktemp("wh")))
    cat.create_database("db")
    schema = pa.schema([("k", pa.int32()), ("v", pa.int32())])
    t = cat.create_table("db.m", schema, primary_keys=["k"],
                         options={"bucket": "2", "write-only": "true"})
    for op, arg in ops:
        if op == "write":
            last: dict[int, int] = {}
            for k, v in arg:
                last[k] = v
            t.write(pa.table({"k": pa.array(list(last), pa.int32()), "v": pa.array(list(last.values()), pa.int32())}))
        elif op == "delete":
            t.delete(f"k IN ({', '.join(map(str, arg))})")
        else:
            try:
                t.compact(full=arg)
            except PaimonError:
                pass
    ids = t.snapshot_ids()
    if not ids:
        return
    end = data.draw(st.sampled_from(ids))
    start = data.draw(st.integers(0, end))
    state = _state(t, start)
    audit = t.read(incremental_between=(start, end), keep_row_kind=True)
    # fold in commit order: splits come bucket by bucket, files in sequence order per bucket
    for r in audit.to_pylist():
        if r[KIND] in (0, 2):
            state[r["k"]] = r["v"]
        else:
            state.pop(r["k"], None)
    assert state == _state(t, end)
    # a diff between the two snapshots also folds to the end
    if start:
        state = _state(t, start)
        diff = t.read(incremental_between=(start, end), incremental_mode="diff", keep_row_kind=True)
        assert len({r["k"] for r in diff.to_pylist()}) == diff.num_rows
        for r in diff.to_pylist():
            if r[KIND] in (0, 2):
                state[r["k"]] = r["v"]
            else:
                state.pop(r["k"], None)
        assert state == _state(t, end)


def _commit_with_changelog(t: Table, rows_: list[tuple[int, int, int]], kind: int) -> int:
    """One APPEND commit of ``rows_`` (kind ``kind``) whose changelog files hold the same records:
    what changelog-producer 'input' produces, written through the commit plumbing (the producer
    itself is another feature)."""
    data = pa.table({"pt": pa.array([r[0] for r in rows_], pa.int32()), "pk": pa.array([r[1] for r in rows_], pa.int32()),
                     "col1": pa.array([r[2] for r in rows_], pa.int32())})
    w1, w2 = t.new_write(), t.new_write()
    w1.write(data, kind=kind)
    w2.write(data, kind=kind)
    c1, c2 = w1.prepare_commit(), w2.prepare_commit()
    c1.changelog_entries = list(c2.entries)
    c1.written_paths += c2.written_paths
    sid = t.commit_changes([c1])
    assert sid is not None
    return sid


def test_changelog_mode_with_changelog_files(catalog: Catalog) -> None:
    """changelog mode reads the changelog files of every snapshot in the range with their kinds;
    a COMPACT snapshot without changelog adds nothing (row kinds do not depend on compactions)."""
    t = pk_table(catalog)
    _commit_with_changelog(t, [(1, 1, 1), (1, 2, 1)], 0)
    _commit_with_changelog(t, [(1, 1, 1)], 1)  # -U
    _commit_with_changelog(t, [(1, 1, 2)], 2)  # +U
    t.compact()
    _commit_with_changelog(t, [(1, 2, 1)], 3)  # -D
    assert t.latest_snapshot().changelog_manifest_list  # type: ignore[union-attr]
    got = kinds(t.read(incremental_between=(1, 5), incremental_mode="changelog", keep_row_kind=True))
    assert got == [("+U", 1, 1, 2), ("-D", 1, 2, 1), ("-U", 1, 1, 1)]
    assert kinds(t.read(incremental_between=(0, 3), incremental_mode="changelog", keep_row_kind=True)) == [
        ("+I", 1, 1, 1), ("+I", 1, 2, 1), ("+U", 1, 1, 2), ("-U", 1, 1, 1)]
    # the binlog packs -U with the +U after it
    b = catalog.get_table("db.t$binlog").read(incremental_between=(1, 3), incremental_mode="changelog")
    assert [tuple(r.values()) for r in b.to_pylist()] == [("+U", [1, 1], [1, 1], [1, 2])]
