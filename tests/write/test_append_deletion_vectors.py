"""Append tables (no primary key) with ``deletion-vectors.enabled``: inserts are plain appends;
DELETE marks the matching rows in the files' deletion vectors (merged with what a file has, one
OVERWRITE snapshot, no data file rewritten: Paimon's DELETE on such tables); fixed-bucket tables keep
one index file per bucket, bucket-unaware tables index files at bucket 0 combined by file name;
concurrent commits that remove a file or change its vector make the commit conflict."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import WriteConflictError
from paimon_sql.format import deletion_vector
from paimon_sql.meta.index_file_meta import INDEX_TYPE_DELETION_VECTORS
from paimon_sql.meta.kinds import FileKind
from paimon_sql.write.append_deletion_vectors import AppendDeletionVectors, dv_entries_by_bucket
from paimon_sql.write.commit import CommitRequest, WriteBase, commit

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("pt", pa.string())])
UNAWARE = {"deletion-vectors.enabled": "true"}
FIXED = {"deletion-vectors.enabled": "true", "bucket": "2", "bucket-key": "id"}
MODES = [pytest.param(UNAWARE, id="unaware"), pytest.param(FIXED, id="fixed-bucket")]


def _data(ids: list[int], pt: str = "a") -> pa.Table:
    return pa.table({"id": ids, "v": [f"v{i}" for i in ids], "pt": [pt] * len(ids)}, schema=SCHEMA)


def _ids(t: Any) -> list[int]:
    return sorted(t.read().column("id").to_pylist())


def _dv_entries(t: Any) -> list[Any]:
    return [e for e in t.store.manifests.index_entries(t.latest_snapshot())
            if e.index_file.index_type == INDEX_TYPE_DELETION_VECTORS]


def _vectors(t: Any) -> dict[str, list[int]]:
    """Every data file's deleted positions, read from the index files."""
    out: dict[str, list[int]] = {}
    for e in _dv_entries(t):
        data = t.store.file_io.read_bytes(t.store.index_file_path(e.index_file.file_name))
        assert data[0] == deletion_vector.INDEX_FILE_VERSION
        for name, r in (e.index_file.dv_ranges or {}).items():
            pos = deletion_vector.deserialize(data[r.offset : r.offset + r.length + 8])
            assert r.cardinality == pos.size
            out[name] = pos.tolist()
    return out


def _live_files(t: Any) -> set[str]:
    return {e.file.file_name for e in t.store.manifests.live_entries(t.latest_snapshot())}


@pytest.mark.parametrize("opts", MODES)
def test_inserts_are_plain_appends(catalog: Catalog, opts: dict[str, str]) -> None:
    t = catalog.create_table("db.t", SCHEMA, partition_keys=["pt"], options=opts)
    t.write(_data([1, 2, 3]))
    t.write(_data([4, 5], pt="b"))
    assert _ids(t) == [1, 2, 3, 4, 5]
    assert [t.store.snapshots.snapshot(i).commit_kind for i in t.snapshot_ids()] == ["APPEND", "APPEND"]
    assert _dv_entries(t) == [] and t.latest_snapshot().index_manifest is None


@pytest.mark.parametrize("opts", MODES)
def test_delete_writes_deletion_vectors_instead_of_rewriting(catalog: Catalog, opts: dict[str, str]) -> None:
    t = catalog.create_table("db.t", SCHEMA, partition_keys=["pt"], options=opts)
    t.write(_data(list(range(10))))
    t.write(_data(list(range(10, 20)), pt="b"))
    files = _live_files(t)
    sid = t.delete("id IN (2, 3, 15)")
    assert sid == t.latest_snapshot().id == 3
    snap = t.latest_snapshot()
    assert snap.commit_kind == "OVERWRITE"
    assert snap.total_record_count == 20 and snap.delta_record_count == 0  # no data file changed
    assert _live_files(t) == files
    assert _ids(t) == [i for i in range(20) if i not in (2, 3, 15)]
    deleted = sum(len(p) for p in _vectors(t).values())
    assert deleted == 3
    # a second delete merges into the vectors the files have
    assert t.delete("id IN (3, 4, 16) OR v = 'v2'") == 4
    assert _ids(t) == [i for i in range(20) if i not in (2, 3, 4, 15, 16)]
    assert sum(len(p) for p in _vectors(t).values()) == 5
    assert _live_files(t) == files
    # nothing new matches: no commit
    assert t.delete("id IN (2, 3, 100)") is None and t.latest_snapshot().id == 4
    # the rows' positions are those of the files
    for e in t.store.manifests.live_entries(t.latest_snapshot()):
        pos = _vectors(t).get(e.file.file_name, [])
        assert pos == sorted(pos) and all(0 <= p < e.file.row_count for p in pos)


def test_fixed_bucket_tables_keep_one_index_file_per_bucket(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, options=FIXED)
    t.write(_data(list(range(20))))
    t.write(_data(list(range(20, 40))))
    t.delete("id < 5")
    t.delete("id >= 35")
    entries = _dv_entries(t)
    assert len(entries) == len({e.bucket for e in entries}) == 2
    assert {e.bucket for e in entries} == {0, 1}
    assert _ids(t) == list(range(5, 35))


def test_unaware_index_files_are_replaced_by_name(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, options=UNAWARE)
    t.write(_data([1, 2, 3]))
    t.write(_data([4, 5, 6]))
    t.delete("id = 1")
    (first,) = _dv_entries(t)
    assert first.bucket == 0
    t.delete("id = 5")  # another file: a new index file, the first one stays
    names = {e.index_file.file_name for e in _dv_entries(t)}
    assert len(names) == 2 and first.index_file.file_name in names
    t.delete("id = 2")  # the first file again: its index file is replaced
    after = {e.index_file.file_name for e in _dv_entries(t)}
    assert len(after) == 2 and first.index_file.file_name not in after
    assert _ids(t) == [3, 4, 6]
    assert sorted(len(p) for p in _vectors(t).values()) == [1, 2]


def test_unaware_index_files_roll_at_the_target_size(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, options={**UNAWARE, "deletion-vector.index-file.target-size": "1 b"})
    for i in range(3):
        t.write(_data([10 * i, 10 * i + 1]))
    t.delete("id IN (0, 10, 20)")
    entries = _dv_entries(t)
    assert len(entries) == 3 and all(len(e.index_file.dv_ranges or {}) == 1 for e in entries)
    assert _ids(t) == [1, 11, 21]


def _prepare_delete(t: Any, file_name: str, positions: list[int]) -> tuple[CommitRequest, Any]:
    """A deletion-vector change of ``file_name`` prepared on the latest snapshot (not committed)."""
    base = t.latest_snapshot()
    (e,) = [e for e in t.store.manifests.live_entries(base) if e.file.file_name == file_name]
    dvs = AppendDeletionVectors(t.store, e.partition, e.bucket,
                                dv_entries_by_bucket(t.store, base).get((e.partition, e.bucket), []))
    dvs.delete(file_name, np.array(positions, dtype=np.int64))
    entries, _ = dvs.persist()
    return CommitRequest("OVERWRITE", (), tuple(entries), base=WriteBase(base.id, t.store.schema.id)), base


@pytest.mark.parametrize("opts", MODES)
def test_a_concurrent_commit_removing_the_file_conflicts(catalog: Catalog, opts: dict[str, str]) -> None:
    t = catalog.create_table("db.t", SCHEMA, options=opts)
    t.write(_data([1]))
    (name,) = _live_files(t)
    req, _ = _prepare_delete(t, name, [0])
    t.write(_data([7]), overwrite=True)  # removes the file
    with pytest.raises(WriteConflictError, match="no longer exists"):
        commit(t.store, req)
    assert _ids(t) == [7]


@pytest.mark.parametrize("opts", MODES)
def test_concurrent_deletes_of_one_file_conflict(catalog: Catalog, opts: dict[str, str]) -> None:
    t = catalog.create_table("db.t", SCHEMA, options={**opts, "bucket": "1"} if "bucket" in opts else opts)
    t.write(_data([1]))
    t.write(_data([1, 2, 3]))
    name = next(e.file.file_name for e in t.store.manifests.live_entries(t.latest_snapshot())
                if e.file.row_count == 3)
    t.delete("id = 1")  # the file has a vector now (and so has the first one)
    first, _ = _prepare_delete(t, name, [1])
    second, _ = _prepare_delete(t, name, [2])
    commit(t.store, first)
    with pytest.raises(WriteConflictError):
        commit(t.store, second)
    assert _ids(t) == [3]  # the first delete landed whole, the second not at all


def test_fixed_bucket_index_replaced_concurrently_conflicts(catalog: Catalog) -> None:
    """Two deletes of different files of one fixed bucket: the bucket's index file is rewritten
    whole, so the later one would drop the earlier one's vectors."""
    t = catalog.create_table("db.t", SCHEMA, options={**FIXED, "bucket": "1"})
    t.write(_data([1, 2]))
    t.write(_data([3, 4]))
    a, b = sorted(_live_files(t))
    first, _ = _prepare_delete(t, a, [0])
    second, _ = _prepare_delete(t, b, [0])
    commit(t.store, first)
    with pytest.raises(WriteConflictError, match="replaced"):
        commit(t.store, second)
    assert len(_ids(t)) == 3


def test_table_delete_is_redone_after_a_conflict(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """A delete that loses to a concurrent delete of the same file plans again on the new snapshot."""
    import paimon_sql.write.commit as commit_mod

    t = catalog.create_table("db.t", SCHEMA, options=UNAWARE)
    t.write(_data([1, 2, 3]))
    (name,) = _live_files(t)
    real = commit_mod.commit
    raced: list[int] = []

    def racing_commit(store: Any, req: CommitRequest) -> Any:
        if not raced:  # a concurrent delete of row 3 lands first
            raced.append(1)
            other, _ = _prepare_delete(t, name, [2])
            real(store, other)
        return real(store, req)

    monkeypatch.setattr(commit_mod, "commit", racing_commit)
    t.delete("id = 1")
    assert _ids(t) == [2]
    assert _vectors(t) == {name: [0, 2]}
    kinds = [t.store.snapshots.snapshot(i).commit_kind for i in t.snapshot_ids()]
    assert kinds == ["APPEND", "OVERWRITE", "OVERWRITE"]


def test_delete_entries_name_the_replaced_index_files(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, options=UNAWARE)
    t.write(_data([1, 2]))
    t.delete("id = 1")
    (old,) = _dv_entries(t)
    (name,) = _live_files(t)
    req, _ = _prepare_delete(t, name, [1])
    kinds = sorted((e.kind, e.index_file.file_name == old.index_file.file_name) for e in req.index_entries)
    assert kinds == [(FileKind.ADD, False), (FileKind.DELETE, True)]


# -- compaction ---------------------------------------------------------------------------------

@pytest.mark.parametrize("opts", [UNAWARE, {**FIXED, "bucket": "1"}, FIXED], ids=["unaware", "bucket-1", "bucket-2"])
def test_compaction_rewrites_files_without_deleted_rows_and_drops_their_vectors(
    catalog: Catalog, opts: dict[str, str],
) -> None:
    """Paimon's DeletionVectorTest 'delete for append non-partitioned table': after the deletes a
    compaction leaves no deletion vector and the same rows."""
    t = catalog.create_table("db.t", SCHEMA, options=opts)
    t.write(_data([1, 2]))
    t.delete("id = 2")
    t.write(_data([2, 3, 4]))
    t.delete("id IN (1, 3)")
    assert _ids(t) == [2, 4] and _dv_entries(t)
    result = t.compact()
    snap = t.latest_snapshot()
    assert result.snapshot_id == snap.id and snap.commit_kind == "COMPACT"
    assert _dv_entries(t) == [] and snap.index_manifest is not None
    assert _ids(t) == [2, 4]
    assert sum(e.file.row_count for e in t.store.manifests.live_entries(snap)) == 2 == snap.total_record_count


def test_compaction_of_a_partition_keeps_the_other_partitions_vectors(catalog: Catalog) -> None:
    """Paimon's DeletionVectorTest 'delete for append partitioned table' (bucket-unaware)."""
    t = catalog.create_table("db.t", SCHEMA, partition_keys=["pt"], options=UNAWARE)
    t.write(pa.concat_tables([_data([1, 2], "2024"), _data([3, 4], "2025")]))
    t.delete("id = 2")
    t.delete("id = 3")
    assert {e.partition for e in _dv_entries(t)} and len(_dv_entries(t)) == 2
    t.compact(where="pt = '2024'")
    (left,) = _dv_entries(t)
    (f2025,) = [e for e in t.store.manifests.live_entries(t.latest_snapshot()) if e.partition == left.partition]
    assert set(left.index_file.dv_ranges or {}) == {f2025.file.file_name}
    assert _ids(t) == [1, 4]
    t.compact(where="pt = '2025'")
    assert _dv_entries(t) == [] and _ids(t) == [1, 4]


def test_unaware_large_files_are_compacted_by_their_delete_ratio(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, options={**UNAWARE, "target-file-size": "1 kb"})
    t.write(_data(list(range(300))))
    (big,) = t.store.manifests.live_entries(t.latest_snapshot())
    assert big.file.file_size >= t.store.options.compaction_file_size(False)
    t.delete("id < 10")  # 10 of 300 rows: below compaction.delete-ratio-threshold (0.2)
    assert t.compact().snapshot_id is None
    t.delete("id < 100")  # 100 of 300
    assert t.compact().snapshot_id is not None
    after = t.store.manifests.live_entries(t.latest_snapshot())
    assert big.file.file_name not in _live_files(t)  # rewritten into files of about the target size
    assert sum(e.file.row_count for e in after) == 200 and _dv_entries(t) == []
    assert _ids(t) == list(range(100, 300))
    t2 = catalog.create_table("db.t2", SCHEMA, options={**UNAWARE, "target-file-size": "1 kb",
                                                        "compaction.delete-ratio-threshold": "0.01"})
    t2.write(_data(list(range(300))))
    t2.delete("id < 10")
    assert t2.compact().snapshot_id is not None and _dv_entries(t2) == []


def test_fixed_bucket_compaction_skips_leading_large_files_without_vectors(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, options={**FIXED, "bucket": "1", "target-file-size": "1 kb"})
    t.write(_data(list(range(300))))  # large
    t.write(_data([1000, 1001]))  # small
    big = next(e.file.file_name for e in t.store.manifests.live_entries(t.latest_snapshot()) if e.file.row_count == 300)
    t.compact()
    assert big in _live_files(t) and len(_live_files(t)) == 2  # the small file is rewritten alone
    t.delete("id = 5")  # the large file has a vector now: it is rewritten too
    t.compact()
    assert big not in _live_files(t) and _dv_entries(t) == []
    assert _ids(t) == [i for i in range(300) if i != 5] + [1000, 1001]


def test_a_concurrent_delete_makes_the_compaction_conflict(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    import paimon_sql.write.commit as commit_mod

    t = catalog.create_table("db.t", SCHEMA, options=UNAWARE)
    t.write(_data([1, 2, 3]))
    t.write(_data([4, 5, 6]))
    t.delete("id = 1")
    real = commit_mod.commit
    raced: list[int] = []

    def racing_commit(store: Any, req: CommitRequest) -> Any:
        if not raced:
            raced.append(1)
            t.delete("id = 2")  # lands between the compaction's read and its commit
        return real(store, req)

    monkeypatch.setattr(commit_mod, "commit", racing_commit)
    with pytest.raises(WriteConflictError, match="deletion"):
        t.compact()
    assert _ids(t) == [3, 4, 5, 6]
    listed = {n for n in t.store.file_io.list_names(t.store.bucket_dir([], 0)) if n.startswith("data-")}
    assert listed == _live_files(t)  # the compaction's files are deleted


def test_sort_compaction_applies_and_drops_the_vectors(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, options=UNAWARE)
    t.write(_data([5, 1, 3]))
    t.write(_data([4, 2]))
    t.delete("id IN (3, 4)")
    t.sort_compact("order", ["id"])
    assert t.latest_snapshot().commit_kind == "OVERWRITE"
    assert _dv_entries(t) == []
    assert t.read().column("id").to_pylist() == [1, 2, 5]


# -- the bytes Apache Paimon writes --------------------------------------------------------------

# Apache Paimon's test resource compatibility/dvindex-32 (paimon-core): a v1 index file written by
# its DeletionVectorsIndexFile holding {2, 3} (offset 1, length 24) and then {1} (offset 33, length 22)
JAVA_DV_INDEX_32 = bytes.fromhex(
    "01000000185e43f2d03a30000001000000000001001000000002000300c898f63d"
    "000000165e43f2d03a3000000100000000000000100000000100fa2b5192"
)


def test_index_files_are_byte_identical_to_paimon(catalog: Catalog) -> None:
    from paimon_sql.write.append_deletion_vectors import write_index_files

    t = catalog.create_table("db.t", SCHEMA, options=UNAWARE)
    ((meta, path),) = write_index_files(t.store, {"a": np.array([2, 3]), "b": np.array([1])}, None)
    assert t.store.file_io.read_bytes(path) == JAVA_DV_INDEX_32
    ranges = {k: (r.offset, r.length, r.cardinality) for k, r in (meta.dv_ranges or {}).items()}
    assert ranges == {"a": (1, 24, 2), "b": (33, 22, 1)}


@pytest.mark.parametrize("opts", MODES)
def test_reads_apply_vectors_paimon_wrote(catalog: Catalog, opts: dict[str, str]) -> None:
    """An index file with Apache Paimon's bytes, committed for two files of one bucket, deletes
    their rows at those positions (reads, count by metadata, a later DELETE merging into them)."""
    from paimon_sql.meta.index_file_meta import DeletionVectorRange, IndexFileMeta, IndexManifestEntry
    from paimon_sql.spark.native_read import count_rows

    t = catalog.create_table("db.t", SCHEMA, options={**opts, "bucket": "1"} if "bucket" in opts else opts)
    t.write(_data([10, 11, 12, 13, 14]))
    t.write(_data([20, 21, 22]))
    live = sorted(t.store.manifests.live_entries(t.latest_snapshot()), key=lambda e: -e.file.row_count)
    a, b = live[0], live[1]
    name = "index-java-compat-0"
    t.store.file_io.write_bytes(t.store.index_file_path(name), JAVA_DV_INDEX_32)
    ranges = {a.file.file_name: DeletionVectorRange(1, 24, 2), b.file.file_name: DeletionVectorRange(33, 22, 1)}
    meta = IndexFileMeta(INDEX_TYPE_DELETION_VECTORS, name, len(JAVA_DV_INDEX_32), 2, ranges)
    commit(t.store, CommitRequest("OVERWRITE", (), (IndexManifestEntry(FileKind.ADD, a.partition, a.bucket, meta),),
                                  base=WriteBase(t.latest_snapshot().id, t.store.schema.id)))
    assert _ids(t) == [10, 11, 14, 20, 22]
    assert count_rows(t, {}).count == 5
    t.delete("id = 22")
    assert _ids(t) == [10, 11, 14, 20]
    assert _vectors(t) == {a.file.file_name: [2, 3], b.file.file_name: [1, 2]}
    t.compact()
    assert _ids(t) == [10, 11, 14, 20] and _dv_entries(t) == []
